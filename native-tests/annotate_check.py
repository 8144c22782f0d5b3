#!/usr/bin/python3
"""annotate_check.py -- `memplan annotate` round trip on every model we have.

    annotate_check.py MEMPLAN_EXE [--source-dir DIR] [--fixtures DIR] [--schema ONNX_PROTO]
                      [--protoc PROTOC] [--jobs N] [--no-testdata] [MODEL ...]

Models: every libonnx-testdata model, every npm fixture model (same list as
info_check.py), every *.onnx directly in --fixtures, and the MODEL arguments.
For each one that `memplan info` loads:

  1. `memplan inplace MODEL --json` gives the results (JSON);
  2. `memplan annotate MODEL -o OUT` exits 0 and leaves no temporary file;
  3. our loader reads OUT back: `memplan info OUT --json` == `memplan info MODEL --json`;
  4. Debian's python onnx reads OUT (onnx.load); with the metadata_props of the
     nodes, value infos and initializers of the main graph and every body cleared on both sides (through the
     classes of OUR onnx.proto, where those are known fields; onnx 1.12 carries
     them as unknown fields), the input and the output are equal both as our
     schema's ModelProto and as onnx.ModelProto;
  5. those metadata lists are exactly the input's, with each onnx_light.* entry
     the JSON implies replaced in place (the first entry with that key) or
     appended in the order inplace_reuse, release_after, not_used_after,
     release_after_shape_tag, node_tag (nodes) / value_tag (inputs, outputs,
     value_info, initializers), every other onnx_light.* entry removed, and the
     values equal the JSON results; the same for every body (JSON `subgraphs`);
  6. bytes (annotate splices the wire bytes): every top-level field and every
     field of the main graph but its nodes, value infos and initializers is
     byte-identical and in the same order; those keep every field but
     metadata_props byte-identical and in order (a node's attributes field by
     field, the graphs in them checked the same way, recursively), and their
     non-onnx_light metadata entries byte-identical and in order;
  7. with --reference EXE (say the previous binary): that annotate's output is
     equal to ours as protobuf messages (our schema and onnx.ModelProto); not
     for the crafted model, whose repeated and misplaced onnx_light entries
     the unpack/pack implementation (before the splice) kept.
Each model runs with and without --allow-input-overwrite. A crafted model
(unknown fields at every level, raw tensor data, a function, a subgraph, user
and stale onnx_light entries, two graph fields) is added to the list.
Models memplan cannot load must make annotate fail (exit 2) without writing OUT.

Exit 0 when every model passes, 1 otherwise.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import memplan_onnx_schema as wire  # noqa: E402
from info_check import npm_models  # noqa: E402

TESTDATA = "/usr/share/libonnx-testdata/data"
NODE_KEYS = ("onnx_light.inplace_reuse", "onnx_light.release_after", "onnx_light.not_used_after",
             "onnx_light.release_after_shape_tag", "onnx_light.node_tag")


def run(args):
    return subprocess.run(args, capture_output=True, timeout=300)


def names(lst):
    """Names joined by ';', a ';' or '\\' in a name escaped with '\\'."""
    return ";".join(x.replace("\\", "\\\\").replace(";", "\\;") for x in lst)


def node_entries(n):
    """(key, value) pairs the JSON node implies, in writing order."""
    vals = [";".join("%d:%d:%s" % (r["output_index"], r["input_index"], r["kind"]) for r in n["reuse"]),
            names(n["release_after"]), names(n["not_used_after"]),
            names(n.get("release_after_shape_tag", [])), n["tag"] or ""]
    return [(k, v) for k, v in zip(NODE_KEYS, vals) if v]


OURS = NODE_KEYS + ("onnx_light.value_tag",)


def expected_meta(before, entries):
    """The input's list: our entries replaced in place (first of each key) or
    appended, every other entry with one of our keys gone."""
    new, out, placed = dict(entries), [], set()
    for e in before:
        if e.key in OURS:
            if e.key in new and e.key not in placed:
                out.append((e.key, new[e.key]))
                placed.add(e.key)
            continue
        out.append((e.key, e.value))
    return out + [(k, v) for k, v in entries if k not in placed]


def varint(b, p):
    x = s = 0
    while True:
        c = b[p]
        p += 1
        x |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return x, p


def fields(b):
    """[(field, wire type, raw bytes, LEN body)] of a message's bytes."""
    out, p = [], 0
    while p < len(b):
        start = p
        tag, p = varint(b, p)
        wt, body = tag & 7, b""
        if wt == 0:
            _, p = varint(b, p)
        elif wt == 1:
            p += 8
        elif wt == 5:
            p += 4
        elif wt == 2:
            n, p = varint(b, p)
            body = b[p:p + n]
            p += n
        else:
            raise ValueError("wire type %d" % wt)
        out.append((tag >> 3, wt, b[start:p], body))
    return out


