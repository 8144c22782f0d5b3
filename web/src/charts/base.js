// base.js -- what every chart shares: a frame with a canvas (marks) under an
// SVG (axes, overlays), device-pixel-ratio sizing, a ResizeObserver, draws
// coalesced into one requestAnimationFrame, the categorical palette, the
// shared x zoom (positions) and PNG/SVG export.
import { axisLeft, select, zoom as d3zoom, zoomIdentity } from 'd3';
import { byteTicks, formatBytes } from '../data/format.js';

const SVGNS = 'http://www.w3.org/2000/svg';

// Tableau 10, slightly desaturated for large areas, then a second ring.
export const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#86bcb6',
  '#8cd17d',
  '#f1ce63',
  '#a0cbe8',
  '#ffbe7d',
  '#d4a6c8',
  '#bab0ac',
];
export const colorOf = (key) => PALETTE[((key % PALETTE.length) + PALETTE.length) % PALETTE.length];
export const UNKNOWN_COLOR = '#c9ced6';

export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = String(text);
  return e;
}
/** Set a node's text only when it differs (a new text node each frame means layout and paint). */
export function setText(node, text) {
  const t = String(text);
  if (node.textContent !== t) node.textContent = t;
}
/**
 * The overlay marks of a layer (hover, selection, cursor) from a list of
 * {tag, attrs}: existing elements are kept and only their changed attributes
 * set, so a redraw does not add and remove nodes every frame.
 */
export function setMarks(g, items) {
  g.selectAll(':scope > *')
    .data(items, (d, k) => (d ? `${d.tag}|${d.attrs.class ?? ''}|${d.key ?? k}` : ''))
    .join((enter) => enter.append((d) => document.createElementNS(SVGNS, d.tag)))
    .each(function (d) {
      for (const [a, v] of Object.entries(d.attrs)) {
        const t = String(v);
        if (this.getAttribute(a) !== t) this.setAttribute(a, t);
      }
    });
}
/** The selected and the hovered value, those in plan model m: [[index, mark class]]. */
export function markedValues(m, linked) {
  const out = [];
  for (const [name, cls] of [
    [linked.selected, 'mark-selected'],
    [linked.hover, 'mark-hover'],
  ]) {
    const i = name !== null ? m.index.get(name) : undefined;
    if (i !== undefined) out.push([i, cls]);
  }
  return out;
}

/** The outline around a bar [xa, xb) (selected or hovered), kept to the plot's
 *  [left, right]: a bar zoomed past the edges must not draw outside the chart.
 *  {x, width}, or null when the bar is off the plot. */
export function outlineX(xa, xb, left, right) {
  const a = Math.max(xa - 1, left - 1),
    b = Math.min(Math.max(xb, xa + 1) + 1, right + 1);
  return b > a ? { x: a, width: b - a } : null;
}

/** The hover cursor at position `pos`: a line down the middle of its column, none when pos is null or off the plot. */
export function cursorMarks(x, pos, left, right, top, bottom) {
  if (pos === null) return [];
  const xp = x(pos + 0.5);
  return xp >= left && xp <= right
    ? [{ tag: 'line', attrs: { class: 'cursor', x1: xp, x2: xp, y1: top, y2: bottom } }]
    : [];
}

/** keyed() -> once(key, fn): runs fn when key differs from the last call's (parts that do not move with x). */
export function keyed() {
  let last;
  return (key, fn) => {
    if (key !== last) {
      last = key;
      fn();
    }
  };
}

/**
 * The x axis of positions under a chart, as d3.axisBottom(x).ticks(width /
 * 90).tickSizeOuter(0) with integer labels draws it (same elements, classes
 * and attributes), but kept between frames: a tick whose value stays is only
 * moved, the ticks that leave are reused for the ones that come in, and
 * ticks are placed with x attributes, not a transform each. A pan then sets
 * a few attributes and texts instead of rebuilding the axis.
 * g: the axis <g> (a d3 selection); x: the current scale; y: the baseline.
 */
