// The visualizer's data layer (web/src/data): exact values on a hand-made
// plan, and the figures it derives checked against the CLI's JSON on real npm
// models planned with realistic dims (lower bound = max live bytes on the
// strategy's basis, naive = last naive point, arena peak = max extent), the
// node table against the JSON's `nodes`, and the WASM plan against the CLI's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, beforeAll } from 'vitest';
import {
  alignUp,
  attachNodes,
  attachNodeTree,
  bodiesOf,
  bodyLabel,
  intervalRows,
  normalizeNodes,
  normalizePlan,
  planAssumptions,
  planAt,
  RUN_SPAN_MIN,
  runSpan,
  searchBodies,
  stepOf,
} from '../web/src/data/plan.js';
import { EXAMPLE_SRC } from '../scripts/prepare_web.mjs';
import {
  filterRows,
  liveAt,
  memorySeries,
  nodeRows,
  slotOccupancy,
  sortRows,
  valueRows,
} from '../web/src/data/series.js';
import { csvField, netronAttachment, toCSV } from '../web/src/data/export.js';
import { syntheticPlan } from '../web/src/data/synthetic.js';
import { BUCKETS, profileAt, profileSeries, reuseByOutput, reuseText, valueLinks } from '../web/src/data/profile.js';
import { byteTicks, formatBytes, formatShape } from '../web/src/data/format.js';
import { bandGroups } from '../web/src/data/bands.js';
import { convModel, float16Model } from './onnx-encode.js';
import { body, loadMemplan, requireNativeCli } from './helpers.js';
import { dimArgs, requireVizFixtures, SYMBOLIC, TOO_SMALL_DIMS, VIZ_FIXTURES } from './viz-fixtures.js';

// Positions 0..5. a [0,2] 100 B at 0; b [1,3] 64 B at 128 (view v of b [2,3]);
// c [3,5] 200 B at 0; d [4,5] unknown size (deferred-style null).
const PLAN = {
  status: 'planned',
  strategy: 'slots',
  align: 64,
  positions: 6,
  naive_bytes: 364,
  peak_bytes: 392,
  lower_bound_bytes: 264,
  savings_ratio: 0.1,
  strategies: { arena: 384, slots: 392 },
  slots: [
    { id: 1, capacity: 64, offset: 256 },
    { id: 0, capacity: 200, offset: 0 },
  ],
  values: [
    {
      name: 'a',
      size: 100,
      start: 0,
      end: 2,
      owner: 'a',
      view: false,
      slot: 0,
      offset: 0,
      dtype: 'uint8',
      shape: [100],
    },
    {
      name: 'b',
      size: 64,
      start: 1,
      end: 3,
      owner: 'b',
      view: false,
      slot: 1,
      offset: 256,
      dtype: 'float',
      shape: [16],
    },
    {
      name: 'v',
      size: 64,
      start: 2,
      end: 3,
      owner: 'b',
      view: true,
      slot: 1,
      offset: 256,
      dtype: 'float',
      shape: [2, 'seq*2'],
    },
    {
      name: 'c',
      size: 200,
      start: 3,
      end: 5,
      owner: 'c',
      view: false,
      slot: 0,
      offset: 0,
      dtype: 'float16',
      shape: [10, 10],
    },
    {
      name: 'd',
      size: null,
      start: 4,
      end: 5,
      owner: 'd',
      view: false,
      slot: null,
      offset: null,
      dtype: 'float',
      shape: null,
    },
  ],
  unplanned: [{ name: 's', reason: 'sequence' }],
  unknown: { values: [{ name: 'd', reason: 'unbound dims' }], dims: ['batch'] },
  nodes: [
    { index: 0, name: 'n0', op_type: 'Conv', domain: '', inputs: ['X', 'W'], outputs: ['a'] },
    { index: 1, name: 'n1', op_type: 'Relu', domain: '', inputs: ['a'], outputs: ['b'] },
    { index: 2, name: '', op_type: 'Reshape', domain: '', inputs: ['b', 'shape'], outputs: ['v'] },
    { index: 3, name: 'n3', op_type: 'Add', domain: '', inputs: ['a', 'v'], outputs: ['c'] },
    { index: 4, name: 'n4', op_type: 'Custom', domain: 'com.example', inputs: ['c', '', 'z'], outputs: ['d', ''] },
    { index: 5, name: 'n5', op_type: 'Sum', domain: '', inputs: ['c', 'd'], outputs: ['Y'] },
  ],
  future_field: { ignored: true },
};

describe('normalizePlan', () => {
  it('columns, owners, rows and colour keys', () => {
    const m = normalizePlan(PLAN);
    expect(m.n).toBe(5);
    expect(m.positions).toBe(6);
    expect([...m.start]).toEqual([0, 1, 2, 3, 4]);
    expect([...m.end]).toEqual([2, 3, 3, 5, 5]);
    expect([...m.size].map((x) => (Number.isNaN(x) ? null : x))).toEqual([100, 64, 64, 200, null]);
    expect([...m.alignedSize].slice(0, 4)).toEqual([128, 64, 64, 256]);
    expect([...m.owner]).toEqual([0, 1, 1, 3, 4]);
    expect([...m.row]).toEqual([0, 1, 1, 2, 3]);
    expect(m.rowCount).toBe(4);
    expect([...m.rowValue]).toEqual([0, 1, 3, 4]);
    expect([...m.slot]).toEqual([0, 1, 1, 0, -1]);
    expect([...m.colorKey]).toEqual([0, 1, 1, 0, 3]);
    expect(m.unknownDims).toEqual(['batch']);
    expect(m.unknownReason.get('d')).toBe('unbound dims');
    expect(m.naive).toBe(364);
    expect(m.lowerBound).toBe(264);
    expect(m.boundAlign).toBe(1); // slots: the bound is on raw sizes
    expect(normalizePlan({ ...PLAN, strategy: 'arena' }).boundAlign).toBe(64);
    expect(m.dtype).toEqual(['uint8', 'float', 'float', 'float16', 'float']);
    expect(m.shape).toEqual([[100], [16], [2, 'seq*2'], [10, 10], null]);
    expect(m.nodes.map((nd) => [nd.index, nd.op, nd.domain])).toEqual([
      [0, 'Conv', ''],
      [1, 'Relu', ''],
      [2, 'Reshape', ''],
      [3, 'Add', ''],
      [4, 'Custom', 'com.example'],
      [5, 'Sum', ''],
    ]);
    expect(m.nodes[4].outputs).toEqual(['d', '']);
    expect(intervalRows(m).value.length).toBe(5);
    expect(m.runSpan).toBe(null); // no node folded at load
  });
  it('runSpan: the positions between the first and last node not folded at load', () => {
    const nodes = (flags) => normalizeNodes(flags.map((f, p) => ({ index: p, op_type: 'X', folded: f })));
    const F = true;
    const run = (a, k, b) => [...Array(a).fill(F), ...Array(k).fill(false), ...Array(b).fill(F)];
    expect(RUN_SPAN_MIN).toBe(8);
    // 5 + 3 folded outside, of 40 positions: at least 8 and a tenth.
    expect(runSpan(nodes([...run(5, 16, 0), F, false, ...run(0, 14, 3)]), 40)).toEqual({
      start: 5,
      end: 37,
      before: 5,
      after: 3,
    });
    expect(runSpan(nodes(run(5, 33, 2)), 40)).toBe(null); // 7 outside: too few
    expect(runSpan(nodes(run(8, 73, 0)), 81)).toBe(null); // 8 of 81: under a tenth
    expect(runSpan(nodes(run(8, 72, 0)), 80)).toEqual({ start: 8, end: 80, before: 8, after: 0 });
    expect(runSpan(nodes([false, ...Array(20).fill(F), false]), 22)).toBe(null); // folded only inside
    expect(runSpan(nodes(Array(20).fill(F)), 20)).toBe(null); // nothing runs
    expect(runSpan(nodes([]), 0)).toBe(null);
    // Positions past the node list (a document whose values outlive its nodes) are shown.
    expect(runSpan(nodes([...Array(8).fill(F), false]), 12)).toEqual({ start: 8, end: 12, before: 8, after: 0 });
    // Only `true` folds: an older build's nodes have no flag.
    expect(normalizeNodes([{ op_type: 'X', folded: 'yes' }, { op_type: 'Y' }]).map((n) => n.folded)).toEqual([
      false,
      false,
    ]);
    expect(normalizePlan({ ...PLAN, nodes: PLAN.nodes.map((n, p) => ({ ...n, folded: p === 0 })) }).runSpan).toBe(null);
  });
  it('tolerates missing and null fields (deferred plans, older builds)', () => {
    const m = normalizePlan({
      status: 'deferred',
      values: [{ name: 'x', start: 2, end: 4, size: null, owner: 'gone' }],
    });
    expect(m.positions).toBe(5);
    expect(m.planned).toBe(false);
    expect(m.peak).toBe(null);
    expect([...m.owner]).toEqual([0]);
    expect(m.slots).toEqual([]);
    expect(m.unknownDims).toEqual([]);
    expect(m.dtype).toEqual(['']);
    expect(m.shape).toEqual([undefined]);
    expect(m.nodes).toEqual([]);
    expect(() => normalizePlan(null)).toThrow(TypeError);
    // Odd node entries are read as text, never as anything else.
    const odd = normalizePlan({
      positions: 2,
      values: [],
      nodes: [null, { name: 5, op_type: '<b>x</b>', inputs: 'a', outputs: [1, 'y'] }],
    });
    expect(odd.nodes).toEqual([
      { index: 0, name: '', op: '', domain: '', inputs: [], outputs: null, folded: false },
      { index: 1, name: '', op: '<b>x</b>', domain: '', inputs: [], outputs: ['', 'y'], folded: false },
    ]);
  });
  it('alignUp', () => {
    expect([alignUp(0, 64), alignUp(1, 64), alignUp(64, 64), alignUp(65, 64), alignUp(7, 1), alignUp(7, 0)]).toEqual([
      0, 64, 64, 128, 7, 7,
    ]);
  });
});

