#!/usr/bin/env python3
"""qdq_model.py -- a float ONNX model in QDQ form, as ONNX Runtime's static
quantization writes it by default (quantize_static, QuantFormat.QDQ).

    /usr/bin/python3 bench/qdq_model.py IN.onnx OUT.onnx [--activations int8|uint8]

For `memplan plan OUT.onnx` against `memplan plan OUT.onnx --fuse-qdq` (README,
"QDQ models"): the graph as written against the units fused as ONNX Runtime's
CPU execution provider runs them. What it writes, as the quantizer does with
its defaults (activations int8, or uint8 with --activations uint8; weights
int8, per tensor):
  - each float activation an op of QUANTIZED reads or writes (a graph input
    too, not a graph output) gets one QuantizeLinear -> DequantizeLinear pair
    after its producer, and every reader reads the DequantizeLinear's output
    (one DequantizeLinear per tensor, shared by its readers: the quantizer's
    default, DedicatedQDQPair off);
  - a Relu or Clip alone after such an op is left between it and the pair,
    which quantizes the activation's output over its range (Relu: from 0, a
    Clip: its bounds), as the quantizer does; ONNX Runtime then removes it;
  - each float initializer such an op reads becomes an int8 initializer (a
    Conv's bias int32, its scale the input's times the weight's; another op's
    than Conv's and MatMul's of the activations' type) and a DequantizeLinear;
  - Constant nodes holding a tensor become initializers first (ONNX Runtime
    folds them at load; paddle2onnx writes its weights so);
  - a model below opset 11 is converted to 11 first (onnx.version_converter),
    as the quantizer does.
The values are placeholders (scale 1/64, zero point 0, or 128 for uint8, weights
rounded): the model's memory, not its accuracy, is what it is for. Needs the
onnx and numpy modules (Debian: python3-onnx, python3-numpy).
"""
import argparse

import numpy as np
import onnx
import onnx.version_converter
from onnx import TensorProto as T, helper, numpy_helper as nh

# The ops the quantizer's QDQ registry quantizes (and ONNX Runtime's CPU
# execution provider fuses, memplan/qdq.h); their other inputs are left.
QUANTIZED = {
    "Conv": 3, "MatMul": 2, "Add": 2, "Mul": 2, "Concat": None, "AveragePool": 1,
    "GlobalAveragePool": 1, "MaxPool": 1, "Sigmoid": 1, "LeakyRelu": 1, "Softmax": 1,
    "Resize": 1, "Reshape": 1, "Transpose": 1, "Squeeze": 1, "Unsqueeze": 1, "Flatten": 1,
}
SCALE = np.float32(1 / 64)


def float_tensors(model):
    """Names of the float tensors, by onnx's shape inference."""
    inferred = onnx.shape_inference.infer_shapes(model)
    g = inferred.graph
    out = set()
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        if vi.type.tensor_type.elem_type == T.FLOAT:
            out.add(vi.name)
    for init in g.initializer:
        if init.data_type == T.FLOAT:
            out.add(init.name)
    return out


def constants_to_initializers(g):
    """Constant nodes holding a tensor become initializers (ONNX Runtime folds them at load), so
    the weights exporters write as Constants (paddle2onnx) are quantized as initializers are."""
    keep = []
    for n in g.node:
        value = [a for a in n.attribute if a.name == "value"] if n.op_type == "Constant" else []
        if value and n.domain in ("", "ai.onnx"):
            t = onnx.TensorProto()
            t.CopyFrom(value[0].t)
            t.name = n.output[0]
            g.initializer.append(t)
        else:
            keep.append(n)
    del g.node[:]
    g.node.extend(keep)


