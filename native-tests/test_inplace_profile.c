/*
 * test_inplace_profile.c -- the per-node memory profile (docs/semantics.md, "Profile"), the
 * annotation ("Metadata written into a model"), the JSON documents and `plan --inplace`, exact values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "cli/args.h"
#include "model_builder.h"
#include "test_inplace_util.h"

/* "total=..,already=..,output=..|bucket:tag=amount,..." of node i. */
static void expect_profile(const tctx *t, int32_t i, const char *want) {
    const memplan_profile *p;
    assert_int_equal(memplan_inplace_node_profile(t->ctx, i, &p, NULL), MEMPLAN_OK);
    memplan_expr_pool *pool = memplan_inplace_pool(t->ctx);
    char buf[1024];
    snprintf(buf, sizeof buf, "total=%s,already=%s,output=%s", memplan_expr_str(pool, p->total_bytes),
             memplan_expr_str(pool, p->already_allocated_bytes), memplan_expr_str(pool, p->output_allocation_bytes));
    for (int b = 0; b < MEMPLAN_BUCKET_COUNT; b++)
        for (int k = 0; k < MEMPLAN_TAG_COUNT; k++) {
            int64_t v;
            if (memplan_expr_is_const(pool, p->bucket[b][k], &v) && v == 0) continue;
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "|%s:%s=%s", memplan_bucket_name((memplan_bucket)b),
                     memplan_tag_name((memplan_tag)k), memplan_expr_str(pool, p->bucket[b][k]));
        }
    if (strcmp(buf, want) != 0) fail_msg("node %d profile:\n got  %s\n want %s", (int)i, buf, want);
}

/* x[dims] + W[1] -> a -> Relu b -> Neg y; x hinted untagged when asked. */
static mb_graph *chain(const char *dims, bool untag_x) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, dims);
    if (untag_x) mb_meta(&g->input[0]->metadata_props, &g->input[0]->n_metadata_props, "onnx_light.value_tag", "");
    mb_initializer(g, "W", 1, "1");
    mb_node(g, "Add", "x,W", "a");
    mb_node(g, "Relu", "a", "b");
    mb_node(g, "Neg", "b", "y");
    mb_output(g, "y", 1, dims);
    return g;
}

static void test_profile_chain(void **state) {
    (void)state;
    tctx t;
    t_build(&t, chain("4", false), false, false);
    /* Everything is `weight`: inputs and initializers start so, and ops pass input 0's tag. */
    expect_profile(&t, 0, "total=36,already=20,output=16|inputs:weight=16|initializers:weight=4|outputs:weight=16");
    expect_profile(&t, 1,
                   "total=36,already=36,output=0|inputs:weight=16|initializers:weight=4|intermediates:weight=16");
    expect_profile(&t, 2,
                   "total=36,already=36,output=0|inputs:weight=16|initializers:weight=4|intermediates:weight=16");
    t_free(&t);
    t_build(&t, chain("4", true), false, false);
    expect_profile(&t, 0, "total=36,already=20,output=16|inputs:=16|initializers:weight=4|outputs:=16");
    t_free(&t);
}

static void test_profile_symbolic(void **state) {
    (void)state;
    tctx t;
    t_build(&t, chain("N", true), false, false);
    expect_profile(&t, 0, "total=8*N+4,already=4*N+4,output=4*N|inputs:=4*N|initializers:weight=4|outputs:=4*N");
    expect_profile(&t, 1, "total=8*N+4,already=8*N+4,output=0|inputs:=4*N|initializers:weight=4|intermediates:=4*N");
    expect_profile(&t, 2, "total=8*N+4,already=8*N+4,output=0|inputs:=4*N|initializers:weight=4|intermediates:=4*N");
    t_free(&t);
}