export function positionAxis(g, x, width, y) {
  const node = g.node();
  if (!node.__ticks) {
    node.__ticks = new Map(); // value -> <g class="tick">
    g.attr('fill', 'none').attr('font-size', 10).attr('font-family', 'sans-serif').attr('text-anchor', 'middle');
    g.append('path').attr('class', 'domain').attr('stroke', 'currentColor');
  }
  const set = (el, a, v) => {
    const t = String(v);
    if (el.getAttribute(a) !== t) el.setAttribute(a, t);
  };
  set(node, 'transform', `translate(0,${y})`);
  const off = (globalThis.devicePixelRatio ?? 1) > 1 ? 0 : 0.5;
  const [r0, r1] = x.range();
  set(node.firstChild, 'd', `M${r0 + off},0H${r1 + off}`);
  const values = x.ticks(Math.max(2, width / 90));
  const old = node.__ticks,
    ticks = new Map();
  for (const v of values)
    if (old.has(v)) {
      ticks.set(v, old.get(v));
      old.delete(v);
    }
  const spare = [...old.values()];
  for (const v of values) {
    let t = ticks.get(v);
    if (!t) {
      t = spare.pop();
      if (!t) {
        t = node.appendChild(svgEl('g', { class: 'tick', opacity: 1 }));
        t.append(
          svgEl('line', { stroke: 'currentColor', y2: 6 }),
          svgEl('text', { fill: 'currentColor', y: 9, dy: '0.71em' }),
        );
      }
      ticks.set(v, t);
      setText(t.lastChild, Number.isInteger(v) ? v : '');
    }
    const px = x(v) + off;
    set(t.firstChild, 'x1', px);
    set(t.firstChild, 'x2', px);
    set(t.lastChild, 'x', px);
  }
  for (const t of spare) t.remove();
  node.__ticks = ticks;
}

export function svgEl(tag, attrs = {}) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}
/** An SVG export's mark: svgEl(tag, attrs) with a <title> (what it is: a value's name), appended to g. */
export function appendTitled(g, tag, title, attrs) {
  const e = svgEl(tag, attrs);
  const t = svgEl('title');
  t.textContent = title;
  e.append(t);
  g.append(e);
}

/**
 * A chart frame inside `container`: {root, plot, canvas, ctx, svg, width,
 * height, margin, schedule(fn), destroy()}. onResize(width, height) runs after
 * every size change (before the scheduled draw). `key` names the chart in the
 * page (data-chart).
 */
let chartIds = 0; // ids of chart titles, unique in the page

