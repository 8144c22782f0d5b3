#!/usr/bin/python3
"""`memplan annotate` is atomic and never touches its input (issue: hardening).

  1. success: OUT is written, MODEL is byte-identical, no temporary file is left;
  2. OUT == MODEL is refused (exit 1) and MODEL is unchanged;
  3. a model that does not load: exit 2, an existing OUT keeps its old bytes,
     no temporary file is left;
  4. OUT is a directory (the final rename fails): exit 2, nothing left behind;
  5. OUT in a folder that does not exist: exit 2.
usage: annotate_cli_check.py MEMPLAN_EXE MODEL
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(exe, *args):
    return subprocess.run([exe, "annotate", *args], capture_output=True, text=True, timeout=60)


def main():
    exe, src = sys.argv[1], sys.argv[2]
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as d:
        model = os.path.join(d, "model.onnx")
        shutil.copyfile(src, model)
        before = sha(model)
        out = os.path.join(d, "out.onnx")

        r = run(exe, model, "-o", out)
        check(r.returncode == 0 and os.path.getsize(out) > 0, "success writes OUT")
        check(sha(model) == before, "success leaves MODEL unchanged")
        check(sorted(os.listdir(d)) == ["model.onnx", "out.onnx"], "success leaves no temporary file")

        r = run(exe, model, "-o", model)
        check(r.returncode == 1 and "model itself" in r.stderr, "OUT == MODEL is refused with exit 1")
        check(sha(model) == before, "a refused run leaves MODEL unchanged")

        bad = os.path.join(d, "bad.onnx")
        with open(bad, "wb") as f:
            f.write(b"\xff\xff\xff garbage")
        with open(out, "wb") as f:
            f.write(b"old bytes")
        r = run(exe, bad, "-o", out)
        check(r.returncode == 2 and "bad.onnx" in r.stderr, "a model that does not load gives exit 2 naming it")
        with open(out, "rb") as f:
            check(f.read() == b"old bytes", "a failed run keeps the old OUT")
        check(sorted(os.listdir(d)) == ["bad.onnx", "model.onnx", "out.onnx"], "a failed run leaves no temporary file")

        outdir = os.path.join(d, "a_directory")
        os.mkdir(outdir)
        r = run(exe, model, "-o", outdir)
        check(r.returncode == 2, "OUT that is a directory gives exit 2")
        check(os.listdir(outdir) == [] and sorted(os.listdir(d)) == ["a_directory", "bad.onnx", "model.onnx", "out.onnx"],
              "a failed rename leaves nothing behind")

        r = run(exe, model, "-o", os.path.join(d, "missing", "out.onnx"))
        check(r.returncode == 2 and r.stderr.strip() != "", "OUT in a missing folder gives exit 2 with a message")
        check(sha(model) == before, "MODEL is never modified")
    print(f"annotate-cli: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
