// Loading and the figures: the example open from the start, a model picked,
// dropped or given by ?url=, each model summary and plan equal to the CLI's.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SRC } from '../../scripts/prepare_web.mjs';
import { EXAMPLE } from '../../web/src/example.js';
import { dimArgs } from '../viz-fixtures.js';
import { DROPPED, OTHER } from './paths.js';
import {
  artifact,
  cliInfo,
  cliPlan,
  expectMatchesCli,
  expectPlanShown,
  shown,
  TIMEOUT,
  useBrowser,
  waitPlan,
  waitState,
} from './harness.js';

const env = useBrowser({ setup: async () => {} });
let page;
beforeAll(() => {
  page = env.page;
});

describe('load and figures', () => {
  it('the example model is open from the start and matches the CLI', async () => {
    await page.goto(env.base, { timeout: TIMEOUT });
    await waitState(page, 'ready');
    const s = await shown(page);
    expectMatchesCli(s, cliInfo(EXAMPLE_SRC));
    expect(s.version, 'version shown').toMatch(/^v\d+\.\d+\.\d+/);
    await page.screenshot({ path: artifact('browser-example.png'), fullPage: true });
  });

  it('the example plan (planned with its preset dims and sr) matches the CLI: figures, a row per value and per body, no deferred panel', async () => {
    const plan = cliPlan(EXAMPLE_SRC, [
      ...dimArgs(EXAMPLE.preset.dims),
      ...Object.entries(EXAMPLE.preset.values).flatMap(([k, v]) => ['--value', `${k}=${v}`]),
    ]);
    expect(plan.status).toBe('planned');
    expectPlanShown(await shown(page), plan);
    const d = await page.evaluate(() => ({
      rows: Number(document.querySelector('.mpv-table').dataset.rows),
      deferredShown: !document.querySelector('.mpv-deferred').hidden,
    }));
    expect(d.rows, "value rows: the values and the bodies' memory").toBe(plan.values.length + plan.transients.length);
    expect(d.deferredShown, 'deferred panel').toBe(false);
  });

  it('a model picked with the file input replaces it', async () => {
    await page.setInputFiles('#file', OTHER);
    await page.waitForFunction((n) => document.querySelector('.mpv-model-name').textContent === n, basename(OTHER), {
      timeout: TIMEOUT,
    });
    await waitState(page, 'ready');
    expectMatchesCli(await shown(page), cliInfo(OTHER));
    await page.screenshot({ path: artifact('browser-file-input.png'), fullPage: true });
  });

  it('a model dropped on the page opens', async () => {
    const b64 = readFileSync(DROPPED).toString('base64');
    await page.evaluate(
      ([data, name]) => {
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], name));
        for (const type of ['dragenter', 'dragover', 'drop']) {
          window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
        }
      },
      [b64, basename(DROPPED)],
    );
    await page.waitForFunction((n) => document.querySelector('.mpv-model-name').textContent === n, basename(DROPPED), {
      timeout: TIMEOUT,
    });
    await waitState(page, 'ready');
    expectMatchesCli(await shown(page), cliInfo(DROPPED));
    expect(await page.isHidden('#drop'), 'the drop overlay is hidden').toBe(true);
  });

  it('?url= opens the model at that address', async () => {
    const p2 = await env.newPage();
    await p2.goto(`${env.base}?url=${encodeURIComponent('models/example.onnx')}`, { timeout: TIMEOUT });
    await waitState(p2, 'ready');
    const s = await shown(p2);
    expect(s.name, 'model name').toBe('example.onnx');
    expectMatchesCli(s, cliInfo(EXAMPLE_SRC));
    await p2.close();
  });
});