export function createFrame(container, { className, title, height, margin, onResize, key }) {
  const root = el('section', `mpv-chart ${className}`);
  if (key) root.dataset.chart = key;
  // Focusable: a focused chart zooms with the wheel and takes the keys (chartKeys).
  root.tabIndex = 0;
  const head = el('div', 'mpv-chart-head');
  const h = el('h3', 'mpv-chart-title', title);
  // Read out as its title and a sentence of figures (setSummary), not as its tick labels.
  h.id = `mpv-chart-${key ?? className}-${++chartIds}`;
  const summary = el('p', 'mpv-sr-only');
  summary.id = `${h.id}-summary`;
  root.setAttribute('role', 'group');
  root.setAttribute('aria-labelledby', h.id);
  root.setAttribute('aria-describedby', summary.id);
  const tools = el('div', 'mpv-chart-tools');
  head.append(h, tools);
  const plot = el('div', 'mpv-plot');
  plot.style.height = `${height}px`;
  const canvas = el('canvas', 'mpv-canvas');
  const svg = svgEl('svg', { class: 'mpv-svg' });
  plot.append(canvas, svg);
  canvas.setAttribute('aria-hidden', 'true');
  svg.setAttribute('aria-hidden', 'true');
  root.append(head, plot, summary);
  container.append(root);
  plot.addEventListener('pointerdown', () => {
    if (document.activeElement !== root) root.focus({ preventScroll: true });
  });
  const ctx = canvas.getContext('2d');
  const frame = {
    root,
    head,
    tools,
    plot,
    canvas,
    ctx,
    svg,
    width: 0,
    height,
    margin,
    dpr: 1,
    titleEl: h,
    summaryEl: summary,
  };
  let raf = 0;
  let drawFn = null;
  // A chart scrolled out of view is not drawn: its last draw waits until it is
  // back. (A hidden one, display: none, is drawn as before: it has no box to
  // tell where it will be once shown.)
  let inView = true;
  const run = () => {
    raf = 0;
    const f = drawFn;
    drawFn = null;
    f?.();
  };
  frame.schedule = (fn) => {
    drawFn = fn;
    if (!raf && inView) raf = requestAnimationFrame(run);
  };
  /** Draw now what is waiting (before exporting a chart that is out of view). */
  frame.flush = () => {
    if (raf) cancelAnimationFrame(raf);
    run();
  };
  const io =
    typeof IntersectionObserver === 'function'
      ? new IntersectionObserver(
          (entries) => {
            const e = entries[entries.length - 1];
            inView = e.isIntersecting || e.boundingClientRect.height === 0;
            if (inView && drawFn && !raf) raf = requestAnimationFrame(run);
          },
          { rootMargin: '200px 0px' },
        )
      : null;
  io?.observe(root);
  const resize = () => {
    const w = Math.max(320, Math.floor(plot.clientWidth)); // hidden: lay out as if 320 px wide
    const hh = Math.max(50, Math.floor(plot.clientHeight));
    const dpr = window.devicePixelRatio || 1;
    if (w === frame.width && hh === frame.height && dpr === frame.dpr) return;
    frame.width = w;
    frame.height = hh;
    frame.dpr = dpr;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(hh * dpr);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${hh}px`;
    svg.setAttribute('width', w);
    svg.setAttribute('height', hh);
    svg.setAttribute('viewBox', `0 0 ${w} ${hh}`);
    if (ready) onResize?.(w, hh);
  };
  let ready = false; // onResize runs once the chart has built its layers
  const ro = new ResizeObserver(resize);
  ro.observe(plot);
  frame.resize = resize;
  frame.destroy = () => {
    ro.disconnect();
    io?.disconnect();
    if (raf) cancelAnimationFrame(raf);
    root.remove();
  };
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
  // The wheel scrolls the page unless Ctrl/⌘ is held or the chart has the
  // focus (a click or Tab puts it there): a page of charts is not a trap.
  const wheelZooms = (ev) => {
    const chart = target.closest?.('.mpv-chart');
    return ev.ctrlKey || ev.metaKey || (!!chart && chart.contains(document.activeElement));
  };
  // The zoom's extents: the x range of the chart's scale, any y.
  const fitExtent = (base) => {
    const [r0, r1] = base.range();
    z.translateExtent([
      [r0, -Infinity],
      [r1, Infinity],
    ]).extent([
      [r0, 0],
      [r1, 1],
    ]);
  };
  const z = d3zoom()
    .scaleExtent([1, 1e6])
    .filter((ev) => (filter ? filter(ev) : true) && (ev.type === 'wheel' ? wheelZooms(ev) : !ev.button))
    .on('zoom', (ev) => {
      if (syncing || !ev.sourceEvent) return;
      const base = getBaseX();
      fitExtent(base);
      const x = ev.transform.rescaleX(base);
      linked.setXDomain(x.domain(), target);
    });
  sel.call(z).on('dblclick.zoom', null);
  const sync = () => {
    const base = getBaseX();
    const [b0, b1] = base.domain();
    const [d0, d1] = linked.xDomain ?? [b0, b1];
    const [r0] = base.range();
    fitExtent(base);
    const k = (b1 - b0) / Math.max(1e-9, d1 - d0);
    const t = zoomIdentity.translate(r0 - k * base(d0), 0).scale(k);
    syncing = true;
    sel.property('__zoom', t);
    syncing = false;
  };
  return { sync, zoom: z };
}

/** The part of every chart's API that is its frame's: the title, buttons in
 *  its head (the page's exports), and measuring again once it is shown. */
export function frameApi(frame) {
  return {
    setTitle(text) {
      setText(frame.titleEl, text);
    },
    /** The sentence a screen reader gives after the title: what the chart shows, in figures. */
    setSummary(text) {
      setText(frame.summaryEl, text);
    },
    /** Mark the chart as drawing part of the plan ('' clears): a deferred plan's sized values only. */
    setPartial(text) {
      frame.partialEl ??= frame.head.insertBefore(el('span', 'mpv-chart-partial'), frame.tools);
      setText(frame.partialEl, text);
      frame.partialEl.hidden = !text;
      frame.root.classList.toggle('partial', !!text);
    },
    addTools(...nodes) {
      frame.tools.append(...nodes);
    },
    resize() {
      frame.resize();
    },
  };
}

/**
 * The API every chart ends with: its frame's part (frameApi), the PNG and SVG
 * exports and destroy. `marks(g)` draws the canvas marks into the SVG
 * export's clipped group (none: the chart draws its marks in SVG, which the
 * export copies); `offs`, the unsubscribe handles destroy calls first
 * (linkPointer's). A chart spreads it into its own api object.
 */
export function chartApi(frame, { marks = () => {}, offs = [] } = {}) {
  return {
    ...frameApi(frame),
    toSVG: () => chartSVG(frame, marks),
    toPNG: (opts) => chartPNG(frame, opts),
    destroy() {
      for (const off of offs) off();
      frame.destroy();
    },
  };
}

/** Serialize a chart as a standalone SVG document: the overlay SVG plus marks(svgGroup) drawn as SVG. */
export function chartSVG(frame, drawMarksSVG) {
  frame.flush();
  const out = svgEl('svg', {
    xmlns: SVGNS,
    width: frame.width,
    height: frame.height,
    viewBox: `0 0 ${frame.width} ${frame.height}`,
  });
  const bg = svgEl('rect', { width: frame.width, height: frame.height, fill: '#ffffff' });
  const style = svgEl('style');
  style.textContent = 'text{font:11px system-ui,sans-serif;fill:#333} .domain,.tick line{stroke:#999}';
  const m = frame.margin;
  const defs = svgEl('defs');
  const clip = svgEl('clipPath', { id: 'mpv-plot-clip' });
  clip.append(
    svgEl('rect', {
      x: m.left,
      y: m.top,
      width: Math.max(0, frame.width - m.left - m.right),
      height: Math.max(0, frame.height - m.top - m.bottom),
    }),
  );
  defs.append(clip);
  const marks = svgEl('g', { class: 'marks', 'clip-path': 'url(#mpv-plot-clip)' });
  drawMarksSVG(marks);
  out.append(style, defs, bg, marks);
  for (const c of frame.svg.childNodes) out.append(c.cloneNode(true));
  for (const n of out.querySelectorAll('.mpv-interactive')) n.remove(); // brush handles, hover layers
  return new XMLSerializer().serializeToString(out);
}

/** The PNG export's scale (pixels per CSS px) and its title band's height (CSS px). */
export const PNG_SCALE = 2;
const PNG_TITLE_H = 22;

/**
 * Render the chart (canvas marks + SVG overlay) into a PNG Blob at 2x,
 * under a title line (`title`: model, dims, figure) when one is given. The
 * marks are axis-aligned rectangles snapped to device pixels: scaled up
 * without smoothing they stay sharp; the axes and labels are redrawn from
 * the SVG at the new size.
 */
export async function chartPNG(frame, { title = '' } = {}) {
  frame.flush();
  const k = PNG_SCALE;
  const top = title ? PNG_TITLE_H * k : 0;
  const w = frame.width * k,
    h = frame.height * k;
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h + top;
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, c.width, c.height);
  if (title) {
    g.fillStyle = '#222222';
    g.font = `600 ${12 * k}px system-ui, sans-serif`;
    g.textBaseline = 'middle';
    g.fillText(title, 8 * k, top / 2, w - 16 * k); // squeezed to the width rather than cut
  }
  g.imageSmoothingEnabled = false;
  g.drawImage(frame.canvas, 0, top, w, h);
  const overlay = frame.svg.cloneNode(true);
  overlay.setAttribute('xmlns', SVGNS);
  // Rasterized at the export's size, not scaled up from the screen's.
  overlay.setAttribute('viewBox', `0 0 ${frame.width} ${frame.height}`);
  overlay.setAttribute('width', String(w));
  overlay.setAttribute('height', String(h));
  for (const n of overlay.querySelectorAll('.mpv-interactive')) n.remove();
  const style = svgEl('style');
  style.textContent = 'text{font:11px system-ui,sans-serif;fill:#333} .domain,.tick line{stroke:#999}';
  overlay.prepend(style);
  const text = new XMLSerializer().serializeToString(overlay);
  // data: URLs only (the page's CSP allows img-src 'self' data:).
  const url = `data:image/svg+xml;base64,${btoa(unescape(encodeURIComponent(text)))}`;
  const img = new Image();
  await new Promise((res, rej) => {
    img.onload = res;
    img.onerror = () => rej(new Error('could not render the chart overlay'));
    img.src = url;
  });
  g.drawImage(img, 0, top, w, h);
  return new Promise((res) => c.toBlob(res, 'image/png'));
}

/** A CSS colour '#rrggbb' as the 32-bit pixel of an ImageData (little-endian RGBA, opaque). */
export function pixelOf(hex) {
  const v = parseInt(hex.slice(1, 7), 16);
  return ((255 << 24) | ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff)) >>> 0;
}
export const PALETTE_PIXELS = Uint32Array.from(PALETTE, pixelOf);

/**
 * Whether device pixel p (at k device pixels a CSS px) lies in the span
 * [a, b) of CSS px as RasterMarks.rect fills it: from round(a k) to
 * round(b k), at least one pixel. The charts' picks test the pointer with it,
 * so a painted pixel names its mark and a blank one none.
 */
export const rasterCovers = (p, a, b, k) => {
  const p0 = Math.round(a * k);
  return p >= p0 && p < Math.max(Math.round(b * k), p0 + 1);
};

/**
 * Bars rasterized in JS: each mark is a rectangle snapped to whole device
 * pixels (at least one pixel each way) and filled into a pixel buffer, which
 * is drawn onto the chart's canvas once per frame. No path of 100k rects to
 * fill and no anti-aliased edges: a frame costs the pixels the visible marks
 * cover. Later marks cover earlier ones.
 *   raster.begin(frame, left, top, right, bottom)  (the clip, CSS px)
 *   raster.rect(pixel, x, y, w, h)                 (CSS px; pixel from pixelOf)
 *   raster.end(ctx, alpha)                         (draws the marks)
 */
export class RasterMarks {
  constructor() {
    this.buf = new Uint32Array(0);
    this.img = null;
    this.layer = null;
    this.W = 0;
    this.H = 0;
    this.y0 = 0;
    this.y1 = 0;
  }
  /** frame: {canvas: {width, height} (device px), dpr}; the clip in CSS px. */
  begin(frame, left, top, right, bottom) {
    const W = frame.canvas.width,
      H = frame.canvas.height;
    if (this.W !== W || this.H !== H) {
      this.W = W;
      this.H = H;
      this.buf = new Uint32Array(W * H);
      this.img = null;
    } else this.buf.fill(0, this.y0 * W, this.y1 * W); // the rows the last frame wrote
    const k = frame.dpr;
    this.k = k;
    this.cx0 = Math.max(0, Math.round(left * k));
    this.cx1 = Math.min(W, Math.round(right * k));
    this.cy0 = Math.max(0, Math.round(top * k));
    this.cy1 = Math.min(H, Math.round(bottom * k));
    this.y0 = H;
    this.y1 = 0; // rows written
  }
  /** Fill [round(x), round(x + w)) x [round(y), round(y + h)) device px (at least 1 x 1), clipped. */
  rect(pixel, x, y, w, h) {
    const k = this.k;
    let x0 = Math.round(x * k),
      x1 = Math.round((x + w) * k);
    let y0 = Math.round(y * k),
      y1 = Math.round((y + h) * k);
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) y1 = y0 + 1;
    if (x0 < this.cx0) x0 = this.cx0;
    if (x1 > this.cx1) x1 = this.cx1;
    if (y0 < this.cy0) y0 = this.cy0;
    if (y1 > this.cy1) y1 = this.cy1;
    if (x0 >= x1 || y0 >= y1) return;
    if (y0 < this.y0) this.y0 = y0;
    if (y1 > this.y1) this.y1 = y1;
    const buf = this.buf,
      W = this.W;
    if (x1 - x0 < 8) {
      for (let r = y0 * W; r < y1 * W; r += W) for (let c = r + x0; c < r + x1; c++) buf[c] = pixel;
    } else {
      for (let r = y0 * W; r < y1 * W; r += W) buf.fill(pixel, r + x0, r + x1);
    }
  }
  /** Draw the marks onto ctx (whose transform is CSS px x dpr) at globalAlpha `alpha`. */
  end(ctx, alpha = 1) {
    if (this.y1 <= this.y0) return;
    if (!this.img) {
      this.img = new ImageData(new Uint8ClampedArray(this.buf.buffer), this.W, this.H);
      this.layer = document.createElement('canvas');
      this.layer.width = this.W;
      this.layer.height = this.H;
    }
    const g = this.layer.getContext('2d');
    g.clearRect(0, 0, this.W, this.H);
    g.putImageData(this.img, 0, 0, 0, this.y0, this.W, this.y1 - this.y0);
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalAlpha = alpha;
    ctx.drawImage(this.layer, 0, 0);
    ctx.restore();
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
    move(ev) {
      const r = pick(ev);
      last = { x: ev.clientX, y: ev.clientY, r };
      return r;
    },
    click(ev) {
      return last && Math.abs(ev.clientX - last.x) <= 1 && Math.abs(ev.clientY - last.y) <= 1 ? last.r : pick(ev);
    },
    leave() {
      last = null;
    },
  };
}

/**
 * The keys of a focused chart (positions are shared, so every chart follows):
 * ←/→ pan by a tenth of the range shown, +/− zoom by 1.5 about its middle,
 * 0 or Home shows everything, Escape clears the selection. True when handled.
 */
export function chartKey(ev, linked) {
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return false;
  const [a, b] = linked.domain();
  const w = b - a,
    mid = (a + b) / 2;
  switch (ev.key) {
    case 'ArrowLeft':
      linked.setXDomain([a - w / 10, b - w / 10], 'keyboard');
      return true;
    case 'ArrowRight':
      linked.setXDomain([a + w / 10, b + w / 10], 'keyboard');
      return true;
    case '+':
    case '=':
      linked.setXDomain([mid - w / 3, mid + w / 3], 'keyboard');
      return true;
    case '-':
    case '_':
      linked.setXDomain([mid - w * 0.75, mid + w * 0.75], 'keyboard');
      return true;
    case '0':
    case 'Home':
      linked.setXDomain(null, 'keyboard');
      return true;
    case 'Escape':
      linked.select(null, 'keyboard');
      return true;
    default:
      return false;
  }
}

/** Hover (with tooltip) and click-to-select on a chart's pointer target, and
 *  the linked-view subscriptions every x-linked chart needs: a new x range
 *  re-syncs the zoom and redraws, hover re-renders the overlay, a selection
 *  redraws. `getApi` is read when an event fires (the chart's api object is
 *  made after this call). Returns the unsubscribe handles. */
export function linkPointer(target, picker, linked, hooks, getApi, { xz, draw, renderHover }) {
  let dragging = false;
  target
    .on('pointermove.hover', (ev) => {
      // A drag pans: no hit-testing, hover marks or tooltip while a button is down.
      if (ev.buttons) {
        if (!dragging) {
          dragging = true;
          picker.leave();
          linked.setHover(null, null, getApi());
          hooks.tooltip?.(ev, null, null, getApi());
        }
        return;
      }
      dragging = false;
      const { name, pos } = picker.move(ev);
      linked.setHover(name, pos, getApi());
      hooks.tooltip?.(ev, name, pos, getApi());
    })
    .on('pointerleave.hover', (ev) => {
      picker.leave();
      linked.setHover(null, null, getApi());
      hooks.tooltip?.(ev, null, null, getApi());
    })
    .on('click.select', (ev) => {
      // A tap has no hover before it: it shows the tooltip too (a touch or a pen).
      if (ev.pointerType === 'touch' || ev.pointerType === 'pen') {
        const { name, pos } = picker.move(ev);
        linked.setHover(name, pos, getApi());
        hooks.tooltip?.(ev, name, pos, getApi());
      }
      linked.setSelected(picker.click(ev).name, getApi());
    });
  const chart = target.node().closest('.mpv-chart');
  const onKey = (ev) => {
    if (chartKey(ev, linked)) ev.preventDefault();
  };
  chart?.addEventListener('keydown', onKey);
  return [
    () => chart?.removeEventListener('keydown', onKey),
    linked.on('xdomain', () => {
      picker.leave();
      xz.sync();
      draw();
    }),
    linked.on('hover', () => renderHover()),
    linked.on('select', () => draw()),
  ];
}

// ---- shared by several charts (since issue 17: the byte axis, reference lines, cursor) ----

/** The y axis of bytes at x = left: byte ticks (one per 40 px of `height`) labelled 1.5 KiB, 2 MiB. */
export function byteAxisLeft(g, y, left, height) {
  g.attr('transform', `translate(${left},0)`).call(
    axisLeft(y)
      .tickValues(byteTicks(y.domain()[1], Math.max(2, Math.floor(height / 40))))
      .tickFormat((d) => formatBytes(d, { trim: true }))
      .tickSizeOuter(0),
  );
}

/** A reference line across the plot at y = yy (a byte value: the planned peak,
 *  the lower bound) and its label ending at the right edge, baseline ty. */
export function refLine(g, cls, label, yy, ty, left, right) {
  g.append('line').attr('class', `ref ref-${cls}`).attr('x1', left).attr('x2', right).attr('y1', yy).attr('y2', yy);
  g.append('text')
    .attr('class', `ref-label ref-${cls}`)
    .attr('x', right - 4)
    .attr('y', ty)
    .attr('text-anchor', 'end')
    .text(label);
}

/** cursorMarks(x, pos, ...) within the frame's plot (its margins). */
export const plotCursorMarks = (frame, x, pos) =>
  cursorMarks(
    x,
    pos,
    frame.margin.left,
    frame.width - frame.margin.right,
    frame.margin.top,
    frame.height - frame.margin.bottom,
  );

/**
 * createFrame(container, opts) for a chart whose scales follow its size:
 * every resize calls layout() and then draw(). Neither runs before the
 * chart has built its layers, but both must be defined by this call.
 */
export function layoutFrame(container, { layout, draw, ...opts }) {
  return createFrame(container, {
    ...opts,
    onResize: () => {
      layout();
      draw();
    },
  });
}

/**
 * The SVG layers of a chart, in drawing order: x and y axes, one <g> per class
 * in `extra`, the hover layer, the pointer surface over the plot and the
 * message text; with `linked`, the shared x zoom on the surface (attachXZoom,
 * getBaseX the full-domain scale). With `brush` (a d3 brush) the surface is
 * the brush's <g> instead of a rect. {svg, gx, gy, groups, hoverG, surface,
 * message, xz, brush}; fitPlot(frame, layers) sizes the surface and the
 * message.
 */
export function chartLayers(frame, { linked = null, getBaseX = null, extra = [], brush = null } = {}) {
  const svg = select(frame.svg);
  const gx = svg.append('g').attr('class', 'axis axis-x');
  const gy = svg.append('g').attr('class', 'axis axis-y');
  const groups = extra.map((c) => svg.append('g').attr('class', c));
  const hoverG = svg.append('g').attr('class', 'mpv-interactive hover-layer');
  const surface = brush
    ? svg.append('g').attr('class', 'mpv-interactive brush')
    : svg.append('rect').attr('class', 'mpv-interactive zoom-surface');
  const message = svg.append('text').attr('class', 'chart-message').attr('text-anchor', 'middle');
  const xz = linked ? attachXZoom(surface.node(), linked, getBaseX) : null;
  return { svg, gx, gy, groups, hoverG, surface, message, xz, brush };
}

/** The pointer surface over the frame's plot (a brush: its extent) and the
 *  message in its middle (after a resize). */
export function fitPlot(frame, { surface, message, brush }) {
  const m = frame.margin,
    w = frame.width,
    h = frame.height;
  if (brush)
    surface.call(
      brush.extent([
        [m.left, m.top],
        [w - m.right, h - m.bottom],
      ]),
    );
  else
    surface
      .attr('x', m.left)
      .attr('y', m.top)
      .attr('width', Math.max(0, w - m.left - m.right))
      .attr('height', Math.max(0, h - m.top - m.bottom));
  message.attr('x', (m.left + w - m.right) / 2).attr('y', (m.top + h - m.bottom) / 2);
}
