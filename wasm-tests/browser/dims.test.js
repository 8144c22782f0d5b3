// Dims and re-planning: dims typed into the page, strategy, alignment and
// in-place reuse re-plan in the worker, each result equal to the CLI's; a
// re-plan overtaken by a keystroke; the largest planned fixture.
import { beforeAll, describe, expect, it } from 'vitest';
import { dimArgs, LARGEST, MEDIUM, requireVizFixtures, SYMBOLIC, TOO_SMALL_DIMS } from '../viz-fixtures.js';
import {
  artifact,
  barPoint,
  bindDims,
  cliJson,
  cliPlan,
  expectPlanShown,
  fixturePlan,
  openFile,
  openPage,
  shown,
  tableRows,
  TIMEOUT,
  useBrowser,
  waitPlan,
} from './harness.js';

requireVizFixtures(); // real npm models, planned with their dims (viz-fixtures.js)
const env = useBrowser({ setup: openPage });
let page;
beforeAll(() => {
  page = env.page;
});
const slotsTitle = () => page.textContent('[data-chart="slots"] .mpv-chart-title');

describe('dims and re-planning', () => {
  it('a fixture picked with the file input is deferred, then shows the CLI figures once its dims are typed in (arena, slots, align 256)', async () => {
    await openFile(page, MEDIUM.file);
    expectPlanShown(await shown(page), cliPlan(MEDIUM.file), 'unbound: ');
    const dims = await page.$$eval('.mpv-dim input', (inputs) => inputs.map((i) => i.dataset.dim));
    expect(dims, 'dim inputs').toEqual(Object.keys(MEDIUM.dims));
    await bindDims(page, MEDIUM.dims, fixturePlan(MEDIUM));
    expectPlanShown(await shown(page), fixturePlan(MEDIUM), 'arena: ');
    expect(await slotsTitle(), 'slot chart title under arena').toBe('Slot occupancy (the slot plan, for comparison)');
    await page.screenshot({ path: artifact('browser-planned.png'), fullPage: true });
    await page.click('[data-strategy="slots"]');
    await waitPlan(page, fixturePlan(MEDIUM, ['--strategy', 'slots']));
    expectPlanShown(await shown(page), fixturePlan(MEDIUM, ['--strategy', 'slots']), 'slots: ');
    expect(await slotsTitle(), 'slot chart title under slots').toBe('Slot occupancy');
    await page.selectOption('.mpv-align', '256');
    await waitPlan(page, fixturePlan(MEDIUM, ['--strategy', 'slots', '--align', '256']));
    expectPlanShown(await shown(page), fixturePlan(MEDIUM, ['--strategy', 'slots', '--align', '256']), 'slots/256: ');
    await page.screenshot({ path: artifact('browser-planned-slots.png'), fullPage: true });
    await page.click('[data-strategy="arena"]');
    await page.selectOption('.mpv-align', '64');
    await waitPlan(page, fixturePlan(MEDIUM));
    expectPlanShown(await shown(page), fixturePlan(MEDIUM), 'back to arena: ');
  });

  it("in-place reuse: the toggle re-plans with --inplace (peak and saved bytes equal the CLI's); the table and tooltip show which input an output reuses", async () => {
    const off = fixturePlan(MEDIUM);
    const on = fixturePlan(MEDIUM, ['--inplace']);
    expect(
      on.peak_bytes !== off.peak_bytes && on.inplace.saved_bytes > 0,
      `fixture: in-place should change the peak (${off.peak_bytes} vs ${on.peak_bytes})`,
    ).toBe(true);
    expect((await shown(page)).figures.inplace, 'saved bytes while off').toBe('');
    await page.check('.mpv-inplace');
    await waitPlan(page, on);
    const s = await shown(page);
    // One baseline whatever the options: the naive total without in-place reuse, so a lower peak is a larger saving.
    const ratio = Number((1 - on.peak_bytes / off.naive_bytes).toPrecision(6));
    // The Savings card says it is rebased and gives the CLI's savings_ratio (of the --inplace plan) beside it.
    expect(s.figures.savings, 'savings exact line').toBe(`ratio ${ratio} (rebased; CLI ${on.savings_ratio})`);
    expect(await page.getAttribute('.mpv-figure[data-figure="savings"]', 'title'), 'savings title').toBe(
      `1 - planned peak / naive total without in-place reuse (${off.naive_bytes.toLocaleString('en-US')} B): rebased, ` +
        `so that turning in-place reuse on never lowers the baseline. The CLI's savings_ratio with --inplace is ` +
        `${on.savings_ratio}, against that plan's own naive total (${on.naive_bytes.toLocaleString('en-US')} B)`,
    );
    expectPlanShown(
      { ...s, figures: { ...s.figures, savings: `ratio ${ratio}` } },
      { ...on, naive_bytes: off.naive_bytes, savings_ratio: ratio },
      'in-place: ',
    );
    expect(ratio, 'savings grow as the peak drops').toBeGreaterThan(off.savings_ratio);
    const naiveEnd = await page.evaluate(() => {
      const ms = window.memplanView.view.charts.memory.series;
      return ms.naive[ms.positions - 1];
    });
    expect(naiveEnd, "the memory chart's naive line ends at the same baseline").toBe(off.naive_bytes);
    expect(s.figures.inplace, 'in-place saved bytes').toBe(`${on.inplace.saved_bytes.toLocaleString('en-US')} B`);
    expect(await page.evaluate(() => window.memplanView.plan.inplace), 'plan.inplace').toEqual(on.inplace);
    await page.screenshot({ path: artifact('browser-inplace.png'), fullPage: true });
    // The reuse lists (inplace --json), by output name, in the value table.
    const doc = cliJson('inplace', MEDIUM.file);
    const want = new Map();
    for (const nd of doc.nodes)
      for (const r of nd.reuse) {
        const pn = off.nodes[nd.index];
        want.set(pn.outputs[r.output_index], `${pn.inputs[r.input_index]} (${r.kind})`);
      }
    expect(want.size, 'reuse pairs in the fixture').toBeGreaterThan(0);
    const cells = (await tableRows(page)).map((r) => [r.name, r.cells[r.cells.length - 1]]);
    for (const [name, text] of cells) expect(text, `${name} reuses`).toBe(want.get(name) ?? '—');
    // Off again: back to the plain plan.
    await page.uncheck('.mpv-inplace');
    await waitPlan(page, off);
    expectPlanShown(await shown(page), off, 'in-place off: ');
    expect((await shown(page)).figures.inplace, 'saved bytes after off').toBe('');
    // The tooltip of a reusing output (a buffer with no views, so its bar is its own).
    const hasViews = new Set(off.values.filter((x) => x.view).map((x) => x.owner));
    const v = off.values
      .filter((x) => want.has(x.name) && !x.view && !hasViews.has(x.name) && x.size)
      .sort((a, b) => b.end - b.start - (a.end - a.start))[0];
    const pt = await barPoint(page, 'timeline', v.name);
    await page.mouse.move(pt.x, pt.y);
    await page.waitForFunction(
      (n) => document.querySelector('.mpv-tooltip:not([hidden]) .mpv-tip-title')?.textContent === n,
      v.name,
      { timeout: 5000 },
    );
    const tip = await page.textContent('.mpv-tooltip');
    expect(tip, `the tooltip says what ${v.name} reuses`).toContain(`reuses${want.get(v.name)} in place`);
    await page.mouse.move(2, 2);
  });

  it('changing a symbolic dim re-plans through the worker (deferred -> planned -> too small -> planned, equal to the CLI)', async () => {
    // Stacked by tag: while dims are unbound the profile is symbolic, so the plan's series and a note.
    await page.click('[data-chart="memory"] [data-mode="stacked"]');
    await openFile(page, SYMBOLIC.file);
    const unbound = cliPlan(SYMBOLIC.file);
    expectPlanShown(await shown(page), unbound, 'unbound: ');
    const dims = await page.$$eval('.mpv-dim input', (inputs) => inputs.map((i) => i.dataset.dim));
    expect(dims, 'dim inputs').toEqual(unbound.unknown.dims);
    const mode = await page.evaluate(() => ({
      mode: window.memplanView.view.charts.memory.mode,
      note: document.querySelector('[data-chart="memory"] .mpv-chart-note').textContent,
    }));
    expect(mode.mode, 'memory chart mode while dims are unbound').toBe('plan');
    expect(mode.note, 'memory note').toMatch(/needs every dim bound/);
    await page.screenshot({ path: artifact('browser-deferred-dims.png'), fullPage: true });
    await bindDims(page, SYMBOLIC.dims, fixturePlan(SYMBOLIC));
    await page.waitForFunction(() => window.memplanView.view.charts.memory.mode === 'stacked', null, { timeout: 5000 });
    const total = await page.evaluate(() => [...window.memplanView.view.charts.memory.profile.total]);
    expect(total, 'stacked totals once bound').toEqual(
      cliJson('profile', SYMBOLIC.file, dimArgs(SYMBOLIC.dims)).nodes.map((nd) => nd.profile.total_bytes),
    );
    expectPlanShown(await shown(page), fixturePlan(SYMBOLIC), `${dimArgs(SYMBOLIC.dims).join(' ')}: `);
    // Too few samples: negative sizes are unknown values with their reason; no totals.
    const small = cliPlan(SYMBOLIC.file, dimArgs(TOO_SMALL_DIMS));
    await bindDims(page, TOO_SMALL_DIMS, small);
    expectPlanShown(await shown(page), small, 'too small: ');
    const listed = await page.$$eval('[data-role="unknown-values"] li', (lis) => lis.map((li) => li.textContent));
    expect(listed.length, 'unknown values listed').toBe(small.unknown.values.length);
    expect(
      listed.every((t) => /negative/.test(t)),
      `unknown values: ${JSON.stringify(listed.slice(0, 3))}`,
    ).toBe(true);
    await page.screenshot({ path: artifact('browser-dims-too-small.png'), fullPage: true });
    const second = { ...SYMBOLIC.dims, samples: 16000 };
    await bindDims(page, second, cliPlan(SYMBOLIC.file, dimArgs(second)));
    expectPlanShown(await shown(page), cliPlan(SYMBOLIC.file, dimArgs(second)), 'samples=16000: ');
    await page.screenshot({ path: artifact('browser-dims-bound.png'), fullPage: true });
  });

  it('a dim typed while a re-plan waits for its plan: that re-plan asks for its slot plan and profile with the same dims as its plan', async () => {
    await bindDims(page, SYMBOLIC.dims, fixturePlan(SYMBOLIC));
    // Start quiet: the typed dims' debounced re-plans (200 ms) and their slot plan and profile done.
    await page.waitForTimeout(300);
    await page.waitForFunction(
      () => window.memplanView.state.phase === 'ready' && !window.memplanView.state.busy,
      null,
      {
        timeout: TIMEOUT,
      },
    );
    // Hold the model's calls until released, logging their arguments.
    await page.evaluate(() => {
      const model = window.memplanView.view.controller.model;
      const call = model.call;
      const log = [];
      let release;
      const gate = new Promise((r) => {
        release = r;
      });
      window.__race = { log, release: () => release() };
      model.call = (cmd, args, opts) => {
        log.push([cmd, ...args].join(' '));
        return gate.then(() => call(cmd, args, opts));
      };
    });
    const typed = { ...SYMBOLIC.dims, samples: 4800 };
    const log = await page.evaluate(async () => {
      window.memplanView.view.setDims({ samples: 3200 }); // re-plan A: its plan call waits at the gate
      const input = document.querySelector('.mpv-dim input[data-dim="samples"]');
      input.value = '4800';
      input.dispatchEvent(new Event('input', { bubbles: true })); // a keystroke: dims now 4800, re-plan B in 200 ms
      window.__race.release();
      await new Promise((r) => setTimeout(r, 150)); // re-plan A runs on (its slot plan and profile) before B starts
      return window.__race.log.slice();
    });
    const first = (cmd) => log.find((l) => l.startsWith(cmd)) ?? '';
    expect(
      /samples=3200/.test(first('plan --strategy arena')),
      `re-plan A's plan: ${first('plan --strategy arena')}`,
    ).toBe(true);
    expect(
      first('plan --strategy slots').match(/samples=\d+/)?.[0],
      `re-plan A's slot plan: ${first('plan --strategy slots')}`,
    ).toBe('samples=3200');
    expect(first('profile').match(/samples=\d+/)?.[0], `re-plan A's profile: ${first('profile')}`).toBe('samples=3200');
    await waitPlan(page, cliPlan(SYMBOLIC.file, dimArgs(typed)));
    expectPlanShown(await shown(page), cliPlan(SYMBOLIC.file, dimArgs(typed)), 'samples=4800: ');
    const slotsPeak = await page.evaluate(() => window.memplanView.view.controller.state.slotsPlan?.peak_bytes ?? null);
    expect(slotsPeak, 'slot plan peak').toBe(
      cliPlan(SYMBOLIC.file, ['--strategy', 'slots', ...dimArgs(typed)]).peak_bytes,
    );
  });

  it('the largest planned fixture renders with its dims', async () => {
    const t = Date.now();
    await openFile(page, LARGEST.file);
    const msOpen = Date.now() - t;
    expectPlanShown(await shown(page), cliPlan(LARGEST.file), 'largest, unbound: ');
    const t2 = Date.now();
    await page.evaluate((dims) => window.memplanView.setDims(dims), LARGEST.dims);
    await waitPlan(page, fixturePlan(LARGEST));
    const msPlan = Date.now() - t2;
    expectPlanShown(await shown(page), fixturePlan(LARGEST), 'largest: ');
    await page.screenshot({ path: artifact('browser-largest.png'), fullPage: true });
    console.log(
      `(largest fixture: file chosen to rendered ${msOpen} ms; dims set to planned and rendered ${msPlan} ms)`,
    );
  });
});
