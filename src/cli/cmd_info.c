/* cmd_info.c -- memplan info MODEL [--json] */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int cmd_info(int argc, char **argv) {
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = true;
        else if (argv[i][0] == '-' && argv[i][1]) return cli_usage_error("info", "unknown option '%s'", argv[i]);
        else if (path) return cli_usage_error("info", "more than one model given");
        else path = argv[i];
    }
    if (!path) return cli_usage_error("info", "no model given");
    memplan_model *m = cli_load_model(path);
    if (!m) return CLI_BAD_INPUT;
    char *out = NULL;
    size_t len = 0;
    memplan_error err = {0};
    memplan_status st = json ? memplan_info_json(m, &out, &len, &err) : memplan_info_text(m, &out, &len, &err);
    memplan_model_free(m);
    if (st) {
        fprintf(stderr, "memplan: %s: %s\n", path, err.message);
        return CLI_BAD_INPUT;
    }
    bool ok = cli_write_stdout(out, len);
    free(out);
    return ok ? CLI_OK : CLI_BAD_INPUT;
}
