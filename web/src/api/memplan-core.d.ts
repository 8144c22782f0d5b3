// Types of web/src/api/memplan-core.js.

export interface CreateMemplanOptions {
  /** The bytes of memplan.wasm. Without it a browser fetches the file beside the module (or where
   *  locateFile says) and Node reads it from beside the module. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Emscripten's locateFile hook: where to fetch memplan.wasm from in a browser. */
  locateFile?: (path: string, prefix: string) => string;
  /** Replace the Emscripten factory (tests, mocks). */
  moduleFactory?: (opts: object) => Promise<object>;
}

/** An error reported by the C library. `message` is the C message verbatim. */
export class MemplanError extends Error {
  constructor(message: string, status: number, command: string);
  /** The C status (0 when mp_open failed, else what mp_call returned). */
  status: number;
  /** The command that failed ("open" for mp_open). */
  command: string;
}

/** The documents of the model commands, by name (`memplan COMMAND MODEL --json`). */
export interface Documents {
  info: ModelInfo;
  shapes: ShapesDocument;
  plan: PlanDocument;
  sweep: SweepDocument;
  inplace: InplaceDocument;
  profile: InplaceDocument;
  tags: InplaceDocument;
}

/** The commands whose output is a document (annotate's is bytes: callBytes). */
export type DocumentCommand = keyof Documents;

export interface Model {
  /** Same JSON as `memplan info MODEL --json`. */
  info(): ModelInfo;
  /**
   * Run a command with CLI-style flags (e.g. ["--dim", "batch=1"]); returns its parsed JSON.
   * Options a command does not use are ignored (one argument list can serve several commands);
   * an unknown option or a bad value throws. Throws MemplanError.
   */
  call<C extends DocumentCommand>(command: C, args?: string[]): Documents[C];
  call(command: string, args?: string[]): unknown;
  /** As call(), but returns the JSON text exactly as C produced it. */
  callText(command: string, args?: string[]): string;
  /** As call(), for commands with binary output: 'annotate' gives the annotated .onnx bytes. */
  callBytes(command: string, args?: string[]): Uint8Array;
  /** The plan as a Chrome/Perfetto trace: the bytes `memplan plan MODEL ...args --trace OUT.json` writes. */
  traceBytes(args?: string[]): Uint8Array;
  /** Free the session; further calls throw. Idempotent. */
  close(): void;
}

/**
 * Reads `length` bytes of the model file at `offset`, synchronously (in a worker:
 * FileReaderSync over blob.slice()); must return exactly that many bytes.
 */
export type ReadAt = (offset: number, length: number) => Uint8Array;

export interface Memplan {
  /** mp_version(), e.g. "0.1.0". */
  readonly version: string;
  /** Load a model. Throws MemplanError with the C message when the bytes are not a usable ONNX model. */
  open(bytes: Uint8Array | ArrayBuffer): Model;
  /**
   * Load a model of `size` bytes through `readAt`, a window at a time, skipping tensor data
   * (memory O(graph)). 'annotate' reads the whole file again through readAt: keep it valid while
   * the model is open. readAt must not call into this model. Throws TypeError for a bad size or
   * readAt, MemplanError with the C message otherwise.
   */
  openReader(size: number, readAt: ReadAt): Model;
  /** `memplan pack --json` on CSV text (id,lower,upper,size); args like ["--align", "1", "--budget-ms", "100", "--seed", "2"]. Throws MemplanError. */
  pack(csv: string, args?: string[]): PackResult;
  /** `memplan diff A B --json` of two open models (or one twice), each side planned with its own args. Throws MemplanError. */
  diff(a: Model, b: Model, argsA?: string[], argsB?: string[], names?: [string, string]): DiffResult;
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
  producer_version: string;
  graph_name: string;
  /** Opset versions by domain ("ai.onnx" for the default domain). */
  opsets: Record<string, number>;
  /** Nodes of the main graph. */
  nodes: number;
  /** Nodes of all graphs, subgraphs included. */
  nodes_total: number;
  /** Whether the nodes had to be reordered into a topological order. */
  reordered: boolean;
  /** Model-local functions. */
  functions: number;
  initializers: number;
  initializer_bytes: number;
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  /** Op histogram over all graphs. */
  op_types: Record<string, number>;
  /** The KV-cache pairs `plan --share-kv` shares: each output named present... a node writes, with its past... input. */
  kv_cache: { output: string; input: string }[];
}

