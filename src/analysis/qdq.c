/*
 * qdq.c -- QDQ node units (memplan/qdq.h): one pass to count each value's
 * readers, one over the nodes; and the units' views when they are planned
 * fused.
 */
#include <float.h>
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

/* The ops fused, by which inputs must be DequantizeLinear outputs (0: every
 * input present, a Conv's or Gemm's bias too, as ONNX Runtime's selectors
 * count them; 1: the first, the others being shapes, indices or scales), and
 * whether ONNX Runtime only drops the pair around them (its drop rules: the
 * op moves or picks quantized values as they are, so the DequantizeLinear and
 * the QuantizeLinear must quantize alike). */
static const struct {
    const char *op;
    int dq_inputs;
    bool same_params;
} UNIT_OPS[] = {
    {"Conv", 0, false},        {"MatMul", 0, false},    {"Gemm", 0, false},
    {"Add", 0, false},         {"Mul", 0, false},       {"Concat", 0, false},
    {"AveragePool", 1, false}, {"LeakyRelu", 1, false}, {"GlobalAveragePool", 1, false},
    {"Sigmoid", 1, false},     {"Softmax", 1, false},   {"Expand", 1, true},
    {"Flatten", 1, true},      {"Gather", 1, true},     {"GatherElements", 1, true},
    {"Reshape", 1, true},      {"Slice", 1, true},      {"Squeeze", 1, true},
    {"Tile", 1, true},         {"Transpose", 1, true},  {"Unsqueeze", 1, true},
    {"MaxPool", 1, true},      {"ReduceMax", 1, true},  {"ReduceMin", 1, true},
    {"Resize", 1, true},
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

/* Whether DequantizeLinear dq and QuantizeLinear q have the same scale and zero point. */
static bool same_params(const memplan_graph *g, const memplan_node *dq, const memplan_node *q) {
    return same_param(g, input_at(dq, 1), input_at(q, 1)) && same_param(g, input_at(dq, 2), input_at(q, 2));
}

/* How many node inputs and captures read each value, and the last node that does. */
typedef struct readers {
    int32_t *count, *last;
} readers;

static void readers_free(readers *r) {
    free(r->count);
    free(r->last);
}

static memplan_status readers_init(readers *r, const memplan_graph *g, memplan_error *err) {
    size_t n = (size_t)(g->n_values ? g->n_values : 1);
    r->count = calloc(n, sizeof *r->count);
    r->last = malloc(n * sizeof *r->last);
    if (!r->count || !r->last) {
        readers_free(r);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *node = &g->nodes[p];
        for (int32_t k = 0; k < node->n_inputs + node->n_captures; k++) {
            int32_t v = k < node->n_inputs ? node->inputs[k] : node->captures[k - node->n_inputs];
            if (v >= 0) r->count[v]++, r->last[v] = p;
        }
    }
    return MEMPLAN_OK;
}

/* Whether v is a DequantizeLinear's output and no graph output: a unit's
 * data input. Other nodes may read it too: ONNX Runtime gives each unit a
 * DequantizeLinear of its own first (EnsureUniqueDQForNodeUnit). */
static bool dq_output(const memplan_graph *g, int32_t v) {
    int32_t p = v >= 0 ? g->values[v].producer : -1;
    return p >= 0 && qdq_node(&g->nodes[p], "DequantizeLinear") && !(g->values[v].flags & MEMPLAN_VALUE_OUTPUT);
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

/* A constant holding one float (a scale, a Clip's bound) in *out. */
static bool const_float(const memplan_graph *g, int32_t v, float *out) {
    const memplan_tensor *t = constant_tensor(g, v);
    if (!t || !t->data || t->elem_type != MEMPLAN_DTYPE_FLOAT || t->data_len != sizeof *out) return false;
    memcpy(out, t->data, sizeof *out);
    return true;
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

/* Whether node p is the op of a unit: *quantized its QuantizeLinear's output,
 * *between the output of a Relu or Clip between them that ONNX Runtime
 * removes (or -1). */
static bool unit_at(const memplan_graph *g, const readers *r, int32_t p, int32_t *quantized, int32_t *between) {
    const memplan_node *n = &g->nodes[p];
    /* The output first: most nodes are no unit, and this test is cheaper than the op table's. */
    int32_t out = n->n_outputs > 0 ? n->outputs[0] : -1;
    const memplan_node *q = sole_reader(g, r, out, false), *act = NULL;
    /* A Relu or Clip alone after it that ONNX Runtime does not remove keeps
     * the op unfused (its selectors take no activation there). */
    if (!q && (act = sole_reader(g, r, out, true)) &&
        (!(q = sole_reader(g, r, act->outputs[0], false)) || !removed_before(g, act, q)))
        return false;
    /* Without a QuantizeLinear after it, a MatMul or Gemm still reads its
     * inputs quantized (MatMulIntegerToFloat, QGemm); its output stays float. */
    if (!q && (out < 0 || !default_domain(n) || (strcmp(n->op_type, "MatMul") != 0 && strcmp(n->op_type, "Gemm") != 0)))
        return false;
    int row = unit_op(n);
    if (row < 0 || (n->n_outputs > 1 && n->outputs[1] >= 0)) return false; /* one output: a MaxPool without Indices */
    int32_t data = UNIT_OPS[row].dq_inputs ? UNIT_OPS[row].dq_inputs : n->n_inputs, given = 0;
    if (n->n_inputs < data) return false;
    for (int32_t k = 0; k < data; k++) {
        if (n->inputs[k] < 0 && UNIT_OPS[row].dq_inputs == 0) continue; /* an optional input not given */
        if (!dq_output(g, n->inputs[k])) return false;
        if (q && UNIT_OPS[row].same_params && !same_params(g, &g->nodes[g->values[n->inputs[k]].producer], q))
            return false;
        given++;
    }
    if (!given) return false;
    *quantized = q ? q->outputs[0] : -1;
    *between = act ? act->outputs[0] : -1;
    return true;
}

memplan_status memplan_qdq_unit_list(const memplan_graph *g, memplan_qdq_unit **units, size_t *count,
                                     memplan_error *err) {
    *units = NULL;
    *count = 0;
    readers r;
    memplan_status st = readers_init(&r, g, err);
    if (st) return st;
    size_t n = 0, cap = 0;
    memplan_qdq_unit *list = NULL;
    for (int32_t p = 0; p < g->n_nodes; p++) {
        int32_t quantized, between;
        if (!unit_at(g, &r, p, &quantized, &between)) continue;
        if (n == cap) {
            memplan_qdq_unit *grown = realloc(list, (cap = cap ? 2 * cap : 16) * sizeof *list);
            if (!grown) {
                st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
                break;
            }
            list = grown;
        }
        list[n++] = (memplan_qdq_unit){p, g->nodes[p].outputs[0], quantized, between};
    }
    readers_free(&r);
    if (st) {
        free(list);
        return st;
    }
    *units = list;
    *count = n;
    return MEMPLAN_OK;
}

memplan_status memplan_qdq_fuse_views(const memplan_graph *g, const memplan_qdq_unit *units, size_t count,
                                      memplan_viewmap *vm, memplan_error *err) {
    if (!count) return MEMPLAN_OK;
    readers r;
    memplan_status st = readers_init(&r, g, err);
    if (st) return st;
    /* fused[v]: how many of v's reads are by the units' ops */
    int32_t *fused = calloc((size_t)(g->n_values ? g->n_values : 1), sizeof *fused);
    if (!fused) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (size_t i = 0; !st && i < count; i++) {
        const memplan_node *n = &g->nodes[units[i].node];
        for (int32_t k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0) fused[n->inputs[k]]++;
        const memplan_qdq_unit *u = &units[i];
        if (u->between >= 0) st = memplan_viewmap_add(vm, u->between, u->output, err);
        if (!st && u->quantized >= 0)
            st = memplan_viewmap_add(vm, u->quantized, u->between >= 0 ? u->between : u->output, err);
    }
    /* A DequantizeLinear output only fused ops read is never made; one another
     * node reads too is made for it (ONNX Runtime's copy), as written. */
    for (int32_t v = 0; !st && v < g->n_values; v++) {
        if (!fused[v] || fused[v] != r.count[v] || !dq_output(g, v)) continue;
        const memplan_node *dq = &g->nodes[g->values[v].producer];
        int32_t quantized = dq->n_inputs > 0 ? dq->inputs[0] : -1;
        if (quantized >= 0 && quantized != v) st = memplan_viewmap_add(vm, v, quantized, err);
    }
    free(fused);
    readers_free(&r);
    return st;
}
