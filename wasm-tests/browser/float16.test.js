// float16 on the CPU (include/memplan/ort_float16.h): a float16 model is
// planned as written, and the "Assumed" note beside the figures says that
// ONNX Runtime's CPU execution provider runs its float16 nodes without a
// float16 kernel in float32, and where the graph it runs plans. The
// "float16 on the CPU" box plans that graph (plan --float16-cpu): the figures
// are the CLI's, its Casts and float32 copies are values of the plan, the
// note, the view's state and the link (f16=1) say so, and the link opens it
// so in a new tab. The per-node profile and the in-place reuse lists are of
// the graph planned (profile/inplace --float16-cpu with the box ticked, the
// file's unticked). A model without float16 nodes has no float16 note and no
// box.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convModel, float16Model } from '../onnx-encode.js';
import {
  cliJson,
  cliPlan,
  expectPlanShown,
  openFile,
  revealRow,
  shown,
  TIMEOUT,
  useBrowser,
  waitPlan,
} from './harness.js';

const env = useBrowser();
const DIR = mkdtempSync(join(tmpdir(), 'memplan-f16-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const FILE = join(DIR, 'f16.onnx');
writeFileSync(FILE, float16Model());
// Served at models/f16.onnx (routed): a model the page fetches (?url=), so its state goes in the link.
const ROUTE = '**/models/f16.onnx';
const served = async (page) =>
  page.route(ROUTE, (route) => route.fulfill({ body: readFileSync(FILE), contentType: 'application/octet-stream' }));

const assumed = (page) => page.evaluate(() => document.querySelector('.mpv-assumed')?.textContent ?? null);
// The per-node profile the page holds and the memory chart draws: [box, positions, the first node's name,
// profile nodes, its totals, its note, the memory chart's mode (stacked by tag: the profile drawn)].
const profileShown = (page) =>
  page.evaluate(() => {
    const v = window.memplanView;
    const c = v.view.controller.state;
    return [
      v.state.float16Cpu,
      c.m.positions,
      c.m.nodes[0].name,
      c.profileDoc?.nodes?.count ?? null,
      c.profile ? [...c.profile.total] : null,
      c.profileNote,
      v.view.charts.memory.profile === c.profile ? v.view.charts.memory.mode : 'another profile',
    ];
  });
// The reuse cell (the table's last column) of value `name`'s row.
const reuseCell = async (page, name) => {
  await revealRow(page, name);
  return page.$eval(`.mpv-table tr[data-name="${name}"]`, (tr) => tr.cells[tr.cells.length - 1].textContent);
};
// The profile totals per node of `memplan profile` (of the file's graph, or with --float16-cpu of the one ONNX Runtime runs).
const cliTotals = (args) => cliJson('profile', FILE, args).nodes.map((nd) => nd.profile.total_bytes);
const hash = (page) => page.evaluate(() => location.hash);
// The Conv's im2col (the float Conv of either graph), beside the note on float16.
const workspace = (bound, pct) =>
  "kernels take no scratch memory; ONNX Runtime's CPU kernels take some at 1 node, the largest 64.0 KiB " +
  "(65,536 B) at 'conv' (Conv: one thread's segment of the im2col (float)), where the lower bound is " +
  `${bound}, ${pct} above this plan's (“Kernel workspace” plans it)`;
const AS_WRITTEN =
  "float16 tensors as written; ONNX Runtime's CPU execution provider (x86-64) runs 4 float16 nodes in float32 " +
  '(Conv, Relu, Sigmoid, Add), casting their inputs, weights and outputs: float32 copies this plan does not ' +
  'hold; its weights then 2.27 KiB (2,328 B), against 1.15 KiB (1,176 B) as written; the graph it runs plans ' +
  'at 28.0 KiB (28,672 B) (“float16 on the CPU” plans it)';
const CPU_GRAPH =
  "the graph ONNX Runtime's CPU execution provider runs: 6 nodes in float32, 4 Casts added, 0 of the file's " +
  'Casts dropped';

let page;
let link = null; // the page's URL with the box ticked

describe('float16 on the CPU', () => {
  it('a float16 model opened cold: as written, and the note gives the peak of the graph ONNX Runtime runs', async () => {
    page = await env.newPage();
    await served(page);
    const written = cliPlan(FILE, []);
    expect([written.peak_bytes, written.onnxruntime_float16.peak_bytes]).toEqual([12288, 28672]);
    expect(written.onnxruntime_float16.onnxruntime_order_lower_bound_bytes).toBe(28672);
    await page.goto(`${env.base}?url=${encodeURIComponent('models/f16.onnx')}`, { timeout: TIMEOUT });
    await waitPlan(page, written);
    expectPlanShown(await shown(page), written, 'as written: ');
    expect(await assumed(page)).toBe(`Assumed (2): ${workspace('68.0 KiB (69,632 B)', '466.7%')}; ${AS_WRITTEN}.`);
    expect(await page.isVisible('.mpv-float16-cpu'), 'the box is offered').toBe(true);
    expect(await page.isChecked('.mpv-float16-cpu')).toBe(false);
    const label = await page.$eval('.mpv-float16-cpu', (i) => [i.parentElement.textContent, i.parentElement.title]);
    expect(label[0]).toBe(' float16 on the CPU');
    expect(label[1]).toMatch(
      /^The graph ONNX Runtime's CPU execution provider runs for a float16 model: .*between the Casts it inserts .*\(plan --float16-cpu\)\. Unticked: the graph as written\.$/,
    );
    await page.waitForFunction(() => /strategy=arena/.test(location.hash), null, { timeout: 5000 });
    expect(await hash(page), 'off: not in the link').not.toContain('f16');
  });

  it('float16 on the CPU: the plan of plan --float16-cpu, its Casts in the table, the note and the link', async () => {
    const cpu = cliPlan(FILE, ['--float16-cpu']);
    expect([cpu.peak_bytes, cpu.lower_bound_bytes, cpu.onnxruntime_cpu_graph]).toEqual([
      28672,
      28672,
      { float32_nodes: 6, forced: 2, casts: 4, casts_removed: 0 },
    ]);
    await page.check('.mpv-float16-cpu');
    await waitPlan(page, cpu);
    const s = await shown(page);
    expectPlanShown(s, cpu, 'the graph ONNX Runtime runs: ');
    expect(s.figures.peak).toBe('28,672 B');
    expect(await assumed(page)).toBe(`Assumed (2): ${workspace('80.0 KiB (81,920 B)', '185.7%')}; ${CPU_GRAPH}.`);
    expect(await page.isChecked('.mpv-float16-cpu')).toBe(true);
    // the order shown is of that graph: no reordered copy of the file from it
    expect(await page.isDisabled('[data-export="reordered-onnx"]')).toBe(true);
    expect(await page.getAttribute('[data-export="reordered-onnx"]', 'title')).toBe(
      'The order shown is of the graph ONNX Runtime runs for float16 tensors: untick “float16 on the CPU” to write the file in an order',
    );
    // the per-node profile of that graph (profile --float16-cpu): its 10 nodes, the inserted Cast of x first
    await page.click('[data-chart="memory"] [data-mode="stacked"]');
    const totals = cliTotals(['--float16-cpu']);
    expect(totals).toEqual([13464, 15768, 23960, 21656, 29848, 29848, 29848, 29848, 29848, 21656]);
    expect(await profileShown(page), 'the view state says so; the chart stacks that profile').toEqual([
      true,
      10,
      'InsertedPrecisionFreeCast_x',
      10,
      totals,
      '',
      'stacked',
    ]);
    // and its in-place reuse (inplace --float16-cpu): the Cast back to float16 reuses the float32 sigmoid's output
    expect(await reuseCell(page, 's')).toBe('InsertedPrecisionFreeCast_s (greater)');
    expect(await reuseCell(page, 'InsertedPrecisionFreeCast_r')).toBe('InsertedPrecisionFreeCast_c (equal)');
    // the table: the float32 copy of x that the first Cast makes, 8 KiB
    await revealRow(page, 'InsertedPrecisionFreeCast_x');
    const row = await page.$eval('.mpv-table tr[data-name="InsertedPrecisionFreeCast_x"]', (tr) =>
      [...tr.cells].map((td) => td.textContent),
    );
    expect(row).toContain('8,192');
    // a comparison plans the graphs as written (diff does not take --float16-cpu): it says so
    await page.click('.mpv-compare summary');
    await page.click('.mpv-compare-form button[type="submit"]');
    expect(await page.textContent('.mpv-compare-status')).toBe(
      'no comparison of the graph ONNX Runtime runs (diff does not take --float16-cpu): untick “float16 on the CPU” to compare',
    );
    await page.click('.mpv-compare summary');
    await page.waitForFunction(() => /f16=1/.test(location.hash), null, { timeout: 5000 });
    link = page.url();
    expect(new URL(link).hash).toBe('#strategy=arena&align=64&inplace=0&f16=1');
  });

  it('the link opens the graph ONNX Runtime runs in a new tab, the box ticked', async () => {
    const cpu = cliPlan(FILE, ['--float16-cpu']);
    const p2 = await env.newPage();
    await served(p2);
    await p2.goto(link, { timeout: TIMEOUT });
    await waitPlan(p2, cpu);
    expectPlanShown(await shown(p2), cpu, 'from the link: ');
    expect(await p2.isChecked('.mpv-float16-cpu')).toBe(true);
    // with that graph's profile (not stacked in a new tab)
    expect(await profileShown(p2)).toEqual([
      true,
      10,
      'InsertedPrecisionFreeCast_x',
      10,
      cliTotals(['--float16-cpu']),
      '',
      'plan',
    ]);
    expect(await assumed(p2)).toBe(`Assumed (2): ${workspace('80.0 KiB (81,920 B)', '185.7%')}; ${CPU_GRAPH}.`);
    await p2.close();
  });

  it('unticked: the graph as written again, and the link drops f16', async () => {
    const written = cliPlan(FILE, []);
    await page.uncheck('.mpv-float16-cpu');
    await waitPlan(page, written);
    expectPlanShown(await shown(page), written, 'as written again: ');
    expect(await assumed(page)).toBe(`Assumed (2): ${workspace('68.0 KiB (69,632 B)', '466.7%')}; ${AS_WRITTEN}.`);
    // the file graph's per-node profile (6 nodes) and reuse lists again, not the other graph's
    const totals = cliTotals([]);
    expect(totals.length).toBe(6);
    expect(await profileShown(page)).toEqual([false, 6, 'conv', 6, totals, '', 'stacked']);
    expect(await reuseCell(page, 's')).toBe('f (equal)');
    expect(await reuseCell(page, 'r')).toBe('c (equal)');
    // ticked again: that graph's, from the page's caches
    await page.check('.mpv-float16-cpu');
    await waitPlan(page, cliPlan(FILE, ['--float16-cpu']));
    expect(await profileShown(page)).toEqual([
      true,
      10,
      'InsertedPrecisionFreeCast_x',
      10,
      cliTotals(['--float16-cpu']),
      '',
      'stacked',
    ]);
    expect(await reuseCell(page, 's')).toBe('InsertedPrecisionFreeCast_s (greater)');
    await page.uncheck('.mpv-float16-cpu');
    await waitPlan(page, written);
    expect(await profileShown(page)).toEqual([false, 6, 'conv', 6, totals, '', 'stacked']);
    expect(await reuseCell(page, 's')).toBe('f (equal)');
    await page.waitForFunction(() => !/f16=/.test(location.hash), null, { timeout: 5000 });
    await page.unroute(ROUTE);
  });

  it('a model without float16 nodes: no float16 note, no box', async () => {
    const file = join(DIR, 'conv.onnx');
    writeFileSync(file, convModel());
    const plan = cliPlan(file, []);
    expect(plan.onnxruntime_float16, 'the CLI finds none').toBe(null);
    await openFile(page, file);
    await waitPlan(page, plan);
    expect(await assumed(page)).toMatch(/^Assumed: kernels take no scratch memory; /);
    expect(await page.isVisible('.mpv-float16-cpu'), 'nothing to plan: no box').toBe(false);
    await page.close();
  });
});
