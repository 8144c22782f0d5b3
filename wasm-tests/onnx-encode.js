// onnx-encode.js -- a tiny hand-rolled ONNX (protobuf) encoder for test models
// whose strings need to be hostile or odd (markup, non-UTF-8, long names).
// Field numbers are those of onnx.proto.
const te = new TextEncoder();

export function varint(n) {
  const out = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}
const bytesOf = (x) => (typeof x === 'string' ? te.encode(x) : x);
export const fieldVarint = (f, n) => [...varint((f << 3) | 0), ...varint(n)];
export const fieldBytes = (f, data) => {
  const b = bytesOf(data);
  return [...varint((f << 3) | 2), ...varint(b.length), ...b];
};

export function valueInfo(v) {
  const dims = (v.shape || []).map((d) =>
    fieldBytes(1, Uint8Array.from(typeof d === 'number' ? fieldVarint(1, d) : fieldBytes(2, d))),
  );
  const shape = fieldBytes(2, Uint8Array.from(dims.flat()));
  const tensor = fieldBytes(1, Uint8Array.from([...fieldVarint(1, v.elemType ?? 1), ...shape]));
  return Uint8Array.from([...fieldBytes(1, v.name), ...fieldBytes(2, Uint8Array.from(tensor))]);
}

// A GraphProto: nodes (with graph attributes: an If's branches, a Loop's
// body), name, inputs, outputs. Pushes onto `out` (no spread of large arrays).
function encodeGraph(g, name) {
  const out = [];
  const push = (bytes) => {
    for (const b of bytes) out.push(b);
  };
  for (const n of g.nodes) {
    const node = [
      ...(n.inputs || []).flatMap((s) => fieldBytes(1, s)),
      ...(n.outputs || []).flatMap((s) => fieldBytes(2, s)),
      ...fieldBytes(3, n.name ?? ''),
      ...fieldBytes(4, n.opType),
    ];
    for (const a of n.attributes || []) {
      // AttributeProto: name 1, i 3, g 6, ints 8, type 20 (INT = 2, GRAPH = 5, INTS = 7)
      const attr = [...fieldBytes(1, a.name)];
      const add = (bytes) => {
        for (const b of bytes) attr.push(b);
      };
      if (a.graph) add([...fieldBytes(6, encodeGraph(a.graph, a.graph.graphName ?? a.name)), ...fieldVarint(20, 5)]);
      else if (Array.isArray(a.ints)) add([...a.ints.flatMap((k) => fieldVarint(8, k)), ...fieldVarint(20, 7)]);
      else add([...fieldVarint(3, a.i), ...fieldVarint(20, 2)]);
      for (const b of fieldBytes(5, Uint8Array.from(attr))) node.push(b); // no spread: a body may be MBs
    }
    push(fieldBytes(1, Uint8Array.from(node)));
  }
  push(fieldBytes(2, name));
  // TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian bytes)
  for (const t of g.initializers || [])
    push(
      fieldBytes(
        5,
        Uint8Array.from([
          ...t.dims.flatMap((d) => fieldVarint(1, d)),
          ...fieldVarint(2, t.elemType),
          ...fieldBytes(8, t.name),
          ...fieldBytes(9, t.raw),
        ]),
      ),
    );
  for (const v of g.inputs) push(fieldBytes(11, valueInfo(v)));
  for (const v of g.outputs) push(fieldBytes(12, valueInfo(v)));
  return Uint8Array.from(out);
}

/**
 * encodeModel({producer, opset, nodes: [{opType, name, inputs, outputs, attributes?: [{name, graph | ints | i}]}],
 *              inputs: [{name, elemType, shape}], outputs, initializers?: [{name, elemType, dims, raw}]})
 * A graph attribute's graph is {graphName?, nodes, inputs, outputs} like the model's; an
 * attribute with `ints` is a list of integers, with `i` one. An initializer's `raw` is its data
 * (Uint8Array, little-endian).
 * Strings may be JS strings (UTF-8 encoded) or Uint8Array (raw bytes, e.g. invalid UTF-8).
 */
export function encodeModel(m) {
  const graph = encodeGraph(m, m.graphName ?? 'g');
  const model = [
    ...fieldVarint(1, m.irVersion ?? 8),
    ...fieldBytes(2, m.producer ?? 'memplan-tests'),
    ...fieldBytes(7, Uint8Array.from(graph)),
    ...fieldBytes(8, Uint8Array.from([...fieldBytes(1, ''), ...fieldVarint(2, m.opset ?? 17)])),
  ];
  return Uint8Array.from(model);
}

/** A valid model whose names, op types and producer are HTML/JS markup. */
export function hostileModel() {
  const x = '<img src=x onerror="window.__pwned=1">';
  const y = '</td><script>window.__pwned=2</script>';
  return encodeModel({
    producer: '<b>producer</b>&amp;',
    nodes: [{ opType: 'Relu', name: '<i>n</i>', inputs: [x], outputs: [y] }],
    inputs: [{ name: x, elemType: 1, shape: [1, '<N>'] }],
    outputs: [{ name: y, elemType: 1, shape: [1, '<N>'] }],
  });
}
export const HOSTILE_INPUT = '<img src=x onerror="window.__pwned=1">';

/**
 * A QDQ conv, as ONNX Runtime's quantizer writes it: xq (uint8) -> DequantizeLinear -> Conv
 * (weight wq (int8) -> DequantizeLinear) -> QuantizeLinear -> cq; one QDQ unit (memplan/qdq.h).
 * With `relu` a Relu takes the Conv's place: no unit. The quantized tensors, scale and zero
 * points are graph inputs (no initializer data).
 */
