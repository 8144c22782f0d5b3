/*
 * qdq.c -- QDQ node units (memplan/qdq.h): one pass to count each value's
 * readers, one over the nodes; and the units' views when they are planned
 * fused.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/qdq.h"

static bool default_domain(const memplan_node *n) { return !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0; }

/* QuantizeLinear and DequantizeLinear: ONNX's, or ONNX Runtime's contrib ones
 * (com.microsoft: 16-bit and 4-bit types before ONNX had them), which its
 * QDQ selectors take alike. An op of another domain is never one of them. */
static bool qdq_node(const memplan_node *n, const char *op) {
    return strcmp(n->op_type, op) == 0 && (default_domain(n) || strcmp(n->domain, "com.microsoft") == 0);
}

/* How ONNX Runtime's selector for an op (qdq_selectors.cc) checks its unit.
 * Up to K_VARIADIC every input given must be a DequantizeLinear output (a
 * Conv's or Gemm's bias too); from K_UNARY on only the first (the others are
 * shapes, indices or scales), but Where's two values (inputs 1 and 2). Around
 * K_DROP, K_RESIZE and K_ORDER ONNX Runtime only drops the pair, as the op
 * moves or picks quantized values as they are, so the DequantizeLinear and
 * the QuantizeLinear must quantize alike. */
typedef enum unit_kind {
    K_CONV,     /* QLinearConv */
    K_MATMUL,   /* QLinearMatMul, or MatMulIntegerToFloat without a QuantizeLinear */
    K_GEMM,     /* QGemm */
    K_BINARY,   /* QLinearAdd, QLinearMul */
    K_VARIADIC, /* QLinearConcat */
    K_UNARY,    /* QLinearAveragePool, QLinearSigmoid, ... */
    K_DROP,     /* the pair dropped; 16-bit types too */
    K_RESIZE,   /* the pair dropped; no 16-bit types */
    K_ORDER,    /* the pair dropped where a positive scale keeps the order: 4-bit types too */
    K_WHERE,    /* QLinearWhere: inputs 1 and 2 */
    K_ARGMAX,   /* the DequantizeLinear dropped (no QuantizeLinear: the output is int64) */
} unit_kind;

static bool drops_pair(unit_kind k) { return k == K_DROP || k == K_RESIZE || k == K_ORDER; }

static const struct {
    const char *op;
    unit_kind kind;
} UNIT_OPS[] = {
    {"Conv", K_CONV},         {"MatMul", K_MATMUL},   {"Gemm", K_GEMM},
    {"Add", K_BINARY},        {"Mul", K_BINARY},      {"Concat", K_VARIADIC},
    {"AveragePool", K_UNARY}, {"LeakyRelu", K_UNARY}, {"GlobalAveragePool", K_UNARY},
    {"Sigmoid", K_UNARY},     {"Softmax", K_UNARY},   {"Expand", K_DROP},
    {"Flatten", K_DROP},      {"Gather", K_DROP},     {"GatherElements", K_DROP},
    {"Reshape", K_DROP},      {"Slice", K_DROP},      {"Squeeze", K_DROP},
    {"Tile", K_DROP},         {"Transpose", K_DROP},  {"Unsqueeze", K_DROP},
    {"MaxPool", K_ORDER},     {"ReduceMax", K_ORDER}, {"ReduceMin", K_ORDER},
    {"Resize", K_RESIZE},     {"Where", K_WHERE},     {"ArgMax", K_ARGMAX},
};

/* n's row of UNIT_OPS, or -1. */
static int unit_op(const memplan_node *n) {
    if (!default_domain(n)) return -1;
    for (size_t i = 0; i < sizeof UNIT_OPS / sizeof UNIT_OPS[0]; i++)
        if (strcmp(n->op_type, UNIT_OPS[i].op) == 0) return (int)i;
    return -1;
}

/* The bytes of a constant v: an initializer's, or a Constant node's `value`
 * (what ONNX Runtime folds into an initializer); NULL when not known here. */
static const memplan_tensor *constant_tensor(const memplan_graph *g, int32_t v) {
    if (v < 0) return NULL;
    if (g->values[v].initializer) return g->values[v].initializer;
    int32_t p = g->values[v].producer;
    if (p < 0 || strcmp(g->nodes[p].op_type, "Constant") != 0 || !default_domain(&g->nodes[p])) return NULL;
    for (int32_t a = 0; a < g->nodes[p].n_attrs; a++)
        if (g->nodes[p].attrs[a].type == MEMPLAN_ATTR_TENSOR && strcmp(g->nodes[p].attrs[a].name, "value") == 0)
            return g->nodes[p].attrs[a].t;
    return NULL;
}

/* Whether t holds one element (a scalar, or a tensor of shape [1]). */
static bool one_element(const memplan_tensor *t) {
    for (int32_t d = 0; d < t->rank; d++)
        if (t->dims[d] != 1) return false;
    return true;
}

