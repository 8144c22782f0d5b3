#!/usr/bin/python3
"""bad_input_check.py -- `memplan info` on broken files: exit 2, a message, no crash.

    bad_input_check.py MEMPLAN_EXE FIXTURES_DIR [--model PATH] [--flips N] [--jobs N]

Every run must finish within 10 s, exit with a code below 128 (no signal) and
print no sanitizer report (AddressSanitizer, LeakSanitizer, UBSan "runtime
error:"). Cases:

  * every FIXTURES_DIR/bad/* file: exit 2, and stderr names the file and gives
    a reason (text after the file name);
  * usage: `memplan info` without a file exits 1; a missing file and a
    directory exit 2 naming the path;
  * FIXTURES_DIR/chain.onnx and one libonnx-testdata model with a subgraph
    (--model, default node/test_loop11) truncated at EVERY byte offset
    0..size-1: exit 2 with the message, except where the prefix is itself a
    valid ModelProto with a graph (python onnx parses it and it has the graph
    field): then 0 is accepted too;
  * N (default 200) deterministic single-bit flips of each of those two
    models (random.Random seeded): exit 0 or 2 (2 with the message).

Exit 0 when every case passes, 1 otherwise.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import onnx

TESTDATA = "/usr/share/libonnx-testdata/data"
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehaviorSanitizer",
                   "MemorySanitizer", "ThreadSanitizer")
TIMEOUT = 10.0


def run(exe, args):
    t0 = time.monotonic()
    try:
        res = subprocess.run([exe] + args, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "", TIMEOUT
    return res.returncode, res.stderr.decode("utf-8", "replace"), time.monotonic() - t0


def judge(exe, path, allowed, label, must_name=True):
    """Run `memplan info path --json`; return an error string or None."""
    rc, err, secs = run(exe, ["info", path, "--json"])
    if rc is None:
        return "%s: no exit within %.0f s" % (label, TIMEOUT)
    for mark in SANITIZER_MARKS:
        if mark in err:
            return "%s: sanitizer report (%s): %s" % (label, mark, err.strip()[:400])
    if rc < 0 or rc >= 128:
        return "%s: crashed (exit %d): %s" % (label, rc, err.strip()[:300])
    if rc not in allowed:
        return "%s: exit %d, expected %s; stderr: %s" % (label, rc, " or ".join(map(str, sorted(allowed))),
                                                         err.strip()[:300])
    if rc == 2 and must_name:
        idx = err.find(path)
        if idx < 0:
            return "%s: stderr does not name the file: %r" % (label, err.strip()[:300])
        reason = err[idx + len(path):].strip(" :\n\t")
        if len(reason) < 5:
            return "%s: stderr gives no reason: %r" % (label, err.strip()[:300])
    return None


def is_valid_prefix(data):
    """Does python onnx read these bytes as a ModelProto that has a graph?"""
    m = onnx.ModelProto()
    try:
        m.ParseFromString(data)
    except Exception:  # DecodeError
        return False
    return m.HasField("graph")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("fixtures")
    ap.add_argument("--model", default=os.path.join(TESTDATA, "node", "test_loop11", "model.onnx"))
    ap.add_argument("--flips", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1))
    args = ap.parse_args()
    t0 = time.monotonic()

    bad_dir = os.path.join(args.fixtures, "bad")
    bad = sorted(os.path.join(bad_dir, f) for f in os.listdir(bad_dir)) if os.path.isdir(bad_dir) else []
    if len(bad) < 9:
        print("FAIL: expected the 9 generated bad inputs in %s, found %d" % (bad_dir, len(bad)))
        return 1
    chain = os.path.join(args.fixtures, "chain.onnx")
    sources = [chain, args.model]
    for s in sources:
        if not os.path.exists(s):
            print("FAIL: missing %s" % s)
            return 1

    jobs = []  # (path, allowed, label, must_name)
    counts = {"bad": 0, "usage": 0, "truncation": 0, "truncation_valid_prefix": 0, "flip": 0}
    for p in bad:
        jobs.append((p, {2}, "bad/" + os.path.basename(p), True))
        counts["bad"] += 1

    failures = []
    # Usage and unreadable paths.
    rc, err, _ = run(args.exe, ["info"])
    counts["usage"] += 1
    if rc != 1:
        failures.append("usage: `memplan info` without a file exited %r, expected 1 (%s)" % (rc, err.strip()[:200]))

    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "does_not_exist.onnx")
        jobs.append((missing, {2}, "missing file", True))
        jobs.append((tmp, {2}, "directory", True))
        counts["usage"] += 2

        for si, src in enumerate(sources):
            with open(src, "rb") as f:
                data = f.read()
            stem = "m%d_%s" % (si, os.path.basename(os.path.dirname(src)) if si else "chain")
            for cut in range(len(data)):
                prefix = data[:cut]
                path = os.path.join(tmp, "%s_trunc_%05d.onnx" % (stem, cut))
                with open(path, "wb") as f:
                    f.write(prefix)
                allowed = {2}
                if is_valid_prefix(prefix):
                    allowed = {0, 2}
                    counts["truncation_valid_prefix"] += 1
                jobs.append((path, allowed, "%s truncated to %d of %d bytes" % (stem, cut, len(data)), True))
                counts["truncation"] += 1
            rng = random.Random(0x5EED + si)
            for k in range(args.flips):
                pos = rng.randrange(len(data))
                bit = rng.randrange(8)
                flipped = bytearray(data)
                flipped[pos] ^= 1 << bit
                path = os.path.join(tmp, "%s_flip_%03d.onnx" % (stem, k))
                with open(path, "wb") as f:
                    f.write(flipped)
                jobs.append((path, {0, 2}, "%s bit %d of byte %d flipped" % (stem, bit, pos), True))
                counts["flip"] += 1

        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda j: judge(args.exe, *j), jobs))
    failures += [r for r in results if r]
    for f in failures:
        print("FAIL:", f)
    print("bad-input: %d runs (%d bad files, %d usage, %d truncations of which %d valid prefixes, "
          "%d bit flips): %d failure(s), %.1f s" % (
              len(jobs) + 1, counts["bad"], counts["usage"], counts["truncation"],
              counts["truncation_valid_prefix"], counts["flip"], len(failures), time.monotonic() - t0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
