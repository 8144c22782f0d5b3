// Types of web/src/embed.js: the visualizer (the npm package's
// "onnx-memplan/view"; its styles are "onnx-memplan/view.css").
import type { PlanDocument } from './api/memplan-core.js';
import type { MemplanClient } from './api/memplan-client.js';

export interface ViewOptions {
  /** A model URL opened at once. */
  src?: string;
  dims?: Record<string, number>;
  values?: Record<string, number | number[]>;
  strategy?: 'arena' | 'slots';
  align?: number;
  inplace?: boolean;
  /** A KV cache's present outputs written into the past inputs' buffers (plan --share-kv), when the model has such pairs. */
  shareKv?: boolean;
  /** QDQ node units planned fused, as ONNX Runtime's CPU execution provider runs them (plan --fuse-qdq). */
  fuseQdq?: boolean;
  /** Each node's kernel workspace, as ONNX Runtime's CPU kernels allocate it, planned as a buffer at the node's position (plan --workspace). */
  workspace?: boolean;
  /** The graph ONNX Runtime's CPU execution provider runs for a float16 model planned instead of the file's: float16 nodes without a float16 kernel in float32, between the Casts it inserts (plan --float16-cpu). */
  float16Cpu?: boolean;
  /** The execution order planned: the model's, or the lowest peak the schedulers find (plan --order best). */
  order?: 'file' | 'best';
  /** A client to share (connectMemplan()); by default the view starts its own worker. */
  client?: MemplanClient;
}

/** The view's state snapshot (frozen): the controller's snapshot() (web/src/app/controller.js). */
export interface ViewState {
  phase: 'idle' | 'loading' | 'planning' | 'ready' | 'error';
  /** The title: the model being opened, else what is shown. */
  name: string;
  /** The model or plan document the figures and charts show. */
  shownName: string;
  source: null | 'model' | 'plan';
  hasModel: boolean;
  /** The plan's status ('planned', 'deferred'), null before a plan. */
  status: string | null;
  strategy: 'arena' | 'slots';
  align: number;
  inplace: boolean;
  /** Plan with --share-kv (offered when the model has present/past pairs). */
  shareKv: boolean;
  /** Plan with --fuse-qdq (offered when the model has QDQ node units). */
  fuseQdq: boolean;
  /** Plan with --workspace (offered when some node's kernel takes scratch memory). */
  workspace: boolean;
  /** Plan with --float16-cpu (offered when the model has float16 nodes ONNX Runtime's CPU execution provider runs in float32). */
  float16Cpu: boolean;
  order: 'file' | 'best';
  /** Dim values as typed ('' = unbound). */
  dims: Readonly<Record<string, string>>;
  dimNames: ReadonlyArray<string>;
  /** Graph input values as typed ('' = unbound). */
  values: Readonly<Record<string, string>>;
  selected: string | null;
  busy: boolean;
  /** The status line. */
  progress: string;
  error: string | null;
  /** The control-flow body shown, from the main graph ([]: the main graph). */
  body: ReadonlyArray<BodyStep>;
}

/** A step into a control-flow body: the node and its graph attribute ('then_branch', 'body'). */
export interface BodyStep {
  node: string;
  attribute: string;
}

export interface ViewController {
  /** Resolves when the WebAssembly worker is up. */
  ready: Promise<ViewController>;
  /** Bytes, a File/Blob (read in slices, any size) or a URL; resolves when planned. */
  setModel(
    source: Uint8Array | ArrayBuffer | Blob | string | URL,
    name?: string,
    preset?: { dims?: Record<string, number>; values?: Record<string, number | number[]> },
  ): Promise<unknown>;
  /** Show a saved `memplan plan --json` document (an object or its text). */
  setPlan(plan: PlanDocument | string, name?: string): Promise<unknown>;
  setDims(dims: Record<string, number>): Promise<unknown>;
  setValues(values: Record<string, number | number[]>): Promise<unknown>;
  setOptions(opts: {
    strategy?: 'arena' | 'slots';
    align?: number;
    inplace?: boolean;
    shareKv?: boolean;
    fuseQdq?: boolean;
    workspace?: boolean;
    float16Cpu?: boolean;
    order?: 'file' | 'best';
  }): Promise<unknown>;
  select(name: string | null): void;
  /** Show a control-flow body of the plan shown ([] the main graph); false when it has no such body. */
  openBody(steps: ReadonlyArray<BodyStep>): Promise<boolean>;
  /** Events: load, plan, select, hover, progress, state, error. Returns the function that removes the listener. */
  on(type: string, fn: (detail: any) => void): () => void;
  cancel(): void;
  readonly plan: PlanDocument | null;
  readonly state: ViewState | null;
  readonly version: string;
  destroy(): void;
}

/** Mount the visualizer in element. */
export function mount(element: Element, options?: ViewOptions): ViewController;

/** Fetch a model as a Blob, reporting {stage: 'download', loaded, total}. */
export function fetchModel(
  url: string,
  onProgress?: (p: { stage: string; loaded: number; total: number }) => void,
): Promise<Blob>;

/** <memplan-view src="model.onnx" strategy="slots" align="64">: the same methods and getters. */
export class MemplanViewElement extends HTMLElement {
  setModel: ViewController['setModel'];
  setPlan: ViewController['setPlan'];
  setDims: ViewController['setDims'];
  setValues: ViewController['setValues'];
  setOptions: ViewController['setOptions'];
  select: ViewController['select'];
  openBody: ViewController['openBody'];
  on: ViewController['on'];
  cancel(): void;
  readonly plan: PlanDocument | null;
  readonly state: ViewState | null;
}
