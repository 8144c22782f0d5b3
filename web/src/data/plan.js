// plan.js -- the plan JSON (`memplan plan --json`, or the WASM `call('plan')`)
// turned into columnar arrays the charts and tables draw from. Pure functions:
// no DOM, no globals. Reads defensively: fields may be missing (older or newer
// builds), sizes/offsets/slots are null in deferred plans, and unknown extra
// fields are ignored (kept in `raw`).

/** Round n up to a multiple of align (align <= 1: n). */
export function alignUp(n, align) {
  if (!(align > 1)) return n;
  return Math.ceil(n / align) * align;
}

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const int = (v, d) => (Number.isInteger(v) ? v : d);
const str = (v) => (typeof v === 'string' ? v : '');
/** A dim as the JSON gives it: an int, a name or expression string, or null. */
const dim = (d) => (Number.isInteger(d) || typeof d === 'string' ? d : null);
const names = (a) => (Array.isArray(a) ? a.map(str) : []);

/** The plan JSON's `nodes` ([{index, name, op_type, domain, inputs, outputs}]),
 *  checked: strings stay strings, missing lists are [] (outputs: null). An
 *  empty name in inputs/outputs is an omitted optional one, kept in place. */
export function normalizeNodes(nodes) {
  if (!Array.isArray(nodes)) return [];
  return nodes.map((nd, p) => {
    const o = nd && typeof nd === 'object' ? nd : {};
    return {
      index: int(o.index, p), name: str(o.name), op: str(o.op_type), domain: str(o.domain),
      inputs: names(o.inputs), outputs: Array.isArray(o.outputs) ? names(o.outputs) : null,
    };
  });
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
 *   nodes: [{index, name, op, domain, inputs: [names], outputs: [names]|null}] in
 *   position order ([] when the JSON has no `nodes`)
 * }
 */
export function normalizePlan(json) {
  if (!json || typeof json !== 'object') throw new TypeError('normalizePlan: expected a plan object');
  const values = Array.isArray(json.values) ? json.values : [];
  const n = values.length;
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
    const s = int(v.start, 0), e = int(v.end, s);
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
    shape[i] = Array.isArray(v.shape) ? v.shape.map(dim) : v.shape === null ? null : undefined;
  }
  for (let i = 0; i < n; i++) {
    const o = values[i]?.owner;
    const j = typeof o === 'string' ? index.get(o) : undefined;
    owner[i] = j === undefined ? i : j;
  }
  // Timeline rows: one per buffer owner (a value whose owner is itself),
  // ordered by start, then end, then appearance.
  const owners = [];
  for (let i = 0; i < n; i++) if (owner[i] === i) owners.push(i);
  owners.sort((a, b) => start[a] - start[b] || end[a] - end[b] || a - b);
  const rowValue = Int32Array.from(owners);
  const row = new Int32Array(n).fill(-1);
  for (let r = 0; r < owners.length; r++) row[owners[r]] = r;
  for (let i = 0; i < n; i++) if (row[i] < 0) row[i] = row[owner[i]] >= 0 ? row[owner[i]] : 0;
  const colorKey = new Int32Array(n);
  for (let i = 0; i < n; i++) colorKey[i] = slot[owner[i]] >= 0 ? slot[owner[i]] : row[owner[i]];

  const nodes = normalizeNodes(json.nodes);
  const positions = Math.max(int(json.positions, 0), maxEnd + 1, nodes.length);
  const unknown = json.unknown && typeof json.unknown === 'object' ? json.unknown : {};
  const unknownValues = Array.isArray(unknown.values) ? unknown.values.filter((u) => u && typeof u.name === 'string') : [];
  const unknownDims = Array.isArray(unknown.dims) ? unknown.dims.filter((d) => typeof d === 'string') : [];
  const unknownReason = new Map(unknownValues.map((u) => [u.name, String(u.reason ?? 'unknown')]));
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
    strategies: json.strategies && typeof json.strategies === 'object' ? json.strategies : null,
    boundAlign: json.strategy === 'slots' ? 1 : align,
    n, names: valueNames, index, start, end, size, alignedSize, offset, slot, view, owner, dtype, shape,
    row, rowCount: owners.length, rowValue, colorKey,
    slots, unknownValues, unknownDims, unknownReason,
    unplanned: Array.isArray(json.unplanned) ? json.unplanned.filter((u) => u && typeof u.name === 'string') : [],
    nodes,
  };
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
    if (k === 'unknown') { out.nodes = nodes; placed = true; }
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
    n: m.n, start: m.start, end: m.end, row: m.row, offset: m.offset, size: m.size,
    slot: m.slot, colorKey: m.colorKey, view: m.view, value,
  };
}
