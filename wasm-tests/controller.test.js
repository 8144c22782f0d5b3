// The visualizer's controller (web/src/app/controller.js) in Node, without a
// DOM: a fake worker client runs the real WebAssembly module and holds each
// request until the test lets it through, so the order answers come back in
// is the test's. Checked with exact values against the native CLI: the
// events and calls of an open, the caches of a re-plan, generations (a stale
// plan or model never lands), cancel, a failed open, plan documents, and the
// frozen state embedders see.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkValue, createController, valueInputs } from '../web/src/app/controller.js';
import { EXAMPLE_SRC } from '../scripts/prepare_web.mjs';
import { formatBytes } from '../web/src/data/format.js';
import { loadMemplan, requireNativeCli } from './helpers.js';
import { convModel, float16Model, qdqConvModel } from './onnx-encode.js';
import { dimArgs, LARGEST, MEDIUM, requireVizFixtures, SMALL, SYMBOLIC } from './viz-fixtures.js';

const cli = (cmd, file, args = []) =>
  JSON.parse(
    execFileSync(requireNativeCli(), [cmd, file, '--json', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 }),
  );
const abortError = (message) => Object.assign(new Error(message), { name: 'AbortError' });
/** Let every promise chain that is not waiting on a held request run to its end. */
const settle = () => new Promise((r) => setTimeout(r, 0));

/**
 * A worker client (memplan-client.js's interface) over the WASM module in
 * this process. hold() makes later requests wait; release(prefix) answers the
 * first waiting one whose description starts with prefix ('open', 'plan
 * --strategy slots', ...); releaseAll() answers them all and stops holding.
 * calls: every model call, 'command args...', in the order asked. A call's
 * onReply runs when it is answered, before it resolves (memplan-client.js).
 */
function fakeClient(mp, { failProfile = null } = {}) {
  const calls = [],
    closed = [],
    queue = [];
  let holding = false,
    generation = 0,
    cancels = 0;
  const finish = (e) => {
    try {
      const out = e.run();
      e.onReply?.(); // as the worker client: the reply has come, not yet parsed
      e.resolve(out);
    } catch (err) {
      e.reject(err);
    }
  };
  const request = (what, run, onReply = null) =>
    new Promise((resolve, reject) => {
      const e = { what, run, resolve, reject, onReply };
      if (holding) queue.push(e);
      else finish(e);
    });
  return {
    version: mp.version,
    calls,
    closed,
    get cancels() {
      return cancels;
    },
    get waiting() {
      return queue.map((e) => e.what);
    },
    hold() {
      holding = true;
    },
    async release(prefix) {
      const k = queue.findIndex((e) => e.what.startsWith(prefix));
      if (k < 0) throw new Error(`no request ${prefix} waits (waiting: ${queue.map((e) => e.what).join('; ')})`);
      finish(queue.splice(k, 1)[0]);
      await settle();
    },
    async releaseAll() {
      holding = false;
      while (queue.length) {
        finish(queue.shift());
        await settle();
      }
    },
    open(bytes, { onProgress } = {}) {
      const gen = generation;
      onProgress?.({ stage: 'parsing', bytes: bytes.byteLength });
      return request('open', () => {
        const model = mp.open(bytes);
        const info = model.info();
        const alive = () => {
          if (gen !== generation) throw abortError('the model was closed when its work was cancelled');
        };
        const call =
          (how) =>
          async (cmd, args = [], opts = {}) => {
            alive();
            const what = [cmd, ...args].join(' ');
            calls.push(what);
            return request(
              what,
              () => {
                if (cmd === 'profile' && failProfile) throw new Error(failProfile);
                return model[how](cmd, args);
              },
              opts.onReply,
            );
          };
        return {
          info,
          call: call('call'),
          callBytes: call('callBytes'),
          close: async () => {
            closed.push(info.graph_name);
            model.close();
            return null;
          },
        };
      });
    },
    cancel() {
      cancels++;
      generation++;
      for (const e of queue.splice(0)) e.reject(abortError('cancelled'));
    },
  };
}

/** The events a controller emits, as 'type' or 'state:phase', in order. */
function record(
  ctl,
  types = ['state', 'progress', 'select', 'info', 'load', 'applied', 'slots', 'profile', 'plan', 'shown', 'error'],
) {
  const log = [];
  for (const t of types) ctl.on(t, (d) => log.push(t === 'state' ? `state:${d}` : t));
  return log;
}

let mp;
const bytesOf = (f) => new Uint8Array(readFileSync(f.file));
beforeAll(async () => {
  requireVizFixtures();
  mp = await loadMemplan();
});
afterEach(() => vi.restoreAllMocks());

