// ort_memory.mjs -- what ONNX Runtime (CPU, onnxruntime-node) actually
// allocates for a model's activations, beside memplan's figures for the graph
// it runs.
//
//   node --expose-gc bench/ort_memory.mjs MODEL.onnx [--dim NAME=N ...]
//        [--level disabled|basic|extended|all] [--config CONFIGS] [--runs N]
//        [--memplan CLI] [--nodes K] [--json]
//
// ONNX Runtime first optimizes the graph at --level (default basic: constant
// folding and the fusions every EP takes) and saves the graph it runs; memplan
// plans that file (the CLI at --memplan, default build/native/memplan) with
// the same dims, so both sides see one graph, in the file order and in the
// order ONNX Runtime runs it in (--order onnxruntime; ratios are to that one). Each config of --config (default
// "plain,pattern,arena,default") opens a session of its own in a child
// process and runs it --runs times (default 2) on random inputs:
//   plain    no CPU arena, no memory pattern: every tensor malloc'ed and
//            freed as ONNX Runtime's allocation planner says;
//   pattern  no arena, memory patterns on (one block per run, laid out after
//            the first run);
//   arena    the CPU arena (BFC), no memory pattern;
//   default  both, as a session has them unless told otherwise.
// A worker thread (bench/rss_sampler.mjs) samples the process's resident set
// (/proc/self/status, VmRSS) every 0.5 ms while ONNX Runtime runs; the figure
// is the highest sample of a run minus the resident set before the first
// run. glibc is told to map every block of 64 KiB or more on its own
// (MALLOC_MMAP_THRESHOLD_), so a freed tensor leaves the resident set at
// once; outputs of earlier runs are dropped and collected (--expose-gc)
// before the next. What the figure holds
// beside the activations: kernel workspace (an im2col buffer, say), the
// outputs' copies into JavaScript at the end of a run, and with the arena
// what it keeps from earlier runs.
//
// --nodes K (config plain only) also prints the K nodes where the resident
// set stood furthest above memplan's live bytes at that node, from ONNX
// Runtime's profile (the node's time window); that is where a kernel's
// workspace, or a buffer ONNX Runtime holds longer, shows.
//
// This is a measurement, not a test: it depends on the machine, the
// allocator and ONNX Runtime's version. bench/README.md ("What ONNX Runtime
// allocates") has the figures and what they mean.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DEFAULT_MEMPLAN,
  MiB,
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

const CONFIGS = {
  plain: { enableCpuMemArena: false, enableMemPattern: false },
  pattern: { enableCpuMemArena: false, enableMemPattern: true },
  arena: { enableCpuMemArena: true, enableMemPattern: false },
  default: { enableCpuMemArena: true, enableMemPattern: true },
};

function parseArgs(argv) {
  const a = { model: null, dims: {}, level: 'basic', configs: Object.keys(CONFIGS), runs: 2, nodes: 0, json: false };
  a.memplan = DEFAULT_MEMPLAN;
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    if (k === '--dim') {
      const [n, v] = next().split('=');
      if (!n || !/^\d+$/.test(v ?? '')) throw new Error(`--dim wants NAME=N, not ${argv[i]}`);
      a.dims[n] = Number(v);
    } else if (k === '--level') a.level = next();
    else if (k === '--config') a.configs = next().split(',');
    else if (k === '--runs') a.runs = Number(next());
    else if (k === '--memplan') a.memplan = resolve(next());
    else if (k === '--nodes') a.nodes = Number(next());
    else if (k === '--json') a.json = true;
    else if (k === '--child') a.child = next();
    else if (!a.model && !k.startsWith('--')) a.model = resolve(k);
    else throw new Error(`unknown argument ${k}`);
  }
  for (const c of a.configs)
    if (!CONFIGS[c]) throw new Error(`unknown config ${c} (${Object.keys(CONFIGS).join(', ')})`);
  if (!a.model) throw new Error('usage: node --expose-gc bench/ort_memory.mjs MODEL.onnx [--dim NAME=N ...]');
  return a;
}

// One config in this process: returns per-run peaks and, with --nodes, the
// profile's node windows of the first run.
async function child(a) {
  const { default: ort } = await import('onnxruntime-node');
  const cfg = CONFIGS[a.child];
  // The profile gives each run's execution (model_run), so the peak leaves out
  // the outputs' copies into JavaScript after it, and the nodes' windows.
  const profile = openProfile('ort-memory-');
  const session = await ort.InferenceSession.create(a.model, {
    graphOptimizationLevel: a.level,
    executionMode: 'sequential',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    logSeverityLevel: 3,
    ...cfg,
    ...profile.options,
  });
  const feeds = makeFeeds(ort, session, { dims: a.dims });
  const sampler = startSampler();
  await sampler.ready;
  globalThis.gc?.();
  const base = readStatus().rss;
  const runs = [];
  for (let r = 0; r < a.runs; r++) {
    const run = await runOnce(session, feeds);
    await settle();
    runs.push(run);
  }
  session.endProfiling();
  const samples = await sampler.stop();
  const { events: prof, runEvents } = profile.read(runs.length);
  profile.remove();
  // The highest resident set above base from one sample before the window to
  // one after it.
  const peakIn = (from, to) => Math.max(0, ...samplesIn(samples, from, to, 1).map(([, rss]) => rss - base));
  const result = { config: a.child, base, runs: [] };
  runs.forEach((run, i) => {
    result.runs.push({
      peak: peakIn(run.t0, run.t0 + runEvents[i].dur / 1000),
      out_bytes: run.outBytes,
      ms: run.t1 - run.t0,
    });
  });
  if (a.nodes) {
    const r0 = runEvents[0];
    result.nodes = kernelEvents(prof, r0).map((e) => {
      const start = runs[0].t0 + (e.ts - r0.ts) / 1000;
      return {
        name: e.name.slice(0, -'_kernel_time'.length),
        op: e.args.op_name,
        max: peakIn(start, start + e.dur / 1000),
      };
    });
  }
  process.stdout.write(JSON.stringify(result));
}

