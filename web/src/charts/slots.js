// slots.js -- (b) slot occupancy: one band per slot of the slot plan; each
// buffer placed in the slot is a bar over its positions whose height is its
// size as a fraction of the slot's capacity. The right edge labels
// capacity and utilisation when the bands are tall enough.
import { axisLeft, scaleLinear } from 'd3';
import {
  PALETTE,
  PALETTE_PIXELS,
  RasterMarks,
  chartLayers,
  outlineX,
  chartApi,
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
import { formatBytes } from '../data/format.js';

const MARGIN = { top: 6, right: 26, bottom: 22, left: 48 };
const LABEL_FONT = '10px system-ui, sans-serif'; // view.css's .slot-label
const LABEL_PAD = 3; // px of plate each side of a label's text

/**
 * d3.scaleBand over the row indices 0..n-1 (paddingOuter 0, align 0.5, not
 * rounded), without its domain map and per-row range array: a Split's 200k
 * slots cost scaleBand ~0.2 s per layout. Enough of a scale for axisLeft.
 */
export function rowBand(paddingInner) {
  let n = 0,
    r0 = 0,
    r1 = 1,
    step = 1,
    start = 0;
  const scale = (k) => start + step * (r1 < r0 ? n - 1 - k : k);
  const rescale = () => {
    const lo = Math.min(r0, r1),
      hi = Math.max(r0, r1);
    step = (hi - lo) / Math.max(1, n - paddingInner);
    start = lo + (hi - lo - step * (n - paddingInner)) / 2;
    return scale;
  };
  scale.count = (k) => (k === undefined ? n : ((n = k), rescale()));
  scale.range = (r) => (r === undefined ? [r0, r1] : (([r0, r1] = [+r[0], +r[1]]), rescale()));
  scale.step = () => step;
  scale.bandwidth = () => step * (1 - paddingInner);
  scale.paddingOuter = () => 0;
  scale.round = () => false;
  scale.copy = () => rowBand(paddingInner).count(n).range([r0, r1]);
  return scale;
}

export function createSlots(container, linked, { height = 220, hooks = {}, key } = {}) {
  let m = null,
    occ = null;
  let emptyNote = ''; // setEmptyNote: why there is no slot plan, when the default message is not it
  const baseX = scaleLinear();
  const y = rowBand(0.15);
  const raster = new RasterMarks();
  let ix = null; // intervalIndex of the segments (culling by x)
  let vis = new Int32Array(0);
  let rowOff = new Int32Array(1); // segments of row k: rowOff[k] .. rowOff[k+1] (sorted by start)
  let segOfOwner = new Map(); // owner index -> segment
  let gen = 0; // setData calls (the rows' ids and labels)
  const yAxisOnce = keyed(),
    labelsOnce = keyed(); // the slot axis and labels do not move with x
  const picker = stickyPick(pick); // forgets the last hover when the geometry changes
  const frame = layoutFrame(container, {
    key,
    className: 'mpv-slots',
    title: 'Slot occupancy',
    height,
    margin: MARGIN,
    layout,
    draw,
  });
  const layers = chartLayers(frame, { linked, getBaseX: () => baseX, extra: ['slot-labels'] });
  const { svg, gx, gy, hoverG, surface: zoomRect, message, xz } = layers;
  const [labels] = layers.groups;
  // The axis label under the slot labels.
  const ylabel = svg
    .insert('text', '.slot-labels')
    .attr('class', 'axis-label')
    .attr('text-anchor', 'middle')
    .text('slot');

  function layout() {
    picker.leave();
    const h = frame.height;
    baseX.range([MARGIN.left, frame.width - MARGIN.right]);
    y.count(occ ? occ.rows.length : 0).range([MARGIN.top, h - MARGIN.bottom]);
    fitPlot(frame, layers);
    ylabel.attr('transform', `translate(12,${(MARGIN.top + h - MARGIN.bottom) / 2}) rotate(-90)`);
    xz.sync();
  }
  const currentX = () => baseX.copy().domain(linked.domain());
  function draw() {
    frame.schedule(render);
  }

  function render() {
    frame.begin();
    const ctx = frame.ctx;
    const x = currentX();
    positionAxis(gx, x, frame.width, frame.height - MARGIN.bottom);
    const nRows = occ?.rows.length ?? 0;
    const every = Math.max(1, Math.ceil(nRows / Math.max(1, (frame.height - MARGIN.top - MARGIN.bottom) / 14)));
    yAxisOnce(`${gen} ${nRows} ${y.range()}`, () =>
      gy.attr('transform', `translate(${MARGIN.left},0)`).call(
        axisLeft(y)
          .tickValues(Array.from({ length: Math.ceil(nRows / every) }, (_, i) => i * every))
          .tickFormat((k) => occ.rows[k].id)
          .tickSizeOuter(0),
      ),
    );
    if (!m || !occ || !nRows) {
      labelsOnce('', () => labels.selectAll('*').remove());
      setMarks(hoverG, []);
      setText(
        message.node(),
        emptyNote ||
          (!m || !occ
            ? 'no slot plan yet: the plan is deferred'
            : m.planned
              ? 'no slots (empty plan)'
              : 'no slots yet: the plan is deferred'),
      );
      return;
    }
    setText(message.node(), '');
    const [d0, d1] = x.domain();
    const left = MARGIN.left,
      right = frame.width - MARGIN.right;
    const band = y.bandwidth();
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, MARGIN.top, right - left, frame.height - MARGIN.top - MARGIN.bottom);
    ctx.clip();
    // Capacity bands: a CSS colour, so dark mode can darken them (view.css).
    ctx.fillStyle = getComputedStyle(frame.canvas).getPropertyValue('--mpv-band').trim() || '#eef1f5';
    // Rows closer than a pixel make one band (a Split's 200k slots: one fill, not 200k).
    if (y.step() < 1) ctx.fillRect(left, y(0), right - left, y(nRows - 1) + Math.max(band, 0.5) - y(0));
    else for (let k = 0; k < nRows; k++) ctx.fillRect(left, y(k), right - left, Math.max(band, 0.5));
    const seg = occ.segments;
    const sel = linked.selected !== null ? m.index.get(linked.selected) : undefined;
    const selOwner = sel !== undefined ? m.owner[sel] : -1;
    const nVis = queryIntervals(ix, seg.start, seg.end, d0, d1, vis);
    const kx = x(1) - x(0),
      ox = x(0),
      trim = kx > 6 ? 1 : 0;
    raster.begin(frame, left, MARGIN.top, right, frame.height - MARGIN.bottom);
    for (let j = 0; j < nVis; j++) {
      const k = vis[j],
        r = seg.row[k];
      const hh = band * seg.fill[k];
      raster.rect(
        PALETTE_PIXELS[occ.rows[r].id % PALETTE.length],
        ox + kx * seg.start[k],
        y(r) + band - Math.max(hh, 0.75),
        kx * (seg.end[k] + 1 - seg.start[k]) - trim,
        hh,
      );
    }
    raster.end(ctx, selOwner >= 0 ? 0.3 : 1);
    ctx.globalAlpha = 1;
    ctx.restore();
    // The labels do not move with x: rebuilt only when the rows or the frame change.
    labelsOnce(`${gen} ${nRows} ${band} ${right} ${y.range()}`, () => drawLabels(nRows, band, right));
    renderHover(x);
  }

  // Each label on a plate of the card's colour: whatever bar runs under it
  // (any palette colour, and they move with x while the labels do not), the
  // text is ink on the card, light or dark. The fill attributes are the light
  // ones, which the exports keep; view.css sets the dark mode's.
  function drawLabels(nRows, band, right) {
    labels.selectAll('*').remove();
    if (band < 12) return;
    const ctx = frame.ctx;
    ctx.save();
    ctx.font = LABEL_FONT; // the text's width, without a layout of the SVG
    for (let k = 0; k < nRows; k++) {
      const r = occ.rows[k];
      const text = `${formatBytes(r.capacity)} · ${(r.utilisation * 100).toFixed(0)}% used`;
      const base = y(k) + Math.min(band, 14) - 3; // the baseline
      const w = Math.ceil(ctx.measureText(text).width) + 2 * LABEL_PAD;
      const g = labels.append('g').attr('class', 'slot-label-g');
      g.append('rect')
        .attr('class', 'slot-label-bg')
        .attr('x', right - 4 + LABEL_PAD - w)
        .attr('y', base - 9)
        .attr('width', w)
        .attr('height', 12)
        .attr('rx', 2)
        .attr('fill', '#ffffff')
        .attr('fill-opacity', 0.9);
      g.append('text')
        .attr('class', 'slot-label')
        .attr('x', right - 4)
        .attr('y', base)
        .attr('text-anchor', 'end')
        .attr('fill', '#1d2330')
        .text(text);
    }
    ctx.restore();
  }

  function renderHover(x = currentX()) {
    const items = [];
    if (m && occ && occ.rows.length) {
      const seg = occ.segments,
        band = y.bandwidth();
      for (const [i, cls] of markedValues(m, linked)) {
        const k = segOfOwner.get(m.owner[i]) ?? -1;
        if (k < 0) continue;
        const xa = x(seg.start[k]),
          xb = x(seg.end[k] + 1);
        const ox = outlineX(xa, xb, MARGIN.left, frame.width - MARGIN.right);
        if (ox)
          items.push({
            tag: 'rect',
            attrs: { class: cls, ...ox, y: y(seg.row[k]) - 1, height: Math.max(band, 2) + 2 },
          });
      }
      items.push(...plotCursorMarks(frame, x, linked.hoverPos));
    }
    setMarks(hoverG, items);
  }

  // The buffer whose slot is drawn under the pointer: its capacity band
  // (ctx.fillRect, blended into the pixels it part-covers) or its bar
  // (RasterMarks, rounded to device pixels), not the padding between bands.
  // Where rows or positions are thinner than a pixel, the rows drawn into
  // the pointer's pixel are tried nearest it first, and the segments drawn
  // into its pixel column.
  function pick(ev) {
    if (!m || !occ || !occ.rows.length) return { name: null, pos: null };
    const [mx, my] = [ev.offsetX, ev.offsetY];
    const x = currentX();
    const pos = Math.floor(x.invert(mx));
    if (pos < 0 || pos >= m.positions) return { name: null, pos: null };
    const k = frame.dpr,
      px = Math.floor(mx * k),
      py = Math.floor(my * k);
    const step = y.step(),
      band = Math.max(y.bandwidth(), 0.5),
      trim = x(1) - x(0) > 6 ? 1 : 0;
    const seg = occ.segments;
    const inBand = (q) => py >= Math.floor(y(q) * k) && py < Math.ceil((y(q) + band) * k);
    const under = (j) => rasterCovers(px, x(seg.start[j]), x(seg.end[j] + 1) - trim, k);
    const last = Math.floor(x.invert((px + 1) / k)); // the last position drawn into the pointer's pixel column
    const r = Math.floor((my - y.range()[0]) / step);
    const span = Math.ceil(1 / Math.min(step, 1));
    for (let d = 0; d <= span; d++)
      for (const q of d ? [r - d, r + d] : [r]) {
        if (q < 0 || q >= occ.rows.length || !inBand(q)) continue;
        // A slot holds one buffer at a time: the segments of row q starting
        // at or before `last`, latest first, while they may reach the pixel.
        let lo = rowOff[q],
          hi = rowOff[q + 1];
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (seg.start[mid] <= last) lo = mid + 1;
          else hi = mid;
        }
        for (let j = lo - 1; j >= rowOff[q] && x(seg.end[j] + 1) * k >= px - 1; j--)
          if (under(j)) return { name: m.names[seg.value[j]], pos };
      }
    return { name: null, pos };
  }

  /** The bars in view, as SVG rects with their value's name (the SVG export). */
  function marksSVG(g) {
    if (!m || !occ) return;
    const x = currentX();
    const [d0, d1] = x.domain();
    const seg = occ.segments,
      band = y.bandwidth();
    for (let k = 0; k < seg.n && k < 20000; k++) {
      if (seg.end[k] + 1 < d0 || seg.start[k] > d1) continue;
      const xa = Math.max(x(seg.start[k]), MARGIN.left),
        xb = Math.min(x(seg.end[k] + 1), frame.width - MARGIN.right);
      const hh = Math.max(band * seg.fill[k], 0.75);
      appendTitled(g, 'rect', m.names[seg.value[k]], {
        x: xa.toFixed(2),
        y: (y(seg.row[k]) + band - hh).toFixed(2),
        width: Math.max(xb - xa, 0.75).toFixed(2),
        height: hh.toFixed(2),
        fill: colorOf(occ.rows[seg.row[k]].id),
      });
    }
  }

  const offs = linkPointer(zoomRect, picker, linked, hooks, () => api, { xz, draw, renderHover });

  const api = {
    ...chartApi(frame, { marks: marksSVG, offs }),
    /** model: a slot plan's PlanModel; occupancy: slotOccupancy(model). */
    /** The message shown instead of the default one while there is no slot plan ('' for the default). */
    setEmptyNote(text) {
      emptyNote = text;
      draw();
    },
    setData(model, occupancy) {
      m = model;
      occ = occupancy;
      gen++;
      const seg = occ?.segments;
      ix = seg ? intervalIndex(seg.start, seg.end) : null;
      if (seg && vis.length < seg.n) vis = new Int32Array(seg.n);
      rowOff = new Int32Array((occ?.rows.length ?? 0) + 1);
      segOfOwner = new Map();
      if (seg) {
        for (let k = 0; k < seg.n; k++) {
          rowOff[seg.row[k] + 1]++;
          if (!segOfOwner.has(seg.value[k])) segOfOwner.set(seg.value[k], k);
        }
        for (let r = 0; r + 1 < rowOff.length; r++) rowOff[r + 1] += rowOff[r];
      }
      baseX.domain([0, Math.max(1, m?.positions ?? 1)]);
      layout();
      draw();
    },
    renderNow: render,
  };
  return api;
}
