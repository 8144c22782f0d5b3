// arena.js -- (c) the arena map: x = position, y = byte offset, one rectangle
// per buffer [start, end+1) x [offset, offset+size). The planned peak is a
// line across, with the positions where the arena reaches it shaded; the
// lower bound is a dashed line. Slot plans show their slots' prefix-sum
// offsets the same way.
import { axisBottom, axisLeft, scaleLinear, select } from 'd3';
import { Buckets, PALETTE, TinyMarks, attachXZoom, chartPNG, chartSVG, colorOf, createFrame, svgEl, stickyPick, linkPointer } from './base.js';
import { byteTicks, formatBytes } from '../data/format.js';

const MARGIN = { top: 14, right: 26, bottom: 22, left: 64 };

export function createArena(container, linked, { height = 280, hooks = {} } = {}) {
  let m = null, s = null;
  let yMax = 1;
  const baseX = scaleLinear();
  const y = scaleLinear();
  const tiny = new TinyMarks();
  const buckets = new Buckets(PALETTE.length);
  const picker = stickyPick(pick); // forgets the last hover when the geometry changes
  const frame = createFrame(container, { className: 'mpv-arena', title: 'Arena map — x = position, y = byte offset, one rectangle per buffer', height, margin: MARGIN, onResize: () => { layout(); draw(); } });
  const svg = select(frame.svg);
  const gx = svg.append('g').attr('class', 'axis axis-x');
  const gy = svg.append('g').attr('class', 'axis axis-y');
  const refG = svg.append('g').attr('class', 'refs');
  const hoverG = svg.append('g').attr('class', 'mpv-interactive hover-layer');
  const zoomRect = svg.append('rect').attr('class', 'mpv-interactive zoom-surface');
  const message = svg.append('text').attr('class', 'chart-message').attr('text-anchor', 'middle');
  const xz = attachXZoom(zoomRect.node(), linked, () => baseX);

  function layout() {
    picker.leave();
    const w = frame.width, h = frame.height;
    baseX.range([MARGIN.left, w - MARGIN.right]);
    y.domain([0, yMax]).range([h - MARGIN.bottom, MARGIN.top]);
    zoomRect.attr('x', MARGIN.left).attr('y', MARGIN.top).attr('width', Math.max(0, w - MARGIN.left - MARGIN.right))
      .attr('height', Math.max(0, h - MARGIN.top - MARGIN.bottom));
    message.attr('x', (MARGIN.left + w - MARGIN.right) / 2).attr('y', (MARGIN.top + h - MARGIN.bottom) / 2);
    xz.sync();
  }
  const currentX = () => baseX.copy().domain(linked.domain());
  const draw = () => frame.schedule(render);
  const placed = (i) => m.owner[i] === i && !Number.isNaN(m.offset[i]) && !Number.isNaN(m.size[i]);

  function render() {
    frame.begin();
    const ctx = frame.ctx;
    const x = currentX();
    gx.attr('transform', `translate(0,${frame.height - MARGIN.bottom})`).call(axisBottom(x).ticks(Math.max(2, frame.width / 90)).tickFormat((d) => (Number.isInteger(d) ? d : '')).tickSizeOuter(0));
    gy.attr('transform', `translate(${MARGIN.left},0)`).call(axisLeft(y).tickValues(byteTicks(y.domain()[1], Math.max(2, Math.floor(frame.height / 40)))).tickFormat((d) => formatBytes(d, { trim: true })).tickSizeOuter(0));
    refG.selectAll('*').remove();
    if (!m || !s) return;
    const anyPlaced = m.n > 0 && m.offset.some((o) => !Number.isNaN(o));
    message.text(anyPlaced ? '' : m.planned ? 'no buffers' : `no offsets yet: the plan is deferred${m.unknownDims.length ? ' (bind the dims above)' : ''}`);
    if (!anyPlaced) { hoverG.selectAll('*').remove(); return; }
    const [d0, d1] = x.domain();
    const left = MARGIN.left, right = frame.width - MARGIN.right, top = MARGIN.top, bottom = frame.height - MARGIN.bottom;
    // Peak positions: where the highest byte in use reaches the maximum.
    const peakPos = [];
    for (let p = Math.max(0, Math.floor(d0)); p < Math.min(s.positions, Math.ceil(d1)); p++) if (s.extent[p] === s.maxExtent && s.maxExtent > 0) peakPos.push(p);
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, right - left, bottom - top);
    ctx.clip();
    ctx.fillStyle = 'rgba(225, 87, 89, 0.08)';
    for (const p of peakPos) ctx.fillRect(x(p), top, Math.max(x(p + 1) - x(p), 1), bottom - top);
    const sel = linked.selected !== null ? m.index.get(linked.selected) : undefined;
    const selOwner = sel !== undefined ? m.owner[sel] : -1;
    buckets.reset(m.n);
    const { start, end, offset, size, colorKey } = m;
    for (let i = 0; i < m.n; i++) {
      if (!placed(i) || end[i] + 1 < d0 || start[i] > d1) continue;
      buckets.push(colorKey[i] % PALETTE.length, i);
    }
    const kx = x(1) - x(0), ox = x(0);
    const ky = y(1) - y(0), oy = y(0);
    ctx.globalAlpha = selOwner >= 0 ? 0.3 : 1;
    tiny.begin(frame.width, frame.height);
    for (let k = 0; k < PALETTE.length; k++) {
      const list = buckets.lists[k], cnt = buckets.sizes[k];
      if (!cnt) continue;
      ctx.fillStyle = PALETTE[k];
      ctx.beginPath();
      for (let j = 0; j < cnt; j++) {
        const i = list[j];
        const xa = ox + kx * start[i], xb = ox + kx * (end[i] + 1);
        const ya = oy + ky * (offset[i] + size[i]), yb = oy + ky * offset[i];
        tiny.rect(ctx, k, xa, ya, Math.max(xb - xa - (kx > 6 ? 1 : 0), 0.75), Math.max(yb - ya - (yb - ya > 4 ? 1 : 0), 0.75));
      }
      ctx.fill();
    }
    ctx.globalAlpha = 1;
    if (selOwner >= 0 && placed(selOwner)) {
      const i = selOwner;
      ctx.fillStyle = colorOf(colorKey[i]);
      ctx.fillRect(x(start[i]), y(offset[i] + size[i]), Math.max(x(end[i] + 1) - x(start[i]), 1), Math.max(y(offset[i]) - y(offset[i] + size[i]), 1));
    }
    ctx.restore();
    // Reference lines: planned peak (arena: max extent) and the lower bound.
    const refs = [];
    if (m.strategy === 'arena' && m.peak !== null) refs.push(['peak', m.peak, `planned peak ${formatBytes(m.peak)}`]);
    else if (s.maxExtent > 0) refs.push(['peak', s.maxExtent, `highest offset ${formatBytes(s.maxExtent)}`]);
    if (m.lowerBound !== null && refs[0]?.[1] === m.lowerBound) refs[0][2] = `${refs[0][2]} = lower bound`;
    else if (m.lowerBound !== null) refs.push(['bound', m.lowerBound, `lower bound ${formatBytes(m.lowerBound)}`]);
    refs.sort((a, b) => b[1] - a[1]);
    let lastY = -Infinity;
    for (const [cls, v, label] of refs) {
      const yy = y(v);
      refG.append('line').attr('class', `ref ref-${cls}`).attr('x1', left).attr('x2', right).attr('y1', yy).attr('y2', yy);
      const ty = Math.max(yy - 3, lastY + 12, top + 8);
      refG.append('text').attr('class', `ref-label ref-${cls}`).attr('x', right - 4).attr('y', ty).attr('text-anchor', 'end').text(label);
      lastY = ty;
    }
    renderHover(x);
  }

  function renderHover(x = currentX()) {
    hoverG.selectAll('*').remove();
    if (!m) return;
    for (const [name, cls] of [[linked.selected, 'mark-selected'], [linked.hover, 'mark-hover']]) {
      const i0 = name !== null ? m.index.get(name) : undefined;
      if (i0 === undefined) continue;
      const i = m.owner[i0];
      if (!placed(i)) continue;
      const x0 = x(m.start[i0]), x1 = x(m.end[i0] + 1);
      const ya = y(m.offset[i] + m.size[i]), yb = y(m.offset[i]);
      hoverG.append('rect').attr('class', cls).attr('x', x0 - 1).attr('y', ya - 1)
        .attr('width', Math.max(x1 - x0, 1) + 2).attr('height', Math.max(yb - ya, 1) + 2);
    }
    if (linked.hoverPos !== null) {
      const xp = x(linked.hoverPos + 0.5);
      if (xp >= MARGIN.left && xp <= frame.width - MARGIN.right) {
        hoverG.append('line').attr('class', 'cursor').attr('x1', xp).attr('x2', xp).attr('y1', MARGIN.top).attr('y2', frame.height - MARGIN.bottom);
      }
    }
  }

  function pick(ev) {
    if (!m) return { name: null, pos: null };
    const x = currentX();
    const pos = Math.floor(x.invert(ev.offsetX));
    if (pos < 0 || pos >= m.positions) return { name: null, pos: null };
    const b = y.invert(ev.offsetY);
    const tol = Math.abs(y.invert(0) - y.invert(2)); // 2 px, for thin buffers
    let best = -1, bestH = Infinity;
    for (let i = 0; i < m.n; i++) {
      if (!placed(i) || pos < m.start[i] || pos > m.end[i]) continue;
      if (b >= m.offset[i] - tol && b <= m.offset[i] + m.size[i] + tol && m.size[i] < bestH) { best = i; bestH = m.size[i]; }
    }
    return { name: best >= 0 ? m.names[best] : null, pos };
  }

  const offs = linkPointer(zoomRect, picker, linked, hooks, () => api, { xz, draw, renderHover });

  const api = {
    frame,
    setData(model, series) {
      m = model; s = series;
      yMax = Math.max(1, s?.maxExtent ?? 0, m?.peak && m.strategy === 'arena' ? m.peak : 0, m?.lowerBound ?? 0) * 1.04;
      baseX.domain([0, Math.max(1, m?.positions ?? 1)]);
      layout();
      draw();
    },
    renderNow: render,
    toSVG: () => chartSVG(frame, (g) => {
      if (!m) return;
      const x = currentX();
      const [d0, d1] = x.domain();
      let count = 0;
      for (let i = 0; i < m.n && count < 20000; i++) {
        if (!placed(i) || m.end[i] + 1 < d0 || m.start[i] > d1) continue;
        const xa = Math.max(x(m.start[i]), MARGIN.left), xb = Math.min(x(m.end[i] + 1), frame.width - MARGIN.right);
        const r = svgEl('rect', { x: xa.toFixed(2), y: y(m.offset[i] + m.size[i]).toFixed(2), width: Math.max(xb - xa, 0.75).toFixed(2),
          height: Math.max(y(m.offset[i]) - y(m.offset[i] + m.size[i]), 0.75).toFixed(2), fill: colorOf(m.colorKey[i]) });
        const t = svgEl('title');
        t.textContent = m.names[i];
        r.append(t);
        g.append(r);
        count++;
      }
    }),
    toPNG: () => chartPNG(frame),
    destroy() { offs.forEach((f) => f()); frame.destroy(); },
  };
  return api;
}
