#!/usr/bin/python3
"""gen_fixtures.py OUTDIR -- hand-made ONNX models for onnx-memplan's tests.

Run with Debian's /usr/bin/python3 (python3-onnx 1.12, python3-protobuf; protoc
from protobuf-compiler for the IR 9..13 fields). Output is deterministic
(byte-identical on every run: fixed data, seeded PRNG, deterministic
serialization). The files are generated at test time (ctest fixture
`memplan_fixtures`, native-tests/fixtures.cmake) into build/fixtures and are
never committed. OUTDIR/MANIFEST.txt lists every file with one line on what it
exercises.

Valid models (OUTDIR/*.onnx); all use opset 17 and IR 8 unless noted, and are
checked with onnx.checker.check_model(full_check=True) except where the
checker itself cannot judge them (noted):

  chain.onnx         X float[1,4,8,8] -> Abs -> a -> Relu -> b -> Neg -> Y. The
                     simplest straight line: 3 nodes, 2 intermediates, no weights.
  diamond.onnx       X[1,4,8,8] -> Relu -> a; a -> Abs -> b; a -> Neg -> c;
                     Add(b, c) -> Y. A value with two readers (fan-out + join).
  residual.onnx      a = Relu(X); b = Abs(a); c = Mul(b, scale); Y = Add(a, c):
                     skip connection keeps `a` alive across b and c; `scale`
                     is an initializer float[1].
  two_chains.onnx    X1[1,16] -> Relu -> Abs -> Y1 and X2[1,32] -> Neg ->
                     Sigmoid -> Y2: two disjoint chains (nodes of chain 1 first).
  views.onnx         a = Relu(X[2,3,4]); r = Reshape(a, [6,4]) (view of a);
                     u = Unsqueeze(r, [0]) (view of a view); s = Squeeze(u, [0])
                     (3rd-level view); b = Abs(s); f = Flatten(b, axis=1) (view
                     of b); Y = Identity(f) (view of a view, a graph output);
                     Z = Neg(r) (second reader of the first view, output).
  symbolic.onnx      X float['batch','seq',64] -> Relu -> a; b = Add(a, X);
                     Y = Neg(b) ['batch','seq',64]; and U float[?,64] (a dim
                     with neither dim_value nor dim_param) -> Abs -> V[?,64];
                     value_info gives a and b their symbolic shapes.
  if_capture.onnx    a = Relu(X); b = Abs(X); y = If(cond): then reads outer a
                     and b (t = Add(a, b)); else defines its own `a` = Neg(b),
                     shadowing the outer a, and returns Mul(a, b); Y = Add(y, a)
                     reads the outer a after the If. onnx.checker rejects the
                     shadowing (its SSA rule spans subgraphs), so the checker
                     runs on a copy with the inner name renamed.
  loop_scan.onnx     w = Relu(X); bias = Abs(X); L = Loop(M, true, X) whose
                     body adds captured outer `w` to the carried value;
                     (SF, SO) = Scan(X, S[3,4]) whose body adds captured outer
                     `bias`; Y = Add(L, SF); outputs Y and SO[3,4].
  function.onnx      a = Relu(X); b = local.AbsNeg(a) (model-local
                     FunctionProto: t = Abs(x); y = Neg(t)); Y = Sigmoid(b).
  unsorted.onnx      diamond.onnx's graph with its nodes stored in the order
                     [Add, Neg, Relu, Abs] (valid but not topologically sorted;
                     the checker runs on the sorted copy).
  qdq.onnx           a QDQ model as ONNX Runtime's quantizer writes one: xq =
                     Q(X float[1,8,16,16]); x = DQ(xq); c = Conv(x, DQ(w int8),
                     DQ(b int32)); rq = Q(Relu(c)) (zero point 0: ONNX Runtime
                     removes the Relu); rd = DQ(rq), read by an Add (with x, so
                     x has two readers) and a Reshape; Y = DQ(Q(Add)), T =
                     DQ(Q(Reshape)) with the Reshape's scale. Three QDQ units
                     (memplan/qdq.h).
  external_data.onnx Y = MatMul(X[1,8], W[8,8]) where W is an initializer with
                     data_location=EXTERNAL, external_data location=
                     "missing_weights.bin" offset 0 length 256, and no data: the
                     file does not exist and the loader must not need it (the
                     checker runs on a copy with the data inline).
  metadata.onnx      IR 10: model/graph/node/value metadata_props, doc strings,
                     names with `<img src=x onerror=alert(1)>`, quotes,
                     backslashes, newline, tab, \\x01, unicode (Greek, CJK,
                     emoji). Node metadata_props, ValueInfo metadata_props
                     (field 4) and GraphProto metadata_props (16) are IR 10, so
                     the 1.12 checker is not run.
  packed_types.onnx  IR 13, opset 21: inputs Q int4[3,5] (15 elements = 8 bytes),
                     U uint4[7] (4 bytes), F8 float8e4m3fn[2,3];
                     DQ = DequantizeLinear(Q, q_scale, q_zp int4 scalar);
                     QO = QuantizeLinear(DQ, q_scale, q_zp) -> int4[3,5];
                     F32 = Cast(F8 -> float); F8o = Cast(F32 -> float8e4m3fn);
                     UC = Cast(U -> float); unused initializers of every other
                     sub-byte type: float4e2m1[5] (3 bytes), uint2[5] (2 bytes),
                     int2[9] (3 bytes), float8e8m0[2] (2 bytes). Outputs QO, F8o,
                     UC. Too new for the 1.12 checker.

Bad inputs (OUTDIR/bad/*), invalid on purpose, never checked:

  empty.onnx             0 bytes.
  random.bin             4096 bytes from random.Random(20240501).
  not_a_model.onnx       a serialized TensorProto with most of its fields set
                         (valid protobuf, not a ModelProto).
  cycle.onnx             A: x1 = Add(X, y2); B: y2 = Relu(x1): A -> B -> A.
  dangling.onnx          Add(X, "ghost"): "ghost" is defined by nothing.
  duplicate.onnx         two nodes both output "a".
  huge_dim.onnx          input X float[2^62, 4] -> Relu -> Y.
  deep_nesting.onnx      If nested 1000 deep (each then_branch holds the next
                         If), written as raw protobuf bytes.
  if_missing_branch.onnx an If node with a then_branch and no else_branch.
"""
import os
import random
import sys