describe('controller: opening a model', () => {
  it("runs the open, the plan, the slot plan and the profile in order, and shows the CLI's plan", async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    const events = record(ctl);
    await ctl.open(SMALL.name, bytesOf(SMALL));
    expect(events).toEqual([
      'state:loading',
      'progress',
      'select',
      'info',
      'load',
      'state:planning',
      'applied',
      'slots',
      'state:ready',
      'plan',
      'shown',
    ]);
    // Nothing bound: the profile is the `inplace` document (the same report), not asked for again.
    // The reuse lists and the slot layout are asked for when the plan's reply comes, before it is parsed.
    expect(client.calls).toEqual([
      'plan --strategy arena --align 64',
      'inplace --columns',
      'plan --strategy slots --align 64 --no-nodes --no-at-peak',
    ]);
    const s = ctl.state;
    expect(JSON.stringify(s.profileDoc)).toBe(JSON.stringify(cli('profile', SMALL.file, ['--columns'])));
    expect(JSON.stringify(s.plan)).toBe(JSON.stringify(cli('plan', SMALL.file)));
    // The slot layout beside the arena plan comes without its at_peak (the plan shown has one).
    expect(JSON.stringify(s.slotsPlan)).toBe(
      JSON.stringify(cli('plan', SMALL.file, ['--strategy', 'slots', '--no-at-peak'])),
    );
    expect([...s.profile.total]).toEqual(cli('profile', SMALL.file).nodes.map((nd) => nd.profile.total_bytes));
    expect({
      phase: s.phase,
      name: s.name,
      shownName: s.shownName,
      source: s.source,
      hasModel: s.hasModel,
      busy: s.busy,
      error: s.error,
      shown: s.shown,
    }).toEqual({
      phase: 'ready',
      name: 'timer_v0.1.onnx',
      shownName: 'timer_v0.1.onnx',
      source: 'model',
      hasModel: true,
      busy: false,
      error: null,
      shown: true,
    });
    expect(s.m.peak).toBe(1024);
    expect(s.progress).toMatch(
      new RegExp(`^${formatBytes(statSync(SMALL.file).size).replace('.', '\\.')} · planned · \\d+ ms$`),
    );
    expect(s.info.graph_name).toBe(cli('info', SMALL.file).graph_name);
  });

  it('re-plans from its caches: the node list, the reuse lists and the profile are asked for once', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open(SYMBOLIC.name, bytesOf(SYMBOLIC));
    expect(ctl.state.dimNames).toEqual(['batch_size', 'samples']);
    expect(ctl.state.plan.status).toBe('deferred');
    client.calls.length = 0;
    await ctl.setDims({ samples: 1280 });
    await ctl.fillDims('1'); // only the empty one: batch_size
    expect(ctl.state.dims).toEqual({ samples: '1280', batch_size: '1' });
    const dims = '--dim samples=1280 --dim batch_size=1';
    expect(client.calls).toEqual([
      'plan --strategy arena --align 64 --dim samples=1280 --no-nodes',
      'profile --dim samples=1280 --columns',
      // The plan shown was deferred: the slot layout is asked for once this plan is known planned.
      `plan --strategy arena --align 64 ${dims} --no-nodes`,
      `profile ${dims} --columns`,
      `plan --strategy slots --align 64 ${dims} --no-nodes --no-at-peak`,
    ]);
    expect(JSON.stringify(ctl.state.plan)).toBe(
      JSON.stringify(cli('plan', SYMBOLIC.file, dimArgs({ samples: 1280, batch_size: 1 }))),
    );
    // Strategy, alignment and in-place do not change the profile: not asked again.
    client.calls.length = 0;
    await ctl.setOptions({ align: 256, inplace: true });
    await ctl.setOptions({ strategy: 'slots' });
    // With in-place reuse on, the same plan without it too: its naive total is the savings' baseline (asked once per options).
    expect(client.calls).toEqual([
      `plan --strategy arena --align 256 --inplace ${dims} --no-nodes`,
      `plan --strategy slots --align 256 --inplace ${dims} --no-nodes --no-at-peak`,
      `plan --strategy arena --align 256 ${dims} --no-nodes --no-at-peak`,
      `plan --strategy slots --align 256 --inplace ${dims} --no-nodes`,
      `plan --strategy slots --align 256 ${dims} --no-nodes --no-at-peak`,
    ]);
    expect(ctl.state.baseline.naive_bytes).toBe(
      cli('plan', SYMBOLIC.file, [
        '--strategy',
        'slots',
        '--align',
        '256',
        ...dimArgs({ samples: 1280, batch_size: 1 }),
      ]).naive_bytes,
    );
    expect(JSON.stringify(ctl.state.plan)).toBe(
      JSON.stringify(
        cli('plan', SYMBOLIC.file, [
          '--strategy',
          'slots',
          '--align',
          '256',
          '--inplace',
          ...dimArgs({ samples: 1280, batch_size: 1 }),
        ]),
      ),
    );
    expect(ctl.state.slotsPlan).toBe(ctl.state.plan); // under slots the plan is the slot plan
    expect([...ctl.state.profile.total]).toEqual(
      cli('profile', SYMBOLIC.file, dimArgs({ samples: 1280, batch_size: 1 })).nodes.map(
        (nd) => nd.profile.total_bytes,
      ),
    );
    // Options that are not options change nothing but still re-plan.
    await ctl.setOptions({ strategy: 'best', align: 3 });
    expect([ctl.state.strategy, ctl.state.align, ctl.state.inplace]).toEqual(['slots', 256, true]);
  });

  it("order best: every plan with --order best and its node lists, no per-node profile, reorder() is the CLI's", async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open(SMALL.name, bytesOf(SMALL));
    expect(ctl.state.order).toBe('file');
    expect(await ctl.reorder(), 'no reordered model in the file order').toBe(null);
    client.calls.length = 0;
    await ctl.setOptions({ order: 'best' });
    await ctl.setDims({}); // a re-plan under the same order asks for the node lists again
    expect(client.calls).toEqual([
      'plan --strategy arena --align 64 --order best',
      'plan --strategy slots --align 64 --order best --no-nodes --no-at-peak',
      'plan --strategy arena --align 64 --order best',
      'plan --strategy slots --align 64 --order best --no-nodes --no-at-peak',
    ]);
    expect(JSON.stringify(ctl.state.plan)).toBe(JSON.stringify(cli('plan', SMALL.file, ['--order', 'best'])));
    expect([ctl.state.profile, ctl.state.profileNote]).toEqual([
      null,
      "the per-node profile is in the file order; under another order the chart shows the plan's live bytes",
    ]);
    const bytes = await ctl.reorder();
    const dir = mkdtempSync(join(tmpdir(), 'memplan-reorder-'));
    execFileSync(requireNativeCli(), ['reorder', SMALL.file, '-o', join(dir, 'out.onnx')]);
    const want = readFileSync(join(dir, 'out.onnx'));
    rmSync(dir, { recursive: true, force: true });
    expect(Buffer.from(bytes).equals(want), "reorder() is `memplan reorder`'s bytes").toBe(true);
    expect(client.calls.at(-1)).toBe('reorder --align 64 --order best');
    expect(ctl.snapshot().order).toBe('best');
    await ctl.setOptions({ order: 'beam' }); // not offered: unchanged
    expect(ctl.state.order).toBe('best');
  });

  it("QDQ fused: plans with --fuse-qdq, the CLI's plan, and the chart leaves the as-written profile", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memplan-qdq-'));
    const file = join(dir, 'qdq_conv.onnx');
    writeFileSync(file, qdqConvModel());
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open('qdq_conv.onnx', readFileSync(file));
    expect(ctl.state.profile, 'as written: the per-node profile').not.toBe(null);
    const qdqOf = (s) => s.assumptions.filter((a) => a.kind === 'qdq'); // the Conv's kernel workspace is noted too
    expect(qdqOf(ctl.state).map((a) => [a.kind, a.fused])).toEqual([['qdq', 0]]);
    const fusedCli = cli('plan', file, ['--fuse-qdq']);
    expect(ctl.state.qdqOther, 'the fused reading, planned after').toEqual({
      fused: true,
      peak: fusedCli.peak_bytes,
      total: fusedCli.total_bytes,
      int8Peak: null, // uint8: the same units where int8 QDQ is allowed
    });
    client.calls.length = 0;
    await ctl.setOptions({ fuseQdq: true });
    expect(client.calls[0]).toBe('plan --strategy arena --align 64 --fuse-qdq --no-nodes'); // the node lists kept
    expect(JSON.stringify(ctl.state.plan)).toBe(JSON.stringify(cli('plan', file, ['--fuse-qdq'])));
    expect([ctl.state.plan.peak_bytes, qdqOf(ctl.state)[0].fused, ctl.snapshot().fuseQdq]).toEqual([192, 1, true]);
    expect([ctl.state.profile, ctl.state.profileNote]).toEqual([
      null,
      "the per-node profile is of the graph as written; with QDQ units fused the chart shows the plan's live bytes",
    ]);
    expect(client.calls.at(-1), 'the as-written reading, planned after').toBe(
      'plan --strategy arena --align 64 --no-nodes --no-at-peak',
    );
    expect([ctl.state.qdqOther.fused, ctl.state.qdqOther.peak]).toEqual([false, 1792]);
    await ctl.setOptions({ fuseQdq: false });
    expect([ctl.state.plan.peak_bytes, ctl.state.profileNote]).toEqual([1792, '']);
    expect(ctl.state.profile).not.toBe(null);
    rmSync(dir, { recursive: true, force: true });
  });

  it('QDQ on int8: no unit fuses on x86-64, the peak where int8 QDQ is allowed comes in the note', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memplan-qdq8-'));
    const file = join(dir, 'qdq_conv8.onnx');
    writeFileSync(file, qdqConvModel(false, true));
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open('qdq_conv8.onnx', readFileSync(file));
    expect(
      ctl.state.assumptions.filter((a) => a.kind === 'qdq').map((a) => [a.kind, a.units, a.other, a.fused]),
    ).toEqual([['qdq', 0, 1, 0]]);
    const arm = cli('plan', file, ['--fuse-qdq', '--qdq-int8']);
    expect(arm.qdq_units).toBe(1);
    expect(client.calls.at(-1)).toBe('plan --strategy arena --align 64 --no-nodes --no-at-peak --fuse-qdq --qdq-int8');
    expect(ctl.state.qdqOther).toEqual({ fused: true, peak: null, total: null, int8Peak: arm.peak_bytes });
    expect([ctl.state.plan.peak_bytes, arm.peak_bytes]).toEqual([1792, 192]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("kernel workspace: plans with --workspace, the CLI's plan, and the chart leaves the tensors' profile", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memplan-ws-'));
    const file = join(dir, 'conv.onnx');
    writeFileSync(file, convModel());
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open('conv.onnx', readFileSync(file));
    expect(ctl.state.profile, 'tensors only: the per-node profile').not.toBe(null);
    expect(ctl.state.assumptions.map((a) => [a.kind, a.included, a.nodes])).toEqual([['workspace', false, 1]]);
    expect([ctl.state.workspace, ctl.state.plan.kernel_workspace.lower_bound_bytes]).toEqual([false, 71808]);
    client.calls.length = 0;
    await ctl.setOptions({ workspace: true });
    expect(client.calls[0]).toBe('plan --strategy arena --align 64 --workspace --no-nodes'); // the node lists kept
    expect(client.calls).toContain('plan --strategy slots --align 64 --workspace --no-nodes --no-at-peak');
    expect(JSON.stringify(ctl.state.plan)).toBe(JSON.stringify(cli('plan', file, ['--workspace'])));
    expect([ctl.state.plan.peak_bytes, ctl.state.plan.kernel_workspace.included, ctl.snapshot().workspace]).toEqual([
      71808,
      true,
      true,
    ]);
    expect(ctl.state.assumptions.map((a) => [a.kind, a.included])).toEqual([['workspace', true]]);
    expect([ctl.state.profile, ctl.state.profileNote]).toEqual([
      null,
      "the per-node profile counts tensors; with kernel workspace the chart shows the plan's live bytes",
    ]);
    expect(ctl.planRequest(), 'what a sweep or a compare asks for').toEqual([
      '--strategy',
      'arena',
      '--align',
      '64',
      '--workspace',
    ]);
    await ctl.setOptions({ workspace: false });
    expect([ctl.state.plan.peak_bytes, ctl.state.profileNote, ctl.snapshot().workspace]).toEqual([12544, '', false]);
    expect(ctl.state.profile).not.toBe(null);
    await ctl.setOptions({ workspace: 'yes' }); // not a boolean: unchanged
    expect(ctl.state.workspace).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it("float16 on the CPU: plans with --float16-cpu, the CLI's plan of the graph ONNX Runtime runs, its own node lists, profile and reuse", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memplan-f16-'));
    const file = join(dir, 'f16.onnx');
    writeFileSync(file, float16Model());
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open('f16.onnx', readFileSync(file));
    const f16Of = (s) => s.assumptions.filter((a) => a.kind === 'float16').map((a) => [a.included, a.nodes]);
    expect(ctl.state.profile, 'as written: the per-node profile').not.toBe(null);
    expect([ctl.state.float16Cpu, ctl.state.plan.peak_bytes, ctl.state.plan.onnxruntime_float16.peak_bytes]).toEqual([
      false,
      12288,
      28672,
    ]);
    expect(f16Of(ctl.state)).toEqual([[false, 4]]);
    // The reuse pairs (output -> input) of a graph's `inplace --json`, by the CLI.
    const reuseOfCli = (args) => {
      const plan = cli('plan', file, args);
      const out = {};
      for (const nd of cli('inplace', file, args).nodes)
        for (const r of nd.reuse)
          out[plan.nodes[nd.index].outputs[r.output_index]] = plan.nodes[nd.index].inputs[r.input_index];
      return out;
    };
    const reuseShown = () => Object.fromEntries([...ctl.state.reuse].map(([o, r]) => [o, r.input]));
    const fileReuse = reuseOfCli([]);
    expect(Object.keys(fileReuse).length, "the file's in-place reuse pairs").toBe(4);
    expect(reuseShown()).toEqual(fileReuse);
    const fileProfile = cli('profile', file, ['--columns']);
    expect(JSON.stringify(ctl.state.profileDoc)).toBe(JSON.stringify(fileProfile));
    expect(ctl.state.profile.total.length).toBe(6);
    client.calls.length = 0;
    await ctl.setOptions({ float16Cpu: true });
    // another graph: its node lists come with its first plan, its in-place document (nothing bound: its profile) too
    expect(client.calls).toEqual([
      'plan --strategy arena --align 64 --float16-cpu',
      'inplace --columns --float16-cpu',
      'plan --strategy slots --align 64 --float16-cpu --no-nodes --no-at-peak',
    ]);
    const cpu = cli('plan', file, ['--float16-cpu']);
    expect(JSON.stringify(ctl.state.plan)).toBe(JSON.stringify(cpu));
    expect([ctl.state.plan.peak_bytes, ctl.state.plan.onnxruntime_cpu_graph.casts, ctl.snapshot().float16Cpu]).toEqual([
      28672,
      4,
      true,
    ]);
    expect(f16Of(ctl.state)).toEqual([[true, 6]]);
    expect(ctl.state.m.nodes.length).toBe(10);
    expect(ctl.rows('values').map((r) => r.name)).toContain('InsertedPrecisionFreeCast_x');
    // that graph's per-node profile (its 10 nodes, the inserted Casts first) and in-place reuse pairs
    const cpuProfile = cli('profile', file, ['--columns', '--float16-cpu']);
    expect(JSON.stringify(ctl.state.profileDoc)).toBe(JSON.stringify(cpuProfile));
    expect(JSON.stringify(ctl.state.profileDoc)).not.toBe(JSON.stringify(fileProfile));
    expect([ctl.state.profileNote, ctl.state.profile.ok, ctl.state.profile.total.length]).toEqual(['', true, 10]);
    expect([...ctl.state.profile.total]).toEqual(
      cli('profile', file, ['--float16-cpu']).nodes.map((nd) => nd.profile.total_bytes),
    );
    expect([...ctl.state.profile.total]).toEqual([
      13464, 15768, 23960, 21656, 29848, 29848, 29848, 29848, 29848, 21656,
    ]);
    expect(ctl.state.m.nodes[0].name).toBe('InsertedPrecisionFreeCast_x');
    const cpuReuse = reuseOfCli(['--float16-cpu']);
    expect(Object.keys(cpuReuse).length).toBe(6);
    expect(reuseShown()).toEqual(cpuReuse);
    expect(ctl.planRequest(), 'what a sweep or a compare asks for').toEqual([
      '--strategy',
      'arena',
      '--align',
      '64',
      '--float16-cpu',
    ]);
    client.calls.length = 0;
    await ctl.setOptions({ float16Cpu: false });
    // the file graph's node lists, in-place document and profile kept: not asked for again
    expect(client.calls).toEqual([
      'plan --strategy arena --align 64 --no-nodes',
      'plan --strategy slots --align 64 --no-nodes --no-at-peak',
    ]);
    expect(JSON.stringify(ctl.state.plan)).toBe(JSON.stringify(cli('plan', file)));
    expect([ctl.state.plan.peak_bytes, ctl.state.profileNote, ctl.snapshot().float16Cpu]).toEqual([12288, '', false]);
    expect(ctl.state.m.nodes.length).toBe(6);
    expect(JSON.stringify(ctl.state.profileDoc)).toBe(JSON.stringify(fileProfile));
    expect(ctl.state.profile.total.length).toBe(6);
    expect(reuseShown()).toEqual(fileReuse);
    client.calls.length = 0;
    await ctl.setOptions({ float16Cpu: true, strategy: 'slots' });
    expect(client.calls, "and that graph's").toEqual(['plan --strategy slots --align 64 --float16-cpu --no-nodes']);
    expect(JSON.stringify(ctl.state.plan)).toBe(
      JSON.stringify(cli('plan', file, ['--strategy', 'slots', '--float16-cpu'])),
    );
    expect(JSON.stringify(ctl.state.profileDoc)).toBe(JSON.stringify(cpuProfile));
    expect(reuseShown()).toEqual(cpuReuse);
    await ctl.setOptions({ float16Cpu: 'yes' }); // not a boolean: unchanged
    expect(ctl.state.float16Cpu).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('float16 on the CPU with dims bound: the profile and in-place document of each graph, asked once each', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    const bound = { batch_size: 1, samples: 1280 };
    await ctl.open(SYMBOLIC.name, bytesOf(SYMBOLIC), { dims: bound });
    const dims = '--dim batch_size=1 --dim samples=1280';
    const fileProfile = cli('profile', SYMBOLIC.file, [...dimArgs(bound), '--columns']);
    expect(JSON.stringify(ctl.state.profileDoc)).toBe(JSON.stringify(fileProfile));
    const fileDoc = ctl.state.profileDoc;
    client.calls.length = 0;
    await ctl.setOptions({ float16Cpu: true });
    expect(client.calls).toEqual([
      `plan --strategy arena --align 64 --float16-cpu ${dims}`,
      'inplace --columns --float16-cpu',
      `plan --strategy slots --align 64 --float16-cpu ${dims} --no-nodes --no-at-peak`,
      `profile ${dims} --columns --float16-cpu`,
    ]);
    const cpuDoc = ctl.state.profileDoc;
    expect(cpuDoc).not.toBe(fileDoc); // its own document (no float16 nodes here: the same figures)
    expect(JSON.stringify(cpuDoc)).toBe(
      JSON.stringify(cli('profile', SYMBOLIC.file, [...dimArgs(bound), '--columns', '--float16-cpu'])),
    );
    expect([ctl.state.profileNote, ctl.state.profile.ok]).toEqual(['', true]);
    // back and forth: each graph's own, from the caches
    client.calls.length = 0;
    await ctl.setOptions({ float16Cpu: false });
    expect(ctl.state.profileDoc).toBe(fileDoc);
    await ctl.setOptions({ float16Cpu: true });
    expect(ctl.state.profileDoc).toBe(cpuDoc);
    expect(client.calls.filter((c) => !c.startsWith('plan '))).toEqual([]);
  });

  it('a profile that fails is a note under the memory chart, not an error', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const ctl = createController(fakeClient(mp, { failProfile: 'the profile broke' }));
    await ctl.open(SYMBOLIC.name, bytesOf(SYMBOLIC), { dims: { batch_size: 1, samples: 1280 } }); // bound: a profile call of its own
    expect([ctl.state.phase, ctl.state.error, ctl.state.profile, ctl.state.profileNote]).toEqual([
      'ready',
      null,
      null,
      'no profile: the profile broke',
    ]);
  });

  it('a symbolic profile is not stacked: the note names the unbound dims', async () => {
    const ctl = createController(fakeClient(mp));
    await ctl.open(SYMBOLIC.name, bytesOf(SYMBOLIC));
    expect(ctl.state.profile.ok).toBe(false);
    expect(ctl.state.profileNote).toBe(
      "stacking by tag needs every dim bound (the profile is symbolic: batch_size, samples unbound); showing the plan's live bytes",
    );
  });
});

