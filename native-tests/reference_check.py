#!/usr/bin/python3
"""reference_check.py -- seed 001 results on the cases the reference
implementation's own tests pin (onnx-light). The models are rebuilt here with
Debian's python onnx; the expected results are the ones those tests embed in
their models or assert.

    reference_check.py MEMPLAN_EXE

Tags (SEMANTICS §7), the backend_test shape_tag cases "shape_reshape",
"constant_reshape_ambiguous", "constant_mul_concat_reshape",
"output_is_shape", "concat_weight_wins", "cast_backward",
"reshape_backward": `memplan tags --json` gives exactly the expected value
and node tags, and `memplan annotate` writes them: onnx_light.node_tag on
every node, onnx_light.value_tag on every graph input, output, value_info and
initializer (read back through the project's own schema, which knows
TensorProto.metadata_props).

In-place reuse and release lists (§5-6), an Abs chain over symbolic dims (a
backend_test case) and a Cast chain to a smaller type (a unit test of
WriteInPlaceReuseToMetadata): the onnx_light.inplace_reuse, release_after and
not_used_after entries `memplan annotate` writes on each node.

Per-node memory profile (§8), two cases of its ComputeContext unit tests
(unknown ops whose outputs are typed by value_info): a chain with a larger
intermediate reused "greater", and five symbolic producers summed by one
consumer. The amounts must equal the reference's: total, already allocated,
output allocation, and each bucket summed over tags (the reference test
passes its own tags, so only the sums compare), plus the reuse pairs.

Exit 0 when all agree, 1 otherwise.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import memplan_onnx_schema as wire  # noqa: E402

VI = h.make_tensor_value_info


def const(name, values):
    return h.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(values, dtype=np.int64)))


def init(name, values, dtype):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


# name -> (nodes, inputs, outputs, value_info, initializers, value tags, node tags)
CASES = {
    "shape_reshape": (
        [h.make_node("Shape", ["X"], ["S"]), h.make_node("Reshape", ["X", "S"], ["Y"])],
        [VI("X", T.FLOAT, [2, 3])], [VI("Y", T.FLOAT, [2, 3])], [VI("S", T.INT64, [2])], [],
        {"X": "weight", "S": "shape", "Y": "weight"}, ["shape", "weight"]),
    "constant_reshape_ambiguous": (
        [const("S", [2, 3]), h.make_node("Reshape", ["X", "S"], ["Y"])],
        [VI("X", T.FLOAT, [6])], [VI("Y", T.FLOAT, [2, 3])], [VI("S", T.INT64, [2])], [],
        {"X": "weight", "S": "shape", "Y": "weight"}, ["shape", "weight"]),
    "constant_mul_concat_reshape": (
        [const("S1", [3]), const("two", [2]), h.make_node("Mul", ["S1", "two"], ["S2"]),
         h.make_node("Concat", ["S1", "S2"], ["S_full"], axis=0), h.make_node("Reshape", ["X", "S_full"], ["Y"])],
        [VI("X", T.FLOAT, [18])], [VI("Y", T.FLOAT, [3, 6])],
        [VI("S1", T.INT64, [1]), VI("two", T.INT64, [1]), VI("S2", T.INT64, [1]), VI("S_full", T.INT64, [2])], [],
        {"X": "weight", "S1": "shape", "two": "weight", "S2": "shape", "S_full": "shape", "Y": "weight"},
        ["shape", "weight", "shape", "shape", "weight"]),
    "output_is_shape": (
        [h.make_node("Shape", ["X"], ["Y"])],
        [VI("X", T.FLOAT, [2, 3])], [VI("Y", T.INT64, [2])], [], [],
        {"X": "weight", "Y": "shape"}, ["shape"]),
    "concat_weight_wins": (
        [h.make_node("Concat", ["PAST", "KH"], ["C"], axis=1)],
        [VI("PAST", T.FLOAT, [1, 2, 4])], [VI("C", T.FLOAT, [1, 5, 4])], [],
        [init("KH", np.ones((1, 3, 4)), np.float32)],
        {"PAST": "weight", "KH": "weight", "C": "weight"}, ["weight"]),
    "cast_backward": (
        [h.make_node("Cast", ["X"], ["Y"], to=T.FLOAT), h.make_node("Add", ["W", "Y"], ["Z"])],
        [VI("X", T.INT64, [4])], [VI("Z", T.FLOAT, [4])], [VI("Y", T.FLOAT, [4])],
        [init("W", [1, 2, 3, 4], np.float32)],
        {"X": "weight", "Y": "weight", "W": "weight", "Z": "weight"}, ["weight", "weight"]),
    "reshape_backward": (
        [h.make_node("Reshape", ["X", "S"], ["Y"]), h.make_node("Add", ["W", "Y"], ["Z"])],
        [VI("X", T.FLOAT, [6])], [VI("Z", T.FLOAT, [2, 3])], [VI("Y", T.FLOAT, [2, 3])],
        [init("S", [2, 3], np.int64), init("W", np.ones((2, 3)), np.float32)],
        {"X": "weight", "S": "shape", "Y": "weight", "W": "weight", "Z": "weight"}, ["weight", "weight"]),
}


# name -> (nodes, inputs, outputs, value_info, per node: the expected entries of these keys)
REUSE_KEYS = ("onnx_light.inplace_reuse", "onnx_light.release_after", "onnx_light.not_used_after")
SYM = ["batch", "features"]
INPLACE_CASES = {
    "abs_chain_symbolic": (
        [h.make_node("Abs", ["X"], ["A"]), h.make_node("Abs", ["A"], ["B"]), h.make_node("Abs", ["B"], ["Y"])],
        [VI("X", T.FLOAT, SYM)], [VI("Y", T.FLOAT, SYM)], [VI("A", T.FLOAT, SYM), VI("B", T.FLOAT, SYM)],
        [{"onnx_light.not_used_after": "X"},
         {"onnx_light.inplace_reuse": "0:0:equal", "onnx_light.release_after": "A"},
         {"onnx_light.inplace_reuse": "0:0:equal", "onnx_light.release_after": "B"}]),
    "cast_greater": (
        [h.make_node("Cast", ["X"], ["A"], to=T.INT64), h.make_node("Cast", ["A"], ["Y"], to=T.INT32)],
        [VI("X", T.FLOAT, [4])], [VI("Y", T.INT32, [4])], [],
        [{"onnx_light.not_used_after": "X"},
         {"onnx_light.inplace_reuse": "0:0:greater", "onnx_light.release_after": "A"}]),
}


def check_inplace(exe, tmp, name, case, Model):
    nodes, inputs, outputs, vi, want = case
    g = h.make_graph(nodes, name, inputs, outputs, value_info=vi)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)])
    m.ir_version = 10
    path, out = os.path.join(tmp, name + ".onnx"), os.path.join(tmp, name + ".annotated.onnx")
    onnx.save(m, path)
    r = subprocess.run([exe, "annotate", path, "-o", out], capture_output=True, text=True, timeout=60)
    if r.returncode:
        return ["annotate exit %d: %s" % (r.returncode, r.stderr.strip())]
    with open(out, "rb") as f:
        a = Model.FromString(f.read())
    got = [{k: v for k, v in meta(n.metadata_props).items() if k in REUSE_KEYS} for n in a.graph.node]
    return [] if got == want else ["node entries %s, reference %s" % (got, want)]


# name -> (nodes, inputs, outputs, value_info, initializers, ir_version,
#          {position: (reuse pairs, total, already, output, {bucket: sum over tags})})
PROFILE_CASES = {
    "memory_tracks_sources_and_reuse": (
        [h.make_node("P", ["X", "S"], ["A"]), h.make_node("Q", ["A"], ["B"]), h.make_node("R", ["B"], ["Y"])],
        [VI("X", T.FLOAT, [4])], [VI("Y", T.INT32, [4])], [VI("A", T.FLOAT, [4]), VI("B", T.INT64, [4])],
        [h.make_tensor("S", T.INT64, [1], [4])], 8,
        {0: ([], 40, 24, 16, {"inputs": 16, "initializers": 8, "intermediates": 0, "outputs": 16}),
         1: ([], 72, 40, 32, {"inputs": 16, "initializers": 8, "intermediates": 16, "outputs": 32}),
         2: ([(0, 0)], 56, 56, 0, {"inputs": 16, "initializers": 8, "intermediates": 32, "outputs": 0})}),
    "memory_simplifies_repeated_symbolic_sums": (
        [h.make_node("P", ["X"], ["A%d" % i]) for i in range(5)] + [h.make_node("Q", ["A%d" % i for i in range(5)], ["Y"])],
        [VI("X", T.FLOAT, ["N"])], [VI("Y", T.FLOAT, ["N"])], [VI("A%d" % i, T.FLOAT, ["N"]) for i in range(5)], [], 8,
        {4: ([], "24*N", "20*N", "4*N", {"inputs": "4*N", "intermediates": "16*N", "outputs": "4*N"}),
         5: ([(0, 0)], "24*N", "24*N", 0, {"inputs": "4*N", "intermediates": "20*N", "outputs": 0})}),
}


def bucket_sum(amounts):
    """A bucket's amounts summed over tags: an int, or the one expression string when symbolic."""
    vals = list(amounts.values())
    if all(isinstance(v, int) for v in vals):
        return sum(vals)
    return vals[0] if len(vals) == 1 else vals


