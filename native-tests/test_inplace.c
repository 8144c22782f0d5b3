/*
 * test_inplace.c -- The in-place rules (docs/semantics.md, "In-place reuse" to "Decision log") on small models, with
 * exact values: reuse, release lists, tags, the decision log, accessors.
 * Profile, annotation and plan --inplace are in test_inplace_profile.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"
#include "test_inplace_util.h"

/* x -> Abs a -> Abs b -> Abs y */
static void test_abs_chain(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Abs", "a", "b");
    mb_node(g, "Abs", "b", "y");
    mb_output(g, "y", 1, "4");
    tctx t;
    t_build(&t, g, false, false);
    expect_reuse(&t, 0, "");
    expect_reuse(&t, 1, "0:0:equal");
    expect_reuse(&t, 2, "0:0:equal");
    expect_list(&t, LIST_RELEASE, 0, "");
    expect_list(&t, LIST_RELEASE, 1, "a");
    expect_list(&t, LIST_RELEASE, 2, "b");
    expect_list(&t, LIST_NOT_USED, 0, "x");
    expect_list(&t, LIST_NOT_USED, 1, "");
    t_free(&t);
}

/* a is read by Neg and by Add: only Add (its last use) may overwrite it. */
static void test_read_twice(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Neg", "a", "b");
    mb_node(g, "Add", "a,b", "c");
    mb_node(g, "Mul", "c,c", "y"); /* c read twice by one node: never */
    mb_output(g, "y", 1, "4");
    tctx t;
    t_build(&t, g, false, false);
    expect_reuse(&t, 1, "");
    expect_reuse(&t, 2, "0:0:equal");
    expect_reuse(&t, 3, "");
    expect_list(&t, LIST_RELEASE, 1, "");
    expect_list(&t, LIST_RELEASE, 2, "a;b");
    expect_list(&t, LIST_RELEASE, 3, "c");
    t_free(&t);
}

static void test_transpose_same_size(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "2,3");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Transpose", "a", "t");
    mb_node(g, "Abs", "t", "y");
    mb_output(g, "y", 1, "3,2");
    tctx t;
    t_build(&t, g, false, false);
    expect_reuse(&t, 1, "0:0:equal");
    expect_reuse(&t, 2, "0:0:equal");
    t_free(&t);
}

static void test_transpose_symbolic(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,M");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Transpose", "a", "t");
    mb_node(g, "Cast", "t", "h"); /* float -> float16: half the bytes, symbolic: no match */
    mb_int_attr(g->node[2], "to", 10);
    mb_node(g, "Abs", "h", "y");
    mb_output(g, "y", 10, "M,N");
    tctx t;
    t_build(&t, g, false, false);
    expect_reuse(&t, 1, "0:0:equal");
    expect_reuse(&t, 2, ""); /* 2*M*N < 4*M*N but greater needs concrete sizes */
    expect_reuse(&t, 3, "0:0:equal");
    t_free(&t);
}

/* a is a graph output: never overwritten, never released. */
static void test_graph_output_never_reused(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Neg", "a", "y");
    mb_output(g, "a", 1, "4");
    mb_output(g, "y", 1, "4");
    tctx t;
    t_build(&t, g, false, false);
    expect_reuse(&t, 1, "");
    expect_list(&t, LIST_RELEASE, 1, "");
    t_free(&t);
}

/* A custom op (declared output types): equal first, then greater. */
static void test_greater_and_equal_preferred(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "8");
    mb_input(g, "z", 1, "4");
    mb_node(g, "Abs", "x", "big");
    mb_node(g, "Abs", "z", "small");
    Onnx__NodeProto *nd = mb_node(g, "Split2", "big,small", "o0,o1");
    nd->domain = mb_strdup("custom");
    nd = mb_node(g, "Shrink1", "o1", "o2");
    nd->domain = mb_strdup("custom");
    mb_node(g, "Add", "o0,o2", "y");
    mb_value(g, "o0", 1, "4");
    mb_value(g, "o1", 1, "4");
    mb_value(g, "o2", 1, "2");
    mb_output(g, "y", 1, "4");
    tctx t;
    t_build(&t, g, false, false);
    /* o0 takes the equal-size 'small' (input 1), although 'big' comes first;
     * o1 then takes 'big' as greater. */
    expect_reuse(&t, 2, "0:1:equal;1:0:greater");
    expect_reuse(&t, 3, "0:0:greater");
    /* Add(o0[4], o2[2]) -> y[4]: o0 equal. */
    expect_reuse(&t, 4, "0:0:equal");
    t_free(&t);
}

