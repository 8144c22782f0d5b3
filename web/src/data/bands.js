// bands.js -- the data of the active-memory chart (charts/bands.js), in the
// style of PyTorch's memory_viz: at each position the buffers live there are
// stacked, oldest first, each a band as tall as its bytes. Pure functions over
// the plan model (data/plan.js): the colour group of each buffer (its
// producer's op type, or its module: a prefix of the producer's node name
// such as `/encoder/layer.3/`), the bytes live at each position, and the
// stack at one position.
import { intervalIndex, queryIntervals } from './series.js';

/** The colour modes offered: op type, or the module at a depth of the node-name path. */
export const BAND_MODES = [
  { id: 'op', label: 'op type' },
  { id: 'module1', label: 'module, 1 level', depth: 1 },
  { id: 'module2', label: 'module, 2 levels', depth: 2 },
  { id: 'module3', label: 'module, 3 levels', depth: 3 },
];

/** The groups beyond the largest this many share one "other" colour. */
export const MAX_GROUPS = 12;

/**
 * The module of a node name at `depth` levels: '/encoder/layer.3/attn/MatMul'
 * at depth 2 is '/encoder/layer.3/'. A name without a path (no '/') is
 * '(top level)'; a path shorter than depth keeps what it has, never the
 * node's own last segment ('/MatMul' is '/').
 */
export function moduleOf(name, depth) {
  if (!name.includes('/')) return '(top level)';
  const parts = name.split('/').filter((s) => s !== '');
  const keep = parts.slice(0, Math.max(0, Math.min(depth, parts.length - 1)));
  return keep.length ? `/${keep.join('/')}/` : '/';
}

/** The group label of buffer i: its producer's op type or module; what it is when no node makes it. */
function labelOf(m, i, producer, mode) {
  // A kernel's workspace is named after its node: grouped as such, or in the node's module.
  if (m.workspace?.(i)) return mode.id === 'op' ? '(kernel workspace)' : moduleOf(m.names[i], mode.depth);
  const nd = producer(m.names[i]);
  if (!nd) return m.transient(i) ? '(body memory)' : '(graph input)';
  if (mode.id === 'op') return nd.domain && nd.domain !== 'ai.onnx' ? `${nd.domain}:${nd.op}` : nd.op;
  return moduleOf(m.transient(i) ? m.names[i] : nd.name, mode.depth);
}

/**
 * The colour group of every buffer owner with a known size. Groups are
 * ranked by their area (bytes x positions live, what the chart shows of
 * them), largest first; the first MAX_GROUPS - 1 keep their own colour and
 * the rest are one group 'other' when there are more than MAX_GROUPS.
 * producer(name) -> node {name, op, domain} or null (the controller's).
 * Returns {group: Int32Array (-1: not drawn), groups: [{label, area, count}]}.
 */
export function bandGroups(m, producer, modeId = 'op') {
  const mode = BAND_MODES.find((d) => d.id === modeId) ?? BAND_MODES[0];
  const byLabel = new Map();
  const raw = new Int32Array(m.n).fill(-1);
  const list = [];
  for (let i = 0; i < m.n; i++) {
    if (m.owner[i] !== i || Number.isNaN(m.size[i])) continue;
    const label = labelOf(m, i, producer, mode);
    let g = byLabel.get(label);
    if (g === undefined) {
      g = list.length;
      byLabel.set(label, g);
      list.push({ label, area: 0, count: 0 });
    }
    raw[i] = g;
    list[g].area += m.size[i] * (m.end[i] + 1 - m.start[i]);
    list[g].count++;
  }
  const order = list
    .map((_, g) => g)
    .sort((a, b) => list[b].area - list[a].area || (list[a].label < list[b].label ? -1 : 1));
  const rank = new Int32Array(list.length);
  order.forEach((g, r) => (rank[g] = r));
  const merged = list.length > MAX_GROUPS;
  const own = merged ? MAX_GROUPS - 1 : list.length;
  const groups = order.slice(0, own).map((g) => ({ ...list[g] }));
  if (merged) {
    const rest = { label: 'other', area: 0, count: 0, other: order.length - own };
    for (const g of order.slice(own)) {
      rest.area += list[g].area;
      rest.count += list[g].count;
    }
    groups.push(rest);
  }
  const group = new Int32Array(m.n).fill(-1);
  for (let i = 0; i < m.n; i++) if (raw[i] >= 0) group[i] = Math.min(rank[raw[i]], own);
  return { group, groups };
}

