/*
 * test_plan_order.c -- plans under an execution order (memplan_plan_options
 * .order): the problem a plan gives the schedulers measures what the plan
 * measures, a two-branch model's best order with exact figures, the JSON
 * and the control-flow (a body ordered too) and in-place cases.
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
#include "plan/model_order.h"

static memplan_model *load(mb_graph *g) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    return m;
}

/* x -> a1 (100 floats) -> a2 (1 float); x -> b1 -> b2: the file runs both
 * big producers first. */
static void add_branches(mb_graph *g) {
    mb_node(g, "BigA", "x", "a1"); /* no shape rule: the declared shapes stand */
    mb_node(g, "BigB", "x", "b1");
    mb_node(g, "SmallA", "a1", "a2");
    mb_node(g, "SmallB", "b1", "b2");
    mb_value(g, "a1", 1, "100");
    mb_value(g, "b1", 1, "100");
    mb_value(g, "a2", 1, "1");
    mb_value(g, "b2", 1, "1");
}

/* The branches joined: y = a2 + b2. */
static mb_graph *branches(void) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "1");
    add_branches(g);
    mb_node(g, "Add", "a2,b2", "y");
    mb_output(g, "y", 1, "1");
    return g;
}

/* z = If(c): then_g, else Abs(x) (1 float). */
static void add_if(mb_graph *g, mb_graph *then_g) {
    mb_graph *else_g = mb_new_graph("else");
    mb_node(else_g, "Abs", "x", "e");
    mb_output(else_g, "e", 1, "1");
    Onnx__NodeProto *nif = mb_node(g, "If", "c", "z");
    mb_graph_attr(nif, "then_branch", then_g);
    mb_graph_attr(nif, "else_branch", else_g);
}

static memplan_model_plan *plan_with(const memplan_model *m, memplan_order_kind order, bool inplace) {
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.order = order;
    o.inplace = inplace;
    memplan_model_plan *p = NULL;
    memplan_error err = {0};
    if (memplan_plan_model(m, &o, &p, &err)) fail_msg("%s", err.message);
    return p;
}

/* The lower bound of the problem built from a file-order plan, under the
 * file order, is the plan's own. */
static void expect_problem_matches(const memplan_model_plan *p) {
    mp_order_problem q;
    memplan_error err = {0};
    assert_int_equal(mp_order_problem_build(p, &q, &err), MEMPLAN_OK);
    int32_t *id = malloc(((size_t)p->positions + 1) * sizeof *id);
    for (int32_t i = 0; i < p->positions; i++) id[i] = i;
    uint64_t peak = 0;
    assert_int_equal(memplan_schedule_peak(&q.p, id, &peak, &err), MEMPLAN_OK);
    assert_true(peak == p->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes);
    free(id);
    mp_order_problem_free(&q);
}