/* Whether inputs a and b are the same quantization parameter, as ONNX
 * Runtime's drop rules ask (IsQDQPairSupported): both given, constants of one
 * element, of equal type, shape and bytes (one value is equal to itself). */
static bool same_param(const memplan_graph *g, int32_t a, int32_t b) {
    const memplan_tensor *x = constant_tensor(g, a), *y = constant_tensor(g, b);
    if (!x || !y || !x->data || !y->data || !one_element(x) || x->elem_type != y->elem_type || x->rank != y->rank ||
        x->data_len != y->data_len)
        return false;
    for (int32_t d = 0; d < x->rank; d++)
        if (x->dims[d] != y->dims[d]) return false;
    return a == b || memcmp(x->data, y->data, x->data_len) == 0;
}

/* Input k of n, or -1 when absent. */
static int32_t input_at(const memplan_node *n, int32_t k) { return k < n->n_inputs ? n->inputs[k] : -1; }

/* How many node inputs and captures read each value (captures: how many of
 * those are a body's; quantize: a QuantizeLinear's), and the last node that
 * does. */
typedef struct readers {
    int32_t *count, *captures, *quantize, *last;
} readers;

static void readers_free(readers *r) {
    free(r->count);
    free(r->captures);
    free(r->quantize);
    free(r->last);
}

static memplan_status readers_init(readers *r, const memplan_graph *g, memplan_error *err) {
    size_t n = (size_t)(g->n_values ? g->n_values : 1);
    r->count = calloc(n, sizeof *r->count);
    r->captures = calloc(n, sizeof *r->captures);
    r->quantize = calloc(n, sizeof *r->quantize);
    r->last = malloc(n * sizeof *r->last);
    if (!r->count || !r->captures || !r->quantize || !r->last) {
        readers_free(r);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *node = &g->nodes[p];
        for (int32_t k = 0; k < node->n_inputs + node->n_captures; k++) {
            int32_t v = k < node->n_inputs ? node->inputs[k] : node->captures[k - node->n_inputs];
            if (v < 0) continue;
            r->count[v]++, r->last[v] = p;
            if (k >= node->n_inputs) r->captures[v]++;
            else if (qdq_node(node, "QuantizeLinear"))
                r->quantize[v]++;
        }
    }
    return MEMPLAN_OK;
}

/* Whether v is a DequantizeLinear's output: a unit's data input. Other nodes
 * may read it too, and it may be a graph output: ONNX Runtime gives each
 * unit a DequantizeLinear of its own first (EnsureUniqueDQForNodeUnit). */
static bool dq_output(const memplan_graph *g, int32_t v) {
    int32_t p = v >= 0 ? g->values[v].producer : -1;
    return p >= 0 && qdq_node(&g->nodes[p], "DequantizeLinear");
}

/* The node that alone reads v, once, as its input 0, when it is a
 * QuantizeLinear (or, with `activation`, a Relu or a Clip) with an output 0
 * and v is no graph output; else NULL. */
static const memplan_node *sole_reader(const memplan_graph *g, const readers *r, int32_t v, bool activation) {
    if (v < 0 || r->count[v] != 1 || (g->values[v].flags & MEMPLAN_VALUE_OUTPUT)) return NULL;
    const memplan_node *n = &g->nodes[r->last[v]];
    bool kind = activation ? (strcmp(n->op_type, "Relu") == 0 || strcmp(n->op_type, "Clip") == 0) && default_domain(n)
                           : qdq_node(n, "QuantizeLinear");
    if (!kind || n->n_inputs < 1 || n->inputs[0] != v || n->n_outputs < 1 || n->outputs[0] < 0) return NULL;
    return n;
}

/* Element i of float constant v (of n elements, n > i; one element is
 * every element's), in *out. */
static bool float_at(const memplan_graph *g, int32_t v, size_t i, size_t *n, float *out) {
    const memplan_tensor *t = constant_tensor(g, v);
    if (!t || !t->data || t->elem_type != MEMPLAN_DTYPE_FLOAT || !t->data_len || t->data_len % sizeof *out)
        return false;
    *n = t->data_len / sizeof *out;
    memcpy(out, (const unsigned char *)t->data + (*n == 1 ? 0 : i) * sizeof *out, sizeof *out);
    return true;
}

/* A constant holding one float (a scale, a Clip's bound) in *out. */
static bool const_float(const memplan_graph *g, int32_t v, float *out) {
    size_t n;
    return float_at(g, v, 0, &n, out) && n == 1;
}

/* Whether ONNX Runtime removes activation a (a Relu or a Clip) before
 * QuantizeLinear q, whose zero point must be one uint8 or int8 constant: a
 * Relu when that zero point is the type's least value (ReluQuantFusion); a
 * Clip whose bounds (attributes before opset 11, then inputs; absent: the
 * float range) are constants holding the range q represents, scale x (least
 * - zero point) .. scale x (greatest - zero point), to within FLT_EPSILON
 * (ClipQuantFusion). Computed in float, as it is there. */