describe('controller: generations', () => {
  it('a plan that comes back after a newer re-plan started never lands, whichever answers first', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open(SYMBOLIC.name, bytesOf(SYMBOLIC));
    await ctl.setDims({ batch_size: 1, samples: 1280 });
    const applied = [];
    ctl.on('applied', (s) => applied.push(s.plan.peak_bytes));
    const plans = [];
    ctl.on('plan', (p) => plans.push(p));
    client.hold();
    const a = ctl.setDims({ samples: 3200 }); // re-plan A waits for its plan
    await settle();
    const b = ctl.setDims({ samples: 4800 }); // re-plan B starts: A is stale
    await settle();
    expect(client.waiting).toEqual([
      'plan --strategy arena --align 64 --dim batch_size=1 --dim samples=3200 --no-nodes',
      'plan --strategy arena --align 64 --dim batch_size=1 --dim samples=4800 --no-nodes',
    ]);
    await client.release('plan --strategy arena --align 64 --dim batch_size=1 --dim samples=3200'); // A's answer first: dropped
    expect(await Promise.race([a, settle().then(() => 'pending')])).toBe(undefined);
    expect(applied).toEqual([]);
    expect(ctl.state.phase).toBe('planning');
    await client.releaseAll();
    await b;
    const want = cli('plan', SYMBOLIC.file, dimArgs({ batch_size: 1, samples: 4800 }));
    expect(JSON.stringify(ctl.state.plan)).toBe(JSON.stringify(want));
    expect(applied).toEqual([want.peak_bytes]);
    expect(plans.map((p) => p.peak_bytes)).toEqual([want.peak_bytes]);
    expect(ctl.state.slotsPlan.peak_bytes).toBe(
      cli('plan', SYMBOLIC.file, ['--strategy', 'slots', ...dimArgs({ batch_size: 1, samples: 4800 })]).peak_bytes,
    );
    expect(ctl.state.phase).toBe('ready');
  });

  it('the slot plan and profile of a re-plan use the dims of its plan, even when a dim is typed meanwhile', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open(SYMBOLIC.name, bytesOf(SYMBOLIC));
    await ctl.setDims({ batch_size: 1, samples: 1280 });
    client.calls.length = 0;
    client.hold();
    const a = ctl.setDims({ samples: 3200 });
    await settle();
    ctl.setDim('samples', '4800'); // typed: no re-plan yet
    await client.releaseAll();
    await a;
    expect(client.calls).toEqual([
      'plan --strategy arena --align 64 --dim batch_size=1 --dim samples=3200 --no-nodes',
      'plan --strategy slots --align 64 --dim batch_size=1 --dim samples=3200 --no-nodes --no-at-peak',
      'profile --dim batch_size=1 --dim samples=3200 --columns',
    ]);
    expect(ctl.state.plan.peak_bytes).toBe(
      cli('plan', SYMBOLIC.file, dimArgs({ batch_size: 1, samples: 3200 })).peak_bytes,
    );
    expect(ctl.state.dims.samples).toBe('4800');
  });

  it('replanSoon: typing in two inputs within the pause re-plans once, with both; pending until it starts', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open(SYMBOLIC.name, bytesOf(SYMBOLIC));
    await ctl.setDims({ batch_size: 1, samples: 1280 });
    client.calls.length = 0;
    expect(ctl.pending).toBe(false);
    ctl.setDim('batch_size', '2');
    ctl.replanSoon(20);
    ctl.setDim('samples', '3200');
    ctl.replanSoon(20);
    expect(ctl.pending).toBe(true);
    expect(client.calls).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    await settle();
    expect(ctl.pending).toBe(false);
    expect(client.calls.filter((c) => c.startsWith('plan --strategy arena'))).toEqual([
      'plan --strategy arena --align 64 --dim batch_size=2 --dim samples=3200 --no-nodes',
    ]);
    ctl.replanSoon(1000);
    ctl.destroy(); // a re-plan still waiting never starts
    expect(ctl.pending).toBe(false);
  });

  it('a model whose open is overtaken by a newer open is closed, never shown', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    const loads = [];
    ctl.on('load', (d) => loads.push(d.name));
    client.hold();
    const first = ctl.open(MEDIUM.name, bytesOf(MEDIUM));
    await settle();
    const second = ctl.open(SMALL.name, bytesOf(SMALL));
    await settle();
    expect(ctl.state.name).toBe(SMALL.name);
    await client.release('open'); // MEDIUM's model: too late
    expect(await first).toBe(undefined);
    expect(client.closed).toEqual([cli('info', MEDIUM.file).graph_name]);
    await client.releaseAll();
    await second;
    expect(loads).toEqual([SMALL.name]);
    expect([ctl.state.shownName, ctl.state.plan.peak_bytes]).toEqual([SMALL.name, 1024]);
  });
});

