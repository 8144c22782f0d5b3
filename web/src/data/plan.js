// plan.js -- the plan JSON (`memplan plan --json`, or the WASM `call('plan')`)
// turned into columnar arrays the charts and tables draw from. Pure functions:
// no DOM, no globals. Reads defensively: fields may be missing (older or newer
// builds), sizes/offsets/slots are null in deferred plans, and unknown extra
// fields are ignored (kept in `raw`).
import { formatBytesExact, formatInt } from './format.js';

/** Round n up to a multiple of align (align <= 1: n). */
export function alignUp(n, align) {
  if (!(align > 1)) return n;
  return Math.ceil(n / align) * align;
}

// A count beyond 2^53 arrives as a BigInt (exact.js): the arrays and the
// figures' Numbers take the nearest double (for drawing); exact() keeps it.
const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : null);
/** A JSON count kept exact: a Number, a BigInt beyond 2^53, or null. */
const exact = (v) => (typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v)) ? v : null);
const int = (v, d) => (Number.isInteger(v) ? v : d);
const str = (v) => (typeof v === 'string' ? v : '');
/** A dim as the JSON gives it: an int, a name or expression string, or null. */
const dim = (d) => (Number.isInteger(d) || typeof d === 'string' ? d : null);
const names = (a) => (Array.isArray(a) ? a.map(str) : []);
/** A shape's dims checked: the JSON's own array when every dim is well-formed (no copy per value). */
const checkShape = (a) => (a.every((d) => dim(d) === d) ? a : a.map(dim));

/** The plan JSON's `nodes` ([{index, name, op_type, domain, inputs, outputs}]),
 *  checked: strings stay strings, missing lists are [] (outputs: null). An
 *  empty name in inputs/outputs is an omitted optional one, kept in place. */
export function normalizeNodes(nodes) {
  if (!Array.isArray(nodes)) return NO_NODES;
  // A re-plan gives back the same `nodes` array (attachNodes: the list depends
  // on the model only): its checked form is made once and shared, frozen.
  let out = nodesSeen.get(nodes);
  if (!out) {
    out = Object.freeze(checkNodes(nodes));
    nodesSeen.set(nodes, out);
  }
  return out;
}
const nodesSeen = new WeakMap();
const NO_NODES = Object.freeze([]);
function checkNodes(nodes) {
  return nodes.map((nd, p) => {
    const o = nd && typeof nd === 'object' ? nd : {};
    return Object.freeze({
      index: int(o.index, p),
      name: str(o.name),
      op: str(o.op_type),
      domain: str(o.domain),
      inputs: names(o.inputs),
      outputs: Array.isArray(o.outputs) ? names(o.outputs) : null,
      folded: o.folded === true,
    });
  });
}

/**
 * `items` (an Int32Array of indices) stably sorted by key[item], an integer
 * in [0, range): a counting sort, O(n + range), no comparator calls.
 * Chained from the least significant key to the most, it sorts by several.
 */
export function sortByKey(items, key, range) {
  const count = new Int32Array(Math.max(0, range) + 1);
  for (let j = 0; j < items.length; j++) count[key[items[j]] + 1]++;
  for (let p = 1; p < count.length; p++) count[p] += count[p - 1];
  const out = new Int32Array(items.length);
  for (let j = 0; j < items.length; j++) out[count[key[items[j]]]++] = items[j];
  return out;
}

/** The owners (owner[i] === i) ordered by start, then end, then index, over positions [0, span). Exported for tests. */
export function ownersByInterval(owner, start, end, span) {
  let k = 0;
  for (let i = 0; i < owner.length; i++) if (owner[i] === i) k++;
  const all = new Int32Array(k);
  k = 0;
  for (let i = 0; i < owner.length; i++) if (owner[i] === i) all[k++] = i;
  return sortByKey(sortByKey(all, end, span), start, span);
}

const countOrNull = (v) => (Number.isInteger(v) || typeof v === 'bigint' ? v : null);

