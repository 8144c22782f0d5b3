#!/usr/bin/python3
"""fuzz_seeds.py OUTDIR MODEL... -- seed inputs for the model fuzz targets.

Copies each MODEL (an .onnx path) into OUTDIR with every tensor's element data
removed (initializers, Constant values and tensor attributes, in every
subgraph and function), keeping names, dtypes, dims and the graph structure:
the fuzzers then mutate graphs, not megabytes of weights. Models that python
onnx cannot read are copied as they are (truncated to --max-len). Output files
are named <index>_<basename>. Written for Debian's /usr/bin/python3 (onnx 1.12);
run by scripts/fuzz.sh, never committed.
"""
import argparse
import os
import sys

import onnx

DATA_FIELDS = ("raw_data", "float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


def strip_tensor(t):
    for f in DATA_FIELDS:
        t.ClearField(f)


def strip_graph(g):
    for t in g.initializer:
        strip_tensor(t)
    for n in g.node:
        strip_attrs(n.attribute)


def strip_attrs(attrs):
    for a in attrs:
        if a.HasField("t"):
            strip_tensor(a.t)
        for t in a.tensors:
            strip_tensor(t)
        if a.HasField("g"):
            strip_graph(a.g)
        for sg in a.graphs:
            strip_graph(sg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--max-len", type=int, default=1 << 20)
    args = ap.parse_intermixed_args()
    os.makedirs(args.outdir, exist_ok=True)
    kept = 0
    for i, path in enumerate(args.models):
        with open(path, "rb") as f:
            data = f.read()
        try:
            m = onnx.ModelProto()
            m.ParseFromString(data)
            strip_graph(m.graph)
            for fn in m.functions:
                for n in fn.node:
                    strip_attrs(n.attribute)
            out = m.SerializeToString()
        except Exception:  # not a model (bad fixtures): keep the bytes
            out = data
        if len(out) > args.max_len:
            continue
        name = "%04d_%s" % (i, os.path.basename(path) if os.path.basename(path) != "model.onnx"
                            else os.path.basename(os.path.dirname(path)) + ".onnx")
        with open(os.path.join(args.outdir, name), "wb") as f:
            f.write(out)
        kept += 1
    print("fuzz_seeds: %d of %d models in %s" % (kept, len(args.models), args.outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
