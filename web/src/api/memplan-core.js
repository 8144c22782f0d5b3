// memplan-core.js -- the JS wrapper over the memplan WebAssembly module.
//
// Shared by the web page (inside its worker), the npm package's users (in
// browsers and Node) and the Vitest suite (in Node). It owns every
// pointer it hands to C: strings and model bytes are malloc'ed, copied in and
// freed before returning; every mp_call result is copied out of the heap and
// released with mp_result_free() before anything else runs.
//
// The Emscripten factory (memplan.mjs) and memplan.wasm are build outputs:
// scripts/sync-wasm.mjs copies them from build/wasm/ into web/src/wasm/
// (ignored by git) before Vite or Vitest runs.
import createModule from '../wasm/memplan.mjs';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

// True in Node (and Vitest), where the browser build's loader cannot fetch
// its own .wasm: createMemplan reads the file instead.
const inNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

// memplan.wasm's bytes in Node, read from beside the factory. The specifier is
// a variable so that bundlers leave this browser-dead branch alone.
async function readWasmInNode() {
  const fsName = 'node:fs/promises';
  const { readFile } = await import(/* @vite-ignore */ fsName);
  return new Uint8Array(await readFile(new URL('../wasm/memplan.wasm', import.meta.url)));
}

/**
 * Instantiate the WebAssembly module. In a browser the factory finds
 * memplan.wasm beside itself (`new URL('memplan.wasm', import.meta.url)`,
 * which bundlers follow); in Node the file is read. `locateFile` or
 * `wasmBinary` overrides either.
 * @param {{wasmBinary?: ArrayBuffer|Uint8Array, locateFile?: (path: string, prefix: string) => string,
 *          moduleFactory?: (opts: object) => Promise<object>}} [opts]
 */
export async function createMemplan(opts = {}) {
  const moduleOpts = {};
  if (opts.wasmBinary) {
    moduleOpts.wasmBinary = opts.wasmBinary instanceof Uint8Array ? opts.wasmBinary : new Uint8Array(opts.wasmBinary);
  } else if (inNode && !opts.locateFile && !opts.moduleFactory) {
    moduleOpts.wasmBinary = await readWasmInNode();
  }
  if (opts.locateFile) moduleOpts.locateFile = opts.locateFile;
  // Emscripten prints C stdout/stderr through these; keep them off the console.
  moduleOpts.print = () => {};
  moduleOpts.printErr = () => {};
  const M = await (opts.moduleFactory || createModule)(moduleOpts);
  return new Memplan(M);
}

class Memplan {
  constructor(M) {
    this._M = M;
    this.version = M.UTF8ToString(M._mp_version());
  }

  /** Load a model from its bytes. Throws Error(C message) if it is not a usable ONNX model. */
  open(bytes) {
    if (!(bytes instanceof Uint8Array)) {
      if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
      else throw new TypeError('open(bytes): expected a Uint8Array or ArrayBuffer');
    }
    const M = this._M;
    const ptr = copyIn(M, bytes);
    let session;
    try {
      session = M._mp_open(ptr, bytes.length);
    } finally {
      M._free(ptr); // mp_open keeps no pointer into the caller's bytes
    }
    if (!session) {
      const message = takeResult(M);
      throw new MemplanError(decoder.decode(message) || 'mp_open failed', 0, 'open');
    }
    return new Model(M, session);
  }

  /**
   * Load a model too large to copy whole: `readAt(offset, length)` returns
   * that many bytes of the file as a Uint8Array, synchronously (in a worker,
   * FileReaderSync over blob.slice()). The library reads the graph a window
   * (1 MiB) at a time and skips large tensor data unread, so memory stays
   * O(graph) whatever the file's size. Every command works as with open();
   * 'annotate' reads the whole model again through readAt (keep it valid
   * while the model is open) and holds only its output. readAt may use other
   * models (even through their own readers), not this one: a call or close()
   * on it from inside readAt throws.
   * Throws MemplanError with the C message (a read that throws or returns
   * the wrong length is "could not read the model's bytes at N").
   */
  openReader(size, readAt) {
    if (!Number.isSafeInteger(size) || size < 0)
      throw new TypeError('openReader(size, readAt): size must be a byte count');
    if (typeof readAt !== 'function') throw new TypeError('openReader(size, readAt): readAt must be a function');
    const M = this._M;
    let session;
    withReader(M, readAt, () => {
      session = M._mp_open_reader(size);
    });
    if (!session) {
      const message = takeResult(M);
      throw new MemplanError(decoder.decode(message) || 'mp_open_reader failed', 0, 'open');
    }
    return new Model(M, session, { size, readAt });
  }

