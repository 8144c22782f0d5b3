#!/usr/bin/env node
// ort_check.mjs -- memplan's shapes of one model against ONNX Runtime's.
//
//   node scripts/ort_check.mjs MODEL [--dim NAME=VALUE ...] [--value NAME=V[,V...] ...]
//                              [--take NODE=then|else ...]
//
// What wasm-tests/ort-shapes.test.js does for the npm fixtures, for any model:
// scripts/expose_values.py writes a copy whose every main-graph value is a
// graph output (--take first replaces an If by the branch it names), ONNX
// Runtime (onnxruntime-node, a dev dependency) runs it on inputs of the shapes
// `memplan shapes MODEL --dim ... --value ...` gives the graph inputs (floats: a
// sine pattern; integers: the --value given, else 1..100), and each value it
// returns is compared with ours (element type and dims; with --take also the
// values the plan lists in the bodies it counts: activations, not constants). Prints one line per
// value that differs or that we leave unknown, then a summary; exits 1 when a
// value differs, 2 when the model cannot be run. The native CLI is
// build/native/memplan (MEMPLAN_CLI overrides). Graph optimisations are off,
// so every value is computed as the model writes it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ort from 'onnxruntime-node';
import { ROOT } from './list_fixtures.mjs';

const CLI = resolve(ROOT, process.env.MEMPLAN_CLI || 'build/native/memplan');
const ORT_TYPE = {
  float32: 'float',
  float64: 'double',
  float16: 'float16',
  int64: 'int64',
  int32: 'int32',
  int16: 'int16',
  int8: 'int8',
  uint8: 'uint8',
  uint16: 'uint16',
  bool: 'bool',
};
const FEED = {
  float: ['float32', Float32Array],
  double: ['float64', Float64Array],
  int64: ['int64', BigInt64Array],
  int32: ['int32', Int32Array],
};

function usage(msg) {
  console.error(
    `ort_check.mjs: ${msg}\nusage: node scripts/ort_check.mjs MODEL [--dim N=V ...] [--value N=V[,V...] ...] [--take NODE=then|else ...]`,
  );
  process.exit(2);
}

const [model, ...rest] = process.argv.slice(2);
if (!model) usage('no model');
const args = [],
  take = [],
  values = {};
for (let i = 0; i < rest.length; i += 2) {
  const [flag, v] = [rest[i], rest[i + 1]];
  if (v === undefined) usage(`${flag} needs a value`);
  if (flag === '--take') take.push('--take', v);
  else if (flag === '--dim' || flag === '--value') {
    args.push(flag, v);
    if (flag === '--value') values[v.slice(0, v.lastIndexOf('='))] = v.slice(v.lastIndexOf('=') + 1).split(',');
  } else usage(`unknown option ${flag}`);
}

const dir = mkdtempSync(join(tmpdir(), 'memplan-ort-'));
try {
  const exposed = join(dir, 'exposed.onnx');
  execFileSync('/usr/bin/python3', [join(ROOT, 'scripts/expose_values.py'), model, exposed, ...take], {
    stdio: 'inherit',
  });
  const ours = new Map(
    JSON.parse(execFileSync(CLI, ['shapes', model, ...args, '--json'], { maxBuffer: 1 << 30 }).toString()).values.map(
      (v) => [v.name, v],
    ),
  );
  if (take.length) {
    // the taken branch's values: the plan lists those of the bodies it counts (activations only)
    const walk = (plan) => {
      for (const v of plan.values) if (!ours.has(v.name)) ours.set(v.name, v);
      for (const b of plan.subgraphs ?? []) if (b.counted) walk(b.plan);
    };
    walk(
      JSON.parse(
        execFileSync(CLI, ['plan', model, ...args, '--no-nodes', '--json'], { maxBuffer: 1 << 30 }).toString(),
      ),
    );
  }
  const session = await ort.InferenceSession.create(exposed, {
    graphOptimizationLevel: 'disabled',
    logSeverityLevel: 3,
  });
  const feeds = {};
  for (const name of session.inputNames) {
    const v = ours.get(name);
    if (!v || !v.shape || v.shape.some((d) => typeof d !== 'number'))
      usage(
        `input ${name} has no known shape (${v ? JSON.stringify(v.shape) : 'not listed'}): bind its dims with --dim`,
      );
    const [type, T] = FEED[v.dtype] ?? usage(`input ${name}: no feed for ${v.dtype}`);
    const n = v.shape.reduce((a, b) => a * b, 1);
    const given = values[name];
    const at = (i) =>
      given ? Number(given[i % given.length]) : type.startsWith('float') ? Math.sin(i * 0.37) / 2 : 1 + (i % 100);
    feeds[name] = new ort.Tensor(
      type,
      T.from({ length: n }, (_, i) => (T === BigInt64Array ? BigInt(at(i)) : at(i))),
      v.shape,
    );
  }
  let got;
  try {
    got = await session.run(feeds);
  } catch (e) {
    console.error(`ort_check.mjs: ONNX Runtime cannot run the model with these inputs: ${e.message}`);
    process.exit(2);
  }
  await session.release();
  let compared = 0,
    unknown = 0,
    absent = 0,
    differ = 0;
  for (const [name, t] of Object.entries(got)) {
    const v = ours.get(name);
    const theirs = `${ORT_TYPE[t.type] ?? t.type}${JSON.stringify([...t.dims])}`;
    if (!v) absent++;
    else if (!v.shape || v.shape.some((d) => typeof d !== 'number')) {
      unknown++;
      console.log(
        `unknown  ${name}: ours ${v.dtype}${JSON.stringify(v.shape)}${v.reason ? ` (${v.reason})` : ''}, ONNX Runtime ${theirs}`,
      );
    } else {
      compared++;
      const mine = `${v.dtype}${JSON.stringify(v.shape)}`;
      if (mine !== theirs) {
        differ++;
        console.log(`DIFFERS  ${name}: ours ${mine}, ONNX Runtime ${theirs}`);
      }
    }
  }
  console.log(
    `${model}: ${Object.keys(got).length} values returned, ${compared} compared, ${differ} differ, ` +
      `${unknown} unknown to us, ${absent} not listed by us`,
  );
  process.exitCode = differ ? 1 : 0;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
