// timeline.js -- (a) the live-interval timeline: one row per buffer (values
// that own memory, ordered by first use) across positions (nodes in
// topological order); a value's bar spans [start, end+1). Views are drawn on
// their root's row as a darker inner band. Colour: the slot in slot plans,
// else the buffer. A narrow strip on the right brushes the visible rows.
import { axisLeft, brushY, format, scaleLinear } from 'd3';

const compact = format('~s');
import {
  PALETTE,
  PALETTE_PIXELS,
  RasterMarks,
  UNKNOWN_COLOR,
  pixelOf,
  chartApi,
  chartLayers,
  outlineX,
  colorOf,
  fitPlot,
  keyed,
  layoutFrame,
  markedValues,
  plotCursorMarks,
  positionAxis,
  setMarks,
  setText,
  appendTitled,
  stickyPick,
  linkPointer,
  rasterCovers,
} from './base.js';
import { intervalIndex, queryIntervals } from '../data/series.js';

const MARGIN = { top: 6, right: 26, bottom: 22, left: 48 };
const UNKNOWN_PIXEL = pixelOf(UNKNOWN_COLOR);

export function createTimeline(container, linked, { height = 300, hooks = {}, key } = {}) {
  let m = null;
  let links = null; // the selected value's producer and consumers (positions)
  let views = new Map(); // owner index -> view indices
  let rowRange = null; // [r0, r1) rows shown, null = all
  let ixOwners = null,
    ixViews = null; // intervalIndex of the owners and of the views (culling by x)
  let vis = new Int32Array(0); // the indices a query returns
  const baseX = scaleLinear();
  const y = scaleLinear();
  const raster = new RasterMarks();
  const yAxisOnce = keyed(); // the y axis does not move with x

  const picker = stickyPick(pick); // forgets the last hover when the geometry changes
  const frame = layoutFrame(container, {
    key,
    className: 'mpv-timeline',
    title: 'Live intervals — one row per buffer, x = position (node in topological order)',
    height,
    margin: MARGIN,
    layout,
    draw,
  });
  const layers = chartLayers(frame, { linked, getBaseX: () => baseX });
  const { svg, gx, gy, hoverG, surface: zoomRect, message, xz } = layers;
  // The row label under the hover layer, the row brush over the zoom surface.
  const ylabel = svg.insert('text', '.hover-layer').attr('class', 'axis-label').attr('text-anchor', 'middle');
  const stripG = svg.insert('g', '.chart-message').attr('class', 'mpv-interactive row-strip');
  const brush = brushY().on('brush end', (ev) => {
    if (!ev.sourceEvent || !m) return;
    if (!ev.selection) rowRange = null;
    else {
      const s = scaleLinear()
        .domain([0, m.rowCount])
        .range([MARGIN.top, frame.height - MARGIN.bottom]);
      const r0 = Math.max(0, Math.floor(s.invert(ev.selection[0])));
      const r1 = Math.min(m.rowCount, Math.max(r0 + 1, Math.ceil(s.invert(ev.selection[1]))));
      rowRange = r1 - r0 >= m.rowCount ? null : [r0, r1];
    }
    layout();
    draw();
  });

  function layout() {
    picker.leave();
    const w = frame.width,
      h = frame.height;
    baseX.range([MARGIN.left, w - MARGIN.right]);
    const [r0, r1] = rowRange ?? [0, Math.max(1, m?.rowCount ?? 1)];
    y.domain([r0, r1]).range([MARGIN.top, h - MARGIN.bottom]);
    fitPlot(frame, layers);
    ylabel
      .attr('transform', `translate(12,${(MARGIN.top + h - MARGIN.bottom) / 2}) rotate(-90)`)
      .text(rowRange ? `buffers ${r0}–${r1 - 1}` : 'buffers (by first use)');
    stripG.attr('transform', `translate(${w - MARGIN.right + 8},0)`);
    brush.extent([
      [0, MARGIN.top],
      [12, h - MARGIN.bottom],
    ]);
    stripG.call(brush);
    if (!rowRange) stripG.call(brush.move, null);
    xz.sync();
  }

  const currentX = () => {
    const [d0, d1] = linked.domain();
    return baseX.copy().domain([d0, d1]);
  };

  function draw() {
    frame.schedule(render);
  }

  function render() {
    frame.begin();
    const ctx = frame.ctx;
    const x = currentX();
    positionAxis(gx, x, frame.width, frame.height - MARGIN.bottom);
    yAxisOnce(`${y.domain()} ${y.range()}`, () =>
      gy.attr('transform', `translate(${MARGIN.left},0)`).call(
        axisLeft(y)
          .ticks(Math.max(2, frame.height / 40))
          .tickFormat((d) => (Number.isInteger(d) ? (d >= 10000 ? compact(d) : d) : ''))
          .tickSizeOuter(0),
      ),
    );
    if (!m || m.n === 0) {
      setText(message.node(), m ? 'no intermediate values' : '');
      setMarks(hoverG, []);
      return;
    }
    setText(message.node(), '');
    const [d0, d1] = x.domain();
    const [r0, r1] = y.domain();
    const left = MARGIN.left,
      right = frame.width - MARGIN.right;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, MARGIN.top, right - left, frame.height - MARGIN.top - MARGIN.bottom);
    ctx.clip();
    const { rowH, barH, trim } = barShape(x);
    const kx = x(1) - x(0),
      ox = x(0);
    const sel = linked.selected !== null ? m.index.get(linked.selected) : undefined;
    const selOwner = sel !== undefined ? m.owner[sel] : -1;
    const { start, end, row, size, colorKey } = m;
    const nVis = queryIntervals(ixOwners, start, end, d0, d1, vis);
    const ky = y(1) - y(0),
      oy = y(0);
    raster.begin(frame, left, MARGIN.top, right, frame.height - MARGIN.bottom);
    for (let j = 0; j < nVis; j++) {
      const i = vis[j];
      const r = row[i];
      if (r < r0 || r >= r1) continue;
      const xa = ox + kx * start[i];
      raster.rect(
        Number.isNaN(size[i]) ? UNKNOWN_PIXEL : PALETTE_PIXELS[colorKey[i] % PALETTE.length],
        xa,
        oy + ky * r,
        kx * (end[i] + 1 - start[i]) - trim,
        barH,
      );
    }
    ctx.globalAlpha = selOwner >= 0 ? 0.3 : 1;
    raster.end(ctx, ctx.globalAlpha);
    // Views: a darker inner band on their root's row.
    if (rowH >= 2) {
      ctx.fillStyle = 'rgba(20,30,50,0.45)';
      ctx.beginPath();
      const nv = queryIntervals(ixViews, start, end, d0, d1, vis);
      for (let j = 0; j < nv; j++) {
        const i = vis[j];
        const r = row[i];
        if (r < r0 || r >= r1) continue;
        const xa = ox + kx * start[i],
          xb = ox + kx * (end[i] + 1);
        const x0 = Math.round(xa),
          y0 = Math.round(oy + ky * r + barH * 0.3);
        ctx.rect(x0, y0, Math.max(1, Math.round(xb - trim) - x0), Math.max(1, Math.round(barH * 0.4)));
      }
      ctx.fill();
    }
    ctx.globalAlpha = 1;
    if (selOwner >= 0) {
      const i = selOwner;
      ctx.fillStyle = Number.isNaN(size[i]) ? UNKNOWN_COLOR : colorOf(colorKey[i]);
      const xa = x(start[i]),
        xb = x(end[i] + 1);
      ctx.fillRect(xa, y(row[i]), Math.max(xb - xa, 1), barH);
    }
    ctx.restore();
    renderHover(x, barH);
  }

  function renderHover(x = currentX(), barH = Math.max(Math.abs(y(1) - y(0)) - 1, 0.75)) {
    const items = [];
    if (m) {
      for (const [i, cls] of markedValues(m, linked)) {
        const r = m.row[i];
        const xa = x(m.start[i]),
          xb = x(m.end[i] + 1);
        const h = Math.max(barH, 3);
        const ox = outlineX(xa, xb, MARGIN.left, frame.width - MARGIN.right);
        if (ox)
          items.push({ tag: 'rect', attrs: { class: cls, ...ox, y: y(r) + barH / 2 - h / 2 - 1, height: h + 2 } });
      }
      // The selected value's producer and consumers: a line at each of their positions.
      if (links) {
        const top = MARGIN.top,
          bottom = frame.height - MARGIN.bottom;
        const marks = [
          ...(links.producer !== null ? [[links.producer, 'mark-producer']] : []),
          ...links.consumers.map((p) => [p, 'mark-consumer']),
        ];
        for (const [p, cls] of marks) {
          const xp = x(p + 0.5);
          if (xp < MARGIN.left - 0.5 || xp > frame.width - MARGIN.right + 0.5) continue;
          items.push({
            tag: 'line',
            key: p,
            attrs: { class: `mark-node ${cls}`, 'data-position': p, x1: xp, x2: xp, y1: top, y2: bottom },
          });
          items.push({
            tag: 'path',
            key: p,
            attrs: {
              class: `mark-node-head ${cls}`,
              d: `M${xp - 4},${top - 7}L${xp + 4},${top - 7}L${xp},${top - 1}Z`,
            },
          });
        }
      }
      items.push(...plotCursorMarks(frame, x, linked.hoverPos));
    }
    setMarks(hoverG, items);
  }

  // A bar's height and the gaps between bars: the rows' pitch less a
  // pixel where rows are tall, at least 0.75 px; bars wider than 6 px end a
  // pixel early, so neighbours stay apart.
  function barShape(x) {
    const rowH = Math.abs(y(1) - y(0));
    return { rowH, barH: Math.max(rowH - (rowH > 4 ? 1 : 0), 0.75), trim: x(1) - x(0) > 6 ? 1 : 0 };
  }

  // The value whose bar is drawn under the pointer. render() fills device
  // pixels by rounding (RasterMarks.rect), and so does this test: where rows
  // or positions are thinner than a pixel (a model's rows in a few hundred
  // pixels), several bars share one, and the rows drawn into the pointer's
  // pixel are tried nearest it first.
  function pick(ev) {
    if (!m) return { name: null, pos: null };
    const [mx, my] = [ev.offsetX, ev.offsetY];
    const x = currentX();
    const pos = Math.floor(x.invert(mx));
    if (pos < 0 || pos >= m.positions) return { name: null, pos: null };
    const k = frame.dpr,
      px = Math.floor(mx * k),
      py = Math.floor(my * k);
    const { rowH, barH, trim } = barShape(x);
    const within = (p, a, b) => rasterCovers(p, a, b, k);
    const under = (i) => within(px, x(m.start[i]), x(m.end[i] + 1) - trim);
    const r = Math.floor(y.invert(my));
    const span = Math.ceil(1 / Math.min(rowH, 1));
    const [lo, hi] = y.domain(); // the rows drawn: all, or the strip's brush
    for (let d = 0; d <= span; d++)
      for (const q of d ? [r - d, r + d] : [r]) {
        if (q < Math.max(0, lo) || q >= Math.min(m.rowCount, hi)) continue;
        const o = m.rowValue[q];
        if (!within(py, y(q), y(q) + barH) || !under(o)) continue;
        // A view under the pointer wins over its root.
        for (const v of views.get(o) ?? []) if (under(v)) return { name: m.names[v], pos };
        return { name: m.names[o], pos };
      }
    return { name: null, pos };
  }

  const offs = linkPointer(zoomRect, picker, linked, hooks, () => api, { xz, draw, renderHover });

  const api = {
    ...chartApi(frame, { marks: marksSVG, offs }),
    /** Mark node positions for the selected value: {producer: p|null, consumers: [p]} or null. */
    setLinks(l) {
      links = l;
      renderHover();
    },
    get links() {
      return links;
    },
    setData(model) {
      m = model;
      links = null;
      rowRange = null;
      views = new Map();
      if (m)
        for (let i = 0; i < m.n; i++)
          if (m.owner[i] !== i) {
            const o = m.owner[i];
            if (!views.has(o)) views.set(o, []);
            views.get(o).push(i);
          }
      ixOwners = m ? intervalIndex(m.start, m.end, (i) => m.owner[i] === i) : null;
      ixViews = m ? intervalIndex(m.start, m.end, (i) => m.owner[i] !== i) : null;
      if (vis.length < (m?.n ?? 0)) vis = new Int32Array(m.n);
      baseX.domain([0, Math.max(1, m?.positions ?? 1)]);
      layout();
      draw();
    },
    /** Scroll the rows so value `name` is visible. */
    reveal(name) {
      const i = m?.index.get(name);
      if (i === undefined || !rowRange) return;
      const r = m.row[i];
      if (r >= rowRange[0] && r < rowRange[1]) return;
      const span = rowRange[1] - rowRange[0];
      const r0 = Math.max(0, Math.min(m.rowCount - span, r - Math.floor(span / 2)));
      rowRange = [r0, r0 + span];
      layout();
      draw();
    },
    renderNow: render,
  };

  function marksSVG(g) {
    if (!m) return;
    const x = currentX();
    const [d0, d1] = x.domain();
    const [r0, r1] = y.domain();
    const barH = Math.max(Math.abs(y(r0 + 1) - y(r0)) - 1, 0.75);
    let count = 0;
    for (let i = 0; i < m.n && count < 20000; i++) {
      if (m.end[i] + 1 < d0 || m.start[i] > d1 || m.row[i] < r0 || m.row[i] >= r1) continue;
      const view = m.owner[i] !== i;
      const xa = Math.max(x(m.start[i]), MARGIN.left),
        xb = Math.min(x(m.end[i] + 1), frame.width - MARGIN.right);
      appendTitled(g, 'rect', m.names[i], {
        x: xa.toFixed(2),
        y: (y(m.row[i]) + (view ? barH * 0.3 : 0)).toFixed(2),
        width: Math.max(xb - xa, 0.75).toFixed(2),
        height: (view ? barH * 0.4 : barH).toFixed(2),
        fill: view ? 'rgba(20,30,50,0.45)' : Number.isNaN(m.size[i]) ? UNKNOWN_COLOR : colorOf(m.colorKey[i]),
      });
      count++;
    }
  }
  return api;
}