export function qdqConvModel(relu = false, int8 = false) {
  const FLOAT = 1,
    UINT8 = 2,
    INT8 = 3;
  const op = relu
    ? { opType: 'Relu', name: 'relu', inputs: ['x'], outputs: ['c'] }
    : { opType: 'Conv', name: 'conv', inputs: ['x', 'w'], outputs: ['c'] };
  return encodeModel({
    opset: 13,
    nodes: [
      { opType: 'DequantizeLinear', name: 'dq_x', inputs: ['xq', 's', 'z'], outputs: ['x'] },
      { opType: 'DequantizeLinear', name: 'dq_w', inputs: ['wq', 's', 'zw'], outputs: ['w'] },
      op,
      { opType: 'QuantizeLinear', name: 'q', inputs: ['c', 's', 'z'], outputs: ['cq'] },
    ],
    inputs: [
      { name: 'xq', elemType: int8 ? INT8 : UINT8, shape: [1, 3, 8, 8] },
      { name: 's', elemType: FLOAT, shape: [] },
      { name: 'z', elemType: int8 ? INT8 : UINT8, shape: [] },
      { name: 'wq', elemType: INT8, shape: [4, 3, 3, 3] },
      { name: 'zw', elemType: INT8, shape: [] },
    ],
    outputs: [{ name: 'cq', elemType: int8 ? INT8 : UINT8, shape: relu ? [1, 3, 8, 8] : [1, 4, 6, 6] }],
  });
}

/**
 * A float Conv and a Relu: x [1, 3, 16, 16] (float) -> Conv (weight w [8, 3, 3, 3], a graph input:
 * no initializer data) -> c [1, 8, 14, 14] -> Relu -> y. ONNX Runtime's CPU Conv takes a working
 * buffer (its im2col) while it runs: the node's kernel workspace (plan --workspace).
 */
export function convModel() {
  const FLOAT = 1;
  return encodeModel({
    opset: 13,
    nodes: [
      { opType: 'Conv', name: 'conv', inputs: ['x', 'w'], outputs: ['c'] },
      { opType: 'Relu', name: 'relu', inputs: ['c'], outputs: ['y'] },
    ],
    inputs: [
      { name: 'x', elemType: FLOAT, shape: [1, 3, 16, 16] },
      { name: 'w', elemType: FLOAT, shape: [8, 3, 3, 3] },
    ],
    outputs: [{ name: 'y', elemType: FLOAT, shape: [1, 8, 14, 14] }],
  });
}

/**
 * A float16 model (opset 13): x [1, 8, 16, 16] -> Conv (weight w [8, 8, 3, 3] float16, an
 * initializer; pads 1) -> c -> Relu -> r -> Reshape (shape [1, 8, 256] int64, an initializer) ->
 * f -> Sigmoid -> s; r -> Transpose (perm 0, 1, 3, 2) -> t -> Add (with x) -> y. Outputs s
 * [1, 8, 256] and y [1, 8, 16, 16], float16. ONNX Runtime's CPU execution provider has no float16
 * Conv, Relu, Sigmoid or Add: it runs them in float32, and the Reshape and the Transpose (which
 * have float16 kernels) too, alone between them, with a Cast to float of x and w and a Cast back
 * of s and y (the graph it saves; plan --float16-cpu plans it).
 */
export function float16Model() {
  const FLOAT16 = 10,
    INT64 = 7;
  const w = new Uint8Array(8 * 8 * 3 * 3 * 2);
  for (let k = 0; k < w.length; k += 2) w[k + 1] = 0x2c; // 0x2c00: 1/16 in float16
  const shape = new Uint8Array(24);
  new DataView(shape.buffer).setBigInt64(0, 1n, true);
  new DataView(shape.buffer).setBigInt64(8, 8n, true);
  new DataView(shape.buffer).setBigInt64(16, 256n, true);
  return encodeModel({
    opset: 13,
    nodes: [
      {
        opType: 'Conv',
        name: 'conv',
        inputs: ['x', 'w'],
        outputs: ['c'],
        attributes: [{ name: 'pads', ints: [1, 1, 1, 1] }],
      },
      { opType: 'Relu', name: 'relu', inputs: ['c'], outputs: ['r'] },
      { opType: 'Reshape', name: 'reshape', inputs: ['r', 'shape'], outputs: ['f'] },
      { opType: 'Sigmoid', name: 'sigmoid', inputs: ['f'], outputs: ['s'] },
      {
        opType: 'Transpose',
        name: 'transpose',
        inputs: ['r'],
        outputs: ['t'],
        attributes: [{ name: 'perm', ints: [0, 1, 3, 2] }],
      },
      { opType: 'Add', name: 'add', inputs: ['t', 'x'], outputs: ['y'] },
    ],
    inputs: [{ name: 'x', elemType: FLOAT16, shape: [1, 8, 16, 16] }],
    outputs: [
      { name: 's', elemType: FLOAT16, shape: [1, 8, 256] },
      { name: 'y', elemType: FLOAT16, shape: [1, 8, 16, 16] },
    ],
    initializers: [
      { name: 'w', elemType: FLOAT16, dims: [8, 8, 3, 3], raw: w },
      { name: 'shape', elemType: INT64, dims: [3], raw: shape },
    ],
  });
}
