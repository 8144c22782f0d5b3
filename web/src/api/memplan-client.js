// memplan-client.js -- the page's async handle on the worker (worker.js).
//   const mp = await connectMemplan();  mp.version
//   const model = await mp.open(bytesOrFile, {onProgress}); model.info;
//   await model.call('plan', ['--dim', 'batch=1'], {onProgress}); await model.close();
//   await model.diff(other, argsA, argsB)  -- `memplan diff --json`, each side with its own options
//   mp.cancel()  -- stops whatever runs: terminates the worker, rejects every
//                   pending request with an AbortError and starts a fresh
//                   worker; models opened before are gone (their calls reject).
//   mp.terminate()
import { parseExact } from '../data/exact.js';

const decoder = new TextDecoder('utf-8');

export async function connectMemplan() {
  let worker = null;
  let generation = 0;
  const pending = new Map();
  let nextId = 1;

  const failAll = (err) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  function spawn() {
    worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'memplan' });
    generation++;
    worker.onmessage = (ev) => {
      const { id, ok, result, error, progress, json } = ev.data;
      const p = pending.get(id);
      if (!p) return;
      if (progress) {
        p.onProgress?.(progress);
        return;
      }
      pending.delete(id);
      if (ok) p.onReply?.(); // before the parse below: the caller may send its next request first
      if (ok) {
        if (!json) {
          p.resolve(result);
          return;
        }
        try {
          p.resolve(parseExact(decoder.decode(result))); // counts beyond 2^53 stay exact (BigInt)
        } catch (e) {
          p.reject(e);
        }
      } else p.reject(Object.assign(new Error(error.message), { name: error.name, status: error.status }));
    };
    worker.onerror = (ev) => {
      ev.preventDefault();
      failAll(new Error(`memplan worker failed: ${ev.message || 'could not start'}`));
    };
  }
  const request = (msg, transfer = [], onProgress = null, onReply = null) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject, onProgress, onReply });
      worker.postMessage({ id, ...msg }, transfer);
    });

  spawn();
  const { version } = await request({ op: 'init' });
  return {
    version,
    /** Open a model: bytes (their buffer is transferred to the worker, detached
     *  here), or a File/Blob, which the worker reads in slices (weights unread). */
    async open(bytes, { onProgress = null } = {}) {
      const gen = generation;
      let msg,
        transfer = [];
      if (typeof Blob !== 'undefined' && bytes instanceof Blob) {
        msg = { op: 'open', blob: bytes };
      } else {
        const buf =
          bytes instanceof ArrayBuffer
            ? bytes
            : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
        msg = { op: 'open', bytes: buf };
        transfer = [buf];
      }
      const { handle, info } = await request(msg, transfer, onProgress);
      const alive = () => {
        if (gen !== generation)
          throw Object.assign(new Error('the model was closed when its work was cancelled'), { name: 'AbortError' });
      };
      return {
        info,
        handle,
        /** `memplan diff --json` of this model (args) against `other` (another open model, or this one; argsB). */
        diff: async (other, args = [], argsB = args, names = ['A', 'B']) => {
          alive();
          return request({ op: 'diff', handle, other: other.handle, args, argsB, names });
        },
        /** opts: onProgress(stage), and onReply(), called when the reply has
         *  come and before it is parsed (a large plan's JSON takes a second). */
        call: async (command, args = [], opts = {}) => {
          alive();
          return request({ op: 'call', handle, command, args }, [], opts.onProgress, opts.onReply);
        },
        callBytes: async (command, args = [], opts = {}) => {
          alive();
          return request({ op: 'call', handle, command, args, bytes: true }, [], opts.onProgress);
        },
        /** The plan's trace bytes (`memplan plan MODEL ...args --trace OUT.json`). */
        trace: async (args = []) => {
          alive();
          return request({ op: 'trace', handle, args });
        },
        close: async () => (gen === generation ? request({ op: 'close', handle }) : null),
      };
    },
    /** Cancel everything pending; the worker is replaced by a fresh one. */
    cancel() {
      worker.terminate();
      failAll(Object.assign(new Error('cancelled'), { name: 'AbortError' }));
      spawn();
    },
    /** Requests still running. */
    get busy() {
      return pending.size;
    },
    terminate: () => {
      worker.terminate();
      failAll(Object.assign(new Error('terminated'), { name: 'AbortError' }));
    },
  };
}