describe('controller: cancel and errors', () => {
  it('cancel during a re-plan: the worker is told, the view says so, the late answer is dropped and nothing re-plans', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open(SMALL.name, bytesOf(SMALL));
    const before = ctl.state.plan;
    const errors = [],
      phases = [];
    ctl.on('error', (e) => errors.push(e));
    ctl.on('state', (p) => phases.push(p));
    client.hold();
    const p = ctl.setOptions({ align: 256 });
    await settle();
    ctl.cancel();
    await p;
    await settle();
    const s = ctl.state;
    expect(client.cancels).toBe(1);
    expect(phases).toEqual(['planning', 'error']);
    const msg = 'timer_v0.1.onnx: cancelled. Open a model again (or pick a saved plan) to go on.';
    expect(errors).toEqual([msg]);
    expect({
      phase: s.phase,
      error: s.error,
      progress: s.progress,
      busy: s.busy,
      hasModel: s.hasModel,
      shown: s.shown,
    }).toEqual({ phase: 'error', error: msg, progress: '', busy: false, hasModel: false, shown: false }); // the charts of a closed model are not left up
    expect(s.plan).toBe(before); // the state keeps the plan it had
    client.calls.length = 0;
    expect(await ctl.setDims({ x: 1 })).toBe(undefined);
    expect(await ctl.annotate()).toBe(null);
    expect(client.calls).toEqual([]);
  });

  it('a model that cannot be opened: the promise rejects with the C message, the title goes back to what the charts show', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const ctl = createController(fakeClient(mp));
    await ctl.open(SMALL.name, bytesOf(SMALL));
    const plan = ctl.state.plan;
    const names = [];
    ctl.on('status', (s) => names.push(s.name));
    const msg = 'malformed protobuf at byte 0: field onnx.ModelProto.ir_version (1) has wire type 2, expected 0';
    await expect(ctl.open('junk.onnx', new Uint8Array([0x0a, 0xff, 0xff, 0xff]))).rejects.toThrow(msg);
    const s = ctl.state;
    expect({
      phase: s.phase,
      name: s.name,
      shownName: s.shownName,
      error: s.error,
      hasModel: s.hasModel,
      busy: s.busy,
    }).toEqual({
      phase: 'error',
      name: SMALL.name,
      shownName: SMALL.name,
      error: `junk.onnx: this is not an ONNX model (${msg})`,
      hasModel: true,
      busy: false,
    });
    expect(s.plan).toBe(plan);
    expect(s.shown, 'the model before is still open: shown again').toBe(true);
    expect([...new Set(names)]).toEqual(['junk.onnx', SMALL.name]);
  });

  it('annotate returns the bytes `memplan annotate` writes', async () => {
    const ctl = createController(fakeClient(mp));
    await ctl.open(SMALL.name, bytesOf(SMALL));
    const bytes = await ctl.annotate();
    const ref = (await loadMemplan()).open(bytesOf(SMALL));
    expect(Buffer.from(bytes).equals(Buffer.from(ref.callBytes('annotate', [])))).toBe(true);
    ref.close();
  });
});

