#!/usr/bin/python3
"""pack_check.py -- `memplan pack` end to end, checked by code that shares
nothing with the packer.

    pack_check.py MEMPLAN_EXE [--dsa DIR]

On seeded random instances (and, when --dsa DIR exists, the public dsa-bench
CSVs there at budget 0), for align 1, 64 and 4096 and budgets 0 and 20:
  * the CSV output repeats every input row (id, lower, upper, size, in input
    order) with an offset column; offsets are multiples of the alignment;
  * no two buffers whose half-open lifetimes overlap share an address (sweep
    over time, each live set checked as sorted address ranges);
  * the --json document has the same offsets, arena_bytes = the highest
    offset + size rounded up to the alignment, and lower_bound_bytes = the
    most aligned bytes live at one time (<= arena_bytes);
  * a given --seed gives the same offsets twice; budget 0 ignores the seed.
Then the errors: a missing file and a malformed line exit 2 with a message
naming the file (and the line); bad options exit 1.
Exit 0 when all hold, 1 otherwise.
"""
import argparse
import csv
import io
import json
import os
import random
import subprocess
import sys
import tempfile

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL " + msg)


def run(exe, args):
    p = subprocess.run([exe, "pack"] + args, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def up(n, a):
    return (n + a - 1) // a * a


def instance(rng, n, horizon, max_size):
    rows = []
    for i in range(n):
        lo = rng.randrange(horizon)
        hi = lo + 1 + min(horizon, int(rng.expovariate(1 / (horizon / 20))))
        rows.append((f"b{i}", lo, hi, rng.randrange(1, max_size)))
    return rows


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write("id,lower,upper,size\n")
        for r in rows:
            f.write("%s,%d,%d,%d\n" % r)


def read_csv(path):
    with open(path) as f:
        r = list(csv.reader(f))
    return [(x[0], int(x[1]), int(x[2]), int(x[3])) for x in r[1:]]


def check_plan(label, rows, align, out_csv, doc):
    got = list(csv.reader(io.StringIO(out_csv)))
    if not got or got[0] != ["id", "lower", "upper", "size", "offset"]:
        fail(f"{label}: CSV header {got[:1]}")
        return
    body = got[1:]
    if len(body) != len(rows):
        fail(f"{label}: {len(body)} rows out, {len(rows)} in")
        return
    offs = []
    for (i, lo, hi, sz), r in zip(rows, body):
        if r[:4] != [i, str(lo), str(hi), str(sz)]:
            fail(f"{label}: row {r} does not repeat input {(i, lo, hi, sz)}")
            return
        o = int(r[4])
        if o % align:
            fail(f"{label}: {i} at {o}, not a multiple of {align}")
        offs.append(o)
    # Overlap: sweep over time; at each start, the live set's address ranges
    # sorted by offset must not intersect.
    events = sorted({lo for _, lo, _, _ in rows})
    live_at = {}
    for k, (_, lo, hi, _) in enumerate(rows):
        live_at.setdefault(lo, []).append(k)
    live = []
    for t in events:
        live = [k for k in live if rows[k][2] > t] + live_at.get(t, [])
        spans = sorted((offs[k], offs[k] + rows[k][3], k) for k in live if rows[k][3] > 0)
        for a, b in zip(spans, spans[1:]):
            if b[0] < a[1]:
                fail(f"{label}: {rows[a[2]][0]} [{a[0]},{a[1]}) and {rows[b[2]][0]} [{b[0]},{b[1]}) overlap at time {t}")
                return
    top = max((o + up(r[3], align) for o, r in zip(offs, rows)), default=0)
    bound, cur = 0, 0
    for t, d in sorted([(lo, up(sz, align)) for _, lo, _, sz in rows] + [(hi, -up(sz, align)) for _, _, hi, sz in rows],
                       key=lambda e: (e[0], e[1])):
        cur += d
        bound = max(bound, cur)
    if [x["offset"] for x in doc["offsets"]] != offs or [x["id"] for x in doc["offsets"]] != [r[0] for r in rows]:
        fail(f"{label}: JSON offsets differ from the CSV's")
    if doc["arena_bytes"] != top:
        fail(f"{label}: arena_bytes {doc['arena_bytes']}, highest aligned end {top}")
    if doc["lower_bound_bytes"] != bound:
        fail(f"{label}: lower_bound_bytes {doc['lower_bound_bytes']}, most live aligned bytes {bound}")
    if doc["buffers"] != len(rows) or doc["align"] != align:
        fail(f"{label}: buffers/align {doc['buffers']}/{doc['align']}")


def pack_both(exe, path, args):
    rc1, out_csv, err1 = run(exe, [path] + args)
    rc2, out_json, err2 = run(exe, [path, "--json"] + args)
    if rc1 or rc2:
        fail(f"{path} {args}: exit {rc1}/{rc2}: {err1}{err2}")
        return None, None
    return out_csv, json.loads(out_json)


def main():
    with tempfile.TemporaryDirectory(prefix="pack-check-") as tmp:
        return check(tmp)


def check(tmp):
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--dsa", default=None)
    a = ap.parse_args()
    rng = random.Random(20261130)
    cases = [("empty", []), ("one", [("only", 3, 4, 100)]), ("zero-size", [("z", 0, 2, 0), ("y", 0, 2, 8)])]
    for n, horizon, size in [(50, 20, 1000), (400, 200, 1 << 16), (1500, 3000, 1 << 20)]:
        cases.append((f"random{n}", instance(rng, n, horizon, size)))
    for name, rows in cases:
        path = os.path.join(tmp, name + ".csv")
        write_csv(path, rows)
        for align in (1, 64, 4096):
            for budget in (0, 20):
                # a wide wall-clock cap, so the CSV and JSON runs do the same work
                # (the search counts work; the cap is a safety stop that a loaded
                # machine under ASan reaches at different points in the two runs)
                out_csv, doc = pack_both(a.exe, path, ["--align", str(align), "--budget-ms", str(budget),
                                                       "--wall-cap-ms", "600000"])
                if doc is not None:
                    check_plan(f"{name} align {align} budget {budget}", rows, align, out_csv, doc)
        # Seeds: the same seed twice gives the same offsets; budget 0 ignores it.
        # (a wide wall-clock cap: under ASan + UBSan at -O0 the 20 ms of work
        # takes close to the default 260 ms cap, and a cut-off is timing)
        seeded = [path, "--json", "--align", "1", "--budget-ms", "20", "--seed", "7", "--wall-cap-ms", "600000"]
        s1 = run(a.exe, seeded)[1]
        s2 = run(a.exe, seeded)[1]
        if s1 != s2:
            fail(f"{name}: --seed 7 twice gave different results")
        z1 = run(a.exe, [path, "--json", "--budget-ms", "0", "--seed", "1"])[1]
        z2 = run(a.exe, [path, "--json", "--budget-ms", "0", "--seed", "99"])[1]
        if z1 != z2:
            fail(f"{name}: budget 0 depends on the seed")
    if a.dsa and os.path.isdir(a.dsa):
        for f in sorted(os.listdir(a.dsa)):
            if f.endswith(".csv"):
                path = os.path.join(a.dsa, f)
                out_csv, doc = pack_both(a.exe, path, ["--align", "1", "--budget-ms", "0"])
                if doc is not None:
                    check_plan(f, read_csv(path), 1, out_csv, doc)
    else:
        print(f"note: no dsa-bench folder at {a.dsa}; random instances only")
    # Errors.
    rc, out, err = run(a.exe, [os.path.join(tmp, "missing.csv")])
    if rc != 2 or "missing.csv" not in err:
        fail(f"missing file: exit {rc}, stderr {err!r}")
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("id,lower,upper,size\na,0,3,100\nb,x,4,60\n")
    rc, out, err = run(a.exe, [bad])
    if rc != 2 or "bad.csv: line 3" not in err or out:
        fail(f"malformed line: exit {rc}, stdout {out!r}, stderr {err!r}")
    for args, what in [(["--align", "3"], "--align"), (["--seed", "x"], "--seed"), (["--budget-ms"], "--budget-ms"),
                       (["--wall-cap-ms", "0"], "--wall-cap-ms needs milliseconds"), (["--frobnicate"], "unknown option")]:
        rc, out, err = run(a.exe, [os.path.join(tmp, "one.csv")] + args)
        if rc != 1 or what not in err:
            fail(f"{args}: exit {rc}, stderr {err!r}")
    print(f"pack_check: {len(cases)} instances, {len(FAILS)} failures")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
