/* constants.c -- the default constant-folding policy (memplan/constants.h). */
#include <stdlib.h>
#include <string.h>

#include "memplan/constants.h"

static bool default_domain(const memplan_node *n) { return !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0; }

/* Ops whose outputs are not a function of their inputs. */
static bool nondeterministic(const memplan_node *n) {
    static const char *const OPS[] = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                                      "Multinomial",  "Bernoulli",     "Dropout"};
    if (!default_domain(n)) return false;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strcmp(n->op_type, OPS[i]) == 0) return true;
    return false;
}

/* DequantizeLinear of a weight is not folded: ONNX Runtime keeps it for its
 * QDQ fusions (its ConstantFolding skips DequantizeLinear unless
 * session.disable_quant_qdq is set), so the quantized initializer stays
 * loaded and the float values are made while the model runs (or never, when
 * a fusion reads the quantized ones directly). */
static bool kept_for_qdq(const memplan_node *n) {
    return (default_domain(n) || strcmp(n->domain, "com.microsoft") == 0) &&
           strcmp(n->op_type, "DequantizeLinear") == 0;
}

/* A node folds when every input is a weight: at least one input, or the
 * node is a Constant. */
static bool folds(const memplan_node *n, const uint8_t *is_const) {
    if (n->n_subgraphs) return false;
    bool any = false;
    for (int32_t k = 0; k < n->n_inputs; k++) {
        if (n->inputs[k] < 0) continue;
        if (!is_const[n->inputs[k]]) return false; /* most nodes end here, before any string compare */
        any = true;
    }
    if (nondeterministic(n) || kept_for_qdq(n)) return false;
    return any || (default_domain(n) && strcmp(n->op_type, "Constant") == 0);
}

memplan_status memplan_constants_default(const memplan_graph *g, const uint8_t *outer, uint8_t **out,
                                         memplan_error *err) {
    uint8_t *c = calloc((size_t)(g->n_values ? g->n_values : 1), 1);
    *out = c;
    if (!c) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t v = 0; v < g->n_values; v++)
        if (g->values[v].flags & MEMPLAN_VALUE_INITIALIZER) c[v] = MEMPLAN_CONST_INITIALIZER;
        else if (outer && (g->values[v].flags & MEMPLAN_VALUE_CAPTURE) && g->values[v].outer >= 0)
            c[v] = outer[g->values[v].outer];
    /* Nodes are in topological order: one pass sees every input decided. */
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *n = &g->nodes[p];
        if (!folds(n, c)) continue;
        for (int32_t k = 0; k < n->n_outputs; k++)
            if (n->outputs[k] >= 0 && !c[n->outputs[k]]) c[n->outputs[k]] = MEMPLAN_CONST_FOLDED;
    }
    return MEMPLAN_OK;
}
