// WASM annotate of models over 2 GiB on a fresh module (issue 21, "Files").
//
// The annotated copy is one block as large as the model. Emscripten's malloc
// grows the heap by less than 2^31 bytes at a time, so on a fresh module a
// block of 2 GiB or more used to fail at once; src/util/alloc.c grows the
// heap first. The models are virtual: readAt serves a small graph and a
// float initializer whose raw_data is N zero bytes, so no disk is used and
// only the output (and the wrapper's copy of it) is resident: about 4.4 GB
// of RSS at the peak. Each case runs on its own fresh module. Slow (2 GiB
// written twice: 20 s idle, 90 s on a loaded 2-core VM, where a fresh page
// costs ~20 ms/MB): make test's vitest phase runs it, the quick one does not
// (scripts/test.sh, VITEST_SLOW).
import { describe, expect, it } from 'vitest';
import { freshMemplan } from './helpers.js';
import { fieldBytes, fieldVarint, valueInfo, varint } from './onnx-encode.js';

const GiB = 2 ** 30;
const u8 = (a) => Uint8Array.from(a);

/** Relu(x) -> h, Relu(h) -> y and an unused float initializer W of n/4
 * elements: {prefix, n, suffix}, the file being prefix + n zero bytes + suffix. */
function virtualModel(n) {
  const node = (i, o) => fieldBytes(1, u8([...fieldBytes(1, i), ...fieldBytes(2, o), ...fieldBytes(4, 'Relu')]));
  const tensorHead = [...fieldVarint(1, n / 4), ...fieldVarint(2, 1), ...fieldBytes(8, 'W')];
  const rawHead = [...varint((9 << 3) | 2), ...varint(n)];
  const tensorLen = tensorHead.length + rawHead.length + n;
  const graphHead = [...node('x', 'h'), ...node('h', 'y'), ...fieldBytes(2, 'g')];
  const initHead = [...varint((5 << 3) | 2), ...varint(tensorLen)];
  const graphTail = [
    ...fieldBytes(11, valueInfo({ name: 'x', shape: [1024] })),
    ...fieldBytes(12, valueInfo({ name: 'y', shape: [1024] })),
  ];
  const graphLen = graphHead.length + initHead.length + tensorLen + graphTail.length;
  const modelHead = [
    ...fieldVarint(1, 8),
    ...fieldBytes(2, 'memplan-tests'),
    ...varint((7 << 3) | 2),
    ...varint(graphLen),
  ];
  const opset = fieldBytes(8, u8([...fieldBytes(1, ''), ...fieldVarint(2, 17)]));
  return {
    prefix: u8([...modelHead, ...graphHead, ...initHead, ...tensorHead, ...rawHead]),
    n,
    suffix: u8([...graphTail, ...opset]),
  };
}

const sizeOf = (v) => v.prefix.length + v.n + v.suffix.length;

/** readAt over a virtual model: each window built on demand in one scratch
 * buffer (the module copies it at once; fresh pages cost here). */
function readerOf(v) {
  const tail = v.prefix.length + v.n;
  let scratch = new Uint8Array(0);
  return (offset, length) => {
    if (scratch.length < length) scratch = new Uint8Array(length);
    const out = scratch.subarray(0, length);
    out.fill(0);
    if (offset < v.prefix.length) out.set(v.prefix.subarray(offset, offset + length));
    const s = Math.max(offset, tail);
    if (s < offset + length) out.set(v.suffix.subarray(s - tail, offset + length - tail), s - offset);
    return out;
  };
}

/** The protobuf fields of b[start, end): [{field, start, end}] (payload bounds;
 * varints too), reading only field headers, so n-byte payloads cost nothing. */
function fields(b, start = 0, end = b.length) {
  const out = [];
  const readVarint = (p) => {
    let v = 0,
      mul = 1;
    for (;;) {
      const c = b[p++];
      v += (c & 0x7f) * mul;
      mul *= 128;
      if (!(c & 0x80)) return [v, p];
    }
  };
  for (let p = start; p < end;) {
    const [tag, q] = readVarint(p);
    if ((tag & 7) === 2) {
      const [len, r] = readVarint(q);
      out.push({ field: tag >>> 3, start: r, end: r + len });
      p = r + len;
    } else {
      const [, r] = readVarint(q);
      out.push({ field: tag >>> 3, start: q, end: r });
      p = r;
    }
  }
  return out;
}

