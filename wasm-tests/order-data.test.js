// orderFigures (web/src/data/order.js): the page's order line from a plan
// document's `order`, with exact values.
import { describe, expect, it } from 'vitest';
import { orderFigures } from '../web/src/data/order.js';

describe('orderFigures', () => {
  it('reads the figures of a plan made under an order', () => {
    const doc = {
      order: {
        asked: 'best',
        name: 'greedy',
        exact: true,
        positions: [5, 0, 2, 1, 3, 4, 6],
        file_lower_bound_bytes: 2624,
        file_peak_bytes: 2624,
        lower_bound_bytes: 1408,
        peak_bytes: 1408,
        saving_bytes: 1216,
      },
    };
    expect(orderFigures(doc)).toEqual({
      asked: 'best',
      name: 'greedy',
      exact: true,
      moved: 5,
      filePeak: 2624,
      fileLowerBound: 2624,
      peak: 1408,
      lowerBound: 1408,
      saving: 1216,
      written: null,
      savingRatio: 0.4634,
    });
  });
  it("ONNX Runtime's order: a negative saving, and the lower bound of the file written for it", () => {
    const f = orderFigures({
      order: {
        asked: 'onnxruntime',
        name: 'onnxruntime',
        exact: false,
        positions: [1, 0, 2],
        file_lower_bound_bytes: 39321600,
        file_peak_bytes: 39321600,
        lower_bound_bytes: 46694400,
        peak_bytes: 46694400,
        saving_bytes: -7372800,
        written_lower_bound_bytes: 39321600,
      },
    });
    expect([f.name, f.moved, f.saving, f.savingRatio, f.written]).toEqual([
      'onnxruntime',
      2,
      -7372800,
      -0.1875,
      39321600,
    ]);
  });
  it('null without an order; null figures while deferred; a zero peak saves 0', () => {
    expect(orderFigures({ status: 'planned' })).toBe(null);
    expect(orderFigures(null)).toBe(null);
    const d = orderFigures({
      order: {
        asked: 'best',
        name: 'file',
        exact: false,
        positions: [0, 1],
        peak_bytes: null,
        file_peak_bytes: null,
        saving_bytes: null,
      },
    });
    expect([d.moved, d.peak, d.filePeak, d.saving, d.savingRatio]).toEqual([0, null, null, null, null]);
    const z = orderFigures({ order: { file_peak_bytes: 0, peak_bytes: 0, saving_bytes: 0, positions: [] } });
    expect(z.savingRatio).toBe(0);
  });
});
