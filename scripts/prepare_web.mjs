#!/usr/bin/env node
// prepare_web.mjs -- put the build outputs the web side needs where Vite and
// Vitest look for them (all of these destinations are ignored by git):
//
//   $MEMPLAN_WASM_DIR/memplan.{mjs,wasm}  ->  web/src/wasm/     (imported by web/src/api/memplan-core.js)
//   the example model (an npm fixture)    ->  web/public/models/example.onnx
//
// MEMPLAN_WASM_DIR defaults to build/wasm (what `make test` and `make demo`
// build). Called by web/vite.config.js and wasm-tests/vitest.config.js at
// load time, so `npm run build:web` / `npm run test:wasm` need no extra step;
// runnable by hand too.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const WASM_SRC_DIR = resolve(ROOT, process.env.MEMPLAN_WASM_DIR || 'build/wasm');
export const WASM_DEST_DIR = join(ROOT, 'web', 'src', 'wasm');
/** The model open when the page starts: Silero VAD v5 (2.3 MB, If subgraphs). */
export const EXAMPLE_SRC = join(ROOT, 'node_modules', '@jjhbw', 'silero-vad', 'weights', 'silero_vad.onnx');
export const EXAMPLE_DEST = join(ROOT, 'web', 'public', 'models', 'example.onnx');

function copyIfChanged(src, dest) {
  if (existsSync(dest)) {
    const a = statSync(src),
      b = statSync(dest);
    if (a.size === b.size && readFileSync(src).equals(readFileSync(dest))) return false;
  }
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(src, dest);
  return true;
}

export function syncWasm() {
  for (const f of ['memplan.mjs', 'memplan.wasm']) {
    const src = join(WASM_SRC_DIR, f);
    if (!existsSync(src)) {
      throw new Error(
        `${src} is missing: build the WASM first (make test, or ` +
          `NODE_PATH=/usr/share/nodejs emcmake cmake -S . -B build/wasm && cmake --build build/wasm)`,
      );
    }
    copyIfChanged(src, join(WASM_DEST_DIR, f));
  }
  return WASM_DEST_DIR;
}

export function syncExample() {
  if (!existsSync(EXAMPLE_SRC)) throw new Error(`${EXAMPLE_SRC} is missing: run npm ci`);
  copyIfChanged(EXAMPLE_SRC, EXAMPLE_DEST);
  return EXAMPLE_DEST;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`prepare_web: ${syncWasm()}, ${syncExample()}`);
}