static void test_allow_input_overwrite(void **state) {
    (void)state;
    for (int allow = 0; allow < 2; allow++) {
        mb_graph *g = mb_new_graph("g");
        mb_input(g, "x", 1, "4");
        mb_input(g, "w", 1, "4");
        mb_input(g, "io", 1, "4");
        mb_node(g, "Abs", "x", "a");   /* x read again later: no reuse here */
        mb_node(g, "Add", "x,a", "b"); /* x's last use: reusable when allowed */
        mb_node(g, "Abs", "w", "c");   /* w's only use */
        mb_node(g, "Abs", "io", "d");  /* io is also a graph output: never */
        mb_node(g, "Sum", "b,c,d", "y");
        mb_output(g, "io", 1, "4");
        mb_output(g, "y", 1, "4");
        tctx t;
        t_build(&t, g, allow, false);
        expect_reuse(&t, 0, "");
        expect_reuse(&t, 1, allow ? "0:0:equal" : "0:1:equal"); /* x when allowed; else a */
        expect_reuse(&t, 2, allow ? "0:0:equal" : "");
        expect_reuse(&t, 3, "");
        /* Graph inputs are produced before 0: never released, always "not used after". */
        expect_list(&t, LIST_RELEASE, 1, "a");
        expect_list(&t, LIST_NOT_USED, 1, "x");
        expect_list(&t, LIST_NOT_USED, 2, "w");
        expect_list(&t, LIST_NOT_USED, 3, "io");
        assert_int_equal(memplan_inplace_is_protected(t.ctx, memplan_graph_find(t.m->graph, "x")), !allow);
        assert_true(memplan_inplace_is_protected(t.ctx, memplan_graph_find(t.m->graph, "io")));
        t_free(&t);
    }
}

/* Shape -> Reshape: the shape value is released and listed as shape-tagged. */
static mb_graph *shape_graph(void) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "2,3");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Shape", "a", "s");
    mb_node(g, "Reshape", "a,s", "r");
    mb_node(g, "Shape", "r", "s2");
    mb_node(g, "Reshape", "r,s2", "y");
    mb_output(g, "y", 1, "2,3");
    return g;
}

static void test_shape_tag_release(void **state) {
    (void)state;
    tctx t;
    t_build(&t, shape_graph(), false, false);
    assert_true(memplan_inplace_has_tags(t.ctx));
    expect_list(&t, LIST_RELEASE, 2, "a;s");
    expect_list(&t, LIST_SHAPE_TAG, 2, "s");
    expect_list(&t, LIST_SHAPE_TAG, 4, "s2");
    expect_list(&t, LIST_SHAPE_TAG, 1, "");
    expect_reuse(&t, 2, "0:0:equal");
    expect_value_tag(&t, "s", MEMPLAN_TAG_SHAPE);
    expect_value_tag(&t, "x", MEMPLAN_TAG_WEIGHT);
    expect_value_tag(&t, "r", MEMPLAN_TAG_WEIGHT);
    memplan_tag tag;
    assert_int_equal(memplan_inplace_node_tag(t.ctx, 1, &tag, NULL), MEMPLAN_OK);
    assert_int_equal(tag, MEMPLAN_TAG_SHAPE);
    t_free(&t);
}

