/*
 * inplace_views.c -- in-place reuse as view links, for planning with
 * in-place reuse applied (`plan --inplace`).
 *
 * Each reuse pair (output o may take input k's buffer) becomes the link
 * o -> k: o then owns no buffer of its own and every use of o extends the
 * life of k's buffer. A pair is skipped when that would be unsafe for the
 * shared buffer as a whole: k's buffer is still read after the node through
 * another view of it, some value sharing it is protected (an initializer, a
 * graph output, a graph input without allow_input_overwrite), o is already
 * a view, or o would become its own root.
 */
#include <stdlib.h>

#include "memplan/inplace.h"

/* The root of v's view chain, found through up[] (a copy of the view links
 * that find() shortens as it goes: path halving, so a chain of n in-place
 * links costs about n log n in all, not n^2). The step bound keeps a cyclic
 * map (never built by the loader) from looping. */
static int32_t find(int32_t *up, int32_t n, int32_t v) {
    for (int32_t steps = 0; up[v] >= 0 && steps < n; steps++) {
        if (up[up[v]] >= 0) up[v] = up[up[v]];
        v = up[v];
    }
    return v;
}

typedef struct groups {
    int32_t *last;   /* per root: last use of any value sharing its buffer */
    uint8_t *locked; /* per root: some member is protected */
    int32_t *up;     /* the view links, shortened by find() */
} groups;

static bool groups_init(groups *gr, const memplan_inplace *ctx, const memplan_viewmap *vm) {
    size_t n = (size_t)(vm->n_values ? vm->n_values : 1);
    gr->last = malloc(n * sizeof *gr->last);
    gr->locked = calloc(n, 1);
    gr->up = malloc(n * sizeof *gr->up);
    if (!gr->last || !gr->locked || !gr->up) return false;
    for (int32_t v = 0; v < vm->n_values; v++) {
        gr->last[v] = -1;
        gr->up[v] = vm->source[v];
    }
    for (int32_t v = 0; v < vm->n_values; v++) {
        int32_t r = find(gr->up, vm->n_values, v), last;
        memplan_inplace_last_use(ctx, v, &last, NULL);
        if (last > gr->last[r]) gr->last[r] = last;
        if (memplan_inplace_is_protected(ctx, v)) gr->locked[r] = 1;
    }
    return true;
}

memplan_status memplan_inplace_view_links(const memplan_inplace *ctx, memplan_viewmap *vm, memplan_error *err) {
    const memplan_graph *g = memplan_inplace_graph(ctx);
    groups gr = {NULL, NULL, NULL};
    memplan_status st = MEMPLAN_OK;
    if (!groups_init(&gr, ctx, vm)) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t i = 0; !st && i < g->n_nodes; i++) {
        const memplan_reuse *items;
        size_t cnt;
        memplan_inplace_node_reuse(ctx, i, &items, &cnt, NULL);
        for (size_t k = 0; !st && k < cnt; k++) {
            int32_t out = g->nodes[i].outputs[items[k].output_index];
            int32_t in = g->nodes[i].inputs[items[k].input_index];
            int32_t root = find(gr.up, vm->n_values, in);
            if (vm->source[out] >= 0 || root == out || gr.locked[root] || gr.last[root] > i) continue;
            st = memplan_viewmap_add(vm, out, in, err);
            gr.up[out] = root; /* out was a root (not a view): its group joins root's */
            /* The output's own group (its later views) now shares the root's buffer. */
            if (gr.last[out] > gr.last[root]) gr.last[root] = gr.last[out];
            gr.locked[root] |= gr.locked[out];
        }
    }
    free(gr.last);
    free(gr.locked);
    free(gr.up);
    return st;
}
