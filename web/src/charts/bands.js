// bands.js -- (e) active memory, as PyTorch's memory_viz draws it: at each
// position the buffers live there are stacked, oldest at the bottom, each a
// band as tall as its bytes, so the largest tensors stand out at a glance.
// Coloured by the producer's op type or by module (a node-name prefix such as
// `/encoder/layer.3/`), with a legend of the groups by the area they cover.
//
// Drawn as columns (Perfetto style): one column per position shown, or, when
// positions outnumber pixels, one per pixel column showing the position whose
// stack is highest there. Only the visible columns are stacked, and only the
// bands a pixel tall or more are found (data/bands.js columnBands: a Fenwick
// tree over the rows swept across the columns, so a column with 100k live
// buffers costs its drawn bands, not a sort of the 100k), filled into the shared raster
// (base.js RasterMarks); the bands drawn are kept per column for picking and
// for the outline of the hovered and the selected buffer.
import { scaleLinear } from 'd3';
import {
  PALETTE_PIXELS,
  PALETTE,
  RasterMarks,
  UNKNOWN_COLOR,
  appendTitled,
  byteAxisLeft,
  chartApi,
  chartLayers,
  el,
  fitPlot,
  keyed,
  layoutFrame,
  linkPointer,
  markedValues,
  pixelOf,
  plotCursorMarks,
  positionAxis,
  setMarks,
  setText,
  stickyPick,
} from './base.js';
import { BAND_MODES, bandGroups, columnBands, liveCount, liveTotals, stackBands } from '../data/bands.js';

const MARGIN = { top: 14, right: 26, bottom: 22, left: 64 };
const OTHER_COLOR = '#bab0ac';
const OTHER_PIXEL = pixelOf(OTHER_COLOR);

/** The colour of group g of `groups` (the last is grey when it is 'other'). */
const groupColor = (groups, g) => (groups[g]?.other ? OTHER_COLOR : PALETTE[g % PALETTE.length]);

