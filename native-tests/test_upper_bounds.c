/*
 * test_upper_bounds.c -- plans that rest on dims the user cannot bind:
 * data-dependent dims planned at their bounds (--upper-bounds), dim ranges
 * (--dim NAME=LO..HI), the internal symbols a deferred plan names apart from
 * the dims a user binds, and the inputs a --value could resolve. Checked on
 * the typed plan and on the plan JSON.
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

/* x float[seq,8] -> Relu -> NonZero (int64[2, n]) -> Transpose -> Cast float -> Relu. */
static memplan_model *nonzero_model(void) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "seq,8");
    mb_node(g, "Relu", "x", "r");
    mb_node(g, "NonZero", "r", "nz");
    mb_node(g, "Transpose", "nz", "t");
    mb_int_attr(mb_node(g, "Cast", "t", "c"), "to", 1);
    mb_node(g, "Relu", "c", "y");
    mb_output(g, "y", 1, NULL);
    memplan_error err = {0};
    memplan_model *m = mb_load(g, &err);
    if (!m) fail_msg("load: %s", err.message);
    return m;
}

/* `command` on m with the CLI arguments argv, as JSON or text: the report,
 * or the error message when the status is `want`'s error (any other status
 * fails the test). */
static char *run_report(const memplan_model *m, const char *command, int argc, const char *const *argv,
                        memplan_status want, bool text) {
    memplan_request r;
    memplan_error err = {0};
    assert_int_equal(cli_request_parse(&r, argc, argv, &err), MEMPLAN_OK);
    char *out = NULL;
    size_t len;
    memplan_status st = (text ? memplan_report_text : memplan_report_json)(m, command, &r, &out, &len, &err);
    memplan_request_free(&r);
    if (st != want) fail_msg("%s: status %d (%s)", command, (int)st, err.message);
    return st ? mb_strdup(err.message) : out;
}

static char *report(const memplan_model *m, int argc, const char *const *argv) {
    return run_report(m, "plan", argc, argv, MEMPLAN_OK, false);
}

static void expect_contains(const char *json, const char *fragment) {
    if (!strstr(json, fragment)) fail_msg("%s\n--- lacks ---\n%s", json, fragment);
}

/* The plan's text report. */
static char *report_text(const memplan_model *m, int argc, const char *const *argv) {
    return run_report(m, "plan", argc, argv, MEMPLAN_OK, true);
}

/* Without --upper-bounds the NonZero count defers the plan; it is named as
 * an internal, data-dependent dim, not as a dim to bind. */
static void test_data_dim_defers_and_is_internal(void **state) {
    (void)state;
    memplan_model *m = nonzero_model();
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    memplan_binding seq = {"seq", 4};
    o.bindings = &seq;
    o.n_bindings = 1;
    memplan_model_plan *p;
    memplan_error err = {0};
    assert_int_equal(memplan_plan_model(m, &o, &p, &err), MEMPLAN_OK);
    assert_true(p->deferred);
    assert_int_equal(p->n_unbound_dims, 0);
    assert_int_equal(p->n_internal_dims, 1);
    assert_string_equal(p->internal_dims[0], "unk__0");
    assert_int_equal(p->n_bounded, 0);
    memplan_model_plan_free(p);
    const char *const args[] = {"--dim", "seq=4", "--no-nodes"};
    char *json = report(m, 3, args);
    expect_contains(json, "\"dims\":[],\"internal_dims\":[{\"name\":\"unk__0\",\"reason\":\"data-dependent: NonZero "
                          "(node #1)\",\"data_dependent\":true,\"bind_instead\":[]}],\"value_inputs\":[]");
    /* the values resting on it say why, not "unbound dims": there is nothing to bind */
    expect_contains(json,
                    "\"unknown\":{\"values\":[{\"name\":\"nz\",\"reason\":\"data-dependent: NonZero (node #1)\"},");
    assert_null(strstr(json, "unbound dims"));
    assert_null(strstr(json, "\"upper_bounds\""));
    free(json);
    memplan_model_free(m);
}

/* --upper-bounds: NonZero's count at numel(r) = 4*8 = 32, so nz, t are
 * int64[2,32] / [32,2] (512 B) and c, y float[32,2] (256 B). */
