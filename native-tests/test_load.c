/* test_load.c -- loader and graph IR: values, order, captures, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"

enum { F32 = 1, I64 = 7 };

static memplan_model *load_graph(mb_graph *g, memplan_error *err) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m = NULL;
    memplan_status st = memplan_model_load(bytes, len, NULL, &m, err);
    free(bytes);
    if (st) return NULL;
    return m;
}

static const memplan_value *value(const memplan_graph *g, const char *name) {
    int32_t id = memplan_graph_find(g, name);
    assert_true(id >= 0);
    return &g->values[id];
}

static void test_chain(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("chain");
    mb_input(g, "x", F32, "1,4,8,8");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Relu", "a", "b");
    mb_node(g, "Neg", "b", "y");
    mb_output(g, "y", F32, "1,4,8,8");
    memplan_error err = {0};
    memplan_model *m = load_graph(g, &err);
    assert_non_null(m);
    const memplan_graph *G = m->graph;
    assert_int_equal(G->n_nodes, 3);
    assert_int_equal(G->n_values, 4);
    assert_false(G->reordered);
    assert_string_equal(G->nodes[1].op_type, "Relu");
    const memplan_value *x = value(G, "x"), *a = value(G, "a"), *y = value(G, "y");
    assert_int_equal(x->flags, MEMPLAN_VALUE_INPUT | MEMPLAN_VALUE_DECLARED);
    assert_int_equal(x->producer, -1);
    assert_int_equal(a->flags, MEMPLAN_VALUE_NODE_OUTPUT);
    assert_int_equal(a->producer, 0);
    assert_int_equal(a->type.kind, MEMPLAN_TYPE_NONE);
    assert_int_equal(y->flags, MEMPLAN_VALUE_NODE_OUTPUT | MEMPLAN_VALUE_OUTPUT | MEMPLAN_VALUE_DECLARED);
    assert_int_equal(y->producer, 2);
    assert_int_equal(y->type.rank, 4);
    uint64_t bytes = 0;
    assert_true(memplan_type_static_bytes(&y->type, &bytes));
    assert_int_equal(bytes, 4 * 4 * 8 * 8);
    assert_int_equal(G->nodes[2].inputs[0], memplan_graph_find(G, "b"));
    assert_int_equal(m->n_nodes_total, 3);
    assert_int_equal(memplan_model_opset(m, ""), 17);
    assert_int_equal(memplan_model_opset(m, "com.microsoft"), -1);
    memplan_model_free(m);
}

static void test_unsorted_is_ordered_stably(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_node(g, "Neg", "b", "y");  /* file 0: needs b */
    mb_node(g, "Abs", "x", "a");  /* file 1 */
    mb_node(g, "Relu", "a", "b"); /* file 2 */
    mb_node(g, "Exp", "x", "z");  /* file 3: independent */
    mb_output(g, "y", F32, "2");
    mb_output(g, "z", F32, "2");
    memplan_error err = {0};
    memplan_model *m = load_graph(g, &err);
    assert_non_null(m);
    const memplan_graph *G = m->graph;
    assert_true(G->reordered);
    /* Kahn with the file index as priority: Abs(1), Relu(2), Neg(0), Exp(3). */
    assert_int_equal(G->nodes[0].file_index, 1);
    assert_int_equal(G->nodes[1].file_index, 2);
    assert_int_equal(G->nodes[2].file_index, 0);
    assert_int_equal(G->nodes[3].file_index, 3);
    assert_int_equal(value(G, "y")->producer, 2);
    memplan_model_free(m);
}

static void expect_error(mb_graph *g, memplan_status want, const char *fragment) {
    memplan_error err = {0};
    memplan_model *m = load_graph(g, &err);
    assert_null(m);
    assert_int_equal(err.status, want);
    if (!strstr(err.message, fragment)) fail_msg("message '%s' lacks '%s'", err.message, fragment);
}

static void test_cycle(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_node(g, "Add", "x,q", "p");
    mb_node(g, "Abs", "p", "q");
    mb_output(g, "q", F32, "2");
    expect_error(g, MEMPLAN_EINPUT, "cycle through value 'q'");
}

static void test_dangling(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_node(g, "Add", "x,ghost", "y");
    mb_output(g, "y", F32, "2");
    expect_error(g, MEMPLAN_EINPUT, "reads 'ghost', which nothing defines");
}

