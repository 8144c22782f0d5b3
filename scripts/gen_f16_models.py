#!/usr/bin/python3
"""Random float16 models, for the graph ONNX Runtime's CPU execution provider runs.

    gen_f16_models.py OUTDIR --count N [--seed S]   write f16-S-I.onnx, I = 0..N-1

A model is a random graph over float16 tensors of one shape, [1, 4, 8, 8]:
ops the CPU execution provider has no float16 kernel for (Conv with float16
weights, MatMul, Add, Mul, Relu, Sigmoid, Tanh, Softmax) mixed with ops it
runs in float16 (Reshape, Transpose, Identity, Concat then Split, Clip, Max,
Min, Shape feeding a Reshape), the model's own Casts (float16 -> float32 ->
float16 round trips, float32 ops between them), graph outputs inside the graph
as well as at its ends, a float32 graph input cast to float16, and If nodes
whose branches read outer float16 values and run float-only ops on them.
wasm-tests/ort-float16.test.js has ONNX Runtime save the graph it runs for
each (level disabled, optimizedModelFilePath) and checks memplan's
--float16-cpu graph against it node for node, and its order.
"""
import argparse
import os
import random

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper as nh

SHAPE = [1, 4, 8, 8]
F16 = T.FLOAT16
FLOAT_ONLY = ["Relu", "Sigmoid", "Tanh", "Add", "Mul", "MatMul", "Conv", "Sub"]
CAPABLE = ["Reshape", "Transpose", "Identity", "ConcatSplit", "Clip", "Max", "Min", "ShapeReshape"]


class Model:
    def __init__(self, rng):
        self.rng, self.nodes, self.inits, self.outputs, self.n = rng, [], [], [], 0
        self.live = []  # float16 tensors of SHAPE made so far

    def name(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def init(self, array, prefix):
        n = self.name(prefix)
        self.inits.append(nh.from_array(array, n))
        return n

    def pick(self):
        # recent tensors more often, so chains form, and older ones so branches join
        k = len(self.live)
        return self.live[max(0, k - 1 - int(self.rng.expovariate(0.5)))] if k else None

    def add(self, op, inputs, n_out=1, **attrs):
        outs = [self.name("t") for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.name(op.lower() + "_"), **attrs))
        return outs

    def step(self, depth=0):
        r = self.rng
        x = self.pick()
        kind = r.random()
        if kind < 0.45:
            op = r.choice(FLOAT_ONLY)
            if op in ("Add", "Mul", "MatMul", "Sub"):
                y = self.add(op, [x, self.pick()])[0]
            elif op == "Conv":
                w = self.init(np.full([4, 4, 3, 3], 0.01, dtype=np.float16), "w")
                y = self.add("Conv", [x, w], pads=[1, 1, 1, 1])[0]
            else:
                y = self.add(op, [x])[0]
        elif kind < 0.85:
            op = r.choice(CAPABLE)
            if op == "Reshape":
                s = self.init(np.array(SHAPE, dtype=np.int64), "s")
                y = self.add("Reshape", [x, s])[0]
            elif op == "Transpose":
                y = self.add("Transpose", [x], perm=[0, 1, 3, 2])[0]
            elif op == "ConcatSplit":
                c = self.add("Concat", [x, self.pick()], axis=1)[0]
                a, b = self.add("Split", [c, self.init(np.array([4, 4], dtype=np.int64), "sp")], n_out=2, axis=1)
                self.live.append(a)
                y = b
            elif op == "Clip":
                y = self.add("Clip", [x])[0]
            elif op in ("Max", "Min"):
                y = self.add(op, [x, self.pick()])[0]
            elif op == "ShapeReshape":
                s = self.add("Shape", [self.pick()])[0]
                y = self.add("Reshape", [x, s])[0]
            else:
                y = self.add("Identity", [x])[0]
        elif kind < 0.93:
            # the model's own round trip through float32, a float op between or not
            f = self.add("Cast", [x], to=T.FLOAT)[0]
            if r.random() < 0.5:
                f = self.add(r.choice(["Relu", "Sigmoid"]), [f])[0]
            y = self.add("Cast", [f], to=F16)[0]
        elif depth == 0:
            y = self.add_if(x)
        else:
            y = self.add("Relu", [x])[0]
        self.live.append(y)
        if r.random() < 0.15:
            self.outputs.append(y)

    def add_if(self, x):
        """An If whose branches read x (an outer value) and another."""
        r = self.rng
        other = self.pick()
        branches = []
        for b in range(2):
            out = self.name("b")
            if r.random() < 0.6:
                h = self.name("h")
                body = [helper.make_node(r.choice(["Relu", "Sigmoid", "Tanh"]), [x], [h], name=self.name("bn")),
                        helper.make_node(r.choice(["Add", "Mul", "Max"]), [h, other], [out], name=self.name("bn"))]
            else:
                body = [helper.make_node("Transpose", [x], [out], perm=[0, 1, 3, 2], name=self.name("bn"))]
            branches.append(helper.make_graph(body, f"branch{b}", [], [helper.make_tensor_value_info(out, F16, SHAPE)]))
        cond = self.init(np.array(r.random() < 0.5), "cond")
        return self.add("If", [cond], then_branch=branches[0], else_branch=branches[1])[0]


def model(rng):
    m = Model(rng)
    inputs = [helper.make_tensor_value_info("x", F16, SHAPE)]
    m.live.append("x")
    if rng.random() < 0.5:
        inputs.append(helper.make_tensor_value_info("x32", T.FLOAT, SHAPE))
        m.live.append(m.add("Cast", ["x32"], to=F16)[0])
    for _ in range(rng.randint(6, 30)):
        m.step()
    last = m.live[-1]
    if last not in m.outputs:
        m.outputs.append(last)
    if rng.random() < 0.3:  # a float32 output cast from a float16 one
        m.outputs.append(m.add("Cast", [m.outputs[0]], to=T.FLOAT)[0])
    outs = []
    for o in dict.fromkeys(m.outputs):
        elem = T.FLOAT if any(n.output[0] == o and n.op_type == "Cast" and n.attribute[0].i == T.FLOAT
                              for n in m.nodes) else F16
        outs.append(helper.make_tensor_value_info(o, elem, SHAPE))
    g = helper.make_graph(m.nodes, "f16", inputs, outs, m.inits)
    mp = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    mp.ir_version = 8
    return mp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    rng = random.Random(a.seed)
    for i in range(a.count):
        onnx.save(model(rng), os.path.join(a.outdir, f"f16-{a.seed}-{i:03d}.onnx"))


if __name__ == "__main__":
    main()