static void test_upper_bound_plan(void **state) {
    (void)state;
    memplan_model *m = nonzero_model();
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    memplan_binding seq = {"seq", 4};
    o.bindings = &seq;
    o.n_bindings = 1;
    o.upper_bounds = true;
    memplan_model_plan *p;
    memplan_error err = {0};
    assert_int_equal(memplan_plan_model(m, &o, &p, &err), MEMPLAN_OK);
    assert_false(p->deferred);
    assert_int_equal(p->n_bounded, 1);
    assert_string_equal(p->bounded[0].name, "unk__0");
    assert_true(p->bounded[0].data);
    assert_int_equal(p->bounded[0].value, 32);
    uint64_t bytes[5] = {128, 512, 512, 256, 256}; /* r nz t c y */
    const char *names[5] = {"r", "nz", "t", "c", "y"};
    for (int i = 0; i < 5; i++) {
        int32_t v = memplan_graph_find(p->graph, names[i]);
        assert_true(v >= 0);
        assert_int_equal(p->size[v].kind, MEMPLAN_SIZE_KNOWN);
        assert_int_equal(p->size[v].bytes, bytes[i]);
    }
    /* r+nz live at 1, nz+t at 2 (1024), t+c at 3 (768), c+y at 4 */
    assert_int_equal(p->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes, 1024);
    assert_int_equal(p->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes, 1024);
    memplan_model_plan_free(p);
    const char *const args[] = {"--dim", "seq=4", "--upper-bounds", "--no-nodes"};
    char *json = report(m, 4, args);
    expect_contains(json, "\"status\":\"planned\"");
    /* the arena reaches the bound: optimal, proven at 1024 */
    expect_contains(json, "\"arena_optimal\":true,\"arena_proven_lower_bound_bytes\":1024}");
    expect_contains(json, "\"upper_bounds\":{\"data_dims\":[{\"name\":\"unk__0\",\"bound\":32,"
                          "\"reason\":\"data-dependent: NonZero (node #1)\"}],\"ranges\":[]},\"weights\":");
    free(json);
    memplan_model_free(m);
}

/* The text report says which dims the plan took at their bounds: the
 * NonZero count at 32 (seq = 4: 4 x 8 elements) and a range at its hi; with
 * the slots strategy the peak is the unaligned sum of the slots {nz, y}
 * {t, c} {r}, 512 + 512 + 128 bytes, and the aligned layout is given apart
 * when it differs: at --align 256 the 128-byte slot takes 256 (1280). */
static void test_upper_bounds_text(void **state) {
    (void)state;
    memplan_model *m = nonzero_model();
    const char *const args[] = {"--dim", "seq=4", "--upper-bounds", "--no-nodes"};
    char *text = report_text(m, 4, args);
    expect_contains(text, "upper bounds:      unk__0 = 32 (data-dependent, at its bound)\n"
                          "                   (one arena valid for every size up to these)\n");
    free(text);
    const char *const range[] = {"--dim", "seq=1..4", "--upper-bounds", "--no-nodes"};
    text = report_text(m, 4, range);
    expect_contains(text, "upper bounds:      seq = 4 (range 1..4), unk__0 = 32 (data-dependent, at its bound)\n");
    free(text);
    const char *const slots[] = {"--dim", "seq=4", "--upper-bounds", "--no-nodes", "--strategy", "slots"};
    text = report_text(m, 6, slots);
    expect_contains(text, "peak:              1152 (1.12 KiB)\n");
    assert_null(strstr(text, "slot layout:"));
    free(text);
    const char *const slots256[] = {"--dim",      "seq=4", "--upper-bounds", "--no-nodes",
                                    "--strategy", "slots", "--align",        "256"};
    text = report_text(m, 8, slots256);
    expect_contains(text, "peak:              1152 (1.12 KiB)\n");
    expect_contains(text, "slot layout:       1280 (1.25 KiB) (slots at offsets aligned to 256)\n");
    free(text);
    memplan_model_free(m);
}

/* An If whose then-branch holds a NonZero: the branch's own plan defers (its
 * count is data-dependent) though the If's output, a Shape, has a size; the
 * text report names the body among the unknowns and in the bodies list.
 * With --upper-bounds the body plans at the count's bound. */
