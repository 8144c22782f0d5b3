#!/usr/bin/python3
"""examples/allocate.c against `memplan plan --json`.

For every npm fixture model (dims bound as bench/arena_vs_bound.py binds them)
and every generated fixture, the example must print the plan's arena size and,
for each placed value, exactly the plan's offset and size; a deferred plan must
exit 3 naming the same unbound dims.
Usage: example_check.py ALLOCATE MEMPLAN SOURCE_DIR FIXTURES_DIR
"""
import glob
import json
import os
import subprocess
import sys


def bind_value(name):
    low = name.lower()
    if "batch" in low:
        return 1
    if any(k in low for k in ("seq", "len", "time", "sample")):
        return 512
    return 64


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def check(allocate, memplan, path, dims):
    plan = run([memplan, "plan", path, "--json", *sum((["--dim", d] for d in dims), [])])
    if plan.returncode != 0:
        return None  # not plannable (bad-input fixtures): nothing to compare
    doc = json.loads(plan.stdout)
    ex = run([allocate, path, *dims])
    if doc["status"] == "deferred":
        if ex.returncode != 3:
            return f"deferred plan, but allocate exited {ex.returncode}: {ex.stderr.strip()}"
        want = " ".join(f"{d}=N" for d in doc["unknown"]["dims"])
        if want and want not in ex.stderr:
            return f"allocate does not name the unbound dims {want!r}: {ex.stderr.strip()}"
        return ""
    if ex.returncode != 0:
        return f"allocate exited {ex.returncode}: {ex.stderr.strip()}"
    first, _, rest = ex.stdout.partition("\n")
    head = f"arena {doc['peak_bytes']} bytes (lower bound {doc['lower_bound_bytes']}, naive {doc['naive_bytes']}),"
    if not first.startswith(head):
        return f"first line {first!r}, want it to start with {head!r}"
    want = []
    for v in doc["values"]:
        if v["offset"] is None:
            continue
        line = f"{v['offset']} {v['size'] if v['size'] is not None else 0} {v['start']}-{v['end']} {v['name']}"
        if v["view"]:
            line += f" view of {v['owner']}"
        want.append(line + "\n")
    if rest != "".join(want):  # names may hold newlines: compare the whole text
        got = rest.split("\n")
        for i, w in enumerate("".join(want).split("\n")):
            if i >= len(got) or got[i] != w:
                return f"value text line {i}: got {got[i] if i < len(got) else None!r}, want {w!r}"
        return "the value lines differ"
    return ""


def main():
    allocate, memplan, source, fixtures = sys.argv[1:5]
    npm = run(["node", os.path.join(source, "scripts", "list_fixtures.mjs"), "--unique"])
    if npm.returncode != 0:
        sys.exit(f"list_fixtures.mjs failed: {npm.stderr}")
    models = [(p, True) for p in npm.stdout.split()]
    models += [(p, False) for p in sorted(glob.glob(os.path.join(fixtures, "*.onnx")))]
    failures, checked, planned = 0, 0, 0
    for path, bind in models:
        dims = []
        if bind:
            first = run([memplan, "plan", path, "--json", "--no-nodes"])
            if first.returncode == 0:
                doc = json.loads(first.stdout)
                if doc["status"] == "deferred":
                    dims = [f"{d}={bind_value(d)}" for d in doc["unknown"]["dims"]]
        msg = check(allocate, memplan, path, dims)
        if msg is None:
            continue
        checked += 1
        if msg:
            failures += 1
            print(f"FAIL {path} {' '.join(dims)}: {msg}")
        else:
            planned += 1
    print(f"example_allocate: {checked} models checked, {failures} failed")
    if checked < 20:
        sys.exit(f"only {checked} models could be checked: the fixtures are missing")
    sys.exit(1 if failures else 0)


main()
