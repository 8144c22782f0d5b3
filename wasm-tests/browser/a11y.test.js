// Accessibility (issue 17): axe-core (node_modules/axe-core, run in the
// page) finds no serious or critical violation with a model open, in light
// and in dark mode; screenshots at 1400 px, 390 px and 200% zoom, light and
// dark, go to build/test-logs/screenshots/ to be looked at.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/prepare_web.mjs';
import { openPage, useBrowser } from './harness.js';
import { PALETTE } from '../../web/src/charts/base.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = join(ROOT, 'build', 'test-logs', 'screenshots');
mkdirSync(SHOTS, { recursive: true });

const env = useBrowser();
const contexts = [];
afterAll(async () => {
  for (const c of contexts) await c.close();
});

/** A page in its own context (viewport, zoom, colour scheme) with the example open. */
async function pageWith({ width, height = 900, zoom = 1, dark = false }) {
  const context = await env.browser.newContext({
    viewport: { width: Math.round(width / zoom), height: Math.round(height / zoom) },
    deviceScaleFactor: zoom, // 200% zoom: half the CSS pixels, each drawn twice as large
    colorScheme: dark ? 'dark' : 'light',
  });
  contexts.push(context);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await openPage(page, env);
  await page.evaluate(async () => {
    // Everything drawn: the charts render when scrolled into view.
    for (const c of document.querySelectorAll('[data-chart]')) c.scrollIntoView();
    window.scrollTo(0, 0);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
  page.errors = errors;
  return page;
}

// WCAG's relative luminance and contrast ratio of 'rgb(r, g, b)' colours ([r, g, b] 0-255).
const rgb = (css) =>
  css
    .match(/\d+(\.\d+)?/g)
    .slice(0, 3)
    .map(Number);
const hexRgb = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
const luminance = (c) =>
  c
    .map((v) => v / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((a, v, k) => a + v * [0.2126, 0.7152, 0.0722][k], 0);
const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const blend = (top, alpha, under) => top.map((v, k) => v * alpha + under[k] * (1 - alpha));

/**
 * How the narrow layout reads: the tagline's lines; per chart head, whether
 * its title is on one line or has a line of its own (not squeezed beside the
 * tools); per slot label, its text colour, the plate under it (colour,
 * opacity) and whether the plate holds the text.
 */
function layoutOf(page) {
  return page.evaluate(() => {
    // Lines of text: the distinct tops of the text's boxes.
    const lines = (e) => {
      const r = document.createRange();
      r.selectNodeContents(e);
      return new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top))).size;
    };
    const heads = [...document.querySelectorAll('[data-chart]')]
      .filter((c) => c.getBoundingClientRect().height > 0)
      .map((c) => {
        const t = c.querySelector('.mpv-chart-title'),
          tools = c.querySelector('.mpv-chart-tools');
        const tr = t.getBoundingClientRect(),
          kr = tools.getBoundingClientRect();
        return { chart: c.dataset.chart, ok: lines(t) === 1 || kr.top >= tr.bottom - 1 || kr.width === 0 };
      });
    const labels = [...document.querySelectorAll('[data-chart="slots"] text.slot-label')].map((t) => {
      const plate = t.previousElementSibling;
      const a = t.getBBox(),
        b = plate?.getBBox();
      const cs = plate ? getComputedStyle(plate) : null;
      return {
        text: getComputedStyle(t).fill,
        plate: cs?.fill ?? null,
        alpha: cs ? Number(cs.fillOpacity) : 0,
        holds:
          !!b && b.x <= a.x && b.y <= a.y && b.x + b.width >= a.x + a.width && b.y + b.height >= a.y + a.height - 0.5,
      };
    });
    return { tagline: lines(document.querySelector('.tagline')), heads, labels };
  });
}

/** axe-core's serious and critical violations: [{id, help, targets}]. */
async function axeViolations(page) {
  // Evaluated through the DevTools protocol: no script element, so the page's CSP stays as it is.
  await page.evaluate(`${AXE}\n;true`);
  const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return res.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
}

describe('accessibility and screenshots', () => {
  for (const dark of [false, true]) {
    it(`axe: no serious or critical violation with a model open (${dark ? 'dark' : 'light'})`, async () => {
      const page = await pageWith({ width: 1400, dark });
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `page-1400${dark ? '-dark' : ''}.png`), fullPage: true });
      expect(page.errors).toEqual([]);
    });
  }

  it('screenshots at 390 px and at 200% zoom; no serious violation there either', async () => {
    for (const [name, opts] of [
      ['page-390', { width: 390, height: 844 }],
      ['page-390-dark', { width: 390, height: 844, dark: true }],
      ['page-zoom200', { width: 1400, zoom: 2 }],
    ]) {
      const page = await pageWith(opts);
      expect(await axeViolations(page), name).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      expect(page.errors, name).toEqual([]);
      // Nothing wider than the window: the page does not scroll sideways (the table scrolls in its box).
      const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(over, `${name}: page wider than the window by`).toBeLessThanOrEqual(0);
      // The tagline wraps as a line, not a word per line; no chart title squeezed beside its tools.
      const lay = await layoutOf(page);
      expect(lay.tagline, `${name}: the tagline's lines`).toBeLessThanOrEqual(3);
      expect(
        lay.heads.filter((h) => !h.ok).map((h) => h.chart),
        `${name}: titles squeezed beside their tools`,
      ).toEqual([]);
      // Each slot label on a plate that holds it, readable over any bar colour (WCAG AA, 4.5:1), light and dark.
      expect(lay.labels.length, `${name}: slot labels`).toBeGreaterThan(0);
      for (const l of lay.labels) {
        expect(l.holds, `${name}: the plate holds the label`).toBe(true);
        const worst = Math.min(...PALETTE.map((c) => contrast(rgb(l.text), blend(rgb(l.plate), l.alpha, hexRgb(c)))));
        expect(worst, `${name}: the slot label's contrast over the bars`).toBeGreaterThanOrEqual(4.5);
      }
    }
  });
});
