#!/usr/bin/python3
"""complexity_check.py -- the complexity guard: no hostile input family costs
more than n log n, measured in instructions, never in seconds.

    complexity_check.py MEMPLAN_EXE [--valgrind PATH] [--only FAMILY,...]

For each family of hostile input (issue 21: in-place arity, a repeated input,
repeated singular message fields, fan-in, fan-out, the outputs of one node,
buffers of distinct sizes live at the peak, ties in the packer, random lifetimes in the packer, long names, dims per value, chain depth, subgraph count,
calls of model-local functions, annotate) a model (or a CSV) is built here in Python at size n and at 8n, and
the CLI command the family stresses runs on both under
`valgrind --tool=cachegrind --cache-sim=no`. Its instruction count (`I refs`)
does not depend on the machine's load, so a busy CI host cannot fool it, nor
make it flaky.

The constant part (process start, the options, the library's tables) is
taken out first: the same family built at size 1 is measured too, and

    growth  = (Ir(8n) - Ir(1)) / (Ir(n) - Ir(1))
    allowed = 8 * log2(8n) / log2(n) * SLACK

(about 12-15 for the sizes used; quadratic work gives about 64). A family
whose cost must not grow at all (a repeated singular field is refused at
its 65th occurrence, whatever follows) is allowed FLAT_ALLOWED on the raw
counts instead (no baseline: at size 1 the model loads, another path).
Commands that plan pass `--budget-ms 0`: the improvement search has a
wall-clock safety stop, the one way the machine could enter the count.

Sizes: each 8n run is at most 1.3G instructions (fan-in's: 3 s of CPU in
cachegrind, 31 s of wall time on the busy shared machine). Where every value is live at once (fan-in, a Split's
outputs, packer ties) n is above the packer's size limits (4,096 buffers
and MEMPLAN_PACK_OVERLAP_MAX overlapping pairs; docs/semantics.md, "Arena
plan"): below them the heuristics cost O(overlap),
up to quadratic by design but bounded by that constant, and a run at n
below and 8n above would measure the switch, not the growth.

The first row is a control: mawk's double loop, quadratic by construction,
must come out above the bound ("seen"), or the guard is blind (valgrind
counting nothing, a wrong formula) and fails.

A family listed in KNOWN_SUPERLINEAR (with its measured growth and why) is
printed as KNOWN and does not fail; any other family above its bound does.
A run must also exit as the family expects (0, or 2 for refused input): a
model that fails to load would measure nothing.
Exit 0 when every family is within its bound, 1 otherwise.
"""
import argparse
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from onnx import TensorProto, helper

SLACK = 1.25        # constant terms that Ir(1) does not remove (a table sized once, ...)
FLAT_ALLOWED = 2.0  # a cost that must not depend on n
RUN_TIMEOUT = 120   # seconds per run under cachegrind: a hang, not a measure

# family -> (measured growth, why). Visible in the table as KNOWN, not a failure.
# Remove an entry when its path is fixed (the table then shows it pass).
# Empty: pack_ties (48.7) and split_outputs (26.9) were quadratic in the
# packer's overlap_mass until it found each group of equal starts once.
KNOWN_SUPERLINEAR = {
}

F = TensorProto.FLOAT


def opset():
    """Opset 18 (Split's num_outputs) and the domain of the custom ops."""
    return [helper.make_opsetid("", 18), helper.make_opsetid("custom", 1)]


def model_bytes(nodes, inputs, outputs):
    g = helper.make_graph(nodes, "g", inputs, outputs)
    m = helper.make_model(g, opset_imports=opset(), producer_name="complexity_check")
    m.ir_version = 8
    return m.SerializeToString()


def tinfo(name, shape):
    return helper.make_tensor_value_info(name, F, shape)


# ---- the families: each builder returns (bytes, suffix) for size n ----------

def inplace_arity(n):
    """A custom op with n inputs and n outputs of one shape: every (output,
    input) pair fits, the matching's worst case."""
    nodes = [helper.make_node("Relu", ["x"], [f"a{i}"], name=f"r{i}") for i in range(n)]
    nodes.append(helper.make_node("Wide", [f"a{i}" for i in range(n)], [f"b{i}" for i in range(n)],
                                  name="wide", domain="custom"))
    outs = [tinfo(f"b{i}", [4]) for i in range(n)]
    return model_bytes(nodes, [tinfo("x", [4])], outs)


def repeated_input(n):
    """One node reading the same value n times."""
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r"),
             helper.make_node("Many", ["a"] * n, ["b"], name="many", domain="custom")]
    return model_bytes(nodes, [tinfo("x", [4])], [tinfo("b", [4])])


