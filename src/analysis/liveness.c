/*
 * liveness.c -- buffer owners and their live intervals.
 *
 * 1. root(): follow view links to the owner, with cycle detection;
 * 2. owners: node outputs that are not views and not external (plus graph
 *    inputs if asked);
 * 3. one pass over the nodes: every input and capture extends its root's end;
 * 4. graph outputs (and the roots of views that are outputs) live to the end.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/liveness.h"

static memplan_status find_roots(const memplan_graph *g, const memplan_viewmap *vm, int32_t *root, memplan_error *err) {
    int32_t n = g->n_values;
    /* state: 0 unvisited, 1 on the current path, 2 done */
    unsigned char *state = calloc((size_t)(n ? n : 1), 1);
    if (!state) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t v = 0; v < n; v++) root[v] = v;
    memplan_status st = MEMPLAN_OK;
    for (int32_t v = 0; v < n && !st; v++) {
        if (state[v] == 2) continue;
        int32_t u = v;
        while (vm && vm->source[u] >= 0 && state[u] == 0) {
            state[u] = 1;
            u = vm->source[u];
        }
        if (state[u] == 1) {
            st =
                memplan_error_set(err, MEMPLAN_EINPUT, "view links form a cycle through value '%s'", g->values[u].name);
            break;
        }
        int32_t r = state[u] == 2 ? root[u] : u;
        state[u] = 2;
        root[u] = r;
        for (int32_t w = v; w != u; w = vm->source[w]) {
            root[w] = r;
            state[w] = 2;
        }
    }
    free(state);
    return st;
}

static bool owns_buffer(const memplan_value *v, bool is_view, bool include_inputs) {
    if (is_view || (v->flags & (MEMPLAN_VALUE_INITIALIZER | MEMPLAN_VALUE_CAPTURE))) return false;
    if (v->flags & MEMPLAN_VALUE_NODE_OUTPUT) return true;
    return include_inputs && (v->flags & MEMPLAN_VALUE_INPUT);
}

static void extend(memplan_liveness *lv, int32_t v, int32_t pos) {
    if (v < 0) return;
    int32_t r = lv->root[v];
    if (r >= 0 && lv->start[r] >= 0 && lv->end[r] < pos) lv->end[r] = pos;
}

memplan_status memplan_liveness_compute(const memplan_graph *g, const memplan_liveness_options *opts,
                                        memplan_liveness *lv, memplan_error *err) {
    memset(lv, 0, sizeof *lv);
    const memplan_viewmap *vm = opts ? opts->views : NULL;
    bool include_inputs = opts && opts->include_inputs;
    const uint8_t *external = opts ? opts->external : NULL;
    if (vm && vm->n_values != g->n_values)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "the view map was made for another graph");
    int32_t n = g->n_values;
    size_t cnt = (size_t)(n ? n : 1);
    lv->n_values = n;
    lv->n_positions = g->n_nodes;
    lv->root = malloc(cnt * sizeof *lv->root);
    lv->start = malloc(cnt * sizeof *lv->start);
    lv->end = malloc(cnt * sizeof *lv->end);
    lv->owners = malloc(cnt * sizeof *lv->owners);
    if (!lv->root || !lv->start || !lv->end || !lv->owners) {
        memplan_liveness_free(lv);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    memplan_status st = find_roots(g, vm, lv->root, err);
    if (st) {
        memplan_liveness_free(lv);
        return st;
    }
    for (int32_t v = 0; v < n; v++) {
        lv->start[v] = lv->end[v] = -1;
        bool is_view = vm && vm->source[v] >= 0;
        if (!owns_buffer(&g->values[v], is_view, include_inputs) || (external && external[v])) continue;
        int32_t def = (g->values[v].flags & MEMPLAN_VALUE_NODE_OUTPUT) ? g->values[v].producer : 0;
        lv->start[v] = lv->end[v] = def;
    }
    /* Values whose root owns nothing (weights, excluded inputs) have no owner. */
    for (int32_t v = 0; v < n; v++)
        if (lv->start[lv->root[v]] < 0) lv->root[v] = -1;
    /* Placement order: graph inputs (in input order), then node outputs in order. */
    if (include_inputs)
        for (int32_t i = 0; i < g->n_inputs; i++) {
            int32_t v = g->inputs[i];
            if (lv->start[v] >= 0 && !(g->values[v].flags & MEMPLAN_VALUE_NODE_OUTPUT)) lv->owners[lv->n_owners++] = v;
        }
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *nd = &g->nodes[p];
        for (int32_t k = 0; k < nd->n_inputs; k++) extend(lv, nd->inputs[k], p);
        for (int32_t k = 0; k < nd->n_captures; k++) extend(lv, nd->captures[k], p);
        for (int32_t k = 0; k < nd->n_outputs; k++) {
            int32_t v = nd->outputs[k];
            if (v >= 0 && lv->start[v] >= 0) lv->owners[lv->n_owners++] = v;
        }
    }
    int32_t last = g->n_nodes > 0 ? g->n_nodes - 1 : 0;
    for (int32_t i = 0; i < g->n_outputs; i++) extend(lv, g->outputs[i], last);
    return MEMPLAN_OK;
}

void memplan_liveness_free(memplan_liveness *lv) {
    free(lv->root);
    free(lv->start);
    free(lv->end);
    free(lv->owners);
    memset(lv, 0, sizeof *lv);
}