/* No inputs, no initializers, nothing tagged: the shape-tag list is absent. */
static void test_no_tags_absent(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_node(g, "RandomNormal", "", "a");
    mb_int_attr(g->node[0], "dtype", 1);
    mb_node(g, "Abs", "a", "y");
    mb_output(g, "y", 1, "?");
    tctx t;
    t_build(&t, g, false, false);
    assert_false(memplan_inplace_has_tags(t.ctx));
    const int32_t *ids;
    size_t n;
    memplan_error err = {0};
    assert_int_equal(memplan_inplace_release_after_shape_tag(t.ctx, 0, &ids, &n, &err), MEMPLAN_EUSAGE);
    t_free(&t);
}

/* Per node: releases, then inplace entries; shape-tag entries at the end. */
static void test_decision_log_order(void **state) {
    (void)state;
    tctx t;
    t_build(&t, shape_graph(), false, true);
    const char *want[] = {
        "release 2 a",  "release 2 s",         "inplace 2 0:0:equal",   "release 4 r",
        "release 4 s2", "inplace 4 0:0:equal", "release_shape_tag 2 s", "release_shape_tag 4 s2",
    };
    size_t n = memplan_inplace_event_count(t.ctx);
    assert_int_equal(n, sizeof want / sizeof want[0]);
    const memplan_event *ev = memplan_inplace_events(t.ctx);
    for (size_t k = 0; k < n; k++) {
        char buf[128];
        if (ev[k].action == MEMPLAN_EVENT_INPLACE)
            snprintf(buf, sizeof buf, "inplace %d %d:%d:%s", ev[k].node_index, ev[k].output_index, ev[k].input_index,
                     memplan_reuse_kind_name(ev[k].kind));
        else
            snprintf(buf, sizeof buf, "%s %d %s", memplan_event_action_name(ev[k].action), ev[k].node_index,
                     ev[k].name);
        assert_string_equal(buf, want[k]);
    }
    assert_true(memplan_inplace_events_enabled(t.ctx));
    memplan_inplace_clear_events(t.ctx);
    assert_int_equal(memplan_inplace_event_count(t.ctx), 0);
    expect_reuse(&t, 2, "0:0:equal"); /* results kept */
    t_free(&t);
    t_build(&t, shape_graph(), false, false);
    assert_int_equal(memplan_inplace_event_count(t.ctx), 0); /* off by default */
    t_free(&t);
}

/* If: the then-branch reads outer 'a' (a use at the If node); the
 * else-branch defines its own 'b', so outer 'b' is not read there. */
static void test_if_captures_and_shadowing(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_input(g, "cond", 9, "");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Neg", "a", "b"); /* a still read at the If: no reuse */
    mb_graph *then_g = mb_new_graph("then");
    mb_node(then_g, "Identity", "a", "t");
    mb_output(then_g, "t", 1, "4");
    mb_graph *else_g = mb_new_graph("else");
    mb_node(else_g, "Identity", "x", "b"); /* local 'b' shadows the outer one */
    mb_node(else_g, "Identity", "b", "e");
    mb_output(else_g, "e", 1, "4");
    Onnx__NodeProto *nd = mb_node(g, "If", "cond", "r");
    mb_graph_attr(nd, "then_branch", then_g);
    mb_graph_attr(nd, "else_branch", else_g);
    mb_node(g, "Abs", "b", "c"); /* b's last use */
    mb_node(g, "Add", "r,c", "y");
    mb_value(g, "r", 1, "4");
    mb_output(g, "y", 1, "4");
    tctx t;
    t_build(&t, g, false, false);
    int32_t last;
    assert_int_equal(memplan_inplace_last_use(t.ctx, memplan_graph_find(t.m->graph, "a"), &last, NULL), MEMPLAN_OK);
    assert_int_equal(last, 2);
    assert_int_equal(memplan_inplace_last_use(t.ctx, memplan_graph_find(t.m->graph, "b"), &last, NULL), MEMPLAN_OK);
    assert_int_equal(last, 3);
    assert_int_equal(memplan_inplace_last_use(t.ctx, memplan_graph_find(t.m->graph, "x"), &last, NULL), MEMPLAN_OK);
    assert_int_equal(last, 2);
    expect_reuse(&t, 1, "");
    expect_reuse(&t, 2, "");
    expect_reuse(&t, 3, "0:0:equal");
    expect_list(&t, LIST_RELEASE, 2, "a");
    expect_list(&t, LIST_NOT_USED, 2, "cond;x"); /* cond, then x (read by the else branch) */
    t_free(&t);
}

