// The sweep chart's y scale (sweepScale, web/src/charts/sweep.js): the naive
// total sets it only while it stays within 3x the planned peak and the lower
// bound; past that its line is left out so the peak stays readable.
import { describe, expect, it } from 'vitest';
import { sweepScale } from '../web/src/charts/sweep.js';

const pt = (peak, bound, naive, status = 'planned') => ({
  value: 1,
  status,
  peak_bytes: peak,
  lower_bound_bytes: bound,
  naive_bytes: naive,
});

describe('sweepScale', () => {
  it('naive within 3x: on the scale', () => {
    expect(sweepScale([pt(100, 90, 250), pt(200, 180, 600)])).toEqual({ top: 600, naiveTop: 600, naiveShown: true });
  });
  it('naive past 3x (PP-OCRv4 det: 690 MB naive over a 39 MB peak): off the scale', () => {
    expect(sweepScale([pt(39321600, 39321600, 690690944)])).toEqual({
      top: 39321600,
      naiveTop: 690690944,
      naiveShown: false,
    });
  });
  it('points not planned do not count; none planned: top 1', () => {
    expect(sweepScale([pt(null, null, null, 'deferred'), pt(10, 10, 20)])).toEqual({
      top: 20,
      naiveTop: 20,
      naiveShown: true,
    });
    expect(sweepScale([])).toEqual({ top: 1, naiveTop: 0, naiveShown: true });
  });
});