describe('attachNodes', () => {
  const NODES = [{ index: 0, name: 'n', op_type: 'Relu', domain: '', inputs: ['x'], outputs: ['y'] }];
  it('puts nodes right after unknown, as the full JSON has them, in a new object', () => {
    const lean = { status: 'planned', values: [], unknown: null, inplace: { enabled: true, saved_bytes: 0 } };
    const out = attachNodes(lean, NODES);
    expect(Object.keys(out)).toEqual(['status', 'values', 'unknown', 'nodes', 'inplace']);
    expect(out.nodes).toBe(NODES);
    expect(Object.hasOwn(lean, 'nodes')).toBe(false);
  });
  it('appends them when there is no unknown, and leaves a plan with nodes alone', () => {
    expect(Object.keys(attachNodes({ status: 'x' }, NODES))).toEqual(['status', 'nodes']);
    const full = { status: 'x', nodes: [] };
    expect(attachNodes(full, NODES)).toBe(full);
    expect(attachNodes(null, NODES)).toBe(null);
  });
});

describe('memorySeries', () => {
  it('exact live, aligned live, extent, naive per position', () => {
    const s = memorySeries(normalizePlan(PLAN));
    expect([...s.live]).toEqual([100, 164, 164, 264, 200, 200]);
    expect([...s.liveAligned]).toEqual([128, 192, 192, 320, 256, 256]);
    expect([...s.extent]).toEqual([128, 320, 320, 320, 256, 256]);
    expect([...s.naive]).toEqual([100, 164, 164, 364, 364, 364]); // slots: raw sizes
    expect([...s.count]).toEqual([1, 2, 2, 2, 2, 2]);
    expect([...s.unknown]).toEqual([0, 0, 0, 0, 1, 1]);
    expect(s.maxLive).toBe(264);
    expect(s.maxLiveAligned).toBe(320);
    expect(s.liveBound).toBe(s.live); // slots: the bound is on raw sizes
    expect(s.maxLiveBound).toBe(PLAN.lower_bound_bytes);
    expect(s.maxExtent).toBe(320);
    expect(s.peakPositions).toEqual([3]);
    expect(s.partial).toBe(true);
  });
  it('arena plans count the naive total and the bound in aligned sizes', () => {
    const s = memorySeries(normalizePlan({ ...PLAN, strategy: 'arena' }));
    expect([...s.naive]).toEqual([128, 192, 192, 448, 448, 448]);
    expect(s.liveBound).toBe(s.liveAligned);
    expect(s.maxLiveBound).toBe(320);
  });
});

// Random plans (with ties in start and end, views, unknown sizes and unplaced
// buffers): the timeline's row order, the extent and the slot segments equal
// what the definitions give by brute force (sorts with comparators, a scan
// over every live buffer).
describe('row order, extent and slot segments against brute force', () => {
  let seed = 7;
  const rnd = (k) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % k;
  };
  const randomPlan = () => {
    const n = 1 + rnd(60),
      P = 1 + rnd(12);
    const values = [];
    for (let i = 0; i < n; i++) {
      const start = rnd(P),
        end = start + rnd(P - start);
      const owner = i > 0 && rnd(5) === 0 ? `v${rnd(i)}` : `v${i}`;
      values.push({
        name: `v${i}`,
        size: rnd(9) === 0 ? null : 1 + rnd(300),
        start,
        end,
        owner,
        view: owner !== `v${i}`,
        slot: rnd(4) === 0 ? null : rnd(5),
        offset: rnd(6) === 0 ? null : 64 * rnd(20),
      });
    }
    // A view's owner must own its buffer: follow the chain to a root.
    for (const v of values) {
      let o = values[Number(v.owner.slice(1))];
      while (o.owner !== o.name) o = values[Number(o.owner.slice(1))];
      v.owner = o.name;
      v.view = o !== v;
    }
    const slots = [0, 1, 2, 3, 4].filter(() => rnd(4) > 0).map((id) => ({ id, capacity: 100 + id, offset: 0 }));
    return { status: 'planned', strategy: rnd(2) ? 'slots' : 'arena', align: 64, positions: P, values, slots };
  };
  it('on 300 random plans', () => {
    for (let t = 0; t < 300; t++) {
      const plan = randomPlan();
      const m = normalizePlan(plan);
      const owners = [];
      for (let i = 0; i < m.n; i++) if (m.owner[i] === i) owners.push(i);
      owners.sort((a, b) => m.start[a] - m.start[b] || m.end[a] - m.end[b] || a - b);
      expect([...m.rowValue]).toEqual(owners);
      const s = memorySeries(m);
      for (let p = 0; p < m.positions; p++) {
        let top = 0;
        for (const i of owners)
          if (m.start[i] <= p && p <= m.end[i] && !Number.isNaN(m.size[i]) && !Number.isNaN(m.offset[i]))
            top = Math.max(top, m.offset[i] + m.alignedSize[i]);
        expect(s.extent[p]).toBe(top);
      }
      const ids = m.slots.map((x) => x.id).sort((a, b) => a - b);
      const inSlots = owners.filter((i) => ids.includes(m.slot[i]));
      inSlots.sort((a, b) => ids.indexOf(m.slot[a]) - ids.indexOf(m.slot[b]) || m.start[a] - m.start[b] || a - b);
      const { segments } = slotOccupancy(m);
      expect([...segments.value]).toEqual(inSlots);
      expect([...segments.row]).toEqual(inSlots.map((i) => ids.indexOf(m.slot[i])));
    }
  });
});

describe('slotOccupancy', () => {
  it('rows in slot order with segments and utilisation', () => {
    const { rows, segments } = slotOccupancy(normalizePlan(PLAN));
    expect(rows.map((r) => [r.id, r.capacity, r.used, r.busy])).toEqual([
      [0, 200, 2, 6],
      [1, 64, 1, 3],
    ]);
    expect(rows[0].utilisation).toBeCloseTo((100 * 3 + 200 * 3) / (200 * 6), 12);
    expect(rows[1].utilisation).toBeCloseTo((64 * 3) / (64 * 6), 12);
    expect(segments.n).toBe(3);
    expect([...segments.row]).toEqual([0, 0, 1]);
    expect([...segments.value]).toEqual([0, 3, 1]);
    expect([...segments.fill]).toEqual([0.5, 1, 1]);
  });
  it('is empty for arena plans', () => {
    expect(slotOccupancy(normalizePlan({ ...PLAN, slots: [] })).rows).toEqual([]);
  });
});

