// arena.js -- (c) the arena map: x = position, y = byte offset, one rectangle
// per buffer [start, end+1) x [offset, offset+size). The planned peak is a
// line across, with the positions where the arena reaches it shaded; the
// lower bound is a dashed line. Slot plans show their slots' prefix-sum
// offsets the same way.
import { scaleLinear } from 'd3';
import {
  PALETTE,
  PALETTE_PIXELS,
  RasterMarks,
  byteAxisLeft,
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
  refLine,
  setMarks,
  setText,
  appendTitled,
  stickyPick,
  linkPointer,
  rasterCovers,
} from './base.js';
import { intervalIndex, queryIntervals } from '../data/series.js';
import { formatBytes } from '../data/format.js';

const MARGIN = { top: 14, right: 26, bottom: 22, left: 64 };

export function createArena(container, linked, { height = 280, hooks = {}, key } = {}) {
  let m = null,
    s = null;
  let yMax = 1;
  let ix = null; // intervalIndex of the placed owners (culling by x, picking)
  let vis = new Int32Array(0);
  const yAxisOnce = keyed(),
    refsOnce = keyed(); // the y axis and the reference lines do not move with x
  const baseX = scaleLinear();
  const y = scaleLinear();
  const raster = new RasterMarks();
  const picker = stickyPick(pick); // forgets the last hover when the geometry changes
  const frame = layoutFrame(container, {
    key,
    className: 'mpv-arena',
    title: 'Arena map — x = position, y = byte offset, one rectangle per buffer',
    height,
    margin: MARGIN,
    layout,
    draw,
  });
  const layers = chartLayers(frame, { linked, getBaseX: () => baseX, extra: ['refs'] });
  const { gx, gy, hoverG, surface: zoomRect, message, xz } = layers;
  const [refG] = layers.groups;

  function layout() {
    picker.leave();
    baseX.range([MARGIN.left, frame.width - MARGIN.right]);
    y.domain([0, yMax]).range([frame.height - MARGIN.bottom, MARGIN.top]);
    fitPlot(frame, layers);
    xz.sync();
  }
  const currentX = () => baseX.copy().domain(linked.domain());
  function draw() {
    frame.schedule(render);
  }
  const placed = (i) => m.owner[i] === i && !Number.isNaN(m.offset[i]) && !Number.isNaN(m.size[i]);

  function render() {
    frame.begin();
    const ctx = frame.ctx;
    const x = currentX();
    positionAxis(gx, x, frame.width, frame.height - MARGIN.bottom);
    yAxisOnce(`${y.domain()} ${y.range()}`, () => byteAxisLeft(gy, y, MARGIN.left, frame.height));
    if (!m || !s) {
      refsOnce('', () => refG.selectAll('*').remove());
      return;
    }
    const anyPlaced = ix.n > 0;
    setText(
      message.node(),
      anyPlaced
        ? ''
        : m.planned
          ? 'no buffers'
          : `no offsets yet: the plan is deferred${m.unknownDims.length ? ' (bind the dims above)' : ''}`,
    );
    if (!anyPlaced) {
      refsOnce('', () => refG.selectAll('*').remove());
      setMarks(hoverG, []);
      return;
    }
    const [d0, d1] = x.domain();
    const left = MARGIN.left,
      right = frame.width - MARGIN.right,
      top = MARGIN.top,
      bottom = frame.height - MARGIN.bottom;
    // Peak positions: where the highest byte in use reaches the maximum.
    const peakPos = [];
    for (let p = Math.max(0, Math.floor(d0)); p < Math.min(s.positions, Math.ceil(d1)); p++)
      if (s.extent[p] === s.maxExtent && s.maxExtent > 0) peakPos.push(p);
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, right - left, bottom - top);
    ctx.clip();
    ctx.fillStyle = 'rgba(225, 87, 89, 0.08)';
    // One rectangle per run of consecutive peak positions (a plateau of 100k positions is one fill, not 100k).
    for (let a = 0; a < peakPos.length;) {
      let b = a + 1;
      while (b < peakPos.length && peakPos[b] === peakPos[b - 1] + 1) b++;
      const x0 = x(peakPos[a]);
      ctx.fillRect(x0, top, Math.max(x(peakPos[b - 1] + 1) - x0, 1), bottom - top);
      a = b;
    }
    const sel = linked.selected !== null ? m.index.get(linked.selected) : undefined;
    const selOwner = sel !== undefined ? m.owner[sel] : -1;
    const { start, end, offset, size, colorKey } = m;
    const nVis = queryIntervals(ix, start, end, d0, d1, vis);
    const kx = x(1) - x(0),
      ox = x(0);
    const ky = y(1) - y(0),
      oy = y(0),
      trim = kx > 6 ? 1 : 0;
    raster.begin(frame, left, top, right, bottom);
    for (let j = 0; j < nVis; j++) {
      const i = vis[j];
      const ya = oy + ky * (offset[i] + size[i]),
        hh = -ky * size[i];
      raster.rect(
        PALETTE_PIXELS[colorKey[i] % PALETTE.length],
        ox + kx * start[i],
        ya,
        kx * (end[i] + 1 - start[i]) - trim,
        hh > 4 ? hh - 1 : hh,
      );
    }
    raster.end(ctx, selOwner >= 0 ? 0.3 : 1);
    ctx.globalAlpha = 1;
    if (selOwner >= 0 && placed(selOwner)) {
      const i = selOwner;
      ctx.fillStyle = colorOf(colorKey[i]);
      ctx.fillRect(
        x(start[i]),
        y(offset[i] + size[i]),
        Math.max(x(end[i] + 1) - x(start[i]), 1),
        Math.max(y(offset[i]) - y(offset[i] + size[i]), 1),
      );
    }
    ctx.restore();
    // Reference lines: planned peak (arena: max extent) and the lower bound.
    const refs = [];
    if (m.strategy === 'arena' && m.peak !== null) refs.push(['peak', m.peak, `planned peak ${formatBytes(m.peak)}`]);
    else if (s.maxExtent > 0) refs.push(['peak', s.maxExtent, `highest offset ${formatBytes(s.maxExtent)}`]);
    if (m.lowerBound !== null && refs[0]?.[1] === m.lowerBound) refs[0][2] = `${refs[0][2]} = lower bound`;
    else if (m.lowerBound !== null) refs.push(['bound', m.lowerBound, `lower bound ${formatBytes(m.lowerBound)}`]);
    refs.sort((a, b) => b[1] - a[1]);
    refsOnce(JSON.stringify([refs, left, right, top, y.domain(), y.range()]), () => drawRefs(refs, left, right, top));
    renderHover(x);
  }

  function drawRefs(refs, left, right, top) {
    refG.selectAll('*').remove();
    let lastY = -Infinity;
    for (const [cls, v, label] of refs) {
      const yy = y(v);
      const ty = Math.max(yy - 3, lastY + 12, top + 8);
      refLine(refG, cls, label, yy, ty, left, right);
      lastY = ty;
    }
  }

  function renderHover(x = currentX()) {
    const items = [];
    if (m) {
      for (const [i0, cls] of markedValues(m, linked)) {
        const i = m.owner[i0];
        if (!placed(i)) continue;
        const x0 = x(m.start[i0]),
          x1 = x(m.end[i0] + 1);
        const ya = y(m.offset[i] + m.size[i]),
          yb = y(m.offset[i]);
        const ox = outlineX(x0, x1, MARGIN.left, frame.width - MARGIN.right);
        if (ox) items.push({ tag: 'rect', attrs: { class: cls, ...ox, y: ya - 1, height: Math.max(yb - ya, 1) + 2 } });
      }
      items.push(...plotCursorMarks(frame, x, linked.hoverPos));
    }
    setMarks(hoverG, items);
  }

  // The buffer whose rectangle is drawn under the pointer, rounded to device
  // pixels as render() draws it (RasterMarks.rect), so a painted pixel names
  // a buffer and a blank one none. Where several are drawn into the pixel
  // (thinner than a pixel, or positions narrower than one), the smallest.
  function pick(ev) {
    if (!m) return { name: null, pos: null };
    const [mx, my] = [ev.offsetX, ev.offsetY];
    const x = currentX();
    const pos = Math.floor(x.invert(mx));
    if (pos < 0 || pos >= m.positions) return { name: null, pos: null };
    const k = frame.dpr,
      px = Math.floor(mx * k),
      py = Math.floor(my * k);
    const kx = x(1) - x(0),
      trim = kx > 6 ? 1 : 0;
    const within = (p, a, b) => rasterCovers(p, a, b, k);
    let best = -1,
      bestH = Infinity;
    // the positions drawn into the pointer's pixel column
    const cnt = queryIntervals(
      ix,
      m.start,
      m.end,
      Math.floor(x.invert(px / k)),
      Math.floor(x.invert((px + 1) / k)),
      vis,
    );
    for (let j = 0; j < cnt; j++) {
      const i = vis[j];
      const top = y(m.offset[i] + m.size[i]),
        hh = y(m.offset[i]) - top;
      if (
        within(px, x(m.start[i]), x(m.end[i] + 1) - trim) &&
        within(py, top, top + (hh > 4 ? hh - 1 : hh)) &&
        (m.size[i] < bestH || (m.size[i] === bestH && i < best))
      ) {
        best = i;
        bestH = m.size[i];
      }
    }
    return { name: best >= 0 ? m.names[best] : null, pos };
  }

  /** The buffers in view, as SVG rects with their value's name (the SVG export). */
  function marksSVG(g) {
    if (!m) return;
    const x = currentX();
    const [d0, d1] = x.domain();
    let count = 0;
    for (let i = 0; i < m.n && count < 20000; i++) {
      if (!placed(i) || m.end[i] + 1 < d0 || m.start[i] > d1) continue;
      const xa = Math.max(x(m.start[i]), MARGIN.left),
        xb = Math.min(x(m.end[i] + 1), frame.width - MARGIN.right);
      appendTitled(g, 'rect', m.names[i], {
        x: xa.toFixed(2),
        y: y(m.offset[i] + m.size[i]).toFixed(2),
        width: Math.max(xb - xa, 0.75).toFixed(2),
        height: Math.max(y(m.offset[i]) - y(m.offset[i] + m.size[i]), 0.75).toFixed(2),
        fill: colorOf(m.colorKey[i]),
      });
      count++;
    }
  }

  const offs = linkPointer(zoomRect, picker, linked, hooks, () => api, { xz, draw, renderHover });

  const api = {
    ...chartApi(frame, { marks: marksSVG, offs }),
    setData(model, series) {
      m = model;
      s = series;
      ix = m ? intervalIndex(m.start, m.end, placed) : null;
      if (vis.length < (m?.n ?? 0)) vis = new Int32Array(m.n);
      yMax = Math.max(1, s?.maxExtent ?? 0, m?.peak && m.strategy === 'arena' ? m.peak : 0, m?.lowerBound ?? 0) * 1.04;
      baseX.domain([0, Math.max(1, m?.positions ?? 1)]);
      layout();
      draw();
    },
    renderNow: render,
  };
  return api;
}
