#!/usr/bin/python3
"""ort_workspace_models.py -- single-node ONNX models for measuring ONNX
Runtime's CPU kernels' scratch memory (workspace: the temp buffers a kernel
allocates inside Compute and frees before it returns).

    /usr/bin/python3 bench/ort_workspace_models.py OUTDIR

Writes OUTDIR/<case>.onnx (opset 17, ir_version 8; graph input X, every
other input an initializer of random data from a fixed seed) and
OUTDIR/cases.json: for each case its name, op, attributes and shapes, the
workspace predicted from ONNX Runtime's sources for the kernel ONNX Runtime
1.30 runs (`predicted_bytes`; measured on onnxruntime-node 1.30.0), with
`alt_predicted_bytes` where another version of the kernel, or an earlier
reading of its source, gives another figure, and the formula.
bench/ort_workspace.mjs runs them and sets memplan's own figure beside
these. The output is deterministic: the same files byte for byte on every
run.

Notation: N batch, C input channels, M output channels, G groups,
k = prod(kernel), IS / OS input / output spatial size, K = (C/G)*k.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8
MiB = 1 << 20

F32, U8, I8, I32 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32
NP = {F32: np.float32, U8: np.uint8, I8: np.int8, I32: np.int32}
TYPE_NAME = {F32: "float32", U8: "uint8", I8: "int8", I32: "int32"}


def prod(xs):
    p = 1
    for x in xs:
        p *= int(x)
    return p


class Builder:
    """One case: a single node (X the graph input, the rest initializers)."""

    def __init__(self, rng):
        self.rng = rng

    def tensor(self, name, dtype, shape, low=None, high=None, value=None):
        if value is not None:
            a = np.array(value, dtype=NP[dtype]).reshape(shape)
        elif dtype == F32:
            a = (self.rng.standard_normal(size=shape) * 0.1).astype(np.float32)
        else:
            info = np.iinfo(NP[dtype])
            lo = info.min if low is None else low
            hi = info.max if high is None else high
            a = self.rng.integers(lo, hi + 1, size=shape, dtype=np.int64).astype(NP[dtype])
        return numpy_helper.from_array(a, name)


def make_model(name, node, x_type, x_shape, y_type, y_shape, inits, domains=None):
    x = helper.make_tensor_value_info("X", x_type, x_shape)
    y = helper.make_tensor_value_info("Y", y_type, y_shape)
    graph = helper.make_graph([node], name, [x], [y], initializer=inits)
    opsets = [helper.make_opsetid("", OPSET)]
    for d, v in (domains or {}).items():
        opsets.append(helper.make_opsetid(d, v))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="onnx-memplan bench")
    model.ir_version = IR_VERSION
    return model


def conv_out(size, k, s, p0, p1, d=1):
    return (size + p0 + p1 - d * (k - 1) - 1) // s + 1


def convT_out(size, k, s, p0, p1, d=1, out_pad=0):
    return s * (size - 1) + out_pad + d * (k - 1) + 1 - p0 - p1


# ---------------------------------------------------------------- formulas


def ws_conv_integer(N, C, M, G, k, strides, pads, IS, OS):
    K = (C // G) * k
    if k == 1 and all(s == 1 for s in strides) and all(p == 0 for p in pads):
        return 0, "0 (k==1, strides 1, pads 0: no im2col)"
    return K * OS, "K*OS (uint8 im2col of one group, reused) = %d*%d" % (K, OS)


def ws_conv_float(N, C, M, G, k, strides, pads, IS, OS):
    """Returns (MLAS in ONNX Runtime 1.30, newer MLAS, formula text)."""
    K = (C // G) * k
    if k == 1 and all(s == 1 for s in strides) and all(p == 0 for p in pads):
        return 0, 0, "0 (pointwise: GEMM straight on X)"
    if M // G > OS:
        b = 4 * OS * K
        return b, b, "M/G > OS: 4*OS*K = 4*%d*%d (whole im2col, ExpandThenGemm)" % (OS, K)
    if N == 1 and G == 1:
        return 4 * 16384, 4 * 16384, "N==1, G==1: 4*16384 (segmented im2col tile)"
    # Batched or grouped (depthwise included): ONNX Runtime 1.30's MLAS takes
    # the same 64 KiB segment (measured: no larger block at all). Newer MLAS
    # (MlasConvExpandThenGemmSegmentedThreaded) allocates a whole im2col a
    # thread and fills a 64 KiB tile of it at a time: the alt figure.
    newer = 4 * max(OS * K, (M // G) * OS, 16384)
    return 4 * 16384, newer, (
        "N>1 or G>1: 4*16384 (segmented im2col tile, as N==1, G==1); "
        "alt (newer MLAS) 4*max(OS*K, (M/G)*OS, 16384) = 4*max(%d, %d, 16384)" % (OS * K, (M // G) * OS)
    )


def ws_conv_transpose(N, C, M, G, k, IS):
    b = 4 * (M // G) * k * IS
    return b, "4*(M/G)*k*IS = 4*%d*%d*%d (float col buffer, always)" % (M // G, k, IS)


def ws_qlinear_conv(N, C, M, G, k, strides, pads, IS, OS, kernel):
    """NCHW QLinearConv's workspace. kernel: "general" (uint8 W, or a zero
    point not 0), "symmetric" (int8 W, every zero point 0, on a CPU MLAS
    has a ConvSym kernel for; measured with AVX-512 VNNI), or "symmetric_im2col"
    (the earlier reading of the symmetric case: no int32 product, but the
    im2col kept, which 1.30 measures otherwise)."""
    K = (C // G) * k
    parts, text = 0, []
    if kernel == "general":
        parts += 4 * M * OS
        text.append("4*M*OS int32 gemm output (%d)" % (4 * M * OS))
    parts += C * IS + M * OS
    text.append("C*IS + M*OS NCHW<->NHWC (%d + %d)" % (C * IS, M * OS))
    pointwise = k == 1 and all(s == 1 for s in strides) and all(p == 0 for p in pads)
    depthwise = G == C and G == M and G > 1
    if kernel == "symmetric":  # ConvSym reads X through an indirection buffer, no im2col
        if depthwise or not pointwise:
            parts += 8 * k * OS
            text.append("8*k*OS pointer buffer instead of im2col (%d)" % (8 * k * OS))
    elif depthwise:
        parts += 8 * k * OS
        text.append("depthwise: 8*k*OS pointer buffer (%d)" % (8 * k * OS))
    elif not pointwise:
        parts += K * OS
        text.append("K*OS uint8 im2col (%d)" % (K * OS))
    return parts, " + ".join(text)


# ------------------------------------------------------------------- cases


def cases(rng):
    b = Builder(rng)
    out = []

    def add(name, op, model, attrs, shapes, predicted, formula, alt=None, domain=""):
        out.append(
            dict(
                name=name,
                op=op,
                domain=domain,
                file=name + ".onnx",
                attributes=attrs,
                shapes=shapes,
                predicted_bytes=int(predicted),
                alt_predicted_bytes=None if alt is None else int(alt),
                formula=formula,
                model=model,
            )
        )

    # Control: an elementwise op, no workspace. The noise floor.
    shp = [8, 512, 4096]
    node = helper.make_node("Relu", ["X"], ["Y"])
    add(
        "control_relu",
        "Relu",
        make_model("control_relu", node, F32, shp, F32, shp, []),
        {},
        dict(X=shp, Y=shp),
        0,
        "0 (elementwise)",
    )

    # a. ConvInteger
    def conv_integer(name, C, M, H, kh, pad, G):
        W = [M, C // G, kh, kh]
        pads = [pad] * 4
        OH = conv_out(H, kh, 1, pad, pad)
        inits = [
            b.tensor("W", U8, W),
            b.tensor("x_zp", U8, [], value=128),
            b.tensor("w_zp", U8, [], value=128),
        ]
        attrs = dict(kernel_shape=[kh, kh], pads=pads, group=G)
        node = helper.make_node("ConvInteger", ["X", "W", "x_zp", "w_zp"], ["Y"], **attrs)
        xs, ys = [1, C, H, H], [1, M, OH, OH]
        pred, f = ws_conv_integer(1, C, M, G, kh * kh, [1, 1], pads, H * H, OH * OH)
        add(name, "ConvInteger", make_model(name, node, U8, xs, I32, ys, inits), attrs,
            dict(X=xs, W=W, Y=ys), pred, f)

    conv_integer("convinteger_3x3", 64, 64, 256, 3, 1, 1)
    conv_integer("convinteger_1x1", 64, 64, 256, 1, 0, 1)
    conv_integer("convinteger_3x3_g2", 64, 64, 256, 3, 1, 2)

    # b. Conv (float, MLAS)
    def conv(name, N, C, M, H, kh, pad, G):
        W = [M, C // G, kh, kh]
        pads = [pad] * 4
        OH = conv_out(H, kh, 1, pad, pad)
        inits = [b.tensor("W", F32, W)]
        attrs = dict(kernel_shape=[kh, kh], pads=pads, group=G)
        node = helper.make_node("Conv", ["X", "W"], ["Y"], **attrs)
        xs, ys = [N, C, H, H], [N, M, OH, OH]
        pred, newer, f = ws_conv_float(N, C, M, G, kh * kh, [1, 1], pads, H * H, OH * OH)
        add(name, "Conv", make_model(name, node, F32, xs, F32, ys, inits), attrs,
            dict(X=xs, W=W, Y=ys), pred, f, alt=newer if newer != pred else None)

    conv("conv_3x3_n1", 1, 64, 64, 256, 3, 1, 1)
    conv("conv_1x1", 1, 64, 64, 256, 1, 0, 1)
    conv("conv_dw_3x3", 1, 16, 16, 1024, 3, 1, 16)
    conv("conv_3x3_g2", 1, 64, 64, 256, 3, 1, 2)
    conv("conv_3x3_n2", 2, 64, 64, 128, 3, 1, 1)
    conv("conv_3x3_m_gt_os", 1, 512, 1024, 24, 3, 1, 1)
    conv("conv_3x3_g2_m_gt_os", 1, 1024, 2048, 20, 3, 1, 2)

    # c. ConvTranspose (float)
    def conv_transpose(name, C, M, H, kh, stride, pad, G):
        W = [C, M // G, kh, kh]
        pads = [pad] * 4
        OH = convT_out(H, kh, stride, pad, pad)
        inits = [b.tensor("W", F32, W)]
        attrs = dict(kernel_shape=[kh, kh], pads=pads, strides=[stride, stride], group=G)
        node = helper.make_node("ConvTranspose", ["X", "W"], ["Y"], **attrs)
        xs, ys = [1, C, H, H], [1, M, OH, OH]
        pred, f = ws_conv_transpose(1, C, M, G, kh * kh, H * H)
        add(name, "ConvTranspose", make_model(name, node, F32, xs, F32, ys, inits), attrs,
            dict(X=xs, W=W, Y=ys), pred, f)

    conv_transpose("convtranspose_4x4_s2", 64, 64, 128, 4, 2, 1, 1)
    conv_transpose("convtranspose_1x1", 64, 64, 256, 1, 1, 0, 1)
    conv_transpose("convtranspose_4x4_s2_g2", 64, 64, 128, 4, 2, 1, 2)

    # d. QLinearConv (uint8 X; uint8 or int8 W), NCHW as written
    def qlinear_conv(name, C, M, H, kh, pad, G, w_type):
        W = [M, C // G, kh, kh]
        pads = [pad] * 4
        OH = conv_out(H, kh, 1, pad, pad)
        w_zp = 128 if w_type == U8 else 0
        inits = [
            b.tensor("x_scale", F32, [], value=0.02),
            b.tensor("x_zp", U8, [], value=128),
            b.tensor("W", w_type, W, low=0 if w_type == U8 else -127, high=255 if w_type == U8 else 127),
            b.tensor("w_scale", F32, [], value=0.01),
            b.tensor("w_zp", w_type, [], value=w_zp),
            b.tensor("y_scale", F32, [], value=0.5),
            b.tensor("y_zp", U8, [], value=128),
        ]
        attrs = dict(kernel_shape=[kh, kh], pads=pads, group=G)
        node = helper.make_node(
            "QLinearConv", ["X", "x_scale", "x_zp", "W", "w_scale", "w_zp", "y_scale", "y_zp"], ["Y"], **attrs
        )
        xs, ys = [1, C, H, H], [1, M, OH, OH]
        # int8 W with zero point 0: the symmetric kernel (MlasConvSym), no
        # int32 product and no im2col: C*IS + M*OS + (pointwise and not
        # depthwise ? 0 : 8*k*OS). The alt figure is the earlier reading,
        # which kept the im2col. (On a CPU without a ConvSym kernel the
        # general rule would hold.)
        symmetric = w_type == I8 and w_zp == 0
        kernel = "symmetric" if symmetric else "general"
        pred, f = ws_qlinear_conv(1, C, M, G, kh * kh, [1, 1], pads, H * H, OH * OH, kernel)
        alt = None
        if symmetric:
            f = "symmetric: " + f
            alt, f2 = ws_qlinear_conv(1, C, M, G, kh * kh, [1, 1], pads, H * H, OH * OH, "symmetric_im2col")
            if alt == pred:
                alt = None
            else:
                f += "; alt (earlier reading): " + f2
        add(name, "QLinearConv", make_model(name, node, U8, xs, U8, ys, inits),
            dict(attrs, w_type=TYPE_NAME[w_type], w_zero_point=w_zp),
            dict(X=xs, W=W, Y=ys), pred, f, alt=alt)

    qlinear_conv("qlinearconv_u8_3x3", 64, 64, 256, 3, 1, 1, U8)
    qlinear_conv("qlinearconv_s8_3x3", 64, 64, 256, 3, 1, 1, I8)
    qlinear_conv("qlinearconv_u8_1x1", 64, 64, 256, 1, 0, 1, U8)
    qlinear_conv("qlinearconv_u8_dw_3x3", 64, 64, 256, 3, 1, 64, U8)
    qlinear_conv("qlinearconv_u8_3x3_g2", 64, 64, 256, 3, 1, 2, U8)
    qlinear_conv("qlinearconv_s8_1x1", 64, 64, 256, 1, 0, 1, I8)
    qlinear_conv("qlinearconv_s8_dw_3x3", 64, 64, 256, 3, 1, 64, I8)

    # e. QLinearMatMul
    Mr, Kd, Nc = 2048, 1024, 2048
    inits = [
        b.tensor("a_scale", F32, [], value=0.02),
        b.tensor("a_zp", U8, [], value=128),
        b.tensor("B", U8, [Kd, Nc]),
        b.tensor("b_scale", F32, [], value=0.01),
        b.tensor("b_zp", U8, [], value=128),
        b.tensor("y_scale", F32, [], value=0.5),
        b.tensor("y_zp", U8, [], value=128),
    ]
    node = helper.make_node(
        "QLinearMatMul", ["X", "a_scale", "a_zp", "B", "b_scale", "b_zp", "y_scale", "y_zp"], ["Y"]
    )
    add("qlinearmatmul", "QLinearMatMul",
        make_model("qlinearmatmul", node, U8, [Mr, Kd], U8, [Mr, Nc], inits), {},
        dict(X=[Mr, Kd], B=[Kd, Nc], Y=[Mr, Nc]), 4 * Mr * Nc,
        "4*M*N*num_gemms (int32 gemm output) = 4*%d*%d*1" % (Mr, Nc))

    # f. MatMulInteger, DynamicQuantizeMatMul (com.microsoft)
    inits = [b.tensor("B", U8, [Kd, Nc]), b.tensor("a_zp", U8, [], value=128), b.tensor("b_zp", U8, [], value=128)]
    node = helper.make_node("MatMulInteger", ["X", "B", "a_zp", "b_zp"], ["Y"])
    add("matmulinteger", "MatMulInteger",
        make_model("matmulinteger", node, U8, [Mr, Kd], I32, [Mr, Nc], inits), {},
        dict(X=[Mr, Kd], B=[Kd, Nc], Y=[Mr, Nc]), 0, "0 (MLAS writes the int32 output directly)")

    Ma, Ka, Na = 8192, 1024, 256
    inits = [
        b.tensor("B", I8, [Ka, Na], low=-127, high=127),
        b.tensor("b_scale", F32, [], value=0.01),
        b.tensor("b_zp", I8, [], value=0),
    ]
    node = helper.make_node("DynamicQuantizeMatMul", ["X", "B", "b_scale", "b_zp"], ["Y"], domain="com.microsoft")
    add("dynamicquantizematmul", "DynamicQuantizeMatMul",
        make_model("dynamicquantizematmul", node, F32, [Ma, Ka], F32, [Ma, Na], inits, {"com.microsoft": 1}),
        {}, dict(X=[Ma, Ka], B=[Ka, Na], Y=[Ma, Na]), Ma * Ka,
        "numel(A) (A quantized to uint8) = %d*%d" % (Ma, Ka), domain="com.microsoft")

    # g. LSTM, GRU, RNN (float, layout 0: X [S, B, I], Y [S, D, B, H])
    S, B, I, H = 512, 16, 128, 256

    def rnn(name, op, gates, direction, pred, formula):
        D = 2 if direction == "bidirectional" else 1
        inits = [
            b.tensor("W", F32, [D, gates * H, I]),
            b.tensor("R", F32, [D, gates * H, H]),
            b.tensor("B", F32, [D, 2 * gates * H]),
        ]
        attrs = dict(hidden_size=H, direction=direction)
        node = helper.make_node(op, ["X", "W", "R", "B"], ["Y"], **attrs)
        xs, ys = [S, B, I], [S, D, B, H]
        add(name, op, make_model(name, node, F32, xs, F32, ys, inits), attrs,
            dict(X=xs, W=[D, gates * H, I], R=[D, gates * H, H], Y=ys), pred, formula)

    lstm1 = 4 * 4 * H * B * S
    rnn("lstm_forward", "LSTM", 4, "forward", lstm1, "4*4*H*B*S = 16*%d*%d*%d (gate buffer)" % (H, B, S))
    rnn("lstm_bidirectional", "LSTM", 4, "bidirectional", 2 * lstm1 + 4 * (S * B * I + S * B * H),
        "2*(4*4*H*B*S) + 4*(S*B*I + S*B*H) (both directions' gates; reverse copies of X and Y)")
    rnn("gru_forward", "GRU", 3, "forward", 4 * 3 * H * B * S, "4*3*H*B*S = 12*%d*%d*%d" % (H, B, S))
    rnn("rnn_forward", "RNN", 1, "forward", 4 * S * B * H, "4*S*B*H = 4*%d*%d*%d" % (S, B, H))

    # h. Softmax / LogSoftmax (opset 13 semantics)
    shp = [8, 512, 4096]
    n = prod(shp)
    for op in ("Softmax", "LogSoftmax"):
        for axis, tag in ((1, "axis1"), (-1, "axislast")):
            name = "%s_%s" % (op.lower(), tag)
            node = helper.make_node(op, ["X"], ["Y"], axis=axis)
            if axis == -1:
                pred, f = 0, "0 (axis is the last)"
            else:
                pred, f = 2 * 4 * n, "2*4*numel(X) (transpose in and out) = 8*%d" % n
            if op == "LogSoftmax" and axis == -1:
                continue  # the same kernel as Softmax's last-axis case
            add(name, op, make_model(name, node, F32, shp, F32, shp, []), dict(axis=axis),
                dict(X=shp, Y=shp), pred, f)
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: /usr/bin/python3 bench/ort_workspace_models.py OUTDIR")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(20260101)
    listing = []
    for c in cases(rng):
        model = c.pop("model")
        if not c["domain"]:
            onnx.checker.check_model(model)
        onnx.save(model, os.path.join(outdir, c["file"]))
        c["predicted_mib"] = round(c["predicted_bytes"] / MiB, 3)
        listing.append(c)
    with open(os.path.join(outdir, "cases.json"), "w") as f:
        json.dump(dict(opset=OPSET, ir_version=IR_VERSION, cases=listing), f, indent=1, sort_keys=True)
        f.write("\n")
    for c in listing:
        print("%-28s %-22s predicted %10.3f MiB" % (c["name"], c["op"], c["predicted_mib"]))


if __name__ == "__main__":
    main()
