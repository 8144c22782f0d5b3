// rss_sampler.mjs -- what bench/ort_memory.mjs and bench/ort_workspace.mjs
// share to measure ONNX Runtime's memory from inside the process that runs
// it: a sampler of the process's memory, the child process each measurement
// runs in, ONNX Runtime's profile (which says when each run and each kernel
// ran), inputs for a session, and memplan's CLI.
//
// The sampler is a worker thread that reads /proc/self/status about every
// 0.5 ms until told to stop, VmRSS (the pages resident: what has been
// written) and VmSize (the address space mapped: what has been allocated,
// written or not), each sample stamped with the time origin all threads
// share (performance.timeOrigin + now()), so samples line up with times
// taken on the main thread and with the profile's events.
//
// The child runs under node --expose-gc (so settle() can collect the outputs
// of a run before the next) and with glibc told to map every block of 64 KiB
// or more on its own (MALLOC_MMAP_THRESHOLD_=65536): a large tensor or
// buffer is then a mapping of its own, VmSize moves by its size, and it
// leaves the resident set as soon as it is freed. A smaller block, or one
// glibc can still carve from the heap's free top, does not show.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MiB = 1024 * 1024;
// memplan's CLI as the native build leaves it (--memplan names another).
export const DEFAULT_MEMPLAN = join(ROOT, 'build/native/memplan');

// The process's resident set (rss) and address space (vsz) now, in bytes.
export const readStatus = () => {
  const s = readFileSync('/proc/self/status', 'utf8');
  return {
    rss: Number(/VmRSS:\s+(\d+)/.exec(s)[1]) * 1024,
    vsz: Number(/VmSize:\s+(\d+)/.exec(s)[1]) * 1024,
  };
};

// The time in the clock the sampler stamps its samples with (ms).
export const now = () => performance.timeOrigin + performance.now();

// Collect garbage three times, 5 ms apart (what a dropped output holds goes).
export const settle = async () => {
  for (let k = 0; k < 3; k++) {
    globalThis.gc?.();
    await new Promise((r) => setTimeout(r, 5));
  }
};

// Run a session once and drop its outputs: when the run started and ended
// (in now()'s clock) and the outputs' bytes.
export async function runOnce(session, feeds) {
  const t0 = now();
  let out = await session.run(feeds);
  const t1 = now();
  let outBytes = 0;
  for (const t of Object.values(out)) outBytes += t.data.byteLength;
  for (const t of Object.values(out)) t.dispose?.();
  out = null;
  return { t0, t1, outBytes };
}

