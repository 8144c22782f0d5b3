// The page's exact counts (web/src/data/exact.js) and its link state
// (web/src/app/urlstate.js), in Node: what the browser tests rely on, on
// hand-made inputs where the exact answer is known.
import { describe, expect, it } from 'vitest';
import { parseExact, stringifyExact, toNumber } from '../web/src/data/exact.js';
import { formatBytes, formatInt } from '../web/src/data/format.js';
import { normalizePlan } from '../web/src/data/plan.js';
import { sortRows, valueRows } from '../web/src/data/series.js';
import { findValue, readHash, resolveBody, writeHash } from '../web/src/app/urlstate.js';
import { bindingName, bindingsOf, pngTitle } from '../web/src/app/exports.js';
import { argsFor } from '../web/src/app/compare.js';
import { sweepArgs } from '../web/src/app/sweep.js';
import { openMessage, planMessage } from '../web/src/app/controller.js';
import { provenanceOf } from '../web/src/app/provenance.js';

// 2^56 + 2^30 + 4: no double holds it (the nearest is ...760).
const BIG = 72057595111669764n;
const TEXT = `{"naive_bytes":${BIG * 2n},"peak_bytes":${BIG},"values":[{"name":"a","size":${BIG},"offset":0,"start":0,"end":1},{"name":"b 9007199254740993","size":64,"offset":${BIG},"start":1,"end":1}],"ratio":0.5,"small":9007199254740991,"neg":-${BIG},"exp":1e300,"frac":12345678901234567.5}`;

describe('exact counts', () => {
  for (const useSource of [false, true]) {
    // Node 20 has no JSON.parse source access: with useSource the reviver sees no source and must not guess.
    it(`parseExact keeps integers beyond 2^53 as BigInt (useSource ${useSource})`, () => {
      const d = parseExact(TEXT, { useSource });
      if (useSource && typeof d.peak_bytes !== 'bigint') return; // no source access in this engine: JSON.parse's answer
      expect(d.peak_bytes).toBe(BIG);
      expect(d.naive_bytes).toBe(BIG * 2n);
      expect(d.values[1].offset).toBe(BIG);
      expect(d.neg).toBe(-BIG);
      expect(d.values[0].offset).toBe(0);
      expect(d.small).toBe(9007199254740991); // a safe integer stays a Number
      expect(d.ratio).toBe(0.5);
      expect(d.exp).toBe(1e300); // not an integer literal: a Number
      expect(d.frac).toBe(12345678901234567.5);
      expect(d.values[1].name, 'digits in a string are left alone').toBe('b 9007199254740993');
    });
  }

  it('a plan without a 16-digit run parses as JSON.parse does', () => {
    const t = '{"a":123,"b":"x","c":[1.5,-2]}';
    expect(parseExact(t, { useSource: false })).toEqual(JSON.parse(t));
  });

  it('a string that looks like the marker stays a string', () => {
    const t = `{"s":"\\u0001exact:00:123","n":${BIG}}`;
    const d = parseExact(t, { useSource: false });
    expect(d.s).toBe('\u0001exact:00:123');
    expect(d.n).toBe(BIG);
  });

  it('stringifyExact writes BigInts as their digits and round-trips', () => {
    const d = parseExact(TEXT, { useSource: false });
    const s = stringifyExact(d);
    expect(s).toContain(`"peak_bytes":${BIG}`);
    expect(s).toContain(`"neg":-${BIG}`);
    expect(stringifyExact(parseExact(s, { useSource: false }))).toBe(s);
    expect(stringifyExact({ a: 1 }, 1)).toBe(JSON.stringify({ a: 1 }, null, 1));
  });

  it('formatInt and formatBytes show a BigInt exactly', () => {
    expect(formatInt(BIG)).toBe('72,057,595,111,669,764');
    expect(formatInt(Number(BIG)), 'a Number rounds: why BigInt is kept').toBe('72,057,595,111,669,760');
    expect(formatBytes(BIG)).toBe('64.0 PiB');
    expect(formatBytes(BIG, { compact: false })).toBe('72,057,595,111,669,764 B (64.0 PiB)');
    expect(toNumber(BIG)).toBe(Number(BIG));
  });

  it('normalizePlan keeps the exact counts beside the Numbers it draws with', () => {
    const m = normalizePlan(parseExact(TEXT, { useSource: false }));
    expect(m.peak).toBe(Number(BIG));
    expect(m.exact.peak).toBe(BIG);
    expect(m.exact.naive).toBe(BIG * 2n);
    expect(m.size[0]).toBe(Number(BIG));
    expect(m.exactSize(0)).toBe(BIG);
    expect(m.exactOffset(1)).toBe(BIG);
    const rows = valueRows(m);
    expect(rows[0].size).toBe(BIG);
    expect(rows[1].offset).toBe(BIG);
    expect(sortRows(rows, 'size', 1).map((r) => r.name)).toEqual(['b 9007199254740993', 'a']);
    expect(sortRows(rows, 'size', -1).map((r) => r.name)).toEqual(['a', 'b 9007199254740993']);
  });
});

