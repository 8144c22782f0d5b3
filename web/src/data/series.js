// series.js -- per-position series and per-slot rows derived from a PlanModel
// (plan.js). Pure functions; all arrays are typed and indexed by position.
import { alignUp, normalizeNodes, sortByKey } from './plan.js';
import { formatShape } from './format.js';

/**
 * Memory over time. For every position p (0..positions-1):
 *   live[p]         sum of the raw sizes of the buffers (owners) live at p
 *   liveAligned[p]  the same with sizes rounded up to the alignment
 *   liveBound[p]    live bytes on the lower bound's basis (m.boundAlign): the
 *                   aligned sizes for arena plans, the raw ones for slot plans
 *                   (slot capacities are raw); its maximum is the CLI's
 *                   lower_bound_bytes, the bound no plan of the strategy beats
 *                   (the same array as liveAligned or live, not a copy)
 *   extent[p]       the highest byte in use at p: max offset + aligned size of
 *                   the live buffers (0 when nothing is live or placed); for
 *                   arena plans its maximum is peak_bytes (slot plans report
 *                   the raw sum of slot capacities instead)
 *   naive[p]        a naive allocator that never frees: bytes allocated by p
 *                   (aligned sizes for the arena strategy, raw for slots, as
 *                   the CLI's naive_bytes; a control-flow node's body at its
 *                   own naive total, the transient's naive_bytes)
 *   count[p]        buffers live at p
 *   unknown[p]      buffers live at p whose size is unknown (deferred plans)
 * Owners with an unknown size count in `count` and `unknown` only.
 * Also: maxLive, maxLiveAligned, maxLiveBound, maxExtent, peakPositions (where
 * liveBound is largest), partial (some live size unknown). The figures the
 * page shows come from the plan JSON; these series draw them over time.
 */
export function memorySeries(m) {
  const P = m.positions;
  const dLive = new Float64Array(P + 1);
  const dAligned = new Float64Array(P + 1);
  const dNaive = new Float64Array(P + 1);
  const dCount = new Int32Array(P + 1);
  const dUnknown = new Int32Array(P + 1);
  const naiveAligned = m.strategy !== 'slots';
  const tops = [];
  for (let i = 0; i < m.n; i++) {
    if (m.owner[i] !== i) continue;
    const s = m.start[i],
      e = m.end[i] + 1;
    dCount[s]++;
    dCount[e]--;
    const sz = m.size[i];
    if (Number.isNaN(sz)) {
      dUnknown[s]++;
      dUnknown[e]--;
      continue;
    }
    const a = m.alignedSize[i];
    dLive[s] += sz;
    dLive[e] -= sz;
    dAligned[s] += a;
    dAligned[e] -= a;
    // a transient's naive share is its body's naive total (+ state), as the plan's naive_bytes counts it
    const tn = i >= m.nValues && m.transientNaive ? m.transientNaive[i - m.nValues] : NaN;
    dNaive[s] += !Number.isNaN(tn) ? tn : naiveAligned ? a : sz;
    if (!Number.isNaN(m.offset[i])) tops.push(i);
  }
  const live = new Float64Array(P),
    liveAligned = new Float64Array(P),
    naive = new Float64Array(P);
  const count = new Int32Array(P),
    unknown = new Int32Array(P);
  let l = 0,
    la = 0,
    nv = 0,
    c = 0,
    u = 0;
  let maxLive = 0,
    maxLiveAligned = 0,
    partial = false;
  for (let p = 0; p < P; p++) {
    l += dLive[p];
    la += dAligned[p];
    nv += dNaive[p];
    c += dCount[p];
    u += dUnknown[p];
    live[p] = l;
    liveAligned[p] = la;
    naive[p] = nv;
    count[p] = c;
    unknown[p] = u;
    if (l > maxLive) maxLive = l;
    if (la > maxLiveAligned) maxLiveAligned = la;
    if (u > 0) partial = true;
  }
  const rawBound = m.boundAlign === 1;
  const liveBound = rawBound ? live : liveAligned;
  const maxLiveBound = rawBound ? maxLive : maxLiveAligned;
  const peakPositions = [];
  if (maxLiveBound > 0) for (let p = 0; p < P; p++) if (liveBound[p] === maxLiveBound) peakPositions.push(p);

  // extent[p] = max over live buffers of offset+size: each buffer raises the
  // O(log P) nodes of a segment tree that cover [start, end] to its top, and
  // the tags are pushed down to the leaves once. O(n log P), typed arrays only.
  const extent = new Float64Array(P);
  let leaves = 1;
  while (leaves < P) leaves *= 2;
  const tag = new Float64Array(2 * leaves);
  for (const i of tops) {
    const t = m.offset[i] + m.alignedSize[i];
    for (let l = m.start[i] + leaves, r = m.end[i] + 1 + leaves; l < r; l >>= 1, r >>= 1) {
      if (l & 1) {
        if (tag[l] < t) tag[l] = t;
        l++;
      }
      if (r & 1) {
        r--;
        if (tag[r] < t) tag[r] = t;
      }
    }
  }
  for (let k = 1; k < leaves; k++) {
    if (tag[2 * k] < tag[k]) tag[2 * k] = tag[k];
    if (tag[2 * k + 1] < tag[k]) tag[2 * k + 1] = tag[k];
  }
  for (let p = 0; p < P; p++) extent[p] = tag[leaves + p];
  let maxExtent = 0;
  for (let p = 0; p < P; p++) if (extent[p] > maxExtent) maxExtent = extent[p];
  return {
    positions: P,
    live,
    liveAligned,
    liveBound,
    extent,
    naive,
    count,
    unknown,
    maxLive,
    maxLiveAligned,
    maxLiveBound,
    maxExtent,
    peakPositions,
    partial,
  };
}