// Start the sampler. `await ready` before what is measured; stop() ends it
// and resolves to the samples in time order, each [time ms, VmRSS, VmSize]
// (bytes).
export function startSampler() {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     const { readFileSync } = require('node:fs');
     const { performance } = require('node:perf_hooks');
     const flag = workerData.flag, out = [];
     Atomics.store(flag, 0, 1);
     while (Atomics.load(flag, 0) === 1) {
       const s = readFileSync('/proc/self/status', 'utf8');
       out.push(performance.timeOrigin + performance.now(),
                Number(/VmRSS:\\s+(\\d+)/.exec(s)[1]) * 1024,
                Number(/VmSize:\\s+(\\d+)/.exec(s)[1]) * 1024);
       Atomics.wait(flag, 0, 1, 0.5);
     }
     parentPort.postMessage(out);`,
    { eval: true, workerData: { flag } },
  );
  const ready = (async () => {
    while (Atomics.load(flag, 0) !== 1) await new Promise((r) => setTimeout(r, 2));
  })();
  const stop = () =>
    new Promise((r) => {
      worker.once('message', (flat) => {
        const s = [];
        for (let i = 0; i < flat.length; i += 3) s.push([flat[i], flat[i + 1], flat[i + 2]]);
        r(s);
      });
      Atomics.store(flag, 0, 2);
      Atomics.notify(flag, 0);
    }).finally(() => worker.terminate());
  return { ready, stop };
}

// The samples taken from `from` to `to` (ms), and `pad` more on either side
// (pad 1: the last sample before the window and the first after it, so that
// a window shorter than the sampling interval still holds one).
export function samplesIn(samples, from, to, pad = 0) {
  const first = (pred) => {
    let l = 0,
      h = samples.length;
    while (l < h) {
      const m = (l + h) >> 1;
      if (pred(samples[m][0])) h = m;
      else l = m + 1;
    }
    return l;
  };
  const lo = first((t) => t >= from);
  const hi = first((t) => t > to);
  return samples.slice(Math.max(0, lo - pad), hi + pad);
}

// Inputs of the session's declared types and shapes, symbolic dims bound by
// `dims` (an unbound one is an error). Floating-point inputs take float(),
// the others int() (bool its low bit), or zero when int is not given.
export function makeFeeds(ort, session, { dims = {}, float = Math.random, int = null } = {}) {
  const types = {
    float32: Float32Array,
    float16: Uint16Array,
    float64: Float64Array,
    int8: Int8Array,
    uint8: Uint8Array,
    int16: Int16Array,
    uint16: Uint16Array,
    int32: Int32Array,
    uint32: Uint32Array,
    int64: BigInt64Array,
    uint64: BigUint64Array,
    bool: Uint8Array,
  };
  const feeds = {};
  for (const m of session.inputMetadata) {
    const shape = m.shape.map((d) => {
      if (typeof d === 'number' && d >= 0) return d;
      if (!(d in dims)) throw new Error(`input ${m.name}: bind dim ${d} with --dim ${d}=N`);
      return dims[d];
    });
    const T = types[m.type];
    if (!T) throw new Error(`input ${m.name}: type ${m.type} not handled`);
    const data = new T(shape.reduce((x, y) => x * y, 1));
    if (T === Float32Array || T === Float64Array) for (let i = 0; i < data.length; i++) data[i] = float();
    else if (int && m.type === 'bool') for (let i = 0; i < data.length; i++) data[i] = int() & 1;
    else if (int && m.type.endsWith('int64')) for (let i = 0; i < data.length; i++) data[i] = BigInt(int());
    else if (int && m.type !== 'float16') for (let i = 0; i < data.length; i++) data[i] = int();
    feeds[m.name] = new ort.Tensor(m.type, data, shape);
  }
  return feeds;
}

// A profile for a session: pass `options` to InferenceSession.create; after
// session.endProfiling(), read(runs) gives its events and the model_run event
// of each of the `runs` runs (a run's execution, without the outputs' copies
// into JavaScript after it). remove() deletes the file.
export function openProfile(tag) {
  const dir = mkdtempSync(join(tmpdir(), tag));
  return {
    options: { enableProfiling: true, profileFilePrefix: join(dir, 'p') },
    read(runs) {
      const file = readdirSync(dir).find((f) => f.endsWith('.json'));
      const events = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      const runEvents = events.filter((e) => e.name === 'model_run');
      if (runEvents.length !== runs) throw new Error(`profile has ${runEvents.length} runs, not ${runs}`);
      return { events, runEvents };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// The kernels' events (one a node) within a run's model_run event.
export const kernelEvents = (events, run) =>
  events.filter(
    (e) => e.cat === 'Node' && e.name.endsWith('_kernel_time') && e.ts >= run.ts && e.ts <= run.ts + run.dur,
  );

// Run `node --expose-gc script ...args` with glibc's mmap threshold at 64 KiB
// (spawnSync's result: status, stdout, stderr).
export const runChild = (script, args) =>
  spawnSync(process.execPath, ['--expose-gc', script, ...args], {
    env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '65536' },
    maxBuffer: 1 << 28,
  });

// memplan's CLI at `cli` run with `args` (a --json command), its output parsed.
export function memplanJson(cli, args) {
  try {
    return JSON.parse(execFileSync(cli, args, { maxBuffer: 1 << 30 }).toString());
  } catch (e) {
    if (e.code === 'ENOENT') throw new Error(`no memplan CLI at ${cli} (build it, or name one with --memplan)`);
    throw e;
  }
}
