// embed.js -- the visualizer as an ES module for other pages.
//
//   import { mount } from './embed.js';
//   const view = mount(element, { src: 'model.onnx', dims: { batch: 1 }, strategy: 'arena', align: 64 });
//   await view.ready;                 // the WebAssembly worker is up
//   await view.setModel(bytesOrUrl);  // Uint8Array | ArrayBuffer | File | URL string; resolves when
//                                     // planned, rejects with the error when it cannot be loaded
//                                     // (the view shows the error too)
//   await view.setModel(url, name, { dims: { batch: 1 }, values: { sr: 16000 } });
//                                     // the first plan already with these dims and input values
//   await view.setDims({ batch: 4 }); // re-plans
//   await view.setValues({ sr: 8000 }); // graph input values (`--value`); re-plans
//   await view.setOptions({ strategy: 'slots', align: 256, inplace: true, order: 'best' }); // re-plans
//   await view.setPlan(planJson);     // show a saved `memplan plan --json` document instead
//   view.select('valueName');         // highlight a value in every chart and the table
//   await view.openBody([{ node: 'If_0', attribute: 'then_branch' }]); // show a control-flow body ([]: the main graph)
//   const off = view.on('plan', (planJson) => ...);  // events: load, plan, select, hover, progress, state, error
//   view.plan;                        // the plan shown (frozen), or null
//   view.state;                       // a frozen snapshot: {phase, name, shownName, source, hasModel, status,
//                                     //   strategy, align, inplace, order, dims, dimNames, values, selected, busy, progress, error,
//                                     //   body: the body shown, [{node, attribute}] from the main graph}
//   view.cancel();                    // stop a long load or plan (restarts the worker)
//   view.destroy();
//
// Event details and getters are frozen: changing them cannot change the view.
// Or declaratively: <memplan-view src="model.onnx"></memplan-view> (attributes
// src, strategy, align; the element exposes the same methods and getters).
//
// Styles: ./app/view.css (it @imports ./app/views.css), imported by the page's entry (a bundler bundles it)
// or linked (<link rel="stylesheet">); this module imports no CSS, so it loads
// as a plain ES module too. No inline styles are needed (strict CSP).
import { connectMemplan } from './api/memplan-client.js';
import { parseExact } from './data/exact.js';
import { createView } from './app/view.js';

const baseName = (url) => {
  try {
    return decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || url);
  } catch {
    return String(url);
  }
};

/** Fetch a model as a Blob, reporting progress ({stage: 'download', loaded,
 *  total}). A Blob, not bytes: the worker reads it in slices and skips the
 *  weights, and the browser may keep a large one out of the JS heap. */
export async function fetchModel(url, onProgress) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    // The page's CSP (connect-src 'self') blocks other sites; so does a server without CORS.
    const abs = new URL(url, location.href);
    if (abs.origin !== location.origin)
      throw new Error(
        `cannot fetch ${url}: the page opens addresses on its own site only (Content-Security-Policy connect-src 'self'); download the model and open the file instead`,
      );
    throw e;
  }
  if (!res.ok) throw new Error(`HTTP ${res.status} fetching ${url}`);
  const total = Number(res.headers.get('content-length')) || 0;
  if (!res.body || !onProgress) return res.blob();
  const reader = res.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress({ stage: 'download', loaded, total });
  }
  return new Blob(chunks);
}

