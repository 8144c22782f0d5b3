// figures.js -- the plan's figures (the total to fit first: weights + graph
// inputs outside the arena + planned peak; then naive total, planned peak,
// lower bound, savings, in-place saves and the weights), the strategies line, and the
// deferred panel (the values without a size, with the C library's reasons, and
// the unbound dims). Every number is the plan JSON's. Redrawn when a plan is
// applied.
import { el } from '../charts/base.js';
import { formatBytes, formatBytesExact, formatInt, formatRatio } from '../data/format.js';
import { modelMemory, planAt } from '../data/plan.js';
import { isCount, toNumber } from '../data/exact.js';

/**
 * The naive total and savings shown: the plan's, or with in-place reuse on,
 * against the naive total of the same plan without it (ctl.state.baseline),
 * so that turning reuse on never lowers the baseline. savings_ratio's rule
 * (docs/semantics.md "The figures of a planned plan"): 1 - peak / naive, 0
 * when naive is 0, 6 significant digits. {naive (a Number, for drawing),
 * naiveExact (a BigInt beyond 2^53, for showing), savings, rebased}.
 */
export function savingsOf({ m, baseline, path }) {
  const base = baseline ? planAt(baseline, path)?.plan : null;
  const naiveExact = base && isCount(base.naive_bytes) ? base.naive_bytes : null;
  if (naiveExact === null || m.peak === null)
    return { naive: m.naive, naiveExact: m.exact.naive, savings: m.savings, rebased: false };
  const naive = toNumber(naiveExact);
  return { naive, naiveExact, savings: naive ? Number((1 - m.peak / naive).toPrecision(6)) : 0, rebased: true };
}

const NAIVE_HINT = 'Every buffer allocated separately (naive_bytes)';
const SAVINGS_HINT = '1 - planned peak / naive total (savings_ratio)';

/**
 * The Savings card's exact line and title for savingsOf's `sv` of plan model
 * `m`: the plan's savings_ratio, or when rebased (in-place reuse on) the
 * ratio against the naive total without in-place reuse, said so, with the
 * CLI's savings_ratio (against the --inplace plan's own naive total) beside it.
 */
export function savingsCard(sv, m) {
  if (sv.savings === null || sv.savings === undefined) return { exact: '', title: SAVINGS_HINT };
  if (!sv.rebased) return { exact: `ratio ${sv.savings}`, title: SAVINGS_HINT };
  const cli = m.savings === null ? '—' : String(m.savings);
  return {
    exact: `ratio ${sv.savings} (rebased; CLI ${cli})`,
    title:
      `1 - planned peak / naive total without in-place reuse (${formatInt(sv.naiveExact)} B): rebased, so that turning ` +
      `in-place reuse on never lowers the baseline. The CLI's savings_ratio with --inplace is ${cli}, against that ` +
      `plan's own naive total (${formatInt(m.exact.naive)} B)`,
  };
}
const plural = (n, one, many = `${one}s`) => `${formatInt(n)} ${Number(n) === 1 ? one : many}`;

/**
 * The Weights and Total-to-fit cards' text, from the whole model's plan JSON
 * `root` (a body shown still shows the whole model's: a runtime loads every
 * body's weights and holds the main graph's arena, which holds the bodies').
 * {weights: {value, exact, title}, total: {value, exact, note, title}}.
 */