/**
 * Slot occupancy: one row per slot (slot plans; empty for arena plans), and
 * the owners placed in each as columnar segments.
 * rows: [{id, capacity, offset, used (owners), busy (positions occupied),
 *         utilisation (sum size*len / (capacity*positions))}] in slot id order.
 * segments: {n, row: Int32Array, start, end: Int32Array, size: Float64Array,
 *            fill: Float64Array (size/capacity), value: Int32Array}
 */
export function slotOccupancy(m) {
  const rows = m.slots
    .slice()
    .sort((a, b) => a.id - b.id)
    .map((s) => ({ id: s.id, capacity: s.capacity, offset: s.offset, used: 0, busy: 0, utilisation: 0 }));
  const rowOf = new Map(rows.map((r, k) => [r.id, k]));
  // Each owner's row (slot order), then the owners by row, start and index (two counting sorts).
  const rowIx = new Int32Array(m.n).fill(-1);
  let n = 0;
  for (let i = 0; i < m.n; i++) {
    const r = m.owner[i] === i ? rowOf.get(m.slot[i]) : undefined;
    if (r !== undefined) {
      rowIx[i] = r;
      n++;
    }
  }
  let idx = new Int32Array(n);
  for (let i = 0, k = 0; i < m.n; i++) if (rowIx[i] >= 0) idx[k++] = i;
  idx = sortByKey(sortByKey(idx, m.start, m.positions), rowIx, rows.length);
  const seg = {
    n,
    row: new Int32Array(n),
    start: new Int32Array(n),
    end: new Int32Array(n),
    size: new Float64Array(n),
    fill: new Float64Array(n),
    value: idx,
  };
  const byteSteps = new Float64Array(rows.length);
  for (let k = 0; k < n; k++) {
    const i = idx[k],
      r = rowIx[i],
      row = rows[r];
    const sz = Number.isNaN(m.size[i]) ? 0 : m.size[i];
    const len = m.end[i] - m.start[i] + 1;
    seg.row[k] = r;
    seg.start[k] = m.start[i];
    seg.end[k] = m.end[i];
    seg.size[k] = sz;
    seg.fill[k] = row.capacity > 0 ? sz / row.capacity : 0;
    row.used++;
    row.busy += len;
    byteSteps[r] += sz * len;
  }
  for (let r = 0; r < rows.length; r++) {
    const denom = rows[r].capacity * m.positions;
    rows[r].utilisation = denom > 0 ? byteSteps[r] / denom : 0;
  }
  return { rows, segments: seg };
}