static void test_deferred_body_text(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_input(g, "c", 9, "");
    mb_graph *t = mb_new_graph("then");
    mb_node(t, "NonZero", "x", "nz");
    mb_node(t, "Shape", "nz", "st");
    mb_output(t, "st", 7, "2");
    mb_graph *e = mb_new_graph("else");
    mb_node(e, "Shape", "x", "se0");
    mb_int_attr(mb_node(e, "Concat", "se0,se0", "se"), "axis", 0);
    mb_output(e, "se", 7, "2");
    Onnx__NodeProto *n = mb_node(g, "If", "c", "y");
    n->name = mb_strdup("the_if");
    mb_graph_attr(n, "then_branch", t);
    mb_graph_attr(n, "else_branch", e);
    mb_output(g, "y", 7, "2");
    memplan_error err = {0};
    memplan_model *m = mb_load(g, &err);
    if (!m) fail_msg("load: %s", err.message);
    const char *const args[] = {"--no-nodes"};
    char *text = report_text(m, 1, args);
    expect_contains(text, "status:            deferred");
    expect_contains(text, "  then_branch of 'the_if': the body's plan is deferred\n");
    expect_contains(text, "  #0 If 'the_if' then_branch (branch unknown), 2 nodes: the body's plan is deferred "
                          "(the condition is not known: a branch of unknown size may be the larger)\n");
    expect_contains(text, "  unk__0: data-dependent: NonZero (node #0)\n"
                          "                   (--upper-bounds plans data-dependent dims at their bounds)\n");
    free(text);
    const char *const ub[] = {"--no-nodes", "--upper-bounds"};
    text = report_text(m, 2, ub);
    /* NonZero of x[4] at its bound: nz int64[1,4] in the body, 64 B aligned,
     * held beside the If's output y (16 B, aligned 64): 128 */
    expect_contains(text, "upper bounds:      unk__0 = 4 (data-dependent, at its bound)\n");
    expect_contains(text, "peak:              128 B\n");
    assert_null(strstr(text, "status:"));
    assert_null(strstr(text, "the body's plan is deferred"));
    free(text);
    memplan_model_free(m);
}

/* A range is planned at its hi with --upper-bounds (seq=16: numel 128), and
 * left unbound without it (the plan defers and names seq). */
static void test_dim_range(void **state) {
    (void)state;
    memplan_model *m = nonzero_model();
    const char *const ub[] = {"--dim", "seq=1..16", "--upper-bounds", "--no-nodes"};
    char *json = report(m, 4, ub);
    expect_contains(json, "\"status\":\"planned\"");
    expect_contains(json, "{\"name\":\"r\",\"size\":512,");
    expect_contains(json, "\"upper_bounds\":{\"data_dims\":[{\"name\":\"unk__0\",\"bound\":128,"
                          "\"reason\":\"data-dependent: NonZero (node #1)\"}],"
                          "\"ranges\":[{\"name\":\"seq\",\"lo\":1,\"hi\":16}]}");
    free(json);
    const char *const plain[] = {"--dim", "seq=1..16", "--no-nodes"};
    json = report(m, 3, plain);
    expect_contains(json, "\"status\":\"deferred\"");
    expect_contains(json, "\"dims\":[\"seq\"]");
    free(json);

    /* a later range of the same name replaces the earlier one */
    const char *const twice[] = {"--dim", "seq=1..16", "--dim", "seq=2..3", "--upper-bounds", "--no-nodes"};
    json = report(m, 6, twice);
    expect_contains(json, "\"ranges\":[{\"name\":\"seq\",\"lo\":2,\"hi\":3}]");
    free(json);
    memplan_model_free(m);
}

