// view.js -- the visualizer: header figures, controls (dims, strategy,
// alignment), the four linked charts, the value/node table, exports, the
// model summary and the tooltip. createView(root, client) -> controller used
// by embed.js (mount / <memplan-view>). Model strings are only ever set as
// text (textContent, canvas fillText, SVG <title> text).
import { el } from '../charts/base.js';
import { createLinked } from '../charts/linked.js';
import { createTimeline } from '../charts/timeline.js';
import { createArena } from '../charts/arena.js';
import { createSlots } from '../charts/slots.js';
import { createMemory } from '../charts/memory.js';
import { attachNodes, normalizePlan } from '../data/plan.js';
import { filterRows, memorySeries, nodeRows, slotOccupancy, sortRows, valueRows } from '../data/series.js';
import { netronAttachment, toCSV } from '../data/export.js';
import { profileSeries, reuseByOutput, reuseText, valueLinks } from '../data/profile.js';
import { formatBytes, formatInt, formatRatio, formatShape } from '../data/format.js';
import { renderModelInfo } from './model-info.js';
import { createVirtualBody } from './vtable.js';

const ALIGNS = [1, 8, 16, 32, 64, 128, 256, 4096];
const VALUE_COLUMNS = [
  { key: 'name', label: 'value' }, { key: 'dtype', label: 'dtype' }, { key: 'shape', label: 'shape', mono: true },
  { key: 'size', label: 'size', num: true, bytes: true }, { key: 'start', label: 'start', num: true },
  { key: 'end', label: 'end', num: true }, { key: 'length', label: 'live for', num: true }, { key: 'owner', label: 'owner' },
  { key: 'slot', label: 'slot', num: true }, { key: 'offset', label: 'offset', num: true, bytes: true }, { key: 'status', label: 'note' },
  { key: 'reuses', label: 'reuses (in place)' },
];
const NODE_COLUMNS = [
  { key: 'position', label: 'position', num: true }, { key: 'op', label: 'op' }, { key: 'name', label: 'node' },
  { key: 'inputs', label: 'inputs' }, { key: 'outputs', label: 'outputs' },
  { key: 'allocated', label: 'allocated', num: true, bytes: true }, { key: 'freed', label: 'freed after', num: true, bytes: true },
  { key: 'live', label: 'live', num: true, bytes: true }, { key: 'extent', label: 'arena top', num: true, bytes: true },
];
const NAME_KEYS = new Set(['name', 'inputs', 'outputs', 'owner', 'reuses']);
/** Relative column widths of the (fixed-layout) tables. */
const columnWeight = (c) => (NAME_KEYS.has(c.key) ? 3 : c.mono || c.key === 'op' ? 2 : c.bytes ? 1.4 : c.num ? 1.1 : 1.2);

