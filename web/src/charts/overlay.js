// overlay.js -- (g) two memory-over-time curves on one chart (the compare
// view): the bytes live at each position of plan A and of plan B, as step
// lines, with each plan's peak across. Positions are the x axis of both; a
// model with fewer positions ends earlier. Canvas for the lines (one column
// per pixel at most: the highest value of the positions it covers), SVG for
// the axes, over the shared frame (base.js).
import { scaleLinear, select } from 'd3';
import { appendTitled, byteAxisLeft, chartApi, createFrame, el, positionAxis, setText, svgEl } from './base.js';
import { formatBytes } from '../data/format.js';

const MARGIN = { top: 14, right: 26, bottom: 22, left: 64 };
export const SIDE_COLORS = ['#4e79a7', '#f28e2b'];

/** Per pixel column from x0 (w columns over P positions) the maximum of series; null when P <= w. */
export function columnMax(series, w) {
  const P = series.length;
  if (P <= w) return null;
  const col = new Float64Array(w);
  for (let p = 0; p < P; p++) {
    const c = Math.min(w - 1, Math.floor(((p + 0.5) / P) * w));
    if (series[p] > col[c]) col[c] = series[p];
  }
  return col;
}

export function createOverlay(container, { height = 200, key = 'overlay' } = {}) {
  let sides = []; // [{label, live: Float64Array, peak}]
  const x = scaleLinear();
  const y = scaleLinear();
  const frame = createFrame(container, {
    key,
    className: 'mpv-overlay',
    title: 'Memory over time, A and B',
    height,
    margin: MARGIN,
    onResize: () => frame.schedule(render),
  });
  const svg = select(frame.svg);
  const gx = svg.append('g').attr('class', 'axis axis-x');
  const gy = svg.append('g').attr('class', 'axis axis-y');
  const message = svg.append('text').attr('class', 'chart-message').attr('text-anchor', 'middle');
  const legend = el('ul', 'mpv-legend');
  frame.root.insertBefore(legend, frame.summaryEl);

  function render() {
    frame.begin();
    const ctx = frame.ctx;
    const w = frame.width,
      h = frame.height;
    const P = Math.max(1, ...sides.map((s) => s.live.length));
    x.domain([0, P]).range([MARGIN.left, w - MARGIN.right]);
    let top = 1;
    for (const s of sides) {
      top = Math.max(top, s.peak ?? 0);
      for (const v of s.live) if (v > top) top = v;
    }
    y.domain([0, top * 1.06]).range([h - MARGIN.bottom, MARGIN.top]);
    positionAxis(gx, x, w, h - MARGIN.bottom);
    byteAxisLeft(gy, y, MARGIN.left, h);
    message
      .attr('x', (MARGIN.left + w - MARGIN.right) / 2)
      .attr('y', (MARGIN.top + h - MARGIN.bottom) / 2)
      .text(sides.length ? '' : 'compare two plans to draw them here');
    sides.forEach((s, k) => {
      const pts = stepPoints(s, P);
      ctx.strokeStyle = SIDE_COLORS[k];
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      pts.forEach(([px, py], j) => (j ? ctx.lineTo(px, py) : ctx.moveTo(px, py)));
      ctx.stroke();
      if (s.peak !== null) {
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.moveTo(MARGIN.left, y(s.peak));
        ctx.lineTo(w - MARGIN.right, y(s.peak));
        ctx.stroke();
        ctx.setLineDash([]);
      }
    });
  }

  /**
   * Side s's step line as points [[x, y], ...] in CSS px: over its own
   * positions (the columns it covers of the shared axis of P positions), one
   * step per position, or per pixel column (its highest value) when the
   * positions outnumber the pixels.
   */
  function stepPoints(s, P) {
    const left = MARGIN.left,
      plotW = Math.max(1, Math.ceil(frame.width - MARGIN.right - left));
    const span = Math.max(1, Math.round((s.live.length / P) * plotW));
    const col = columnMax(s.live, span);
    const pts = [];
    if (col) {
      pts.push([left, y(col[0])]);
      for (let c = 0; c < col.length; c++) pts.push([left + c, y(col[c])], [left + c + 1, y(col[c])]);
    } else {
      pts.push([x(0), y(s.live[0] ?? 0)]);
      for (let p = 0; p < s.live.length; p++) pts.push([x(p), y(s.live[p])], [x(p + 1), y(s.live[p])]);
    }
    return pts;
  }

  /** The canvas lines as SVG paths (the SVG export): each side's step line and dashed peak. */
  function marksSVG(g) {
    const P = Math.max(1, ...sides.map((s) => s.live.length));
    sides.forEach((s, k) => {
      const d = stepPoints(s, P)
        .map(([px, py], j) => `${j ? 'L' : 'M'}${px.toFixed(2)},${py.toFixed(2)}`)
        .join('');
      const line = { fill: 'none', stroke: SIDE_COLORS[k], 'stroke-width': 1.5 };
      appendTitled(g, 'path', `${k ? 'B' : 'A'}: ${s.label}`, {
        class: `overlay-line overlay-${k ? 'b' : 'a'}`,
        d,
        ...line,
      });
      if (s.peak !== null) {
        const py = y(s.peak).toFixed(2);
        g.append(
          svgEl('path', {
            class: 'overlay-peak',
            d: `M${MARGIN.left},${py}H${frame.width - MARGIN.right}`,
            ...line,
            'stroke-dasharray': '4 3',
          }),
        );
      }
    });
  }

  const api = {
    ...chartApi(frame, { marks: marksSVG }),
    /** sides: [{label, live (bytes live per position), peak (or null)}], A then B. */
    setData(list) {
      sides = list ?? [];
      legend.replaceChildren();
      sides.forEach((s, k) => {
        const li = el('li', 'mpv-legend-item');
        const sw = el('span', 'mpv-swatch');
        sw.style.background = SIDE_COLORS[k];
        const t = el('span', 'mpv-legend-label');
        setText(t, `${k ? 'B' : 'A'}: ${s.label}${s.peak !== null ? ` (peak ${formatBytes(s.peak)}, dashed)` : ''}`);
        li.append(sw, t);
        legend.append(li);
      });
      frame.schedule(render);
    },
    /** What is drawn, per side: {label, positions, max (highest live bytes), peak}. */
    get sides() {
      return sides.map((s) => ({
        label: s.label,
        positions: s.live.length,
        max: s.live.reduce((a, v) => Math.max(a, v), 0),
        peak: s.peak,
      }));
    },
    renderNow: render,
  };
  return api;
}
