// provenance.js -- what the page's exported plan JSON records so that the
// plan can be made again: the model (name, byte size, sha256), the options
// and the bindings it was planned with. The CLI's equivalent is the command
// line: `memplan plan MODEL --strategy S --align N [--inplace] --dim ... --value ...`.

/** Models up to this size are hashed (crypto.subtle takes the whole file in memory). */
export const SHA256_MAX_BYTES = 1 << 30;

/**
 * The SHA-256 of a model's bytes (a Uint8Array, ArrayBuffer or Blob/File) as
 * lowercase hex, or null when it is over SHA256_MAX_BYTES or the page has no
 * crypto.subtle (served over plain HTTP from another host).
 */
export async function sha256Hex(data) {
  const size = data.byteLength ?? data.size;
  if (!(size <= SHA256_MAX_BYTES) || !globalThis.crypto?.subtle) return null;
  const bytes = typeof Blob !== 'undefined' && data instanceof Blob ? await data.arrayBuffer() : data;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The `provenance` member of an exported plan: {producer, model: {name,
 * bytes, sha256}, options: {strategy, align, inplace, and order unless it is
 * the file's}, dims, values, args}.
 * `args` are the plan's options as the CLI takes them (`memplan plan MODEL
 * ...args --json` makes the same plan); dims and values are the bindings
 * sent with it ({name: text}: a value still typed wrong is not among them).
 */
export function provenanceOf(state, { args, dims, values, size, sha256, version }) {
  return {
    producer: `onnx-memplan ${version} (page)`,
    model: { name: state.shownName, bytes: size, sha256 },
    options: {
      strategy: state.strategy,
      align: state.align,
      inplace: state.inplace,
      ...(state.shareKv && state.kvPairs?.length ? { share_kv: true } : {}),
      ...(state.fuseQdq ? { fuse_qdq: true } : {}),
      ...(state.workspace ? { workspace: true } : {}),
      ...(state.float16Cpu ? { float16_cpu: true } : {}),
      ...(state.order && state.order !== 'file' ? { order: state.order } : {}),
    },
    dims,
    values,
    args,
  };
}
