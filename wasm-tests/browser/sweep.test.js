// Memory against a dim (app/sweep.js): the page's sweep, run from its form
// in the worker, equals the CLI's `memplan sweep --json` with the same
// arguments; the chart and the table show those points.
import { beforeAll, describe, expect, it } from 'vitest';
import { SYMBOLIC } from '../viz-fixtures.js';
import { basename } from 'node:path';
import { formatBytes } from '../../web/src/data/format.js';
import { artifact, cliJson, grab, openPlanned, pngSize, TIMEOUT, useBrowser } from './harness.js';

const env = useBrowser({ setup: (page, e) => openPlanned(page, e, SYMBOLIC) });
let page;
beforeAll(() => {
  page = env.page;
});

/** Fill the sweep form as a user would, press Sweep and wait for the points. */
async function sweepFromForm(dim, lo, hi, n) {
  await page.evaluate(() => {
    const d = document.querySelector('.mpv-sweep');
    d.open = true;
    d.scrollIntoView({ block: 'start' });
  });
  await page.selectOption('.mpv-sweep-dim', dim);
  const nums = page.locator('.mpv-sweep-num');
  await nums.nth(0).fill(String(lo));
  await nums.nth(1).fill(String(hi));
  await nums.nth(2).fill(String(n));
  // The points shown before, as text: a copy out of the page never equals the page's object.
  const before = await page.evaluate(() => JSON.stringify(window.memplanView.view.sweep.last?.doc ?? null));
  await page.click('.mpv-sweep-form button[type="submit"]');
  await page.waitForFunction(
    (b) => window.memplanView.view.sweep.last && JSON.stringify(window.memplanView.view.sweep.last.doc) !== b,
    before,
    {
      timeout: TIMEOUT,
    },
  );
  return page.evaluate(() => window.memplanView.view.sweep.last);
}

