// harness.js -- what the browser test files share: a browser context on the
// Chromium global-setup.js started (CSP violations and every request
// recorded; after each test, no console error, failed request, uncaught
// exception or request off localhost), the native CLI as the reference, and
// helpers that read the page as a user sees it.
import { execFileSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest';
import { dimArgs, requireVizFixtures } from '../viz-fixtures.js';
import { ARTIFACTS, CLI } from './paths.js';

export const TIMEOUT = 30_000;
export { ARTIFACTS };
export const artifact = (name) => join(ARTIFACTS, name);

const run = (args) => JSON.parse(execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 256 << 20 }));
export const cliInfo = (file) => run(['info', file, '--json']);
export const cliJson = (cmd, file, args = []) => run([cmd, file, '--json', ...args]);
export const cliPlan = (file, args = []) => cliJson('plan', file, args);
/** The CLI plan of a fixture with its dims bound (extra options first). */
export const fixturePlan = (f, extra = []) => cliPlan(f.file, [...extra, ...dimArgs(f.dims)]);
/** The CLI running the tests: `memplan annotate` is the annotated export's reference. */
export { CLI };
export const num = (text) => Number(String(text).replace(/[^0-9]/g, ''));

const isLocal = (u) => {
  if (u.startsWith('data:') || u.startsWith('blob:')) return true;
  const host = new URL(u).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
};

/**
 * A browser context for this test file, made before its tests and closed
 * after them. env.base is the served page's URL; env.newPage() a page whose
 * console errors, uncaught exceptions and failed requests fail the test they
 * happen in (env.context.newPage() for a page where they are expected).
 * env.requests: every URL any page asked for. With `setup`, env.page is such
 * a page, made ready by setup(page, env) before the tests.
 */
