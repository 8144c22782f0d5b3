#!/usr/bin/python3
"""gen_hard_fixtures.py OUTDIR -- models for the hardening suite (malformed.cmake,
wasm-tests/malformed.test.js), written into OUTDIR (build/fixtures/hard).

Separate from scripts/gen_fixtures.py. Deterministic, encoded by hand (field
numbers of src/onnx/onnx.proto) so that invalid structures can be written too.
OUTDIR/EXPECT.json maps every file to {"ok": true} (loads and plans) or
{"ok": false, "message": "<fragment of the error message>"}. Never committed.

  identity_chain_10000   X -> Relu -> a0 -> 10,000 Identity -> Y (views 10,000 deep)
  relu_chain_10000_rev   10,000 Relu in a chain, stored last node first (Kahn's sort)
  outputs_twice          graph output Y listed twice
  type_conflict          value_info says a is int64[7], the graph output a says float[2,3]
  sequence_nesting_95    input type: sequence nested 95 deep (wire depth 193)
  wire_nesting_150       sequence nested 150 deep: wire depth over 200
  graph_nesting_33       If nested 33 deep (each then_branch holds the next)
  if_missing_branch      If with then_branch only
  cycle / dangling / duplicate_output
  wrong_wire_type        ModelProto.graph written as a varint
  rank_1024 / rank_1025  an input of rank 1024 (ok) / 1025
  tensor_rank_1025       an initializer with 1025 dims
  dim_2p53 / dim_2p53_plus_1 / dim_negative
  name_65536 / name_65537 value names of that many bytes
  many_opsets            100,000 opset_import entries, distinct domains
  many_op_types          50,000 nodes, each of its own op type
  many_dim_params        20,000 outputs each with its own dim name (deferred plan)
  many_captures          an If whose branch reads 20,000 outer values
  many_empty_inputs      one node with 1,000,000 empty input slots
"""
import json
import os
import sys


def varint(n):
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wt):
    return varint(field << 3 | wt)


def f_varint(field, n):
    return key(field, 0) + varint(n)


def f_bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return key(field, 2) + varint(len(data)) + data


def dim(d):
    return f_bytes(1, f_varint(1, d) if isinstance(d, int) else f_bytes(2, d))


def tensor_type(elem, shape):
    body = f_varint(1, elem)
    if shape is not None:
        body += f_bytes(2, b"".join(dim(d) for d in shape))
    return f_bytes(1, body)  # TypeProto.tensor_type = 1


def value_info(name, elem=1, shape=(2, 3), type_bytes=None):
    t = type_bytes if type_bytes is not None else tensor_type(elem, shape)
    return f_bytes(1, name) + f_bytes(2, t)


def node(op, inputs, outputs, name="", attrs=b"", domain=None):
    b = b"".join(f_bytes(1, i) for i in inputs) + b"".join(f_bytes(2, o) for o in outputs)
    if name:
        b += f_bytes(3, name)
    b += f_bytes(4, op)
    b += attrs
    if domain is not None:
        b += f_bytes(7, domain)
    return b


def graph_attr(name, graph_body):
    # AttributeProto: name 1, g 6, type 20 (GRAPH = 5)
    return f_bytes(5, f_bytes(1, name) + f_bytes(6, graph_body) + f_varint(20, 5))


def graph(nodes, inputs, outputs, name="g", inits=b"", vinfo=()):
    b = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, name) + inits
    b += b"".join(f_bytes(11, v) for v in inputs) + b"".join(f_bytes(12, v) for v in outputs)
    b += b"".join(f_bytes(13, v) for v in vinfo)
    return b


def model(graph_body, opsets=None, extra=b""):
    ops = opsets if opsets is not None else f_bytes(8, f_bytes(1, "") + f_varint(2, 17))
    return f_varint(1, 8) + f_bytes(2, "memplan-hard") + f_bytes(7, graph_body) + ops + extra


def initializer(name, dims, elem=1):
    return f_bytes(5, b"".join(f_varint(1, d) for d in dims) + f_varint(2, elem) + f_bytes(8, name))


