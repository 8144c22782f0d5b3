// The virtualized table's window arithmetic (web/src/app/vtable.js): which
// rows are drawn for a scroll position, and where to scroll to show a row.
import { describe, expect, it } from 'vitest';
import { scrollTopFor, visibleWindow } from '../web/src/app/vtable.js';

describe('visibleWindow', () => {
  it('covers the view plus the overscan, clamped to the rows', () => {
    expect(visibleWindow(0, 440, 22, 10_000, 8)).toEqual([0, 28]);
    expect(visibleWindow(2200, 440, 22, 10_000, 8)).toEqual([92, 128]);
    expect(visibleWindow(2211, 440, 22, 10_000, 8)).toEqual([92, 129]); // a row cut at each edge
    expect(visibleWindow(219_560, 440, 22, 10_000, 8)).toEqual([9972, 10_000]);
    expect(visibleWindow(1e9, 440, 22, 10_000, 8)).toEqual([10_000, 10_000]);
  });
  it('draws few rows when there are few', () => {
    expect(visibleWindow(0, 440, 22, 3, 8)).toEqual([0, 3]);
    expect(visibleWindow(0, 440, 22, 0, 8)).toEqual([0, 0]);
  });
  it('reads a negative scroll (above the rows: the header) as the top', () => {
    expect(visibleWindow(-30, 100, 20, 100, 0)).toEqual([0, 5]);
  });
  it('draws nothing for a row height that is not positive', () => {
    expect(visibleWindow(0, 440, 0, 10, 8)).toEqual([0, 0]);
    expect(visibleWindow(0, 440, NaN, 10, 8)).toEqual([0, 0]);
  });
});

describe('scrollTopFor', () => {
  it('keeps the scroll when the row is in full view', () => {
    expect(scrollTopFor(10, 200, 400, 20, 0)).toBe(200);
    expect(scrollTopFor(29, 200, 400, 20, 0)).toBe(200);
  });
  it('scrolls up to a row above the view, down to one below (nearest edge)', () => {
    expect(scrollTopFor(5, 200, 400, 20, 0)).toBe(100);
    expect(scrollTopFor(30, 200, 400, 20, 0)).toBe(220);
    expect(scrollTopFor(100, 0, 400, 20, 0)).toBe(1620);
  });
  it('keeps a row clear of the sticky header', () => {
    expect(scrollTopFor(29, 200, 400, 20, 30)).toBe(230);
    expect(scrollTopFor(0, 50, 400, 20, 30)).toBe(0);
  });
});
