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
     main graph's nodes, value infos and initializers cleared on both sides (through the
     classes of OUR onnx.proto, where those are known fields; onnx 1.12 carries
     them as unknown fields), the input and the output are equal both as our
     schema's ModelProto and as onnx.ModelProto;
  5. those metadata lists are exactly the input's, with each onnx_light.* entry
     the JSON implies replaced in place (same key) or appended in the order
     inplace_reuse, release_after, not_used_after, release_after_shape_tag,
     node_tag (nodes) / value_tag (inputs, outputs, value_info, initializers), and the values
     equal the JSON results.
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


def expected_meta(before, entries):
    """The input's list with entries replaced in place or appended."""
    out = [(e.key, e.value) for e in before]
    for key, value in entries:
        idx = next((i for i, (k, _) in enumerate(out) if k == key), None)
        if idx is None:
            out.append((key, value))
        else:
            out[idx] = (key, value)
    return out


def check_meta(where, before, after, entries):
    want = expected_meta(before, entries)
    got = [(e.key, e.value) for e in after]
    if got != want:
        return "%s metadata: got %r, want %r" % (where, got[:8], want[:8])
    return None


def strip(model):
    for n in model.graph.node:
        del n.metadata_props[:]
    for vi in list(model.graph.input) + list(model.graph.output) + list(model.graph.value_info):
        del vi.metadata_props[:]
    for t in model.graph.initializer:
        del t.metadata_props[:]


def check_one(exe, path, Model, tmp, idx):
    out = os.path.join(tmp, "out_%d.onnx" % idx)
    info = run([exe, "info", path, "--json"])
    ann = run([exe, "annotate", path, "-o", out])
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
    res = run([exe, "inplace", path, "--json"])
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
    a, b = Model.FromString(src), Model.FromString(dst)
    if len(a.graph.node) != len(doc["nodes"]):
        return "JSON has %d nodes, the file %d" % (len(doc["nodes"]), len(a.graph.node))
    for n in doc["nodes"]:
        fi = n["file_index"]
        err = check_meta("node %d" % fi, a.graph.node[fi].metadata_props, b.graph.node[fi].metadata_props,
                         node_entries(n))
        if err:
            return err
    tags = {v["name"]: v["tag"] for v in doc["values"]}
    for field in ("input", "output", "value_info", "initializer"):
        for va, vb in zip(getattr(a.graph, field), getattr(b.graph, field)):
            tag = tags.get(va.name)
            err = check_meta("%s %s" % (field, va.name), va.metadata_props, vb.metadata_props,
                             [("onnx_light.value_tag", tag)] if tag else [])
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
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda ic: check_one(args.exe, ic[1][0], Model, tmp, ic[0]), enumerate(cases)))
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
