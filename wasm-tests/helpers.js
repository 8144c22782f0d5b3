// Shared by the Vitest files: the wrapper loaded with the built .wasm, and the
// native CLI as the reference.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createMemplan } from '../web/src/api/memplan-core.js';
import { ROOT, WASM_DEST_DIR } from '../scripts/prepare_web.mjs';

export { ROOT };
export const NATIVE_CLI = resolve(ROOT, process.env.MEMPLAN_CLI || 'build/native/memplan');

let memplanPromise;
/** The wrapper over web/src/wasm/memplan.wasm (the same build the import resolves). */
export function loadMemplan() {
  memplanPromise ??= createMemplan({ wasmBinary: readFileSync(join(WASM_DEST_DIR, 'memplan.wasm')) });
  return memplanPromise;
}

/** A module of its own (not the shared one), its heap at the initial size:
 * {mp (the wrapper), M (the Emscripten module, for _malloc and the heap)}. */
export async function freshMemplan() {
  const { default: createModule } = await import('../web/src/wasm/memplan.mjs');
  let M;
  const mp = await createMemplan({
    wasmBinary: readFileSync(join(WASM_DEST_DIR, 'memplan.wasm')),
    moduleFactory: async (o) => (M = await createModule(o)),
  });
  return { mp, M };
}

export function requireNativeCli() {
  if (!existsSync(NATIVE_CLI)) {
    throw new Error(
      `native CLI ${NATIVE_CLI} not found: build it (cmake -S . -B build/native && cmake --build build/native) or set MEMPLAN_CLI`,
    );
  }
  return NATIVE_CLI;
}

const execFileP = promisify(execFile);
/** `memplan info PATH --json`: {code, stdout, stderr} (stdout as text, never thrown). */
export async function nativeInfo(path) {
  try {
    const { stdout, stderr } = await execFileP(requireNativeCli(), ['info', path, '--json'], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export function nativeInfoSync(path) {
  return execFileSync(requireNativeCli(), ['info', path, '--json'], { encoding: 'utf8', maxBuffer: 256 << 20 });
}

/** WASM `info` of a file: {ok: true, text} or {ok: false, message}. */
export async function wasmInfo(path) {
  const mp = await loadMemplan();
  let model;
  try {
    model = mp.open(readFileSync(path));
    return { ok: true, text: model.callText('info') };
  } catch (e) {
    if (e.name !== 'MemplanError') throw e;
    return { ok: false, message: e.message };
  } finally {
    model?.close();
  }
}

/** JSON text without one trailing newline (the CLI ends its output with one). */
export const body = (text) => text.replace(/\n$/, '');

export const projectVersion = () =>
  /project\(\s*onnx_memplan\s+VERSION\s+([0-9.]+)/.exec(readFileSync(join(ROOT, 'CMakeLists.txt'), 'utf8'))[1];

/** One test per model: native `info --json` and WASM `info` give identical JSON,
 *  or both reject the model (the CLI's message then contains the WASM one). */
export function defineEqualityTests(it, expect, files) {
  it.concurrent.each(files.map((f) => [f.startsWith(ROOT + '/') ? f.slice(ROOT.length + 1) : f, f]))(
    '%s',
    async (_name, file) => {
      const [native, wasm] = await Promise.all([nativeInfo(file), wasmInfo(file)]);
      if (native.code === 0) {
        expect(wasm.ok ? body(wasm.text) : `WASM failed: ${wasm.message}`).toBe(body(native.stdout));
      } else {
        expect(wasm.ok, `native failed (${native.stderr.trim()}) but WASM succeeded`).toBe(false);
        expect(native.stderr).toContain(wasm.message);
      }
    },
  );
}
