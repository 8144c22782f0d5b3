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
     /dev/null are written in place and stay what they were;
  8. a dangling symbolic link (or a chain of them) is written through: the
     links stay, the file they name is created; one into a missing folder is
     exit 2 naming OUT, nothing created;
  9. an interrupted annotate leaves no temporary file: SIGINT, SIGTERM and
     SIGHUP while OUT's bytes are being written (the process is stopped with
     its temporary file open, then signalled), through O_TMPFILE and through
     the named OUT.tmp-XXXXXX (MEMPLAN_NO_TMPFILE=1); kill -9 leaves nothing
     through O_TMPFILE, and (as README says) the named file otherwise; an
     existing OUT keeps its old bytes every time.
usage: annotate_cli_check.py MEMPLAN_EXE MODEL
"""
import hashlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(exe, *args):
    return subprocess.run([exe, "annotate", *args], capture_output=True, text=True, timeout=60)


def write_big_model(path, mb):
    """bench/big_model.py's model: x[batch, K] -> MatMul with a K x 1024 float weight (mb MB) -> Relu."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
    from big_model import write_model
    write_model(path, mb)


def temp_fd_target(pid, folder):
    """What the process's open temporary output file in folder is called now, or None."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(folder + "/") and ("(deleted)" in target or ".tmp-" in target):
            return target
    return None


def is_stopped(pid):
    """Whether the process is in the stopped state (or gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("T", "t", "Z", "X")


def interrupt(exe, model, out, sig, named):
    """Run annotate, stop it while OUT's bytes are written to the temporary
    file (unnamed: '#ino (deleted)'; named: OUT.tmp-XXXXXX, before the
    rename), send sig, let it go on. (returncode, target seen) or None when
    five runs all finished before they could be caught."""
    env = dict(os.environ)
    if named:
        env["MEMPLAN_NO_TMPFILE"] = "1"
    else:
        env.pop("MEMPLAN_NO_TMPFILE", None)
    folder = os.path.dirname(out)
    want = ".tmp-" if named else "(deleted)"
    for _ in range(5):
        p = subprocess.Popen([exe, "annotate", model, "-o", out], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while p.poll() is None and time.time() < deadline:
            seen = temp_fd_target(p.pid, folder)
            if seen and want in seen:
                os.kill(p.pid, signal.SIGSTOP)
                # kill() returns before the process has stopped: until it has, it may
                # still rename OUT.tmp-XXXXXX into place (seen once under load)
                stopped_by = time.time() + 10
                while not is_stopped(p.pid) and time.time() < stopped_by:
                    time.sleep(0.0002)
                seen = temp_fd_target(p.pid, folder)  # still before the rename?
                if seen and want in seen:
                    os.kill(p.pid, sig)
                    if sig != signal.SIGKILL:
                        os.kill(p.pid, signal.SIGCONT)
                    p.wait(60)
                    return p.returncode, seen
                os.kill(p.pid, signal.SIGCONT)
                break
            time.sleep(0.0005)
        p.wait(120)
    return None


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

    # 8. dangling links are written through
    with tempfile.TemporaryDirectory() as d:
        model = os.path.join(d, "model.onnx")
        shutil.copyfile(src, model)
        want = os.path.join(d, "want.onnx")
        check(run(exe, model, "-o", want).returncode == 0, "annotate to a plain file (the bytes links must get)")
        os.symlink("made.onnx", os.path.join(d, "dangling.onnx"))
        r = run(exe, model, "-o", os.path.join(d, "dangling.onnx"))
        check(r.returncode == 0 and os.readlink(os.path.join(d, "dangling.onnx")) == "made.onnx" and
              sha(os.path.join(d, "made.onnx")) == sha(want),
              f"OUT a dangling link: the link stays, the file it names is created ({r.stderr.strip()!r})")
        os.mkdir(os.path.join(d, "sub"))
        os.symlink(os.path.join(d, "sub", "hop.onnx"), os.path.join(d, "chain.onnx"))  # absolute
        os.symlink("deep.onnx", os.path.join(d, "sub", "hop.onnx"))  # relative to sub/
        r = run(exe, model, "-o", os.path.join(d, "chain.onnx"))
        check(r.returncode == 0 and os.path.islink(os.path.join(d, "chain.onnx")) and
              os.path.islink(os.path.join(d, "sub", "hop.onnx")) and
              sha(os.path.join(d, "sub", "deep.onnx")) == sha(want),
              "OUT a chain of dangling links (absolute, then relative to its folder): deep.onnx created in sub/")
        os.symlink("missing/x.onnx", os.path.join(d, "nowhere.onnx"))
        r = run(exe, model, "-o", os.path.join(d, "nowhere.onnx"))
        check(r.returncode == 2 and r.stderr == f"memplan: {d}/nowhere.onnx: cannot write: No such file or directory\n"
              and os.path.islink(os.path.join(d, "nowhere.onnx")) and not os.path.exists(os.path.join(d, "missing")),
              f"OUT a dangling link into a missing folder: exit 2 naming OUT ({r.stderr!r})")
        os.symlink("loop2.onnx", os.path.join(d, "loop1.onnx"))
        os.symlink("loop1.onnx", os.path.join(d, "loop2.onnx"))
        r = run(exe, model, "-o", os.path.join(d, "loop1.onnx"))
        check(r.returncode == 2 and r.stderr == f"memplan: {d}/loop1.onnx: cannot write: "
              f"{os.strerror(40)}\n", f"OUT a loop of links: exit 2, ELOOP ({r.stderr!r})")
        check(sorted(os.listdir(d)) == ["chain.onnx", "dangling.onnx", "loop1.onnx", "loop2.onnx", "made.onnx",
                                        "model.onnx", "nowhere.onnx", "sub", "want.onnx"]
              and sorted(os.listdir(os.path.join(d, "sub"))) == ["deep.onnx", "hop.onnx"],
              "dangling links: nothing else created")

    # 9. interrupted while writing: no temporary file, OUT untouched
    with tempfile.TemporaryDirectory() as d:
        model = os.path.join(d, "model.onnx")
        write_big_model(model, 64)
        out = os.path.join(d, "out.onnx")
        with open(out, "wb") as f:
            f.write(b"old bytes")
        cases = [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGHUP, False), (signal.SIGKILL, False),
                 (signal.SIGINT, True), (signal.SIGTERM, True), (signal.SIGHUP, True)]
        for sig, named in cases:
            way = "named OUT.tmp-XXXXXX" if named else "O_TMPFILE"
            got = interrupt(exe, model, out, sig, named)
            if got is None:
                check(False, f"{sig.name} ({way}): every run ended before its temporary file could be caught")
                continue
            rc, seen = got
            with open(out, "rb") as f:
                old = f.read() == b"old bytes"
            left = sorted(os.listdir(d))
            check(rc == -sig and old and left == ["model.onnx", "out.onnx"],
                  f"{sig.name} while writing ({way}, seen as {os.path.basename(seen)!r}): dies of it, "
                  f"OUT keeps its bytes, no temporary file ({rc}, {left})")
        got = interrupt(exe, model, out, signal.SIGKILL, True)
        left = sorted(os.listdir(d))
        tmps = [f for f in left if f.startswith("out.onnx.tmp-")]
        check(got is not None and got[0] == -signal.SIGKILL and len(tmps) == 1 and len(left) == 3,
              f"SIGKILL (named OUT.tmp-XXXXXX): the one temporary file is left, as documented ({left})")
        for f in tmps:
            os.remove(os.path.join(d, f))
    print(f"annotate-cli: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