describe('controller: plan documents, the table, the selection', () => {
  it('showPlan refuses a document that is not a plan before changing anything', async () => {
    const ctl = createController(fakeClient(mp));
    await ctl.open(SMALL.name, bytesOf(SMALL));
    const before = ctl.state;
    for (const doc of [null, 'plan', { values: [] }, { status: 'planned' }]) {
      expect(() => ctl.showPlan(doc)).toThrow(
        new TypeError('not a plan document: expected the output of `memplan plan --json`'),
      );
    }
    expect(ctl.state).toBe(before);
  });

  it('showPlan shows a saved plan without a model: no worker calls, a note instead of the profile', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open(SMALL.name, bytesOf(SMALL));
    client.calls.length = 0;
    const doc = cli('plan', MEDIUM.file, dimArgs(MEDIUM.dims));
    const events = record(ctl);
    ctl.showPlan(doc, 'saved.json');
    expect(events).toEqual(['select', 'info', 'applied', 'state:ready', 'plan']); // shown already: no 'shown'
    expect(ctl.state.shown).toBe(true);
    const s = ctl.state;
    expect({
      phase: s.phase,
      name: s.name,
      shownName: s.shownName,
      source: s.source,
      hasModel: s.hasModel,
      progress: s.progress,
      profileNote: s.profileNote,
    }).toEqual({
      phase: 'ready',
      name: 'saved.json',
      shownName: 'saved.json',
      source: 'plan',
      hasModel: false,
      progress: `plan document · ${doc.values.length} values`,
      profileNote: 'a plan document has no per-node profile (open the model to stack by tag)',
    });
    expect(s.plan).toBe(doc);
    expect(s.slotsPlan).toBe(null); // an arena plan document has no slot plan with it
    await ctl.setDims({ x: 1 });
    expect(client.calls).toEqual([]);
  });

  it('opens on the positions a runtime runs when nodes folded at load come first; a re-plan keeps the zoom, another model resets it', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open(LARGEST.name, bytesOf(LARGEST), { dims: LARGEST.dims });
    // PP-OCRv4 rec: 765 positions; 340 nodes folded at load (its 325 Constants and 15 folded
    // shape computations), positions 0-233 all of them; the last node runs.
    const doc = cli('plan', LARGEST.file, dimArgs(LARGEST.dims));
    const folded = doc.nodes.flatMap((n, p) => (n.folded ? [p] : []));
    expect([doc.positions, folded.length, doc.nodes.findIndex((n) => !n.folded)]).toEqual([765, 340, 234]);
    expect(ctl.state.m.runSpan).toEqual({ start: 234, end: 765, before: 234, after: 0 });
    expect(ctl.linked.domain()).toEqual([234, 765]);
    expect(ctl.linked.fullDomain).toEqual([0, 765]);
    // A re-plan (another width): the same model, the zoom the user chose stays.
    ctl.linked.setXDomain([300, 400]);
    const nodes = ctl.state.m.nodes;
    await ctl.setDims({ ...LARGEST.dims, [Object.keys(LARGEST.dims)[1]]: 640 });
    // The first plan's node list is used again.
    expect(client.calls.filter((c) => c.startsWith('plan --strategy arena')).at(-1)).toMatch(/=640 --no-nodes$/);
    expect(ctl.state.m.nodes).toBe(nodes);
    expect(ctl.linked.domain()).toEqual([300, 400]);
    // Another model: every position, none folded (the wake-word head).
    await ctl.open(SMALL.name, bytesOf(SMALL));
    expect([ctl.state.m.runSpan, ctl.linked.xDomain, ctl.linked.domain()]).toEqual([null, null, [0, 8]]);
  });

  it('the table view filters by regular expression and sorts; a bad pattern matches as text', async () => {
    const ctl = createController(fakeClient(mp));
    await ctl.open(MEDIUM.name, bytesOf(MEDIUM));
    await ctl.setDims(MEDIUM.dims);
    const plan = cli('plan', MEDIUM.file, dimArgs(MEDIUM.dims));
    ctl.setTable({ tab: 'nodes', filter: '^Conv$' });
    let t = ctl.tableView();
    expect([t.which, t.rows.length, t.all, t.error]).toEqual([
      'nodes',
      plan.nodes.filter((nd) => nd.op_type === 'Conv').length,
      plan.nodes.length,
      null,
    ]);
    ctl.setTable({ tab: 'values', filter: '', sortKey: 'size', sortDir: -1 });
    t = ctl.tableView();
    const sizes = plan.values.map((v) => v.size ?? -1).sort((a, b) => b - a);
    expect(t.rows.map((r) => r.size ?? -1)).toEqual(sizes);
    ctl.setTable({ filter: 'conv2d_[0-3' });
    t = ctl.tableView();
    expect([t.rows.length, t.error]).toEqual([
      0,
      'Invalid regular expression: /conv2d_[0-3/i: Unterminated character class',
    ]);
    // Reuse lists, by output, in the value rows: from `inplace --json`.
    const doc = cli('inplace', MEDIUM.file);
    const want = new Map();
    for (const nd of doc.nodes)
      for (const r of nd.reuse)
        want.set(
          plan.nodes[nd.index].outputs[r.output_index],
          `${plan.nodes[nd.index].inputs[r.input_index]} (${r.kind})`,
        );
    expect(want.size).toBeGreaterThan(0);
    for (const r of ctl.rows('values')) expect(r.reuses).toBe(want.get(r.name) ?? '');
  });

  it('selecting a value finds its producer and consumers; a plan without it clears the selection', async () => {
    const ctl = createController(fakeClient(mp));
    await ctl.open(SMALL.name, bytesOf(SMALL));
    const plan = cli('plan', SMALL.file);
    const selected = [];
    ctl.on('select', (n) => selected.push(n));
    const v = plan.values[1];
    ctl.select(v.name);
    expect(ctl.state.links).toEqual({
      producer: plan.nodes.find((nd) => nd.outputs.includes(v.name)).index,
      consumers: plan.nodes.filter((nd) => nd.inputs.includes(v.name)).map((nd) => nd.index),
    });
    expect(ctl.producer(v.name).op).toBe(plan.nodes.find((nd) => nd.outputs.includes(v.name)).op_type);
    expect(ctl.snapshot().selected).toBe(v.name);
    ctl.showPlan(cli('plan', MEDIUM.file, dimArgs(MEDIUM.dims)));
    expect(selected).toEqual([v.name, null]);
    expect(ctl.state.links).toBe(null);
  });
});