sys.dont_write_bytecode = True  # keep the source tree clean

import onnx
from onnx import TensorProto as T
from onnx import helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memplan_onnx_schema as wire  # noqa: E402

PRODUCER = "memplan-gen_fixtures"
OPSET = 17
XSS = "<img src=x onerror=alert(1)>"

MANIFEST = []


def model(graph, opset=OPSET, ir=8, functions=(), extra_opsets=()):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)] + list(extra_opsets),
                          functions=list(functions))
    m.ir_version = ir
    m.producer_name = PRODUCER
    m.producer_version = "1"
    return m


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name or "%s_%s" % (op.lower(), outs[0]), **attrs)


def write(outdir, relpath, data, what):
    path = os.path.join(outdir, relpath)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not isinstance(data, (bytes, bytearray)):
        data = data.SerializeToString(deterministic=True)
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)
    MANIFEST.append((relpath, len(data), what))


def check(m):
    onnx.checker.check_model(m, full_check=True)


# ---------------------------------------------------------------- valid models
def chain():
    g = helper.make_graph(
        [node("Abs", ["X"], ["a"]), node("Relu", ["a"], ["b"]), node("Neg", ["b"], ["Y"])],
        "chain", [vi("X", T.FLOAT, [1, 4, 8, 8])], [vi("Y", T.FLOAT, [1, 4, 8, 8])])
    return model(g)


def diamond_nodes():
    return [node("Relu", ["X"], ["a"]), node("Abs", ["a"], ["b"]), node("Neg", ["a"], ["c"]),
            node("Add", ["b", "c"], ["Y"])]


def diamond(nodes=None):
    g = helper.make_graph(nodes or diamond_nodes(), "diamond",
                          [vi("X", T.FLOAT, [1, 4, 8, 8])], [vi("Y", T.FLOAT, [1, 4, 8, 8])])
    return model(g)


def residual():
    scale = helper.make_tensor("scale", T.FLOAT, [1], [0.5])
    g = helper.make_graph(
        [node("Relu", ["X"], ["a"]), node("Abs", ["a"], ["b"]), node("Mul", ["b", "scale"], ["c"]),
         node("Add", ["a", "c"], ["Y"])],
        "residual", [vi("X", T.FLOAT, [1, 4, 8, 8])], [vi("Y", T.FLOAT, [1, 4, 8, 8])], [scale])
    return model(g)