/* A graph input reused in place leaves the live set; the output joins sized as it. */
static void test_profile_input_overwrite(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Cast", "a", "h"); /* float -> float16: 8 bytes, greater reuse */
    mb_int_attr(g->node[1], "to", 10);
    mb_node(g, "Neg", "h", "y");
    mb_output(g, "y", 10, "4");
    tctx t;
    t_build(&t, g, true, false);
    expect_reuse(&t, 0, "0:0:equal");
    expect_reuse(&t, 1, "0:0:greater");
    expect_profile(&t, 0, "total=16,already=16,output=0|inputs:weight=16");
    /* h joins with a's 16 bytes (the buffer it took). */
    expect_profile(&t, 1, "total=16,already=16,output=0|intermediates:weight=16");
    expect_profile(&t, 2, "total=16,already=16,output=0|intermediates:weight=16");
    t_free(&t);
}

/* A buffer keeps its size down a chain of reuses: h takes a's 32 bytes
 * (greater), h2 takes h's buffer (equal): still 32 bytes, not h2's 16. */
static void test_profile_reuse_chain_keeps_buffer_size(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "8");
    mb_node(g, "Abs", "x", "a");
    mb_int_attr(mb_node(g, "Cast", "a", "h"), "to", 10); /* float -> float16 */
    mb_node(g, "Neg", "h", "h2");
    mb_node(g, "Abs", "h2", "y");
    mb_output(g, "y", 10, "8");
    tctx t;
    t_build(&t, g, false, false);
    expect_reuse(&t, 1, "0:0:greater");
    expect_reuse(&t, 2, "0:0:equal");
    expect_reuse(&t, 3, "0:0:equal");
    expect_profile(&t, 2, "total=64,already=64,output=0|inputs:weight=32|intermediates:weight=32");
    expect_profile(&t, 3, "total=64,already=64,output=0|inputs:weight=32|intermediates:weight=32");
    t_free(&t);
}

static char *report(tctx *t, const char *cmd, int argc, const char *const *argv, size_t *len) {
    memplan_request r;
    memplan_error err = {0};
    assert_int_equal(cli_request_parse(&r, argc, argv, &err), MEMPLAN_OK);
    char *out = NULL; /* no model bytes: the value tags come from the IR */
    memplan_status st = memplan_report_json(t->m, cmd, &r, &out, len, &err);
    memplan_request_free(&r);
    if (st) fail_msg("%s: %s", cmd, err.message);
    return out;
}

static void expect_contains(const char *json, const char *fragment) {
    if (!strstr(json, fragment)) fail_msg("%s\n--- lacks ---\n%s", json, fragment);
}

static void test_json_documents(void **state) {
    (void)state;
    tctx t;
    t_build(&t, chain("N", false), false, false);
    size_t len;
    const char *dim[] = {"--dim", "N=2", "--events"};
    char *json = report(&t, "profile", 3, dim, &len);
    expect_contains(json,
                    "{\"index\":1,\"file_index\":1,\"name\":\"\",\"op_type\":\"Relu\",\"tag\":\"weight\","
                    "\"reuse\":[{\"output_index\":0,\"input_index\":0,\"kind\":\"equal\"}],"
                    "\"release_after\":[\"a\"],\"not_used_after\":[],\"release_after_shape_tag\":[],"
                    "\"profile\":{\"total_bytes\":20,\"already_allocated_bytes\":20,\"output_allocation_bytes\":0,"
                    "\"inputs\":{\"weight\":8},\"initializers\":{\"weight\":4},\"intermediates\":{\"weight\":8},"
                    "\"outputs\":{}}}");
    expect_contains(json, "\"values\":[{\"name\":\"x\",\"tag\":\"weight\"},");
    expect_contains(json, "\"events\":[{\"action\":\"release\",\"node_index\":1,\"name\":\"a\",\"output_index\":null,"
                          "\"input_index\":null,\"kind\":null},{\"action\":\"inplace\",\"node_index\":1,\"name\":null,"
                          "\"output_index\":0,\"input_index\":0,\"kind\":\"equal\"}");
    free(json);
    json = report(&t, "tags", 0, NULL, &len);
    expect_contains(json, "\"total_bytes\":\"8*N+4\"");
    assert_null(strstr(json, "\"events\""));
    free(json);
    t_free(&t);
}