/** A byte amount: an integer, or an expression over dim names while one is unbound ("8*N+4"). */
export type Amount = number | string;

/** An element type ("float", "int64", ...) or a kind ("sequence", "map", "optional", "opaque"); null when unknown. */
export type DType = string | null;

/** Dims: integers or expression strings; null when the rank is unknown. */
export type Shape = Array<number | string> | null;

/** `memplan shapes MODEL --json`: every value of the main graph. */
export interface ShapesDocument {
  values: {
    name: string;
    dtype: DType;
    shape: Shape;
    /** null when unknown (then `reason` says why). */
    bytes: Amount | null;
    origin: 'declared' | 'inferred' | 'none';
    reason?: string;
  }[];
  summary: { values: number; static_bytes: number; symbolic_bytes: number; unknown_bytes: number };
  /** Conflicts between declared and inferred types, ops without a rule. */
  notes: string[];
}

/** One value of a plan: a buffer owner, or a view sharing its owner's buffer. */
export interface PlanValue {
  name: string;
  /** null when unknown (deferred plans). */
  size: number | null;
  /** Inclusive positions of the owner's interval. */
  start: number;
  end: number;
  owner: string;
  view: boolean;
  /** The slot (strategy "slots" only), else null; null while deferred. */
  slot: number | null;
  offset: number | null;
  dtype: DType;
  shape: Shape;
}