/** The bytes of the buffers with a known size live at each position (views counted once, in their owner). */
export function liveTotals(m) {
  const P = m.positions;
  const d = new Float64Array(P + 1);
  for (let i = 0; i < m.n; i++) {
    if (m.owner[i] !== i || Number.isNaN(m.size[i])) continue;
    d[m.start[i]] += m.size[i];
    d[m.end[i] + 1] -= m.size[i];
  }
  const total = new Float64Array(P);
  let run = 0,
    max = 0;
  for (let p = 0; p < P; p++) {
    run += d[p];
    total[p] = run;
    if (run > max) max = run;
  }
  return { total, max };
}

/**
 * The stack at position p: into out (an Int32Array of the model's size) the
 * owners live at p from bottom to top, oldest first (the timeline's row
 * order: by start, then end); returns how many. ix is intervalIndex(...)
 * over the owners with a known size (series.js).
 */
export function stackAt(m, ix, p, out) {
  const cnt = queryIntervals(ix, m.start, m.end, p, p, out);
  // Each owner has its own row: sort the rows (a numeric sort, no comparator
  // to call) and map them back to owners (rowValue).
  const { row, rowValue } = m;
  let k = 0;
  for (let j = 0; j < cnt; j++) {
    const i = out[j];
    if (m.start[i] <= p && p <= m.end[i]) out[k++] = row[i];
  }
  const live = out.subarray(0, k).sort();
  for (let j = 0; j < k; j++) live[j] = rowValue[live[j]];
  return k;
}

// Per plan model, made on first use: the interval index of the sized owners
// (owner of itself, size known), how many of them are live at each position,
// and a scratch array for a stack.
const stacksOf = new WeakMap();
function stacks(m) {
  let st = stacksOf.get(m);
  if (st) return st;
  const sized = (i) => m.owner[i] === i && !Number.isNaN(m.size[i]);
  const count = new Int32Array(m.positions + 1);
  for (let i = 0; i < m.n; i++)
    if (sized(i)) {
      count[m.start[i]]++;
      count[m.end[i] + 1]--;
    }
  for (let p = 1; p <= m.positions; p++) count[p] += count[p - 1];
  st = { ix: intervalIndex(m.start, m.end, sized), count, out: new Int32Array(m.n) };
  stacksOf.set(m, st);
  return st;
}

/** How many sized owners are live at position p (0 outside the plan). */
export const liveCount = (m, p) => (p >= 0 && p < m.positions ? stacks(m).count[p] : 0);

/**
 * columnBands for one position, by the per-stack loop: the stack at p
 * (stackAt, sorted) summed bottom to top. O(d log d) for a stack of d
 * buffers: cheaper than columnBands' O(rows) set-up when few positions are
 * asked for and their stacks are shallow. onBand(owner, bottom, top).
 */
export function stackBands(m, p, oy, ky, k, onBand) {
  const { ix, out } = stacks(m);
  const cnt = stackAt(m, ix, p, out);
  let sum = 0,
    yb = Math.round(oy * k);
  for (let j = 0; j < cnt; j++) {
    const i = out[j];
    sum += m.size[i];
    const yt = Math.round((oy + ky * sum) * k);
    if (yt < yb) onBand(i, yb, yt);
    yb = yt;
  }
}

