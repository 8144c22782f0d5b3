/* test_ort_float16.c -- the graph ONNX Runtime's CPU execution provider
 * runs for a float16 model (memplan/ort_float16.h): node lists worked by hand
 * from InsertCastTransformer and RemoveDuplicateCastTransformer, each also the
 * graph onnxruntime-node 1.30 saves for the same model at level disabled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "memplan/ort_float16.h"
#include "model_builder.h"

enum { F32 = 1, I64 = 7, F16 = 10 };
#define S "1,8,16,16"

static memplan_model *load(mb_graph *g) {
    memplan_error err = {0};
    memplan_model *m = mb_load(g, &err);
    if (!m) fail_msg("%s", err.message);
    return m;
}

/* The graph's nodes in position order, "Op(a,b)->c", ';' between, each
 * body in brackets after its node ("[then_branch: ...]"). */
static void describe(const memplan_graph *g, char *out, size_t cap) {
    size_t n = strlen(out);
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *nd = &g->nodes[p];
        n += (size_t)snprintf(out + n, cap - n, "%s%s(", p ? ";" : "", nd->op_type);
        for (int32_t i = 0; i < nd->n_inputs; i++)
            n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? "," : "",
                                  nd->inputs[i] >= 0 ? g->values[nd->inputs[i]].name : "");
        n += (size_t)snprintf(out + n, cap - n, ")->");
        for (int32_t o = 0; o < nd->n_outputs; o++)
            n += (size_t)snprintf(out + n, cap - n, "%s%s", o ? "," : "",
                                  nd->outputs[o] >= 0 ? g->values[nd->outputs[o]].name : "");
        for (int32_t a = 0; a < nd->n_attrs; a++)
            if (nd->attrs[a].type == MEMPLAN_ATTR_GRAPH && nd->attrs[a].g) {
                n += (size_t)snprintf(out + n, cap - n, "[%s: ", nd->attrs[a].name);
                describe(nd->attrs[a].g, out, cap);
                n = strlen(out);
                n += (size_t)snprintf(out + n, cap - n, "]");
            }
    }
}

static memplan_model *rewrite(const memplan_model *m, memplan_ort_float16_stats *st, const char *want) {
    memplan_error err = {0};
    memplan_model *r = NULL;
    if (memplan_onnxruntime_cpu_graph(m, &r, st, &err)) fail_msg("%s", err.message);
    char got[4096] = "";
    describe(r->graph, got, sizeof got);
    assert_string_equal(got, want);
    return r;
}

#define IPFC "InsertedPrecisionFreeCast_"

/* Conv, Relu, Sigmoid and Add have no float16 kernel; Reshape and Transpose
 * do, but sit between such nodes, so they run in float32 too. One Cast of x
 * serves Conv and Add; the weight is cast like any input (folded at load). */
static mb_graph *chain_graph(void) {
    mb_graph *g = mb_new_graph("chain");
    mb_input(g, "x", F16, S);
    mb_initializer(g, "w", F16, "8,8,3,3");
    int64_t shape[3] = {1, 8, 256};
    mb_initializer_ints(g, "sh", "3", shape, 3);
    mb_ints_attr(mb_node(g, "Conv", "x,w", "c"), "pads", 4, (const int64_t[]){1, 1, 1, 1});
    mb_node(g, "Relu", "c", "r");
    mb_node(g, "Reshape", "r,sh", "rs");
    mb_node(g, "Sigmoid", "rs", "s");
    mb_ints_attr(mb_node(g, "Transpose", "r", "t"), "perm", 4, (const int64_t[]){0, 1, 3, 2});
    mb_node(g, "Add", "t,x", "y");
    mb_output(g, "s", F16, "1,8,256");
    mb_output(g, "y", F16, S);
    return g;
}

