// QDQ node units (include/memplan/qdq.h): a QDQ model is planned as written,
// its float values between DequantizeLinear and QuantizeLinear counted as
// activations, and the "Assumed" note beside the figures says that ONNX
// Runtime's CPU execution provider fuses such units and needs less. The "QDQ
// fused" box plans them fused (plan --fuse-qdq): the figures are the CLI's,
// the note and the view's state say so. An int8 model whose units fuse only
// where int8 QDQ is allowed gets that peak in its note. A model without units
// has no note and no box. As written, the float Conv's kernel workspace (its
// im2col, workspace.test.js) is noted first.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { qdqConvModel } from '../onnx-encode.js';
import { cliPlan, expectPlanShown, openFile, openPage, shown, TIMEOUT, useBrowser, waitPlan } from './harness.js';

const env = useBrowser({ setup: openPage });
const DIR = mkdtempSync(join(tmpdir(), 'memplan-qdq-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const qdqConv = (file, relu) => writeFileSync(file, qdqConvModel(relu));

const assumed = (page) => page.evaluate(() => document.querySelector('.mpv-assumed')?.textContent ?? null);
// The float Conv of the graph as written takes a 64 KiB im2col beside 1,792 B of tensors.
const WORKSPACE =
  "kernels take no scratch memory; ONNX Runtime's CPU kernels take some at 1 node, the largest 64.0 KiB " +
  "(65,536 B) at 'conv' (Conv: one thread's segment of the im2col (float)), where the lower bound is " +
  "65.8 KiB (67,328 B), 3657.1% above this plan's (“Kernel workspace” plans it)";

describe('QDQ units', () => {
  it('a QDQ conv: planned as written, and the note says ONNX Runtime fuses it', async () => {
    const page = env.page;
    const file = join(DIR, 'qdq_conv.onnx');
    qdqConv(file, false);
    expect(cliPlan(file, []).qdq_units, 'the CLI counts one unit').toBe(1);
    await openFile(page, file);
    // the fused reading comes after the plan shown
    await page.waitForFunction(() => /Fused,/.test(document.querySelector('.mpv-assumed')?.textContent), null, {
      timeout: TIMEOUT,
    });
    expect(await assumed(page)).toBe(
      `Assumed (2): ${WORKSPACE}; ` +
        '1 DequantizeLinear → op → QuantizeLinear unit planned as written (float values between them); ' +
        "ONNX Runtime's CPU execution provider fuses such units on x86-64 into int8 ops, so it may need less " +
        '(“QDQ fused” plans them so). ' +
        'Fused, the planned peak is 192 B.',
    );
    expect(await page.isVisible('.mpv-fuse-qdq'), 'the box is offered').toBe(true);
    expect(await page.isChecked('.mpv-fuse-qdq')).toBe(false);
  });

  it('QDQ fused: the plan of plan --fuse-qdq, said in the note', async () => {
    const page = env.page;
    const file = join(DIR, 'qdq_conv.onnx');
    const written = cliPlan(file, []);
    const fused = cliPlan(file, ['--fuse-qdq']);
    // as written x, w and c (float: 768, 432 and 576 B) at the conv; fused the conv writes 144 B of uint8
    expect([written.peak_bytes, fused.peak_bytes, fused.qdq_fused]).toEqual([1792, 192, 1]);
    await page.check('.mpv-fuse-qdq');
    await waitPlan(page, fused);
    expectPlanShown(await shown(page), fused, 'fused: ');
    await page.waitForFunction(() => /As written,/.test(document.querySelector('.mpv-assumed')?.textContent), null, {
      timeout: TIMEOUT,
    });
    expect(await assumed(page)).toBe(
      'Assumed: 1 DequantizeLinear → op → QuantizeLinear unit planned fused, ' +
        "as ONNX Runtime's CPU execution provider runs them on x86-64: the op reads and writes the quantized tensors. " +
        'As written, the planned peak is 1.75 KiB (1,792 B).',
    );
    expect(await page.evaluate(() => window.memplanView.state.fuseQdq), 'the view state says so').toBe(true);
    await page.uncheck('.mpv-fuse-qdq');
    await waitPlan(page, written);
    expectPlanShown(await shown(page), written, 'as written again: ');
  });

  it('an int8 QDQ conv: no unit fuses on x86-64; the note gives the peak where int8 QDQ is allowed', async () => {
    const page = env.page;
    const file = join(DIR, 'qdq_conv8.onnx');
    writeFileSync(file, qdqConvModel(false, true));
    const [written, arm] = [cliPlan(file, []), cliPlan(file, ['--fuse-qdq', '--qdq-int8'])];
    expect([written.qdq_units, written.qdq_units_other, written.peak_bytes, arm.peak_bytes]).toEqual([0, 1, 1792, 192]);
    await openFile(page, file);
    await page.waitForFunction(() => /ARM64\), it is/.test(document.querySelector('.mpv-assumed')?.textContent), null, {
      timeout: TIMEOUT,
    });
    expect(await assumed(page)).toBe(
      `Assumed (2): ${WORKSPACE}; ` +
        'no DequantizeLinear → op → QuantizeLinear unit that ONNX Runtime fuses on x86-64; ' +
        '1 DequantizeLinear → op → QuantizeLinear unit where int8 QDQ is allowed (as on ARM64). ' +
        'Fused where int8 QDQ is allowed (as on ARM64), it is 192 B.',
    );
    expect(await page.isVisible('.mpv-fuse-qdq'), 'nothing to fuse here: no box').toBe(false);
  });

  it('a Relu between them is no unit: no note', async () => {
    const page = env.page;
    const file = join(DIR, 'qdq_relu.onnx');
    qdqConv(file, true);
    expect(cliPlan(file, []).qdq_units).toBe(0);
    await openFile(page, file);
    // the last model's note goes with its plan
    await page.waitForFunction(() => document.querySelector('.mpv-assumed')?.hidden === true, null, {
      timeout: TIMEOUT,
    });
    expect(await assumed(page)).toBe('');
    expect(await page.isVisible('.mpv-fuse-qdq'), 'no units: no box').toBe(false);
  });
});
