#!/usr/bin/python3
"""Fraction of top-level intermediates with a known byte size (static or
symbolic): memplan's own shape inference vs Debian's onnx.shape_inference;
and ("by inputs") the fraction whose size names only the graph inputs' dims,
so that binding the input dims alone gives it (no internal unk__N symbol).

usage: shapes_coverage.py MEMPLAN_EXE MODEL...
"""
import json
import os
import re
import subprocess
import sys
import time

import onnx
from onnx import shape_inference


def onnx_known(model):
    """Node outputs whose type infer_shapes gives a full shape (values or params)."""
    try:
        inferred = shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001
        return None
    typed = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        t = vi.type.tensor_type
        if vi.type.HasField("tensor_type") and t.HasField("shape") and t.elem_type:
            typed[vi.name] = all(d.HasField("dim_value") or d.HasField("dim_param") for d in t.shape.dim)
    return typed


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def names(amount):
    """Dim names in a printed amount (an int, or an expression string)."""
    if not isinstance(amount, str):
        return set()
    return set(NAME.findall(amount)) - {"max", "min"}


def main():
    exe = sys.argv[1]
    tot_m = tot_o = tot_n = tot_b = 0
    print(f"{'model':52} {'intermediates':>13} {'memplan':>9} {'by inputs':>9} {'onnx 1.12':>9} {'ms':>6}")
    for path in sys.argv[2:]:
        model = onnx.load(path, load_external_data=False)
        outs = [o for n in model.graph.node for o in n.output if o]
        t0 = time.perf_counter()
        r = subprocess.run([exe, "shapes", path, "--json"], capture_output=True, text=True)
        ms = (time.perf_counter() - t0) * 1000
        if r.returncode != 0:
            print(f"{os.path.basename(path):52} memplan failed: {r.stderr.strip()}")
            continue
        doc = json.loads(r.stdout)
        byname = {v["name"]: v for v in doc["values"]}
        mine = sum(1 for o in outs if byname.get(o, {}).get("bytes") is not None)
        inputs = {i.name for i in model.graph.input} - {t.name for t in model.graph.initializer}
        input_dims = set()
        for v in doc["values"]:
            if v["name"] in inputs:
                for d in v["shape"] or []:
                    input_dims |= names(d)
        by_inputs = sum(1 for o in outs if byname.get(o, {}).get("bytes") is not None
                        and names(byname[o]["bytes"]) <= input_dims)
        theirs = onnx_known(model)
        ox = sum(1 for o in outs if theirs and theirs.get(o)) if theirs is not None else 0
        n = len(outs)
        tot_m += mine
        tot_o += ox
        tot_n += n
        tot_b += by_inputs
        name = os.path.basename(os.path.dirname(os.path.dirname(path))) + "/" + os.path.basename(path)
        print(f"{name[-52:]:52} {n:13} {100.0 * mine / max(n, 1):8.1f}% {100.0 * by_inputs / max(n, 1):8.1f}% "
              f"{100.0 * ox / max(n, 1):8.1f}% {ms:6.0f}")
    if tot_n:
        print(f"{'all':52} {tot_n:13} {100.0 * tot_m / tot_n:8.1f}% {100.0 * tot_b / tot_n:8.1f}% "
              f"{100.0 * tot_o / tot_n:8.1f}%")


if __name__ == "__main__":
    main()
