#!/usr/bin/python3
"""viz_fixtures.py -- planned models for the visualizer's tests and benchmark.

Until onnx-memplan's own shape inference lands, most real models plan as
"deferred". This writes copies that plan fully, into OUT_DIR (build/viz-fixtures):

  <name>.planned.onnx  an npm fixture with value_info from Debian's
                       onnx.shape_inference.infer_shapes after fixing every
                       symbolic input dim (4-D inputs [1,3,48,320], others 1);
                       any value still without a static shape gets the shape
                       of its node's first input that has one (an elementwise
                       guess, so sizes are plausible, not exact), then [1].
  symbolic_mlp.onnx    a small MLP with symbolic dims "batch" and "seq" in every
                       declared shape (deferred until they are bound).

Usage: /usr/bin/python3 scripts/viz_fixtures.py OUT_DIR MODEL...
"""
import os
import sys

import onnx
from onnx import TensorProto, helper, shape_inference


def static_shape(vi):
    t = vi.type.tensor_type
    if not t.HasField("shape"):
        return None
    dims = []
    for d in t.shape.dim:
        if not d.HasField("dim_value"):
            return None
        dims.append(d.dim_value)
    return dims


def planned_copy(path, out):
    m = onnx.load(path, load_external_data=False)
    g = m.graph
    inits = {i.name for i in g.initializer}
    for i in g.input:
        if i.name in inits:
            continue
        dims = i.type.tensor_type.shape.dim
        for k, d in enumerate(dims):
            if not d.HasField("dim_value"):
                d.ClearField("dim_param")
                d.dim_value = [1, 3, 48, 320][k] if len(dims) == 4 else 1
    try:
        m = shape_inference.infer_shapes(m, data_prop=True)
    except Exception as e:  # noqa: BLE001
        print(f"viz_fixtures: {path}: infer_shapes failed ({e}); guessing every shape")
    g = m.graph
    shapes = {}
    elem = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        s = static_shape(vi)
        if s is not None:
            shapes[vi.name] = s
        elem[vi.name] = vi.type.tensor_type.elem_type or TensorProto.FLOAT
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
        elem[t.name] = t.data_type
    for n in g.node:
        for o in n.output:
            if not o or o in shapes:
                continue
            guess = next((shapes[i] for i in n.input if i in shapes), [1])
            shapes[o] = guess
            et = elem.get(o) or next((elem[i] for i in n.input if i in elem), TensorProto.FLOAT)
            elem[o] = et
    graph_outputs = {o.name for o in g.output}
    del g.value_info[:]
    for n in g.node:
        for o in n.output:
            if o and o not in graph_outputs:
                g.value_info.append(helper.make_tensor_value_info(o, elem[o], shapes[o]))
    for o in g.output:
        if static_shape(o) is None:
            o.CopyFrom(helper.make_tensor_value_info(o.name, elem.get(o.name, TensorProto.FLOAT), shapes.get(o.name, [1])))
    onnx.save(m, out)


def symbolic_mlp(out):
    f = TensorProto.FLOAT
    nodes = [
        helper.make_node("MatMul", ["X", "W1"], ["h1"], name="fc1"),
        helper.make_node("Relu", ["h1"], ["a1"], name="relu1"),
        helper.make_node("MatMul", ["a1", "W2"], ["h2"], name="fc2"),
        helper.make_node("Relu", ["h2"], ["a2"], name="relu2"),
        helper.make_node("Add", ["a2", "a1"], ["r"], name="residual"),
        helper.make_node("MatMul", ["r", "W3"], ["Y"], name="head"),
    ]
    inits = [
        helper.make_tensor("W1", f, [64, 128], [0.0] * (64 * 128)),
        helper.make_tensor("W2", f, [128, 128], [0.0] * (128 * 128)),
        helper.make_tensor("W3", f, [128, 16], [0.0] * (128 * 16)),
    ]
    vi = lambda n, c: helper.make_tensor_value_info(n, f, ["batch", "seq", c])  # noqa: E731
    g = helper.make_graph(nodes, "symbolic_mlp", [vi("X", 64)], [vi("Y", 16)], inits,
                          value_info=[vi("h1", 128), vi("a1", 128), vi("h2", 128), vi("a2", 128), vi("r", 128)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="viz_fixtures")
    m.ir_version = 8
    onnx.save(m, out)


def main():
    out_dir, models = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    for p in models:
        base = os.path.basename(p)[: -len(".onnx")]
        planned_copy(p, os.path.join(out_dir, base + ".planned.onnx"))
    symbolic_mlp(os.path.join(out_dir, "symbolic_mlp.onnx"))
    print(f"viz_fixtures: {len(models) + 1} models in {out_dir}")


if __name__ == "__main__":
    main()
