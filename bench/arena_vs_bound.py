#!/usr/bin/python3
"""Arena size vs lower bound on real models.

Plans each model with `memplan plan --json` (its own shape inference), binding
every dim name the plan reports as unbound to a value (default 64; names
containing "seq"/"len"/"time" get 512, "batch" gets 1) and every input whose
value it asks for (`unknown.value_inputs`: a sample rate "sr" gets 16000, others
1), and prints the arena against the lower bound. With --onnx-infer the model first gets the value_info
of Debian's onnx.shape_inference.infer_shapes (the old way, for comparison).
Usage: arena_vs_bound.py MEMPLAN_EXE [--budget-ms N] [--onnx-infer] MODEL...
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import onnx
from onnx import shape_inference


def bind_value(name, scale=1):
    low = name.lower()
    if "batch" in low:
        return 1
    if any(k in low for k in ("seq", "len", "time", "sample")):
        return 512 * scale
    return 64 * scale


def input_value(name):
    low = name.lower()
    if low == "sr" or "rate" in low:
        return 16000
    return 1


def plan(exe, path, extra):
    out = subprocess.run([exe, "plan", path, "--json", *extra], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


def main():
    args = sys.argv[1:]
    exe = args.pop(0)
    budget = "20"
    onnx_infer = False
    while args and args[0].startswith("--"):
        if args[0] == "--budget-ms":
            budget = args[1]
            args = args[2:]
        elif args[0] == "--onnx-infer":
            onnx_infer = True
            args = args[1:]
        else:
            sys.exit(f"unknown option {args[0]}")
    ratios = []
    print(f"{'model':48} {'owners':>6} {'naive':>12} {'slots':>12} {'arena':>12} {'bound':>12} {'arena/bound':>11} {'ms':>6}")
    for path in args:
        model = onnx.load(path, load_external_data=False)
        if onnx_infer:
            try:
                model = shape_inference.infer_shapes(model)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"{os.path.basename(path):48} infer_shapes failed: {e}")
                continue
        with tempfile.NamedTemporaryFile(suffix=".onnx", delete=False) as f:
            f.write(model.SerializeToString())
            tmp = f.name
        try:
            first = plan(exe, tmp, ["--budget-ms", budget])
            # Dims first, then the input values a bound dim may reveal (an If on
            # the sample rate), until the plan asks for nothing new; when it is
            # still deferred (a size negative: the dims too small for the
            # model, as 64 samples for Silero VAD's 256-wide STFT), again
            # with the dims 8 and 64 times larger.
            for scale in (1, 8, 64):
                doc, binds, bound = first, [], set()
                for _ in range(4):
                    if doc["status"] != "deferred":
                        break
                    asked = [("--dim", d, bind_value(d, scale)) for d in doc["unknown"]["dims"][:256]]
                    asked += [("--value", v, input_value(v)) for v in doc["unknown"].get("value_inputs", [])]
                    new = [a for a in asked if a[1] not in bound]
                    if not new:
                        break
                    for flag, name, value in new:
                        bound.add(name)
                        binds += [flag, f"{name}={value}"]
                    doc = plan(exe, tmp, ["--budget-ms", budget, *binds])
                if doc["status"] != "deferred" or not binds:
                    break
            t0 = time.perf_counter()
            doc = plan(exe, tmp, ["--budget-ms", budget, *binds])
            ms = (time.perf_counter() - t0) * 1000
        finally:
            os.unlink(tmp)
        name = os.path.basename(os.path.dirname(os.path.dirname(path))) + "/" + os.path.basename(path)
        if doc["status"] != "planned":
            unknown = len(doc["unknown"]["values"])
            print(f"{name[-48:]:48} deferred: {unknown} values without a known size")
            continue
        owners = sum(1 for v in doc["values"] if not v["view"])
        bound = doc["lower_bound_bytes"]
        arena = doc["strategies"]["arena"]
        r = arena / bound if bound else 1.0
        ratios.append(r)
        print(f"{name[-48:]:48} {owners:6} {doc['naive_bytes']:12} {doc['strategies']['slots']:12} {arena:12} {bound:12} {r:11.4f} {ms:6.0f}")
    if ratios:
        gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"planned {len(ratios)} models; geometric mean arena/bound {gm:.4f}; worst {max(ratios):.4f}")


if __name__ == "__main__":
    main()
