// profile.js -- pure functions over the `profile --json` and `inplace --json`
// documents (one JSON shape for both: nodes[] with `reuse` and `profile`) and
// the plan's `nodes`: memory over time stacked by bucket and tag, in-place
// reuse pairs by value name, and a value's producer and consumers. No DOM.

/** The profile buckets, bottom to top of the stack. */
export const BUCKETS = ['inputs', 'initializers', 'intermediates', 'outputs'];

/**
 * The profile document of the body at `path` (the plan's path steps
 * {node: name, attribute}; see plan.js planAt), or null when the document has
 * no such body. A body's entry in `subgraphs` carries the node's name as
 * `name` (its `node` is the node's index) and the same `nodes`/`values` as
 * the main graph's document.
 */
export function profileAt(json, path) {
  let doc = json;
  for (const s of path ?? []) {
    const subs = Array.isArray(doc?.subgraphs) ? doc.subgraphs : [];
    doc = subs.find((e) => e?.name === s.node && e?.attribute === s.attribute) ?? null;
    if (!doc) return null;
  }
  return doc;
}

// The document's two forms: `nodes` as a list of node objects, or (`--columns`)
// one object of columns: {count, reuse: [[index, output_index, input_index,
// kind]], profile: {bucket: {tag: [amount per node index]}}} (a body's entry
// too, which has no `columns` flag of its own).
const isColumns = (json) => !!json?.nodes && typeof json.nodes === 'object' && !Array.isArray(json.nodes);
const nodeCount = (json) =>
  isColumns(json)
    ? Number.isInteger(json.nodes.count)
      ? json.nodes.count
      : 0
    : Array.isArray(json?.nodes)
      ? json.nodes.length
      : 0;

/** fn(index, bucket index, tag, amount) for each profile amount of the document,
 *  until fn returns true: node by node, or column by column (`--columns`). */
function eachAmount(json, fn) {
  if (isColumns(json)) {
    const pr = json.nodes.profile;
    for (let bi = 0; bi < BUCKETS.length; bi++) {
      const bucket = pr?.[BUCKETS[bi]];
      if (!bucket || typeof bucket !== 'object') continue;
      for (const tag in bucket) {
        const col = bucket[tag];
        if (!Array.isArray(col)) continue;
        for (let i = 0; i < col.length; i++) if (fn(i, bi, tag, col[i])) return;
      }
    }
    return;
  }
  for (const nd of json.nodes) {
    const pr = nd?.profile;
    if (!pr || typeof pr !== 'object') continue;
    for (let bi = 0; bi < BUCKETS.length; bi++) {
      const bucket = pr[BUCKETS[bi]];
      if (!bucket || typeof bucket !== 'object') continue;
      for (const tag in bucket) if (fn(nd.index, bi, tag, bucket[tag])) return;
    }
  }
}

/**
 * Memory over time stacked by bucket and tag, from the profile JSON.
 * One layer per (bucket, tag) that has a non-zero amount somewhere, in bucket
 * order (BUCKETS) then tag order (untagged "" first, then by name).
 * Returns
 *   {ok: true, positions, layers: [{key: 'bucket:tag', bucket, tag, values: Float64Array}],
 *    lower: Float64Array[] (per layer, the stack below it), upper: Float64Array[],
 *    total: Float64Array (sum of the layers; the node's total_bytes),
 *    maxTotal, partial (some amount null: counted 0)}
 * or, when some amount is an expression string (a dim is unbound),
 *   {ok: false, reason: 'symbolic', symbolic: an expression seen (the first in
 *   the document's order: node by node, or column by column)}
 * or {ok: false, reason: 'empty'} for a document without nodes.
 * `positions` (optional) is the plan's position count: profile nodes are
 * placed by their `index` (the topological position); missing ones are 0.
 */
