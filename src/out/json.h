/*
 * json.h -- the one JSON writer. CLI and WASM both print through it, so their
 * output is byte-identical. Compact output, keys in the order written.
 * Strings are escaped; bytes that are not valid UTF-8 become U+FFFD, so any
 * name a model carries yields valid JSON.
 *
 *   mp_json j; mp_json_init(&j, &buf);
 *   mp_json_obj(&j); mp_json_key(&j, "nodes"); mp_json_int(&j, 3); mp_json_end(&j);
 */
#ifndef MEMPLAN_OUT_JSON_H
#define MEMPLAN_OUT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define MP_JSON_MAX_DEPTH 160 /* a plan nests 3 levels per graph level (MEMPLAN_MAX_GRAPH_DEPTH 32) */

typedef struct mp_json {
    mp_buf *out;
    int depth;
    bool first[MP_JSON_MAX_DEPTH]; /* no element written yet at this depth */
    char closer[MP_JSON_MAX_DEPTH];
    bool after_key;
} mp_json;

void mp_json_init(mp_json *j, mp_buf *out);
void mp_json_obj(mp_json *j); /* { */
void mp_json_arr(mp_json *j); /* [ */
void mp_json_end(mp_json *j); /* } or ] matching the last open */
void mp_json_key(mp_json *j, const char *key);
/* A key that is a string literal of plain ASCII (no quote, backslash or
 * control character): written as is, without escaping or strlen. */
#define MP_JSON_KEY(j, lit) mp_json_key_raw((j), "\"" lit "\":", sizeof("\"" lit "\":") - 1)
void mp_json_key_raw(mp_json *j, const char *quoted_colon, size_t n);
void mp_json_str(mp_json *j, const char *s); /* NULL writes null */
void mp_json_strn(mp_json *j, const char *s, size_t n);
void mp_json_int(mp_json *j, int64_t v);
void mp_json_uint(mp_json *j, uint64_t v);
void mp_json_double(mp_json *j, double v); /* %.6g; non-finite -> null */
void mp_json_bool(mp_json *j, bool v);
void mp_json_null(mp_json *j);

/* Append s as a JSON string literal (with quotes) to b. */
void mp_json_escape(mp_buf *b, const char *s, size_t n);

#endif