static bool removed_before(const memplan_graph *g, const memplan_node *a, const memplan_node *q) {
    const memplan_tensor *z = constant_tensor(g, input_at(q, 2));
    if (!z || !z->data || z->data_len != 1) return false;
    int zp, least, greatest;
    if (z->elem_type == MEMPLAN_DTYPE_UINT8) zp = *(const uint8_t *)z->data, least = 0, greatest = 255;
    else if (z->elem_type == MEMPLAN_DTYPE_INT8)
        zp = *(const int8_t *)z->data, least = -128, greatest = 127;
    else
        return false;
    if (strcmp(a->op_type, "Relu") == 0) return zp == least;
    float scale, lo = -FLT_MAX, hi = FLT_MAX;
    if (!const_float(g, input_at(q, 1), &scale)) return false;
    for (int32_t k = 0; k < a->n_attrs; k++) {
        const memplan_attr *at = &a->attrs[k];
        if (at->type == MEMPLAN_ATTR_FLOAT && strcmp(at->name, "min") == 0) lo = at->f;
        if (at->type == MEMPLAN_ATTR_FLOAT && strcmp(at->name, "max") == 0) hi = at->f;
    }
    if ((input_at(a, 1) >= 0 && !const_float(g, input_at(a, 1), &lo)) ||
        (input_at(a, 2) >= 0 && !const_float(g, input_at(a, 2), &hi)))
        return false;
    float lower = scale * (float)(least - zp), upper = scale * (float)(greatest - zp);
    return !(FLT_EPSILON < lo - lower || FLT_EPSILON < upper - hi);
}

/* What the units of one graph are found with. */
typedef struct qctx {
    const memplan_graph *g;
    const memplan_shapes *s; /* the element types inferred, or NULL */
    readers r;
    unsigned char *to_u8;   /* x86-64: the QuantizeLinear outputs made uint8, else NULL */
    int32_t *readers_alike; /* count_alike */
} qctx;

/* The element type of v, 0 when not known: uint8 for an int8 pair ONNX
 * Runtime makes uint8, else as inferred, else as the file gives it. */
static int32_t elem_of(const qctx *c, int32_t v) {
    if (c->to_u8 && c->to_u8[v]) return MEMPLAN_DTYPE_UINT8;
    const memplan_vshape *vs = c->s ? memplan_shapes_value(c->s, c->g, v) : NULL;
    if (vs && vs->elem_type) return vs->elem_type;
    const memplan_value *val = &c->g->values[v];
    return val->initializer ? val->initializer->elem_type : val->type.elem_type;
}

/* The quantized type a unit reads at input k of n: the element type of its
 * DequantizeLinear's input (0 when not known). */
static int32_t read_type(const qctx *c, const memplan_node *n, int32_t k) {
    int32_t v = input_at(n, k), p = v >= 0 ? c->g->values[v].producer : -1;
    int32_t x = p >= 0 ? input_at(&c->g->nodes[p], 0) : -1;
    return x >= 0 ? elem_of(c, x) : 0;
}

/* The copies of DequantizeLinear output w that EnsureUniqueDQForNodeUnit
 * makes so that each node input reading w has one of its own: one per such
 * input but the first, or every one when w is also a graph output or a
 * body reads it (those keep the original). */
static int32_t dq_copies(const qctx *c, int32_t w) {
    int32_t all = c->r.count[w], inputs = all - c->r.captures[w];
    bool output = c->g->values[w].flags & MEMPLAN_VALUE_OUTPUT;
    if (all == 0 || (all == 1 && !output)) return 0;
    return !c->r.captures[w] && !output && inputs > 0 ? inputs - 1 : inputs;
}

/* Zero point zp (one 8-bit constant) as ONNX Runtime has it, in *type and
 * *value: an int8 one of a pair it made uint8 (made_u8) is the value + 128,
 * uint8. */
static bool zero_point(const memplan_graph *g, int32_t zp, bool made_u8, int32_t *type, int *value) {
    const memplan_tensor *t = constant_tensor(g, zp);
    if (!t || !t->data || t->data_len != 1 || !one_element(t)) return false;
    if (t->elem_type == MEMPLAN_DTYPE_INT8) {
        int8_t v;
        memcpy(&v, t->data, 1);
        *type = made_u8 ? MEMPLAN_DTYPE_UINT8 : MEMPLAN_DTYPE_INT8;
        *value = made_u8 ? v + 128 : v;
        return true;
    }
    *type = t->elem_type, *value = *(const uint8_t *)t->data;
    return t->elem_type == MEMPLAN_DTYPE_UINT8 && !made_u8;
}

/* Whether ONNX Runtime on x86-64 makes QuantizeLinear q and the
 * DequantizeLinear after it uint8 (QDQS8ToU8Transformer, which runs where
 * int8 QDQ is not allowed, before the units are fused): q's output is read by
 * that DequantizeLinear alone, even after EnsureUniqueDQForNodeUnit (which
 * gives every further reader of the DequantizeLinear's output a copy reading
 * q's output too), and both zero points are given, one int8 constant each,
 * equal. A pair left int8 next to one made uint8 no longer has its unit's
 * types alike, so that unit is not fused. */
