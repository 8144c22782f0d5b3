// Native and WASM produce identical JSON for every command (plan with arena and
// slot strategies, with and without dim bindings, in-place reuse and --order best; shapes;
// inplace; profile; tags) on every npm fixture and generated model, and
// identical annotated bytes.
// The search budget is 0 so the result depends on the input alone.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { npmFixtures } from '../scripts/list_fixtures.mjs';
import { ROOT, body, loadMemplan, requireNativeCli } from './helpers.js';

const execFileP = promisify(execFile);
const generatedDir = join(ROOT, 'build/fixtures');
const generated = existsSync(generatedDir)
  ? readdirSync(generatedDir)
      .filter((f) => f.endsWith('.onnx'))
      .map((f) => join(generatedDir, f))
  : [];
const VARIANTS = [
  ['plan', '--budget-ms', '0'],
  ['plan', '--budget-ms', '0', '--strategy', 'slots', '--align', '1'],
  ['plan', '--budget-ms', '0', '--dim', 'batch=2', '--dim', 'seq=16', '--include-inputs'],
  ['shapes'],
  ['shapes', '--dim', 'batch=3', '--dim', 'N=5'],
  ['inplace', '--events'],
  ['inplace', '--allow-input-overwrite'],
  ['profile', '--dim', 'batch=2'],
  ['tags'],
  ['plan', '--budget-ms', '0', '--inplace'],
  ['plan', '--budget-ms', '0', '--order', 'best', '--dim', 'batch=2', '--dim', 'seq=16'],
];

const cases = [];
for (const f of [...npmFixtures(), ...generated])
  for (const [cmd, ...args] of VARIANTS)
    cases.push([`${f.slice(ROOT.length + 1)} ${cmd} ${args.join(' ')}`, f, cmd, args]);

const annotateCases = [...npmFixtures(), ...generated].map((f) => [f.slice(ROOT.length + 1), f]);

it.concurrent.each(cases)('%s', async (_name, file, cmd, args) => {
  const { stdout } = await execFileP(requireNativeCli(), [cmd, file, '--json', ...args], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  const mp = await loadMemplan();
  const model = mp.open(readFileSync(file));
  try {
    expect(body(model.callText(cmd, args))).toBe(body(stdout));
  } finally {
    model.close();
  }
});

it.concurrent.each(annotateCases)('annotate %s', async (_name, file) => {
  const out = join(tmpdir(), `memplan-annotate-${process.pid}-${basename(file)}`);
  try {
    await execFileP(requireNativeCli(), ['annotate', file, '-o', out]);
    const mp = await loadMemplan();
    const model = mp.open(readFileSync(file));
    try {
      expect(Buffer.from(model.callBytes('annotate')).equals(readFileSync(out))).toBe(true);
    } finally {
      model.close();
    }
  } finally {
    rmSync(out, { force: true });
  }
});
