/* json.c -- compact, deterministic JSON writer. */
#include "out/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void mp_json_init(mp_json *j, mp_buf *out) {
    memset(j, 0, sizeof *j);
    j->out = out;
    j->first[0] = true;
}

/* Separator before a value or key at the current depth. */
static void before_value(mp_json *j) {
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (!j->first[j->depth]) mp_buf_putc(j->out, ',');
    j->first[j->depth] = false;
}

static void open(mp_json *j, char open_ch, char close_ch) {
    before_value(j);
    mp_buf_putc(j->out, open_ch);
    if (j->depth + 1 >= MP_JSON_MAX_DEPTH) {
        j->out->failed = true;
        return;
    }
    j->depth++;
    j->first[j->depth] = true;
    j->closer[j->depth] = close_ch;
}

void mp_json_obj(mp_json *j) { open(j, '{', '}'); }
void mp_json_arr(mp_json *j) { open(j, '[', ']'); }

void mp_json_end(mp_json *j) {
    if (j->depth <= 0) {
        j->out->failed = true;
        return;
    }
    mp_buf_putc(j->out, j->closer[j->depth]);
    j->depth--;
}

void mp_json_key(mp_json *j, const char *key) {
    before_value(j);
    mp_json_escape(j->out, key, strlen(key));
    mp_buf_putc(j->out, ':');
    j->after_key = true;
}

void mp_json_key_raw(mp_json *j, const char *quoted_colon, size_t n) {
    before_value(j);
    mp_buf_append(j->out, quoted_colon, n);
    j->after_key = true;
}

/* Length of a valid UTF-8 sequence starting at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else
        return 0;
    if (n < len) return 0;
    unsigned cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

void mp_json_escape(mp_buf *b, const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    mp_buf_putc(b, '"');
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c == '"' || c == '\\') {
            mp_buf_putc(b, '\\');
            mp_buf_putc(b, (char)c);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': mp_buf_puts(b, "\\n"); break;
            case '\r': mp_buf_puts(b, "\\r"); break;
            case '\t': mp_buf_puts(b, "\\t"); break;
            default: mp_buf_printf(b, "\\u%04x", c); break;
            }
            i++;
        } else if (c < 0x80) {
            size_t run = i + 1; /* a run of bytes that need no escaping: one copy */
            while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\') run++;
            mp_buf_append(b, s + i, run - i);
            i = run;
        } else {
            size_t len = utf8_len(s + i, n - i);
            if (len == 0) {
                mp_buf_puts(b, "\\ufffd");
                i++;
            } else {
                mp_buf_append(b, s + i, len);
                i += len;
            }
        }
    }
    mp_buf_putc(b, '"');
}

void mp_json_str(mp_json *j, const char *s) {
    if (!s) {
        mp_json_null(j);
        return;
    }
    mp_json_strn(j, s, strlen(s));
}

void mp_json_strn(mp_json *j, const char *s, size_t n) {
    before_value(j);
    mp_json_escape(j->out, s, n);
}

void mp_json_int(mp_json *j, int64_t v) {
    before_value(j);
    mp_buf_put_i64(j->out, (long long)v);
}

void mp_json_uint(mp_json *j, uint64_t v) {
    before_value(j);
    mp_buf_put_u64(j->out, (unsigned long long)v);
}

void mp_json_double(mp_json *j, double v) {
    before_value(j);
    if (!isfinite(v)) {
        mp_buf_puts(j->out, "null");
        return;
    }
    if (v == 0) v = 0; /* no "-0" */
    mp_buf_printf(j->out, "%.6g", v);
}

void mp_json_bool(mp_json *j, bool v) {
    before_value(j);
    mp_buf_puts(j->out, v ? "true" : "false");
}

void mp_json_null(mp_json *j) {
    before_value(j);
    mp_buf_puts(j->out, "null");
}