def seq_type(depth):
    t = tensor_type(1, (2,))
    for _ in range(depth):
        t = f_bytes(4, f_bytes(1, t))  # TypeProto.sequence_type = 4, Sequence.elem_type = 1
    return t


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    expect = {}

    def write(name, data, ok=True, message=None):
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data)
        expect[name + ".onnx"] = {"ok": ok} if ok else {"ok": False, "message": message}

    X = value_info("X", 1, (1, 4))
    Y = value_info("Y", 1, (1, 4))

    n = 10000
    nodes = [node("Relu", ["X"], ["a0"])] + [node("Identity", ["a%d" % i], ["a%d" % (i + 1)]) for i in range(n - 1)]
    nodes.append(node("Identity", ["a%d" % (n - 1)], ["Y"]))
    write("identity_chain_10000", model(graph(nodes, [X], [Y], vinfo=[value_info("a0", 1, (1, 4))])))

    nodes = [node("Relu", ["X" if i == 0 else "r%d" % (i - 1)], ["r%d" % i if i < n - 1 else "Y"]) for i in range(n)]
    write("relu_chain_10000_rev", model(graph(list(reversed(nodes)), [X], [Y],
                                              vinfo=[value_info("r%d" % i, 1, (1, 4)) for i in range(n - 1)])))

    write("outputs_twice", model(graph([node("Relu", ["X"], ["Y"])], [X], [Y, Y])))
    write("type_conflict", model(graph([node("Relu", ["X"], ["a"]), node("Abs", ["a"], ["Y"])], [X],
                                       [Y, value_info("a", 1, (2, 3))], vinfo=[value_info("a", 7, (7,))])))

    write("sequence_nesting_95", model(graph([node("Identity", ["S"], ["T"])],
                                             [value_info("S", type_bytes=seq_type(95))],
                                             [value_info("T", type_bytes=seq_type(95))])))
    write("wire_nesting_150", model(graph([node("Identity", ["S"], ["T"])],
                                          [value_info("S", type_bytes=seq_type(150))], [value_info("T")])),
          False, "messages nested deeper than 200 levels")

    inner = graph([node("Identity", ["X"], ["o"])], [], [value_info("o", 1, (1, 4))], name="leaf")
    for d in range(33):
        inner = graph([node("If", ["c"], ["o"], attrs=graph_attr("then_branch", inner) + graph_attr("else_branch", inner[:0] or graph([node("Identity", ["X"], ["o"])], [], [value_info("o", 1, (1, 4))])))],
                      [], [value_info("o", 1, (1, 4))], name="level%d" % d)
    # the outermost level gets the inputs
    top = graph([node("If", ["c"], ["Y"], attrs=graph_attr("then_branch", inner) +
                      graph_attr("else_branch", graph([node("Identity", ["X"], ["o"])], [], [value_info("o", 1, (1, 4))])))],
                [X, value_info("c", 9, ())], [Y])
    write("graph_nesting_33", model(top), False, "subgraphs nested deeper than 32 levels")

    then_g = graph([node("Identity", ["X"], ["o"])], [], [value_info("o", 1, (1, 4))], name="then")
    write("if_missing_branch", model(graph([node("If", ["c"], ["Y"], name="branchy", attrs=graph_attr("then_branch", then_g))],
                                           [X, value_info("c", 9, ())], [Y])),
          False, "node 'branchy' (If) has no 'else_branch' graph")
    write("cycle", model(graph([node("Add", ["X", "q"], ["p"], name="A"), node("Relu", ["p"], ["q"], name="B"),
                                node("Abs", ["p"], ["Y"])], [X], [Y])),
          False, "has a cycle through value")
    write("dangling", model(graph([node("Add", ["X", "ghost"], ["Y"], name="adder")], [X], [Y])),
          False, "node 'adder' (Add) reads 'ghost', which nothing defines")
    write("duplicate_output", model(graph([node("Split", ["X"], ["a", "a"], name="splitter"), node("Relu", ["a"], ["Y"])],
                                          [X], [Y])),
          False, "value 'a' is defined twice")
    write("wrong_wire_type", f_varint(1, 8) + f_varint(7, 1),
          False, "field onnx.ModelProto.graph (7) has wire type 0, expected 2")

    write("rank_1024", model(graph([node("Relu", ["R"], ["Y"])], [value_info("R", 1, [1] * 1024)], [Y])))
    write("rank_1025", model(graph([node("Relu", ["R"], ["Y"])], [value_info("R", 1, [1] * 1025)], [Y])),
          False, "'R': rank 1025 exceeds 1024")
    write("tensor_rank_1025", model(graph([node("Relu", ["W"], ["Y"])], [], [Y], inits=initializer("W", [1] * 1025))),
          False, "tensor 'W': rank 1025 exceeds 1024")
    write("dim_2p53", model(graph([node("Relu", ["D"], ["Y"])], [value_info("D", 1, (1 << 53,))], [Y])))
    write("dim_2p53_plus_1", model(graph([node("Relu", ["D"], ["Y"])], [value_info("D", 1, ((1 << 53) + 1,))], [Y])),
          False, "'D': dim 0 is 9007199254740993, outside [0, 2^53]")
    write("dim_negative", model(graph([node("Relu", ["D"], ["Y"])], [value_info("D", 1, (2, -1))], [Y])),
          False, "'D': dim 1 is -1, outside [0, 2^53]")
    long_ok, long_bad = "n" * 65536, "n" * 65537
    write("name_65536", model(graph([node("Relu", ["X"], [long_ok]), node("Relu", [long_ok], ["Y"])], [X], [Y])))
    write("name_65537", model(graph([node("Relu", ["X"], [long_bad]), node("Relu", [long_bad], ["Y"])], [X], [Y])),
          False, "a value name is longer than 65536 bytes")

    ops = b"".join(f_bytes(8, f_bytes(1, "d%d" % i) + f_varint(2, i % 30)) for i in range(100000))
    write("many_opsets", model(graph([node("Relu", ["X"], ["Y"])], [X], [Y]), opsets=ops))
    k = 50000
    nodes = [node("Op%d" % i, ["X" if i == 0 else "m%d" % (i - 1)], ["m%d" % i if i < k - 1 else "Y"], domain="x")
             for i in range(k)]
    write("many_op_types", model(graph(nodes, [X], [Y])))
    k = 20000
    outs = ["s%d" % i for i in range(k)]
    write("many_dim_params", model(graph([node("Split", ["X"], outs), node("Relu", ["s0"], ["Y"])], [X], [Y],
                                         vinfo=[value_info(o, 1, ("p%d" % i, 4)) for i, o in enumerate(outs)])))
    k = 20000
    outer = [node("Relu", ["X"], ["c%d" % i]) for i in range(k)]
    branch = graph([node("Sum", ["c%d" % i for i in range(k)], ["o"])], [], [value_info("o", 1, (1, 4))], name="reads_all")
    other = graph([node("Identity", ["X"], ["o"])], [], [value_info("o", 1, (1, 4))], name="other")
    write("many_captures", model(graph(outer + [node("If", ["cond"], ["Y"], attrs=graph_attr("then_branch", branch) +
                                                     graph_attr("else_branch", other))],
                                       [X, value_info("cond", 9, ())], [Y])))
    write("many_empty_inputs", model(graph([node("Sum", ["X"] + [""] * 1000000, ["Y"])], [X], [Y])))
    # Terminal escape sequences in names (retitle the window, clear the screen):
    # the CLI's text output and error messages must show them escaped.
    esc = "\x1b]0;pwned\x07\x1b[2J\u009b"
    write("terminal_escape", model(graph([node("Relu", ["X"], [esc]), node("Identity", [esc], ["Y"])], [X], [Y])))
    write("terminal_escape_error", model(graph([node("Relu", [esc], ["Y"])], [X], [Y])), ok=False,
          message="which nothing defines")

    with open(os.path.join(out, "EXPECT.json"), "w") as f:
        json.dump(expect, f, indent=1, sort_keys=True)
    print("gen_hard_fixtures: %d files in %s" % (len(expect), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