/**
 * Per-node rows, one per position (the p-th node in topological order). With
 * the plan JSON's `nodes` (m.nodes) each row carries the node's name, op,
 * domain, inputs and outputs as the CLI lists them; without it (older builds,
 * bare plan documents) `outputs` falls back to the values that start at p.
 * Per row:
 *   {position, name, op, domain, inputs: [names], outputs: [names],
 *    allocated (raw bytes of the owners whose interval starts here), freed (raw
 *    bytes of the owners whose last use is here), live, liveAligned, liveBound,
 *    extent, count, unknown}
 * `nodes` (optional) overrides m.nodes: [{name, op_type, inputs?, outputs?}];
 * a node without an `outputs` list gets the values that start at its position.
 */
export function nodeRows(m, series = memorySeries(m), nodes = null) {
  const list = Array.isArray(nodes) ? normalizeNodes(nodes) : (m.nodes ?? []);
  const present = (a) => a.filter((x) => x !== '');
  const rows = [];
  for (let p = 0; p < m.positions; p++) {
    const nd = list[p];
    rows.push({
      position: p,
      name: nd ? nd.name : '',
      op: nd ? nd.op : '',
      domain: nd ? nd.domain : '',
      inputs: nd ? present(nd.inputs) : [],
      outputs: nd && nd.outputs ? present(nd.outputs) : null,
      allocated: 0,
      freed: 0,
      live: series.live[p],
      liveAligned: series.liveAligned[p],
      liveBound: series.liveBound[p],
      extent: series.extent[p],
      count: series.count[p],
      unknown: series.unknown[p],
    });
  }
  // Rows whose node lists no outputs show the values that start there.
  const fallback = Uint8Array.from(rows, (r) => (r.outputs === null ? 1 : 0));
  for (const r of rows) if (r.outputs === null) r.outputs = [];
  for (let i = 0; i < m.n; i++) {
    const r = rows[m.start[i]];
    if (!r) continue;
    if (fallback[r.position]) r.outputs.push(m.names[i]);
    if (m.owner[i] !== i || Number.isNaN(m.size[i])) continue;
    r.allocated += m.size[i];
    rows[m.end[i]].freed += m.size[i];
  }
  return rows;
}

/**
 * Per-value rows for the table: {index, name, dtype ('' if not given), shape
 * (text, formatShape: dims bound by the plan's --dim), size (null if unknown),
 * start, end, length, owner, view, slot (null), offset (null), status}. size
 * and offset are exact: a BigInt beyond 2^53 (m.exactSize, exact.js).
 * status: 'unknown: <reason>' | 'unplanned' | 'view' | '' (planned buffer) |
 * 'body memory (If)' (a control-flow node's transient) | 'workspace (Conv: the im2col of its input (uint8))'
 * (a kernel's workspace: its op type and what the kernel allocates); ': not known' appended to
 * either when its size is not.
 */
