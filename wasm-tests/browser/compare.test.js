// Compare two plans (app/compare.js): a second model, or the same model
// under another option set. The page's diff equals the CLI's `memplan diff
// --json` where the CLI can make it (two models, one option set), and each
// side's figures equal that side's own plan (`memplan plan --json`).
import { beforeAll, describe, expect, it } from 'vitest';
import { SMALL, SYMBOLIC } from '../viz-fixtures.js';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { artifact, cliJson, cliPlan, grab, openFile, openPlanned, pngSize, TIMEOUT, useBrowser } from './harness.js';
import { DROPPED, OTHER } from './paths.js';

const env = useBrowser({ setup: (page, e) => openPlanned(page, e, SYMBOLIC) });
let page;
beforeAll(() => {
  page = env.page;
});

/** The figures of a diff side from that side's own plan JSON (its strategy's; slots_bytes the slot plan's). */
const figuresOf = (plan) => ({
  status: plan.status,
  positions: plan.positions,
  peak_bytes: plan.peak_bytes,
  lower_bound_bytes: plan.lower_bound_bytes,
  naive_bytes: plan.naive_bytes,
  slots_bytes: plan.strategies?.slots ?? null,
  weight_bytes: plan.weights.unknown ? null : plan.weights.bytes,
  input_bytes: plan.inputs.unknown ? null : plan.inputs.bytes,
  total_bytes: plan.total_bytes,
});
const pick = (side) => ({
  status: side.status,
  positions: side.positions,
  peak_bytes: side.peak_bytes,
  lower_bound_bytes: side.lower_bound_bytes,
  naive_bytes: side.naive_bytes,
  slots_bytes: side.slots_bytes,
  weight_bytes: side.weight_bytes,
  input_bytes: side.input_bytes,
  total_bytes: side.total_bytes,
});

/** Set B's controls, press Compare, wait for the result. */
async function compareFromForm({ what = 'options', strategy, align, inplace, dims = '' }) {
  await page.evaluate(() => {
    const d = document.querySelector('.mpv-compare');
    d.open = true;
    d.scrollIntoView({ block: 'start' });
  });
  await page.selectOption('.mpv-compare-what', what);
  if (strategy) await page.selectOption('.mpv-compare-strategy', strategy);
  if (align) await page.selectOption('.mpv-compare-align', String(align));
  if (inplace !== undefined) await page.setChecked('.mpv-compare-inplace', inplace);
  await page.fill('.mpv-compare-dims', dims);
  // By its sequence number: a copy of `last` out of the page never equals the page's own
  // object, so waiting for a different `diff` returned at once with the previous comparison.
  const before = await page.evaluate(() => window.memplanView.view.compare.last?.seq ?? 0);
  await page.click('.mpv-compare-form button[type="submit"]');
  await page.waitForFunction((b) => (window.memplanView.view.compare.last?.seq ?? 0) > b, before, {
    timeout: TIMEOUT,
  });
  return page.evaluate(() => window.memplanView.view.compare.last);
}

/** The figures table as shown: {key: [A, B, B - A]}. */
const shownFigures = () =>
  page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('.mpv-compare-table tbody tr')].map((tr) => [
        tr.dataset.figure,
        [...tr.cells].slice(1).map((td) => td.textContent),
      ]),
    ),
  );
const exact = (v) => (v === null ? '—' : `${v.toLocaleString('en-US')} B`);

