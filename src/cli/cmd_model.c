/* cmd_model.c -- commands over one model:
 * memplan info|shapes|plan|inplace|profile|tags|annotate|reorder MODEL [options] */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "memplan/report.h"

static int run_model_command(const char *cmd, int argc, char **argv) {
    memplan_request r;
    memplan_request_init(&r);
    memplan_error err = {0};
    if (memplan_request_parse(&r, argc - 1, (const char *const *)argv + 1, &err))
        return cli_usage_error(cmd, "%s", err.message);
    if (r.n_positional != 1) return cli_usage_error(cmd, r.n_positional ? "more than one model given" : "no model given");
    const char *path = r.positional[0];
    /* annotate and reorder write a model */
    bool annotate = strcmp(cmd, "annotate") == 0 || strcmp(cmd, "reorder") == 0;
    if (annotate && !r.output_path) return cli_usage_error(cmd, "no output file given (-o OUT.onnx)");
    if (!annotate && r.output_path) return cli_usage_error(cmd, "-o/--output is only for annotate and reorder");
    if (memplan_request_check(&r, cmd, &err)) return cli_usage_error(cmd, "%s", err.message);
    if (annotate && cli_same_file(path, r.output_path))
        return cli_usage_error(cmd, "the output file is the model itself: choose another path");
    /* Every command loads the graph read without the tensor data; annotate
     * then splices its entries into the whole file, read through the same
     * reader a window at a time: memory is the output plus O(graph). */
    memplan_model *m = NULL;
    void *bytes = NULL;
    size_t n = 0;
    cli_model_file mf;
    if (!cli_open_model(path, &mf)) return CLI_BAD_INPUT;
    if (!cli_strip_opened(path, &mf, &bytes, &n)) {
        cli_close_model(&mf);
        return CLI_BAD_INPUT;
    }
    if (!annotate) cli_close_model(&mf);
    else r.model_reader = &mf.rd;
    if (memplan_model_load(bytes, n, NULL, &m, &err)) {
        cli_error("memplan: %s: %s", path, err.message);
        free(bytes);
        cli_close_model(&mf);
        return CLI_BAD_INPUT;
    }
    char *out = NULL;
    size_t len = 0;
    memplan_status st = r.json || annotate ? memplan_report_json(m, cmd, &r, &out, &len, &err)
                                           : memplan_report_text(m, cmd, &r, &out, &len, &err);
    memplan_model_free(m);
    free(bytes);
    cli_close_model(&mf); /* closing twice is harmless */
    if (st) {
        cli_error("memplan %s: %s: %s", cmd, path, err.message);
        return st == MEMPLAN_EUSAGE ? CLI_USAGE : CLI_BAD_INPUT;
    }
    bool ok = annotate ? cli_write_file_atomic(r.output_path, out, len)
              : r.json ? cli_write_stdout(out, len) /* JSON escapes control characters itself */
                       : cli_write_text(out, len);
    free(out);
    return ok ? CLI_OK : CLI_BAD_INPUT;
}

int cmd_info(int argc, char **argv) { return run_model_command("info", argc, argv); }
int cmd_plan(int argc, char **argv) { return run_model_command("plan", argc, argv); }
int cmd_shapes(int argc, char **argv) { return run_model_command("shapes", argc, argv); }
int cmd_inplace(int argc, char **argv) { return run_model_command("inplace", argc, argv); }
int cmd_profile(int argc, char **argv) { return run_model_command("profile", argc, argv); }
int cmd_tags(int argc, char **argv) { return run_model_command("tags", argc, argv); }
int cmd_annotate(int argc, char **argv) { return run_model_command("annotate", argc, argv); }
int cmd_reorder(int argc, char **argv) { return run_model_command("reorder", argc, argv); }