/**
 * The memory beside the arena, as the plan JSON gives it (docs/semantics.md
 * "The figures of a planned plan"): {weights: {bytes, count, unknown, folded,
 * loadOnly: {bytes, count}} | null (the weights kept once loaded; loadOnly: those
 * read or computed at load and dropped), inputs: {bytes, count, unknown, inArena} | null (the main graph's
 * plan only: a body's inputs are its parent's buffers), total: total_bytes
 * (weights + inputs outside the arena + peak) or null (deferred, a size
 * unknown, or a plan document without it), hasTotal: the document has
 * total_bytes, totalWhy: why it is null, as the core says it
 * (total_unknown_reason; null when known or not given)}. Counts exact: a
 * BigInt beyond 2^53.
 */
export function modelMemory(json) {
  // {bytes, count, unknown, ...flag(t)} of a weights or inputs tally t, or null.
  const tally = (t, flag) =>
    t && typeof t === 'object' && countOrNull(t.bytes) !== null
      ? { bytes: t.bytes, count: countOrNull(t.count) ?? 0, unknown: countOrNull(t.unknown) ?? 0, ...flag(t) }
      : null;
  return {
    weights: tally(json?.weights, (t) => ({
      folded: t.folded !== false,
      loadOnly: { bytes: countOrNull(t.load_only_bytes) ?? 0, count: countOrNull(t.load_only_count) ?? 0 },
    })),
    inputs: tally(json?.inputs, (t) => ({ inArena: t.in_arena === true })),
    total: countOrNull(json?.total_bytes),
    hasTotal: json ? Object.hasOwn(json, 'total_bytes') : false,
    totalWhy: typeof json?.total_unknown_reason === 'string' ? json.total_unknown_reason : null,
  };
}

/**
 * Normalize a plan document into columnar form.
 * @param {object} json the plan JSON
 * @returns {PlanModel}
 *
 * PlanModel: {
 *   raw, status, strategy, align, positions, planned (bool),
 *   naive, peak, lowerBound, savings (numbers or null), strategies (object|null),
 *   n (values), names: string[], index: Map<name, i>,
 *   start, end: Int32Array (inclusive positions), size, offset: Float64Array (NaN = unknown),
 *   alignedSize: Float64Array, slot: Int32Array (-1 = none), view: Uint8Array,
 *   dtype: string[] ('' = not given), shape: (Array|null|undefined)[] (as in the
 *   JSON: ints, dim names or expression strings; null = rank unknown; undefined
 *   = not given by this build),
 *   boundAlign: the alignment lower_bound_bytes is counted in (1 for slot plans,
 *   whose bound is on raw sizes; the plan's align for arena plans),
 *   owner: Int32Array (index of the buffer owner; itself for owners),
 *   row: Int32Array (timeline row: owners sorted by start, end, index; views share their owner's row),
 *   rowCount, rowValue: Int32Array (owner index of each row),
 *   colorKey: Int32Array (slot id in slot plans, else the owner's row),
 *   slots: [{id, capacity, offset}], unknownValues: [{name, reason}], unknownDims: string[],
 *   unknownReason: Map<name, reason>, unplanned: [{name, reason}],
 *   valueInputs: string[] (unknown.value_inputs: graph inputs without a
 *   --value whose value may decide sizes), internalDims: [{name, reason,
 *   dataDependent, bindInstead: string[]}] (unknown.internal_dims: dims made
 *   up inside the graph, named unk__N afresh on every run),
 *   nodes: [{index, name, op, domain, inputs: [names], outputs: [names]|null}] in
 *   position order ([] when the JSON has no `nodes`),
 *   nValues (the plan's `values`; indices nValues..n-1 are its `transients`,
 *   each a buffer named after its node, [position, position]: a control-flow
 *   node's body memory, or with --workspace a kernel's workspace),
 *   transients (the JSON's list), transient(i) (index i is a transient),
 *   workspace(i) (index i is a kernel's workspace: a transient of kind 'workspace'),
 *   transientNaive: Float64Array (per transient, its naive_bytes: the counted
 *   body's naive total + state; NaN when not given),
 *   exact: {naive, peak, lowerBound} and exactSize(i), exactOffset(i) (of an
 *   owner): the counts as the JSON gives them, a BigInt beyond 2^53 (the
 *   Numbers above are then the nearest double: for drawing, not for showing),
 *   memory: modelMemory(json) (weights, graph inputs, total to fit; exact)
 * }
 */
