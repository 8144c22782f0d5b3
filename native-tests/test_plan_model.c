/*
 * test_plan_model.c -- the seed-000 behaviours end to end: model -> liveness
 * -> slot plan, checked on the plan report (the JSON users get).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "cli/args.h"
#include "model_builder.h"

/* Plan a graph with the given options; returns the JSON (free it). */
static char *plan(mb_graph *g, int argc, const char *const *argv) {
    memplan_error err = {0};
    memplan_model *m = mb_load(g, &err);
    if (!m) fail_msg("%s", err.message);
    memplan_request r;
    assert_int_equal(cli_request_parse(&r, argc, argv, &err), MEMPLAN_OK);
    char *json = NULL;
    size_t jlen;
    memplan_status st = memplan_report_json(m, "plan", &r, &json, &jlen, &err);
    memplan_request_free(&r);
    if (st) fail_msg("%s", err.message);
    memplan_model_free(m);
    return json;
}

static void expect_contains(const char *json, const char *fragment) {
    if (!strstr(json, fragment)) fail_msg("%s\n--- lacks ---\n%s", json, fragment);
}

static const char *const SLOTS[] = {"--strategy", "slots", "--align", "1"};

/* Each intermediate declared as float[n] (4n bytes). */
static void decl(mb_graph *g, const char *names, const char *dims) {
    char **parts;
    size_t n = mb_split(names, &parts);
    for (size_t i = 0; i < n; i++) {
        mb_value(g, parts[i], 1, dims);
        free(parts[i]);
    }
    free(parts);
}

static void test_chain_two_slots(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Relu", "a", "b");
    mb_node(g, "Neg", "b", "c");
    mb_node(g, "Exp", "c", "y");
    decl(g, "a,b,c", "4");
    mb_output(g, "y", 1, "4");
    char *json = plan(g, 4, SLOTS);
    expect_contains(json, "\"status\":\"planned\",\"strategy\":\"slots\",\"align\":1,\"positions\":4,"
                          "\"naive_bytes\":64,\"peak_bytes\":32,\"lower_bound_bytes\":32,\"savings_ratio\":0.5");
    /* a retires after node 1, so c takes its slot; b after node 2, so y takes b's */
    expect_contains(json,
                    "{\"name\":\"a\",\"size\":16,\"start\":0,\"end\":1,\"owner\":\"a\",\"view\":false,\"slot\":0");
    expect_contains(json,
                    "{\"name\":\"b\",\"size\":16,\"start\":1,\"end\":2,\"owner\":\"b\",\"view\":false,\"slot\":1");
    expect_contains(json,
                    "{\"name\":\"c\",\"size\":16,\"start\":2,\"end\":3,\"owner\":\"c\",\"view\":false,\"slot\":0");
    expect_contains(json,
                    "{\"name\":\"y\",\"size\":16,\"start\":3,\"end\":3,\"owner\":\"y\",\"view\":false,\"slot\":1");
    expect_contains(json,
                    "\"slots\":[{\"id\":0,\"capacity\":16,\"offset\":0},{\"id\":1,\"capacity\":16,\"offset\":16}]");
    free(json);
}

static void test_diamond_and_residual(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a");    /* 0 */
    mb_node(g, "Relu", "a", "l");   /* 1 left */
    mb_node(g, "Neg", "a", "r");    /* 2 right; a dies here */
    mb_node(g, "Add", "l,r", "s");  /* 3 join */
    mb_node(g, "Add", "s,a2", "y"); /* 4 residual with a2 defined at 0? no: a2 below */
    mb_node(g, "Exp", "x", "a2");   /* 5 -- unsorted on purpose: moves before 4 */
    decl(g, "a,l,r,s,a2", "4");
    mb_output(g, "y", 1, "4");
    char *json = plan(g, 4, SLOTS);
    /* order: Abs, Relu, Neg, Add(s), Exp(a2), Add(y) */
    expect_contains(json,
                    "{\"name\":\"a\",\"size\":16,\"start\":0,\"end\":2,\"owner\":\"a\",\"view\":false,\"slot\":0");
    expect_contains(json,
                    "{\"name\":\"l\",\"size\":16,\"start\":1,\"end\":3,\"owner\":\"l\",\"view\":false,\"slot\":1");
    expect_contains(json,
                    "{\"name\":\"r\",\"size\":16,\"start\":2,\"end\":3,\"owner\":\"r\",\"view\":false,\"slot\":2");
    expect_contains(json,
                    "{\"name\":\"s\",\"size\":16,\"start\":3,\"end\":5,\"owner\":\"s\",\"view\":false,\"slot\":0");
    expect_contains(json,
                    "{\"name\":\"a2\",\"size\":16,\"start\":4,\"end\":5,\"owner\":\"a2\",\"view\":false,\"slot\":1");
    expect_contains(json,
                    "{\"name\":\"y\",\"size\":16,\"start\":5,\"end\":5,\"owner\":\"y\",\"view\":false,\"slot\":2");
    expect_contains(json, "\"peak_bytes\":48,\"lower_bound_bytes\":48");
    free(json);
}

