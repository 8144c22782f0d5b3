// "KV cache in place" (plan --share-kv): offered only for a model whose
// present* outputs have past* inputs, it plans the decoder as ONNX Runtime
// GenAI runs it with past_present_share_buffer, each present written into its
// past's buffer. The figures are the native CLI's with and without the option.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/prepare_web.mjs';
import { dimArgs } from '../viz-fixtures.js';
import { bindDims, cliPlan, openFile, openPage, TIMEOUT, useBrowser, waitPlan } from './harness.js';

const env = useBrowser({ setup: openPage });
const GEN = mkdtempSync(join(tmpdir(), 'memplan-sharekv-'));
execFileSync('/usr/bin/python3', [join(ROOT, 'scripts/gen_contrib_models.py'), GEN]);
afterAll(() => rmSync(GEN, { recursive: true, force: true }));

// one new token on a cache of 128: the shared buffer holds the full length
const DIMS = { batch: 1, sequence_length: 1, past_sequence_length: 128, total_sequence_length: 128 };
const totalCard = (page) => page.textContent('.mpv-figure[data-figure="total"]');
const bytes = (n) => `${n.toLocaleString('en-US')} B`;

describe('KV cache in place', () => {
  it('the GenAI decoder: offered, and planned as --share-kv plans it', async () => {
    const page = env.page;
    const file = join(GEN, 'genai_decoder.onnx');
    await openFile(page, file);
    expect(await page.isVisible('.mpv-share-kv'), 'offered for present/past pairs').toBe(true);
    const plain = cliPlan(file, dimArgs(DIMS));
    await bindDims(page, DIMS, plain);
    expect(plain.total_bytes, 'past 64 KiB in, present 64 KiB in the arena').toBe(206112);
    expect(await totalCard(page)).toContain(bytes(plain.total_bytes));
    const shared = cliPlan(file, [...dimArgs(DIMS), '--share-kv']);
    expect(shared.total_bytes, 'the four 16 KiB presents in the pasts').toBe(140704);
    await page.check('.mpv-share-kv');
    await waitPlan(page, shared);
    await page.waitForFunction(() => Array.isArray(window.memplanView.plan?.share_kv), null, { timeout: TIMEOUT });
    expect(await page.evaluate(() => window.memplanView.plan.share_kv.map((p) => `${p.output}>${p.input}`))).toEqual(
      shared.share_kv.map((p) => `${p.output}>${p.input}`),
    );
    expect(await totalCard(page)).toContain(bytes(shared.total_bytes));
    expect(await totalCard(page), 'the note says so').toContain('KV cache in place');
    // a past shorter than its present cannot hold it: the error, then a plan again
    await page.fill('.mpv-dim input[data-dim="past_sequence_length"]', '127');
    await page.waitForFunction(
      () => /does not fit in the buffer of 'past_key_values\.0\.key'/.test(document.body.textContent),
      null,
      { timeout: TIMEOUT },
    );
    await page.uncheck('.mpv-share-kv');
    await waitPlan(page, cliPlan(file, dimArgs({ ...DIMS, past_sequence_length: 127 })));
  });

  it('a model without a KV cache: not offered', async () => {
    const page = env.page;
    await openFile(page, join(GEN, 'quant_conv.onnx'));
    expect(await page.isVisible('.mpv-share-kv')).toBe(false);
  });
});