static void test_duplicate(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_node(g, "Abs", "x", "y");
    mb_node(g, "Neg", "x", "y");
    mb_output(g, "y", F32, "2");
    expect_error(g, MEMPLAN_EINPUT, "value 'y' is defined twice");
}

static void test_huge_dim(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "4611686018427387904"); /* 2^62 */
    mb_node(g, "Abs", "x", "y");
    mb_output(g, "y", F32, "2");
    expect_error(g, MEMPLAN_EINPUT, "'x': dim 0 is 4611686018427387904");
}

static void test_undefined_output(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_output(g, "nope", F32, "2");
    expect_error(g, MEMPLAN_EINPUT, "output 'nope' is not defined");
}

/* If whose branches read outer values; the else branch shadows 'w'. */
static void test_if_captures(void **state) {
    (void)state;
    mb_graph *then_g = mb_new_graph("then");
    mb_node(then_g, "Add", "x,w", "t");
    mb_output(then_g, "t", F32, "2");
    mb_graph *else_g = mb_new_graph("else");
    mb_node(else_g, "Neg", "x", "w"); /* shadows outer w */
    mb_node(else_g, "Mul", "w,k", "e");
    mb_output(else_g, "e", F32, "2");
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_input(g, "c", 9, "");
    mb_node(g, "Abs", "x", "w");
    mb_node(g, "Relu", "x", "k");
    Onnx__NodeProto *nd = mb_node(g, "If", "c", "y");
    mb_graph_attr(nd, "then_branch", then_g);
    mb_graph_attr(nd, "else_branch", else_g);
    mb_output(g, "y", F32, "2");
    memplan_error err = {0};
    memplan_model *m = load_graph(g, &err);
    assert_non_null(m);
    const memplan_graph *G = m->graph;
    const memplan_node *ifn = &G->nodes[2];
    assert_string_equal(ifn->op_type, "If");
    assert_int_equal(ifn->n_subgraphs, 2);
    /* then reads x, w; else reads x, k (its w is local) */
    assert_int_equal(ifn->n_captures, 3);
    assert_int_equal(ifn->captures[0], memplan_graph_find(G, "x"));
    assert_int_equal(ifn->captures[1], memplan_graph_find(G, "w"));
    assert_int_equal(ifn->captures[2], memplan_graph_find(G, "k"));
    const memplan_graph *E = ifn->subgraphs[1];
    assert_ptr_equal(E->parent, G);
    assert_int_equal(E->depth, 1);
    assert_int_equal(E->n_captures, 2);
    const memplan_value *ew = value(E, "w");
    assert_int_equal(ew->flags, MEMPLAN_VALUE_NODE_OUTPUT);
    const memplan_value *ek = value(E, "k");
    assert_int_equal(ek->flags, MEMPLAN_VALUE_CAPTURE);
    assert_int_equal(ek->outer, memplan_graph_find(G, "k"));
    assert_int_equal(m->n_nodes_total, 6);
    memplan_model_free(m);
}

/* A node whose subgraph reads a value produced later in the file is ordered after it. */
static void test_capture_orders_nodes(void **state) {
    (void)state;
    mb_graph *body = mb_new_graph("body");
    mb_node(body, "Identity", "late", "o");
    mb_output(body, "o", F32, "2");
    mb_graph *body2 = mb_new_graph("body2");
    mb_node(body2, "Identity", "late", "o2");
    mb_output(body2, "o2", F32, "2");
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_input(g, "c", 9, "");
    Onnx__NodeProto *nd = mb_node(g, "If", "c", "y");
    mb_graph_attr(nd, "then_branch", body);
    mb_graph_attr(nd, "else_branch", body2);
    mb_node(g, "Abs", "x", "late");
    mb_output(g, "y", F32, "2");
    memplan_error err = {0};
    memplan_model *m = load_graph(g, &err);
    assert_non_null(m);
    assert_true(m->graph->reordered);
    assert_string_equal(m->graph->nodes[0].op_type, "Abs");
    assert_string_equal(m->graph->nodes[1].op_type, "If");
    memplan_model_free(m);
}

static void test_nesting_limit(void **state) {
    (void)state;
    mb_graph *inner = mb_new_graph("leaf");
    mb_node(inner, "Identity", "x", "o");
    mb_output(inner, "o", F32, "2");
    for (int d = 0; d < MEMPLAN_MAX_GRAPH_DEPTH + 2; d++) {
        mb_graph *outer = mb_new_graph("level");
        Onnx__NodeProto *nd = mb_node(outer, "If", "c", "o");
        mb_graph_attr(nd, "then_branch", inner);
        mb_output(outer, "o", F32, "2");
        inner = outer;
    }
    mb_input(inner, "x", F32, "2");
    mb_input(inner, "c", 9, "");
    expect_error(inner, MEMPLAN_ELIMIT, "nested deeper than 32");
}