export function normalizePlan(json) {
  if (!json || typeof json !== 'object') throw new TypeError('normalizePlan: expected a plan object');
  // A body's memory (`transients`: one buffer per control-flow node, live at
  // its position) and a kernel's workspace (one per node that takes scratch
  // memory, with --workspace: kind 'workspace') are drawn as a buffer named
  // after the node, after the values.
  const transients = (Array.isArray(json.transients) ? json.transients : []).filter(
    (t) => t && typeof t.node === 'string',
  );
  const given = Array.isArray(json.values) ? json.values : [];
  const values = !transients.length
    ? given
    : given.concat(
        transients.map((t) => ({
          name: t.node,
          size: t.bytes,
          start: t.position,
          end: t.position,
          owner: null,
          view: false,
          slot: t.slot,
          offset: t.offset,
          dtype: null,
          shape: null,
        })),
      );
  const nValues = values.length - transients.length;
  const n = values.length;
  // A transient's share of the naive total: its counted body's own naive total + state (NaN: not given).
  const transientNaive = Float64Array.from(transients, (t) => num(t.naive_bytes) ?? NaN);
  const align = int(json.align, 1);
  const valueNames = new Array(n);
  const index = new Map();
  const start = new Int32Array(n);
  const end = new Int32Array(n);
  const size = new Float64Array(n);
  const alignedSize = new Float64Array(n);
  const offset = new Float64Array(n);
  const slot = new Int32Array(n);
  const view = new Uint8Array(n);
  const owner = new Int32Array(n);
  const dtype = new Array(n);
  const shape = new Array(n);
  let maxEnd = -1;
  for (let i = 0; i < n; i++) {
    const v = values[i] || {};
    const name = typeof v.name === 'string' ? v.name : String(v.name ?? `#${i}`);
    valueNames[i] = name;
    if (!index.has(name)) index.set(name, i);
    const s = Math.max(0, int(v.start, 0)),
      e = int(v.end, s);
    start[i] = s;
    end[i] = Math.max(s, e);
    if (end[i] > maxEnd) maxEnd = end[i];
    const sz = num(v.size);
    size[i] = sz === null ? NaN : sz;
    alignedSize[i] = sz === null ? NaN : alignUp(sz, align);
    const off = num(v.offset);
    offset[i] = off === null ? NaN : off;
    slot[i] = int(v.slot, -1);
    view[i] = v.view ? 1 : 0;
    dtype[i] = typeof v.dtype === 'string' ? v.dtype : '';
    shape[i] = Array.isArray(v.shape) ? checkShape(v.shape) : v.shape === null ? null : undefined;
  }
  for (let i = nValues; i < n; i++) owner[i] = i; // a transient owns its buffer
  for (let i = 0; i < nValues; i++) {
    const o = values[i]?.owner;
    const j = typeof o === 'string' ? index.get(o) : undefined;
    owner[i] = j === undefined ? i : j;
  }
  // Timeline rows: one per buffer owner (a value whose owner is itself),
  // ordered by start, then end, then appearance.
  const rowValue = ownersByInterval(owner, start, end, maxEnd + 1);
  const owners = rowValue;
  const row = new Int32Array(n).fill(-1);
  for (let r = 0; r < owners.length; r++) row[owners[r]] = r;
  for (let i = 0; i < n; i++) if (row[i] < 0) row[i] = row[owner[i]] >= 0 ? row[owner[i]] : 0;
  const colorKey = new Int32Array(n);
  for (let i = 0; i < n; i++) colorKey[i] = slot[owner[i]] >= 0 ? slot[owner[i]] : row[owner[i]];

  const nodes = normalizeNodes(json.nodes);
  const positions = Math.max(int(json.positions, 0), maxEnd + 1, nodes.length);
  const unknown = json.unknown && typeof json.unknown === 'object' ? json.unknown : {};
  const unknownValues = Array.isArray(unknown.values)
    ? unknown.values.filter((u) => u && typeof u.name === 'string')
    : [];
  const unknownDims = Array.isArray(unknown.dims) ? unknown.dims.filter((d) => typeof d === 'string') : [];
  const unknownReason = new Map(unknownValues.map((u) => [u.name, String(u.reason ?? 'unknown')]));
  const valueInputs = Array.isArray(unknown.value_inputs)
    ? unknown.value_inputs.filter((d) => typeof d === 'string')
    : [];
  const internalDims = (Array.isArray(unknown.internal_dims) ? unknown.internal_dims : [])
    .filter((d) => d && typeof d.name === 'string')
    .map((d) => ({
      name: d.name,
      reason: typeof d.reason === 'string' ? d.reason : 'unknown',
      dataDependent: d.data_dependent === true,
      bindInstead: names(d.bind_instead),
    }));
  const slots = (Array.isArray(json.slots) ? json.slots : [])
    .filter((s) => s && Number.isInteger(s.id))
    .map((s) => ({ id: s.id, capacity: num(s.capacity) ?? 0, offset: num(s.offset) }));
  return {
    raw: json,
    status: typeof json.status === 'string' ? json.status : 'unknown',
    planned: json.status === 'planned',
    strategy: typeof json.strategy === 'string' ? json.strategy : null,
    align,
    positions,
    naive: num(json.naive_bytes),
    peak: num(json.peak_bytes),
    lowerBound: num(json.lower_bound_bytes),
    savings: num(json.savings_ratio),
    exact: { naive: exact(json.naive_bytes), peak: exact(json.peak_bytes), lowerBound: exact(json.lower_bound_bytes) },
    memory: modelMemory(json),
    exactSize: (i) => exact(values[i]?.size),
    exactOffset: (i) => exact(values[i]?.offset),
    strategies: json.strategies && typeof json.strategies === 'object' ? json.strategies : null,
    boundAlign: json.strategy === 'slots' ? 1 : align,
    n,
    nValues,
    transients,
    transientNaive,
    transient: (i) => i >= nValues,
    workspace: (i) => i >= nValues && transients[i - nValues].kind === 'workspace',
    names: valueNames,
    index,
    start,
    end,
    size,
    alignedSize,
    offset,
    slot,
    view,
    owner,
    dtype,
    shape,
    row,
    rowCount: owners.length,
    rowValue,
    colorKey,
    slots,
    unknownValues,
    unknownDims,
    unknownReason,
    valueInputs,
    internalDims,
    unplanned: Array.isArray(json.unplanned) ? json.unplanned.filter((u) => u && typeof u.name === 'string') : [],
    nodes,
    runSpan: runSpan(nodes, positions),
  };
}