describe('link state', () => {
  const state = {
    strategy: 'slots',
    align: 32,
    inplace: true,
    dims: { batch: '4', 'a&b=c': '2', unbound: '' },
    values: Object.fromEntries([
      ['sr', '16000'],
      ['__proto__', '1,2'], // an own key, as the view's prototype-less objects hold it
    ]),
    selected: 'conv #1/out',
  };

  it('writeHash then readHash gives the state back, any name', () => {
    const hash = writeHash(state);
    expect(hash).toBe(
      'strategy=slots&align=32&inplace=1&dim.batch=4&dim.a%26b%3Dc=2&value.sr=16000&value.__proto__=1%2C2&select=conv+%231%2Fout',
    );
    const back = readHash(`#${hash}`);
    expect(back.strategy).toBe('slots');
    expect(back.align).toBe(32);
    expect(back.inplace).toBe(true);
    expect({ ...back.dims }).toEqual({ batch: '4', 'a&b=c': '2' });
    expect(Object.entries(back.values)).toEqual([
      ['sr', '16000'],
      ['__proto__', '1,2'],
    ]);
    expect(back.select).toBe('conv #1/out');
  });

  it('the order is in the link unless it is the file order', () => {
    const best = writeHash({ ...state, order: 'best' });
    expect(best).toBe(
      'strategy=slots&align=32&inplace=1&order=best&dim.batch=4&dim.a%26b%3Dc=2&value.sr=16000&value.__proto__=1%2C2&select=conv+%231%2Fout',
    );
    expect(readHash(`#${best}`).order).toBe('best');
    expect(writeHash({ ...state, order: 'file' })).toBe(writeHash(state));
    expect(readHash('#order=file').order).toBe('file');
    expect(readHash('#order=greedy').order, 'an order the page does not offer').toBeUndefined();
    expect(readHash('#strategy=arena').order).toBeUndefined();
  });

  // Off unless asked: a model without a KV cache, without QDQ units, whose kernels take no scratch memory
  // or without float16 nodes ONNX Runtime's CPU execution provider runs in float32 never shows the box.
  it.each([
    ['KV cache in place', 'shareKv', 'kv'],
    ['QDQ fused', 'fuseQdq', 'qdq'],
    ['Kernel workspace', 'workspace', 'ws'],
    ['float16 on the CPU', 'float16Cpu', 'f16'],
  ])('%s is in the link only when on', (_, key, param) => {
    const on = writeHash({ ...state, [key]: true });
    expect(on).toBe(
      `strategy=slots&align=32&inplace=1&${param}=1&dim.batch=4&dim.a%26b%3Dc=2&value.sr=16000&value.__proto__=1%2C2&select=conv+%231%2Fout`,
    );
    expect(readHash(`#${on}`)[key]).toBe(true);
    expect(readHash(`#${param}=0`)[key]).toBe(false);
    expect(readHash(`#${param}=yes`)[key], 'not a value it takes').toBeUndefined();
    expect(readHash('#strategy=arena')[key], 'not asked: undefined').toBeUndefined();
    expect(writeHash({ ...state, [key]: false })).toBe(writeHash(state));
  });

  it('the options on together keep their order in the link', () => {
    const all = { ...state, shareKv: true, fuseQdq: true, workspace: true, float16Cpu: true, order: 'best' };
    const hash = writeHash(all);
    expect(hash).toBe(
      'strategy=slots&align=32&inplace=1&kv=1&qdq=1&ws=1&f16=1&order=best&dim.batch=4&dim.a%26b%3Dc=2&value.sr=16000&value.__proto__=1%2C2&select=conv+%231%2Fout',
    );
    const back = readHash(`#${hash}`);
    expect([back.shareKv, back.fuseQdq, back.workspace, back.float16Cpu, back.order]).toEqual([
      true,
      true,
      true,
      true,
      'best',
    ]);
    expect(writeHash({ ...all, ...back, dims: state.dims, values: state.values }), 'the round trip').toBe(hash);
  });

  it("the exported plan's provenance records the kernel workspace and float16 on the CPU only when planned", () => {
    const base = { shownName: 'm.onnx', strategy: 'arena', align: 64, inplace: false, order: 'file' };
    const of = (s) => provenanceOf(s, { args: [], dims: {}, values: {}, size: 1, sha256: null, version: '0' }).options;
    expect(of({ ...base, workspace: true })).toEqual({ strategy: 'arena', align: 64, inplace: false, workspace: true });
    expect(of({ ...base, workspace: false })).toEqual({ strategy: 'arena', align: 64, inplace: false });
    expect(of({ ...base, float16Cpu: true })).toEqual({
      strategy: 'arena',
      align: 64,
      inplace: false,
      float16_cpu: true,
    });
    expect(of({ ...base, float16Cpu: false })).toEqual({ strategy: 'arena', align: 64, inplace: false });
  });

  it('readHash ignores what it cannot use', () => {
    const r = readHash('#strategy=best&align=3&inplace=yes&dim.=1&select=&other=1');
    expect(r.strategy).toBeUndefined();
    expect(r.align).toBeUndefined();
    expect(r.inplace).toBeUndefined();
    expect(Object.keys(r.dims)).toEqual([]);
    expect(r.select).toBeNull();
    expect(readHash('').select).toBeNull();
  });

  it('the body shown is in the link, a step NODE:ATTRIBUTE each, outermost first', () => {
    const body = [
      { node: 'If_0', attribute: 'then_branch' },
      { node: 'loop:1', attribute: 'body' }, // a node name may hold ':'
    ];
    const hash = writeHash({ ...state, body });
    expect(hash).toBe(
      'strategy=slots&align=32&inplace=1&dim.batch=4&dim.a%26b%3Dc=2&value.sr=16000&value.__proto__=1%2C2&body=If_0%3Athen_branch&body=loop%3A1%3Abody&select=conv+%231%2Fout',
    );
    expect(readHash(`#${hash}`).body).toEqual(body);
    expect(writeHash({ ...state, body: [] })).toBe(writeHash(state));
    expect(readHash('#body=nocolon&body=%3Aattr&select=x').body, 'steps without a node or attribute').toEqual([]);
    expect(readHash('#select=x').body).toEqual([]);
  });

  it('resolveBody gives each step its index; findValue finds the one body holding a value', () => {
    const leaf = { values: [{ name: 'deep' }, { name: 'twice' }], transients: [], subgraphs: [] };
    const plan = {
      values: [{ name: 'top' }],
      transients: [{ node: 'If_0' }],
      subgraphs: [
        {
          node: 'If_0',
          attribute: 'then_branch',
          plan: { values: [{ name: 'twice' }], transients: [], subgraphs: [] },
        },
        {
          node: 'If_0',
          attribute: 'else_branch',
          plan: { values: [{ name: 'e' }], transients: [], subgraphs: [{ node: 'L', attribute: 'body', plan: leaf }] },
        },
      ],
    };
    const deepPath = [
      { index: 1, node: 'If_0', attribute: 'else_branch' },
      { index: 0, node: 'L', attribute: 'body' },
    ];
    expect(
      resolveBody(plan, [
        { node: 'If_0', attribute: 'else_branch' },
        { node: 'L', attribute: 'body' },
      ]),
    ).toEqual(deepPath);
    expect(resolveBody(plan, [])).toEqual([]);
    expect(resolveBody(plan, [{ node: 'If_0', attribute: 'body' }]), 'no such body').toBeNull();
    expect(findValue(plan, 'top')).toEqual([]);
    expect(findValue(plan, 'If_0'), "a control-flow node's memory is the main graph's").toEqual([]);
    expect(findValue(plan, 'deep')).toEqual(deepPath);
    expect(findValue(plan, 'twice'), 'in two bodies: not guessed').toBeNull();
    expect(findValue(plan, 'nowhere')).toBeNull();
  });

  it('bindingsOf reads the dims and values of a request', () => {
    expect(
      bindingsOf(['--strategy', 'arena', '--dim', 'seq=1..8:4', '--dim', 'a=b=2', '--value', 'sr=16000', '--inplace']),
    ).toEqual({ dims: { seq: '1..8:4', 'a=b': '2' }, values: { sr: '16000' } });
  });

  it("compare's and sweep's arguments replace a dim whose name holds '=' (split at the last '=', as the library)", () => {
    expect(bindingName('a=b=2')).toBe('a=b');
    expect(bindingName('seq=1..8:4')).toBe('seq');
    expect(bindingName('noequals')).toBe('noequals');
    const plan = ['--strategy', 'arena', '--align', '64', '--dim', 'a=b=2', '--dim', 'a=1', '--value', 'sr=16000'];
    expect(argsFor(plan, { strategy: 'slots', align: 1, inplace: true, dims: { 'a=b': '5' } })).toEqual([
      '--strategy',
      'slots',
      '--align',
      '1',
      '--inplace',
      '--dim',
      'a=1',
      '--value',
      'sr=16000',
      '--dim',
      'a=b=5',
    ]);
    expect(argsFor(plan, { strategy: 'arena', align: 64, inplace: false, dims: { a: '7' } })).toEqual([
      '--strategy',
      'arena',
      '--align',
      '64',
      '--dim',
      'a=b=2',
      '--value',
      'sr=16000',
      '--dim',
      'a=7',
    ]);
    expect(sweepArgs(plan, 'a=b', 1, 64, 8)).toEqual([
      '--align',
      '64',
      '--dim',
      'a=1',
      '--value',
      'sr=16000',
      '--dim',
      'a=b=1..64:8',
    ]);
    expect(sweepArgs(plan, 'a', 1, 64, 8)).toEqual([
      '--align',
      '64',
      '--dim',
      'a=b=2',
      '--value',
      'sr=16000',
      '--dim',
      'a=1..64:8',
    ]);
    // The plan's switches go with the sweep (the graph ONNX Runtime's CPU execution provider runs, swept).
    expect(sweepArgs(['--strategy', 'arena', '--align', '64', '--workspace', '--float16-cpu'], 'a', 1, 4, 4)).toEqual([
      '--align',
      '64',
      '--workspace',
      '--float16-cpu',
      '--dim',
      'a=1..4:4',
    ]);
  });

  it('the PNG title names the model, the bound dims and values, and the figure', () => {
    expect(
      pngTitle({ shownName: 'm.onnx', name: 'm.onnx', dims: { b: '1', s: '' }, values: { sr: '16000' } }, 'Arena map'),
    ).toBe('m.onnx · b=1 · sr=16000 · Arena map');
    expect(pngTitle({ shownName: '', name: 'x.onnx', dims: {}, values: {} }, 'Live intervals')).toBe(
      'x.onnx · Live intervals',
    );
  });
});

describe("messages in the page's words", () => {
  it('planMessage: the CLI usage messages become the dim or input named', () => {
    expect(planMessage("--dim takes NAME=VALUE with VALUE an integer in [0, 2^53], or NAME=LO..HI, got 'seq=-1'")).toBe(
      'the dim seq takes a whole number from 0 to 2^53; "-1" is not one',
    );
    expect(planMessage("--value takes NAME=V or NAME=V,V,... (integers or true/false), got 'sr=x=1'")).toBe(
      'the input sr takes whole numbers or true/false, separated by commas; "x=1" is not one',
    );
    expect(planMessage('node n: cannot broadcast')).toBe('node n: cannot broadcast');
  });

  it('openMessage: no model at all near the start, a damaged one further in', () => {
    expect(openMessage('malformed protobuf at byte 2: groups are not used by ONNX')).toBe(
      'this is not an ONNX model (malformed protobuf at byte 2: groups are not used by ONNX)',
    );
    expect(openMessage('malformed protobuf at byte 5000: truncated')).toBe(
      'this is not a valid ONNX model: damaged or cut short? (malformed protobuf at byte 5000: truncated)',
    );
    expect(openMessage('the file is empty: not an ONNX model')).toBe('the file is empty: not an ONNX model');
  });
});
