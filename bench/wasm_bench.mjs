// wasm_bench.mjs -- the dsa-bench packing of bench_pack, in WebAssembly.
//
//   node bench/wasm_bench.mjs [BUILD_WASM_DIR] [DSA_DIR] [SYNTHETIC_DIR]
//
// Loads build/wasm/memplan.mjs (emcmake cmake -S . -B build/wasm), packs every
// CSV of DSA_DIR with align 1 at budgets 0, 100 and 1000 ms through
// mp_pack_csv (the same JSON as `memplan pack --json`) and prints arena,
// iterations and time (median of 3 runs) as a Markdown table, plus an
// FNV-1a hash of the offsets ("o1,o2,...") that bench_pack prints too, so
// native and WASM plans can be compared. With SYNTHETIC_DIR (written by
// `bench_pack --synthetic-csv DIR`): CSV parse + pack of synthetic-N.csv at
// the library's default options (budget 20 ms), median of 3, to compare with
// bench_pack's native row.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const buildDir = resolve(process.argv[2] ?? 'build/wasm');
const dsaDir = process.argv[3] ?? '/work/shared/dsa-bench';
const { default: createModule } = await import(pathToFileURL(join(buildDir, 'memplan.mjs')).href);
const M = await createModule({ wasmBinary: readFileSync(join(buildDir, 'memplan.wasm')) });

function packCsv(text, args) {
  const bytes = Buffer.from(text, 'utf8');
  const p = M._malloc(bytes.length + 1);
  M.HEAPU8.set(bytes, p);
  const alen = M.lengthBytesUTF8(args) + 1;
  const a = M._malloc(alen);
  M.stringToUTF8(args, a, alen);
  const t0 = performance.now();
  const st = M._mp_pack_csv(p, bytes.length, a);
  const ms = performance.now() - t0;
  const out = M.UTF8ToString(M._mp_result(), M._mp_result_len());
  M._mp_result_free();
  M._free(p);
  M._free(a);
  if (st !== 0) throw new Error(out);
  return { json: JSON.parse(out), ms };
}

function fnv1a(text) {
  let h = 0xcbf29ce484222325n;
  for (const c of Buffer.from(text, 'utf8')) h = ((h ^ BigInt(c)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

const budgets = [0, 100, 1000];
const rows = [];
for (const name of existsSync(dsaDir)
  ? readdirSync(dsaDir)
      .filter((f) => f.endsWith('.csv'))
      .sort()
  : []) {
  const text = readFileSync(join(dsaDir, name), 'utf8');
  const cells = [];
  for (const b of budgets) {
    const runs = [0, 1, 2].map(() => packCsv(text, `--align\n1\n--budget-ms\n${b}`));
    const ms = runs.map((r) => r.ms).sort((x, y) => x - y)[1];
    const json = runs[0].json;
    const gap = (100 * (json.gap_ratio - 1)).toFixed(2);
    const hash = fnv1a(json.offsets.map((o) => o.offset).join(','));
    cells.push(`${json.arena_bytes} (+${gap}%, ${json.iterations} it, ${ms.toFixed(0)} ms, ${hash})`);
  }
  rows.push(`| ${name} | ${cells.join(' | ')} |`);
}
console.log('| instance | WASM @0 ms | WASM @100 ms | WASM @1000 ms |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(r);

const synthDir = process.argv[4];
if (synthDir) {
  console.log('\n| buffers | CSV parse + pack, WASM (median of 3) | arena |');
  console.log('|---|---|---|');
  for (const n of [1000, 10000, 100000, 1000000]) {
    const text = readFileSync(join(synthDir, `synthetic-${n}.csv`), 'utf8');
    // bench_pack's native row calls memplan_pack with the library's default budget (20 ms);
    // mp_pack_csv's own default is `memplan pack`'s (1000 ms), so the budget is given
    const runs = [0, 1, 2].map(() => packCsv(text, '--budget-ms\n20'));
    const ms = runs.map((r) => r.ms).sort((x, y) => x - y)[1];
    console.log(`| ${n} | ${ms.toFixed(1)} ms | ${runs[0].json.arena_bytes} |`);
  }
}