static void test_disjoint_chains_share(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "8");
    mb_node(g, "Abs", "x", "a1");
    mb_node(g, "Shrink4", "a1", "b1"); /* no shape rule: the declared [2] stands */
    mb_node(g, "Neg", "x", "a2");
    mb_node(g, "Exp", "a2", "b2");
    decl(g, "a1,a2", "8");
    mb_value(g, "b1", 1, "2");
    mb_output(g, "b1", 1, "2");
    mb_output(g, "b2", 1, "8");
    char *json = plan(g, 4, SLOTS);
    /* a2 reuses a1's slot; b1 (output, 8 B) never gives its slot away */
    expect_contains(json,
                    "{\"name\":\"a1\",\"size\":32,\"start\":0,\"end\":1,\"owner\":\"a1\",\"view\":false,\"slot\":0");
    expect_contains(json,
                    "{\"name\":\"b1\",\"size\":8,\"start\":1,\"end\":3,\"owner\":\"b1\",\"view\":false,\"slot\":1");
    expect_contains(json,
                    "{\"name\":\"a2\",\"size\":32,\"start\":2,\"end\":3,\"owner\":\"a2\",\"view\":false,\"slot\":0");
    expect_contains(json,
                    "{\"name\":\"b2\",\"size\":32,\"start\":3,\"end\":3,\"owner\":\"b2\",\"view\":false,\"slot\":2");
    free(json);
}

static void test_views(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "2,2");
    mb_initializer(g, "shape", 7, "1");
    mb_node(g, "Abs", "x", "a");           /* 0 */
    mb_node(g, "Reshape", "a,shape", "r"); /* 1 view of a */
    mb_node(g, "Squeeze", "r", "rr");      /* 2 view of a view */
    mb_node(g, "Neg", "x", "b");           /* 3 */
    mb_node(g, "Add", "rr,b", "y");        /* 4 */
    decl(g, "a,b", "2,2");
    mb_value(g, "r", 1, "4");
    mb_value(g, "rr", 1, "4");
    mb_output(g, "y", 1, "4");
    char *json = plan(g, 4, SLOTS);
    expect_contains(json,
                    "{\"name\":\"a\",\"size\":16,\"start\":0,\"end\":4,\"owner\":\"a\",\"view\":false,\"slot\":0");
    expect_contains(json, "{\"name\":\"rr\",\"size\":16,\"start\":0,\"end\":4,\"owner\":\"a\",\"view\":true,\"slot\":0,"
                          "\"offset\":0,\"dtype\":\"float\",\"shape\":[4]}");
    expect_contains(json,
                    "{\"name\":\"b\",\"size\":16,\"start\":3,\"end\":4,\"owner\":\"b\",\"view\":false,\"slot\":1");
    expect_contains(json,
                    "{\"name\":\"y\",\"size\":16,\"start\":4,\"end\":4,\"owner\":\"y\",\"view\":false,\"slot\":2");
    expect_contains(json, "\"slots\":[{\"id\":0,\"capacity\":16,\"offset\":0},{\"id\":1,\"capacity\":16,\"offset\":16},"
                          "{\"id\":2,\"capacity\":16,\"offset\":32}]");
    free(json);
}

static void test_symbolic_defers_then_binds(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "batch,seq");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Neg", "a", "y");
    mb_value(g, "a", 1, "batch,seq");
    mb_output(g, "y", 1, "batch,seq");
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    memplan_request r;
    memplan_request_init(&r);
    char *json;
    size_t jl;
    assert_int_equal(memplan_report_json(m, "plan", &r, &json, &jl, &err), MEMPLAN_OK);
    expect_contains(json, "\"status\":\"deferred\"");
    expect_contains(json, "\"unknown\":{\"values\":[{\"name\":\"a\",\"reason\":\"unbound dims\"},"
                          "{\"name\":\"y\",\"reason\":\"unbound dims\"}],\"dims\":[\"batch\",\"seq\"],"
                          "\"internal_dims\":[],\"value_inputs\":[],\"subgraphs\":[],\"workspaces\":[]}");
    free(json);
    const char *argv[] = {"--dim", "batch=2", "--dim", "seq=8", "--align", "1"};
    assert_int_equal(cli_request_parse(&r, 6, argv, &err), MEMPLAN_OK);
    assert_int_equal(memplan_report_json(m, "plan", &r, &json, &jl, &err), MEMPLAN_OK);
    memplan_request_free(&r);
    expect_contains(json, "\"status\":\"planned\",\"strategy\":\"arena\",\"align\":1,\"positions\":2,"
                          "\"naive_bytes\":128,\"peak_bytes\":128,\"lower_bound_bytes\":128");
    free(json);
    memplan_model_free(m);
}