describe('keyboard and names', () => {
  it('"Open model…" is a button reached with Tab; Enter or Space opens the file chooser', async () => {
    const p2 = await env.newPage();
    await p2.goto(env.base, { timeout: TIMEOUT });
    await waitState(p2, 'ready');
    await p2.focus('body');
    let hops = 0;
    while (hops++ < 10 && (await p2.evaluate(() => document.activeElement?.id)) !== 'open')
      await p2.keyboard.press('Tab');
    expect(await p2.evaluate(() => document.activeElement?.id), 'reached with Tab').toBe('open');
    // Enter on it opens the file input's chooser (seen here as the input's click).
    await p2.evaluate(() => {
      window.__chooser = 0;
      document.querySelector('#file').click = () => {
        window.__chooser++;
      };
    });
    await p2.keyboard.press('Enter');
    await p2.keyboard.press('Space');
    expect(await p2.evaluate(() => window.__chooser)).toBe(2);
    await p2.close();
  });

  it("the tab names the model; each chart's export buttons name their chart", async () => {
    await page.goto(env.base, { timeout: TIMEOUT });
    await waitState(page, 'ready');
    expect(await page.title()).toBe(`${EXAMPLE.name} — onnx-memplan`);
    const labels = await page.$$eval('[data-export$="-png"], [data-export$="-svg"]', (bs) =>
      bs.map((b) => b.getAttribute('aria-label')),
    );
    expect(labels).toEqual([
      'Memory over time as PNG',
      'Memory over time as SVG',
      'Active memory as PNG',
      'Active memory as SVG',
      'Live intervals as PNG',
      'Live intervals as SVG',
      'Arena map as PNG',
      'Arena map as SVG',
      'Slot occupancy as PNG',
      'Slot occupancy as SVG',
      // The sweep's and compare's charts, in their panels.
      'Memory against a dim as PNG',
      'Memory against a dim as SVG',
      'Memory over time, A and B as PNG',
      'Memory over time, A and B as SVG',
    ]);
  });

  it('the strategy radiogroup has one tab stop and moves with the arrow keys', async () => {
    const presetArgs = [
      ...dimArgs(EXAMPLE.preset.dims),
      ...Object.entries(EXAMPLE.preset.values).flatMap(([k, v]) => ['--value', `${k}=${v}`]),
    ];
    expect(await page.$$eval('[data-strategy]', (bs) => bs.map((b) => [b.dataset.strategy, b.tabIndex]))).toEqual([
      ['arena', 0],
      ['slots', -1],
    ]);
    await page.focus('[data-strategy="arena"]');
    await page.keyboard.press('ArrowRight');
    await waitPlan(page, cliPlan(EXAMPLE_SRC, ['--strategy', 'slots', ...presetArgs]));
    expect(await page.evaluate(() => document.activeElement?.dataset.strategy)).toBe('slots');
    await page.keyboard.press('ArrowLeft');
    await waitPlan(page, cliPlan(EXAMPLE_SRC, presetArgs));
  });

  it('each chart is read out as its title and a sentence of figures, not as its tick labels', async () => {
    const plan = cliPlan(EXAMPLE_SRC, [
      ...dimArgs(EXAMPLE.preset.dims),
      ...Object.entries(EXAMPLE.preset.values).flatMap(([k, v]) => ['--value', `${k}=${v}`]),
    ]);
    const a = await page.$$eval('[data-chart]', (cs) =>
      cs.map((c) => ({
        role: c.getAttribute('role'),
        title: document.getElementById(c.getAttribute('aria-labelledby'))?.textContent,
        summary: document.getElementById(c.getAttribute('aria-describedby'))?.textContent,
        hidden: [...c.querySelectorAll('canvas, svg.mpv-svg')].every((n) => n.getAttribute('aria-hidden') === 'true'),
      })),
    );
    // Five linked charts, then the sweep's and compare's (in their panels).
    expect(a.map((c) => [c.role, c.hidden])).toEqual(Array.from({ length: 7 }, () => ['group', true]));
    expect(a[1].title).toMatch(/^Active memory/);
    expect(a[1].summary).toBe(
      `The buffers live at each of ${plan.positions} positions stacked, oldest at the bottom, each as tall as its bytes; colours by op type (legend below the chart).`,
    );
    expect(a[0].title).toMatch(/^Memory over time/);
    // naive 40,320 B: the If's body at its own naive total + state (39,168 B) and 1,152 B of the main graph's
    expect(plan.naive_bytes).toBe(40320);
    expect(a[0].summary).toBe(
      `Live bytes over ${plan.positions} positions: lower bound 7.31 KiB at position ${plan.at_peak.position}, planned peak 7.31 KiB, naive total 39.4 KiB.`,
    );
  });

  it('at 390 px and at 1400 px the page does not overflow sideways (screenshots kept)', async () => {
    const p2 = await env.newPage();
    for (const [w, h] of [
      [390, 844],
      [1400, 900],
    ]) {
      await p2.setViewportSize({ width: w, height: h });
      await p2.goto(env.base, { timeout: TIMEOUT });
      await waitState(p2, 'ready');
      await p2.waitForTimeout(300);
      const over = await p2.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      await p2.screenshot({ path: artifact(`browser-${w}px.png`), fullPage: true });
      expect(over, `${w} px: sideways overflow`).toBeLessThanOrEqual(0);
      // The value table scrolls sideways in its box rather than cutting its numbers.
      const { n, cut } = await p2.$$eval('.mpv-table td.num', (tds) => ({
        n: tds.length,
        cut: tds.filter((td) => td.scrollWidth > td.clientWidth).map((td) => td.textContent),
      }));
      expect(n, 'number cells checked').toBeGreaterThan(10);
      expect(cut, `${w} px: numbers cut`).toEqual([]);
      // The memory chart's "naive total ... (off the scale)" never lies over its legend.
      const clash = await p2.evaluate(() => {
        const chart = document.querySelector('[data-chart="memory"]');
        const label = chart?.querySelector('text.ref-naive')?.getBoundingClientRect();
        if (!label) return 'no naive label';
        const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        const items = [...chart.querySelectorAll('svg g.legend text')];
        if (!items.length) return 'no legend';
        return items.filter((t) => meets(t.getBoundingClientRect(), label)).map((t) => t.textContent);
      });
      expect(clash, `${w} px: the naive label over the legend`).toEqual([]);
    }
    await p2.close();
  });
});
