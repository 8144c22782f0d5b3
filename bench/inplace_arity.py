#!/usr/bin/python3
"""In-place matching against a node's arity (issue 21): wall time of `memplan inplace --json`.

Models, each with one wide node `C` of a custom domain (its outputs' types come from value_info):
  nomatch K   K inputs float[2] produced earlier and read only by C, K outputs float[4]:
              every (output, input) pair is examined and none fits (the old code was cubic here);
  match K     K inputs and K outputs float[2]: output o takes input o;
  repeat K    one input read K times by C, one output: never eligible (the old code counted
              the K occurrences once per input);
Each is run 3 times; the median wall time is printed with the model size.

Usage: /usr/bin/python3 bench/inplace_arity.py MEMPLAN_EXE [--sizes 1000,2000,4000,8000] [--repeat 200000]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

from onnx import TensorProto, helper


def write_model(path, kind, k):
    f = TensorProto.FLOAT
    if kind == "repeat":
        nodes = [helper.make_node("Abs", ["x"], ["t"]),
                 helper.make_node("C", ["t"] * k, ["y"], domain="bench")]
        vi = [helper.make_tensor_value_info("y", f, [2])]
    else:
        ts = [f"t{i}" for i in range(k)]
        ys = [f"y{i}" for i in range(k)]
        out_dims = [4] if kind == "nomatch" else [2]
        nodes = [helper.make_node("P", ["x"], ts, domain="bench"),
                 helper.make_node("C", ts, ys, domain="bench")]
        vi = [helper.make_tensor_value_info(t, f, [2]) for t in ts]
        vi += [helper.make_tensor_value_info(y, f, out_dims) for y in ys]
    g = helper.make_graph(nodes, "arity", [helper.make_tensor_value_info("x", f, [2])], [], value_info=vi)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("bench", 1)])
    with open(path, "wb") as fh:
        fh.write(m.SerializeToString())


def median_time(exe, path):
    times = []
    for _ in range(3):
        t = time.perf_counter()
        r = subprocess.run([exe, "inplace", path, "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.decode(errors="replace"))
    return statistics.median(times)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 1
    exe = args[0]
    opt = lambda name, default: args[args.index(name) + 1] if name in args else default
    sizes = [int(s) for s in opt("--sizes", "1000,2000,4000,8000").split(",")]
    repeat = int(opt("--repeat", "200000"))
    cases = [("nomatch", k) for k in sizes] + [("match", k) for k in sizes] + [("repeat", repeat)]
    print("| model | K | file | inplace --json (median of 3) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="inplace-arity-") as d:
        for kind, k in cases:
            path = os.path.join(d, f"{kind}{k}.onnx")
            write_model(path, kind, k)
            s = median_time(exe, path)
            print(f"| {kind} | {k} | {os.path.getsize(path) / 1024:.0f} KB | {s * 1000:.0f} ms |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