CHILD_META = {1: 9, 5: 16, 11: 4, 12: 4, 13: 4}  # GraphProto field -> its messages' metadata_props


def entry_key(body):
    key = None
    for f, wt, _, b in fields(body):
        if f == 1 and wt == 2:
            key = b.split(b"\0")[0].decode(errors="replace")
    return key


def kept(msg, meta):
    """A node/value/initializer's fields but our metadata entries, as raw
    bytes; a node's attributes as the fields of each, with the graphs in
    them (bodies, which annotate edits too) as kept_graph."""
    out = []
    for f, wt, raw, body in fields(msg):
        if f == meta and wt == 2 and entry_key(body) in OURS:
            continue
        if meta == 9 and f == 5 and wt == 2:  # NodeProto.attribute
            out.append([kept_graph(b) if a in (6, 11) and w == 2 else r for a, w, r, b in fields(body)])
            continue
        out.append(raw)
    return out


def kept_graph(g):
    """A GraphProto's fields, its nodes, value infos and initializers as kept()."""
    return [kept(b, CHILD_META[f]) if f in CHILD_META and wt == 2 else raw for f, wt, raw, b in fields(g)]


def check_bytes(src, dst):
    a, b = fields(src), fields(dst)
    if [x[:2] for x in a] != [x[:2] for x in b]:
        return "top-level fields differ in number or order"
    for x, y in zip(a, b):
        if x[0] != 7 or x[1] != 2:
            if x[2] != y[2]:
                return "top-level field %d changed" % x[0]
            continue
        ga, gb = fields(x[3]), fields(y[3])
        if [f[:2] for f in ga] != [f[:2] for f in gb]:
            return "graph fields differ in number or order"
        for f, g in zip(ga, gb):
            meta = CHILD_META.get(f[0]) if f[1] == 2 else None
            if meta is None:
                if f[2] != g[2]:
                    return "graph field %d changed" % f[0]
            elif kept(f[3], meta) != kept(g[3], meta):
                return "graph field %d: a field other than our metadata changed" % f[0]
    return None


def check_meta(where, before, after, entries):
    want = expected_meta(before, entries)
    got = [(e.key, e.value) for e in after]
    if got != want:
        return "%s metadata: got %r, want %r" % (where, got[:8], want[:8])
    return None


def strip_graph(g):
    for n in g.node:
        del n.metadata_props[:]
        for a in n.attribute:
            if a.HasField("g"):
                strip_graph(a.g)
            for sub in a.graphs:
                strip_graph(sub)
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        del vi.metadata_props[:]
    for t in g.initializer:
        del t.metadata_props[:]


def strip(model):
    strip_graph(model.graph)


def body_of(node, attribute):
    """The graph `attribute` ("body", or "branches[1]" for a GRAPHS entry) of node."""
    name, _, idx = attribute.partition("[")
    for a in node.attribute:
        if a.name == name:
            return a.graphs[int(idx[:-1])] if idx else a.g
    return None