static void test_range_errors(void **state) {
    (void)state;
    memplan_request r;
    memplan_error err = {0};
    const char *bad[] = {"seq=4..2", "seq=..2", "seq=1..", "=1..2", "seq=1..x", "seq=-1..2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {"--dim", bad[i]};
        assert_int_equal(cli_request_parse(&r, 2, args, &err), MEMPLAN_EUSAGE);
        expect_contains(err.message, "--dim NAME=LO..HI takes integers");
        memplan_request_free(&r);
    }
    /* ranges apply to plan only */
    const char *args[] = {"--dim", "seq=1..2"};
    cli_args a;
    cli_args_init(&a);
    assert_int_equal(cli_args_parse(&a, memplan_command_find("shapes"), 2, args, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "--dim NAME=LO..HI does not apply to shapes");
    cli_args_free(&a);
    cli_args_init(&a);
    assert_int_equal(cli_args_parse(&a, memplan_command_find("plan"), 2, args, &err), MEMPLAN_OK);
    assert_int_equal(a.req.plan.n_ranges, 1);
    assert_int_equal(a.req.plan.ranges[0].hi, 2);
    cli_args_free(&a);

    /* a value and a range for one dim */
    memplan_model *m = nonzero_model();
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    memplan_binding seq = {"seq", 4};
    memplan_dim_range range = {"seq", 1, 8, 0};
    o.bindings = &seq;
    o.n_bindings = 1;
    o.ranges = &range;
    o.n_ranges = 1;
    memplan_model_plan *p = NULL;
    assert_int_equal(memplan_plan_model(m, &o, &p, &err), MEMPLAN_EUSAGE);
    assert_null(p);
    assert_string_equal(err.message, "dim 'seq' is given both a value and a range");
    memplan_model_free(m);
}

/* A deferred plan names the integer/bool scalar and short-vector inputs a
 * --value could give (not float inputs, not long or dynamic ones, not one
 * already given a value). */
static void test_value_inputs(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "n,4");
    mb_input(g, "sr", 7, "");
    mb_input(g, "flag", 9, "1");
    mb_input(g, "ids", 7, "n");
    mb_input(g, "f", 1, "");
    mb_input(g, "k", 7, "2");
    mb_node(g, "Relu", "x", "a");
    mb_node(g, "Add", "sr,k", "s");
    mb_node(g, "Not", "flag", "nf");
    mb_node(g, "Neg", "ids", "ni");
    mb_node(g, "Neg", "f", "nfl");
    mb_output(g, "a", 1, NULL);
    mb_output(g, "s", 7, NULL);
    mb_output(g, "nf", 9, NULL);
    mb_output(g, "ni", 7, NULL);
    mb_output(g, "nfl", 1, NULL);
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    const char *const args[] = {"--value", "k=1,2", "--no-nodes"};
    char *json = report(m, 3, args);
    expect_contains(json, "\"dims\":[\"n\"],\"internal_dims\":[],\"value_inputs\":[\"sr\",\"flag\"]");
    free(json);
    memplan_model_free(m);
}

static char *sweep_report(const memplan_model *m, int argc, const char *const *argv, memplan_status want) {
    return run_report(m, "sweep", argc, argv, want, false);
}

/* memplan sweep: N values from LO to HI (both ends, rounded, each once), the
 * arena's figures at each; with --upper-bounds the NonZero count at its
 * bound n = 8 * seq: r 32*seq bytes, nz and t int64[2,n] 128*seq each, c
 * and y float[n,2] 64*seq each; naive 416*seq, the peak nz + t 256*seq, the
 * slots {nz, y} {t, c} {r} 288*seq; the total to fit x (32*seq, outside
 * the arena) + the peak, 288*seq. */
