/* cmd_model.c -- commands over one model: memplan info|plan MODEL [options] */
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
    memplan_model *m = cli_load_model(path);
    if (!m) return CLI_BAD_INPUT;
    char *out = NULL;
    size_t len = 0;
    memplan_status st = r.json ? memplan_report_json(m, cmd, &r, &out, &len, &err)
                               : memplan_report_text(m, cmd, &r, &out, &len, &err);
    memplan_model_free(m);
    if (st) {
        fprintf(stderr, "memplan %s: %s: %s\n", cmd, path, err.message);
        return st == MEMPLAN_EUSAGE ? CLI_USAGE : CLI_BAD_INPUT;
    }
    bool ok = cli_write_stdout(out, len);
    free(out);
    return ok ? CLI_OK : CLI_BAD_INPUT;
}

int cmd_info(int argc, char **argv) { return run_model_command("info", argc, argv); }
int cmd_plan(int argc, char **argv) { return run_model_command("plan", argc, argv); }
int cmd_shapes(int argc, char **argv) { return run_model_command("shapes", argc, argv); }
