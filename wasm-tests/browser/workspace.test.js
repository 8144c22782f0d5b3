// Kernel workspace (include/memplan/workspace.h): a model whose kernels take
// scratch memory as ONNX Runtime's CPU kernels allocate it (a float Conv's
// im2col) is planned with tensors only, and the "Assumed" note beside the
// figures says where the lower bound is with that memory at each node. The
// "Kernel workspace" box plans it (plan --workspace): the figures are the
// CLI's, the workspace is a buffer named after its node (the table, the
// tooltip, at the peak), the note and the view's state say so. A model whose
// kernels take none has no note and no box.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convModel, qdqConvModel } from '../onnx-encode.js';
import {
  barPoint,
  cliPlan,
  expectPlanShown,
  openFile,
  openPage,
  revealRow,
  shown,
  TIMEOUT,
  useBrowser,
  waitPlan,
} from './harness.js';

const env = useBrowser({ setup: openPage });
const DIR = mkdtempSync(join(tmpdir(), 'memplan-ws-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const FILE = join(DIR, 'conv.onnx');
writeFileSync(FILE, convModel());
const WHAT = "one thread's segment of the im2col (float)";

const assumed = (page) => page.evaluate(() => document.querySelector('.mpv-assumed')?.textContent ?? null);

describe('kernel workspace', () => {
  it("a float Conv: tensors only, and the note gives the lower bound with the kernel's scratch memory", async () => {
    const page = env.page;
    const tensors = cliPlan(FILE, []);
    expect([tensors.kernel_workspace.nodes, tensors.kernel_workspace.lower_bound_bytes]).toEqual([1, 71808]);
    await openFile(page, FILE);
    await waitPlan(page, tensors);
    expectPlanShown(await shown(page), tensors, 'tensors only: ');
    expect(await assumed(page)).toBe(
      "Assumed: kernels take no scratch memory; ONNX Runtime's CPU kernels take some at 1 node, the largest " +
        `64.0 KiB (65,536 B) at 'conv' (Conv: ${WHAT}), where the lower bound is 70.1 KiB (71,808 B), ` +
        "472.4% above this plan's (“Kernel workspace” plans it).",
    );
    expect(await page.isVisible('.mpv-workspace'), 'the box is offered').toBe(true);
    expect(await page.isChecked('.mpv-workspace')).toBe(false);
    const label = await page.$eval('.mpv-workspace', (i) => [i.parentElement.textContent, i.parentElement.title]);
    expect(label[0]).toBe(' Kernel workspace');
    expect(label[1]).toMatch(
      /^The scratch memory ONNX Runtime's CPU kernels allocate while they run .*Unticked: tensors only\.$/,
    );
  });

  it('Kernel workspace: the plan of plan --workspace, its buffer in the table, the tooltip and at the peak', async () => {
    const page = env.page;
    const [tensors, ws] = [cliPlan(FILE, []), cliPlan(FILE, ['--workspace'])];
    // c (6,272 B) and the Conv's 64 KiB at the Conv; c and y at the Relu
    expect([tensors.peak_bytes, ws.peak_bytes, ws.kernel_workspace.included]).toEqual([12544, 71808, true]);
    await page.check('.mpv-workspace');
    await waitPlan(page, ws);
    expectPlanShown(await shown(page), ws, 'with the workspace: ');
    expect(await assumed(page)).toBe(
      "Assumed: the scratch memory ONNX Runtime's CPU kernels take (one intra-op thread), planned at 1 node: " +
        `the largest 64.0 KiB (65,536 B) at 'conv' (Conv: ${WHAT}).`,
    );
    const state = await page.evaluate(() => {
      const s = window.memplanView.view.controller.state;
      return [window.memplanView.state.workspace, s.profile, s.profileNote];
    });
    expect(state, 'the view state says so; the chart shows the plan').toEqual([
      true,
      null,
      "the per-node profile counts tensors; with kernel workspace the chart shows the plan's live bytes",
    ]);
    // the table: a buffer named after its node
    await revealRow(page, 'conv');
    const row = await page.$eval('.mpv-table tr[data-name="conv"]', (tr) => [...tr.cells].map((td) => td.textContent));
    expect(row).toContain(`workspace (Conv: ${WHAT})`);
    expect(row).toContain('65,536');
    // the tooltip: what the kernel allocates, and its node
    const p = await barPoint(page, 'timeline', 'conv');
    await page.mouse.move(p.x, p.y);
    await page.waitForFunction(() => document.querySelector('.mpv-tip-title')?.textContent === 'conv', null, {
      timeout: 5000,
    });
    const tip = await page.evaluate(() => document.querySelector('.mpv-tooltip').textContent);
    expect(tip).toContain(`kernel workspace64.0 KiB (65,536 B): ${WHAT}`);
    expect(tip).toContain('nodeConv conv (position 0)');
    await page.mouse.move(0, 0);
    // at the peak: the plan's at_peak, the workspace said so
    const listed = await page.$$eval('.mpv-atpeak-table tbody tr', (trs) =>
      trs.map((tr) => [tr.dataset.name, tr.cells[0].textContent, tr.cells[5].textContent]),
    );
    expect(listed).toEqual([
      ['conv', "conv (its kernel's workspace)", '65,536'],
      ['c', 'c', '6,272'],
    ]);
    expect(ws.at_peak.buffers.map((b) => [b.name, b.workspace])).toEqual([
      ['conv', true],
      ['c', false],
    ]);
    await page.uncheck('.mpv-workspace');
    await waitPlan(page, tensors);
    expectPlanShown(await shown(page), tensors, 'tensors only again: ');
    expect(await page.evaluate(() => window.memplanView.view.controller.state.profileNote)).toBe('');
  });

  it('a model whose kernels take no scratch memory: no note, no box', async () => {
    const page = env.page;
    const file = join(DIR, 'relu.onnx');
    writeFileSync(file, qdqConvModel(true));
    expect(cliPlan(file, []).kernel_workspace.nodes, 'the CLI finds none').toBe(0);
    await openFile(page, file);
    await page.waitForFunction(() => document.querySelector('.mpv-assumed')?.hidden === true, null, {
      timeout: TIMEOUT,
    });
    expect(await page.isVisible('.mpv-workspace'), 'nothing to plan: no box').toBe(false);
  });
});