def repeated_singular(n):
    """ModelProto.graph given n times (raw wire bytes: python onnx would merge
    them). The loader refuses the 65th; what follows must cost nothing."""
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [tinfo("x", [4])], [tinfo("y", [4])])
    gb = g.SerializeToString()
    head = helper.make_model(g, opset_imports=opset(), producer_name="complexity_check")
    head.ir_version = 8
    field = b"\x3a" + varint(len(gb)) + gb  # field 7 (graph), wire type 2
    return head.SerializeToString() + field * max(n - 1, 0)


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += struct.pack("B", b | 0x80)
        else:
            return out + struct.pack("B", b)


def fan_in(n):
    """One Concat reading n distinct values."""
    nodes = [helper.make_node("Relu", ["x"], [f"a{i}"], name=f"r{i}") for i in range(n)]
    nodes.append(helper.make_node("Concat", [f"a{i}" for i in range(n)], ["y"], name="cat", axis=0))
    return model_bytes(nodes, [tinfo("x", [1, 4])], [tinfo("y", [n, 4])])


def fan_out(n):
    """One value read by n nodes, whose results a running sum gathers one by
    one (so that only the fanned-out value lives long)."""
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r"), helper.make_node("Neg", ["a"], ["s0"], name="n0")]
    for i in range(1, n):
        nodes.append(helper.make_node("Neg", ["a"], [f"b{i}"], name=f"n{i}"))
        nodes.append(helper.make_node("Add", [f"s{i - 1}", f"b{i}"], [f"s{i}"], name=f"add{i}"))
    return model_bytes(nodes, [tinfo("x", [4])], [tinfo(f"s{n - 1}", [4])])


def split_outputs(n):
    """A Split with n outputs, all graph outputs: n values born at one step and
    live to the end (ties in the packer)."""
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r"),
             helper.make_node("Split", ["a"], [f"p{i}" for i in range(n)], name="split", axis=0, num_outputs=n)]
    return model_bytes(nodes, [tinfo("x", [4 * n])], [tinfo(f"p{i}", [4]) for i in range(n)])


def peak_sizes(n):
    """A Split into n parts of sizes 1..n elements, all graph outputs: n
    buffers of distinct sizes live at the peak, listed largest first
    (`at_peak`; an insertion sort there was quadratic)."""
    from onnx import numpy_helper
    import numpy as np
    total = n * (n + 1) // 2
    split = numpy_helper.from_array(np.arange(1, n + 1, dtype=np.int64), "sizes")
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r"),
             helper.make_node("Split", ["a", "sizes"], [f"p{i}" for i in range(n)], name="split", axis=0)]
    g = helper.make_graph(nodes, "g", [tinfo("x", [total])], [tinfo(f"p{i}", [i + 1]) for i in range(n)],
                          initializer=[split])
    m = helper.make_model(g, opset_imports=opset(), producer_name="complexity_check")
    m.ir_version = 8
    return m.SerializeToString()


def pack_ties(n):
    """n identical intervals for `pack`."""
    rows = "".join(f"b{i},0,10,64\n" for i in range(n))
    return ("id,lower,upper,size\n" + rows).encode(), ".csv"


