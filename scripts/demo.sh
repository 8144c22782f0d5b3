#!/usr/bin/env bash
# demo.sh -- what `make demo` runs: set up, build the native CLI and the WASM
# module, build the web app, and serve it on http://127.0.0.1:${PORT:-8080}
# with the example model open. Stays in the foreground; Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Debian's emcc runs acorn-optimizer with the system node
JOBS=$(nproc 2>/dev/null || echo 2)
PORT=${PORT:-8080}

bash scripts/setup.sh
echo "demo: building the native CLI (build/native)"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$JOBS"
echo "demo: building the WebAssembly module (build/wasm)"
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j"$JOBS"
echo "demo: building the web app (web/dist)"
MEMPLAN_WASM_DIR="$PWD/build/wasm" npm run --silent build:web

echo
echo "demo: http://127.0.0.1:$PORT/  (the example model, Silero VAD, is open; drop or pick another .onnx)"
echo "demo: native CLI: build/native/memplan info MODEL --json"
echo "demo: Ctrl-C to stop"
exec node scripts/serve.mjs --dir web/dist --port "$PORT"
