// worker.js -- runs the WASM module off the main thread. Messages:
//   {id, op: 'init'}                               -> {version}
//   {id, op: 'open', bytes}                        -> {handle, info}
//   {id, op: 'call', handle, command, args, bytes} -> parsed JSON, or bytes when `bytes` is set
//   {id, op: 'close', handle}                      -> null
// Replies {id, ok: true, result} or {id, ok: false, error: {name, message, status}}.
import { createMemplan } from './memplan-core.js';

let memplanPromise = null;
const models = new Map();
let nextHandle = 1;

async function handle(msg) {
  memplanPromise ??= createMemplan();
  const mp = await memplanPromise;
  switch (msg.op) {
    case 'init':
      return { version: mp.version };
    case 'open': {
      const model = mp.open(new Uint8Array(msg.bytes));
      let info;
      try {
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
      return msg.bytes ? model.callBytes(msg.command, msg.args) : model.call(msg.command, msg.args);
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
  try {
    const result = await handle(ev.data);
    const transfer = result instanceof Uint8Array ? [result.buffer] : [];
    self.postMessage({ id, ok: true, result }, transfer);
  } catch (e) {
    self.postMessage({ id, ok: false, error: { name: e.name, message: String(e.message ?? e), status: e.status ?? null } });
  }
};