static void test_chain(void **state) {
    (void)state;
    memplan_model *m = load(chain_graph());
    memplan_ort_float16_stats st;
    memplan_model *r =
        rewrite(m, &st,
                "Cast(x)->" IPFC "x;Cast(w)->" IPFC "w;Conv(" IPFC "x," IPFC "w)->" IPFC "c;Relu(" IPFC "c)->" IPFC
                "r;Reshape(" IPFC "r,sh)->" IPFC "rs;Sigmoid(" IPFC "rs)->" IPFC "s;Cast(" IPFC "s)->s;Transpose(" IPFC
                "r)->" IPFC "t;Add(" IPFC "t," IPFC "x)->" IPFC "y;Cast(" IPFC "y)->y");
    assert_int_equal(st.float32_nodes, 6);
    assert_int_equal(st.forced, 2);
    assert_int_equal(st.casts, 4);
    assert_int_equal(st.casts_removed, 0);
    /* ONNX Runtime's node indices: the file's nodes, then the Casts as it made
     * them, visiting Add's branch first: x, w, then y's Cast before s's. */
    const memplan_graph *g = r->graph;
    const int32_t index[10] = {6, 7, 0, 1, 2, 3, 9, 4, 5, 8};
    for (int32_t p = 0; p < g->n_nodes; p++) assert_int_equal(g->nodes[p].file_index, index[p]);
    memplan_model_free(r);

    /* The default plan gives that graph's figures (28672 B: the plan of the
     * graph ONNX Runtime saves, in its order too); --float16-cpu plans it. */
    memplan_request req;
    memplan_request_init(&req);
    char *json = NULL;
    size_t len = 0;
    memplan_error err = {0};
    assert_int_equal(memplan_report_json(m, "plan", &req, &json, &len, &err), MEMPLAN_OK);
    assert_non_null(strstr(json, "\"onnxruntime_float16\":{\"nodes\":4,\"ops\":[\"Conv\",\"Relu\",\"Sigmoid\",\"Add\"],"
                                 "\"weight_bytes\":2328,\"float32_nodes\":6,\"casts\":4,\"peak_bytes\":28672,"
                                 "\"lower_bound_bytes\":28672,\"onnxruntime_order_lower_bound_bytes\":28672}"));
    assert_non_null(strstr(json, "\"onnxruntime_cpu_graph\":null"));
    free(json);
    req.float16_cpu = true;
    assert_int_equal(memplan_report_json(m, "plan", &req, &json, &len, &err), MEMPLAN_OK);
    assert_non_null(strstr(json, "\"peak_bytes\":28672"));
    assert_non_null(
        strstr(json, "\"onnxruntime_cpu_graph\":{\"float32_nodes\":6,\"forced\":2,\"casts\":4,\"casts_removed\":0}"));
    assert_non_null(strstr(json, "\"onnxruntime_float16\":null"));
    free(json);
    /* the per-node profile of that graph: its first node is the Cast of x, ONNX Runtime's node 6 */
    assert_int_equal(memplan_report_json(m, "profile", &req, &json, &len, &err), MEMPLAN_OK);
    assert_non_null(
        strstr(json, "\"nodes\":[{\"index\":0,\"file_index\":6,\"name\":\"" IPFC "x\",\"op_type\":\"Cast\""));
    assert_non_null(strstr(json, "{\"index\":9,\"file_index\":8,\"name\":\"y\",\"op_type\":\"Cast\""));
    free(json);
    memplan_request_free(&req);
    memplan_model_free(m);

    /* A session's plan of a request is of the graph the request is about (the
     * page's trace export): 10 positions with --float16-cpu, 6 without. */
    size_t blen;
    uint8_t *bytes = mb_pack(chain_graph(), &blen);
    memplan_session *s = NULL;
    assert_int_equal(memplan_session_open(bytes, blen, &s, &err), MEMPLAN_OK);
    free(bytes);
    memplan_request_init(&req);
    const memplan_model_plan *p = NULL;
    assert_int_equal(memplan_session_plan_request(s, &req, &p, &err), MEMPLAN_OK);
    assert_int_equal(p->positions, 6);
    req.float16_cpu = true;
    assert_int_equal(memplan_session_plan_request(s, &req, &p, &err), MEMPLAN_OK);
    assert_int_equal(p->positions, 10);
    assert_int_equal(p->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes, 28672);
    memplan_request_free(&req);
    memplan_session_close(s);
}

/* The model's own Casts: float32 -> float16 before a node without a float16
 * kernel cancels with the Cast ONNX Runtime puts after it (both go, Relu
 * reads the float32 input), and Relu's Cast back to float16 before the
 * file's Cast to float32 goes too; that one stays, a graph output. */
static void test_file_casts(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("casts");
    mb_input(g, "x32", F32, S);
    mb_int_attr(mb_node(g, "Cast", "x32", "x16"), "to", F16);
    mb_node(g, "Relu", "x16", "y16");
    mb_int_attr(mb_node(g, "Cast", "y16", "y32"), "to", F32);
    mb_output(g, "y32", F32, S);
    memplan_model *m = load(g);
    memplan_ort_float16_stats st;
    memplan_model_free(rewrite(m, &st, "Relu(x32)->" IPFC "y16;Cast(" IPFC "y16)->y32"));
    assert_int_equal(st.float32_nodes, 1);
    assert_int_equal(st.casts, 0);
    assert_int_equal(st.casts_removed, 1);
    memplan_model_free(m);
}

/* A body reads an outer value whose Casts cancel: ONNX Runtime renames the
 * read inside the body to the value the pair started from; the body's own
 * Cast for Relu keeps the name it was made under. */