/** The graph's fields of an annotated model, W's as its own list. */
function layout(b) {
  const top = fields(b);
  const graph = top.find((f) => f.field === 7);
  const gf = fields(b, graph.start, graph.end);
  const init = gf.find((f) => f.field === 5);
  return { top, gf, init, tensor: fields(b, init.start, init.end) };
}

/** Every zero, checked a megabyte at a time. */
function allZero(b, start, end) {
  const zero = new Uint8Array(1 << 20);
  for (let p = start; p < end; p += zero.length) {
    const n = Math.min(zero.length, end - p);
    if (Buffer.compare(b.subarray(p, p + n), zero.subarray(0, n)) !== 0) return false;
  }
  return true;
}

const slice = (b, f) => Buffer.from(b.subarray(f.start, f.end));
/** A varint field's value (the dims of W). */
const dimOf = (b, f) => [...b.subarray(f.start, f.end)].reduceRight((v, c) => v * 128 + (c & 0x7f), 0);

describe('annotate of a model over 2 GiB on a fresh module', () => {
  it('a 2 GiB + 1 MiB model: the small model’s annotation, its N zero bytes copied', async () => {
    const n = 2 * GiB + 2 ** 20;
    const big = virtualModel(n);
    const { mp: mpBig, M } = await freshMemplan();
    // Why the heap is grown first: one malloc this large fails on a fresh module.
    expect(M._malloc(n)).toBe(0);
    const model = mpBig.openReader(sizeOf(big), readerOf(big));
    let out;
    try {
      out = model.callBytes('annotate');
    } finally {
      model.close();
    }
    // The reference: the same graph with a 4-byte W, annotated in memory.
    const small = virtualModel(4);
    const smallBytes = new Uint8Array(sizeOf(small));
    smallBytes.set(small.prefix);
    smallBytes.set(small.suffix, small.prefix.length + 4);
    const { mp } = await freshMemplan();
    const ref = mp.open(smallBytes);
    const want = ref.callBytes('annotate');
    ref.close();

    const a = layout(out);
    const b = layout(want);
    expect(a.top.map((f) => f.field)).toEqual(b.top.map((f) => f.field));
    a.top.forEach((f, i) => {
      if (f.field !== 7) expect(slice(out, f).equals(slice(want, b.top[i]))).toBe(true);
    });
    expect(a.gf.map((f) => f.field)).toEqual(b.gf.map((f) => f.field));
    a.gf.forEach((f, i) => {
      if (f.field !== 5) expect(slice(out, f).equals(slice(want, b.gf[i]))).toBe(true);
    });
    expect(a.tensor.map((f) => f.field)).toEqual(b.tensor.map((f) => f.field));
    a.tensor.forEach((f, i) => {
      if (f.field === 1) expect([dimOf(out, f), dimOf(want, b.tensor[i])]).toEqual([n / 4, 1]);
      else if (f.field !== 9) expect(slice(out, f).equals(slice(want, b.tensor[i]))).toBe(true);
    });
    const raw = a.tensor.find((f) => f.field === 9);
    expect(raw.end - raw.start).toBe(n);
    expect(allZero(out, raw.start, raw.end)).toBe(true);
    // The node annotations are there (the small model's bytes, as checked above).
    expect(Buffer.from(out.subarray(0, a.init.start)).includes('onnx_light.')).toBe(true);
  }, 600_000);

  it.each([
    // past size_t: the output cannot be one block at all
    [
      4.5e9,
      /^the annotated model would be 45\d{8} bytes: more than one block can hold here \(4294967295 bytes\) \(WebAssembly's memory holds at most 4 GB, the module's own data included\)$/,
    ],
    // fits size_t (by ~1 KB) but not the 4 GB memory beside the module's own data
    [
      2 ** 32 - 1300,
      /^out of memory: the annotated model needs one block of 429496\d{4} bytes \(WebAssembly's memory holds at most 4 GB, the module's own data included\)$/,
    ],
  ])(
    'a %d-byte model says exactly why not, and the module survives',
    async (n, message) => {
      const v = virtualModel(Math.floor(n / 4) * 4);
      const { mp } = await freshMemplan();
      const model = mp.openReader(sizeOf(v), readerOf(v));
      try {
        expect(() => model.callBytes('annotate')).toThrow(message);
        expect(model.call('plan', ['--budget-ms', '0']).values.map((v) => v.name)).toEqual(['h', 'y']);
      } finally {
        model.close();
      }
      const small = virtualModel(4);
      const again = mp.openReader(sizeOf(small), readerOf(small));
      expect(again.callBytes('annotate').length).toBeGreaterThan(sizeOf(small));
      again.close();
    },
    120_000,
  );
});
