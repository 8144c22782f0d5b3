#!/usr/bin/python3
"""reorder_check.py MEMPLAN_EXE -- `plan --order` and `reorder` as a user meets them.
On a model with two branches and an If (built here with onnx's helper):
  1. `plan --order best --json` gives order {name, exact, positions} and both
     orders' figures, with the exact values worked out in the comments;
  2. `reorder -o OUT` writes the nodes in order.positions and leaves every
     other part of the model as it was (compared with the node lists dropped);
  3. OUT planned in its own file order has best's lower bound and peak;
  4. a model whose sizes are not known is not reordered: exit 2, the dim to bind;
  5. a model whose If branches are branchy (one nested in the other): best
     orders each body, lowering its arena and the If's transient (exact
     figures in the comments), reorder writes each body's nodes in its order
     and nothing else changes, and OUT planned in its file order has best's
     peak.
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


def branchy_body(name, out, big):
    """A body with two branches: x -> BigA (big floats) -> SmallA; x -> BigB
    -> SmallB; out = SmallA's + SmallB's (1 float each)."""
    p = name + "_"
    nodes = [h.make_node("BigA", ["x"], [p + "a1"], name=p + "bigA"),
             h.make_node("BigB", ["x"], [p + "b1"], name=p + "bigB"),
             h.make_node("SmallA", [p + "a1"], [p + "a2"], name=p + "smallA"),
             h.make_node("SmallB", [p + "b1"], [p + "b2"], name=p + "smallB"),
             h.make_node("Add", [p + "a2", p + "b2"], [out], name=p + "add")]
    vis = [vi(p + "a1", [big]), vi(p + "b1", [big]), vi(p + "a2", [1]), vi(p + "b2", [1])]
    return nodes, vis


def branchy_if(path):
    """y = If(c) + x. then: a branchy body (100 floats a side); else: Abs,
    then an inner If(c) whose then-branch is branchy (200 floats a side)."""
    tn, tv = branchy_body("t", "t", 100)
    then_g = h.make_graph(tn, "then", [], [vi("t", [1])], value_info=tv)
    inn, inv = branchy_body("i", "i", 200)
    inner_then = h.make_graph(inn, "inner_then", [], [vi("i", [1])], value_info=inv)
    inner_else = h.make_graph([h.make_node("Neg", ["x"], ["ie"], name="ineg")], "inner_else", [], [vi("ie", [1])])
    else_g = h.make_graph([h.make_node("If", ["c"], ["e0"], name="inner", then_branch=inner_then,
                                       else_branch=inner_else),
                           h.make_node("Abs", ["e0"], ["e"], name="abs")], "else", [], [vi("e", [1])],
                          value_info=[vi("e0", [1])])
    nodes = [h.make_node("If", ["c"], ["z"], name="if", then_branch=then_g, else_branch=else_g),
             h.make_node("Add", ["z", "x"], ["y"], name="out")]
    g = h.make_graph(nodes, "g", [vi("x", [1]), vi("c", [1], T.BOOL)], [vi("y", [1])], value_info=[vi("z", [1])])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="reorder_check"), path)


def bodies_check(exe, d):
    model, out = os.path.join(d, "if.onnx"), os.path.join(d, "if_out.onnx")
    branchy_if(model)
    r = subprocess.run([exe, "plan", model, "--order", "best", "--json", "--no-nodes"], capture_output=True, text=True)
    p = json.loads(r.stdout) if r.returncode == 0 else {}
    subs = {s["attribute"]: s for s in p.get("subgraphs", [])}
    then_p = subs.get("then_branch", {}).get("plan", {})
    else_p = subs.get("else_branch", {}).get("plan", {})
    inner_p = {s["attribute"]: s for s in else_p.get("subgraphs", [])}.get("then_branch", {}).get("plan", {})
    # then, file order: a1 and b1 (448 each at align 64) meet a2 (64) at SmallA
    # = 960; best runs one side to its end first: b1 + a2 + b2 = 576.
    to = then_p.get("order", {})
    check(to.get("file_lower_bound_bytes") == 960 and to.get("lower_bound_bytes") == 576
          and to.get("file_peak_bytes") == 960 and to.get("peak_bytes") == 576 and to.get("saving_bytes") == 384,
          f"then-branch: lower bound and peak 960 -> 576, saving 384: {to}")
    check(to.get("positions") == [0, 2, 1, 3, 4] and to.get("exact") is True, f"then-branch order: {to.get('positions')}")
    # the inner then-branch: 2 x 832 + 64 = 1728 -> 832 + 128 = 960; the outer
    # else-branch holds e0 (64) and the inner If's transient: 1792 -> 1024.
    io = inner_p.get("order", {})
    check(io.get("file_peak_bytes") == 1728 and io.get("peak_bytes") == 960 and io.get("positions") == [0, 2, 1, 3, 4],
          f"nested then-branch: peak 1728 -> 960: {io}")
    eo = else_p.get("order", {})
    check(eo.get("file_peak_bytes") == 1792 and eo.get("peak_bytes") == 1024 and eo.get("positions") == [0, 1],
          f"else-branch (holding the nested If): peak 1792 -> 1024: {eo}")
    # main: the If's transient is the larger branch (the condition is not
    # known) = else's arena; z (64) beside it: 1856 -> 1088.
    mo = p.get("order", {})
    check(mo.get("file_peak_bytes") == 1856 and p.get("peak_bytes") == 1088 and mo.get("saving_bytes") == 768,
          f"main graph: peak 1856 -> 1088, saving 768: {mo}")

    r = subprocess.run([exe, "reorder", model, "-o", out], capture_output=True, text=True)
    check(r.returncode == 0 and r.stderr == "", f"reorder of the If model exits 0 ({r.stderr!r})")
    a, b = onnx.load(model), onnx.load(out)
    bodies_b = {at.name: at.g for at in b.graph.node[0].attribute}
    inner_b = {at.name: at.g for at in bodies_b["else_branch"].node[0].attribute}
    check([n.name for n in bodies_b["then_branch"].node] == ["t_bigA", "t_smallA", "t_bigB", "t_smallB", "t_add"],
          f"then-branch written in its order: {[n.name for n in bodies_b['then_branch'].node]}")
    check([n.name for n in inner_b["then_branch"].node] == ["i_bigA", "i_smallA", "i_bigB", "i_smallB", "i_add"],
          f"nested then-branch written in its order: {[n.name for n in inner_b['then_branch'].node]}")
    check(os.path.getsize(out) == os.path.getsize(model), "the same size")

    def drop_nodes(g):  # every node list, bodies' too, dropped from the bytes compared
        for n in g.node:
            for at in n.attribute:
                if at.HasField("g"):
                    drop_nodes(at.g)
        kept = [n for n in g.node if n.op_type == "If"]
        del g.node[:]
        g.node.extend(kept)

    drop_nodes(a.graph)
    drop_nodes(b.graph)
    check(a.SerializeToString() == b.SerializeToString(), "everything but the bodies' node orders is the same")

    r = subprocess.run([exe, "plan", out, "--json", "--no-nodes"], capture_output=True, text=True)
    q = json.loads(r.stdout) if r.returncode == 0 else {}
    check(q.get("peak_bytes") == p.get("peak_bytes") and q.get("lower_bound_bytes") == p.get("lower_bound_bytes"),
          f"OUT in file order: peak {q.get('peak_bytes')} (best's {p.get('peak_bytes')})")


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

    bodies_check(exe, d)

    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)
    print("FAILED: %d" % len(FAILS) if FAILS else "all ok")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