static void test_sweep_report(void **state) {
    (void)state;
    memplan_model *m = nonzero_model();
    const char *const args[] = {"--dim", "seq=1..4:3", "--upper-bounds", "--align", "1"};
    char *json = sweep_report(m, 5, args, MEMPLAN_OK);
    assert_string_equal(json, "{\"dim\":\"seq\",\"lo\":1,\"hi\":4,\"points\":["
                              "{\"value\":1,\"status\":\"planned\",\"naive_bytes\":416,\"peak_bytes\":256,"
                              "\"lower_bound_bytes\":256,\"slots_bytes\":288,\"total_bytes\":288},"
                              "{\"value\":3,\"status\":\"planned\",\"naive_bytes\":1248,\"peak_bytes\":768,"
                              "\"lower_bound_bytes\":768,\"slots_bytes\":864,\"total_bytes\":864},"
                              "{\"value\":4,\"status\":\"planned\",\"naive_bytes\":1664,\"peak_bytes\":1024,"
                              "\"lower_bound_bytes\":1024,\"slots_bytes\":1152,\"total_bytes\":1152}]}\n");
    free(json);
    /* without --upper-bounds the count stays unknown: every point deferred */
    const char *const plain[] = {"--dim", "seq=2..3"};
    json = sweep_report(m, 2, plain, MEMPLAN_OK);
    expect_contains(json, "\"points\":[{\"value\":2,\"status\":\"deferred\",\"naive_bytes\":null,"
                          "\"peak_bytes\":null,\"lower_bound_bytes\":null,\"slots_bytes\":null,"
                          "\"total_bytes\":null},{\"value\":3,\"status\":\"deferred\"");
    free(json);
    /* one range, no more and no fewer */
    const char *const none[] = {"--dim", "seq=2"};
    char *msg = sweep_report(m, 2, none, MEMPLAN_EUSAGE);
    assert_string_equal(msg, "sweep takes one --dim NAME=LO..HI[:N] (the dim to vary), got 0");
    free(msg);
    memplan_model_free(m);

    /* a value the model cannot hold does not stop the sweep: x[seq] reshaped
     * to [8]; at 8 the total to fit is the shape (8 bytes, kept: Reshape
     * reads it), x (32) and the peak (32) */
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "seq");
    mb_initializer_ints(g, "shape", "1", (const int64_t[]){8}, 1);
    mb_node(g, "Reshape", "x,shape", "r");
    mb_node(g, "Relu", "r", "y");
    mb_output(g, "y", 1, "8");
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    const char *const fit[] = {"--dim", "seq=4..8:2", "--align", "1"};
    json = sweep_report(m, 4, fit, MEMPLAN_OK);
    assert_string_equal(json, "{\"dim\":\"seq\",\"lo\":4,\"hi\":8,\"points\":["
                              "{\"value\":4,\"status\":\"does not fit\",\"naive_bytes\":null,\"peak_bytes\":null,"
                              "\"lower_bound_bytes\":null,\"slots_bytes\":null,\"total_bytes\":null},"
                              "{\"value\":8,\"status\":\"planned\",\"naive_bytes\":32,\"peak_bytes\":32,"
                              "\"lower_bound_bytes\":32,\"slots_bytes\":32,\"total_bytes\":72}]}\n");
    free(json);
    /* the same as text: one line per value, the total to fit last */
    json = run_report(m, "sweep", 4, fit, MEMPLAN_OK, true);
    assert_string_equal(json, "sweep of seq from 4 to 8, 2 values (arena figures; slots = sum of slot capacities)\n"
                              "           value               peak        lower bound              naive"
                              "              slots       total to fit\n"
                              "               4 does not fit\n"
                              "               8                 32                 32                 32"
                              "                 32                 72\n");
    free(json);
    memplan_model_free(m);

    /* an input nothing reads, of unbound size: planned, the total unknown */
    g = mb_new_graph("g");
    mb_input(g, "x", 1, "seq");
    mb_input(g, "u", 1, "n");
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", 1, "seq");
    bytes = mb_pack(g, &len);
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    const char *const unknown[] = {"--dim", "seq=2..3", "--align", "1"};
    json = run_report(m, "sweep", 4, unknown, MEMPLAN_OK, true);
    assert_string_equal(json, "sweep of seq from 2 to 3, 2 values (arena figures; slots = sum of slot capacities)\n"
                              "           value               peak        lower bound              naive"
                              "              slots       total to fit\n"
                              "               2                  8                  8                  8"
                              "                  8            unknown\n"
                              "               3                 12                 12                 12"
                              "                 12            unknown\n");
    free(json);
    json = sweep_report(m, 4, unknown, MEMPLAN_OK);
    expect_contains(json, "{\"value\":2,\"status\":\"planned\",\"naive_bytes\":8,\"peak_bytes\":8,"
                          "\"lower_bound_bytes\":8,\"slots_bytes\":8,\"total_bytes\":null}");
    free(json);
    memplan_model_free(m);
}

/* A chain x[4] -> Relu a -> Neg y, with a given element type for a. */
static memplan_model *chain(int32_t a_type, const char *extra) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    if (a_type == 1) mb_node(g, "Relu", "x", "a");
    else
        mb_int_attr(mb_node(g, "Cast", "x", "a"), "to", a_type);
    mb_node(g, "Neg", "a", "y");
    if (extra) mb_node(g, "Abs", "y", extra);
    mb_output(g, extra ? extra : "y", a_type, "4");
    memplan_error err = {0};
    memplan_model *m = mb_load(g, &err);
    if (!m) fail_msg("load: %s", err.message);
    return m;
}

