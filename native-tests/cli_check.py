#!/usr/bin/python3
"""cli_check.py MEMPLAN_EXE README FIXTURES -- the `memplan` shell as a user meets it.

  1. `--help` names every command and every flag of README.md's CLI synopsis;
     `--help` and `--version` go to stdout with exit 0, and exit 2 with a
     message when stdout cannot be written (/dev/full, closed);
  2. usage errors (unknown command or option, a missing or malformed value,
     --dim without NAME=VALUE or out of range, --align 0/3/2^31, --budget-ms -1,
     -o misplaced, an option the command does not take, more than one model) exit 1 with "memplan CMD: <problem>" as
     the first stderr line and nothing on stdout;
  3. bad input (a missing file, a directory, an empty file, /dev/null, a CSV
     that is not one) exits 2 naming the file and the problem, nothing on stdout;
     `pack` on /dev/zero under a 512 MB address-space limit stops with "out of
     memory" instead of spinning (skipped for sanitizer builds);
  4. CSV ids in `pack` messages are escaped like model names (no raw ESC);
  5. output: a closed or full stdout exits 2 with a message; a reader that
     closes the pipe early ends the run (SIGPIPE or exit 2), never a hang;
  6. dims: a deferred text plan names the unbound dims; a dim whose name is
     not an identifier binds by its raw name or by the escaped form `shapes`
     prints it in (`_0x` + hex), and both give the same plan;
  7. a model read from a named pipe (mkfifo) is read once, whole: info and
     annotate print what they print for the file, never a hang;
  8. pipes and devices are read up to a limit (2048 MB, MEMPLAN_STREAM_LIMIT_MB
     sets another): /dev/zero and a model piped past the limit stop with "the
     model is larger than N MB", `pack` too; a model under it is read;
  9. every message that prints a path or an argument escapes its control
     characters (newline, tab, ESC as \\xNN): one line, no raw control byte;
 12. the weights, inputs and total of a plan (JSON and text), with and without
     --include-inputs, an input of unknown size.
Exit 0 when all hold.
"""
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def run(exe, args, **kw):
    if "stdout" not in kw and "stderr" not in kw:
        kw["capture_output"] = True
    return subprocess.run([exe] + args, text=True, timeout=60, **kw)


def synopsis(readme):
    """(commands, flags) of the code block under '## CLI'."""
    text = open(readme, encoding="utf-8").read()
    block = text.split("\n## CLI\n", 1)[1].split("\nExit codes", 1)[0]
    lines = [ln.strip() for ln in block.splitlines() if ln.startswith("    ")]
    cmds = {m.group(1) for ln in lines for m in [re.match(r"memplan (\w+) ", ln)] if m}
    flags = set(re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", " ".join(lines)))
    return cmds, flags


def make_big_model(path, n):
    """A chain of n Relu nodes: its shapes JSON is far larger than a pipe buffer."""
    import onnx
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", ["x" if i == 0 else f"v{i - 1}"], [f"v{i}"], name=f"r{i}") for i in range(n)]
    g = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])],
                          [helper.make_tensor_value_info(f"v{n - 1}", TensorProto.FLOAT, ["batch", 64])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def make_weighty_model(path, nbytes):
    """x[4] + w (a float initializer of nbytes) -> y: a file far larger than its graph."""
    import onnx
    from onnx import TensorProto, helper
    w = helper.make_tensor("w", TensorProto.FLOAT, [nbytes // 4], b"\0" * (nbytes // 4 * 4), raw=True)
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "weighty",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [nbytes // 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [nbytes // 4])], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def make_odd_dims_model(path):
    """x[p2o.Dim.0, seq len, 8] -> Relu -> Relu: dims that are not identifiers."""
    import onnx
    from onnx import TensorProto, helper
    dims = ["p2o.Dim.0", "seq len", 8]
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Relu", ["a"], ["y"])]
    g = helper.make_graph(nodes, "odd", [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def make_inputs_model(path, extra=None):
    """x float[256] (a graph input, 1024 B), w float[2] (an input that is also an initializer: a
    weight kept, 8 B), k = Constant int64[4] (read by nothing: load-only, 32 B), r = Relu(x),
    e = Concat(r, r) float[512];
    extra "symbolic": an input y float[n] that nothing reads; "sequence": s = SequenceConstruct(r),
    a second output (no static size: unplanned)."""
    import onnx
    from onnx import TensorProto, helper
    w = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    k = helper.make_tensor("kv", TensorProto.INT64, [4], [1, 2, 3, 4])
    nodes = [helper.make_node("Constant", [], ["k"], value=k), helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Concat", ["r", "r"], ["e"], axis=0)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [256]),
              helper.make_tensor_value_info("w", TensorProto.FLOAT, [2])]
    if extra == "symbolic":
        inputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"]))
    outputs = [helper.make_tensor_value_info("e", TensorProto.FLOAT, [512])]
    if extra == "sequence":
        nodes.append(helper.make_node("SequenceConstruct", ["r"], ["s"]))
        outputs.append(helper.make_value_info("s", helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(TensorProto.FLOAT, [256]))))
    g = helper.make_graph(nodes, "inputs", inputs, outputs, [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def check_function_calls(exe, d):
    """13. Calls of model-local functions: each call's body planned as a body of the node, with
    that call's shapes (F(x) = Neg(Mul(Exp(x), x)) holds Exp's and Mul's outputs: 2 x 64 B on
    float[2,8], 2 x 256 B on float[4,16]; G(x) = F(Relu(x)) nests a call), and calls that nest
    without end or expand past the limit are errors."""
    import onnx
    from onnx import TensorProto as T, helper
    local = [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)]
    f = helper.make_function("local", "F", ["x"], ["y"], [helper.make_node("Exp", ["x"], ["e"]),
                             helper.make_node("Mul", ["e", "x"], ["m"]), helper.make_node("Neg", ["m"], ["y"])],
                             local[:1])
    g = helper.make_function("local", "G", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["r"]),
                             helper.make_node("F", ["r"], ["y"], domain="local")], local)
    vi = helper.make_tensor_value_info
    graph = helper.make_graph([helper.make_node("Relu", ["X"], ["a"], name="relu"),
                               helper.make_node("F", ["a"], ["b"], name="call_small", domain="local"),
                               helper.make_node("F", ["Z"], ["c"], name="call_large", domain="local"),
                               helper.make_node("G", ["X"], ["g"], name="call_nested", domain="local")],
                              "calls", [vi("X", T.FLOAT, [2, 8]), vi("Z", T.FLOAT, [4, 16])],
                              [vi("b", T.FLOAT, None), vi("c", T.FLOAT, None), vi("g", T.FLOAT, None)])
    path = os.path.join(d, "calls.onnx")
    onnx.save(helper.make_model(graph, functions=[f, g], opset_imports=local), path)
    doc = json.loads(run(exe, ["plan", path, "--json"]).stdout)
    bodies = [(s["node"], s["attribute"], s["transient_bytes"], s["counted"]) for s in doc["subgraphs"]]
    check(bodies == [("call_small", "function", 128, True), ("call_large", "function", 512, True),
                     ("call_nested", "function", 192, True)], f"function calls: a body each, sized by its call ({bodies})")
    nested = doc["subgraphs"][2]["plan"]["subgraphs"]
    check([(s["attribute"], s["transient_bytes"]) for s in nested] == [("function", 128)],
          f"a call inside a function body has its own body ({[(s['attribute'], s['transient_bytes']) for s in nested]})")
    # each call's transient says that it is an upper bound (inlined, F's input could go after Mul)
    why = ("a model-local function, planned as a body of its call: its inputs and outputs count for the whole call, "
           "an upper bound where a runtime inlines it")
    check([(t["node"], t["assumption"]) for t in doc["transients"]] == [("call_small", why), ("call_large", why),
                                                                        ("call_nested", why)]
          and [t["assumption"] for t in doc["subgraphs"][2]["plan"]["transients"]] == [why],
          f"function calls: each transient says it is an upper bound ({doc['transients']})")
    text = run(exe, ["plan", path]).stdout
    check(f"  #2 F 'call_large' function, 3 nodes: 512 B ({why})\n" in text,
          f"function calls: the text's body line says it is an upper bound ({text})")
    # at call_large: b 64 + c 256 + its body 512 (before: 384, the bodies left out)
    check(doc["peak_bytes"] == 832 and doc["lower_bound_bytes"] == 832, f"function calls: peak 832 ({doc['peak_bytes']})")
    r = run(exe, ["shapes", path, "--json"])
    shapes = {v["name"]: (v["shape"], v["bytes"]) for v in json.loads(r.stdout)["values"]}
    check(shapes["c"] == ([4, 16], 256) and shapes["g"] == ([2, 8], 64), f"calls' outputs by their own inputs ({shapes})")
    # two overloads of F (IR 10; onnx 1.12 has no field for it: appended as field 13 of the function, 8 of
    # the node): a call of overload "wide" is linked to, and inferred with, that body (Concat on axis 0:
    # float[2,8] -> [4,8]); a call of an overload no function has is no call: not planned as one, nor
    # inferred with the first F of its name (v was [2, 8] by F's Exp-Mul-Neg body before)
    def overload(msg, field, value):
        raw = value.encode()
        msg.MergeFromString(bytes([field << 3 | 2, len(raw)]) + raw)
        return msg
    wide = overload(helper.make_function("local", "F", ["x"], ["y"],
                                         [helper.make_node("Concat", ["x", "x"], ["y"], axis=0)], local[:1]), 13, "wide")
    graph = helper.make_graph([overload(helper.make_node("F", ["X"], ["w"], name="call_wide", domain="local"), 8, "wide"),
                               overload(helper.make_node("F", ["X"], ["v"], name="call_none", domain="local"), 8, "none")],
                              "overloads", [vi("X", T.FLOAT, [2, 8])], [vi("w", T.FLOAT, None), vi("v", T.FLOAT, None)])
    onnx.save(helper.make_model(graph, functions=[f, wide], opset_imports=local), path)
    doc = json.loads(run(exe, ["plan", path, "--json"]).stdout)
    shapes = {v["name"]: v["shape"] for v in json.loads(run(exe, ["shapes", path, "--json"]).stdout)["values"]}
    body = doc["subgraphs"][0]["plan"]
    check(shapes["w"] == [4, 8] and [s["node"] for s in doc["subgraphs"]] == ["call_wide"]
          and [nd["op_type"] for nd in body["nodes"]] == ["Concat"] and shapes["v"] is None,
          f"calls by overload: 'wide' has that body's shapes, 'none' is no call ({shapes}, {doc['subgraphs']})")
    rec = helper.make_function("local", "R", ["x"], ["y"], [helper.make_node("R", ["x"], ["y"], domain="local")], local)
    graph = helper.make_graph([helper.make_node("R", ["X"], ["Y"], domain="local")], "rec", [vi("X", T.FLOAT, [2])],
                              [vi("Y", T.FLOAT, None)])
    onnx.save(helper.make_model(graph, functions=[rec], opset_imports=local), path)
    r = run(exe, ["plan", path])
    check(r.returncode == 2 and "model-local functions call each other deeper than 32 levels ('R' calls 'R')" in r.stderr,
          f"a function calling itself: exit 2 and why ({r.returncode}, {r.stderr.strip()!r})")
    # f0 calls f1 twice, f1 calls f2 twice, ...: 2^22 copies of Relu
    fs = [helper.make_function("local", f"f{i}", ["x"], ["y"],
                               [helper.make_node(f"f{i + 1}", ["x"], ["t"], domain="local"),
                                helper.make_node(f"f{i + 1}", ["t"], ["y"], domain="local")], local) for i in range(22)]
    fs.append(helper.make_function("local", "f22", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["y"])], local))
    graph = helper.make_graph([helper.make_node("f0", ["X"], ["Y"], domain="local")], "fan", [vi("X", T.FLOAT, [2])],
                              [vi("Y", T.FLOAT, None)])
    onnx.save(helper.make_model(graph, functions=fs, opset_imports=local), path)
    r = run(exe, ["info", path])
    check(r.returncode == 2 and "the calls of model-local functions expand to more than 250000 nodes" in r.stderr,
          f"calls fanned out past the limit: exit 2 and why ({r.returncode}, {r.stderr.strip()!r})")


def check_qdq_units(exe, d):
    """15. QDQ node units (memplan/qdq.h): three QDQ convs (DequantizeLinear on the input and the
    weight, QuantizeLinear on the output) are three units, planned as written and said so in the
    JSON (`qdq_units`) and the text; a unit whose output is also a graph output, or whose op is not
    one ONNX Runtime fuses (Relu), is none."""
    import numpy as np
    import onnx
    from onnx import TensorProto as T, helper, numpy_helper as nh

    def model(path, relu_at=-1, output_at=-1):
        inits = [nh.from_array(np.array(0.05, dtype=np.float32), "s"), nh.from_array(np.array(0, dtype=np.uint8), "z"),
                 nh.from_array(np.array(0, dtype=np.int8), "zw")]
        nodes, prev, outs = [helper.make_node("QuantizeLinear", ["X", "s", "z"], ["xq"])], "xq", []
        for i in range(3):
            inits.append(nh.from_array(np.ones((16, 16 if i else 3, 3, 3), dtype=np.int8), f"w{i}"))
            op = helper.make_node("Relu", [f"x{i}"], [f"c{i}"]) if i == relu_at else \
                helper.make_node("Conv", [f"x{i}", f"wf{i}"], [f"c{i}"], pads=[1, 1, 1, 1])
            nodes += [helper.make_node("DequantizeLinear", [prev, "s", "z"], [f"x{i}"]),
                      helper.make_node("DequantizeLinear", [f"w{i}", "s", "zw"], [f"wf{i}"]), op,
                      helper.make_node("QuantizeLinear", [f"c{i}", "s", "z"], [f"cq{i}"])]
            if i == output_at:
                outs.append(helper.make_tensor_value_info(f"c{i}", T.FLOAT, None))
            prev = f"cq{i}"
        nodes.append(helper.make_node("DequantizeLinear", [prev, "s", "z"], ["Y"]))
        g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("X", T.FLOAT, [1, 3, 64, 64])],
                              outs + [helper.make_tensor_value_info("Y", T.FLOAT, None)], inits)
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)

    path = os.path.join(d, "qdq.onnx")
    why = ("DequantizeLinear -> op -> QuantizeLinear units planned as written (float values between them); "
           "ONNX Runtime's CPU execution provider fuses such units on x86-64 into int8 ops, so it may need less "
           "(--fuse-qdq plans them so)")
    for kw, units in (({}, 3), ({"output_at": 1}, 2), ({"relu_at": 0}, 2)):
        model(path, **kw)
        doc = json.loads(run(exe, ["plan", path, "--json"]).stdout)
        text = run(exe, ["plan", path]).stdout
        check(doc["qdq_units"] == units and f"qdq:               {units} {why}\n" in text,
              f"QDQ units {kw}: {units} in the JSON and the text ({doc['qdq_units']}, {text!r})")
    model(path)
    doc = json.loads(run(exe, ["plan", path, "--json"]).stdout)
    # as written: at conv1 its float input x1 and output c1 (256 KiB each) and wf1 (9 KiB)
    check(doc["peak_bytes"] == 533504 and doc["qdq_fused"] == 0,
          f"QDQ model planned as written: peak 533504 ({doc['peak_bytes']}, {doc['qdq_fused']} fused)")
    check_qdq_fused(exe, d, path)
    vi = helper.make_tensor_value_info
    onnx.save(helper.make_model(helper.make_graph([helper.make_node("Relu", ["X"], ["Y"])], "plain",
                                                  [vi("X", T.FLOAT, [4])], [vi("Y", T.FLOAT, [4])]),
                                opset_imports=[helper.make_opsetid("", 13)]), path)
    doc = json.loads(run(exe, ["plan", path, "--json"]).stdout)
    check(doc["qdq_units"] == 0 and "qdq:" not in run(exe, ["plan", path]).stdout,
          f"a model without QDQ: 0 units, no line ({doc['qdq_units']})")


