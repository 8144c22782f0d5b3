/*
 * test_inplace_util.h -- shared helpers of the in-place tests: build a model
 * with model_builder.h, load it, infer shapes and compute the in-place
 * context (its value-tag hints come from the model); compare results as
 * short strings.
 */
#ifndef MEMPLAN_TEST_INPLACE_UTIL_H
#define MEMPLAN_TEST_INPLACE_UTIL_H

#include <stdio.h>

#include "memplan/memplan.h"
#include "model_builder.h"

typedef struct tctx {
    uint8_t *bytes;
    size_t len;
    memplan_model *m;
    memplan_shapes *S;
    memplan_inplace *ctx;
} tctx;

static inline void t_build(tctx *t, mb_graph *g, bool allow, bool events) {
    memset(t, 0, sizeof *t);
    t->bytes = mb_pack(g, &t->len);
    memplan_error err = {0};
    if (memplan_model_load(t->bytes, t->len, NULL, &t->m, &err)) fail_msg("load: %s", err.message);
    if (memplan_shapes_infer(t->m, &t->S, &err)) fail_msg("shapes: %s", err.message);
    memplan_inplace_options o = {allow, events};
    if (memplan_inplace_compute(t->m, t->S, &o, &t->ctx, &err)) fail_msg("inplace: %s", err.message);
}

static inline void t_free(tctx *t) {
    memplan_inplace_free(t->ctx);
    memplan_shapes_free(t->S);
    memplan_model_free(t->m);
    free(t->bytes);
}

/* "out:in:kind;..." of node i. */
static inline void expect_reuse(const tctx *t, int32_t i, const char *want) {
    const memplan_reuse *items;
    size_t n;
    memplan_error err = {0};
    assert_int_equal(memplan_inplace_node_reuse(t->ctx, i, &items, &n, &err), MEMPLAN_OK);
    char buf[512] = "";
    for (size_t k = 0; k < n; k++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d:%d:%s", k ? ";" : "", items[k].output_index,
                 items[k].input_index, memplan_reuse_kind_name(items[k].kind));
    if (strcmp(buf, want) != 0) fail_msg("node %d reuse: got '%s', want '%s'", (int)i, buf, want);
}

enum { LIST_RELEASE, LIST_NOT_USED, LIST_SHAPE_TAG };

/* Names of a per-node list joined by ';'. */
static inline void expect_list(const tctx *t, int which, int32_t i, const char *want) {
    const int32_t *ids;
    size_t n;
    memplan_status st = which == LIST_RELEASE    ? memplan_inplace_release_after(t->ctx, i, &ids, &n, NULL)
                        : which == LIST_NOT_USED ? memplan_inplace_not_used_after(t->ctx, i, &ids, &n, NULL)
                                                 : memplan_inplace_release_after_shape_tag(t->ctx, i, &ids, &n, NULL);
    assert_int_equal(st, MEMPLAN_OK);
    char buf[512] = "";
    for (size_t k = 0; k < n; k++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", k ? ";" : "", t->m->graph->values[ids[k]].name);
    if (strcmp(buf, want) != 0) fail_msg("node %d list %d: got '%s', want '%s'", (int)i, which, buf, want);
}

static inline void expect_value_tag(const tctx *t, const char *name, memplan_tag want) {
    memplan_tag tag;
    int32_t v = memplan_graph_find(t->m->graph, name);
    assert_true(v >= 0);
    assert_int_equal(memplan_inplace_value_tag(t->ctx, v, &tag, NULL), MEMPLAN_OK);
    if (tag != want) fail_msg("tag of '%s': got '%s', want '%s'", name, memplan_tag_name(tag), memplan_tag_name(want));
}

#endif