/* A size over 17 dims: the deferred plan lists every unbound name (docs/semantics.md, "Planned or deferred"). */
static void test_deferred_lists_every_dim(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    char ins[256] = "";
    for (int i = 0; i < 17; i++) {
        char name[8], dim[8];
        snprintf(name, sizeof name, "x%02d", i);
        snprintf(dim, sizeof dim, "d%02d", i);
        mb_input(g, name, 1, dim);
        snprintf(ins + strlen(ins), sizeof ins - strlen(ins), "%s%s", i ? "," : "", name);
    }
    mb_int_attr(mb_node(g, "Concat", ins, "c"), "axis", 0);
    mb_node(g, "Abs", "c", "y");
    mb_output(g, "y", 1, "?");
    char *json = plan(g, 0, NULL);
    expect_contains(json, "\"dims\":[\"d00\",\"d01\",\"d02\",\"d03\",\"d04\",\"d05\",\"d06\",\"d07\",\"d08\","
                          "\"d09\",\"d10\",\"d11\",\"d12\",\"d13\",\"d14\",\"d15\",\"d16\"],"
                          "\"internal_dims\":[],\"value_inputs\":[],\"subgraphs\":[],\"workspaces\":[]}");
    free(json);
}

static void test_include_inputs_and_unused(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a,junk");
    mb_node(g, "Neg", "a", "y");
    mb_value(g, "a", 1, "4");
    mb_value(g, "junk", 1, "100");
    mb_output(g, "y", 1, "4");
    const char *argv[] = {"--strategy", "slots", "--align", "1", "--include-inputs"};
    char *json = plan(g, 5, argv);
    expect_contains(json,
                    "{\"name\":\"x\",\"size\":16,\"start\":0,\"end\":0,\"owner\":\"x\",\"view\":false,\"slot\":0");
    expect_contains(
        json, "{\"name\":\"junk\",\"size\":400,\"start\":0,\"end\":0,\"owner\":\"junk\",\"view\":false,\"slot\":2");
    /* y may take x's slot (x retired after node 0) -- best fit picks the 16-byte one */
    expect_contains(json,
                    "{\"name\":\"y\",\"size\":16,\"start\":1,\"end\":1,\"owner\":\"y\",\"view\":false,\"slot\":0");
    free(json);
}

static void test_unplannable(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 8, "4"); /* string tensor */
    mb_node(g, "StringNormalizer", "x", "s");
    mb_node(g, "Size", "x", "n");
    mb_value(g, "n", 7, "");
    mb_output(g, "s", 8, "4");
    mb_output(g, "n", 7, "");
    char *json = plan(g, 4, SLOTS);
    expect_contains(json, "\"status\":\"planned\"");
    expect_contains(json, "\"values\":[{\"name\":\"n\",\"size\":8,\"start\":1,\"end\":1,\"owner\":\"n\"");
    expect_contains(json, "\"unplanned\":[{\"name\":\"s\",\"reason\":\"string tensor\"}]");
    free(json);
}

/* The slot plan's peak is the sum of its slot capacities at any alignment
 * (issue 19: 2 slots, 800 bytes, savings 0.5); the aligned layout is apart. */
static void test_slot_peak_ignores_alignment(void **state) {
    (void)state;
    static const char *const ALIGNS[] = {"1", "64", "4096"};
    static const char *const LAYOUT[] = {"800", "848", "4496"};
    for (int i = 0; i < 3; i++) {
        mb_graph *g = mb_new_graph("g");
        mb_input(g, "x", 1, "100");
        mb_node(g, "Relu", "x", "a");
        mb_node(g, "Relu", "a", "b");
        mb_node(g, "Relu", "b", "c");
        mb_node(g, "Relu", "c", "y");
        mb_output(g, "y", 1, "100");
        const char *argv[] = {"--strategy", "slots", "--align", ALIGNS[i]};
        char *json = plan(g, 4, argv);
        char want[256];
        snprintf(want, sizeof want,
                 "\"naive_bytes\":1600,\"peak_bytes\":800,\"lower_bound_bytes\":800,\"savings_ratio\":0.5,"
                 "\"slot_layout_bytes\":%s,",
                 LAYOUT[i]);
        expect_contains(json, want);
        free(json);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slot_peak_ignores_alignment),
        cmocka_unit_test(test_chain_two_slots),
        cmocka_unit_test(test_diamond_and_residual),
        cmocka_unit_test(test_disjoint_chains_share),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_symbolic_defers_then_binds),
        cmocka_unit_test(test_deferred_lists_every_dim),
        cmocka_unit_test(test_include_inputs_and_unused),
        cmocka_unit_test(test_unplannable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
