/*
 * exports.c -- the WebAssembly surface: sessions over byte buffers.
 *
 *   session = mp_open(bytes, len)        0 on failure; mp_result() has the message
 *   status  = mp_call(session, "info", "--flag\nvalue")
 *   text    = mp_result(), mp_result_len(); then mp_result_free()
 *   mp_close(session)
 *
 * mp_call writes the same JSON as the CLI's --json output, since both go
 * through the library's one JSON writer.
 */
#include <emscripten/emscripten.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/memplan.h"

typedef struct session {
    memplan_model *model;
} session;

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
    session *s = calloc(1, sizeof *s);
    if (!s) {
        set_message("out of memory");
        return NULL;
    }
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &s->model, &err) != MEMPLAN_OK) {
        set_message(err.message);
        free(s);
        return NULL;
    }
    set_result(NULL, 0);
    return s;
}

EMSCRIPTEN_KEEPALIVE void mp_close(session *s) {
    if (!s) return;
    memplan_model_free(s->model);
    free(s);
}

EMSCRIPTEN_KEEPALIVE int mp_call(session *s, const char *command, const char *args) {
    (void)args;
    if (!s || !command) {
        set_message("no session");
        return MEMPLAN_EUSAGE;
    }
    memplan_error err = {0};
    char *out = NULL;
    size_t len = 0;
    memplan_status st;
    if (strcmp(command, "info") == 0) {
        st = memplan_info_json(s->model, &out, &len, &err);
    } else {
        st = memplan_error_set(&err, MEMPLAN_EUSAGE, "unknown command '%s'", command);
    }
    if (st) {
        free(out);
        set_message(err.message);
        return (int)st;
    }
    set_result(out, len);
    return 0;
}