/* referenced(If) lists what its branches read in the order a walk over the
 * branch nodes meets it: the then-branch's Abs reads p before its nested If
 * reads q, so p comes first (as in the reference's release lists). */
static void test_capture_order_follows_nodes(void **state) {
    (void)state;
    mb_graph *t2 = mb_new_graph("then2");
    mb_node(t2, "Neg", "q", "u");
    mb_output(t2, "u", 1, "4");
    mb_graph *e2 = mb_new_graph("else2");
    mb_node(e2, "Neg", "q", "u2");
    mb_output(e2, "u2", 1, "4");
    mb_graph *th = mb_new_graph("then");
    mb_node(th, "Abs", "p", "t0");
    Onnx__NodeProto *nd = mb_node(th, "If", "cond", "ti");
    mb_graph_attr(nd, "then_branch", t2);
    mb_graph_attr(nd, "else_branch", e2);
    mb_node(th, "Add", "t0,ti", "to");
    mb_output(th, "to", 1, "4");
    mb_graph *el = mb_new_graph("else");
    mb_node(el, "Identity", "p", "e");
    mb_output(el, "e", 1, "4");
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_input(g, "cond", 9, "");
    mb_node(g, "Abs", "x", "p");
    mb_node(g, "Neg", "x", "q");
    nd = mb_node(g, "If", "cond", "r");
    mb_graph_attr(nd, "then_branch", th);
    mb_graph_attr(nd, "else_branch", el);
    mb_node(g, "Abs", "r", "y");
    mb_value(g, "r", 1, "4");
    mb_output(g, "y", 1, "4");
    tctx t;
    t_build(&t, g, false, false);
    expect_list(&t, LIST_RELEASE, 2, "p;q");
    expect_list(&t, LIST_NOT_USED, 2, "cond");
    t_free(&t);
}

