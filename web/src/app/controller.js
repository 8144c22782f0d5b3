// controller.js -- the visualizer without its DOM: the worker calls (open,
// plan, slot plan, profile, in-place lists, annotate), the generations that
// keep a stale answer from landing, the caches, the linked selection and ONE
// state object. The DOM modules (controls, figures, charts, table, tooltip,
// exports) read `ctl.state` and re-render on its events; they change it only
// through the methods below. Runs in Node (wasm-tests/controller.test.js
// drives it with a fake worker client).
//
//   const ctl = createController(client, {strategy, align, inplace});
//   ctl.on('applied', (state) => ...);   await ctl.open(name, bytesOrFile);
//
// client: {version, open(bytes|Blob, {onProgress}) -> Promise<model>, cancel()}
// with model {info, call(cmd, args, {onProgress}), callBytes(cmd, args), close()}
// (memplan-client.js; calls reject with name 'AbortError' once cancelled).
import { createLinked } from '../charts/linked.js';
import {
  attachNodeTree,
  bodiesOf,
  normalizePlan,
  planAt,
  planAssumptions,
  searchBodies,
  stepOf,
} from '../data/plan.js';
import { filterRows, memorySeries, nodeRows, patternTest, sortRows, valueRows } from '../data/series.js';
import { profileAt, profileSeries, reuseByOutput, reuseText, valueLinks } from '../data/profile.js';
import { formatBytes, formatInt } from '../data/format.js';
import { provenanceOf, sha256Hex } from './provenance.js';

export const ALIGNS = [1, 8, 16, 32, 64, 128, 256, 4096];
/** The execution orders the page offers (`plan --order`): the model's, or the lowest the schedulers find. */
export const ORDERS = ['file', 'onnxruntime', 'best'];
/** The events embedders may listen to (the others are the DOM modules'). */
export const PUBLIC_EVENTS = new Set(['load', 'plan', 'select', 'hover', 'progress', 'state', 'error']);

/**
 * The state: one frozen object, replaced (never changed in place) by every
 * transition; `ctl.state` is always the latest.
 * @typedef {object} ViewState
 * @property {'idle'|'loading'|'planning'|'ready'|'error'} phase   also the 'state' event and data-state
 * @property {string} name          the title: the model being opened, else what is shown
 * @property {string} shownName     the model or plan document the figures and charts show
 * @property {null|'model'|'plan'} source   what is shown: a model open in the worker, or a plan document
 * @property {boolean} hasModel     a model is open in the worker (false for a plan document and after cancel)
 * @property {object|null} info     `info --json` of the last model opened (a plan document keeps it: the
 *                                  Netron attachment still names that graph)
 * @property {'arena'|'slots'} strategy
 * @property {number} align         one of ALIGNS
 * @property {boolean} inplace      plan with --inplace
 * @property {boolean} shareKv      plan with --share-kv when the model has kvPairs
 * @property {ReadonlyArray<object>} kvPairs  the KV-cache pairs --share-kv shares (kvPairs(info))
 * @property {boolean} fuseQdq      plan with --fuse-qdq (QDQ node units fused)
 * @property {boolean} workspace    plan with --workspace (each node's kernel workspace, as ONNX Runtime's
 *                                  CPU kernels allocate it, a buffer live at the node's position)
 * @property {boolean} float16Cpu   plan with --float16-cpu (the graph ONNX Runtime's CPU execution provider
 *                                  runs for a float16 model: float16 nodes without a float16 kernel in
 *                                  float32, between the Casts it inserts; its own nodes and values)
 * @property {{fused: boolean, peak: number|null, total: number|null, int8Peak: number|null}|null} qdqOther  a QDQ model's
 *                                  other reading, planned after the plan shown: fused when it is
 *                                  as written, as written when fused (peak null when no unit fuses
 *                                  on x86-64); int8Peak: fused where int8 QDQ is allowed (ARM64),
 *                                  when that fuses other units, else null (null: none, or not yet)
 * @property {'file'|'onnxruntime'|'best'} order  the execution order planned (`--order`; ORDERS)
 * @property {Readonly<Record<string,string>>} dims   dim values as typed ('' = unbound), in the order set
 * @property {ReadonlyArray<string>} dimNames        every symbolic dim seen since the model was opened
 * @property {Readonly<Record<string,string>>} values  graph input values as typed ('' = unbound), `--value NAME=V[,V...]`
 * @property {ReadonlyArray<object>} valueInputs     the inputs a value can be given for (valueInputs(info))
 * @property {ReadonlyArray<object>} inputDims       the dims a user can bind (inputDims(info)); the other dims were made up inside the model
 * @property {object|null} plan     the plan JSON (the whole model's: the main graph, its bodies in `subgraphs`)
 * @property {ReadonlyArray<{index: number, node: string, attribute: string}>} path  the body shown ([]: the main graph)
 * @property {object|null} body     the plan document shown: planAt(plan, path).plan (plan itself at the main graph)
 * @property {ReadonlyArray<object>} assumptions   planAssumptions(plan): a branch assumed, a trip count unbound
 * @property {object|null} baseline the same plan without --inplace while in-place reuse is on (null
 *                                  otherwise): its naive total is the savings' baseline whatever the options
 * @property {object|null} m        normalizePlan(body)
 * @property {object|null} series   memorySeries(m)
 * @property {Map} reuse            output name -> {input, kind, position}: the in-place reuse lists
 * @property {object|null} slotsPlan  the slot plan (the plan itself under slots, fetched too under arena)
 * @property {object|null} slotsM     normalizePlan of slotsPlan's body at `path`
 * @property {object|null} profileDoc `profile --json --columns` with the plan's dims
 * @property {object|null} profile    profileSeries(profileDoc)
 * @property {string} profileNote   why the profile cannot be stacked ('' when it can)
 * @property {{producer: number|null, consumers: number[]}|null} links  the selected value's nodes
 * @property {Readonly<{tab: 'values'|'nodes', sortKey: string|null, sortDir: 1|-1, filter: string}>} table
 * @property {boolean} busy         a load or plan runs (Cancel is offered)
 * @property {string} progress      the status line
 * @property {string|null} error    the error shown (null: none)
 * @property {boolean} shown        the figures and charts are shown (a model was planned or a plan document opened)
 * @property {number|null} shownMs  the last re-plan's time from request to the plan's figures and charts
 *
 * Events (ctl.on(type, fn) -> off). Public, passed on to embedders:
 *   'state' (phase), 'load' ({name, info, bytes}), 'plan' (plan JSON, frozen),
 *   'progress' (the worker's {stage, ...}), 'error' (message), 'select' (value
 *   name | null), 'hover' ({name, position}).
 * For the DOM modules (detail: the state):
 *   'status' (name, busy, progress, error), 'info', 'options', 'dims' (re-render
 *   the dim inputs), 'applied' (a new plan: everything derived from it), 'slots',
 *   'profile', 'qdq' (qdqOther came), 'selection' (links of the new selection; detail: its source),
 *   'table' (tab, sort, filter), 'shown' (state.shown changed: the figures and charts are shown, or
 *   hidden while another model loads and after a cancel), 'body' (the body shown
 *   changed; 'applied' follows).
 */