/** `memplan plan MODEL --json` (a body's plan in `subgraphs[].plan` has the same form). */
export interface PlanDocument {
  status: 'planned' | 'deferred';
  strategy: 'arena' | 'slots';
  align: number;
  positions: number;
  /** The figures are null while deferred. */
  naive_bytes: number | null;
  peak_bytes: number | null;
  lower_bound_bytes: number | null;
  savings_ratio: number | null;
  /** Strategy "slots" only: the end of the slot layout, padding included. */
  slot_layout_bytes?: number | null;
  strategies: {
    arena: number;
    slots: number;
    exact_reuse: number;
    arena_heuristic: string;
    arena_gap_ratio: number;
  } | null;
  /** Strategy "slots" only (else empty). */
  slots: { id: number; capacity: number; offset: number }[];
  values: PlanValue[];
  /** Strings, sequences, maps, ...: never planned, never deferring. */
  unplanned: { name: string; reason: string }[];
  /** Why the plan is deferred; null when planned. */
  unknown: {
    values: { name: string; reason: string }[];
    /** Dims a user can bind (the model's input dims and declared names). */
    dims: string[];
    /** The internal symbols the unknown sizes rest on: not bindable; bind_instead names input dims that are. */
    internal_dims: { name: string; reason: string; data_dependent: boolean; bind_instead: string[] }[];
    /** Integer/bool scalar and short-vector inputs without a --value. */
    value_inputs: string[];
    subgraphs: { node: string; attribute: string; reason: string }[];
    /** With --workspace: the nodes whose kernel workspace has no known size. */
    workspaces: { node: string; op_type: string }[];
  } | null;
  /** With --upper-bounds: the dims planned at their bounds, and the --dim NAME=LO..HI ranges planned at HI. */
  upper_bounds?: {
    data_dims: { name: string; bound: Amount | null; reason: string }[];
    ranges: { name: string; lo: number; hi: number }[];
  };
  /** Absent with --no-nodes. Position order; "" for an omitted optional input/output. */
  nodes?: { index: number; name: string; op_type: string; domain: string; inputs: string[]; outputs: string[] }[];
  /** With --inplace (main graph): the peak saved; saved_bytes null while deferred. */
  inplace?: { enabled: true; saved_bytes: number | null };
  /** With --share-kv (main graph): each present output planned in its past input's buffer. */
  share_kv?: { output: string; input: string }[];
  /** This graph's QDQ node units (include/memplan/qdq.h), which ONNX Runtime fuses: on x86-64, or
   *  where int8 QDQ is allowed (qdq_int8). */
  qdq_units: number;
  /** Of those, the units planned fused (--fuse-qdq; 0 without it). */
  qdq_fused: number;
  /** --qdq-int8: the units are those ONNX Runtime fuses where int8 QDQ is allowed (ARM64); else x86-64's. */
  qdq_int8: boolean;
  /** The units of the other platform (x86-64 under --qdq-int8, else where int8 QDQ is allowed). */
  qdq_units_other: number;
  /** The main graph's plan only: where ONNX Runtime runs its nodes (its default order, --order
   *  onnxruntime) when planned in the file order: positions that hold another node, and the
   *  lower bound (aligned) under that order, bodies in ONNX Runtime's order too; null under another
   *  order, while deferred or with --inplace. */
  onnxruntime_order?: { moved: number; lower_bound_bytes: number } | null;
  /** The main graph's plan only: the float16 nodes (main graph and counted bodies) that ONNX Runtime's CPU
   *  execution provider (1.30, x86-64) runs in float32, casting around them, and their op types (most nodes
   *  first, at most 8), and the weights it keeps then (float32 copies of the float16 weights those nodes read,
   *  folded at load; null when a size is not known); null when there are none (and in a plan with
   *  --float16-cpu). The graph it runs (--float16-cpu), planned with the same options: its nodes run in
   *  float32 (float32_nodes) and the Casts it adds (casts), its planned peak and lower bound (peak_bytes,
   *  lower_bound_bytes; null when not planned) and its lower bound in the order ONNX Runtime runs it
   *  (onnxruntime_order_lower_bound_bytes; null when not known). */
  onnxruntime_float16?: {
    nodes: number;
    ops: string[];
    weight_bytes: number | null;
    float32_nodes: number | null;
    casts: number | null;
    peak_bytes: number | null;
    lower_bound_bytes: number | null;
    onnxruntime_order_lower_bound_bytes: number | null;
  } | null;
  /** The main graph's plan only, with --float16-cpu: the plan is of the graph ONNX Runtime's CPU execution
   *  provider runs for a float16 model (memplan/ort_float16.h), its nodes and values those of that graph:
   *  the nodes run in float32 (all graphs; forced: of those, nodes with a float16 kernel run in float32 as
   *  they sit alone between float32 ones), the Casts it adds and the file's own Casts it drops (they
   *  cancel out); null without --float16-cpu. */
  onnxruntime_cpu_graph?: { float32_nodes: number; forced: number; casts: number; casts_removed: number } | null;
  /** The main graph's plan only: the nodes (of the main graph and every counted body) whose kernels take
   *  scratch memory as ONNX Runtime's CPU kernels allocate it (ConvInteger's im2col, a float Conv's MLAS
   *  working buffer, LSTM/GRU/RNN gate buffers...); null while deferred. included: planned as buffers
   *  (--workspace); nodes: the nodes with a workspace, unknown: how many could not be sized; the largest
   *  (node null when none); lower_bound_bytes: the arena's lower bound of the plan with them (with
   *  --workspace, this plan's). */
  kernel_workspace?: {
    runtime: string;
    included: boolean;
    nodes: number;
    unknown: number;
    largest_bytes: number;
    largest_node: string | null;
    largest_op_type: string | null;
    largest_what: string | null;
    lower_bound_bytes: number;
  } | null;
  /** With --order other than file, in every graph's plan (each body has its own): the scheduler
   *  whose order won, positions[i] = the file-order index of the node run at position i, the
   *  strategy's figures in the file order (everything below in the file order too) and in this
   *  one; the figures null while deferred. */
  order?: {
    asked: string;
    name: string;
    exact: boolean;
    positions: number[];
    file_lower_bound_bytes: number | null;
    file_peak_bytes: number | null;
    lower_bound_bytes: number | null;
    peak_bytes: number | null;
    saving_bytes: number | null;
    /** Under --order onnxruntime, the main graph only: ONNX Runtime's lower bound for the file `reorder --order
     *  onnxruntime` writes (its nodes numbered so that its order needs least). */
    written_lower_bound_bytes?: number;
  };
  /** What is live at the peak, each buffer's share of the lower bound; null while deferred. */
  at_peak: {
    position: number;
    bytes: number;
    buffers: {
      name: string;
      transient: boolean;
      /** A kernel's workspace (--workspace), not a body's memory. */
      workspace: boolean;
      bytes: number;
      share: number;
      op_type: string | null;
      node: string | null;
      dtype: DType;
      shape: Shape;
    }[];
  } | null;
  /** Initializers and values folded at load that a runtime keeps once loaded, of this graph and every body
   *  below it (never in the arena): bytes of those of known size, count of them, unknown: how many have no
   *  known size; load_only_bytes / load_only_count: the other constant values (read or computed at load,
   *  then dropped: a folded chain's intermediates, initializers only folding reads). */
  weights: {
    bytes: number;
    count: number;
    unknown: number;
    folded: boolean;
    load_only_bytes: number;
    load_only_count: number;
  };
  /** The main graph's plan only (a body's inputs are its parent's buffers): its graph inputs that are not
   *  initializers. bytes: the known sizes summed, count: how many of known size, unknown: how many without
   *  one; in_arena: --include-inputs made them buffers (so they are in peak_bytes). */
  inputs?: { bytes: number; count: number; unknown: number; in_arena: boolean };
  /** The main graph's plan only: what a runtime holds, weights.bytes + inputs.bytes (unless in_arena) +
   *  peak_bytes; null while deferred or when a weight or a graph input has no known size. */
  total_bytes?: number | null;
  /** The main graph's plan only: why total_bytes is null (the text's "total: unknown (...)"), e.g. "the plan is
   *  deferred", "some weights have no known size"; null when total_bytes is known. */
  total_unknown_reason?: string | null;
  /** The main graph's plan only: the shape inference's notes (as the shapes document's), e.g. "no dim of
   *  the model is named 'btach': that binding changes nothing", "no rule for MyOp (2 nodes)". */
  notes?: string[];
  /** One buffer per control-flow node: its body's memory, live at the node's position; with --workspace
   *  also one per node whose kernel takes scratch memory (kind 'workspace'). */
  transients: {
    node: string;
    op_type: string;
    kind: 'body' | 'workspace';
    position: number;
    bytes: number | null;
    /** Its share of naive_bytes: the counted body's own naive total + its state (null when not known). */
    naive_bytes: number | null;
    slot: number | null;
    offset: number | null;
    /** A body's: why a branch was chosen without knowing (null for a workspace). */
    assumption: string | null;
    /** A workspace's: what the kernel allocates, e.g. "the im2col of its input (uint8)" (null for a body). */
    what: string | null;
  }[];
  subgraphs: {
    node: string;
    op_type: string;
    position: number;
    attribute: string;
    /** If: whether this branch is the one taken; null when not known or not an If. */
    branch_taken: boolean | null;
    counted: boolean;
    state_bytes: number | null;
    transient_bytes: number | null;
    plan: PlanDocument;
  }[];
}