static bool pair_to_u8(const qctx *c, const memplan_node *q) {
    const memplan_graph *g = c->g;
    int32_t v = q->n_outputs > 0 ? q->outputs[0] : -1;
    if (v < 0 || c->r.count[v] != 1 || c->r.captures[v] || (g->values[v].flags & MEMPLAN_VALUE_OUTPUT)) return false;
    const memplan_node *dq = &g->nodes[c->r.last[v]];
    int32_t ta, tb;
    int a, b;
    if (!qdq_node(dq, "DequantizeLinear") || input_at(dq, 0) != v || dq->n_outputs < 1 ||
        (dq->outputs[0] >= 0 && dq_copies(c, dq->outputs[0])))
        return false;
    return zero_point(g, input_at(q, 2), false, &ta, &a) && zero_point(g, input_at(dq, 2), false, &tb, &b) &&
           ta == MEMPLAN_DTYPE_INT8 && tb == MEMPLAN_DTYPE_INT8 && a == b;
}

/* Whether DequantizeLinear dq and QuantizeLinear q have the same scale and
 * zero point, a zero point as ONNX Runtime has it once it made int8 pairs
 * uint8 (a pair made uint8 next to one that was uint8 may quantize alike). */
static bool same_params(const qctx *c, const memplan_node *dq, const memplan_node *q) {
    const memplan_graph *g = c->g;
    if (!same_param(g, input_at(dq, 1), input_at(q, 1))) return false;
    bool a = c->to_u8 && input_at(dq, 0) >= 0 && c->to_u8[input_at(dq, 0)], b = c->to_u8 && c->to_u8[q->outputs[0]];
    if (a == b) return same_param(g, input_at(dq, 2), input_at(q, 2));
    int32_t ta, tb;
    int za, zb;
    return zero_point(g, input_at(dq, 2), a, &ta, &za) && zero_point(g, input_at(q, 2), b, &tb, &zb) && ta == tb &&
           za == zb;
}

static bool bits16(int32_t t) { return t == MEMPLAN_DTYPE_INT16 || t == MEMPLAN_DTYPE_UINT16; }
static bool bits4(int32_t t) { return t == MEMPLAN_DTYPE_INT4 || t == MEMPLAN_DTYPE_UINT4; }

/* Whether bias scale b is the input scale x times the weight scale w, as
 * ONNX Runtime wants to fold a Conv's int32 bias into QLinearConv (a Gemm's
 * QGemm takes any): each
 * element (per channel, w and b may have one per output channel) within
 * 1e-6 + 1% of the product. Measured against ONNX Runtime 1.30 (CPU, x86-64):
 * 1.3% over fused, 1.6% over not, at 2e-4; 1% over fused, 1.4% not, at
 * 0.05. */
static bool bias_scale_fits(const memplan_graph *g, int32_t x, int32_t w, int32_t b) {
    size_t nx, nw = 1, nb = 1;
    float sx, sw, sb;
    if (!float_at(g, x, 0, &nx, &sx) || nx != 1 || !float_at(g, w, 0, &nw, &sw) || !float_at(g, b, 0, &nb, &sb) ||
        (nw != 1 && nb != 1 && nw != nb))
        return false;
    for (size_t i = 0; i < (nw > nb ? nw : nb); i++) {
        if (!float_at(g, w, i, &nw, &sw) || !float_at(g, b, i, &nb, &sb)) return false;
        double p = (double)sx * sw;
        if (!(fabs(sb - p) <= 1e-6 + 0.01 * fabs(p))) return false;
    }
    return true;
}

/* Whether float attribute `name` of n is absent or equal to v. */
static bool float_attr_is(const memplan_node *n, const char *name, float v) {
    for (int32_t k = 0; k < n->n_attrs; k++)
        if (n->attrs[k].type == MEMPLAN_ATTR_FLOAT && strcmp(n->attrs[k].name, name) == 0) return n->attrs[k].f == v;
    return true;
}

/* Whether the element types of the unit of op n (of `kind`; QuantizeLinear q,
 * or NULL) pass its selector in ONNX Runtime (qdq_selectors.cc, with the
 * options its CPU execution provider registers them with): the quantized
 * input and output alike (a DequantizeLinear output read as int8, say, and a
 * QuantizeLinear writing uint8 leave the op float); no 16-bit types but
 * where the pair is only dropped, no 4-bit ones but around MaxPool and
 * ReduceMax/Min; an int8 Conv or MatMul input only where int8 QDQ is allowed
 * (ARM64), and with an int8 weight (a Gemm's too); a bias int32 (a Gemm's
 * with beta 1); a positive scale around MaxPool and ReduceMax/Min. A type
 * not known fails. */
