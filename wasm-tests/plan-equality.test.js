// Native and WASM produce identical `plan` JSON (arena and slot strategies,
// with and without dim bindings) on every npm fixture and generated model.
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
  ['--budget-ms', '0'],
  ['--budget-ms', '0', '--strategy', 'slots', '--align', '1'],
  ['--budget-ms', '0', '--dim', 'batch=2', '--dim', 'seq=16', '--include-inputs'],
];

const cases = [];
for (const f of [...npmFixtures(), ...generated])
  for (const args of VARIANTS) cases.push([`${f.slice(ROOT.length + 1)} ${args.join(' ')}`, f, args]);

it.concurrent.each(cases)('%s', async (_name, file, args) => {
  const { stdout } = await execFileP(requireNativeCli(), ['plan', file, '--json', ...args],
    { encoding: 'utf8', maxBuffer: 256 << 20 });
  const mp = await loadMemplan();
  const model = mp.open(readFileSync(file));
  try {
    expect(body(model.callText('plan', args))).toBe(body(stdout));
  } finally {
    model.close();
  }
});
