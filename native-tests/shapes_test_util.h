/*
 * shapes_test_util.h -- checks shared by the shape-inference tests: a loaded
 * model with its inferred shapes, "dtype[d0,d1,...] bytes" expectations, and
 * (after model_builder.h) the builder helpers the tests share.
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

#ifdef MEMPLAN_TEST_MODEL_BUILDER_H
/* An INTS attribute from literal values. */
#define INTS(nd, name, ...)                                                                                            \
    do {                                                                                                               \
        static const int64_t v_[] = {__VA_ARGS__};                                                                     \
        mb_ints_attr((nd), (name), sizeof v_ / sizeof v_[0], v_);                                                      \
    } while (0)

/* A STRING attribute; s must be a literal (mb_free_graph does not free it). */
static inline void str_attr(Onnx__NodeProto *nd, const char *name, const char *s) {
    Onnx__AttributeProto *a = mb_attr(nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.data = (uint8_t *)(uintptr_t)s;
    a->s.len = strlen(s);
}

static inline Onnx__NodeProto *in_domain(Onnx__NodeProto *nd, const char *domain) {
    nd->domain = mb_strdup(domain);
    return nd;
}

/* Pack g with the default-domain opset given (freeing g), load, infer. */
static inline void infer_opset(ctx *c, mb_graph *g, int64_t opset) {
    size_t len;
    uint8_t *bytes = mb_pack_opset(g, opset, &len);
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &c->m, &err)) fail_msg("%s", err.message);
    free(bytes);
    assert_int_equal(memplan_shapes_infer(c->m, &c->s, &err), MEMPLAN_OK);
}
#endif

#endif
