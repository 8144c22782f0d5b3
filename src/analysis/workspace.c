/*
 * workspace.c -- the scratch memory ONNX Runtime's CPU kernels allocate
 * while they run (memplan/workspace.h; docs/semantics.md, "Kernel
 * workspace").
 *
 * Each rule reads the node's input and output shapes (every dim known under
 * the bindings) and its attributes, and gives what the kernel asks its
 * allocator for in one run, one intra-op thread, the graph as written. The
 * figures were read from ONNX Runtime's sources and checked on
 * onnxruntime-node 1.30 by bench/ort_workspace.mjs.
 */
#include <string.h>

#include "memplan/expr.h"
#include "memplan/workspace.h"

#define WS_MAX_RANK 8 /* convolutions and recurrent ops have rank 3-5 */

/* A tensor's dims, all known. */
typedef struct tshape {
    int32_t rank;
    int32_t elem_type;
    int64_t d[WS_MAX_RANK];
} tshape;

typedef struct ws_ctx {
    const memplan_shapes *s;
    const memplan_graph *g;
    const memplan_node *n;
    const memplan_binding *b;
    size_t nb;
} ws_ctx;

/* ---- reading the node ---------------------------------------------------- */

static int32_t input(const ws_ctx *c, int32_t k) { return k < c->n->n_inputs ? c->n->inputs[k] : -1; }
static int32_t output(const ws_ctx *c, int32_t k) { return k < c->n->n_outputs ? c->n->outputs[k] : -1; }

/* Value v's shape with every dim known under the bindings; false when it is
 * not (or the value is absent, or of rank above WS_MAX_RANK). */
static bool shape_of(const ws_ctx *c, int32_t v, tshape *out) {
    if (v < 0) return false;
    const memplan_vshape *vs = memplan_shapes_value(c->s, c->g, v);
    if (!vs || vs->rank < 0 || vs->rank > WS_MAX_RANK) return false;
    memplan_expr_pool *pool = memplan_shapes_pool(c->s);
    out->rank = vs->rank;
    out->elem_type = vs->elem_type;
    for (int32_t i = 0; i < vs->rank; i++)
        if (memplan_expr_eval(pool, vs->dims[i], c->b, c->nb, &out->d[i], NULL) || out->d[i] < 0) return false;
    return true;
}

static const memplan_attr *attr(const ws_ctx *c, const char *name) {
    for (int32_t a = 0; a < c->n->n_attrs; a++)
        if (strcmp(c->n->attrs[a].name, name) == 0) return &c->n->attrs[a];
    return NULL;
}

static int64_t attr_int(const ws_ctx *c, const char *name, int64_t dflt) {
    const memplan_attr *a = attr(c, name);
    return a && a->type == MEMPLAN_ATTR_INT ? a->i : dflt;
}

/* Every entry of an INTS attribute equals v (true when it is absent). */
static bool ints_all(const ws_ctx *c, const char *name, int64_t v) {
    const memplan_attr *a = attr(c, name);
    if (!a || a->type != MEMPLAN_ATTR_INTS) return true;
    for (size_t i = 0; i < a->n; i++)
        if (a->ints[i] != v) return false;
    return true;
}

static bool attr_str_is(const ws_ctx *c, const char *name, const char *text) {
    const memplan_attr *a = attr(c, name);
    return a && a->type == MEMPLAN_ATTR_STRING && a->s && strcmp(a->s, text) == 0;
}

/* ---- arithmetic: products that saturate, so an absurd shape says unknown -- */

