/*
 * shapes_test_util.h -- checks shared by the shape-inference tests: a loaded
 * model with its inferred shapes, and "dtype[d0,d1,...] bytes" expectations.
 */
#ifndef MEMPLAN_TEST_SHAPES_UTIL_H
#define MEMPLAN_TEST_SHAPES_UTIL_H

#include <stdio.h>
#include <string.h>

#include "memplan/memplan.h"

typedef struct ctx {
    memplan_model *m;
    memplan_shapes *s;
} ctx;

static inline void done(ctx *c) {
    memplan_shapes_free(c->s);
    memplan_model_free(c->m);
}

static inline const memplan_vshape *value(ctx *c, const char *name) {
    int32_t id = memplan_graph_find(c->m->graph, name);
    assert_true(id >= 0);
    return memplan_shapes_value(c->s, c->m->graph, id);
}

/* "dtype[d0,d1,...] bytes" of a main-graph value */
static inline void expect(ctx *c, const char *name, const char *want) {
    const memplan_vshape *v = value(c, name);
    memplan_expr_pool *p = memplan_shapes_pool(c->s);
    char buf[512];
    size_t n = 0;
    const char *dt = v->elem_type ? memplan_dtype_name(v->elem_type) : "?";
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", dt ? dt : "?");
    if (v->rank < 0) {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "[?]");
    } else {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "[");
        for (int32_t i = 0; i < v->rank; i++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? "," : "", memplan_expr_str(p, v->dims[i]));
        n += (size_t)snprintf(buf + n, sizeof buf - n, "]");
    }
    snprintf(buf + n, sizeof buf - n, " %s", memplan_expr_str(p, v->bytes));
    if (strcmp(buf, want) != 0) fail_msg("%s: got '%s', expected '%s'", name, buf, want);
}

#endif