def pack_random(n):
    """n random lifetimes for `pack` (bench_pack --random's kind): starts
    over n/2 steps, log-uniform lengths 1..1000, so a few hundred live at a
    time at any n, sizes 64 B..1 MiB. Seeded: the same file every run."""
    import random
    r = random.Random(19)
    rows = []
    for i in range(n):
        s = r.randrange(n // 2 + 1)
        rows.append(f"b{i},{s},{s + max(1, int(1000 ** r.random()))},{64 * (1 + r.randrange(16384))}\n")
    return ("id,lower,upper,size\n" + "".join(rows)).encode(), ".csv"


def chain(n, name=lambda i: f"v{i}", rank=1):
    """x -> Relu -> ... -> Relu (n nodes), values named by name(i)."""
    shape = [2] + [1] * (rank - 1)
    nodes = [helper.make_node("Relu", [name(i)], [name(i + 1)], name=f"r{i}") for i in range(n)]
    return model_bytes(nodes, [tinfo(name(0), shape)], [tinfo(name(n), shape)])


def long_names(n):
    """A 16-node chain whose value names are n bytes long."""
    return chain(16, name=lambda i: f"{i:04d}" + "n" * max(n - 4, 0))


def rank(n):
    """A 16-node chain of values of rank n."""
    return chain(16, rank=n)


def chain_depth(n):
    return chain(n)


def subgraph_count(n):
    """n If nodes, each with two one-node branches, chained on their results."""
    nodes, prev = [], "x"
    for i in range(n):
        then_g = helper.make_graph([helper.make_node("Relu", [prev], [f"t{i}"], name=f"tr{i}")], f"then{i}", [],
                                   [tinfo(f"t{i}", [4])])
        else_g = helper.make_graph([helper.make_node("Neg", [prev], [f"e{i}"], name=f"en{i}")], f"else{i}", [],
                                   [tinfo(f"e{i}", [4])])
        nodes.append(helper.make_node("If", ["c0"], [f"y{i}"], name=f"if{i}", then_branch=then_g, else_branch=else_g))
        prev = f"y{i}"
    cond = helper.make_tensor_value_info("c0", TensorProto.BOOL, [])
    return model_bytes(nodes, [tinfo("x", [4]), cond], [tinfo(prev, [4])])


def function_calls(n):
    """n model-local functions f_i(x) = Relu(x), called once each in a chain: each call is linked to
    its function and planned as a body (a look-up per call, not a search of the n functions)."""
    fs = [helper.make_function("custom", f"f{i}", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["y"])],
                               [helper.make_opsetid("", 18)]) for i in range(n)]
    nodes = [helper.make_node(f"f{i}", [f"v{i}"], [f"v{i + 1}"], name=f"call{i}", domain="custom") for i in range(n)]
    g = helper.make_graph(nodes, "g", [tinfo("v0", [4])], [tinfo(f"v{n}", [4])])
    m = helper.make_model(g, functions=fs, opset_imports=opset(), producer_name="complexity_check")
    m.ir_version = 8
    return m.SerializeToString()


def no_file(n):
    return None


# The control: work quadratic in n by construction (mawk's double loop). It
# must come out above the n log n bound, or the guard cannot see what it
# guards against (valgrind counting nothing, a bad formula) and fails.
CONTROL = "control_quadratic"
QUADRATIC_AWK = "BEGIN { for (i = 0; i < n; i++) for (j = 0; j < n; j++) s++ }"

# (family, builder, command (memplan's arguments, or a program for the
# control) with {in}, {out} and {n}, n, expected exit, bound)
FAMILIES = [
    (CONTROL, no_file, ["/usr/bin/awk", "-v", "n={n}", QUADRATIC_AWK], 60, 0, "nlogn"),
    ("inplace_arity", inplace_arity, ["inplace", "{in}"], 400, 0, "nlogn"),
    ("inplace_arity", inplace_arity, ["tags", "{in}"], 400, 0, "nlogn"),
    ("repeated_input", repeated_input, ["inplace", "{in}"], 5000, 0, "nlogn"),
    ("repeated_singular", repeated_singular, ["info", "{in}"], 2000, 2, "flat"),
    ("fan_in", fan_in, ["plan", "{in}", "--budget-ms", "0"], 7000, 0, "nlogn"),
    ("fan_out", fan_out, ["plan", "{in}", "--budget-ms", "0"], 1000, 0, "nlogn"),
    ("split_outputs", split_outputs, ["plan", "{in}", "--budget-ms", "0"], 5000, 0, "nlogn"),
    ("peak_sizes", peak_sizes, ["plan", "{in}", "--budget-ms", "0"], 5000, 0, "nlogn"),
    ("pack_ties", pack_ties, ["pack", "{in}", "--budget-ms", "0"], 5000, 0, "nlogn"),
    ("pack_random", pack_random, ["pack", "{in}", "--budget-ms", "0"], 4500, 0, "nlogn"),
    ("long_names", long_names, ["plan", "{in}", "--budget-ms", "0"], 2000, 0, "nlogn"),
    ("rank", rank, ["plan", "{in}", "--budget-ms", "0"], 100, 0, "nlogn"),
    ("chain_depth", chain_depth, ["plan", "{in}", "--budget-ms", "0"], 1000, 0, "nlogn"),
    ("chain_depth", chain_depth, ["profile", "{in}"], 1000, 0, "nlogn"),
    ("chain_depth", chain_depth, ["plan", "{in}", "--inplace", "--budget-ms", "0"], 2000, 0, "nlogn"),
    ("subgraph_count", subgraph_count, ["plan", "{in}", "--budget-ms", "0"], 200, 0, "nlogn"),
    ("function_calls", function_calls, ["plan", "{in}", "--budget-ms", "0"], 200, 0, "nlogn"),
    ("annotate", chain_depth, ["annotate", "{in}", "-o", "{out}"], 1000, 0, "nlogn"),
]


def shown(cmd):
    """The command as the table shows it: without the file operands."""
    if cmd[0].startswith("/"):
        return os.path.basename(cmd[0])
    return " ".join(x for x in cmd if x not in ("{in}", "-o", "{out}", "--budget-ms", "0"))


