// The sweep chart's y scale (sweepScale, web/src/charts/sweep.js): the naive
// total and the total to fit set it only while they stay within 3x the
// planned peak and the lower bound; past that their lines are left out so
// the peak stays readable.
import { describe, expect, it } from 'vitest';
import { sweepScale } from '../web/src/charts/sweep.js';

const pt = (peak, bound, naive, status = 'planned', total = null) => ({
  value: 1,
  status,
  peak_bytes: peak,
  lower_bound_bytes: bound,
  naive_bytes: naive,
  total_bytes: total,
});
const off = { totalLow: 0, totalTop: 0, totalShown: true }; // no total known

describe('sweepScale', () => {
  it('naive within 3x: on the scale', () => {
    expect(sweepScale([pt(100, 90, 250), pt(200, 180, 600)])).toEqual({
      top: 600,
      naiveTop: 600,
      naiveShown: true,
      ...off,
    });
  });
  it('naive past 3x (PP-OCRv4 det: 690 MB naive over a 39 MB peak): off the scale', () => {
    expect(sweepScale([pt(39321600, 39321600, 690690944)])).toEqual({
      top: 39321600,
      naiveTop: 690690944,
      naiveShown: false,
      ...off,
    });
  });
  it('points not planned do not count; none planned: top 1', () => {
    expect(sweepScale([pt(null, null, null, 'deferred'), pt(10, 10, 20)])).toEqual({
      top: 20,
      naiveTop: 20,
      naiveShown: true,
      ...off,
    });
    expect(sweepScale([])).toEqual({ top: 1, naiveTop: 0, naiveShown: true, ...off });
  });
  it('the total to fit within 3x: on the scale, with the naive total past it', () => {
    expect(sweepScale([pt(100, 90, 200, 'planned', 250), pt(200, 180, 400, 'planned', 550)])).toEqual({
      top: 550,
      naiveTop: 400,
      naiveShown: true,
      totalLow: 250,
      totalTop: 550,
      totalShown: true,
    });
  });
  it('weights 100x the arena: the total to fit off the scale, a point of unknown total left out', () => {
    expect(sweepScale([pt(39424, 39424, 41000, 'planned', 4727000), pt(40000, 40000, 41000, 'planned', null)])).toEqual(
      {
        top: 41000,
        naiveTop: 41000,
        naiveShown: true,
        totalLow: 4727000,
        totalTop: 4727000,
        totalShown: false,
      },
    );
  });
});
