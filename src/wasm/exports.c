/*
 * exports.c -- the WebAssembly surface: sessions over byte buffers.
 *
 *   session = mp_open(bytes, len)        0 on failure; mp_result() has the message
 *   session = mp_open_reader(size)       the same, reading through Module.memplanReadAt
 *                                        (offset, length) -> Uint8Array, a window at a
 *                                        time, skipping tensor data
 *   status  = mp_call_reader(session, "annotate", args, size)
 *                                        annotate on such a session, reading the model
 *                                        again through Module.memplanReadAt
 *   flag    = mp_command_whole_model("annotate")
 *                                        1 when a command needs that (the command table)
 *   status  = mp_call(session, "info", "--flag\nvalue")
 *   text    = mp_result(), mp_result_len(); then mp_result_free()
 *             ("annotate" leaves the annotated model's bytes there)
 *   mp_close(session)
 *   status  = mp_pack_csv(csv, len, "--align\n1\n--budget-ms\n100\n--seed\n1")  (memplan pack --json)
 *   status  = mp_trace(session, "--strategy\nslots")  the plan's trace (memplan plan --trace)
 *   status  = mp_diff(a, "A.onnx", "--dim\nN=1", b, "B.onnx", "--inplace")
 *                                        memplan diff --json, each side with its own options
 *
 * mp_call writes the same JSON as the CLI's --json output, since both go
 * through the library's one JSON writer. A session (memplan/session.h) keeps
 * stage results between calls: re-planning after a dim change re-runs only
 * what the dims change.
 */
#include <emscripten/emscripten.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/memplan.h"
#include "memplan/plan.h"
#include "memplan/report.h"
#include "cli/args.h"
#include "out/pack_json.h"
#include "util/buf.h"

typedef memplan_session session;

static char *g_result;
static size_t g_result_len;

static void set_result(char *data, size_t len) {
    free(g_result);
    g_result = data;
    g_result_len = len;
}

static void set_message(const char *msg) {
    size_t n = strlen(msg);
    char *copy = malloc(n + 1);
    if (copy) memcpy(copy, msg, n + 1);
    set_result(copy, copy ? n : 0);
}

EMSCRIPTEN_KEEPALIVE const char *mp_version(void) { return memplan_version(); }

EMSCRIPTEN_KEEPALIVE const char *mp_result(void) { return g_result ? g_result : ""; }

EMSCRIPTEN_KEEPALIVE size_t mp_result_len(void) { return g_result_len; }

EMSCRIPTEN_KEEPALIVE void mp_result_free(void) { set_result(NULL, 0); }

EMSCRIPTEN_KEEPALIVE session *mp_open(const unsigned char *bytes, size_t len) {
    session *s = NULL;
    memplan_error err = {0};
    if (memplan_session_open(bytes, len, &s, &err) != MEMPLAN_OK) {
        set_message(err.message);
        return NULL;
    }
    set_result(NULL, 0);
    return s;
}

/* Copy `len` bytes at `offset` from Module.memplanReadAt into the heap; 0
 * when there is no reader, it throws or it returns the wrong length. */
/* The body is JavaScript: clang-format would split its operators. */
// clang-format off
EM_JS(int, js_read_at, (double offset, void *buf, size_t len), {
    var read = Module['memplanReadAt'];
    if (!read) return 0;
    try {
        var bytes = read(offset, len >>> 0);
        if (!(bytes instanceof Uint8Array) || bytes.length !== (len >>> 0)) return 0;
        HEAPU8.set(bytes, buf >>> 0);
        return 1;
    } catch (e) {
        return 0;
    }
});
// clang-format on

static bool read_at(void *ctx, uint64_t offset, void *buf, size_t len) {
    (void)ctx;
    return js_read_at((double)offset, buf, len) != 0;
}

/* The reader over Module.memplanReadAt for a model of `size` bytes (a JS
 * number); false, with the message set, when size is not a byte count. */
static bool js_reader(double size, memplan_reader *rd) {
    if (!(size >= 0 && size <= 9007199254740992.0)) {
        set_message("the model's size is not a byte count");
        return false;
    }
    *rd = (memplan_reader){read_at, NULL, (uint64_t)size};
    return true;
}

EMSCRIPTEN_KEEPALIVE session *mp_open_reader(double size) {
    session *s = NULL;
    memplan_error err = {0};
    memplan_reader rd;
    if (!js_reader(size, &rd)) return NULL;
    if (memplan_session_open_reader(&rd, &s, &err) != MEMPLAN_OK) {
        set_message(err.message);
        return NULL;
    }
    set_result(NULL, 0);
    return s;
}

