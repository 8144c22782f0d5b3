#!/usr/bin/python3
"""reorder_check.py MEMPLAN_EXE -- `plan --order` and `reorder` as a user meets them.
On a model with two branches and an If (built here with onnx's helper):
  1. `plan --order best --json` gives order {name, exact, positions} and both
     orders' figures, with the exact values worked out in the comments;
  2. `reorder -o OUT` writes the nodes in order.positions and leaves every
     other part of the model as it was (compared with the node lists dropped);
  3. OUT planned in its own file order has best's lower bound and peak;
  4. a model whose sizes are not known is not reordered: exit 2, the dim to bind.
Exit 0 when all hold.
"""
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto as T
from onnx import helper as h

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def vi(name, dims, t=T.FLOAT):
    return h.make_tensor_value_info(name, t, dims)


def branchy(path, dim):
    """x -> BigA a1 (100 floats) -> SmallA a2; x -> BigB b1 -> SmallB b2; an If
    whose then-branch holds 1000 floats; y = (a2 + b2) + z. Custom ops keep
    the declared sizes. dim: the inputs' dim (1, or a name)."""
    then_g = h.make_graph([h.make_node("BigT", ["x"], ["t0"]), h.make_node("SmallT", ["t0"], ["t"])], "then", [],
                          [vi("t", [1])], value_info=[vi("t0", [1000])])
    else_g = h.make_graph([h.make_node("Abs", ["x"], ["e"])], "else", [], [vi("e", [1])])
    nodes = [h.make_node("BigA", ["x"], ["a1"], name="bigA"), h.make_node("BigB", ["x"], ["b1"], name="bigB"),
             h.make_node("SmallA", ["a1"], ["a2"], name="smallA"), h.make_node("SmallB", ["b1"], ["b2"], name="smallB"),
             h.make_node("If", ["c"], ["z"], name="if", then_branch=then_g, else_branch=else_g),
             h.make_node("Add", ["a2", "b2"], ["s"], name="add"), h.make_node("Add", ["s", "z"], ["y"], name="out")]
    big = [100 if dim == 1 else dim]
    g = h.make_graph(nodes, "g", [vi("x", [1]), vi("c", [1], T.BOOL)], [vi("y", [1])],
                     value_info=[vi("a1", big), vi("b1", big)] + [vi(n, [1]) for n in ("a2", "b2", "z", "s")])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="reorder_check")
    m.metadata_props.add(key="k", value="v")
    onnx.save(m, path)


def main():
    exe = sys.argv[1]
    d = tempfile.mkdtemp(prefix="reorder_check_")
    model, out = os.path.join(d, "m.onnx"), os.path.join(d, "out.onnx")
    branchy(model, 1)

    # 1. file order: the If at position 4 holds a2 + b2 + z (64 each at align 64)
    # + its branch's 4032 = 4224; best runs the If first: z + 4032 = 4096, and
    # no order does better (the If's step always holds them).
    r = subprocess.run([exe, "plan", model, "--order", "best", "--json", "--no-nodes"], capture_output=True, text=True)
    o = json.loads(r.stdout)["order"] if r.returncode == 0 else {}
    check(o.get("name") == "greedy" and o.get("exact") is True, f"best is greedy's order, proven: {o}")
    check(o.get("file_lower_bound_bytes") == 4224 and o.get("lower_bound_bytes") == 4096,
          "lower bounds 4224 (file) and 4096 (best)")
    check(o.get("positions", [None])[0] == 4 and sorted(o.get("positions", [])) == list(range(7)),
          f"the If runs first: {o.get('positions')}")
    check(o.get("saving_bytes") == o.get("file_peak_bytes", 0) - o.get("peak_bytes", 0), "saving = file peak - peak")

    # 2. reorder: nodes in that order, the rest unchanged
    r = subprocess.run([exe, "reorder", model, "-o", out], capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout == "" and r.stderr == "", f"reorder exits 0 silently ({r.stderr!r})")
    a, b = onnx.load(model), onnx.load(out)
    want = [a.graph.node[i].name for i in o.get("positions", [])]
    check([n.name for n in b.graph.node] == want, f"nodes written in the order: {[n.name for n in b.graph.node]}")
    del a.graph.node[:]
    del b.graph.node[:]
    check(a.SerializeToString() == b.SerializeToString(), "everything but the node order is the same")
    check(os.path.getsize(out) == os.path.getsize(model), "the same size")

    # 3. the reordered model in its own order has best's figures
    r = subprocess.run([exe, "plan", out, "--json", "--no-nodes"], capture_output=True, text=True)
    p = json.loads(r.stdout) if r.returncode == 0 else {}
    check(p.get("lower_bound_bytes") == o.get("lower_bound_bytes") and p.get("peak_bytes") == o.get("peak_bytes"),
          f"OUT in file order: lower bound {p.get('lower_bound_bytes')}, peak {p.get('peak_bytes')}")

    # 4. sizes not known: no order to choose
    sym = os.path.join(d, "sym.onnx")
    branchy(sym, "n")
    r = subprocess.run([exe, "reorder", sym, "-o", os.path.join(d, "sym_out.onnx")], capture_output=True, text=True)
    check(r.returncode == 2 and "some sizes are not known, so no order can be chosen: bind n with --dim" in r.stderr
          and not os.path.exists(os.path.join(d, "sym_out.onnx")), f"deferred: exit 2 ({r.stderr.strip()!r})")
    r = subprocess.run([exe, "reorder", sym, "-o", os.path.join(d, "sym_out.onnx"), "--dim", "n=100"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and onnx.load(os.path.join(d, "sym_out.onnx")).graph.node[0].op_type == "If",
          "with the dim bound it reorders")

    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)
    print("FAILED: %d" % len(FAILS) if FAILS else "all ok")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
