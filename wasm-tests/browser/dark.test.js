// Dark mode (prefers-color-scheme: dark), the tab's title, and messages in
// the page's words (issue 17 items 7 and 9): a dark surface with light ink
// on the page, the cards, the table and the charts (the slot rows' bands
// too); the tab names the model; a bad dim and a file that is no model get
// the page's wording, not the CLI's.
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../web/src/example.js';
import { openPage, TIMEOUT, useBrowser } from './harness.js';

const env = useBrowser();
let page;
beforeAll(async () => {
  page = await env.newPage();
  await page.emulateMedia({ colorScheme: 'dark' });
  await openPage(page, env);
});

describe('dark mode, title, wording', () => {
  it('dark surfaces with light ink: page, figure cards, table header, chart labels, slot bands', async () => {
    const got = await page.evaluate(() => {
      // Relative luminance (WCAG) of a computed CSS colour "rgb(r, g, b)".
      const lum = (c) => {
        const [r, g, b] = c
          .match(/[\d.]+/g)
          .slice(0, 3)
          .map((v) => {
            const s = Number(v) / 255;
            return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
          });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const bg = (sel) => lum(getComputedStyle(document.querySelector(sel)).backgroundColor);
      const fg = (sel) => lum(getComputedStyle(document.querySelector(sel)).color);
      document.querySelector('[data-chart="slots"]').scrollIntoView();
      const c = document.querySelector('[data-chart="slots"] canvas');
      const px = c.getContext('2d').getImageData(c.width - 8, Math.round(c.height / 3), 1, 1).data;
      return {
        page: lum(getComputedStyle(document.documentElement).backgroundColor),
        card: bg('.mpv-figure'),
        cardInk: fg('.mpv-figure-value'),
        th: bg('.mpv-table th'),
        axis: lum(getComputedStyle(document.querySelector('[data-chart="memory"] .mpv-svg text')).fill),
        band: lum(`rgb(${px[0]}, ${px[1]}, ${px[2]})`),
      };
    });
    expect(got.page, 'page background').toBeLessThan(0.05);
    expect(got.card, 'card background').toBeLessThan(0.05);
    expect(got.th, 'table header').toBeLessThan(0.05);
    expect(got.cardInk, 'figure ink').toBeGreaterThan(0.6);
    expect(got.axis, 'chart labels').toBeGreaterThan(0.5);
    expect(got.band, 'slot bands (canvas)').toBeLessThan(0.05);
  });

  it('the tab names the model', async () => {
    expect(await page.title()).toBe(`${EXAMPLE.name} — onnx-memplan`);
  });

  it("a bad dim is told in the page's words", async () => {
    await page.evaluate(() => window.memplanView.setDims({ 'input:1': '-1' }));
    await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: TIMEOUT });
    expect(await page.textContent('.mpv-error')).toBe(
      `${EXAMPLE.name}: the dim input:1 takes a whole number from 0 to 2^53; "-1" is not one`,
    );
    await page.evaluate(() => window.memplanView.setDims({ 'input:1': '512' }));
    await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: TIMEOUT });
  });

  it('a file that is no model: "this is not an ONNX model"', async () => {
    await page.setInputFiles('#file', {
      name: 'notes.onnx',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('hello world, this is text\n'),
    });
    await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: TIMEOUT });
    expect(await page.textContent('.mpv-error')).toMatch(
      /^notes\.onnx: this is not an ONNX model \(malformed protobuf at byte 2: .+\)$/,
    );
  });
});
