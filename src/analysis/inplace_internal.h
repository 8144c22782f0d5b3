/*
 * inplace_internal.h -- the context behind memplan/inplace.h, shared by
 * inplace.c (referenced/last use, reuse, release lists, log, accessors),
 * tags.c (value and node tags) and profile.c (per-node memory profile).
 *
 * Per-node lists are stored CSR-style: node i's items are
 * items[off[i] .. off[i+1]).
 */
#ifndef MEMPLAN_ANALYSIS_INPLACE_INTERNAL_H
#define MEMPLAN_ANALYSIS_INPLACE_INTERNAL_H

#include <stdint.h>

#include "memplan/inplace.h"

#define MP_NO_PRODUCER INT32_MIN

/* A growable int32 list: node lists are appended node by node. */
typedef struct mp_ilist {
    int32_t *v;
    size_t n, cap;
    int32_t *off; /* n_nodes + 1 offsets, filled by mp_ilist_close() */
} mp_ilist;

struct memplan_inplace {
    const memplan_model *m;
    const memplan_graph *g;
    memplan_shapes *shapes;
    memplan_expr_pool *pool;
    bool allow_input_overwrite;
    bool events_enabled;
    bool has_tags;
    int32_t n_nodes, n_values;
    /* per value */
    int32_t *last_use; /* -1: never read */
    int32_t *producer; /* position, -1 "before 0" (inputs when allowed), MP_NO_PRODUCER */
    uint8_t *protect;
    memplan_tag *vtag;
    /* per node */
    mp_ilist ref; /* referenced() */
    mp_ilist rel; /* release_after */
    mp_ilist nua; /* not_used_after */
    mp_ilist rst; /* release_after_shape_tag */
    int32_t *reuse_off;
    memplan_reuse *reuse;
    memplan_tag *ntag;
    memplan_profile *prof;
    /* Steps of the reuse matching (key comparisons, places skipped, tree
     * levels): a deterministic measure of its work, for complexity checks
     * that compare it at n and 8n instead of timing. */
    uint64_t match_work;
    /* decision log */
    memplan_event *ev;
    size_t n_ev, cap_ev;
};

/* Offsets for n_nodes nodes; false when memory runs out. */
bool mp_ilist_init(mp_ilist *l, int32_t n_nodes);
/* Append one item; false when memory runs out. */
bool mp_ilist_push(mp_ilist *l, int32_t x);
/* Record that node i's items end here (call once per node, in order). */
void mp_ilist_mark(mp_ilist *l, int32_t node);
void mp_ilist_free(mp_ilist *l);

/* True when the node is op `op` of the default domain. */
bool mp_is_op(const memplan_node *n, const char *op);

/* Value and node tags (docs/semantics.md, "Tags"), the start tags from the values'
 * metadata; fills ctx->vtag, ctx->ntag, has_tags. */
memplan_status mp_compute_tags(memplan_inplace *ctx, memplan_error *err);
/* The per-node memory profile (docs/semantics.md, "Profile"); needs reuse, release lists, tags. */
memplan_status mp_compute_profile(memplan_inplace *ctx, memplan_error *err);

#endif