def check_qdq_types(exe, d):
    """15c. The element types of a unit pass ONNX Runtime's selector (memplan/qdq.h). By default as
    on x86-64: an int8 QuantizeLinear -> DequantizeLinear pair is made uint8 when the
    QuantizeLinear's output has that one reader (each further reader of the DequantizeLinear's
    output would get a copy of it), and an int8 Conv or MatMul input is not fused; with
    --qdq-int8 (ARM64) no pair is converted and int8 units fuse."""
    import numpy as np
    import onnx
    from onnx import TensorProto as T, helper, numpy_helper as nh

    vi, node = helper.make_tensor_value_info, helper.make_node
    path = os.path.join(d, "qdq_types.onnx")

    def save(nodes, inits, outs, inputs=None, opset=13):
        g = helper.make_graph(nodes, "qdq_types", inputs or [vi("X", T.FLOAT, [1, 16, 32, 32])],
                              [vi(o, T.FLOAT, None) for o in outs], inits)
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), path)

    def units(*args):
        doc = json.loads(run(exe, ["plan", path, "--json", "--fuse-qdq", *args]).stdout)
        return doc["qdq_units"], doc["qdq_fused"], doc["peak_bytes"]

    def const(name, value, dtype):
        return nh.from_array(np.array(value, dtype=dtype), name)

    # two int8 convs, quantize_static's defaults: int8 activations and weights, int32 bias
    def convs(fanout):
        nodes = [node("QuantizeLinear", ["X", "s", "z"], ["xq"]), node("DequantizeLinear", ["xq", "s", "z"], ["x"])]
        prev = "x"
        for i in range(2):
            nodes += [node("DequantizeLinear", [f"w{i}", "s", "zw"], [f"wf{i}"]),
                      node("DequantizeLinear", [f"b{i}", "sb"], [f"bf{i}"]),
                      node("Conv", [prev, f"wf{i}", f"bf{i}"], [f"c{i}"], pads=[1, 1, 1, 1]),
                      node("QuantizeLinear", [f"c{i}", "s", "z"], [f"q{i}"]),
                      node("DequantizeLinear", [f"q{i}", "s", "z"], [f"d{i}"])]
            if fanout and i == 0:  # d0 read by a Relu and conv 1: its QuantizeLinear ends up with two readers
                nodes.append(node("Relu", ["d0"], ["R"]))
            prev = f"d{i}"
        outs = ["d1"] + (["R"] if fanout else [])
        inits = [const("s", 0.05, np.float32), const("sb", 0.0025, np.float32), const("z", 0, np.int8),
                 const("zw", 0, np.int8)]
        for i in range(2):
            inits += [nh.from_array(np.ones((16, 16, 3, 3), dtype=np.int8), f"w{i}"),
                      nh.from_array(np.zeros(16, dtype=np.int32), f"b{i}")]
        save(nodes, inits, outs)

    # x (64 KiB float, 16 KiB int8) ; without fan-out both fuse: q0 made in c0 (16 KiB), then c1
    # (16 KiB) and d1 (64 KiB): peak 81920
    convs(False)
    got = (units(), units("--qdq-int8"))
    check(got == ((2, 2, 81920), (2, 2, 81920)),
          f"int8 convs, one reader per pair: fused on x86-64 (pairs made uint8) and with --qdq-int8 ({got})")
    # with fan-out, x86-64: q0's pair stays int8, so conv 0 writes int8 after reading uint8 and
    # conv 1 reads int8: neither fuses; at conv 1 d0, R and c1 (64 KiB float each), wf1 (9 KiB)
    # and bf1 (64 B) are live. With --qdq-int8 c1 is 16 KiB of int8 (d0 stays float: R reads it)
    convs(True)
    got = (units(), units("--qdq-int8"))
    check(got == ((0, 0, 205888), (2, 2, 147456)),
          f"int8 convs, a pair with two readers: none fused on x86-64, both with --qdq-int8 ({got})")
    docs = [json.loads(run(exe, ["plan", path, "--json", *a]).stdout) for a in ([], ["--qdq-int8"])]
    got = [(doc["qdq_int8"], doc["qdq_units"], doc["qdq_units_other"]) for doc in docs]
    check(got == [(False, 0, 2), (True, 2, 0)], f"the JSON gives the platform and the other one's units ({got})")
    texts = [run(exe, ["plan", path, *a]).stdout for a in ([], ["--qdq-int8"])]
    check("qdq:               no DequantizeLinear -> op -> QuantizeLinear unit ONNX Runtime fuses on x86-64; 2 where "
          "int8 QDQ is allowed (--qdq-int8, as on ARM64)\n" in texts[0]
          and "qdq:               2 DequantizeLinear -> op -> QuantizeLinear units planned as written (float values "
          "between them); ONNX Runtime's CPU execution provider fuses such units where int8 QDQ is allowed "
          "(--qdq-int8, as on ARM64) into int8 ops, so it may need less (--fuse-qdq plans them so)\n  fused:           "
          "peak 147456 (144.00 KiB)\n  on x86-64:       0 units\n" in texts[1],
          f"the text says where the units fuse, and how many on the other platform ({texts})")

    # Add of a uint8 and an int8 tensor: its selector wants one type
    def add(tb):
        nodes = [node("QuantizeLinear", ["X", "s", "z"], ["xq"]), node("DequantizeLinear", ["xq", "s", "z"], ["x"]),
                 node("DequantizeLinear", ["b", "s", "zb"], ["bf"]), node("Add", ["x", "bf"], ["a"]),
                 node("QuantizeLinear", ["a", "s", "z"], ["aq"]), node("DequantizeLinear", ["aq", "s", "z"], ["Y"])]
        save(nodes, [const("s", 0.05, np.float32), const("z", 0, np.uint8), const("zb", 0, tb),
                     nh.from_array(np.ones((1, 16, 32, 32), dtype=tb), "b")], ["Y"])

    add(np.uint8)
    got = units()
    add(np.int8)
    got = (got, units())
    check(got[0][:2] == (1, 1) and got[1][:2] == (0, 0), f"Add: uint8 + uint8 fused, uint8 + int8 not ({got})")

    # a pair around one op (q, its type t): 16-bit types fuse around Reshape, not Conv
    def one(op, t, scale=0.05, bias=None, opset=None, sb=0.0025, xzero=True, **attrs):
        zero, w = const("z", 0, t), nh.from_array(np.ones((16, 16, 1, 1), dtype=np.int8), "w")
        ins = {"Conv": ["x", "wf"] + (["bf"] if bias is not None else []), "Reshape": ["x", "shape"],
               "MaxPool": ["x"], "Gemm": ["x", "wf"] + (["bf"] if bias is not None else [])}[op]
        z = ["z"] if xzero else []
        nodes = [node("QuantizeLinear", ["X", "s"] + z, ["xq"]), node("DequantizeLinear", ["xq", "s"] + z, ["x"]),
                 node("DequantizeLinear", ["w", "s", "zw"], ["wf"]), node("DequantizeLinear", ["b", "sb"], ["bf"]),
                 node(op, ins, ["o"], **attrs), node("QuantizeLinear", ["o", "s", "z"], ["oq"]),
                 node("DequantizeLinear", ["oq", "s", "z"], ["Y"])]
        inits = [const("s", scale, np.float32), zero, const("zw", 0, np.int8), const("sb", sb, np.float32), w,
                 nh.from_array(np.zeros(16, dtype=bias or np.int32), "b"), const("shape", [1, 16, 1024], np.int64)]
        shape = [1, 16] if op == "Gemm" else [1, 16, 32, 32]
        if op == "Gemm":
            inits[4] = nh.from_array(np.ones((16, 16), dtype=np.int8), "w")
        save(nodes, inits, ["Y"], [vi("X", T.FLOAT, shape)], opset=opset or (21 if t in (np.uint16, np.int16) else 13))
        return units()[:2]

    cases = [(("Reshape", np.uint16), (1, 1)), (("Conv", np.uint16), (0, 0)), (("Conv", np.uint8), (1, 1)),
             (("Conv", np.uint8, 0.05, np.int32), (1, 1)), (("Conv", np.uint8, 0.05, np.int8), (0, 0)),
             (("MaxPool", np.uint8, 0.05), (1, 1)), (("MaxPool", np.uint8, -0.05), (0, 0))]
    for args, want in cases:
        kw = {"kernel_shape": [2, 2]} if args[0] == "MaxPool" else {}
        got = one(*args, **kw)
        what = ", ".join([np.dtype(args[1]).name] + [f"scale {x}" if isinstance(x, float) else f"{np.dtype(x).name} bias"
                                                   for x in args[2:]])
        check(got == want, f"one {args[0]} unit, {what}: {got}, expected {want}")
    for beta, want in ((1.0, (1, 1)), (0.5, (0, 0))):
        got = one("Gemm", np.uint8, 0.05, np.int32, beta=beta)
        check(got == want, f"Gemm with an int32 bias, beta {beta}: {got}, expected {want}")
    # measured against ONNX Runtime 1.30 (wasm-tests/ort-qdq.test.js): MaxPool fuses from opset 12 on,
    # a Conv's bias scale must be the input's times the weight's (0.0025) within 1e-6 + 1%, QGemm
    # needs A's zero point (a Gemm takes any bias scale)
    for what, kw, want in (("MaxPool, opset 11", {"op": "MaxPool", "opset": 11, "kernel_shape": [2, 2]}, (0, 0)),
                           ("MaxPool, opset 12", {"op": "MaxPool", "opset": 12, "kernel_shape": [2, 2]}, (1, 1)),
                           ("Conv, bias scale 0.5% off", {"op": "Conv", "bias": np.int32, "sb": 0.0025125}, (1, 1)),
                           ("Conv, bias scale 2% off", {"op": "Conv", "bias": np.int32, "sb": 0.00255}, (0, 0)),
                           ("Gemm, bias scale 20% off", {"op": "Gemm", "bias": np.int32, "sb": 0.003}, (1, 1)),
                           ("Gemm, no zero point for A", {"op": "Gemm", "bias": np.int32, "xzero": False}, (0, 0)),
                           ("Conv, no zero point for X", {"op": "Conv", "bias": np.int32, "xzero": False}, (1, 1))):
        op = kw.pop("op")
        got = one(op, np.uint8, **kw)
        check(got == want, f"{what}: {got}, expected {want}")

    # a DequantizeLinear output that is also a graph output: the conv gets a DequantizeLinear of its
    # own (EnsureUniqueDQForNodeUnit) and fuses; the output stays a float buffer (64 KiB)
    nodes = [node("QuantizeLinear", ["X", "s", "z"], ["xq"]), node("DequantizeLinear", ["xq", "s", "z"], ["x"]),
             node("DequantizeLinear", ["w", "s", "zw"], ["wf"]), node("Conv", ["x", "wf"], ["c"]),
             node("QuantizeLinear", ["c", "s", "z"], ["cq"]), node("DequantizeLinear", ["cq", "s", "z"], ["Y"])]
    save(nodes, [const("s", 0.05, np.float32), const("z", 0, np.uint8), const("zw", 0, np.int8),
                 nh.from_array(np.ones((16, 16, 1, 1), dtype=np.int8), "w")], ["x", "Y"])
    doc = json.loads(run(exe, ["plan", path, "--json", "--fuse-qdq"]).stdout)
    x = next(v for v in doc["values"] if v["name"] == "x")
    got = (doc["qdq_units"], doc["qdq_fused"], x["size"], x["dtype"], x["view"])
    check(got == (1, 1, 65536, "float", False),
          f"a DequantizeLinear output that is a graph output: the conv fuses, the output stays float ({got})")

    # weight-only quantized MatMuls (a float A, B a DequantizeLinear of a constant weight [64, 32]):
    # ONNX Runtime 1.30 runs them as MatMulNBits, so the float weight (8 KiB) is never made; as
    # written it is, beside the output Y [4, 32] (512 B)
    def weight_only(form, op="MatMul", two=None, q_after=False, **attrs):
        K, N = 64, 32
        inits, nodes = [], []
        for i in range(2 if two is not None else 1):
            if form == "int4":
                w = onnx.TensorProto()
                w.name, w.data_type = f"w{i}", 22  # INT4, packed two a byte
                w.dims.extend([K, N])
                w.raw_data = bytes(K * N // 2)
                inits += [w, nh.from_array(np.full((K // attrs["block_size"], N), 0.01, np.float32), f"s{i}")]
                ins = [f"w{i}", f"s{i}"]
            else:
                scale = np.array(0.01 * (1 + (i if two == "different" else 0)), np.float32)
                if form == "tensor1":
                    scale = scale.reshape(1)
                inits += [nh.from_array(np.ones((K, N), np.int8), f"w{i}"), nh.from_array(scale, f"s{i}"),
                          nh.from_array(np.zeros(scale.shape, np.int8), f"z{i}")]
                ins = [f"w{i}", f"s{i}", f"z{i}"]
            nodes.append(node("DequantizeLinear", ins, [f"wf{i}"],
                              **({k: attrs[k] for k in ("axis", "block_size")} if form == "int4" else {})))
            gemm = {k: v for k, v in attrs.items() if k in ("alpha", "transA", "transB")}
            nodes.append(node(op, ["A", f"wf{i}"], [f"y{i}"], **gemm))
            if q_after:
                nodes += [node("QuantizeLinear", [f"y{i}", f"s{i}"], [f"q{i}"]),
                          node("DequantizeLinear", [f"q{i}", f"s{i}"], [f"Y{i}"])]
            else:
                nodes.append(node("Identity", [f"y{i}"], [f"Y{i}"]))
        outs = [f"Y{i}" for i in range(2 if two is not None else 1)]
        save(nodes, inits, outs, [vi("A", T.FLOAT, [4, K])], opset=21 if form == "int4" else 13)
        doc = json.loads(run(exe, ["plan", path, "--json", "--fuse-qdq"]).stdout)
        return doc["qdq_units"], doc["peak_bytes"]

    for what, args, kw, want in (
            ("int4, blocks of 32", ("int4",), {"axis": 0, "block_size": 32}, (1, 512)),
            ("int4, blocks of 8 (under 16)", ("int4",), {"axis": 0, "block_size": 8}, (0, 8704)),
            ("int4, blocks along axis 1", ("int4",), {"axis": 1, "block_size": 32}, (0, 8704)),
            ("int8 per tensor", ("tensor",), {}, (1, 512)),
            ("int8, a scale of shape [1]", ("tensor1",), {}, (0, 8704)),
            ("int8 per tensor, two MatMuls of equal scales (shared first)", ("tensor",), {"two": "equal"}, (0, 9216)),
            ("int8 per tensor, two MatMuls of other scales", ("tensor",), {"two": "different"}, (2, 1024)),
            ("a QuantizeLinear after it", ("tensor",), {"q_after": True}, (0, 8704)),
            ("Gemm", ("tensor", "Gemm"), {}, (1, 512)),
            ("Gemm with alpha 0.5", ("tensor", "Gemm"), {"alpha": 0.5}, (0, 8704))):
        got = weight_only(*args, **kw)
        check(got == want, f"weight-only {what}: {got}, expected {want}")

    # a Reshape between an int8 pair of zero point -128 and a uint8 pair of zero point 0: on x86-64
    # ONNX Runtime makes the int8 pair uint8 (zero point 0) first, so both quantize alike and the
    # pair is dropped; with --qdq-int8 nothing is converted and the parameters differ
    nodes = [node("QuantizeLinear", ["X", "s", "z8"], ["xq"]), node("DequantizeLinear", ["xq", "s", "z8"], ["x"]),
             node("Reshape", ["x", "shape"], ["r"]), node("QuantizeLinear", ["r", "s", "zu"], ["rq"]),
             node("DequantizeLinear", ["rq", "s", "zu"], ["Y"])]
    save(nodes, [const("s", 0.05, np.float32), const("z8", -128, np.int8), const("zu", 0, np.uint8),
                 const("shape", [1, 16, 1024], np.int64)], ["Y"])
    got = (units(), units("--qdq-int8"))
    check(got == ((1, 1, 81920), (0, 0, 81920)),
          f"a Reshape between an int8 pair made uint8 and a uint8 pair: fused on x86-64 only ({got})")

    # a weight-only MatMul of a rank-2 A read by an Add alone: ONNX Runtime makes them a Gemm first
    # (MatMulAddFusion), which takes MatMulNBits only with a bias [N]; with A of rank 3 it does not
    def matmul_add(c_shape, a_shape=(4, 64)):
        nodes = [node("DequantizeLinear", ["w", "s", "z"], ["wf"]), node("MatMul", ["A", "wf"], ["y"]),
                 node("Add", ["y", "C"], ["Y"])]
        save(nodes, [nh.from_array(np.ones((64, 32), np.int8), "w"), const("s", 0.01, np.float32),
                     const("z", 0, np.int8), nh.from_array(np.zeros(c_shape, np.float32), "C")], ["Y"],
             [vi("A", T.FLOAT, list(a_shape))])
        return units()[:2]
    for what, args, want in (("bias [32]", ((32,),), (1, 1)), ("[1, 32]", ((1, 32),), (0, 0)),
                             ("[4, 32]", ((4, 32),), (0, 0)), ("[4, 32], A of rank 3", ((1, 4, 32), (1, 4, 64)), (1, 1))):
        got = matmul_add(*args)
        check(got == want, f"weight-only MatMul + Add of {what}: {got}, expected {want}")

    # ArgMax over a DequantizeLinear output (ONNX Runtime drops the DequantizeLinear: ArgMax reads
    # uint8), and Where between two (QLinearWhere); a DequantizeLinear without its zero point
    # keeps the ArgMax float
    def pick(op, zero=True):
        z = ["z"] if zero else []
        nodes = [node("QuantizeLinear", ["X", "s"] + z, ["xq"]), node("DequantizeLinear", ["xq", "s"] + z, ["x"])]
        if op == "ArgMax":
            nodes.append(node("ArgMax", ["x"], ["I"], axis=1))
            outs = [vi("I", T.INT64, None)]
        else:
            nodes += [node("Greater", ["X", "X"], ["c"]), node("Where", ["c", "x", "x"], ["w"]),
                      node("QuantizeLinear", ["w", "s", "z"], ["wq"]), node("DequantizeLinear", ["wq", "s", "z"], ["Y"])]
            outs = [vi("Y", T.FLOAT, None)]
        g = helper.make_graph(nodes, "pick", [vi("X", T.FLOAT, [1, 16, 32, 32])], outs,
                              [const("s", 0.05, np.float32), const("z", 0, np.uint8)])
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
        return units()
    # ArgMax fused: xq (16 KiB) and I (8 KiB of int64); as written xq and x (64 KiB float) at the
    # DequantizeLinear. Where fused: at the last DequantizeLinear w (16 KiB uint8) and Y (64 KiB)
    for what, args, want in (("ArgMax", ("ArgMax",), (1, 1, 24576)), ("ArgMax, no zero point", ("ArgMax", False), (0, 0, 81920)),
                             ("Where", ("Where",), (1, 1, 81920))):
        got = pick(*args)
        check(got == want, f"{what} over DequantizeLinear outputs: {got}, expected {want}")

    # Split: ONNX Runtime drops the pairs around it, so its outputs are written quantized (8 KiB
    # each instead of 32); one output another node reads too keeps it float
    def split(extra=False):
        nodes = [node("QuantizeLinear", ["X", "s", "z"], ["xq"]), node("DequantizeLinear", ["xq", "s", "z"], ["x"]),
                 node("Split", ["x", "sp"], ["a", "b"], axis=1)]
        nodes += [n for o in "ab" for n in (node("QuantizeLinear", [o, "s", "z"], [o + "q"]),
                                            node("DequantizeLinear", [o + "q", "s", "z"], [o.upper()]))]
        outs = ["A", "B"] + (["R"] if extra else [])
        if extra:
            nodes.append(node("Relu", ["a"], ["R"]))
        save(nodes, [const("s", 0.05, np.float32), const("z", 0, np.uint8), const("sp", [8, 8], np.int64)], outs)
        doc = json.loads(run(exe, ["plan", path, "--json", "--fuse-qdq"]).stdout)
        vals = {v["name"]: v for v in doc["values"]}
        return doc["qdq_units"], doc["qdq_fused"], vals["a"]["size"], vals["a"]["dtype"], vals["bq"]["owner"]
    got = (split(), split(True))
    check(got == ((1, 1, 8192, "uint8", "b"), (0, 0, 32768, "float", "bq")),
          f"Split: one unit, its outputs quantized; not with another reader ({got})")

    # MatMul of an int8 graph input (no pair to convert) and int8 weights, float output
    # (MatMulIntegerToFloat): not on x86-64, fused with --qdq-int8
    nodes = [node("DequantizeLinear", ["A", "s", "z"], ["a"]), node("DequantizeLinear", ["w", "s", "z"], ["wf"]),
             node("MatMul", ["a", "wf"], ["Y"])]
    save(nodes, [const("s", 0.05, np.float32), const("z", 0, np.int8),
                 nh.from_array(np.ones((64, 64), dtype=np.int8), "w")], ["Y"], [vi("A", T.INT8, [64, 64])])
    got = (units()[:2], units("--qdq-int8")[:2])
    check(got == ((0, 0), (1, 1)), f"int8 MatMul without a QuantizeLinear: x86-64 {got[0]}, --qdq-int8 {got[1]}")


def check_qdq_fused(exe, d, path):
    """15b. --fuse-qdq plans the units of `path` (check_qdq_units' three convs) as ONNX Runtime runs
    them: each DequantizeLinear output a view of its quantized input, the conv's output written
    quantized (uint8, 64 KiB instead of 256) with the QuantizeLinear's output a view of it. In an
    If's branches too, but not a unit whose QuantizeLinear output is the branch's output (that
    buffer is the If's)."""
    import numpy as np
    import onnx
    from onnx import TensorProto as T, helper, numpy_helper as nh

    doc = json.loads(run(exe, ["plan", path, "--json", "--fuse-qdq"]).stdout)
    vals = {v["name"]: v for v in doc["values"]}
    # xq 12 KiB, c0-c2 64 KiB each, Y 256 KiB (graph output); at the last DequantizeLinear: c2 + Y
    check((doc["qdq_units"], doc["qdq_fused"], doc["peak_bytes"], doc["lower_bound_bytes"], doc["naive_bytes"])
          == (3, 3, 327680, 327680, 471040),
          f"--fuse-qdq: 3 units fused, peak 327680 of naive 471040 "
          f"({doc['qdq_fused']}, {doc['peak_bytes']}, {doc['naive_bytes']})")
    check(sorted(vals) == ["Y", "c0", "c1", "c2", "cq0", "cq1", "cq2", "x0", "x1", "x2", "xq"]
          and [vals[v]["owner"] for v in ("x0", "x1", "cq1")] == ["xq", "c0", "c1"]
          and (vals["c1"]["size"], vals["c1"]["dtype"], vals["c1"]["view"]) == (65536, "uint8", False)
          and (vals["x1"]["size"], vals["x1"]["dtype"]) == (65536, "uint8"),
          f"--fuse-qdq: the float values are views of the quantized ones, a conv writes 64 KiB ({vals})")
    text = run(exe, ["plan", path, "--fuse-qdq"]).stdout
    check("qdq:               3 DequantizeLinear -> op -> QuantizeLinear units planned fused (--fuse-qdq), as "
          "ONNX Runtime's CPU execution provider runs them on x86-64: the op reads and writes the quantized tensors\n" in text
          and "peak:              327680 (320.00 KiB)\n" in text and "  as written:      peak 533504 (521.00 KiB)\n" in text,
          f"--fuse-qdq: the text says so, and gives the peak as written ({text!r})")
    text = run(exe, ["plan", path]).stdout
    check("  fused:           peak 327680 (320.00 KiB)\n" in text, f"as written, the text gives the fused peak ({text!r})")
    both = json.loads(run(exe, ["plan", path, "--json", "--fuse-qdq", "--inplace"]).stdout)
    check(both["peak_bytes"] == 327680, f"--fuse-qdq --inplace: the same peak ({both['peak_bytes']})")

    # a Reshape unit: its output stays a view (of the DequantizeLinear's output, now of xq), so the
    # unit takes no buffer at all; as written xq, x, rq (256 B each in uint8) and Y are buffers
    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("QuantizeLinear", ["X", "s", "z"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["x"]),
             helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "s", "z"], ["rq"]),
             helper.make_node("DequantizeLinear", ["rq", "s", "z"], ["Y"])]
    g = helper.make_graph(nodes, "qdq_reshape", [vi("X", T.FLOAT, [1, 16, 16])], [vi("Y", T.FLOAT, None)],
                          [nh.from_array(np.array(0.05, dtype=np.float32), "s"),
                           nh.from_array(np.array(0, dtype=np.uint8), "z"),
                           nh.from_array(np.array([16, 16], dtype=np.int64), "shape")])
    rpath = os.path.join(d, "qdq_reshape.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), rpath)
    for args, naive, owner in (([], 2560, "rq"), (["--fuse-qdq"], 1280, "xq")):
        doc = json.loads(run(exe, ["plan", rpath, "--json"] + args).stdout)
        got = (doc["qdq_units"], doc["qdq_fused"], doc["naive_bytes"], {v["name"]: v["owner"] for v in doc["values"]}["rq"])
        check(got == (1, len(args), naive, owner), f"a QDQ Reshape {args}: (units, fused, naive, rq's owner) {got}")

    # one DequantizeLinear read by two convs (ONNX Runtime gives each unit its own): both are units,
    # and fused x is a view of xq; a Relu reading it too needs it made, in float
    def shared(path, relu):
        nodes = [helper.make_node("QuantizeLinear", ["X", "s", "z"], ["xq"]),
                 helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["x"])]
        for c in "ab":
            nodes += [helper.make_node("DequantizeLinear", ["w", "s", "zw"], [f"w{c}"]),
                      helper.make_node("Conv", ["x", f"w{c}"], [f"c{c}"], pads=[1, 1, 1, 1]),
                      helper.make_node("QuantizeLinear", [f"c{c}", "s", "z"], [f"q{c}"]),
                      helper.make_node("DequantizeLinear", [f"q{c}", "s", "z"], [f"d{c}"])]
        nodes += [helper.make_node("Add", ["da", "db"], ["sum"]),
                  helper.make_node("QuantizeLinear", ["sum", "s", "z"], ["sq"]),
                  helper.make_node("DequantizeLinear", ["sq", "s", "z"], ["Y"])]
        outs = [vi("Y", T.FLOAT, None)]
        if relu:
            nodes.append(helper.make_node("Relu", ["x"], ["R"]))
            outs.append(vi("R", T.FLOAT, None))
        g = helper.make_graph(nodes, "qdq_shared", [vi("X", T.FLOAT, [1, 16, 16, 16])], outs,
                              [nh.from_array(np.array(0.05, dtype=np.float32), "s"),
                               nh.from_array(np.array(0, dtype=np.uint8), "z"),
                               nh.from_array(np.array(0, dtype=np.int8), "zw"),
                               nh.from_array(np.ones((16, 16, 3, 3), dtype=np.int8), "w")])
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)

    spath = os.path.join(d, "qdq_shared.onnx")
    for relu, x_owner in ((False, "xq"), (True, "x")):
        shared(spath, relu)
        doc = json.loads(run(exe, ["plan", spath, "--json", "--fuse-qdq"]).stdout)
        got = (doc["qdq_units"], doc["qdq_fused"], {v["name"]: v["owner"] for v in doc["values"]}["x"])
        check(got == (3, 3, x_owner), f"a DequantizeLinear two convs read, relu={relu}: (units, fused, x's owner) {got}")

    # around a Reshape ONNX Runtime only drops the pair: the QuantizeLinear's scale must be the
    # DequantizeLinear's (the same value, or equal bytes, an initializer's or a Constant's)
    def reshape_q_scale(path, how, op="Reshape"):
        inits = [nh.from_array(np.array(0.05, dtype=np.float32), "s"), nh.from_array(np.array(0, dtype=np.uint8), "z"),
                 nh.from_array(np.array([16, 16], dtype=np.int64), "shape")]
        zp = [] if how == "no zero point" else ["z"]
        nodes = [helper.make_node("QuantizeLinear", ["X", "s", "z"], ["xq"]),
                 helper.make_node("DequantizeLinear", ["xq", "s"] + zp, ["x"]),
                 helper.make_node("Reshape", ["x", "shape"], ["r"]) if op == "Reshape" else
                 helper.make_node("MaxPool", ["x"], ["r"], kernel_shape=[2])]
        if how == "constant":
            nodes.append(helper.make_node("Constant", [], ["s2"],
                                          value=nh.from_array(np.array(0.05, dtype=np.float32))))
        elif how == "shape":  # the same bytes as a [2] tensor's first: not the same parameter
            inits.append(nh.from_array(np.array([0.05, 0.05], dtype=np.float32), "s2"))
        elif how in ("equal", "other"):
            inits.append(nh.from_array(np.array(0.05 if how == "equal" else 0.1, dtype=np.float32), "s2"))
        same = how in ("same", "contrib", "no zero point")
        nodes += [helper.make_node("QuantizeLinear", ["r", "s" if same else "s2"] + zp, ["rq"]),
                  helper.make_node("DequantizeLinear", ["rq", "s", "z"], ["Y"])]
        if how == "contrib":  # ONNX Runtime's own QuantizeLinear and DequantizeLinear
            for n in nodes:
                if n.op_type.endswith("QuantizeLinear"):
                    n.domain = "com.microsoft"
        g = helper.make_graph(nodes, "qdq_reshape_scale", [vi("X", T.FLOAT, [1, 16, 16])], [vi("Y", T.FLOAT, None)],
                              inits)
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                                      helper.make_opsetid("com.microsoft", 1)]), path)

    # ONNX Runtime drops the pair only with scalar constant scales and zero points, equal on both sides
    for how, units in (("same", 1), ("equal", 1), ("constant", 1), ("other", 0), ("shape", 0), ("contrib", 1),
                       ("no zero point", 0)):
        for op in ("Reshape", "MaxPool"):
            reshape_q_scale(rpath, how, op)
            doc = json.loads(run(exe, ["plan", rpath, "--json", "--fuse-qdq"]).stdout)
            check((doc["qdq_units"], doc["qdq_fused"]) == (units, units),
                  f"a QDQ {op}, the QuantizeLinear's scale {how}: {units} unit ({doc['qdq_units']}, {doc['qdq_fused']})")

    # Gemm and MatMul on X float[64,32] quantized (xq -> x) and an int8 weight w[32,64] (-> wf):
    # `tail` is the nodes after those, `extra` more initializers, `outs` the graph outputs
    def matmul_model(path, tail, extra=(), outs=("Y",)):
        nodes = [helper.make_node("QuantizeLinear", ["X", "s", "z"], ["xq"]),
                 helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["x"]),
                 helper.make_node("DequantizeLinear", ["w", "s", "zw"], ["wf"])] + tail
        inits = [nh.from_array(np.array(0.05, dtype=np.float32), "s"), nh.from_array(np.array(0, dtype=np.uint8), "z"),
                 nh.from_array(np.array(0, dtype=np.int8), "zw"), nh.from_array(np.ones((32, 64), dtype=np.int8), "w")]
        g = helper.make_graph(nodes, "qdq_matmul", [vi("X", T.FLOAT, [64, 32])], [vi(o, T.FLOAT, None) for o in outs],
                              inits + list(extra))
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)

    def gemm_tail(bias):
        return [helper.make_node("Gemm", ["x", "wf", bias], ["g"]), helper.make_node("QuantizeLinear", ["g", "s", "z"], ["gq"]),
                helper.make_node("DequantizeLinear", ["gq", "s", "z"], ["Y"])]

    # Gemm (ONNX Runtime's QGemm), its bias a DequantizeLinear of int32: fused, g (uint8 [64,64],
    # 4 KiB) and Y (float, 16 KiB) at the end; as written x, wf (8 KiB each), bf and g (16 KiB) at the Gemm
    gpath = os.path.join(d, "qdq_gemm.onnx")
    matmul_model(gpath, [helper.make_node("DequantizeLinear", ["b", "s", "zb"], ["bf"])] + gemm_tail("bf"),
                 [nh.from_array(np.array(0, dtype=np.int32), "zb"), nh.from_array(np.ones(64, dtype=np.int32), "b")])
    for args, want in (([], (1, 0, 33024)), (["--fuse-qdq"], (1, 1, 20480))):
        doc = json.loads(run(exe, ["plan", gpath, "--json"] + args).stdout)
        got = (doc["qdq_units"], doc["qdq_fused"], doc["peak_bytes"])
        check(got == want, f"a QDQ Gemm {args}: (units, fused, peak) {got}, expected {want}")

    # a MatMul without a QuantizeLinear after it (ONNX Runtime's MatMulIntegerToFloat): a unit, its
    # float output stays; fused its inputs are views of the quantized ones, and then the weight
    # is never made in float: as written x (8 KiB), wf (8 KiB) and Y (16 KiB float)
    # at the MatMul; fused xq and Y
    matmul_model(gpath, [helper.make_node("MatMul", ["x", "wf"], ["Y"])])
    for args, want in (([], (1, 0, 32768, "float")), (["--fuse-qdq"], (1, 1, 18432, "float"))):
        doc = json.loads(run(exe, ["plan", gpath, "--json"] + args).stdout)
        got = (doc["qdq_units"], doc["qdq_fused"], doc["peak_bytes"], {v["name"]: v["dtype"] for v in doc["values"]}["Y"])
        check(got == want, f"a QDQ MatMul with a float output {args}: (units, fused, peak, Y's dtype) {got}, expected {want}")

    # not units: a Gemm whose bias is a float initializer (every input given must be a
    # DequantizeLinear's); a MatMul with no QuantizeLinear whose output a Relu alone reads
    matmul_model(gpath, gemm_tail("bfloat") + [helper.make_node("MatMul", ["x", "wf"], ["m"]),
                                               helper.make_node("Relu", ["m"], ["R"])],
                 [nh.from_array(np.ones(64, dtype=np.float32), "bfloat")], ("Y", "R"))
    doc = json.loads(run(exe, ["plan", gpath, "--json", "--fuse-qdq"]).stdout)
    check((doc["qdq_units"], doc["qdq_fused"]) == (0, 0),
          f"a Gemm with a float bias, a MatMul before a Relu: no unit ({doc['qdq_units']}, {doc['qdq_fused']})")

    # Conv -> Relu or Clip -> QuantizeLinear (PyTorch's export; ONNX Runtime's quantizer leaves
    # Conv -> Clip for Relu6): ONNX Runtime removes a Relu when the zero point is its type's least
    # value (ReluQuantFusion), a Clip when its bounds hold the range the QuantizeLinear represents
    # (ClipQuantFusion), and then fuses the conv
    def conv_act(path, act, zp, bounds=None, attrs=False):
        nodes = [helper.make_node("QuantizeLinear", ["X", "s", "z"], ["xq"]),
                 helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["x"]),
                 helper.make_node("DequantizeLinear", ["w", "s", "zw"], ["wf"]),
                 helper.make_node("Conv", ["x", "wf"], ["c"], pads=[1, 1, 1, 1]),
                 helper.make_node(act.split("-")[0], ["c"] + (["lo", "hi"] if bounds and not attrs else []), ["r"],
                                  **({"min": bounds[0], "max": bounds[1]} if attrs else {})),
                 helper.make_node("QuantizeLinear", ["r", "sr", "zr"] if zp is not None else ["r", "sr"], ["rq"]),
                 helper.make_node("DequantizeLinear", ["rq", "sr"] + (["zr"] if zp is not None else []), ["Y"])]
        inits = [nh.from_array(np.array(0.05, dtype=np.float32), "s"), nh.from_array(np.array(0, dtype=np.uint8), "z"),
                 nh.from_array(np.array(6 / 255, dtype=np.float32), "sr"),
                 nh.from_array(np.array(0, dtype=np.int8), "zw"), nh.from_array(np.ones((16, 16, 3, 3), dtype=np.int8), "w")]
        if zp is not None:  # a negative zero point is int8's
            inits.append(nh.from_array(np.array(zp, dtype=np.int8 if zp < 0 or act == "Relu-i8" else np.uint8), "zr"))
        if bounds and not attrs:
            inits += [nh.from_array(np.array(bounds[0], dtype=np.float32), "lo"),
                      nh.from_array(np.array(bounds[1], dtype=np.float32), "hi")]
        g = helper.make_graph(nodes, "qdq_conv_act", [vi("X", T.FLOAT, [1, 16, 16, 16])], [vi("Y", T.FLOAT, None)], inits)
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 10 if attrs else 13)]), path)

    cpath = os.path.join(d, "qdq_conv_act.onnx")
    # fused: c (4 KiB uint8) and Y (16 KiB float) at the end; as written x, wf and c at the conv
    for act, zp, bounds, units in (("Relu", 0, None, 1), ("Relu", 5, None, 0), ("Relu", None, None, 0),
                                   ("Relu", -128, None, 1), ("Relu-i8", 0, None, 0),
                                   ("Clip", 0, (0.0, 6.0), 1), ("Clip", 0, (-1.0, 7.0), 1),
                                   ("Clip", 0, (0.0, 5.0), 0), ("Clip", 0, (0.5, 6.0), 0),
                                   ("Clip-6", 0, (0.0, 6.0), 1), ("Clip-6", 0, (0.0, 5.0), 0)):
        conv_act(cpath, act, zp, bounds, attrs=act == "Clip-6")
        doc = json.loads(run(exe, ["plan", cpath, "--json", "--fuse-qdq"]).stdout)
        owners = {v["name"]: v["owner"] for v in doc["values"]}
        got = (doc["qdq_units"], doc["qdq_fused"], owners.get("r"), owners.get("rq"), doc["peak_bytes"])
        want = (units, units, "c" if units else "r", "c" if units else "rq", 20480 if units else 41984)
        check(got == want, f"Conv -> {act} {bounds or ''} -> QuantizeLinear, zero point {zp}: {got}, expected {want}")

    # --inplace: a fused op reads and writes quantized tensors, so its output never takes an
    # input's buffer (here x, float and made for the Relu, whose last reader is the Add)
    nodes = [helper.make_node("QuantizeLinear", ["X", "s", "z"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["x"]),
             helper.make_node("Relu", ["x"], ["R"]),
             helper.make_node("DequantizeLinear", ["b", "s", "z"], ["bd"]),
             helper.make_node("Add", ["x", "bd"], ["a"]),
             helper.make_node("QuantizeLinear", ["a", "s", "z"], ["aq"]),
             helper.make_node("DequantizeLinear", ["aq", "s", "z"], ["Y"])]
    g = helper.make_graph(nodes, "qdq_inplace", [vi("X", T.FLOAT, [1, 16, 16, 16])],
                          [vi("R", T.FLOAT, None), vi("Y", T.FLOAT, None)],
                          [nh.from_array(np.array(0.05, dtype=np.float32), "s"),
                           nh.from_array(np.array(0, dtype=np.uint8), "z"),
                           nh.from_array(np.ones((1, 16, 16, 16), dtype=np.uint8), "b")])
    ipath = os.path.join(d, "qdq_inplace.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), ipath)
    doc = json.loads(run(exe, ["plan", ipath, "--json", "--fuse-qdq", "--inplace"]).stdout)
    owners = {v["name"]: v["owner"] for v in doc["values"]}
    # R and Y (16 KiB float each) with a (4 KiB uint8) at the last DequantizeLinear
    check((doc["qdq_fused"], owners["a"], owners["aq"], doc["peak_bytes"]) == (1, "a", "a", 36864),
          f"--fuse-qdq --inplace: the fused Add keeps its own 4 KiB buffer "
          f"({doc['qdq_fused']}, {owners['a']}, {owners['aq']}, {doc['peak_bytes']})")

    def branch(name, out_is_q):
        """xq -> DQ -> Conv(w) -> Q -> [DQ ->] the branch's output"""
        nodes = [helper.make_node("DequantizeLinear", ["xq", "s", "z"], [f"{name}_x"]),
                 helper.make_node("DequantizeLinear", ["w", "s", "zw"], [f"{name}_wf"]),
                 helper.make_node("Conv", [f"{name}_x", f"{name}_wf"], [f"{name}_c"], pads=[1, 1, 1, 1]),
                 helper.make_node("QuantizeLinear", [f"{name}_c", "s", "z"], [f"{name}_cq"])]
        if not out_is_q:
            nodes.append(helper.make_node("DequantizeLinear", [f"{name}_cq", "s", "z"], [f"{name}_y"]))
        out = f"{name}_cq" if out_is_q else f"{name}_y"
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, T.UINT8 if out_is_q else T.FLOAT,
                                                                                 [1, 16, 32, 32])])

    inits = [nh.from_array(np.array(0.05, dtype=np.float32), "s"), nh.from_array(np.array(0, dtype=np.uint8), "z"),
             nh.from_array(np.array(0, dtype=np.int8), "zw"), nh.from_array(np.ones((16, 3, 3, 3), dtype=np.int8), "w")]
    nodes = [helper.make_node("QuantizeLinear", ["X", "s", "z"], ["xq"]),
             helper.make_node("If", ["cond"], ["Y"], then_branch=branch("then", False), else_branch=branch("else", True))]
    g = helper.make_graph(nodes, "qdq_if", [helper.make_tensor_value_info("X", T.FLOAT, [1, 3, 32, 32]),
                                             helper.make_tensor_value_info("cond", T.BOOL, [])],
                          [helper.make_tensor_value_info("Y", T.FLOAT, None)], inits)
    ifpath = os.path.join(d, "qdq_if.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), ifpath)
    # (units, fused, peak). As written: x (12 KiB float) + wf (1.7 KiB) + c (64 KiB float) at the
    # conv, c + cq (16 KiB) at the then branch's QuantizeLinear (the else branch's cq is the If's
    # output, not its buffer). Fused: the then branch's conv writes 16 KiB (its y is the If's
    # output); the else branch's unit is not fused, as its QuantizeLinear output is the If's: as
    # written
    for args, then_, else_ in (([], (1, 0, 81920), (1, 0, 79552)), (["--fuse-qdq"], (1, 1, 16384), (1, 0, 79552))):
        doc = json.loads(run(exe, ["plan", ifpath, "--json"] + args).stdout)
        got = {s["attribute"]: (s["plan"]["qdq_units"], s["plan"]["qdq_fused"], s["plan"]["peak_bytes"])
               for s in doc["subgraphs"]}
        check(got == {"then_branch": then_, "else_branch": else_}, f"If branches {args}: {got}")


def check_share_kv(exe, d):
    """14. --share-kv: present* outputs written into the past* inputs' buffers (ONNX Runtime
    GenAI's shared KV cache), so they leave the arena; no pair, or a present larger than its
    past, is a usage error."""
    import onnx
    from onnx import TensorProto as T, helper
    vi = helper.make_tensor_value_info
    cache = [1, 2, 8, 4]  # 256 B of float
    path = os.path.join(d, "kv.onnx")

    def save(present_node, present_shape):
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]), present_node], "kv",
                              [vi("x", T.FLOAT, [1, 4]), vi("past_key_values.0.key", T.FLOAT, cache)],
                              [vi("y", T.FLOAT, [1, 4]), vi("present.0.key", T.FLOAT, present_shape)])
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)

    save(helper.make_node("Neg", ["past_key_values.0.key"], ["present.0.key"]), cache)
    plain = json.loads(run(exe, ["plan", path, "--json"]).stdout)
    r = run(exe, ["plan", path, "--json", "--share-kv"])
    shared = json.loads(r.stdout) if r.returncode == 0 else {}
    # y 16 B -> 64 aligned, present 256 B: both live to the end; shared, present is past's buffer
    check(plain["peak_bytes"] == 320 and "share_kv" not in plain and shared.get("peak_bytes") == 64
          and shared.get("share_kv") == [{"output": "present.0.key", "input": "past_key_values.0.key"}]
          and shared.get("inputs", {}).get("bytes") == 272 and shared.get("total_bytes") == 272 + 64,
          f"plan --share-kv: present.0.key leaves the arena (peak 320 -> 64, total 336) "
          f"({ {k: shared.get(k) for k in ('peak_bytes', 'share_kv', 'inputs', 'total_bytes')} })")
    info = json.loads(run(exe, ["info", path, "--json"]).stdout)
    check(info["kv_cache"] == [{"output": "present.0.key", "input": "past_key_values.0.key"}]
          and "kv cache:          1 present output with a past input (plan --share-kv shares them)\n"
          in run(exe, ["info", path]).stdout, f"info: the pair --share-kv shares ({info['kv_cache']})")
    text = run(exe, ["plan", path, "--share-kv"]).stdout
    check("shared:            1 output written into inputs' buffers (--share-kv): present.0.key -> "
          "past_key_values.0.key\n" in text, f"plan --share-kv: the shared line ({text!r})")
    save(helper.make_node("Concat", ["past_key_values.0.key", "past_key_values.0.key"], ["present.0.key"], axis=2),
         [1, 2, 16, 4])
    r = run(exe, ["plan", path, "--share-kv"])
    check(r.returncode == 1 and "--share-kv: 'present.0.key' (512 B) does not fit in the buffer of "
          "'past_key_values.0.key' (256 B)" in r.stderr, f"--share-kv, present larger than past: why ({r.stderr!r})")
    # a present no node writes (a graph input passed through) has no buffer to share
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "kv",
                          [vi("x", T.FLOAT, [1, 4]), vi("past_key_values.0.key", T.FLOAT, cache),
                           vi("present.0.key", T.FLOAT, cache)],
                          [vi("y", T.FLOAT, [1, 4]), vi("present.0.key", T.FLOAT, cache)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    check(json.loads(run(exe, ["info", path, "--json"]).stdout)["kv_cache"] == [],
          "info: a present passed through is no pair")
    for model in (os.path.join(d, "inputs.onnx"), path):
        r = run(exe, ["plan", model, "--share-kv"])
        check(r.returncode == 1 and "--share-kv: no graph output named present... written by a node has a graph "
              "input named past_key_values... or past..." in r.stderr,
              f"--share-kv without a pair: why ({os.path.basename(model)}: {r.stderr!r})")


def check_inputs_and_total(exe, d):
    """12. weights, inputs and total: text lines and JSON, with and without --include-inputs."""
    path = os.path.join(d, "inputs.onnx")
    make_inputs_model(path)
    # r [0,1] 1024 B + e [1,1] 2048 B; with --include-inputs x [0,0] takes e's place before it.
    for extra, in_arena, total, line in [
            ([], False, 8 + 1024 + 3072, "4104 (4.01 KiB) = weights + inputs + peak"),
            (["--include-inputs"], True, 8 + 3072, "3080 (3.01 KiB) = weights + peak (the inputs are in the arena)")]:
        r = run(exe, ["plan", path, *extra, "--json"])
        doc = json.loads(r.stdout) if r.returncode == 0 else {}
        keys = list(doc)
        check(doc.get("peak_bytes") == 3072 and doc.get("weights") == {"bytes": 8, "count": 1, "unknown": 0,
                                                                       "folded": True, "load_only_bytes": 32,
                                                                       "load_only_count": 1}
              and doc.get("inputs") == {"bytes": 1024, "count": 1, "unknown": 0, "in_arena": in_arena}
              and doc.get("total_bytes") == total
              and doc.get("total_unknown_reason", "absent") is None
              and keys[keys.index("weights"):keys.index("weights") + 5] == ["weights", "inputs", "total_bytes",
                                                                           "total_unknown_reason", "transients"],
              f"plan {' '.join(extra)} --json: weights 8 (k, read by nothing, load-only: 32), inputs 1024 (in_arena {in_arena}), total {total} "
              f"({ {k: doc.get(k) for k in ('peak_bytes', 'weights', 'inputs', 'total_bytes')} })")
        r = run(exe, ["plan", path, *extra])
        where = "(in the arena: --include-inputs)" if in_arena else "(outside the arena)"
        want = ("weights:           8 B in 1 value kept once loaded (initializers and constants folded at load)\n"
                "load-only:         32 B in 1 value read or computed at load, then dropped\n"
                f"inputs:            1024 (1.00 KiB) in 1 value {where}\n"
                f"total:             {line}\n")
        check(r.returncode == 0 and r.stdout.endswith(want), f"plan {' '.join(extra)}: the weights, inputs and total "
              f"lines ({r.stdout[-300:]!r})")
    # nodes[].folded: the Constant is folded at load, Relu and Concat run; planned as an
    # activation, the Constant runs too.
    for extra, want in [([], [True, False, False]), (["--constants-as-activations"], [False, False, False])]:
        doc = json.loads(run(exe, ["plan", path, *extra, "--json"]).stdout)
        got = [(n["op_type"], n["folded"]) for n in doc["nodes"]]
        check(got == list(zip(["Constant", "Relu", "Concat"], want)), f"plan {' '.join(extra)} --json: nodes[].folded {got}")
    # The Constant planned as an activation: no load-only value left, and the line says "value".
    r = run(exe, ["plan", path, "--constants-as-activations"])
    check(r.returncode == 0 and "\nweights:           8 B in 1 value kept once loaded (initializers)\ninputs:" in r.stdout,
          f"plan --constants-as-activations: one weight, singular ({r.stdout[-300:]!r})")
    # A sequence: in no figure, named under the total.
    seq = os.path.join(d, "inputs_seq.onnx")
    make_inputs_model(seq, "sequence")
    r = run(exe, ["plan", seq])
    check(r.returncode == 0 and r.stdout.endswith(
        "total:             4104 (4.01 KiB) = weights + inputs + peak\n"
        "not counted:       1 value of no static size\n"
        "  s: sequence\n"), f"plan: a sequence output is named as not counted ({r.stdout[-250:]!r})")
    sym = os.path.join(d, "inputs_sym.onnx")
    make_inputs_model(sym, "symbolic")
    r = run(exe, ["plan", sym, "--json"])
    doc = json.loads(r.stdout)
    check(doc["status"] == "planned" and doc["inputs"] == {"bytes": 1024, "count": 1, "unknown": 1, "in_arena": False}
          and doc["total_bytes"] is None and doc["total_unknown_reason"] == "some graph inputs have no known size",
          f"an input of unknown size: planned, total null and why ({doc['inputs']}, {doc['total_bytes']}, "
          f"{doc.get('total_unknown_reason')!r})")
    r = run(exe, ["plan", sym])
    check(r.stdout.endswith("inputs:            1024 (1.00 KiB) in 1 value, and 1 of unknown size (outside the arena)\n"
                            "total:             unknown (some graph inputs have no known size)\n"),
          f"plan: an input of unknown size, the total unknown ({r.stdout[-200:]!r})")
    r = run(exe, ["plan", sym, "--dim", "n=3", "--json"])
    doc = json.loads(r.stdout)
    check(doc["inputs"] == {"bytes": 1036, "count": 2, "unknown": 0, "in_arena": False}
          and doc["total_bytes"] == 8 + 1036 + 3072, f"--dim n=3: inputs 1036, total 4116 ({doc['total_bytes']})")
    check(doc["notes"] == [], f"--dim n=3: no shape notes ({doc['notes']})")
    # A --dim no dim of the model takes: the shape inference's note, in plan's text and JSON too.
    doc = json.loads(run(exe, ["plan", sym, "--dim", "nn=3", "--dim", "n=3", "--json"]).stdout)
    check(doc["status"] == "planned" and doc["total_bytes"] == 8 + 1036 + 3072
          and doc["notes"] == ["no dim of the model is named 'nn': that binding changes nothing"]
          and list(doc)[-1] == "notes", f"--dim nn=3: planned, one note, the document's last key ({doc['notes']})")
    r = run(exe, ["plan", sym, "--dim", "nn=3"])
    check(r.returncode == 0 and r.stdout.endswith(
        "total:             unknown (some graph inputs have no known size)\n"
        "notes:             no dim of the model is named 'nn': that binding changes nothing\n"),
          f"plan --dim nn=3: the note after the total ({r.stdout[-250:]!r})")
    r = run(exe, ["plan", sym, "--include-inputs"])
    check(r.stdout.endswith("inputs:            1024 (1.00 KiB) in 1 value, and 1 of unknown size "
                            "(in the arena: --include-inputs)\ntotal:             unknown (the plan is deferred)\n"),
          f"--include-inputs, n unbound: deferred, the total unknown ({r.stdout[-200:]!r})")
    doc = json.loads(run(exe, ["plan", sym, "--include-inputs", "--json"]).stdout)
    check(doc["status"] == "deferred" and doc["peak_bytes"] is None and doc["total_bytes"] is None
          and doc["total_unknown_reason"] == "the plan is deferred",
          "--include-inputs --json, n unbound: deferred, total_bytes null, total_unknown_reason says so")


def main():
    exe, readme, fixtures = sys.argv[1], sys.argv[2], sys.argv[3]
    model = os.path.join(fixtures, "symbolic.onnx")
    tmp = tempfile.TemporaryDirectory(prefix="cli-check-")
    d = tmp.name

    # 1. --help, --version
    r = run(exe, ["--help"])
    check(r.returncode == 0 and r.stderr == "" and "exit codes: 0 ok, 1 usage error, 2 bad input" in r.stdout,
          "--help: stdout, exit 0")
    cmds, flags = synopsis(readme)
    check(cmds == {"info", "shapes", "plan", "sweep", "diff", "pack", "inplace", "profile", "tags", "annotate",
                   "reorder"},
          f"README synopsis commands parsed: {sorted(cmds)}")
    for c in sorted(cmds):
        check(re.search(r"^  %s " % c, r.stdout, re.M) is not None, f"--help lists '{c}'")
    for f in sorted(flags):
        check(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(f), r.stdout) is not None, f"--help lists '{f}'")
    r = run(exe, ["--version"])
    check(r.returncode == 0 and re.fullmatch(r"memplan \d+\.\d+\.\d+\n", r.stdout) is not None and r.stderr == "",
          f"--version prints 'memplan X.Y.Z': {r.stdout!r}")
    r = run(exe, [])
    check(r.returncode == 1 and r.stdout == "" and r.stderr.startswith("memplan -- "), "no arguments: usage on stderr, exit 1")
    for args in (["--help"], ["--version"], ["info", model], ["plan", model, "--json"]):
        with open("/dev/full", "w") as full:
            r = run(exe, args, stdout=full, stderr=subprocess.PIPE)
        check(r.returncode == 2 and r.stderr == "memplan: cannot write to standard output\n",
              f"{' '.join(args[:1])} to /dev/full: exit 2 with a message (exit {r.returncode}, {r.stderr!r})")
        r = run(exe, args, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
        check(r.returncode == 2 and "cannot write to standard output" in r.stderr,
              f"{' '.join(args[:1])} with stdout closed: exit 2 with a message (exit {r.returncode})")

    # 2. usage errors: exit 1, the problem on the first stderr line, nothing on stdout
    usage = [
        (["frobnicate"], "memplan: unknown command 'frobnicate'"),
        (["fr\x1b[2Job\nx"], "memplan: unknown command 'fr\\x1b[2Job\\x0ax'"),
        (["info"], "memplan info: no model given"),
        (["info", model, model], "memplan info: more than one model given"),
        (["info", model, "--bogus"], "memplan info: unknown option '--bogus'"),
        (["shapes", model, "--dim"], "memplan shapes: --dim takes NAME=VALUE"),
        (["shapes", model, "--dim", "batch"], "got 'batch'"),
        (["shapes", model, "--dim", "batch="], "got 'batch='"),
        (["shapes", model, "--dim", "=4"], "got '=4'"),
        (["shapes", model, "--dim", "batch=-1"], "got 'batch=-1'"),
        (["shapes", model, "--dim", "batch=99999999999999999999"], "got 'batch=99999999999999999999'"),
        (["profile", model, "--dim", "batch=9007199254740993"], "in [0, 2^53]"),
        (["plan", model, "--align", "0"], "memplan plan: --align takes a power of two between 1 and 2^30"),
        (["plan", model, "--align", "3"], "--align takes a power of two"),
        (["plan", model, "--align", "2147483648"], "--align takes a power of two"),
        (["plan", model, "--align"], "--align takes a power of two"),
        (["plan", model, "--budget-ms", "-1"], "memplan plan: --budget-ms takes milliseconds (0 to 600000)"),
        (["plan", model, "--budget-ms", "600001"], "--budget-ms takes milliseconds"),
        (["plan", model, "--strategy", "best"], "memplan plan: --strategy takes 'arena' or 'slots'"),
        (["plan", model, "--strategy"], "--strategy takes 'arena' or 'slots'"),
        (["plan", model, "--order", "fastest"], "memplan plan: --order takes best, file, greedy, dfs, postorder"),
        (["plan", model, "--order-budget-ms", "600001"], "memplan plan: --order-budget-ms takes milliseconds"),
        (["shapes", model, "--order", "best"], "memplan shapes: --order does not apply to shapes"),
        (["reorder", model], "memplan reorder: no output file given (-o OUT.onnx)"),
        (["reorder", model, "-o", os.path.join(d, "x.onnx"), "--inplace"], "memplan reorder: --inplace does not apply to reorder"),
        (["info", model, "-o", os.path.join(d, "x.onnx")], "memplan info: -o does not apply to info"),
        (["plan", model, "--output", os.path.join(d, "x.onnx")], "memplan plan: -o does not apply to plan"),
        # the first option the command does not take, in the order given
        (["info", model, "--strategy", "slots", "--dim", "batch=1"], "memplan info: --strategy does not apply to info"),
        (["shapes", model, "--events", "--dim", "batch=x"], "memplan shapes: --events does not apply to shapes"),
        (["info", model, "--dim", "batch=1"], "memplan info: --dim does not apply to info"),
        (["shapes", model, "--strategy", "slots"], "memplan shapes: --strategy does not apply to shapes"),
        (["plan", model, "--events"], "memplan plan: --events does not apply to plan"),
        (["tags", model, "--allow-input-overwrite"], "memplan tags: --allow-input-overwrite does not apply to tags"),
        (["inplace", model, "--dim", "batch=1"], "memplan inplace: --dim does not apply to inplace"),
        (["profile", model, "--budget-ms", "5"], "memplan profile: --budget-ms does not apply to profile"),
        (["annotate", model, "-o", os.path.join(d, "x.onnx"), "--inplace"], "memplan annotate: --inplace does not apply to annotate"),
        (["annotate", model], "memplan annotate: no output file given (-o OUT.onnx)"),
        (["annotate", model, "-o"], "memplan annotate: -o takes a file path"),
        (["annotate", model, "-o", model], "memplan annotate: the output file is the model itself"),
        (["annotate", model, "-o", os.path.join(fixtures, ".", "symbolic.onnx")], "the output file is the model itself"),
        (["pack"], "memplan pack: missing FILE.csv"),
        (["pack", "a.csv", "--align", "0"], "memplan pack: --align needs a power of two >= 1"),
        (["pack", "a.csv", "--budget-ms", "-1"], "memplan pack: --budget-ms needs milliseconds"),
        (["pack", "a.csv", "--seed", "-1"], "memplan pack: --seed needs a non-negative integer"),
        (["pack", "a.csv", "--dim", "a=1"], "memplan pack: unknown option '--dim'"),
    ]
    for args, want in usage:
        r = run(exe, args)
        first = r.stderr.splitlines()[0] if r.stderr else ""
        check(r.returncode == 1 and r.stdout == "" and want in first,
              f"{' '.join(args)!r}: exit 1, {want!r} (exit {r.returncode}, {first!r})")
    check(not os.path.exists(os.path.join(d, "x.onnx")), "a usage error writes no file")

    # 3. bad input: exit 2, "memplan[ CMD]: FILE: problem", nothing on stdout
    empty = os.path.join(d, "empty.onnx")
    open(empty, "wb").close()
    bad = [
        (["info", os.path.join(d, "missing.onnx")], "missing.onnx: No such file or directory"),
        (["shapes", d], f"{d}: Is a directory"),
        (["plan", empty], "empty.onnx: the file is empty: not an ONNX model"),
        (["inplace", "/dev/null"], "/dev/null: the file is empty: not an ONNX model"),
        (["annotate", "/dev/null", "-o", os.path.join(d, "out.onnx")], "/dev/null: the file is empty"),
        (["annotate", model, "-o", os.path.join(d, "no", "out.onnx")], "out.onnx: cannot write: No such file or directory"),
        (["pack", d], f"memplan pack: {d}: Is a directory"),
        (["pack", "/dev/null"], "memplan pack: /dev/null: line 1: missing header 'id,lower,upper,size'"),
        (["pack", os.path.join(d, "missing.csv")], "missing.csv: No such file or directory"),
    ]
    for args, want in bad:
        r = run(exe, args)
        check(r.returncode == 2 and r.stdout == "" and want in r.stderr and r.stderr.count("\n") == 1,
              f"{' '.join(args)!r}: exit 2, one line with {want!r} (exit {r.returncode}, {r.stderr!r})")
    check(sorted(os.listdir(d)) == ["empty.onnx"], "failed runs leave no file behind")
    if b"__asan_init" not in open(exe, "rb").read():
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))
        try:
            r = run(exe, ["pack", "/dev/zero"], preexec_fn=limit)
            check(r.returncode == 2 and "memplan pack: /dev/zero: out of memory" in r.stderr,
                  f"pack /dev/zero: out of memory, exit 2 (exit {r.returncode}, {r.stderr!r})")
        except subprocess.TimeoutExpired:
            check(False, "pack /dev/zero: still running after 60 s")
    else:
        print("skip pack /dev/zero (sanitizer build)")

    # 4. CSV ids in messages are escaped
    esc = os.path.join(d, "esc.csv")
    with open(esc, "w") as f:
        f.write("id,lower,upper,size\n\x1b]0;pwned\x07,0,2,8\n\x1b]0;pwned\x07,1,3,8\n")
    r = run(exe, ["pack", esc])
    check(r.returncode == 2 and "\x1b" not in r.stderr and
          r.stderr == f"memplan pack: {esc}: line 3: duplicate id '\\x1b]0;pwned\\x07' (first on line 2)\n",
          f"pack: a CSV id in a message is escaped ({r.stderr!r})")
    os.remove(esc)

    # 5. a reader that stops early
    big = os.path.join(d, "big.onnx")
    make_big_model(big, 3000)
    for args in (["shapes", big, "--json"], ["shapes", big], ["plan", big, "--json", "--dim", "batch=1"]):
        p = subprocess.Popen([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        head = p.stdout.read(10)
        p.stdout.close()
        try:
            p.wait(timeout=60)
            err = p.stderr.read().decode("utf-8", "replace")
            ok = p.returncode == -signal.SIGPIPE or (p.returncode == 2 and "cannot write" in err)
            check(ok and len(head) == 10, f"{args[0]} | head -c 10: ends by SIGPIPE or exit 2 (exit {p.returncode})")
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            check(False, f"{args[0]} | head -c 10: hangs")
        p.stderr.close()
    # 6. dims named as the user sees them
    odd = os.path.join(d, "odd.onnx")
    make_odd_dims_model(odd)
    r = run(exe, ["plan", odd])
    check(r.returncode == 0 and "unbound dims:      p2o.Dim.0, seq len\n" in r.stdout
          and "(bind them with --dim NAME=VALUE)" in r.stdout,
          f"deferred text plan names the unbound dims ({r.stdout!r})")
    r = run(exe, ["shapes", odd, "--json"])
    check(r.returncode == 0 and '"shape":["_0x70326f2e44696d2e30","_0x736571206c656e",8]' in r.stdout,
          "shapes prints the dims escaped")
    r = run(exe, ["shapes", odd])
    check(r.returncode == 0 and r.stdout.startswith('x: float[p2o.Dim.0,"seq len",8]  32*p2o.Dim.0*"seq len" bytes, '
                                                    'declared\n'),
          f"shapes text: the names as the model gives them, quoted where they would not read ({r.stdout[:90]!r})")
    raw = run(exe, ["plan", odd, "--json", "--dim", "p2o.Dim.0=2", "--dim", "seq len=3"])
    esc = run(exe, ["plan", odd, "--json", "--dim", "_0x70326f2e44696d2e30=2", "--dim", "_0x736571206C656E=3"])
    check(raw.returncode == 0 and '"status":"planned"' in raw.stdout and '"peak_bytes":384' in raw.stdout
          and esc.stdout == raw.stdout, f"escaped dim names bind like raw ones ({esc.stdout[:80]!r})")
    # 7. a model from a named pipe: opened once (closing the read end and
    # opening it again would kill the writer and wait forever for another)
    import threading
    fifo = os.path.join(d, "model.fifo")
    os.mkfifo(fifo)
    data = open(big, "rb").read()

    def feed():
        try:
            with open(fifo, "wb") as w:
                w.write(data)
        except OSError:
            pass
    from_fifo, from_file = os.path.join(d, "from_fifo.onnx"), os.path.join(d, "from_file.onnx")
    for args in (["info", fifo, "--json"], ["annotate", fifo, "-o", from_fifo]):
        want = run(exe, [{fifo: big, from_fifo: from_file}.get(a, a) for a in args])
        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        try:
            r = subprocess.run([exe] + args, capture_output=True, text=True, timeout=30)
            ok = r.returncode == 0 and r.stdout == want.stdout and r.stderr == ""
            check(ok, f"{args[0]} on a named pipe: as on the file (exit {r.returncode}, {r.stderr.strip()!r})")
        except subprocess.TimeoutExpired:
            check(False, f"{args[0]} on a named pipe: hangs")
            try:  # unblock the writer (if it waits for a reader) so the thread ends
                os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
            except OSError:
                pass
        writer.join(5)
    check(os.path.exists(from_fifo) and open(from_fifo, "rb").read() == open(from_file, "rb").read(),
          "annotate on a named pipe: the same bytes as on the file")

    # 8. pipes and devices: read to a limit
    lim = dict(os.environ, MEMPLAN_STREAM_LIMIT_MB="1")
    hint = " (a pipe or device is read into memory: save it to a file)"
    r = run(exe, ["info", "/dev/zero"], env=lim)
    check(r.returncode == 2 and r.stdout == "" and
          r.stderr == f"memplan: /dev/zero: the model is larger than 1 MB{hint}\n",
          f"info /dev/zero: stops at the limit ({r.stderr!r})")
    r = run(exe, ["pack", "/dev/zero"], env=lim)
    check(r.returncode == 2 and r.stderr == "memplan pack: /dev/zero: the file is larger than 1 MB\n",
          f"pack /dev/zero: stops at the limit ({r.stderr!r})")
    heavy = os.path.join(d, "heavy.onnx")
    make_weighty_model(heavy, 3 << 20)
    big_bytes = open(heavy, "rb").read()
    check(len(big_bytes) > 3 << 20, f"the piped model is over 3 MB ({len(big_bytes)} bytes)")
    r = subprocess.run([exe, "info", "/dev/stdin"], input=big_bytes, capture_output=True, timeout=60, env=lim)
    check(r.returncode == 2 and r.stderr.decode() == f"memplan: /dev/stdin: the model is larger than 1 MB{hint}\n",
          f"a model piped past the limit: refused ({r.stderr!r})")
    want = run(exe, ["info", heavy, "--json"]).stdout
    r = subprocess.run([exe, "info", "/dev/stdin", "--json"], input=big_bytes, capture_output=True, timeout=60,
                       env=dict(os.environ, MEMPLAN_STREAM_LIMIT_MB="8"))
    check(r.returncode == 0 and r.stdout.decode() == want, "a model piped under the limit: read whole")
    for bad_limit in ("0", "x", "-1", "99999999999999999999"):
        r = subprocess.run([exe, "info", "/dev/stdin", "--json"], input=big_bytes, capture_output=True, timeout=60,
                           env=dict(os.environ, MEMPLAN_STREAM_LIMIT_MB=bad_limit))
        check(r.returncode == 0 and r.stdout.decode() == want, f"MEMPLAN_STREAM_LIMIT_MB={bad_limit}: the default")

    # 9. control characters in paths and arguments are escaped in messages
    ctl = os.path.join(d, "ctl\ndir\t\x1b[2J")
    os.mkdir(ctl)
    shown = ctl.replace("\n", "\\x0a").replace("\t", "\\x09").replace("\x1b", "\\x1b")
    garbage = os.path.join(ctl, "bad.onnx")
    with open(garbage, "wb") as f:
        f.write(b"\xff\xff\xff garbage")
    csv = os.path.join(ctl, "bad.csv")
    with open(csv, "w") as f:
        f.write("nonsense\n")
    cases = [
        (["info", os.path.join(ctl, "missing.onnx")], 2, f"memplan: {shown}/missing.onnx: No such file or directory"),
        (["plan", ctl], 2, f"memplan: {shown}: Is a directory"),
        (["annotate", model, "-o", os.path.join(ctl, "no", "out.onnx")], 2,
         f"memplan: {shown}/no/out.onnx: cannot write: No such file or directory"),
        (["annotate", model, "-o", ctl], 2, f"memplan: {shown}: cannot write: Is a directory"),
        (["pack", os.path.join(ctl, "missing.csv")], 2,
         f"memplan pack: {shown}/missing.csv: No such file or directory"),
        (["pack", csv], 2, f"memplan pack: {shown}/bad.csv: line 1: expected the header 'id,lower,upper,size'"),
        (["pack", ctl], 2, f"memplan pack: {shown}: Is a directory"),
        (["pack", "a\n.csv", "b\t.csv"], 1, "memplan pack: only one FILE.csv, got 'a\\x0a.csv' and 'b\\x09.csv'"),
        (["info", model, "--\x1b[31m"], 1, "memplan info: unknown option '--\\x1b[31m'"),
        (["shapes", model, "--dim", "a\nb"], 1, "got 'a\\x0ab'"),
    ]
    for args, code, want in cases:
        r = run(exe, args)
        first = r.stderr.split("\n")[0]
        ok = r.returncode == code and want in first and "\x1b" not in r.stderr and "\t" not in r.stderr
        if code == 2:
            ok = ok and r.stderr == first + "\n"
        check(ok, f"{args[0]} {args[1]!r}...: the message escapes it, one line ({r.stderr!r})")
    r = run(exe, ["info", garbage])
    check(r.returncode == 2 and r.stderr.startswith(f"memplan: {shown}/bad.onnx: ") and r.stderr.count("\n") == 1
          and "\x1b" not in r.stderr, f"a model that does not load, in such a folder: escaped ({r.stderr!r})")
    # 10. --no-at-peak leaves out at_peak (JSON) and the "at the peak" list (text), nothing else
    dims = ["--dim", "batch=2", "--dim", "seq=3", "--dim", "U:0=4"]
    full = json.loads(run(exe, ["plan", model, *dims, "--json"]).stdout)
    r = run(exe, ["plan", model, *dims, "--json", "--no-at-peak"])
    brief = json.loads(r.stdout)
    check(r.returncode == 0 and "at_peak" in full and "at_peak" not in brief
          and {k: v for k, v in full.items() if k != "at_peak"} == brief,
          "plan --json --no-at-peak: the plan without at_peak")
    text = run(exe, ["plan", model, *dims]).stdout
    r = run(exe, ["plan", model, *dims, "--no-at-peak"])
    head, _, rest = text.partition("at the peak:")
    kept = head + rest[rest.find("weights:"):]  # the list runs from "at the peak:" to the weights line
    check(r.returncode == 0 and "at the peak:" in text and r.stdout == kept,
          f"plan --no-at-peak: the text plan without its at-the-peak list ({r.stdout!r})")

    # 11. --columns: the same reuse pairs and profile amounts as the full JSON, as columns
    cases = [("symbolic.onnx", []), ("symbolic.onnx", dims), ("if_capture.onnx", []), ("loop_scan.onnx", []),
             ("views.onnx", ["--allow-input-overwrite"]), ("residual.onnx", [])]
    for name, extra in cases:
        path = os.path.join(fixtures, name)
        for cmd in ("inplace", "profile"):
            if cmd == "inplace" and any(a.startswith("--dim") for a in extra):
                continue
            full = json.loads(run(exe, [cmd, path, *extra, "--json"]).stdout)
            r = run(exe, [cmd, path, *extra, "--json", "--columns"])
            got = json.loads(r.stdout) if r.returncode == 0 else None
            want = {"allow_input_overwrite": full["allow_input_overwrite"], "columns": True, **columns_of(full)}
            check(got == want, f"{cmd} {name} {' '.join(extra)} --json --columns: the full JSON's columns ({r.stdout[:300]!r})")
    r = run(exe, ["profile", model, "--columns"])
    check(r.returncode == 1 and r.stdout == "" and "--columns changes the JSON only: add --json" in r.stderr,
          f"profile --columns without --json: a usage error ({r.stderr!r})")
    r = run(exe, ["tags", model, "--json", "--columns"])
    check(r.returncode == 1 and "--columns" in r.stderr, f"tags takes no --columns ({r.stderr!r})")

    check_inputs_and_total(exe, d)
    check_function_calls(exe, d)
    check_share_kv(exe, d)
    check_qdq_units(exe, d)
    check_qdq_types(exe, d)

    print(f"cli_check: {len(FAILS)} failed")
    return 1 if FAILS else 0


def columns_of(doc):
    """A graph's document (inplace/profile --json) as --columns writes it: reuse pairs and
    profile amounts as columns (a column per bucket and tag non-zero somewhere, 0 elsewhere)."""
    nodes = doc["nodes"]
    tags = ["", "ambiguous", "axes", "shape", "weight"]  # the JSON's key order: sorted
    profile = {}
    for b in ("inputs", "initializers", "intermediates", "outputs"):
        profile[b] = {t: [n["profile"][b].get(t, 0) for n in nodes]
                      for t in tags if any(t in n["profile"][b] for n in nodes)}
    out = {"tags_known": doc["tags_known"],
           "nodes": {"count": len(nodes),
                     "reuse": [[n["index"], r["output_index"], r["input_index"], r["kind"]]
                               for n in nodes for r in n["reuse"]],
                     "profile": profile}}
    subs = []
    for e in doc["subgraphs"]:
        sub = {k: e[k] for k in ("node", "name", "op_type", "attribute")}
        sub.update(columns_of(e))
        subs.append(sub)
    out["subgraphs"] = subs
    return out


if __name__ == "__main__":
    sys.exit(main())
