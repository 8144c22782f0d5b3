/* views.c -- view maps and the default view policy (kept out of liveness). */
#include <stdlib.h>
#include <string.h>

#include "memplan/liveness.h"

memplan_status memplan_viewmap_init(memplan_viewmap *vm, const memplan_graph *g, memplan_error *err) {
    vm->n_values = g->n_values;
    vm->source = malloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *vm->source);
    if (!vm->source) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t i = 0; i < g->n_values; i++) vm->source[i] = -1;
    return MEMPLAN_OK;
}

memplan_status memplan_viewmap_add(memplan_viewmap *vm, int32_t view, int32_t source, memplan_error *err) {
    if (view < 0 || view >= vm->n_values || source < 0 || source >= vm->n_values || view == source)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "invalid view link %d -> %d", (int)view, (int)source);
    vm->source[view] = source;
    return MEMPLAN_OK;
}

static bool is_view_op(const memplan_node *n) {
    static const char *const OPS[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
    if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0) return false;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strcmp(n->op_type, OPS[i]) == 0) return true;
    return false;
}

memplan_status memplan_viewmap_default(memplan_viewmap *vm, const memplan_graph *g, memplan_error *err) {
    memplan_status st = memplan_viewmap_init(vm, g, err);
    if (st) return st;
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *n = &g->nodes[p];
        if (!is_view_op(n) || n->n_inputs < 1 || n->n_outputs < 1) continue;
        if (n->inputs[0] < 0 || n->outputs[0] < 0) continue;
        vm->source[n->outputs[0]] = n->inputs[0];
    }
    return MEMPLAN_OK;
}

void memplan_viewmap_free(memplan_viewmap *vm) {
    free(vm->source);
    vm->source = NULL;
    vm->n_values = 0;
}
