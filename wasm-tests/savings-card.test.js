// The Savings card (savingsOf and savingsCard, web/src/app/figures.js): with
// in-place reuse on, the ratio is rebased against the naive total without it,
// and the card says so and gives the CLI's savings_ratio (the figures of
// PP-OCRv4 det at 1x3x640x640, from notes/coldpage.md #4). On the page:
// browser/dims.test.js and browser/coldpage.test.js.
import { describe, expect, it } from 'vitest';
import { savingsCard, savingsOf } from '../web/src/app/figures.js';
import { normalizePlan } from '../web/src/data/plan.js';

const plan = (naive, peak, ratio) =>
  normalizePlan({ status: 'planned', naive_bytes: naive, peak_bytes: peak, savings_ratio: ratio, values: [] });

describe('the Savings card', () => {
  it('without in-place reuse: the plan’s savings_ratio, as before', () => {
    const m = plan(690690944, 39321600, 0.943069);
    const sv = savingsOf({ m, baseline: null, path: [] });
    expect(sv).toEqual({ naive: 690690944, naiveExact: 690690944, savings: 0.943069, rebased: false });
    expect(savingsCard(sv, m)).toEqual({
      exact: 'ratio 0.943069',
      title: '1 - planned peak / naive total (savings_ratio)',
    });
  });

  it('in-place reuse on: rebased on the naive total without it, said in the exact line and title with the CLI’s ratio', () => {
    const m = plan(157329152, 27033600, 0.828172);
    const sv = savingsOf({ m, baseline: { naive_bytes: 690690944 }, path: [] });
    expect(sv).toEqual({ naive: 690690944, naiveExact: 690690944, savings: 0.96086, rebased: true });
    expect(savingsCard(sv, m)).toEqual({
      exact: 'ratio 0.96086 (rebased; CLI 0.828172)',
      title:
        '1 - planned peak / naive total without in-place reuse (690,690,944 B): rebased, so that turning in-place ' +
        "reuse on never lowers the baseline. The CLI's savings_ratio with --inplace is 0.828172, against that plan's " +
        'own naive total (157,329,152 B)',
    });
  });

  it('a deferred plan: no ratio', () => {
    const m = normalizePlan({ status: 'deferred', naive_bytes: null, peak_bytes: null, savings_ratio: null });
    expect(savingsCard(savingsOf({ m, baseline: { naive_bytes: 100 }, path: [] }), m)).toEqual({
      exact: '',
      title: '1 - planned peak / naive total (savings_ratio)',
    });
  });
});