/** `memplan sweep MODEL --dim NAME=LO..HI[:N] --json`: the arena's figures at N values of one dim. */
export interface SweepDocument {
  dim: string;
  lo: number;
  hi: number;
  points: {
    value: number;
    status: 'planned' | 'deferred' | 'does not fit';
    /** null unless planned. */
    naive_bytes: number | null;
    peak_bytes: number | null;
    lower_bound_bytes: number | null;
    slots_bytes: number | null;
    /** Weights + inputs outside the arena + the planned peak, as a plan's total_bytes; null also when some weight or input has no known size. */
    total_bytes: number | null;
  }[];
}

/** A value or node tag; null for none. */
export type Tag = 'shape' | 'axes' | 'weight' | 'ambiguous' | null;

/** Amounts keyed by tag ("" = untagged); zero amounts are left out, null when unknown. */
export type TagAmounts = Record<string, Amount | null>;

/** `memplan inplace|profile|tags MODEL --json`: one document for the three. */
export interface InplaceDocument {
  allow_input_overwrite: boolean;
  tags_known: boolean;
  nodes: {
    /** Topological position. */
    index: number;
    /** The node's place in the file. */
    file_index: number;
    name: string;
    op_type: string;
    tag: Tag;
    reuse: { output_index: number; input_index: number; kind: 'equal' | 'greater' }[];
    release_after: string[];
    not_used_after: string[];
    /** Absent when no value has a tag. */
    release_after_shape_tag?: string[];
    profile: {
      total_bytes: Amount | null;
      already_allocated_bytes: Amount | null;
      output_allocation_bytes: Amount | null;
      inputs: TagAmounts;
      initializers: TagAmounts;
      intermediates: TagAmounts;
      outputs: TagAmounts;
    };
  }[];
  values: { name: string; tag: Tag }[];
  /** With --events: the decision log. Fields that do not apply are null. */
  events?: {
    action: 'inplace' | 'release' | 'release_shape_tag';
    node_index: number;
    name: string | null;
    output_index: number | null;
    input_index: number | null;
    kind: 'equal' | 'greater' | null;
  }[];
  /** Each control-flow body's own document (recursively). */
  subgraphs: InplaceBody[];
}

