/* test_shapes.c -- symbolic shape inference and partial evaluation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"

typedef struct ctx {
    memplan_model *m;
    memplan_shapes *s;
} ctx;

static void infer(ctx *c, mb_graph *g) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &c->m, &err)) fail_msg("%s", err.message);
    free(bytes);
    assert_int_equal(memplan_shapes_infer(c->m, &c->s, &err), MEMPLAN_OK);
}

static void done(ctx *c) {
    memplan_shapes_free(c->s);
    memplan_model_free(c->m);
}

/* "dtype[d0,d1,...] bytes" of a main-graph value */
static void expect(ctx *c, const char *name, const char *want) {
    const memplan_graph *g = c->m->graph;
    int32_t id = memplan_graph_find(g, name);
    assert_true(id >= 0);
    const memplan_vshape *v = memplan_shapes_value(c->s, g, id);
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

static void test_symbolic_chain_and_broadcast(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "batch,seq,64");
    mb_input(g, "b", 1, "64");
    mb_input(g, "y", 1, "batch,1,1");
    mb_node(g, "Relu", "x", "a");
    mb_node(g, "Add", "a,b", "c");
    mb_node(g, "Mul", "c,y", "d");
    mb_node(g, "Less", "d,b", "e");
    mb_node(g, "Cast", "e", "f");
    mb_output(g, "f", 1, NULL);
    Onnx__NodeProto *cast = g->node[4];
    mb_int_attr(cast, "to", 7);
    ctx c;
    infer(&c, g);
    expect(&c, "a", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "c", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "d", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "e", "bool[batch,seq,64] 64*batch*seq");
    expect(&c, "f", "int64[batch,seq,64] 512*batch*seq");
    done(&c);
}

/* Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the classic flatten. */
static void test_shape_computation(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "batch,3,8,8");
    mb_node(g, "Shape", "x", "s");
    mb_node(g, "Constant", "", "zero");
    mb_node(g, "Gather", "s,zero", "n");
    mb_node(g, "Constant", "", "axes");
    mb_node(g, "Unsqueeze", "n,axes", "n1");
    mb_node(g, "Constant", "", "minus1");
    mb_node(g, "Concat", "n1,minus1", "target");
    mb_node(g, "Reshape", "x,target", "flat");
    mb_output(g, "flat", 1, NULL);
    /* constants: zero = 0 (scalar), axes = [0], minus1 = [-1] */
    Onnx__AttributeProto *a;
    const char *which[3] = {"value_int", "value_ints", "value_ints"};
    int64_t vals[3] = {0, 0, -1};
    for (int i = 0; i < 3; i++) {
        a = malloc(sizeof *a);
        onnx__attribute_proto__init(a);
        a->name = mb_strdup(which[i]);
        a->has_type = 1;
        if (i == 0) {
            a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
            a->has_i = 1;
            a->i = vals[i];
        } else {
            a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
            a->ints = malloc(sizeof *a->ints);
            a->ints[0] = vals[i];
            a->n_ints = 1;
        }
        Onnx__NodeProto *nd = g->node[1 + 2 * i];
        MB_PUSH(nd->attribute, nd->n_attribute, a);
    }
    ctx c;
    infer(&c, g);
    expect(&c, "s", "int64[4] 32");
    expect(&c, "n", "int64[] 8");
    expect(&c, "target", "int64[2] 16");
    expect(&c, "flat", "float[batch,192] 768*batch");
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbolic_chain_and_broadcast),
        cmocka_unit_test(test_shape_computation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
