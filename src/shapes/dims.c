/* dims.c -- bindable input dims and fresh dims with their births (dims.h). */
#include "shapes/dims.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool grow(void **arr, size_t *cap, size_t n, size_t elem) {
    if (n < *cap) return true;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, c * elem);
    if (!p) return false;
    *arr = p;
    *cap = c;
    return true;
}

/* Declared "unk__" names of g and its subgraphs; subgraphs nest at most
 * MEMPLAN_MAX_GRAPH_DEPTH deep, which bounds the recursion. */
static bool collect(mp_dims *d, const memplan_graph *g) {
    if (g->id >= 0 && g->id < d->n_graphs) d->graphs[g->id] = g;
    for (int32_t v = 0; v < g->n_values; v++) {
        const memplan_type *t = &g->values[v].type;
        for (int32_t i = 0; i < t->rank && t->kind == MEMPLAN_TYPE_TENSOR; i++)
            if (t->dims[i].kind == MEMPLAN_DIM_PARAM && strncmp(t->dims[i].param, "unk__", 5) == 0 &&
                !mp_strmap_put(&d->declared, t->dims[i].param, 1))
                return false;
    }
    for (int32_t n = 0; n < g->n_nodes; n++)
        for (int32_t k = 0; k < g->nodes[n].n_subgraphs; k++)
            if (!collect(d, g->nodes[n].subgraphs[k])) return false;
    return true;
}

bool mp_dims_init(mp_dims *d, mp_arena *arena, memplan_expr_pool *pool, const memplan_model *m) {
    memset(d, 0, sizeof *d);
    d->arena = arena;
    d->pool = pool;
    mp_strmap_init(&d->declared);
    mp_strmap_init(&d->fresh);
    mp_strmap_init(&d->input_names);
    d->n_graphs = m->n_graphs;
    d->graphs = calloc((size_t)(m->n_graphs ? m->n_graphs : 1), sizeof *d->graphs);
    if (!d->graphs || !collect(d, m->graph)) return false;
    for (int32_t f = 0; f < m->n_functions; f++)
        if (!collect(d, m->functions[f].body)) return false;
    return true;
}

void mp_dims_free(mp_dims *d) {
    mp_strmap_free(&d->declared);
    mp_strmap_free(&d->fresh);
    mp_strmap_free(&d->input_names);
    free(d->births);
    free(d->inputs);
    free(d->graphs);
    free(d->data);
}

memplan_expr mp_dims_fresh(mp_dims *d, int32_t graph, int32_t node) {
    char buf[32];
    do snprintf(buf, sizeof buf, "unk__%lld", (long long)d->next++);
    while (mp_strmap_get(&d->declared, buf) >= 0);
    char *name = mp_arena_strdup(d->arena, buf);
    if (!name || !grow((void **)&d->births, &d->cap_births, d->n_births, sizeof *d->births) ||
        !mp_strmap_put(&d->fresh, name, (int32_t)d->n_births))
        return MEMPLAN_EXPR_NONE;
    d->births[d->n_births++] = (mp_dim_birth){name, graph, node, false, MEMPLAN_EXPR_NONE};
    return memplan_expr_sym(d->pool, name);
}

bool mp_dims_mark_data(mp_dims *d, memplan_expr bound) {
    if (!d->n_births || !grow((void **)&d->data, &d->cap_data, d->n_data, sizeof *d->data)) return false;
    d->births[d->n_births - 1].data = true;
    d->births[d->n_births - 1].bound = bound;
    d->data[d->n_data++] = d->n_births - 1;
    return true;
}

const mp_dim_birth *mp_dims_birth(const mp_dims *d, const char *name) {
    int32_t i = mp_strmap_get(&d->fresh, name); /* fresh names are identifiers: never escaped */
    return i >= 0 ? &d->births[i] : NULL;
}

bool mp_dims_add_input(mp_dims *d, const char *name, const char *input, int32_t axis) {
    if (mp_strmap_get(&d->input_names, name) >= 0) return true;
    if (!grow((void **)&d->inputs, &d->cap_inputs, d->n_inputs, sizeof *d->inputs) ||
        !mp_strmap_put(&d->input_names, name, (int32_t)d->n_inputs))
        return false;
    d->inputs[d->n_inputs++] = (memplan_input_dim){name, input, axis};
    return true;
}

const memplan_input_dim *mp_dims_input(const mp_dims *d, const char *name) {
    int32_t i = mp_strmap_get(&d->input_names, name);
    if (i >= 0) return &d->inputs[i];
    for (size_t k = 0; k < d->n_inputs; k++) /* the escaped spelling */
        if (memplan_expr_name_is(d->inputs[k].name, name)) return &d->inputs[k];
    return NULL;
}
