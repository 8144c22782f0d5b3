// table.js -- the Details section: the value and node tables (tabs, sort by
// any column, filter by regular expression, virtualized rows), the selected
// value's producer and consumers (node rows marked, a line of text), and a
// toolbar the exports go into. Cells are text, never HTML.
import { el } from '../charts/base.js';
import { formatInt, nodeLabel } from '../data/format.js';
import { createVirtualBody } from './vtable.js';

export const VALUE_COLUMNS = [
  { key: 'name', label: 'value' },
  { key: 'dtype', label: 'dtype' },
  { key: 'shape', label: 'shape', mono: true },
  { key: 'size', label: 'size', num: true, bytes: true },
  { key: 'start', label: 'start', num: true },
  { key: 'end', label: 'end', num: true },
  { key: 'length', label: 'live for', num: true },
  { key: 'owner', label: 'owner' },
  { key: 'slot', label: 'slot', num: true },
  { key: 'offset', label: 'offset', num: true, bytes: true },
  { key: 'status', label: 'note' },
  { key: 'reuses', label: 'reuses (in place)' },
];
export const NODE_COLUMNS = [
  { key: 'position', label: 'position', num: true },
  { key: 'op', label: 'op' },
  { key: 'name', label: 'node' },
  { key: 'inputs', label: 'inputs' },
  { key: 'outputs', label: 'outputs' },
  { key: 'allocated', label: 'allocated', num: true, bytes: true },
  { key: 'freed', label: 'freed after', num: true, bytes: true },
  { key: 'live', label: 'live', num: true, bytes: true },
  { key: 'extent', label: 'arena top', num: true, bytes: true },
];
/** The columns of table `which` ('values' | 'nodes'). */
export const columnsOf = (which) => (which === 'values' ? VALUE_COLUMNS : NODE_COLUMNS);
const NAME_KEYS = new Set(['name', 'inputs', 'outputs', 'owner', 'reuses']);
/** Relative column widths of the (fixed-layout) tables. */
const columnWeight = (c) =>
  NAME_KEYS.has(c.key) ? 3 : c.mono || c.key === 'op' ? 2 : c.bytes ? 1.4 : c.num ? 1.1 : 1.2;
const FILTER_PAUSE_MS = 120;
/** The table's least width (rem; view.css .mpv-table min-width): the weights share it. */
const TABLE_MIN_REM = 62;
// A numeric cell's text in rem: .82rem digits (tabular, about .6em each, a comma less) with a margin, plus .5rem padding each side.
const NUM_CHAR_REM = 0.53,
  NUM_PAD_REM = 1.3;

/**
 * Column widths in rem for `cols` over `rows`: each column its weight's share
 * of the table's least width, and a numeric column at least as wide as its
 * longest number (formatInt of the largest magnitude, a minus sign if any is
 * negative), so numbers are never cut (the table scrolls sideways instead).
 */
export function columnWidths(cols, rows) {
  const weights = cols.reduce((a, c) => a + columnWeight(c), 0);
  return cols.map((c) => {
    const share = (TABLE_MIN_REM * columnWeight(c)) / weights;
    if (!c.num) return share;
    let max = 0,
      neg = false;
    for (const r of rows) {
      const v = r[c.key];
      if (v === null || v === undefined || v === '') continue;
      const x = typeof v === 'bigint' ? v : Number(v);
      if (x < 0) neg = true;
      const a = x < 0 ? -x : x;
      if (a > max) max = a;
    }
    const chars = formatInt(max).length + (neg ? 1 : 0);
    return Math.max(share, chars * NUM_CHAR_REM + NUM_PAD_REM);
  });
}

const BODY_HITS_MAX = 50;