static bool types_pass(const qctx *c, const memplan_node *n, unit_kind kind, const memplan_node *q, bool int8_allowed) {
    int32_t x = read_type(c, n, kind == K_WHERE), y = q ? elem_of(c, q->outputs[0]) : x;
    if (!x || x != y || (bits16(x) && kind != K_DROP) || (bits4(x) && kind != K_ORDER)) return false;
    if (kind <= K_GEMM) {
        int32_t w = read_type(c, n, 1);
        if (!w || bits16(w) || bits4(w)) return false;
        if (x == MEMPLAN_DTYPE_INT8 && (w != x || (kind != K_GEMM && !int8_allowed))) return false;
        const memplan_node *dq[3] = {NULL, NULL, NULL};
        for (int32_t k = 0; k < 3 && input_at(n, k) >= 0; k++)
            dq[k] = &c->g->nodes[c->g->values[n->inputs[k]].producer];
        /* QGemm takes the zero points of A and B in place: without them ONNX
         * Runtime 1.30 leaves the Gemm (measured; QLinearConv and the
         * MatMuls take their absence). */
        if (kind == K_GEMM && (input_at(dq[0], 2) < 0 || input_at(dq[1], 2) < 0)) return false;
        if (kind == K_MATMUL || !dq[2]) return true;
        return read_type(c, n, 2) == MEMPLAN_DTYPE_INT32 &&
               (kind == K_GEMM ? float_attr_is(n, "beta", 1.0f)
                               : bias_scale_fits(c->g, input_at(dq[0], 1), input_at(dq[1], 1), input_at(dq[2], 1)));
    }
    if (kind == K_BINARY || kind == K_VARIADIC || kind == K_WHERE)
        for (int32_t k = 1 + (kind == K_WHERE); k < n->n_inputs; k++)
            if (n->inputs[k] >= 0 && read_type(c, n, k) != x) return false;
    if (kind == K_ARGMAX) { /* IsDQSupported: a zero point given, scale and zero point constants of one element */
        const memplan_node *dq = &c->g->nodes[c->g->values[n->inputs[0]].producer];
        const memplan_tensor *sc = constant_tensor(c->g, input_at(dq, 1)), *zp = constant_tensor(c->g, input_at(dq, 2));
        return sc && zp && one_element(sc) && one_element(zp);
    }
    float scale;
    return kind != K_ORDER || (const_float(c->g, input_at(q, 1), &scale) && scale > 0);
}

/* Integer attribute `name` of n, or def when absent. */
static int64_t int_attr(const memplan_node *n, const char *name, int64_t def) {
    for (int32_t k = 0; k < n->n_attrs; k++)
        if (n->attrs[k].type == MEMPLAN_ATTR_INT && strcmp(n->attrs[k].name, name) == 0) return n->attrs[k].i;
    return def;
}

/* Whether constant t has rank `rank` (at most 2) and dims d0 (and d1). */
static bool dims_are(const memplan_tensor *t, int32_t rank, int64_t d0, int64_t d1) {
    return t->rank == rank && (rank < 1 || t->dims[0] == d0) && (rank < 2 || t->dims[1] == d1);
}

/* Whether DequantizeLinear dq, of a MatMul's B, is one ONNX Runtime turns
 * with the MatMul into MatMulNBits (DQMatMulToMatMulNBits: a weight-only
 * quantized MatMul): weight, scale and zero point constants; a 2-, 4- or
 * 8-bit weight [K, N], a float or float16 scale; blockwise along axis 0
 * (block_size a power of 2 from 16, scale and zero point [ceil(K / block),
 * N]), per tensor (a scalar scale and zero point) or per column (axis 1,
 * scale and zero point [N]). */
static bool nbits_weight(const memplan_graph *g, const memplan_node *dq) {
    const memplan_tensor *w = constant_tensor(g, input_at(dq, 0)), *s = constant_tensor(g, input_at(dq, 1));
    const memplan_tensor *z = input_at(dq, 2) >= 0 ? constant_tensor(g, input_at(dq, 2)) : NULL;
    int32_t t = w ? w->elem_type : 0;
    if (!w || !s || (input_at(dq, 2) >= 0 && !z) || w->rank != 2 ||
        (s->elem_type != MEMPLAN_DTYPE_FLOAT && s->elem_type != MEMPLAN_DTYPE_FLOAT16) ||
        !(bits4(t) || t == MEMPLAN_DTYPE_INT8 || t == MEMPLAN_DTYPE_UINT8 || t == MEMPLAN_DTYPE_INT2 ||
          t == MEMPLAN_DTYPE_UINT2))
        return false;
    int64_t k = w->dims[0], n = w->dims[1], block = int_attr(dq, "block_size", 0);
    if (block > 0) {
        if (int_attr(dq, "axis", -1) != 0 || block < 16 || (block & (block - 1)) || k < 0) return false;
        int64_t rows = k / block + (k % block != 0);
        return dims_are(s, 2, rows, n) && (!z || dims_are(z, 2, rows, n));
    }
    if (s->rank == 0) return !z || z->rank == 0;
    return dims_are(s, 1, n, 0) && int_attr(dq, "axis", 1) == 1 && (!z || dims_are(z, 1, n, 0));
}