/**
 * The positions a runtime runs: [first, last + 1) over the nodes not folded
 * at load (`nodes[].folded`, memplan_plan_node_folded; a position past the
 * node list counts as run), with the count of folded ones outside it. null
 * when no node runs, or when the folded ones outside are too few to be worth
 * a view of their own: under RUN_SPAN_MIN positions or a tenth of them (a
 * small model's one Constant: the page opens on everything).
 */
export const RUN_SPAN_MIN = 8;
export function runSpan(nodes, positions) {
  let first = -1;
  let last = -1;
  for (let p = 0; p < positions; p++) {
    if (nodes[p]?.folded) continue;
    if (first < 0) first = p;
    last = p;
  }
  const outside = first + positions - last - 1;
  if (first < 0 || outside < RUN_SPAN_MIN || outside * 10 < positions) return null;
  return Object.freeze({ start: first, end: last + 1, before: first, after: positions - last - 1 });
}

/**
 * A plan JSON made with `--no-nodes`, given back the `nodes` of an earlier
 * plan of the same model (they depend on the model only), at the place the
 * full JSON has them: right after `unknown`. Returns a new object (`json` is
 * not modified); a plan that has `nodes` already is returned as it is.
 */
export function attachNodes(json, nodes) {
  if (!json || typeof json !== 'object' || Object.hasOwn(json, 'nodes')) return json;
  const out = {};
  let placed = false;
  for (const [k, v] of Object.entries(json)) {
    out[k] = v;
    if (k === 'unknown') {
      out.nodes = nodes;
      placed = true;
    }
  }
  if (!placed) out.nodes = nodes;
  return out;
}

/** Indices of the values that own a buffer (not views). */
export function ownerIndices(m) {
  const out = [];
  for (let i = 0; i < m.n; i++) if (m.owner[i] === i) out.push(i);
  return out;
}

/**
 * Drawable rectangles, one per value, columnar. x in positions ([start, end+1)),
 * y in rows (timeline) and bytes (arena map: [offset, offset+size)).
 * @returns {{n, start, end, row, offset, size, slot, colorKey, view: Uint8Array, value: Int32Array}}
 */
