/* main.c -- the memplan command-line tool: dispatch to one command. */
#include <string.h>

#include "cli/cli.h"

static const char USAGE[] =
    "memplan -- how much memory an ONNX model needs while it runs, and why\n"
    "\n"
    "usage: memplan COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  info MODEL [--json]        model summary: versions, opsets, counts, inputs, outputs, ops\n"
    "  shapes MODEL [--dim NAME=VALUE ...] [--value NAME=V[,V...] ...] [--json]\n"
    "                             every value's element type, shape and byte size\n"
    "  plan MODEL [--strategy arena|slots] [--align N] [--budget-ms N] [--dim NAME=VALUE ...]\n"
    "             [--value NAME=V[,V...] ...] [--include-inputs] [--constants-as-activations]\n"
    "             [--inplace [--allow-input-overwrite]] [--no-nodes] [--json]\n"
    "             [--dim NAME=LO..HI ...] [--upper-bounds]\n"
    "                             live intervals, slot plan, arena plan, lower bound;\n"
    "                             --upper-bounds plans data-dependent dims at their bounds and\n"
    "                             ranged dims at HI: one arena for every size in range;\n"
    "                             --order plans under an execution order that lowers the peak\n"
    "  pack FILE.csv [--json] [--align N] [--budget-ms N] [--seed N] [--wall-cap-ms N]\n"
    "                             pack buffers 'id,lower,upper,size' into one arena\n"
    "  inplace MODEL [--allow-input-overwrite] [--events] [--json]\n"
    "                             in-place reuse pairs and release lists per node\n"
    "  profile MODEL [--dim NAME=VALUE ...] [--allow-input-overwrite] [--json]\n"
    "                             memory per node: live, newly allocated, by tag\n"
    "  tags MODEL [--json]        value and node tags (shape, axes, weight, ambiguous)\n"
    "  annotate MODEL -o OUT.onnx [--allow-input-overwrite]\n"
    "                             write the results into the model's metadata_props\n"
    "  reorder MODEL -o OUT.onnx [--order NAME] [--order-budget-ms N] [--dim NAME=VALUE ...]\n"
    "                             write the model with its nodes in the order (default best)\n"
    "\n"
    "  --help                     this text\n"
    "  --version                  print the version\n"
    "\n"
    "exit codes: 0 ok, 1 usage error, 2 bad input\n";

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command COMMANDS[] = {
    {"info", cmd_info},
    {"shapes", cmd_shapes},
    {"plan", cmd_plan},
    {"pack", cmd_pack},
    {"inplace", cmd_inplace},
    {"profile", cmd_profile},
    {"tags", cmd_tags},
    {"annotate", cmd_annotate},
    {"reorder", cmd_reorder},
};

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(USAGE, stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
        return cli_write_stdout(USAGE, sizeof USAGE - 1) ? CLI_OK : CLI_BAD_INPUT;
    if (strcmp(argv[1], "--version") == 0) {
        fputs("memplan ", stdout);
        fputs(memplan_version(), stdout);
        return cli_write_stdout("\n", 1) ? CLI_OK : CLI_BAD_INPUT; /* flushes the line, reports a failed write */
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0) return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "memplan: unknown command '%s'\n(see 'memplan --help')\n", argv[1]);
    return CLI_USAGE;
}