describe('compare two plans', () => {
  it('in-place off against on: each side is its own plan, the deltas are B − A', async () => {
    const last = await compareFromForm({ inplace: true });
    expect(last.argsA).not.toContain('--inplace');
    expect(last.argsB).toContain('--inplace');
    const pa = cliPlan(SYMBOLIC.file, last.argsA),
      pb = cliPlan(SYMBOLIC.file, last.argsB);
    expect(pick(last.diff.a), 'A').toEqual(figuresOf(pa));
    expect(pick(last.diff.b), 'B').toEqual(figuresOf(pb));
    for (const k of ['peak_bytes', 'lower_bound_bytes', 'naive_bytes', 'slots_bytes', 'total_bytes'])
      expect(last.diff.delta[k], `delta ${k}`).toBe(figuresOf(pb)[k] - figuresOf(pa)[k]);
    expect(last.diff.b.peak_bytes, 'in-place reuse lowers this model’s peak').toBeLessThan(last.diff.a.peak_bytes);
    const shown = await shownFigures();
    expect(shown.peak_bytes.slice(0, 2)).toEqual([exact(pa.peak_bytes), exact(pb.peak_bytes)]);
    expect(shown.lower_bound_bytes.slice(0, 2)).toEqual([exact(pa.lower_bound_bytes), exact(pb.lower_bound_bytes)]);
    expect(shown.total_bytes, 'the totals to fit and their delta').toEqual([
      exact(pa.total_bytes),
      exact(pb.total_bytes),
      `${pb.total_bytes < pa.total_bytes ? '−' : '+'}${Math.abs(pb.total_bytes - pa.total_bytes).toLocaleString('en-US')} B (${pb.total_bytes < pa.total_bytes ? '−' : '+'}${Math.abs((100 * (pb.total_bytes - pa.total_bytes)) / pa.total_bytes).toFixed(1)}%)`,
    ]);
    // The overlaid curves: one per side over its positions; the highest live bytes are its lower bound.
    const curves = await page.evaluate(() => window.memplanView.view.compare.overlay.sides);
    expect(curves.map((c) => [c.positions, c.max, c.peak])).toEqual([
      [pa.positions, pa.lower_bound_bytes, pa.peak_bytes],
      [pb.positions, pb.lower_bound_bytes, pb.peak_bytes],
    ]);
    await page.evaluate(() => document.querySelector('.mpv-compare').scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: artifact('browser-compare.png') });
  });

  it('the overlay has a PNG (2x, a title line naming A and B) and an SVG of its two curves', async () => {
    const last = await compareFromForm({ strategy: 'arena', inplace: true, dims: '' });
    expect(
      await page.$$eval('[data-chart="compare"] [data-export]', (bs) => bs.map((b) => b.getAttribute('aria-label'))),
    ).toEqual(['Memory over time, A and B as PNG', 'Memory over time, A and B as SVG']);
    const name = basename(SYMBOLIC.file);
    const desc = (args) =>
      args
        .flatMap((a, k) =>
          a === '--strategy' || a === '--dim' || a === '--value'
            ? [args[k + 1]]
            : a === '--align'
              ? [`align ${args[k + 1]}`]
              : a === '--inplace'
                ? ['in-place']
                : [],
        )
        .join(', ');
    expect(await page.evaluate(() => window.memplanView.view.compare.pngTitle())).toBe(
      `${name} · Memory over time, A (${desc(last.argsA)}) against B (${desc(last.argsB)})`,
    );
    const png = await grab(page, '[data-export="compare-png"]');
    expect(png.name).toBe(`${name.replace(/\.onnx$/, '')}-compare.png`);
    expect(png.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    const size = await pngSize(page, 'compare', png.bytes);
    expect(size.png, 'PNG: 2x and a title band').toEqual(size.want);
    const svg = (await grab(page, '[data-export="compare-svg"]')).bytes.toString('utf8');
    // The canvas curves, as paths: A's and B's step lines and dashed peaks.
    expect(svg.match(/class="overlay-line overlay-[ab]"/g)).toEqual([
      'class="overlay-line overlay-a"',
      'class="overlay-line overlay-b"',
    ]);
    expect(svg.match(/class="overlay-peak"/g)?.length).toBe(2);
    expect(svg).toContain(`<title>A: ${last.names[0]}</title>`);
  });

  it('two dim bindings: the values whose size changed carry both plans’ sizes', async () => {
    const last = await compareFromForm({ inplace: false, dims: 'samples=16000' });
    expect(last.argsB.slice(-2)).toEqual(['--dim', 'samples=16000']);
    expect(
      last.argsB.filter((a) => a.startsWith('samples=')),
      'A’s samples replaced',
    ).toEqual(['samples=16000']);
    const pa = cliPlan(SYMBOLIC.file, last.argsA),
      pb = cliPlan(SYMBOLIC.file, last.argsB);
    expect(pick(last.diff.a)).toEqual(figuresOf(pa));
    expect(pick(last.diff.b)).toEqual(figuresOf(pb));
    const size = (plan) => new Map(plan.values.map((v) => [v.name, v.size]));
    const sa = size(pa),
      sb = size(pb);
    const grew = last.diff.values.changed.filter((c) => c.a.size !== c.b.size);
    expect(grew.length, 'values whose size changed').toBeGreaterThan(0);
    for (const c of last.diff.values.changed) {
      expect(c.a.size, `${c.name} in A`).toBe(sa.get(c.name));
      expect(c.b.size, `${c.name} in B`).toBe(sb.get(c.name));
    }
    // Every value whose size differs between the two plans is listed.
    const differ = pa.values.filter((v) => sb.has(v.name) && sb.get(v.name) !== v.size).map((v) => v.name);
    expect(grew.map((c) => c.name).sort()).toEqual(differ.sort());
    const rows = await page.locator('.mpv-compare-changed tbody tr').count();
    expect(rows).toBe(Math.min(200, last.diff.values.changed.length));
  });

  it('arena against slots: each side has its strategy’s figures', async () => {
    const last = await compareFromForm({ strategy: 'slots', inplace: false });
    const pa = cliPlan(SYMBOLIC.file, last.argsA),
      pb = cliPlan(SYMBOLIC.file, last.argsB);
    expect(pb.strategy).toBe('slots');
    expect(pick(last.diff.a)).toEqual(figuresOf(pa));
    expect(pick(last.diff.b)).toEqual(figuresOf(pb));
    expect(pa.strategy).toBe('arena');
    expect(last.diff.b.peak_bytes, 'B is the slot plan').toBe(pa.strategies.slots);
    expect(last.diff.delta.peak_bytes).toBe(pb.peak_bytes - pa.peak_bytes);
    expect(last.diff.b.peak_bytes, 'the two strategies differ on this model').not.toBe(last.diff.a.peak_bytes);
  });

  it('two models: the page’s diff equals `memplan diff A B --json`', async () => {
    await openFile(page, SMALL.file);
    await page.evaluate(() => (document.querySelector('.mpv-compare').open = true));
    await page.setInputFiles('.mpv-compare-file', OTHER);
    await page.waitForFunction(() => /^B: /.test(document.querySelector('.mpv-compare-status').textContent), null, {
      timeout: TIMEOUT,
    });
    // B with A's options: what the CLI's diff (one option set for both) makes.
    const state = await page.evaluate(() => window.memplanView.state);
    const last = await compareFromForm({
      what: 'model',
      strategy: state.strategy,
      align: state.align,
      inplace: state.inplace,
    });
    expect(last.argsB).toEqual(last.argsA);
    // `memplan diff` plans with the arena (it takes no --strategy).
    expect(last.argsA.slice(0, 2)).toEqual(['--strategy', 'arena']);
    const cli = cliJson('diff', SMALL.file, [OTHER, ...last.argsA.slice(2)]);
    expect(last.diff).toEqual(cli);
    expect(pick(last.diff.a)).toEqual(figuresOf(cliPlan(SMALL.file, last.argsA)));
    expect(pick(last.diff.b)).toEqual(figuresOf(cliPlan(OTHER, last.argsA)));
    const shown = await shownFigures();
    expect(shown.peak_bytes).toEqual([
      exact(cli.a.peak_bytes),
      exact(cli.b.peak_bytes),
      expect.stringMatching(/^[+−±][0-9,]+ B/),
    ]);
  });

  it('a bad dims text says how to write it, and changes nothing', async () => {
    const before = await page.evaluate(() => window.memplanView.view.compare.last.diff);
    await page.selectOption('.mpv-compare-what', 'options');
    await page.fill('.mpv-compare-dims', 'samples');
    await page.click('.mpv-compare-form button[type="submit"]');
    await expect
      .poll(() => page.evaluate(() => document.querySelector('.mpv-compare-status').textContent))
      .toBe('"samples" is not a dim binding: write NAME=VALUE, e.g. seq=256');
    expect(await page.evaluate(() => window.memplanView.view.compare.last.diff)).toEqual(before);
  });

  it('a file dragged over the compare panel is said to be compared; dropped there it is model B, not a new A', async () => {
    const a = await page.evaluate(() => window.memplanView.state.name);
    const b64 = readFileSync(DROPPED).toString('base64');
    const seen = await page.evaluate(
      async ([data, name]) => {
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], name));
        const drag = (target, type) =>
          target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
        const overlay = document.getElementById('drop');
        const said = () => (overlay.hidden ? null : overlay.textContent);
        const panel = document.querySelector('.mpv-compare');
        const out = {};
        drag(document.querySelector('.mpv-figures'), 'dragenter');
        drag(document.querySelector('.mpv-figures'), 'dragover');
        out.elsewhere = said();
        drag(panel, 'dragenter');
        drag(panel, 'dragover');
        out.panel = said();
        drag(panel.querySelector('summary'), 'dragover');
        out.summary = said();
        drag(panel, 'drop');
        out.after = said();
        return out;
      },
      [b64, basename(DROPPED)],
    );
    expect(seen).toEqual({
      elsewhere: 'Drop an .onnx model (or a saved plan .json) to open it',
      panel: 'Drop an .onnx model to compare it with the plan shown (as model B)',
      summary: 'Drop an .onnx model to compare it with the plan shown (as model B)',
      after: null,
    });
    await page.waitForFunction(
      (n) => document.querySelector('.mpv-compare-status').textContent.startsWith(`B: ${n},`),
      basename(DROPPED),
      { timeout: TIMEOUT },
    );
    expect(await page.evaluate(() => window.memplanView.state.name), 'A is still the model shown').toBe(a);
  });
});