export function intervalRows(m) {
  const value = new Int32Array(m.n);
  for (let i = 0; i < m.n; i++) value[i] = i;
  return {
    n: m.n,
    start: m.start,
    end: m.end,
    row: m.row,
    offset: m.offset,
    size: m.size,
    slot: m.slot,
    colorKey: m.colorKey,
    view: m.view,
    value,
  };
}

/**
 * attachNodes for a whole plan tree: `json` made with `--no-nodes`, given
 * back the `nodes` of `full`, an earlier plan of the same model with them,
 * in the main graph and in every body (`subgraphs[k].plan`, matched by index,
 * node and attribute: the list depends on the model only). Returns new
 * objects; `json` is not modified.
 */
export function attachNodeTree(json, full) {
  if (!json || typeof json !== 'object' || !full || typeof full !== 'object') return json;
  let out = Array.isArray(full.nodes) ? attachNodes(json, full.nodes) : json;
  const subs = json.subgraphs,
    fsubs = full.subgraphs;
  if (!Array.isArray(subs) || !Array.isArray(fsubs) || !subs.length) return out;
  const next = subs.map((e, k) => {
    const f = fsubs[k];
    if (!e?.plan || !f?.plan || f.node !== e.node || f.attribute !== e.attribute) return e;
    return { ...e, plan: attachNodeTree(e.plan, f.plan) };
  });
  if (out === json) out = { ...json };
  out.subgraphs = next;
  return out;
}

/** A body of a plan tree: `{index, node, attribute}` steps from the main graph (index: in the parent's `subgraphs`). */
const stepMatches = (e, s) => e && e.node === s.node && e.attribute === s.attribute;

/**
 * The body at `path` (steps {index, node, attribute}) of plan document
 * `json`: {plan, entry, entries} (entries: the steps' subgraph entries, from
 * the main graph down), or null when a step is not there. A step whose index
 * no longer matches is found by node and attribute.
 */
export function planAt(json, path) {
  let plan = json;
  const entries = [];
  for (const s of path ?? []) {
    const subs = Array.isArray(plan?.subgraphs) ? plan.subgraphs : [];
    const e = stepMatches(subs[s.index], s) ? subs[s.index] : subs.find((x) => stepMatches(x, s));
    if (!e?.plan) return null;
    entries.push(e);
    plan = e.plan;
  }
  return { plan, entry: entries.at(-1) ?? null, entries };
}

/** The path steps back from planAt: [{index, node, attribute}] for entries at `indices` from the main graph. */
export function stepOf(parent, index) {
  const e = parent?.subgraphs?.[index];
  return e ? Object.freeze({ index, node: String(e.node ?? ''), attribute: String(e.attribute ?? '') }) : null;
}

/** The bodies of node `node` in `plan` (one per graph attribute: an If's two branches), as [{index, entry}]. */
export function bodiesOf(plan, node) {
  const out = [];
  (Array.isArray(plan?.subgraphs) ? plan.subgraphs : []).forEach((e, index) => {
    if (e?.node === node) out.push({ index, entry: e });
  });
  return out;
}

/** How a body is told: "If 'n' then_branch (branch taken)". */
export function bodyLabel(e) {
  const taken =
    e.branch_taken === true
      ? ' (branch taken)'
      : e.branch_taken === false
        ? ' (branch not taken)'
        : e.op_type === 'If'
          ? ' (condition not known)'
          : '';
  return `${e.op_type ?? ''} '${e.node}' ${e.attribute}${taken}`;
}

