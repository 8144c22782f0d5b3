/*
 * args.h -- a command's arguments as a typed request (memplan/report.h).
 *
 * The shells' one argument parser: the CLI gives it argv after the command,
 * the WASM exports the "--flag\nvalue" list of mp_call. Options are the
 * table of memplan/command.h; --json and -o/--output are the shell's own.
 */
#ifndef MEMPLAN_CLI_ARGS_H
#define MEMPLAN_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "memplan/command.h"
#include "memplan/report.h"

#define CLI_MAX_POSITIONAL 4

typedef struct cli_args {
    memplan_request req;     /* the options of the table */
    bool json;               /* --json */
    const char *output_path; /* -o/--output PATH: where a command with bytes output writes */
    size_t n_positional;
    const char *positional[CLI_MAX_POSITIONAL]; /* the operands (MODEL), borrowed from argv */
} cli_args;

void cli_args_init(cli_args *a);
void cli_args_free(cli_args *a);

/* Parse argv (argv[0] is the first argument after the command). Unknown
 * options and bad values are MEMPLAN_EUSAGE naming the option. With a
 * command, an option it does not take is a usage error too ("--dim does not
 * apply to info"; -o only for a command whose output is bytes), so a typed
 * flag is never silently ignored. Without one (NULL) every option is taken,
 * so one request can serve several commands (the WASM exports, tests). */
memplan_status cli_args_parse(cli_args *a, const memplan_command *cmd, int argc, const char *const *argv,
                              memplan_error *err);

/* The options alone into *r (initialized here; memplan_request_free it):
 * every option taken, no operands, no -o. For tests and tools that write a
 * request as an argument list. */
memplan_status cli_request_parse(memplan_request *r, int argc, const char *const *argv, memplan_error *err);

#endif