EMSCRIPTEN_KEEPALIVE void mp_close(session *s) { memplan_session_close(s); }

/* Split "a\nb\nc" in place into argv; -1 when there are more than max
 * (they are never dropped silently: the caller reports it). */
static int split_args(char *args, char **argv, int max) {
    int n = 0;
    if (!args || !*args) return 0;
    for (char *p = args;;) {
        if (n == max) return -1;
        argv[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
    return n;
}

/* "a\nb\nc" as an argument vector of any length: one malloc'ed block (the
 * pointers, then a copy of the text) that *argv points into; free(*argv).
 * False when out of memory. */
static bool split_all(const char *args, char ***argv, int *argc) {
    size_t len = args ? strlen(args) : 0, n = len ? 1 : 0;
    for (size_t i = 0; i < len; i++) n += args[i] == '\n';
    if (n > (size_t)INT_MAX) return false;
    char **v = malloc(n * sizeof *v + len + 1);
    if (!v) return false;
    char *copy = (char *)(v + n);
    memcpy(copy, args ? args : "", len + 1);
    *argc = split_args(copy, v, (int)n);
    *argv = v;
    return true;
}

/* Parse "a\nb\nc" into a request (a, initialised by the caller; *argv, which
 * the request points into, is freed by the caller after it). No command is
 * given to the parser: every option is taken, so one argument list can serve
 * several commands (the reports read the fields they use). */
static memplan_status parse_request(const char *args, cli_args *a, char ***argv, memplan_error *err) {
    int argc = 0;
    *argv = NULL;
    if (!split_all(args, argv, &argc)) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    memplan_status st = cli_args_parse(a, NULL, argc, (const char *const *)*argv, err);
    if (!st && a->n_positional)
        st = memplan_error_set(err, MEMPLAN_EUSAGE, "unexpected argument '%s'", a->positional[0]);
    if (!st && a->output_path)
        st = memplan_error_set(err, MEMPLAN_EUSAGE, "-o/--output is for the command line: annotate returns the bytes");
    if (!st && a->req.trace_path) /* a file to write: here there are none (memplan_plan_trace_json is the library's) */
        st = memplan_error_set(err, MEMPLAN_EUSAGE, "--trace is for the command line: it writes a file");
    return st;
}

/* The document in out (or the message of err) as the result; the status. */
static int finish(memplan_status st, char *out, size_t len, const memplan_error *err) {
    if (st) {
        free(out);
        set_message(err->message);
        return (int)st;
    }
    set_result(out, len);
    return 0;
}

/* The plan the request asks for as a Chrome/Perfetto trace (memplan/trace.h):
 * the bytes `memplan plan MODEL --trace OUT.json` writes, made the same way
 * (the request's plan options, memplan_plan_trace_json), from the session's
 * cached plan. */
static memplan_status trace_of(session *s, const memplan_request *r, char **out, size_t *len, memplan_error *err) {
    const memplan_model_plan *p = NULL;
    memplan_status st = memplan_session_plan_request(s, r, &p, err);
    return st ? st : memplan_plan_trace_json(p, out, len, err);
}

/* mp_call with the model's reader for annotate (NULL: none); with `trace`,
 * the plan's trace instead of a command's report (command is then NULL). */
static int call(session *s, const char *command, const char *args, const memplan_reader *rd, bool trace) {
    if (!s || (!command && !trace)) {
        set_message("no session");
        return MEMPLAN_EUSAGE;
    }
    memplan_error err = {0};
    cli_args a;
    cli_args_init(&a);
    char **argv = NULL, *out = NULL;
    size_t len = 0;
    memplan_status st = parse_request(args, &a, &argv, &err);
    a.req.model_reader = rd;
    if (!st)
        st = trace ? trace_of(s, &a.req, &out, &len, &err)
                   : memplan_session_report(s, command, &a.req, true, &out, &len, &err);
    cli_args_free(&a);
    free(argv);
    return finish(st, out, len, &err);
}

/* `memplan diff --json` of two sessions' models (or one session twice),
 * each side planned with its own arguments ("--strategy\nslots" against
 * "--inplace"): memplan_diff_requests. name_a and name_b prefix the message
 * when a side cannot be planned. */
EMSCRIPTEN_KEEPALIVE int mp_diff(session *sa, const char *name_a, const char *args_a, session *sb, const char *name_b,
                                 const char *args_b) {
    if (!sa || !sb) {
        set_message("no session");
        return MEMPLAN_EUSAGE;
    }
    memplan_error err = {0};
    cli_args a, b;
    cli_args_init(&a);
    cli_args_init(&b);
    char **argv_a = NULL, **argv_b = NULL, *out = NULL;
    size_t len = 0;
    memplan_status st = parse_request(args_a, &a, &argv_a, &err);
    if (!st) st = parse_request(args_b, &b, &argv_b, &err);
    if (!st)
        st = memplan_diff_requests(memplan_session_model(sa), name_a ? name_a : "A", &a.req, memplan_session_model(sb),
                                   name_b ? name_b : "B", &b.req, true, &out, &len, &err);
    cli_args_free(&a);
    cli_args_free(&b);
    free(argv_a);
    free(argv_b);
    return finish(st, out, len, &err);
}

/* 1 when `command` reads the model's whole file (memplan/command.h:
 * whole_model, as annotate does), 0 when not, -1 for no such command: the
 * wrapper then calls mp_call_reader on a session from mp_open_reader. */
EMSCRIPTEN_KEEPALIVE int mp_command_whole_model(const char *command) {
    const memplan_command *c = memplan_command_find(command);
    return c ? c->whole_model : -1;
}

EMSCRIPTEN_KEEPALIVE int mp_call(session *s, const char *command, const char *args) {
    return call(s, command, args, NULL, false);
}

/* The trace `memplan plan MODEL ARGS --trace OUT.json` writes, to mp_result;
 * args as in mp_call (the plan options; a deferred plan is refused, as the
 * CLI refuses it). */
EMSCRIPTEN_KEEPALIVE int mp_trace(session *s, const char *args) { return call(s, NULL, args, NULL, true); }

/* mp_call for a session from mp_open_reader whose command reads the whole
 * model (annotate): the model is read again through Module.memplanReadAt. */
EMSCRIPTEN_KEEPALIVE int mp_call_reader(session *s, const char *command, const char *args, double size) {
    memplan_reader rd;
    if (!js_reader(size, &rd)) return MEMPLAN_EUSAGE;
    return call(s, command, args, &rd, false);
}

/* `memplan pack --json` on CSV text (id,lower,upper,size): args as in
 * mp_call, "--align\n1\n--budget-ms\n1000". The JSON goes to mp_result. */
EMSCRIPTEN_KEEPALIVE int mp_pack_csv(const char *csv, size_t len, const char *args) {
    enum { MAX_ARGS = 16 };
    size_t args_len = args ? strlen(args) : 0;
    char *copy = malloc(args_len + 1);
    if (!copy) {
        set_message("out of memory");
        return MEMPLAN_ENOMEM;
    }
    memcpy(copy, args ? args : "", args_len + 1);
    char *argv[MAX_ARGS];
    int argc = split_args(copy, argv, MAX_ARGS);
    if (argc < 0) {
        free(copy);
        set_message("more than 16 arguments");
        return MEMPLAN_EUSAGE;
    }
    memplan_pack_options opt;
    memplan_pack_options_init(&opt);
    opt.budget_ms = MEMPLAN_PACK_CSV_BUDGET_MS;
    memplan_error err = {0};
    memplan_status st = MEMPLAN_OK;
    for (int i = 0; i < argc && !st; i += 2) /* "--name\nvalue" pairs */
        st = mp_pack_option(argv[i], i + 1 < argc ? argv[i + 1] : NULL, &opt, &err);
    free(copy);
    memplan_buffer_list list = {0};
    memplan_arena_plan plan = {0};
    if (!st) st = memplan_csv_read(csv, len, &list, &err);
    if (!st) st = memplan_pack(list.buffers, list.count, &opt, &plan, &err);
    if (!st) {
        mp_buf b;
        mp_buf_init(&b);
        mp_pack_json(&b, &list, &plan);
        if (b.failed) {
            mp_buf_free(&b);
            st = memplan_error_set(&err, MEMPLAN_ENOMEM, "out of memory");
        } else {
            size_t n = b.len;
            char *out = mp_buf_take(&b, &n);
            set_result(out, n);
        }
    }
    memplan_arena_plan_free(&plan);
    memplan_buffer_list_free(&list);
    if (st) set_message(err.message);
    return (int)st;
}
