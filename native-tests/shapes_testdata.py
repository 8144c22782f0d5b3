#!/usr/bin/python3
"""ONNX's own backend tests as evidence for shape inference.

For every case under /usr/share/libonnx-testdata/data/*/*/ (model.onnx plus
test_data_set_0/{input,output}_*.pb):
  1. drop the declared shapes of the outputs and of every value_info;
  2. bind the graph inputs to the dims of input_*.pb; small integer inputs
     (<= 64 elements: shape tensors, axes, pads...) also get their values, as
     initializers, since real models carry those as constants;
  3. run `memplan shapes --json`;
  4. compare every tensor output with the dims of output_*.pb.
A case passes when every tensor output's shape is exactly right. Sequence /
optional / map outputs are not compared. Writes a per-op pass/total table and
fails when a case listed in the baseline no longer passes, or when memplan
crashes (exit code other than 0/2) on any case.

Inputs bound with values: int64/int32/bool/float/double tensors of at most 64 elements.

usage: shapes_testdata.py MEMPLAN_EXE [--table OUT.md] [--baseline FILE]
                          [--update-baseline] [--filter SUBSTR] [-v]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data"
# Small inputs of these types are bound with their values (as initializers):
# shape tensors, axes, pads, scales, sizes, depths, conditions.
BOUND_TYPES = (onnx.TensorProto.INT64, onnx.TensorProto.INT32, onnx.TensorProto.BOOL,
               onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE)


def snake(op):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()


def classify(case, model):
    """The op a case tests: the op type whose snake_case name best prefixes it."""
    name = case[len("test_"):] if case.startswith("test_") else case
    best = None
    for n in model.graph.node:
        s = snake(n.op_type)
        if name.startswith(s) and (best is None or len(s) > len(snake(best))):
            best = n.op_type
    if best:
        return best
    if len(model.graph.node) == 1:
        return model.graph.node[0].op_type
    return "(model)"


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        data = f.read()
    try:
        t.ParseFromString(data)
    except Exception:  # noqa: BLE001
        return None
    if not t.dims and not t.raw_data and not t.float_data and not t.int64_data and not t.int32_data:
        # SequenceProto / OptionalProto parse as an empty TensorProto
        if t.data_type == 0:
            return None
    if t.data_type == 0:
        return None
    return t


def prepare(case_dir):
    model = onnx.load(os.path.join(case_dir, "model.onnx"), load_external_data=False)
    g = model.graph
    del g.value_info[:]
    for o in g.output:
        if o.type.HasField("tensor_type"):
            o.type.tensor_type.ClearField("shape")
    inits = {t.name for t in g.initializer}
    real_inputs = [i for i in g.input if i.name not in inits]
    ds = os.path.join(case_dir, "test_data_set_0")
    for k, inp in enumerate(real_inputs):
        p = os.path.join(ds, f"input_{k}.pb")
        if not os.path.exists(p):
            continue
        t = read_pb(p)
        if t is None or not inp.type.HasField("tensor_type"):
            continue
        shape = inp.type.tensor_type.shape
        shape.ClearField("dim")
        for d in t.dims:
            shape.dim.add().dim_value = d
        n = 1
        for d in t.dims:
            n *= d
        if t.data_type in BOUND_TYPES and n <= 64:
            arr = numpy_helper.to_array(t)
            init = numpy_helper.from_array(arr, inp.name)
            g.initializer.append(init)
    expected = []
    for k, out in enumerate(g.output):
        p = os.path.join(ds, f"output_{k}.pb")
        # only tensor outputs are compared (sequence/optional .pb files would
        # misparse as TensorProto)
        is_tensor = out.type.HasField("tensor_type")
        t = read_pb(p) if is_tensor and os.path.exists(p) else None
        expected.append((out.name, list(t.dims) if t is not None else None))
    return model, expected


def run_case(exe, case_dir, tmpdir):
    model, expected = prepare(case_dir)
    path = os.path.join(tmpdir, "m.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    r = subprocess.run([exe, "shapes", path, "--json"], capture_output=True, text=True, timeout=60)
    if r.returncode not in (0, 2):
        return model, "crash", f"exit {r.returncode}: {r.stderr.strip()[:200]}"
    if r.returncode != 0:
        return model, "fail", "error: " + r.stderr.strip()[:200]
    doc = json.loads(r.stdout)
    got = {v["name"]: v for v in doc["values"]}
    compared = 0
    for name, dims in expected:
        if dims is None:
            continue
        compared += 1
        v = got.get(name)
        if v is None or v["shape"] != dims:
            shape = v["shape"] if v else None
            why = v.get("reason", "") if v else "missing"
            return model, "fail", f"{name}: expected {dims}, got {shape} {why}".strip()
    if compared == 0:
        return model, "skip", "no tensor outputs to compare"
    return model, "pass", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--table")
    ap.add_argument("--baseline")
    ap.add_argument("--update-baseline", action="store_true")
    ap.add_argument("--filter")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    cases = sorted(glob.glob(os.path.join(DATA, "*", "*", "model.onnx")))
    if not cases:
        print("shapes-testdata: FAIL: libonnx-testdata is not installed (scripts/setup.sh installs it)")
        return 1
    per_op = defaultdict(lambda: [0, 0])
    results = {}
    crashes = []
    with tempfile.TemporaryDirectory() as tmp:
        for m in cases:
            d = os.path.dirname(m)
            case = os.path.relpath(d, DATA)
            if a.filter and a.filter not in case:
                continue
            model, status, why = run_case(a.exe, d, tmp)
            results[case] = (status, why)
            if status == "skip":
                continue
            op = classify(os.path.basename(d), model)
            per_op[op][1] += 1
            if status == "pass":
                per_op[op][0] += 1
            if status == "crash":
                crashes.append(case)
            if a.v and status != "pass":
                print(f"{status}: {case}: {why}")
    graded = [c for c, (s, _) in results.items() if s != "skip"]
    passed = [c for c in graded if results[c][0] == "pass"]
    pct = 100.0 * len(passed) / len(graded) if graded else 0.0
    if a.table:
        with open(a.table, "w") as f:
            f.write("# Shape inference on ONNX's backend tests (libonnx-testdata 1.12)\n\n")
            f.write("Generated by `native-tests/shapes_testdata.py` (see its docstring for the method).\n\n")
            f.write(f"**{len(passed)} / {len(graded)} cases exactly right ({pct:.1f}%)**, "
                    f"{len(crashes)} crashes, {len(results) - len(graded)} cases without tensor outputs.\n\n")
            f.write("| op | pass | total |\n|---|---|---|\n")
            for op in sorted(per_op):
                p, t = per_op[op]
                f.write(f"| {op} | {p} | {t} |\n")
            f.write("\n## Cases that do not pass\n\n")
            for c in sorted(graded):
                if results[c][0] != "pass":
                    f.write(f"- `{c}`: {results[c][1]}\n")
    regressions = []
    if a.baseline and os.path.exists(a.baseline) and not a.update_baseline:
        with open(a.baseline) as f:
            base = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        regressions = [c for c in base if c in results and results[c][0] != "pass"]
        for c in regressions:
            print(f"REGRESSION: {c}: {results[c][1]}")
    if a.baseline and a.update_baseline:
        with open(a.baseline, "w") as f:
            f.write("# libonnx-testdata cases whose shapes memplan infers exactly; a case here that fails is a regression\n")
            for c in sorted(passed):
                f.write(c + "\n")
    for c in crashes:
        print(f"CRASH: {c}: {results[c][1]}")
    print(f"shapes-testdata: {len(passed)} of {len(graded)} cases exactly right ({pct:.1f}%), "
          f"{len(crashes)} crashes, {len(regressions)} regressions")
    return 1 if crashes or regressions else 0


if __name__ == "__main__":
    sys.exit(main())