/* Whether ONNX Runtime's ConstantSharing would merge constant t with equal
 * ones: a float, float16, double, int32 or int64 constant of at most 8
 * elements whose bytes are known. */
static bool shareable(const memplan_tensor *t) {
    int64_t n = 1;
    for (int32_t d = 0; d < t->rank; d++) n = n <= 8 && t->dims[d] >= 0 && t->dims[d] <= 8 ? n * t->dims[d] : 9;
    return n >= 1 && n <= 8 && t->data &&
           (t->elem_type == MEMPLAN_DTYPE_FLOAT || t->elem_type == MEMPLAN_DTYPE_FLOAT16 ||
            t->elem_type == MEMPLAN_DTYPE_DOUBLE || t->elem_type == MEMPLAN_DTYPE_INT32 ||
            t->elem_type == MEMPLAN_DTYPE_INT64);
}

/* A constant value and its tensor, sorted by content (element type, shape,
 * bytes) to find equal ones. */
typedef struct constant_ref {
    const memplan_tensor *t;
    int32_t v;
} constant_ref;

static int by_content(const void *pa, const void *pb) {
    const memplan_tensor *a = ((const constant_ref *)pa)->t, *b = ((const constant_ref *)pb)->t;
    if (a->elem_type != b->elem_type) return a->elem_type < b->elem_type ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    for (int32_t d = 0; d < a->rank; d++)
        if (a->dims[d] != b->dims[d]) return a->dims[d] < b->dims[d] ? -1 : 1;
    if (a->data_len != b->data_len) return a->data_len < b->data_len ? -1 : 1;
    return memcmp(a->data, b->data, a->data_len);
}

/* c->readers_alike[v]: for a shareable constant v, how many node inputs read
 * it or a constant equal to it (ONNX Runtime shares them into one); else
 * r.count[v]. */