def check_graph(where, ga, gb, doc):
    """The metadata of graph ga -> gb against one graph's JSON document, and
    of its bodies against the document's subgraphs."""
    if len(ga.node) != len(doc["nodes"]):
        return "%s: JSON has %d nodes, the file %d" % (where, len(doc["nodes"]), len(ga.node))
    for n in doc["nodes"]:
        fi = n["file_index"]
        err = check_meta("%s node %d" % (where, fi), ga.node[fi].metadata_props, gb.node[fi].metadata_props,
                         node_entries(n))
        if err:
            return err
    tags = {v["name"]: v["tag"] for v in doc["values"]}
    for field in ("input", "output", "value_info", "initializer"):
        for va, vb in zip(getattr(ga, field), getattr(gb, field)):
            tag = tags.get(va.name)
            err = check_meta("%s %s %s" % (where, field, va.name), va.metadata_props, vb.metadata_props,
                             [("onnx_light.value_tag", tag)] if tag else [])
            if err:
                return err
    file_index = {n["index"]: n["file_index"] for n in doc["nodes"]}
    for sg in doc.get("subgraphs", []):
        fi = file_index[sg["node"]]
        sa, sb = body_of(ga.node[fi], sg["attribute"]), body_of(gb.node[fi], sg["attribute"])
        if sa is None or sb is None:
            return "%s: node %d has no body %s" % (where, fi, sg["attribute"])
        err = check_graph("%s/%s of node %d" % (where, sg["attribute"], fi), sa, sb, sg)
        if err:
            return err
    return None


