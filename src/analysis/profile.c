/*
 * profile.c -- the per-node memory profile (docs/semantics.md, "Profile").
 *
 * A live set of (value, bucket, tag, size) walks the nodes. Running sums per
 * bucket and tag are kept up to date as values join and leave, so each node
 * costs O(its inputs and outputs), not O(live set). Amounts are memplan_expr
 * handles (canonical, so x - x folds to 0 for symbolic sizes too).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/inplace_internal.h"

typedef struct live_rec {
    int8_t bucket; /* -1: not live */
    int8_t tag;
    memplan_expr size;
} live_rec;

typedef struct walker {
    memplan_inplace *c;
    live_rec *live; /* per value */
    memplan_expr sum[MEMPLAN_BUCKET_COUNT][MEMPLAN_TAG_COUNT];
} walker;

/* Byte size of a value; 0 when unknown (such values are left out). */
static memplan_expr value_bytes(const memplan_inplace *c, int32_t v) {
    const memplan_vshape *s = memplan_shapes_value(c->shapes, c->g, v);
    return s && s->bytes != MEMPLAN_EXPR_NONE ? s->bytes : memplan_expr_const(c->pool, 0);
}

static void join(walker *w, int32_t v, memplan_bucket b, memplan_expr size) {
    live_rec *r = &w->live[v];
    if (r->bucket >= 0) return;
    r->bucket = (int8_t)b;
    r->tag = (int8_t)w->c->vtag[v];
    r->size = size;
    w->sum[b][r->tag] = memplan_expr_add(w->c->pool, w->sum[b][r->tag], size);
}

static void leave(walker *w, int32_t v) {
    live_rec *r = &w->live[v];
    if (r->bucket < 0) return;
    w->sum[r->bucket][r->tag] = memplan_expr_sub(w->c->pool, w->sum[r->bucket][r->tag], r->size);
    r->bucket = -1;
}

/* The reuse entry of output o of node i, or NULL. */
static const memplan_reuse *reuse_of(const memplan_inplace *c, int32_t i, int32_t o) {
    for (int32_t r = c->reuse_off[i]; r < c->reuse_off[i + 1]; r++)
        if (c->reuse[r].output_index == o) return &c->reuse[r];
    return NULL;
}

static memplan_expr sum_row(memplan_expr_pool *p, const memplan_expr *row) {
    memplan_expr s = memplan_expr_const(p, 0);
    for (int t = 0; t < MEMPLAN_TAG_COUNT; t++) s = memplan_expr_add(p, s, row[t]);
    return s;
}

/* Snapshot at node i: live buckets, then the outputs not covered by reuse. */
static void snapshot(walker *w, int32_t i, memplan_profile *p) {
    memplan_inplace *c = w->c;
    memplan_expr zero = memplan_expr_const(c->pool, 0);
    memcpy(p->bucket, w->sum, sizeof p->bucket);
    for (int t = 0; t < MEMPLAN_TAG_COUNT; t++) p->bucket[MEMPLAN_BUCKET_OUTPUTS][t] = zero;
    const memplan_node *n = &c->g->nodes[i];
    for (int32_t o = 0; o < n->n_outputs; o++) {
        int32_t v = n->outputs[o];
        if (v < 0 || reuse_of(c, i, o)) continue;
        memplan_expr *cell = &p->bucket[MEMPLAN_BUCKET_OUTPUTS][c->vtag[v]];
        *cell = memplan_expr_add(c->pool, *cell, value_bytes(c, v));
    }
    p->already_allocated_bytes =
        memplan_expr_add(c->pool,
                         memplan_expr_add(c->pool, sum_row(c->pool, p->bucket[MEMPLAN_BUCKET_INPUTS]),
                                          sum_row(c->pool, p->bucket[MEMPLAN_BUCKET_INITIALIZERS])),
                         sum_row(c->pool, p->bucket[MEMPLAN_BUCKET_INTERMEDIATES]));
    p->output_allocation_bytes = sum_row(c->pool, p->bucket[MEMPLAN_BUCKET_OUTPUTS]);
    p->total_bytes = memplan_expr_add(c->pool, p->already_allocated_bytes, p->output_allocation_bytes);
}

/* After node i: outputs that are read later or are graph outputs join; the
 * released values and graph inputs reused in place leave. */
static void advance(walker *w, int32_t i) {
    memplan_inplace *c = w->c;
    const memplan_node *n = &c->g->nodes[i];
    for (int32_t o = 0; o < n->n_outputs; o++) {
        int32_t v = n->outputs[o];
        if (v < 0) continue;
        if (!(c->g->values[v].flags & MEMPLAN_VALUE_OUTPUT) && c->last_use[v] <= i) continue;
        const memplan_reuse *r = reuse_of(c, i, o);
        /* A reused buffer keeps its size: that of the input's live record,
         * which may itself hold a larger buffer it reused earlier. */
        int32_t in = r ? n->inputs[r->input_index] : -1;
        memplan_expr size = in < 0                    ? value_bytes(c, v)
                            : w->live[in].bucket >= 0 ? w->live[in].size
                                                      : value_bytes(c, in);
        join(w, v, MEMPLAN_BUCKET_INTERMEDIATES, size);
    }
    for (int32_t k = c->rel.off[i]; k < c->rel.off[i + 1]; k++) leave(w, c->rel.v[k]);
    for (int32_t r = c->reuse_off[i]; r < c->reuse_off[i + 1]; r++) {
        int32_t v = n->inputs[c->reuse[r].input_index];
        if (c->g->values[v].flags & MEMPLAN_VALUE_INPUT) leave(w, v);
    }
}

memplan_status mp_compute_profile(memplan_inplace *c, memplan_error *err) {
    walker w = {c, NULL, {{0}}};
    c->prof = calloc((size_t)(c->n_nodes ? c->n_nodes : 1), sizeof *c->prof);
    w.live = malloc((size_t)(c->n_values ? c->n_values : 1) * sizeof *w.live);
    if (!c->prof || !w.live) {
        free(w.live);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while profiling memory");
    }
    memplan_expr zero = memplan_expr_const(c->pool, 0);
    for (int b = 0; b < MEMPLAN_BUCKET_COUNT; b++)
        for (int t = 0; t < MEMPLAN_TAG_COUNT; t++) w.sum[b][t] = zero;
    for (int32_t v = 0; v < c->n_values; v++) w.live[v].bucket = -1;
    /* Before node 0: initializers, then graph inputs (an input that is also
     * an initializer counts once, as an initializer). */
    for (int32_t k = 0; k < c->g->n_initializers; k++)
        join(&w, c->g->initializers[k], MEMPLAN_BUCKET_INITIALIZERS, value_bytes(c, c->g->initializers[k]));
    for (int32_t k = 0; k < c->g->n_inputs; k++)
        join(&w, c->g->inputs[k], MEMPLAN_BUCKET_INPUTS, value_bytes(c, c->g->inputs[k]));
    for (int32_t i = 0; i < c->n_nodes; i++) {
        snapshot(&w, i, &c->prof[i]);
        advance(&w, i);
    }
    free(w.live);
    return MEMPLAN_OK;
}
