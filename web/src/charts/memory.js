// memory.js -- (d) memory over time, always over every position: the bytes
// live at each position (on the lower bound's basis: aligned sizes for arena
// plans, raw for slot plans; an area), the arena's highest byte in
// use (a step line), what a naive allocator that never frees has taken (a
// dashed line), and the planned peak and lower bound across. A brush picks
// the positions the other charts show.
import { brushX, scaleLinear } from 'd3';
import {
  byteAxisLeft,
  chartApi,
  chartLayers,
  fitPlot,
  layoutFrame,
  positionAxis,
  refLine,
  setMarks,
  svgEl,
} from './base.js';
import { formatBytes } from '../data/format.js';

const LEGEND_FONT = '11px system-ui, sans-serif'; // as the SVG's text style (base.js)
const MARGIN = { top: 22, right: 26, bottom: 22, left: 64 };
// Stacked mode (the profile): one hue per bucket, shades per tag.
const BUCKET_COLORS = {
  inputs: ['#9c755f', '#c49a80', '#7a5a47', '#dcbfae'],
  initializers: ['#76b7b2', '#4f9a94', '#a3d3cf', '#2f7771'],
  intermediates: ['#4e79a7', '#a0cbe8', '#2f5b87', '#7fa6cf', '#1d3f63'],
  outputs: ['#f28e2b', '#ffbe7d', '#c96a12', '#f7b267'],
};
export const layerColor = (layer, k) => {
  const c = BUCKET_COLORS[layer.bucket] ?? ['#bab0ac'];
  return c[k % c.length];
};
const C = {
  live: '#4e79a7',
  liveFill: 'rgba(78,121,167,0.28)',
  extent: '#f28e2b',
  naive: '#8a8f98',
  peak: '#e15759',
  bound: '#2f9e44',
};

