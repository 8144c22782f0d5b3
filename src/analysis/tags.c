/*
 * tags.c -- value and node tags (docs/semantics.md, "Tags"): shape, axes, weight,
 * ambiguous or none, found by repeating forward and backward rules over the
 * nodes until no tag changes. Tags only move up the lattice
 * none < weight < shape|axes < ambiguous, so the loop ends.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/inplace_internal.h"

/* Merge a new tag into an old one. */
static memplan_tag merge(memplan_tag old, memplan_tag add) {
    if (add == MEMPLAN_TAG_NONE || old == add) return old;
    if (old == MEMPLAN_TAG_NONE) return add;
    if (old == MEMPLAN_TAG_AMBIGUOUS) return old;
    if (add == MEMPLAN_TAG_WEIGHT && (old == MEMPLAN_TAG_SHAPE || old == MEMPLAN_TAG_AXES)) return old;
    if (old == MEMPLAN_TAG_WEIGHT && (add == MEMPLAN_TAG_SHAPE || add == MEMPLAN_TAG_AXES)) return add;
    return MEMPLAN_TAG_AMBIGUOUS;
}

/* What the rules see of a node's op (default domain only; else OP_OTHER),
 * found once per node rather than by name in every round. */
typedef enum op_kind {
    OP_OTHER,
    OP_SHAPE, /* Shape, Size */
    OP_CONSTANT,
    OP_CONCAT,
    OP_RESHAPE,
    OP_EXPAND,
    OP_SLICE,
    OP_SQUEEZE, /* Squeeze, Unsqueeze */
    OP_REDUCE,  /* Reduce* */
    OP_PASS,    /* Identity, Cast, Gather */
    OP_BINARY   /* binary elementwise */
} op_kind;

static op_kind kind_of(const memplan_node *n) {
    static const struct {
        const char *op;
        op_kind kind;
    } OPS[] = {
        {"Shape", OP_SHAPE},       {"Size", OP_SHAPE},           {"Constant", OP_CONSTANT}, {"Concat", OP_CONCAT},
        {"Reshape", OP_RESHAPE},   {"Expand", OP_EXPAND},        {"Slice", OP_SLICE},       {"Squeeze", OP_SQUEEZE},
        {"Unsqueeze", OP_SQUEEZE}, {"Identity", OP_PASS},        {"Cast", OP_PASS},         {"Gather", OP_PASS},
        {"Add", OP_BINARY},        {"Sub", OP_BINARY},           {"Mul", OP_BINARY},        {"Div", OP_BINARY},
        {"Pow", OP_BINARY},        {"Mod", OP_BINARY},           {"And", OP_BINARY},        {"Or", OP_BINARY},
        {"Xor", OP_BINARY},        {"BitShift", OP_BINARY},      {"BitwiseAnd", OP_BINARY}, {"BitwiseOr", OP_BINARY},
        {"BitwiseXor", OP_BINARY}, {"Equal", OP_BINARY},         {"Less", OP_BINARY},       {"LessOrEqual", OP_BINARY},
        {"Greater", OP_BINARY},    {"GreaterOrEqual", OP_BINARY}};
    if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0) return OP_OTHER;
    if (strncmp(n->op_type, "Reduce", 6) == 0) return OP_REDUCE;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strcmp(n->op_type, OPS[i].op) == 0) return OPS[i].kind;
    return OP_OTHER;
}

typedef struct tagger {
    memplan_inplace *c;
    bool changed;
} tagger;

static void set_tag(tagger *t, int32_t v, memplan_tag tag) {
    if (v < 0) return;
    memplan_tag m = merge(t->c->vtag[v], tag);
    if (m != t->c->vtag[v]) {
        t->c->vtag[v] = m;
        t->changed = true;
    }
}

static void set_input(tagger *t, const memplan_node *n, int32_t k, memplan_tag tag) {
    if (k < n->n_inputs) set_tag(t, n->inputs[k], tag);
}

/* The tag all non-empty outputs share (ambiguous too), else NONE. */
static memplan_tag outputs_agree(const memplan_inplace *c, const memplan_node *n) {
    memplan_tag common = MEMPLAN_TAG_NONE;
    for (int32_t o = 0; o < n->n_outputs; o++) {
        if (n->outputs[o] < 0) continue;
        memplan_tag x = c->vtag[n->outputs[o]];
        if (x == MEMPLAN_TAG_NONE || (common && x != common)) return MEMPLAN_TAG_NONE;
        common = x;
    }
    return common;
}

/* The tag a node gives its outputs (forward rules). */
static memplan_tag forward_tag(const memplan_inplace *c, const memplan_node *n, op_kind op) {
    if (op == OP_SHAPE) return MEMPLAN_TAG_SHAPE;
    if (op == OP_CONSTANT) {
        memplan_tag agreed = outputs_agree(c, n);
        return agreed ? agreed : MEMPLAN_TAG_WEIGHT;
    }
    if (op == OP_CONCAT) {
        memplan_tag common = MEMPLAN_TAG_NONE;
        for (int32_t k = 0; k < n->n_inputs; k++) {
            if (n->inputs[k] < 0) continue;
            memplan_tag x = c->vtag[n->inputs[k]];
            if (x == MEMPLAN_TAG_WEIGHT) return MEMPLAN_TAG_WEIGHT;
            if (x == MEMPLAN_TAG_NONE) continue;
            common = common == MEMPLAN_TAG_NONE || common == x ? x : MEMPLAN_TAG_AMBIGUOUS;
        }
        return common;
    }
    return n->n_inputs > 0 && n->inputs[0] >= 0 ? c->vtag[n->inputs[0]] : MEMPLAN_TAG_NONE;
}