/* No tags known: the key is absent from every node. */
static void test_json_no_tags(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_node(g, "RandomNormal", "", "a");
    mb_int_attr(g->node[0], "dtype", 1);
    mb_node(g, "Abs", "a", "y");
    mb_output(g, "y", 1, "?");
    tctx t;
    t_build(&t, g, false, false);
    size_t len;
    char *json = report(&t, "inplace", 0, NULL, &len);
    assert_null(strstr(json, "release_after_shape_tag"));
    expect_contains(json, "\"tags_known\":false");
    free(json);
    t_free(&t);
}

/* Start tags come from the IR's metadata: a graph input's or initializer's
 * declarations (input, output, value_info), then its TensorProto, the last
 * onnx_light.value_tag naming a tag winning; other text and other values'
 * entries are ignored. */
static void test_tags_from_metadata(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "2");
    mb_meta(&g->input[0]->metadata_props, &g->input[0]->n_metadata_props, "onnx_light.value_tag", "axes");
    mb_input(g, "u", 1, "2");
    mb_meta(&g->input[1]->metadata_props, &g->input[1]->n_metadata_props, "onnx_light.value_tag", "");
    mb_initializer(g, "W", 1, "2");
    mb_meta(&g->initializer[0]->metadata_props, &g->initializer[0]->n_metadata_props, "onnx_light.value_tag", "stale");
    mb_node(g, "Sum", "x,W,u", "a");
    mb_node(g, "Neg", "a", "y");
    mb_output(g, "y", 1, "2");
    mb_value(g, "x", 1, "2");
    mb_meta(&g->value_info[0]->metadata_props, &g->value_info[0]->n_metadata_props, "onnx_light.value_tag", "shape");
    mb_meta(&g->value_info[0]->metadata_props, &g->value_info[0]->n_metadata_props, "onnx_light.value_tag", "bogus");
    mb_value(g, "W", 1, "2");
    mb_meta(&g->value_info[1]->metadata_props, &g->value_info[1]->n_metadata_props, "onnx_light.value_tag", "axes");
    mb_value(g, "a", 1, "2");
    mb_meta(&g->value_info[2]->metadata_props, &g->value_info[2]->n_metadata_props, "onnx_light.value_tag", "weight");
    tctx t;
    t_build(&t, g, false, false);
    expect_value_tag(&t, "x", MEMPLAN_TAG_SHAPE); /* value_info after the input; "bogus" ignored */
    expect_value_tag(&t, "W", MEMPLAN_TAG_AXES);  /* the initializer's "stale" ignored */
    expect_value_tag(&t, "u", MEMPLAN_TAG_NONE);  /* "" untags */
    expect_value_tag(&t, "a", MEMPLAN_TAG_SHAPE); /* Sum passes input 0's tag; a's own entry ignored */
    size_t len;
    char *json = report(&t, "tags", 0, NULL, &len);
    expect_contains(json, "\"values\":[{\"name\":\"x\",\"tag\":\"shape\"},{\"name\":\"u\",\"tag\":null},"
                          "{\"name\":\"W\",\"tag\":\"axes\"},{\"name\":\"a\",\"tag\":\"shape\"}");
    free(json);
    t_free(&t);
}

/* Find the metadata value of key in a node (NULL when absent), and its index. */
static const char *meta(const Onnx__NodeProto *nd, const char *key, size_t *index) {
    for (size_t k = 0; k < nd->n_metadata_props; k++)
        if (strcmp(nd->metadata_props[k]->key, key) == 0) {
            if (index) *index = k;
            return nd->metadata_props[k]->value;
        }
    return NULL;
}

/* Annotate t's model; the bytes in *out (free them) and their parse. */
static Onnx__ModelProto *annotated(tctx *t, unsigned char **out, size_t *len) {
    memplan_error err = {0};
    assert_int_equal(memplan_annotate(t->bytes, t->len, t->ctx, out, len, &err), MEMPLAN_OK);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, *len, *out);
    assert_non_null(mp);
    return mp;
}