/**
 * What a plan tree assumed rather than knew, for the note beside the headline
 * figures: [{kind: 'order'|'workspace'|'float16'|'branch'|'trips'|'qdq', text, path}]. 'order': the
 * main graph planned in the file order where ONNX Runtime runs its nodes in
 * another with another lower bound (`onnxruntime_order`). 'workspace': the
 * main graph's kernel workspace (`kernel_workspace`, memplan/workspace.h: the
 * scratch memory ONNX Runtime's CPU kernels allocate while they run, one
 * intra-op thread): left out of an arena plan where adding it at each node's
 * position raises the lower bound (its `lower_bound_bytes` above the plan's),
 * or planned (`included`, `plan --workspace`) at its `nodes` nodes; `included`
 * and `nodes` in the entry. 'float16': float16 nodes that ONNX Runtime's CPU
 * execution provider runs in float32 (`onnxruntime_float16`; `nodes` in the
 * entry, `included` false), or the plan is of the graph it runs
 * (`onnxruntime_cpu_graph`, `plan --float16-cpu`: `included` true, `nodes` its
 * float32 nodes). 'branch': an If whose
 * condition is not known, planned with its larger branch (the C library's
 * `assumption` of a body's transient; a workspace's transient, kind
 * 'workspace', is none); 'trips': a trip-count dim (`trips_…`) left unbound; 'qdq': a
 * graph's QDQ node units (`qdq_units`, memplan/qdq.h: `units` in the entry),
 * planned as written where ONNX Runtime fuses them, or fused as it does
 * (`qdq_fused` of them, `plan --fuse-qdq`; `fused`), on x86-64 or where int8
 * QDQ is allowed (`qdq_int8`, `plan --qdq-int8`; `int8`), and the units of the
 * other platform (`qdq_units_other`; `other`): an entry also when only the
 * other platform has units. Walks every counted body, main graph first.
 */
function qdqText(n, fused, other, int8) {
  const where = int8 ? 'where int8 QDQ is allowed (as on ARM64)' : 'on x86-64';
  const elsewhere = int8 ? 'on x86-64' : 'where int8 QDQ is allowed (as on ARM64)';
  const unitsOf = (k) => `${k} DequantizeLinear → op → QuantizeLinear unit${k === 1 ? '' : 's'}`;
  if (!n)
    return `no DequantizeLinear → op → QuantizeLinear unit that ONNX Runtime fuses ${where}; ${unitsOf(other)} ${elsewhere}`;
  const tail = other !== n ? `; ${elsewhere}, ${other} unit${other === 1 ? '' : 's'}` : '';
  const runs = `as ONNX Runtime's CPU execution provider runs them ${where}: the op reads and writes the quantized tensors`;
  if (!fused)
    return (
      `${unitsOf(n)} planned as written (float values between them); ONNX Runtime's CPU execution provider fuses ` +
      `such units ${where} into int8 ops, so it may need less (“QDQ fused” plans them so)${tail}`
    );
  const rest = n - fused;
  return fused === n
    ? `${unitsOf(n)} planned fused, ${runs}${tail}`
    : `${unitsOf(n)}: ${fused} planned fused, ${runs}; ${rest} as written (${rest === 1 ? 'its' : 'their'} ` +
        `QuantizeLinear output is an If branch's output)${tail}`;
}

/** The note on ONNX Runtime's order beside a plan in the file order (the
 *  main graph's `onnxruntime_order`: positions moved and the lower bound
 *  there), or null when it runs the file's order, the bound is the same, or
 *  the plan is not an arena plan (whose lower bound it compares with). */
function ortOrderText(json) {
  const o = json.onnxruntime_order;
  const here = json.lower_bound_bytes;
  if (!o || !Number.isInteger(o.moved) || o.moved <= 0 || !Number.isFinite(o.lower_bound_bytes)) return null;
  if ((json.strategy ?? 'arena') !== 'arena' || !Number.isFinite(here) || here <= 0 || o.lower_bound_bytes === here)
    return null;
  const there = o.lower_bound_bytes;
  const pct = ((Math.abs(there - here) / here) * 100).toFixed(1);
  const b = formatBytesExact;
  return (
    `the file's node order; ONNX Runtime runs them in another (${formatInt(o.moved)} of ` +
    `${formatInt(json.positions)} positions move), where the lower bound is ${b(there)}, ${pct}% ` +
    `${there > here ? 'above' : 'below'} this plan's (the order “ONNX Runtime's” plans it)`
  );
}

/** The note on the kernels' scratch memory (the main graph's
 *  `kernel_workspace`): planned (included), or left out where it raises an
 *  arena plan's lower bound; null when no node takes any, the plan is
 *  deferred (null), or, left out, the bound is the same or the plan is not an
 *  arena plan. */
