// memplan.pack() in WebAssembly (mp_pack_csv) against `memplan pack --json`:
// the same offsets for the same options and seed (the search stops on a work
// count, not the clock), and the C messages for bad input.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NATIVE_CLI, ROOT, loadMemplan, requireNativeCli } from './helpers.js';

function instance(n, seed) {
  // deterministic model-like lifetimes and sizes
  let s = seed >>> 0;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const rows = ['id,lower,upper,size'];
  for (let i = 0; i < n; i++) {
    const lo = Math.floor((rnd() * n) / 4);
    rows.push(`v${i},${lo},${lo + 1 + Math.floor(rnd() * 30)},${1 + Math.floor(rnd() * 65536)}`);
  }
  return rows.join('\n') + '\n';
}

const DSA = join(ROOT, '..', 'shared', 'dsa-bench');
const CASES = [
  ['random 300', instance(300, 7)],
  ['random 3000', instance(3000, 11)],
  // above 4,096 buffers: first fit on the banded pressure orders, then with a budget its
  // squeaky-wheel rounds (keys compared by their bit patterns and doubled, so WASM must band
  // them alike; at 20 ms six rounds win)
  ['random 6000', instance(6000, 13)],
  ...(existsSync(DSA)
    ? readdirSync(DSA)
        .filter((f) => f.endsWith('.csv'))
        .sort()
        .map((f) => [`dsa ${f}`, readFileSync(join(DSA, f), 'utf8')])
    : []),
];
// --wall-cap-ms: the search's wall-clock safety stop (default 8 x budget + 100 ms) cut
// the WASM search short on a loaded machine (load average 13 on 2 cores), so it is
// raised here and the two stop on the work count alone.
const CAP = ['--wall-cap-ms', '600000'];
const OPTIONS = [
  ['--align', '1', '--budget-ms', '0'],
  ['--align', '64', '--budget-ms', '20', ...CAP],
  ['--align', '1', '--budget-ms', '20', '--seed', '5', ...CAP],
];

describe('pack', () => {
  const dir = mkdtempSync(join(tmpdir(), 'memplan-pack-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it.each(CASES)(
    'equals the native CLI: %s',
    async (name, csv) => {
      requireNativeCli();
      const mp = await loadMemplan();
      const file = join(dir, `${name.replace(/\W+/g, '_')}.csv`);
      writeFileSync(file, csv);
      for (const args of OPTIONS) {
        const native = JSON.parse(
          execFileSync(NATIVE_CLI, ['pack', file, '--json', ...args], { encoding: 'utf8', maxBuffer: 64 << 20 }),
        );
        // The search stops on its work count (20 ms of work).
        expect(mp.pack(csv, args), `${name} ${args.join(' ')}`).toEqual(native);
      }
    },
    120_000,
  );

  it('runs the same search and exact mode past 250 ms as the native CLI', async () => {
    requireNativeCli();
    const mp = await loadMemplan();
    const run = (file, ms) =>
      JSON.parse(
        execFileSync(NATIVE_CLI, ['pack', file, '--json', '--align', '1', '--budget-ms', ms, ...CAP], {
          encoding: 'utf8',
        }),
      );
    const csv = instance(200, 3),
      file = join(dir, 'rounds.csv');
    writeFileSync(file, csv);
    // The exact mode's share at the bound finds a packing there (an early
    // exact mode gave up, and the search ended +1.32% above at 250 ms).
    const one = run(file, '250');
    expect(one.arena_bytes).toBe(2299065);
    expect(one.lower_bound_bytes).toBe(2299065);
    expect(one.optimal).toBe(true);
    expect(one.proven_lower_bound_bytes).toBe(2299065);
    expect(one.heuristic).toBe('exact');
    expect(one.iterations).toBe(0);
    expect(mp.pack(csv, ['--align', '1', '--budget-ms', '250', ...CAP])).toEqual(one);
    // dsa D misses the bound: at 250 ms the exact mode below the annealing's
    // best (hinted with it) ends 8.6% above it; at 500 ms more rounds and
    // then the exact mode go lower (+5.1%).
    const d = join(DSA, 'D.1048576.csv');
    if (!existsSync(d)) return;
    const first = run(d, '250'),
      rounds = run(d, '500');
    expect(first.arena_bytes).toBe(1071104);
    expect(first.optimal).toBe(false);
    expect(first.proven_lower_bound_bytes).toBe(986112);
    expect(first.heuristic).toBe('exact');
    expect(rounds.arena_bytes).toBe(1036288);
    expect(rounds.heuristic).toBe('exact');
    expect(rounds.iterations).toBeGreaterThan(first.iterations);
    expect(mp.pack(readFileSync(d, 'utf8'), ['--align', '1', '--budget-ms', '500', ...CAP])).toEqual(rounds);
  }, 120_000);

  it('reports the C message for bad CSV and bad options, and stays usable', async () => {
    const mp = await loadMemplan();
    expect(() => mp.pack('id,lower,upper,size\na,0,3,100\nb,x,4,60\n')).toThrow(/line 3: lower 'x' is not an integer/);
    expect(() => mp.pack('id,lower,upper,size\n', ['--align', '3'])).toThrow(/--align needs a power of two/);
    expect(() => mp.pack('id,lower,upper,size\n', ['--seed', '-1'])).toThrow(/--seed needs a non-negative integer/);
    expect(() => mp.pack(42)).toThrow(TypeError);
    expect(() => mp.pack('', ['a\nb'])).toThrow(TypeError);
    const ok = mp.pack('id,lower,upper,size\na,0,3,100\nb,1,4,60\nc,3,6,30\n', ['--align', '64']);
    expect(ok).toEqual({
      buffers: 3,
      align: 64,
      arena_bytes: 192,
      lower_bound_bytes: 192,
      proven_lower_bound_bytes: 192,
      optimal: true,
      gap_ratio: 1,
      heuristic: 'greedy-size',
      iterations: 0,
      offsets: [
        { id: 'a', offset: 0 },
        { id: 'b', offset: 128 },
        { id: 'c', offset: 0 },
      ],
    });
    const native = spawnSync(NATIVE_CLI, ['pack', join(dir, 'none.csv')], { encoding: 'utf8' });
    expect(native.status).toBe(2);
  });
});
