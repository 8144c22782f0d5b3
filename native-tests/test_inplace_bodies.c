/*
 * test_inplace_bodies.c -- in-place reuse, release lists, tags and the
 * profile of the nodes inside control-flow bodies, as the inplace, tags and
 * profile reports print them (JSON `subgraphs`, indented text).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "model_builder.h"

/* x float[4] -> Abs a -> Loop(trip, cond, a) -> Relu y; the body
 * (i int64, c bool, v float[4]) runs Identity c -> c_out, Neg v -> n,
 * Relu n -> w, Add w + a (captured) -> s, and returns c_out, s. */
static uint8_t *loop_bytes(size_t *len) {
    mb_graph *body = mb_new_graph("body");
    mb_input(body, "i", 7, "");
    mb_input(body, "c", 9, "");
    mb_input(body, "v", 1, "4");
    mb_node(body, "Identity", "c", "c_out")->name = mb_strdup("keep");
    mb_node(body, "Neg", "v", "n")->name = mb_strdup("neg");
    mb_node(body, "Relu", "n", "w")->name = mb_strdup("relu");
    mb_node(body, "Add", "w,a", "s")->name = mb_strdup("add");
    mb_output(body, "c_out", 9, "");
    mb_output(body, "s", 1, "4");
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_input(g, "trip", 7, "");
    mb_input(g, "cond", 9, "");
    mb_node(g, "Abs", "x", "a")->name = mb_strdup("abs");
    Onnx__NodeProto *loop = mb_node(g, "Loop", "trip,cond,a", "out");
    loop->name = mb_strdup("loop");
    mb_graph_attr(loop, "body", body);
    mb_node(g, "Relu", "out", "y")->name = mb_strdup("last");
    mb_output(g, "y", 1, "4");
    return mb_pack(g, len);
}