static void test_bad_bytes(void **state) {
    (void)state;
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load("", 0, NULL, &m, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "the file is empty: not an ONNX model");
    const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    assert_int_equal(memplan_model_load(junk, sizeof junk, NULL, &m, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "malformed protobuf at byte 0: truncated field tag");
    /* A valid protobuf message that is not a model: field 1 (ir_version) as a string. */
    const uint8_t notmodel[] = {0x0a, 0x02, 'h', 'i'};
    assert_int_equal(memplan_model_load(notmodel, sizeof notmodel, NULL, &m, &err), MEMPLAN_EINPUT);
    assert_string_equal(
        err.message, "malformed protobuf at byte 0: field onnx.ModelProto.ir_version (1) has wire type 2, expected 0");
    /* Valid, well-typed, but no graph. */
    const uint8_t nograph[] = {0x08, 0x07};
    assert_int_equal(memplan_model_load(nograph, sizeof nograph, NULL, &m, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "not an ONNX model: it has no graph");
    assert_null(m);
}

static void test_truncation_everywhere(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "1,batch,?");
    mb_initializer(g, "w", F32, "3");
    mb_node(g, "Add", "x,w", "a");
    mb_node(g, "Relu", "a", "y");
    mb_output(g, "y", F32, "1,batch,3");
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    int ok = 0;
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, bytes, cut);
        memplan_model *m = NULL;
        memplan_error err = {0};
        memplan_status st = memplan_model_load(copy, cut, NULL, &m, &err);
        if (st == MEMPLAN_OK) {
            ok++;
            memplan_model_free(m);
        } else {
            assert_int_equal(st, MEMPLAN_EINPUT);
            assert_true(strlen(err.message) > 0);
        }
        free(copy);
    }
    /* Only cuts at message boundaries after the graph can load. */
    assert_true(ok <= 2);
    memplan_model *m = NULL;
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, NULL), MEMPLAN_OK);
    const memplan_value *x = value(m->graph, "x");
    assert_int_equal(x->type.dims[1].kind, MEMPLAN_DIM_PARAM);
    assert_string_equal(x->type.dims[1].param, "batch");
    assert_int_equal(x->type.dims[2].kind, MEMPLAN_DIM_UNKNOWN);
    memplan_model_free(m);
    free(bytes);
}

static void test_dtypes(void **state) {
    (void)state;
    assert_int_equal(memplan_dtype_bits(MEMPLAN_DTYPE_INT4), 4);
    assert_int_equal(memplan_dtype_bits(MEMPLAN_DTYPE_INT2), 2);
    assert_int_equal(memplan_dtype_bits(MEMPLAN_DTYPE_STRING), 0);
    assert_int_equal(memplan_dtype_bits(99), 0);
    assert_string_equal(memplan_dtype_name(MEMPLAN_DTYPE_FLOAT8E4M3FN), "float8e4m3fn");
    assert_null(memplan_dtype_name(-1));
    memplan_dim dims[2] = {{MEMPLAN_DIM_VALUE, 3, NULL}, {MEMPLAN_DIM_VALUE, 3, NULL}};
    memplan_type t = {MEMPLAN_TYPE_TENSOR, MEMPLAN_DTYPE_INT4, 2, dims};
    uint64_t b = 0;
    assert_true(memplan_type_static_bytes(&t, &b));
    assert_int_equal(b, 5); /* 9 elements x 4 bits = 36 bits -> 5 bytes */
    memplan_dim big[2] = {{MEMPLAN_DIM_VALUE, INT64_C(1) << 40, NULL}, {MEMPLAN_DIM_VALUE, INT64_C(1) << 30, NULL}};
    memplan_type tb = {MEMPLAN_TYPE_TENSOR, MEMPLAN_DTYPE_FLOAT, 2, big};
    assert_false(memplan_type_static_bytes(&tb, &b)); /* 2^70 elements overflow */
}