function download(name, data, type) {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = el('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const stem = (name) => (name || 'model').replace(/\.onnx$/i, '').replace(/[^\w.-]+/g, '_').slice(0, 80) || 'model';

export function createView(root, client, options = {}) {
  const listeners = new Map();
  const emit = (type, detail) => { for (const fn of listeners.get(type) ?? []) { try { fn(detail); } catch (e) { console.error(e); } } };
  const linked = createLinked();
  const state = {
    name: '', shownName: '', info: null, model: null, bytesCopy: null,
    strategy: options.strategy === 'slots' ? 'slots' : 'arena',
    align: ALIGNS.includes(options.align) ? options.align : 64,
    dims: new Map(), dimNames: [],
    inplace: options.inplace === true,
    inplaceDoc: null, // `inplace --json`, fetched once per model (the reuse lists)
    reuse: new Map(), // output name -> {input, kind, position}
    profileDoc: null, profile: null, links: null,
    plan: null, m: null, series: null, slotsPlan: null, slotsM: null,
    rows: { values: null, nodes: null }, producer: null, // table rows, made when first needed
    table: 'values', sortKey: null, sortDir: 1, filter: '',
    loadGen: 0, planGen: 0,
  };

  // ---- DOM -------------------------------------------------------------
  root.classList.add('mpv-app');
  root.replaceChildren();
  const titlebar = el('div', 'mpv-titlebar');
  const nameEl = el('h2', 'mpv-model-name');
  const badge = el('span', 'mpv-badge');
  const progress = el('span', 'mpv-progress');
  progress.setAttribute('role', 'status');
  const cancelBtn = el('button', 'mpv-btn mpv-cancel', 'Cancel');
  cancelBtn.type = 'button';
  cancelBtn.hidden = true;
  titlebar.append(nameEl, badge, progress, cancelBtn);
  const errorBox = el('p', 'mpv-error');
  errorBox.setAttribute('role', 'alert');
  errorBox.hidden = true;

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
    return { v, exact };
  };
  const fig = {
    naive: figure('naive', 'Naive total', 'Every buffer allocated separately (naive_bytes)'),
    peak: figure('peak', 'Planned peak', 'Arena or slot memory of the chosen strategy (peak_bytes)'),
    bound: figure('bound', 'Lower bound', 'Most bytes live at any one position: no plan can use less (lower_bound_bytes)'),
    savings: figure('savings', 'Savings', '1 - planned peak / naive total (savings_ratio)'),
    inplace: figure('inplace', 'In-place saves', 'Planned peak without in-place reuse minus with it (inplace.saved_bytes); turn in-place reuse on to see it'),
  };
  const strategiesLine = el('p', 'mpv-strategies muted');

  const controls = el('div', 'mpv-controls');
  const stratGroup = el('div', 'mpv-seg');
  stratGroup.setAttribute('role', 'radiogroup');
  stratGroup.setAttribute('aria-label', 'strategy');
  const stratBtns = {};
  for (const s of ['arena', 'slots']) {
    const b = el('button', 'mpv-seg-btn', s);
    b.type = 'button';
    b.dataset.strategy = s;
    b.setAttribute('role', 'radio');
    b.addEventListener('click', () => { if (state.strategy !== s) { state.strategy = s; syncControls(); replan(); } });
    stratBtns[s] = b;
    stratGroup.append(b);
  }
  const alignSel = el('select', 'mpv-align');
  for (const a of ALIGNS) { const o = el('option', '', `${a} B`); o.value = String(a); alignSel.append(o); }
  alignSel.addEventListener('change', () => { state.align = Number(alignSel.value); replan(); });
  const inplace = el('input');
  inplace.type = 'checkbox';
  inplace.className = 'mpv-inplace';
  inplace.addEventListener('change', () => { state.inplace = inplace.checked; replan(); });
  const inplaceLabel = el('label', 'mpv-check');
  inplaceLabel.title = 'In-place reuse: an output may take the buffer of an input read for the last time (plan --inplace)';
  inplaceLabel.append(inplace, document.createTextNode(' in-place reuse'));
  const resetZoom = el('button', 'mpv-btn', 'Reset zoom');
  resetZoom.type = 'button';
  resetZoom.addEventListener('click', () => linked.setXDomain(null));
  const ctlRow = el('div', 'mpv-ctl-row');
  const lab = (text, node) => { const l = el('label', 'mpv-ctl'); l.append(el('span', 'mpv-ctl-label', text), node); return l; };
  const stratWrap = el('div', 'mpv-ctl');
  stratWrap.append(el('span', 'mpv-ctl-label', 'strategy'), stratGroup);
  ctlRow.append(stratWrap, lab('alignment', alignSel), inplaceLabel, resetZoom);
  const dimsBox = el('fieldset', 'mpv-dims');
  const dimsLegend = el('legend', '', 'Symbolic dims');
  const dimsList = el('div', 'mpv-dims-list');
  const dimsAll = el('button', 'mpv-btn mpv-dims-all', 'Set empty to 1');
  dimsAll.type = 'button';
  dimsAll.addEventListener('click', () => {
    for (const d of state.dimNames) if (!state.dims.get(d)) state.dims.set(d, '1');
    renderDims();
    replan();
  });
  dimsBox.append(dimsLegend, dimsList, dimsAll);
  dimsBox.hidden = true;
  controls.append(ctlRow, dimsBox);

  const deferredBox = el('div', 'mpv-deferred');
  deferredBox.hidden = true;

  const charts = el('div', 'mpv-charts');
  const tooltip = el('div', 'mpv-tooltip');
  tooltip.hidden = true;
  const hooks = { tooltip: showTooltip };
  const memoryChart = createMemory(charts, linked, { height: 200, hooks });
  const timelineChart = createTimeline(charts, linked, { height: 300, hooks });
  const arenaChart = createArena(charts, linked, { height: 260, hooks });
  const slotsChart = createSlots(charts, linked, { height: 200, hooks });
  const chartList = { memory: memoryChart, timeline: timelineChart, arena: arenaChart, slots: slotsChart };
  for (const [key, c] of Object.entries(chartList)) {
    c.frame.root.dataset.chart = key;
    const png = el('button', 'mpv-btn mpv-small', 'PNG');
    const svg = el('button', 'mpv-btn mpv-small', 'SVG');
    png.type = svg.type = 'button';
    png.dataset.export = `${key}-png`;
    svg.dataset.export = `${key}-svg`;
    png.addEventListener('click', async () => download(`${stem(state.name)}-${key}.png`, await c.toPNG(), 'image/png'));
    svg.addEventListener('click', () => download(`${stem(state.name)}-${key}.svg`, c.toSVG(), 'image/svg+xml'));
    c.frame.tools.append(png, svg);
  }
  const hint = el('p', 'mpv-hint muted', 'Scroll to zoom and drag to pan any chart (positions are shared); brush the memory chart to pick a range; click a bar to select a value; the strip right of the timeline brushes its rows.');

  const tableSec = el('section', 'mpv-table-sec');
  const tabs = el('div', 'mpv-seg');
  const tabBtns = {};
  for (const [k, label] of [['values', 'Values'], ['nodes', 'Nodes']]) {
    const b = el('button', 'mpv-seg-btn', label);
    b.type = 'button';
    b.dataset.table = k;
    b.addEventListener('click', () => { state.table = k; state.sortKey = null; renderTable(); });
    tabBtns[k] = b;
    tabs.append(b);
  }
  const filterIn = el('input', 'mpv-filter');
  filterIn.type = 'search';
  filterIn.placeholder = 'filter (regular expression)';
  filterIn.setAttribute('aria-label', 'filter rows by regular expression');
  let filterTimer = 0;
  filterIn.addEventListener('input', () => { clearTimeout(filterTimer); filterTimer = setTimeout(() => { state.filter = filterIn.value; renderTable(); }, 120); });
  const tableNote = el('span', 'mpv-table-note muted');
  const exportsBox = el('div', 'mpv-exports');
  const exportBtn = (key, label, fn) => {
    const b = el('button', 'mpv-btn', label);
    b.type = 'button';
    b.dataset.export = key;
    b.addEventListener('click', fn);
    exportsBox.append(b);
  };
  exportBtn('plan-json', 'Plan JSON', () => state.plan && download(`${stem(state.name)}.plan.json`, JSON.stringify(state.plan, null, 1), 'application/json'));
  exportBtn('table-csv', 'Table CSV', () => {
    const { rows, cols } = currentTable();
    download(`${stem(state.name)}.${state.table}.csv`, toCSV(rows, cols.map((c) => ({ key: c.key, label: c.label }))), 'text/csv');
  });
  exportBtn('annotated-onnx', 'Annotated .onnx', async () => {
    const model = state.model;
    if (!model) return;
    try {
      const bytes = await model.callBytes('annotate', []);
      if (model === state.model) download(`${stem(state.name)}.memplan.onnx`, bytes, 'application/octet-stream');
    } catch (e) {
      if (e.name !== 'AbortError') showError(`${state.name}: ${e.message}`);
    }
  });
  exportBtn('netron', 'Netron attachment', () => state.m && download(`${stem(state.name)}.memplan.netron.json`,
    JSON.stringify(netronAttachment(state.m, { values: tableRows('values'), nodes: tableRows('nodes'), producer: `onnx-memplan ${client.version}`, model: state.name, graph: state.info?.graph_name ?? '' }), null, 1), 'application/json'));
  const tableHead = el('div', 'mpv-table-head');
  tableHead.append(tabs, filterIn, tableNote, exportsBox);
  const tableWrap = el('div', 'mpv-table-wrap');
  const table = el('table', 'mpv-table');
  tableWrap.append(table);
  const vbody = createVirtualBody(tableWrap, table);
  const linksLine = el('p', 'mpv-node-links');
  linksLine.hidden = true;
  tableSec.append(el('h3', '', 'Details'), tableHead, linksLine, tableWrap);

  const infoSec = el('details', 'mpv-info');
  infoSec.open = options.infoOpen ?? false;
  const infoBody = el('div');
  infoSec.append(el('summary', '', 'Model'), infoBody);

  const main = el('div', 'mpv-main');
  main.hidden = true;
  main.append(figures, strategiesLine, controls, deferredBox, charts, hint, tableSec, infoSec);
  root.append(titlebar, errorBox, main, tooltip);

  // ---- state -----------------------------------------------------------
  function setState(s) { root.dataset.state = s; emit('state', s); }
  function setProgress(text) { progress.textContent = text; }
  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = false;
    setProgress('');
    setState('error');
    emit('error', message);
  }
  function busy(on) { cancelBtn.hidden = !on; }
  cancelBtn.addEventListener('click', () => cancel());
  function cancel() {
    client.cancel();
    state.model = null;
    state.loadGen++; state.planGen++;
    busy(false);
    setProgress('cancelled');
    showError(`${state.name}: cancelled`);
  }

  function syncControls() {
    for (const [s, b] of Object.entries(stratBtns)) { b.classList.toggle('on', s === state.strategy); b.setAttribute('aria-checked', String(s === state.strategy)); }
    alignSel.value = String(state.align);
    inplace.checked = state.inplace;
    inplace.disabled = !state.model;
    for (const [k, b] of Object.entries(tabBtns)) b.classList.toggle('on', k === state.table);
  }

  function planArgs(strategy = state.strategy, dims = dimArgs()) {
    const args = ['--strategy', strategy, '--align', String(state.align)];
    if (state.inplace) args.push('--inplace');
    return [...args, ...dims];
  }
  function dimArgs() {
    const args = [];
    for (const [d, v] of state.dims) if (v !== '' && v !== undefined) args.push('--dim', `${d}=${v}`);
    return args;
  }

  function renderDims() {
    dimsBox.hidden = state.dimNames.length === 0;
    const focused = document.activeElement?.dataset?.dim;
    const existing = new Map([...dimsList.querySelectorAll('input')].map((i) => [i.dataset.dim, i]));
    if (existing.size !== state.dimNames.length || state.dimNames.some((d) => !existing.has(d))) {
      dimsList.replaceChildren();
      for (const d of state.dimNames) {
        const l = el('label', 'mpv-dim');
        const input = el('input');
        input.type = 'number';
        input.min = '0';
        input.step = '1';
        input.placeholder = 'unbound';
        input.dataset.dim = d;
        input.setAttribute('aria-label', `dim ${d}`);
        let t = 0;
        input.addEventListener('input', () => {
          state.dims.set(d, input.value.trim());
          clearTimeout(t);
          t = setTimeout(replan, 200);
        });
        l.append(el('span', 'mpv-dim-name', d), input);
        dimsList.append(l);
      }
    }
    for (const input of dimsList.querySelectorAll('input')) {
      if (input.dataset.dim !== focused) input.value = state.dims.get(input.dataset.dim) ?? '';
      input.classList.toggle('unbound', !(state.dims.get(input.dataset.dim) ?? ''));
    }
    const unbound = state.dimNames.filter((d) => !state.dims.get(d));
    dimsLegend.textContent = unbound.length ? `Symbolic dims — ${unbound.length} of ${state.dimNames.length} unbound` : `Symbolic dims (${state.dimNames.length})`;
  }

  function renderFigures() {
    const m = state.m;
    const set = (f, v, fmt) => {
      f.v.textContent = fmt(v);
      f.exact.textContent = v === null ? '' : fmt === formatRatio ? `ratio ${v}` : `${formatInt(v)} B`;
    };
    set(fig.naive, m.naive, formatBytes);
    set(fig.peak, m.peak, formatBytes);
    set(fig.bound, m.lowerBound, formatBytes);
    set(fig.savings, m.savings, formatRatio);
    const ip = m.raw?.inplace;
    set(fig.inplace, ip && ip.enabled && typeof ip.saved_bytes === 'number' ? ip.saved_bytes : null, formatBytes);
    if (!(ip && ip.enabled)) fig.inplace.v.textContent = state.inplace ? '—' : 'off';
    badge.textContent = m.status;
    badge.className = `mpv-badge ${m.status}`;
    const st = m.strategies;
    strategiesLine.textContent = st
      ? `Strategies — arena ${formatBytes(st.arena)} · slots ${formatBytes(st.slots)} · exact-size reuse ${formatBytes(st.exact_reuse)}` +
        (st.arena_heuristic ? ` · arena heuristic ${st.arena_heuristic}` : '') +
        ` · ${formatInt(m.positions)} positions · ${formatInt(m.rowCount)} buffers · ${formatInt(m.n - m.rowCount)} views`
      : `${formatInt(m.positions)} positions · ${formatInt(m.rowCount)} buffers · ${formatInt(m.n - m.rowCount)} views`;
  }

  // " Reasons: a (3); b (1)." -- the C library's reasons, most frequent first.
  function reasonSummary(items) {
    const counts = new Map();
    for (const u of items) counts.set(u.reason, (counts.get(u.reason) ?? 0) + 1);
    if (!counts.size) return '';
    const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([r, c]) => `${r} (${formatInt(c)})`);
    return ` Reasons: ${top.join('; ')}${counts.size > 3 ? '; …' : ''}.`;
  }
  function renderDeferred() {
    const m = state.m;
    if (m.planned && !m.unplanned.length) { deferredBox.hidden = true; return; }
    deferredBox.replaceChildren();
    if (!m.planned) {
      deferredBox.append(el('p', 'mpv-deferred-head',
        `Deferred: ${formatInt(m.unknownValues.length)} value${m.unknownValues.length === 1 ? '' : 's'} have no known size yet` +
        (m.unknownDims.length ? `, and ${formatInt(m.unknownDims.length)} symbolic dim${m.unknownDims.length === 1 ? ' is' : 's are'} unbound (set them above).` : '.') +
        reasonSummary(m.unknownValues) +
        ' The timeline shows every interval; offsets and totals wait for the sizes.'));
    }
    if (m.unknownDims.length) {
      const p = el('p', 'mpv-unbound');
      p.append(el('strong', '', 'Unbound dims: '), document.createTextNode(m.unknownDims.join(', ')));
      deferredBox.append(p);
    }
    const list = (title, items, role) => {
      if (!items.length) return;
      const d = el('details', 'mpv-unknown');
      d.dataset.role = role;
      d.append(el('summary', '', `${title} (${formatInt(items.length)})`));
      const ul = el('ul');
      for (const u of items.slice(0, 500)) {
        const li = el('li');
        const b = el('button', 'mpv-link', u.name);
        b.type = 'button';
        b.addEventListener('click', () => api.select(u.name));
        li.append(b, el('span', 'muted', ` — ${u.reason}`));
        ul.append(li);
      }
      if (items.length > 500) ul.append(el('li', 'muted', `… ${formatInt(items.length - 500)} more`));
      d.append(ul);
      deferredBox.append(d);
    };
    list('Values without a known size', m.unknownValues, 'unknown-values');
    list('Unplanned values', m.unplanned, 'unplanned');
    deferredBox.hidden = false;
  }

  function currentTable() {
    const cols = state.table === 'values' ? VALUE_COLUMNS : NODE_COLUMNS;
    let rows = tableRows(state.table);
    const f = filterRows(rows, state.filter, state.table === 'values' ? ['name', 'owner', 'status'] : ['outputs', 'inputs', 'op', 'name']);
    rows = f.rows;
    if (state.sortKey) rows = sortRows(rows, state.sortKey, state.sortDir);
    return { rows, cols, error: f.error };
  }

  function renderTable() {
    syncControls();
    const { rows, cols, error } = currentTable();
    const head = el('thead');
    const hr = el('tr');
    for (const c of cols) {
      const th = el('th', c.num ? 'num' : '', c.label);
      th.title = c.label; // the header may be cut short by its column's width
      th.dataset.key = c.key;
      th.tabIndex = 0;
      if (state.sortKey === c.key) th.append(el('span', 'mpv-sort', state.sortDir > 0 ? ' ▲' : ' ▼'));
      const sort = () => {
        if (state.sortKey === c.key) state.sortDir = -state.sortDir;
        else { state.sortKey = c.key; state.sortDir = c.num ? -1 : 1; }
        renderTable();
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); sort(); } });
      hr.append(th);
    }
    head.append(hr);
    const colgroup = el('colgroup');
    const weights = cols.reduce((a, c) => a + columnWeight(c), 0);
    for (const c of cols) {
      const col = el('col');
      col.style.width = `${(100 * columnWeight(c) / weights).toFixed(2)}%`;
      colgroup.append(col);
    }
    state.tableRows = rows;
    table.replaceChildren(colgroup, head, vbody.body);
    table.dataset.rows = String(rows.length);
    vbody.set(rows.length, (i) => tableRow(rows[i], cols), cols.length);
    const all = tableRows(state.table).length;
    tableNote.textContent = `${formatInt(rows.length)} of ${formatInt(all)} rows` +
      (error ? ' · not a valid regular expression: matching text' : '');
  }
  // One <tr>: cells as text (never HTML); long names end in an ellipsis, with
  // the whole text in the cell's title.
  function tableRow(r, cols) {
    const tr = el('tr');
    const name = state.table === 'values' ? r.name : null;
    if (name !== null) {
      tr.dataset.name = name;
      if (name === linked.selected) tr.className = 'selected';
    } else {
      tr.dataset.position = String(r.position);
      const lk = state.links;
      if (lk && lk.producer === r.position) tr.classList.add('producer');
      if (lk && lk.consumers.includes(r.position)) tr.classList.add('consumer');
    }
    for (const c of cols) {
      let v = r[c.key];
      if (Array.isArray(v)) v = v.join(', ');
      const text = v === null || v === undefined || v === '' ? '—' : c.bytes ? formatInt(v) : c.num ? formatInt(v) : String(v);
      const td = el('td', c.num ? 'num' : NAME_KEYS.has(c.key) ? 'name' : c.mono ? 'mono' : '', text);
      if (!c.num && text.length > 12) td.title = text;
      tr.append(td);
    }
    return tr;
  }
  table.addEventListener('click', (ev) => {
    const tr = ev.target.closest('tbody tr');
    if (!tr) return;
    if (tr.dataset.name !== undefined) linked.setSelected(tr.dataset.name, 'table');
    else if (tr.dataset.position !== undefined) {
      const p = Number(tr.dataset.position);
      const span = Math.max(8, (state.m?.positions ?? 1) / 20);
      linked.setXDomain([p + 0.5 - span / 2, p + 0.5 + span / 2], 'table');
    }
  });
  table.addEventListener('pointerover', (ev) => {
    const tr = ev.target.closest('tbody tr');
    if (tr?.dataset.name !== undefined) linked.setHover(tr.dataset.name, null, 'table');
    else if (tr?.dataset.position !== undefined) linked.setHover(null, Number(tr.dataset.position), 'table');
  });
  table.addEventListener('pointerleave', () => linked.setHover(null, null, 'table'));

  // The selected value's producer and consumers: node table rows, timeline marks, a line of text.
  let linksOf = null; // valueLinks(m.nodes), built on the first selection
  function showLinks() {
    const name = linked.selected;
    const m = state.m;
    let lk = null;
    if (name !== null && m?.nodes.length) {
      linksOf ??= valueLinks(m.nodes);
      lk = linksOf.get(name) ?? { producer: null, consumers: [] };
    }
    state.links = lk;
    timelineChart.setLinks(lk);
    for (const tr of table.querySelectorAll('tbody tr[data-position]')) {
      const p = Number(tr.dataset.position);
      tr.classList.toggle('producer', !!lk && lk.producer === p);
      tr.classList.toggle('consumer', !!lk && lk.consumers.includes(p));
    }
    linksLine.replaceChildren();
    linksLine.hidden = !lk;
    if (!lk) return;
    const label = (p) => `${p} ${nodeLabel(m.nodes[p] ?? { op: '?', name: '' })}`.trim();
    linksLine.append(el('strong', '', name), document.createTextNode(' — made by '),
      el('span', 'producer', lk.producer === null ? 'a graph input or initializer' : `position ${label(lk.producer)}`),
      document.createTextNode(lk.consumers.length ? ` · read by ${lk.consumers.length} node${lk.consumers.length === 1 ? '' : 's'}: ` : ' · read by no node'),
      el('span', 'consumer', lk.consumers.slice(0, 12).map(label).join(', ') + (lk.consumers.length > 12 ? ` +${lk.consumers.length - 12}` : '')));
  }
  linked.on('select', (src) => {
    for (const tr of table.querySelectorAll('tbody tr.selected')) tr.classList.remove('selected');
    showLinks();
    const name = linked.selected;
    if (name !== null) {
      const i = state.table === 'values' ? (state.tableRows ?? []).findIndex((r) => r.name === name) : -1;
      if (i >= 0 && src !== 'table') vbody.scrollTo(i); // draws the rows in view, the selected one marked
      else vbody.redraw();
      timelineChart.reveal(name);
    }
    emit('select', name);
  });
  linked.on('hover', () => emit('hover', { name: linked.hover, position: linked.hoverPos }));

  // ---- tooltip ---------------------------------------------------------
  function describeValue(name) {
    const m = state.m;
    const i = m?.index.get(name);
    if (i === undefined) return null;
    const lines = [];
    const own = m.owner[i];
    const size = m.size[i];
    if (m.dtype[i] || m.shape[i] !== undefined) lines.push(['type', `${m.dtype[i] || '?'} ${formatShape(m.shape[i])}`]);
    lines.push(['size', Number.isNaN(size) ? `unknown (${m.unknownReason.get(name) ?? m.unknownReason.get(m.names[own]) ?? 'no shape'})` : `${formatBytes(size)} (${formatInt(size)} B)`]);
    const producer = producerOf(name);
    if (producer) lines.push(['made by', producer]);
    lines.push(['live', `positions ${m.start[i]}–${m.end[i]} (${m.end[i] - m.start[i] + 1})`]);
    const slot = m.slot[own];
    const off = m.offset[own];
    if (slot >= 0 || !Number.isNaN(off)) {
      lines.push(['placed', [slot >= 0 ? `slot ${slot}` : '', !Number.isNaN(off) ? `offset ${formatInt(off)}` : ''].filter(Boolean).join(' · ')]);
    }
    const ru = state.reuse.get(name);
    if (ru) lines.push(['reuses', `${reuseText(ru)} in place${state.inplace ? (m.owner[i] === m.owner[m.index.get(ru.input) ?? -1] ? ' (applied)' : ' (not applied)') : ''}`]);
    if (own !== i) lines.push(['view of', m.names[own]]);
    else {
      // Views per owner, counted once per plan (a hover must not scan every value).
      if (state.viewCount?.m !== m) {
        const count = new Int32Array(m.n);
        for (let j = 0; j < m.n; j++) if (m.owner[j] !== j) count[m.owner[j]]++;
        state.viewCount = { m, count };
      }
      const nv = state.viewCount.count[i];
      if (nv) lines.push(['views', String(nv)]);
    }
    return lines;
  }
  // "Conv conv2d_3" for the node that outputs a value (null: a graph input or initializer).
  function producerOf(name) {
    const m = state.m;
    if (!m?.nodes.length) return null;
    state.producer ??= new Map(m.nodes.flatMap((nd) => (nd.outputs ?? []).filter(Boolean).map((o) => [o, nd])));
    const nd = state.producer.get(name);
    return nd ? `${nodeLabel(nd)} (position ${nd.index})` : null;
  }
  const nodeLabel = (nd) => [nd.domain && nd.domain !== 'ai.onnx' ? `${nd.domain}.${nd.op}` : nd.op, nd.name].filter(Boolean).join(' ');
  function describePosition(p) {
    const s = state.series;
    if (!s || p === null || p >= s.positions) return null;
    const lines = [];
    const nd = state.m?.nodes[p];
    if (nd) lines.push(['node', nodeLabel(nd) || '—']);
    lines.push(['live', `${formatBytes(s.liveBound[p])} in ${formatInt(s.count[p])} buffers`]);
    if (s.maxExtent > 0) lines.push(['arena top', formatBytes(s.extent[p])]);
    lines.push(['naive', formatBytes(s.naive[p])]);
    if (s.unknown[p]) lines.push(['unknown', `${formatInt(s.unknown[p])} sizes unknown`]);
    const outs = tableRows('nodes')[p]?.outputs ?? [];
    if (outs.length) lines.push(['produces', outs.slice(0, 4).join(', ') + (outs.length > 4 ? ` +${outs.length - 4}` : '')]);
    return lines;
  }
  function showTooltip(ev, name, pos) {
    const lines = name !== null ? describeValue(name) : describePosition(pos);
    if (!lines) { tooltip.hidden = true; return; }
    tooltip.replaceChildren(el('div', 'mpv-tip-title', name !== null ? name : `position ${pos}`));
    const dl = el('dl');
    for (const [k, v] of lines) dl.append(el('dt', '', k), el('dd', '', v));
    tooltip.append(dl);
    tooltip.hidden = false;
    const pad = 14;
    const w = tooltip.offsetWidth, h = tooltip.offsetHeight;
    let x = ev.clientX + pad, y = ev.clientY + pad;
    if (x + w > window.innerWidth - 4) x = ev.clientX - w - pad;
    if (y + h > window.innerHeight - 4) y = ev.clientY - h - pad;
    tooltip.style.left = `${Math.max(4, x)}px`;
    tooltip.style.top = `${Math.max(4, y)}px`;
  }

  // ---- plan ------------------------------------------------------------
  // The plan first (figures, table, timeline, arena, the plan-based memory
  // series); the slot plan and the profile follow as they arrive (applySlots,
  // applyProfile), so the figures do not wait for them.
  // The table rows of the current plan, made on first use: a re-plan draws
  // the charts without paying for the tab nobody looks at.
  function tableRows(which) {
    const m = state.m;
    if (!m) return [];
    if (which === 'values') {
      if (!state.rows.values) {
        state.rows.values = valueRows(m);
        for (const r of state.rows.values) r.reuses = reuseText(state.reuse.get(r.name));
      }
      return state.rows.values;
    }
    state.rows.nodes ??= nodeRows(m, state.series);
    return state.rows.nodes;
  }
  // The in-place reuse lists by output: they depend on the model only.
  let reuseCache = { doc: undefined, map: null };
  function reuseOf(doc, nodes) {
    if (!doc) return new Map();
    if (reuseCache.doc !== doc) reuseCache = { doc, map: reuseByOutput(doc, nodes) };
    return reuseCache.map;
  }

  function applyPlan(plan, slotsPlan, profileDoc = null, profileNote = '') {
    state.plan = plan;
    const m = normalizePlan(plan);
    state.m = m;
    linksOf = null;
    state.reuse = reuseOf(state.inplaceDoc, m.nodes);
    state.series = memorySeries(m);
    for (const d of m.unknownDims) if (!state.dimNames.includes(d)) state.dimNames.push(d);
    state.rows = { values: null, nodes: null };
    state.producer = null; // built on the first value tooltip
    const sameDomain = linked.fullDomain[1] === Math.max(1, m.positions);
    if (!sameDomain) linked.setFullDomain([0, Math.max(1, m.positions)]);
    if (linked.selected !== null && !m.index.has(linked.selected)) linked.select(null);
    renderFigures();
    renderDims();
    renderDeferred();
    memoryChart.setData(m, state.series);
    applyProfile(profileDoc, profileNote);
    timelineChart.setData(m);
    arenaChart.setData(m, state.series);
    applySlots(slotsPlan);
    renderTable();
    showLinks();
  }
  function applySlots(slotsPlan) {
    const m = state.m;
    const sp = slotsPlan ?? (m.strategy === 'slots' ? state.plan : null);
    state.slotsPlan = sp;
    state.slotsM = sp ? normalizePlan(sp) : null;
    slotsChart.setData(state.slotsM, state.slotsM ? slotOccupancy(state.slotsM) : null);
    slotsChart.frame.titleEl.textContent = m.strategy === 'slots' ? 'Slot occupancy' : 'Slot occupancy (the slot plan, for comparison)';
  }
  function applyProfile(profileDoc, profileNote = '') {
    const m = state.m;
    state.profileDoc = profileDoc;
    state.profile = profileDoc ? profileSeries(profileDoc, m.positions) : null;
    let note = profileNote;
    if (state.profile && !state.profile.ok) {
      note = state.profile.reason === 'symbolic'
        ? `stacking by tag needs every dim bound (the profile is symbolic${m.unknownDims.length ? `: ${m.unknownDims.join(', ')} unbound` : ''}); showing the plan's live bytes`
        : 'the profile lists no nodes; showing the plan\'s live bytes';
    }
    memoryChart.setProfile(state.profile, note);
  }

  let profileCache = null;
  async function replan() {
    if (!state.model) return;
    const gen = ++state.planGen;
    // The dims as they are now: a dim typed while this re-plan waits starts the next one.
    const dims = dimArgs();
    const t0 = performance.now();
    setState('planning');
    busy(true);
    setProgress('planning…');
    try {
      const onProgress = (p) => { if (gen === state.planGen && p.stage === 'running') setProgress('planning…'); };
      const model = state.model;
      // The reuse lists do not depend on dims or options: once per model.
      if (!state.inplaceDoc) {
        try { const doc = await model.call('inplace', []); if (model === state.model) state.inplaceDoc = doc; } catch (e) { if (e.name === 'AbortError') throw e; }
      }
      // The node list depends on the model only: taken with the first plan,
      // then left out of re-plans (--no-nodes: 40% of a plan's JSON).
      const nodes = state.planNodes?.model === model ? state.planNodes.nodes : null;
      let plan = await model.call('plan', nodes ? [...planArgs(state.strategy, dims), '--no-nodes'] : planArgs(state.strategy, dims), { onProgress });
      if (gen !== state.planGen) return;
      if (nodes) plan = attachNodes(plan, nodes);
      else state.planNodes = { model, nodes: plan.nodes };
      // The per-node profile with the same dims (stacked memory by bucket and tag).
      // Strategy, alignment and in-place do not change it: kept while the dims stay.
      const pkey = dims.join('\n');
      const cached = profileCache && profileCache.model === model && profileCache.key === pkey ? profileCache : null;
      errorBox.hidden = true;
      applyPlan(plan, null, cached?.doc ?? null, cached?.note ?? '');
      state.shownMs = performance.now() - t0;
      setProgress(`${plan.status} in ${Math.round(state.shownMs)} ms; slot plan and profile…`);
      if (plan.strategy !== 'slots' && plan.status === 'planned') {
        const slotsPlan = attachNodes(await model.call('plan', [...planArgs('slots', dims), '--no-nodes']), plan.nodes);
        if (gen !== state.planGen) return;
        applySlots(slotsPlan);
      }
      if (!cached) {
        let doc = null, note = '';
        try { doc = await model.call('profile', dims); } catch (e) { if (e.name === 'AbortError') throw e; note = `no profile: ${e.message}`; }
        profileCache = { model, key: pkey, doc, note };
        if (gen !== state.planGen) return;
        applyProfile(doc, note);
      }
      busy(false);
      setProgress(`${plan.status} in ${Math.round(state.shownMs)} ms (all charts ${Math.round(performance.now() - t0)} ms)`);
      setState('ready');
      emit('plan', plan);
    } catch (e) {
      if (gen !== state.planGen) return;
      busy(false);
      if (e.name === 'AbortError') return;
      console.warn(e.stack); showError(`${state.name}: ${e.message}`);
    }
  }

  async function open(name, bytesOrPromise) {
    const gen = ++state.loadGen;
    state.planGen++;
    errorBox.hidden = true;
    let opened = false;
    state.name = name;
    nameEl.textContent = name;
    setState('loading');
    busy(true);
    setProgress(`reading ${name}…`);
    const t0 = performance.now();
    try {
      const bytes = await bytesOrPromise;
      if (gen !== state.loadGen) return;
      const size = bytes.byteLength ?? bytes.size; // bytes, or a File read in slices
      setProgress(`opening ${formatBytes(size)}…`);
      const stages = { starting: 'starting WebAssembly…', parsing: `parsing ${formatBytes(size)}…`, info: 'reading the graph…' };
      const model = await client.open(bytes, { onProgress: (p) => { if (gen === state.loadGen) { setProgress(stages[p.stage] ?? p.stage); emit('progress', p); } } });
      if (gen !== state.loadGen) { model.close(); return; }
      state.model?.close().catch(() => {});
      state.model = model;
      state.shownName = name; // the name of what the charts show
      opened = true;
      state.inplaceDoc = null;
      state.info = model.info;
      state.dims = new Map();
      state.dimNames = [];
      state.sortKey = null;
      linked.select(null);
      renderModelInfo(infoBody, model.info);
      emit('load', { name, info: model.info, bytes: size });
      await replan();
      if (gen !== state.loadGen) return;
      main.hidden = false;
      // Charts measured while hidden: let them size themselves now.
      for (const c of Object.values(chartList)) c.frame.resize();
      setProgress(`${formatBytes(size)} · ${state.plan?.status ?? ''} · ${Math.round(performance.now() - t0)} ms`);
    } catch (e) {
      if (gen !== state.loadGen) return;
      busy(false);
      if (e.name === 'AbortError') return;
      if (!opened && !main.hidden) { state.name = state.shownName; nameEl.textContent = state.shownName; } // the charts still show it
      console.warn(e.stack); showError(`${name}: ${e.message}`);
      throw e; // shown, and the caller's promise rejects with it
    }
  }

  syncControls();
  const api = {
    root, linked, charts: chartList, version: client.version,
    get state() { return state; },
    open,
    setDims(obj) {
      for (const [k, v] of Object.entries(obj ?? {})) {
        state.dims.set(k, v === null || v === undefined ? '' : String(v));
        if (!state.dimNames.includes(k)) state.dimNames.push(k);
      }
      renderDims();
      return replan();
    },
    setOptions({ strategy, align, inplace: ip } = {}) {
      if (strategy === 'arena' || strategy === 'slots') state.strategy = strategy;
      if (typeof ip === 'boolean') state.inplace = ip;
      if (ALIGNS.includes(Number(align))) state.align = Number(align);
      syncControls();
      return replan();
    },
    select(name) { linked.select(name ?? null, 'api'); },
    /** Show a plan JSON without a model (no re-planning: the controls are disabled). */
    showPlan(plan, name = 'plan.json') {
      // Checked before anything changes: a wrong document leaves the view as it was.
      if (!plan || typeof plan !== 'object' || !Array.isArray(plan.values) || typeof plan.status !== 'string') {
        throw new TypeError('not a plan document: expected the output of `memplan plan --json`');
      }
      state.loadGen++; state.planGen++;
      state.model?.close().catch(() => {});
      state.model = null;
      state.inplaceDoc = null;
      state.name = state.shownName = name;
      nameEl.textContent = name;
      state.dims = new Map(); state.dimNames = [];
      errorBox.hidden = true;
      linked.select(null);
      infoBody.replaceChildren(el('p', 'muted', 'A plan document: no model summary.'));
      applyPlan(plan, null, null, 'a plan document has no per-node profile (open the model to stack by tag)');
      syncControls();
      main.hidden = false;
      for (const c of Object.values(chartList)) c.frame.resize();
      setProgress(`plan document · ${formatInt(plan.values?.length ?? 0)} values`);
      setState('ready');
      emit('plan', plan);
    },
    /** Stop the running load or plan (the worker restarts; the model must be opened again). */
    cancel,
    on(type, fn) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type).add(fn);
      return () => listeners.get(type)?.delete(fn);
    },
    destroy() {
      state.loadGen++; state.planGen++;
      for (const c of Object.values(chartList)) c.destroy();
      vbody.destroy();
      linked.clear();
      state.model?.close().catch(() => {});
      root.replaceChildren();
      root.classList.remove('mpv-app');
      listeners.clear();
    },
  };
  return api;
}
