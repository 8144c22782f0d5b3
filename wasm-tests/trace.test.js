// The WASM trace export (mp_trace, Model.traceBytes): the bytes `memplan plan
// MODEL --trace OUT.json` writes, on the example and an npm fixture under
// several option sets; a deferred plan is refused with the CLI's message.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SRC } from '../scripts/prepare_web.mjs';
import { EXAMPLE } from '../web/src/example.js';
import { loadMemplan, requireNativeCli } from './helpers.js';
import { dimArgs, MEDIUM } from './viz-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'memplan-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI's trace file for `file` planned with `args`. */
function cliTrace(file, args) {
  const out = join(dir, 'out.json');
  execFileSync(requireNativeCli(), ['plan', file, ...args, '--trace', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  return readFileSync(out);
}

const exampleArgs = [...dimArgs(EXAMPLE.preset.dims), '--value', `sr=${EXAMPLE.preset.values.sr}`];
const CASES = [
  ['example, defaults', EXAMPLE_SRC, exampleArgs],
  [
    'example, slots, align 1, in-place',
    EXAMPLE_SRC,
    ['--strategy', 'slots', '--align', '1', '--inplace', ...exampleArgs],
  ],
  ['npm fixture, arena 256', MEDIUM.file, ['--align', '256', ...dimArgs(MEDIUM.dims)]],
];

describe('trace export through WASM', () => {
  for (const [what, file, args] of CASES) {
    it(`${what}: the same bytes as memplan plan --trace`, async () => {
      const mp = await loadMemplan();
      const model = mp.open(readFileSync(file));
      try {
        const got = Buffer.from(model.traceBytes(args));
        const want = cliTrace(file, args);
        expect(got.length, 'length').toBe(want.length);
        expect(got.equals(want), 'bytes').toBe(true);
        expect(JSON.parse(got.toString('utf8')).traceEvents.length).toBeGreaterThan(3);
      } finally {
        model.close();
      }
    });
  }

  it('a deferred plan is refused with the CLI message', async () => {
    const mp = await loadMemplan();
    const model = mp.open(readFileSync(EXAMPLE_SRC));
    try {
      const cli = spawnSync(requireNativeCli(), ['plan', EXAMPLE_SRC, '--trace', join(dir, 'x.json')], {
        encoding: 'utf8',
      });
      expect(cli.status, 'a usage error').toBe(1);
      const msg = /--trace: (.*)\n/.exec(cli.stderr)[1];
      expect(() => model.traceBytes([])).toThrow(msg);
    } finally {
      model.close();
    }
  });
});
