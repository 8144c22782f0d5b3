#!/usr/bin/env node
// snapshot_wasm.mjs JOB.json -- the WASM half of scripts/snapshot.py.
//
// JOB.json (written by snapshot.py): {wrapper, wasm, out, readerOut, readerCases,
// cap, head, tail, models: [{id, path, cases: [[name, command, options]]}]}. Each
// model is opened once with open(bytes) and every case runs through callBytes (the
// bytes callText decodes) with the CLI's options less the model path and -o; the
// cases named in readerCases run again on the model opened with openReader (a
// window at a time; annotate reads it again) into readerOut/<id>/; pack
// cases go through mp_pack_csv with the file's bytes, as Memplan.pack() does
// but keeping the JSON text. Each case is written to OUT/<id>/<name>.case in
// snapshot.py's layout, with "status: N" (the C status; "open" failures and
// JS exceptions are named) and the message as stderr; annotate's bytes go to
// <name>.onnx (up to CAP bytes).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { createMemplan } = await import(pathToFileURL(job.wrapper).href);
const wasmBinary = readFileSync(job.wasm);
const enc = new TextEncoder();

let mp = await createMemplan({ wasmBinary });
let spare = await createMemplan({ wasmBinary }); // a fresh module for after a trap
function replaceModule() {
  const fresh = spare;
  spare = null;
  if (!fresh) throw new Error('a second trap in the WASM module: giving up');
  return fresh;
}

function capOutput(data) {
  if (data.length <= job.cap) return [data, `${data.length} bytes`];
  const h = createHash('sha256').update(data).digest('hex');
  const kept = Buffer.concat([
    data.subarray(0, job.head),
    Buffer.from(`\n[... ${data.length - job.head - job.tail} bytes left out ...]\n`),
    data.subarray(data.length - job.tail),
  ]);
  return [kept, `${data.length} bytes, sha256 ${h}, first ${job.head} and last ${job.tail} kept`];
}

function writeCase(dir, name, cmd, opts, status, out, err, annotated) {
  const argv = ['memplan', cmd, 'MODEL', ...opts, ...(cmd === 'annotate' ? ['-o', 'OUT'] : [])];
  const parts = [Buffer.from(`$ ${argv.join(' ')}\nstatus: ${status}\n`)];
  if (annotated) {
    const h = createHash('sha256').update(annotated).digest('hex');
    const stored = annotated.length <= job.cap;
    parts.push(
      Buffer.from(`output: ${annotated.length} bytes, sha256 ${h}${stored ? '' : ' (not stored: over 1 MiB)'}\n`),
    );
    if (stored) writeFileSync(join(dir, `${name}.onnx`), annotated);
  }
  const [o, oh] = capOutput(out);
  const [e, eh] = capOutput(err);
  parts.push(Buffer.from(`--- stdout (${oh})\n`), o, Buffer.from(`\n--- stderr (${eh})\n`), e, Buffer.from('\n'));
  writeFileSync(join(dir, `${name}.case`), Buffer.concat(parts));
}

// `memplan pack --json` in the module: the JSON text as C wrote it.
function packBytes(csv, args) {
  const M = mp._M;
  const p = M._malloc(Math.max(csv.length, 1)) >>> 0;
  M.HEAPU8.set(csv, p);
  const a = enc.encode(args.join('\n'));
  const ap = M._malloc(a.length + 1) >>> 0;
  M.HEAPU8.set(a, ap);
  M.HEAPU8[ap + a.length] = 0;
  let status;
  try {
    status = M._mp_pack_csv(p, csv.length, ap);
  } finally {
    M._free(p);
    M._free(ap);
  }
  const rp = M._mp_result() >>> 0,
    rn = M._mp_result_len() >>> 0;
  const out = Buffer.from(rp && rn ? M.HEAPU8.slice(rp, rp + rn) : new Uint8Array(0));
  M._mp_result_free();
  return { status, out };
}

// A result for one case: {status, out, err, annotated}.
function runCase(model, cmd, opts) {
  const args = opts.filter((o) => o !== '--json');
  try {
    const bytes = Buffer.from(model.callBytes(cmd, args));
    return cmd === 'annotate'
      ? { status: 0, out: Buffer.alloc(0), err: Buffer.alloc(0), annotated: bytes }
      : { status: 0, out: bytes, err: Buffer.alloc(0) };
  } catch (e) {
    if (e.name !== 'MemplanError') throw e;
    return { status: e.status, out: Buffer.alloc(0), err: Buffer.from(e.message) };
  }
}

for (const m of job.models) {
  const dir = join(job.out, m.id);
  mkdirSync(dir, { recursive: true });
  const data = readFileSync(m.path);
  if (m.id.startsWith('pack/')) {
    for (const [name, cmd, opts] of m.cases) {
      const { status, out } = packBytes(
        data,
        opts.filter((o) => o !== '--json'),
      );
      writeCase(dir, name, cmd, opts, status, status ? Buffer.alloc(0) : out, status ? out : Buffer.alloc(0));
    }
    continue;
  }
  runModel(join(job.out, m.id), m.cases, () => mp.open(data));
  const readAt = (offset, length) => data.subarray(offset, offset + length);
  const subset = m.cases.filter(([name]) => job.readerCases.includes(name));
  if (job.readerOut && subset.length) {
    const rdir = join(job.readerOut, m.id);
    mkdirSync(rdir, { recursive: true });
    runModel(rdir, subset, () => mp.openReader(data.length, readAt));
  }
}

// Open a model with `open` and write every case of it into dir.
function runModel(dir, cases, open) {
  let model = null,
    openError = null;
  try {
    model = open();
  } catch (e) {
    if (e.name !== 'MemplanError') throw e;
    openError = Buffer.from(e.message);
  }
  try {
    for (const [name, cmd, opts] of cases) {
      if (openError) {
        writeCase(dir, name, cmd, opts, 'open-failed', Buffer.alloc(0), openError);
        continue;
      }
      let r;
      try {
        r = runCase(model, cmd, opts);
      } catch (e) {
        // a trap or a wrapper bug: recorded, and the module is replaced
        r = { status: 'exception', out: Buffer.alloc(0), err: Buffer.from(String(e)) };
        model = null;
        mp = replaceModule();
        model = open();
      }
      writeCase(dir, name, cmd, opts, r.status, r.out, r.err, r.annotated);
    }
  } finally {
    model?.close();
  }
}