static void test_info_json(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("tiny");
    mb_input(g, "x", F32, "batch,3");
    mb_initializer(g, "w", F32, "3");
    mb_node(g, "Add", "x,w", "a");
    mb_node(g, "Relu", "a", "y");
    mb_node(g, "Relu", "y", "z");
    mb_output(g, "z", F32, "batch,?");
    memplan_error err = {0};
    memplan_model *m = load_graph(g, &err);
    assert_non_null(m);
    char *json;
    size_t len;
    assert_int_equal(memplan_info_json(m, &json, &len, &err), MEMPLAN_OK);
    assert_string_equal(json,
                        "{\"ir_version\":8,\"producer\":\"\",\"producer_version\":\"\",\"graph_name\":\"tiny\","
                        "\"opsets\":{\"ai.onnx\":17},\"nodes\":3,\"nodes_total\":3,\"reordered\":false,\"functions\":0,"
                        "\"initializers\":1,\"initializer_bytes\":12,"
                        "\"inputs\":[{\"name\":\"x\",\"dtype\":\"float\",\"shape\":[\"batch\",3]}],"
                        "\"outputs\":[{\"name\":\"z\",\"dtype\":\"float\",\"shape\":[\"batch\",null]}],"
                        "\"op_types\":{\"Add\":1,\"Relu\":2},\"kv_cache\":[]}\n");
    assert_int_equal(len, strlen(json));
    free(json);
    memplan_model_free(m);
}

