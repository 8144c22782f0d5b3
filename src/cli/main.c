/* main.c -- the memplan command-line tool: dispatch to one command of the
 * table (memplan/command.h), whose entries also make the --help text. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/buf.h"
#include "util/heap.h"

#define USAGE_WIDTH 92    /* synopsis lines wrap before this column */
#define SUMMARY_COLUMN 29 /* where a command's one-line summary starts */

/* " [--dim NAME=VALUE ...]" of option id, or " [--json]" for id < 0. */
static void usage_option(mp_buf *b, int id) {
    const memplan_option *o = id >= 0 ? memplan_option_get((memplan_option_id)id) : NULL;
    mp_buf_puts(b, " [");
    mp_buf_puts(b, o ? o->name : "--json");
    if (o && o->metavar) mp_buf_printf(b, " %s", o->metavar);
    if (o && o->repeatable) mp_buf_puts(b, " ...");
    mp_buf_putc(b, ']');
}

/* Append piece[0..n) to the synopsis line that started at line_start,
 * wrapping to a new line indented by indent when it would pass the width. */
static void usage_wrap(mp_buf *b, size_t *line_start, size_t indent, const char *piece, size_t n) {
    if (b->len - *line_start + n > USAGE_WIDTH) {
        mp_buf_putc(b, '\n');
        *line_start = b->len;
        mp_buf_printf(b, "%*s", (int)(indent - 1), "");
    }
    mp_buf_append(b, piece, n);
}

/* One command: its synopsis (wrapped), then its summary at SUMMARY_COLUMN,
 * on the same line when there is room. */
static void usage_command(mp_buf *b, const memplan_command *c) {
    /* continuation lines start under the first option, after "  plan MODEL " */
    size_t line_start = b->len, indent = 2 + strlen(c->name) + 1 + strcspn(c->operands, " ") + 1;
    mp_buf_printf(b, "  %s %s", c->name, c->operands);
    if (c->output == MEMPLAN_OUTPUT_BYTES) mp_buf_puts(b, " -o OUT.onnx");
    for (int id = 0; id <= MEMPLAN_OPT_COUNT; id++) {
        if (id < MEMPLAN_OPT_COUNT && !(c->options & MEMPLAN_OPT_BIT(id))) continue;
        if (id == MEMPLAN_OPT_COUNT && c->output == MEMPLAN_OUTPUT_BYTES) break; /* no document: no --json */
        mp_buf piece;
        mp_buf_init(&piece);
        usage_option(&piece, id < MEMPLAN_OPT_COUNT ? id : -1);
        usage_wrap(b, &line_start, indent, piece.data ? piece.data : "", piece.len);
        if (piece.failed) b->failed = true;
        mp_buf_free(&piece);
    }
    size_t used = b->len - line_start;
    if (used < SUMMARY_COLUMN) mp_buf_printf(b, "%*s%s\n", (int)(SUMMARY_COLUMN - used), "", c->summary);
    else
        mp_buf_printf(b, "\n%*s%s\n", SUMMARY_COLUMN, "", c->summary);
}

/* The --help text; NULL when out of memory. */
static char *usage_text(size_t *len) {
    mp_buf b;
    mp_buf_init(&b);
    mp_buf_puts(&b, "memplan -- how much memory an ONNX model needs while it runs, and why\n\n"
                    "usage: memplan COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; memplan_command_at(i); i++) usage_command(&b, memplan_command_at(i));
    mp_buf_puts(&b, "\n  --help                     this text\n"
                    "  --version                  print the version\n\n"
                    "exit codes: 0 ok, 1 usage error, 2 bad input\n");
    if (b.failed) {
        mp_buf_free(&b);
        return NULL;
    }
    return mp_buf_take(&b, len);
}

/* Print the usage to stdout (--help) or stderr (no command). */
static int usage(bool to_stdout) {
    size_t len = 0;
    char *text = usage_text(&len);
    if (!text) {
        fputs("memplan: out of memory\n", stderr);
        return CLI_BAD_INPUT;
    }
    bool ok = to_stdout ? cli_write_stdout(text, len) : fwrite(text, 1, len, stderr) == len;
    free(text);
    return !to_stdout ? CLI_USAGE : ok ? CLI_OK : CLI_BAD_INPUT;
}

int main(int argc, char **argv) {
    mp_heap_setup();
    if (argc < 2) return usage(false);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
        return usage(true);
    if (strcmp(argv[1], "--version") == 0) {
        fputs("memplan ", stdout);
        fputs(memplan_version(), stdout);
        return cli_write_stdout("\n", 1) ? CLI_OK : CLI_BAD_INPUT; /* flushes the line, reports a failed write */
    }
    const memplan_command *c = memplan_command_find(argv[1]);
    if (!c) {
        cli_error("memplan: unknown command '%s'", argv[1]); /* the word escaped: it may hold ESC or '\n' */
        fputs("(see 'memplan --help')\n", stderr);
        return CLI_USAGE;
    }
    if (c->input == MEMPLAN_INPUT_CSV) return cmd_pack(argc - 1, argv + 1);
    if (c->input == MEMPLAN_INPUT_TWO_MODELS) return cli_run_diff_command(c, argc - 1, argv + 1);
    return cli_run_model_command(c, argc - 1, argv + 1);
}
