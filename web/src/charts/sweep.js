// sweep.js -- (f) memory against a dim: the total to fit, the planned peak,
// the lower bound and the naive total (`memplan sweep --json` points) over
// the values of one dim.
// A few thousand points at most: lines and dots in SVG over the shared frame
// (base.js); a value that is deferred or does not fit leaves a gap. The
// pointer shows the nearest value's figures in the chart's head (as text).
import { axisBottom, line, scaleLinear } from 'd3';
import { byteAxisLeft, chartApi, chartLayers, createFrame, el, fitPlot, setText } from './base.js';
import { formatBytes, formatInt } from '../data/format.js';

const MARGIN = { top: 14, right: 26, bottom: 34, left: 64 };
/** The series drawn: key in a point, label, colour, dash. */
export const SWEEP_SERIES = [
  { key: 'total_bytes', label: 'total to fit', color: '#3a5a8c', dash: '' },
  { key: 'peak_bytes', label: 'planned peak', color: '#e15759', dash: '' },
  { key: 'lower_bound_bytes', label: 'lower bound', color: '#2f9e44', dash: '5 3' },
  { key: 'naive_bytes', label: 'naive total', color: '#8a8f98', dash: '2 3' },
];

/**
 * The y scale's top over the planned points: the planned peak and the lower
 * bound always; the naive total and the total to fit too unless they pass 3x
 * them (as the memory chart does with the naive total: weights of 100 MB
 * over a 5 MB arena would flatten the peak's line), then that line is left
 * out and its legend item says how high it goes. A total to fit of null
 * (some weight or input of unknown size) is not drawn.
 * {top, naiveTop, naiveShown, totalLow, totalTop, totalShown} (totalLow: the
 * lowest known total, 0 when none).
 */
export function sweepScale(points) {
  let top = 1,
    naiveTop = 0,
    totalLow = Infinity,
    totalTop = 0;
  for (const p of points) {
    if (p.status !== 'planned') continue;
    top = Math.max(top, p.peak_bytes, p.lower_bound_bytes);
    naiveTop = Math.max(naiveTop, p.naive_bytes);
    if (p.total_bytes == null) continue;
    totalLow = Math.min(totalLow, p.total_bytes);
    totalTop = Math.max(totalTop, p.total_bytes);
  }
  const naiveShown = naiveTop <= top * 3,
    totalShown = totalTop <= top * 3;
  return {
    top: Math.max(top, naiveShown ? naiveTop : 0, totalShown ? totalTop : 0),
    naiveTop,
    naiveShown,
    totalLow: totalTop ? totalLow : 0,
    totalTop,
    totalShown,
  };
}

/** Whether series s is left off the scale (sweepScale). */
const offScale = (s, scale) =>
  (s.key === 'naive_bytes' && !scale.naiveShown) || (s.key === 'total_bytes' && !scale.totalShown);

/** A series' label in the legend: with how high it goes when it is off the scale. */
function legendLabel(s, scale) {
  if (!offScale(s, scale)) return s.label;
  const range =
    s.key === 'naive_bytes'
      ? `up to ${formatBytes(scale.naiveTop)}`
      : `${formatBytes(scale.totalLow)} – ${formatBytes(scale.totalTop)}`;
  return `${s.label} (off the scale: ${range})`;
}