/* "k=v;k=v" of a metadata list, for exact comparisons. */
static const char *kvs(const memplan_kv *kv, int32_t n) {
    static char buf[512];
    buf[0] = '\0';
    for (int32_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s=%s", i ? ";" : "", kv[i].key, kv[i].value);
    return buf;
}

static Onnx__StringStringEntryProto ***meta_of(Onnx__ValueInfoProto *v) { return &v->metadata_props; }

/* Pack g as mb_pack does, with model-level metadata (key, value) added. */
static uint8_t *pack_with_model_meta(mb_graph *g, const char *key, const char *val, size_t *len) {
    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.graph = g;
    mb_meta(&m.metadata_props, &m.n_metadata_props, key, val);
    *len = onnx__model_proto__get_packed_size(&m);
    uint8_t *bytes = malloc(*len);
    onnx__model_proto__pack(&m, bytes);
    mb_free_meta(m.metadata_props, m.n_metadata_props);
    mb_free_graph(g);
    return bytes;
}

/* metadata_props of values (their declarations, in order), initializers,
 * nodes, the graph and the model: exact text, file order, repeats kept,
 * absent parts "", never cut to MEMPLAN_MAX_NAME. */
static void test_metadata(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_meta(meta_of(g->input[0]), &g->input[0]->n_metadata_props, "k", "1");
    mb_meta(meta_of(g->input[0]), &g->input[0]->n_metadata_props, "dup", "a");
    mb_meta(meta_of(g->input[0]), &g->input[0]->n_metadata_props, "dup", "b");
    mb_initializer(g, "W", F32, "2");
    Onnx__TensorProto *w = g->initializer[0];
    mb_meta(&w->metadata_props, &w->n_metadata_props, "w", "5");
    mb_meta(&g->metadata_props, &g->n_metadata_props, "graph", "8");
    Onnx__NodeProto *nd = mb_node(g, "Add", "x,W", "a");
    mb_node_meta(nd, "n", "6");
    mb_node_meta(nd, "n", "7");
    mb_node_meta(nd, "", "empty key");
    mb_node(g, "Relu", "a", "b");
    mb_node(g, "Neg", "b", "y");
    mb_output(g, "y", F32, "2");
    mb_meta(meta_of(g->output[0]), &g->output[0]->n_metadata_props, "out", "2");
    mb_value(g, "y", F32, "2");
    mb_meta(meta_of(g->value_info[0]), &g->value_info[0]->n_metadata_props, "vi", "4");
    mb_value(g, "x", F32, "2");
    mb_meta(meta_of(g->value_info[1]), &g->value_info[1]->n_metadata_props, "vx", "3");
    mb_value(g, "W", F32, "2");
    mb_meta(meta_of(g->value_info[2]), &g->value_info[2]->n_metadata_props, "vw", "");
    mb_value(g, "nosuch", F32, "2");
    mb_meta(meta_of(g->value_info[3]), &g->value_info[3]->n_metadata_props, "lost", "z");
    /* An entry without a value (and one without a key): "" in the IR. */
    mb_value(g, "a", F32, "2");
    Onnx__StringStringEntryProto *e = malloc(sizeof *e);
    onnx__string_string_entry_proto__init(e);
    e->key = mb_strdup("novalue");
    MB_PUSH(g->value_info[4]->metadata_props, g->value_info[4]->n_metadata_props, e);
    e = malloc(sizeof *e);
    onnx__string_string_entry_proto__init(e);
    e->value = mb_strdup("nokey");
    MB_PUSH(g->value_info[4]->metadata_props, g->value_info[4]->n_metadata_props, e);
    char *big = malloc(MEMPLAN_MAX_NAME + 1001);
    memset(big, 'v', MEMPLAN_MAX_NAME + 1000);
    big[MEMPLAN_MAX_NAME + 1000] = '\0';
    size_t len;
    uint8_t *bytes = pack_with_model_meta(g, "model", big, &len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    const memplan_graph *G = m->graph;
    const memplan_value *x = value(G, "x"), *W = value(G, "W"), *y = value(G, "y");
    assert_string_equal(kvs(x->metadata, x->n_metadata), "k=1;dup=a;dup=b;vx=3"); /* input, then value_info */
    assert_string_equal(kvs(y->metadata, y->n_metadata), "out=2;vi=4");           /* output, then value_info */
    assert_string_equal(kvs(W->metadata, W->n_metadata), "vw=");
    assert_string_equal(kvs(W->initializer->metadata, W->initializer->n_metadata), "w=5");
    const memplan_value *a = value(G, "a"), *b = value(G, "b");
    assert_string_equal(kvs(a->metadata, a->n_metadata), "novalue=;=nokey");
    assert_int_equal(b->n_metadata, 0); /* a node output nothing declares */
    assert_null(b->metadata);
    assert_int_equal(memplan_graph_find(G, "nosuch"), -1); /* its entry is not kept */
    assert_string_equal(kvs(G->nodes[0].metadata, G->nodes[0].n_metadata), "n=6;n=7;=empty key");
    assert_int_equal(G->nodes[1].n_metadata, 0);
    assert_string_equal(kvs(G->metadata, G->n_metadata), "graph=8");
    assert_int_equal(m->n_metadata, 1);
    assert_string_equal(m->metadata[0].key, "model");
    assert_int_equal(strlen(m->metadata[0].value), MEMPLAN_MAX_NAME + 1000);
    memplan_model_free(m);
    free(big);
}

/* Subgraph values get their own declarations' entries; a captured outer
 * value gets none. A NUL byte ends a key or value, as in every string field. */
static void test_metadata_subgraph_and_nul(void **state) {
    (void)state;
    mb_graph *body = mb_new_graph("then");
    mb_node(body, "Add", "x,x", "t");
    mb_output(body, "t", F32, "2");
    mb_meta(meta_of(body->output[0]), &body->output[0]->n_metadata_props, "sub", "1");
    mb_graph *eb = mb_new_graph("else");
    mb_node(eb, "Neg", "x", "e");
    mb_output(eb, "e", F32, "2");
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_meta(meta_of(g->input[0]), &g->input[0]->n_metadata_props, "keyXtail", "valXtail");
    mb_input(g, "c", 9, "");
    Onnx__NodeProto *nd = mb_node(g, "If", "c", "y");
    mb_graph_attr(nd, "then_branch", body);
    mb_graph_attr(nd, "else_branch", eb);
    mb_output(g, "y", F32, "2");
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    for (size_t i = 0; i + 8 <= len; i++) /* "keyXtail" -> "key\0tail", "valXtail" -> "val\0tail" */
        if (memcmp(bytes + i + 3, "Xtail", 5) == 0) bytes[i + 3] = '\0';
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    const memplan_value *x = value(m->graph, "x");
    assert_string_equal(kvs(x->metadata, x->n_metadata), "key=val");
    const memplan_graph *T = m->graph->nodes[0].subgraphs[0];
    const memplan_value *t = value(T, "t"), *tx = value(T, "x");
    assert_string_equal(kvs(t->metadata, t->n_metadata), "sub=1");
    assert_int_equal(tx->flags, MEMPLAN_VALUE_CAPTURE);
    assert_int_equal(tx->n_metadata, 0);
    memplan_model_free(m);
}

/* A NUL byte in a name (value, node, op type, dim) would cut it short and
 * merge distinct names: such a model is refused, naming the field and the
 * byte. Other strings (doc strings, metadata) may hold one. */
static void test_nul_in_names(void **state) {
    (void)state;
    const char *fields[] = {"valueXtail", "nodeXtail", "DimXtail"};
    const char *want[] = {"onnx.NodeProto.output holds a NUL byte", "onnx.NodeProto.name holds a NUL byte",
                          "onnx.TensorShapeProto.Dimension.dim_param holds a NUL byte"};
    for (int k = 0; k < 3; k++) {
        mb_graph *g = mb_new_graph("g");
        mb_input(g, "x", F32, k == 2 ? "DimXtail" : "2");
        Onnx__NodeProto *nd = mb_node(g, "Relu", "x", k == 0 ? "valueXtail" : "y");
        if (k == 1) nd->name = mb_strdup("nodeXtail");
        mb_node(g, "Neg", k == 0 ? "valueXtail" : "y", "z");
        mb_output(g, "z", F32, "2");
        size_t len;
        uint8_t *bytes = mb_pack(g, &len);
        size_t at = 0;
        for (size_t i = 0; i + strlen(fields[k]) <= len && !at; i++)
            if (memcmp(bytes + i, fields[k], strlen(fields[k])) == 0) at = i + strlen(fields[k]) - 5;
        assert_true(at > 0);
        bytes[at] = '\0';
        memplan_model *m = NULL;
        memplan_error err = {0};
        assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_EINPUT);
        assert_null(m);
        char expect[160];
        snprintf(expect, sizeof expect, "malformed protobuf at byte %zu: %s: names cannot contain one", at, want[k]);
        assert_string_equal(err.message, expect);
        free(bytes);
    }
}

/* A sparse initializer is an initializer (the dense tensor a runtime makes
 * of it): named by its values, typed by their element type and its dims. */
static void test_sparse_initializer(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "3,2");
    mb_node(g, "MatMul", "x,sw", "y");
    mb_output(g, "y", F32, "3,4");
    mb_initializer(g, "sw", F32, "2"); /* built as an initializer, then moved into a SparseTensorProto */
    Onnx__SparseTensorProto *sp = malloc(sizeof *sp);
    onnx__sparse_tensor_proto__init(sp);
    sp->values = g->initializer[0];
    free(g->initializer);
    g->initializer = NULL;
    g->n_initializer = 0;
    sp->n_dims = 2;
    sp->dims = malloc(2 * sizeof *sp->dims);
    sp->dims[0] = 2;
    sp->dims[1] = 4;
    MB_PUSH(g->sparse_initializer, g->n_sparse_initializer, sp);
    Onnx__SparseTensorProto **sparse = g->sparse_initializer; /* mb_pack does not free these */
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    onnx__sparse_tensor_proto__free_unpacked(sp, NULL);
    free(sparse);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    const memplan_value *w = value(m->graph, "sw");
    assert_int_equal(w->flags & (MEMPLAN_VALUE_INITIALIZER | MEMPLAN_VALUE_INPUT), MEMPLAN_VALUE_INITIALIZER);
    assert_int_equal(w->type.rank, 2);
    assert_int_equal(w->type.dims[1].value, 4);
    assert_int_equal(memplan_initializer_bytes(m), 32);
    memplan_model_free(m);
}

