// The complexity guard for the page's data functions (issue 21 item 2; the
// native half is native-tests/complexity_check.py).
//
// Each function runs on inputs of size n and 8n and its work is counted, never
// timed, so a busy machine cannot fool the guard:
//  - V8's precise block coverage (inspector, Profiler.startPreciseCoverage
//    with callCount and detailed): how many times every block of
//    web/src/ ran -- every loop iteration and every call there, deterministic
//    for the same input;
//  - the builtins that scan an array (indexOf, includes, splice, sort, ...),
//    hooked while a function runs: each adds the length of the array it
//    scans (sort: n log2 n), since their loops are not JavaScript blocks.
// growth = (W(8n) - W(1)) / (W(n) - W(1)) must stay within
// 8 * log2(8n) / log2(n) * SLACK (about 12.7 for n = 2,000; quadratic work
// gives about 64). Two controls, a quadratic loop and a quadratic indexOf,
// must come out above the bound, or the counter is blind.
import { Session } from 'node:inspector/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const N = 2000;
const SLACK = 1.25;
const allowed = (n) => ((8 * Math.log2(8 * n)) / Math.log2(n)) * SLACK;

let session;
let D; // the data modules, imported once coverage is on (so their blocks count)

beforeAll(async () => {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  D = {
    ...(await import('../web/src/data/plan.js')),
    ...(await import('../web/src/data/series.js')),
    ...(await import('../web/src/data/profile.js')),
    ...(await import('../web/src/data/export.js')),
    ...(await import('../web/src/data/synthetic.js')),
    ...(await import('../web/src/app/vtable.js')),
  };
});

afterAll(async () => {
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
});

// ---- the counter ---------------------------------------------------------

const SCANS = [
  'indexOf',
  'lastIndexOf',
  'includes',
  'find',
  'findIndex',
  'findLast',
  'findLastIndex',
  'filter',
  'map',
  'forEach',
  'some',
  'every',
  'reduce',
  'reduceRight',
  'flat',
  'flatMap',
  'slice',
  'splice',
  'concat',
  'join',
  'fill',
  'reverse',
  'shift',
  'unshift',
  'sort',
  'toSorted',
  'set',
  'subarray',
];
const TYPED = Object.getPrototypeOf(Int8Array.prototype);

/** Run fn with the scanning builtins of Array and the typed arrays counting
 * into box.steps; they are restored after. */
function withScanHooks(box, fn) {
  const saved = [];
  for (const proto of [Array.prototype, TYPED])
    for (const k of SCANS) {
      const orig = Object.getOwnPropertyDescriptor(proto, k)?.value;
      if (typeof orig !== 'function' || (proto === Array.prototype && k === 'set')) continue;
      saved.push([proto, k, orig]);
      const log = k === 'sort' || k === 'toSorted';
      proto[k] = function (...a) {
        const n = this?.length >>> 0;
        box.steps += log && n > 1 ? n * Math.ceil(Math.log2(n)) : n;
        return orig.apply(this, a);
      };
    }
  try {
    return fn();
  } finally {
    for (const [proto, k, orig] of saved) proto[k] = orig;
  }
}

const counted = (url) => url.includes('/web/src/') || url.includes('complexity.test');

/** The work of fn(): blocks run in web/src (and this file's controls) plus array scans. */
async function work(fn) {
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  const box = { steps: 0 };
  withScanHooks(box, fn);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  for (const script of result)
    if (counted(script.url)) for (const f of script.functions) for (const r of f.ranges) box.steps += r.count;
  return box.steps;
}

// ---- inputs ---------------------------------------------------------------

/** Plan nodes for a synthetic plan: position p makes the values starting at
 * p and reads two earlier ones. */
function nodesOf(json) {
  const nodes = Array.from({ length: json.positions }, (_, p) => ({
    index: p,
    name: `n${p}`,
    op_type: 'Op',
    domain: '',
    inputs: [],
    outputs: [],
  }));
  json.values.forEach((v, i) => {
    if (v.view) return;
    nodes[v.start].outputs.push(v.name);
    if (v.end > v.start) nodes[v.end].inputs.push(v.name);
    if (i % 7 === 0 && v.end > v.start + 1) nodes[v.start + 1].inputs.push(v.name);
  });
  return nodes;
}