export function valueRows(m) {
  const transientText = (t) =>
    t.kind === 'workspace'
      ? `workspace (${t.op_type ?? 'node'}${typeof t.what === 'string' && t.what ? `: ${t.what}` : ''})`
      : `body memory (${t.op_type ?? 'node'})`;
  const rows = new Array(m.n);
  const unplanned = new Set(m.unplanned.map((u) => u.name));
  for (let i = 0; i < m.n; i++) {
    const name = m.names[i];
    const reason = m.unknownReason.get(name);
    rows[i] = {
      index: i,
      name,
      dtype: m.dtype?.[i] ?? '',
      shape: m.shape?.[i] === undefined || m.transient(i) ? '' : formatShape(m.shape[i]),
      size: m.exactSize(i),
      start: m.start[i],
      end: m.end[i],
      length: m.end[i] - m.start[i] + 1,
      owner: m.names[m.owner[i]],
      view: m.view[i] === 1,
      slot: m.slot[i] >= 0 ? m.slot[i] : null,
      offset: m.exactOffset(i),
      status: m.transient(i)
        ? `${transientText(m.transients[i - m.nValues])}${Number.isNaN(m.size[i]) ? ': not known' : ''}`
        : reason !== undefined
          ? `unknown: ${reason}`
          : unplanned.has(name)
            ? 'unplanned'
            : m.view[i]
              ? 'view'
              : '',
    };
  }
  return rows;
}

/** The table's search as a predicate on text: {test, error} (a pattern that is not a regular expression matches as text). */
export function patternTest(pattern) {
  try {
    const re = new RegExp(pattern, 'i');
    return { test: (s) => re.test(s), error: null };
  } catch (e) {
    const needle = pattern.toLowerCase();
    return { test: (s) => s.toLowerCase().includes(needle), error: e.message };
  }
}

/**
 * Filter rows whose `name` (or, for node rows, outputs/op) matches a regular
 * expression given as text. An invalid pattern falls back to a
 * case-insensitive substring match. Returns {rows, error}.
 */
export function filterRows(rows, pattern, fields = ['name']) {
  if (!pattern) return { rows, error: null };
  const { test, error } = patternTest(pattern);
  const out = rows.filter((r) =>
    fields.some((f) => {
      const v = r[f];
      return Array.isArray(v) ? v.some((x) => test(String(x))) : v !== undefined && v !== null && test(String(v));
    }),
  );
  return { rows: out, error };
}

/** Stable sort of rows by key; nulls last in either direction. */
export function sortRows(rows, key, dir = 1) {
  const val = (r) => (Array.isArray(r[key]) ? r[key].join(' ') : r[key]);
  return rows
    .map((r, k) => [r, k])
    .sort(([a, ka], [b, kb]) => {
      const x = val(a),
        y = val(b);
      if (x === y) return ka - kb;
      if (x === null || x === undefined || x === '') return 1;
      if (y === null || y === undefined || y === '') return -1;
      // Counts may be BigInts beyond 2^53 (exact.js): < compares them with Numbers exactly.
      if ((typeof x === 'number' || typeof x === 'bigint') && (typeof y === 'number' || typeof y === 'bigint'))
        return (x < y ? -1 : 1) * dir;
      return (String(x) < String(y) ? -1 : 1) * dir;
    })
    .map(([r]) => r);
}

/**
 * An index of intervals [start[i], end[i]] (inclusive positions) for culling
 * by a visible x range: the kept indices grouped by length class (end - start
 * = 0, 1, 2-3, 4-7, ...; class c holds lengths up to 2^c - 1), each class
 * sorted by start (then index). A query binary-searches each class for the
 * starts in [d0 - 1 - maxLen(c), d1], so it reads about the intervals it
 * returns, not all n. Built in O(n + positions) (counting sort).
 * keep(i) -> bool picks the indexed intervals (default: all).
 * Returns {n, order: Int32Array (indices), starts: Int32Array (start of
 * order[k]), classOffset: Int32Array(34) (class c is order[classOffset[c] ..
 * classOffset[c+1]))}.
 */
