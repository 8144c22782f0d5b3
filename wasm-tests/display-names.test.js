// Dim names as the page shows them (web/src/data/format.js): the plan prints a
// name that is not a plain identifier escaped ("_0x" + the hex of its UTF-8
// bytes, include/memplan/expr.h NAMES); the page shows the name again, as it
// is when it holds no operator ("p2o.DynamicDimension.0", "input:0"), in
// double quotes otherwise ("N-1", "batch size", "max").
import { describe, expect, it } from 'vitest';
import { displayExpr, displayName, formatShape, unescapeName } from '../web/src/data/format.js';
import { normalizePlan } from '../web/src/data/plan.js';
import { valueRows } from '../web/src/data/series.js';

const hex = (s) => `_0x${Buffer.from(s, 'utf8').toString('hex')}`;

describe('display names', () => {
  it('unescapeName: the escapes of expr.h, and null for anything else', () => {
    expect(
      [
        '_0x62617463682073697a65',
        '_0x4e2d31',
        '_0x3278',
        '_0x6d6178',
        '_0x5f30786162',
        '_0x4E2D31',
        hex('séq'),
        '_0x4e2d3',
        '_0xzz',
        '_0x',
        '_0xff',
        'batch',
      ].map(unescapeName),
    ).toEqual(['batch size', 'N-1', '2x', 'max', '_0xab', 'N-1', 'séq', null, null, null, null, null]);
  });

  it('displayName: plain when no operator can be read into it, quoted otherwise', () => {
    expect(
      [
        'batch',
        'p2o.DynamicDimension.0',
        'input:0',
        'N-1',
        'batch size',
        '2x',
        'max',
        'min',
        '_0xab',
        'a"b',
        'seq*2',
        'séq',
      ].map(displayName),
    ).toEqual([
      'batch',
      'p2o.DynamicDimension.0',
      'input:0',
      '"N-1"',
      '"batch size"',
      '"2x"',
      '"max"',
      '"min"',
      '"_0xab"',
      '"a\\"b"',
      '"seq*2"',
      '"séq"',
    ]);
  });

  it('displayExpr: escaped tokens become names; numbers, operators, plain names and functions stay', () => {
    const p0 = '_0x70326f2e44796e616d696344696d656e73696f6e2e30';
    const p1 = '_0x70326f2e44796e616d696344696d656e73696f6e2e31';
    expect(
      [
        p0,
        `(${p1}+1)//2`,
        'max(_0x4e2d31, seq)*2',
        `${hex('batch size')}*_0x6d6178 - 3`,
        '(samples+128)//160-3',
        '_0x4e2d3+1',
        '12',
      ].map(displayExpr),
    ).toEqual([
      'p2o.DynamicDimension.0',
      '(p2o.DynamicDimension.1+1)//2',
      'max("N-1", seq)*2',
      '"batch size"*"max" - 3',
      '(samples+128)//160-3',
      '_0x4e2d3+1',
      '12',
    ]);
  });

  it("formatShape: a plan's dims through displayExpr, a model's declared names (raw) through displayName", () => {
    const det = [
      '_0x70326f2e44796e616d696344696d656e73696f6e2e30',
      16,
      '(_0x70326f2e44796e616d696344696d656e73696f6e2e31+1)//2',
      null,
    ];
    expect(formatShape(det)).toBe('[p2o.DynamicDimension.0, 16, (p2o.DynamicDimension.1+1)//2, ?]');
    expect(formatShape(['N-1', 3], { raw: true })).toBe('["N-1", 3]');
    expect(formatShape(['_0x4e2d31', 3], { raw: true }), 'a raw name is never decoded').toBe('["_0x4e2d31", 3]');
    expect(formatShape(['batch_size', 1, '(samples+128)//160-3'])).toBe('[batch_size, 1, (samples+128)//160-3]');
  });

  it("the value table's shape column shows the names", () => {
    const m = normalizePlan({
      status: 'deferred',
      values: [{ name: 'x', size: null, start: 0, end: 1, shape: [`${hex('batch size')}`, `${hex('N-1')}*4`] }],
    });
    expect(valueRows(m)[0].shape).toBe('["batch size", "N-1"*4]');
  });
});