static memplan_status count_alike(qctx *c, memplan_error *err) {
    const memplan_graph *g = c->g;
    size_t n = (size_t)(g->n_values ? g->n_values : 1), k = 0;
    constant_ref *list = malloc(n * sizeof *list);
    c->readers_alike = malloc(n * sizeof *c->readers_alike);
    if (!list || !c->readers_alike) {
        free(list);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    for (int32_t v = 0; v < g->n_values; v++) {
        c->readers_alike[v] = c->r.count[v];
        const memplan_tensor *t = c->r.count[v] ? constant_tensor(g, v) : NULL;
        if (t && shareable(t)) list[k++] = (constant_ref){t, v};
    }
    qsort(list, k, sizeof *list, by_content);
    for (size_t i = 0, j; i < k; i = j) {
        int32_t total = 0;
        for (j = i; j < k && by_content(&list[i], &list[j]) == 0; j++) total += c->r.count[list[j].v];
        for (size_t m = i; m < j; m++) c->readers_alike[list[m].v] = total;
    }
    free(list);
    return MEMPLAN_OK;
}

/* v's rank (-1 when not known), and its first dim in *d0 when it is a known
 * constant (else -1). */
static int32_t rank_of(const qctx *c, int32_t v, int64_t *d0) {
    *d0 = -1;
    const memplan_vshape *vs = c->s ? memplan_shapes_value(c->s, c->g, v) : NULL;
    if (!vs || vs->rank < 0) return -1;
    int64_t k;
    if (vs->rank > 0 && memplan_expr_is_const(memplan_shapes_pool(c->s), vs->dims[0], &k)) *d0 = k;
    return vs->rank;
}

/* Whether ONNX Runtime keeps weight-only MatMul n float because it first
 * turns it and the Add alone reading its output into a Gemm (MatMulAddFusion,
 * where A has rank 2), which it then fuses only with a bias [N]: the Add's
 * other input of rank 2 (or 1 but not [N]) or of a shape not known.
 * Measured, 1.30: [N] fuses, [1, N] and [M, N] do not, A of rank 3 does. */
static bool kept_by_gemm(const qctx *c, const memplan_node *n, int64_t cols) {
    const memplan_graph *g = c->g;
    int32_t out = n->outputs[0];
    int64_t d0;
    if (rank_of(c, input_at(n, 0), &d0) != 2 || c->r.count[out] != 1 || (g->values[out].flags & MEMPLAN_VALUE_OUTPUT))
        return false;
    const memplan_node *add = &g->nodes[c->r.last[out]];
    if (!default_domain(add) || strcmp(add->op_type, "Add") != 0 || add->n_inputs != 2) return false;
    int32_t other = add->inputs[0] == out ? add->inputs[1] : add->inputs[0];
    int32_t rank = other >= 0 ? rank_of(c, other, &d0) : -1;
    return rank < 0 || rank == 2 || (rank == 1 && d0 != cols);
}

/* Whether MatMul or Gemm n is a weight-only quantized one ONNX Runtime runs
 * as MatMulNBits: its B a DequantizeLinear output only it reads, of a weight
 * nbits_weight takes; its A no DequantizeLinear output; no QuantizeLinear
 * reading its output; a Gemm with alpha 1, neither input transposed, and no
 * bias (ONNX Runtime keeps a bias's DequantizeLinear: not modelled). */
static bool weight_only(const qctx *c, const memplan_node *n, unit_kind kind) {
    const memplan_graph *g = c->g;
    int32_t a = input_at(n, 0), b = input_at(n, 1), out = n->outputs[0];
    if (a < 0 || b < 0 || dq_output(g, a) || !dq_output(g, b) || c->r.count[b] != 1 ||
        (g->values[b].flags & MEMPLAN_VALUE_OUTPUT))
        return false;
    if (kind == K_GEMM && (input_at(n, 2) >= 0 || !float_attr_is(n, "alpha", 1.0f) || int_attr(n, "transA", 0) ||
                           int_attr(n, "transB", 0)))
        return false;
    /* a QuantizeLinear reading its output makes it the QDQ selectors'; a
     * scale another node reads (or an equal one, which ONNX Runtime shares
     * with it first) leaves the MatMul unfused (measured, 1.30) */
    const memplan_node *dq = &g->nodes[g->values[b].producer];
    int32_t scale = input_at(dq, 1);
    if (c->r.quantize[out] || scale < 0 || c->readers_alike[scale] != 1 || !nbits_weight(g, dq)) return false;
    const memplan_tensor *w = constant_tensor(g, input_at(dq, 0));
    return kind != K_MATMUL || !kept_by_gemm(c, n, w->dims[1]);
}

/* Whether node p is the op of a unit: *quantized its QuantizeLinear's output,
 * *between the output of a Relu or Clip between them that ONNX Runtime
 * removes (or -1). */
static bool unit_at(const qctx *c, int32_t p, const memplan_qdq_options *o, int32_t *quantized, int32_t *between) {
    const memplan_graph *g = c->g;
    const memplan_node *n = &g->nodes[p];
    /* The output first: most nodes are no unit, and this test is cheaper than the op table's. */
    int32_t out = n->n_outputs > 0 ? n->outputs[0] : -1;
    const memplan_node *q = sole_reader(g, &c->r, out, false), *act = NULL;
    /* A Relu or Clip alone after it that ONNX Runtime does not remove keeps
     * the op unfused (its selectors take no activation there). */
    if (!q && (act = sole_reader(g, &c->r, out, true)) &&
        (!(q = sole_reader(g, &c->r, act->outputs[0], false)) || !removed_before(g, act, q)))
        return false;
    /* Without a QuantizeLinear after it, a MatMul or Gemm still reads its
     * inputs quantized (MatMulIntegerToFloat, QGemm); its output stays float. */
    if (!q &&
        (out < 0 || !default_domain(n) ||
         (strcmp(n->op_type, "MatMul") != 0 && strcmp(n->op_type, "Gemm") != 0 && strcmp(n->op_type, "ArgMax") != 0)))
        return false;
    int row = unit_op(n);
    if (row < 0 || (n->n_outputs > 1 && n->outputs[1] >= 0)) return false; /* one output: a MaxPool without Indices */
    if (strcmp(n->op_type, "MaxPool") == 0 && o->opset < 12) return false; /* ONNX Runtime fuses MaxPool-12 on */
    unit_kind kind = UNIT_OPS[row].kind;
    if (!q && (kind == K_MATMUL || kind == K_GEMM) && input_at(n, 0) >= 0 && !dq_output(g, input_at(n, 0))) {
        *quantized = *between = -1;
        return weight_only(c, n, kind);
    }
    int32_t first = kind == K_WHERE, data = kind < K_UNARY ? n->n_inputs : kind == K_WHERE ? 3 : 1;
    if (n->n_inputs < data || input_at(n, first) < 0 || (kind == K_ARGMAX && q)) return false;
    for (int32_t k = first; k < data; k++) {
        if (n->inputs[k] < 0) continue; /* an optional input not given (the first is) */
        if (!dq_output(g, n->inputs[k])) return false;
        if (q && drops_pair(kind) && !same_params(c, &g->nodes[g->values[n->inputs[k]].producer], q)) return false;
    }
    if (!types_pass(c, n, kind, q, o->int8_allowed)) return false;
    *quantized = q ? q->outputs[0] : -1;
    *between = act ? act->outputs[0] : -1;
    return true;
}

/* Whether Split node n is a unit, one entry per output (ONNX Runtime's
 * SplitQDQRules: it drops the pair around it): its input 0 a DequantizeLinear
 * output, each output read by one QuantizeLinear alone (no graph output) of
 * the DequantizeLinear's scale, zero point and type; no 4-bit type. */
static bool split_unit(const qctx *c, const memplan_node *n) {
    const memplan_graph *g = c->g;
    int32_t x = input_at(n, 0);
    if (!default_domain(n) || strcmp(n->op_type, "Split") != 0 || !dq_output(g, x) || n->n_outputs < 1) return false;
    int32_t t = read_type(c, n, 0);
    if (!t || bits4(t)) return false;
    const memplan_node *dq = &g->nodes[g->values[x].producer];
    for (int32_t k = 0; k < n->n_outputs; k++) {
        const memplan_node *q = sole_reader(g, &c->r, n->outputs[k], false);
        if (!q || elem_of(c, q->outputs[0]) != t || !same_params(c, dq, q)) return false;
    }
    return true;
}

memplan_status memplan_qdq_unit_list(const memplan_graph *g, const memplan_shapes *s, const memplan_qdq_options *o,
                                     memplan_qdq_unit **units, size_t *count, memplan_error *err) {
    *units = NULL;
    *count = 0;
    static const memplan_qdq_options none = {false, -1};
    if (!o) o = &none;
    /* Every unit reads a DequantizeLinear output: most graphs have none. */
    int32_t dq = 0;
    while (dq < g->n_nodes && !qdq_node(&g->nodes[dq], "DequantizeLinear")) dq++;
    if (dq == g->n_nodes) return MEMPLAN_OK;
    qctx c = {g, s, {NULL, NULL, NULL, NULL}, NULL, NULL};
    memplan_status st = readers_init(&c.r, g, err);
    if (st) return st;
    if (!o->int8_allowed && !(c.to_u8 = calloc((size_t)(g->n_values ? g->n_values : 1), 1)))
        st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    if (!st) st = count_alike(&c, err);
    for (int32_t p = 0; !st && c.to_u8 && p < g->n_nodes; p++)
        if (qdq_node(&g->nodes[p], "QuantizeLinear") && pair_to_u8(&c, &g->nodes[p]))
            c.to_u8[g->nodes[p].outputs[0]] = 1;
    size_t n = 0, cap = 0;
    memplan_qdq_unit *list = NULL;
    for (int32_t p = 0; !st && p < g->n_nodes; p++) {
        const memplan_node *node = &g->nodes[p];
        int32_t quantized = -1, between = -1, outputs = 1;
        bool split = split_unit(&c, node);
        if (split) outputs = node->n_outputs;
        else if (!unit_at(&c, p, o, &quantized, &between))
            continue;
        for (int32_t k = 0; !st && k < outputs; k++) {
            if (n == cap) {
                memplan_qdq_unit *grown = realloc(list, (cap = cap ? 2 * cap : 16) * sizeof *list);
                if (!grown) {
                    st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
                    break;
                }
                list = grown;
            }
            list[n++] = split ? (memplan_qdq_unit){p, node->outputs[k],
                                                   sole_reader(g, &c.r, node->outputs[k], false)->outputs[0], -1}
                              : (memplan_qdq_unit){p, node->outputs[0], quantized, between};
        }
    }
    free(c.to_u8);
    free(c.readers_alike);
    readers_free(&c.r);
    if (st) {
        free(list);
        return st;
    }
    *units = list;
    *count = n;
    return MEMPLAN_OK;
}

size_t memplan_qdq_unit_nodes(const memplan_qdq_unit *units, size_t count) {
    size_t n = 0;
    for (size_t i = 0; i < count; i++) n += i == 0 || units[i - 1].node != units[i].node;
    return n;
}

memplan_status memplan_qdq_fuse_views(const memplan_graph *g, const memplan_qdq_unit *units, size_t count,
                                      memplan_viewmap *vm, memplan_error *err) {
    if (!count) return MEMPLAN_OK;
    readers r;
    memplan_status st = readers_init(&r, g, err);
    if (st) return st;
    /* fused[v]: how many of v's reads are by the units' ops (a node's once:
     * a Split has an entry per output, adjacent) */
    int32_t *fused = calloc((size_t)(g->n_values ? g->n_values : 1), sizeof *fused);
    if (!fused) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (size_t i = 0; !st && i < count; i++) {
        const memplan_node *n = &g->nodes[units[i].node];
        for (int32_t k = 0; k < n->n_inputs && (i == 0 || units[i - 1].node != units[i].node); k++)
            if (n->inputs[k] >= 0) fused[n->inputs[k]]++;
        const memplan_qdq_unit *u = &units[i];
        if (u->between >= 0) st = memplan_viewmap_add(vm, u->between, u->output, err);
        if (!st && u->quantized >= 0)
            st = memplan_viewmap_add(vm, u->quantized, u->between >= 0 ? u->between : u->output, err);
    }
    /* A DequantizeLinear output only fused ops read is never made; one another
     * node reads too is made for it (ONNX Runtime's copy), as written. */
    for (int32_t v = 0; !st && v < g->n_values; v++) {
        if (!fused[v] || fused[v] != r.count[v] || !dq_output(g, v) || (g->values[v].flags & MEMPLAN_VALUE_OUTPUT))
            continue;
        const memplan_node *dq = &g->nodes[g->values[v].producer];
        int32_t quantized = dq->n_inputs > 0 ? dq->inputs[0] : -1;
        if (quantized >= 0 && quantized != v) st = memplan_viewmap_add(vm, v, quantized, err);
    }
    free(fused);
    readers_free(&r);
    return st;
}
