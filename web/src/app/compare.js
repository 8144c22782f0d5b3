// compare.js -- "Compare two plans": plan A is the one shown; plan B is the
// same model under another option set (arena or slots, in-place reuse,
// alignment, other dim bindings) or a second model (opened or dropped here).
// The worker's `diff` (memplan_diff_requests, the CLI's `memplan diff --json`
// with a request per side) gives the figures, the deltas and the values whose
// size, live interval or offset changed; the two plans' live bytes are drawn
// over each other. Names from the models are set as text.
import { el } from '../charts/base.js';
import { createOverlay } from '../charts/overlay.js';
import { memorySeries } from '../data/series.js';
import { normalizePlan } from '../data/plan.js';
import { formatBytes, formatInt } from '../data/format.js';
import { ALIGNS } from './controller.js';
import { bindingName, CHART_NAMES, pngTitle } from './exports.js';
import { inputField, selectField } from './fields.js';

const ROWS_MAX = 200;

/**
 * The figures of a diff side, in the order shown: [key, label] (peak, bound and naive of the side's strategy;
 * weights, graph inputs and the total to fit as the side's plan gives them, null when some part has no known size).
 */
export const DIFF_FIGURES = [
  ['peak_bytes', 'planned peak'],
  ['slots_bytes', 'slot plan'],
  ['lower_bound_bytes', 'lower bound'],
  ['naive_bytes', 'naive total'],
  ['weight_bytes', 'weights'],
  ['input_bytes', 'graph inputs'],
  ['total_bytes', 'total to fit'],
];

/** A delta in bytes with its share of a: "+1,024 B (+12.5%)". */
export function formatDelta(d, a) {
  if (d === null || d === undefined) return '—';
  const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
  const pct = a ? ` (${sign}${Math.abs((100 * d) / a).toFixed(1)}%)` : '';
  return `${sign}${formatInt(Math.abs(d))} B${pct}`;
}

/**
 * Plan B's arguments: plan A's (ctl.planRequest()) with B's strategy,
 * alignment, in-place switch and dims ({name: value}, added or replacing A's).
 */
export function argsFor(planArgs, { strategy, align, inplace, dims = {} }) {
  const out = [];
  for (let k = 0; k < planArgs.length; k++) {
    const a = planArgs[k];
    if (a === '--strategy' || a === '--align') {
      k++;
      continue;
    }
    if (a === '--inplace') continue;
    if (a === '--dim' && Object.hasOwn(dims, bindingName(planArgs[k + 1]))) {
      k++;
      continue;
    }
    out.push(a);
  }
  const head = ['--strategy', strategy, '--align', String(align)];
  if (inplace) head.push('--inplace');
  const extra = Object.entries(dims)
    .filter(([, v]) => v !== '')
    .flatMap(([d, v]) => ['--dim', `${d}=${v}`]);
  return [...head, ...out, ...extra];
}

/**
 * Plan A's arguments made fit for a second model B, from B's `info --json`:
 * the `--value` bindings of inputs B does not have, and the `--dim` bindings
 * of dims none of B's inputs has, are left out (the CLI refuses a value for
 * an input the model lacks: "the model has no graph input named 'sr'").
 * {args, dropped: ['--value sr=16000', ...]}. Without `info` (B unknown)
 * every `--value` is dropped and the dims are kept (a dim B lacks binds nothing).
 * `--share-kv` goes only to a B whose info lists KV-cache pairs (`kv_cache`):
 * the CLI refuses it for a model without one.
 */
export function fitBindings(planArgs, info) {
  const inputs = Array.isArray(info?.inputs) ? info.inputs : null;
  const names = new Set(inputs?.map((v) => v?.name));
  const dims = new Set(
    (inputs ?? []).flatMap((v) => (Array.isArray(v?.shape) ? v.shape.filter((d) => typeof d === 'string') : [])),
  );
  const args = [],
    dropped = [];
  for (let k = 0; k < planArgs.length; k++) {
    const a = planArgs[k];
    if (a === '--share-kv' && !(Array.isArray(info?.kv_cache) && info.kv_cache.length)) {
      dropped.push(a);
      continue;
    }
    if ((a === '--value' || a === '--dim') && k + 1 < planArgs.length) {
      const name = bindingName(planArgs[k + 1]);
      const keep = a === '--value' ? inputs !== null && names.has(name) : inputs === null || dims.has(name);
      (keep ? args : dropped).push(...(keep ? [a, planArgs[k + 1]] : [`${a} ${planArgs[k + 1]}`]));
      k++;
      continue;
    }
    args.push(a);
  }
  return { args, dropped };
}