export function memoryCards(root, { body = false } = {}) {
  const mem = modelMemory(root);
  const w = mem.weights,
    inp = mem.inputs;
  const whole = body
    ? ' of the whole model (the main graph and every body), not only the body shown'
    : ', of the main graph and every body';
  const weights = !w
    ? { value: '—', exact: '', title: 'This plan document gives no weights (weights.bytes)' }
    : {
        value: (w.unknown ? '≥ ' : '') + formatBytes(w.bytes),
        exact: `${formatInt(w.bytes)} B` + (w.unknown ? ` + ${plural(w.unknown, 'value')} of unknown size` : ''),
        title:
          (w.folded
            ? 'Initializers and constants folded at load'
            : 'Initializers (constants are planned as activations)') +
          `${whole}, kept once loaded: ${plural(w.count, 'value')} of known size` +
          (w.unknown ? `, ${formatInt(w.unknown)} more of unknown size (not counted)` : '') +
          '. Never in the arena (weights.bytes)' +
          (w.loadOnly.count
            ? `. Not counted: ${plural(w.loadOnly.count, 'value')} (${formatInt(w.loadOnly.bytes)} B) read or computed at load and then dropped, such as a folded chain’s intermediates (weights.load_only_bytes)`
            : ''),
      };
  const peak = isCount(root?.peak_bytes) ? root.peak_bytes : null;
  // strings, sequences, maps: no static size, so in no figure (unplanned)
  const unplanned = Array.isArray(root?.unplanned) ? root.unplanned : [];
  const uncounted = unplanned.length
    ? `. Not counted: ${plural(unplanned.length, 'value')} of no static size (${unplanned
        .slice(0, 3)
        .map((u) => `${u.name}: ${u.reason}`)
        .join('; ')}${unplanned.length > 3 ? '; …' : ''})`
    : '';
  // plan --share-kv: the present outputs are in the past inputs' buffers
  const shared = Array.isArray(root?.share_kv) ? root.share_kv : [];
  const sharedNote = shared.length
    ? `. ${plural(shared.length, 'present output')} written into ${shared.length === 1 ? 'its' : 'their'} past input’s buffer (KV cache in place: ${shared
        .slice(0, 2)
        .map((p) => `${p.output} → ${p.input}`)
        .join(', ')}${shared.length > 2 ? ', …' : ''})`
    : '';
  let total;
  if (mem.total !== null && w && inp) {
    const parts = [`weights ${formatInt(w.bytes)} B`];
    if (!inp.inArena)
      parts.push(`graph inputs ${formatInt(inp.bytes)} B (${plural(inp.count, 'value')}, outside the arena)`);
    parts.push(`planned peak ${formatInt(peak)} B`);
    total = {
      value: formatBytes(mem.total),
      exact: `${formatInt(mem.total)} B`,
      note:
        (inp.inArena ? 'inputs in the arena' : `incl. ${formatBytes(inp.bytes)} of inputs`) +
        (shared.length ? ' · KV cache in place' : '') +
        (unplanned.length ? ` · ${plural(unplanned.length, 'value')} of no static size not counted` : ''),
      title:
        `What a runtime holds to run the model${body ? ' (the whole model, not only the body shown)' : ''}: ${parts.join(' + ')} = ${formatInt(mem.total)} B` +
        (inp.inArena ? `; the graph inputs (${formatInt(inp.bytes)} B) are in the arena (include inputs)` : '') +
        ' (total_bytes)' +
        sharedNote +
        uncounted,
    };
  } else {
    // the core's reason (memplan_plan_total); a document from before it gave one says only that it is null
    const why = !mem.hasTotal ? 'not in this plan document' : (mem.totalWhy ?? 'not given');
    total = {
      value: '—',
      exact: why,
      note: '',
      title: `Weights + graph inputs outside the arena + planned peak (total_bytes): not known, ${why}`,
    };
  }
  return { weights, total };
}