export function createMemory(container, linked, { height = 220, hooks = {}, key } = {}) {
  let m = null,
    s = null;
  let yMax = 1;
  let ps = null; // profileSeries(...) or null
  let psNote = ''; // why the stacked view is not available
  let stacked = false;
  const modeBtn = document.createElement('button');
  modeBtn.type = 'button';
  modeBtn.className = 'mpv-btn mpv-small mpv-memory-mode';
  modeBtn.textContent = 'Stack by tag';
  modeBtn.title = 'Stack the per-node profile: inputs / initializers / intermediates / outputs, split by tag';
  modeBtn.dataset.mode = 'stacked';
  modeBtn.setAttribute('aria-pressed', 'false');
  modeBtn.addEventListener('click', () => api.setStacked(!stacked));
  const x = scaleLinear();
  const y = scaleLinear();
  let moving = false;
  const brush = brushX().on('brush end', (ev) => {
    if (moving || !ev.sourceEvent || !m) return;
    if (!ev.selection) {
      linked.setXDomain(null, api);
      return;
    }
    const [a, b] = ev.selection.map((v) => x.invert(v));
    if (b - a < 0.5) return;
    linked.setXDomain([a, b], api);
  });
  const frame = layoutFrame(container, {
    key,
    className: 'mpv-memory',
    title: 'Memory over time',
    height,
    margin: MARGIN,
    layout,
    draw,
  });
  // The brush is the pointer surface: the positions the other charts show.
  const layers = chartLayers(frame, { extra: ['refs', 'legend'], brush });
  const { svg, gx, gy, hoverG, surface: brushG, message } = layers;
  const [refG, legend] = layers.groups;

  function layout() {
    x.range([MARGIN.left, frame.width - MARGIN.right]);
    y.domain([0, yMax]).range([frame.height - MARGIN.bottom, MARGIN.top]);
    fitPlot(frame, layers);
    syncBrush();
  }
  function syncBrush() {
    if (!brushG.select('.overlay').node()) return; // before the first layout
    moving = true;
    brushG.call(brush.move, linked.xDomain ? linked.xDomain.map((v) => x(v)) : null);
    moving = false;
  }
  function draw() {
    frame.schedule(render);
  }
  frame.tools.prepend(modeBtn);
  const noteEl = document.createElement('span');
  noteEl.className = 'mpv-chart-note muted';
  noteEl.hidden = true;
  frame.head.insertBefore(noteEl, frame.tools);
  const syncNote = () => {
    noteEl.textContent = api.note;
    noteEl.hidden = !api.note;
  };
  const stackOn = () => stacked && ps?.ok;
  // A layer's rank among the layers of its bucket (its shade).
  const tagIndex = (l) => ps.layers.filter((o) => o.bucket === l.bucket).indexOf(l);
  function rescale() {
    const top = Math.max(
      s?.maxLiveBound ?? 0,
      s?.maxExtent ?? 0,
      m?.peak ?? 0,
      m?.lowerBound ?? 0,
      stackOn() ? ps.maxTotal : 0,
    );
    const naive = m?.naive ?? (s ? (s.naive[s.positions - 1] ?? 0) : 0);
    yMax = Math.max(1, naive <= top * 3 ? Math.max(top, naive) : top) * 1.08;
  }
  // Per pixel column, the position whose stack total is largest (stacks stay consistent).
  function stackColumns() {
    const P = ps.positions;
    const left = MARGIN.left,
      right = frame.width - MARGIN.right;
    const w = Math.max(1, Math.ceil(right - left));
    if (P <= w) return null;
    const pick = new Int32Array(w).fill(-1);
    for (let p = 0; p < P; p++) {
      const c = Math.min(w - 1, Math.floor(((p + 0.5) / P) * w));
      if (pick[c] < 0 || ps.total[p] > ps.total[pick[c]]) pick[c] = p;
    }
    return pick;
  }
  // Polygon of one layer: its upper edge left to right, its lower edge back.
  function layerPoints(k) {
    const lo = ps.lower[k],
      up = ps.upper[k];
    const pts = [];
    const pick = stackColumns();
    if (pick) {
      const left = MARGIN.left;
      for (let c = 0; c < pick.length; c++) {
        const p = Math.max(0, pick[c]);
        pts.push([left + c, up[p]], [left + c + 1, up[p]]);
      }
      for (let c = pick.length - 1; c >= 0; c--) {
        const p = Math.max(0, pick[c]);
        pts.push([left + c + 1, lo[p]], [left + c, lo[p]]);
      }
    } else {
      for (let p = 0; p < ps.positions; p++) pts.push([x(p), up[p]], [x(p + 1), up[p]]);
      for (let p = ps.positions - 1; p >= 0; p--) pts.push([x(p + 1), lo[p]], [x(p), lo[p]]);
    }
    return pts;
  }

  // Per pixel column the maximum of series[p] over the positions it covers.
  function columns(series) {
    const P = s.positions;
    const left = MARGIN.left,
      right = frame.width - MARGIN.right;
    const w = Math.max(1, Math.ceil(right - left));
    if (P <= w) return null;
    const col = new Float64Array(w).fill(-1);
    for (let p = 0; p < P; p++) {
      const c = Math.min(w - 1, Math.floor(((p + 0.5) / P) * w));
      if (series[p] > col[c]) col[c] = series[p];
    }
    return col;
  }
  function stepPath(ctx, series) {
    const col = columns(series);
    if (col) {
      const left = MARGIN.left;
      ctx.moveTo(left, y(Math.max(0, col[0])));
      for (let c = 0; c < col.length; c++) {
        const v = y(Math.max(0, col[c]));
        ctx.lineTo(left + c, v);
        ctx.lineTo(left + c + 1, v);
      }
      return;
    }
    ctx.moveTo(x(0), y(series[0]));
    for (let p = 0; p < s.positions; p++) {
      const v = y(series[p]);
      ctx.lineTo(x(p), v);
      ctx.lineTo(x(p + 1), v);
    }
  }

  function render() {
    frame.begin();
    const ctx = frame.ctx;
    positionAxis(gx, x, frame.width, frame.height - MARGIN.bottom);
    byteAxisLeft(gy, y, MARGIN.left, frame.height);
    refG.selectAll('*').remove();
    legend.selectAll('*').remove();
    if (!m || !s || s.positions === 0) {
      message.text('');
      return;
    }
    const left = MARGIN.left,
      right = frame.width - MARGIN.right,
      top = MARGIN.top,
      bottom = frame.height - MARGIN.bottom;
    const anyKnown = s.maxLive > 0;
    message.text(
      anyKnown ? '' : `no sizes known yet: the plan is deferred${m.unknownDims.length ? ' (bind the dims above)' : ''}`,
    );
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top - 1, right - left, bottom - top + 2);
    ctx.clip();
    if (stackOn()) {
      // The profile, stacked: inputs / initializers / intermediates / outputs by tag.
      ps.layers.forEach((l, k) => {
        const pts = layerPoints(k);
        ctx.beginPath();
        pts.forEach(([px, v], j) => (j ? ctx.lineTo(px, y(v)) : ctx.moveTo(px, y(v))));
        ctx.closePath();
        ctx.fillStyle = layerColor(l, tagIndex(l));
        ctx.fill();
      });
    } else {
      // Live bytes (aligned): area.
      ctx.beginPath();
      stepPath(ctx, s.liveBound);
      ctx.lineTo(right, bottom);
      ctx.lineTo(left, bottom);
      ctx.closePath();
      ctx.fillStyle = C.liveFill;
      ctx.fill();
      ctx.beginPath();
      stepPath(ctx, s.liveBound);
      ctx.strokeStyle = C.live;
      ctx.lineWidth = 1.25;
      ctx.stroke();
    }
    if (s.maxExtent > 0) {
      ctx.beginPath();
      stepPath(ctx, s.extent);
      ctx.strokeStyle = C.extent;
      ctx.lineWidth = 1.25;
      ctx.stroke();
    }
    ctx.beginPath();
    stepPath(ctx, s.naive);
    ctx.setLineDash([4, 3]);
    ctx.strokeStyle = C.naive;
    ctx.stroke();
    ctx.setLineDash([]);
    // Unknown sizes: a grey tick along the bottom where some live size is unknown.
    if (s.partial) {
      ctx.fillStyle = '#9aa3ad';
      for (let p = 0; p < s.positions; p++)
        if (s.unknown[p] > 0) ctx.fillRect(x(p), bottom - 3, Math.max(x(p + 1) - x(p), 1), 3);
    }
    ctx.restore();
    // The positions outside m.runSpan hold only nodes folded at load: said, not left blank.
    const r = m.runSpan;
    const outside = r
      ? [
          [0, r.start, r.before],
          [r.end, s.positions, r.after],
        ]
      : [];
    for (const [a, b, count] of outside) {
      const xa = Math.max(left, x(a)),
        xb = Math.min(right, x(b));
      if (count === 0 || xb - xa < 110) continue;
      refG
        .append('text')
        .attr('class', 'folded-label')
        .attr('x', (xa + xb) / 2)
        .attr('y', bottom - 8)
        .attr('text-anchor', 'middle')
        .attr('fill', '#6b7280')
        .text(`${count} node${count === 1 ? '' : 's'} folded at load`);
    }
    const refs = [];
    if (m.peak !== null && m.peak === m.lowerBound)
      refs.push(['peak', m.peak, `planned peak = lower bound = ${formatBytes(m.peak)}`]);
    else {
      if (m.peak !== null) refs.push(['peak', m.peak, `planned peak ${formatBytes(m.peak)}`]);
      if (m.lowerBound !== null) refs.push(['bound', m.lowerBound, `lower bound ${formatBytes(m.lowerBound)}`]);
    }
    let lastY = Infinity;
    for (const [cls, v, label] of refs.sort((a, b) => a[1] - b[1])) {
      if (v > yMax) continue;
      const yy = y(v);
      const ty = cls === 'peak' ? Math.max(yy - 3, top + 20) : Math.min(yy + 12, lastY - 12);
      refLine(refG, cls, label, yy, ty, left, right);
      lastY = ty;
    }
    const items = stackOn()
      ? [
          ...ps.layers.map((l) => [`${l.bucket}${l.tag ? `:${l.tag}` : ''}`, layerColor(l, tagIndex(l)), 'area']),
          ['arena top', C.extent, 'solid'],
          ['naive', C.naive, 'dash'],
        ]
      : [
          ['live bytes', C.live, 'solid'],
          ['arena top', C.extent, 'solid'],
          ['naive (never frees)', C.naive, 'dash'],
        ];
    let lx = left;
    for (const [label, color, kind] of items) {
      const g = legend.append('g').attr('transform', `translate(${lx},${8})`);
      g.append('line')
        .attr('x1', 0)
        .attr('x2', 16)
        .attr('y1', 0)
        .attr('y2', 0)
        .attr('stroke', color)
        .attr('stroke-width', kind === 'area' ? 8 : 2)
        .attr('stroke-dasharray', kind === 'dash' ? '4 3' : null);
      g.append('text').attr('x', 20).attr('y', 4).text(label);
      lx += (kind === 'area' ? 24 : 28) + textWidth(ctx, label);
    }
    if (m.naive !== null && m.naive > yMax) {
      // Beside the legend when it fits there, else just under the plot's top edge
      // (above the peak's label, which keeps 20 px below it): never over the legend.
      const text = `naive total ${formatBytes(m.naive)} (off the scale)`;
      const fits = right - 4 - textWidth(ctx, text) >= lx + 8;
      refG
        .append('text')
        .attr('class', 'ref-label ref-naive')
        .attr('x', right - 4)
        .attr('y', fits ? top - 8 : top + 10)
        .attr('text-anchor', 'end')
        .text(text);
    }
    renderHover();
  }

  // The legend's label widths come from the canvas (the SVG text's own
  // getComputedTextLength() would force a layout of the whole page).
  const widths = new Map(); // label -> width: the legend's few labels repeat every render
  function textWidth(c, label) {
    let w = widths.get(label);
    if (w === undefined) {
      c.save();
      c.font = LEGEND_FONT;
      w = c.measureText(label).width || label.length * 6;
      c.restore();
      widths.set(label, w);
    }
    return w;
  }

  function renderHover() {
    const p = linked.hoverPos;
    if (!m || !s || p === null || p < 0 || p >= s.positions) {
      setMarks(hoverG, []);
      return;
    }
    const xp = x(p + 0.5);
    setMarks(hoverG, [
      { tag: 'line', attrs: { class: 'cursor', x1: xp, x2: xp, y1: MARGIN.top, y2: frame.height - MARGIN.bottom } },
      { tag: 'circle', attrs: { class: 'cursor-dot', cx: xp, cy: y(Math.min(s.liveBound[p], yMax)), r: 3 } },
    ]);
  }

  svg
    .on('pointermove.hover', (ev) => {
      if (!m || !s) return;
      const [mx] = [ev.offsetX];
      const p = Math.floor(x.invert(mx));
      const pos = p >= 0 && p < s.positions && mx >= MARGIN.left && mx <= frame.width - MARGIN.right ? p : null;
      linked.setHover(null, pos, api);
      hooks.tooltip?.(ev, null, pos, api);
    })
    .on('pointerleave.hover', (ev) => {
      linked.setHover(null, null, api);
      hooks.tooltip?.(ev, null, null, api);
    });

  const offs = [
    linked.on('xdomain', (src) => {
      if (src !== api) syncBrush();
    }),
    linked.on('hover', () => renderHover()),
  ];

  /** The lines and areas drawn, as SVG paths (the SVG export). */
  function marksSVG(g) {
    if (!m || !s) return;
    const pathOf = (series) => {
      const parts = [];
      const col = columns(series);
      if (col)
        col.forEach((v, c) =>
          parts.push(`${c ? 'L' : 'M'}${MARGIN.left + c},${y(Math.max(0, v)).toFixed(1)}H${MARGIN.left + c + 1}`),
        );
      else
        for (let p = 0; p < s.positions; p++)
          parts.push(`${p ? 'L' : 'M'}${x(p).toFixed(1)},${y(series[p]).toFixed(1)}H${x(p + 1).toFixed(1)}`);
      return parts.join('');
    };
    const bottom = frame.height - MARGIN.bottom;
    if (stackOn()) {
      ps.layers.forEach((l, k) =>
        g.append(
          svgEl('path', {
            d: `${layerPoints(k)
              .map(([px, v], j) => `${j ? 'L' : 'M'}${px.toFixed(1)},${y(v).toFixed(1)}`)
              .join('')}Z`,
            fill: layerColor(l, tagIndex(l)),
          }),
        ),
      );
    } else
      g.append(
        svgEl('path', { d: `${pathOf(s.liveBound)}V${bottom}H${MARGIN.left}Z`, fill: C.liveFill, stroke: C.live }),
      );
    if (s.maxExtent > 0) g.append(svgEl('path', { d: pathOf(s.extent), fill: 'none', stroke: C.extent }));
    g.append(svgEl('path', { d: pathOf(s.naive), fill: 'none', stroke: C.naive, 'stroke-dasharray': '4 3' }));
  }

  const api = {
    ...chartApi(frame, { marks: marksSVG, offs }),
    /** The profile's stacked series (profileSeries) or null, and the note shown when it is not usable. */
    setProfile(series, note = '') {
      ps = series;
      psNote = note;
      syncNote();
      rescale();
      layout();
      draw();
    },
    setStacked(on) {
      stacked = !!on;
      modeBtn.classList.toggle('on', stacked);
      modeBtn.setAttribute('aria-pressed', String(stacked));
      syncNote();
      rescale();
      layout();
      draw();
    },
    get stacked() {
      return stacked;
    },
    /** 'stacked' when the profile stack is drawn, 'plan' otherwise; the note when stacking is unavailable. */
    get mode() {
      return stackOn() ? 'stacked' : 'plan';
    },
    get note() {
      return stacked && !stackOn() ? psNote : '';
    },
    get profile() {
      return ps;
    },
    /** The series drawn (memorySeries of the plan shown, its naive line possibly the baseline's). */
    get series() {
      return s;
    },
    setData(model, series) {
      m = model;
      s = series;
      rescale();
      x.domain([0, Math.max(1, m?.positions ?? 1)]);
      layout();
      draw();
    },
    renderNow: render,
  };
  return api;
}
