// Compare with a second model (web/src/app/compare.js): plan A's bindings are
// sent to model B only when B has those names (fitBindings, from B's `info
// --json`), and the note under B's controls says how B differs from A
// (differsText). Args and info as the page makes them for Silero VAD v5 (sr
// bound) against silero_vad_half (inputs input [batch, sequence] and state
// [2, batch, 128]). On the page: browser/coldpage.test.js.
import { describe, expect, it } from 'vitest';
import { argsFor, differsText, fitBindings } from '../web/src/app/compare.js';

const A_ARGS = [
  '--strategy',
  'arena',
  '--align',
  '64',
  '--dim',
  'input:0=1',
  '--dim',
  'input:1=512',
  '--dim',
  'state:1=1',
  '--value',
  'sr=16000',
];
const HALF = {
  inputs: [
    { name: 'input', dtype: 'float', shape: ['batch', 'sequence'] },
    { name: 'state', dtype: 'float', shape: [2, 'batch', 128] },
  ],
};

describe('fitBindings', () => {
  it('leaves out the values and dims B has no name for, keeps the options', () => {
    expect(fitBindings(A_ARGS, HALF)).toEqual({
      args: ['--strategy', 'arena', '--align', '64'],
      dropped: ['--dim input:0=1', '--dim input:1=512', '--dim state:1=1', '--value sr=16000'],
    });
  });

  it('keeps what B has: a value input of that name, dims on its inputs', () => {
    const info = {
      inputs: [
        { name: 'sr', dtype: 'int64', shape: [] },
        { name: 'input', dtype: 'float', shape: ['input:0', 'input:1'] },
      ],
    };
    expect(fitBindings(A_ARGS, info)).toEqual({
      args: [
        '--strategy',
        'arena',
        '--align',
        '64',
        '--dim',
        'input:0=1',
        '--dim',
        'input:1=512',
        '--value',
        'sr=16000',
      ],
      dropped: ['--dim state:1=1'],
    });
  });

  it('KV cache in place goes to a B with KV-cache pairs only', () => {
    const kv = [...A_ARGS.slice(0, 4), '--share-kv'];
    const pairs = { inputs: [], kv_cache: [{ output: 'present.0.key', input: 'past_key_values.0.key' }] };
    expect(fitBindings(kv, pairs)).toEqual({ args: kv, dropped: [] });
    expect(fitBindings(kv, { inputs: [], kv_cache: [] })).toEqual({
      args: A_ARGS.slice(0, 4),
      dropped: ['--share-kv'],
    });
    expect(fitBindings(kv, null), "B's info unknown").toEqual({ args: A_ARGS.slice(0, 4), dropped: ['--share-kv'] });
  });

  it("without B's info: every value is dropped, the dims kept", () => {
    expect(fitBindings(A_ARGS, null)).toEqual({
      args: A_ARGS.slice(0, -2),
      dropped: ['--value sr=16000'],
    });
  });

  it("B's own dims are added after: the v5-against-half comparison's args", () => {
    const fit = fitBindings(A_ARGS, HALF);
    expect(
      argsFor(fit.args, { strategy: 'arena', align: 64, inplace: false, dims: { batch: '1', sequence: '512' } }),
    ).toEqual(['--strategy', 'arena', '--align', '64', '--dim', 'batch=1', '--dim', 'sequence=512']);
  });
});

describe('differsText', () => {
  const a = { strategy: 'arena', align: 64, inplace: false };
  it('the flipped in-place default is said, and every other difference', () => {
    expect(differsText(a, { ...a, inplace: true, dims: '' })).toBe('B differs from A in: in-place reuse on (A: off).');
    expect(
      differsText({ ...a, inplace: true }, { ...a, strategy: 'slots', align: '256', inplace: false, dims: ' seq=2 ' }),
    ).toBe(
      'B differs from A in: strategy slots (A: arena), align 256 (A: 64), in-place reuse off (A: on), dims seq=2.',
    );
    expect(differsText(a, { ...a, dims: '' })).toBe("B has A's options: change one to compare.");
  });
  it("another model: with A's options or not, and A's bindings not sent to it", () => {
    expect(differsText(a, { ...a, model: true, dropped: [] })).toBe("B is another model, with A's options.");
    expect(differsText(a, { ...a, inplace: true, model: true, dropped: ['--value sr=16000'] })).toBe(
      "B is another model, and differs from A in: in-place reuse on (A: off). Not sent to B (not among its inputs' names): --value sr=16000.",
    );
  });
});
