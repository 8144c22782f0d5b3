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
    }
  });
});