export function createSweepChart(container, { height = 220, key = 'sweep' } = {}) {
  let doc = null; // the sweep JSON
  const x = scaleLinear();
  const y = scaleLinear();
  const frame = createFrame(container, {
    key,
    className: 'mpv-sweep-chart',
    title: 'Memory against a dim',
    height,
    margin: MARGIN,
    onResize: () => render(),
  });
  const layers = chartLayers(frame, { extra: ['sweep-lines'] });
  const {
    svg,
    gx,
    gy,
    groups: [linesG],
    hoverG: cursorG,
    surface,
    message,
  } = layers;
  const xLabel = svg.append('text').attr('class', 'axis-label').attr('text-anchor', 'middle');
  const readout = el('span', 'mpv-chart-note mpv-sweep-readout');
  readout.setAttribute('aria-live', 'polite');
  frame.head.insertBefore(readout, frame.tools);
  const legend = el('ul', 'mpv-legend');
  const legendLabels = {};
  for (const s of SWEEP_SERIES) {
    const li = el('li', 'mpv-legend-item');
    const sw = el('span', 'mpv-swatch');
    sw.style.background = s.color;
    legendLabels[s.key] = el('span', 'mpv-legend-label', s.label);
    li.append(sw, legendLabels[s.key]);
    legend.append(li);
  }
  frame.root.insertBefore(legend, frame.summaryEl);

  const planned = (p) => p.status === 'planned';

  function render() {
    const w = frame.width,
      h = frame.height;
    const pts = doc?.points ?? [];
    const ok = pts.filter(planned);
    x.domain(pts.length ? [pts[0].value, Math.max(pts[0].value + 1, pts[pts.length - 1].value)] : [0, 1]).range([
      MARGIN.left,
      w - MARGIN.right,
    ]);
    const scale = sweepScale(pts);
    y.domain([0, scale.top * 1.05]).range([h - MARGIN.bottom, MARGIN.top]);
    for (const s of SWEEP_SERIES) setText(legendLabels[s.key], legendLabel(s, scale));
    gx.attr('transform', `translate(0,${h - MARGIN.bottom})`).call(
      axisBottom(x)
        .ticks(Math.max(2, w / 90))
        .tickFormat((v) => (Number.isInteger(v) ? formatInt(v) : ''))
        .tickSizeOuter(0),
    );
    byteAxisLeft(gy, y, MARGIN.left, h);
    xLabel
      .attr('x', (MARGIN.left + w - MARGIN.right) / 2)
      .attr('y', h - 4)
      .text(doc ? doc.dim : '');
    fitPlot(frame, layers);
    message.text(
      !doc ? 'pick a dim and a range, then Sweep' : ok.length ? '' : 'no value of the range could be planned',
    );
    linesG.selectAll('*').remove();
    for (const s of SWEEP_SERIES) {
      if (offScale(s, scale)) continue;
      // Gaps where a value is deferred or does not fit the model (or its total is unknown).
      const has = (p) => planned(p) && p[s.key] != null;
      const path = line()
        .defined(has)
        .x((p) => x(p.value))
        .y((p) => y(p[s.key]))(pts);
      if (path)
        linesG
          .append('path')
          .attr('class', `sweep-line sweep-${s.key}`)
          .attr('d', path)
          .attr('fill', 'none')
          .attr('stroke', s.color)
          .attr('stroke-width', 1.5)
          .attr('stroke-dasharray', s.dash || null);
      if (ok.length <= 256)
        for (const p of ok.filter(has))
          linesG
            .append('circle')
            .attr('class', `sweep-dot sweep-${s.key}`)
            .attr('cx', x(p.value))
            .attr('cy', y(p[s.key]))
            .attr('r', 2.5)
            .attr('fill', s.color);
    }
  }

  /** The point nearest to the pointer's x, its figures shown in the head. */
  function hover(ev) {
    const pts = doc?.points ?? [];
    if (!pts.length) return;
    const v = x.invert(ev.offsetX);
    let best = pts[0];
    for (const p of pts) if (Math.abs(p.value - v) < Math.abs(best.value - v)) best = p;
    const cx = x(best.value);
    cursorG.selectAll('*').remove();
    cursorG
      .append('line')
      .attr('class', 'cursor')
      .attr('x1', cx)
      .attr('x2', cx)
      .attr('y1', MARGIN.top)
      .attr('y2', frame.height - MARGIN.bottom);
    setText(readout, describePoint(doc.dim, best));
  }
  surface.on('pointermove', hover).on('click', hover);
  surface.on('pointerleave', () => {
    cursorG.selectAll('*').remove();
    setText(readout, '');
  });

  const api = {
    ...chartApi(frame), // its lines and dots are SVG: the export copies them
    /** The sweep JSON to draw, or null. */
    setData(d) {
      doc = d;
      setText(readout, '');
      cursorG.selectAll('*').remove();
      render();
    },
    renderNow: render,
  };
  return api;
}

/** One point in words: "seq = 128: total to fit 9 MiB · planned peak 1.5 MiB · lower bound … · naive total …", or its status. */
export function describePoint(dim, p) {
  if (p.status !== 'planned') return `${dim} = ${formatInt(p.value)}: ${p.status}`;
  const figure = (s) => `${s.label} ${p[s.key] == null ? 'unknown' : formatBytes(p[s.key])}`;
  return `${dim} = ${formatInt(p.value)}: ${SWEEP_SERIES.map(figure).join(' · ')}`;
}
