// Names with markup, invalid UTF-8 and other odd bytes come out of native and
// WASM as the same JSON, and the JSON parses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { encodeModel, hostileModel, HOSTILE_INPUT } from './onnx-encode.js';
import { body, nativeInfo, wasmInfo } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'memplan-strings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const models = {
  hostile: hostileModel(),
  'invalid-utf8': encodeModel({
    producer: Uint8Array.from([0xff, 0xfe, 0x41]),
    nodes: [{ opType: 'Relu', inputs: [Uint8Array.from([0xc3, 0x28])], outputs: ['y'] }],
    inputs: [{ name: Uint8Array.from([0xc3, 0x28]), shape: [2] }],
    outputs: [{ name: 'y', shape: [2] }],
  }),
  'control-and-quotes': encodeModel({
    producer: 'tab\there "quote" back\\slash\u0001\u007f',
    nodes: [{ opType: 'Identity', inputs: ['x\n'], outputs: ['ü€𝄞'] }],
    inputs: [{ name: 'x\n', shape: ['N', 3] }],
    outputs: [{ name: 'ü€𝄞', shape: ['N', 3] }],
  }),
  'long-name': encodeModel({
    nodes: [{ opType: 'Relu', inputs: ['a'.repeat(60000)], outputs: ['b'] }],
    inputs: [{ name: 'a'.repeat(60000), shape: [1] }],
    outputs: [{ name: 'b', shape: [1] }],
  }),
};

it.each(Object.keys(models))('native and WASM agree on %s', async (name) => {
  const file = join(dir, `${name}.onnx`);
  writeFileSync(file, models[name]);
  const [native, wasm] = await Promise.all([nativeInfo(file), wasmInfo(file)]);
  expect(native.code, native.stderr).toBe(0);
  expect(wasm.ok ? body(wasm.text) : wasm.message).toBe(body(native.stdout));
  const info = JSON.parse(wasm.text);
  expect(info.nodes).toBe(1);
  if (name === 'hostile') expect(info.inputs[0].name).toBe(HOSTILE_INPUT);
});