def build(builder, n, path_base):
    r = builder(n)
    if r is None:
        return ""
    data, suffix = r if isinstance(r, tuple) else (r, ".onnx")
    path = path_base + suffix
    with open(path, "wb") as f:
        f.write(data)
    return path


def instructions(valgrind, argv, tmp, expect_rc):
    """I refs of one run, or raise with what went wrong."""
    out = os.path.join(tmp, "cg.out")
    cmd = [valgrind, "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}"] + argv
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=RUN_TIMEOUT)
    if p.returncode != expect_rc:
        tail = "\n".join(l for l in p.stderr.splitlines() if not l.startswith("=="))[-400:]
        raise RuntimeError(f"exit {p.returncode}, expected {expect_rc}: {tail}")
    m = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
    if not m:
        raise RuntimeError("no 'I refs' in valgrind's output")
    os.unlink(out)
    return int(m.group(1).replace(",", ""))


def allowed(n, bound):
    return FLAT_ALLOWED if bound == "flat" else 8 * math.log2(8 * n) / math.log2(n) * SLACK


def fill(cmd, exe, src, out, size):
    """The argv of one run: the placeholders replaced, memplan first unless the
    command names its own program (the control)."""
    subst = {"{in}": src, "{out}": out, "{n}": str(size)}
    argv = [x.replace("{n}", str(size)) if x.startswith("n=") else subst.get(x, x) for x in cmd]
    return argv if argv[0].startswith("/") else [exe] + argv


def measure(a, tmp, builder, cmd, n, rc, bound):
    """Ir at size 1 (0 for a flat family), n and 8n."""
    irs = [0] if bound == "flat" else []
    for size in ((n, 8 * n) if bound == "flat" else (1, n, 8 * n)):
        src = build(builder, size, os.path.join(tmp, f"in_{size}"))
        argv = fill(cmd, a.exe, src, os.path.join(tmp, "out.onnx"), size)
        irs.append(instructions(a.valgrind, argv, tmp, rc))
        if src:
            os.unlink(src)
    return irs


def judge(fam, n, bound, irs):
    """(growth, allowed, verdict, failure message or None) of one row."""
    base, small, big = irs
    if small <= base:
        return None, None, "ERROR", f"Ir(n) {small} is not above Ir(1) {base}: n is too small to measure"
    growth, lim = (big - base) / (small - base), allowed(n, bound)
    if fam == CONTROL:
        if growth > lim:
            return growth, lim, "seen", None
        return growth, lim, "FAIL", f"quadratic work grew {growth:.1f}, within {lim:.1f}: the guard is blind"
    if growth <= lim:
        return growth, lim, "ok", None
    if fam in KNOWN_SUPERLINEAR:
        return growth, lim, "KNOWN", None
    return growth, lim, "FAIL", f"growth {growth:.1f} above {lim:.1f}"


def print_table(rows):
    head = ("family", "command", "n", "8n", "Ir(n)", "Ir(8n)", "growth", "allowed", "verdict")
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(str(c).rjust(w) if i >= 2 else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths))))
    print("(growth = (Ir(8n) - Ir(1)) / (Ir(n) - Ir(1)); allowed = 8 log2(8n) / log2(n) x "
          f"{SLACK}, or {FLAT_ALLOWED} on Ir(8n) / Ir(n) for a flat family)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--valgrind", default=shutil.which("valgrind") or "valgrind")
    ap.add_argument("--only", default="", help="comma-separated families")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    unknown = only - {f[0] for f in FAMILIES}
    if unknown:
        ap.error("no family " + ", ".join(sorted(unknown)))
    rows, fails, t0 = [], [], time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memplan-complexity-") as tmp:
        for fam, builder, cmd, n, rc, bound in FAMILIES:
            if only and fam not in only:
                continue
            try:
                irs = measure(a, tmp, builder, cmd, n, rc, bound)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                irs, why = [0, "-", "-"], str(e)
                growth, lim, verdict = None, None, "ERROR"
            else:
                growth, lim, verdict, why = judge(fam, n, bound, irs)
            if why:
                fails.append(f"{fam} ({shown(cmd)}): {why}")
            fmt = (lambda x: "-" if x is None else f"{x:.2f}")
            rows.append((fam, shown(cmd), n, 8 * n, irs[1], irs[2], fmt(growth), fmt(lim), verdict))
    print_table(rows)
    print(f"({time.monotonic() - t0:.0f} s of wall time, for information only)")
    for fam, (g, why) in sorted(KNOWN_SUPERLINEAR.items()):
        print(f"known super-linear: {fam}: growth {g}: {why}")
    for f in fails:
        print("FAIL " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