describe('controller: the state is frozen', () => {
  it('state, dims, snapshots, event details and plans cannot be changed by whoever holds them', async () => {
    const ctl = createController(fakeClient(mp));
    let planEvent = null,
      loadEvent = null;
    ctl.on('plan', (p) => {
      planEvent = p;
    });
    ctl.on('load', (d) => {
      loadEvent = d;
    });
    await ctl.open(SMALL.name, bytesOf(SMALL));
    const s = ctl.state;
    expect(() => {
      s.strategy = 'slots';
    }).toThrow(TypeError);
    expect(() => {
      s.dims.x = '1';
    }).toThrow(TypeError);
    expect(() => {
      s.table.tab = 'nodes';
    }).toThrow(TypeError);
    const snap = ctl.snapshot();
    expect(Object.keys(snap)).toEqual([
      'phase',
      'name',
      'shownName',
      'source',
      'hasModel',
      'status',
      'strategy',
      'align',
      'inplace',
      'shareKv',
      'fuseQdq',
      'workspace',
      'float16Cpu',
      'order',
      'dims',
      'dimNames',
      'values',
      'selected',
      'busy',
      'progress',
      'error',
    ]);
    expect(() => {
      snap.name = 'x';
    }).toThrow(TypeError);
    expect(() => {
      planEvent.values[0].size = 1;
    }).toThrow(TypeError);
    expect(() => {
      planEvent.nodes[0].inputs.push('x');
    }).toThrow(TypeError);
    expect(() => {
      loadEvent.info.nodes = 0;
    }).toThrow(TypeError);
    expect(ctl.state).toBe(s); // nothing happened
    await ctl.setOptions({ strategy: 'slots' });
    expect([s.strategy, ctl.state.strategy]).toEqual(['arena', 'slots']); // a new state, the old one as it was
  });

  it('a dim may be called __proto__', async () => {
    const ctl = createController(fakeClient(mp));
    await ctl.open(SMALL.name, bytesOf(SMALL));
    await ctl.setDims({ __proto__: 3 });
    expect(Object.keys(ctl.state.dims)).toEqual([]); // an object literal's __proto__ is its prototype, not a key
    await ctl.setDims(JSON.parse('{"__proto__": 3}'));
    expect(Object.entries(ctl.state.dims)).toEqual([['__proto__', '3']]);
    expect(ctl.state.dimNames).toEqual(['__proto__']);
  });
});