describe('tables', () => {
  const m = normalizePlan(PLAN);
  it("node rows from the plan's nodes", () => {
    const rows = nodeRows(m);
    expect(rows.map((r) => [r.position, r.op, r.name, r.inputs, r.outputs, r.allocated, r.freed, r.live])).toEqual([
      [0, 'Conv', 'n0', ['X', 'W'], ['a'], 100, 0, 100],
      [1, 'Relu', 'n1', ['a'], ['b'], 64, 0, 164],
      [2, 'Reshape', '', ['b', 'shape'], ['v'], 0, 100, 164],
      [3, 'Add', 'n3', ['a', 'v'], ['c'], 200, 64, 264],
      [4, 'Custom', 'n4', ['c', 'z'], ['d'], 0, 0, 200],
      [5, 'Sum', 'n5', ['c', 'd'], ['Y'], 0, 200, 200],
    ]);
    expect(rows[4].domain).toBe('com.example');
    expect(rows[3].liveBound).toBe(264);
  });
  it('node rows without nodes: the values that start at each position', () => {
    const bare = normalizePlan({ ...PLAN, nodes: undefined });
    const rows = nodeRows(bare, memorySeries(bare), [{ name: 'n0', op_type: 'Conv' }]);
    expect(rows.map((r) => [r.position, r.outputs, r.allocated, r.freed, r.live])).toEqual([
      [0, ['a'], 100, 0, 100],
      [1, ['b'], 64, 0, 164],
      [2, ['v'], 0, 100, 164],
      [3, ['c'], 200, 64, 264],
      [4, ['d'], 0, 0, 200],
      [5, [], 0, 200, 200],
    ]);
    expect([rows[0].name, rows[0].op, rows[1].op]).toEqual(['n0', 'Conv', '']);
  });
  it('value rows, filter, sort', () => {
    const rows = valueRows(m);
    expect(rows[2]).toEqual({
      index: 2,
      name: 'v',
      dtype: 'float',
      shape: '[2, seq*2]',
      size: 64,
      start: 2,
      end: 3,
      length: 2,
      owner: 'b',
      view: true,
      slot: 1,
      offset: 256,
      status: 'view',
    });
    expect(rows[4].status).toBe('unknown: unbound dims');
    expect(rows[4].shape).toBe('unknown');
    expect(valueRows(normalizePlan({ values: [{ name: 'x', size: 4 }] }))[0].shape).toBe('');
    expect(rows[4].size).toBe(null);
    expect(filterRows(rows, '^[ab]$').rows.map((r) => r.name)).toEqual(['a', 'b']);
    const bad = filterRows(rows, '(');
    expect(bad.error).toBeTruthy();
    expect(bad.rows).toEqual([]);
    expect(sortRows(rows, 'size', -1).map((r) => r.name)).toEqual(['c', 'a', 'b', 'v', 'd']);
    expect(sortRows(rows, 'size', 1).map((r) => r.name)).toEqual(['b', 'v', 'a', 'c', 'd']);
    expect(sortRows(rows, 'name', -1).map((r) => r.name)).toEqual(['v', 'd', 'c', 'b', 'a']);
  });
  it('CSV and the Netron attachment', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"\n')).toBe('"say ""hi""\n"');
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvField(-5)).toBe('-5');
    expect(csvField(null)).toBe('');
    // A node row's inputs/outputs are lists of model names: a leading formula character is defused too.
    expect(csvField(['=HYPERLINK("http://x")', 'b'])).toBe('"\'=HYPERLINK(""http://x"") b"');
    expect(csvField(['@cmd'])).toBe("'@cmd");
    expect(csvField([1, 2])).toBe('1 2');
    const rows = valueRows(m).slice(0, 2);
    expect(toCSV(rows, ['name', 'size', { key: 'start', label: 'first' }])).toBe('name,size,first\na,100,0\nb,64,1\n');
    const att = netronAttachment(m, {
      values: valueRows(m),
      nodes: nodeRows(m, memorySeries(m)),
      producer: 'onnx-memplan 0.1.0',
      model: 'x.onnx',
      graph: 'g',
    });
    expect(att.signature).toBe('netron:attachment');
    expect(Object.keys(att)).toEqual(['signature', 'producer', 'model', 'metadata', 'metrics']);
    // Read it the way Netron does (source/metadata.js, metadata.Attachment.Container.open):
    // entries keyed "kind::target", each a map from name to value.
    const netron = (list) => {
      const entries = new Map();
      for (const item of list) {
        if (!(item.kind && 'target' in item)) continue;
        const key = `${item.kind}::${item.target}`;
        if (!entries.has(key)) entries.set(key, new Map());
        entries.get(key).set(item.name, item.value);
      }
      return entries;
    };
    const meta = netron(att.metadata),
      met = netron(att.metrics);
    expect(Object.fromEntries(meta.get('graph::g'))).toEqual({
      'memplan.status': 'planned',
      'memplan.strategy': 'slots',
    });
    expect(Object.fromEntries(met.get('graph::g'))).toEqual({
      'memplan.align': 64,
      'memplan.positions': 6,
      'memplan.naive_bytes': 364,
      'memplan.peak_bytes': 392,
      'memplan.lower_bound_bytes': 264,
      'memplan.savings_ratio': 0.1,
      'memplan.unnamed_nodes': 1,
    });
    expect(Object.fromEntries(met.get('value::v'))).toEqual({
      'memplan.size_bytes': 64,
      'memplan.start': 2,
      'memplan.end': 3,
      'memplan.offset_bytes': 256,
      'memplan.slot': 1,
    });
    expect(Object.fromEntries(meta.get('value::v'))).toEqual({ 'memplan.owner': 'b' });
    expect(meta.has('value::b')).toBe(false); // owners are their own
    expect(Object.fromEntries(met.get('value::d'))).toEqual({ 'memplan.start': 4, 'memplan.end': 5 }); // size unknown
    expect(Object.fromEntries(met.get('node::n3'))).toEqual({
      'memplan.live_bytes': 264,
      'memplan.allocated_bytes': 200,
      'memplan.freed_bytes': 64,
      'memplan.arena_top_bytes': 320,
    });
    expect([...met.keys()].filter((k) => k.startsWith('node::'))).toEqual([
      'node::n0',
      'node::n1',
      'node::n3',
      'node::n4',
      'node::n5',
    ]);
    expect(JSON.parse(JSON.stringify(att))).toEqual(att);
  });
  it('formatShape', () => {
    expect([
      formatShape([1, 3, 48, 192]),
      formatShape([]),
      formatShape(['batch_size', 1, '(samples+128)//160-3']),
      formatShape([null, 2]),
      formatShape(null),
      formatShape(undefined),
    ]).toEqual(['[1, 3, 48, 192]', '[]', '[batch_size, 1, (samples+128)//160-3]', '[?, 2]', 'unknown', '—']);
  });
  it('formatBytes', () => {
    expect([formatBytes(0), formatBytes(1023), formatBytes(1536), formatBytes(13702400), formatBytes(null)]).toEqual([
      '0 B',
      '1,023 B',
      '1.50 KiB',
      '13.1 MiB',
      '—',
    ]);
    expect(formatBytes(5 * 1048576, { trim: true })).toBe('5 MiB');
    // Rounding that reaches 1024 goes up a unit; negative amounts (a saved_bytes below 0) keep the digits of their size.
    expect([formatBytes(1048575), formatBytes(2 ** 30 - 1), formatBytes(-150 * 1024), formatBytes(-1536)]).toEqual([
      '1.00 MiB',
      '1.00 GiB',
      '-150 KiB',
      '-1.50 KiB',
    ]);
    expect([800, 100, 250, 1.5].map((k) => formatBytes(k * 1024, { trim: true }))).toEqual([
      '800 KiB',
      '100 KiB',
      '250 KiB',
      '1.5 KiB',
    ]); // axis ticks keep integer zeros
    expect(byteTicks(14250496, 5)).toEqual([0, 5242880, 10485760]);
    expect(byteTicks(732, 5)).toEqual([0, 200, 400, 600]);
    expect(byteTicks(1, 5)).toEqual([0, 1]);
    expect(byteTicks(0)).toEqual([0]);
  });
});

describe('synthetic plan', () => {
  it('100k intervals, deterministic, a valid arena', () => {
    const p = syntheticPlan(100_000);
    expect(p.values.length).toBe(100_000);
    expect(syntheticPlan(1000).values).toEqual(syntheticPlan(1000).values);
    const m = normalizePlan(p);
    const s = memorySeries(m);
    expect(s.maxExtent).toBe(p.peak_bytes);
    expect(s.naive[m.positions - 1]).toBe(p.naive_bytes);
    expect(s.maxLiveAligned).toBeLessThanOrEqual(p.peak_bytes);
  });
});