static memplan_model *loop_model(void) {
    size_t len;
    uint8_t *bytes = loop_bytes(&len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    return m;
}

static char *report(const memplan_model *m, const char *command, bool json) {
    memplan_request r;
    memplan_request_init(&r);
    memplan_error err = {0};
    char *out = NULL;
    size_t len;
    memplan_status st = json ? memplan_report_json(m, command, &r, &out, &len, &err)
                             : memplan_report_text(m, command, &r, &out, &len, &err);
    if (st) fail_msg("%s", err.message);
    return out;
}

static void expect_contains(const char *doc, const char *fragment) {
    if (!strstr(doc, fragment)) fail_msg("%s\n--- lacks ---\n%s", doc, fragment);
}

/* The body's own reuse pairs and release lists, under its node. */
static void test_body_reuse_and_release(void **state) {
    (void)state;
    memplan_model *m = loop_model();
    char *text = report(m, "inplace", false);
    expect_contains(text, "#2 Relu 'last':  reuse out 0 <- in 0 (equal)  release out\n"
                          "body of #1 Loop 'loop' (4 nodes):\n"
                          "  #0 Identity 'keep':  inputs done c\n"
                          "  #1 Neg 'neg':  inputs done v\n"
                          "  #2 Relu 'relu':  reuse out 0 <- in 0 (equal)  release n\n"
                          "  #3 Add 'add':  reuse out 0 <- in 0 (equal)  release w\n");
    free(text);
    char *json = report(m, "inplace", true);
    expect_contains(json, "\"subgraphs\":[{\"node\":1,\"name\":\"loop\",\"op_type\":\"Loop\",\"attribute\":\"body\","
                          "\"tags_known\":true,\"nodes\":[{\"index\":0,\"file_index\":0,\"name\":\"keep\"");
    expect_contains(json, "{\"index\":2,\"file_index\":2,\"name\":\"relu\",\"op_type\":\"Relu\",\"tag\":\"weight\","
                          "\"reuse\":[{\"output_index\":0,\"input_index\":0,\"kind\":\"equal\"}],"
                          "\"release_after\":[\"n\"],\"not_used_after\":[]");
    /* the body has no bodies; the main graph's document ends with them */
    expect_contains(json, "{\"name\":\"a\",\"tag\":\"weight\"}],\"subgraphs\":[]}]}\n");
    free(json);
    memplan_model_free(m);
}

/* A captured outer value starts tagged like the body's inputs (weight). */
static void test_body_tags(void **state) {
    (void)state;
    memplan_model *m = loop_model();
    char *text = report(m, "tags", false);
    expect_contains(text, "body of #1 Loop 'loop' (4 nodes):\n  values:\n    i: weight\n    c: weight\n"
                          "    v: weight\n    c_out: weight\n    n: weight\n    w: weight\n    s: weight\n"
                          "    a: weight\n  nodes:\n    #0 Identity 'keep': weight\n");
    free(text);
    memplan_model_free(m);
}

/* The body's profile counts its inputs (i 8 + c 1 + v 16 = 25 bytes) and
 * its own values; the captured a is the parent's memory. */
static void test_body_profile(void **state) {
    (void)state;
    memplan_model *m = loop_model();
    char *text = report(m, "profile", false);
    expect_contains(text, "body of #1 Loop 'loop' (4 nodes):\n"
                          "  #0 Identity 'keep': total 26 = live 25 + new 1  inputs/weight 25  outputs/weight 1\n"
                          "  #1 Neg 'neg': total 42 = live 26 + new 16  inputs/weight 25  intermediates/weight 1  "
                          "outputs/weight 16\n");
    free(text);
    memplan_model_free(m);
}

/* "k=v;k=v" of a node's metadata in the IR. */
static const char *meta_of(const memplan_node *n) {
    static char buf[512];
    buf[0] = 0;
    for (int32_t i = 0; i < n->n_metadata; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s=%s", i ? ";" : "", n->metadata[i].key,
                 n->metadata[i].value);
    return buf;
}

/* annotate writes the body's results on the nodes inside it; annotating
 * the output again changes nothing. */
static void test_body_annotate(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = loop_bytes(&len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    memplan_request r;
    memplan_request_init(&r);
    r.model_bytes = bytes;
    r.model_len = len;
    char *out = NULL;
    size_t out_len;
    assert_int_equal(memplan_report_json(m, "annotate", &r, &out, &out_len, &err), MEMPLAN_OK);
    memplan_model *a = NULL;
    assert_int_equal(memplan_model_load(out, out_len, NULL, &a, &err), MEMPLAN_OK);
    const memplan_graph *body = a->graph->nodes[1].subgraphs[0];
    assert_string_equal(meta_of(&body->nodes[2]), "onnx_light.inplace_reuse=0:0:equal;onnx_light.release_after=n;"
                                                  "onnx_light.node_tag=weight");
    assert_string_equal(meta_of(&body->nodes[0]), "onnx_light.not_used_after=c;onnx_light.node_tag=weight");
    int32_t v = memplan_graph_find(body, "v");
    assert_int_equal(body->values[v].n_metadata, 1);
    assert_string_equal(body->values[v].metadata[0].value, "weight");
    assert_string_equal(meta_of(&a->graph->nodes[2]),
                        "onnx_light.inplace_reuse=0:0:equal;onnx_light.release_after=out;onnx_light.node_tag=weight");
    r.model_bytes = out;
    r.model_len = out_len;
    char *again = NULL;
    size_t again_len;
    assert_int_equal(memplan_report_json(a, "annotate", &r, &again, &again_len, &err), MEMPLAN_OK);
    assert_int_equal(again_len, out_len);
    assert_memory_equal(again, out, out_len);
    free(again);
    memplan_model_free(a);
    free(out);
    memplan_model_free(m);
    free(bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body_reuse_and_release),
        cmocka_unit_test(test_body_tags),
        cmocka_unit_test(test_body_profile),
        cmocka_unit_test(test_body_annotate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