// The sized owners (owner of itself, size known) by end position: made once per plan model.
const byEndOf = new WeakMap();
function sizedByEnd(m) {
  let a = byEndOf.get(m);
  if (a) return a;
  const count = new Int32Array(m.positions + 1);
  let n = 0;
  for (let i = 0; i < m.n; i++)
    if (m.owner[i] === i && !Number.isNaN(m.size[i])) {
      count[m.end[i] + 1]++;
      n++;
    }
  for (let p = 1; p <= m.positions; p++) count[p] += count[p - 1];
  a = new Int32Array(n);
  for (let i = 0; i < m.n; i++) if (m.owner[i] === i && !Number.isNaN(m.size[i])) a[count[m.end[i]]++] = i;
  byEndOf.set(m, a);
  return a;
}

/**
 * The bands one pixel tall or more of each column, as the chart draws them:
 * at position positions[c] (non-decreasing) the sized owners live there are
 * stacked in row order (stackAt), and with S the running byte sum a band's
 * edges are Math.round((oy + ky * S) * k) (device pixels, ky < 0); a band
 * whose top edge rounds to its bottom's is not drawn. Calls
 * onBand(c, owner, bottom, top) for each band drawn, bottom to top.
 *
 * Instead of sorting each column's stack (a fan-in of 100k values live at
 * once over 1,000 columns: 10^8 row comparisons), the live sizes sit in a
 * Fenwick tree over the rows, updated as the columns move right, and each
 * band drawn is found by a descent to the first row whose running sum rounds
 * to a new pixel: O(log rows) per band drawn, whatever the stack's depth.
 * The sums are of integer byte counts, so exact, and the rounding is the
 * same expression: the bands are the ones the per-stack loop gives.
 */
export function columnBands(m, positions, n, oy, ky, k, onBand) {
  if (!n) return;
  const R = m.rowCount,
    { row, rowValue, start, end, size } = m;
  const tree = new Float64Array(R + 1),
    live = new Float64Array(R); // the size each row holds at the column (0: not live)
  const sized = (i) => m.owner[i] === i && !Number.isNaN(size[i]);
  // The tree at the first column, built in O(rows).
  const q0 = positions[0];
  for (let r = 0; r < R; r++) {
    const i = rowValue[r];
    if (sized(i) && start[i] <= q0 && q0 <= end[i]) live[r] = tree[r + 1] = size[i];
  }
  for (let j = 1; j <= R; j++) {
    const up = j + (j & -j);
    if (up <= R) tree[up] += tree[j];
  }
  const add = (r, v) => {
    live[r] += v;
    for (let j = r + 1; j <= R; j += j & -j) tree[j] += v;
  };
  // Owners enter in row order (rows are sorted by start) and leave by end.
  const byEnd = sizedByEnd(m);
  let nextIn = 0,
    nextOut = 0;
  while (nextIn < R && start[rowValue[nextIn]] <= q0) nextIn++;
  while (nextOut < byEnd.length && end[byEnd[nextOut]] < q0) nextOut++;
  let top = 1;
  while (top * 2 <= R) top *= 2;
  let q = q0;
  for (let c = 0; c < n; c++) {
    const p = positions[c];
    if (p !== q) {
      for (; nextIn < R && start[rowValue[nextIn]] <= p; nextIn++) {
        const i = rowValue[nextIn];
        if (sized(i) && end[i] >= p) add(nextIn, size[i]);
      }
      // Leaving: live at q (added then) or entered and left between q and p (never added).
      for (; nextOut < byEnd.length && end[byEnd[nextOut]] < p; nextOut++) {
        const i = byEnd[nextOut];
        if (end[i] >= q && start[i] <= q) add(row[i], -size[i]);
      }
      q = p;
    }
    let yb = Math.round(oy * k);
    for (;;) {
      // The first row whose running sum rounds past yb: a descent from the
      // root (the rows before it, drawn or not, all round to yb or below).
      let at = 0,
        sum = 0;
      for (let step = top; step > 0; step >>= 1) {
        const j = at + step;
        if (j <= R && Math.round((oy + ky * (sum + tree[j])) * k) >= yb) {
          at = j;
          sum += tree[j];
        }
      }
      if (at >= R) break;
      // Row `at` (0-based): its top is the running sum through it.
      const s = sum + live[at];
      const yt = Math.round((oy + ky * s) * k);
      onBand(c, rowValue[at], yb, yt);
      yb = yt;
    }
  }
}
