// ort_workspace.mjs -- the scratch memory (workspace) ONNX Runtime's CPU
// kernels take inside Compute, measured on onnxruntime-node, beside memplan's
// figure for it (plan --workspace) and the figure predicted from ONNX
// Runtime's sources.
//
//   /usr/bin/python3 bench/ort_workspace_models.py DIR
//   node --expose-gc bench/ort_workspace.mjs DIR [--runs 3] [--only A,B]
//        [--memplan CLI] [--json]
//
// DIR holds the single-node models and DIR/cases.json (name, op, shapes,
// predicted_bytes, formula) written by bench/ort_workspace_models.py. For
// each model memplan's CLI (--memplan, default build/native/memplan) runs
// `plan MODEL --workspace --json --no-nodes --no-at-peak`; its figure is
// kernel_workspace.largest_bytes (0 when no node takes a workspace;
// "deferred" when the plan is). Each model then runs --runs times (default
// 3), each time in a child process of its own: CPU EP, graph optimization
// disabled, sequential, one intra-op and one inter-op thread, no CPU arena,
// no memory pattern, and glibc told to map every block of 64 KiB or more on
// its own (MALLOC_MMAP_THRESHOLD_=65536), so a kernel's buffer is its own
// mapping and leaves the process when freed.
//
// The child runs the model once to warm up (threads, lazy state), drops the
// outputs and collects garbage, then runs it again, measured. A worker thread
// (bench/rss_sampler.mjs, shared with bench/ort_memory.mjs) reads VmRSS and
// VmSize from /proc/self/status every ~0.5 ms; the run's window is the
// profile's model_run event, so the outputs' copies into JavaScript after it
// are left out. For the measured run:
//   touched   = peak VmRSS in the window - VmRSS just before the run
//               (inputs already made) - the outputs' bytes:
//               the workspace's pages the kernel wrote;
//   allocated = the same with VmSize: the workspace's bytes as allocated,
//               written or not (each block of 64 KiB or more is a mapping
//               of its own, so VmSize moves by its size).
// The two differ when a kernel allocates more than it touches (MLAS float
// Conv batched or grouped in newer versions than 1.30: a whole im2col
// buffer, filled a 64 KiB tile at a time). An arena (BFC) would hold the
// allocated figure.
//
// The table gives the median and the min of the runs and the ratio of the
// median to memplan's figure. `fits` says whether the allocated median is
// memplan's figure within 0.05 MiB + 1%; a figure of 0.1 MiB or less (MLAS
// Conv's 64 KiB segment) fits a median below 0.1 MiB, since glibc may carve
// so small a block from the heap and VmSize then does not move. `formula`
// says which of the sources' figures (predicted, or alt: another version or
// reading) the allocated median matches, by a looser test (1.5 MiB or 5%).
// When any case does not fit memplan's figure (or fails to run, or memplan
// defers its plan) the script says which and exits 1: a rule of memplan's
// may have gone stale with a new ONNX Runtime. The figures depend on the
// machine (QLinearConv with int8 weights of zero point 0 takes the symmetric
// kernel only where MLAS has a ConvSym kernel for the CPU; measured with
// AVX-512 VNNI), glibc and ONNX Runtime's version (it reports the version).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import {
  DEFAULT_MEMPLAN,
  MiB,
  ROOT,
  kernelEvents,
  makeFeeds,
  memplanJson,
  openProfile,
  readStatus,
  runChild,
  runOnce,
  samplesIn,
  settle,
  startSampler,
} from './rss_sampler.mjs';

const SESSION = {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'disabled',
  executionMode: 'sequential',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  enableCpuMemArena: false,
  enableMemPattern: false,
  logSeverityLevel: 3,
};

function parseArgs(argv) {
  const a = { dir: null, runs: 3, only: null, json: false, child: null, memplan: DEFAULT_MEMPLAN };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    if (k === '--runs') a.runs = Number(next());
    else if (k === '--only') a.only = next().split(',');
    else if (k === '--memplan') a.memplan = resolve(next());
    else if (k === '--json') a.json = true;
    else if (k === '--child') a.child = resolve(next());
    else if (!a.dir && !k.startsWith('--')) a.dir = resolve(k);
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.child && !a.dir)
    throw new Error(
      'usage: node --expose-gc bench/ort_workspace.mjs DIR [--runs N] [--only A,B] [--memplan CLI] [--json]',
    );
  if (!(a.runs >= 1)) throw new Error('--runs wants a count of at least 1');
  return a;
}

// Inputs from a fixed-seed generator (the contents do not change what a
// kernel allocates): floats in [-1, 1), integers 0..255.
function feedsFor(ort, session) {
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
  return makeFeeds(ort, session, { float: () => next() / 2 ** 31 - 1, int: () => next() >>> 24 });
}

