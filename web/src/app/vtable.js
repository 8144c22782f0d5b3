// vtable.js -- a table body that keeps only the rows in view in the DOM.
//
// A 10k-node model has 10k value rows and 10k node rows; building them all
// (or even the first thousand) costs more than the re-plan itself, mostly in
// layout. Here the <tbody> holds a spacer row above, the rows the scroll
// container shows (plus a few on either side), and a spacer row below, so the
// scroll bar still measures every row. Rows have one fixed height (the CSS
// keeps cells on one line); it is measured from the first row drawn.
//
// Drawing reads no layout: the view's height, the header's height and the
// scroll position are kept from ResizeObservers and scroll events. A re-plan
// draws the table right after the charts changed the page, and one read of
// clientHeight there forced a layout of the whole page (~10 ms on a 10k-node
// model, most of the table's cost).
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
  // The layout, as last observed (0: not laid out yet, or hidden).
  let viewHeight = 0,
    headHeight = 0,
    scrollTop = 0;
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

  function draw() {
    frame = 0;
    const view = viewHeight || FALLBACK_VIEW;
    const [first, end] = visibleWindow(scrollTop - headHeight, view, rowHeight || FALLBACK_ROW, count, overscan);
    const rows = [];
    for (let i = first; i < end; i++) rows.push(make(i));
    above.firstChild.colSpan = below.firstChild.colSpan = cols;
    body.replaceChildren(above, ...rows, below);
    // Once, the first time rows are drawn in a laid-out table: every row has the same height.
    if (!rowHeight && rows.length && viewHeight > 0 && rows[0].offsetHeight > 0) {
      rowHeight = rows[0].offsetHeight;
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
  wrap.addEventListener(
    'scroll',
    () => {
      scrollTop = wrap.scrollTop; // layout is clean in a scroll event: no forced layout
      schedule();
    },
    { passive: true },
  );
  // The wrap's and the header's heights, after each layout that changed them.
  const resize =
    typeof ResizeObserver === 'function'
      ? new ResizeObserver(() => {
          viewHeight = wrap.clientHeight;
          headHeight = table.tHead?.offsetHeight ?? 0;
          scrollTop = wrap.scrollTop;
          schedule();
        })
      : null;
  resize?.observe(wrap);
  let observedHead = null;
  const observeHead = () => {
    const th = table.tHead;
    if (!resize || th === observedHead) return;
    if (observedHead) resize.unobserve(observedHead);
    if (th) resize.observe(th);
    observedHead = th;
  };

  return {
    body,
    /** Show `n` rows; makeRow(i) returns the <tr> of row i. */
    set(n, makeRow, columnCount) {
      count = n;
      make = makeRow;
      cols = Math.max(1, columnCount | 0);
      observeHead();
      draw();
    },
    redraw: draw,
    /** Scroll the container so that row i is in view. */
    scrollTo(i) {
      if (!(i >= 0 && i < count)) return;
      const h = rowHeight || FALLBACK_ROW;
      const view = viewHeight || FALLBACK_VIEW;
      const top = scrollTopFor(i, scrollTop, view, h, headHeight);
      if (top !== scrollTop) {
        wrap.scrollTop = top;
        scrollTop = top;
      }
      draw();
    },
    destroy() {
      resize?.disconnect();
      if (frame) cancelAnimationFrame(frame);
    },
  };
}