  /**
   * Pack buffers given as CSV text (`id,lower,upper,size`, half-open
   * lifetimes): the JSON of `memplan pack FILE.csv --json` with the same
   * options (e.g. ['--align', '1', '--budget-ms', '100', '--seed', '2']),
   * parsed. Throws MemplanError with the C message.
   */
  pack(csv, args = []) {
    if (typeof csv !== 'string') throw new TypeError('pack(csv): expected the CSV text');
    checkArgs(args);
    const M = this._M;
    const bytes = encoder.encode(csv);
    const p = copyIn(M, bytes);
    let argp = 0,
      status;
    try {
      argp = allocString(M, args.join('\n'));
      status = M._mp_pack_csv(p, bytes.length, argp);
    } finally {
      M._free(p);
      if (argp) M._free(argp);
    }
    const out = takeResult(M);
    if (status !== 0) throw new MemplanError(decoder.decode(out) || `pack failed (status ${status})`, status, 'pack');
    return JSON.parse(decoder.decode(out));
  }

  /**
   * Compare two plans: the JSON of `memplan diff A B --json`, parsed, with
   * each side planned with its own arguments (a and b may be one model:
   * arena against slots, in-place off and on, two dim bindings).
   * names: [nameA, nameB] prefix the message when a side cannot be planned.
   * Throws MemplanError with the C message.
   */
  diff(a, b, argsA = [], argsB = argsA, names = ['A', 'B']) {
    for (const m of [a, b]) {
      if (!(m instanceof Model)) throw new TypeError('diff(a, b): expected two models from open()');
      if (!m._session) throw new Error('diff: a model is closed');
      m._checkNotInReader('diff');
    }
    checkArgs(argsA);
    checkArgs(argsB);
    const M = this._M;
    const ptrs = [];
    let status;
    try {
      for (const t of [names[0], argsA.join('\n'), names[1], argsB.join('\n')]) ptrs.push(allocString(M, String(t)));
      status = M._mp_diff(a._session, ptrs[0], ptrs[1], b._session, ptrs[2], ptrs[3]);
    } finally {
      for (const p of ptrs) M._free(p);
    }
    const out = takeResult(M);
    if (status !== 0) throw new MemplanError(decoder.decode(out) || `diff failed (status ${status})`, status, 'diff');
    return JSON.parse(decoder.decode(out));
  }
}

// CLI-style flags, one per array element: strings without newline or NUL.
function checkArgs(args) {
  if (!Array.isArray(args)) throw new TypeError('call: args must be an array of strings');
  for (const a of args) {
    if (typeof a !== 'string' || a.includes('\n') || a.includes('\0')) {
      throw new TypeError(`call: each argument must be a string without newlines or NUL: ${JSON.stringify(a)}`);
    }
  }
}

// Run fn with readAt as the module's reader (Module.memplanReadAt, which the
// C side calls synchronously); no reference to it is kept afterwards. A
// reader may itself open or annotate another model through its own reader:
// the reader it interrupted is put back when that returns.
function withReader(M, readAt, fn) {
  const had = Object.prototype.hasOwnProperty.call(M, 'memplanReadAt');
  const outer = M.memplanReadAt;
  M.memplanReadAt = readAt;
  try {
    fn();
  } finally {
    if (had) M.memplanReadAt = outer;
    else delete M.memplanReadAt;
  }
}

class Model {
  constructor(M, session, reader = null) {
    this._M = M;
    this._session = session;
    this._reader = reader; // {size, readAt} of a model from openReader()
    this._inReader = false; // its readAt is running (annotate): no call may re-enter the session
  }

  _checkNotInReader(what) {
    if (this._inReader) throw new Error(`${what}: the model cannot be used while its reader runs`);
  }

  /** The info document (same JSON as `memplan info MODEL --json`). */
  info() {
    return this.call('info');
  }

  /** Run a command; returns its JSON output, parsed. */
  call(command, args = []) {
    return JSON.parse(this.callText(command, args));
  }