function initialState(options) {
  return Object.freeze({
    phase: 'idle',
    name: '',
    shownName: '',
    source: null,
    hasModel: false,
    info: null,
    strategy: options.strategy === 'slots' ? 'slots' : 'arena',
    align: ALIGNS.includes(options.align) ? options.align : 64,
    inplace: options.inplace === true,
    shareKv: options.shareKv === true,
    kvPairs: Object.freeze([]),
    fuseQdq: options.fuseQdq === true,
    workspace: options.workspace === true,
    float16Cpu: options.float16Cpu === true,
    qdqOther: null,
    order: ORDERS.includes(options.order) ? options.order : 'file',
    dims: dimsOf({}),
    dimNames: Object.freeze([]),
    values: dimsOf({}),
    valueInputs: Object.freeze([]),
    inputDims: Object.freeze([]),
    plan: null,
    baseline: null,
    path: Object.freeze([]),
    body: null,
    assumptions: Object.freeze([]),
    m: null,
    series: null,
    reuse: new Map(),
    slotsPlan: null,
    slotsM: null,
    profileDoc: null,
    profile: null,
    profileNote: '',
    links: null,
    table: Object.freeze({ tab: 'values', sortKey: null, sortDir: 1, filter: '' }),
    busy: false,
    progress: '',
    error: null,
    shown: false,
    shownMs: null,
  });
}

/** The graph plan JSON `plan` is of: 1 the graph ONNX Runtime's CPU execution provider runs (plan
 *  --float16-cpu: other nodes and values than the file's), 0 the file's. Indexes the per-graph caches. */
const graphOf = (plan) => (plan?.onnxruntime_cpu_graph && typeof plan.onnxruntime_cpu_graph === 'object' ? 1 : 0);

// value name -> the node that outputs it, per node list (normalizeNodes gives
// a re-plan the same list: the map is made once per model, not per plan).
const producerMaps = new WeakMap();
function producersOf(nodes) {
  let map = producerMaps.get(nodes);
  if (!map) {
    map = new Map();
    for (const nd of nodes) for (const o of nd.outputs ?? []) if (o) map.set(o, nd);
    producerMaps.set(nodes, map);
  }
  return map;
}

/** Freeze a JSON document and everything in it (once: a frozen root is not walked again). */
export function deepFreeze(doc) {
  if (doc === null || typeof doc !== 'object' || Object.isFrozen(doc)) return doc;
  Object.freeze(doc);
  for (const v of Object.values(doc)) deepFreeze(v);
  return doc;
}

/** A frozen dims object (no prototype: a dim may be called "__proto__") from `base` and [name, value] pairs. */
function dimsOf(base, pairs = []) {
  const out = Object.assign(Object.create(null), base);
  for (const [k, v] of pairs) out[k] = v;
  return Object.freeze(out);
}

/**
 * The dims a user can bind (memplan/shapes.h): the main graph's input dims,
 * each a declared name or, for an unnamed one, "input:axis". From `info
 * --json`: [{name, input, axis}], each name once (where it first appears).
 * Any other dim of a plan was made up inside the model (an "unk__N" of shape
 * inference, a name declared on an inner value): binding it has no meaning.
 */
export function inputDims(info) {
  const out = [],
    seen = new Set();
  for (const v of info?.inputs ?? []) {
    (Array.isArray(v.shape) ? v.shape : []).forEach((d, axis) => {
      const name = d === null ? `${v.name}:${axis}` : typeof d === 'string' ? d : null;
      if (name === null || seen.has(name)) return;
      seen.add(name);
      out.push(Object.freeze({ name, input: v.name, axis }));
    });
  }
  return Object.freeze(out);
}

/**
 * A load error in the page's words: bytes that do not parse as a model say
 * so first, the loader's detail after. Within the first bytes (a text file,
 * an image: byte 2, byte 10) the file is no ONNX model at all; further in,
 * it is one that is damaged or cut short.
 */
export function openMessage(message) {
  const m = /^malformed protobuf at byte (\d+)\b/.exec(message);
  if (!m) return message;
  return Number(m[1]) < 64
    ? `this is not an ONNX model (${message})`
    : `this is not a valid ONNX model: damaged or cut short? (${message})`;
}

/**
 * A plan error in the page's words: the library's usage messages name CLI
 * options ("--dim takes NAME=VALUE ..., got 'seq=-1'"); the page has dim and
 * value inputs instead. Other messages pass unchanged.
 */
export function planMessage(message) {
  const m = /^--(dim|value) takes .*, got '([\s\S]*)'$/.exec(message);
  if (!m) return message;
  const eq = m[2].indexOf('='); // the name ends at the first '=' (src/out/request.c)
  const name = eq < 0 ? m[2] : m[2].slice(0, eq);
  const typed = eq < 0 ? '' : m[2].slice(eq + 1);
  return m[1] === 'dim'
    ? `the dim ${name} takes a whole number from 0 to 2^53; "${typed}" is not one`
    : `the input ${name} takes whole numbers or true/false, separated by commas; "${typed}" is not one`;
}

