#!/usr/bin/env node
// npm_check.mjs -- the npm package used as its users would (the `npm-package`
// phase of `make test`).
//
//   node scripts/npm_check.mjs [--keep]
//   env: MEMPLAN_CLI (native memplan, default build/native/memplan),
//        MEMPLAN_FIXTURES (default build/fixtures), MEMPLAN_JUNIT (a JUnit report to write)
//
// 1. Packs the package (scripts/pack.mjs) and installs the tarball into a
//    fresh temporary folder with npm (--prefer-offline: the npm cache holds
//    d3's tarballs but not its registry document), together with Vite; the
//    repository's node_modules is out of reach (another tree, NODE_PATH unset).
// 2. Writes README's quick-start snippets there (<!-- file: PATH --> before
//    each fence) and runs the Node example on three fixtures, comparing its
//    line with the native CLI's figures.
// 3. Runs `npx onnx-memplan` and the native `memplan` on the same arguments:
//    plan on a model with subgraphs, a deferred one and a flat one, every
//    command, the -o and --trace outputs, bad models and usage errors. stdout,
//    stderr, the exit code and the files written must be equal byte for byte.
// 4. Builds the Vite app and serves it and the bundler-free page over HTTP on
//    127.0.0.1, and runs the app under Vite's dev server too; Chromium
//    (Debian's, through playwright-core) opens the three, and the figures
//    shown must be the CLI's. The bundler-free page's first-render
//    time is printed (README quotes it).
// Ends with "npm_check: N passed, N failed"; exit status 1 on any failure.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../wasm-tests/browser/paths.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = resolve(ROOT, process.env.MEMPLAN_CLI || 'build/native/memplan');
const FIXTURES = resolve(ROOT, process.env.MEMPLAN_FIXTURES || 'build/fixtures');
const KEEP = process.argv.includes('--keep');

// Children run without NODE_PATH (test.sh sets it for emcc): the installed
// package must resolve from its own folder only.
const ENV = { ...process.env };
delete ENV.NODE_PATH;

const results = []; // {name, ok, message, ms}
async function check(name, fn) {
  const t0 = performance.now();
  try {
    await fn();
    results.push({ name, ok: true, ms: performance.now() - t0 });
    console.log(`  ok    ${name} (${Math.round(performance.now() - t0)} ms)`);
  } catch (e) {
    results.push({ name, ok: false, message: String(e?.message ?? e), ms: performance.now() - t0 });
    console.log(
      `  FAIL  ${name}\n        ${String(e?.message ?? e)
        .split('\n')
        .join('\n        ')}`,
    );
  }
}
function assertEqual(actual, expected, what) {
  const a = JSON.stringify(actual),
    b = JSON.stringify(expected);
  if (a !== b) throw new Error(`${what}:\n  got      ${a.slice(0, 400)}\n  expected ${b.slice(0, 400)}`);
}