/* Inputs that name shapes or axes. */
static void input_rules(tagger *t, const memplan_node *n, op_kind op) {
    if (op == OP_RESHAPE || op == OP_EXPAND) set_input(t, n, 1, MEMPLAN_TAG_SHAPE);
    if (op == OP_SLICE) {
        set_input(t, n, 1, MEMPLAN_TAG_SHAPE);
        set_input(t, n, 2, MEMPLAN_TAG_SHAPE);
        set_input(t, n, 4, MEMPLAN_TAG_SHAPE);
        set_input(t, n, 3, MEMPLAN_TAG_AXES);
    }
    if (op == OP_SQUEEZE || op == OP_REDUCE) set_input(t, n, 1, MEMPLAN_TAG_AXES);
}

/* A consistent output tag flows back to some inputs. */
static void backward_rules(tagger *t, const memplan_node *n, op_kind op) {
    memplan_tag out = outputs_agree(t->c, n);
    if (out == MEMPLAN_TAG_NONE) return;
    if (op == OP_CONCAT) {
        /* as the reference: an ambiguous Concat does not spread to its inputs */
        for (int32_t k = 0; out != MEMPLAN_TAG_AMBIGUOUS && k < n->n_inputs; k++) set_input(t, n, k, out);
        return;
    }
    /* Identity, Cast, Reshape, Squeeze, Unsqueeze, Gather, Slice */
    if (op == OP_PASS || op == OP_RESHAPE || op == OP_SQUEEZE || op == OP_SLICE) {
        set_input(t, n, 0, out);
        return;
    }
    if (out == MEMPLAN_TAG_WEIGHT && op == OP_BINARY) {
        set_input(t, n, 0, out);
        set_input(t, n, 1, out);
    }
}

/* The tag of the last MEMPLAN_KEY_VALUE_TAG entry in md that names one
 * (other text is ignored), over *tag; keys compare up to a NUL byte, as the
 * annotator matches them. */
static void tag_entry(const memplan_kv *md, int32_t n, memplan_tag *tag) {
    for (int32_t k = 0; k < n; k++) {
        memplan_tag t;
        if (strcmp(md[k].key, MEMPLAN_KEY_VALUE_TAG) == 0 && memplan_tag_parse(md[k].value, &t)) *tag = t;
    }
}

/* Graph inputs and initializers start as weight, or as their metadata says:
 * the value's declarations (input, output, value_info) first, then its
 * initializer's TensorProto, the last tag met winning. */
static void start_tags(memplan_inplace *c) {
    const memplan_graph *g = c->g;
    for (int32_t v = 0; v < c->n_values; v++) {
        const memplan_value *val = &g->values[v];
        /* A body's captured outer values start like its inputs: they come
         * from outside the graph. (The main graph has no captures.) */
        if (!(val->flags & (MEMPLAN_VALUE_INPUT | MEMPLAN_VALUE_INITIALIZER | MEMPLAN_VALUE_CAPTURE))) continue;
        memplan_tag tag = MEMPLAN_TAG_WEIGHT;
        tag_entry(val->metadata, val->n_metadata, &tag);
        if (val->initializer) tag_entry(val->initializer->metadata, val->initializer->n_metadata, &tag);
        c->vtag[v] = tag;
    }
}

memplan_status mp_compute_tags(memplan_inplace *c, memplan_error *err) {
    c->vtag = calloc((size_t)(c->n_values ? c->n_values : 1), sizeof *c->vtag);
    c->ntag = calloc((size_t)(c->n_nodes ? c->n_nodes : 1), sizeof *c->ntag);
    unsigned char *ops = malloc((size_t)(c->n_nodes ? c->n_nodes : 1));
    if (!c->vtag || !c->ntag || !ops) {
        free(ops);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while tagging values");
    }
    for (int32_t i = 0; i < c->n_nodes; i++) ops[i] = (unsigned char)kind_of(&c->g->nodes[i]);
    start_tags(c);
    tagger t = {c, true};
    /* Each value changes at most 3 times, so this bound is never the reason to stop. */
    int64_t rounds = 4 * (int64_t)c->n_values + 2;
    while (t.changed && rounds-- > 0) {
        t.changed = false;
        for (int32_t i = 0; i < c->n_nodes; i++) {
            const memplan_node *n = &c->g->nodes[i];
            op_kind op = (op_kind)ops[i];
            memplan_tag fwd = forward_tag(c, n, op);
            c->ntag[i] = fwd;
            for (int32_t k = 0; k < n->n_outputs; k++) set_tag(&t, n->outputs[k], fwd);
            input_rules(&t, n, op);
            backward_rules(&t, n, op);
        }
    }
    free(ops);
    for (int32_t v = 0; v < c->n_values && !c->has_tags; v++) c->has_tags = c->vtag[v] != MEMPLAN_TAG_NONE;
    return MEMPLAN_OK;
}