static void test_annotate_replaces_in_place(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "2,3");
    Onnx__NodeProto *nd = mb_node(g, "Abs", "x", "a");
    /* a claim of an earlier run (say with --allow-input-overwrite) that this
     * run does not make: it must go */
    mb_node_meta(nd, "onnx_light.inplace_reuse", "0:0:equal");
    nd = mb_node(g, "Shape", "a", "s");
    nd = mb_node(g, "Reshape", "a,s", "y");
    mb_node_meta(nd, "first", "1");
    mb_node_meta(nd, "onnx_light.release_after", "stale");
    mb_node_meta(nd, "last", "2");
    mb_output(g, "y", 1, "2,3");
    mb_value(g, "s", 7, "2");
    tctx t;
    t_build(&t, g, false, false);
    unsigned char *out;
    size_t len;
    memplan_error err = {0};
    Onnx__ModelProto *mp = annotated(&t, &out, &len);
    const Onnx__NodeProto *r = mp->graph->node[2];
    assert_int_equal(r->n_metadata_props, 6);
    size_t idx = 99;
    assert_string_equal(meta(r, "first", NULL), "1");
    assert_string_equal(meta(r, "onnx_light.release_after", &idx), "a;s");
    assert_int_equal(idx, 1); /* replaced in place */
    assert_string_equal(meta(r, "last", &idx), "2");
    assert_int_equal(idx, 2);
    assert_string_equal(meta(r, "onnx_light.inplace_reuse", &idx), "0:0:equal");
    assert_int_equal(idx, 3);
    assert_string_equal(meta(r, "onnx_light.release_after_shape_tag", &idx), "s");
    assert_int_equal(idx, 4);
    assert_string_equal(meta(r, "onnx_light.node_tag", &idx), "weight");
    assert_int_equal(idx, 5);
    assert_null(meta(r, "onnx_light.not_used_after", NULL));
    const Onnx__NodeProto *a = mp->graph->node[0];
    assert_int_equal(a->n_metadata_props, 2); /* not_used_after x, node_tag; the stale reuse gone */
    assert_null(meta(a, "onnx_light.inplace_reuse", NULL));
    assert_string_equal(meta(a, "onnx_light.not_used_after", NULL), "x");
    assert_string_equal(mp->graph->node[1]->metadata_props[0]->key, "onnx_light.node_tag");
    assert_string_equal(mp->graph->node[1]->metadata_props[0]->value, "shape");
    /* Value tags on the ValueInfoProto entries that exist. */
    assert_int_equal(mp->graph->input[0]->n_metadata_props, 1);
    assert_string_equal(mp->graph->input[0]->metadata_props[0]->value, "weight");
    assert_string_equal(mp->graph->value_info[0]->metadata_props[0]->key, "onnx_light.value_tag");
    assert_string_equal(mp->graph->value_info[0]->metadata_props[0]->value, "shape");
    onnx__model_proto__free_unpacked(mp, NULL);

    /* Annotating the annotated model again gives the same bytes. */
    memplan_model *m2;
    assert_int_equal(memplan_model_load(out, len, NULL, &m2, &err), MEMPLAN_OK);
    unsigned char *out2;
    size_t len2;
    assert_int_equal(memplan_annotate(out, len, t.ctx, &out2, &len2, &err), MEMPLAN_OK);
    assert_int_equal(len2, len);
    assert_memory_equal(out2, out, len);
    free(out2);
    memplan_model_free(m2);
    free(out);
    t_free(&t);
}

/* A name with ';' or '\\' in it stays one name in a ';'-joined list. */
static void test_annotate_escapes_names(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "2");
    mb_node(g, "Abs", "x", "p;q\\r");
    mb_node(g, "Concat", "p;q\\r,p;q\\r", "y"); /* no in-place: the input is freed after */
    mb_int_attr(g->node[1], "axis", 0);
    mb_output(g, "y", 1, "4");
    tctx t;
    t_build(&t, g, false, false);
    unsigned char *out;
    size_t len;
    Onnx__ModelProto *mp = annotated(&t, &out, &len);
    const char *listed = meta(mp->graph->node[1], "onnx_light.release_after", NULL);
    assert_non_null(listed);
    assert_string_equal(listed, "p\\;q\\\\r");
    onnx__model_proto__free_unpacked(mp, NULL);
    free(out);
    t_free(&t);
}

