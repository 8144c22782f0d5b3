#!/usr/bin/python3
"""Random QDQ models, and the units ONNX Runtime fused in one it optimized.

    gen_qdq_models.py OUTDIR --count N [--seed S]   write qdq-S-I.onnx, I = 0..N-1
    gen_qdq_models.py --fused OPTIMIZED.onnx...     print {file: how many units it holds fused}

A model is a random graph of the ops ONNX Runtime's CPU execution provider
fuses between DequantizeLinear and QuantizeLinear (memplan/qdq.h), in the
forms quantizers write: every activation quantized by a QuantizeLinear and
read back through a DequantizeLinear (one shared by the readers, or one per
reader), uint8 or int8 activations (16-bit ones in some models, at opset
21), int8 weights, int32 biases, Relu or Clip before a QuantizeLinear (some
removable), pairs that keep or change the scale around the ops whose pair
ONNX Runtime only drops, MatMuls without a QuantizeLinear, weight-only
quantized MatMuls (a float input times a DequantizeLinear of an int8, uint8 or
int4 weight, per tensor, per column or blockwise), Where, Split, ArgMax, Gemm
heads, and quantized or float values that are graph outputs. wasm-tests/ort-qdq.test.js plans each
with memplan and has ONNX Runtime optimize it (its optimizedModelFilePath):
the units memplan counts must be the units ONNX Runtime fused.

--fused counts, in a model ONNX Runtime optimized, the nodes that are a fused
unit: its QLinear ops, QGemm and MatMulIntegerToFloat, and each op whose pair
it only drops (Reshape, Transpose, MaxPool, Resize, ...) that now reads a
quantized tensor.
"""
import argparse
import json
import os
import random

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper as nh

FUSED_OPS = {"QLinearConv", "QLinearMatMul", "MatMulIntegerToFloat", "QGemm", "QLinearAdd", "QLinearMul",
             "QLinearConcat", "QLinearAveragePool", "QLinearGlobalAveragePool", "QLinearLeakyRelu",
             "QLinearSigmoid", "QLinearSoftmax", "MatMulNBits", "QLinearWhere"}
DROP_DQ_OPS = {"ArgMax"}  # only its DequantizeLinear dropped: it reads the quantized tensor, writes int64
DROP_OPS = {"Reshape", "Transpose", "MaxPool", "Resize", "Squeeze", "Unsqueeze", "Flatten", "Slice", "Gather",
            "GatherElements", "Tile", "Expand", "ReduceMax", "ReduceMin", "Split"}
NP = {T.UINT8: np.uint8, T.INT8: np.int8, T.UINT16: np.uint16, T.INT16: np.int16}
LEAST = {T.UINT8: 0, T.INT8: -128, T.UINT16: 0, T.INT16: -32768}
GREATEST = {T.UINT8: 255, T.INT8: 127, T.UINT16: 65535, T.INT16: 32767}