export function intervalIndex(start, end, keep = null) {
  const N = start.length;
  let P = 0,
    n = 0;
  for (let i = 0; i < N; i++) {
    if (keep && !keep(i)) continue;
    n++;
    if (start[i] + 1 > P) P = start[i] + 1;
  }
  const cnt = new Int32Array(P + 1);
  const classCnt = new Int32Array(34);
  const cls = (i) => 32 - Math.clz32(Math.max(0, end[i] - start[i]));
  for (let i = 0; i < N; i++) {
    if (keep && !keep(i)) continue;
    cnt[start[i] + 1]++;
    classCnt[cls(i) + 1]++;
  }
  for (let p = 0; p < P; p++) cnt[p + 1] += cnt[p];
  const byStart = new Int32Array(n);
  for (let i = 0; i < N; i++) if (!keep || keep(i)) byStart[cnt[start[i]]++] = i;
  const classOffset = new Int32Array(34);
  for (let c = 0; c < 33; c++) classOffset[c + 1] = classOffset[c] + classCnt[c + 1];
  const fill = classOffset.slice();
  const order = new Int32Array(n),
    starts = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const i = byStart[k],
      at = fill[cls(i)]++;
    order[at] = i;
    starts[at] = start[i];
  }
  return { n, order, starts, classOffset };
}

/** First k in [lo, hi) with a[k] >= v (hi if none). */
function lowerBound(a, lo, hi, v) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The indexed intervals that meet the x range [d0, d1] in positions, as the
 * charts draw them: interval i covers [start[i], end[i] + 1), so it is kept
 * unless end[i] + 1 < d0 or start[i] > d1. Writes their indices to `out`
 * (an Int32Array of at least ix.n) by class, then start; returns the count.
 */
export function queryIntervals(ix, start, end, d0, d1, out) {
  let count = 0;
  const { order, starts, classOffset } = ix;
  for (let c = 0; c < 33; c++) {
    const a = classOffset[c],
      b = classOffset[c + 1];
    if (a === b) continue;
    const maxLen = c === 0 ? 0 : 2 ** c - 1;
    // end + 1 >= d0 with end <= start + maxLen needs start >= d0 - 1 - maxLen.
    const lo = lowerBound(starts, a, b, Math.ceil(d0 - 1 - maxLen));
    for (let k = lo; k < b; k++) {
      if (starts[k] > d1) break;
      const i = order[k];
      if (end[i] + 1 < d0) continue;
      out[count++] = i;
    }
  }
  return count;
}

/**
 * The buffers live at position p of plan model m, as `at_peak` lists them:
 * [{name, transient, workspace, bytes, share, op_type, node, dtype, shape}], largest
 * (bytes exact: a BigInt beyond 2^53, exact.js)
 * first (equal sizes in placement order), share = the buffer's size on the lower bound's basis
 * (m.boundAlign) over lower_bound_bytes. Buffers of unknown size are left
 * out. producer(name) -> the node that makes a value ({name, op}) or null.
 */
export function liveAt(m, p, producer) {
  const out = [];
  for (let i = 0; i < m.n; i++) {
    if (m.owner[i] !== i || m.start[i] > p || m.end[i] < p || Number.isNaN(m.size[i])) continue;
    const t = m.transient(i) ? m.transients[i - m.nValues] : null;
    const nd = t ? null : producer(m.names[i]);
    const share = m.lowerBound ? alignUp(m.size[i], m.boundAlign) / m.lowerBound : 0;
    out.push({
      name: m.names[i],
      transient: !!t,
      workspace: t?.kind === 'workspace',
      bytes: m.exactSize(i) ?? m.size[i],
      share: Number(share.toPrecision(6)),
      op_type: t ? (t.op_type ?? null) : (nd?.op ?? null),
      node: t ? t.node : (nd?.name ?? null),
      dtype: m.dtype[i] || null,
      shape: t ? null : (m.shape[i] ?? null),
    });
  }
  return out.sort((a, b) => (a.bytes === b.bytes ? 0 : a.bytes < b.bytes ? 1 : -1)); // stable: equal sizes in placement order, as the CLI lists them
}