function workspaceText(json) {
  const w = json.kernel_workspace;
  if (!w || typeof w !== 'object' || !Number.isInteger(w.nodes) || w.nodes <= 0) return null;
  const b = formatBytesExact;
  const nodes = `${formatInt(w.nodes)} node${w.nodes === 1 ? '' : 's'}`;
  const largest =
    typeof w.largest_node === 'string' && Number.isFinite(num(w.largest_bytes))
      ? `the largest ${b(w.largest_bytes)} at '${w.largest_node}' (${str(w.largest_op_type) || 'node'}` +
        `${typeof w.largest_what === 'string' && w.largest_what ? `: ${w.largest_what}` : ''})`
      : '';
  if (w.included === true)
    return (
      `the scratch memory ONNX Runtime's CPU kernels take (one intra-op thread), planned at ${nodes}` +
      (largest ? `: ${largest}` : '')
    );
  const here = json.lower_bound_bytes,
    there = w.lower_bound_bytes;
  if ((json.strategy ?? 'arena') !== 'arena' || !Number.isFinite(here) || here <= 0 || !Number.isFinite(there))
    return null;
  if (there <= here) return null;
  const rise = ((there - here) / here) * 100;
  const pct = rise < 0.05 ? 'under 0.1' : rise.toFixed(1); // above, but by less than the digit shows
  return (
    `kernels take no scratch memory; ONNX Runtime's CPU kernels take some at ${nodes}` +
    (largest ? `, ${largest}` : '') +
    `, where the lower bound is ${b(there)}, ${pct}% above this plan's (“Kernel workspace” plans it)`
  );
}

/** The note on float16 tensors that ONNX Runtime's CPU execution provider
 *  computes in float32 (the main graph's `onnxruntime_float16`: the nodes of
 *  the main graph and its counted bodies, their op types, most first, the
 *  weights it keeps then, float32 copies included, and the planned peak of the
 *  graph it runs, in ONNX Runtime's order too, when known), or null when
 *  there are none. */
function float16Text(json) {
  const f = json.onnxruntime_float16;
  if (!f || typeof f !== 'object' || !Number.isInteger(f.nodes) || f.nodes <= 0) return null;
  const ops = (Array.isArray(f.ops) ? f.ops : []).filter((o) => typeof o === 'string');
  const list = ops.length ? ` (${ops.join(', ')}${ops.length === 8 ? ', …' : ''})` : '';
  const kept = num(f.weight_bytes);
  const written = num(json.weights?.bytes);
  const weights =
    Number.isFinite(kept) && Number.isFinite(written) && kept !== written
      ? `; its weights then ${formatBytesExact(kept)}, against ${formatBytesExact(written)} as written`
      : '';
  // The graph it runs (plan --float16-cpu), planned with the same options.
  const peak = num(f.peak_bytes);
  const ortOrder = num(f.onnxruntime_order_lower_bound_bytes);
  const runs = Number.isFinite(peak)
    ? `; the graph it runs plans at ${formatBytesExact(peak)}` +
      (Number.isFinite(ortOrder) && ortOrder !== peak
        ? `, ${formatBytesExact(ortOrder)} in ONNX Runtime's order`
        : '') +
      ' (“float16 on the CPU” plans it)'
    : '';
  return (
    `float16 tensors as written; ONNX Runtime's CPU execution provider (x86-64) runs ${formatInt(f.nodes)} ` +
    `float16 node${f.nodes === 1 ? '' : 's'} in float32${list}, casting their inputs, weights and outputs: ` +
    `float32 copies this plan does not hold${weights}${runs}`
  );
}

/** The note on a plan of the graph ONNX Runtime's CPU execution provider runs
 *  (the main graph's `onnxruntime_cpu_graph`, plan --float16-cpu): its nodes
 *  run in float32 (all graphs), the Casts it adds and the file's own it drops;
 *  null for a plan of the file's graph, or when the two graphs are the same. */
function cpuGraphText(json) {
  const g = json.onnxruntime_cpu_graph;
  if (!g || typeof g !== 'object') return null;
  const n = (v) => (Number.isInteger(v) && v > 0 ? v : 0);
  const [nodes, casts, dropped] = [n(g.float32_nodes), n(g.casts), n(g.casts_removed)];
  if (!nodes && !casts && !dropped) return null;
  return (
    `the graph ONNX Runtime's CPU execution provider runs: ${formatInt(nodes)} node${nodes === 1 ? '' : 's'} in ` +
    `float32, ${formatInt(casts)} Cast${casts === 1 ? '' : 's'} added, ${formatInt(dropped)} of the file's ` +
    `Casts dropped`
  );
}