def crafted_model(Model):
    """A model whose bytes test the splice: unknown fields in the model, the
    graph, a node, a value info and an initializer; raw tensor data; a local
    function; user metadata around stale, repeated and misplaced onnx_light
    entries; a second graph field (protobuf merges the two)."""
    from onnx import TensorProto, helper
    W = helper.make_tensor("W", TensorProto.FLOAT, [2, 3], b"\x01\x02\x03\x04" * 6, raw=True)
    fn = helper.make_function("custom", "MyRelu", ["i"], ["o"], [helper.make_node("Relu", ["i"], ["o"])],
                              [helper.make_opsetid("", 13)])
    g = helper.make_graph(
        [helper.make_node("Add", ["X", "W"], ["A"]), helper.make_node("MyRelu", ["A"], ["B"], domain="custom"),
         helper.make_node("Neg", ["B"], ["Y"])], "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3])], [W],
        value_info=[helper.make_tensor_value_info("A", TensorProto.FLOAT, [2, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("custom", 1)],
                          functions=[fn])
    m = wire.convert(m, Model)

    def meta(msg, *kv):
        for k, v in zip(kv[::2], kv[1::2]):
            e = msg.metadata_props.add()
            e.key, e.value = k, v

    def unknown(msg, n):
        msg.MergeFromString(wire.f_varint(1000 + n, n) + wire.f_bytes(2000 + n, "unknown %d" % n))

    node = m.graph.node[0]
    meta(node, "user.a", "1", "onnx_light.node_tag", "stale", "user.b", "2", "onnx_light.node_tag", "repeated",
         "onnx_light.value_tag", "misplaced", "onnx_light.inplace_reuse", "9:9:equal", "user.c", "3")
    unknown(node, 1)
    meta(m.graph.node[2], "onnx_light.release_after_shape_tag", "stale")
    meta(m.graph.input[0], "user.x", "x", "onnx_light.value_tag", "axes")
    unknown(m.graph.input[0], 2)
    meta(m.graph.value_info[0], "onnx_light.value_tag", "shape", "user.v", "v")
    meta(m.graph.initializer[0], "onnx_light.value_tag", "stale", "user.w", "w")
    unknown(m.graph.initializer[0], 3)
    unknown(m.graph, 4)
    unknown(m, 5)
    return m.SerializeToString() + wire.f_bytes(7, wire.f_bytes(2006, "second graph field"))


def check_one(exe, path, Model, tmp, idx, ref=None):
    for opts in ([], ["--allow-input-overwrite"]):
        err = check_opts(exe, path, Model, tmp, idx, opts, ref)
        if err:
            return err if err == "skip" else " ".join(opts + [err])
    return None


def check_opts(exe, path, Model, tmp, idx, opts, ref):
    out = os.path.join(tmp, "out_%d.onnx" % idx)
    info = run([exe, "info", path, "--json"])
    ann = run([exe, "annotate", path, "-o", out] + opts)
    leftovers = [f for f in os.listdir(tmp) if f.startswith("out_%d.onnx.tmp-" % idx)]
    if leftovers:
        return "temporary file left behind: %s" % leftovers
    if info.returncode != 0:
        if ann.returncode != 2 or os.path.exists(out):
            return "unloadable model: annotate exit %d (expected 2), output %s" % (
                ann.returncode, "written" if os.path.exists(out) else "absent")
        return "skip"
    if ann.returncode != 0:
        return "annotate exit %d: %s" % (ann.returncode, ann.stderr.decode(errors="replace").strip()[:300])
    res = run([exe, "inplace", path, "--json"] + opts)
    if res.returncode != 0:
        return "inplace exit %d: %s" % (res.returncode, res.stderr.decode(errors="replace").strip()[:300])
    doc = json.loads(res.stdout)
    info2 = run([exe, "info", out, "--json"])
    if info2.returncode != 0 or info2.stdout != info.stdout:
        return "memplan info of the output differs (exit %d)" % info2.returncode
    with open(path, "rb") as f:
        src = f.read()
    with open(out, "rb") as f:
        dst = f.read()
    os.unlink(out)
    try:
        onnx.load_model_from_string(dst)
    except Exception as e:  # noqa: BLE001
        return "python onnx cannot read the output: %s" % e
    err = check_bytes(src, dst)
    if err:
        return err
    if ref:
        rout = out + ".ref"
        rr = run([ref, "annotate", path, "-o", rout] + opts)
        if rr.returncode != 0:
            return "reference annotate exit %d" % rr.returncode
        with open(rout, "rb") as f:
            rdst = f.read()
        os.unlink(rout)
        if Model.FromString(rdst) != Model.FromString(dst):
            return "differs from the reference (our schema)"
        if onnx.load_model_from_string(rdst) != onnx.load_model_from_string(dst):
            return "differs from the reference (onnx.ModelProto)"
    a, b = Model.FromString(src), Model.FromString(dst)
    err = check_graph("main graph", a.graph, b.graph, doc)
    if err:
        return err
    strip(a)
    strip(b)
    if a != b:
        return "our-schema ModelProto differs beyond the metadata"
    oa, ob = onnx.ModelProto(), onnx.ModelProto()
    oa.ParseFromString(a.SerializeToString())
    ob.ParseFromString(b.SerializeToString())
    if oa != ob:
        return "onnx.ModelProto differs beyond the metadata"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--source-dir", default=os.path.join(HERE, ".."))
    ap.add_argument("--fixtures")
    ap.add_argument("--schema")
    ap.add_argument("--protoc")
    ap.add_argument("--no-testdata", action="store_true")
    ap.add_argument("--reference", help="another memplan whose annotate output must be equal")
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1))
    args = ap.parse_intermixed_args()
    t0 = time.monotonic()
    Model = wire.load_schema(args.schema or wire.DEFAULT_PROTO, args.protoc)["onnx.ModelProto"]

    cases = []
    if not args.no_testdata:
        td = sorted(glob.glob(os.path.join(TESTDATA, "*", "*", "model.onnx")))
        if len(td) < 1000:
            print("FAIL: expected the ~1072 libonnx-testdata models, found %d" % len(td))
            return 1
        cases += [(p, "testdata") for p in td]
    npm, how = npm_models(args.source_dir)
    cases += [(p, "npm") for p in npm]
    fx = sorted(glob.glob(os.path.join(args.fixtures, "*.onnx"))) if args.fixtures else []
    cases += [(p, "fixture") for p in fx]
    cases += [(p, "argument") for p in args.models]

    with tempfile.TemporaryDirectory() as tmp:
        crafted = os.path.join(tmp, "crafted.onnx")
        with open(crafted, "wb") as f:
            f.write(crafted_model(Model))
        cases.append((crafted, "crafted"))
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda ic: check_one(args.exe, ic[1][0], Model, tmp, ic[0],
                                                                args.reference if ic[1][1] != "crafted" else None),
                                    enumerate(cases)))
    failures = [(p, d, r) for (p, d), r in zip(cases, results) if r and r != "skip"]
    skipped = sum(1 for r in results if r == "skip")
    for p, d, r in failures:
        print("FAIL: %s (%s): %s" % (p, d, r))
    counts = {}
    for (_, d), r in zip(cases, results):
        if r is None:
            counts[d] = counts.get(d, 0) + 1
    print("annotate round trip: %d models, %d annotated and compared (%s), %d unloadable (annotate refused, "
          "no output), npm list from %s: %d failure(s), %.1f s" % (
              len(cases), sum(counts.values()), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())),
              skipped, how, len(failures), time.monotonic() - t0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
