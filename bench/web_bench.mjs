#!/usr/bin/env node
// web_bench.mjs -- by hand, not in the tests: the visualizer in Debian's
// Chromium (headless, software rendering, 1280x900).
//   1. from choosing the largest planned fixture in the file input (deferred)
//      and binding its dims to the first full render of every chart (median of 5);
//   2. a synthetic plan of 100,000 intervals: open time, the cost of one
//      render of each chart, and the frame times while panning (mouse drag
//      across the timeline, zoomed to 10% of the positions) and zooming, and
//      while hovering across the arena map at full view (hit-testing, tooltip,
//      linked hover marks);
//   3. re-planning a synthetic 10,000-node model (built here with
//      wasm-tests/onnx-encode.js: elementwise ops with skip connections,
//      input [batch, seq, 64]) after a dim changes, through the worker: from
//      setDims() to the new plan shown, and to every chart (the slot plan and the
//      profile follow the plan) rendered (median of 7, a new seq each time),
//      and each worker call alone (plan arena, plan slots, profile); then memory
//      against seq, 32 values 1..4096 (the page's sweep, median of 3).
//   --hostile [DIR]: instead, issue 21's hostile models (bench/hostile_models.py's
//      files in DIR, default /tmp/memplan-hostile, written there if missing):
//      for each, from choosing the file to the plan shown and two frames drawn
//      (or the error shown), then the worker's `plan --inplace`, `profile` and
//      `tags` on the open model (request to parsed JSON on the page).
// Needs npm run build:web and the native CLI (for the fixtures' check).
// Usage: node bench/web_bench.mjs [N_INTERVALS] [--replan-only | --no-replan | --hostile [DIR]]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';
import { ROOT } from '../scripts/prepare_web.mjs';
import { LARGEST, requireVizFixtures } from '../wasm-tests/viz-fixtures.js';
import { syntheticPlan } from '../web/src/data/synthetic.js';
import { encodeModel } from '../wasm-tests/onnx-encode.js';

const argv = process.argv.slice(2);
const REPLAN_ONLY = argv.includes('--replan-only');
const NO_REPLAN = argv.includes('--no-replan'); // sections 1 and 2 only
const N = Number(argv.find((a) => /^\d+$/.test(a)) || 100_000);
const HOSTILE = argv.includes('--hostile');
const HOSTILE_DIR = (HOSTILE && argv[argv.indexOf('--hostile') + 1]) || '/tmp/memplan-hostile';

/** A synthetic n-node model: a chain of unary elementwise ops, every third
 *  node a binary op reading a value up to 40 positions back (deterministic).
 *  With insideIf, the n nodes are an If's then_branch (x captured from the
 *  main graph; the else_branch an Identity), on a bool input `c` left
 *  unbound, so the plan takes the larger branch: the main graph is one node. */
