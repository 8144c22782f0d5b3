#!/usr/bin/env node
// onnx-memplan -- the memplan command line for Node: `npx onnx-memplan plan
// model.onnx --json`. It is the native CLI's own C sources (src/cli) built to
// WebAssembly for Node (cli/memplan-node.cjs, CMakeLists.txt): the same
// commands, options, output bytes and exit codes as `memplan`, with models
// read a window at a time from the file and -o / --trace files written by it.
// The loader reads process.argv and exits with main()'s status.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('../cli/memplan-node.cjs');
