#!/usr/bin/python3
"""`memplan annotate` is atomic and never touches its input (issue: hardening).

  1. success: OUT is written, MODEL is byte-identical, no temporary file is left;
  2. OUT == MODEL is refused (exit 1) and MODEL is unchanged;
  3. a model that does not load: exit 2, an existing OUT keeps its old bytes,
     no temporary file is left;
  4. OUT is a directory (the final rename fails): exit 2, nothing left behind;
  5. OUT in a folder that does not exist: exit 2;
  6. permissions: a new OUT gets 0666 minus the umask (not mkstemp's 0600),
     an existing OUT keeps its own mode;
  7. OUT that is not a plain file is never replaced: a symbolic link stays and
     its target gets the bytes, a FIFO and (as root) a character device like
     /dev/null are written in place and stay what they were.
usage: annotate_cli_check.py MEMPLAN_EXE MODEL
"""
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading


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

        fresh = os.path.join(d, "fresh.onnx")
        old_mask = os.umask(0o022)
        try:
            r = run(exe, model, "-o", fresh)
        finally:
            os.umask(old_mask)
        mode = stat.S_IMODE(os.stat(fresh).st_mode) if r.returncode == 0 else None
        check(mode == 0o644, f"a new OUT is 0666 minus the umask 022: {oct(mode or 0)}")
        os.chmod(out, 0o640)
        r = run(exe, model, "-o", out)
        mode = stat.S_IMODE(os.stat(out).st_mode)
        check(r.returncode == 0 and mode == 0o640, f"a replaced OUT keeps its mode 0640: {oct(mode)}")

        link = os.path.join(d, "link.onnx")
        os.symlink("fresh.onnx", link)
        with open(fresh, "wb") as f:
            f.write(b"old bytes")
        r = run(exe, model, "-o", link)
        check(r.returncode == 0 and os.path.islink(link) and sha(fresh) == sha(out),
              "OUT a symbolic link: the link stays, its target gets the annotated model")
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
        reader.start()
        r = run(exe, model, "-o", fifo)
        reader.join(30)
        check(r.returncode == 0 and stat.S_ISFIFO(os.stat(fifo).st_mode) and got and
              hashlib.sha256(got[0]).hexdigest() == sha(out), "OUT a FIFO: written in place, still a FIFO")
        if os.geteuid() == 0:
            dev = os.path.join(d, "null")
            os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            r = run(exe, model, "-o", dev)
            check(r.returncode == 0 and stat.S_ISCHR(os.stat(dev).st_mode),
                  "OUT a character device (/dev/null's numbers): written, still a device")
        else:
            print("skip the character device case (needs root for mknod)")
        check(sorted(os.listdir(d)) == sorted(["a_directory", "bad.onnx", "model.onnx", "out.onnx", "fresh.onnx",
                                               "link.onnx", "fifo"] + (["null"] if os.geteuid() == 0 else [])),
              "no temporary file is left")
    print(f"annotate-cli: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