/* A reader over bytes in memory that counts what it reads and can fail at
 * one offset. */
typedef struct counting {
    const uint8_t *bytes;
    uint64_t read, calls;
    uint64_t fail_at; /* a read covering this offset fails; UINT64_MAX: none */
} counting;

static bool counting_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    counting *c = ctx;
    if (c->fail_at >= offset && c->fail_at < offset + len) return false;
    memcpy(buf, c->bytes + offset, len);
    c->read += len;
    c->calls++;
    return true;
}

static char *info_of(const memplan_model *m) {
    char *json;
    size_t len;
    memplan_error err = {0};
    assert_int_equal(memplan_info_json(m, &json, &len, &err), MEMPLAN_OK);
    return json;
}

/* A graph with three 3 MiB weights between its nodes (raw_data), as
 * exporters write them: read through a reader, the weights are skipped. */
static uint8_t *weighty_model(size_t *len) {
    mb_graph *g = mb_new_graph("weighty");
    mb_input(g, "x", F32, "batch,768");
    uint8_t *data[3];
    for (int i = 0; i < 3; i++) {
        char w[8], in[8], out[8];
        snprintf(w, sizeof w, "w%d", i);
        snprintf(in, sizeof in, i ? "h%d" : "x", i);
        snprintf(out, sizeof out, i < 2 ? "h%d" : "y", i + 1);
        mb_initializer(g, w, F32, "768,1024");
        Onnx__TensorProto *t = g->initializer[g->n_initializer - 1];
        t->raw_data.len = 768 * 1024 * 4;
        t->raw_data.data = data[i] = calloc(1, t->raw_data.len);
        t->has_raw_data = 1;
        char ins[20];
        snprintf(ins, sizeof ins, "%s,%s", in, w);
        mb_node(g, "MatMul", ins, out);
    }
    mb_output(g, "y", F32, "batch,1024");
    uint8_t *bytes = mb_pack(g, len); /* frees the graph, not tensor data */
    for (int i = 0; i < 3; i++) free(data[i]);
    return bytes;
}

