// atpeak.js -- "At the peak": the buffers live at the peak position (the plan
// JSON's `at_peak`, as the CLI lists it), or at any position the user picks,
// largest first, with their op, node, dtype, shape and share of the lower
// bound; a click selects the buffer in every chart and the table. Names are
// set as text.
import { el } from '../charts/base.js';
import { alignUp } from '../data/plan.js';
import { liveAt } from '../data/series.js';
import { toNumber } from '../data/exact.js';
import { formatBytes, formatInt, formatShape } from '../data/format.js';

const ROWS_MAX = 200;
export const SCROLL_NOTE = 'The table is wider than the view: scroll it sideways for the bytes and share →';

export function createAtPeak(container, ctl) {
  const sec = el('details', 'mpv-atpeak');
  sec.open = true;
  const summary = el('summary', '', 'At the peak');
  const pick = el('input', 'mpv-atpeak-pos');
  pick.type = 'number';
  pick.min = '0';
  pick.step = '1';
  pick.setAttribute('aria-label', 'position to list the live buffers at');
  const peakBtn = el('button', 'mpv-btn mpv-small', 'peak');
  peakBtn.type = 'button';
  const head = el('p', 'mpv-atpeak-head');
  const posLabel = el('label', 'mpv-ctl');
  posLabel.append(el('span', 'mpv-ctl-label', 'position'), pick, peakBtn);
  const table = el('table', 'mpv-atpeak-table');
  const wrap = el('div', 'mpv-atpeak-wrap');
  wrap.append(table);
  // Said when the table is wider than its box (a narrow view): it scrolls sideways to the bytes.
  const scrollNote = el('p', 'mpv-scroll-note muted', SCROLL_NOTE);
  scrollNote.hidden = true;
  sec.append(summary, posLabel, head, scrollNote, wrap);
  container.append(sec);
  let position = null; // null: the plan's peak position
  const syncScroll = () => {
    scrollNote.hidden = !(sec.open && wrap.scrollWidth > wrap.clientWidth + 1);
  };
  const ro = typeof ResizeObserver === 'function' ? new ResizeObserver(syncScroll) : null;
  ro?.observe(wrap);
  ro?.observe(table);
  sec.addEventListener('toggle', syncScroll);

  function rowsNow() {
    const { m } = ctl.state;
    const ap = m.raw?.at_peak;
    if (position === null && ap && Array.isArray(ap.buffers))
      return { p: ap.position, bytes: ap.bytes, buffers: ap.buffers, fromPlan: true };
    const p = position ?? null;
    if (p === null || p < 0 || p >= m.positions) return null;
    const buffers = liveAt(m, p, (n) => ctl.producer(n));
    let bytes = 0;
    for (const b of buffers) bytes += alignUp(toNumber(b.bytes), m.boundAlign); // shown compact: a double is enough
    return { p, bytes, buffers, fromPlan: false };
  }

  function render() {
    const { m } = ctl.state;
    if (!m) return;
    pick.max = String(Math.max(0, m.positions - 1));
    const r = rowsNow();
    table.replaceChildren();
    wrap.replaceChildren(table);
    if (!r) {
      head.textContent = m.planned
        ? 'Nothing is live at any position.'
        : 'No peak yet: the plan is deferred. Pick a position to list the buffers whose size is known.';
      summary.textContent = 'At the peak';
      syncScroll();
      return;
    }
    if (document.activeElement !== pick) pick.value = String(r.p);
    const nd = m.nodes[r.p];
    summary.textContent = r.fromPlan
      ? `At the peak — position ${r.p}, ${formatBytes(r.bytes)}`
      : `At position ${r.p} — ${formatBytes(r.bytes)}`;
    head.textContent =
      `${formatInt(r.buffers.length)} buffer${r.buffers.length === 1 ? '' : 's'} live at position ${r.p}` +
      (nd ? ` (${nd.op}${nd.name ? ` ${nd.name}` : ''})` : '') +
      `, largest first; share of the lower bound${m.lowerBound !== null ? ` (${formatBytes(m.lowerBound)})` : ''}.`;
    const thead = el('thead');
    const hr = el('tr');
    for (const h of ['buffer', 'op', 'node', 'dtype', 'shape', 'bytes', 'share']) hr.append(el('th', '', h));
    thead.append(hr);
    const tbody = el('tbody');
    for (const b of r.buffers.slice(0, ROWS_MAX)) {
      const tr = el('tr');
      tr.dataset.name = b.name;
      if (b.name === ctl.linked.selected) tr.className = 'selected';
      const nameBtn = el(
        'button',
        'mpv-link',
        b.workspace ? `${b.name} (its kernel's workspace)` : b.transient ? `${b.name} (its body's memory)` : b.name,
      );
      nameBtn.type = 'button';
      nameBtn.addEventListener('click', () => ctl.select(b.name));
      const td0 = el('td');
      td0.append(nameBtn);
      tr.append(
        td0,
        el('td', '', b.op_type ?? '—'),
        el('td', '', b.node ?? '—'),
        el('td', '', b.dtype ?? '—'),
        el('td', '', b.shape ? formatShape(b.shape) : '—'),
        el('td', 'num', formatInt(b.bytes)),
        el('td', 'num', `${(b.share * 100).toFixed(1)}%`),
      );
      tbody.append(tr);
    }
    table.append(thead, tbody);
    if (r.buffers.length > ROWS_MAX) wrap.append(el('p', 'muted', `… ${formatInt(r.buffers.length - ROWS_MAX)} more`));
    syncScroll();
  }
  pick.addEventListener('change', () => {
    const v = Number(pick.value);
    const next = pick.value.trim() === '' || !Number.isInteger(v) ? null : v;
    if (next === position) return; // a blur after Enter: the rows (and the button under the pointer) stay
    position = next;
    render();
  });
  const toPeak = () => {
    position = null;
    pick.value = '';
  };
  peakBtn.addEventListener('click', () => {
    toPeak();
    render();
  });
  // A picked position stays through re-plans of the same graph (new dims, options: the
  // positions are the same nodes); another model, body or order starts at the peak again.
  let shownKey = null;
  ctl.on('applied', (state) => {
    const key = [state.shownName, state.order, ...state.path.map((e) => `${e.index}:${e.attribute}`)].join('\n');
    if (key !== shownKey || position >= (state.m?.positions ?? 0)) toPeak();
    shownKey = key;
    render();
  });
  ctl.on('selection', () => {
    for (const tr of table.querySelectorAll('tbody tr'))
      tr.classList.toggle('selected', tr.dataset.name === ctl.linked.selected);
  });
  return {
    setPosition(p) {
      position = p;
      render();
    },
  };
}
