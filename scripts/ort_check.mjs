#!/usr/bin/env node
// ort_check.mjs -- memplan's shapes of one model against ONNX Runtime's.
//
//   node scripts/ort_check.mjs MODEL [--dim NAME=VALUE ...] [--value NAME=V[,V...] ...]
//                              [--take NODE=then|else ...]
//
// What wasm-tests/ort-shapes.test.js does for the npm fixtures, for any model
// (scripts/ort_compare.mjs: the copy exposing every main-graph value, the
// inputs, the comparison; --value sets an integer input's elements, cycled),
// through the native CLI build/native/memplan (MEMPLAN_CLI overrides). Prints
// one line per value that differs or that we leave unknown, then a summary;
// exits 1 when a value differs, 2 when the model cannot be run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from './list_fixtures.mjs';
import { compareValues, exposeValues, ourValues, runExposed } from './ort_compare.mjs';

const CLI = resolve(ROOT, process.env.MEMPLAN_CLI || 'build/native/memplan');

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
  if (flag === '--take') take.push(v);
  else if (flag === '--dim' || flag === '--value') {
    args.push(flag, v);
    if (flag === '--value') values[v.slice(0, v.lastIndexOf('='))] = v.slice(v.lastIndexOf('=') + 1).split(',');
  } else usage(`unknown option ${flag}`);
}

const call = (command, a) =>
  JSON.parse(execFileSync(CLI, [command, model, ...a, '--json'], { maxBuffer: 1 << 30 }).toString());
const dir = mkdtempSync(join(tmpdir(), 'memplan-ort-'));
try {
  const exposed = join(dir, 'exposed.onnx');
  exposeValues(model, exposed, take);
  const ours = ourValues(call, args, take.length > 0);
  let got;
  try {
    got = await runExposed(exposed, ours, values);
  } catch (e) {
    usage(`ONNX Runtime cannot run the model with these inputs: ${e.message}`);
  }
  const r = compareValues(got, ours);
  for (const line of r.unknown) console.log(`unknown  ${line}`);
  for (const line of r.differ) console.log(`DIFFERS  ${line}`);
  console.log(
    `${model}: ${r.returned} values returned, ${r.compared} compared, ${r.differ.length} differ, ` +
      `${r.unknown.length} unknown to us, ${r.absent} not listed by us`,
  );
  process.exitCode = r.differ.length ? 1 : 0;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
