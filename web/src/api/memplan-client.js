// memplan-client.js -- the page's async handle on the worker (worker.js).
//   const mp = await connectMemplan();  mp.version
//   const model = await mp.open(bytes); model.info; await model.call('info'); await model.close();
export async function connectMemplan() {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'memplan' });
  const pending = new Map();
  let nextId = 1;
  worker.onmessage = (ev) => {
    const { id, ok, result, error } = ev.data;
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (ok) p.resolve(result);
    else p.reject(Object.assign(new Error(error.message), { name: error.name, status: error.status }));
  };
  worker.onerror = (ev) => {
    ev.preventDefault();
    const err = new Error(`memplan worker failed: ${ev.message || 'could not start'}`);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const request = (msg, transfer = []) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, ...msg }, transfer);
  });

  const { version } = await request({ op: 'init' });
  return {
    version,
    /** Open a model; the bytes' buffer is transferred to the worker (detached here). */
    async open(bytes) {
      const buf = bytes instanceof ArrayBuffer ? bytes : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      const { handle, info } = await request({ op: 'open', bytes: buf }, [buf]);
      return {
        info,
        call: (command, args = []) => request({ op: 'call', handle, command, args }),
        callBytes: (command, args = []) => request({ op: 'call', handle, command, args, bytes: true }),
        close: () => request({ op: 'close', handle }),
      };
    },
    terminate: () => worker.terminate(),
  };
}
