#!/usr/bin/python3
"""weight_only_model.py -- a decoder-like stack in weight-only QDQ form.

    /usr/bin/python3 bench/weight_only_model.py OUT.onnx [--hidden 1024] [--ffn 4096]
        [--layers 4] [--vocab 32000] [--block 32]

What weight-only quantizers write for LLMs in QDQ form (int4 weights, blockwise
along K, a float scale per block; the activations float): x[seq, hidden] ->
per layer an MLP, MatMul(x, DQ(W_up)) -> Sigmoid-gated (x * sigmoid(x)) ->
MatMul(., DQ(W_down)) -> Add (residual); then the head MatMul(x, DQ(W_head))
-> [seq, vocab]. Each DequantizeLinear is placed right before its MatMul, as
exporters write them. `memplan plan OUT.onnx --dim seq=128` plans each float
weight as an activation (the graph as written); `--fuse-qdq` as ONNX Runtime
runs them, MatMulNBits, where no float weight is made (bench/README.md,
"Weight-only QDQ"). The weights are zeros: the memory, not the numbers, is
what it is for. Needs onnx and numpy (Debian: python3-onnx, python3-numpy).
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper as nh


def int4_weight(name, k, n):
    """An int4 [k, n] initializer of zeros (two values a byte)."""
    t = onnx.TensorProto()
    t.name, t.data_type = name, 22  # INT4 (onnx 1.16+ names it)
    t.dims.extend([k, n])
    t.raw_data = bytes((k * n + 1) // 2)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--ffn", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--block", type=int, default=32)
    a = ap.parse_args()
    nodes, inits = [], []

    def matmul(x, k, n, name):
        w, s, wf, y = f"{name}.w", f"{name}.s", f"{name}.wf", f"{name}.y"
        inits.append(int4_weight(w, k, n))
        inits.append(nh.from_array(np.full(((k + a.block - 1) // a.block, n), 0.01, np.float32), s))
        nodes.append(helper.make_node("DequantizeLinear", [w, s], [wf], axis=0, block_size=a.block))
        nodes.append(helper.make_node("MatMul", [x, wf], [y]))
        return y

    x = "x"
    for i in range(a.layers):
        up = matmul(x, a.hidden, a.ffn, f"l{i}.up")
        gate = f"l{i}.gate"
        nodes.append(helper.make_node("Sigmoid", [up], [gate]))
        act = f"l{i}.act"
        nodes.append(helper.make_node("Mul", [up, gate], [act]))
        down = matmul(act, a.ffn, a.hidden, f"l{i}.down")
        res = f"l{i}.out"
        nodes.append(helper.make_node("Add", [x, down], [res]))
        x = res
    logits = matmul(x, a.hidden, a.vocab, "head")
    g = helper.make_graph(nodes, "weight_only", [helper.make_tensor_value_info("x", T.FLOAT, [1, "seq", a.hidden])],
                          [helper.make_tensor_value_info(logits, T.FLOAT, [1, "seq", a.vocab])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    onnx.save(m, a.out)


if __name__ == "__main__":
    main()
