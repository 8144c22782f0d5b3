// The value and node tables' column widths (columnWidths, web/src/app/table.js):
// each column its weight's share of the table's least width (62rem), and a
// numeric column at least as wide as its longest number, so that "245,760"
// is never cut to "245,7…" in a narrow view. On the page: browser/coldpage.test.js.
import { describe, expect, it } from 'vitest';
import { columnWidths, NODE_COLUMNS, VALUE_COLUMNS } from '../web/src/app/table.js';

const rem = (ws) => ws.map((w) => w.toFixed(2));

describe('columnWidths', () => {
  // Weights (value table): names 3, shape 2, bytes 1.4, dtype and note 1.2, other numbers 1.1: 20.6 in all.
  it('no rows: the weights share 62rem', () => {
    const ws = columnWidths(VALUE_COLUMNS, []);
    expect(rem(ws)).toEqual([
      '9.03',
      '3.61',
      '6.02',
      '4.21',
      '3.31',
      '3.31',
      '3.31',
      '9.03',
      '3.31',
      '4.21',
      '3.61',
      '9.03',
    ]);
    expect(ws.reduce((a, w) => a + w, 0)).toBeCloseTo(62, 9);
  });

  it('a numeric column grows to its longest number (7 chars: 7 × .53 + 1.3 = 5.01rem), negatives and BigInt counted', () => {
    const rows = [
      { size: 245760, offset: 0, start: 1, end: 2, length: 2, slot: null },
      { size: 1024, offset: 491520, start: 3, end: 4, length: 2, slot: null },
    ];
    const ws = columnWidths(VALUE_COLUMNS, rows);
    expect(rem(ws).slice(3, 10)).toEqual(['5.01', '3.31', '3.31', '3.31', '9.03', '3.31', '5.01']);
    const big = columnWidths(NODE_COLUMNS, [{ position: 0, allocated: 2n ** 60n, freed: -1536, live: 0, extent: 0 }]);
    // Node table weights 17.7; 1,152,921,504,606,846,976: 25 chars (14.55rem); -1,536: 6 chars (4.48, below its share).
    expect(rem(big)).toEqual(['3.85', '7.01', '10.51', '10.51', '10.51', '14.55', '4.90', '4.90', '4.90']);
  });
});