/** How many elements `--value` takes at most (MEMPLAN_MAX_VALUE_ELEMS in memplan/report.h). */
export const MAX_VALUE_ELEMS = 64;
const INT_TYPES = new Set(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'bool']);

/**
 * The KV-cache pairs `plan --share-kv` shares, as `info --json` lists them
 * (`kv_cache`, memplan_share_kv_pairs): [{output, input}].
 */
export function kvPairs(info) {
  const pairs = Array.isArray(info?.kv_cache) ? info.kv_cache : [];
  return Object.freeze(
    pairs
      .filter((p) => typeof p?.output === 'string' && typeof p?.input === 'string')
      .map((p) => Object.freeze({ output: p.output, input: p.input })),
  );
}

/**
 * The graph inputs the page offers a value control for (`--value` binds
 * integers and bools only): integer or bool inputs that are scalars or have a
 * static shape of at most MAX_VALUE_ELEMS elements. From `info --json`:
 * [{name, dtype, shape, count}] in the inputs' order (count 1 for a scalar).
 */
export function valueInputs(info) {
  const out = [];
  for (const v of info?.inputs ?? []) {
    if (!INT_TYPES.has(v.dtype) || !Array.isArray(v.shape) || !v.shape.every((d) => Number.isInteger(d) && d >= 0))
      continue;
    const count = v.shape.reduce((a, d) => a * d, 1);
    if (count >= 1 && count <= MAX_VALUE_ELEMS)
      out.push(Object.freeze({ name: v.name, dtype: v.dtype, shape: Object.freeze([...v.shape]), count }));
  }
  return Object.freeze(out);
}

/**
 * Check a value as typed for input `inp` (valueInputs): null when it is fine
 * (or empty: unbound), else the message the page shows. Whole numbers, or
 * true/false for a bool, separated by commas, as many as the input holds.
 */
export function checkValue(inp, text) {
  const t = String(text ?? '').trim();
  if (t === '') return null;
  const parts = t.split(',').map((x) => x.trim());
  const isBool = inp.dtype === 'bool';
  const ok = (x) => (isBool ? /^(true|false|0|1)$/.test(x) : /^-?[0-9]+$/.test(x));
  const bad = parts.find((x) => !ok(x));
  if (bad !== undefined)
    return `${inp.name} takes ${isBool ? 'true or false' : 'whole numbers'}${inp.count > 1 ? ' separated by commas' : ''}; "${bad}" is not one`;
  if (parts.length !== inp.count)
    return `${inp.name} holds ${inp.count} value${inp.count === 1 ? '' : 's'} (shape [${inp.shape.join(', ')}]); ${parts.length} given`;
  return null;
}

const FILTER_FIELDS = { values: ['name', 'owner', 'status'], nodes: ['outputs', 'inputs', 'op', 'name'] };

