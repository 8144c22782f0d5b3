/*
 * test_command.c -- the command table, the option table and the request
 * they fill (memplan/command.h, memplan/report.h, src/cli/args.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "cli/args.h"
#include "memplan/memplan.h"
#include "model_builder.h"
#include "out/cache.h"

/* x[NAME] -> Abs -> y[NAME], float: a model whose one dim has the given name. */
static memplan_model *one_dim_model(const char *dim) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, dim);
    mb_node(g, "Abs", "x", "y");
    mb_output(g, "y", 1, dim);
    memplan_error err = {0};
    memplan_model *m = mb_load(g, &err);
    if (!m) fail_msg("%s", err.message);
    return m;
}

/* The report of `command` for the argument list, parsed as the CLI does
 * (the command's own option check included). */
static char *report(const memplan_model *m, const char *command, int argc, const char *const *argv) {
    cli_args a;
    cli_args_init(&a);
    memplan_error err = {0};
    if (cli_args_parse(&a, memplan_command_find(command), argc, argv, &err)) fail_msg("%s", err.message);
    char *out = NULL;
    size_t len;
    memplan_status st = memplan_report_json(m, command, &a.req, &out, &len, &err);
    cli_args_free(&a);
    if (st) fail_msg("%s: %s", command, err.message);
    return out;
}

static void expect_contains(const char *text, const char *fragment) {
    if (!strstr(text, fragment)) fail_msg("%s\n--- lacks ---\n%s", text, fragment);
}

/* A dim name of 5,000 bytes (the loader takes names up to 64 KiB) is
 * bindable with --dim, in shapes and in plan. */
static void test_long_dim_name_binds(void **state) {
    (void)state;
    enum { N = 5000 };
    char *name = malloc(N + 1), *arg = malloc(N + 3);
    memset(name, 'd', N);
    name[N] = '\0';
    snprintf(arg, N + 3, "%s=3", name);
    memplan_model *m = one_dim_model(name);
    const char *argv[] = {"--dim", arg, "--align", "1"};
    char *plan = report(m, "plan", 4, argv);
    expect_contains(plan, "{\"status\":\"planned\",\"strategy\":\"arena\",\"align\":1,\"positions\":1,"
                          "\"naive_bytes\":12,\"peak_bytes\":12,");
    expect_contains(plan, "\"dtype\":\"float\",\"shape\":[3]}");
    char *shapes = report(m, "shapes", 2, argv);
    expect_contains(shapes, "{\"values\":[{\"name\":\"x\",\"dtype\":\"float\",\"shape\":[3],\"bytes\":12,");
    free(plan);
    free(shapes);
    memplan_model_free(m);
    free(name);
    free(arg);
}

/* A dim name holding '=' binds: the name ends at the last '=' ("a=b=3" binds
 * a=b to 3), as the page splits it; "a=b" alone binds a to the non-integer b: an error. */
static void test_dim_name_with_equals_binds(void **state) {
    (void)state;
    memplan_model *m = one_dim_model("a=b");
    const char *argv[] = {"--dim", "a=b=3", "--align", "1"};
    char *plan = report(m, "plan", 4, argv);
    expect_contains(plan, "\"naive_bytes\":12,\"peak_bytes\":12,");
    expect_contains(plan, "\"dtype\":\"float\",\"shape\":[3]}");
    free(plan);
    cli_args a;
    cli_args_init(&a);
    memplan_error err = {0};
    const char *bad[] = {"--dim", "a=b"};
    assert_int_equal(cli_args_parse(&a, memplan_command_find("plan"), 2, bad, &err), MEMPLAN_EUSAGE);
    cli_args_free(&a);
    memplan_model_free(m);
}

/* --dim and --value are growable lists: 1,000 dims (the former fixed array
 * held 256), a repeated name replaces its value in place. */
static void test_bindings_grow_and_replace(void **state) {
    (void)state;
    memplan_request r;
    memplan_request_init(&r);
    memplan_error err = {0};
    char name[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "d%d", i);
        assert_int_equal(memplan_request_bind_dim(&r, name, strlen(name), i, &err), MEMPLAN_OK);
    }
    assert_int_equal(memplan_request_bind_dim(&r, "d7xyz", 2, 70, &err), MEMPLAN_OK); /* "d7": length given */
    assert_int_equal(r.shapes.n_bindings, 1000);
    assert_string_equal(r.shapes.bindings[7].name, "d7");
    assert_int_equal(r.shapes.bindings[7].value, 70);
    assert_string_equal(r.shapes.bindings[999].name, "d999");
    assert_int_equal(r.shapes.bindings[999].value, 999);
    memplan_request_free(&r);
    assert_int_equal(r.shapes.n_bindings, 0);

    const char *argv[] = {"--value", "sr=16000", "--value", "mask=true,false,1", "--value", "sr=8000"};
    assert_int_equal(cli_request_parse(&r, 6, argv, &err), MEMPLAN_OK);
    assert_int_equal(r.shapes.n_values, 2);
    assert_string_equal(r.shapes.values[0].name, "sr");
    assert_int_equal(r.shapes.values[0].n, 1);
    assert_int_equal(r.shapes.values[0].elems[0], 8000);
    assert_string_equal(r.shapes.values[1].name, "mask");
    assert_int_equal(r.shapes.values[1].n, 3);
    assert_int_equal(r.shapes.values[1].elems[0], 1);
    assert_int_equal(r.shapes.values[1].elems[1], 0);
    assert_int_equal(r.shapes.values[1].elems[2], 1);
    memplan_request_free(&r);

    char many[65 * 2 + 8] = "v=";
    for (int i = 0; i < 65; i++) strcat(many, i ? ",1" : "1");
    const char *too_many[] = {"--value", many};
    assert_int_equal(cli_request_parse(&r, 2, too_many, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "--value v: more than 64 elements");
    assert_int_equal(r.shapes.n_values, 0);

    /* no '=', no name, an element that is not an integer or true/false,
     * an empty element, one beyond 64 bits */
    static const char *const bad[] = {"sr", "=3", "sr=3,x", "sr=1,,2", "sr=99999999999999999999", "sr=True"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *one[] = {"--value", bad[i]};
        char want[128];
        snprintf(want, sizeof want, "--value takes NAME=V or NAME=V,V,... (integers or true/false), got '%s'", bad[i]);
        assert_int_equal(cli_request_parse(&r, 2, one, &err), MEMPLAN_EUSAGE);
        assert_string_equal(err.message, want);
        assert_int_equal(r.shapes.n_values, 0);
    }
}