export function createBands(container, linked, { height = 240, hooks = {}, key, producer = () => null } = {}) {
  let m = null;
  let sizedCount = 0; // owners with a known size (the bands there are to draw)
  let totals = null; // liveTotals(m)
  let grouping = null; // bandGroups(m, ...)
  let mode = 'op';
  let stale = false; // a new plan whose index, totals and groups are not made yet
  // The bands of the last draw, per column c: x range [colX0[c], colX1[c]),
  // position colPos[c], bands colStart[c] .. colStart[c + 1] in bandOwner,
  // bandY0 (bottom, CSS px), bandY1 (top).
  let cols = {
    n: 0,
    x0: new Float64Array(0),
    x1: new Float64Array(0),
    pos: new Int32Array(0),
    start: new Int32Array(1),
  };
  let bands = { owner: new Int32Array(0), y0: new Float32Array(0), y1: new Float32Array(0) };
  // The bands of each position drawn, kept between frames while the model and
  // the y scale stay (a pan or zoom redraws the columns mostly at positions
  // seen before: the highest stack under a pixel moves little). Device-pixel
  // edges; position -> {owner, yb, yt} (Int32Arrays).
  let positionBands = { key: '', map: new Map(), size: 0 };
  const POSITION_BANDS_MAX = 2_000_000; // bands kept at most (then the cache starts again)
  const yAxisOnce = keyed();
  const baseX = scaleLinear();
  const y = scaleLinear();
  const raster = new RasterMarks();
  const picker = stickyPick(pick);
  const frame = layoutFrame(container, {
    key,
    className: 'mpv-bands',
    title: 'Active memory — each live buffer a band as tall as its bytes, oldest at the bottom',
    height,
    margin: MARGIN,
    layout,
    draw,
  });
  const layers = chartLayers(frame, { linked, getBaseX: () => baseX });
  const { gx, gy, hoverG, surface: zoomRect, message, xz } = layers;

  // The colour selector (in the chart's head) and the legend (under the plot, as text).
  const modeSel = el('select', 'mpv-bands-mode');
  modeSel.setAttribute('aria-label', 'colour the bands by');
  for (const d of BAND_MODES) {
    const o = el('option', '', d.label);
    o.value = d.id;
    modeSel.append(o);
  }
  const modeLabel = el('label', 'mpv-ctl mpv-small');
  modeLabel.append(el('span', 'mpv-ctl-label', 'colour by'), modeSel);
  frame.tools.prepend(modeLabel);
  const legend = el('ul', 'mpv-legend');
  legend.setAttribute('aria-label', 'colour legend');
  frame.root.insertBefore(legend, frame.summaryEl);
  modeSel.addEventListener('change', () => api.setMode(modeSel.value));

  function layout() {
    picker.leave();
    const w = frame.width,
      h = frame.height;
    baseX.range([MARGIN.left, w - MARGIN.right]);
    y.range([h - MARGIN.bottom, MARGIN.top]);
    fitPlot(frame, layers);
    xz.sync();
  }
  const currentX = () => baseX.copy().domain(linked.domain());
  function draw() {
    frame.schedule(render);
  }

  /** The columns shown: [x0, x1, position] per column, for the x domain. */
  function columnsOf(x) {
    const [d0, d1] = x.domain();
    const left = MARGIN.left,
      right = frame.width - MARGIN.right;
    const p0 = Math.max(0, Math.floor(d0)),
      p1 = Math.min(m.positions, Math.ceil(d1));
    const out = [];
    if (p1 - p0 <= right - left) {
      for (let p = p0; p < p1; p++) out.push([Math.max(left, x(p)), Math.min(right, x(p + 1)), p]);
      return out;
    }
    // More positions than pixels: each pixel column shows its highest stack.
    const kx = x(1) - x(0);
    for (let c = Math.floor(left); c < right; c++) {
      const a = Math.max(p0, Math.floor(x.invert(c))),
        b = Math.min(p1, Math.max(a + 1, Math.ceil(x.invert(c + 1))));
      let best = a;
      for (let p = a + 1; p < b; p++) if (totals.total[p] > totals.total[best]) best = p;
      if (kx > 0) out.push([c, c + 1, best]);
    }
    return out;
  }

  /** positionBands for the positions pos[0..n) (non-decreasing), the missing
   *  ones found by one columnBands sweep (only the bands a pixel tall). */
  function bandsAt(pos, n, oy, ky, k) {
    const key = `${oy} ${ky} ${k}`;
    if (positionBands.key !== key || positionBands.size > POSITION_BANDS_MAX)
      positionBands = { key, map: new Map(), size: 0 };
    const { map } = positionBands;
    const missing = [];
    for (let c = 0; c < n; c++) if (!map.has(pos[c]) && missing.at(-1) !== pos[c]) missing.push(pos[c]);
    if (!missing.length) return map;
    const found = missing.map(() => ({ owner: [], yb: [], yt: [] }));
    const put = (c, i, yb, yt) => {
      found[c].owner.push(i);
      found[c].yb.push(yb);
      found[c].yt.push(yt);
    };
    // A few shallow stacks (a pan's new columns): each sorted alone; else one
    // sweep over every row (a deep stack, or many columns).
    let depth = 0;
    for (const p of missing) depth += liveCount(m, p);
    if (depth < m.rowCount) missing.forEach((p, c) => stackBands(m, p, oy, ky, k, (i, yb, yt) => put(c, i, yb, yt)));
    else columnBands(m, missing, missing.length, oy, ky, k, put);
    for (let c = 0; c < missing.length; c++) {
      const f = found[c];
      map.set(missing[c], { owner: Int32Array.from(f.owner), yb: Int32Array.from(f.yb), yt: Int32Array.from(f.yt) });
      positionBands.size += f.owner.length;
    }
    return map;
  }

  function ensureBands(n) {
    if (bands.owner.length >= n) return;
    const cap = Math.max(n, bands.owner.length * 2, 1024);
    const grown = { owner: new Int32Array(cap), y0: new Float32Array(cap), y1: new Float32Array(cap) };
    grown.owner.set(bands.owner);
    grown.y0.set(bands.y0);
    grown.y1.set(bands.y1);
    bands = grown;
  }

  function render() {
    prepare();
    frame.begin();
    const ctx = frame.ctx;
    const x = currentX();
    positionAxis(gx, x, frame.width, frame.height - MARGIN.bottom);
    yAxisOnce(`${y.domain()} ${y.range()}`, () => byteAxisLeft(gy, y, MARGIN.left, frame.height));
    cols.n = 0;
    if (!m || !totals) return;
    setText(
      message.node(),
      sizedCount
        ? ''
        : m.planned
          ? 'no buffers'
          : 'no buffer has a size yet: the plan is deferred (bind the dims above)',
    );
    if (!sizedCount) {
      setMarks(hoverG, []);
      return;
    }
    const left = MARGIN.left,
      right = frame.width - MARGIN.right,
      top = MARGIN.top,
      bottom = frame.height - MARGIN.bottom;
    const list = columnsOf(x);
    const n = list.length;
    if (cols.x0.length < n)
      cols = {
        n: 0,
        x0: new Float64Array(n),
        x1: new Float64Array(n),
        pos: new Int32Array(n),
        start: new Int32Array(n + 1),
      };
    cols.n = n;
    const sel = linked.selected !== null ? m.index.get(linked.selected) : undefined;
    const selOwner = sel !== undefined ? m.owner[sel] : -1;
    const k = frame.dpr;
    const ky = y(1) - y(0),
      oy = y(0);
    const { group, groups } = grouping;
    const pixels = groups.map((g, j) => (g.other ? OTHER_PIXEL : PALETTE_PIXELS[j % PALETTE.length]));
    raster.begin(frame, left, top, right, bottom);
    for (let c = 0; c < n; c++) {
      const [xa, xb, p] = list[c];
      cols.x0[c] = xa;
      cols.x1[c] = xb;
      cols.pos[c] = p;
    }
    const cache = bandsAt(cols.pos, n, oy, ky, k);
    // Band edges are rounded to device pixels from the running sum, so the
    // bands of a column tile it; one under a pixel tall is not drawn (nor kept).
    let nb = 0;
    for (let c = 0; c < n; c++) {
      cols.start[c] = nb;
      const e = cache.get(cols.pos[c]);
      let w = cols.x1[c] - cols.x0[c];
      if (w > 3) w -= 0.5;
      ensureBands(nb + e.owner.length);
      for (let j = 0; j < e.owner.length; j++) {
        const i = e.owner[j],
          yb = e.yb[j],
          yt = e.yt[j];
        raster.rect(pixels[group[i]] ?? PALETTE_PIXELS[0], cols.x0[c], yt / k, w, (yb - yt) / k);
        bands.owner[nb] = i;
        bands.y0[nb] = yb / k;
        bands.y1[nb] = yt / k;
        nb++;
      }
    }
    cols.start[n] = nb;
    raster.end(ctx, selOwner >= 0 ? 0.35 : 1);
    if (selOwner >= 0) {
      // The selected buffer at full strength over the dimmed rest.
      ctx.fillStyle = groupColor(groups, group[selOwner]);
      for (let c = 0; c < n; c++)
        for (let b = cols.start[c]; b < cols.start[c + 1]; b++)
          if (bands.owner[b] === selOwner)
            ctx.fillRect(cols.x0[c], bands.y1[b], cols.x1[c] - cols.x0[c], bands.y0[b] - bands.y1[b]);
    }
    renderHover(x);
  }

  /** The outline of buffer i over the columns drawn: a path along its top edge and back along its bottom. */
  function outlinePath(i) {
    const upper = [],
      lower = [];
    for (let c = 0; c < cols.n; c++)
      for (let b = cols.start[c]; b < cols.start[c + 1]; b++)
        if (bands.owner[b] === i) {
          upper.push(
            `${cols.x0[c].toFixed(1)},${bands.y1[b].toFixed(1)}`,
            `${cols.x1[c].toFixed(1)},${bands.y1[b].toFixed(1)}`,
          );
          lower.push(
            `${cols.x1[c].toFixed(1)},${bands.y0[b].toFixed(1)}`,
            `${cols.x0[c].toFixed(1)},${bands.y0[b].toFixed(1)}`,
          );
          break;
        }
    if (!upper.length) return null;
    return `M${upper.join('L')}L${lower.reverse().join('L')}Z`;
  }

  function renderHover(x = currentX()) {
    const items = [];
    if (m) {
      for (const [i0, cls] of markedValues(m, linked)) {
        const d = outlinePath(m.owner[i0]);
        if (d) items.push({ tag: 'path', key: cls, attrs: { class: cls, d, fill: 'none' } });
      }
      items.push(...plotCursorMarks(frame, x, linked.hoverPos));
    }
    setMarks(hoverG, items);
  }

  /** The band under the pointer: the column by x (binary search), then the band by y. */
  function pick(ev) {
    if (!m) return { name: null, pos: null };
    const px = ev.offsetX,
      py = ev.offsetY;
    let lo = 0,
      hi = cols.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cols.x1[mid] <= px) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= cols.n || cols.x0[lo] > px) {
      const pos = Math.floor(currentX().invert(px));
      return { name: null, pos: pos >= 0 && pos < m.positions ? pos : null };
    }
    for (let b = cols.start[lo]; b < cols.start[lo + 1]; b++)
      if (py >= bands.y1[b] - 0.5 && py <= bands.y0[b] + 0.5)
        return { name: m.names[bands.owner[b]], pos: cols.pos[lo] };
    return { name: null, pos: cols.pos[lo] };
  }

  function renderLegend() {
    legend.replaceChildren();
    if (!grouping) return;
    const totalArea = grouping.groups.reduce((s, g) => s + g.area, 0) || 1;
    grouping.groups.forEach((g, j) => {
      const li = el('li', 'mpv-legend-item');
      li.dataset.group = g.label;
      const sw = el('span', 'mpv-swatch');
      sw.style.background = groupColor(grouping.groups, j);
      const label = g.other ? `other (${g.other} groups)` : g.label;
      li.append(
        sw,
        el('span', 'mpv-legend-label', label),
        el('span', 'muted', ` ${((g.area / totalArea) * 100).toFixed(1)}%`),
      );
      li.title = `${label}: ${g.count} buffer${g.count === 1 ? '' : 's'}, ${((g.area / totalArea) * 100).toFixed(1)}% of the bytes × positions drawn`;
      legend.append(li);
    });
  }

  /** What a new plan needs before it is drawn: the count of sized owners, the totals (the y scale), the groups. */
  function prepare() {
    if (!stale) return;
    stale = false;
    sizedCount = 0;
    for (let i = 0; m && i < m.n; i++) if (m.owner[i] === i && !Number.isNaN(m.size[i])) sizedCount++;
    totals = m ? liveTotals(m) : null;
    y.domain([0, Math.max(1, totals?.max ?? 0) * 1.04]);
    regroup();
  }

  function regroup() {
    grouping = m ? bandGroups(m, producer, mode) : null;
    renderLegend();
  }

  /** The bands drawn, as SVG rects with their value's name (the SVG export). */
  function marksSVG(g) {
    if (!m || !grouping) return;
    for (let c = 0; c < cols.n && cols.start[c] < 50000; c++)
      for (let b = cols.start[c]; b < cols.start[c + 1]; b++) {
        appendTitled(g, 'rect', m.names[bands.owner[b]], {
          x: cols.x0[c].toFixed(2),
          y: bands.y1[b].toFixed(2),
          width: Math.max(cols.x1[c] - cols.x0[c], 0.75).toFixed(2),
          height: Math.max(bands.y0[b] - bands.y1[b], 0.75).toFixed(2),
          fill:
            grouping.group[bands.owner[b]] >= 0
              ? groupColor(grouping.groups, grouping.group[bands.owner[b]])
              : UNKNOWN_COLOR,
        });
      }
  }

  const offs = linkPointer(zoomRect, picker, linked, hooks, () => api, { xz, draw, renderHover });

  const api = {
    ...chartApi(frame, { marks: marksSVG, offs }),
    /** The plan model to draw (data/plan.js), or null. */
    setData(model) {
      // The index, totals and groups are made at the next draw (prepare), not here:
      // a re-plan shows its figures first, and a chart out of view costs nothing.
      m = model;
      stale = true;
      positionBands = { key: '', map: new Map(), size: 0 };
      baseX.domain([0, Math.max(1, m?.positions ?? 1)]);
      layout();
      draw();
    },
    /** Colour by 'op' or 'module1'..'module3' (BAND_MODES). */
    setMode(id) {
      if (!BAND_MODES.some((d) => d.id === id)) return;
      mode = id;
      modeSel.value = id;
      regroup();
      draw();
    },
    get mode() {
      return mode;
    },
    /** The groups of the legend: [{label, area, count, other?}] (largest first) and each owner's group. */
    get grouping() {
      prepare();
      return grouping;
    },
    /** The stack drawn at a column: for tests, [{name, y0, y1}] of the column showing position p (null: not shown). */
    columnAt(p) {
      for (let c = 0; c < cols.n; c++)
        if (cols.pos[c] === p) {
          const out = [];
          for (let b = cols.start[c]; b < cols.start[c + 1]; b++)
            out.push({ name: m.names[bands.owner[b]], y0: bands.y0[b], y1: bands.y1[b] });
          return out;
        }
      return null;
    },
    renderNow: render,
  };
  return api;
}