describe('memory against a dim', () => {
  it("the page's points equal the CLI's `sweep --json` on the melspectrogram's samples", async () => {
    const last = await sweepFromForm('samples', 400, 16000, 32);
    // The other dims and the options of the plan shown, then the swept range.
    expect(last.args.slice(-2)).toEqual(['--dim', 'samples=400..16000:32']);
    expect(last.args).toContain('batch_size=1');
    const cli = cliJson('sweep', SYMBOLIC.file, last.args);
    expect(last.doc).toEqual(cli);
    expect(cli.points.length).toBe(32);
    expect(cli.points.filter((p) => p.status === 'planned').length, 'planned values').toBeGreaterThan(20);
    // The table shows each point; the chart draws one dot per planned value and series.
    const rows = await page.evaluate(() =>
      [...document.querySelectorAll('.mpv-sweep-table tbody tr')].map((tr) =>
        [...tr.cells].map((td) => td.textContent),
      ),
    );
    const n = (v) => (v === null ? '—' : v.toLocaleString('en-US'));
    expect(rows).toEqual(
      cli.points.map((p) => [
        p.value.toLocaleString('en-US'),
        p.status,
        p.status === 'planned' && p.total_bytes === null ? 'unknown' : n(p.total_bytes),
        n(p.peak_bytes),
        n(p.lower_bound_bytes),
        n(p.naive_bytes),
        n(p.slots_bytes),
      ]),
    );
    const dots = await page.locator('[data-chart="sweep"] circle.sweep-peak_bytes').count();
    expect(dots).toBe(cli.points.filter((p) => p.status === 'planned').length);
    await page.screenshot({ path: artifact('browser-sweep.png') });
  });

  it('the chart has a PNG (2x, a title line with the sweep’s other dims) and an SVG of its lines', async () => {
    const last = await page.evaluate(() => window.memplanView.view.sweep.last);
    expect(
      await page.$$eval('[data-chart="sweep"] [data-export]', (bs) => bs.map((b) => b.getAttribute('aria-label'))),
    ).toEqual(['Memory against a dim as PNG', 'Memory against a dim as SVG']);
    // The swept dim is left out of the bindings: its range is in the chart's title.
    const others = Object.entries(SYMBOLIC.dims)
      .filter(([d]) => d !== 'samples')
      .map(([d, v]) => `${d}=${v}`)
      .join(', ');
    const name = basename(SYMBOLIC.file);
    expect(await page.evaluate(() => window.memplanView.view.sweep.pngTitle())).toBe(
      `${name} · ${others} · Memory against samples (400–16,000)`,
    );
    expect(last.doc.dim).toBe('samples');
    const png = await grab(page, '[data-export="sweep-png"]');
    expect(png.name).toBe(`${name.replace(/\.onnx$/, '')}-sweep.png`);
    const size = await pngSize(page, 'sweep', png.bytes);
    expect(size.png, 'PNG: 2x and a title band').toEqual(size.want);
    const svg = (await grab(page, '[data-export="sweep-svg"]')).bytes.toString('utf8');
    for (const k of ['peak_bytes', 'lower_bound_bytes', 'naive_bytes'])
      expect(svg, `the ${k} line`).toContain(`class="sweep-line sweep-${k}"`);
    // The weights (~1.09 MB of DFT bases) put the total to fit past 3x the
    // peak: its line is left out, the legend gives its range.
    const totals = last.doc.points.filter((p) => p.status === 'planned').map((p) => p.total_bytes);
    const peak = Math.max(...last.doc.points.map((p) => p.peak_bytes ?? 0));
    expect(Math.min(...totals), 'the weights dominate').toBeGreaterThan(3 * peak);
    expect(svg).not.toContain('sweep-total_bytes');
    const peaks = last.doc.points.filter((p) => p.status === 'planned').map((p) => p.peak_bytes);
    expect(await page.textContent('.mpv-sweep-status')).toMatch(
      new RegExp(
        `^32 values in \\d+ ms; total to fit ${formatBytes(Math.min(...totals))} – ${formatBytes(Math.max(...totals))}; ` +
          `planned peak ${formatBytes(Math.min(...peaks))} – ${formatBytes(Math.max(...peaks))}$`,
      ),
    );
    expect(await page.locator('[data-chart="sweep"] .mpv-legend-label').first().textContent()).toBe(
      `total to fit (off the scale: ${formatBytes(Math.min(...totals))} – ${formatBytes(Math.max(...totals))})`,
    );
    const planned = last.doc.points.filter((p) => p.status === 'planned').length;
    expect(svg.match(/class="sweep-dot sweep-peak_bytes"/g)?.length, 'a dot per planned value').toBe(planned);
  });

  it('values too small for the model are marked, not plotted, and match the CLI', async () => {
    const last = await sweepFromForm('samples', 1, 1000, 8); // under ~400 samples the STFT has no frame
    const cli = cliJson('sweep', SYMBOLIC.file, last.args);
    expect(last.doc).toEqual(cli);
    const notPlanned = cli.points.filter((p) => p.status !== 'planned');
    expect(notPlanned.length, 'some values are not planned').toBeGreaterThan(0);
    expect(await page.locator('[data-chart="sweep"] circle.sweep-peak_bytes').count()).toBe(
      cli.points.length - notPlanned.length,
    );
  });

  it('with other options (in-place on, alignment 256) the sweep uses them, as the CLI does', async () => {
    await page.evaluate(() => window.memplanView.setOptions({ inplace: true, align: 256 }));
    await page.waitForFunction(() => document.body.dataset.state === 'ready' && window.memplanView.state.inplace);
    const last = await sweepFromForm('samples', 1280, 4096, 5);
    expect(last.args).toContain('--inplace');
    expect(last.args.join(' ')).toContain('--align 256');
    expect(last.doc).toEqual(cliJson('sweep', SYMBOLIC.file, last.args));
    await page.evaluate(() => window.memplanView.setOptions({ inplace: false, align: 64 }));
  });
});