// One model in this process: a warm-up run, then the measured run.
async function child(model) {
  const { default: ort } = await import('onnxruntime-node');
  const profile = openProfile('ort-workspace-');
  try {
    const session = await ort.InferenceSession.create(model, { ...SESSION, ...profile.options });
    const feeds = feedsFor(ort, session);
    const sampler = startSampler();
    await sampler.ready;
    const runs = [];
    for (let r = 0; r < 2; r++) {
      await settle();
      const base = readStatus();
      runs.push({ base, ...(await runOnce(session, feeds)) });
    }
    await settle();
    session.endProfiling();
    const samples = await sampler.stop();
    const { events, runEvents } = profile.read(runs.length);
    const result = {
      runs: runs.map((run, i) => {
        const to = run.t0 + runEvents[i].dur / 1000;
        const win = samplesIn(samples, run.t0, to);
        const peakRss = Math.max(run.base.rss, ...win.map(([, v]) => v));
        const peakVsz = Math.max(run.base.vsz, ...win.map(([, , v]) => v));
        const k = kernelEvents(events, runEvents[i]);
        return {
          base_rss: run.base.rss,
          base_vsz: run.base.vsz,
          peak_rss: peakRss,
          peak_vsz: peakVsz,
          out_bytes: run.outBytes,
          touched: peakRss - run.base.rss - run.outBytes,
          allocated: peakVsz - run.base.vsz - run.outBytes,
          samples: win.length,
          run_ms: runEvents[i].dur / 1000,
          kernel_ms: k.reduce((s, e) => s + e.dur / 1000, 0),
          providers: [...new Set(k.map((e) => e.args?.provider))],
        };
      }),
    };
    process.stdout.write(JSON.stringify(result));
  } finally {
    profile.remove();
  }
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function ortVersion() {
  try {
    const req = createRequire(join(ROOT, 'package.json'));
    return JSON.parse(readFileSync(req.resolve('onnxruntime-node/package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

// memplan's figure for one model: the largest workspace a node of it takes
// (a single node here; 0 when none takes one), or deferred when the plan is.
function memplanWorkspace(cli, model) {
  const plan = memplanJson(cli, ['plan', model, '--workspace', '--json', '--no-nodes', '--no-at-peak']);
  if (plan.kernel_workspace === undefined) throw new Error(`${cli} gives no kernel_workspace (a build without it?)`);
  const ws = plan.kernel_workspace;
  if (ws === null) return { bytes: null, deferred: true };
  return {
    bytes: ws.nodes ? ws.largest_bytes : 0,
    deferred: false,
    nodes: ws.nodes,
    unknown: ws.unknown,
    what: ws.largest_what,
  };
}

// Whether ONNX Runtime's allocated median fits memplan's figure: within
// 0.05 MiB + 1%, or, for a figure of at most RESOLUTION (MLAS Conv's 64 KiB
// segment), a median below RESOLUTION (glibc may serve so small a block from
// the heap, and VmSize then does not move).
const RESOLUTION = 0.1 * MiB;
function fitsMemplan(r) {
  if (r.error) return 'error';
  if (r.memplan.deferred) return 'deferred';
  const m = r.allocated.median,
    p = r.memplan.bytes;
  if (Math.abs(m - p) <= 0.05 * MiB + 0.01 * p) return 'yes';
  if (p > 0 && p <= RESOLUTION && Math.abs(m) < RESOLUTION) return 'yes (<0.1)';
  return 'NO';
}

// Below 1 MiB a figure is within the resident set's noise (the control case
// moves by up to about 1.7 MiB): it is read as ~0.
const NOISE = 1.5 * MiB;
const near = (m, p) => p != null && Math.abs(m - p) < Math.max(NOISE, 0.05 * p);
// Which of the sources' figures the allocated median matches, loosely.
const fitsFormula = (r) =>
  r.error
    ? '—'
    : near(r.allocated.median, r.predicted_bytes)
      ? 'predicted'
      : near(r.allocated.median, r.alt_predicted_bytes)
        ? 'alt'
        : 'neither';

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.child) return child(a.child);
  const listing = JSON.parse(readFileSync(join(a.dir, 'cases.json'), 'utf8'));
  let cases = listing.cases;
  if (a.only) cases = cases.filter((c) => a.only.includes(c.name));
  const rows = [];
  for (const c of cases) {
    const model = join(a.dir, c.file);
    let error = null,
      memplan = null;
    try {
      memplan = memplanWorkspace(a.memplan, model);
    } catch (e) {
      if (/no memplan CLI|no kernel_workspace/.test(e.message)) throw e;
      error = `memplan: ${e.message.trim().split('\n').slice(-1)[0]}`;
    }
    const runs = [];
    for (let r = 0; r < a.runs && !error; r++) {
      const p = runChild(process.argv[1], ['--child', model]);
      if (p.status !== 0) error = p.stderr.toString().trim().split('\n').slice(-3).join(' ');
      else runs.push(JSON.parse(p.stdout.toString()).runs);
    }
    const measured = runs.map((r) => r[1]);
    const warmup = runs.map((r) => r[0]);
    const stat = (xs, key) =>
      xs.length ? { median: median(xs.map((x) => x[key])), min: Math.min(...xs.map((x) => x[key])) } : null;
    const row = {
      name: c.name,
      op: c.op,
      predicted_bytes: c.predicted_bytes,
      alt_predicted_bytes: c.alt_predicted_bytes ?? null,
      formula: c.formula,
      memplan,
      error,
      touched: stat(measured, 'touched'),
      allocated: stat(measured, 'allocated'),
      warmup_touched: stat(warmup, 'touched'),
      warmup_allocated: stat(warmup, 'allocated'),
      out_bytes: measured[0]?.out_bytes ?? null,
      run_ms: measured.length ? median(measured.map((x) => x.run_ms)) : null,
      samples: measured.length ? Math.min(...measured.map((x) => x.samples)) : null,
      runs: measured,
    };
    row.fits = fitsMemplan(row);
    row.fits_formula = fitsFormula(row);
    rows.push(row);
    if (!a.json) process.stderr.write(`${c.name}: ${error ? 'error' : 'done'}\n`);
  }
  const report = {
    onnxruntime_node: ortVersion(),
    memplan: a.memplan,
    session: SESSION,
    runs: a.runs,
    cases: rows,
  };
  if (a.json) console.log(JSON.stringify(report, null, 1));
  else printTable(report);

  const bad = rows.filter((r) => !r.fits.startsWith('yes'));
  if (bad.length) {
    const f = (b) => (b / MiB).toFixed(2);
    const why = (r) =>
      r.fits === 'error'
        ? `did not run: ${r.error}`
        : r.fits === 'deferred'
          ? 'memplan defers the plan (no figure)'
          : `ONNX Runtime allocated ${f(r.allocated.median)} MiB, memplan says ${f(r.memplan.bytes)} MiB` +
            (r.memplan.what ? ` (${r.memplan.what})` : '');
    console.error(
      `ort_workspace: ${bad.length} of ${rows.length} cases do not fit memplan's figure ` +
        `(onnxruntime-node ${report.onnxruntime_node}); a rule of memplan's kernel workspace ` +
        `(src/analysis/workspace.c) may have gone stale:\n` +
        bad.map((r) => `  ${r.name} (${r.op}): ${why(r)}`).join('\n'),
    );
    process.exitCode = 1;
  }
}

function printTable(report) {
  const f = (b) => (b == null ? '—' : (b / MiB).toFixed(2));
  const ratio = (m, p) =>
    m == null || p == null ? '—' : p >= MiB ? (m / p).toFixed(2) : Math.abs(m - p) < NOISE ? '~0 ok' : 'NONZERO';
  console.log(
    `onnxruntime-node ${report.onnxruntime_node}, ${report.runs} runs each (child process per run, warm-up then measured); ` +
      `memplan ${report.memplan}; MiB; ratios to memplan`,
  );
  const head = [
    'case',
    'op',
    'memplan',
    'predicted (alt)',
    'touched med (min)',
    'ratio',
    'allocated med (min)',
    'ratio',
    'fits',
    'formula',
    'out',
    'ms',
    'samples',
  ];
  const lines = report.cases.map((r) => {
    const mp = r.memplan ? (r.memplan.deferred ? 'deferred' : f(r.memplan.bytes)) : '—';
    const pred = f(r.predicted_bytes) + (r.alt_predicted_bytes != null ? ` (alt ${f(r.alt_predicted_bytes)})` : '');
    if (r.error) return [r.name, r.op, mp, pred, `error: ${r.error.slice(0, 100)}`, '', '', '', r.fits, '', '', '', ''];
    return [
      r.name,
      r.op,
      mp,
      pred,
      `${f(r.touched.median)} (${f(r.touched.min)})`,
      ratio(r.touched.median, r.memplan.bytes),
      `${f(r.allocated.median)} (${f(r.allocated.min)})`,
      ratio(r.allocated.median, r.memplan.bytes),
      r.fits,
      r.fits_formula,
      f(r.out_bytes),
      r.run_ms.toFixed(0),
      String(r.samples),
    ];
  });
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (l) => '| ' + l.map((x, i) => x.padEnd(w[i])).join(' | ') + ' |';
  console.log(fmt(head));
  console.log('|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|');
  for (const l of lines) console.log(fmt(l));
}

main().catch((e) => {
  console.error(`ort_workspace: ${process.env.ORT_WORKSPACE_DEBUG ? e.stack : e.message}`);
  process.exit(1);
});
