#!/usr/bin/python3
"""`memplan plan MODEL --trace OUT.json` against the trace-event format and the plan.

For every planned fixture (and symbolic.onnx with its dims bound) the trace must
be valid JSON that obeys the format's rules: an object with a traceEvents list;
every event has name, ph, ts, pid, tid; X events have a dur >= 0; C events have
args of numbers; ts never falls along a track (pid, tid) in file order; slices
on one track do not overlap. It must say what the plan says: one X per placed
owner, named the value's name, with the plan's size, arena offset, slot
(`--strategy slots`), first/last positions; one per transient ("NODE body");
the maximum of "live bytes" is the lower bound and of "arena top" the arena.
residual.onnx is checked event by event. A deferred plan, a command without
--trace and a trace over the model are refused without writing a file.
Usage: trace_check.py MEMPLAN FIXTURES_DIR
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_rules(where, doc):
    """The format's rules; returns the events (empty when the shape is wrong)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail(f"{where}: not an object with a traceEvents list")
        return []
    last_ts, slices = {}, {}
    for i, e in enumerate(doc["traceEvents"]):
        at = f"{where}: event {i} {e.get('name')!r}"
        for k in ("name", "ph", "ts", "pid", "tid"):
            if k not in e:
                fail(f"{at}: no {k}")
        if not all(is_num(e.get(k)) for k in ("ts", "pid", "tid")) or not isinstance(e.get("name"), str):
            fail(f"{at}: ts/pid/tid not numbers or name not a string")
            continue
        if e["ph"] not in ("M", "C", "X"):
            fail(f"{at}: unexpected ph {e['ph']!r}")
        if e["ph"] == "X" and not (is_num(e.get("dur")) and e["dur"] >= 0):
            fail(f"{at}: X without a dur >= 0")
        if e["ph"] == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(is_num(v) for v in args.values()):
                fail(f"{at}: counter args are not numbers: {args!r}")
        if e["ph"] == "M":
            continue
        track = (e["pid"], e["tid"])
        if e["ts"] < last_ts.get(track, 0):
            fail(f"{at}: ts {e['ts']} before {last_ts[track]} on track {track}")
        last_ts[track] = e["ts"]
        if e["ph"] == "X":
            if e["ts"] < slices.get(track, 0):
                fail(f"{at}: overlaps the previous slice on track {track}")
            slices[track] = e["ts"] + e["dur"]
    return doc["traceEvents"]


def trace_of(memplan, model, dims, out):
    flags = sum((["--dim", d] for d in dims), [])
    r = run([memplan, "plan", model, "--trace", out, *flags])
    if r.returncode != 0:
        fail(f"{model}: plan --trace exited {r.returncode}: {r.stderr.strip()}")
        return None
    with open(out, encoding="utf-8") as f:
        return json.load(f)  # invalid JSON raises: the test fails


def check_against_plan(memplan, model, dims, events):
    flags = sum((["--dim", d] for d in dims), [])
    plan = json.loads(run([memplan, "plan", model, "--json", "--no-nodes", "--strategy", "slots", *flags]).stdout)
    arena = json.loads(run([memplan, "plan", model, "--json", "--no-nodes", *flags]).stdout)
    slot_of = {v["name"]: v["slot"] for v in plan["values"]}
    want = sorted((v["name"], v["size"], v["offset"], slot_of[v["name"]], v["start"], v["end"])
                  for v in arena["values"] if not v["view"] and v["offset"] is not None)
    want += sorted((f"{t['node']} body", t["bytes"], t["offset"], None, t["position"], t["position"])
                   for t in arena.get("transients", []) if t["offset"] is not None)
    xs = [e for e in events if e["ph"] == "X"]
    got = sorted((e["name"], e["args"]["size"], e["args"]["offset"], e["args"]["slot"], e["args"]["first"],
                  e["args"]["last"]) for e in xs if not e["args"]["transient"])
    got += sorted((e["name"], e["args"]["size"], e["args"]["offset"], None, e["args"]["first"], e["args"]["last"])
                  for e in xs if e["args"]["transient"])
    if got != want:
        fail(f"{model}: slices {got} want {want}")
    for e in xs:
        if e["tid"] != e["args"]["slot"] + 1 or e["ts"] != e["args"]["first"] or \
                e["dur"] != e["args"]["last"] + 1 - e["args"]["first"]:
            fail(f"{model}: slice {e['name']!r} at tid {e['tid']} ts {e['ts']} dur {e['dur']}, args {e['args']}")
    peak = {name: max([e["args"]["bytes"] for e in events if e["ph"] == "C" and e["name"] == name] or [-1])
            for name in ("live bytes", "arena top", "lower bound")}
    want_peak = {"live bytes": arena["lower_bound_bytes"], "arena top": arena["peak_bytes"],
                 "lower bound": arena["lower_bound_bytes"]}
    if peak != want_peak:
        fail(f"{model}: counter maxima {peak}, want {want_peak}")