describe('figures equal the CLI JSON', () => {
  let cli;
  beforeAll(() => {
    cli = requireNativeCli();
    requireVizFixtures();
  }, 120_000);
  const plan = (file, args) =>
    JSON.parse(execFileSync(cli, ['plan', file, '--json', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 }));
  const OPTIONS = [
    [],
    ['--strategy', 'slots'],
    ['--align', '1'],
    ['--align', '256', '--strategy', 'slots'],
    ['--workspace'],
    ['--workspace', '--strategy', 'slots'],
  ];
  const cases = [];
  for (const f of VIZ_FIXTURES) for (const opts of OPTIONS) cases.push([f.name, [...opts, ...dimArgs(f.dims)], f.file]);
  it.each(cases)('%s %j', (_name, args, file) => {
    const j = plan(file, args);
    expect(j.status).toBe('planned');
    const m = normalizePlan(j);
    const s = memorySeries(m);
    expect(s.maxLiveBound).toBe(j.lower_bound_bytes);
    expect(s.naive[m.positions - 1]).toBe(j.naive_bytes);
    if (j.strategy === 'arena') expect(s.maxExtent).toBe(j.peak_bytes);
    else {
      expect(Math.max(0, ...m.slots.map((x) => x.offset + x.capacity))).toBe(j.slot_layout_bytes); // end of the slot layout
      expect(m.slots.reduce((a, x) => a + x.capacity, 0)).toBe(j.peak_bytes); // the sum of slot capacities
    }
    expect(j.peak_bytes).toBeGreaterThanOrEqual(j.lower_bound_bytes);
    const occ = slotOccupancy(m);
    expect(occ.rows.length).toBe(j.slots.length);
    for (let k = 0; k < occ.segments.n; k++)
      expect(occ.segments.size[k]).toBeLessThanOrEqual(occ.rows[occ.segments.row[k]].capacity);
    // The node table is the JSON's nodes; the value table shows each value's dtype and shape.
    const nodes = nodeRows(m, s);
    expect(nodes.length).toBe(j.positions);
    expect(nodes.map((r) => [r.position, r.op, r.name, r.domain])).toEqual(
      j.nodes.map((nd) => [nd.index, nd.op_type, nd.name, nd.domain]),
    );
    expect(nodes.map((r) => r.outputs)).toEqual(j.nodes.map((nd) => nd.outputs.filter(Boolean)));
    const rows = valueRows(m);
    expect(rows.slice(0, m.nValues).map((r) => [r.name, r.dtype, r.shape])).toEqual(
      j.values.map((v) => [v.name, v.dtype, formatShape(v.shape)]),
    );
    // After the values, one row per transient: with --workspace, each node's kernel workspace.
    expect(rows.slice(m.nValues).map((r) => [r.name, r.status, r.start, r.end, r.size])).toEqual(
      j.transients.map((t) => [t.node, `workspace (${t.op_type}: ${t.what})`, t.position, t.position, t.bytes]),
    );
    // Bound dims leave no names in planned shapes.
    for (const v of j.values) if (v.shape) for (const d of v.shape) expect(Number.isInteger(d)).toBe(true);
  });
  it("the WASM plan equals the CLI's for every fixture and option set, and unbound", async () => {
    const mp = await loadMemplan();
    for (const f of VIZ_FIXTURES) {
      const model = mp.open(readFileSync(f.file));
      try {
        // Default search budget: what the page runs (the search counts work, not time).
        for (const args of [...OPTIONS.map((o) => [...o, ...dimArgs(f.dims)]), []]) {
          const native = execFileSync(cli, ['plan', f.file, '--json', ...args], {
            encoding: 'utf8',
            maxBuffer: 256 << 20,
          });
          expect(body(model.callText('plan', args)), `${f.name} ${args.join(' ')}`).toBe(body(native));
        }
      } finally {
        model.close();
      }
    }
  }, 120_000);
  it('a plan made with --no-nodes, given back the nodes of a full plan, equals the full plan (the page re-plans this way)', async () => {
    const mp = await loadMemplan();
    for (const f of VIZ_FIXTURES) {
      const model = mp.open(readFileSync(f.file));
      try {
        const first = model.call('plan', dimArgs(f.dims));
        for (const args of [[], ...OPTIONS.map((o) => [...o, ...dimArgs(f.dims)]), ['--inplace', ...dimArgs(f.dims)]]) {
          const lean = model.call('plan', [...args, '--no-nodes']);
          expect(Object.hasOwn(lean, 'nodes')).toBe(false);
          const native = execFileSync(cli, ['plan', f.file, '--json', ...args], {
            encoding: 'utf8',
            maxBuffer: 256 << 20,
          });
          expect(JSON.stringify(attachNodes(lean, first.nodes)), `${f.name} ${args.join(' ')}`).toBe(
            JSON.stringify(JSON.parse(native)),
          );
        }
      } finally {
        model.close();
      }
    }
  }, 120_000);
  it('a deferred plan keeps its intervals, shapes with expressions, and lists the unbound dims', () => {
    const j = plan(SYMBOLIC.file, []);
    expect(j.status).toBe('deferred');
    const m = normalizePlan(j);
    expect(m.unknownDims).toEqual(Object.keys(SYMBOLIC.dims));
    expect(m.unknownDims).toEqual(j.unknown.dims);
    expect(m.rowCount).toBe(j.values.filter((v) => !v.view).length);
    expect(memorySeries(m).unknown.some((u) => u > 0)).toBe(true);
    const rows = valueRows(m);
    expect(rows.filter((r) => r.status === 'unknown: unbound dims').length).toBe(j.unknown.values.length);
    expect(rows.some((r) => r.size === null && /samples/.test(r.shape))).toBe(true);
  });
  it('dims too small for the model: negative sizes are unknown values and the plan is deferred', () => {
    const j = plan(SYMBOLIC.file, dimArgs(TOO_SMALL_DIMS));
    expect(j.status).toBe('deferred');
    expect(j.unknown.dims).toEqual([]);
    const m = normalizePlan(j);
    expect(m.unknownValues.length).toBeGreaterThan(0);
    for (const u of m.unknownValues) expect(u.reason).toMatch(/negative/);
    expect([m.naive, m.peak, m.lowerBound]).toEqual([null, null, null]);
  });
});

// A hand-made profile document (`memplan profile --json` shape), positions 0..3.
const PROFILE = {
  allow_input_overwrite: false,
  tags_known: true,
  nodes: [
    {
      index: 0,
      op_type: 'Conv',
      reuse: [],
      profile: {
        total_bytes: 180,
        already_allocated_bytes: 100,
        output_allocation_bytes: 80,
        inputs: { weight: 100 },
        initializers: {},
        intermediates: {},
        outputs: { '': 80 },
      },
    },
    {
      index: 1,
      op_type: 'Relu',
      reuse: [{ output_index: 0, input_index: 0, kind: 'equal' }],
      profile: {
        total_bytes: 260,
        already_allocated_bytes: 180,
        output_allocation_bytes: 80,
        inputs: { weight: 100 },
        initializers: { weight: 20 },
        intermediates: { '': 80, shape: 0 },
        outputs: { '': 60 },
      },
    },
    {
      index: 2,
      op_type: 'Reshape',
      reuse: [{ output_index: 0, input_index: 1, kind: 'greater' }],
      profile: {
        total_bytes: 96,
        already_allocated_bytes: 64,
        output_allocation_bytes: 32,
        inputs: {},
        initializers: {},
        intermediates: { shape: 8, '': 56 },
        outputs: { '': 32 },
      },
    },
    {
      index: 3,
      op_type: 'Sum',
      reuse: [],
      profile: {
        total_bytes: null,
        already_allocated_bytes: null,
        output_allocation_bytes: null,
        inputs: {},
        initializers: {},
        intermediates: { '': 40 },
        outputs: { '': null },
      },
    },
  ],
};
const PLAN_NODES = [
  { index: 0, inputs: ['X', 'W'], outputs: ['a'] },
  { index: 1, inputs: ['a'], outputs: ['b'] },
  { index: 2, inputs: ['', 'b'], outputs: ['v', ''] },
  { index: 3, inputs: ['a', 'v', 'a'], outputs: ['Y'] },
];

