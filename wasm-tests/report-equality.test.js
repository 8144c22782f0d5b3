// Native and WASM produce identical `plan` JSON (arena and slot strategies,
// with and without dim bindings) and `shapes` JSON on every npm fixture and
// generated model.
// The search budget is 0 so the result depends on the input alone.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { npmFixtures } from '../scripts/list_fixtures.mjs';
import { ROOT, body, loadMemplan, requireNativeCli } from './helpers.js';

const execFileP = promisify(execFile);
const generatedDir = join(ROOT, 'build/fixtures');
const generated = existsSync(generatedDir)
  ? readdirSync(generatedDir).filter((f) => f.endsWith('.onnx')).map((f) => join(generatedDir, f))
  : [];
const VARIANTS = [
  ['plan', '--budget-ms', '0'],
  ['plan', '--budget-ms', '0', '--strategy', 'slots', '--align', '1'],
  ['plan', '--budget-ms', '0', '--dim', 'batch=2', '--dim', 'seq=16', '--include-inputs'],
  ['shapes'],
  ['shapes', '--dim', 'batch=3', '--dim', 'N=5'],
];

const cases = [];
for (const f of [...npmFixtures(), ...generated])
  for (const [cmd, ...args] of VARIANTS) cases.push([`${f.slice(ROOT.length + 1)} ${cmd} ${args.join(' ')}`, f, cmd, args]);

it.concurrent.each(cases)('%s', async (_name, file, cmd, args) => {
  const { stdout } = await execFileP(requireNativeCli(), [cmd, file, '--json', ...args],
    { encoding: 'utf8', maxBuffer: 256 << 20 });
  const mp = await loadMemplan();
  const model = mp.open(readFileSync(file));
  try {
    expect(body(model.callText(cmd, args))).toBe(body(stdout));
  } finally {
    model.close();
  }
});