export function mount(element, options = {}) {
  if (!(element instanceof Element)) throw new TypeError('mount(element): expected a DOM element');
  let view = null;
  let destroyed = false;
  const early = []; // on() before the view exists
  const clientPromise = options.client ? Promise.resolve(options.client) : connectMemplan();
  const ready = clientPromise.then((client) => {
    if (destroyed) {
      if (!options.client) client.terminate();
      return null;
    }
    view = createView(element, client, options);
    for (const [type, fn, box] of early) box.off = view.on(type, fn);
    return view;
  });
  const withView = async (fn) => {
    const v = await ready;
    if (!v || destroyed) throw new Error('the view was destroyed');
    return fn(v);
  };

  const controller = {
    ready: ready.then(() => controller),
    /** Open a model: bytes (Uint8Array/ArrayBuffer), a File/Blob (read in slices,
     *  weights unread: any size) or a URL. name: shown as the title. preset:
     *  {dims, values} the first plan is made with. */
    setModel(source, name, preset) {
      return withView(async (v) => {
        if (typeof source === 'string' || source instanceof URL) {
          const url = String(source);
          return v.open(
            name ?? baseName(url),
            fetchModel(url, (p) => v.root.dispatchEvent(new CustomEvent('memplan-progress', { detail: p }))),
            preset,
          );
        }
        if (typeof Blob !== 'undefined' && source instanceof Blob)
          return v.open(name ?? source.name ?? 'model.onnx', Promise.resolve(source), preset);
        const bytes = source instanceof ArrayBuffer ? new Uint8Array(source) : source;
        if (!(bytes instanceof Uint8Array)) throw new TypeError('setModel: expected bytes or a URL');
        return v.open(name ?? 'model.onnx', Promise.resolve(bytes), preset);
      });
    },
    /** Show a plan JSON (an object, or its text) without a model. */
    setPlan: (plan, name) => withView((v) => v.showPlan(typeof plan === 'string' ? parseExact(plan) : plan, name)),
    setDims: (dims) => withView((v) => v.setDims(dims)),
    setValues: (values) => withView((v) => v.setValues(values)),
    setOptions: (opts) => withView((v) => v.setOptions(opts)),
    select: (name) => {
      ready.then((v) => v?.select(name));
    },
    /** Show a control-flow body of the plan shown: [{node, attribute}] from the main graph
     *  ([] the main graph); resolves to false when the plan has no such body. */
    openBody: (steps) => withView((v) => v.openBody(steps)),
    on(type, fn) {
      if (view) return view.on(type, fn);
      const box = { off: null };
      const entry = [type, fn, box];
      early.push(entry);
      // Before the view exists: drop the entry, so it is never attached.
      return () => {
        const k = early.indexOf(entry);
        if (k >= 0) early.splice(k, 1);
        box.off?.();
      };
    },
    cancel: () => {
      view?.cancel();
    },
    /** The current plan JSON, frozen (null before the first plan). */
    get plan() {
      return view?.plan ?? null;
    },
    /** A frozen snapshot of the view's state (null before the view exists). */
    get state() {
      return view?.state ?? null;
    },
    /** The WebAssembly module's version ('' before the view exists). */
    get version() {
      return view?.version ?? '';
    },
    /** The view's parts (controller, charts, linked state): for the page's own tests and bench, not an API. */
    get view() {
      return view;
    },
    destroy() {
      destroyed = true;
      view?.destroy();
      if (!options.client) clientPromise.then((c) => c.terminate()).catch(() => {});
    },
  };
  if (options.src) {
    controller.setModel(options.src, undefined, { dims: options.dims, values: options.values }).catch(() => {});
  } else if (options.dims) {
    ready.then((v) => v?.setDims(options.dims));
  }
  return controller;
}

export class MemplanViewElement extends HTMLElement {
  static get observedAttributes() {
    return ['src', 'strategy', 'align'];
  }
  connectedCallback() {
    if (this._ctl) return;
    this._ctl = mount(this, {
      src: this.getAttribute('src') || undefined,
      strategy: this.getAttribute('strategy') || undefined,
      align: this.hasAttribute('align') ? Number(this.getAttribute('align')) : undefined,
    });
    this._ctl.on('state', (s) => {
      this.dataset.state = s;
    });
  }
  disconnectedCallback() {
    this._ctl?.destroy();
    this._ctl = null;
  }
  attributeChangedCallback(name, old, value) {
    if (!this._ctl || old === value) return;
    if (name === 'src' && value) this._ctl.setModel(value).catch(() => {}); // the view shows the error
    if (name === 'strategy' || name === 'align')
      this._ctl.setOptions({ [name]: name === 'align' ? Number(value) : value });
  }
  setModel(s, n) {
    return this._ctl.setModel(s, n);
  }
  setPlan(p, n) {
    return this._ctl.setPlan(p, n);
  }
  setDims(d) {
    return this._ctl.setDims(d);
  }
  setValues(d) {
    return this._ctl.setValues(d);
  }
  setOptions(o) {
    return this._ctl.setOptions(o);
  }
  select(n) {
    return this._ctl.select(n);
  }
  openBody(steps) {
    return this._ctl.openBody(steps);
  }
  on(t, f) {
    return this._ctl.on(t, f);
  }
  cancel() {
    this._ctl?.cancel();
  }
  get plan() {
    return this._ctl?.plan ?? null;
  }
  get state() {
    return this._ctl?.state ?? null;
  }
}
if (typeof customElements !== 'undefined' && !customElements.get('memplan-view'))
  customElements.define('memplan-view', MemplanViewElement);
