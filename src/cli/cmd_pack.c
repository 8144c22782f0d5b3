/*
 * cmd_pack.c -- `memplan pack FILE.csv [--json] [--align N] [--budget-ms N] [--seed N] [--wall-cap-ms N]`
 *
 * Reads buffers in the benchmark CSV format (id,lower,upper,size; lifetimes
 * half-open) and packs them into one arena (memplan_pack).
 *   default  the CSV with an offset column: id,lower,upper,size,offset
 *   --json   the document described in out/pack_json.h
 * --align N: a power of two >= 1 (default 64); --budget-ms N: improvement
 * search budget in milliseconds (default 1000, 0 = heuristics only); --seed N:
 * the search's PRNG seed (default 1; results depend on it); --wall-cap-ms N:
 * the wall-clock safety stop (default 8 x budget + 100 ms; raise it on a slow
 * machine or sanitizer build to keep results on the work count). Options
 * may also be written --align=N. Exit: 0 ok, 1 usage, 2 bad input; messages
 * go to stderr as "memplan pack: FILE: message".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "memplan/plan.h"
#include "out/pack_json.h"
#include "util/buf.h"

static const char pack_usage_text[] =
    "usage: memplan pack FILE.csv [--json] [--align N] [--budget-ms N] [--seed N] [--wall-cap-ms N]\n";

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int
pack_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("memplan pack: ", stderr);
    cli_verror(fmt, ap); /* file names and option values escaped */
    va_end(ap);
    fputs(pack_usage_text, stderr);
    return CLI_USAGE;
}

/* A whole file (or pipe, or device: up to CLI_STREAM_LIMIT_MB) into a
 * malloc'ed buffer; prints the error itself. */
static bool pack_read_file(const char *path, char **data, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_error("memplan pack: %s: %s", path, strerror(errno));
        return false;
    }
    unsigned char *bytes;
    if (!cli_read_stream(f, path, "memplan pack", "file", "", &bytes, len)) return false;
    *data = (char *)bytes;
    return true;
}

/* A shared option (mp_pack_option_known) given as "--name=V" or "--name V":
 * its name in name[] and its value (NULL when missing); false for any other
 * argument. */
static bool pack_option_split(int argc, char **argv, int *i, char *name, size_t cap, const char **value) {
    const char *a = argv[*i];
    const char *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    if (n >= cap) return false;
    memcpy(name, a, n);
    name[n] = '\0';
    if (!mp_pack_option_known(name)) return false;
    *value = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    return true;
}

typedef struct pack_args {
    const char *file;
    bool json;
    memplan_pack_options opt;
} pack_args;

static int pack_parse_args(int argc, char **argv, pack_args *a) {
    memplan_pack_options_init(&a->opt);
    a->opt.budget_ms = MEMPLAN_PACK_CSV_BUDGET_MS;
    for (int i = 1; i < argc; i++) {
        char name[32];
        const char *value;
        if (strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (pack_option_split(argc, argv, &i, name, sizeof name, &value)) {
            memplan_error err = {0};
            if (mp_pack_option(name, value, &a->opt, &err)) return pack_usage("%s", err.message);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return pack_usage("unknown option '%s'", argv[i]);
        } else if (a->file) {
            return pack_usage("only one FILE.csv, got '%s' and '%s'", a->file, argv[i]);
        } else {
            a->file = argv[i];
        }
    }
    if (!a->file) return pack_usage("missing FILE.csv");
    return CLI_OK;
}

/* Render the result (CSV or JSON) into out. */
static memplan_status pack_render(const pack_args *a, const memplan_buffer_list *list, const memplan_arena_plan *plan,
                                  char **out, size_t *len, memplan_error *err) {
    if (!a->json) return memplan_csv_write(list, plan->offset, out, len, err);
    mp_buf b;
    mp_buf_init(&b);
    mp_pack_json(&b, list, plan);
    mp_buf_putc(&b, '\n');
    if (b.failed) {
        mp_buf_free(&b);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    *out = mp_buf_take(&b, len);
    return *out ? MEMPLAN_OK : memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
}

int cmd_pack(int argc, char **argv) {
    pack_args a;
    memset(&a, 0, sizeof a);
    int rc = pack_parse_args(argc, argv, &a);
    if (rc != CLI_OK) return rc;

    char *text = NULL, *out = NULL;
    size_t len = 0, out_len = 0;
    if (!pack_read_file(a.file, &text, &len)) return CLI_BAD_INPUT;
    memplan_buffer_list list;
    memplan_arena_plan plan;
    memset(&plan, 0, sizeof plan);
    memplan_error err = {MEMPLAN_OK, ""};
    memplan_status st = memplan_csv_read(text, len, &list, &err);
    if (st == MEMPLAN_OK) st = memplan_pack(list.buffers, list.count, &a.opt, &plan, &err);
    if (st == MEMPLAN_OK) st = pack_render(&a, &list, &plan, &out, &out_len, &err);
    if (st == MEMPLAN_OK) {
        if (fwrite(out, 1, out_len, stdout) != out_len || fflush(stdout) != 0) {
            cli_error("memplan pack: %s: cannot write output", a.file);
            rc = CLI_BAD_INPUT;
        }
    } else {
        cli_error("memplan pack: %s: %s", a.file, err.message); /* ids from the file: escaped */
        rc = st == MEMPLAN_EUSAGE ? CLI_USAGE : CLI_BAD_INPUT;
    }
    free(out);
    free(text);
    memplan_arena_plan_free(&plan);
    memplan_buffer_list_free(&list);
    return rc;
}