/** The Details section, appended to `container`. Returns {toolbar}: where the export buttons go. */
export function createTable(container, ctl) {
  const { linked } = ctl;
  const sec = el('section', 'mpv-table-sec');
  const tabs = el('div', 'mpv-seg');
  const tabBtns = {};
  for (const [k, label] of [
    ['values', 'Values'],
    ['nodes', 'Nodes'],
  ]) {
    const b = el('button', 'mpv-seg-btn', label);
    b.type = 'button';
    b.dataset.table = k;
    b.addEventListener('click', () => ctl.setTable({ tab: k, sortKey: null }));
    tabBtns[k] = b;
    tabs.append(b);
  }
  const filterIn = el('input', 'mpv-filter');
  filterIn.type = 'search';
  filterIn.placeholder = 'filter (regular expression)';
  filterIn.setAttribute('aria-label', 'filter rows by regular expression');
  let filterTimer = 0;
  filterIn.addEventListener('input', () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => ctl.setTable({ filter: filterIn.value }), FILTER_PAUSE_MS);
  });
  const note = el('span', 'mpv-table-note muted');
  const toolbar = el('div', 'mpv-exports');
  const head = el('div', 'mpv-table-head');
  head.append(tabs, filterIn, note, toolbar);
  const bodyHits = el('div', 'mpv-body-hits');
  bodyHits.hidden = true;
  const wrap = el('div', 'mpv-table-wrap');
  const table = el('table', 'mpv-table');
  wrap.append(table);
  const vbody = createVirtualBody(wrap, table);
  const linksLine = el('p', 'mpv-node-links');
  linksLine.hidden = true;
  sec.append(el('h3', '', 'Details'), head, bodyHits, linksLine, wrap);
  container.append(sec);
  let shown = []; // the rows shown (filtered, sorted)
  let shownHead = null; // the tab and sort the header was made for
  let colgroup = null,
    shownWidths = ''; // the column widths set

  function syncTabs() {
    for (const [k, b] of Object.entries(tabBtns)) b.classList.toggle('on', k === ctl.state.table.tab);
  }

  function headerRow(cols) {
    const { sortKey, sortDir } = ctl.state.table;
    const hr = el('tr');
    for (const c of cols) {
      const th = el('th', c.num ? 'num' : '', c.label);
      th.title = c.label; // the header may be cut short by its column's width
      th.dataset.key = c.key;
      th.tabIndex = 0;
      if (sortKey === c.key) th.append(el('span', 'mpv-sort', sortDir > 0 ? ' ▲' : ' ▼'));
      const sort = () =>
        ctl.setTable(sortKey === c.key ? { sortDir: -sortDir } : { sortKey: c.key, sortDir: c.num ? -1 : 1 });
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          sort();
        }
      });
      hr.append(th);
    }
    return hr;
  }
  function render() {
    syncTabs();
    const { which, rows, all, error } = ctl.tableView();
    const cols = columnsOf(which);
    // The header and column widths are remade only when the tab or the sort changed
    // (a re-plan keeps them: no layout work for them).
    const { sortKey, sortDir } = ctl.state.table;
    const headKey = `${which}\n${sortKey}\n${sortDir}`;
    if (headKey !== shownHead) {
      shownHead = headKey;
      const thead = el('thead');
      thead.append(headerRow(cols));
      colgroup = el('colgroup');
      for (let k = 0; k < cols.length; k++) colgroup.append(el('col'));
      shownWidths = '';
      table.replaceChildren(colgroup, thead, vbody.body);
    }
    // Widths in rem (the table is at least their sum wide, wider ones share the rest): set again when they change.
    const widths = columnWidths(cols, rows)
      .map((w) => `${w.toFixed(2)}rem`)
      .join(' ');
    if (widths !== shownWidths) {
      shownWidths = widths;
      widths.split(' ').forEach((w, k) => (colgroup.children[k].style.width = w));
    }
    shown = rows;
    table.dataset.rows = String(rows.length);
    vbody.set(rows.length, (i) => tableRow(which, rows[i], cols), cols.length);
    note.textContent =
      `${formatInt(rows.length)} of ${formatInt(all)} rows` +
      (error ? ' · not a valid regular expression: matching text' : '');
    renderBodyMatches(which);
  }
  // The values inside other bodies that match the filter, one link per body (it opens that body).
  function renderBodyMatches(which) {
    const found = which === 'values' ? ctl.bodyMatches() : [];
    bodyHits.hidden = found.length === 0;
    if (!found.length) {
      bodyHits.replaceChildren();
      return;
    }
    const total = found.reduce((a, b) => a + b.count, 0);
    const ul = el('ul');
    for (const b of found.slice(0, BODY_HITS_MAX)) {
      const btn = el('button', 'mpv-link', `${b.path.length ? b.label : 'the main graph'}`);
      btn.type = 'button';
      btn.addEventListener('click', () => ctl.openBody(b.path));
      const li = el('li');
      li.append(btn, el('span', 'muted', ` — ${formatInt(b.count)} match${b.count === 1 ? '' : 'es'}`));
      ul.append(li);
    }
    if (found.length > BODY_HITS_MAX)
      ul.append(el('li', 'muted', `… ${formatInt(found.length - BODY_HITS_MAX)} more bodies`));
    bodyHits.replaceChildren(
      el('p', '', `${formatInt(total)} more match${total === 1 ? '' : 'es'} inside control-flow bodies:`),
      ul,
    );
  }
  // One <tr>: cells as text; text a column cuts ends in an ellipsis, with the whole text in the cell's title
  // (numbers too: their columns fit them, view.css does not cut them, and the title holds them all the same).
  function tableRow(which, r, cols) {
    const tr = el('tr');
    if (which === 'values') {
      tr.dataset.name = r.name;
      if (r.name === linked.selected) tr.className = 'selected';
    } else {
      tr.dataset.position = String(r.position);
      const lk = ctl.state.links;
      if (lk && lk.producer === r.position) tr.classList.add('producer');
      if (lk && lk.consumers.includes(r.position)) tr.classList.add('consumer');
    }
    for (const c of cols) {
      let v = r[c.key];
      if (Array.isArray(v)) v = v.join(', ');
      const text = v === null || v === undefined || v === '' ? '—' : c.num ? formatInt(v) : String(v);
      const td = el('td', c.num ? 'num' : NAME_KEYS.has(c.key) ? 'name' : c.mono ? 'mono' : '', text);
      if (c.num || text.length > 4) td.title = text; // a narrow column (200% zoom) cuts even a shape such as [2, 1, 128]
      tr.append(td);
    }
    return tr;
  }
  // The keys, on the focused table: ↑/↓ select the row above or below (values), Enter opens a
  // control-flow node's body, Escape clears the selection.
  wrap.tabIndex = 0;
  wrap.setAttribute(
    'aria-label',
    'value table: arrow keys select a row, Enter opens a control-flow body, Escape clears',
  );
  wrap.addEventListener('keydown', (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const name = linked.selected;
    if (ev.key === 'Escape') {
      linked.select(null, 'keyboard');
      ev.preventDefault();
      return;
    }
    if (
      ev.key === 'Enter' &&
      name !== null &&
      ctl.bodyPath(name) &&
      ctl.state.m.transient(ctl.state.m.index.get(name) ?? -1)
    ) {
      ctl.openBody(ctl.bodyPath(name));
      ev.preventDefault();
      return;
    }
    if ((ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') || ctl.state.table.tab !== 'values' || !shown.length) return;
    const i = name === null ? -1 : shown.findIndex((r) => r.name === name);
    const next = Math.max(0, Math.min(shown.length - 1, i < 0 ? 0 : i + (ev.key === 'ArrowDown' ? 1 : -1)));
    linked.select(shown[next].name, 'keyboard');
    ev.preventDefault();
  });
  table.addEventListener('click', (ev) => {
    const tr = ev.target.closest('tbody tr');
    if (!tr) return;
    if (tr.dataset.name !== undefined) linked.setSelected(tr.dataset.name, 'table');
    else if (tr.dataset.position !== undefined) {
      const p = Number(tr.dataset.position);
      const span = Math.max(8, (ctl.state.m?.positions ?? 1) / 20);
      linked.setXDomain([p + 0.5 - span / 2, p + 0.5 + span / 2], 'table');
    }
  });
  table.addEventListener('pointerover', (ev) => {
    const tr = ev.target.closest('tbody tr');
    if (tr?.dataset.name !== undefined) linked.setHover(tr.dataset.name, null, 'table');
    else if (tr?.dataset.position !== undefined) linked.setHover(null, Number(tr.dataset.position), 'table');
  });
  table.addEventListener('pointerleave', () => linked.setHover(null, null, 'table'));

  // The selected value's producer and consumers: node rows marked, and a line of text.
  function showLinks() {
    const { links: lk, m } = ctl.state;
    for (const tr of table.querySelectorAll('tbody tr[data-position]')) {
      const p = Number(tr.dataset.position);
      tr.classList.toggle('producer', !!lk && lk.producer === p);
      tr.classList.toggle('consumer', !!lk && lk.consumers.includes(p));
    }
    linksLine.replaceChildren();
    linksLine.hidden = !lk;
    if (!lk) return;
    const label = (p) => `${p} ${nodeLabel(m.nodes[p] ?? { op: '?', name: '' })}`.trim();
    const more = lk.consumers.length > 12 ? ` +${lk.consumers.length - 12}` : '';
    linksLine.append(
      el('strong', '', linked.selected),
      document.createTextNode(' — made by '),
      el('span', 'producer', lk.producer === null ? 'a graph input or initializer' : `position ${label(lk.producer)}`),
      document.createTextNode(
        lk.consumers.length
          ? ` · read by ${lk.consumers.length} node${lk.consumers.length === 1 ? '' : 's'}: `
          : ' · read by no node',
      ),
      el('span', 'consumer', lk.consumers.slice(0, 12).map(label).join(', ') + more),
    );
  }
  ctl.on('selection', (source) => {
    for (const tr of table.querySelectorAll('tbody tr.selected')) tr.classList.remove('selected');
    showLinks();
    const name = linked.selected;
    if (name === null) return;
    const i = ctl.state.table.tab === 'values' ? shown.findIndex((r) => r.name === name) : -1;
    if (i >= 0 && source !== 'table')
      vbody.scrollTo(i); // draws the rows in view, the selected one marked
    else vbody.redraw();
  });
  ctl.on('applied', () => {
    render();
    showLinks();
  });
  ctl.on('table', render);
  syncTabs();
  return { toolbar, destroy: () => vbody.destroy() };
}
