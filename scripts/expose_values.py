#!/usr/bin/python3
"""A copy of an ONNX model that returns every value its main graph computes.

    expose_values.py MODEL OUT.onnx [--take NODE=then|else ...]

Each output of a main-graph node (initializers aside) is appended to the graph's
outputs, by name only, so that ONNX Runtime returns it and its shape can be
compared with the one memplan infers (wasm-tests/ort-shapes.test.js). With
--take, the If node NODE is first replaced by the nodes of the branch it takes
(then its outputs are Identity copies of the branch's), so the branch's values
become main-graph values too; NODE must be a main-graph If. The model itself is
never changed: OUT is a new file. Needs Debian's python3-onnx.
"""
import sys

import onnx
from onnx import helper


def take_branch(graph, node_name, branch):
    """Replace the If `node_name` by the nodes of `branch` ('then' or 'else')."""
    nodes = []
    found = False
    for node in graph.node:
        if node.op_type != "If" or node.name != node_name:
            nodes.append(node)
            continue
        found = True
        body = next(a.g for a in node.attribute if a.name == branch + "_branch")
        nodes.extend(body.node)
        graph.initializer.extend(body.initializer)
        for outer, inner in zip(node.output, body.output):
            nodes.append(helper.make_node("Identity", [inner.name], [outer]))
    if not found:
        sys.exit(f"expose_values.py: no If node named {node_name!r} in the main graph")
    del graph.node[:]
    graph.node.extend(nodes)


def main(argv):
    if len(argv) < 3 or (len(argv) - 3) % 2:
        sys.exit(__doc__)
    src, dst, rest = argv[1], argv[2], argv[3:]
    model = onnx.load(src)
    graph = model.graph
    for flag, spec in zip(rest[::2], rest[1::2]):
        name, _, branch = spec.partition("=")
        if flag != "--take" or branch not in ("then", "else"):
            sys.exit(__doc__)
        take_branch(graph, name, branch)
    listed = {o.name for o in graph.output} | {i.name for i in graph.initializer}
    for node in graph.node:
        for name in node.output:
            if name and name not in listed:
                graph.output.append(onnx.ValueInfoProto(name=name))
                listed.add(name)
    onnx.save(model, dst)


if __name__ == "__main__":
    main(sys.argv)
