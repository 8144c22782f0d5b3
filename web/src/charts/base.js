// base.js -- what every chart shares: a frame with a canvas (marks) under an
// SVG (axes, overlays), device-pixel-ratio sizing, a ResizeObserver, draws
// coalesced into one requestAnimationFrame, the categorical palette, the
// shared x zoom (positions) and PNG/SVG export.
import { select, zoom as d3zoom, zoomIdentity } from 'd3';

const SVGNS = 'http://www.w3.org/2000/svg';

// Tableau 10, slightly desaturated for large areas, then a second ring.
export const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7',
  '#9c755f', '#86bcb6', '#8cd17d', '#f1ce63', '#a0cbe8', '#ffbe7d', '#d4a6c8', '#bab0ac'];
export const colorOf = (key) => PALETTE[((key % PALETTE.length) + PALETTE.length) % PALETTE.length];
export const UNKNOWN_COLOR = '#c9ced6';

export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = String(text);
  return e;
}
export function svgEl(tag, attrs = {}) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/**
 * A chart frame inside `container`: {root, plot, canvas, ctx, svg, width,
 * height, margin, schedule(fn), destroy()}. onResize(width, height) runs after
 * every size change (before the scheduled draw).
 */
export function createFrame(container, { className, title, height, margin, onResize }) {
  const root = el('section', `mpv-chart ${className}`);
  const head = el('div', 'mpv-chart-head');
  const h = el('h3', 'mpv-chart-title', title);
  const tools = el('div', 'mpv-chart-tools');
  head.append(h, tools);
  const plot = el('div', 'mpv-plot');
  plot.style.height = `${height}px`;
  const canvas = el('canvas', 'mpv-canvas');
  const svg = svgEl('svg', { class: 'mpv-svg' });
  plot.append(canvas, svg);
  root.append(head, plot);
  container.append(root);
  const ctx = canvas.getContext('2d');
  const frame = { root, head, tools, plot, canvas, ctx, svg, width: 0, height, margin, dpr: 1, titleEl: h };
  let raf = 0;
  let drawFn = null;
  frame.schedule = (fn) => {
    drawFn = fn;
    if (!raf) raf = requestAnimationFrame(() => { raf = 0; const f = drawFn; drawFn = null; f?.(); });
  };
  const resize = () => {
    const w = Math.max(320, Math.floor(plot.clientWidth)); // hidden: lay out as if 320 px wide
    const hh = Math.max(50, Math.floor(plot.clientHeight));
    const dpr = window.devicePixelRatio || 1;
    if (w === frame.width && hh === frame.height && dpr === frame.dpr) return;
    frame.width = w; frame.height = hh; frame.dpr = dpr;
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(hh * dpr);
    canvas.style.width = `${w}px`; canvas.style.height = `${hh}px`;
    svg.setAttribute('width', w); svg.setAttribute('height', hh);
    svg.setAttribute('viewBox', `0 0 ${w} ${hh}`);
    if (ready) onResize?.(w, hh);
  };
  let ready = false; // onResize runs once the chart has built its layers
  const ro = new ResizeObserver(resize);
  ro.observe(plot);
  frame.resize = resize;
  frame.destroy = () => { ro.disconnect(); if (raf) cancelAnimationFrame(raf); root.remove(); };
  /** Clear the canvas and set the transform for CSS pixels. */
  frame.begin = () => {
    ctx.setTransform(frame.dpr, 0, 0, frame.dpr, 0, 0);
    ctx.clearRect(0, 0, frame.width, frame.height);
  };
  resize();
  ready = true;
  return frame;
}

/**
 * The x zoom shared by the charts: each chart attaches d3.zoom to its own
 * overlay; a zoom anywhere sets linked.xDomain, and every chart puts the
 * matching transform back on its element without firing events, so the next
 * gesture starts from where the view is.
 * attachXZoom(target, linked, getBaseX) -> {sync()}; getBaseX() returns the
 * chart's full-domain x scale (positions).
 */