/* Each switch sets its field of the typed request, each valued option
 * parses into its own. */
static void test_options_fill_typed_fields(void **state) {
    (void)state;
    const char *argv[] = {"--include-inputs", "--constants-as-activations",
                          "--inplace",        "--allow-input-overwrite",
                          "--events",         "--no-nodes",
                          "--no-at-peak",     "--columns",
                          "--strategy",       "slots",
                          "--align",          "16",
                          "--budget-ms",      "0"};
    memplan_request r;
    memplan_error err = {0};
    assert_int_equal(cli_request_parse(&r, 14, argv, &err), MEMPLAN_OK);
    assert_true(r.no_at_peak && r.columns);
    assert_true(r.plan.include_inputs && r.plan.constants_as_activations && r.plan.inplace);
    assert_true(r.inplace.allow_input_overwrite && r.inplace.events && r.no_nodes);
    assert_int_equal(r.strategy, MEMPLAN_STRATEGY_SLOTS);
    assert_int_equal(r.plan.align, 16);
    assert_int_equal(r.plan.budget_ms, 0);
    memplan_plan_options o;
    memplan_request_plan_options(&r, &o);
    assert_true(o.allow_input_overwrite); /* a plan takes the in-place option */
    memplan_request_free(&r);
    memplan_request_init(&r);
    assert_false(r.plan.inplace || r.inplace.events || r.no_nodes);
    assert_int_equal(r.plan.align, 64);
    assert_int_equal(r.plan.budget_ms, 20);
    /* every option of the table is found by its name */
    for (int id = 0; id < MEMPLAN_OPT_COUNT; id++) {
        memplan_option_id got;
        assert_true(memplan_option_find(memplan_option_get((memplan_option_id)id)->name, &got));
        assert_int_equal(got, id);
    }
    assert_null(memplan_option_get(MEMPLAN_OPT_COUNT));
}

/* The table: names in --help order, what each reads and prints, and the
 * option check it drives. */
static void test_command_table(void **state) {
    (void)state;
    static const char *const names[] = {"info",    "shapes",  "plan", "sweep",    "diff",   "pack",
                                        "inplace", "profile", "tags", "annotate", "reorder"};
    for (size_t i = 0; i < 11; i++) {
        assert_string_equal(memplan_command_at(i)->name, names[i]);
        assert_ptr_equal(memplan_command_find(names[i]), memplan_command_at(i));
    }
    assert_null(memplan_command_at(11));
    assert_null(memplan_command_find("nope"));
    const memplan_command *pack = memplan_command_find("pack"), *annotate = memplan_command_find("annotate");
    assert_int_equal(pack->input, MEMPLAN_INPUT_CSV);
    assert_null(pack->run);
    assert_int_equal(annotate->output, MEMPLAN_OUTPUT_BYTES);
    assert_true(annotate->whole_model);
    assert_int_equal(memplan_command_find("reorder")->output, MEMPLAN_OUTPUT_BYTES);
    assert_true(memplan_command_find("reorder")->whole_model);
    assert_false(memplan_command_find("plan")->whole_model);

    cli_args a;
    memplan_error err = {0};
    const char *dim[] = {"m.onnx", "--dim", "batch=1"};
    cli_args_init(&a);
    assert_int_equal(cli_args_parse(&a, memplan_command_find("info"), 3, dim, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "--dim does not apply to info");
    cli_args_free(&a);
    cli_args_init(&a);
    assert_int_equal(cli_args_parse(&a, memplan_command_find("profile"), 3, dim, &err), MEMPLAN_OK);
    assert_int_equal(a.n_positional, 1);
    assert_int_equal(a.req.shapes.n_bindings, 1);
    cli_args_free(&a);
    const char *out[] = {"m.onnx", "-o", "x.onnx"};
    cli_args_init(&a);
    assert_int_equal(cli_args_parse(&a, memplan_command_find("tags"), 3, out, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "-o does not apply to tags");
    cli_args_free(&a);
    cli_args_init(&a);
    assert_int_equal(cli_args_parse(&a, annotate, 3, out, &err), MEMPLAN_OK);
    assert_string_equal(a.output_path, "x.onnx");
    cli_args_free(&a);

    /* dispatch through the table */
    memplan_model *m = one_dim_model("4");
    memplan_request r;
    memplan_request_init(&r);
    char *doc = NULL;
    size_t len;
    assert_int_equal(memplan_report_json(m, "nope", &r, &doc, &len, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "unknown command 'nope'");
    assert_int_equal(memplan_report_json(m, "pack", &r, &doc, &len, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "'pack' reads buffers from a CSV file, not a model (memplan_pack)");
    assert_null(doc);
    memplan_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_dim_name_binds),
        cmocka_unit_test(test_dim_name_with_equals_binds),
        cmocka_unit_test(test_bindings_grow_and_replace),
        cmocka_unit_test(test_options_fill_typed_fields),
        cmocka_unit_test(test_command_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