def two_chains():
    g = helper.make_graph(
        [node("Relu", ["X1"], ["a1"]), node("Abs", ["a1"], ["Y1"]),
         node("Neg", ["X2"], ["a2"]), node("Sigmoid", ["a2"], ["Y2"])],
        "two_chains", [vi("X1", T.FLOAT, [1, 16]), vi("X2", T.FLOAT, [1, 32])],
        [vi("Y1", T.FLOAT, [1, 16]), vi("Y2", T.FLOAT, [1, 32])])
    return model(g)


def views():
    shape = helper.make_tensor("shape", T.INT64, [2], [6, 4])
    axes = helper.make_tensor("axes", T.INT64, [1], [0])
    g = helper.make_graph(
        [node("Relu", ["X"], ["a"]),
         node("Reshape", ["a", "shape"], ["r"]),
         node("Unsqueeze", ["r", "axes"], ["u"]),
         node("Squeeze", ["u", "axes"], ["s"]),
         node("Abs", ["s"], ["b"]),
         node("Flatten", ["b"], ["f"], axis=1),
         node("Identity", ["f"], ["Y"]),
         node("Neg", ["r"], ["Z"])],
        "views", [vi("X", T.FLOAT, [2, 3, 4])], [vi("Y", T.FLOAT, [6, 4]), vi("Z", T.FLOAT, [6, 4])],
        [shape, axes],
        value_info=[vi("a", T.FLOAT, [2, 3, 4]), vi("r", T.FLOAT, [6, 4]), vi("u", T.FLOAT, [1, 6, 4]),
                    vi("s", T.FLOAT, [6, 4]), vi("b", T.FLOAT, [6, 4]), vi("f", T.FLOAT, [6, 4])])
    return model(g)


def symbolic():
    g = helper.make_graph(
        [node("Relu", ["X"], ["a"]), node("Add", ["a", "X"], ["b"]), node("Neg", ["b"], ["Y"]),
         node("Abs", ["U"], ["V"])],
        "symbolic",
        [vi("X", T.FLOAT, ["batch", "seq", 64]), vi("U", T.FLOAT, [None, 64])],
        [vi("Y", T.FLOAT, ["batch", "seq", 64]), vi("V", T.FLOAT, [None, 64])],
        value_info=[vi("a", T.FLOAT, ["batch", "seq", 64]), vi("b", T.FLOAT, ["batch", "seq", 64])])
    m = model(g)
    # helper leaves a None dim empty (no dim_value, no dim_param): make sure.
    for v in (m.graph.input[1], m.graph.output[1]):
        d = v.type.tensor_type.shape.dim[0]
        assert not d.HasField("dim_value") and not d.HasField("dim_param")
    return m


def if_capture(inner_a="a"):
    then_g = helper.make_graph([node("Add", ["a", "b"], ["t"])], "then_branch", [],
                               [vi("t", T.FLOAT, [4])])
    else_g = helper.make_graph([node("Neg", ["b"], [inner_a], name="else_neg"),
                                node("Mul", [inner_a, "b"], ["e"])], "else_branch", [],
                               [vi("e", T.FLOAT, [4])])
    g = helper.make_graph(
        [node("Relu", ["X"], ["a"]), node("Abs", ["X"], ["b"]),
         node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g),
         node("Add", ["y", "a"], ["Y"])],
        "if_capture", [vi("cond", T.BOOL, []), vi("X", T.FLOAT, [4])], [vi("Y", T.FLOAT, [4])])
    return model(g)