static void test_branches_best(void **state) {
    (void)state;
    memplan_model *m = load(branches());
    memplan_model_plan *f = plan_with(m, MEMPLAN_ORDER_FILE, false);
    expect_problem_matches(f);
    /* aligned to 64: a1, b1 448 bytes; a2, b2, y 64. File: a1 + b1 + a2 at
     * position 2. Best (a1 a2 b1 b2 y): a2 + b1 + b2 at position 3. */
    assert_true(f->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes == 960);
    assert_null(f->order.node);
    memplan_model_plan *b = plan_with(m, MEMPLAN_ORDER_BEST, false);
    assert_int_equal(b->order.asked, MEMPLAN_ORDER_BEST);
    assert_int_equal(b->order.kind, MEMPLAN_ORDER_GREEDY);
    assert_true(b->order.exact);
    int32_t want[] = {0, 2, 1, 3, 4};
    for (int i = 0; i < 5; i++) assert_int_equal(b->order.node[i], want[i]);
    assert_string_equal(b->graph->nodes[1].name, m->graph->nodes[2].name);
    assert_true(b->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes == 576);
    assert_true(b->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes == 576);
    assert_true(b->order.file[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes == 960);
    assert_true(b->order.file[MEMPLAN_STRATEGY_ARENA].peak_bytes == f->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes);
    /* the model's graph is untouched; the plan's intervals are positions */
    assert_int_equal(m->graph->values[memplan_graph_find(m->graph, "a2")].producer, 2);
    assert_int_equal(b->graph->values[memplan_graph_find(b->graph, "a2")].producer, 1);
    expect_problem_matches(b);
    memplan_model_plan *pf = plan_with(m, MEMPLAN_ORDER_POSTORDER, false); /* a1 a2 b1 b2 y too */
    assert_int_equal(pf->order.kind, MEMPLAN_ORDER_POSTORDER);
    assert_true(pf->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes == 576);
    memplan_model_plan_free(pf);
    memplan_model_plan_free(b);
    memplan_model_plan_free(f);
    memplan_model_free(m);
}

/* A chain has one order: best keeps the file's and says so. */
static void test_chain_keeps_file(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Neg", "a", "y");
    mb_output(g, "y", 1, "4");
    memplan_model *m = load(g);
    memplan_model_plan *b = plan_with(m, MEMPLAN_ORDER_BEST, false);
    assert_int_equal(b->order.kind, MEMPLAN_ORDER_FILE);
    assert_true(b->order.exact);
    assert_null(b->order.node);
    assert_ptr_equal(b->graph, m->graph);
    memplan_model_plan_free(b);
    memplan_model_free(m);
}

static char *report(const memplan_model *m, const char *const *argv, int argc, bool json) {
    memplan_request r;
    memplan_error err = {0};
    assert_int_equal(cli_request_parse(&r, argc, argv, &err), MEMPLAN_OK);
    char *out = NULL;
    size_t len;
    memplan_status st = json ? memplan_report_json(m, "plan", &r, &out, &len, &err)
                             : memplan_report_text(m, "plan", &r, &out, &len, &err);
    memplan_request_free(&r);
    if (st) fail_msg("%s", err.message);
    return out;
}

static void expect_contains(const char *text, const char *fragment) {
    if (!strstr(text, fragment)) fail_msg("%s\n--- lacks ---\n%s", text, fragment);
}

static void test_json(void **state) {
    (void)state;
    memplan_model *m = load(branches());
    const char *best[] = {"--order", "best", "--no-nodes"};
    char *j = report(m, best, 3, true);
    expect_contains(j, "\"order\":{\"asked\":\"best\",\"name\":\"greedy\",\"exact\":true,\"positions\":[0,2,1,3,4],"
                       "\"file_lower_bound_bytes\":960,\"file_peak_bytes\":960,\"lower_bound_bytes\":576,"
                       "\"peak_bytes\":576,\"saving_bytes\":384}");
    free(j);
    const char *file[] = {"--no-nodes"};
    j = report(m, file, 1, true);
    assert_null(strstr(j, "\"order\""));
    free(j);
    const char *slots[] = {"--order", "best", "--strategy", "slots", "--align", "1"};
    j = report(m, slots, 6, true); /* raw sizes: 400 + 400 + 4 against 4 + 400 + 4 */
    expect_contains(j, "\"file_lower_bound_bytes\":804,");
    expect_contains(j, "\"lower_bound_bytes\":408,");
    free(j);
    char *t = report(m, best, 2, false);
    expect_contains(t, "order:             greedy (asked: best), exact\n"
                       "  file order:      peak 960 B, lower bound 960 B\n"
                       "  saving:          384 bytes of peak\n");
    free(t);
    memplan_request r;
    memplan_error err = {0};
    const char *bad[] = {"--order", "fastest"};
    assert_int_equal(cli_request_parse(&r, 2, bad, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message,
                        "--order takes best, file, greedy, dfs, postorder, forward, onnxruntime, beam or exact");
    memplan_request_free(&r);
    cli_args a;
    cli_args_init(&a);
    const char *info[] = {"--order", "best"};
    assert_int_equal(cli_args_parse(&a, memplan_command_find("info"), 2, info, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "--order does not apply to info");
    cli_args_free(&a);
    memplan_model_free(m);
}

/* Beside a plan in the file order, ONNX Runtime's order of the main graph
 * (BigB SmallB BigA SmallA Add: depth-first from Add, its later input's
 * branch first): 4 positions move, and at SmallA b2, a1 and a2 are live,
 * 64 + 448 + 64 = 576 against the file order's 960. Not known with in-place
 * reuse, under another order, or with a body (test_control_flow's model). */
static void test_ort_order_beside_file(void **state) {
    (void)state;
    memplan_model *m = load(branches());
    memplan_model_plan *f = plan_with(m, MEMPLAN_ORDER_FILE, false);
    memplan_model_plan *o = plan_with(m, MEMPLAN_ORDER_ONNXRUNTIME, false);
    assert_true(f->ort_order.known);
    assert_int_equal(f->ort_order.moved, 4);
    assert_true(f->ort_order.lower_bound == 576);
    assert_true(o->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes == 576);
    const int32_t want[] = {1, 3, 0, 2, 4};
    assert_memory_equal(o->order.node, want, sizeof want);
    assert_false(o->ort_order.known);
    /* the file written for ONNX Runtime: each node once; either branch first needs 576 */
    assert_non_null(o->ort_order.written);
    assert_null(f->ort_order.written);
    int seen = 0;
    for (int32_t i = 0; i < 5; i++) seen |= 1 << o->ort_order.written[i];
    assert_int_equal(seen, 31);
    assert_true(o->ort_order.written_lower_bound == 576);
    memplan_model_plan_free(o);
    memplan_model_plan_free(f);
    memplan_model_plan *ip = plan_with(m, MEMPLAN_ORDER_FILE, true);
    assert_false(ip->ort_order.known);
    memplan_model_plan_free(ip);
    const char *file[] = {"--no-nodes"};
    char *j = report(m, file, 1, true);
    expect_contains(j, "\"onnxruntime_order\":{\"moved\":4,\"lower_bound_bytes\":576}");
    free(j);
    char *t = report(m, file, 1, false);
    expect_contains(t, "onnxruntime:       runs the nodes in another order (--order onnxruntime: 4 of 5 positions "
                       "move); lower bound there 576 B, 40.0% below the file order's\n");
    free(t);
    const char *best[] = {"--order", "best", "--no-nodes"};
    j = report(m, best, 3, true);
    expect_contains(j, "\"onnxruntime_order\":null");
    assert_null(strstr(j, "written_lower_bound_bytes"));
    free(j);
    const char *ort[] = {"--order", "onnxruntime", "--no-nodes"};
    j = report(m, ort, 3, true);
    expect_contains(j, "\"saving_bytes\":384,\"written_lower_bound_bytes\":576}");
    free(j);
    t = report(m, ort, 2, false);
    expect_contains(t, "  written for it:  lower bound 576 B in ONNX Runtime's order of the file reorder --order "
                       "onnxruntime writes\n");
    free(t);
    memplan_model_free(m);
}

/* An If beside the branches: its transient (the larger branch's arena) is
 * live at its position only, and the order moves it as one step. */
static void test_control_flow(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "1");
    mb_input(g, "c", 9, "1");
    add_branches(g);
    mb_graph *then_g = mb_new_graph("then");
    mb_node(then_g, "BigT", "x", "t0"); /* x captured */
    mb_node(then_g, "SmallT", "t0", "t");
    mb_value(then_g, "t0", 1, "1000");
    mb_output(then_g, "t", 1, "1");
    add_if(g, then_g);
    mb_node(g, "Add", "a2,b2", "s");
    mb_node(g, "Add", "s,z", "y");
    mb_value(g, "z", 1, "1");
    mb_value(g, "s", 1, "1");
    mb_output(g, "y", 1, "1");
    memplan_model *m = load(g);
    memplan_model_plan *f = plan_with(m, MEMPLAN_ORDER_FILE, false);
    /* ONNX Runtime's order (the plan under it, as it orders the bodies too):
     * BigB, SmallB, BigA, SmallA, Add, If, Add -- 6 of 7 positions move; the
     * If then holds s + z + 4032 = 4160 */
    assert_true(f->ort_order.known);
    assert_int_equal(f->ort_order.moved, 6);
    assert_true(f->ort_order.lower_bound == 4160);
    expect_problem_matches(f);
    memplan_model_plan *b = plan_with(m, MEMPLAN_ORDER_BEST, false);
    expect_problem_matches(b);
    assert_int_equal(b->n_transients, 1);
    assert_true(b->transients[0].bytes == 4032); /* t0: 4000 -> 4032; t is the If's z */
    /* File: the If at 4 holds a2 + b2 + z + 4032 = 4224. Any order holds
     * z + 4032 there; best runs the If first, when nothing else is live. */
    assert_true(f->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes == 4224);
    assert_true(b->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes == 4096);
    assert_true(b->order.exact);
    assert_int_equal(b->transients[0].node, 0);
    assert_int_equal(b->order.node[0], 4);
    assert_true(b->subgraphs[0].node == b->transients[0].node);
    assert_string_equal(b->graph->nodes[b->transients[0].node].op_type, "If");
    memplan_model_plan_free(b);
    memplan_model_plan_free(f);
    memplan_model_free(m);
}

/* An If whose then-branch is two branches (as add_branches, 100 floats a
 * side) joined into the If's output: the body is ordered too, before the
 * main graph. File order in the body: a1, b1 and a2 meet at SmallA, 448 +
 * 448 + 64 = 960; best runs one side to its end first: b1 + a2 + b2 = 576.
 * The main graph holds z (64) beside the If's transient (the body's arena,
 * the larger branch: the condition is not known). */
static void test_body_ordered(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "1");
    mb_input(g, "c", 9, "1");
    mb_graph *then_g = mb_new_graph("then");
    add_branches(then_g); /* x captured */
    mb_node(then_g, "Add", "a2,b2", "t");
    mb_output(then_g, "t", 1, "1");
    add_if(g, then_g);
    mb_node(g, "Neg", "z", "y");
    mb_value(g, "z", 1, "1");
    mb_output(g, "y", 1, "1");
    memplan_model *m = load(g);
    memplan_model_plan *f = plan_with(m, MEMPLAN_ORDER_FILE, false);
    memplan_model_plan *b = plan_with(m, MEMPLAN_ORDER_BEST, false);
    assert_int_equal(f->n_subgraphs, 2);
    assert_int_equal(b->n_subgraphs, 2);
    const memplan_model_plan *ft = f->subgraphs[0].plan, *bt = b->subgraphs[0].plan;
    assert_string_equal(b->subgraphs[0].attribute, "then_branch");
    /* the file-order plan's body is in the file order and says so */
    assert_int_equal(ft->order.asked, MEMPLAN_ORDER_FILE);
    assert_null(ft->order.node);
    assert_true(ft->arena.arena_bytes == 960);
    assert_true(ft->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes == 960);
    /* best's body: greedy's order, proven; its figures under the file order kept */
    assert_int_equal(bt->order.asked, MEMPLAN_ORDER_BEST);
    assert_int_equal(bt->order.kind, MEMPLAN_ORDER_GREEDY);
    assert_true(bt->order.exact);
    assert_non_null(bt->order.node);
    const int32_t want[5] = {0, 2, 1, 3, 4}; /* BigA, SmallA, BigB, SmallB, Add */
    for (int i = 0; i < 5; i++) {
        assert_int_equal(bt->order.node[i], want[i]);
        assert_string_equal(bt->graph->nodes[i].op_type, ft->graph->nodes[want[i]].op_type);
    }
    assert_true(bt->order.file[MEMPLAN_STRATEGY_ARENA].peak_bytes == 960);
    assert_true(bt->arena.arena_bytes == 576);
    assert_true(bt->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes == 576);
    /* the parent's transient is the body's arena: 64 + 960 -> 64 + 576 */
    assert_true(f->transients[0].bytes == 960 && b->transients[0].bytes == 576);
    assert_true(b->subgraphs[0].transient_bytes == 576);
    assert_true(f->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes == 1024);
    assert_true(b->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes == 640);
    /* the main graph has one order; its file figures are the all-file plan's */
    assert_int_equal(b->order.kind, MEMPLAN_ORDER_FILE);
    assert_null(b->order.node);
    assert_true(b->order.file[MEMPLAN_STRATEGY_ARENA].peak_bytes == 1024);
    /* the else-branch (one node) keeps its order, and says what was asked */
    assert_int_equal(b->subgraphs[1].plan->order.asked, MEMPLAN_ORDER_BEST);
    assert_int_equal(b->subgraphs[1].plan->order.kind, MEMPLAN_ORDER_FILE);
    /* a named scheduler orders the body too */
    memplan_model_plan *gr = plan_with(m, MEMPLAN_ORDER_GREEDY, false);
    assert_true(gr->subgraphs[0].plan->arena.arena_bytes == 576);
    assert_int_equal(gr->subgraphs[0].plan->order.kind, MEMPLAN_ORDER_GREEDY);
    memplan_model_plan_free(gr);
    memplan_model_plan_free(b);
    memplan_model_plan_free(f);
    memplan_model_free(m);
}

/* In-place reuse is found again under the new order. */
static void test_inplace(void **state) {
    (void)state;
    memplan_model *m = load(branches());
    memplan_model_plan *b = plan_with(m, MEMPLAN_ORDER_BEST, true);
    memplan_model_plan *f = plan_with(m, MEMPLAN_ORDER_FILE, true);
    assert_true(b->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes <=
                f->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes);
    assert_true(b->order.file[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes ==
                f->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes);
    memplan_model_plan_free(b);
    memplan_model_plan_free(f);
    memplan_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_branches_best), cmocka_unit_test(test_chain_keeps_file),
        cmocka_unit_test(test_json),          cmocka_unit_test(test_ort_order_beside_file),
        cmocka_unit_test(test_control_flow),  cmocka_unit_test(test_body_ordered),
        cmocka_unit_test(test_inplace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