/** A body's entry in `subgraphs`: the node (its index and name) and attribute, then its document. */
export type InplaceBody = { node: number; name: string; op_type: string; attribute: string } & Omit<
  InplaceDocument,
  'allow_input_overwrite'
>;

/** `memplan inplace|profile MODEL --json --columns`: per node, only the reuse pairs and
 *  the profile amounts, as columns (bodies the same way, without `columns`). */
export interface InplaceColumnsDocument {
  allow_input_overwrite: boolean;
  columns: true;
  tags_known: boolean;
  nodes: InplaceColumns;
  subgraphs: {
    node: number;
    name: string;
    op_type: string;
    attribute: string;
    tags_known: boolean;
    nodes: InplaceColumns;
    subgraphs: unknown[];
  }[];
}

export interface InplaceColumns {
  /** Nodes in the graph; every column has this many entries. */
  count: number;
  /** [node index, output_index, input_index, kind], nodes in order. */
  reuse: [number, number, number, 'equal' | 'greater'][];
  /** bucket -> tag -> the amount at each node index (0 where none); a tag has a column
   *  when some node has a non-zero amount of it in that bucket. */
  profile: Record<'inputs' | 'initializers' | 'intermediates' | 'outputs', Record<string, (Amount | null)[]>>;
}

export function createMemplan(opts?: CreateMemplanOptions): Promise<Memplan>;

/** One side of a diff: the arena figures (null while deferred). */
export interface DiffSide {
  status: 'planned' | 'deferred';
  positions: number;
  buffers: number;
  peak_bytes: number | null;
  lower_bound_bytes: number | null;
  naive_bytes: number | null;
  slots_bytes: number | null;
  /** The plan's weights.bytes, inputs.bytes and total_bytes; null when some part has no known size. */
  weight_bytes: number | null;
  input_bytes: number | null;
  total_bytes: number | null;
}
export interface DiffValue {
  size: number | null;
  start: number;
  end: number;
  offset: number | null;
}
/** `memplan diff --json` (src/out/report_diff.c). */
export interface DiffResult {
  a: DiffSide;
  b: DiffSide;
  delta: {
    peak_bytes: number | null;
    lower_bound_bytes: number | null;
    naive_bytes: number | null;
    slots_bytes: number | null;
    weight_bytes: number | null;
    input_bytes: number | null;
    total_bytes: number | null;
  };
  values: {
    in_both: number;
    changed: { name: string; a: DiffValue; b: DiffValue }[];
    only_a: string[];
    only_b: string[];
  };
}
