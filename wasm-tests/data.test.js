// The visualizer's data layer (web/src/data): exact values on a hand-made
// plan, and the figures it derives checked against the CLI's JSON on planned
// fixtures (lower bound = max aligned live bytes, naive = last naive point,
// arena peak = max extent).
import { execFileSync } from 'node:child_process';
import { describe, expect, it, beforeAll } from 'vitest';
import { alignUp, normalizePlan, intervalRows } from '../web/src/data/plan.js';
import { filterRows, memorySeries, nodeRows, slotOccupancy, sortRows, valueRows } from '../web/src/data/series.js';
import { csvField, netronAttachment, toCSV } from '../web/src/data/export.js';
import { syntheticPlan } from '../web/src/data/synthetic.js';
import { byteTicks, formatBytes } from '../web/src/data/format.js';
import { requireNativeCli } from './helpers.js';
import { ensureVizFixtures, LARGEST, MEDIUM, SMALL, SYMBOLIC } from './viz-fixtures.js';

// Positions 0..5. a [0,2] 100 B at 0; b [1,3] 64 B at 128 (view v of b [2,3]);
// c [3,5] 200 B at 0; d [4,5] unknown size (deferred-style null).
const PLAN = {
  status: 'planned', strategy: 'slots', align: 64, positions: 6,
  naive_bytes: 364, peak_bytes: 392, lower_bound_bytes: 384, savings_ratio: 0.1,
  strategies: { arena: 384, slots: 392 },
  slots: [{ id: 1, capacity: 64, offset: 256 }, { id: 0, capacity: 200, offset: 0 }],
  values: [
    { name: 'a', size: 100, start: 0, end: 2, owner: 'a', view: false, slot: 0, offset: 0 },
    { name: 'b', size: 64, start: 1, end: 3, owner: 'b', view: false, slot: 1, offset: 256 },
    { name: 'v', size: 64, start: 2, end: 3, owner: 'b', view: true, slot: 1, offset: 256 },
    { name: 'c', size: 200, start: 3, end: 5, owner: 'c', view: false, slot: 0, offset: 0 },
    { name: 'd', size: null, start: 4, end: 5, owner: 'd', view: false, slot: null, offset: null },
  ],
  unplanned: [{ name: 's', reason: 'sequence' }],
  unknown: { values: [{ name: 'd', reason: 'unbound dims' }], dims: ['batch'] },
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
    expect(m.lowerBound).toBe(384);
    expect(intervalRows(m).value.length).toBe(5);
  });
  it('tolerates missing and null fields (deferred plans, older builds)', () => {
    const m = normalizePlan({ status: 'deferred', values: [{ name: 'x', start: 2, end: 4, size: null, owner: 'gone' }] });
    expect(m.positions).toBe(5);
    expect(m.planned).toBe(false);
    expect(m.peak).toBe(null);
    expect([...m.owner]).toEqual([0]);
    expect(m.slots).toEqual([]);
    expect(m.unknownDims).toEqual([]);
    expect(() => normalizePlan(null)).toThrow(TypeError);
  });
  it('alignUp', () => {
    expect([alignUp(0, 64), alignUp(1, 64), alignUp(64, 64), alignUp(65, 64), alignUp(7, 1), alignUp(7, 0)]).toEqual([0, 64, 64, 128, 7, 7]);
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
    expect(s.maxExtent).toBe(320);
    expect(s.peakPositions).toEqual([3]);
    expect(s.partial).toBe(true);
  });
  it('arena plans count the naive total in aligned sizes', () => {
    const s = memorySeries(normalizePlan({ ...PLAN, strategy: 'arena' }));
    expect([...s.naive]).toEqual([128, 192, 192, 448, 448, 448]);
  });
});

