/* session.c -- a loaded model, a copy of its bytes and a stage cache. */
#include "memplan/session.h"

#include <stdlib.h>
#include <string.h>

#include "memplan/command.h"
#include "out/cache.h"

struct memplan_session {
    memplan_model *model;
    unsigned char *bytes;
    size_t len;
    bool stripped; /* bytes lack the large tensor data: annotate needs the reader */
    mp_cache cache;
};

memplan_status memplan_session_open(const void *bytes, size_t len, memplan_session **out, memplan_error *err) {
    *out = NULL;
    memplan_session *s = calloc(1, sizeof *s);
    if (!s) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    mp_cache_init(&s->cache);
    memplan_status st = memplan_model_load(bytes, len, NULL, &s->model, err);
    if (!st) {
        s->bytes = malloc(len ? len : 1);
        if (!s->bytes) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        else if (len)
            memcpy(s->bytes, bytes, len);
        s->len = len;
    }
    if (st) {
        memplan_session_close(s);
        return st;
    }
    *out = s;
    return MEMPLAN_OK;
}

memplan_status memplan_session_open_reader(const memplan_reader *reader, memplan_session **out, memplan_error *err) {
    *out = NULL;
    void *bytes;
    size_t len;
    memplan_status st = memplan_model_strip(reader, &bytes, &len, err);
    if (st) return st;
    memplan_session *s = calloc(1, sizeof *s);
    if (!s) {
        free(bytes);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    mp_cache_init(&s->cache);
    s->bytes = bytes;
    s->len = len;
    s->stripped = true;
    st = memplan_model_load(bytes, len, NULL, &s->model, err);
    if (st) {
        memplan_session_close(s);
        return st;
    }
    *out = s;
    return MEMPLAN_OK;
}

void memplan_session_close(memplan_session *s) {
    if (!s) return;
    mp_cache_clear(&s->cache);
    memplan_model_free(s->model);
    free(s->bytes);
    free(s);
}

const memplan_model *memplan_session_model(const memplan_session *s) { return s->model; }

memplan_status memplan_session_report(memplan_session *s, const char *command, const memplan_request *r, bool json,
                                      char **out, size_t *len, memplan_error *err) {
    const memplan_command *c = memplan_command_find(command);
    if (c && c->whole_model && s->stripped && !r->model_reader)
        return memplan_error_set(err, MEMPLAN_EUSAGE,
                                 "%s needs the whole model, and this session was opened through a reader "
                                 "that skipped its tensor data: pass the reader with the request (model_reader)",
                                 command);
    memplan_request own = *r; /* the lists stay the caller's: a shallow copy */
    own.model_bytes = s->bytes;
    own.model_len = s->len;
    memplan_status st = mp_report(&s->cache, s->model, command, &own, out, len, err, json);
    /* Out of memory: give back what the cache holds, so a retry (or a
     * smaller request) has the room. */
    if (st == MEMPLAN_ENOMEM) mp_cache_clear(&s->cache);
    return st;
}

memplan_status memplan_session_plan(memplan_session *s, const memplan_plan_options *o, const memplan_model_plan **out,
                                    memplan_error *err) {
    memplan_status st = mp_cache_plan(&s->cache, s->model, o, out, err);
    if (st == MEMPLAN_ENOMEM) mp_cache_clear(&s->cache);
    return st;
}

memplan_status memplan_session_plan_request(memplan_session *s, const memplan_request *r,
                                            const memplan_model_plan **out, memplan_error *err) {
    memplan_plan_options o;
    memplan_request_plan_options(r, &o);
    const memplan_model *m = s->model;
    mp_cache *c = &s->cache;
    memplan_status st = r->float16_cpu ? mp_cache_float16_cpu(&s->cache, s->model, &m, &c, NULL, err) : MEMPLAN_OK;
    if (!st) st = mp_cache_plan(c, m, &o, out, err);
    if (st == MEMPLAN_ENOMEM) mp_cache_clear(&s->cache);
    return st;
}

void memplan_session_forget(memplan_session *s) { mp_cache_clear(&s->cache); }
