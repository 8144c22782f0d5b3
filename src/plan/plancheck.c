/*
 * plancheck.c -- an independent check of a slot plan against the graph.
 *
 * 1. every use of a value, through views too, lies inside its owner's
 *    interval (a view is never used after its root retired);
 * 2. owners sharing a slot are never live at the same position;
 * 3. no value defined after a graph output shares that output's slot.
 */
#include <stdlib.h>

#include "memplan/validate.h"

static memplan_status violation(memplan_graph_violation *kind, memplan_graph_violation k, memplan_error *err,
                                const char *fmt, const char *a, const char *b, int pos) {
    if (kind) *kind = k;
    return memplan_error_set(err, MEMPLAN_EINTERNAL, fmt, a, b, pos);
}

typedef struct owner_ref {
    int64_t slot;
    int32_t start;
    int32_t value;
} owner_ref;

static int cmp_owner(const void *x, const void *y) {
    const owner_ref *a = x, *b = y;
    if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return a->value < b->value ? -1 : a->value > b->value;
}

memplan_status memplan_liveness_check_slots(const memplan_graph *g, const memplan_liveness *lv, const int64_t *slot_of,
                                            memplan_graph_violation *kind, memplan_error *err) {
    if (kind) *kind = MEMPLAN_GV_NONE;
    /* 1. uses inside the owner's interval */
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *n = &g->nodes[p];
        for (int32_t k = 0; k < n->n_inputs + n->n_captures; k++) {
            int32_t v = k < n->n_inputs ? n->inputs[k] : n->captures[k - n->n_inputs];
            if (v < 0 || lv->root[v] < 0) continue;
            int32_t r = lv->root[v];
            if (p < lv->start[r] || p > lv->end[r])
                return violation(kind, MEMPLAN_GV_USE_OUTSIDE, err,
                                 "'%s' is used outside the interval of its buffer '%s' (at position %d)",
                                 g->values[v].name, g->values[r].name, (int)p);
        }
    }
    /* 2 and 3: owners grouped by slot, in start order */
    owner_ref *o = malloc((size_t)(lv->n_owners ? lv->n_owners : 1) * sizeof *o);
    if (!o) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    int32_t n = 0;
    for (int32_t i = 0; i < lv->n_owners; i++) {
        int32_t v = lv->owners[i];
        if (slot_of[v] >= 0) o[n++] = (owner_ref){slot_of[v], lv->start[v], v};
    }
    qsort(o, (size_t)n, sizeof *o, cmp_owner);
    memplan_status st = MEMPLAN_OK;
    for (int32_t i = 1; i < n && !st; i++) {
        if (o[i].slot != o[i - 1].slot) continue;
        int32_t a = o[i - 1].value, b = o[i].value;
        if (lv->start[b] <= lv->end[a])
            st = violation(kind, MEMPLAN_GV_SHARED_OVERLAP, err,
                           "'%s' and '%s' share a slot while both live (position %d)", g->values[a].name,
                           g->values[b].name, (int)lv->start[b]);
        else if (g->values[a].flags & MEMPLAN_VALUE_OUTPUT)
            st = violation(kind, MEMPLAN_GV_OUTPUT_REUSED, err,
                           "graph output '%s' gives its slot to '%s' (defined at position %d)", g->values[a].name,
                           g->values[b].name, (int)lv->start[b]);
    }
    free(o);
    return st;
}