def loop_scan():
    body_loop = helper.make_graph(
        [node("Identity", ["cond_in"], ["cond_out"]), node("Add", ["acc_in", "w"], ["acc_out"])],
        "loop_body",
        [vi("iter", T.INT64, []), vi("cond_in", T.BOOL, []), vi("acc_in", T.FLOAT, [4])],
        [vi("cond_out", T.BOOL, []), vi("acc_out", T.FLOAT, [4])])
    body_scan = helper.make_graph(
        [node("Add", ["state_in", "s_in"], ["sum"]), node("Add", ["sum", "bias"], ["state_out"]),
         node("Identity", ["sum"], ["scan_out"])],
        "scan_body", [vi("state_in", T.FLOAT, [4]), vi("s_in", T.FLOAT, [4])],
        [vi("state_out", T.FLOAT, [4]), vi("scan_out", T.FLOAT, [4])])
    true = helper.make_tensor("true", T.BOOL, [], [True])
    g = helper.make_graph(
        [node("Relu", ["X"], ["w"]), node("Abs", ["X"], ["bias"]),
         node("Loop", ["M", "true", "X"], ["L"], body=body_loop),
         node("Scan", ["X", "S"], ["SF", "SO"], body=body_scan, num_scan_inputs=1),
         node("Add", ["L", "SF"], ["Y"])],
        "loop_scan",
        [vi("X", T.FLOAT, [4]), vi("M", T.INT64, []), vi("S", T.FLOAT, [3, 4])],
        [vi("Y", T.FLOAT, [4]), vi("SO", T.FLOAT, [3, 4])], [true])
    return model(g)


def function():
    f = helper.make_function("local", "AbsNeg", ["x"], ["y"],
                             [helper.make_node("Abs", ["x"], ["t"]), helper.make_node("Neg", ["t"], ["y"])],
                             [helper.make_opsetid("", OPSET)])
    f.doc_string = "y = -|x|"
    g = helper.make_graph(
        [node("Relu", ["X"], ["a"]), helper.make_node("AbsNeg", ["a"], ["b"], name="absneg_b", domain="local"),
         node("Sigmoid", ["b"], ["Y"])],
        "function", [vi("X", T.FLOAT, [2, 8])], [vi("Y", T.FLOAT, [2, 8])],
        value_info=[vi("b", T.FLOAT, [2, 8])])
    return model(g, functions=[f], extra_opsets=[helper.make_opsetid("local", 1)])


def qdq():
    rng = random.Random(17)
    inits = [helper.make_tensor("s", T.FLOAT, [], [0.05]), helper.make_tensor("z", T.UINT8, [], [0]),
             helper.make_tensor("sw", T.FLOAT, [], [0.01]), helper.make_tensor("zw", T.INT8, [], [0]),
             helper.make_tensor("sb", T.FLOAT, [], [0.0005]), helper.make_tensor("zb", T.INT32, [], [0]),
             helper.make_tensor("wq", T.INT8, [8, 8, 3, 3], [rng.randint(-127, 127) for _ in range(8 * 8 * 9)]),
             helper.make_tensor("bq", T.INT32, [8], [rng.randint(-1000, 1000) for _ in range(8)]),
             helper.make_tensor("shape", T.INT64, [3], [1, 8, 256])]
    nodes = [node("QuantizeLinear", ["X", "s", "z"], ["xq"]), node("DequantizeLinear", ["xq", "s", "z"], ["x"]),
             node("DequantizeLinear", ["wq", "sw", "zw"], ["w"]), node("DequantizeLinear", ["bq", "sb", "zb"], ["b"]),
             node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), node("Relu", ["c"], ["r"]),
             node("QuantizeLinear", ["r", "s", "z"], ["rq"]), node("DequantizeLinear", ["rq", "s", "z"], ["rd"]),
             node("Add", ["rd", "x"], ["a"]), node("QuantizeLinear", ["a", "s", "z"], ["aq"]),
             node("DequantizeLinear", ["aq", "s", "z"], ["Y"]), node("Reshape", ["rd", "shape"], ["t"]),
             node("QuantizeLinear", ["t", "s", "z"], ["tq"]), node("DequantizeLinear", ["tq", "s", "z"], ["T"])]
    g = helper.make_graph(nodes, "qdq", [vi("X", T.FLOAT, [1, 8, 16, 16])],
                          [vi("Y", T.FLOAT, [1, 8, 16, 16]), vi("T", T.FLOAT, [1, 8, 256])], inits)
    return model(g, opset=13)


def unsorted():
    n = diamond_nodes()  # Relu, Abs, Neg, Add
    m = diamond([n[3], n[2], n[0], n[1]])
    m.graph.name = "unsorted"
    return m