# residual.onnx: a = Relu(X) live 0..3, b = Abs(a) 1..2, c = Mul(b) 2..3,
# Y = Add(a, c) 3..3, each float[1,4,8,8] = 1024 bytes; Y reuses b's slot.
RESIDUAL = [
    ("M", "process_name", 0, 0, None, {"name": "memplan: residual"}),
    ("M", "thread_name", 0, 0, None, {"name": "memory"}),
    ("M", "thread_name", 0, 1, None, {"name": "slot 0 (1024 bytes)"}),
    ("M", "thread_name", 0, 2, None, {"name": "slot 1 (1024 bytes)"}),
    ("M", "thread_name", 0, 3, None, {"name": "slot 2 (1024 bytes)"}),
    ("C", "lower bound", 0, 0, None, {"bytes": 3072}),
    ("C", "live bytes", 0, 0, None, {"bytes": 1024}),
    ("C", "arena top", 0, 0, None, {"bytes": 1024}),
    ("C", "live bytes", 1, 0, None, {"bytes": 2048}),
    ("C", "arena top", 1, 0, None, {"bytes": 2048}),
    ("C", "live bytes", 2, 0, None, {"bytes": 3072}),
    ("C", "arena top", 2, 0, None, {"bytes": 3072}),
    ("C", "live bytes", 4, 0, None, {"bytes": 0}),
    ("C", "arena top", 4, 0, None, {"bytes": 0}),
    ("C", "lower bound", 4, 0, None, {"bytes": 3072}),
    ("X", "a", 0, 1, 4, {"size": 1024, "offset": 0, "slot": 0, "first": 0, "last": 3, "op": "Relu",
                         "node": "relu_a", "transient": False}),
    ("X", "b", 1, 2, 2, {"size": 1024, "offset": 1024, "slot": 1, "first": 1, "last": 2, "op": "Abs",
                         "node": "abs_b", "transient": False}),
    ("X", "Y", 3, 2, 1, {"size": 1024, "offset": 1024, "slot": 1, "first": 3, "last": 3, "op": "Add",
                         "node": "add_Y", "transient": False}),
    ("X", "c", 2, 3, 2, {"size": 1024, "offset": 2048, "slot": 2, "first": 2, "last": 3, "op": "Mul",
                         "node": "mul_c", "transient": False}),
]


def main():
    memplan, fixtures = sys.argv[1:3]
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "trace.json")
    cases = []
    for model in sorted(glob.glob(os.path.join(fixtures, "*.onnx"))):
        r = run([memplan, "plan", model, "--json", "--no-nodes"])
        if r.returncode == 0 and json.loads(r.stdout)["status"] == "planned":
            cases.append((model, []))
    cases.append((os.path.join(fixtures, "symbolic.onnx"), ["batch=2", "seq=16", "U:0=3"]))
    transients = 0
    for model, dims in cases:
        doc = trace_of(memplan, model, dims, out)
        if doc is None:
            continue
        events = check_rules(os.path.basename(model), doc)
        check_against_plan(memplan, model, dims, events)
        transients += sum(1 for e in events if e["ph"] == "X" and e["args"]["transient"])
    if len(cases) < 10 or transients < 2:
        fail(f"only {len(cases)} models, {transients} transient slices: the fixtures are missing")

    doc = trace_of(memplan, os.path.join(fixtures, "residual.onnx"), [], out)
    got = [(e["ph"], e["name"], e["ts"], e["tid"], e.get("dur"), e["args"]) for e in doc["traceEvents"]]
    if got != RESIDUAL or any(e["pid"] != 1 for e in doc["traceEvents"]):
        fail(f"residual.onnx: events\n{got}\nwant\n{RESIDUAL}")
    if doc.get("otherData", {}).get("arena_bytes") != 3072:
        fail(f"residual.onnx: otherData {doc.get('otherData')}")

    # Refusals: nothing written, a message that says why.
    os.remove(out)
    sym = os.path.join(fixtures, "symbolic.onnx")
    for cmd, code, words in (
            ([memplan, "plan", sym, "--trace", out], 1, "--dim batch=N"),
            ([memplan, "info", sym, "--trace", out], 1, "--trace does not apply to info"),
            ([memplan, "plan", sym, "--trace"], 1, "--trace takes a file path"),
            ([memplan, "plan", sym, "--trace", sym], 1, "the trace file is the model itself")):
        r = run(cmd)
        if r.returncode != code or words not in r.stderr or r.stdout or os.path.exists(out):
            fail(f"{cmd[1:]}: exit {r.returncode}, stderr {r.stderr.strip()!r}, stdout {r.stdout[:80]!r}")
    print(f"trace_check: {len(cases)} models, {transients} transient slices, {len(failures)} failures")
    sys.exit(1 if failures else 0)


main()
