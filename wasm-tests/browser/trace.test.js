// The page's "Trace (.json)" export (issue 18 item 4): the bytes `memplan
// plan MODEL --trace OUT.json` writes with the page's options and bindings;
// disabled while the plan is deferred.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SRC } from '../../scripts/prepare_web.mjs';
import { EXAMPLE } from '../../web/src/example.js';
import { dimArgs } from '../viz-fixtures.js';
import { CLI, cliPlan, grab, openPage, useBrowser, waitPlan } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'memplan-trace-page-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cliTrace = (args) => {
  const out = join(dir, 'out.json');
  execFileSync(CLI, ['plan', EXAMPLE_SRC, ...args, '--trace', out], { stdio: 'ignore' });
  return readFileSync(out);
};

const env = useBrowser({ setup: openPage });
let page;
beforeAll(() => {
  page = env.page;
});

describe('trace export', () => {
  it("Trace (.json) writes the CLI's bytes, under the page's options too", async () => {
    const base = [...dimArgs(EXAMPLE.preset.dims), '--value', `sr=${EXAMPLE.preset.values.sr}`];
    const first = await grab(page, '[data-export="trace-json"]');
    expect(first.name, 'file name').toBe('example.onnx_Silero_VAD_v5_.trace.json');
    expect(first.bytes.equals(cliTrace(base)), 'trace bytes, defaults').toBe(true);
    await page.evaluate(() => window.memplanView.setOptions({ strategy: 'slots', align: 1 }));
    const args = ['--strategy', 'slots', '--align', '1', ...base];
    await waitPlan(page, cliPlan(EXAMPLE_SRC, args));
    const second = await grab(page, '[data-export="trace-json"]');
    expect(second.bytes.equals(cliTrace(args)), 'trace bytes, slots align 1').toBe(true);
  });

  it('disabled while the plan is deferred', async () => {
    await page.evaluate(() => window.memplanView.setDims({ 'input:1': '' }));
    await page.waitForFunction(() => window.memplanView.plan?.status === 'deferred', null, { timeout: 30_000 });
    expect(await page.isDisabled('[data-export="trace-json"]')).toBe(true);
  });
});