const run = (cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, env: ENV, maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

// README's snippets: { path: text } for each fence after <!-- file: PATH -->.
function snippets() {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const out = {};
  for (const m of text.matchAll(/<!-- file: (\S+) -->\n```[a-z]*\n([\s\S]*?)```\n/g)) out[m[1]] = m[2];
  for (const need of ['plan.mjs', 'page/index.html', 'vite-app/index.html', 'vite-app/main.js', 'ci.sh'])
    if (!out[need]) throw new Error(`README.md has no snippet <!-- file: ${need} -->`);
  return out;
}

// A static file server for the folder (HTTP: module scripts and workers do
// not load from file://), on 127.0.0.1 at a free port.
const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.json': 'application/json',
};
function serve(dir) {
  const server = createServer((req, res) => {
    const path = normalize(join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!path.startsWith(dir + sep) || !existsSync(path) || !statSync(path).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(path)] || 'application/octet-stream' });
    res.end(readFileSync(path));
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

// The CLI cases: [name, args, files it writes, the exit code expected]. Paths are relative to the
// install folder, where both CLIs run, so messages naming them are equal.
function cliCases() {
  const F = 'fixtures';
  const cases = [
    ['plan, subgraphs', ['plan', `${F}/if_capture.onnx`, '--json']],
    ['plan, deferred', ['plan', `${F}/symbolic.onnx`, '--json']],
    ['plan, flat', ['plan', `${F}/residual.onnx`, '--json']],
    ['plan text, deferred', ['plan', `${F}/symbolic.onnx`]],
    ['plan, dims bound', ['plan', `${F}/symbolic.onnx`, '--dim', 'batch=2', '--dim', 'seq=7', '--strategy', 'slots']],
    ['plan text, Loop and Scan', ['plan', `${F}/loop_scan.onnx`, '--budget-ms', '5']],
    ['info --json', ['info', `${F}/metadata.onnx`, '--json']],
    ['info text, escaped names', ['info', `${F}/metadata.onnx`]],
    ['shapes --json', ['shapes', `${F}/symbolic.onnx`, '--json']],
    ['inplace --events', ['inplace', `${F}/residual.onnx`, '--events', '--json']],
    ['profile', ['profile', `${F}/views.onnx`]],
    ['tags --json', ['tags', `${F}/function.onnx`, '--json']],
    ['sweep', ['sweep', `${F}/symbolic.onnx`, '--dim', 'batch=1..8:4', '--dim', 'seq=3', '--json']],
    ['diff', ['diff', `${F}/diamond.onnx`, `${F}/unsorted.onnx`]],
    ['plan --trace', ['plan', `${F}/if_capture.onnx`, '--trace', 'out/trace.json'], ['out/trace.json']],
    ['annotate -o', ['annotate', `${F}/residual.onnx`, '-o', 'out/annotated.onnx'], ['out/annotated.onnx']],
    ['reorder -o', ['reorder', `${F}/diamond.onnx`, '-o', 'out/reordered.onnx'], ['out/reordered.onnx']],
    ['pack csv', ['pack', 'buffers.csv', '--json', '--seed', '3']],
    ['--help', ['--help']],
    ['--version', ['--version']],
    ['no command', [], [], 1],
    ['unknown command', ['plann', 'x.onnx'], [], 1],
    ['option not taken', ['info', `${F}/chain.onnx`, '--dim', 'a=1'], [], 1],
    ['no such file', ['plan', 'missing.onnx'], [], 2],
    ['a directory', ['info', F], [], 2],
    ['annotate onto itself', ['annotate', `${F}/chain.onnx`, '-o', `${F}/chain.onnx`], [], 1],
  ];
  for (const bad of ['empty.onnx', 'random.bin', 'not_a_model.onnx', 'cycle.onnx', 'dangling.onnx', 'huge_dim.onnx'])
    cases.push([`bad model ${bad}`, ['plan', `${F}/bad/${bad}`, '--json'], [], 2]);
  return cases;
}

// `vite` (the dev server) in the app's folder, on a free port of 127.0.0.1:
// {child, url} once it prints its address.
function viteDev(appDir) {
  const child = spawn(join(appDir, '..', 'node_modules', '.bin', 'vite'), ['--host', '127.0.0.1', '--port', '0'], {
    cwd: appDir,
    env: ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((ok, fail) => {
    let text = '';
    const timer = setTimeout(() => {
      child.kill();
      fail(new Error(`vite printed no address in 60 s: ${text}`));
    }, 60000);
    const seen = (chunk) => {
      text += chunk;
      const m = text.replace(/\x1b\[[0-9;]*m/g, '').match(/Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) {
        clearTimeout(timer);
        ok({ child, url: m[1] });
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => fail(new Error(`vite exited (${code}): ${text}`)));
  });
}

async function browserChecks(dir, page0, models) {
  const server = await serve(dir);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    // The figures a page shows, once planned: the plan's and the cards' text.
    const shown = async (url, viewSelector) => {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await page.goto(url, { timeout: 60000 });
      await page.waitForFunction(
        (sel) => document.querySelector(`${sel} [data-figure=peak] .mpv-figure-exact`)?.textContent,
        viewSelector,
        { timeout: 60000, polling: 'raf' },
      );
      const ms = await page.evaluate(() => performance.now());
      const r = await page.evaluate((sel) => {
        const text = (k) => document.querySelector(`${sel} [data-figure=${k}] .mpv-figure-exact`).textContent;
        return {
          peak: text('peak'),
          bound: text('bound'),
          naive: text('naive'),
          charts: document.querySelectorAll(`${sel} .mpv-chart`).length,
        };
      }, viewSelector);
      await page.close();
      if (errors.length) throw new Error(`console errors on ${url}: ${errors.join(' | ')}`);
      return { ...r, ms };
    };
    const B = (n) => `${n.toLocaleString('en-US')} B`;
    const expected = {
      peak: B(models.peak_bytes),
      bound: B(models.lower_bound_bytes),
      naive: B(models.naive_bytes),
      charts: 7, // memory, active memory, live intervals, arena, slots, the sweep and the compare overlay
    };
    await check('bundler-free page: the view shows the CLI figures', async () => {
      // Three fresh pages: the first-render time is their median (navigation start to the figures shown).
      const times = [];
      for (let k = 0; k < 3; k++) {
        const { ms, ...figures } = await shown(`${base}page/index.html`, '#view');
        assertEqual(figures, expected, 'figures');
        times.push(ms);
      }
      page0.firstRenderMs = times.sort((a, b) => a - b)[1];
      page0.renderTimes = times;
    });
    await check('Vite app: the view shows the CLI figures', async () => {
      const { ms, ...figures } = await shown(`${base}vite-app/dist/index.html`, '#view');
      void ms;
      assertEqual(figures, expected, 'figures');
    });
    await check('Vite app under the dev server (npx vite): the same figures', async () => {
      const dev = await viteDev(join(dir, 'vite-app'));
      try {
        const { ms, ...figures } = await shown(dev.url, '#view');
        void ms;
        assertEqual(figures, expected, 'figures');
      } finally {
        dev.child.kill();
      }
    });
  } finally {
    await browser.close();
    server.close();
  }
}

function junit(path) {
  const esc = (s) => s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);
  const failed = results.filter((r) => !r.ok).length;
  const cases = results
    .map(
      (r) =>
        `  <testcase classname="npm_check" name="${esc(r.name)}" time="${(r.ms / 1000).toFixed(3)}">` +
        (r.ok ? '' : `<failure message="${esc(r.message.slice(0, 2000))}"/>`) +
        '</testcase>',
    )
    .join('\n');
  writeFileSync(
    path,
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="npm_check" tests="${results.length}" failures="${failed}" skipped="0">\n${cases}\n</testsuite>\n`,
  );
}

async function main() {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the native CLI`);
  if (!existsSync(join(FIXTURES, 'if_capture.onnx')))
    throw new Error(`${FIXTURES} has no fixtures: scripts/gen_fixtures.py`);
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'memplan-npm-'));
  const stats = {};
  try {
    console.log('npm_check: packing');
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'pack.mjs')], { stdio: 'inherit', env: ENV });
    const tgz = join(ROOT, 'build', `onnx-memplan-${root.version}.tgz`);
    const npm = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: join(ROOT, 'build', 'npm'), env: ENV }),
    );
    stats.tarball = statSync(tgz).size;
    stats.unpacked = npm[0].unpackedSize;
    stats.files = npm[0].entryCount;
    console.log(`npm_check: ${tgz}: ${stats.tarball} B packed, ${stats.unpacked} B unpacked, ${stats.files} files`);

    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'memplan-npm-check', private: true, type: 'module' }),
    );
    console.log(`npm_check: installing into ${dir}`);
    execFileSync(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', tgz, `vite@${root.devDependencies.vite}`],
      { cwd: dir, stdio: 'inherit', env: ENV },
    );
    execFileSync('cp', ['-r', FIXTURES, join(dir, 'fixtures')]);
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'buffers.csv'), 'id,lower,upper,size\na,0,2,100\nb,1,3,50\nc,2,4,100\nd,0,4,8\n');
    const files = snippets();
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), text);
    }

    await check('package.json: entry points, bin, d3 the only dependency', async () => {
      const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', 'onnx-memplan', 'package.json'), 'utf8'));
      assertEqual(
        Object.keys(pkg.exports),
        ['.', './worker', './view', './view.css', './d3-global', './memplan.wasm', './package.json'],
        'exports',
      );
      assertEqual(Object.keys(pkg.dependencies), ['d3'], 'dependencies');
      assertEqual(pkg.version, root.version, 'version');
      assertEqual(pkg.bin, { 'onnx-memplan': './bin/onnx-memplan.js' }, 'bin');
    });

    // The Node example on three fixtures: its line carries the CLI's figures.
    for (const f of ['if_capture.onnx', 'symbolic.onnx', 'residual.onnx']) {
      await check(`Node example on ${f}`, async () => {
        const p = JSON.parse(run(CLI, ['plan', `fixtures/${f}`, '--json'], dir).stdout);
        const r = run(process.execPath, ['plan.mjs', `fixtures/${f}`], dir);
        assertEqual(r.status, 0, `exit code (stderr: ${r.stderr})`);
        assertEqual(
          r.stdout.toString(),
          `fixtures/${f}: ${p.status}, peak ${p.peak_bytes} B, lower bound ${p.lower_bound_bytes} B\n`,
          'stdout',
        );
      });
    }

    // The Node CLI against the native one, byte for byte.
    const bin = join(dir, 'node_modules', '.bin', 'onnx-memplan');
    for (const [name, args, written = [], expectRc = 0] of cliCases()) {
      await check(`CLI: ${name}`, async () => {
        const take = () => written.map((w) => (existsSync(join(dir, w)) ? readFileSync(join(dir, w)) : null));
        const clear = () => written.forEach((w) => rmSync(join(dir, w), { force: true }));
        clear();
        const n = run(CLI, args, dir);
        const nFiles = take();
        clear();
        // The native run is as expected (so equal failures of both, a missing fixture, cannot pass).
        assertEqual(n.status, expectRc, `native exit code (stderr: ${n.stderr})`);
        if (expectRc === 0 && !n.stdout.length && !written.length) throw new Error('the native CLI printed nothing');
        if (expectRc !== 0 && !n.stderr.length) throw new Error('the native CLI failed without a message');
        // The three plans of the brief go through npx itself, the rest through the installed bin (faster).
        const w = name.startsWith('plan, ')
          ? run('npx', ['--no-install', 'onnx-memplan', ...args], dir)
          : run(bin, args, dir);
        const wFiles = take();
        assertEqual(w.status, n.status, 'exit code');
        if (!w.stdout.equals(n.stdout)) assertEqual(w.stdout.toString(), n.stdout.toString(), 'stdout');
        if (!w.stderr.equals(n.stderr)) assertEqual(w.stderr.toString(), n.stderr.toString(), 'stderr');
        written.forEach((p, k) => {
          if (!nFiles[k] || !wFiles[k] || !wFiles[k].equals(nFiles[k])) throw new Error(`${p}: not the same bytes`);
        });
      });
    }

    // The README's CI lines run as a shell script.
    await check('README CI snippet', async () => {
      copyFileSync(join(FIXTURES, 'if_capture.onnx'), join(dir, 'model.onnx'));
      const r = run('sh', ['-e', 'ci.sh'], dir);
      assertEqual(r.status, 0, `exit code (stderr: ${r.stderr})`);
      const n = run(CLI, ['plan', 'model.onnx', '--json'], dir);
      if (!readFileSync(join(dir, 'plan.json')).equals(n.stdout))
        throw new Error('plan.json differs from the native CLI');
      const trace = JSON.parse(readFileSync(join(dir, 'plan.trace.json'), 'utf8'));
      if (!Array.isArray(trace.traceEvents) || !trace.traceEvents.length)
        throw new Error('plan.trace.json has no traceEvents');
    });

    // The web pages: the model of both is if_capture.onnx (If bodies), planned as the view plans by default.
    copyFileSync(join(FIXTURES, 'if_capture.onnx'), join(dir, 'model.onnx'));
    mkdirSync(join(dir, 'vite-app', 'public'), { recursive: true });
    copyFileSync(join(FIXTURES, 'if_capture.onnx'), join(dir, 'vite-app', 'public', 'model.onnx'));
    let built = false;
    await check('Vite app builds', async () => {
      const r = run(join(dir, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], join(dir, 'vite-app'));
      assertEqual(r.status, 0, `vite build exit code (${r.stderr})`);
      built = true;
    });
    const cliPlan = JSON.parse(
      run(CLI, ['plan', 'model.onnx', '--json', '--strategy', 'arena', '--align', '64'], dir).stdout,
    );
    if (built) await browserChecks(dir, stats, cliPlan);
    if (stats.firstRenderMs !== undefined)
      console.log(
        `npm_check: bundler-free page, navigation to figures shown: median ${Math.round(stats.firstRenderMs)} ms ` +
          `(${stats.renderTimes.map(Math.round).join(', ')}; load average ${loadavg()[0].toFixed(1)})`,
      );
  } finally {
    if (KEEP) console.log(`npm_check: kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

let crashed = null;
try {
  await main();
} catch (e) {
  crashed = e;
  results.push({ name: 'npm_check setup', ok: false, message: String(e?.stack ?? e), ms: 0 });
  console.error(`npm_check: ${e?.stack ?? e}`);
}
if (process.env.MEMPLAN_JUNIT) junit(process.env.MEMPLAN_JUNIT);
const failed = results.filter((r) => !r.ok).length;
console.log(`npm_check: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed || crashed ? 1 : 0);
