// What the charts draw from, without a browser: the interval index that culls
// bars to the visible x range (checked against a linear scan), and the pixel
// rasterizer the bars are drawn with (exact pixels).
import { describe, expect, it } from 'vitest';
import { intervalIndex, queryIntervals } from '../web/src/data/series.js';
import { normalizePlan } from '../web/src/data/plan.js';
import { syntheticPlan } from '../web/src/data/synthetic.js';
import { PALETTE_PIXELS, RasterMarks, pixelOf } from '../web/src/charts/base.js';

/** The linear scan the charts did before: i is drawn unless end+1 < d0 or start > d1. */
const scan = (start, end, d0, d1, keep = () => true) => {
  const out = [];
  for (let i = 0; i < start.length; i++) if (keep(i) && !(end[i] + 1 < d0 || start[i] > d1)) out.push(i);
  return out;
};
const query = (ix, start, end, d0, d1) => {
  const out = new Int32Array(ix.n);
  return [...out.subarray(0, queryIntervals(ix, start, end, d0, d1, out))];
};
const sorted = (a) => [...a].sort((x, y) => x - y);

describe('intervalIndex', () => {
  // i:      0  1  2  3  4   5  6
  const start = Int32Array.from([5, 0, 2, 9, 3, 0, 7]);
  const end = Int32Array.from([5, 9, 3, 9, 6, 0, 8]);
  it('groups by length class (0, 1, 2-3, 4-7, 8-15), each sorted by start', () => {
    const ix = intervalIndex(start, end);
    expect(ix.n).toBe(7);
    // lengths end-start: 0, 9, 1, 0, 3, 0, 1 -> classes 0, 4, 1, 0, 2, 0, 1
    expect([...ix.order]).toEqual([5, 0, 3, 2, 6, 4, 1]);
    expect([...ix.starts]).toEqual([0, 5, 9, 2, 7, 3, 0]);
    expect([...ix.classOffset.slice(0, 6)]).toEqual([0, 3, 5, 6, 6, 7]);
    expect(ix.classOffset[33]).toBe(7);
  });
  it('returns the intervals that meet [d0, d1] (an interval covers [start, end+1))', () => {
    const ix = intervalIndex(start, end);
    expect(query(ix, start, end, 4, 4.5)).toEqual([2, 4, 1]); // 2 ends at 3: covers up to 4
    expect(query(ix, start, end, 4.01, 4.5)).toEqual([4, 1]);
    expect(query(ix, start, end, 9.5, 20)).toEqual([3, 1]);
    expect(query(ix, start, end, 10.5, 20)).toEqual([]);
    expect(query(ix, start, end, -5, -0.5)).toEqual([]);
    expect(query(ix, start, end, -5, 0)).toEqual([5, 1]);
    expect(sorted(query(ix, start, end, -1, 100))).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
  it('keeps only the intervals keep(i) picks', () => {
    const ix = intervalIndex(start, end, (i) => i % 2 === 0);
    expect(ix.n).toBe(4);
    expect([...ix.order]).toEqual([0, 2, 6, 4]);
    expect(query(ix, start, end, 0, 10)).toEqual([0, 2, 6, 4]);
  });
  it('is empty for no intervals', () => {
    const ix = intervalIndex(new Int32Array(0), new Int32Array(0));
    expect(ix.n).toBe(0);
    expect(query(ix, new Int32Array(0), new Int32Array(0), 0, 10)).toEqual([]);
  });
  it('equals a linear scan on a synthetic plan of 20,000 values, owners and views, at many ranges', () => {
    const m = normalizePlan(syntheticPlan(20_000, { seed: 3 }));
    const owners = (i) => m.owner[i] === i,
      views = (i) => m.owner[i] !== i;
    for (const keep of [owners, views]) {
      const ix = intervalIndex(m.start, m.end, keep);
      const ranges = [
        [0, m.positions],
        [-10, 3],
        [100, 100],
        [100.25, 100.75],
        [1234.5, 1500.2],
        [4000, 4100],
        [m.positions - 3, m.positions + 5],
        [2500, 2499],
      ];
      for (const [d0, d1] of ranges)
        expect(sorted(query(ix, m.start, m.end, d0, d1))).toEqual(scan(m.start, m.end, d0, d1, keep));
    }
  });
});

describe('RasterMarks', () => {
  const frame = { canvas: { width: 8, height: 4 }, dpr: 1 };
  const rows = (r) =>
    Array.from({ length: r.H }, (_, y) =>
      [...r.buf.subarray(y * r.W, (y + 1) * r.W)].map((p) => (p ? p.toString(16).slice(-1) : '.')).join(''),
    );
  it('fills whole pixels: edges rounded, at least one pixel each way, clipped', () => {
    const r = new RasterMarks();
    r.begin(frame, 1, 0, 7, 4);
    r.rect(0xff000001, 1.4, 0.2, 2.2, 1.1); // x [1, 4), y [0, 1)
    r.rect(0xff000002, 5.2, 1.6, 0.1, 0.1); // under a pixel: [5, 6) x [2, 3)
    r.rect(0xff000003, -3, 3, 30, 9); // clipped to x [1, 7), y [3, 4)
    r.rect(0xff000004, 0, 0, 0.4, 4); // left of the clip: nothing
    expect(rows(r)).toEqual(['.111....', '........', '.....2..', '.333333.']);
    expect([r.y0, r.y1]).toEqual([0, 4]);
  });
  it('a new frame clears what the last one wrote; device pixels at dpr 2', () => {
    const r = new RasterMarks();
    r.begin(frame, 0, 0, 8, 4);
    r.rect(0xff000005, 0, 1, 8, 1);
    r.begin({ canvas: { width: 8, height: 4 }, dpr: 2 }, 0, 0, 4, 2);
    r.rect(0xff000006, 0.75, 0.5, 1, 0.25); // x [1.5, 3.5) -> [2, 4), y [1, 1.5) -> [1, 2)
    expect(rows(r)).toEqual(['........', '..66....', '........', '........']);
  });
  it('pixels are little-endian RGBA, opaque', () => {
    expect(pixelOf('#4e79a7')).toBe(0xffa7794e);
    expect(PALETTE_PIXELS[0]).toBe(0xffa7794e);
    expect(PALETTE_PIXELS.length).toBe(16);
  });
});

describe("rowBand (the slot chart's row scale)", () => {
  it('places rows as d3.scaleBand over 0..n-1 does, for the axis and the picker', async () => {
    const { scaleBand } = await import('d3');
    const { rowBand } = await import('../web/src/charts/slots.js');
    for (const n of [0, 1, 2, 7, 1000]) {
      for (const range of [
        [24, 196],
        [0, 1],
        [300, 10],
      ]) {
        const d3b = scaleBand()
          .paddingInner(0.15)
          .domain(Array.from({ length: n }, (_, k) => k))
          .range(range);
        const ours = rowBand(0.15).count(n).range(range);
        expect(ours.step()).toBeCloseTo(d3b.step(), 9);
        expect(ours.bandwidth()).toBeCloseTo(d3b.bandwidth(), 9);
        expect(ours.range()).toEqual(range);
        for (let k = 0; k < n; k++) expect(ours(k)).toBeCloseTo(d3b(k), 9);
        const copy = ours.copy();
        expect([copy.count(), copy(n - 1), copy.bandwidth()]).toEqual([n, ours(n - 1), ours.bandwidth()]);
      }
    }
  });
});