export function profileSeries(json, positions = null) {
  const n = nodeCount(json);
  if (!n) return { ok: false, reason: 'empty' };
  let P = Number.isInteger(positions) ? positions : 0;
  if (isColumns(json)) P = Math.max(P, n);
  else for (const nd of json.nodes) if (Number.isInteger(nd?.index) && nd.index + 1 > P) P = nd.index + 1;
  // One pass: a layer per (bucket, tag) with a non-zero amount somewhere,
  // filled as it goes (a 10k-node profile is 40k amounts: no key strings per
  // amount, no second walk).
  const byBucket = BUCKETS.map(() => new Map());
  let partial = false,
    symbolic = null;
  eachAmount(json, (p, bi, tag, a) => {
    if (typeof a === 'string') {
      symbolic = a;
      return true;
    }
    if (typeof a !== 'number' || !Number.isFinite(a)) {
      partial = true;
      return false;
    }
    if (a === 0) return false;
    let l = byBucket[bi].get(tag);
    if (!l)
      byBucket[bi].set(
        tag,
        (l = { key: `${BUCKETS[bi]}:${tag}`, bucket: BUCKETS[bi], tag, values: new Float64Array(P) }),
      );
    if (Number.isInteger(p) && p >= 0 && p < P) l.values[p] += a;
    return false;
  });
  if (symbolic !== null) return { ok: false, reason: 'symbolic', symbolic };
  const byTag = (a, b) => (a.tag === b.tag ? 0 : a.tag === '' ? -1 : b.tag === '' ? 1 : a.tag < b.tag ? -1 : 1);
  const layers = byBucket.flatMap((m) => [...m.values()].sort(byTag));
  const total = new Float64Array(P);
  const lower = [],
    upper = [];
  for (const l of layers) {
    const lo = Float64Array.from(total);
    for (let p = 0; p < P; p++) total[p] += l.values[p];
    lower.push(lo);
    upper.push(Float64Array.from(total));
  }
  let maxTotal = 0;
  for (let p = 0; p < P; p++) if (total[p] > maxTotal) maxTotal = total[p];
  return { ok: true, positions: P, layers, lower, upper, total, maxTotal, partial };
}

/**
 * In-place reuse pairs by output name, from the inplace (or profile) JSON's
 * nodes[].reuse (or its `--columns` reuse rows) and the plan's nodes (normalizeNodes: inputs/outputs by
 * position; the JSON's output_index/input_index index those lists).
 * Returns Map<outputName, {input, kind, position}>.
 */
export function reuseByOutput(json, planNodes) {
  const out = new Map();
  const add = (index, oi, ii, kind) => {
    const pn = planNodes?.[index];
    const o = pn?.outputs?.[oi];
    const i = pn?.inputs?.[ii];
    if (typeof o === 'string' && o && typeof i === 'string' && i && !out.has(o))
      out.set(o, { input: i, kind: typeof kind === 'string' ? kind : '', position: index });
  };
  if (isColumns(json)) {
    const rows = Array.isArray(json.nodes.reuse) ? json.nodes.reuse : [];
    for (const r of rows) if (Array.isArray(r)) add(r[0], r[1], r[2], r[3]);
    return out;
  }
  const nodes = Array.isArray(json?.nodes) ? json.nodes : [];
  for (const nd of nodes) {
    if (!planNodes?.[nd?.index] || !Array.isArray(nd.reuse)) continue;
    for (const r of nd.reuse) add(nd.index, r?.output_index, r?.input_index, r?.kind);
  }
  return out;
}

/** "x (equal)" for the value table's reuse column; '' when none. */
export const reuseText = (r) => (r ? `${r.input}${r.kind ? ` (${r.kind})` : ''}` : '');

/**
 * Producer and consumer positions of every value named in the plan's nodes:
 * Map<name, {producer: position|null, consumers: positions (ascending, unique)}>.
 * A graph input or initializer has producer null.
 */
export function valueLinks(planNodes) {
  const links = new Map();
  const get = (n) => {
    let l = links.get(n);
    if (!l) {
      l = { producer: null, consumers: [] };
      links.set(n, l);
    }
    return l;
  };
  (planNodes ?? []).forEach((nd, p) => {
    const pos = Number.isInteger(nd?.index) ? nd.index : p;
    for (const o of nd?.outputs ?? [])
      if (o) {
        const l = get(o);
        if (l.producer === null) l.producer = pos;
      }
    for (const i of nd?.inputs ?? [])
      if (i) {
        const l = get(i);
        if (l.consumers[l.consumers.length - 1] !== pos) l.consumers.push(pos);
      }
  });
  for (const l of links.values()) l.consumers = [...new Set(l.consumers)].sort((a, b) => a - b);
  return links;
}
