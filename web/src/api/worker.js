// worker.js -- runs the WASM module off the main thread. Messages:
//   {id, op: 'init'}                               -> {version}
//   {id, op: 'open', bytes}                        -> {handle, info}
//   {id, op: 'open', blob}                         -> the same for a File/Blob, read in slices
//                                                    (the tensor data is never read; annotate
//                                                    copies it through the same slices)
//   {id, op: 'call', handle, command, args, bytes} -> the JSON's UTF-8 bytes with `json: true`
//                                                    (the client parses them), or the raw bytes when `bytes` is set
//   {id, op: 'trace', handle, args}                -> the plan's trace bytes (`plan --trace`)
//   {id, op: 'diff', handle, other, args, argsB, names}
//                                                  -> `memplan diff --json` of the two (one may be both)
//   {id, op: 'close', handle}                      -> null
// Replies {id, ok: true, result} or {id, ok: false, error: {name, message, status}}.
// While a request runs, zero or more {id, progress: {stage, ...}} messages
// report its stage ('starting', 'parsing', 'info', 'running', 'encoding').
// There is no cancel message: the WASM call is synchronous, so the client
// cancels by terminating this worker and starting a new one.
import { createMemplan } from './memplan-core.js';

let memplanPromise = null;
const models = new Map();
let nextHandle = 1;

// A File of any size: the library reads the graph through slices and skips
// the weights, so a 1.2 GB model costs ~16 MB of WebAssembly memory instead
// of twice its size. FileReaderSync exists in every browser's workers; where
// it does not, the file is read whole.
async function openBlob(mp, blob) {
  if (typeof FileReaderSync === 'undefined') return mp.open(new Uint8Array(await blob.arrayBuffer()));
  const reader = new FileReaderSync();
  return mp.openReader(
    blob.size,
    (offset, length) => new Uint8Array(reader.readAsArrayBuffer(blob.slice(offset, offset + length))),
  );
}

async function handle(msg, progress) {
  if (!memplanPromise) progress({ stage: 'starting' });
  memplanPromise ??= createMemplan();
  const mp = await memplanPromise;
  switch (msg.op) {
    case 'init':
      return { version: mp.version };
    case 'open': {
      progress({ stage: 'parsing', bytes: msg.blob ? msg.blob.size : msg.bytes.byteLength });
      const model = msg.blob ? await openBlob(mp, msg.blob) : mp.open(new Uint8Array(msg.bytes));
      let info;
      try {
        progress({ stage: 'info' });
        info = model.info();
      } catch (e) {
        model.close();
        throw e;
      }
      const h = nextHandle++;
      models.set(h, model);
      return { handle: h, info };
    }
    case 'call': {
      const model = models.get(msg.handle);
      if (!model) throw new Error('the model is closed');
      progress({ stage: 'running', command: msg.command });
      if (msg.bytes) return model.callBytes(msg.command, msg.args);
      // JSON goes back as its UTF-8 bytes (transferred, no copy); the client
      // parses it: cheaper than parsing here and structured-cloning the
      // object tree (2-3x the parse time on a 10k-node plan).
      const out = model.callBytes(msg.command, msg.args);
      progress({ stage: 'encoding', bytes: out.length });
      return { json: out };
    }
    case 'trace': {
      const model = models.get(msg.handle);
      if (!model) throw new Error('the model is closed');
      progress({ stage: 'running', command: 'trace' });
      return model.traceBytes(msg.args);
    }
    case 'diff': {
      // `memplan diff --json` of two open models (or one twice), each side with its own arguments.
      const a = models.get(msg.handle),
        b = models.get(msg.other);
      if (!a || !b) throw new Error('the model is closed');
      progress({ stage: 'running', command: 'diff' });
      return mp.diff(a, b, msg.args, msg.argsB ?? msg.args, msg.names);
    }
    case 'close':
      models.get(msg.handle)?.close();
      models.delete(msg.handle);
      return null;
    default:
      throw new Error(`unknown worker op ${msg.op}`);
  }
}

self.onmessage = async (ev) => {
  const { id } = ev.data;
  const progress = (p) => self.postMessage({ id, progress: p });
  try {
    const result = await handle(ev.data, progress);
    if (result?.json instanceof Uint8Array) {
      self.postMessage({ id, ok: true, result: result.json, json: true }, [result.json.buffer]);
      return;
    }
    const transfer = result instanceof Uint8Array ? [result.buffer] : [];
    self.postMessage({ id, ok: true, result }, transfer);
  } catch (e) {
    self.postMessage({
      id,
      ok: false,
      error: { name: e.name, message: String(e.message ?? e), status: e.status ?? null },
    });
  }
};