def external_data(inline=False):
    w = T()
    w.name = "W"
    w.data_type = T.FLOAT
    w.dims.extend([8, 8])
    if inline:
        w.raw_data = bytes(256)
    else:
        w.data_location = T.EXTERNAL
        for k, v in (("location", "missing_weights.bin"), ("offset", "0"), ("length", "256")):
            e = w.external_data.add()
            e.key, e.value = k, v
    g = helper.make_graph([node("MatMul", ["X", "W"], ["Y"])], "external_data",
                          [vi("X", T.FLOAT, [1, 8])], [vi("Y", T.FLOAT, [1, 8])], [w])
    return model(g)


def metadata(schema):
    x = "input " + XSS
    mid = "mid \"quoted\" back\\slash\nnew\tline \x01 ü→ß"
    g = helper.make_graph(
        [node("Relu", [x], [mid], name="relu " + XSS),
         node("Neg", [mid], ["Ωμέγα 日本語 🚀"], name="neg ünïcödé")],
        "graph " + XSS,
        [vi(x, T.FLOAT, [1, 3])], [vi("Ωμέγα 日本語 🚀", T.FLOAT, [1, 3])],
        value_info=[vi(mid, T.FLOAT, [1, 3])], doc_string="graph doc " + XSS)
    g.node[0].doc_string = "node doc " + XSS
    g.input[0].doc_string = "input doc <b>bold</b> & more"
    m = model(g)
    m.doc_string = "model doc " + XSS + " ünïcödé 🚀"
    m.domain = "org.example." + XSS
    m.model_version = 7
    helper.set_model_props(m, {"author": XSS, "unicode": "Ωμέγα — 日本語 🚀", "empty": "",
                                "json": "{\"a\": [1, 2]}\n\\"})
    m.ir_version = 10
    cur = wire.convert(m, schema["onnx.ModelProto"])
    for i, n in enumerate(cur.graph.node):
        e = n.metadata_props.add()
        e.key, e.value = "note " + XSS, "node %d ünï" % i
    e = cur.graph.node[0].metadata_props.add()
    e.key, e.value = "onnx_light.node_tag", "weight"
    e = cur.graph.input[0].metadata_props.add()
    e.key, e.value = "onnx_light.value_tag", "shape"
    e = cur.graph.value_info[0].metadata_props.add()
    e.key, e.value = "vi " + XSS, "Ω"
    e = cur.graph.metadata_props.add()
    e.key, e.value = "graph key", "graph value " + XSS
    return cur


def raw_tensor(schema, name, dtype, dims, raw):
    t = schema["onnx.TensorProto"]()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def packed_types(schema):
    INT4, UINT4, F8E4M3FN, F4E2M1, F8E8M0, UINT2, INT2 = 22, 21, 17, 23, 24, 25, 26
    q_scale = helper.make_tensor("q_scale", T.FLOAT, [], [0.25])
    g = helper.make_graph(
        [node("DequantizeLinear", ["Q", "q_scale", "q_zp"], ["DQ"]),
         node("QuantizeLinear", ["DQ", "q_scale", "q_zp"], ["QO"]),
         node("Cast", ["F8"], ["F32"], to=T.FLOAT),
         node("Cast", ["F32"], ["F8o"], to=F8E4M3FN),
         node("Cast", ["U"], ["UC"], to=T.FLOAT)],
        "packed_types",
        [vi("Q", INT4, [3, 5]), vi("U", UINT4, [7]), vi("F8", F8E4M3FN, [2, 3])],
        [vi("QO", INT4, [3, 5]), vi("F8o", F8E4M3FN, [2, 3]), vi("UC", T.FLOAT, [7])],
        [q_scale],
        value_info=[vi("DQ", T.FLOAT, [3, 5]), vi("F32", T.FLOAT, [2, 3])])
    m = model(g, opset=21, ir=13)
    cur = wire.convert(m, schema["onnx.ModelProto"])
    inits = cur.graph.initializer
    # int4 zero point, scalar: one element in the low nibble.
    inits.append(raw_tensor(schema, "q_zp", INT4, [], bytes([0x01])))
    inits.append(raw_tensor(schema, "w_float4e2m1", F4E2M1, [5], bytes([0x21, 0x43, 0x05])))
    inits.append(raw_tensor(schema, "w_uint2", UINT2, [5], bytes([0xE4, 0x03])))
    inits.append(raw_tensor(schema, "w_int2", INT2, [9], bytes([0x1B, 0xE4, 0x01])))
    inits.append(raw_tensor(schema, "w_float8e8m0", F8E8M0, [2], bytes([0x7F, 0x80])))
    # A value in int4 through int32_data too (the other legal encoding).
    t = schema["onnx.TensorProto"]()
    t.name, t.data_type = "w_int4_int32data", INT4
    t.dims.extend([3])
    t.int32_data.extend([0x21, 0x03])  # packed nibbles: 1, 2, 3
    inits.append(t)
    return cur


