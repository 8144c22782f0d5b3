/* args.c -- argv into a typed request, through the option table. */
#include "cli/args.h"

#include <string.h>

void cli_args_init(cli_args *a) {
    memset(a, 0, sizeof *a);
    memplan_request_init(&a->req);
}

void cli_args_free(cli_args *a) { memplan_request_free(&a->req); }

/* "-o PATH" / "--output PATH": the shell's, for commands whose output is bytes. */
static bool is_output(const char *arg) { return strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0; }

/* MEMPLAN_EUSAGE when cmd is given and does not take the option `name`. */
static memplan_status check_takes(const memplan_command *cmd, bool takes, const char *name, memplan_error *err) {
    if (!cmd || takes) return MEMPLAN_OK;
    return memplan_error_set(err, MEMPLAN_EUSAGE, "%s does not apply to %s", name, cmd->name);
}

memplan_status cli_args_parse(cli_args *a, const memplan_command *cmd, int argc, const char *const *argv,
                              memplan_error *err) {
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        memplan_option_id id;
        memplan_status st = MEMPLAN_OK;
        if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (is_output(arg)) {
            st = check_takes(cmd, cmd && cmd->output == MEMPLAN_OUTPUT_BYTES, "-o", err);
            if (!st && (!val || !*val)) st = memplan_error_set(err, MEMPLAN_EUSAGE, "%s takes a file path", arg);
            a->output_path = val;
            i++;
        } else if (memplan_option_find(arg, &id)) {
            const memplan_option *o = memplan_option_get(id);
            st = check_takes(cmd, cmd && (cmd->options & MEMPLAN_OPT_BIT(id)), o->name, err);
            size_t ranges = a->req.plan.n_ranges;
            if (!st) st = memplan_option_apply(&a->req, id, val, err);
            /* A range is a plan option under --dim: only where --upper-bounds is. */
            if (!st && a->req.plan.n_ranges != ranges)
                st = check_takes(cmd, cmd && (cmd->options & MEMPLAN_OPT_BIT(MEMPLAN_OPT_UPPER_BOUNDS)),
                                 "--dim NAME=LO..HI", err);
            if (o->metavar) i++;
        } else if (arg[0] == '-' && arg[1]) {
            st = memplan_error_set(err, MEMPLAN_EUSAGE, "unknown option '%s'", arg);
        } else if (a->n_positional == CLI_MAX_POSITIONAL) {
            st = memplan_error_set(err, MEMPLAN_EUSAGE, "too many arguments");
        } else {
            a->positional[a->n_positional++] = arg;
        }
        if (st) return st;
    }
    return MEMPLAN_OK;
}

memplan_status cli_request_parse(memplan_request *r, int argc, const char *const *argv, memplan_error *err) {
    cli_args a;
    cli_args_init(&a);
    memplan_status st = cli_args_parse(&a, NULL, argc, argv, err);
    if (!st && (a.n_positional || a.output_path))
        st = memplan_error_set(err, MEMPLAN_EUSAGE, "options only: got '%s'",
                               a.n_positional ? a.positional[0] : a.output_path);
    if (st) cli_args_free(&a);
    *r = a.req; /* the lists move to r (empty on failure) */
    return st;
}