function planOf(n) {
  const json = D.syntheticPlan(n, { seed: 7 });
  json.nodes = nodesOf(json);
  return json;
}

/** One node with n outputs (a Split) and one reading one value n times. */
function wideNodes(n) {
  return [
    {
      index: 0,
      name: 'split',
      op_type: 'Split',
      domain: '',
      inputs: ['x'],
      outputs: Array.from({ length: n }, (_, i) => `o${i}`),
    },
    { index: 1, name: 'sum', op_type: 'Sum', domain: '', inputs: Array(n).fill('o0'), outputs: ['y'] },
    {
      index: 2,
      name: 'cat',
      op_type: 'Concat',
      domain: '',
      inputs: Array.from({ length: n }, (_, i) => `o${i}`),
      outputs: ['z'],
    },
  ];
}

/** A profile document of n nodes (tags per bucket, a reuse each). */
function profileOf(n) {
  return {
    allow_input_overwrite: false,
    tags_known: true,
    nodes: Array.from({ length: n }, (_, i) => ({
      index: i,
      op_type: 'Op',
      reuse: i % 2 ? [{ output_index: 0, input_index: 0, kind: 'equal' }] : [],
      profile: {
        total_bytes: 100 + i,
        already_allocated_bytes: 50,
        output_allocation_bytes: 50 + i,
        inputs: { '': 10 },
        initializers: { weight: 20 },
        intermediates: { [`t${i % 16}`]: 20 + i },
        outputs: { '': 50 },
      },
    })),
  };
}

// The same document as `--columns` writes it: reuse rows and a column per bucket and tag.
function profileColumnsOf(n) {
  const doc = profileOf(n);
  const profile = { inputs: {}, initializers: {}, intermediates: {}, outputs: {} };
  for (const nd of doc.nodes)
    for (const b of Object.keys(profile))
      for (const [tag, a] of Object.entries(nd.profile[b])) (profile[b][tag] ??= new Array(n).fill(0))[nd.index] = a;
  const reuse = doc.nodes.flatMap((nd) => nd.reuse.map((r) => [nd.index, r.output_index, r.input_index, r.kind]));
  return { allow_input_overwrite: false, columns: true, tags_known: true, nodes: { count: n, reuse, profile } };
}

