// ort_compare.mjs -- memplan's shapes against the tensors ONNX Runtime
// computes, shared by wasm-tests/ort-shapes.test.js (through WASM) and
// scripts/ort_check.mjs (through the native CLI).
//
//   exposeValues(model, out, take)  scripts/expose_values.py: a copy whose every
//                                   main-graph value is an output (take: ['NODE=then', ...])
//   ourValues(call, args, deep)     our values by name; call(command, args) gives
//                                   the parsed JSON of `memplan COMMAND MODEL ARGS`
//   runExposed(exposed, ours, values)  ONNX Runtime's values, inputs of our shapes
//   compareValues(got, ours)        {returned, compared, absent, unknown, differ}
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { ROOT } from './list_fixtures.mjs';

/** ONNX Runtime's element type names -> ours. */
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
/** Ours -> the tensor type and array a feed is made of. */
const FEED = {
  float: ['float32', Float32Array],
  double: ['float64', Float64Array],
  int64: ['int64', BigInt64Array],
  int32: ['int32', Int32Array],
};

export function exposeValues(model, out, take = []) {
  execFileSync('/usr/bin/python3', [
    join(ROOT, 'scripts/expose_values.py'),
    model,
    out,
    ...take.flatMap((t) => ['--take', t]),
  ]);
}

/** The main graph's values from `shapes`; with `deep` (a taken If branch) also
 * those of the bodies the plan counts (activations only, not constants). */
export function ourValues(call, args, deep) {
  const byName = new Map(call('shapes', args).values.map((v) => [v.name, v]));
  const walk = (plan) => {
    for (const v of plan.values) if (!byName.has(v.name)) byName.set(v.name, v);
    for (const b of plan.subgraphs ?? []) if (b.counted) walk(b.plan);
  };
  if (deep) walk(call('plan', [...args, '--no-nodes']));
  return byName;
}

const known = (v) => v.shape !== null && v.shape.every((d) => typeof d === 'number');

/** Run the exposed copy on inputs of the shapes we give them (floats: a sine
 * pattern; integers: `values[name]` (a number or a list, cycled), else 1..100)
 * with graph optimisations off, so every value is computed as the model writes
 * it. Throws when an input has no known shape or ONNX Runtime fails. */
export async function runExposed(exposed, ours, values = {}) {
  const session = await ort.InferenceSession.create(exposed, {
    graphOptimizationLevel: 'disabled',
    logSeverityLevel: 3,
  });
  try {
    const feeds = {};
    for (const name of session.inputNames) {
      const v = ours.get(name);
      if (!v || !known(v)) throw new Error(`input ${name} has no known shape: bind its dims with --dim`);
      if (!FEED[v.dtype]) throw new Error(`input ${name}: no feed for ${v.dtype}`);
      const [type, T] = FEED[v.dtype];
      const given = values[name] === undefined ? null : [values[name]].flat().map(Number);
      const at = (i) =>
        given ? given[i % given.length] : type.startsWith('float') ? Math.sin(i * 0.37) / 2 : 1 + (i % 100);
      const n = v.shape.reduce((a, b) => a * b, 1);
      feeds[name] = new ort.Tensor(
        type,
        T.from({ length: n }, (_, i) => (T === BigInt64Array ? BigInt(at(i)) : at(i))),
        v.shape,
      );
    }
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

/** Each returned value against ours: `differ` and `unknown` list lines
 * (ours, then ONNX Runtime's), `absent` counts values we do not list. */
export function compareValues(got, ours) {
  const r = { returned: 0, compared: 0, absent: 0, unknown: [], differ: [] };
  for (const [name, t] of Object.entries(got)) {
    r.returned++;
    const v = ours.get(name);
    const theirs = `${ORT_TYPE[t.type] ?? t.type}${JSON.stringify([...t.dims])}`;
    const mine = v && `${v.dtype}${JSON.stringify(v.shape)}`;
    if (!v) r.absent++;
    else if (!known(v))
      r.unknown.push(`${name}: ours ${mine}${v.reason ? ` (${v.reason})` : ''}, ONNX Runtime ${theirs}`);
    else {
      r.compared++;
      if (mine !== theirs) r.differ.push(`${name}: ours ${mine}, ONNX Runtime ${theirs}`);
    }
  }
  return r;
}