export function planAssumptions(json) {
  const out = [];
  const ort = json && typeof json === 'object' ? ortOrderText(json) : null;
  if (ort) out.push({ kind: 'order', path: [], node: '', text: ort });
  const ws = json && typeof json === 'object' ? workspaceText(json) : null;
  if (ws)
    out.push({
      kind: 'workspace',
      path: [],
      node: '',
      included: json.kernel_workspace.included === true,
      nodes: json.kernel_workspace.nodes,
      text: ws,
    });
  const f16 = json && typeof json === 'object' ? float16Text(json) : null;
  if (f16)
    out.push({
      kind: 'float16',
      path: [],
      node: '',
      included: false,
      nodes: json.onnxruntime_float16.nodes,
      text: f16,
    });
  const cpu = json && typeof json === 'object' ? cpuGraphText(json) : null;
  if (cpu)
    out.push({
      kind: 'float16',
      path: [],
      node: '',
      included: true,
      nodes: json.onnxruntime_cpu_graph.float32_nodes,
      text: cpu,
    });
  const seenTrips = new Set();
  const walk = (plan, path) => {
    if (!plan || typeof plan !== 'object') return;
    for (const t of Array.isArray(plan.transients) ? plan.transients : []) {
      if (t?.kind === 'workspace' || typeof t?.assumption !== 'string') continue; // a kernel's workspace: no branch
      const taken = (plan.subgraphs ?? []).find((e) => e?.node === t.node && e.counted);
      out.push({
        kind: 'branch',
        path,
        node: t.node,
        text: `${t.op_type ?? 'If'} '${t.node}': ${t.assumption}${taken ? ` (${taken.attribute})` : ''}`,
      });
    }
    const n = Number.isInteger(plan.qdq_units) && plan.qdq_units > 0 ? plan.qdq_units : 0;
    const other = Number.isInteger(plan.qdq_units_other) && plan.qdq_units_other >= 0 ? plan.qdq_units_other : n;
    if (n || other) {
      const fused = Number.isInteger(plan.qdq_fused) ? Math.min(Math.max(plan.qdq_fused, 0), n) : 0;
      const int8 = plan.qdq_int8 === true;
      out.push({ kind: 'qdq', path, node: '', units: n, fused, other, int8, text: qdqText(n, fused, other, int8) });
    }
    for (const d of Array.isArray(plan.unknown?.dims) ? plan.unknown.dims : []) {
      if (typeof d === 'string' && d.startsWith('trips_') && !seenTrips.has(d)) {
        seenTrips.add(d);
        out.push({ kind: 'trips', path, node: d, text: `the trip count ${d} is not bound (set it with the dims)` });
      }
    }
    (Array.isArray(plan.subgraphs) ? plan.subgraphs : []).forEach((e, k) => {
      if (e?.counted) walk(e.plan, [...path, stepOf(plan, k)]);
    });
  };
  walk(json, []);
  return out;
}

/**
 * The values inside bodies whose names `test` accepts, grouped per body:
 * [{path, label, count, plan}] in tree order (the main graph itself is left
 * out: its table shows its own matches). For the table's search.
 */
export function searchBodies(json, test) {
  const out = [];
  const walk = (plan, path, labels) => {
    (Array.isArray(plan?.subgraphs) ? plan.subgraphs : []).forEach((e, k) => {
      if (!e?.plan) return;
      const p = [...path, stepOf(plan, k)];
      const l = [...labels, bodyLabel(e)];
      let count = 0;
      for (const v of Array.isArray(e.plan.values) ? e.plan.values : [])
        if (typeof v?.name === 'string' && test(v.name)) count++;
      for (const t of Array.isArray(e.plan.transients) ? e.plan.transients : [])
        if (typeof t?.node === 'string' && test(t.node)) count++;
      if (count) out.push({ path: p, label: l.join(' › '), count });
      walk(e.plan, p, l);
    });
  };
  walk(json, [], []);
  return out;
}
