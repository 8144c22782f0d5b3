// sweep.js -- "Memory against a dim": for one of the model's input dims and
// a range the user gives (1..4096 in 32 values), the total to fit, the
// planned peak, the lower bound and the naive total at each value. The worker runs `sweep` on the
// open model (the loaded graph is kept; each value is planned with the
// other dims, values and options of the plan shown), so the points are the
// CLI's `memplan sweep MODEL --dim seq=1..4096:32 --json`, byte for byte.
import { el } from '../charts/base.js';
import { createSweepChart, describePoint } from '../charts/sweep.js';
import { formatBytes, formatInt } from '../data/format.js';
import { bindingName, bindingsOf, pngTitle } from './exports.js';
import { inputField, selectField } from './fields.js';

/** The worker's arguments for a sweep of `dim` over lo..hi in n values, on top of the
 *  plan's (strategy dropped: a sweep gives the arena's figures and the slots' sum). */
export function sweepArgs(planArgs, dim, lo, hi, n) {
  const out = [];
  for (let k = 0; k < planArgs.length; k++) {
    const a = planArgs[k];
    if (a === '--strategy') {
      k++;
      continue;
    }
    if (a === '--dim' && k + 1 < planArgs.length && bindingName(planArgs[k + 1]) === dim) {
      k++;
      continue; // the swept dim is bound at each value instead
    }
    out.push(a);
  }
  return [...out, '--dim', `${dim}=${lo}..${hi}:${n}`];
}

/** A labelled whole-number input. */
const numberInput = (label, value, min) =>
  inputField(label, 'mpv-sweep-num', { type: 'number', min: String(min), step: '1', value: String(value) });