static void test_body_reads(void **state) {
    (void)state;
    mb_graph *then = mb_new_graph("then");
    mb_node(then, "Relu", "t2", "o1");
    mb_output(then, "o1", F16, S);
    mb_graph *els = mb_new_graph("else");
    mb_node(els, "Identity", "t2", "o2");
    mb_output(els, "o2", F16, S);
    mb_graph *g = mb_new_graph("bodies");
    mb_input(g, "x0", F16, S);
    mb_input(g, "cond", 9, "");
    mb_node(g, "Identity", "x0", "x");
    mb_int_attr(mb_node(g, "Cast", "x", "t1"), "to", F32);
    mb_int_attr(mb_node(g, "Cast", "t1", "t2"), "to", F16);
    Onnx__NodeProto *nd = mb_node(g, "If", "cond", "y");
    mb_graph_attr(nd, "then_branch", then);
    mb_graph_attr(nd, "else_branch", els);
    mb_output(g, "y", F16, S);
    memplan_model *m = load(g);
    memplan_ort_float16_stats st;
    memplan_model_free(rewrite(m, &st,
                               "Identity(x0)->x;If(cond)->y[then_branch: Cast(x)->" IPFC "t2;Relu(" IPFC "t2)->" IPFC
                               "o1;Cast(" IPFC "o1)->o1][else_branch: Identity(x)->o2]"));
    assert_int_equal(st.float32_nodes, 1);
    assert_int_equal(st.casts, 2);
    assert_int_equal(st.casts_removed, 2);
    memplan_model_free(m);
}

/* Casts out of float16 to other types: Relu's Cast back goes (every reader
 * is a Cast, none reversing it) and the file's Casts to int64 and bool read
 * its float32 output; a float16 `dtype` attribute of a node run in float32
 * becomes float (RandomNormalLike); the value_info of values that are gone
 * (r, rn) is dropped, that of one kept (xi, read through a Cast) is not. */
static void test_cast_kinds(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("kinds");
    mb_input(g, "x", F16, "1,4,8,8");
    mb_node(g, "Relu", "x", "r");
    mb_int_attr(mb_node(g, "Cast", "r", "i"), "to", I64);
    mb_int_attr(mb_node(g, "Cast", "r", "b"), "to", 9);
    mb_int_attr(mb_node(g, "RandomNormalLike", "x", "rn"), "dtype", F16);
    mb_node(g, "Identity", "x", "xi");
    mb_node(g, "Add", "rn,xi", "z");
    mb_value(g, "r", F16, "1,4,8,8");
    mb_value(g, "rn", F16, "1,4,8,8");
    mb_value(g, "xi", F16, "1,4,8,8");
    mb_output(g, "i", I64, "1,4,8,8");
    mb_output(g, "b", 9, "1,4,8,8");
    mb_output(g, "z", F16, "1,4,8,8");
    memplan_model *m = load(g);
    memplan_ort_float16_stats st;
    memplan_model *r = rewrite(m, &st,
                               "Cast(x)->" IPFC "x;Relu(" IPFC "x)->" IPFC "r;Cast(" IPFC "r)->i;Cast(" IPFC
                               "r)->b;RandomNormalLike(" IPFC "x)->" IPFC "rn;Identity(x)->xi;Cast(xi)->" IPFC
                               "xi;Add(" IPFC "rn," IPFC "xi)->" IPFC "z;Cast(" IPFC "z)->z");
    assert_int_equal(st.float32_nodes, 3);
    assert_int_equal(st.casts, 3);
    assert_int_equal(st.casts_removed, 0);
    const memplan_node *rnl = &r->graph->nodes[4];
    assert_string_equal(rnl->attrs[0].name, "dtype");
    assert_int_equal(rnl->attrs[0].i, F32);
    assert_int_equal(memplan_graph_find(r->graph, "r"), -1);
    assert_int_equal(memplan_graph_find(r->graph, "rn"), -1);
    int32_t xi = memplan_graph_find(r->graph, "xi");
    assert_true(xi >= 0 && (r->graph->values[xi].flags & MEMPLAN_VALUE_DECLARED));
    memplan_model_free(r);
    memplan_model_free(m);
}

/* Without float16 tensors nothing changes; a model calling local functions
 * is refused (tested through a node that is not one: none here). */
static void test_float32_model(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("f32");
    mb_input(g, "x", F32, S);
    mb_node(g, "Relu", "x", "r");
    mb_node(g, "Reshape", "r,sh", "y");
    mb_input(g, "sh", I64, "3");
    mb_output(g, "y", F32, "?,?,?");
    memplan_model *m = load(g);
    memplan_ort_float16_stats st;
    memplan_model *r = rewrite(m, &st, "Relu(x)->r;Reshape(r,sh)->y");
    assert_int_equal(st.float32_nodes + st.forced + st.casts + st.casts_removed, 0);
    assert_int_equal(r->graph->n_inputs, 2);
    assert_int_equal(r->graph->n_outputs, 1);
    memplan_model_free(r);
    memplan_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain),      cmocka_unit_test(test_file_casts),    cmocka_unit_test(test_body_reads),
        cmocka_unit_test(test_cast_kinds), cmocka_unit_test(test_float32_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