export function attachXZoom(target, linked, getBaseX, { filter } = {}) {
  const sel = select(target);
  let syncing = false;
  const z = d3zoom()
    .scaleExtent([1, 1e6])
    .filter((ev) => (filter ? filter(ev) : true) && (!ev.button || ev.type === 'wheel'))
    .on('zoom', (ev) => {
      if (syncing || !ev.sourceEvent) return;
      const base = getBaseX();
      const [r0, r1] = base.range();
      z.translateExtent([[r0, -Infinity], [r1, Infinity]]).extent([[r0, 0], [r1, 1]]);
      const x = ev.transform.rescaleX(base);
      linked.setXDomain(x.domain(), target);
    });
  sel.call(z).on('dblclick.zoom', null);
  const sync = () => {
    const base = getBaseX();
    const [b0, b1] = base.domain();
    const [d0, d1] = linked.xDomain ?? [b0, b1];
    const [r0, r1] = base.range();
    z.translateExtent([[r0, -Infinity], [r1, Infinity]]).extent([[r0, 0], [r1, 1]]);
    const k = (b1 - b0) / Math.max(1e-9, d1 - d0);
    const t = zoomIdentity.translate(r0 - k * base(d0), 0).scale(k);
    syncing = true;
    sel.property('__zoom', t);
    syncing = false;
  };
  return { sync, zoom: z };
}

/** Serialize a chart as a standalone SVG document: the overlay SVG plus marks(svgGroup) drawn as SVG. */
export function chartSVG(frame, drawMarksSVG) {
  const out = svgEl('svg', { xmlns: SVGNS, width: frame.width, height: frame.height, viewBox: `0 0 ${frame.width} ${frame.height}` });
  const bg = svgEl('rect', { width: frame.width, height: frame.height, fill: '#ffffff' });
  const style = svgEl('style');
  style.textContent = 'text{font:11px system-ui,sans-serif;fill:#333} .domain,.tick line{stroke:#999}';
  const m = frame.margin;
  const defs = svgEl('defs');
  const clip = svgEl('clipPath', { id: 'mpv-plot-clip' });
  clip.append(svgEl('rect', { x: m.left, y: m.top, width: Math.max(0, frame.width - m.left - m.right), height: Math.max(0, frame.height - m.top - m.bottom) }));
  defs.append(clip);
  const marks = svgEl('g', { class: 'marks', 'clip-path': 'url(#mpv-plot-clip)' });
  drawMarksSVG(marks);
  out.append(style, defs, bg, marks);
  for (const c of frame.svg.childNodes) out.append(c.cloneNode(true));
  for (const n of out.querySelectorAll('.mpv-interactive')) n.remove(); // brush handles, hover layers
  return new XMLSerializer().serializeToString(out);
}

/** Render the chart (canvas marks + SVG overlay) into a PNG Blob at the device pixel ratio. */
export async function chartPNG(frame) {
  const c = document.createElement('canvas');
  c.width = frame.canvas.width; c.height = frame.canvas.height;
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, c.width, c.height);
  g.drawImage(frame.canvas, 0, 0);
  const overlay = frame.svg.cloneNode(true);
  overlay.setAttribute('xmlns', SVGNS);
  for (const n of overlay.querySelectorAll('.mpv-interactive')) n.remove();
  const style = svgEl('style');
  style.textContent = 'text{font:11px system-ui,sans-serif;fill:#333} .domain,.tick line{stroke:#999}';
  overlay.prepend(style);
  const text = new XMLSerializer().serializeToString(overlay);
  // data: URLs only (the page's CSP allows img-src 'self' data:).
  const url = `data:image/svg+xml;base64,${btoa(unescape(encodeURIComponent(text)))}`;
  const img = new Image();
  await new Promise((res, rej) => { img.onload = res; img.onerror = () => rej(new Error('could not render the chart overlay')); img.src = url; });
  g.drawImage(img, 0, 0, c.width, c.height);
  return new Promise((res) => c.toBlob(res, 'image/png'));
}