static void test_reader_skips_weights(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = weighty_model(&len);
    assert_true(len > 9u << 20);
    counting c = {bytes, 0, 0, UINT64_MAX};
    memplan_reader rd = {counting_read, &c, len};
    memplan_model *a = NULL, *b = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load_reader(&rd, NULL, &a, &err), MEMPLAN_OK);
    assert_int_equal(memplan_model_load(bytes, len, NULL, &b, &err), MEMPLAN_OK);
    char *ja = info_of(a), *jb = info_of(b);
    assert_string_equal(ja, jb);
    assert_non_null(strstr(ja, "\"initializer_bytes\":9437184"));
    /* Four reads of 64 KiB at most (a jump past skipped data starts the
     * read-ahead small again): the nodes and the first weight's start, the
     * next two weights' starts, the inputs and outputs after the last. */
    assert_int_equal(c.calls, 4);
    assert_true(c.read <= 4 * 65536);
    free(ja);
    free(jb);
    memplan_model_free(a);
    memplan_model_free(b);

    void *stripped;
    size_t slen;
    c.read = c.calls = 0;
    assert_int_equal(memplan_model_strip(&rd, &stripped, &slen, &err), MEMPLAN_OK);
    assert_true(slen < 1024);
    assert_int_equal(memplan_model_load(stripped, slen, NULL, &a, &err), MEMPLAN_OK);
    ja = info_of(a);
    assert_non_null(strstr(ja, "\"initializer_bytes\":9437184"));
    free(ja);
    memplan_model_free(a);
    free(stripped);

    /* A failing read is an error naming the offset, never a crash. */
    c.fail_at = len - 1;
    assert_int_equal(memplan_model_load_reader(&rd, NULL, &a, &err), MEMPLAN_EINPUT);
    assert_null(a);
    assert_non_null(strstr(err.message, "could not read the model's bytes at "));
    free(bytes);
}

static void test_reader_errors(void **state) {
    (void)state;
    static const uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff};
    counting c = {junk, 0, 0, UINT64_MAX};
    memplan_reader rd = {counting_read, &c, sizeof junk};
    memplan_model *m = (memplan_model *)&m;
    memplan_error ea = {0}, eb = {0};
    assert_int_equal(memplan_model_load_reader(&rd, NULL, &m, &ea), MEMPLAN_EINPUT);
    assert_null(m);
    assert_int_equal(memplan_model_load(junk, sizeof junk, NULL, &m, &eb), MEMPLAN_EINPUT);
    assert_string_equal(ea.message, eb.message);
    rd.size = 0;
    assert_int_equal(memplan_model_load_reader(&rd, NULL, &m, &ea), MEMPLAN_EINPUT);
    assert_string_equal(ea.message, "the file is empty: not an ONNX model");
    assert_int_equal(memplan_model_load_reader(NULL, NULL, &m, &ea), MEMPLAN_EUSAGE);
}

/* An attribute without a type (IR version 1 files leave it out) takes the
 * type of the field it fills; lists of tensors and of graphs load as such,
 * and a tensor's typed fields (double_data, uint64_data) become
 * little-endian bytes of its own element width. The attribute payloads
 * point at static data: model_builder.h frees only names, ints and g. */
