// The QDQ node units memplan counts (memplan/qdq.h) against the units ONNX
// Runtime fuses. scripts/gen_qdq_models.py writes random QDQ models (uint8,
// int8 and 16-bit activations, shared and per-reader DequantizeLinears,
// Relu/Clip before a QuantizeLinear, per-channel weights, biases whose scale
// is or is not the input's times the weight's, Gemm heads, Where, ArgMax, Split, weight-only
// quantized MatMuls of int8, uint8 and int4 weights, graph outputs inside the
// graph); ONNX Runtime (onnxruntime-node, CPU) optimizes each and saves the
// result (optimizedModelFilePath), and the script counts the units fused
// there (QLinear ops, QGemm, MatMulIntegerToFloat, MatMulNBits, ops whose pair
// or DequantizeLinear was dropped). The WASM `plan`'s qdq_units must be that count for every model,
// with the platform's rule: on x86-64 ONNX Runtime does not fuse int8 Conv and
// MatMul inputs and makes int8 pairs of one reader uint8 first; on ARM64
// (--qdq-int8) it fuses int8 ones. The counts are pinned so that a generator
// or ONNX Runtime that fuses less cannot pass unnoticed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, loadMemplan } from './helpers.js';

const SCRIPT = join(ROOT, 'scripts/gen_qdq_models.py');
const ARM = process.arch === 'arm64';
const SEEDS = [1, 2, 3, 4];
const COUNT = 100;

let mp, dir;
beforeAll(async () => {
  mp = await loadMemplan();
  dir = mkdtempSync(join(tmpdir(), 'memplan-ort-qdq-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** ONNX Runtime's fused units of each model of `seed`: {file: units}. */
async function fusedByOrt(seed) {
  const out = join(dir, String(seed));
  execFileSync('/usr/bin/python3', [SCRIPT, out, '--count', String(COUNT), '--seed', String(seed)]);
  const files = readdirSync(out)
    .filter((f) => f.endsWith('.onnx'))
    .sort();
  const optimized = [];
  for (const f of files) {
    const o = join(out, f.replace('.onnx', '.opt.onnx'));
    const session = await ort.InferenceSession.create(join(out, f), {
      graphOptimizationLevel: 'extended', // level 2: where the QDQ transformers run
      optimizedModelFilePath: o,
      logSeverityLevel: 3,
    });
    await session.release();
    optimized.push(o);
  }
  const counts = JSON.parse(execFileSync('/usr/bin/python3', [SCRIPT, '--fused', ...optimized], { encoding: 'utf8' }));
  return files.map((f, k) => [join(out, f), counts[optimized[k]]]);
}

describe('QDQ units equal the ones ONNX Runtime fuses', () => {
  it.each(SEEDS)(
    'random QDQ models, seed %i',
    async (seed) => {
      const models = await fusedByOrt(seed);
      const differ = [];
      let units = 0;
      let platformDiffers = 0;
      for (const [file, theirs] of models) {
        const model = mp.open(readFileSync(file));
        try {
          const plan = model.call('plan', ['--no-nodes', '--no-at-peak', ...(ARM ? ['--qdq-int8'] : [])]);
          if (plan.qdq_units !== theirs) differ.push(`${file}: ours ${plan.qdq_units}, ONNX Runtime ${theirs}`);
          units += theirs;
          if (plan.qdq_units_other !== plan.qdq_units) platformDiffers++;
        } finally {
          model.close();
        }
      }
      expect(differ).toEqual([]);
      expect(models.length).toBe(COUNT);
      // units fused in all, and models where the other platform fuses another number (x86-64)
      const pinned = { 1: [269, 53], 2: [245, 63], 3: [241, 56], 4: [195, 57] };
      if (!ARM) expect([units, platformDiffers]).toEqual(pinned[seed]);
    },
    120_000,
  );
});