/* memplan diff: float16 a (8 B) in B against float a (16 B) in A; y also
 * shrinks; B has one more value. Aligned to 1: A a+y = 32 B, B 8+8+8. */
static void test_diff_report(void **state) {
    (void)state;
    memplan_model *a = chain(1, NULL), *b = chain(10, "z");
    memplan_request r;
    memplan_error err = {0};
    const char *const args[] = {"--align", "1"};
    assert_int_equal(cli_request_parse(&r, 2, args, &err), MEMPLAN_OK);
    char *out = NULL;
    size_t len;
    assert_int_equal(memplan_diff_report(a, "A.onnx", b, "B.onnx", &r, true, &out, &len, &err), MEMPLAN_OK);
    assert_string_equal(out, "{\"a\":{\"status\":\"planned\",\"positions\":2,\"buffers\":2,\"peak_bytes\":32,"
                             "\"lower_bound_bytes\":32,\"naive_bytes\":32,\"slots_bytes\":32,\"weight_bytes\":0,"
                             "\"input_bytes\":16,\"total_bytes\":48},"
                             "\"b\":{\"status\":\"planned\",\"positions\":3,\"buffers\":3,\"peak_bytes\":16,"
                             "\"lower_bound_bytes\":16,\"naive_bytes\":24,\"slots_bytes\":16,\"weight_bytes\":0,"
                             "\"input_bytes\":16,\"total_bytes\":32},"
                             "\"delta\":{\"peak_bytes\":-16,\"lower_bound_bytes\":-16,\"naive_bytes\":-8,"
                             "\"slots_bytes\":-16,\"weight_bytes\":0,\"input_bytes\":0,\"total_bytes\":-16},"
                             "\"values\":{\"in_both\":2,\"changed\":["
                             "{\"name\":\"a\",\"a\":{\"size\":16,\"start\":0,\"end\":1,\"offset\":0},"
                             "\"b\":{\"size\":8,\"start\":0,\"end\":1,\"offset\":0}},"
                             "{\"name\":\"y\",\"a\":{\"size\":16,\"start\":1,\"end\":1,\"offset\":16},"
                             "\"b\":{\"size\":8,\"start\":1,\"end\":2,\"offset\":8}}],"
                             "\"only_a\":[],\"only_b\":[\"z\"]}}\n");
    free(out);
    assert_int_equal(memplan_diff_report(a, "A.onnx", b, "B.onnx", &r, false, &out, &len, &err), MEMPLAN_OK);
    expect_contains(out, "peak                           32                 16                -16 (-50.0%)\n");
    expect_contains(out, "inputs                         16                 16                 +0 (+0.0%)\n"
                         "total to fit                   48                 32                -16 (-33.3%)\n");
    expect_contains(out, "values:        2 changed (size, interval or offset)\n  a: 16 -> 8 B (-8)\n"
                         "  y: 16 -> 8 B (-8) live [1, 1] -> [1, 2] offset 16 -> 8\n");
    free(out);
    memplan_request_free(&r);
    /* a binding that does not fit one of them names it */
    const char *const bad[] = {"--value", "nope=1"};
    assert_int_equal(cli_request_parse(&r, 2, bad, &err), MEMPLAN_OK);
    assert_int_equal(memplan_diff_report(a, "A.onnx", b, "B.onnx", &r, true, &out, &len, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "A.onnx: the model has no graph input named 'nope'");
    memplan_request_free(&r);
    memplan_model_free(a);
    memplan_model_free(b);
}

/* memplan_diff_requests: one model x[N] -> Relu a -> Neg y, each side with its
 * own request (N=4 against N=8, aligned to 1): each side's figures are its
 * own plan's, and both values double. */
static void test_diff_requests(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N");
    mb_node(g, "Relu", "x", "a");
    mb_node(g, "Neg", "a", "y");
    mb_output(g, "y", 1, "N");
    memplan_error err = {0};
    memplan_model *m = mb_load(g, &err);
    if (!m) fail_msg("load: %s", err.message);
    memplan_request ra, rb;
    const char *const a4[] = {"--align", "1", "--dim", "N=4"}, *const a8[] = {"--align", "1", "--dim", "N=8"};
    assert_int_equal(cli_request_parse(&ra, 4, a4, &err), MEMPLAN_OK);
    assert_int_equal(cli_request_parse(&rb, 4, a8, &err), MEMPLAN_OK);
    char *out = NULL;
    size_t len;
    assert_int_equal(memplan_diff_requests(m, "A", &ra, m, "B", &rb, true, &out, &len, &err), MEMPLAN_OK);
    assert_string_equal(out, "{\"a\":{\"status\":\"planned\",\"positions\":2,\"buffers\":2,\"peak_bytes\":32,"
                             "\"lower_bound_bytes\":32,\"naive_bytes\":32,\"slots_bytes\":32,\"weight_bytes\":0,"
                             "\"input_bytes\":16,\"total_bytes\":48},"
                             "\"b\":{\"status\":\"planned\",\"positions\":2,\"buffers\":2,\"peak_bytes\":64,"
                             "\"lower_bound_bytes\":64,\"naive_bytes\":64,\"slots_bytes\":64,\"weight_bytes\":0,"
                             "\"input_bytes\":32,\"total_bytes\":96},"
                             "\"delta\":{\"peak_bytes\":32,\"lower_bound_bytes\":32,\"naive_bytes\":32,"
                             "\"slots_bytes\":32,\"weight_bytes\":0,\"input_bytes\":16,\"total_bytes\":48},"
                             "\"values\":{\"in_both\":2,\"changed\":["
                             "{\"name\":\"a\",\"a\":{\"size\":16,\"start\":0,\"end\":1,\"offset\":0},"
                             "\"b\":{\"size\":32,\"start\":0,\"end\":1,\"offset\":0}},"
                             "{\"name\":\"y\",\"a\":{\"size\":16,\"start\":1,\"end\":1,\"offset\":16},"
                             "\"b\":{\"size\":32,\"start\":1,\"end\":1,\"offset\":32}}],"
                             "\"only_a\":[],\"only_b\":[]}}\n");
    free(out);
    /* memplan_diff_report is the same with one request for both: nothing changes */
    assert_int_equal(memplan_diff_report(m, "A", m, "B", &rb, true, &out, &len, &err), MEMPLAN_OK);
    expect_contains(out, "\"delta\":{\"peak_bytes\":0,");
    expect_contains(out, "\"in_both\":2,\"changed\":[]");
    free(out);
    /* B with N unbound: deferred, so its total and the total's delta are not known */
    memplan_request rn;
    const char *const none[] = {"--align", "1"};
    assert_int_equal(cli_request_parse(&rn, 2, none, &err), MEMPLAN_OK);
    assert_int_equal(memplan_diff_requests(m, "A", &ra, m, "B", &rn, true, &out, &len, &err), MEMPLAN_OK);
    expect_contains(out, "\"b\":{\"status\":\"deferred\",\"positions\":2,\"buffers\":0,\"peak_bytes\":null,"
                         "\"lower_bound_bytes\":null,\"naive_bytes\":null,\"slots_bytes\":null,\"weight_bytes\":0,"
                         "\"input_bytes\":null,\"total_bytes\":null},");
    expect_contains(out, "\"weight_bytes\":0,\"input_bytes\":null,\"total_bytes\":null},\"values\"");
    free(out);
    assert_int_equal(memplan_diff_requests(m, "A", &ra, m, "B", &rn, false, &out, &len, &err), MEMPLAN_OK);
    expect_contains(out, "inputs                         16            unknown\n"
                         "total to fit                   48            unknown\n");
    free(out);
    memplan_request_free(&rn);
    memplan_request_free(&ra);
    memplan_request_free(&rb);
    memplan_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_dim_defers_and_is_internal),
        cmocka_unit_test(test_upper_bound_plan),
        cmocka_unit_test(test_dim_range),
        cmocka_unit_test(test_range_errors),
        cmocka_unit_test(test_value_inputs),
        cmocka_unit_test(test_sweep_report),
        cmocka_unit_test(test_upper_bounds_text),
        cmocka_unit_test(test_deferred_body_text),
        cmocka_unit_test(test_diff_report),
        cmocka_unit_test(test_diff_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