describe('profile: stacked memory by bucket and tag', () => {
  it('layers in bucket order, untagged first, with exact stacks', () => {
    const s = profileSeries(PROFILE, 5);
    expect(s.ok).toBe(true);
    expect(s.positions).toBe(5);
    expect(s.layers.map((l) => l.key)).toEqual([
      'inputs:weight',
      'initializers:weight',
      'intermediates:',
      'intermediates:shape',
      'outputs:',
    ]);
    expect(s.layers.map((l) => [...l.values])).toEqual([
      [100, 100, 0, 0, 0],
      [0, 20, 0, 0, 0],
      [0, 80, 56, 40, 0],
      [0, 0, 8, 0, 0],
      [80, 60, 32, 0, 0],
    ]);
    expect([...s.lower[2]]).toEqual([100, 120, 0, 0, 0]);
    expect([...s.upper[4]]).toEqual([180, 260, 96, 40, 0]);
    expect([...s.total]).toEqual([180, 260, 96, 40, 0]);
    expect(s.maxTotal).toBe(260);
    expect(s.partial).toBe(true); // the null amount at position 3 counts 0
    expect(BUCKETS).toEqual(['inputs', 'initializers', 'intermediates', 'outputs']);
  });
  it('symbolic amounts (a dim unbound): no series, the expression says why', () => {
    const sym = structuredClone(PROFILE);
    sym.nodes[2].profile.inputs = { weight: '12*N+4' };
    expect(profileSeries(sym)).toEqual({ ok: false, reason: 'symbolic', symbolic: '12*N+4' });
    expect(profileSeries({ nodes: [] })).toEqual({ ok: false, reason: 'empty' });
    expect(profileSeries(null)).toEqual({ ok: false, reason: 'empty' });
  });
  it("a body's profile is the subgraphs entry at the plan's path (node name and attribute)", () => {
    const inner = { name: 'L', attribute: 'body', nodes: [{ index: 0 }] };
    const thenB = { node: 2, name: 'If_0', attribute: 'then_branch', nodes: [], subgraphs: [inner] };
    const elseB = { node: 2, name: 'If_0', attribute: 'else_branch', nodes: [], subgraphs: [] };
    const doc = { nodes: [], subgraphs: [elseB, thenB] };
    expect(profileAt(doc, [])).toBe(doc);
    expect(profileAt(doc, [{ index: 1, node: 'If_0', attribute: 'then_branch' }])).toBe(thenB);
    expect(profileAt(doc, [{ index: 0, node: 'If_0', attribute: 'else_branch' }])).toBe(elseB);
    const deep = [
      { index: 1, node: 'If_0', attribute: 'then_branch' },
      { index: 0, node: 'L', attribute: 'body' },
    ];
    expect(profileAt(doc, deep)).toBe(inner);
    expect(profileAt(doc, [{ index: 0, node: 'If_1', attribute: 'then_branch' }])).toBeNull();
    expect(profileAt(null, deep)).toBeNull();
  });
  it('reuse pairs by output name, and the table text', () => {
    const r = reuseByOutput(PROFILE, PLAN_NODES);
    expect([...r.entries()]).toEqual([
      ['b', { input: 'a', kind: 'equal', position: 1 }],
      ['v', { input: 'b', kind: 'greater', position: 2 }],
    ]);
    expect([reuseText(r.get('b')), reuseText(r.get('a'))]).toEqual(['a (equal)', '']);
  });
  it('producer and consumers of every value', () => {
    const l = valueLinks(PLAN_NODES);
    expect(l.get('a')).toEqual({ producer: 0, consumers: [1, 3] });
    expect(l.get('X')).toEqual({ producer: null, consumers: [0] });
    expect(l.get('v')).toEqual({ producer: 2, consumers: [3] });
    expect(l.get('Y')).toEqual({ producer: 3, consumers: [] });
    expect(l.has('')).toBe(false);
  });
});

describe('profile and inplace against the CLI', () => {
  let cli;
  beforeAll(() => {
    cli = requireNativeCli();
    requireVizFixtures();
  }, 120_000);
  const run = (cmd, file, args) =>
    JSON.parse(execFileSync(cli, [cmd, file, '--json', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 }));
  it.each(VIZ_FIXTURES.map((f) => [f.name, f]))(
    "%s: the stack at each position is the node's total_bytes; reuse pairs are the plan --inplace views",
    (_n, f) => {
      const pr = run('profile', f.file, dimArgs(f.dims));
      const plan = run('plan', f.file, dimArgs(f.dims));
      const s = profileSeries(pr, plan.positions);
      expect(s.ok).toBe(true);
      expect(s.positions).toBe(plan.positions);
      expect([...s.total]).toEqual(pr.nodes.map((nd) => nd.profile.total_bytes));
      for (const l of s.layers) expect(BUCKETS).toContain(l.bucket);
      const reuse = reuseByOutput(run('inplace', f.file, []), normalizePlan(plan).nodes);
      // The in-place analyses (seed 001) do not know what a runtime folds at load:
      // compare with a plan that keeps Constant outputs as activations too.
      const pi = run('plan', f.file, ['--inplace', '--constants-as-activations', ...dimArgs(f.dims)]);
      const owner = new Map(pi.values.map((v) => [v.name, v.owner]));
      // plan --inplace links pairs into one buffer: the applied ones share an owner.
      const applied = [...reuse].filter(([o, r]) => owner.get(o) === owner.get(r.input));
      if (pi.inplace.saved_bytes > 0) expect(applied.length).toBeGreaterThan(0);
      for (const [o, r] of reuse) expect(owner.has(o) && plan.nodes[r.position].inputs.includes(r.input)).toBe(true);
    },
  );
  it('unbound dims: the profile is symbolic, so no stacked series', () => {
    for (const extra of [[], ['--columns']]) {
      const pr = run('profile', SYMBOLIC.file, extra);
      const s = profileSeries(pr);
      expect(s.ok).toBe(false);
      expect(s.reason).toBe('symbolic');
      expect(s.symbolic).toMatch(/samples|batch_size/);
    }
  });
  // Silero VAD (the example) has If bodies; its dims and value bound, or not.
  const silero = {
    name: 'silero_vad.onnx',
    file: EXAMPLE_SRC,
    args: ['--dim', 'input:0=1', '--dim', 'input:1=512', '--dim', 'state:1=1', '--value', 'sr=16000'],
  };
  it.each([...VIZ_FIXTURES, silero, { ...silero, args: [] }].map((f) => [f.name, f.args?.join(' ') ?? '', f]))(
    '%s %s: the --columns form gives the same stacked series and reuse pairs, in the graph and its bodies',
    (_n, _a, f) => {
      const bound = f.args ?? dimArgs(f.dims);
      const plan = run('plan', f.file, bound);
      const nodes = normalizePlan(plan).nodes;
      for (const [cmd, args] of [
        ['profile', bound],
        ['inplace', (f.args ?? []).filter((a, i, all) => a !== '--dim' && all[i - 1] !== '--dim')],
      ]) {
        const full = run(cmd, f.file, args);
        const cols = run(cmd, f.file, [...args, '--columns']);
        expect(cols.columns).toBe(true);
        expect(cols.nodes.count).toBe(full.nodes.length);
        // Float64Arrays compare by their numbers; a symbolic series names an
        // expression of its document (the first met: node by node, or column by column).
        const series = (doc) => {
          const s = profileSeries(doc, plan.positions);
          if (s.reason === 'symbolic') {
            expect(JSON.stringify(doc)).toContain(JSON.stringify(s.symbolic));
            return { ok: false, reason: 'symbolic' };
          }
          return s.ok ? { ...s, layers: s.layers.map((l) => ({ ...l, values: [...l.values] })) } : s;
        };
        expect(series(cols)).toEqual(series(full));
        expect([...reuseByOutput(cols, nodes)]).toEqual([...reuseByOutput(full, nodes)]);
        // Bodies: the same entries, by node name and attribute.
        const bodies = (doc, path = []) =>
          doc.subgraphs.flatMap((e) => {
            const p = [...path, { node: e.name, attribute: e.attribute }];
            return [p, ...bodies(e, p)];
          });
        const paths = bodies(full);
        if (f === silero) {
          expect(paths.length, 'the If bodies').toBeGreaterThan(0);
          if (cmd === 'profile') expect(profileSeries(cols).ok, 'bound: a stacked series').toBe(true);
        }
        expect(bodies(cols)).toEqual(paths);
        for (const p of paths) expect(series(profileAt(cols, p))).toEqual(series(profileAt(full, p)));
      }
    },
  );
});