export function createSweep(container, ctl) {
  const sec = el('details', 'mpv-sweep');
  const summary = el('summary', '', 'Memory against a dim');
  const form = el('form', 'mpv-sweep-form');
  const { sel: dimSel, wrap: dimWrap } = selectField('dim', 'mpv-sweep-dim', []);
  const lo = numberInput('from', 1, 0),
    hi = numberInput('to', 4096, 0),
    n = numberInput('values', 32, 1);
  n.input.max = '4096';
  const run = el('button', 'mpv-btn', 'Sweep');
  run.type = 'submit';
  form.append(dimWrap, lo.wrap, hi.wrap, n.wrap, run);
  const status = el('p', 'mpv-sweep-status muted');
  status.setAttribute('role', 'status');
  const chartBox = el('div', 'mpv-charts');
  const tableSec = el('details', 'mpv-sweep-points');
  tableSec.append(el('summary', '', 'The points'));
  const tableWrap = el('div', 'mpv-atpeak-wrap');
  tableSec.append(tableWrap);
  sec.append(summary, form, status, chartBox, tableSec);
  container.append(sec);
  const chart = createSweepChart(chartBox, { key: 'sweep' });
  sec.addEventListener('toggle', () => sec.open && chart.resize()); // measured while closed
  let doc = null,
    args = null,
    ms = null,
    gen = 0;

  function renderTable() {
    tableWrap.replaceChildren();
    if (!doc) return;
    const table = el('table', 'mpv-atpeak-table mpv-sweep-table');
    const hr = el('tr');
    for (const h of [doc.dim, 'status', 'total to fit', 'planned peak', 'lower bound', 'naive total', 'slots'])
      hr.append(el('th', '', h));
    const thead = el('thead');
    thead.append(hr);
    const tbody = el('tbody');
    const cell = (v) => el('td', 'num', v === null ? '—' : formatInt(v));
    for (const p of doc.points) {
      const tr = el('tr');
      tr.append(
        el('td', 'num', formatInt(p.value)),
        el('td', '', p.status),
        p.status === 'planned' && p.total_bytes === null ? el('td', 'num', 'unknown') : cell(p.total_bytes),
        cell(p.peak_bytes),
        cell(p.lower_bound_bytes),
        cell(p.naive_bytes),
        cell(p.slots_bytes),
      );
      tbody.append(tr);
    }
    table.append(thead, tbody);
    tableWrap.append(table);
  }

  const titleOf = (d) =>
    d ? `Memory against ${d.dim} (${formatInt(d.lo)}–${formatInt(d.hi)})` : 'Memory against a dim';

  function show(d) {
    doc = d;
    chart.setData(d);
    chart.setTitle(titleOf(d));
    const ok = d ? d.points.filter((p) => p.status === 'planned') : [];
    chart.setSummary(
      d
        ? `${d.points.length} values of ${d.dim} from ${d.lo} to ${d.hi}, ${ok.length} planned.` +
            (ok.length ? ` At ${d.hi}: ${describePoint(d.dim, d.points[d.points.length - 1])}.` : '')
        : '',
    );
    renderTable();
  }

  /** Sweep `dim` over lo..hi in `count` values; resolves to the sweep JSON (null when superseded). */
  async function sweep(dim, from, to, count) {
    const model = ctl.model;
    if (!model) throw new Error('open a model to sweep one of its dims');
    const my = ++gen;
    // `args` stays the shown sweep's until this one's points arrive: `last` pairs them.
    const a = sweepArgs(ctl.planRequest(), dim, from, to, count);
    status.textContent = `planning ${formatInt(count)} values of ${dim}…`;
    run.disabled = true;
    const t0 = performance.now();
    try {
      const d = await model.call('sweep', a);
      if (my !== gen || model !== ctl.model) return null;
      args = a;
      ms = performance.now() - t0;
      const ok = d.points.filter((p) => p.status === 'planned');
      const range = (label, vs) =>
        vs.length ? `; ${label} ${formatBytes(Math.min(...vs))} – ${formatBytes(Math.max(...vs))}` : '';
      status.textContent =
        `${formatInt(d.points.length)} values in ${Math.round(ms)} ms` +
        range(
          'total to fit',
          ok.filter((p) => p.total_bytes !== null).map((p) => p.total_bytes),
        ) +
        range(
          'planned peak',
          ok.map((p) => p.peak_bytes),
        );
      show(d);
      return d;
    } catch (e) {
      if (my === gen && e.name !== 'AbortError') status.textContent = e.message;
      if (e.name === 'AbortError') return null;
      throw e;
    } finally {
      if (my === gen) run.disabled = false;
    }
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!dimSel.value) {
      status.textContent = 'this model has no symbolic input dim to sweep';
      return;
    }
    sweep(dimSel.value, Number(lo.input.value), Number(hi.input.value), Number(n.input.value)).catch(() => {});
  });

  // A new model: its input dims to pick from; the last sweep (another model's) goes.
  ctl.on('load', () => {
    gen++;
    const dims = ctl.state.inputDims.map((d) => d.name);
    dimSel.replaceChildren(...dims.map((d) => Object.assign(el('option', '', d), { value: d })));
    const named = ctl.state.inputDims.find((d) => !/:\d+$/.test(d.name));
    if (named) dimSel.value = named.name;
    run.disabled = false;
    status.textContent = dims.length ? '' : 'this model has no symbolic input dim';
    show(null);
  });

  return {
    sweep,
    chart,
    /** The last sweep's JSON, the arguments it was made with and its time in the page (ms). */
    get last() {
      return doc ? { doc, args, ms } : null;
    },
    /** The PNG's title line: the model, the dims and values the sweep was made with (not the swept
     *  one, whatever the plan shown binds it to now) and the chart's title. */
    pngTitle() {
      if (!doc) return pngTitle(ctl.state, titleOf(null));
      const { dims, values } = bindingsOf(args);
      delete dims[doc.dim]; // its range is in the chart's title
      return pngTitle({ shownName: ctl.state.shownName, name: ctl.state.name, dims, values }, titleOf(doc));
    },
    destroy() {
      chart.destroy();
    },
  };
}
