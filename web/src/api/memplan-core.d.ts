// Types of web/src/api/memplan-core.js.

export interface CreateMemplanOptions {
  /** The bytes of memplan.wasm. Required in Node (the ES module build cannot fetch its own .wasm there). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Emscripten's locateFile hook: where to fetch memplan.wasm from in a browser. */
  locateFile?: (path: string, prefix: string) => string;
  /** Replace the Emscripten factory (tests, mocks). */
  moduleFactory?: (opts: object) => Promise<object>;
}

/** An error reported by the C library. `message` is the C message verbatim. */
export class MemplanError extends Error {
  /** The C status (0 when mp_open failed, else what mp_call returned). */
  status: number;
  /** The command that failed ("open" for mp_open). */
  command: string;
}

export interface Model {
  /** Same JSON as `memplan info MODEL --json`. */
  info(): ModelInfo;
  /** Run a command with CLI-style flags (e.g. ["--dim", "batch=1"]); returns its parsed JSON. Throws MemplanError. */
  call(command: string, args?: string[]): any;
  /** As call(), but returns the JSON text exactly as C produced it. */
  callText(command: string, args?: string[]): string;
  /** As call(), for commands with binary output (e.g. an annotated .onnx). */
  callBytes(command: string, args?: string[]): Uint8Array;
  /** Free the session; further calls throw. Idempotent. */
  close(): void;
}

export interface Memplan {
  /** mp_version(), e.g. "0.1.0". */
  readonly version: string;
  /** Load a model. Throws MemplanError with the C message when the bytes are not a usable ONNX model. */
  open(bytes: Uint8Array | ArrayBuffer): Model;
  /** `memplan pack --json` on CSV text (id,lower,upper,size); args like ["--align", "1", "--budget-ms", "100", "--seed", "2"]. Throws MemplanError. */
  pack(csv: string, args?: string[]): PackResult;
}

/** The JSON of `memplan pack --json`. */
export interface PackResult {
  buffers: number;
  align: number;
  arena_bytes: number;
  lower_bound_bytes: number;
  /** No arena is lower: the lower bound, or more when the exact mode proved a height infeasible. */
  proven_lower_bound_bytes: number;
  /** arena_bytes is proven optimal (arena_bytes == proven_lower_bound_bytes). */
  optimal: boolean;
  gap_ratio: number;
  /** "greedy-size", "time-fit", "skyline", "search", "exact" or "slot-layout". */
  heuristic: string;
  iterations: number;
  offsets: { id: string; offset: number }[];
}

export interface ValueInfo {
  name: string;
  dtype: string | null;
  shape: Array<number | string | null> | null;
}

export interface ModelInfo {
  ir_version: number;
  producer: string;
  producer_version?: string;
  graph_name?: string;
  /** Opset versions by domain ("ai.onnx" for the default domain). */
  opsets: Record<string, number>;
  /** Nodes of the main graph. */
  nodes: number;
  /** Nodes of all graphs, subgraphs included. */
  nodes_total: number;
  /** Whether the nodes had to be reordered into a topological order. */
  reordered?: boolean;
  /** Model-local functions. */
  functions?: number;
  initializers: number;
  initializer_bytes: number;
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  /** Op histogram over all graphs. */
  op_types: Record<string, number>;
}

export function createMemplan(opts?: CreateMemplanOptions): Promise<Memplan>;
