// vtable.js -- a table body that keeps only the rows in view in the DOM.
//
// A 10k-node model has 10k value rows and 10k node rows; building them all
// (or even the first thousand) costs more than the re-plan itself, mostly in
// layout. Here the <tbody> holds a spacer row above, the rows the scroll
// container shows (plus a few on either side), and a spacer row below, so the
// scroll bar still measures every row. Rows have one fixed height (the CSS
// keeps cells on one line); it is measured from the first row drawn.
//
//   const vt = createVirtualBody(wrap, table);
//   vt.set(rows.length, (i) => makeTr(rows[i]), columnCount);
//   vt.scrollTo(i);  // brings row i into view (nearest edge)
//   vt.redraw();     // re-make the visible rows (selection changed, ...)

/**
 * The rows to draw: [first, end) covering the view plus `overscan` rows on
 * each side, clamped to [0, count). Pure; exported for tests.
 */
export function visibleWindow(scrollTop, viewHeight, rowHeight, count, overscan = 8) {
  if (!(count > 0) || !(rowHeight > 0)) return [0, 0];
  const top = Math.max(0, scrollTop);
  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const end = Math.min(count, Math.ceil((top + Math.max(0, viewHeight)) / rowHeight) + overscan);
  return [Math.min(first, end), end];
}

/**
 * The scrollTop that shows row i with as little movement as possible (the
 * nearest edge), or the current one when the row is already in full view.
 * `headHeight` is the sticky header's height, which covers the first rows.
 */
export function scrollTopFor(i, scrollTop, viewHeight, rowHeight, headHeight = 0) {
  const rowTop = i * rowHeight,
    rowBottom = rowTop + rowHeight;
  if (rowTop < scrollTop) return rowTop;
  if (rowBottom > scrollTop + viewHeight - headHeight) return Math.max(0, rowBottom - viewHeight + headHeight);
  return scrollTop;
}

const FALLBACK_VIEW = 420; // px: the wrap's max-height when it is not laid out yet (hidden)
const FALLBACK_ROW = 22;

export function createVirtualBody(wrap, table, { overscan = 8 } = {}) {
  const body = document.createElement('tbody');
  let count = 0,
    make = null,
    cols = 1,
    rowHeight = 0,
    frame = 0;
  const spacer = () => {
    const tr = document.createElement('tr');
    tr.className = 'mpv-spacer';
    tr.setAttribute('aria-hidden', 'true');
    const td = document.createElement('td');
    td.colSpan = cols;
    tr.append(td);
    return tr;
  };
  const above = spacer(),
    below = spacer();
  const headHeight = () => table.tHead?.offsetHeight ?? 0;

  function draw() {
    frame = 0;
    const view = wrap.clientHeight || FALLBACK_VIEW;
    const [first, end] = visibleWindow(wrap.scrollTop - headHeight(), view, rowHeight || FALLBACK_ROW, count, overscan);
    const rows = [];
    for (let i = first; i < end; i++) rows.push(make(i));
    above.firstChild.colSpan = below.firstChild.colSpan = cols;
    body.replaceChildren(above, ...rows, below);
    if (!rowHeight && rows.length && rows[0].offsetHeight > 0) {
      rowHeight = rows[0].offsetHeight; // once: every row has the same height
      if (Math.ceil(view / rowHeight) + 2 * overscan > end - first && end < count) return draw();
    }
    const h = rowHeight || FALLBACK_ROW;
    above.firstChild.style.height = `${first * h}px`;
    below.firstChild.style.height = `${(count - end) * h}px`;
    above.hidden = first === 0;
    below.hidden = end === count;
  }
  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(draw);
  };
  wrap.addEventListener('scroll', schedule, { passive: true });
  const resize = typeof ResizeObserver === 'function' ? new ResizeObserver(schedule) : null;
  resize?.observe(wrap);

  return {
    body,
    /** Show `n` rows; makeRow(i) returns the <tr> of row i. */
    set(n, makeRow, columnCount) {
      count = n;
      make = makeRow;
      cols = Math.max(1, columnCount | 0);
      draw();
    },
    redraw: draw,
    /** Scroll the container so that row i is in view. */
    scrollTo(i) {
      if (!(i >= 0 && i < count)) return;
      const h = rowHeight || FALLBACK_ROW;
      const view = wrap.clientHeight || FALLBACK_VIEW;
      const top = scrollTopFor(i, wrap.scrollTop, view, h, headHeight());
      if (top !== wrap.scrollTop) wrap.scrollTop = top;
      draw();
    },
    destroy() {
      resize?.disconnect();
      if (frame) cancelAnimationFrame(frame);
    },
  };
}