# ---------------------------------------------------------------- bad inputs
def not_a_model():
    t = T()
    t.name = "not a model"
    t.dims.extend([2, 3])
    t.data_type = T.FLOAT
    t.float_data.extend([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    t.int32_data.extend([1, -2, 3])
    t.int64_data.extend([1 << 40, -5])
    t.string_data.extend([b"abc", b"\x00\xff"])
    t.double_data.extend([1.5])
    t.uint64_data.extend([(1 << 64) - 1])
    t.raw_data = bytes(range(64))
    t.doc_string = "a TensorProto, not a ModelProto"
    t.segment.begin, t.segment.end = 0, 6
    e = t.external_data.add()
    e.key, e.value = "location", "x.bin"
    t.data_location = T.DEFAULT
    return t


def cycle():
    g = helper.make_graph([node("Add", ["X", "y2"], ["x1"], name="A"), node("Relu", ["x1"], ["y2"], name="B")],
                          "cycle", [vi("X", T.FLOAT, [4])], [vi("y2", T.FLOAT, [4])])
    return model(g)


def dangling():
    g = helper.make_graph([node("Add", ["X", "ghost"], ["Y"])], "dangling",
                          [vi("X", T.FLOAT, [4])], [vi("Y", T.FLOAT, [4])])
    return model(g)


def duplicate():
    g = helper.make_graph([node("Relu", ["X"], ["a"], name="first"), node("Abs", ["X"], ["a"], name="second"),
                          node("Neg", ["a"], ["Y"])],
                          "duplicate", [vi("X", T.FLOAT, [4])], [vi("Y", T.FLOAT, [4])])
    return model(g)


def huge_dim():
    g = helper.make_graph([node("Relu", ["X"], ["Y"])], "huge_dim",
                          [vi("X", T.FLOAT, [1 << 62, 4])], [vi("Y", T.FLOAT, [1 << 62, 4])])
    return model(g)


def deep_nesting(depth=1000):
    """Raw bytes: graph_k = { node: If(cond) then=graph_{k-1} else=leaf, output y_k }."""
    f, fv = wire.f_bytes, wire.f_varint

    def value_info(name, elem):  # ValueInfoProto{name, type{tensor_type{elem_type, shape{}}}}
        tensor = fv(1, elem) + f(2, b"")
        return f(1, name) + f(2, f(1, tensor))

    def graph(name, nodes, outputs, inputs=b""):
        return b"".join(f(1, n) for n in nodes) + f(2, name) + inputs + b"".join(f(12, o) for o in outputs)

    def if_node(k, then_g, else_g):
        attr_then = f(1, "then_branch") + f(6, then_g) + fv(20, 5)   # type GRAPH
        attr_else = f(1, "else_branch") + f(6, else_g) + fv(20, 5)
        return f(1, "cond") + f(2, "y%d" % k) + f(3, "if%d" % k) + f(4, "If") + f(5, attr_then) + f(5, attr_else)

    leaf = graph("leaf", [f(1, "X") + f(2, "z") + f(4, "Identity")], [value_info("z", T.FLOAT)])
    g = leaf
    for k in range(depth):
        g = graph("g%d" % k, [if_node(k, g, leaf)], [value_info("y%d" % k, T.FLOAT)])
    # The top graph gets inputs cond and X.
    top_inputs = f(11, value_info("cond", T.BOOL)) + f(11, value_info("X", T.FLOAT))
    top = graph("deep_nesting", [if_node(depth, g, leaf)], [value_info("y%d" % depth, T.FLOAT)], top_inputs)
    opset = f(1, "") + fv(2, OPSET)
    return fv(1, 8) + f(2, PRODUCER) + f(7, top) + f(8, opset)


def if_missing_branch():
    then_g = helper.make_graph([node("Abs", ["X"], ["t"])], "then_branch", [], [vi("t", T.FLOAT, [4])])
    g = helper.make_graph([node("If", ["cond"], ["Y"], then_branch=then_g)], "if_missing_branch",
                          [vi("cond", T.BOOL, []), vi("X", T.FLOAT, [4])], [vi("Y", T.FLOAT, [4])])
    return model(g)


def topo_sorted(m):
    """Copy of m with its main-graph nodes in a topological order (Kahn)."""
    c = onnx.ModelProto()
    c.CopyFrom(m)
    nodes = list(c.graph.node)
    known = {v.name for v in c.graph.input} | {t.name for t in c.graph.initializer}
    out = []
    while nodes:
        n = next(n for n in nodes if all(i == "" or i in known for i in n.input))
        nodes.remove(n)
        out.append(n)
        known.update(n.output)
    del c.graph.node[:]
    c.graph.node.extend(out)
    return c


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_fixtures.py OUTDIR")
    outdir = sys.argv[1]
    os.makedirs(os.path.join(outdir, "bad"), exist_ok=True)
    schema = wire.load_schema()

    m = chain()
    check(m)
    write(outdir, "chain.onnx", m, "Abs->Relu->Neg on float[1,4,8,8]")
    m = diamond()
    check(m)
    write(outdir, "diamond.onnx", m, "fan-out of a to Abs and Neg, joined by Add")
    m = residual()
    check(m)
    write(outdir, "residual.onnx", m, "skip connection: a used by Abs and the final Add; initializer scale")
    m = two_chains()
    check(m)
    write(outdir, "two_chains.onnx", m, "two disjoint chains X1->Y1, X2->Y2")
    m = views()
    check(m)
    write(outdir, "views.onnx", m, "Reshape/Unsqueeze/Squeeze/Flatten/Identity; view of a view; view as output")
    m = symbolic()
    check(m)
    write(outdir, "symbolic.onnx", m, "dims 'batch','seq' and a dim with no value/param")
    m = if_capture()
    check(if_capture(inner_a="a_inner"))
    write(outdir, "if_capture.onnx", m, "If branches read outer a,b; else branch shadows outer a")
    m = loop_scan()
    check(m)
    write(outdir, "loop_scan.onnx", m, "Loop capturing w, Scan capturing bias")
    m = function()
    check(m)
    write(outdir, "function.onnx", m, "model-local FunctionProto local.AbsNeg used by a node")
    m = qdq()
    check(m)
    write(outdir, "qdq.onnx", m, "QDQ Conv(+bias)+Relu, Add and Reshape units; a DequantizeLinear read twice")
    m = unsorted()
    check(topo_sorted(m))
    write(outdir, "unsorted.onnx", m, "diamond with nodes stored as Add, Neg, Relu, Abs")
    check(external_data(inline=True))
    write(outdir, "external_data.onnx", external_data(),
          "initializer W with data_location=EXTERNAL pointing to a missing file")
    write(outdir, "metadata.onnx", metadata(schema),
          "metadata_props everywhere, doc strings, XSS/unicode/control-char names (IR 10)")
    write(outdir, "packed_types.onnx", packed_types(schema),
          "int4/uint4/float8e4m3fn values, float4e2m1/uint2/int2/float8e8m0 initializers (IR 13)")

    write(outdir, "bad/empty.onnx", b"", "0 bytes")
    write(outdir, "bad/random.bin", random.Random(20240501).randbytes(4096), "4096 random bytes")
    write(outdir, "bad/not_a_model.onnx", not_a_model(), "a serialized TensorProto")
    write(outdir, "bad/cycle.onnx", cycle(), "nodes A->B->A")
    write(outdir, "bad/dangling.onnx", dangling(), "input 'ghost' defined by nothing")
    write(outdir, "bad/duplicate.onnx", duplicate(), "'a' defined by two nodes")
    write(outdir, "bad/huge_dim.onnx", huge_dim(), "dim_value 2^62")
    write(outdir, "bad/deep_nesting.onnx", deep_nesting(), "If nested 1000 deep")
    write(outdir, "bad/if_missing_branch.onnx", if_missing_branch(), "If without else_branch")

    with open(os.path.join(outdir, "MANIFEST.txt"), "w", encoding="utf-8") as f:
        for relpath, size, what in MANIFEST:
            f.write("%s\t%d\t%s\n" % (relpath, size, what))
    print("gen_fixtures: %d files in %s" % (len(MANIFEST), outdir))


if __name__ == "__main__":
    main()