static void test_attribute_forms(void **state) {
    (void)state;
    static float floats[] = {0.5f, 2.0f};
    static double dbl[] = {1.5, -2.0};
    static uint64_t u64[] = {7, UINT64_C(1) << 40};
    static uint64_t u32[] = {5, 0xffffffffu};
    static int64_t two = 2, one = 1;
    static Onnx__TensorProto tens[3];
    static Onnx__TensorProto *tens_list[3];
    for (int k = 0; k < 3; k++) {
        onnx__tensor_proto__init(&tens[k]);
        tens_list[k] = &tens[k];
        tens[k].has_data_type = 1;
        tens[k].n_dims = 1;
        tens[k].dims = k == 2 ? &one : &two;
    }
    tens[0].name = "d", tens[0].data_type = MEMPLAN_DTYPE_DOUBLE, tens[0].double_data = dbl, tens[0].n_double_data = 2;
    tens[1].name = "u", tens[1].data_type = MEMPLAN_DTYPE_UINT64, tens[1].uint64_data = u64, tens[1].n_uint64_data = 2;
    /* uint32 data lives in uint64_data; two values for one element: no data */
    tens[2].name = "w", tens[2].data_type = MEMPLAN_DTYPE_UINT32, tens[2].uint64_data = u32, tens[2].n_uint64_data = 2;

    mb_graph *body = mb_new_graph("b0");
    mb_input(body, "bx", F32, "2");
    mb_node(body, "Neg", "bx", "by");
    mb_output(body, "by", F32, "2");
    mb_graph *g = mb_new_graph("attrs");
    mb_input(g, "x", F32, "2");
    Onnx__NodeProto *nd = mb_node(g, "Relu", "x", "y");
    Onnx__AttributeProto *a = mb_attr(nd, "i", 0);
    a->has_type = 0, a->has_i = 1, a->i = 42;
    a = mb_attr(nd, "f", 0);
    a->has_type = 0, a->has_f = 1, a->f = 0.25f;
    a = mb_attr(nd, "s", 0);
    a->has_type = 0, a->has_s = 1, a->s.data = (uint8_t *)"abc", a->s.len = 3;
    a = mb_attr(nd, "fl", 0);
    a->has_type = 0, a->floats = floats, a->n_floats = 2;
    a = mb_attr(nd, "ts", 0);
    a->has_type = 0, a->tensors = tens_list, a->n_tensors = 3;
    Onnx__GraphProto *bodies[1] = {body};
    a = mb_attr(nd, "gs", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS);
    a->graphs = bodies, a->n_graphs = 1;
    mb_output(g, "y", F32, "2");
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    mb_free_graph(body); /* the builder does not own a graphs list */
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    const memplan_node *n = &m->graph->nodes[0];
    assert_int_equal(n->n_attrs, 6);
    const memplan_attr *at = n->attrs;
    assert_int_equal(at[0].type, MEMPLAN_ATTR_INT);
    assert_int_equal(at[0].i, 42);
    assert_int_equal(at[1].type, MEMPLAN_ATTR_FLOAT);
    assert_true(at[1].f == 0.25f);
    assert_int_equal(at[2].type, MEMPLAN_ATTR_STRING);
    assert_string_equal(at[2].s, "abc");
    assert_int_equal(at[3].type, MEMPLAN_ATTR_FLOATS);
    assert_int_equal(at[3].n, 2);
    assert_true(at[3].floats[0] == 0.5f && at[3].floats[1] == 2.0f);
    assert_int_equal(at[4].type, MEMPLAN_ATTR_TENSORS);
    assert_int_equal(at[4].n, 3);
    const memplan_tensor *t = at[4].tensors;
    assert_string_equal(t[0].name, "d");
    assert_int_equal(t[0].data_len, 16);
    assert_memory_equal(t[0].data, dbl, 16);
    assert_int_equal(t[1].data_len, 16);
    assert_memory_equal(t[1].data, u64, 16);
    assert_null(t[2].data); /* 2 values for 1 element */
    assert_int_equal(at[5].type, MEMPLAN_ATTR_GRAPHS);
    assert_int_equal(at[5].n, 1);
    assert_string_equal(at[5].graphs[0]->name, "b0");
    assert_int_equal(at[5].graphs[0]->n_nodes, 1);
    assert_ptr_equal(at[5].graphs[0]->parent, m->graph);
    memplan_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_attribute_forms),
        cmocka_unit_test(test_unsorted_is_ordered_stably),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_dangling),
        cmocka_unit_test(test_duplicate),
        cmocka_unit_test(test_huge_dim),
        cmocka_unit_test(test_undefined_output),
        cmocka_unit_test(test_if_captures),
        cmocka_unit_test(test_capture_orders_nodes),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_bad_bytes),
        cmocka_unit_test(test_truncation_everywhere),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_info_json),
        cmocka_unit_test(test_reader_skips_weights),
        cmocka_unit_test(test_reader_errors),
        cmocka_unit_test(test_metadata),
        cmocka_unit_test(test_metadata_subgraph_and_nul),
        cmocka_unit_test(test_nul_in_names),
        cmocka_unit_test(test_sparse_initializer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