/**
 * How B's controls differ from plan A's options, in words: "B differs from A
 * in: in-place reuse on (A: off)." a = {strategy, align, inplace}; b the same
 * plus dims (the text typed), model (B is another model) and dropped
 * (fitBindings' list: A's bindings not sent to that model).
 */
export function differsText(a, b) {
  const diffs = [];
  if (b.strategy !== a.strategy) diffs.push(`strategy ${b.strategy} (A: ${a.strategy})`);
  if (Number(b.align) !== Number(a.align)) diffs.push(`align ${b.align} (A: ${a.align})`);
  if (!!b.inplace !== !!a.inplace)
    diffs.push(`in-place reuse ${b.inplace ? 'on' : 'off'} (A: ${a.inplace ? 'on' : 'off'})`);
  if (String(b.dims ?? '').trim()) diffs.push(`dims ${String(b.dims).trim()}`);
  const text = b.model
    ? diffs.length
      ? `B is another model, and differs from A in: ${diffs.join(', ')}.`
      : "B is another model, with A's options."
    : diffs.length
      ? `B differs from A in: ${diffs.join(', ')}.`
      : "B has A's options: change one to compare.";
  const drop =
    b.model && b.dropped?.length ? ` Not sent to B (not among its inputs' names): ${b.dropped.join(', ')}.` : '';
  return text + drop;
}

/** "seq=256, batch=2" as {seq: '256', batch: '2'}; a part without '=' is an error. */
export function parseDims(text) {
  const out = {};
  for (const part of String(text).split(',')) {
    const t = part.trim();
    if (!t) continue;
    const eq = t.lastIndexOf('=');
    if (eq <= 0) throw new Error(`"${t}" is not a dim binding: write NAME=VALUE, e.g. seq=256`);
    out[t.slice(0, eq).trim()] = t.slice(eq + 1).trim();
  }
  return out;
}

/** One option set in words: "arena, align 64, in-place, seq=256". */
function describeArgs(args) {
  const parts = [];
  for (let k = 0; k < args.length; k++) {
    if (args[k] === '--strategy') parts.push(args[++k]);
    else if (args[k] === '--align') parts.push(`align ${args[++k]}`);
    else if (args[k] === '--inplace') parts.push('in-place');
    else if (args[k] === '--share-kv') parts.push('KV cache in place');
    else if (args[k] === '--fuse-qdq') parts.push('QDQ fused');
    else if (args[k] === '--workspace') parts.push('kernel workspace');
    else if (args[k] === '--float16-cpu') parts.push('float16 on the CPU');
    else if (args[k] === '--dim' || args[k] === '--value') parts.push(args[++k]);
  }
  return parts.join(', ');
}