export function syntheticModel(n = 10_000, { insideIf = false } = {}) {
  let seed = 1;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const un = ['Relu', 'Sigmoid', 'Tanh', 'Neg', 'Abs'],
    bin = ['Add', 'Mul', 'Sub', 'Max'];
  const nodes = [],
    names = ['x'];
  for (let k = 0; k < n; k++) {
    const a = names[names.length - 1],
      out = `t${k}`;
    if (k % 3 === 0 && names.length > 2)
      nodes.push({
        opType: bin[k % 4],
        name: `n${k}`,
        inputs: [a, names[Math.max(0, names.length - 1 - Math.floor(rnd() * 40))]],
        outputs: [out],
      });
    else nodes.push({ opType: un[k % 5], name: `n${k}`, inputs: [a], outputs: [out] });
    names.push(out);
  }
  const io = (name) => ({ name, elemType: 1, shape: ['batch', 'seq', 64] });
  if (!insideIf)
    return encodeModel({ graphName: `synthetic${n}`, nodes, inputs: [io('x')], outputs: [io(names.at(-1))] });
  const then = { graphName: 'then', nodes, inputs: [], outputs: [io(names.at(-1))] };
  const other = {
    graphName: 'else',
    nodes: [{ opType: 'Identity', name: 'id', inputs: ['x'], outputs: ['xe'] }],
    inputs: [],
    outputs: [io('xe')],
  };
  const branch = {
    opType: 'If',
    name: 'branch',
    inputs: ['c'],
    outputs: ['y'],
    attributes: [
      { name: 'then_branch', graph: then },
      { name: 'else_branch', graph: other },
    ],
  };
  const c = { name: 'c', elemType: 9, shape: [] };
  return encodeModel({ graphName: `synthetic${n}_if`, nodes: [branch], inputs: [io('x'), c], outputs: [io('y')] });
}
requireVizFixtures();
const { server, url } = await serve(join(ROOT, 'web', 'dist'), 0);
const profile = mkdtempSync(join(tmpdir(), 'memplan-bench-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const page = await ctx.newPage();
page.on('pageerror', (e) => console.error('page error:', e.message));
await page.goto(url);
await page.waitForSelector('body[data-state="ready"]', { timeout: 60_000 });

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
const pct = (a, p) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
};
const twoFrames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// --hostile: issue 21's models, each opened once on the page (the times of a first open).
if (HOSTILE) {
  if (!existsSync(join(HOSTILE_DIR, 'split_200k.onnx')))
    execFileSync('/usr/bin/python3', [join(ROOT, 'bench', 'hostile_models.py'), HOSTILE_DIR]);
  const files = readdirSync(HOSTILE_DIR)
    .filter((f) => f.endsWith('.onnx'))
    .sort();
  console.log(
    `load average: ${(await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const f of files) {
    await page.evaluate(() => {
      document.body.dataset.state = 'bench';
    });
    const t0 = Date.now();
    await page.setInputFiles('#file', join(HOSTILE_DIR, f));
    await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, {
      timeout: 300_000,
    });
    await twoFrames();
    const open = Date.now() - t0;
    const res = await page.evaluate(async () => {
      const v = window.memplanView;
      const state = document.body.dataset.state;
      const out = {
        state,
        status: v.plan?.status,
        error: document.querySelector('.mpv-error')?.textContent,
        calls: {},
      };
      const model = v.view.controller.model;
      if (state !== 'ready' || !model) return out;
      for (const [label, cmd, args] of [
        ['plan --inplace', 'plan', ['--inplace']],
        ['profile', 'profile', []],
        ['tags', 'tags', []],
      ]) {
        const t0 = performance.now();
        await model.call(cmd, args);
        out.calls[label] = Math.round(performance.now() - t0);
      }
      return out;
    });
    const what = res.state === 'ready' ? res.status : `error: ${String(res.error).slice(0, 80)}`;
    const calls = Object.entries(res.calls)
      .map(([k, ms]) => `${k} ${ms} ms`)
      .join(', ');
    console.log(
      `${f} (${statSync(join(HOSTILE_DIR, f)).size} B): open -> plan shown ${open} ms (${what})${calls ? `; ${calls}` : ''}`,
    );
  }
  await ctx.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
  process.exit(0);
}

// 3. (first, the shortest) A 10k-node model: re-plan after a dim changes, through the worker.
async function replanBench(insideIf) {
  const bytes = syntheticModel(10_000, { insideIf });
  const positions = insideIf ? 1 : 10_000;
  await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    document.body.dataset.state = 'bench';
    await window.memplanView.setModel(bytes, 'synthetic-10k.onnx');
  }, Buffer.from(bytes).toString('base64'));
  await page.waitForFunction(
    (p) => document.body.dataset.state === 'ready' && window.memplanView.plan?.positions === p,
    positions,
    { timeout: 120_000 },
  );
  const res = await page.evaluate(async () => {
    const v = window.memplanView;
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const total = [],
      shown = [],
      calls = { 'plan arena': [], 'plan slots': [], profile: [] };
    await v.setDims({ batch: 1, seq: 100 }); // warm-up
    await frames();
    for (let k = 0; k < 7; k++) {
      const t0 = performance.now();
      await v.setDims({ batch: 1, seq: 128 + k });
      await frames();
      total.push(performance.now() - t0);
      shown.push(v.view.controller.state.shownMs); // setDims -> the new plan's figures, table, timeline, arena and memory drawn
    }
    const model = v.view.controller.model;
    for (let k = 0; k < 7; k++) {
      const dims = ['--dim', 'batch=1', '--dim', `seq=${200 + k}`];
      for (const [label, cmd, args] of [
        ['plan arena', 'plan', ['--strategy', 'arena', '--align', '64', ...dims]],
        ['plan slots', 'plan', ['--strategy', 'slots', '--align', '64', ...dims]],
        ['profile', 'profile', dims],
      ]) {
        const t0 = performance.now();
        await model.call(cmd, args);
        calls[label].push(performance.now() - t0);
      }
    }
    // Memory against a dim: 32 values of seq through the page's sweep (the worker's `sweep`), median of 3.
    const sweep = [];
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      const d = await v.view.sweep.sweep('seq', 1, 4096, 32);
      sweep.push(performance.now() - t0);
      if (d.points.length !== 32 || d.points.some((p) => p.status !== 'planned'))
        throw new Error('sweep: not 32 planned points');
    }
    const plan = v.plan;
    return {
      shown,
      total,
      calls,
      sweep,
      status: plan.status,
      positions: plan.positions,
      values: plan.values.length,
      peak: plan.peak_bytes,
      progress: document.querySelector('.mpv-progress').textContent,
    };
  });
  const f = (a) =>
    `median ${median(a).toFixed(0)} ms (min ${Math.min(...a).toFixed(0)}, max ${Math.max(...a).toFixed(0)})`;
  console.log(
    `10k-node synthetic model${insideIf ? ', its nodes inside an If' : ''} (${bytes.length} bytes, ${res.positions} positions, ${res.values} values, ${res.status}, peak ${res.peak} B): ` +
      `dim changed -> new plan shown (figures, tables, timeline, arena, memory) ${f(res.shown)}, -> every chart incl. slot plan and profile, rendered ${f(res.total)}; worker calls alone (request to parsed JSON on the page): ` +
      Object.entries(res.calls)
        .map(([k, a]) => `${k} ${f(a)}`)
        .join(', '),
  );
  console.log(
    `10k-node model, memory against seq: 32 values 1..4096 (sweep in the worker, to the chart drawn) ${f(res.sweep)}`,
  );
}
if (!NO_REPLAN) {
  await replanBench(false);
  await replanBench(true);
}
if (REPLAN_ONLY) {
  await ctx.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
  process.exit(0);
}

// 1. Largest fixture: file chosen -> every chart drawn.
const times = [];
for (let k = 0; k < 5; k++) {
  await page.evaluate(() => {
    document.body.dataset.state = 'bench';
  });
  const t0 = Date.now();
  await page.setInputFiles('#file', LARGEST.file);
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && window.memplanView.plan, null, {
    timeout: 60_000,
  });
  await page.evaluate((dims) => window.memplanView.setDims(dims), LARGEST.dims); // the model's input dims
  await page.waitForFunction(
    () => document.body.dataset.state === 'ready' && window.memplanView.plan?.status === 'planned',
    null,
    { timeout: 60_000 },
  );
  await twoFrames();
  times.push(Date.now() - t0);
}
const largest = await page.evaluate(() => ({
  n: window.memplanView.plan.values.length,
  positions: window.memplanView.plan.positions,
}));
console.log(
  `largest fixture ${LARGEST.name} with ${JSON.stringify(LARGEST.dims)} (${largest.n} values, ${largest.positions} positions): ` +
    `file chosen -> dims bound -> first full planned render median ${median(times)} ms (runs: ${times.join(', ')} ms)`,
);

// 2. Synthetic plan.
const plan = syntheticPlan(N);
const text = JSON.stringify(plan);
const tOpen = await page.evaluate(async (t) => {
  const t0 = performance.now();
  await window.memplanView.setPlan(t, 'synthetic.json');
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}, text);
console.log(
  `synthetic plan: ${N} intervals, ${plan.positions} positions, JSON ${(text.length / 1e6).toFixed(1)} MB: parse + derive + first render ${tOpen.toFixed(0)} ms`,
);

const renderCost = await page.evaluate(() => {
  const out = {};
  for (const [k, c] of Object.entries(window.memplanView.view.charts)) {
    const t = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      c.renderNow();
      t.push(performance.now() - t0);
    }
    t.sort((a, b) => a - b);
    out[k] = t[5];
  }
  return out;
});
console.log(
  `one full render (all ${N} intervals in view), median of 10: ` +
    Object.entries(renderCost)
      .map(([k, v]) => `${k} ${v.toFixed(1)} ms`)
      .join(', '),
);

async function measure(label, action) {
  await page.evaluate(() => {
    window.__frames = [];
    let last = performance.now();
    const loop = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (window.__frames.length < 100000 && !window.__stop) requestAnimationFrame(loop);
    };
    window.__stop = false;
    requestAnimationFrame(loop);
  });
  await action();
  const frames = await page.evaluate(() => {
    window.__stop = true;
    return window.__frames.slice(1);
  });
  console.log(
    `${label}: ${frames.length} frames, mean ${(frames.reduce((a, b) => a + b, 0) / frames.length).toFixed(1)} ms, ` +
      `median ${median(frames).toFixed(1)} ms, p95 ${pct(frames, 0.95).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms`,
  );
}
const box = await page.evaluate(() => {
  const el = document.querySelector('[data-chart="timeline"]');
  el.scrollIntoView({ block: 'center' });
  const r = el.querySelector('.zoom-surface').getBoundingClientRect();
  return { x: r.left, y: r.top, w: r.width, h: r.height };
});
const cx = box.x + box.w / 2,
  cy = box.y + box.h / 2;
await page.mouse.move(cx, cy);
await page.focus('[data-chart="timeline"]'); // the wheel zooms a focused chart (else it scrolls the page)
await measure('zooming in with the wheel (30 steps, full view -> a few %)', async () => {
  for (let k = 0; k < 30; k++) {
    await page.mouse.wheel(0, -120);
    await page.waitForTimeout(16);
  }
});
await page.evaluate(() => {
  const v = window.memplanView.view;
  const [a, b] = v.linked.fullDomain;
  const w = (b - a) / 10;
  v.linked.setXDomain([a + 4 * w, a + 5 * w]);
});
await twoFrames();
await measure('panning at 10% zoom (drag, 120 mouse moves)', async () => {
  await page.mouse.move(cx + 200, cy);
  await page.mouse.down();
  for (let k = 0; k < 120; k++) await page.mouse.move(cx + 200 - k * 3, cy, { steps: 1 });
  await page.mouse.up();
});
await page.evaluate(() => window.memplanView.view.linked.setXDomain(null));
await twoFrames();
await measure('panning the full view zoomed 2x (drag, 120 mouse moves)', async () => {
  await page.evaluate(() => {
    const v = window.memplanView.view;
    const [a, b] = v.linked.fullDomain;
    v.linked.setXDomain([a + (b - a) / 4, a + (3 * (b - a)) / 4]);
  });
  await page.mouse.move(cx + 200, cy);
  await page.mouse.down();
  for (let k = 0; k < 120; k++) await page.mouse.move(cx + 200 - k * 3, cy, { steps: 1 });
  await page.mouse.up();
});
await page.evaluate(() => window.memplanView.view.linked.setXDomain(null));
const arenaBox = await page.evaluate(() => {
  const el = document.querySelector('[data-chart="arena"]');
  el.scrollIntoView({ block: 'center' });
  const r = el.querySelector('.zoom-surface').getBoundingClientRect();
  return { x: r.left, y: r.top, w: r.width, h: r.height };
});
await twoFrames();
await measure('hovering across the arena map at full view (120 mouse moves)', async () => {
  for (let k = 0; k < 120; k++)
    await page.mouse.move(
      arenaBox.x + 20 + k * ((arenaBox.w - 40) / 120),
      arenaBox.y + arenaBox.h * (0.3 + 0.4 * ((k % 7) / 7)),
      { steps: 1 },
    );
});
await page.screenshot({ path: join(ROOT, 'test-artifacts', 'bench-synthetic.png'), fullPage: true });
await ctx.close();
server.close();
rmSync(profile, { recursive: true, force: true });