class Model:
    """A graph being written: quantized tensors, each with its type, scale and zero point."""

    def __init__(self, rng, act_type, opset):
        self.rng, self.act_type, self.opset = rng, act_type, opset
        self.nodes, self.inits, self.outputs, self.n, self.value, self.wscale = [], [], [], 0, {}, {}
        self.q = []  # (name, elem type, scale name, zero point name or None, (c, h, w))
        self.dq = {}  # quantized name -> its shared DequantizeLinear output

    def name(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def init(self, array, prefix):
        n = self.name(prefix)
        self.inits.append(nh.from_array(array, n))
        self.value[n] = array
        return n

    def params(self, t, zero_point=False):
        """A scale and a zero point (None: not given, uint8 only, unless `zero_point`) for type t.
        After a Relu or a Clip the zero point is given: without one ONNX Runtime 1.30 fails to
        load some such models ("Node input ... is not a graph input")."""
        r = self.rng
        scale = self.init(np.array(r.choice([0.02, 0.05, 0.1]), dtype=np.float32), "s")
        if t == T.UINT8 and r.random() < 0.15 and not zero_point:
            return scale, None
        zp = r.choice([LEAST[t], 0, 0, 0, 3]) if t in (T.INT8, T.INT16) else r.choice([0, 0, 128, LEAST[t]])
        return scale, self.init(np.array(zp, dtype=NP[t]), "z")

    def quantize(self, x, shape, t=None, params=None):
        """x (float, [1, c, h, w] for shape (c, h, w)) quantized: a new quantized tensor."""
        t = t or self.pick_type()
        scale, zp = params or self.params(t)
        q = self.name("q")
        self.nodes.append(helper.make_node("QuantizeLinear", [x, scale] + ([zp] if zp else []), [q]))
        self.q.append((q, t, scale, zp, shape))
        return q

    def pick_type(self):
        r = self.rng.random()
        if r < 0.12:  # a tensor of the other 8-bit type
            return T.INT8 if self.act_type == T.UINT8 else T.UINT8
        return self.act_type

    def read(self, q):
        """The float value of quantized tensor q: its shared DequantizeLinear, or one of its own."""
        name, t, scale, zp, _ = q
        if name in self.dq and self.rng.random() < 0.6:
            return self.dq[name]
        x = self.name("x")
        self.nodes.append(helper.make_node("DequantizeLinear", [name, scale] + ([zp] if zp else []), [x]))
        self.dq.setdefault(name, x)
        return x

    def weight(self, shape, per_channel=False, t=T.INT8):
        """An int8 weight: one scale, or (a conv's, per_channel) one per output channel."""
        w = self.init(np.ones(shape, dtype=NP[t]), "w")
        if per_channel:
            s = self.init(np.linspace(0.005, 0.02, shape[0]).astype(np.float32), "sw")
            z = self.init(np.zeros(shape[0], dtype=NP[t]), "zw")
        else:
            s = self.init(np.array(0.01, dtype=np.float32), "sw")
            z = self.init(np.array(0, dtype=NP[t]), "zw")
        x = self.name("wf")
        self.nodes.append(helper.make_node("DequantizeLinear", [w, s, z], [x], **({"axis": 0} if per_channel else {})))
        self.wscale[x] = s
        return x

    def weight_only(self, q):
        """A float MatMul of a float value (a Sigmoid of q's) by a weight-only quantized weight
        [w, w] (ONNX Runtime's MatMulNBits where the format fits): int8 per tensor (scale a
        scalar, or [1], which does not fit), uint8 per column, int4 blockwise along axis 0
        (opset 21; block 16, or 8, which does not fit); then, quantized after: a float
        Sigmoid, or a Relu (which, before a QuantizeLinear that does not make it redundant, keeps
        the MatMul unfused), or the QuantizeLinear right after (the QDQ selectors', not fused)."""
        r = self.rng
        c, h, w = q[4]
        x = self.name("f")
        self.nodes.append(helper.make_node("Sigmoid", [self.read(q)], [x]))
        forms = ["tensor", "tensor1", "column"] + (["block16", "block8"] if self.opset >= 21 and w % 16 == 0 else [])
        form = r.choice(forms)
        if form.startswith("block"):
            block = int(form[5:])
            wt = onnx.TensorProto()
            wt.name, wt.data_type = self.name("w"), 22  # INT4 (onnx 1.16+ names it)
            wt.dims.extend([w, w])
            wt.raw_data = bytes((w * w + 1) // 2)
            self.inits.append(wt)
            scale = self.init(np.full(((w + block - 1) // block, w), 0.01, dtype=np.float32), "sw")
            ins, attrs = [wt.name, scale], {"axis": 0, "block_size": block}
        elif form == "column":
            ins = [self.init(np.ones((w, w), dtype=np.uint8), "w"), self.init(np.full(w, 0.01, dtype=np.float32), "sw"),
                   self.init(np.zeros(w, dtype=np.uint8), "zw")]
            attrs = {"axis": 1}
        else:
            scale = np.array(0.01, dtype=np.float32) if form == "tensor" else np.full(1, 0.01, dtype=np.float32)
            ins = [self.init(np.ones((w, w), dtype=np.int8), "w"), self.init(scale, "sw"),
                   self.init(np.zeros(scale.shape, dtype=np.int8), "zw")]
            attrs = {}
        wf, y = self.name("wf"), self.name("y")
        self.nodes.append(helper.make_node("DequantizeLinear", ins, [wf], **attrs))
        self.nodes.append(helper.make_node("MatMul", [x, wf], [y]))
        u, params = r.random(), None
        if u < 0.8:  # a float op after it; a Relu then a QuantizeLinear that keeps it keeps the MatMul too
            f = self.name("f")
            self.nodes.append(helper.make_node("Sigmoid" if u < 0.6 else "Relu", [y], [f]))
            y = f
            params = self.params(self.act_type, True)
        self.quantize(y, (c, h, w), self.act_type, params)

    def bias(self, n, q, weight):
        """An int32 bias (int8 now and then) read with quantized tensor q and `weight`: its scale
        the input's times the weight's (per channel too), as quantizers write it, or now and then
        10% off."""
        r = self.rng
        b = self.init(np.zeros(n, dtype=np.int32 if r.random() < 0.9 else np.int8), "b")
        scale = self.value[q[2]] * self.value[self.wscale[weight]] * (1.1 if r.random() < 0.1 else 1.0)
        s = self.init(scale.astype(np.float32), "sb")
        x = self.name("bf")
        self.nodes.append(helper.make_node("DequantizeLinear", [b, s], [x], **({"axis": 0} if scale.ndim else {})))
        return x

    def activation(self, y):
        """Maybe a Relu or a Clip after y, before its QuantizeLinear (ONNX Runtime removes it when
        the zero point is the type's least value, or the bounds hold the quantized range)."""
        r = self.rng.random()
        if r < 0.7:
            return y
        out = self.name("a")
        if r < 0.85:
            self.nodes.append(helper.make_node("Relu", [y], [out]))
        else:
            hi = self.rng.choice([6.0, 1e9])
            lo = self.init(np.array(0.0, dtype=np.float32), "lo")
            h = self.init(np.array(hi, dtype=np.float32), "hi")
            self.nodes.append(helper.make_node("Clip", [y, lo, h], [out]))
        return out

    def step(self):
        """One op on a recent quantized tensor, quantized after."""
        r = self.rng
        q = r.choice(self.q[-3:])
        shape = q[4]
        c, h, w = shape
        op = r.choice(["Conv", "Conv", "Conv", "MatMul", "Add", "Mul", "Concat", "AveragePool", "GlobalAveragePool",
                       "LeakyRelu", "Sigmoid", "Softmax", "Reshape", "MaxPool", "Resize", "WeightOnly", "Where",
                       "Split"])
        if op == "Split" and c % 2 == 0:  # two halves along the channels, each quantized
            outs = [self.name("y"), self.name("y")]
            split = [self.init(np.array([c // 2, c // 2], dtype=np.int64), "split")] if self.opset >= 13 else []
            self.nodes.append(helper.make_node("Split", [self.read(q)] + split, outs, axis=1,
                                               **({} if self.opset >= 13 else {"split": [c // 2, c // 2]})))
            for y in outs:  # the input's parameters (ONNX Runtime drops the pairs), or now and then others
                t, params = (q[1], (q[2], q[3])) if r.random() < 0.85 else (self.pick_type(), None)
                self.quantize(y, (c // 2, h, w), t, params)
            return
        if op == "WeightOnly":
            self.weight_only(q)
            return
        attrs = {}
        if op == "Conv":
            ins = [self.read(q), self.weight((8, c, 3, 3), r.random() < 0.3)]
            if r.random() < 0.8:
                ins.append(self.bias(8, q, ins[1]))
            attrs, shape = {"pads": [1, 1, 1, 1]}, (8, h, w)
        elif op == "MatMul":
            ins = [self.read(q), self.weight((w, w))]
        elif op == "Where":  # QLinearWhere: a float comparison picks from two quantized values
            other = r.choice([p for p in self.q if p[4] == shape])
            cond = self.name("c")
            self.nodes.append(helper.make_node("Greater", [self.read(q), self.read(other)], [cond]))
            ins = [cond, self.read(q), self.read(other)]
        elif op in ("Add", "Mul"):
            other = r.choice([p for p in self.q if p[4] == shape])  # q itself, maybe: one value read twice
            ins = [self.read(q), self.read(other)]
        elif op == "Concat":
            other = r.choice([p for p in self.q if p[4][1:] == (h, w)])
            ins, attrs, shape = [self.read(q), self.read(other)], {"axis": 1}, (c + other[4][0], h, w)
        elif op in ("AveragePool", "MaxPool"):
            ins, attrs = [self.read(q)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
        elif op == "GlobalAveragePool":
            ins, shape = [self.read(q)], (c, 1, 1)
        elif op == "Reshape":
            ins = [self.read(q), self.init(np.array([1, c, h * w], dtype=np.int64), "shape")]
        elif op == "Resize":
            ins = [self.read(q), "", self.init(np.array([1, 1, 1, 1], dtype=np.float32), "scales")]
        elif op == "Transpose":
            ins, attrs, shape = [self.read(q)], {"perm": [0, 1, 3, 2]}, (c, w, h)
        else:
            ins, attrs = [self.read(q)], {"axis": 1} if op == "Softmax" else {}
        t, params = self.pick_type(), None
        if op in DROP_OPS and r.random() < 0.8:  # the pair keeps its parameters: ONNX Runtime drops it
            t, params = q[1], (q[2], q[3])
        y = self.name("y")
        self.nodes.append(helper.make_node(op, ins, [y], **attrs))
        if op == "MatMul" and r.random() < 0.25:  # MatMulIntegerToFloat: a float output a float op reads
            f = self.name("f")  # (a Relu before a QuantizeLinear that keeps it keeps the MatMul float)
            self.nodes.append(helper.make_node(r.choice(["Relu", "Sigmoid"]), [y], [f]))
            self.quantize(f, shape, t, self.params(t, True))
            return
        if op == "Reshape":  # back to [1, c, h, w] through a second pair
            self.quantize(y, (c, h, w), t, params)
            back = self.init(np.array([1, c, h, w], dtype=np.int64), "shape")
            y = self.name("y")
            self.nodes.append(helper.make_node("Reshape", [self.read(self.q.pop()), back], [y]))
        if op not in DROP_OPS and y != (y := self.activation(y)) and not (params and params[1]):
            params = self.params(t, True)
        self.quantize(y, shape, t, params)

def head(m):
    """A classifier head: Flatten (its pair dropped or not), then Gemm [1, c*h*w] x [c*h*w, 8]
    with a bias and beta 1, or 0.5 now and then, quantized or (QGemm's float output) not."""
    r, q = m.rng, m.q[-1]
    c, h, w = q[4]
    flat = m.name("y")
    m.nodes.append(helper.make_node("Flatten", [m.read(q)], [flat]))
    t, params = (q[1], (q[2], q[3])) if r.random() < 0.8 else (m.pick_type(), None)
    m.quantize(flat, (c * h * w, 1, 1), t, params)
    q = m.q[-1]
    ins = [m.read(q), m.weight((c * h * w, 8))]
    ins.append(m.bias(8, q, ins[1]))
    y = m.name("y")
    m.nodes.append(helper.make_node("Gemm", ins, [y], beta=0.5 if r.random() < 0.15 else 1.0))
    if r.random() < 0.25:
        m.outputs.append(helper.make_tensor_value_info(y, T.FLOAT, None))
        return
    m.quantize(y, (8, 1, 1))


Model.head = head


def make(rng, path):
    act = rng.choice([T.UINT8, T.INT8, T.INT8])
    if rng.random() < 0.1:
        act = rng.choice([T.UINT16, T.INT16])
    m = Model(rng, act, 21 if act in (T.UINT16, T.INT16) or rng.random() < 0.3 else 13)
    m.quantize("X", (8, 8, 8), act)
    for _ in range(rng.randint(2, 7)):
        m.step()
    if rng.random() < 0.3:
        m.head()
    last = m.q[-1]
    m.outputs.append(helper.make_tensor_value_info(m.read(last), T.FLOAT, None))
    if rng.random() < 0.3:  # an ArgMax over it: ONNX Runtime drops its DequantizeLinear
        m.nodes.append(helper.make_node("ArgMax", [m.read(last)], ["argmax"], axis=1))
        m.outputs.append(helper.make_tensor_value_info("argmax", T.INT64, None))
    for q in m.q[1:-1]:  # some values leave the graph: quantized, or through a DequantizeLinear
        u = rng.random()
        if u < 0.08:
            m.outputs.append(helper.make_tensor_value_info(q[0], q[1], None))
        elif u < 0.16:
            m.outputs.append(helper.make_tensor_value_info(m.read(q), T.FLOAT, None))
    m.outputs = [o for i, o in enumerate(m.outputs) if o.name not in {p.name for p in m.outputs[:i]}]
    g = helper.make_graph(m.nodes, "qdq", [helper.make_tensor_value_info("X", T.FLOAT, [1, 8, 8, 8])],
                          m.outputs, m.inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", m.opset)])
    model.ir_version = 10 if m.opset >= 21 else 8
    onnx.save(model, path)


def fused(optimized):
    """The fused units of an optimized model: its QLinear ops, QGemm and MatMulIntegerToFloat,
    and each op whose pair was dropped, which reads a quantized tensor (a QuantizeLinear's
    output, a QLinear op's, or one such an op wrote) where the model read a
    DequantizeLinear's output (ONNX Runtime's transpose optimizer renames some)."""
    g = onnx.load(optimized).graph
    quantized = set()
    made = {"QuantizeLinear"} | FUSED_OPS - {"MatMulIntegerToFloat"}
    changed = True
    while changed:  # to a fixpoint: the saved model's nodes need not be in order
        changed = False
        for n in g.node:
            if n.output and n.output[0] not in quantized and (
                    (n.op_type in made and not (n.op_type == "QGemm" and len(n.input) < 8)) or
                    (n.op_type in DROP_OPS and n.input and n.input[0] in quantized)):
                quantized.update(n.output)  # a Split's every output
                changed = True
    return sum(1 for n in g.node if n.op_type in FUSED_OPS or
               (n.op_type in DROP_OPS | DROP_DQ_OPS and n.input[0] in quantized))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="*")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fused", action="store_true")
    a = ap.parse_args()
    if a.fused:
        print(json.dumps({f: fused(f) for f in a.out}))
        return
    if len(a.out) != 1:
        ap.error("one OUTDIR")
    a.out = a.out[0]
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.count):
        make(random.Random(a.seed * 100003 + i), os.path.join(a.out, f"qdq-{a.seed}-{i:03d}.onnx"))


if __name__ == "__main__":
    main()