  /** Run a command; returns its output as text (exactly the bytes C produced, UTF-8 decoded). */
  callText(command, args = []) {
    return decoder.decode(this.callBytes(command, args));
  }

  /** Run a command; returns its raw output bytes (a copy, owned by JS). */
  callBytes(command, args = []) {
    if (!this._session) throw new Error(`${command}: the model is closed`);
    this._checkNotInReader(command);
    if (typeof command !== 'string' || command === '') throw new TypeError('call: command must be a non-empty string');
    checkArgs(args);
    const M = this._M;
    const cmd = allocString(M, command);
    let argp = 0;
    let status;
    try {
      argp = allocString(M, args.join('\n'));
      // A command that reads the whole file (annotate copies the model; the
      // command table says which) reads it again through the reader.
      if (this._reader && M._mp_command_whole_model(cmd) === 1) {
        const { size, readAt } = this._reader;
        // A readAt that calls into this model (another command, close) would
        // change or free the results annotate is reading: refused meanwhile.
        this._inReader = true;
        try {
          withReader(M, readAt, () => {
            status = M._mp_call_reader(this._session, cmd, argp, size);
          });
        } finally {
          this._inReader = false;
        }
      } else {
        status = M._mp_call(this._session, cmd, argp);
      }
    } finally {
      M._free(cmd);
      if (argp) M._free(argp);
    }
    const out = takeResult(M);
    if (status !== 0) {
      throw new MemplanError(decoder.decode(out) || `${command} failed (status ${status})`, status, command);
    }
    return out;
  }

  /**
   * The plan as a Chrome/Perfetto trace (memplan/trace.h): the bytes
   * `memplan plan MODEL ...args --trace OUT.json` writes, args being the plan
   * options (['--strategy', 'slots', '--dim', 'batch=1']). Throws
   * MemplanError with the C message (a deferred plan has no trace).
   */
  traceBytes(args = []) {
    if (!this._session) throw new Error('trace: the model is closed');
    this._checkNotInReader('trace');
    checkArgs(args);
    const M = this._M;
    const argp = allocString(M, args.join('\n'));
    let status;
    try {
      status = M._mp_trace(this._session, argp);
    } finally {
      M._free(argp);
    }
    const out = takeResult(M);
    if (status !== 0) throw new MemplanError(decoder.decode(out) || `trace failed (status ${status})`, status, 'trace');
    return out;
  }

  /** Free the session. Safe to call twice. */
  close() {
    this._checkNotInReader('close');
    if (this._session) {
      this._M._mp_close(this._session);
      this._session = 0;
      this._reader = null;
    }
  }
}

/** An error reported by the C library: message is its text, status its code. */
export class MemplanError extends Error {
  constructor(message, status, command) {
    super(message);
    this.name = 'MemplanError';
    this.status = status;
    this.command = command;
  }
}

// WASM returns i32: an address at or above 2 GiB (the heap may grow to 4 GB)
// comes back negative. Addresses and lengths read from C go through this.
const u32 = (v) => v >>> 0;

// Copy bytes into a fresh malloc'ed block of the heap (the caller frees it).
function copyIn(M, bytes) {
  const p = u32(M._malloc(Math.max(bytes.length, 1)));
  if (!p) throw new Error(`out of memory: cannot copy ${bytes.length} bytes into WebAssembly`);
  M.HEAPU8.set(bytes, p); // HEAPU8 read after _malloc: growth replaces the view
  return p;
}

function allocString(M, s) {
  const bytes = encoder.encode(s);
  const p = u32(M._malloc(bytes.length + 1));
  if (!p) throw new Error('out of memory');
  const heap = M.HEAPU8; // after _malloc
  heap.set(bytes, p);
  heap[p + bytes.length] = 0;
  return p;
}

// Copy mp_result() out of the heap, then release it.
function takeResult(M) {
  const p = u32(M._mp_result());
  const n = u32(M._mp_result_len());
  // A new array filled with set(): slice() of a view on the WASM memory takes
  // a slow path (3.7 ms against 0.14 ms for a 1.4 MB plan in Node 20).
  const out = new Uint8Array(p && n ? n : 0);
  if (out.length) out.set(M.HEAPU8.subarray(p, p + n));
  M._mp_result_free();
  return out;
}