def convert(model, uint8=False):
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    if opset < 11:  # QuantizeLinear is opset 10; the quantizer first converts a model to 11, as here
        model = onnx.version_converter.convert_version(model, 11)
    g = model.graph
    constants_to_initializers(g)
    floats = float_tensors(model)
    inits = {i.name: i for i in g.initializer}
    outputs = {o.name for o in g.output}
    consts = {o for n in g.node if n.op_type == "Constant" for o in n.output}
    new_inits = [nh.from_array(np.array(SCALE), "qdq_scale"),
                 nh.from_array(np.array(128, dtype=np.uint8), "qdq_zero_u8"),
                 nh.from_array(np.array(0, dtype=np.int8), "qdq_zero_act_i8"),
                 nh.from_array(np.array(0, dtype=np.int8), "qdq_zero_i8"),
                 nh.from_array(np.array(0, dtype=np.int32), "qdq_zero_i32")]
    weights = {}  # float initializer name -> its DequantizeLinear's output

    def weight(name, op, k, x_scale):
        key = (name, op == "Conv" and k == 2, float(x_scale) if op == "Conv" and k == 2 else None)
        if key not in weights:
            a = nh.to_array(inits[name])
            if key[1]:  # a Conv's bias: int32, at the input's scale times the weight's
                q, zero = np.round(a / (x_scale * SCALE)).astype(np.int32), "qdq_zero_i32"
            elif op in ("Conv", "MatMul"):
                q, zero = np.clip(np.round(a / SCALE), -127, 127).astype(np.int8), "qdq_zero_i8"
            elif uint8:  # another op's constant input: the activations' type, as the quantizer does
                q, zero = np.clip(np.round(a / SCALE) + 128, 0, 255).astype(np.uint8), "qdq_zero_u8"
            else:
                q, zero = np.clip(np.round(a / SCALE), -128, 127).astype(np.int8), "qdq_zero_act_i8"
            qname = f"{name}_quantized{'_bias' if key[1] else ''}{len(weights) if key[1] else ''}"
            new_inits.append(nh.from_array(q, qname))
            scale = "qdq_scale"
            if key[1]:
                scale = f"{qname}_scale"
                new_inits.append(nh.from_array(np.array(np.float32(x_scale * SCALE)), scale))
            weights[key] = (qname, zero, f"{qname}_dq", scale)
        return weights[key]

    # the activations to quantize: float, not weights, not Constant outputs, not graph outputs
    readers = {}
    for n in g.node:
        for t in n.input:
            readers.setdefault(t, []).append(n)
    def bound(clip, k):  # a Clip's constant bound (input k), else None
        name = clip.input[k] if len(clip.input) > k else ""
        return float(nh.to_array(inits[name])) if name in inits else None

    usable = lambda t: t and t in floats and t not in inits and t not in consts and t not in outputs
    acts, params = [], {}  # params: tensor -> (scale, zero point) other than the default
    for n in g.node:
        if n.op_type not in QUANTIZED or n.domain not in ("", "ai.onnx"):
            continue
        data = QUANTIZED[n.op_type]
        outs = list(n.output[:1])
        # a Relu or Clip alone after the op: the quantizer quantizes its output instead, with its
        # range (Relu: from 0; Clip: its bounds), and ONNX Runtime removes it before fusing
        after = readers.get(outs[0], []) if outs else []
        if len(after) == 1 and after[0].op_type in ("Relu", "Clip") and outs[0] not in outputs:
            act = after[0]
            lo, hi = (0.0, None) if act.op_type == "Relu" else (bound(act, 1), bound(act, 2))
            if lo is not None and (hi is not None or act.op_type == "Relu"):
                scale = np.float32(SCALE if hi is None else (hi - lo) / 255)
                zero = round(-lo / float(scale))
                params[act.output[0]] = (scale, np.uint8(min(255, max(0, zero))) if uint8 else
                                         np.int8(min(127, max(-128, zero - 128))))
                outs = [act.output[0]]
        for t in list(n.input if data is None else n.input[:data]) + outs:
            if usable(t) and t not in acts:
                acts.append(t)
    acts_set = set(acts)
    dq_of = {t: f"{t}_dq" for t in acts}
    nodes = []
    pre = {}  # tensor -> the pair to add after its producer (or at the start: a graph input)
    for t in acts:
        scale, zero = "qdq_scale", "qdq_zero_u8" if uint8 else "qdq_zero_act_i8"
        if t in params:
            scale, zero = f"{t}_scale", f"{t}_zero"
            new_inits += [nh.from_array(np.array(params[t][0]), scale), nh.from_array(np.array(params[t][1]), zero)]
        pre[t] = [helper.make_node("QuantizeLinear", [t, scale, zero], [f"{t}_q"], name=f"{t}_Q"),
                  helper.make_node("DequantizeLinear", [f"{t}_q", scale, zero], [dq_of[t]], name=f"{t}_DQ")]
    for i in g.input:
        nodes += pre.get(i.name, [])
    for n in g.node:
        data = QUANTIZED.get(n.op_type, 0) if n.domain in ("", "ai.onnx") else 0
        ins = []
        for k, t in enumerate(n.input):
            if t in acts_set:
                ins.append(dq_of[t])
            elif n.op_type in QUANTIZED and (data is None or k < data) and t in inits and t in floats:
                src = n.input[0]
                qname, zero, dq, scale = weight(t, n.op_type, k, params[src][0] if src in params else SCALE)
                if not any(x.output[0] == dq for x in nodes):
                    nodes.append(helper.make_node("DequantizeLinear", [qname, scale, zero], [dq], name=f"{qname}_DQ"))
                ins.append(dq)
            else:
                ins.append(t)
        del n.input[:]
        n.input.extend(ins)
        nodes.append(n)
        for o in n.output:
            nodes += pre.get(o, [])
    used = {t for n in nodes for t in n.input} | outputs
    keep = [i for i in g.initializer if i.name in used]
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(keep + [i for i in new_inits if i.name in used])
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--activations", choices=["int8", "uint8"], default="int8",
                    help="the activations' type (the quantizer's activation_type; default int8, its default)")
    args = ap.parse_args()
    model = convert(onnx.load(args.src), args.activations == "uint8")
    onnx.checker.check_model(model)
    onnx.save(model, args.dst)


if __name__ == "__main__":
    main()