describe('controller: input values and presets', () => {
  const silero = { file: EXAMPLE_SRC, name: 'silero_vad.onnx' };
  const dims = { 'input:0': 1, 'input:1': 512, 'state:1': 1 };

  it("offers a value for each integer or bool input of at most 64 elements, and checks what is typed in the page's words", () => {
    const info = {
      inputs: [
        { name: 'sr', dtype: 'int64', shape: [] },
        { name: 'x', dtype: 'float', shape: [] },
        { name: 'ids', dtype: 'int32', shape: [2, 3] },
        { name: 'big', dtype: 'int64', shape: [65] },
        { name: 'flag', dtype: 'bool', shape: [1] },
        { name: 'sym', dtype: 'int64', shape: [null] },
      ],
    };
    const inputs = valueInputs(info);
    expect(inputs.map((v) => [v.name, v.count])).toEqual([
      ['sr', 1],
      ['ids', 6],
      ['flag', 1],
    ]);
    expect(valueInputs(cli('info', EXAMPLE_SRC)).map((v) => v.name)).toEqual(['sr']);
    const [sr, ids, flag] = inputs;
    expect([
      checkValue(sr, ''),
      checkValue(sr, '16000'),
      checkValue(sr, ' -3 '),
      checkValue(flag, 'true'),
      checkValue(ids, '1,2,3,4,5,6'),
    ]).toEqual([null, null, null, null, null]);
    expect(checkValue(sr, '16k')).toBe('sr takes whole numbers; "16k" is not one');
    expect(checkValue(sr, '1.5')).toBe('sr takes whole numbers; "1.5" is not one');
    expect(checkValue(flag, 'yes')).toBe('flag takes true or false; "yes" is not one');
    expect(checkValue(sr, '1,2')).toBe('sr holds 1 value (shape []); 2 given');
    expect(checkValue(ids, '1,2')).toBe('ids holds 6 values (shape [2, 3]); 2 given');
  });

  it('open() with a preset plans once, already with the dims and values; a value it cannot send is left out', async () => {
    const client = fakeClient(mp);
    const ctl = createController(client);
    await ctl.open(silero.name, new Uint8Array(readFileSync(silero.file)), { dims, values: { sr: 16000 } });
    const args = [...dimArgs(dims), '--value', 'sr=16000'];
    expect(client.calls).toEqual([
      `plan --strategy arena --align 64 ${args.join(' ')}`,
      'inplace --columns',
      `plan --strategy slots --align 64 ${args.join(' ')} --no-nodes --no-at-peak`,
      `profile ${args.join(' ')} --columns`,
    ]);
    expect(JSON.stringify(ctl.state.plan)).toBe(JSON.stringify(cli('plan', silero.file, args)));
    expect(ctl.state.plan.status).toBe('planned');
    expect(ctl.snapshot().values).toEqual({ sr: '16000' });
    client.calls.length = 0;
    ctl.setValue('sr', '16k');
    expect(ctl.valueError('sr')).toBe('sr takes whole numbers; "16k" is not one');
    await ctl.replan();
    expect(client.calls[0]).toBe(`plan --strategy arena --align 64 ${dimArgs(dims).join(' ')} --no-nodes`);
    expect(ctl.state.plan.status).toBe('deferred'); // sr unknown: the 8 kHz branch cannot be sized
    await ctl.setValues({ sr: 8000 });
    expect(JSON.stringify(ctl.state.plan)).toBe(
      JSON.stringify(cli('plan', silero.file, [...dimArgs(dims), '--value', 'sr=8000'])),
    );
  });
});