static uint64_t mul(uint64_t a, uint64_t b) {
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* The product of dims [from, rank). */
static uint64_t prod(const tshape *t, int32_t from) {
    uint64_t p = 1;
    for (int32_t i = from; i < t->rank; i++) p = mul(p, (uint64_t)t->d[i]);
    return p;
}

static memplan_workspace_status found(memplan_workspace *out, uint64_t bytes, const char *what) {
    if (bytes >= (uint64_t)1 << 62) return MEMPLAN_WORKSPACE_UNKNOWN; /* beyond what a plan can hold */
    if (!bytes) return MEMPLAN_WORKSPACE_NONE;
    out->bytes = bytes;
    out->what = what;
    return MEMPLAN_WORKSPACE_KNOWN;
}

/* The kernel runs on float32: float, or float16, which ONNX Runtime's CPU
 * execution provider casts to float32 for these ops (memplan_onnxruntime_cpu_float16). */
static bool runs_float32(int32_t elem_type) {
    return elem_type == MEMPLAN_DTYPE_FLOAT || elem_type == MEMPLAN_DTYPE_FLOAT16;
}

/* ---- convolutions -------------------------------------------------------- */

/* X [N, C, spatial...], W [M, C/G, kernel...] (ConvTranspose: [C, M/G,
 * kernel...]) and Y [N, M, spatial...], all known. */
typedef struct conv_dims {
    tshape x, w, y;
    uint64_t group, k; /* k: the kernel's size (product of its dims) */
} conv_dims;

static bool conv_dims_of(const ws_ctx *c, conv_dims *cd) {
    if (!shape_of(c, input(c, 0), &cd->x) || !shape_of(c, input(c, 1), &cd->w) || !shape_of(c, output(c, 0), &cd->y))
        return false;
    int64_t g = attr_int(c, "group", 1);
    if (cd->x.rank < 3 || cd->w.rank != cd->x.rank || cd->y.rank != cd->x.rank || g < 1) return false;
    cd->group = (uint64_t)g;
    cd->k = prod(&cd->w, 2);
    return true;
}

/* The pads are all zero: VALID; SAME_UPPER or SAME_LOWER with a 1x1 kernel
 * and unit strides (nothing to pad); else (NOTSET) explicit pads of zero. */
static bool no_padding(const ws_ctx *c, const conv_dims *cd) {
    if (attr_str_is(c, "auto_pad", "VALID")) return true;
    if (attr_str_is(c, "auto_pad", "SAME_UPPER") || attr_str_is(c, "auto_pad", "SAME_LOWER"))
        return cd->k == 1 && ints_all(c, "strides", 1);
    return ints_all(c, "pads", 0);
}

/* MLAS runs a float Conv as one GEMM over the input itself (no im2col) when
 * the strides are 1 and nothing is padded, and either the kernel is 1x1 or,
 * in 1-D or 2-D with one input channel per group and no dilation, the
 * kernel spans the input's whole width (or whole height, one wide). */
static bool gemm_direct(const ws_ctx *c, const conv_dims *cd, uint64_t cg) {
    if (!ints_all(c, "strides", 1) || !no_padding(c, cd)) return false;
    if (cd->k == 1) return true;
    int32_t sr = cd->x.rank - 2;
    if (sr > 2 || cg != 1 || !ints_all(c, "dilations", 1)) return false;
    int64_t ih = sr == 2 ? cd->x.d[2] : 1, iw = cd->x.d[cd->x.rank - 1];
    int64_t kh = sr == 2 ? cd->w.d[2] : 1, kw = cd->w.d[cd->w.rank - 1];
    return kw == iw || (kh == ih && kw == 1);
}

/* Conv on float: MLAS's working buffer (MlasConvPrepare), one thread: the
 * whole im2col of one image and group when there are more filters per group
 * than output pixels, else one thread's segment of it, 128 x 128 floats.
 * (MLAS after ONNX Runtime 1.30 sizes the segments of a batched or grouped
 * Conv by the whole im2col; 1.30 does not.) */
static memplan_workspace_status conv_float(const ws_ctx *c, memplan_workspace *out) {
    conv_dims cd;
    if (!conv_dims_of(c, &cd)) return MEMPLAN_WORKSPACE_UNKNOWN;
    if (!runs_float32(cd.x.elem_type)) return MEMPLAN_WORKSPACE_NONE;
    uint64_t cg = (uint64_t)cd.w.d[1], mg = (uint64_t)cd.w.d[0] / cd.group;
    uint64_t os = prod(&cd.y, 2), kdim = mul(cg, cd.k);
    if (cd.x.rank - 2 > 3) return found(out, mul(4, mul(kdim, os)), "the im2col of its input (float)");
    if (gemm_direct(c, &cd, cg)) return MEMPLAN_WORKSPACE_NONE;
    if (mg > os) return found(out, mul(4, mul(os, kdim)), "the im2col of its input (float)");
    return found(out, 4 * 128 * 128, "one thread's segment of the im2col (float)");
}

/* ConvInteger: the whole uint8 im2col of one group, unless the kernel is
 * 1x1 with unit strides and no pads attribute. */
static memplan_workspace_status conv_integer(const ws_ctx *c, memplan_workspace *out) {
    conv_dims cd;
    if (!conv_dims_of(c, &cd)) return MEMPLAN_WORKSPACE_UNKNOWN;
    if (cd.k == 1 && ints_all(c, "strides", 1) && ints_all(c, "pads", 0)) return MEMPLAN_WORKSPACE_NONE;
    uint64_t kdim = mul((uint64_t)cd.w.d[1], cd.k);
    return found(out, mul(kdim, prod(&cd.y, 2)), "the im2col of its input (uint8)");
}

/* ConvTranspose on float: the column buffer of one group, always. */
static memplan_workspace_status conv_transpose(const ws_ctx *c, memplan_workspace *out) {
    conv_dims cd;
    if (!conv_dims_of(c, &cd)) return MEMPLAN_WORKSPACE_UNKNOWN;
    if (!runs_float32(cd.x.elem_type)) return MEMPLAN_WORKSPACE_NONE;
    uint64_t kdim = mul((uint64_t)cd.w.d[1], cd.k);
    return found(out, mul(4, mul(kdim, prod(&cd.x, 2))), "the column buffer of its output (float)");
}

/* Every element of value v is known and zero. */
static bool all_zero(const ws_ctx *c, int32_t v) {
    if (v < 0) return false;
    const memplan_vshape *vs = memplan_shapes_value(c->s, c->g, v);
    if (!vs || vs->n_elems < 1) return false;
    for (int32_t i = 0; i < vs->n_elems; i++) {
        int64_t x;
        if (!memplan_expr_is_const(memplan_shapes_pool(c->s), vs->elems[i], &x) || x != 0) return false;
    }
    return true;
}

/* QLinearConv (8-bit X and W, NCHW as written): the input and output
 * transposed to channels-last, then either, for uint8 weights, the int32
 * product and the im2col of one group (a depthwise kernel: an indirection
 * buffer of one pointer per kernel tap and output pixel instead), or, for
 * int8 weights of zero point 0 (the symmetric kernel), the indirection
 * buffer alone. A 1x1 kernel with unit strides and no pads needs neither. */
static memplan_workspace_status qlinear_conv(const ws_ctx *c, memplan_workspace *out) {
    tshape x, w, y;
    if (!shape_of(c, input(c, 0), &x) || !shape_of(c, input(c, 3), &w) || !shape_of(c, output(c, 0), &y))
        return MEMPLAN_WORKSPACE_UNKNOWN;
    int64_t g = attr_int(c, "group", 1);
    if (x.rank < 3 || w.rank != x.rank || y.rank != x.rank || g < 1) return MEMPLAN_WORKSPACE_UNKNOWN;
    uint64_t c_in = (uint64_t)x.d[1], m = (uint64_t)w.d[0], cg = (uint64_t)w.d[1], mg = m / (uint64_t)g;
    uint64_t k = prod(&w, 2), is = prod(&x, 2), os = prod(&y, 2), taps = mul(8, mul(k, os));
    bool pointwise = k == 1 && ints_all(c, "strides", 1) && ints_all(c, "pads", 0);
    bool symmetric = w.elem_type == MEMPLAN_DTYPE_INT8 && all_zero(c, input(c, 5));
    uint64_t bytes = add(mul(c_in, is), mul(m, os)); /* the transposes, 1 byte an element */
    if (symmetric) return found(out, pointwise ? bytes : add(bytes, taps), "its input and output channels-last");
    bytes = add(bytes, mul(4, mul(m, os)));
    if (!pointwise) {
        uint64_t im2col = mul(mul(cg, k), os);
        if (x.rank - 2 > 2) im2col = mul(im2col, (uint64_t)g);
        bytes = add(bytes, cg == 1 && mg == 1 ? taps : im2col);
    }
    return found(out, bytes, "its input and output channels-last, the int32 product and the im2col");
}

/* ---- the rest ------------------------------------------------------------ */

/* com.microsoft DynamicQuantizeMatMul: A quantized to uint8. */
static memplan_workspace_status dynamic_quantize_matmul(const ws_ctx *c, memplan_workspace *out) {
    tshape a;
    if (!shape_of(c, input(c, 0), &a)) return MEMPLAN_WORKSPACE_UNKNOWN;
    return found(out, prod(&a, 0), "its input quantized to uint8");
}

/* QLinearMatMul: the int32 product before it is requantized. */
static memplan_workspace_status qlinear_matmul(const ws_ctx *c, memplan_workspace *out) {
    tshape y;
    if (!shape_of(c, output(c, 0), &y)) return MEMPLAN_WORKSPACE_UNKNOWN;
    return found(out, mul(4, prod(&y, 0)), "the int32 product before requantizing");
}

/* LSTM (gates 4), GRU (3) and RNN (1) on float: the gate buffer of every
 * step, per direction, and the buffers beside it (docs/semantics.md). */
static memplan_workspace_status recurrent(const ws_ctx *c, int gates, memplan_workspace *out) {
    tshape x;
    if (!shape_of(c, input(c, 0), &x)) return MEMPLAN_WORKSPACE_UNKNOWN;
    if (!runs_float32(x.elem_type)) return MEMPLAN_WORKSPACE_NONE;
    int64_t hidden = attr_int(c, "hidden_size", -1);
    if (x.rank != 3 || hidden < 1) return MEMPLAN_WORKSPACE_UNKNOWN;
    bool batch_first = attr_int(c, "layout", 0) == 1;
    uint64_t s = (uint64_t)x.d[batch_first ? 1 : 0], b = (uint64_t)x.d[batch_first ? 0 : 1], in = (uint64_t)x.d[2];
    uint64_t h = (uint64_t)hidden, bh = mul(b, h), sbh = mul(s, bh);
    bool both = attr_str_is(c, "direction", "bidirectional"), reverse = attr_str_is(c, "direction", "reverse");
    uint64_t dirs = both ? 2 : 1, floats = 0;
    bool bias = input(c, 3) >= 0, seq_lens = input(c, 4) >= 0;
    if (gates == 1) { /* RNN: one X W^T buffer for both directions; Y made if not asked for */
        floats = sbh;
        if (output(c, 0) < 0) floats = add(floats, mul(dirs, sbh));
        return found(out, mul(4, floats), "the input's product with W for every step (float)");
    }
    for (uint64_t d = 0; d < dirs; d++) {
        floats = add(floats, mul((uint64_t)gates, sbh));
        if (gates == 4) { /* LSTM: hidden and cell state, the clipped cell, bias and peepholes */
            floats = add(floats, add(mul(3, bh), mul(2, h)));
            if (bias) floats = add(floats, mul(4, h));
            if (input(c, 7) >= 0) floats = add(floats, mul(3, h));
        } else { /* GRU: the state twice, batched biases, the linear output */
            bool lbr = attr_int(c, "linear_before_reset", 0) != 0;
            floats = add(floats, mul(2, bh));
            if (bias) floats = add(floats, mul(lbr ? 4 : 3, bh));
            if (lbr) floats = add(floats, bh);
        }
        if (reverse || d == 1) floats = add(floats, add(mul(s, mul(b, in)), sbh)); /* the reversed input and output */
    }
    /* Y_h (and LSTM's Y_c) are made when the graph does not ask for them */
    if (output(c, 1) < 0) floats = add(floats, mul(dirs, bh));
    if (gates == 4 && output(c, 2) < 0) floats = add(floats, mul(dirs, bh));
    uint64_t bytes = mul(4, floats);
    if (!seq_lens) bytes = add(bytes, mul(4, b)); /* every sequence's length, int32 */
    return found(out, bytes, "the gates of every step (float)");
}

/* Softmax and LogSoftmax from opset 13 over an axis that is not the last:
 * the input transposed to make it last, and the output before it is
 * transposed back. */
static memplan_workspace_status softmax(const ws_ctx *c, int64_t opset, memplan_workspace *out) {
    if (opset < 13) return MEMPLAN_WORKSPACE_NONE;
    tshape x;
    if (!shape_of(c, input(c, 0), &x)) return MEMPLAN_WORKSPACE_UNKNOWN;
    int64_t axis = attr_int(c, "axis", -1);
    if (axis < 0) axis += x.rank;
    if (axis == x.rank - 1 || axis < 0 || axis >= x.rank) return MEMPLAN_WORKSPACE_NONE;
    uint64_t bits = runs_float32(x.elem_type) ? 32 : memplan_dtype_bits(x.elem_type);
    if (!bits) return MEMPLAN_WORKSPACE_UNKNOWN;
    return found(out, mul(2, mul(prod(&x, 0), bits / 8)), "its input and output transposed (the axis made last)");
}

memplan_workspace_status memplan_workspace_onnxruntime(const memplan_shapes *s, const memplan_graph *g, int32_t node,
                                                       int64_t opset, const memplan_binding *b, size_t nb,
                                                       memplan_workspace *out) {
    *out = (memplan_workspace){0, NULL};
    if (!s || !g || node < 0 || node >= g->n_nodes) return MEMPLAN_WORKSPACE_NONE;
    ws_ctx c = {s, g, &g->nodes[node], b, nb};
    const char *op = c.n->op_type;
    if (strcmp(c.n->domain, "com.microsoft") == 0)
        return strcmp(op, "DynamicQuantizeMatMul") == 0 ? dynamic_quantize_matmul(&c, out) : MEMPLAN_WORKSPACE_NONE;
    if (c.n->domain[0] && strcmp(c.n->domain, "ai.onnx") != 0) return MEMPLAN_WORKSPACE_NONE;
    if (strcmp(op, "Conv") == 0) return conv_float(&c, out);
    if (strcmp(op, "ConvInteger") == 0) return conv_integer(&c, out);
    if (strcmp(op, "ConvTranspose") == 0) return conv_transpose(&c, out);
    if (strcmp(op, "QLinearConv") == 0) return qlinear_conv(&c, out);
    if (strcmp(op, "QLinearMatMul") == 0) return qlinear_matmul(&c, out);
    if (strcmp(op, "LSTM") == 0) return recurrent(&c, 4, out);
    if (strcmp(op, "GRU") == 0) return recurrent(&c, 3, out);
    if (strcmp(op, "RNN") == 0) return recurrent(&c, 1, out);
    if (strcmp(op, "Softmax") == 0 || strcmp(op, "LogSoftmax") == 0) return softmax(&c, opset, out);
    return MEMPLAN_WORKSPACE_NONE;
}

bool memplan_onnxruntime_cpu_float16(const char *domain, const char *op) {
    static const char *const ops[] = {
        "Cast",
        "Clip",
        "Concat",
        "ConstantOfShape",
        "DequantizeLinear",
        "Expand",
        "Flatten",
        "Gather",
        "GatherElements",
        "Identity",
        "If",
        "IsNaN",
        "LayerNormalization",
        "Loop",
        "Max",
        "Min",
        "Mod",
        "QuantizeLinear",
        "RMSNormalization",
        "Reshape",
        "Round",
        "Scan",
        "ScatterND",
        "Shape",
        "Sign",
        "Slice",
        "Split",
        "Squeeze",
        "Transpose",
        "Unsqueeze",
    };
    if (!domain || !op || (domain[0] && strcmp(domain, "ai.onnx") != 0)) return true;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i], op) == 0) return true;
    return false;
}
