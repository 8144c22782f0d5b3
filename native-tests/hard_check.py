#!/usr/bin/python3
"""hard_check.py MEMPLAN_EXE HARD_DIR -- the hardening models through the CLI.

For every HARD_DIR/*.onnx listed in HARD_DIR/EXPECT.json (scripts/
gen_hard_fixtures.py), run `memplan info F --json` and `memplan plan F --json
--budget-ms 0`: a model expected to load must exit 0 for both; one expected
to fail must exit 2 from both with the expected message fragment on stderr.
Every run within 10 s, no signal, no sanitizer report. Exit 0 when all pass.
"""
import json
import os
import subprocess
import sys
import time

MARKS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehaviorSanitizer")


def main():
    exe, hard = sys.argv[1], sys.argv[2]
    with open(os.path.join(hard, "EXPECT.json")) as f:
        expect = json.load(f)
    failures, runs = [], 0
    for name in sorted(expect):
        path = os.path.join(hard, name)
        want = expect[name]
        for args in (["info", path, "--json"], ["plan", path, "--json", "--budget-ms", "0"]):
            runs += 1
            label = "%s %s" % (args[0], name)
            t0 = time.monotonic()
            try:
                res = subprocess.run([exe] + args, capture_output=True, timeout=10)
            except subprocess.TimeoutExpired:
                failures.append("%s: no exit within 10 s" % label)
                continue
            secs = time.monotonic() - t0
            err = res.stderr.decode("utf-8", "replace")
            if b"\x1b" in res.stderr:
                failures.append("%s: a raw ESC byte on stderr (from a model name)" % label)
            if any(m in err for m in MARKS) or res.returncode < 0 or res.returncode >= 128:
                failures.append("%s: crash or sanitizer report (exit %d): %s" % (label, res.returncode, err[:400]))
            elif want["ok"] and res.returncode != 0:
                failures.append("%s: exit %d, expected 0: %s" % (label, res.returncode, err.strip()[:300]))
            elif want["ok"]:
                json.loads(res.stdout)  # a document
            elif res.returncode != 2 or want["message"] not in err:
                failures.append("%s: exit %d, expected 2 with %r; stderr: %s" % (
                    label, res.returncode, want["message"], err.strip()[:300]))
            print("  %-5s %-34s exit %d  %.2f s" % (args[0], name, res.returncode, secs))
        if name.startswith("terminal_escape") and want["ok"]:
            for cmd in ("shapes", "plan", "info"):  # text output: escaped, never raw
                res = subprocess.run([exe, cmd, path], capture_output=True, timeout=10)
                runs += 1
                if res.returncode != 0 or b"\x1b" in res.stdout or b"\xc2\x9b" in res.stdout or \
                        (cmd == "shapes" and b"\\x1b]0;pwned" not in res.stdout):
                    failures.append("%s %s: text output exit %d, must show the name escaped: %r" % (
                        cmd, name, res.returncode, res.stdout[:200]))
    for f in failures:
        print("FAIL:", f)
    print("hard: %d runs on %d models, %d failure(s)" % (runs, len(expect), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
