// node_env.js -- prepended to memplan-node.js, the native CLI built for Node
// (CMakeLists.txt; the npm package's command).
//
// This Emscripten's loader fetches the .wasm with fetch() whenever fetch
// exists, and Node's fetch takes no file paths: hand it the bytes, read from
// beside this script.
Module['wasmBinary'] = require('fs').readFileSync(require('path').join(__dirname, 'memplan-node.wasm'));
// Emscripten gives a program a made-up environment; the native CLI reads the
// real one (MEMPLAN_STREAM_LIMIT_MB), so copy it in before main() runs.
Module['preRun'] = [
  function () {
    Object.assign(ENV, process.env);
  },
];
