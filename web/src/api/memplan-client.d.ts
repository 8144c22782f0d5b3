// Types of web/src/api/memplan-client.js: the Web Worker client (the npm
// package's "onnx-memplan/worker").
import type { ModelInfo } from './memplan-core.js';

/** Where a request is: 'starting', 'parsing' ({bytes}), 'info', 'running' ({command}), 'encoding' ({bytes}). */
export interface Progress {
  stage: string;
  [key: string]: unknown;
}

export interface RequestOptions {
  onProgress?: ((p: Progress) => void) | null;
}

export interface WorkerModel {
  info: ModelInfo;
  /** A command's JSON output, parsed (the same document as `memplan COMMAND MODEL --json`). */
  call(command: string, args?: string[], opts?: RequestOptions): Promise<unknown>;
  /** A command's raw output bytes (annotate: the annotated model). */
  callBytes(command: string, args?: string[], opts?: RequestOptions): Promise<Uint8Array>;
  close(): Promise<null>;
}

export interface MemplanClient {
  version: string;
  /** Bytes (their buffer is transferred to the worker) or a File/Blob (read in slices, weights unread). */
  open(model: Uint8Array | ArrayBuffer | Blob, opts?: RequestOptions): Promise<WorkerModel>;
  /** Reject every pending request with an AbortError and start a fresh worker (models opened before are gone). */
  cancel(): void;
  /** Requests still running. */
  readonly busy: number;
  terminate(): void;
}

/** Start the worker (a module worker beside this file) and its WebAssembly module. */
export function connectMemplan(): Promise<MemplanClient>;