export function useBrowser({ setup = null } = {}) {
  const env = { base: inject('baseURL'), browser: null, context: null, page: null, requests: [], errors: [] };
  beforeAll(async () => {
    env.browser = await chromium.connect(inject('wsEndpoint'));
    env.context = await env.browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
    // Record CSP violations seen by the page.
    await env.context.addInitScript(() => {
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    env.context.on('request', (r) => env.requests.push(r.url()));
    if (setup) {
      env.page = await env.newPage();
      await setup(env.page, env);
    }
  });
  afterEach(() => {
    const errors = env.errors.splice(0);
    expect(errors, 'console errors, failed requests or uncaught exceptions').toEqual([]);
    expect(
      env.requests.filter((u) => !isLocal(u)),
      'requests that left localhost',
    ).toEqual([]);
  });
  afterAll(async () => {
    await env.context?.close();
    await env.browser?.close();
  });
  env.newPage = async () => {
    const page = await env.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') env.errors.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => env.errors.push(`${page.url()}: uncaught ${e.message}`));
    page.on('requestfailed', (r) =>
      env.errors.push(`${page.url()}: request failed ${r.url()} ${r.failure()?.errorText}`),
    );
    return page;
  };
  return env;
}

// ---- the page ----------------------------------------------------------
export const waitState = (page, state) => page.waitForSelector(`body[data-state="${state}"]`, { timeout: TIMEOUT });

/** What the page shows: title, model summary, plan figures, version, CSP violations. */
export function shown(page) {
  return page.evaluate(() => ({
    name: document.querySelector('.mpv-model-name').textContent,
    nodes: document.querySelector('[data-stat="nodes"]')?.textContent,
    nodesTotal: document.querySelector('[data-stat="nodes-total"]')?.textContent,
    initializers: document.querySelector('[data-stat="initializers"]')?.textContent,
    inputs: [...document.querySelectorAll('[data-role="inputs"] tbody tr td:first-child')].map((td) => td.textContent),
    outputs: [...document.querySelectorAll('[data-role="outputs"] tbody tr td:first-child')].map(
      (td) => td.textContent,
    ),
    ops: [...document.querySelectorAll('[data-role="ops"] tbody tr')].map((tr) => [
      tr.cells[0].textContent,
      tr.cells[1].textContent,
    ]),
    status: document.querySelector('.mpv-badge')?.textContent,
    figures: Object.fromEntries(
      [...document.querySelectorAll('[data-figure]')].map((f) => [
        f.dataset.figure,
        f.querySelector('.mpv-figure-exact').textContent,
      ]),
    ),
    version: document.querySelector('#version')?.textContent,
    csp: window.__csp,
  }));
}

/** The model summary shown equals `memplan info --json`. */
export function expectMatchesCli(s, info) {
  expect(num(s.nodes), 'nodes').toBe(info.nodes);
  expect(num(s.nodesTotal), 'nodes_total').toBe(info.nodes_total);
  expect(num(s.initializers), 'initializers').toBe(info.initializers);
  expect(s.inputs, 'input names').toEqual(info.inputs.map((v) => v.name));
  expect(s.outputs, 'output names').toEqual(info.outputs.map((v) => v.name));
  const ops = Object.fromEntries(s.ops.map(([op, c]) => [op, num(c)]));
  expect(Object.entries(ops).sort(), 'op histogram').toEqual(Object.entries(info.op_types).sort());
}

/** The figures shown equal the plan JSON's (`plan`, the CLI's). */
export function expectPlanShown(s, plan, what = '') {
  const exact = (v) => (v === null ? '' : `${v.toLocaleString('en-US')} B`);
  expect(s.status, `${what}status`).toBe(plan.status);
  expect(s.figures.naive, `${what}naive total`).toBe(exact(plan.naive_bytes));
  expect(s.figures.peak, `${what}planned peak`).toBe(exact(plan.peak_bytes));
  expect(s.figures.bound, `${what}lower bound`).toBe(exact(plan.lower_bound_bytes));
  expect(s.figures.savings, `${what}savings`).toBe(plan.savings_ratio === null ? '' : `ratio ${plan.savings_ratio}`);
}

/** Wait until the page shows a finished plan equal in its figures to `plan`
 *  (the CLI's), with the same strategy and alignment, and no re-plan waits for
 *  the typing to pause (a value typed equal to the one planned still re-plans). */
export const waitPlan = (page, plan) =>
  page.waitForFunction(
    (want) => {
      const got = window.memplanView.plan;
      return (
        document.body.dataset.state === 'ready' &&
        !window.memplanView.view.controller.pending &&
        got &&
        ['status', 'strategy', 'align', 'naive_bytes', 'peak_bytes', 'lower_bound_bytes'].every(
          (k) => got[k] === want[k],
        ) &&
        JSON.stringify(got.unknown) === JSON.stringify(want.unknown)
      );
    },
    plan,
    { timeout: TIMEOUT },
  );

/** Type dim values into the page's dim inputs (as a user would), then wait for `plan`. */
export async function bindDims(page, dims, plan) {
  for (const [d, v] of Object.entries(dims)) await page.fill(`.mpv-dim input[data-dim="${d}"]`, String(v));
  await waitPlan(page, plan);
}

/** Pick a file with the file input and wait until it is shown and ready. */
export async function openFile(page, file) {
  await page.setInputFiles('#file', file);
  await page.waitForFunction(
    (n) => document.querySelector('.mpv-model-name').textContent === n && document.body.dataset.state === 'ready',
    basename(file),
    { timeout: TIMEOUT },
  );
}

/** The page at `base` with the example open. */
export async function openPage(page, { base }) {
  await page.goto(base, { timeout: TIMEOUT });
  await waitState(page, 'ready');
}

/** The page opened on `fixture` with its dims bound (through the API) and planned as the CLI plans it. */
export async function openPlanned(page, env, fixture) {
  requireVizFixtures(); // real npm models, planned with their dims (viz-fixtures.js)
  await openPage(page, env);
  await openFile(page, fixture.file);
  await page.evaluate((dims) => window.memplanView.setDims(dims), fixture.dims);
  await waitPlan(page, fixturePlan(fixture));
}

// The value/node table keeps only the rows in view in the DOM (vtable.js):
// scroll it from top to bottom and collect every row once, in table order.
export function tableRows(page) {
  return page.evaluate(async () => {
    const wrap = document.querySelector('.mpv-table-wrap');
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const out = new Map();
    wrap.scrollTop = 0;
    await frame();
    for (;;) {
      for (const tr of wrap.querySelectorAll('tbody tr:not(.mpv-spacer)')) {
        const key = tr.dataset.name ?? `#${tr.dataset.position}`;
        if (!out.has(key))
          out.set(key, {
            name: tr.dataset.name,
            position: tr.dataset.position === undefined ? null : Number(tr.dataset.position),
            cls: tr.className,
            cells: [...tr.cells].map((td) => td.textContent),
          });
      }
      if (wrap.scrollTop + wrap.clientHeight >= wrap.scrollHeight - 1) break;
      const before = wrap.scrollTop;
      wrap.scrollTop += Math.max(40, wrap.clientHeight / 2);
      await frame();
      // A scroll that did not move (the bottom by rounding, or a table re-made under it) ends
      // the walk: the rows collected so far are compared, instead of a page that never returns.
      if (wrap.scrollTop <= before) break;
    }
    wrap.scrollTop = 0;
    await frame();
    return [...out.values()];
  });
}
/** How many rows the table holds (filtered), rendered or not. */
export const tableCount = (page) =>
  page.evaluate(() => Number(document.querySelector('.mpv-table')?.dataset.rows ?? -1));
/** Wait until the table holds n rows. */
export const waitRows = (page, n) =>
  page.waitForFunction((k) => Number(document.querySelector('.mpv-table')?.dataset.rows) === k, n, { timeout: 5000 });

/** Scroll the table until the row of value `name` is rendered. */
export async function revealRow(page, name) {
  await page.evaluate(async (n) => {
    const wrap = document.querySelector('.mpv-table-wrap');
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const find = () => [...wrap.querySelectorAll('tbody tr')].find((tr) => tr.dataset.name === n);
    wrap.scrollTop = 0;
    await frame();
    while (!find() && wrap.scrollTop + wrap.clientHeight < wrap.scrollHeight - 1) {
      const before = wrap.scrollTop;
      wrap.scrollTop += Math.max(40, wrap.clientHeight / 2);
      await frame();
      if (wrap.scrollTop <= before) break; /* as in tableRows */
    }
    find()?.scrollIntoView({ block: 'center' });
    await frame();
  }, name);
}

/** Page coordinates of the middle of value `name`'s bar in a chart ('timeline' | 'arena'), in the
 *  positions shown (the page may open on part of them: nodes folded at load). */
export function barPoint(page, chart, name) {
  return page.evaluate(
    ([chart, name]) => {
      const { m, series: s } = window.memplanView.view.controller.state;
      const [d0, d1] = window.memplanView.view.linked.domain();
      const i = m.index.get(name);
      document.querySelector(`[data-chart="${chart}"]`).scrollIntoView({ block: 'center' });
      const r = document.querySelector(`[data-chart="${chart}"] .zoom-surface`).getBoundingClientRect();
      const x = r.left + (((m.start[i] + m.end[i] + 1) / 2 - d0) / (d1 - d0)) * r.width;
      if (chart === 'timeline') return { x, y: r.top + ((m.row[i] + 0.5) / m.rowCount) * r.height };
      const ymax = Math.max(s.maxExtent, m.peak ?? 0, m.lowerBound ?? 0) * 1.04;
      return { x, y: r.bottom - ((m.offset[i] + m.size[i] / 2) / ymax) * r.height };
    },
    [chart, name],
  );
}

/** Click the export button `sel` and return the download: {name, bytes}. */
export async function grab(page, sel) {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.click(sel)]);
  const chunks = [];
  for await (const c of await dl.createReadStream()) chunks.push(c);
  return { name: dl.suggestedFilename(), bytes: Buffer.concat(chunks) };
}

/** A chart's PNG export (bytes) is 2x its plot under a 22 px title band: [its width, height] and those
 *  of 2x chart `key`'s plot on the page (expect the two equal). */
export async function pngSize(page, key, bytes) {
  const css = await page.evaluate((k) => {
    const plot = document.querySelector(`[data-chart="${k}"] .mpv-plot`);
    return { w: Math.floor(plot.clientWidth), h: Math.floor(plot.clientHeight) };
  }, key);
  return { png: [bytes.readUInt32BE(16), bytes.readUInt32BE(20)], want: [css.w * 2, css.h * 2 + 44] };
}
