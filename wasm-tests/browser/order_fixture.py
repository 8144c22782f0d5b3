#!/usr/bin/python3
"""order_fixture.py OUT.onnx -- the branchy model of order.test.js (run with
/usr/bin/python3, which has onnx). Two branches in the main graph, x -> BigA
(100 floats) -> SmallA and x -> BigB -> SmallB, listed both big nodes first,
and an If whose then-branch is branchy the same way: `best` runs each branch
to its end first, in the main graph and in the body. Custom ops keep the
declared sizes (no op is known to shape inference)."""
import sys

import onnx
from onnx import TensorProto as T
from onnx import helper as h


def vi(name, dims, t=T.FLOAT):
    return h.make_tensor_value_info(name, t, dims)


def branches(p, x, out, big):
    """Nodes and value infos: x -> BigA -> SmallA, x -> BigB -> SmallB, out = the sum."""
    nodes = [h.make_node("BigA", [x], [p + "a1"], name=p + "bigA"), h.make_node("BigB", [x], [p + "b1"], name=p + "bigB"),
             h.make_node("SmallA", [p + "a1"], [p + "a2"], name=p + "smallA"),
             h.make_node("SmallB", [p + "b1"], [p + "b2"], name=p + "smallB"),
             h.make_node("Add", [p + "a2", p + "b2"], [out], name=p + "add")]
    return nodes, [vi(p + "a1", [big]), vi(p + "b1", [big]), vi(p + "a2", [1]), vi(p + "b2", [1])]


def main():
    tn, tv = branches("t_", "x", "t", 300)
    then_g = h.make_graph(tn, "then", [], [vi("t", [1])], value_info=tv)
    else_g = h.make_graph([h.make_node("Abs", ["x"], ["e"], name="abs")], "else", [], [vi("e", [1])])
    mn, mv = branches("m_", "x", "s", 100)
    nodes = mn + [h.make_node("If", ["c"], ["z"], name="if", then_branch=then_g, else_branch=else_g),
                  h.make_node("Add", ["s", "z"], ["y"], name="out")]
    g = h.make_graph(nodes, "branchy", [vi("x", [1]), vi("c", [1], T.BOOL)], [vi("y", [1])],
                     value_info=mv + [vi("s", [1]), vi("z", [1])])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="order_fixture"), sys.argv[1])


if __name__ == "__main__":
    main()