def check_profile(exe, tmp, name, case):
    nodes, inputs, outputs, vi, inits, ir, want = case
    g = h.make_graph(nodes, name, inputs, outputs, initializer=inits, value_info=vi)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)])
    m.ir_version = ir
    path = os.path.join(tmp, name + ".onnx")
    onnx.save(m, path)
    r = subprocess.run([exe, "profile", path, "--json"], capture_output=True, text=True, timeout=60)
    if r.returncode:
        return ["profile exit %d: %s" % (r.returncode, r.stderr.strip())]
    doc = {n["index"]: n for n in json.loads(r.stdout)["nodes"]}
    errs = []
    for pos, (reuse, total, already, out, buckets) in want.items():
        n, p = doc[pos], doc[pos]["profile"]
        got = ([(x["output_index"], x["input_index"]) for x in n["reuse"]], p["total_bytes"],
               p["already_allocated_bytes"], p["output_allocation_bytes"],
               {b: bucket_sum(p[b]) for b in buckets})
        if got != (reuse, total, already, out, buckets):
            errs.append("node %d: %s, reference %s" % (pos, got, (reuse, total, already, out, buckets)))
    return errs


def meta(entries):
    return {e.key: e.value for e in entries}


def check(exe, tmp, name, case, Model):
    nodes, inputs, outputs, vi, inits, want_values, want_nodes = case
    g = h.make_graph(nodes, name, inputs, outputs, initializer=inits, value_info=vi)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)])
    m.ir_version = 10
    path = os.path.join(tmp, name + ".onnx")
    onnx.save(m, path)
    r = subprocess.run([exe, "tags", path, "--json"], capture_output=True, text=True, timeout=60)
    if r.returncode:
        return ["tags exit %d: %s" % (r.returncode, r.stderr.strip())]
    doc = json.loads(r.stdout)
    errs = []
    got_values = {v["name"]: v["tag"] for v in doc["values"] if v["tag"] is not None}
    if got_values != want_values:
        errs.append("value tags %s, reference %s" % (got_values, want_values))
    got_nodes = [n["tag"] for n in sorted(doc["nodes"], key=lambda n: n["file_index"])]
    if got_nodes != want_nodes:
        errs.append("node tags %s, reference %s" % (got_nodes, want_nodes))
    out = os.path.join(tmp, name + ".annotated.onnx")
    r = subprocess.run([exe, "annotate", path, "-o", out], capture_output=True, text=True, timeout=60)
    if r.returncode:
        return errs + ["annotate exit %d: %s" % (r.returncode, r.stderr.strip())]
    with open(out, "rb") as f:
        a = Model.FromString(f.read())
    node_tags = [meta(n.metadata_props).get("onnx_light.node_tag") for n in a.graph.node]
    if node_tags != want_nodes:
        errs.append("annotated node_tag %s, reference %s" % (node_tags, want_nodes))
    written = {}
    for field in ("input", "output", "value_info", "initializer"):
        for v in getattr(a.graph, field):
            tag = meta(v.metadata_props).get("onnx_light.value_tag")
            if tag is not None:
                written[v.name] = tag
    want_written = {k: t for k, t in want_values.items()
                    if k in {x.name for x in list(g.input) + list(g.output) + list(g.value_info) + list(g.initializer)}}
    if written != want_written:
        errs.append("annotated value_tag %s, reference %s" % (written, want_written))
    return errs


def main():
    exe = sys.argv[1]
    failures = 0
    Model = wire.load_schema()["onnx.ModelProto"]
    with tempfile.TemporaryDirectory(prefix="tags-ref-") as tmp:
        for name, case in CASES.items():
            errs = check(exe, tmp, name, case, Model)
            for e in errs:
                print("FAIL %s: %s" % (name, e))
            failures += bool(errs)
        for name, case in INPLACE_CASES.items():
            errs = check_inplace(exe, tmp, name, case, Model)
            for e in errs:
                print("FAIL %s: %s" % (name, e))
            failures += bool(errs)
        for name, case in PROFILE_CASES.items():
            errs = check_profile(exe, tmp, name, case)
            for e in errs:
                print("FAIL %s: %s" % (name, e))
            failures += bool(errs)
    n = len(CASES) + len(INPLACE_CASES) + len(PROFILE_CASES)
    print("reference_check: %d cases, %d failed" % (n, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
