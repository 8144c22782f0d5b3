/* cmd_model.c -- the commands over one model (memplan/command.h: the input
 * MEMPLAN_INPUT_MODEL): memplan info|shapes|plan|... MODEL [options] */
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "memplan/ort_float16.h"
#include "memplan/report.h"

/* The arguments checked against the command: one model, and the output file
 * when the output is bytes. A usage message is printed when not. */
static int check_operands(const memplan_command *c, const cli_args *a) {
    if (a->n_positional != 1)
        return cli_usage_error(c->name, a->n_positional ? "more than one model given" : "no model given");
    if (a->req.trace_path && cli_same_file(a->positional[0], a->req.trace_path))
        return cli_usage_error(c->name, "the trace file is the model itself: choose another path");
    if (c->output != MEMPLAN_OUTPUT_BYTES) return CLI_OK;
    if (!a->output_path) return cli_usage_error(c->name, "no output file given (-o OUT.onnx)");
    if (cli_same_file(a->positional[0], a->output_path))
        return cli_usage_error(c->name, "the output file is the model itself: choose another path");
    return CLI_OK;
}

/* Load the model at path: its graph read without the tensor data, in one
 * checked walk (memplan_model_load_reader); for a command that reads the
 * whole file (annotate) the file stays open in *mf for its reader. Prints
 * the error and returns false on failure. */
static bool load(const char *path, bool whole, cli_model_file *mf, memplan_model **m) {
    memplan_error err = {0};
    *m = NULL;
    if (!cli_open_model(path, mf)) return false;
    memplan_status st = memplan_model_load_reader(&mf->rd, NULL, m, &err);
    if (!whole || st) cli_close_model(mf);
    if (st) cli_error("memplan: %s: %s", path, err.message);
    return st == MEMPLAN_OK;
}

/* plan --trace OUT.json: the plan of the request (the one the report
 * printed, of the graph ONNX Runtime's CPU runs with --float16-cpu) as a
 * trace file (memplan/trace.h), written atomically. */
static int write_trace(const memplan_model *m, const cli_args *a, const char *path) {
    memplan_plan_options o;
    memplan_request_plan_options(&a->req, &o);
    memplan_error err = {0};
    memplan_model_plan *p = NULL;
    memplan_model *f16 = NULL; /* --float16-cpu: the graph ONNX Runtime's CPU runs */
    char *out = NULL;
    size_t len = 0;
    memplan_status st = a->req.float16_cpu ? memplan_onnxruntime_cpu_graph(m, &f16, NULL, &err) : MEMPLAN_OK;
    if (!st) st = memplan_plan_model(f16 ? f16 : m, &o, &p, &err);
    if (!st) st = memplan_plan_trace_json(p, &out, &len, &err);
    memplan_model_plan_free(p);
    memplan_model_free(f16);
    if (st) {
        cli_error("memplan plan: %s: --trace: %s", path, err.message);
        return st == MEMPLAN_EUSAGE ? CLI_USAGE : CLI_BAD_INPUT;
    }
    bool ok = cli_write_file_atomic(a->req.trace_path, out, len);
    free(out);
    return ok ? CLI_OK : CLI_BAD_INPUT;
}

/* Load the model, print the report, write it: stdout, or the -o file (and
 * the --trace file first, so a failed trace prints no report). */
static int run_loaded(const memplan_command *c, cli_args *a, const char *path) {
    /* Every command loads the graph read without the tensor data; one that
     * reads the whole file (annotate) gets it through the same reader a
     * window at a time: memory is the output plus O(graph). */
    memplan_error err = {0};
    memplan_model *m = NULL;
    cli_model_file mf;
    if (!load(path, c->whole_model, &mf, &m)) return CLI_BAD_INPUT;
    if (c->whole_model) a->req.model_reader = &mf.rd;
    char *out = NULL;
    size_t len = 0;
    bool bytes_out = c->output == MEMPLAN_OUTPUT_BYTES;
    memplan_status st = a->json || bytes_out ? memplan_report_json(m, c->name, &a->req, &out, &len, &err)
                                             : memplan_report_text(m, c->name, &a->req, &out, &len, &err);
    int trace_rc = !st && a->req.trace_path ? write_trace(m, a, path) : CLI_OK;
    memplan_model_free(m);
    cli_close_model(&mf); /* closing twice is harmless */
    a->req.model_reader = NULL;
    if (st) {
        cli_error("memplan %s: %s: %s", c->name, path, err.message);
        return st == MEMPLAN_EUSAGE ? CLI_USAGE : CLI_BAD_INPUT;
    }
    if (trace_rc != CLI_OK) {
        free(out);
        return trace_rc;
    }
    bool ok = bytes_out ? cli_write_file_atomic(a->output_path, out, len)
              : a->json ? cli_write_stdout(out, len) /* JSON escapes control characters itself */
                        : cli_write_text(out, len);
    free(out);
    return ok ? CLI_OK : CLI_BAD_INPUT;
}

int cli_run_model_command(const memplan_command *c, int argc, char **argv) {
    cli_args a;
    cli_args_init(&a);
    memplan_error err = {0};
    int rc = cli_args_parse(&a, c, argc - 1, (const char *const *)argv + 1, &err)
                 ? cli_usage_error(c->name, "%s", err.message)
                 : check_operands(c, &a);
    if (rc == CLI_OK) rc = run_loaded(c, &a, a.positional[0]);
    cli_args_free(&a);
    return rc;
}

/* memplan diff A.onnx B.onnx [plan options]: both planned alike, compared. */
int cli_run_diff_command(const memplan_command *c, int argc, char **argv) {
    cli_args a;
    cli_args_init(&a);
    memplan_error err = {0};
    int rc = cli_args_parse(&a, c, argc - 1, (const char *const *)argv + 1, &err)
                 ? cli_usage_error(c->name, "%s", err.message)
             : a.n_positional != 2 ? cli_usage_error(c->name, "two models to compare, got %zu", a.n_positional)
                                   : CLI_OK;
    memplan_model *m[2] = {NULL, NULL};
    cli_model_file mf;
    for (int k = 0; k < 2 && rc == CLI_OK; k++)
        if (!load(a.positional[k], false, &mf, &m[k])) rc = CLI_BAD_INPUT;
    char *out = NULL;
    size_t len = 0;
    if (rc == CLI_OK) {
        memplan_status st =
            memplan_diff_report(m[0], a.positional[0], m[1], a.positional[1], &a.req, a.json, &out, &len, &err);
        if (st) {
            cli_error("memplan diff: %s", err.message);
            rc = st == MEMPLAN_EUSAGE ? CLI_USAGE : CLI_BAD_INPUT;
        } else {
            rc = (a.json ? cli_write_stdout(out, len) : cli_write_text(out, len)) ? CLI_OK : CLI_BAD_INPUT;
        }
    }
    free(out);
    for (int k = 0; k < 2; k++) memplan_model_free(m[k]);
    cli_args_free(&a);
    return rc;
}
