#!/usr/bin/python3
"""roundtrip_check.py -- protobuf-c unpack+pack must preserve every model.

    roundtrip_check.py ROUNDTRIP_TOOL [--fixtures DIR] [--schema ONNX_PROTO]
                       [--protoc PROTOC] [--source-dir DIR] [--jobs N] [MODEL ...]

Runs native-tests/roundtrip_tool (unpack with the protobuf-c code generated
from src/onnx/onnx.proto, pack again) on:

  * every libonnx-testdata model (/usr/share/libonnx-testdata/data/*/*/model.onnx),
  * every *.onnx directly in the fixtures dir (when --fixtures is given),
  * the npm fixture models when --source-dir is given (same list as
    info_check.py: scripts/list_fixtures.sh, else node_modules glob),
  * the MODEL arguments,
  * derived models with fields injected at several nesting levels: fields
    unknown to any ONNX schema (all four wire types) and fields of IR 9..13
    that Debian's onnx 1.12 does not know (node metadata_props, overload, ...),

and asserts that the output parses (Debian's python onnx, onnx.ModelProto) to
a message == the input's; unknown fields are part of that equality (the C++
protobuf backend compares them by number and value). With --schema, the same
comparison is also made with classes generated from OUR onnx.proto, where the
IR 9..13 fields are known fields. A model whose unknown field is a group
(wire types 3/4) is not supported by protobuf-c 1.4.1: it must be rejected
(exit 2), not crash.

Exit 0 when every model round-trips, 1 otherwise.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True  # keep the source tree clean

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import memplan_onnx_schema as wire  # noqa: E402

TESTDATA = "/usr/share/libonnx-testdata/data"


def first_difference(a, b, path="ModelProto"):
    """A short description of where two messages differ (for failure reports)."""
    fa = dict((fd.name, v) for fd, v in a.ListFields())
    fb = dict((fd.name, v) for fd, v in b.ListFields())
    for name in sorted(set(fa) | set(fb)):
        if name not in fa or name not in fb:
            return "%s.%s present only in %s" % (path, name, "input" if name in fa else "output")
        va, vb = fa[name], fb[name]
        fd = a.DESCRIPTOR.fields_by_name[name]
        if fd.label == fd.LABEL_REPEATED:
            if len(va) != len(vb):
                return "%s.%s: %d vs %d elements" % (path, name, len(va), len(vb))
            for i, (x, y) in enumerate(zip(va, vb)):
                if x != y:
                    if fd.type == fd.TYPE_MESSAGE:
                        return first_difference(x, y, "%s.%s[%d]" % (path, name, i))
                    return "%s.%s[%d]: %r vs %r" % (path, name, i, x, y)
        elif va != vb:
            if fd.type == fd.TYPE_MESSAGE:
                return first_difference(va, vb, "%s.%s" % (path, name))
            return "%s.%s: %r vs %r" % (path, name, va, vb)
    return "%s: unknown fields differ" % path


def injected_models(tmp):
    """(path, expect_rc, description) of derived models with injected fields."""
    out = []
    unknown = (wire.f_varint(1000, 5) + wire.f_varint(1000, (1 << 64) - 1) +
               wire.f_bytes(1001, b"\x00\xffbytes") + wire.f_fixed32(1002, b"abcd") +
               wire.f_fixed64(1003, b"12345678") + wire.f_bytes(536870911, b"max field number"))

    def save(model, name, desc, rc=0, raw_suffix=b""):
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(model.SerializeToString() + raw_suffix)
        out.append((p, rc, desc))

    # Unknown fields in the model, graph, node, attribute, subgraph node,
    # initializer tensor, value info, type and dimension.
    m = onnx.load(os.path.join(TESTDATA, "node/test_if/model.onnx"))
    wire.add_unknown(m, unknown)
    wire.add_unknown(m.graph, unknown)
    wire.add_unknown(m.graph.node[0], unknown)
    wire.add_unknown(m.graph.node[0].attribute[0], unknown)
    wire.add_unknown(m.graph.node[0].attribute[0].g.node[0], unknown)
    wire.add_unknown(m.graph.input[0], unknown)
    wire.add_unknown(m.graph.input[0].type, unknown)
    wire.add_unknown(m.graph.output[0].type.tensor_type.shape.dim[0], unknown)
    wire.add_unknown(m.opset_import[0], unknown)
    save(m, "unknown_fields_if.onnx", "unknown fields at 9 nesting levels (test_if)")

    m = onnx.load(os.path.join(TESTDATA, "node/test_add/model.onnx"))
    t = m.graph.initializer.add()
    t.CopyFrom(onnx.helper.make_tensor("w_unknown", onnx.TensorProto.FLOAT, [2], [1.0, 2.0]))
    wire.add_unknown(t, unknown)
    save(m, "unknown_fields_tensor.onnx", "unknown fields in an initializer")

    # IR 9..13 fields: unknown to onnx 1.12, known to our schema.
    new = (wire.f_bytes(8, "overload-1") +
           wire.f_bytes(9, wire.f_bytes(1, "nk") + wire.f_bytes(2, "nv")) +
           wire.f_bytes(9, wire.f_bytes(1, "nk2") + wire.f_bytes(2, "nv2")) +
           wire.f_bytes(10, wire.f_bytes(1, "cfg") + wire.f_varint(3, 2)))
    m = onnx.load(os.path.join(TESTDATA, "node/test_loop11/model.onnx"))
    wire.add_unknown(m.graph.node[0], new)
    body = next(a.g for a in m.graph.node[0].attribute if a.name == "body")
    wire.add_unknown(body.node[0], new)
    wire.add_unknown(m.graph.input[0], wire.f_bytes(4, wire.f_bytes(1, "vk") + wire.f_bytes(2, "vv")))
    wire.add_unknown(m.graph, wire.f_bytes(16, wire.f_bytes(1, "gk") + wire.f_bytes(2, "gv")))
    wire.add_unknown(m, wire.f_bytes(26, wire.f_bytes(1, "dev") + wire.f_varint(2, 4)))
    save(m, "ir13_fields_loop.onnx", "IR 9..13 fields (metadata_props, overload, device config)")

    # Group-typed unknown field: protobuf-c 1.4.1 has no group support.
    m = onnx.load(os.path.join(TESTDATA, "node/test_abs/model.onnx"))
    group = wire.key(1000, wire.SGROUP) + wire.f_varint(1, 5) + wire.key(1000, wire.EGROUP)
    save(m, "unknown_group.onnx", "unknown group field (protobuf-c: unsupported)", rc=2,
         raw_suffix=group)
    return out


def check_one(tool, path, expect_rc, schema_model, tmp, idx):
    out_path = os.path.join(tmp, "out_%d.onnx" % idx)
    try:
        res = subprocess.run([tool, path, out_path], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout"
    if res.returncode != expect_rc:
        return "roundtrip_tool exit %d (expected %d): %s" % (
            res.returncode, expect_rc, res.stderr.strip()[:300])
    if expect_rc != 0:
        return None
    with open(path, "rb") as f:
        src = f.read()
    with open(out_path, "rb") as f:
        dst = f.read()
    os.unlink(out_path)
    a, b = onnx.ModelProto(), onnx.ModelProto()
    a.ParseFromString(src)
    b.ParseFromString(dst)
    if a != b:
        return "onnx.ModelProto differs: " + first_difference(a, b)
    if schema_model is not None:
        a, b = schema_model.FromString(src), schema_model.FromString(dst)
        if a != b:
            return "our-schema ModelProto differs: " + first_difference(a, b)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--fixtures")
    ap.add_argument("--schema")
    ap.add_argument("--protoc")
    ap.add_argument("--source-dir")
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1))
    args = ap.parse_intermixed_args()

    t0 = time.monotonic()
    schema_model = None
    if args.schema:
        schema_model = wire.load_schema(args.schema, args.protoc)["onnx.ModelProto"]

    cases = [(p, 0, "testdata") for p in sorted(glob.glob(os.path.join(TESTDATA, "*", "*", "model.onnx")))]
    n_testdata = len(cases)
    if n_testdata < 1000:
        print("FAIL: expected the ~1072 libonnx-testdata models, found %d" % n_testdata)
        return 1
    n_fixtures = 0
    if args.fixtures:
        fx = sorted(glob.glob(os.path.join(args.fixtures, "*.onnx")))
        if not fx:
            print("FAIL: no *.onnx in fixtures dir %s" % args.fixtures)
            return 1
        cases += [(p, 0, "fixture") for p in fx]
        n_fixtures = len(fx)
    n_npm = 0
    if args.source_dir:
        from info_check import npm_models
        npm, _ = npm_models(args.source_dir)
        cases += [(p, 0, "npm") for p in npm]
        n_npm = len(npm)
    cases += [(p, 0, "argument") for p in args.models]

    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        injected = injected_models(tmp)
        cases += injected
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(
                lambda ic: check_one(args.tool, ic[1][0], ic[1][1], schema_model, tmp, ic[0]),
                enumerate(cases)))
        for (path, _, desc), err in zip(cases, results):
            if err:
                failures.append((path, desc, err))

    for path, desc, err in failures:
        print("FAIL: %s (%s): %s" % (path, desc, err))
    elapsed = time.monotonic() - t0
    print("round-trip: %d models (%d testdata, %d fixtures, %d npm, %d arguments, %d injected): "
          "%d failure(s), %.1f s" % (len(cases), n_testdata, n_fixtures, n_npm, len(args.models),
                                     len(injected), len(failures), elapsed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