static void test_out_of_range(void **state) {
    (void)state;
    tctx t;
    t_build(&t, shape_graph(), false, false);
    memplan_error err = {0};
    const memplan_reuse *items;
    const int32_t *ids;
    const memplan_profile *p;
    memplan_tag tag;
    size_t n;
    assert_int_equal(memplan_inplace_node_reuse(t.ctx, 5, &items, &n, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "node index 5 is out of range (the graph has 5 nodes)");
    assert_int_equal(memplan_inplace_node_reuse(t.ctx, -1, &items, &n, &err), MEMPLAN_EUSAGE);
    assert_int_equal(memplan_inplace_release_after(t.ctx, 9, &ids, &n, &err), MEMPLAN_EUSAGE);
    assert_int_equal(memplan_inplace_not_used_after(t.ctx, 9, &ids, &n, &err), MEMPLAN_EUSAGE);
    assert_int_equal(memplan_inplace_release_after_shape_tag(t.ctx, 9, &ids, &n, &err), MEMPLAN_EUSAGE);
    assert_int_equal(memplan_inplace_node_tag(t.ctx, 9, &tag, &err), MEMPLAN_EUSAGE);
    assert_int_equal(memplan_inplace_node_profile(t.ctx, 9, &p, &err), MEMPLAN_EUSAGE);
    assert_int_equal(memplan_inplace_value_tag(t.ctx, 1000, &tag, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "value id 1000 is out of range (the graph has 6 values)");
    t_free(&t);
}

/* Tags: Slice/Unsqueeze/Concat rules, a backward flow, and hints. */
static void test_tags_rules(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "2,3");
    mb_input(g, "h", 7, "1");
    Onnx__ValueInfoProto *hv = g->input[1];
    mb_meta(&hv->metadata_props, &hv->n_metadata_props, "onnx_light.value_tag", "");
    int64_t one = 1, zero = 0;
    mb_initializer_ints(g, "ax", "1", &zero, 1);
    mb_initializer_ints(g, "st", "1", &zero, 1);
    mb_initializer_ints(g, "en", "1", &one, 1);
    mb_node(g, "Shape", "x", "s");
    mb_node(g, "Slice", "s,st,en,ax", "d0");
    mb_node(g, "Concat", "d0,h", "shp"); /* h untagged by its hint */
    mb_int_attr(g->node[2], "axis", 0);
    mb_node(g, "Reshape", "x,shp", "y");
    mb_output(g, "y", 1, "?,?");
    tctx t;
    t_build(&t, g, false, false);
    expect_value_tag(&t, "h", MEMPLAN_TAG_SHAPE); /* backward from Concat's shape output */
    expect_value_tag(&t, "shp", MEMPLAN_TAG_SHAPE);
    expect_value_tag(&t, "st", MEMPLAN_TAG_SHAPE); /* weight upgraded by Slice input 1 */
    expect_value_tag(&t, "ax", MEMPLAN_TAG_AXES);
    expect_value_tag(&t, "d0", MEMPLAN_TAG_SHAPE);
    expect_value_tag(&t, "y", MEMPLAN_TAG_WEIGHT);
    t_free(&t);
}

/* `ambiguous` is a tag outputs can agree on ("Tags"): a Constant whose output is
 * ambiguous is tagged ambiguous, and an ambiguous Identity output flows back
 * to its input 0 (as in the reference). */
static void test_tags_ambiguous_agrees(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "d", 1, "6");
    mb_input(g, "x", 7, "1");
    mb_node(g, "Constant", "", "k");       /* 0 */
    mb_node(g, "Identity", "x", "i");      /* 1 */
    mb_node(g, "Reshape", "d,k", "r1");    /* 2: k shape */
    mb_node(g, "Unsqueeze", "r1,k", "u1"); /* 3: k axes too: ambiguous */
    mb_node(g, "Reshape", "u1,i", "r2");   /* 4: i shape */
    mb_node(g, "Unsqueeze", "r2,i", "y");  /* 5: i axes too: ambiguous */
    mb_output(g, "y", 1, "?");
    tctx t;
    t_build(&t, g, false, false);
    expect_value_tag(&t, "k", MEMPLAN_TAG_AMBIGUOUS);
    expect_value_tag(&t, "i", MEMPLAN_TAG_AMBIGUOUS);
    expect_value_tag(&t, "x", MEMPLAN_TAG_AMBIGUOUS);
    expect_value_tag(&t, "d", MEMPLAN_TAG_WEIGHT);
    expect_value_tag(&t, "y", MEMPLAN_TAG_WEIGHT);
    const memplan_tag want[] = {MEMPLAN_TAG_AMBIGUOUS, MEMPLAN_TAG_AMBIGUOUS, MEMPLAN_TAG_WEIGHT,
                                MEMPLAN_TAG_WEIGHT,    MEMPLAN_TAG_WEIGHT,    MEMPLAN_TAG_WEIGHT};
    for (int32_t i = 0; i < 6; i++) {
        memplan_tag tag;
        assert_int_equal(memplan_inplace_node_tag(t.ctx, i, &tag, NULL), MEMPLAN_OK);
        if (tag != want[i])
            fail_msg("node %d tag: got '%s', want '%s'", (int)i, memplan_tag_name(tag), memplan_tag_name(want[i]));
    }
    t_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abs_chain),
        cmocka_unit_test(test_read_twice),
        cmocka_unit_test(test_transpose_same_size),
        cmocka_unit_test(test_transpose_symbolic),
        cmocka_unit_test(test_graph_output_never_reused),
        cmocka_unit_test(test_greater_and_equal_preferred),
        cmocka_unit_test(test_allow_input_overwrite),
        cmocka_unit_test(test_shape_tag_release),
        cmocka_unit_test(test_no_tags_absent),
        cmocka_unit_test(test_decision_log_order),
        cmocka_unit_test(test_if_captures_and_shadowing),
        cmocka_unit_test(test_capture_order_follows_nodes),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_tags_rules),
        cmocka_unit_test(test_tags_ambiguous_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