/** Buckets of visible marks per palette colour, reused across frames. */
export class Buckets {
  constructor(count) { this.count = count; this.lists = []; this.sizes = new Int32Array(count); }
  reset(n) {
    for (let k = 0; k < this.count; k++) {
      if (!this.lists[k] || this.lists[k].length < n) this.lists[k] = new Int32Array(Math.max(n, 16));
    }
    this.sizes.fill(0);
  }
  push(k, i) { this.lists[k][this.sizes[k]++] = i; }
}

/**
 * Level of detail for dense views: marks smaller than about a pixel in both
 * directions are snapped to whole pixels and drawn once per pixel and colour
 * (a stamp per pixel), so 100k sub-pixel bars cost a few thousand rects.
 * tiny.begin(width, height) each frame; tiny.rect(ctx, bucket, x, y, w, h).
 */
export class TinyMarks {
  constructor() { this.stamp = new Uint32Array(0); this.w = 0; this.frame = 0; }
  begin(w, h) {
    const n = Math.ceil(w) * Math.ceil(h);
    if (this.stamp.length < n) this.stamp = new Uint32Array(n);
    this.w = Math.ceil(w); this.h = Math.ceil(h);
    this.frame = (this.frame + 64) >>> 0;
    if (this.frame < 64) { this.stamp.fill(0); this.frame = 64; }
  }
  /** Adds the rect to the current path unless a tiny mark of this bucket already covers its pixel. */
  rect(ctx, bucket, x, y, w, h) {
    if (w >= 1.5 || h >= 1.5) {
      // Whole pixels: no anti-aliased edges to rasterize (much cheaper without a GPU).
      const x0 = Math.round(x), y0 = Math.round(y);
      ctx.rect(x0, y0, Math.max(1, Math.round(x + w) - x0), Math.max(1, Math.round(y + h) - y0));
      return;
    }
    const px = x | 0, py = y | 0;
    if (px < 0 || py < 0 || px >= this.w || py >= this.h) return;
    const i = py * this.w + px, tag = this.frame + bucket;
    if (this.stamp[i] === tag) return;
    this.stamp[i] = tag;
    ctx.rect(px, py, 1, 1);
  }
}

/**
 * Hover and click that agree: a click where the pointer last moved selects
 * what that move showed in the tooltip. (Click events carry whole-pixel
 * offsets, pointer moves fractional ones; with rows or bars under a pixel
 * tall the two would otherwise hit neighbours.)
 */
export function stickyPick(pick) {
  let last = null;
  return {
    move(ev) { const r = pick(ev); last = { x: ev.clientX, y: ev.clientY, r }; return r; },
    click(ev) { return last && Math.abs(ev.clientX - last.x) <= 1 && Math.abs(ev.clientY - last.y) <= 1 ? last.r : pick(ev); },
    leave() { last = null; },
  };
}

/** Hover (with tooltip) and click-to-select on a chart's pointer target, and
 *  the linked-view subscriptions every x-linked chart needs: a new x range
 *  re-syncs the zoom and redraws, hover re-renders the overlay, a selection
 *  redraws. `getApi` is read when an event fires (the chart's api object is
 *  made after this call). Returns the unsubscribe handles. */
export function linkPointer(target, picker, linked, hooks, getApi, { xz, draw, renderHover }) {
  target.on('pointermove.hover', (ev) => {
    const { name, pos } = picker.move(ev);
    linked.setHover(name, pos, getApi());
    hooks.tooltip?.(ev, name, pos, getApi());
  }).on('pointerleave.hover', (ev) => {
    picker.leave();
    linked.setHover(null, null, getApi());
    hooks.tooltip?.(ev, null, null, getApi());
  }).on('click.select', (ev) => linked.setSelected(picker.click(ev).name, getApi()));
  return [
    linked.on('xdomain', () => { picker.leave(); xz.sync(); draw(); }),
    linked.on('hover', () => renderHover()),
    linked.on('select', () => draw()),
  ];
}