export function createCompare(container, ctl, client) {
  const sec = el('details', 'mpv-compare');
  sec.append(el('summary', '', 'Compare two plans'));
  const form = el('form', 'mpv-compare-form');
  const what = selectField('B is', 'mpv-compare-what', [
    ['options', 'this model, other options'],
    ['model', 'another model'],
  ]);
  const { input: file, wrap: fileWrap } = inputField('model B', 'mpv-compare-file', { type: 'file', accept: '.onnx' });
  fileWrap.classList.add('mpv-compare-filewrap');
  const strategy = selectField('strategy', 'mpv-compare-strategy', [
    ['arena', 'arena'],
    ['slots', 'slots'],
  ]);
  const align = selectField(
    'align',
    'mpv-compare-align',
    ALIGNS.map((a) => [a, String(a)]),
  );
  const { input: inplace, wrap: inplaceWrap } = inputField('in-place reuse', 'mpv-compare-inplace', {
    type: 'checkbox',
  });
  const { input: dims, wrap: dimsWrap } = inputField("dims (B's, replacing A's)", 'mpv-compare-dims', {
    type: 'text',
    placeholder: 'seq=256, batch=2',
  });
  const run = el('button', 'mpv-btn', 'Compare');
  run.type = 'submit';
  // What B is against A, kept up to date: in-place reuse starts opposite to A's, said here.
  const differs = el('p', 'mpv-compare-differs');
  form.append(what.wrap, fileWrap, strategy.wrap, align.wrap, inplaceWrap, dimsWrap, run, differs);
  const status = el('p', 'mpv-compare-status muted');
  status.setAttribute('role', 'status');
  const figures = el('div', 'mpv-atpeak-wrap mpv-compare-figures');
  const chartBox = el('div', 'mpv-charts');
  const changes = el('div', 'mpv-atpeak-wrap mpv-compare-values');
  const hint = el(
    'p',
    'mpv-hint muted',
    'A is the plan shown above. B: the same model with the options here, or another model (pick it, or drop it on this panel).',
  );
  sec.append(hint, form, status, figures, chartBox, changes);
  container.append(sec);
  const overlay = createOverlay(chartBox, { key: 'compare' });
  sec.addEventListener('toggle', () => sec.open && overlay.resize());

  let other = null; // {model, name}: the second model, open in the worker
  let last = null; // {seq, diff, argsA, argsB, names, ms, nameA, nameB}
  let gen = 0;

  /** B's options as the form has them. */
  const formB = () => ({
    model: what.sel.value === 'model',
    strategy: strategy.sel.value,
    align: Number(align.sel.value),
    inplace: inplace.checked,
    dims: dims.value,
  });
  function syncDiffers() {
    const s = ctl.state;
    const b = formB();
    const dropped = b.model && other && ctl.model ? fitBindings(ctl.planRequest(), other.model.info).dropped : [];
    differs.textContent = differsText(s, { ...b, dropped });
  }
  const syncWhat = () => {
    fileWrap.hidden = what.sel.value !== 'model';
    syncDiffers();
  };
  what.sel.addEventListener('change', syncWhat);
  form.addEventListener('change', syncDiffers);
  form.addEventListener('input', syncDiffers);
  /** No comparison shown: its tables, curves and the chart's caption cleared. */
  function clearShown() {
    last = null;
    figures.replaceChildren();
    changes.replaceChildren();
    overlay.setData([]);
    overlay.setSummary('');
  }
  /** B's controls start as A's options. */
  function resetB() {
    const s = ctl.state;
    strategy.sel.value = s.strategy;
    align.sel.value = String(s.align);
    inplace.checked = !s.inplace; // the most asked-for comparison: in-place off against on (the note says so)
    dims.value = '';
    syncDiffers();
  }

  async function openOther(f) {
    const my = ++gen;
    status.textContent = `opening ${f.name}…`;
    const m = await client.open(f);
    if (my !== gen) {
      m.close().catch(() => {});
      return null;
    }
    other?.model.close().catch(() => {});
    other = { model: m, name: f.name };
    status.textContent = `B: ${f.name}, ${formatInt(m.info.nodes)} nodes`;
    syncDiffers();
    return other;
  }
  file.addEventListener('change', () => {
    const f = file.files?.[0];
    if (f) {
      what.sel.value = 'model';
      syncWhat();
      openOther(f).catch((e) => (status.textContent = `${f.name}: ${e.message}`));
    }
  });
  sec.addEventListener('dragover', (ev) => ev.preventDefault());
  sec.addEventListener('drop', (ev) => {
    const f = ev.dataTransfer?.files?.[0];
    if (!f) return;
    ev.preventDefault();
    ev.stopPropagation(); // dropped here: model B, not a new model A
    what.sel.value = 'model';
    syncWhat();
    openOther(f).catch((e) => (status.textContent = `${f.name}: ${e.message}`));
  });

  function figureTable(diff, names) {
    // The sides' names above the table (they can be long): the columns are A, B and B − A.
    const who = el('ul', 'mpv-compare-names');
    who.append(el('li', '', `A: ${names[0]}`), el('li', '', `B: ${names[1]}`));
    const table = el('table', 'mpv-atpeak-table mpv-compare-table');
    const hr = el('tr');
    for (const h of ['', 'A', 'B', 'B − A']) hr.append(el('th', '', h));
    const thead = el('thead');
    thead.append(hr);
    const tbody = el('tbody');
    const exact = (v) => (v === null ? '—' : `${formatInt(v)} B`);
    const row = (label, a, b, d, key) => {
      const tr = el('tr');
      tr.dataset.figure = key;
      tr.append(el('th', '', label), el('td', 'num', a), el('td', 'num', b), el('td', 'num', d));
      tbody.append(tr);
    };
    row('status', diff.a.status, diff.b.status, '', 'status');
    for (const [key, label] of DIFF_FIGURES)
      row(label, exact(diff.a[key]), exact(diff.b[key]), formatDelta(diff.delta[key], diff.a[key]), key);
    row('positions', formatInt(diff.a.positions), formatInt(diff.b.positions), '', 'positions');
    row('buffers', formatInt(diff.a.buffers), formatInt(diff.b.buffers), '', 'buffers');
    table.append(thead, tbody);
    figures.replaceChildren(who, table);
  }

  function valuesTable(diff) {
    const v = diff.values;
    const head = el(
      'p',
      'mpv-compare-counts',
      `${formatInt(v.changed.length)} of ${formatInt(v.in_both)} values in both changed (size, live interval or offset); ` +
        `${formatInt(v.only_a.length)} only in A, ${formatInt(v.only_b.length)} only in B.`,
    );
    const table = el('table', 'mpv-atpeak-table mpv-compare-changed');
    const hr = el('tr');
    for (const h of ['value', 'size A', 'size B', 'live A', 'live B', 'offset A', 'offset B'])
      hr.append(el('th', '', h));
    const thead = el('thead');
    thead.append(hr);
    const tbody = el('tbody');
    const n = (x) => (x === null ? '—' : formatInt(x));
    for (const c of v.changed.slice(0, ROWS_MAX)) {
      const tr = el('tr');
      tr.dataset.name = c.name;
      const nameBtn = el('button', 'mpv-link', c.name);
      nameBtn.type = 'button';
      nameBtn.addEventListener('click', () => ctl.select(c.name)); // A is the plan shown
      const td = el('td');
      td.append(nameBtn);
      tr.append(
        td,
        el('td', 'num', n(c.a.size)),
        el('td', 'num', n(c.b.size)),
        el('td', 'num', `${c.a.start}–${c.a.end}`),
        el('td', 'num', `${c.b.start}–${c.b.end}`),
        el('td', 'num', n(c.a.offset)),
        el('td', 'num', n(c.b.offset)),
      );
      tbody.append(tr);
    }
    table.append(thead, tbody);
    changes.replaceChildren(head, table);
    if (v.changed.length > ROWS_MAX)
      changes.append(el('p', 'muted', `… ${formatInt(v.changed.length - ROWS_MAX)} more`));
  }

  /** Live bytes per position of a plan JSON (the lower bound's basis), and its peak. */
  function curve(plan, label) {
    const m = normalizePlan(plan);
    return { label, live: memorySeries(m).liveBound, peak: m.peak };
  }

  /**
   * Compare plan A (the plan shown) with B: b = {strategy, align, inplace,
   * dims: {name: value}} on this model, or with model: true the second model
   * (opened with openOther). Resolves to {diff, argsA, argsB, names, ms}.
   */
  async function compare(b) {
    const a = ctl.model;
    if (!a) throw new Error('open a model to compare');
    const bModel = b.model ? other?.model : a;
    if (!bModel) throw new Error('open model B first (the file input, or drop it here)');
    const argsA = ctl.planRequest();
    // `diff` plans the graphs as written (it refuses --float16-cpu): no comparison of the graph
    // ONNX Runtime's CPU execution provider runs against another plan.
    if (argsA.includes('--float16-cpu')) {
      status.textContent =
        'no comparison of the graph ONNX Runtime runs (diff does not take --float16-cpu): untick “float16 on the CPU” to compare';
      throw new Error(status.textContent);
    }
    const my = ++gen;
    // A second model gets only the bindings whose names it has (its inputs and their dims).
    const fit = b.model ? fitBindings(argsA, other.model.info) : { args: argsA, dropped: [] };
    const argsB = argsFor(fit.args, b);
    const nameA = ctl.state.name,
      nameB = b.model ? other.name : ctl.state.name;
    const names = [`${nameA} (${describeArgs(argsA)})`, `${nameB} (${describeArgs(argsB)})`];
    status.textContent = 'comparing…';
    run.disabled = true;
    const t0 = performance.now();
    try {
      const diff = await a.diff(bModel, argsA, argsB, [nameA, nameB]);
      const [pa, pb] = await Promise.all([
        a.call('plan', [...argsA, '--no-nodes']),
        bModel.call('plan', [...argsB, '--no-nodes']),
      ]);
      if (my !== gen || a !== ctl.model) return null;
      const ms = performance.now() - t0;
      last = { seq: my, diff, argsA, argsB, names, ms, nameA, nameB, dropped: fit.dropped };
      figureTable(diff, names);
      valuesTable(diff);
      overlay.setData([curve(pa, names[0]), curve(pb, names[1])]);
      const d = diff.delta.peak_bytes;
      overlay.setSummary(
        `Live bytes over time of A (${names[0]}) and B (${names[1]}); planned peak ${d === null ? 'not comparable (a plan is deferred)' : formatDelta(d, diff.a.peak_bytes)}.`,
      );
      status.textContent =
        `compared in ${Math.round(ms)} ms: planned peak ${
          d === null ? '—' : `${formatBytes(diff.a.peak_bytes)} → ${formatBytes(diff.b.peak_bytes)}`
        }` + (fit.dropped.length ? `; not sent to B (not among its inputs' names): ${fit.dropped.join(', ')}` : '');
      return last;
    } catch (e) {
      if (e.name === 'AbortError' && b.model) other = null; // the worker restarted: model B is gone
      if (my === gen) {
        clearShown(); // the tables and curves (and the chart's caption) of an earlier comparison go
        status.textContent =
          e.name === 'AbortError'
            ? 'cancelled: the worker restarted (open model B again to compare with it)'
            : e.message;
      }
      throw e;
    } finally {
      if (my === gen) run.disabled = false;
    }
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    let d;
    try {
      d = parseDims(dims.value);
    } catch (e) {
      status.textContent = e.message;
      return;
    }
    compare({ ...formB(), dims: d }).catch(() => {});
  });

  ctl.on('load', () => {
    gen++;
    clearShown();
    status.textContent = '';
    resetB();
  });
  // A re-planned with other options, dims or values: the comparison shown is no longer of the plan shown.
  ctl.on('applied', () => {
    syncDiffers();
    if (!last || !ctl.model) return;
    const now = ctl.planRequest();
    if (now.length === last.argsA.length && now.every((a, k) => a === last.argsA[k])) return;
    gen++;
    clearShown();
    run.disabled = false;
    status.textContent = 'A changed since the comparison: compare again';
  });
  syncWhat();

  return {
    compare,
    /** Open model B from a File (the file input does the same). */
    openOther,
    overlay,
    /** The last comparison shown (null once cleared: A changed, or a comparison failed): {seq (counts up
     *  with each comparison started), diff (the worker's `diff` JSON), argsA, argsB, names, ms, nameA,
     *  nameB, dropped (A's bindings not sent to a second model B)}. */
    get last() {
      return last;
    },
    /** The PNG's title line: model A, then what A and B are ("A: arena, … against B: x.onnx (slots, …)"). */
    pngTitle() {
      if (!last) return pngTitle(ctl.state, CHART_NAMES.compare);
      return pngTitle(
        { shownName: last.nameA, name: last.nameA },
        `${CHART_NAMES.memory}, A (${describeArgs(last.argsA)}) against B (${last.nameB === last.nameA ? '' : `${last.nameB}, `}${describeArgs(last.argsB)})`,
      );
    },
    destroy() {
      other?.model.close().catch(() => {});
      overlay.destroy();
    },
  };
}