/** The figure cards and the strategies line, appended to `container`. */
export function createFigures(container, ctl) {
  const figures = el('div', 'mpv-figures');
  const figure = (key, label, hint) => {
    const f = el('div', 'mpv-figure');
    f.dataset.figure = key;
    const l = el('div', 'mpv-figure-label', label);
    const v = el('div', 'mpv-figure-value', '—');
    const exact = el('div', 'mpv-figure-exact', '');
    f.title = hint;
    f.append(l, v, exact);
    figures.append(f);
    return { v, exact, card: f };
  };
  // The answer first (what a runtime needs: weights + graph inputs + planned peak), then how it is made up.
  const total = figure('total', 'Total to fit', '');
  const fig = {
    total,
    naive: figure('naive', 'Naive total', NAIVE_HINT),
    peak: figure('peak', 'Planned peak', 'Arena or slot memory of the chosen strategy (peak_bytes)'),
    bound: figure(
      'bound',
      'Lower bound',
      'Most bytes live at any one position: no plan can use less (lower_bound_bytes)',
    ),
    savings: figure('savings', 'Savings', SAVINGS_HINT),
    inplace: figure(
      'inplace',
      'In-place saves',
      'Planned peak without in-place reuse minus with it (inplace.saved_bytes); turn in-place reuse on to see it',
    ),
    weights: figure('weights', 'Weights', ''),
  };
  const totalNote = el('div', 'mpv-figure-note', '');
  fig.total.card.append(totalNote);
  const strategiesLine = el('p', 'mpv-strategies muted');
  // What the whole model's plan assumed rather than knew (an If's branch, a trip count): beside the figures.
  const assumed = el('p', 'mpv-assumed');
  assumed.hidden = true;
  container.append(figures, assumed, strategiesLine);

  function renderAssumptions({ assumptions, qdqOther }) {
    assumed.hidden = assumptions.length === 0;
    if (!assumptions.length) {
      assumed.replaceChildren();
      return;
    }
    const shown = assumptions
      .slice(0, 3)
      .map((a) => a.text)
      .join('; ');
    // A QDQ model's other reading, planned after the plan shown, and the
    // peak fused where int8 QDQ is allowed when that fuses other units
    // (controller's qdqOther).
    const bytes = formatBytesExact;
    let other = '';
    if (Number.isFinite(qdqOther?.peak))
      other = ` ${qdqOther.fused ? 'Fused' : 'As written'}, the planned peak is ${bytes(qdqOther.peak)}.`;
    if (Number.isFinite(qdqOther?.int8Peak))
      other += ` Fused where int8 QDQ is allowed (as on ARM64), it is ${bytes(qdqOther.int8Peak)}.`;
    assumed.replaceChildren(
      el('strong', '', assumptions.length === 1 ? 'Assumed: ' : `Assumed (${assumptions.length}): `),
      document.createTextNode(
        shown + (assumptions.length > 3 ? `; … ${assumptions.length - 3} more` : '') + '.' + other,
      ),
    );
  }

  function render(s) {
    const { m, inplace } = s;
    const set = (f, v, fmt) => {
      f.v.textContent = fmt(v);
      f.exact.textContent = v === null ? '' : fmt === formatRatio ? `ratio ${v}` : `${formatInt(v)} B`;
    };
    const sv = savingsOf(s);
    // The exact counts (a BigInt beyond 2^53): the card and its exact line both show them.
    set(fig.naive, sv.naiveExact, formatBytes);
    set(fig.peak, m.exact.peak, formatBytes);
    set(fig.bound, m.exact.lowerBound, formatBytes);
    set(fig.savings, sv.savings, formatRatio);
    const sc = savingsCard(sv, m);
    fig.savings.exact.textContent = sc.exact;
    fig.savings.card.title = sc.title;
    fig.naive.card.title = sv.rebased
      ? 'Every buffer allocated separately, without in-place reuse: the baseline whatever the options'
      : NAIVE_HINT;
    const ip = m.raw?.inplace;
    set(fig.inplace, ip && ip.enabled && isCount(ip.saved_bytes) ? ip.saved_bytes : null, formatBytes);
    if (!(ip && ip.enabled)) fig.inplace.v.textContent = inplace ? '—' : 'off';
    const cards = memoryCards(s.plan ?? m.raw, { body: (s.path?.length ?? 0) > 0 });
    for (const [f, c] of [
      [fig.weights, cards.weights],
      [fig.total, cards.total],
    ]) {
      f.v.textContent = c.value;
      f.exact.textContent = c.exact;
      f.card.title = c.title;
    }
    totalNote.textContent = cards.total.note;
    const st = m.strategies;
    const counts = `${formatInt(m.positions)} positions · ${formatInt(m.rowCount)} buffers · ${formatInt(m.n - m.rowCount)} views`;
    strategiesLine.textContent = st
      ? // slots and exact-size reuse sum raw capacities (no padding): beside an aligned arena they can read lower
        `Strategies — arena ${formatBytes(st.arena)} · slots ${formatBytes(st.slots)} · exact-size reuse ${formatBytes(st.exact_reuse)} (slot sums, raw sizes without alignment padding)` +
        (st.arena_heuristic ? ` · arena heuristic ${st.arena_heuristic}` : '') +
        ` · ${counts}`
      : counts;
  }
  ctl.on('applied', render);
  ctl.on('applied', renderAssumptions);
  ctl.on('qdq', renderAssumptions);
}

// " Reasons: a (3); b (1)." -- the C library's reasons, most frequent first.
function reasonSummary(items) {
  const counts = new Map();
  for (const u of items) counts.set(u.reason, (counts.get(u.reason) ?? 0) + 1);
  if (!counts.size) return '';
  const top = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([r, c]) => `${r} (${formatInt(c)})`);
  return ` Reasons: ${top.join('; ')}${counts.size > 3 ? '; …' : ''}.`;
}

const LIST_MAX = 500;
const REASONS_MAX = 8;
const names = (a) => a.join(', ');

