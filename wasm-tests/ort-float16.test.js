// The graph ONNX Runtime's CPU execution provider runs for a float16 model
// (memplan/ort_float16.h, `plan --float16-cpu`) against the graph ONNX
// Runtime saves. scripts/gen_f16_models.py writes random float16 graphs: ops
// without a float16 kernel between ops with one, the model's own Cast round
// trips, graph outputs inside the graph, a float32 input cast to float16, If
// nodes whose branches read outer values. ONNX Runtime (onnxruntime-node, CPU,
// level disabled: no other rewrite) loads each and saves the graph it runs
// (optimizedModelFilePath), which it writes in the order it runs the nodes.
// For every model, in the WASM build:
//  - the nodes of memplan's graph, main graph and every body, are the saved
//    graph's: op, inputs and outputs by name (ONNX Runtime names the float32
//    copies as memplan does), Constant nodes aside (ONNX Runtime makes them
//    initializers);
//  - memplan's plan of it under --order onnxruntime lists its main graph's
//    nodes in the saved file's order, and its lower bound is the saved
//    graph's in that order;
//  - the file's default plan gives that bound as
//    onnxruntime_float16.onnxruntime_order_lower_bound_bytes.
// ONNX Runtime saves some graphs that do not load (a body still reads the name
// of an outer value whose Cast it removed, while it runs the body on the value
// it rewired to); those are counted and pinned, not compared. The totals of
// nodes run in float32 and of Casts added are pinned, so that a generator that
// stops making the cases cannot pass unnoticed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, loadMemplan } from './helpers.js';

const SCRIPT = join(ROOT, 'scripts/gen_f16_models.py');
const SEEDS = [1, 2, 3];
const COUNT = 40;

let mp, dir;
beforeAll(async () => {
  mp = await loadMemplan();
  dir = mkdtempSync(join(tmpdir(), 'memplan-ort-f16-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plan(bytes, args) {
  const model = mp.open(bytes);
  try {
    return model.call('plan', ['--no-at-peak', ...args]);
  } finally {
    model.close();
  }
}

/** Each graph's nodes as "op(inputs)->outputs", sorted, keyed by the path of
 *  the nodes holding it ("" for the main graph). */
function graphs(p, path = '', out = {}) {
  out[path] = p.nodes
    .filter((n) => n.op_type !== 'Constant')
    .map((n) => `${n.op_type}(${n.inputs.join(',')})->${n.outputs.join(',')}`)
    .sort();
  for (const s of p.subgraphs || []) graphs(s.plan, `${path}/${s.node}.${s.attribute}`, out);
  return out;
}

const outputsInOrder = (p) => p.nodes.filter((n) => n.op_type !== 'Constant').map((n) => n.outputs.join(','));

describe('the float16 CPU graph equals the one ONNX Runtime saves', () => {
  it.each(SEEDS)(
    'random float16 models, seed %i',
    async (seed) => {
      const out = join(dir, String(seed));
      execFileSync('/usr/bin/python3', [SCRIPT, out, '--count', String(COUNT), '--seed', String(seed)]);
      const files = readdirSync(out)
        .filter((f) => f.endsWith('.onnx'))
        .sort();
      expect(files.length).toBe(COUNT);
      const differ = [];
      let unloadable = 0,
        float32 = 0,
        casts = 0;
      for (const f of files) {
        const file = join(out, f),
          saved = file.replace('.onnx', '.ort.onnx');
        const session = await ort.InferenceSession.create(file, {
          graphOptimizationLevel: 'disabled',
          optimizedModelFilePath: saved,
          logSeverityLevel: 3,
        });
        await session.release();
        const bytes = readFileSync(file);
        let theirs;
        try {
          theirs = plan(readFileSync(saved), []);
        } catch (e) {
          expect(String(e.message || e)).toMatch(/which nothing defines/);
          unloadable++;
          continue;
        }
        const ours = plan(bytes, ['--float16-cpu', '--order', 'onnxruntime']);
        const asWritten = plan(bytes, []);
        float32 += ours.onnxruntime_cpu_graph.float32_nodes;
        casts += ours.onnxruntime_cpu_graph.casts;
        const go = graphs(ours),
          gt = graphs(theirs);
        for (const k of new Set([...Object.keys(go), ...Object.keys(gt)]))
          if (JSON.stringify(go[k]) !== JSON.stringify(gt[k]))
            differ.push(
              `${f}: the nodes of ${k || 'the main graph'}: ${JSON.stringify(go[k])} vs ${JSON.stringify(gt[k])}`,
            );
        if (outputsInOrder(ours).join(' ') !== outputsInOrder(theirs).join(' ')) differ.push(`${f}: order`);
        if (ours.lower_bound_bytes !== theirs.lower_bound_bytes)
          differ.push(`${f}: bound ${ours.lower_bound_bytes} vs ${theirs.lower_bound_bytes}`);
        const side = asWritten.onnxruntime_float16;
        if (side && side.onnxruntime_order_lower_bound_bytes !== ours.lower_bound_bytes)
          differ.push(`${f}: side figure ${side.onnxruntime_order_lower_bound_bytes}`);
      }
      expect(differ).toEqual([]);
      // [saved graphs that do not load, nodes run in float32, Casts added] over the models compared
      const pinned = { 1: [0, 526, 634], 2: [1, 390, 529], 3: [0, 458, 566] };
      expect([unloadable, float32, casts]).toEqual(pinned[seed]);
    },
    120_000,
  );
});