// memplan's figures for the graph ONNX Runtime runs, and its live bytes per
// node name (owners only, each from its producer to its last reader).
function memplanFigures(a, optimized) {
  const args = ['plan', optimized, '--json'];
  for (const [k, v] of Object.entries(a.dims)) args.push('--dim', `${k}=${v}`);
  const plan = memplanJson(a.memplan, args);
  const inOrt = memplanJson(a.memplan, [...args, '--order', 'onnxruntime', '--no-nodes']);
  const live = new Float64Array(plan.positions + 1);
  for (const v of plan.values)
    if (!v.view && v.size != null && v.start != null)
      for (let p = v.start; p <= Math.min(v.end, plan.positions); p++) live[p] += v.size;
  // Nodes by name, and in order (ONNX Runtime saves the graph in the order it
  // runs it; an unnamed node is found by its place among the nodes not folded).
  const at = new Map(plan.nodes.filter((n) => n.name).map((n) => [n.name, live[n.index]]));
  const ordered = plan.nodes.filter((n) => !n.folded).map((n) => ({ op: n.op_type, live: live[n.index] }));
  return {
    peak: plan.peak_bytes,
    ort_order_peak: inOrt.peak_bytes,
    lower_bound: plan.lower_bound_bytes,
    exact_reuse: plan.strategies?.exact_reuse ?? null, // null: deferred (an op memplan cannot size)
    inputs: plan.inputs.bytes,
    weights: plan.weights.bytes,
    unknown: (plan.unknown ?? []).length,
    at,
    ordered,
  };
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.child) return child(a);
  const { default: ort } = await import('onnxruntime-node');
  const dir = mkdtempSync(join(tmpdir(), 'ort-memory-'));
  const optimized = join(dir, 'optimized.onnx');
  try {
    await ort.InferenceSession.create(a.model, {
      graphOptimizationLevel: a.level,
      optimizedModelFilePath: optimized,
      logSeverityLevel: 3,
    });
    const mp = memplanFigures(a, optimized);
    const rows = [];
    for (const c of a.configs) {
      const argv = [a.model, '--child', c, '--level', a.level, '--runs', String(a.runs)];
      for (const [k, v] of Object.entries(a.dims)) argv.push('--dim', `${k}=${v}`);
      if (a.nodes && c === 'plain') argv.push('--nodes', String(a.nodes));
      const r = runChild(process.argv[1], argv);
      if (r.status !== 0) throw new Error(`${c}: ${r.stderr.toString().trim()}`);
      rows.push(JSON.parse(r.stdout.toString()));
    }
    const report = {
      model: a.model,
      level: a.level,
      dims: a.dims,
      memplan: {
        peak: mp.peak,
        ort_order_peak: mp.ort_order_peak,
        lower_bound: mp.lower_bound,
        exact_reuse: mp.exact_reuse,
        inputs: mp.inputs,
        weights: mp.weights,
        unknown: mp.unknown,
      },
      ort: rows.map((r) => ({
        config: r.config,
        runs: r.runs.map((x) => ({ peak: x.peak, out_bytes: x.out_bytes, ms: Math.round(x.ms) })),
      })),
    };
    if (a.json) return console.log(JSON.stringify(report));
    const f = (b) => (typeof b === 'number' ? (b / MiB).toFixed(1) : '—');
    console.log(
      `${a.model} (level ${a.level}${
        Object.keys(a.dims).length
          ? ', ' +
            Object.entries(a.dims)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')
          : ''
      })`,
    );
    console.log(
      `  memplan: peak ${f(mp.peak)} MiB in the file order, ${f(mp.ort_order_peak)} in ONNX Runtime's; lower bound ${f(mp.lower_bound)}, exact reuse ${f(mp.exact_reuse)}${mp.unknown ? `, ${mp.unknown} unknown` : ''}`,
    );
    for (const r of rows)
      console.log(
        `  ORT ${r.config.padEnd(8)} ${r.runs.map((x, i) => `run ${i + 1}: ${f(x.peak)} MiB (${mp.ort_order_peak ? (x.peak / mp.ort_order_peak).toFixed(2) + 'x' : '—'})`).join(', ')}; outputs ${f(r.runs[0].out_bytes)} MiB`,
      );
    const plain = rows.find((r) => r.nodes);
    if (plain) {
      const over = plain.nodes
        .map((n, i) => ({
          ...n,
          live: mp.at.get(n.name) ?? (mp.ordered[i]?.op === n.op ? mp.ordered[i].live : undefined),
        }))
        .filter((n) => n.live !== undefined)
        .sort((x, y) => y.max - y.live - (x.max - x.live))
        .slice(0, a.nodes);
      for (const n of over)
        console.log(`    ${n.op.padEnd(22)} ${n.name}: resident ${f(n.max)} MiB, memplan live ${f(n.live)} MiB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`ort_memory: ${process.env.ORT_MEMORY_DEBUG ? e.stack : e.message}`);
  process.exit(1);
});