/**
 * The deferred panel's text, from the plan model `m` (normalizePlan) and the
 * names of the inputs the page has a value field for (ctl.state.valueInputs):
 * {head, internal}. head: what is deferred, the unbound dims, the input values
 * to set (unknown.value_inputs) and where, the C library's reasons. internal:
 * the dims made up inside the graph (unknown.internal_dims) grouped by their
 * reason, with the dims to bind instead, without their unk__N names (they
 * change from run to run), or '' when there are none. Text only.
 */
export function deferredText(m, fields = []) {
  const n = m.unknownValues.length,
    nd = m.unknownDims.length,
    vi = m.valueInputs ?? [];
  let values = '';
  if (vi.length) {
    const shown = new Set(fields);
    const here = vi.filter((v) => shown.has(v)),
      elsewhere = vi.filter((v) => !shown.has(v));
    const one = vi.length === 1;
    const parts = [];
    if (here.length) parts.push(`${names(here)} in the "Input values" field${here.length === 1 ? '' : 's'} above`);
    if (elsewhere.length)
      parts.push(
        `${names(elsewhere)} with --value NAME=V (the page has no field for ${elsewhere.length === 1 ? 'it' : 'them'})`,
      );
    values =
      ` Set the value of the input${one ? '' : 's'} ${parts.join(', and ')}:` +
      ` ${one ? 'its value' : 'their values'} may decide an If's branch, a trip count or a shape that no dim can.`;
  }
  const head =
    `Deferred: ${formatInt(n)} value${n === 1 ? '' : 's'} have no known size yet` +
    (nd ? `, and ${formatInt(nd)} symbolic dim${nd === 1 ? ' is' : 's are'} unbound (set them above).` : '.') +
    values +
    reasonSummary(m.unknownValues) +
    ' The timeline shows every interval; offsets and totals wait for the sizes.';
  const dims = m.internalDims ?? [];
  if (!dims.length) return { head, internal: '' };
  const groups = new Map();
  for (const d of dims) {
    const why =
      d.reason +
      (d.dataDependent ? ' (data-dependent)' : '') +
      (d.bindInstead.length ? `: bind ${names(d.bindInstead)} instead` : '');
    groups.set(why, (groups.get(why) ?? 0) + 1);
  }
  const listed = [...groups].slice(0, REASONS_MAX).map(([why, c]) => (c > 1 ? `${why} (${formatInt(c)} dims)` : why));
  const internal =
    `${plural(dims.length, 'dim')} made up inside the model (not bindable): ${listed.join('; ')}` +
    (groups.size > REASONS_MAX ? `; … ${formatInt(groups.size - REASONS_MAX)} more reasons` : '') +
    '.';
  return { head, internal };
}

/** The deferred panel, appended to `container`: shown while a plan is deferred or has unplanned values. */
export function createDeferred(container, ctl) {
  const box = el('div', 'mpv-deferred');
  box.hidden = true;
  container.append(box);

  const list = (title, items, role) => {
    if (!items.length) return;
    const d = el('details', 'mpv-unknown');
    d.dataset.role = role;
    d.append(el('summary', '', `${title} (${formatInt(items.length)})`));
    const ul = el('ul');
    for (const u of items.slice(0, LIST_MAX)) {
      const li = el('li');
      const b = el('button', 'mpv-link', u.name);
      b.type = 'button';
      b.addEventListener('click', () => ctl.select(u.name));
      li.append(b, el('span', 'muted', ` — ${u.reason}`));
      ul.append(li);
    }
    if (items.length > LIST_MAX) ul.append(el('li', 'muted', `… ${formatInt(items.length - LIST_MAX)} more`));
    d.append(ul);
    box.append(d);
  };
  function render({ m, valueInputs }) {
    if (m.planned && !m.unplanned.length) {
      box.hidden = true;
      return;
    }
    box.replaceChildren();
    if (!m.planned) {
      const t = deferredText(
        m,
        (valueInputs ?? []).map((v) => v.name),
      );
      box.append(el('p', 'mpv-deferred-head', t.head));
      if (t.internal) box.append(el('p', 'mpv-internal-dims muted', t.internal));
    }
    if (m.unknownDims.length) {
      const p = el('p', 'mpv-unbound');
      p.append(el('strong', '', 'Unbound dims: '), document.createTextNode(m.unknownDims.join(', ')));
      box.append(p);
    }
    list('Values without a known size', m.unknownValues, 'unknown-values');
    list('Unplanned values', m.unplanned, 'unplanned');
    box.hidden = false;
  }
  ctl.on('applied', render);
}
