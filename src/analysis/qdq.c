/*
 * qdq.c -- QDQ node units (memplan/qdq.h): one pass to count each value's
 * readers, one over the nodes.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/qdq.h"

static bool default_domain(const memplan_node *n) { return !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0; }

/* The ops fused, by how many leading inputs are data from a
 * DequantizeLinear (0: all of them). */
static const struct {
    const char *op;
    int dq_inputs;
} UNIT_OPS[] = {
    {"Conv", 2},    {"MatMul", 2},         {"Add", 2},       {"Mul", 2},
    {"Concat", 0},  {"AveragePool", 1},    {"LeakyRelu", 1}, {"GlobalAveragePool", 1},
    {"Sigmoid", 1}, {"Softmax", 1},        {"Expand", 1},    {"Flatten", 1},
    {"Gather", 1},  {"GatherElements", 1}, {"Reshape", 1},   {"Slice", 1},
    {"Squeeze", 1}, {"Tile", 1},           {"Transpose", 1}, {"Unsqueeze", 1},
    {"MaxPool", 1}, {"ReduceMax", 1},      {"ReduceMin", 1}, {"Resize", 1},
};

static int dq_inputs_of(const memplan_node *n) {
    if (!default_domain(n)) return -1;
    for (size_t i = 0; i < sizeof UNIT_OPS / sizeof UNIT_OPS[0]; i++)
        if (strcmp(n->op_type, UNIT_OPS[i].op) == 0) return UNIT_OPS[i].dq_inputs;
    return -1;
}

/* Whether value v is the output of a node of op `op` (default domain). */
static bool made_by(const memplan_graph *g, int32_t v, const char *op) {
    int32_t p = v >= 0 ? g->values[v].producer : -1;
    return p >= 0 && strcmp(g->nodes[p].op_type, op) == 0 && default_domain(&g->nodes[p]);
}

memplan_status memplan_qdq_units(const memplan_graph *g, size_t *count, memplan_error *err) {
    *count = 0;
    /* readers[v]: how many node inputs and captures read v; reader[v]: the last of them */
    int32_t *readers = calloc((size_t)(g->n_values ? g->n_values : 1), sizeof *readers);
    int32_t *reader = malloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *reader);
    if (!readers || !reader) {
        free(readers);
        free(reader);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *n = &g->nodes[p];
        for (int32_t k = 0; k < n->n_inputs + n->n_captures; k++) {
            int32_t v = k < n->n_inputs ? n->inputs[k] : n->captures[k - n->n_inputs];
            if (v >= 0) readers[v]++, reader[v] = p;
        }
    }
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *n = &g->nodes[p];
        /* The output first: most nodes are no unit, and this test is cheaper than the op table's. */
        int32_t out = n->n_outputs > 0 ? n->outputs[0] : -1;
        if (out < 0 || readers[out] != 1 || (g->values[out].flags & MEMPLAN_VALUE_OUTPUT)) continue;
        const memplan_node *q = &g->nodes[reader[out]];
        if (strcmp(q->op_type, "QuantizeLinear") != 0 || !default_domain(q) || q->n_inputs < 1 || q->inputs[0] != out)
            continue;
        int want = dq_inputs_of(n);
        int32_t data = want ? want : n->n_inputs;
        bool unit = want >= 0 && n->n_inputs >= data && data > 0;
        for (int32_t k = 0; unit && k < data; k++) {
            int32_t v = n->inputs[k];
            unit = made_by(g, v, "DequantizeLinear") && readers[v] == 1 && !(g->values[v].flags & MEMPLAN_VALUE_OUTPUT);
        }
        *count += unit;
    }
    free(readers);
    free(reader);
    return MEMPLAN_OK;
}