static void test_annotate_other_graph(void **state) {
    (void)state;
    tctx t;
    t_build(&t, chain("4", false), false, false);
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "y");
    mb_output(g, "y", 1, "4");
    size_t len;
    uint8_t *other = mb_pack(g, &len);
    unsigned char *out = NULL;
    size_t out_len;
    memplan_error err = {0};
    assert_int_equal(memplan_annotate(other, len, t.ctx, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "the results are for a graph with 3 nodes, but the model's graph has 1");
    assert_null(out);
    free(other);
    /* No bytes at all (NULL, 0 is allowed): no graph, as for any empty input,
     * never a read through a reader that was not given. */
    assert_int_equal(memplan_annotate(NULL, 0, t.ctx, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "the model has no graph");
    assert_null(out);
    assert_int_equal(memplan_annotate("", 0, t.ctx, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "the model has no graph");
    /* Through the report: annotate without bytes is a usage error. */
    memplan_request r;
    memplan_request_init(&r);
    char *doc = NULL;
    assert_int_equal(memplan_report_json(t.m, "annotate", &r, &doc, &len, &err), MEMPLAN_EUSAGE);
    t_free(&t);
}

/* plan --inplace: a 4-node Abs chain fits in one buffer. */
static void test_plan_inplace(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Abs", "a", "b");
    mb_node(g, "Abs", "b", "c");
    mb_node(g, "Abs", "c", "y");
    mb_output(g, "y", 1, "4");
    tctx t;
    t_build(&t, g, false, false);
    size_t len;
    const char *off[] = {"--strategy", "slots", "--align", "1"};
    char *json = report(&t, "plan", 4, off, &len);
    expect_contains(json, "\"peak_bytes\":32,");
    assert_null(strstr(json, "\"inplace\""));
    free(json);
    const char *on[] = {"--strategy", "slots", "--align", "1", "--inplace"};
    json = report(&t, "plan", 5, on, &len);
    expect_contains(json, "\"peak_bytes\":16,");
    expect_contains(json, "\"inplace\":{\"enabled\":true,\"saved_bytes\":16}");
    expect_contains(json, "{\"name\":\"y\",\"size\":16,\"start\":0,\"end\":3,\"owner\":\"a\",\"view\":true");
    free(json);
    t_free(&t);
}

/* plan --inplace never lets an output overwrite a buffer read later via a view. */
static void test_plan_inplace_view_guard(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    int64_t shape[] = {4};
    mb_initializer_ints(g, "shp", "1", shape, 1);
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Reshape", "a,shp", "v"); /* v views a */
    mb_node(g, "Neg", "a", "b");         /* a's last use, but v is read later */
    mb_node(g, "Add", "b,v", "y");
    mb_output(g, "y", 1, "4");
    tctx t;
    t_build(&t, g, false, false);
    expect_reuse(&t, 2, "0:0:equal"); /* the structural guess */
    size_t len;
    const char *on[] = {"--strategy", "slots", "--align", "1", "--inplace"};
    char *json = report(&t, "plan", 5, on, &len);
    expect_contains(json, "{\"name\":\"b\",\"size\":16,\"start\":2,\"end\":3,\"owner\":\"b\",\"view\":false");
    free(json);
    t_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profile_chain),
        cmocka_unit_test(test_profile_symbolic),
        cmocka_unit_test(test_profile_input_overwrite),
        cmocka_unit_test(test_profile_reuse_chain_keeps_buffer_size),
        cmocka_unit_test(test_json_documents),
        cmocka_unit_test(test_json_no_tags),
        cmocka_unit_test(test_tags_from_metadata),
        cmocka_unit_test(test_annotate_replaces_in_place),
        cmocka_unit_test(test_annotate_escapes_names),
        cmocka_unit_test(test_annotate_other_graph),
        cmocka_unit_test(test_plan_inplace),
        cmocka_unit_test(test_plan_inplace_view_guard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
