#!/usr/bin/python3
"""Loading and annotating a model much larger than its graph.

Writes a model whose weights dwarf its graph (x[batch, K] -> MatMul with one
K x 1024 float weight -> Relu; --mb sets the weight's size), then measures with
/usr/bin/time the CLI's max RSS and wall time for `plan` and `annotate`, and,
when a WASM build is given, the WebAssembly heap and time of openReader() and
of annotate through the reader (Node, reading the file with readSync, as the
page's worker reads a File with FileReaderSync).

Usage: /usr/bin/python3 bench/big_model.py MEMPLAN_EXE [--mb 1200] [--wasm build/wasm] [--keep DIR]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WASM_SCRIPT = r"""
import { readFileSync, openSync, readSync, fstatSync } from 'node:fs';
import { createMemplan } from %(core)s;
const mp = await createMemplan({ wasmBinary: readFileSync(%(wasm)s) });
const fd = openSync(%(model)s, 'r');
const size = fstatSync(fd).size;
let reads = 0, bytes = 0;
const readAt = (o, n) => { reads++; bytes += n; const b = new Uint8Array(n); readSync(fd, b, 0, n, o); return b; };
let t = performance.now();
const m = mp.openReader(size, readAt);
const open = { ms: performance.now() - t, heap: mp._M.HEAPU8.length, reads, bytes };
t = performance.now();
const out = m.callBytes('annotate');
const annotate = { ms: performance.now() - t, heap: mp._M.HEAPU8.length, out: out.length };
console.log(JSON.stringify({ open, annotate }));
"""


def write_model(path, mb):
    k = mb * 256  # k rows of 1024 floats = k * 4 KiB
    w = numpy_helper.from_array(np.zeros((k, 1024), dtype=np.float32), "W")
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("Relu", ["h"], ["y"])], "big",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 1024])], [w])
    with open(path, "wb") as f:
        f.write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def timed(args):
    r = subprocess.run(["/usr/bin/time", "-v"] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip()[-500:])
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", r.stderr).group(1)
    secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
    return rss * 1024, secs


def main():
    args = sys.argv[1:]
    exe = args[0]
    mb = int(args[args.index("--mb") + 1]) if "--mb" in args else 1200
    wasm = args[args.index("--wasm") + 1] if "--wasm" in args else None
    keep = args[args.index("--keep") + 1] if "--keep" in args else None
    d = keep or tempfile.mkdtemp(prefix="memplan-big-")
    model = os.path.join(d, "big.onnx")
    write_model(model, mb)
    size = os.path.getsize(model)
    print(f"model: {size / 1e9:.2f} GB ({model})")
    rss, secs = timed([exe, "plan", model, "--dim", "batch=1"])
    print(f"CLI plan:      max RSS {rss / 1e6:8.1f} MB, {secs:6.2f} s")
    out = os.path.join(d, "out.onnx")
    rss, secs = timed([exe, "annotate", model, "-o", out])
    print(f"CLI annotate:  max RSS {rss / 1e6:8.1f} MB, {secs:6.2f} s (output {os.path.getsize(out) / 1e9:.2f} GB)")
    os.remove(out)
    if wasm:
        script = os.path.join(d, "wasm.mjs")
        with open(script, "w") as f:
            f.write(WASM_SCRIPT % {"core": json.dumps(os.path.join(ROOT, "web/src/api/memplan-core.js")),
                                   "wasm": json.dumps(os.path.join(os.path.abspath(wasm), "memplan.wasm")),
                                   "model": json.dumps(model)})
        r = subprocess.run(["node", script], capture_output=True, text=True, check=True)
        w = json.loads(r.stdout)
        o, a = w["open"], w["annotate"]
        print(f"WASM open:     heap {o['heap'] / 1e6:8.1f} MB, {o['ms'] / 1e3:6.2f} s ({o['reads']} reads, {o['bytes'] / 1e6:.2f} MB read)")
        print(f"WASM annotate: heap {a['heap'] / 1e6:8.1f} MB, {a['ms'] / 1e3:6.2f} s")
    if not keep:
        shutil.rmtree(d)


if __name__ == "__main__":
    main()
