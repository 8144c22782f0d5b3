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
  /** A client to share (connectMemplan()); by default the view starts its own worker. */
  client?: MemplanClient;
}

/** The view's state snapshot (frozen). */
export interface ViewState {
  phase: string;
  name: string | null;
  hasModel: boolean;
  status: string | null;
  strategy: string;
  align: number;
  busy: boolean;
  error: string | null;
  [key: string]: unknown;
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
  setOptions(opts: { strategy?: 'arena' | 'slots'; align?: number; inplace?: boolean }): Promise<unknown>;
  select(name: string | null): void;
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
  on: ViewController['on'];
  cancel(): void;
  readonly plan: PlanDocument | null;
  readonly state: ViewState | null;
}