describe('slotOccupancy', () => {
  it('rows in slot order with segments and utilisation', () => {
    const { rows, segments } = slotOccupancy(normalizePlan(PLAN));
    expect(rows.map((r) => [r.id, r.capacity, r.used, r.busy])).toEqual([[0, 200, 2, 6], [1, 64, 1, 3]]);
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
  it('node rows', () => {
    const rows = nodeRows(m, memorySeries(m), [{ name: 'n0', op_type: 'Conv' }]);
    expect(rows.map((r) => [r.position, r.outputs, r.allocated, r.freed, r.live])).toEqual([
      [0, ['a'], 100, 0, 100], [1, ['b'], 64, 0, 164], [2, ['v'], 0, 100, 164],
      [3, ['c'], 200, 64, 264], [4, ['d'], 0, 0, 200], [5, [], 0, 200, 200]]);
    expect([rows[0].name, rows[0].op, rows[1].op]).toEqual(['n0', 'Conv', '']);
  });
  it('value rows, filter, sort', () => {
    const rows = valueRows(m);
    expect(rows[2]).toEqual({ index: 2, name: 'v', size: 64, start: 2, end: 3, length: 2, owner: 'b', view: true, slot: 1, offset: 256, status: 'view' });
    expect(rows[4].status).toBe('unknown: unbound dims');
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
    const rows = valueRows(m).slice(0, 2);
    expect(toCSV(rows, ['name', 'size', { key: 'start', label: 'first' }])).toBe('name,size,first\na,100,0\nb,64,1\n');
    const att = netronAttachment(m, { values: valueRows(m), nodes: nodeRows(m), producer: 'onnx-memplan 0.1.0', model: 'x.onnx' });
    expect(att.signature).toBe('netron:attachment');
    expect(att.plan).toEqual({ status: 'planned', strategy: 'slots', align: 64, positions: 6, naive_bytes: 364, peak_bytes: 392, lower_bound_bytes: 384, savings_ratio: 0.1 });
    expect(att.values[2]).toEqual({ name: 'v', metrics: [
      { name: 'size', value: 64, unit: 'bytes' }, { name: 'start', value: 2, unit: 'position' }, { name: 'end', value: 3, unit: 'position' },
      { name: 'offset', value: 256, unit: 'bytes' }, { name: 'slot', value: 1 }, { name: 'owner', value: 'b' }] });
    expect(att.values[4].metrics.map((x) => x.name)).toEqual(['start', 'end']);
    expect(att.nodes[3].metrics[0]).toEqual({ name: 'live', value: 264, unit: 'bytes' });
    expect(JSON.parse(JSON.stringify(att))).toEqual(att);
  });
  it('formatBytes', () => {
    expect([formatBytes(0), formatBytes(1023), formatBytes(1536), formatBytes(13702400), formatBytes(null)])
      .toEqual(['0 B', '1,023 B', '1.50 KiB', '13.1 MiB', '—']);
    expect(formatBytes(5 * 1048576, { trim: true })).toBe('5 MiB');
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
    ensureVizFixtures();
  }, 120_000);
  const plan = (file, args) => JSON.parse(execFileSync(cli, ['plan', file, '--json', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 }));
  const cases = [];
  for (const f of [SMALL, MEDIUM, LARGEST, SYMBOLIC]) {
    for (const args of [[], ['--strategy', 'slots'], ['--align', '1'], ['--align', '256', '--strategy', 'slots']]) {
      cases.push([f.split('/').pop(), [...args, '--dim', 'batch=2', '--dim', 'seq=5'], f]);
    }
  }
  it.each(cases)('%s %j', (_name, args, file) => {
    const j = plan(file, args);
    expect(j.status).toBe('planned');
    const m = normalizePlan(j);
    const s = memorySeries(m);
    expect(s.maxLiveAligned).toBe(j.lower_bound_bytes);
    expect(s.naive[m.positions - 1]).toBe(j.naive_bytes);
    if (j.strategy === 'arena') expect(s.maxExtent).toBe(j.peak_bytes);
    else expect(m.slots.reduce((t, x) => t + x.capacity, 0)).toBe(j.peak_bytes);
    const occ = slotOccupancy(m);
    expect(occ.rows.length).toBe(j.slots.length);
    for (let k = 0; k < occ.segments.n; k++) expect(occ.segments.size[k]).toBeLessThanOrEqual(occ.rows[occ.segments.row[k]].capacity);
  });
  it('a deferred plan keeps its intervals and lists the unbound dims', () => {
    const j = plan(SYMBOLIC, []);
    expect(j.status).toBe('deferred');
    const m = normalizePlan(j);
    expect(m.unknownDims).toEqual(['batch', 'seq']);
    expect(m.rowCount).toBe(6);
    expect(memorySeries(m).unknown.some((u) => u > 0)).toBe(true);
  });
});