// Each family: make(n) builds the input (not counted), run(input) is measured.
const FAMILIES = [
  ['normalizePlan', planOf, (j) => D.normalizePlan(j)],
  ['normalizePlan: a Split with n outputs', (n) => ({ ...planOf(8), nodes: wideNodes(n) }), (j) => D.normalizePlan(j)],
  ['memorySeries', (n) => D.normalizePlan(planOf(n)), (m) => D.memorySeries(m)],
  ['nodeRows', (n) => D.normalizePlan(planOf(n)), (m) => D.nodeRows(m)],
  ['valueRows', (n) => D.normalizePlan(planOf(n)), (m) => D.valueRows(m)],
  ['intervalRows', (n) => D.normalizePlan(planOf(n)), (m) => D.intervalRows(m)],
  ['ownerIndices', (n) => D.normalizePlan(planOf(n)), (m) => D.ownerIndices(m)],
  ['intervalIndex', (n) => D.normalizePlan(planOf(n)), (m) => D.intervalIndex(m.start, m.end)],
  ['filterRows', (n) => D.valueRows(D.normalizePlan(planOf(n))), (rows) => D.filterRows(rows, 'v1')],
  ['sortRows by size', (n) => D.valueRows(D.normalizePlan(planOf(n))), (rows) => D.sortRows(rows, 'size')],
  [
    'sortRows by name, descending',
    (n) => D.valueRows(D.normalizePlan(planOf(n))),
    (rows) => D.sortRows(rows, 'name', -1),
  ],
  ['toCSV', (n) => D.valueRows(D.normalizePlan(planOf(n))), (rows) => D.toCSV(rows, ['name', 'size', 'start', 'end'])],
  ['normalizeNodes', (n) => planOf(n).nodes, (nodes) => D.normalizeNodes(nodes)],
  ['normalizeNodes: wide nodes', wideNodes, (nodes) => D.normalizeNodes(nodes)],
  ['valueLinks', (n) => D.normalizeNodes(planOf(n).nodes), (nodes) => D.valueLinks(nodes)],
  ['valueLinks: fan-in, fan-out, outputs', (n) => D.normalizeNodes(wideNodes(n)), (nodes) => D.valueLinks(nodes)],
  ['profileSeries', profileOf, (p) => D.profileSeries(p)],
  [
    'reuseByOutput',
    (n) => [profileOf(n), D.normalizeNodes(planOf(4 * n).nodes)],
    ([p, nodes]) => D.reuseByOutput(p, nodes),
  ],
  ['profileSeries (--columns)', profileColumnsOf, (p) => D.profileSeries(p)],
  [
    'reuseByOutput (--columns)',
    (n) => [profileColumnsOf(n), D.normalizeNodes(planOf(4 * n).nodes)],
    ([p, nodes]) => D.reuseByOutput(p, nodes),
  ],
];
// Constant work whatever n: the same count at n and 8n.
const FLAT = [
  ['visibleWindow (the table body)', (n) => n, (n) => D.visibleWindow(n * 11, 420, 22, n)],
  ['scrollTopFor (the table body)', (n) => n, (n) => D.scrollTopFor(n - 1, 0, 420, 22, 30)],
];

// Controls: quadratic by construction, so the guard must see them.
function quadraticLoop(a) {
  let x = 0;
  for (let i = 0; i < a.length; i++) for (let k = 0; k < i; k++) x += a[k];
  return x;
}
function quadraticIndexOf(a) {
  const seen = [];
  for (const v of a) if (seen.indexOf(v) < 0) seen.push(v);
  return seen.length;
}
const CONTROLS = [
  ['control: nested loop', (n) => Array.from({ length: n }, (_, i) => i), quadraticLoop],
  ['control: indexOf in a loop', (n) => Array.from({ length: n }, (_, i) => i), quadraticIndexOf],
];

/** W(1), W(n), W(8n) and the growth of one family (each input warmed once
 * first, so compiling is not counted). */
async function measure(make, run) {
  const inputs = [1, N, 8 * N].map(make);
  run(make(N));
  const w = [];
  for (const input of inputs) w.push(await work(() => run(input)));
  return { w1: w[0], wn: w[1], w8n: w[2], growth: (w[2] - w[0]) / Math.max(1, w[1] - w[0]) };
}

const table = [];
afterAll(() => {
  console.log(
    `complexity guard (page data functions), n = ${N}, allowed growth ${allowed(N).toFixed(1)}:\n` +
      table
        .map(
          (r) =>
            `  ${r.name.padEnd(40)} ${String(r.wn).padStart(10)} ${String(r.w8n).padStart(11)}  ${r.growth.toFixed(2)}`,
        )
        .join('\n'),
  );
});

describe('the page data functions grow at most n log n (work counted, not timed)', () => {
  it.each(FAMILIES)('%s', async (name, make, run) => {
    const r = await measure(make, run);
    table.push({ name, ...r });
    expect(r.wn, 'work at n is counted').toBeGreaterThan(r.w1);
    expect(r.growth, `${name}: W(n) ${r.wn}, W(8n) ${r.w8n}`).toBeLessThanOrEqual(allowed(N));
  });

  it.each(FLAT)('%s: constant', async (name, make, run) => {
    const r = await measure(make, run);
    table.push({ name, ...r });
    expect(r.w8n, name).toBe(r.wn);
  });

  it.each(CONTROLS)('%s comes out above the bound (the counter sees it)', async (name, make, run) => {
    const r = await measure(make, run);
    table.push({ name, ...r });
    expect(r.growth).toBeGreaterThan(allowed(N) * 3);
  });
});