describe('plan trees: transients, bodies, assumptions, search', () => {
  const silero = (args) =>
    JSON.parse(
      execFileSync(requireNativeCli(), ['plan', EXAMPLE_SRC, '--json', ...args], {
        encoding: 'utf8',
        maxBuffer: 256 << 20,
      }),
    );
  const preset = ['--dim', 'input:0=1', '--dim', 'input:1=512', '--dim', 'state:1=1', '--value', 'sr=16000'];

  it("a plan made with --no-nodes gets every body's node list back from the model's first plan, byte for byte", () => {
    const full = silero(preset);
    const lean = silero([...preset, '--no-nodes']);
    expect(JSON.stringify(attachNodeTree(lean, silero([]))), 'nodes from a plan with other bindings').toBe(
      JSON.stringify(full),
    );
    expect(lean.subgraphs[0].plan.nodes, 'the lean plan is left as it was').toBe(undefined);
  });

  it('normalizePlan draws each transient as a buffer named after its node, live at its position', () => {
    const plan = silero(preset);
    const m = normalizePlan(plan);
    expect([m.nValues, m.n]).toEqual([plan.values.length, plan.values.length + 1]);
    const i = m.index.get('If_0');
    expect([
      i,
      m.transient(i),
      m.transient(0),
      m.start[i],
      m.end[i],
      m.size[i],
      m.offset[i],
      m.owner[i],
      m.view[i],
    ]).toEqual([plan.values.length, true, false, 2, 2, 6336, 0, i, 0]);
    const s = memorySeries(m);
    expect([s.liveBound[2], s.maxLiveBound, s.naive[4]]).toEqual([
      plan.at_peak.bytes,
      plan.lower_bound_bytes,
      plan.naive_bytes,
    ]);
    expect(valueRows(m)[i]).toMatchObject({ name: 'If_0', shape: '', size: 6336, status: 'body memory (If)' });
  });

  it("liveAt at the peak position lists what the plan JSON's at_peak lists, in its order (main graph and every planned body; with --workspace too)", () => {
    let workspaces = 0;
    const check = (doc) => {
      const m = normalizePlan(doc);
      const made = new Map(m.nodes.flatMap((nd) => (nd.outputs ?? []).map((o) => [o, nd])));
      expect(liveAt(m, doc.at_peak.position, (n) => made.get(n) ?? null)).toEqual(doc.at_peak.buffers);
      workspaces += doc.at_peak.buffers.filter((b) => b.workspace).length;
    };
    for (const args of [preset, [...preset, '--workspace']]) {
      const plan = silero(args);
      check(plan);
      let bodies = 0;
      const walk = (doc) => {
        for (const e of doc.subgraphs) {
          if (e.plan.status === 'planned' && e.plan.at_peak.position >= 0) {
            check(e.plan);
            bodies++;
          }
          walk(e.plan);
        }
      };
      walk(plan);
      expect(bodies).toBeGreaterThan(3);
      if (args === preset) expect(workspaces, 'tensors only: no workspace').toBe(0);
    }
    expect(workspaces, "with --workspace some body's peak holds a kernel's workspace").toBeGreaterThan(0);
  });

  it('planAt, stepOf and bodiesOf walk the tree; a stale index is found again by node and attribute', () => {
    const plan = silero(preset);
    const [thenIdx] = bodiesOf(plan, 'If_0')
      .filter((b) => b.entry.attribute === 'then_branch')
      .map((b) => b.index);
    const step = stepOf(plan, thenIdx);
    expect(step).toEqual({ index: thenIdx, node: 'If_0', attribute: 'then_branch' });
    const at = planAt(plan, [step]);
    expect(at.plan).toBe(plan.subgraphs[thenIdx].plan);
    expect(planAt(plan, [{ ...step, index: 1 - thenIdx }]).plan, 'found by node and attribute').toBe(at.plan);
    expect(planAt(plan, [{ index: 0, node: 'nope', attribute: 'body' }])).toBe(null);
    expect(planAt(plan, []).plan).toBe(plan);
    expect(bodyLabel(plan.subgraphs[thenIdx])).toBe("If 'If_0' then_branch (branch taken)");
  });

  it('planAssumptions: an If planned with its larger branch, a trip-count dim left unbound (once), a body with QDQ units', () => {
    const doc = {
      transients: [
        { node: 'c', op_type: 'If', assumption: 'the condition is not known: the larger branch is planned' },
      ],
      unknown: { dims: ['n', 'trips_loop'] },
      qdq_units: 0,
      subgraphs: [
        {
          node: 'c',
          attribute: 'then_branch',
          counted: false,
          plan: { transients: [{ node: 'x', assumption: 'hidden' }], subgraphs: [] },
        },
        {
          node: 'c',
          attribute: 'else_branch',
          counted: true,
          plan: { transients: [], unknown: { dims: ['trips_loop'] }, qdq_units: 2, subgraphs: [] },
        },
      ],
    };
    expect(planAssumptions(doc).map((a) => [a.kind, a.text, a.path.length])).toEqual([
      ['branch', "If 'c': the condition is not known: the larger branch is planned (else_branch)", 0],
      ['trips', 'the trip count trips_loop is not bound (set it with the dims)', 0],
      [
        'qdq',
        '2 DequantizeLinear → op → QuantizeLinear units planned as written (float values between them); ' +
          "ONNX Runtime's CPU execution provider fuses such units on x86-64 into int8 ops, so it may need less " +
          '(“QDQ fused” plans them so)',
        1,
      ],
    ]);
    // The example assumes no branch and no trip count; it assumes the file's order, where ONNX
    // Runtime's (bodies in its order too) needs a little more, and leaves out the workspace of the
    // kernels in its bodies (its LSTM's gates, its Convs' im2col), which raises its lower bound.
    expect(planAssumptions(silero(preset))).toEqual([
      {
        kind: 'order',
        path: [],
        node: '',
        text:
          "the file's node order; ONNX Runtime runs them in another (2 of 5 positions move), where the lower " +
          "bound is 7.38 KiB (7,552 B), 0.9% above this plan's (the order “ONNX Runtime's” plans it)",
      },
      {
        kind: 'workspace',
        path: [],
        node: '',
        included: false,
        nodes: 6,
        text:
          "kernels take no scratch memory; ONNX Runtime's CPU kernels take some at 6 nodes, the largest 6.50 KiB " +
          "(6,660 B) at 'If_0_then_branch__Inline_0__/decoder/rnn/LSTM' (LSTM: the gates of every step (float)), " +
          "where the lower bound is 12.3 KiB (12,608 B), 68.4% above this plan's (“Kernel workspace” plans it)",
      },
    ]);
    // With the workspace planned the peak is the If's in either order: no order note.
    const planned = silero([...preset, '--workspace']);
    expect(planned.onnxruntime_order).toEqual({ moved: 2, lower_bound_bytes: planned.lower_bound_bytes });
    expect(planAssumptions(planned).map((a) => a.kind)).toEqual(['workspace']);
  });

  it('planAssumptions: float16 nodes ONNX Runtime runs in float32 (onnxruntime_float16), and the graph it runs', () => {
    const doc = (f) => ({
      positions: 734,
      lower_bound_bytes: 1000,
      strategy: 'arena',
      weights: { bytes: 88037540 },
      onnxruntime_float16: f,
    });
    const ops = ['Conv', 'Relu', 'MaxPool', 'Add', 'Sigmoid'];
    // imgly's float16 U2-Net as the CLI plans it: the graph ONNX Runtime runs planned beside it
    const u2 = {
      nodes: 281,
      ops,
      weight_bytes: 176073520,
      float32_nodes: 298,
      casts: 343,
      peak_bytes: 233657664,
      lower_bound_bytes: 233657664,
      onnxruntime_order_lower_bound_bytes: 265289728,
    };
    const asWritten =
      "float16 tensors as written; ONNX Runtime's CPU execution provider (x86-64) runs 281 float16 nodes in " +
      'float32 (Conv, Relu, MaxPool, Add, Sigmoid), casting their inputs, weights and outputs: float32 copies ' +
      'this plan does not hold; its weights then 168 MiB (176,073,520 B), against 84.0 MiB (88,037,540 B) as written';
    expect(planAssumptions(doc(u2))).toEqual([
      {
        kind: 'float16',
        path: [],
        node: '',
        included: false,
        nodes: 281,
        text:
          `${asWritten}; the graph it runs plans at 223 MiB (233,657,664 B), 253 MiB (265,289,728 B) in ONNX ` +
          "Runtime's order (“float16 on the CPU” plans it)",
      },
    ]);
    // ONNX Runtime's order not known: the peak alone; that graph not planned (deferred): no clause
    expect(planAssumptions(doc({ ...u2, onnxruntime_order_lower_bound_bytes: null }))[0].text).toBe(
      `${asWritten}; the graph it runs plans at 223 MiB (233,657,664 B) (“float16 on the CPU” plans it)`,
    );
    const unplanned = { ...u2, peak_bytes: null, lower_bound_bytes: null, onnxruntime_order_lower_bound_bytes: null };
    expect(planAssumptions(doc(unplanned))[0].text).toBe(asWritten);
    // a plan from before those figures: the same
    expect(planAssumptions(doc({ nodes: 281, ops, weight_bytes: 176073520 }))[0].text).toBe(asWritten);
    // the same weights, or none known: no weights clause
    expect(planAssumptions(doc({ nodes: 281, ops, weight_bytes: 88037540 }))[0].text).toMatch(/does not hold$/);
    expect(planAssumptions(doc({ nodes: 281, ops, weight_bytes: null }))[0].text).toMatch(/does not hold$/);
    const eight = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];
    expect(planAssumptions(doc({ nodes: 1, ops: eight }))[0].text).toContain(
      'runs 1 float16 node in float32 (A, B, C, D, E, F, G, H, …)',
    );
    expect(planAssumptions(doc(null))).toEqual([]);
    expect(planAssumptions(doc({ nodes: 0, ops: [] }))).toEqual([]);
  });

  it("planAssumptions: a plan of the graph ONNX Runtime's CPU execution provider runs (onnxruntime_cpu_graph, plan --float16-cpu)", () => {
    const doc = (g) => ({
      positions: 1065,
      lower_bound_bytes: 233657664,
      strategy: 'arena',
      onnxruntime_float16: null,
      onnxruntime_cpu_graph: g,
    });
    expect(planAssumptions(doc({ float32_nodes: 298, forced: 17, casts: 343, casts_removed: 2 }))).toEqual([
      {
        kind: 'float16',
        path: [],
        node: '',
        included: true,
        nodes: 298,
        text: "the graph ONNX Runtime's CPU execution provider runs: 298 nodes in float32, 343 Casts added, 2 of the file's Casts dropped",
      },
    ]);
    expect(planAssumptions(doc({ float32_nodes: 1, forced: 0, casts: 1, casts_removed: 1 }))[0].text).toBe(
      "the graph ONNX Runtime's CPU execution provider runs: 1 node in float32, 1 Cast added, 1 of the file's Casts dropped",
    );
    expect(planAssumptions(doc({ float32_nodes: 1200, forced: 0, casts: 1500, casts_removed: 0 }))[0].text).toBe(
      "the graph ONNX Runtime's CPU execution provider runs: 1,200 nodes in float32, 1,500 Casts added, 0 of the file's Casts dropped",
    );
    // a model without float16 nodes run in float32: the graph is the file's, nothing to say; no switch: null
    expect(planAssumptions(doc({ float32_nodes: 0, forced: 0, casts: 0, casts_removed: 0 }))).toEqual([]);
    expect(planAssumptions(doc(null))).toEqual([]);
  });

  it("a float16 model: the graph ONNX Runtime's CPU execution provider runs (plan --float16-cpu), its Casts and figures", () => {
    const dir = mkdtempSync(join(tmpdir(), 'memplan-f16-'));
    const file = join(dir, 'f16.onnx');
    writeFileSync(file, float16Model());
    const plan = (args) =>
      JSON.parse(execFileSync(requireNativeCli(), ['plan', file, '--json', ...args], { encoding: 'utf8' }));
    const [written, cpu, inplace] = [plan([]), plan(['--float16-cpu']), plan(['--inplace'])];
    rmSync(dir, { recursive: true, force: true });
    // as written: r, s and t (4 KiB each) at the Sigmoid; that graph's float32 tensors take twice that
    expect([written.peak_bytes, written.onnxruntime_cpu_graph]).toEqual([12288, null]);
    expect(written.onnxruntime_float16).toEqual({
      nodes: 4,
      ops: ['Conv', 'Relu', 'Sigmoid', 'Add'],
      weight_bytes: 2328,
      float32_nodes: 6,
      casts: 4,
      peak_bytes: 28672,
      lower_bound_bytes: 28672,
      onnxruntime_order_lower_bound_bytes: 28672,
    });
    expect([cpu.peak_bytes, cpu.onnxruntime_float16]).toEqual([28672, null]);
    expect(cpu.onnxruntime_cpu_graph).toEqual({ float32_nodes: 6, forced: 2, casts: 4, casts_removed: 0 });
    const f16 = (p) => planAssumptions(p).filter((a) => a.kind === 'float16');
    expect(f16(written)).toEqual([
      {
        kind: 'float16',
        path: [],
        node: '',
        included: false,
        nodes: 4,
        text:
          "float16 tensors as written; ONNX Runtime's CPU execution provider (x86-64) runs 4 float16 nodes in " +
          'float32 (Conv, Relu, Sigmoid, Add), casting their inputs, weights and outputs: float32 copies this plan ' +
          'does not hold; its weights then 2.27 KiB (2,328 B), against 1.15 KiB (1,176 B) as written; the graph it ' +
          'runs plans at 28.0 KiB (28,672 B) (“float16 on the CPU” plans it)', // the same in ONNX Runtime's order: once
      },
    ]);
    // with --inplace ONNX Runtime's order is not planned: the peak alone
    expect(f16(inplace)[0].text).toMatch(
      /; the graph it runs plans at 24\.0 KiB \(24,576 B\) \(“float16 on the CPU” plans it\)$/,
    );
    expect(f16(cpu)).toEqual([
      {
        kind: 'float16',
        path: [],
        node: '',
        included: true,
        nodes: 6,
        text: "the graph ONNX Runtime's CPU execution provider runs: 6 nodes in float32, 4 Casts added, 0 of the file's Casts dropped",
      },
    ]);
    // that graph's nodes and values: the Casts ONNX Runtime inserts and its float32 copies
    const m = normalizePlan(cpu);
    expect(m.nodes.map((nd) => nd.op)).toEqual([
      'Cast',
      'Cast',
      'Conv',
      'Relu',
      'Reshape',
      'Sigmoid',
      'Cast',
      'Transpose',
      'Add',
      'Cast',
    ]);
    expect(m.positions).toBe(10);
    const i = m.index.get('InsertedPrecisionFreeCast_x');
    expect([m.dtype[i], m.size[i]]).toEqual(['float', 8192]);
    expect(memorySeries(m).maxLiveBound, 'the lower bound of that graph').toBe(cpu.lower_bound_bytes);
  });

  it("planAssumptions: the file's order where ONNX Runtime runs another with another lower bound (onnxruntime_order)", () => {
    const doc = (o, extra = {}) => ({
      positions: 672,
      lower_bound_bytes: 39321600,
      strategy: 'arena',
      onnxruntime_order: o,
      subgraphs: [],
      ...extra,
    });
    expect(planAssumptions(doc({ moved: 669, lower_bound_bytes: 46694400 }))).toEqual([
      {
        kind: 'order',
        path: [],
        node: '',
        text:
          "the file's node order; ONNX Runtime runs them in another (669 of 672 positions move), where the lower " +
          "bound is 44.5 MiB (46,694,400 B), 18.8% above this plan's (the order “ONNX Runtime's” plans it)",
      },
    ]);
    expect(planAssumptions(doc({ moved: 3, lower_bound_bytes: 39000000 }))[0].text).toContain('0.8% below');
    // the same order, the same bound, not known, or a slot plan (a raw lower bound): no note
    expect(planAssumptions(doc({ moved: 0, lower_bound_bytes: 39321600 }))).toEqual([]);
    expect(planAssumptions(doc({ moved: 12, lower_bound_bytes: 39321600 }))).toEqual([]);
    expect(planAssumptions(doc(null))).toEqual([]);
    expect(planAssumptions(doc({ moved: 12, lower_bound_bytes: 1 }, { strategy: 'slots' }))).toEqual([]);
  });

  it('planAssumptions: QDQ units planned fused (plan --fuse-qdq), all or some of them', () => {
    const qdq = (units, fused, other = units, int8 = false) =>
      planAssumptions({ qdq_units: units, qdq_fused: fused, qdq_units_other: other, qdq_int8: int8, subgraphs: [] });
    const runs =
      "as ONNX Runtime's CPU execution provider runs them on x86-64: the op reads and writes the quantized tensors";
    expect(qdq(3, 3)).toEqual([
      {
        kind: 'qdq',
        path: [],
        node: '',
        units: 3,
        fused: 3,
        other: 3,
        int8: false,
        text: `3 DequantizeLinear → op → QuantizeLinear units planned fused, ${runs}`,
      },
    ]);
    expect(qdq(1, 1)[0].text).toBe(`1 DequantizeLinear → op → QuantizeLinear unit planned fused, ${runs}`);
    expect(qdq(3, 2)[0].text).toBe(
      `3 DequantizeLinear → op → QuantizeLinear units: 2 planned fused, ${runs}; 1 as written ` +
        "(its QuantizeLinear output is an If branch's output)",
    );
    expect(qdq(3, 1)[0].text.endsWith("2 as written (their QuantizeLinear output is an If branch's output)")).toBe(
      true,
    );
    expect(qdq(2, 0)[0].fused, 'as written').toBe(0);
    expect(qdq(2, undefined)[0].fused, 'a plan from before qdq_fused').toBe(0);
    expect(qdq(2, 7)[0].fused, 'never more than the units').toBe(2);
    expect(planAssumptions({ qdq_units: 2, qdq_fused: 0, subgraphs: [] })[0].other, 'a plan from before').toBe(2);
    // the other platform's units, when they differ; an entry when only it has units
    expect(qdq(2, 2, 5)[0].text).toBe(
      `2 DequantizeLinear → op → QuantizeLinear units planned fused, ${runs}; ` +
        'where int8 QDQ is allowed (as on ARM64), 5 units',
    );
    expect(qdq(4, 0, 1, true)[0].text).toBe(
      '4 DequantizeLinear → op → QuantizeLinear units planned as written (float values between them); ' +
        "ONNX Runtime's CPU execution provider fuses such units where int8 QDQ is allowed (as on ARM64) into int8 ops, " +
        'so it may need less (“QDQ fused” plans them so); on x86-64, 1 unit',
    );
    expect(qdq(0, 0, 3)).toEqual([
      {
        kind: 'qdq',
        path: [],
        node: '',
        units: 0,
        fused: 0,
        other: 3,
        int8: false,
        text:
          'no DequantizeLinear → op → QuantizeLinear unit that ONNX Runtime fuses on x86-64; ' +
          '3 DequantizeLinear → op → QuantizeLinear units where int8 QDQ is allowed (as on ARM64)',
      },
    ]);
    expect(qdq(0, 0, 0)).toEqual([]);
  });

  it("planAssumptions: the kernels' scratch memory (kernel_workspace) left out where it raises the lower bound, or planned (plan --workspace)", () => {
    // U2-Net (imgly, quantized) as the CLI plans it without --workspace
    const ws = {
      runtime: 'onnxruntime-cpu',
      included: false,
      nodes: 119,
      unknown: 0,
      largest_bytes: 301989888,
      largest_node: '/stage1d/rebnconvin/conv_s1/Conv_quant',
      largest_op_type: 'ConvInteger',
      largest_what: 'the im2col of its input (uint8)',
      lower_bound_bytes: 451674240,
    };
    const doc = (w, extra = {}) => ({
      status: 'planned',
      strategy: 'arena',
      lower_bound_bytes: 317456448,
      kernel_workspace: w,
      transients: [],
      subgraphs: [],
      ...extra,
    });
    const largest =
      "the largest 288 MiB (301,989,888 B) at '/stage1d/rebnconvin/conv_s1/Conv_quant' " +
      '(ConvInteger: the im2col of its input (uint8))';
    expect(planAssumptions(doc(ws))).toEqual([
      {
        kind: 'workspace',
        path: [],
        node: '',
        included: false,
        nodes: 119,
        text:
          "kernels take no scratch memory; ONNX Runtime's CPU kernels take some at 119 nodes, " +
          `${largest}, where the lower bound is 431 MiB (451,674,240 B), 42.3% above this plan's ` +
          '(“Kernel workspace” plans it)',
      },
    ]);
    // planned with --workspace: the plan's lower bound is the workspace's
    const planned = { ...ws, included: true, lower_bound_bytes: 451674240 };
    expect(planAssumptions(doc(planned, { lower_bound_bytes: 451674240 }))).toEqual([
      {
        kind: 'workspace',
        path: [],
        node: '',
        included: true,
        nodes: 119,
        text: `the scratch memory ONNX Runtime's CPU kernels take (one intra-op thread), planned at 119 nodes: ${largest}`,
      },
    ]);
    const one = { ...ws, nodes: 1, largest_bytes: 65536, largest_node: 'conv', largest_op_type: 'Conv' };
    expect(planAssumptions(doc({ ...one, largest_what: "one thread's segment of the im2col (float)" }))[0].text).toBe(
      "kernels take no scratch memory; ONNX Runtime's CPU kernels take some at 1 node, the largest 64.0 KiB " +
        "(65,536 B) at 'conv' (Conv: one thread's segment of the im2col (float)), where the lower bound is " +
        "431 MiB (451,674,240 B), 42.3% above this plan's (“Kernel workspace” plans it)",
    );
    // a rise under 0.1% (the float16 U2-Net as ONNX Runtime runs it: 233,657,664 -> 233,723,200 B)
    expect(
      planAssumptions(doc({ ...ws, lower_bound_bytes: 233723200 }, { lower_bound_bytes: 233657664 }))[0].text,
    ).toMatch(/, where the lower bound is 223 MiB \(233,723,200 B\), under 0\.1% above this plan's /);
    // the same bound (the workspace fits beside the tensors), no node with one, deferred (null),
    // a slot plan (a raw lower bound), a plan from before kernel_workspace: no note
    expect(planAssumptions(doc({ ...ws, lower_bound_bytes: 317456448 }))).toEqual([]);
    expect(planAssumptions(doc({ ...ws, nodes: 0, largest_bytes: 0, largest_node: null }))).toEqual([]);
    expect(planAssumptions(doc(null))).toEqual([]);
    expect(planAssumptions(doc(ws, { strategy: 'slots' }))).toEqual([]);
    expect(planAssumptions(doc(undefined))).toEqual([]);
    // a workspace's transient (kind 'workspace') is no assumed branch, in the main graph or a body
    const wsT = (node) => ({
      node,
      op_type: 'LSTM',
      kind: 'workspace',
      position: 1,
      bytes: 4096,
      assumption: 'not a branch',
      what: 'the gate buffers',
    });
    const tree = doc(planned, {
      lower_bound_bytes: 451674240,
      transients: [wsT('lstm')],
      subgraphs: [
        {
          node: 'loop',
          attribute: 'body',
          counted: true,
          plan: { transients: [wsT('inner')], subgraphs: [] },
        },
      ],
    });
    expect(planAssumptions(tree).map((a) => a.kind)).toEqual(['workspace']);
  });

  it("a kernel's workspace (plan --workspace) is a buffer at its node: the table's status, at_peak, the bands' group", () => {
    const dir = mkdtempSync(join(tmpdir(), 'memplan-ws-'));
    const file = join(dir, 'conv.onnx');
    writeFileSync(file, convModel());
    const plan = (args) =>
      JSON.parse(execFileSync(requireNativeCli(), ['plan', file, '--json', ...args], { encoding: 'utf8' }));
    const [tensors, ws] = [plan([]), plan(['--workspace'])];
    rmSync(dir, { recursive: true, force: true });
    const what = "one thread's segment of the im2col (float)";
    expect(tensors.kernel_workspace).toEqual({
      runtime: 'onnxruntime-cpu',
      included: false,
      nodes: 1,
      unknown: 0,
      largest_bytes: 65536,
      largest_node: 'conv',
      largest_op_type: 'Conv',
      largest_what: what,
      lower_bound_bytes: 71808,
    });
    // c and y (6,272 B each) without; the Conv's 64 KiB beside c with it
    expect([tensors.lower_bound_bytes, ws.lower_bound_bytes, ws.kernel_workspace.lower_bound_bytes]).toEqual([
      12544, 71808, 71808,
    ]);
    expect(planAssumptions(tensors).map((a) => a.text)).toEqual([
      "kernels take no scratch memory; ONNX Runtime's CPU kernels take some at 1 node, the largest 64.0 KiB " +
        `(65,536 B) at 'conv' (Conv: ${what}), where the lower bound is 70.1 KiB (71,808 B), 472.4% above ` +
        "this plan's (“Kernel workspace” plans it)",
    ]);
    expect(planAssumptions(ws).map((a) => a.text)).toEqual([
      "the scratch memory ONNX Runtime's CPU kernels take (one intra-op thread), planned at 1 node: the largest " +
        `64.0 KiB (65,536 B) at 'conv' (Conv: ${what})`,
    ]);
    const m = normalizePlan(ws);
    const i = m.index.get('conv');
    expect([i, m.nValues, m.transient(i), m.workspace(i), m.workspace(0), m.start[i], m.end[i], m.size[i]]).toEqual([
      ws.values.length,
      ws.values.length,
      true,
      true,
      false,
      0,
      0,
      65536,
    ]);
    expect(valueRows(m)[i]).toMatchObject({
      name: 'conv',
      shape: '',
      size: 65536,
      status: `workspace (Conv: ${what})`,
    });
    const made = new Map(m.nodes.flatMap((nd) => (nd.outputs ?? []).map((o) => [o, nd])));
    const producer = (n) => made.get(n) ?? null;
    expect(liveAt(m, ws.at_peak.position, producer)).toEqual(ws.at_peak.buffers);
    expect(ws.at_peak.buffers[0]).toMatchObject({ name: 'conv', transient: true, workspace: true, bytes: 65536 });
    expect(memorySeries(m).maxLiveBound, 'the lower bound counts it').toBe(ws.lower_bound_bytes);
    const groups = (mode) => {
      const g = bandGroups(m, producer, mode);
      return g.groups[g.group[i]].label;
    };
    expect([groups('op'), groups('module1')]).toEqual(['(kernel workspace)', '(top level)']);
  });

  it('searchBodies counts the matching values and transients of each body, with the path to it', () => {
    const plan = silero(preset);
    const hits = searchBodies(plan, (s) => s.endsWith('decoder/rnn_1/LSTM_output_0'));
    expect(hits.map((h) => [h.label, h.count, h.path.map((p) => p.attribute)])).toEqual([
      [
        "If 'If_0' else_branch (branch not taken) › If 'If_0_else_branch__Inline_0__/decoder/If_1' else_branch (branch not taken)",
        1,
        ['else_branch', 'else_branch'],
      ],
      [
        "If 'If_0' then_branch (branch taken) › If 'If_0_then_branch__Inline_0__/decoder/If_1' else_branch (branch not taken)",
        1,
        ['then_branch', 'else_branch'],
      ],
    ]);
    // A control-flow node's memory is found by its node's name.
    expect(searchBodies(plan, (s) => s.endsWith('/decoder/If')).map((h) => [h.label, h.count])).toEqual([
      ["If 'If_0' else_branch (branch not taken)", 1],
      ["If 'If_0' then_branch (branch taken)", 1],
    ]);
    expect(searchBodies(plan, () => false)).toEqual([]);
  });
});