export function createController(client, options = {}) {
  const listeners = new Map();
  const emit = (type, detail) => {
    for (const fn of listeners.get(type) ?? []) {
      try {
        fn(detail);
      } catch (e) {
        console.error(e);
      }
    }
  };
  const linked = createLinked();
  let state = initialState(options);
  const patch = (p) => {
    state = Object.freeze({ ...state, ...p });
  };

  // Generations: every open (loadGen) and every re-plan (planGen) takes a new
  // number; an answer that comes back under an older one is dropped.
  let loadGen = 0,
    planGen = 0;
  let model = null; // the worker's handle on the open model
  // The open model's bytes as given (a Blob/File or a Uint8Array), its size
  // and, once an export asked for it, the promise of its sha256: the plan
  // JSON's provenance. null for a plan document and after a cancel.
  let source = null;
  // Caches. Per model and graph (the file's, and with float16Cpu the graph ONNX
  // Runtime's CPU execution provider runs: [0] and [1], see graphOf): the reuse
  // lists (they depend on the graph only), the node list (taken with the first
  // plan, then left out of re-plans: --no-nodes is 40% of a plan's JSON) and the
  // last profile (strategy, alignment and in-place do not change it; kept while
  // the dims stay).
  let inplaceDocs = [null, null];
  // {model, nodes: [the first plan of the model, the first with float16Cpu (of the graph ONNX Runtime's
  // CPU execution provider runs: other nodes)]}: the plans whose node lists attachNodeTree gives back
  let planNodes = null;
  let profileCaches = [null, null]; // per graph: {model, key, doc, note}
  let baselineCache = null; // {model, key, doc}: the plan without --inplace (its naive total)
  let reuseCache = { doc: undefined, map: null };
  let shownNodes = null; // the nodes of the plan last shown: a new array is a new model or body
  // Per plan, made on first use: table rows, the producer of each value,
  // each value's producer and consumers, the view count per owner.
  let derived = {};

  // Listeners get the plan frozen (a 10k-node plan takes a few ms to freeze: only when someone listens).
  function emitPlan(plan) {
    if (listeners.get('plan')?.size) emit('plan', deepFreeze(plan));
  }
  function setPhase(s) {
    patch({ phase: s });
    emit('state', s);
  }
  function status(p) {
    patch(p);
    emit('status', state);
  }
  // The figures and charts are shown only under the name of what they show:
  // hidden while another model loads (until it is planned, or back if it
  // fails) and after a cancel (the worker, and the model, are gone).
  function setShown(on) {
    if (state.shown === on) return;
    patch({ shown: on });
    emit('shown', state);
  }
  function showError(message) {
    status({ error: message, progress: '' });
    setPhase('error');
    emit('error', message);
  }

  function dimArgs() {
    const args = [];
    for (const [d, v] of Object.entries(state.dims)) if (v !== '' && v !== undefined) args.push('--dim', `${d}=${v}`);
    return args;
  }
  // The values that pass checkValue (a value still being typed wrong is left out, and shown as an error by the controls).
  function valueArgs() {
    const args = [];
    for (const inp of state.valueInputs) {
      const v = state.values[inp.name];
      if (v && !checkValue(inp, v))
        args.push(
          '--value',
          `${inp.name}=${v
            .split(',')
            .map((x) => x.trim())
            .join(',')}`,
        );
    }
    return args;
  }
  function planArgs(strategy, dims, inplace = state.inplace) {
    const args = ['--strategy', strategy, '--align', String(state.align)];
    if (inplace) args.push('--inplace');
    if (state.shareKv && state.kvPairs.length) args.push('--share-kv');
    if (state.fuseQdq) args.push('--fuse-qdq'); // changes nothing in a model without QDQ units
    if (state.workspace) args.push('--workspace'); // nor this in a model whose kernels take no scratch memory
    if (state.float16Cpu) args.push('--float16-cpu'); // nor this in a model without float16 nodes run in float32
    return [...args, ...orderArgs(), ...dims];
  }
  // Under an order other than the file's, the positions (and so the node
  // lists) depend on the dims too: no node cache, no per-node profile.
  const orderArgs = () => (state.order === 'file' ? [] : ['--order', state.order]);
  function reuseOf(doc, nodes) {
    if (!doc) return new Map();
    if (reuseCache.doc !== doc) reuseCache = { doc, map: reuseByOutput(doc, nodes) };
    return reuseCache.map;
  }
  function linksOf(name, m) {
    if (name === null || !m?.nodes.length) return null;
    derived.links ??= valueLinks(m.nodes);
    return derived.links.get(name) ?? { producer: null, consumers: [] };
  }

  // ---- applying a plan -------------------------------------------------
  // The plan first (figures, table, timeline, arena, the plan's memory
  // series); the slot plan and the profile follow as they arrive.
  function slotsState(slotsPlan) {
    const sp = slotsPlan ?? (state.m.strategy === 'slots' ? state.plan : null);
    const body = sp ? planAt(sp, state.path)?.plan : null;
    return { slotsPlan: sp, slotsM: body ? normalizePlan(body) : null };
  }
  function profileState(doc, profileNote) {
    const m = state.m;
    // The per-node profile is in the file order: under another order the chart shows the plan's live bytes.
    if (state.order !== 'file')
      return {
        profileDoc: doc,
        profile: null,
        profileNote:
          "the per-node profile is in the file order; under another order the chart shows the plan's live bytes",
      };
    // The profile is of the graph as written: with QDQ units fused, the plan's live bytes.
    if (state.fuseQdq && state.assumptions.some((a) => a.kind === 'qdq' && a.fused > 0))
      return {
        profileDoc: doc,
        profile: null,
        profileNote:
          "the per-node profile is of the graph as written; with QDQ units fused the chart shows the plan's live bytes",
      };
    // The profile counts tensors: with the kernels' workspace planned (in the
    // main graph, or as buffers of the body shown), the plan's live bytes.
    const ws = state.plan?.kernel_workspace;
    if (
      state.workspace &&
      ((ws?.included === true && ws.nodes > 0) || m.transients.some((t) => t.kind === 'workspace'))
    )
      return {
        profileDoc: doc,
        profile: null,
        profileNote: "the per-node profile counts tensors; with kernel workspace the chart shows the plan's live bytes",
      };
    // A body's own per-node profile is the profile document's entry at the same path.
    const shown = state.path.length ? profileAt(doc, state.path) : doc;
    if (doc && !shown)
      return {
        profileDoc: doc,
        profile: null,
        profileNote: "the profile has no entry for this body; showing its plan's live bytes",
      };
    const profile = shown ? profileSeries(shown, m.positions) : null;
    let note = profileNote;
    if (profile && !profile.ok) {
      note =
        profile.reason === 'symbolic'
          ? `stacking by tag needs every dim bound (the profile is symbolic${m.unknownDims.length ? `: ${m.unknownDims.join(', ')} unbound` : ''}); showing the plan's live bytes`
          : "the profile lists no nodes; showing the plan's live bytes";
    }
    return { profileDoc: doc, profile, profileNote: note };
  }
  function applyPlan(plan, profileDoc, profileNote, baseline = null) {
    // The body shown stays shown across re-plans while it is there.
    const at = planAt(plan, state.path) ?? { plan, entries: [] };
    const path = at.plan === plan ? Object.freeze([]) : state.path;
    const m = normalizePlan(at.plan);
    derived = {};
    const dimNames = [...state.dimNames];
    // The whole model's unbound dims (a body's are among them), as normalizePlan reads them.
    const rootDims = Array.isArray(plan?.unknown?.dims) ? plan.unknown.dims.filter((d) => typeof d === 'string') : [];
    for (const d of rootDims) if (!dimNames.includes(d)) dimNames.push(d);
    // The reuse lists are the main graph's (`inplace --json`), of the graph the plan is of.
    patch({
      plan,
      baseline,
      path,
      body: at.plan,
      assumptions: deepFreeze(planAssumptions(plan)),
      m,
      reuse: path.length ? new Map() : reuseOf(inplaceDocs[graphOf(plan)], m.nodes),
      series: memorySeries(m),
      dimNames: Object.freeze(dimNames),
    });
    // A new model or body (its nodes are another array: normalizeNodes keeps
    // a re-plan's) shows every position, and first the ones a runtime runs:
    // nodes folded at load at either end (an exporter's Constants, listed
    // first) hold no activation and would leave part of every chart empty.
    if (linked.fullDomain[1] !== Math.max(1, m.positions) || m.nodes !== shownNodes) {
      shownNodes = m.nodes;
      linked.setFullDomain([0, Math.max(1, m.positions)]);
      if (m.runSpan) linked.setXDomain([m.runSpan.start, m.runSpan.end]);
    }
    if (linked.selected !== null && !m.index.has(linked.selected)) linked.select(null);
    patch({
      ...profileState(profileDoc, profileNote),
      ...slotsState(null),
      links: linksOf(linked.selected, m),
      qdqOther: null,
    });
    emit('applied', state);
  }
  function applySlots(slotsPlan) {
    patch(slotsState(slotsPlan));
    emit('slots', state);
  }
  function applyProfile(doc, note) {
    patch(profileState(doc, note));
    emit('profile', state);
  }

  /** Show the body at `path` (steps {index, node, attribute}; [] the main
   *  graph) of the plan shown: its own charts and tables. No worker call. */
  function openBody(path) {
    if (!state.plan) return false;
    const steps = Object.freeze(
      (path ?? []).map((s) => Object.freeze({ index: s.index, node: s.node, attribute: s.attribute })),
    );
    if (!planAt(state.plan, steps)) return false;
    patch({ path: steps });
    linked.select(null);
    emit('body', state);
    const { plan, slotsPlan, profileDoc, profileNote, baseline } = state;
    applyPlan(plan, profileDoc, profileNote, baseline);
    if (slotsPlan && slotsPlan !== plan) applySlots(slotsPlan);
    return true;
  }
  /** The body of control-flow node `node` in the plan shown (its counted body, else the first), as a path; null if none. */
  function bodyPath(node) {
    const bodies = bodiesOf(state.body, node);
    const pick = bodies.find((b) => b.entry.counted) ?? bodies[0];
    return pick ? [...state.path, stepOf(state.body, pick.index)] : null;
  }

  linked.on('select', (source) => {
    // A click on a control-flow node's memory (a chart or the table) opens its body.
    const i = linked.selected === null || !state.m ? undefined : state.m.index.get(linked.selected);
    if (i !== undefined && state.m.transient(i) && source && source !== 'api' && source !== 'keyboard') {
      const p = bodyPath(linked.selected);
      if (p && openBody(p)) return;
    }
    patch({ links: linksOf(linked.selected, state.m) });
    emit('selection', source);
    emit('select', linked.selected);
  });
  linked.on('hover', () => emit('hover', Object.freeze({ name: linked.hover, position: linked.hoverPos })));

  // ---- worker calls ----------------------------------------------------
  async function replan() {
    if (!model) return;
    const gen = ++planGen;
    // The dims as they are now: a dim typed while this re-plan waits starts the next one.
    const dims = dimArgs();
    const planDims = [...dims, ...valueArgs()];
    const t0 = performance.now();
    setPhase('planning');
    status({ busy: true, progress: 'planning…' });
    try {
      const onProgress = (p) => {
        if (gen === planGen && p.stage === 'running') status({ progress: 'planning…' });
      };
      const mdl = model;
      const pkey = planDims.join('\n'); // the profile's only inputs besides the model
      const f16 = state.float16Cpu ? 1 : 0; // the graph planned: its own caches
      const graphArgs = f16 ? ['--float16-cpu'] : [];
      const nodes = planNodes?.model === mdl && state.order === 'file' ? planNodes.nodes[f16] : null;
      // The other calls this plan needs are sent as soon as its reply comes,
      // before it is parsed: the worker runs them while this thread parses and
      // draws (on a 200k-node graph each reply is tens of MB of JSON). A
      // re-plan overtaken before its plan came sends none of them.
      const soft = (pr) =>
        pr.catch((e) => {
          if (e.name === 'AbortError') throw e;
          return e;
        });
      let inplaceP = null,
        slotsP = null,
        profileP = null,
        sent = false;
      // With nothing bound, `profile` is `inplace` with no other arguments (of
      // either graph): the same document (one report), fetched and parsed once
      // (80 MB on a 200k-node graph).
      const profileHit = () => profileCaches[f16]?.model === mdl && profileCaches[f16].key === pkey;
      const sendRest = () => {
        if (sent || gen !== planGen) return;
        sent = true;
        // Both as columns (`--columns`): the reuse pairs and profile amounts
        // are all the page reads of them, 3.7 MB instead of 81 on 200k nodes.
        if (!inplaceDocs[f16]) inplaceP = soft(mdl.call('inplace', ['--columns', ...graphArgs]));
        // The slot layout beside an arena plan, asked before the plan is known
        // planned unless the plan shown is deferred (dims typed into a deferred model).
        if (state.strategy !== 'slots' && (state.plan?.status ?? 'planned') === 'planned')
          slotsP = soft(mdl.call('plan', [...planArgs('slots', planDims), '--no-nodes', '--no-at-peak']));
        if (pkey && !profileHit()) profileP = soft(mdl.call('profile', [...planDims, '--columns', ...graphArgs]));
        for (const pr of [inplaceP, slotsP, profileP]) pr?.catch(() => {}); // awaited below, or dropped
      };
      const planP = mdl.call(
        'plan',
        nodes ? [...planArgs(state.strategy, planDims), '--no-nodes'] : planArgs(state.strategy, planDims),
        { onProgress, onReply: sendRest },
      );
      let plan = await planP;
      if (gen !== planGen) return;
      sendRest(); // a client without onReply
      if (nodes) plan = attachNodeTree(plan, nodes);
      else if (state.order === 'file') {
        // the first plan (of either graph): its node lists, main graph and bodies
        if (planNodes?.model !== mdl) planNodes = { model: mdl, nodes: [null, null] };
        planNodes.nodes[f16] = plan;
      }
      if (inplaceP) {
        const doc = await inplaceP;
        if (gen !== planGen) return;
        if (mdl === model && !(doc instanceof Error)) inplaceDocs[f16] = doc;
      }
      // In-place reuse merges buffers, which lowers the naive total too: the
      // savings keep the naive total of the same plan without it as their baseline.
      let baseline = null;
      if (state.inplace && plan.status === 'planned') {
        const bargs = [...planArgs(state.strategy, planDims, false), '--no-nodes', '--no-at-peak'];
        const bkey = bargs.join('\n');
        if (baselineCache?.model === mdl && baselineCache.key === bkey) baseline = baselineCache.doc;
        else {
          baseline = await mdl.call('plan', bargs);
          if (gen !== planGen) return;
          baselineCache = { model: mdl, key: bkey, doc: baseline };
        }
      }
      if (!pkey && inplaceDocs[f16] && mdl === model && !profileHit())
        profileCaches[f16] = { model: mdl, key: pkey, doc: inplaceDocs[f16], note: '' };
      const cached = profileHit() ? profileCaches[f16] : null;
      status({ error: null });
      applyPlan(plan, cached?.doc ?? null, cached?.note ?? '', baseline);
      patch({ shownMs: performance.now() - t0 });
      status({ progress: `${plan.status} in ${Math.round(state.shownMs)} ms; slot plan and profile…` });
      if (plan.strategy !== 'slots' && plan.status === 'planned') {
        const sp = await (slotsP ?? mdl.call('plan', [...planArgs('slots', planDims), '--no-nodes', '--no-at-peak']));
        if (gen !== planGen) return;
        if (sp instanceof Error) throw sp;
        applySlots(attachNodeTree(sp, plan));
      }
      // A QDQ model: the other reading's figures (fused when the plan shown is
      // as written, and the other way), and where ONNX Runtime would fuse other
      // units with int8 QDQ allowed (ARM64), that fused peak too, for the note
      // beside the figures.
      const qdq = state.assumptions.filter((a) => a.kind === 'qdq');
      if (plan.status === 'planned' && qdq.length) {
        const base = [...planArgs(state.strategy, planDims), '--no-nodes', '--no-at-peak'].filter(
          (a) => a !== '--fuse-qdq',
        );
        const other = qdq.some((a) => a.units > 0)
          ? await soft(mdl.call('plan', state.fuseQdq ? base : [...base, '--fuse-qdq']))
          : null;
        if (gen !== planGen) return;
        const int8 = qdq.some((a) => a.other !== a.units)
          ? await soft(mdl.call('plan', [...base, '--fuse-qdq', '--qdq-int8']))
          : null;
        if (gen !== planGen) return;
        const ok = (d) => d && !(d instanceof Error);
        if (ok(other) || ok(int8)) {
          patch({
            qdqOther: {
              fused: !state.fuseQdq,
              peak: ok(other) ? other.peak_bytes : null,
              total: ok(other) ? (other.total_bytes ?? null) : null,
              int8Peak: ok(int8) ? int8.peak_bytes : null,
            },
          });
          emit('qdq', state);
        }
      }
      if (!cached) {
        let doc = null,
          note = '';
        const got = profileP ? await profileP : inplaceP ? await inplaceP : null;
        if (got instanceof Error) note = `no profile: ${got.message}`;
        else doc = got;
        profileCaches[f16] = { model: mdl, key: pkey, doc, note };
        if (gen !== planGen) return;
        applyProfile(doc, note);
      }
      status({
        busy: false,
        progress: `${plan.status} in ${Math.round(state.shownMs)} ms (all charts ${Math.round(performance.now() - t0)} ms)`,
      });
      setPhase('ready');
      emitPlan(plan);
    } catch (e) {
      if (gen !== planGen) return;
      status({ busy: false });
      if (e.name === 'AbortError') return;
      console.warn(e.stack);
      showError(`${state.name}: ${planMessage(e.message)}`);
    }
  }

  /** Open a model (bytes, a File/Blob, or a promise of either) and plan it,
   *  the first plan already with `preset` ({dims, values}: {name: value}).
   *  Resolves when planned; rejects with the error (also shown). */
  async function open(name, bytesOrPromise, preset = {}) {
    const gen = ++loadGen;
    planGen++;
    let opened = false;
    const wasShown = state.shown && !!model; // what to show again if this open fails
    setShown(false);
    status({ error: null, name });
    setPhase('loading');
    status({ busy: true, progress: `reading ${name}…` });
    const t0 = performance.now();
    try {
      const bytes = await bytesOrPromise;
      if (gen !== loadGen) return;
      const size = bytes.byteLength ?? bytes.size; // bytes, or a File read in slices
      const given = { data: bytes, size, sha256: null };
      status({ progress: `opening ${formatBytes(size)}…` });
      const stages = {
        starting: 'starting WebAssembly…',
        parsing: `parsing ${formatBytes(size)}…`,
        info: 'reading the graph…',
      };
      const onProgress = (p) => {
        if (gen === loadGen) {
          status({ progress: stages[p.stage] ?? p.stage });
          emit('progress', Object.freeze(p));
        }
      };
      const mdl = await client.open(bytes, { onProgress });
      if (gen !== loadGen) {
        mdl.close();
        return;
      }
      model?.close().catch(() => {});
      model = mdl;
      source = given;
      opened = true;
      inplaceDocs = [null, null];
      const info = deepFreeze(mdl.info);
      const presetDims = Object.entries(preset.dims ?? {}).map(([k, v]) => [k, String(v)]);
      const presetValues = Object.entries(preset.values ?? {}).map(([k, v]) => [k, String(v)]);
      patch({
        source: 'model',
        hasModel: true,
        shownName: name,
        info,
        dims: dimsOf({}, presetDims),
        dimNames: Object.freeze(presetDims.map(([k]) => k)),
        values: dimsOf({}, presetValues),
        valueInputs: valueInputs(info),
        inputDims: inputDims(info),
        kvPairs: kvPairs(info),
        path: Object.freeze([]),
        table: Object.freeze({ ...state.table, sortKey: null }),
      });
      linked.select(null);
      emit('info', state);
      emit('load', Object.freeze({ name, info, bytes: size }));
      await replan();
      if (gen !== loadGen) return;
      setShown(true);
      status({
        progress: `${formatBytes(size)} · ${state.plan?.status ?? ''} · ${Math.round(performance.now() - t0)} ms`,
      });
    } catch (e) {
      if (gen !== loadGen) return;
      status({ busy: false });
      if (e.name === 'AbortError') return;
      if (!opened && wasShown) {
        status({ name: state.shownName });
        setShown(true);
      } // the old model is still open: show it again
      console.warn(e.stack);
      showError(`${name}: ${opened ? e.message : openMessage(e.message)}`);
      throw e; // shown, and the caller's promise rejects with it
    }
  }

  /** Show a plan JSON without a model (no re-planning). Throws TypeError, changing nothing, if it is not a plan. */
  function showPlan(plan, name = 'plan.json') {
    if (!plan || typeof plan !== 'object' || !Array.isArray(plan.values) || typeof plan.status !== 'string') {
      throw new TypeError('not a plan document: expected the output of `memplan plan --json`');
    }
    loadGen++;
    planGen++;
    model?.close().catch(() => {});
    model = null;
    source = null;
    inplaceDocs = [null, null];
    patch({
      source: 'plan',
      hasModel: false,
      shownName: name,
      dims: dimsOf({}),
      dimNames: Object.freeze([]),
      values: dimsOf({}),
      valueInputs: Object.freeze([]),
      inputDims: Object.freeze([]),
      path: Object.freeze([]),
    });
    status({ name, error: null });
    linked.select(null);
    emit('info', state);
    applyPlan(plan, null, 'a plan document has no per-node profile (open the model to stack by tag)');
    emit('options', state);
    setShown(true);
    status({ progress: `plan document · ${formatInt(plan.values?.length ?? 0)} values` });
    setPhase('ready');
    emitPlan(plan);
  }

  /** Stop the running load or plan (the worker restarts; the model must be opened again). */
  function cancel() {
    client.cancel();
    model = null;
    source = null;
    loadGen++;
    planGen++;
    patch({ hasModel: false });
    setShown(false);
    status({ busy: false, progress: 'cancelled' });
    showError(`${state.name}: cancelled. Open a model again (or pick a saved plan) to go on.`);
  }

  /** The annotated model's bytes (`annotate`), or null (no model, cancelled, failed: the error is shown). */
  async function annotate() {
    const mdl = model;
    if (!mdl) return null;
    try {
      const bytes = await mdl.callBytes('annotate', []);
      return mdl === model ? bytes : null;
    } catch (e) {
      if (e.name !== 'AbortError') showError(`${state.name}: ${e.message}`);
      return null;
    }
  }

  /** The model with its nodes (and its bodies') in the order shown (`reorder --order`: the bytes
   *  `memplan reorder` writes), or null (the file order, no model, cancelled, failed: the error is shown). */
  async function reorder() {
    const mdl = model;
    if (!mdl || state.order === 'file') return null;
    const args = ['--align', String(state.align), ...orderArgs(), ...dimArgs(), ...valueArgs()];
    try {
      const bytes = await mdl.callBytes('reorder', args);
      return mdl === model ? bytes : null;
    } catch (e) {
      if (e.name !== 'AbortError') showError(`${state.name}: ${planMessage(e.message)}`);
      return null;
    }
  }

  /** The plan's Chrome/Perfetto trace (the bytes `memplan plan --trace` writes with the
   *  same options and bindings), or null (no model, cancelled, failed: the error is shown). */
  async function trace() {
    const mdl = model;
    if (!mdl) return null;
    try {
      const bytes = await mdl.trace(planArgs(state.strategy, [...dimArgs(), ...valueArgs()]));
      return mdl === model ? bytes : null;
    } catch (e) {
      if (e.name !== 'AbortError') showError(`${state.name}: ${planMessage(e.message)}`);
      return null;
    }
  }

  // ---- derived data, per plan ------------------------------------------
  /** The rows of table `which` ('values' | 'nodes') for the current plan, made on first use. */
  function rows(which) {
    const m = state.m;
    if (!m) return [];
    if (which === 'values') {
      if (!derived.values) {
        derived.values = valueRows(m);
        for (const r of derived.values) r.reuses = reuseText(state.reuse.get(r.name));
      }
      return derived.values;
    }
    derived.nodes ??= nodeRows(m, state.series);
    return derived.nodes;
  }

  // A re-plan after a pause in typing (the dim and value inputs): one timer for
  // all of them, so typing in two inputs within the pause re-plans once.
  let pauseTimer = 0;
  const replanSoon = (ms) => {
    clearTimeout(pauseTimer);
    pauseTimer = setTimeout(() => {
      pauseTimer = 0;
      replan();
    }, ms);
  };
  const ctl = {
    linked,
    version: client.version,
    /** The current state (frozen; see ViewState). */
    get state() {
      return state;
    },
    /** The worker's handle on the open model (null: none). For the page's own tests and bench. */
    get model() {
      return model;
    },
    open,
    replan,
    /** Re-plan after `ms` without a further call (each call restarts the wait). */
    replanSoon,
    /** A re-plan is waiting for the typing to pause (replanSoon). */
    get pending() {
      return pauseTimer !== 0;
    },
    showPlan,
    openBody,
    bodyPath,
    cancel,
    annotate,
    reorder,
    trace,
    /**
     * The exported plan's `provenance` (provenance.js): the model's name,
     * size and sha256 (computed on the first call, once per model), the
     * options and the bindings the plan is made with. null when no model is
     * open (a plan document, after a cancel).
     */
    async provenance() {
      const src = source;
      if (!src) return null;
      src.sha256 ??= sha256Hex(src.data).catch(() => null);
      const sha256 = await src.sha256;
      const dims = Object.fromEntries(Object.entries(state.dims).filter(([, v]) => v !== ''));
      const values = Object.fromEntries(
        state.valueInputs
          .filter((inp) => state.values[inp.name] && !checkValue(inp, state.values[inp.name]))
          .map((inp) => [inp.name, state.values[inp.name]]),
      );
      const args = planArgs(state.strategy, [...dimArgs(), ...valueArgs()]);
      return provenanceOf(state, { args, dims, values, size: src.size, sha256, version: client.version });
    },
    /** Bind dims ({name: value}; null or '' unbinds) and re-plan. */
    setDims(obj) {
      const pairs = Object.entries(obj ?? {}).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]);
      const dimNames = [...state.dimNames];
      for (const [k] of pairs) if (!dimNames.includes(k)) dimNames.push(k);
      patch({ dims: dimsOf(state.dims, pairs), dimNames: Object.freeze(dimNames) });
      emit('dims', state);
      return replan();
    },
    /** One dim as typed, without re-planning (the controls re-plan after a pause). */
    setDim(name, value) {
      patch({ dims: dimsOf(state.dims, [[name, value]]) });
    },
    /** Bind graph input values ({name: value}: an integer, a bool, or a list of them as "1,2,3";
     *  null or '' unbinds) and re-plan. A value checkValue refuses is kept as typed and left out. */
    setValues(obj) {
      const pairs = Object.entries(obj ?? {}).map(([k, v]) => [
        k,
        v === null || v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v),
      ]);
      patch({ values: dimsOf(state.values, pairs) });
      emit('dims', state);
      return replan();
    },
    /** One value as typed, without re-planning (the controls re-plan after a pause). */
    setValue(name, value) {
      patch({ values: dimsOf(state.values, [[name, value]]) });
    },
    /** The message for a value that cannot be sent (checkValue), or null. */
    valueError(name) {
      const inp = state.valueInputs.find((v) => v.name === name);
      return inp ? checkValue(inp, state.values[name]) : `the model has no integer or bool input named ${name}`;
    },
    /** Give every unbound input dim `value` and re-plan. Dims made up inside the model are left
     *  unbound: a value for them would be invented, and the plan would look planned. */
    fillDims(value) {
      const bindable = new Set(state.inputDims.map((d) => d.name));
      patch({
        dims: dimsOf(
          state.dims,
          state.dimNames.filter((d) => !state.dims[d] && bindable.has(d)).map((d) => [d, value]),
        ),
      });
      emit('dims', state);
      return replan();
    },
    /** Change the strategy ('arena' | 'slots'), alignment (one of ALIGNS), in-place reuse, the KV
     *  cache in place (shareKv), QDQ units fused (fuseQdq), the kernels' workspace planned (workspace),
     *  the graph ONNX Runtime's CPU execution provider runs for a float16 model (float16Cpu) or the
     *  execution order (one of ORDERS); re-plans. */
    setOptions({ strategy, align, inplace, order, shareKv, fuseQdq, workspace, float16Cpu } = {}) {
      const p = {};
      if (strategy === 'arena' || strategy === 'slots') p.strategy = strategy;
      if (typeof inplace === 'boolean') p.inplace = inplace;
      if (typeof shareKv === 'boolean') p.shareKv = shareKv;
      if (typeof fuseQdq === 'boolean') p.fuseQdq = fuseQdq;
      if (typeof workspace === 'boolean') p.workspace = workspace;
      if (typeof float16Cpu === 'boolean') p.float16Cpu = float16Cpu;
      if (ORDERS.includes(order)) p.order = order;
      if (ALIGNS.includes(Number(align))) p.align = Number(align);
      patch(p);
      emit('options', state);
      return replan();
    },
    select(name) {
      linked.select(name ?? null, 'api');
    },
    /** Change the table's tab, sort or filter ({tab, sortKey, sortDir, filter}). */
    setTable(p) {
      patch({ table: Object.freeze({ ...state.table, ...p }) });
      emit('table', state);
    },
    /** The bodies (not the one shown) holding values that match the table's filter: [{path, label, count}]. */
    bodyMatches() {
      const f = state.table.filter;
      if (!f || !state.plan) return [];
      const { test } = patternTest(f);
      const here = JSON.stringify(state.path);
      return searchBodies(state.plan, test).filter((b) => JSON.stringify(b.path) !== here);
    },
    /** The table as shown: {which, rows (filtered, sorted), all (row count before the filter), error (bad pattern)}. */
    tableView() {
      const { tab, filter, sortKey, sortDir } = state.table;
      const f = filterRows(rows(tab), filter, FILTER_FIELDS[tab]);
      return {
        which: tab,
        rows: sortKey ? sortRows(f.rows, sortKey, sortDir) : f.rows,
        all: rows(tab).length,
        error: f.error,
      };
    },
    rows,
    /** The node that outputs value `name` (null: a graph input or initializer, or no node list). */
    producer(name) {
      const m = state.m;
      if (!m?.nodes.length) return null;
      return producersOf(m.nodes).get(name) ?? null;
    },
    // ---- sweep and compare (issue 17 items 4, 5: app/sweep.js, app/compare.js)
    /** The arguments the plan shown is made with (strategy, alignment, in-place, dims, values),
     *  with `over` ({strategy, inplace}) changed: what a sweep or a compare asks the worker for. */
    planRequest(over = {}) {
      const strategy = over.strategy ?? state.strategy;
      return planArgs(strategy, [...dimArgs(), ...valueArgs()], over.inplace ?? state.inplace);
    },
    /** How many views value index i (an owner) has. */
    viewCount(i) {
      const m = state.m;
      if (!derived.viewCount) {
        const count = new Int32Array(m.n);
        for (let j = 0; j < m.n; j++) if (m.owner[j] !== j) count[m.owner[j]]++;
        derived.viewCount = count;
      }
      return derived.viewCount[i];
    },
    /** What embedders see: a frozen copy of the public fields. */
    snapshot() {
      const s = state;
      return Object.freeze({
        phase: s.phase,
        name: s.name,
        shownName: s.shownName,
        source: s.source,
        hasModel: s.hasModel,
        status: s.plan?.status ?? null,
        strategy: s.strategy,
        align: s.align,
        inplace: s.inplace,
        shareKv: s.shareKv,
        fuseQdq: s.fuseQdq,
        workspace: s.workspace,
        float16Cpu: s.float16Cpu,
        order: s.order,
        dims: s.dims,
        dimNames: s.dimNames,
        values: s.values,
        selected: linked.selected,
        busy: s.busy,
        progress: s.progress,
        error: s.error,
      });
    },
    on(type, fn) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type).add(fn);
      return () => listeners.get(type)?.delete(fn);
    },
    destroy() {
      clearTimeout(pauseTimer);
      pauseTimer = 0;
      loadGen++;
      planGen++;
      linked.clear();
      model?.close().catch(() => {});
      model = null;
      listeners.clear();
    },
  };
  return ctl;
}
