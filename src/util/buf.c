/* buf.c -- growable byte buffer. */
#include "util/buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mp_buf_init(mp_buf *b) {
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = false;
}

void mp_buf_free(mp_buf *b) {
    free(b->data);
    mp_buf_init(b);
}

bool mp_buf_reserve(mp_buf *b, size_t extra) {
    if (b->failed) return false;
    if (extra > SIZE_MAX - b->len - 1) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void mp_buf_append(mp_buf *b, const void *data, size_t n) {
    if (!mp_buf_reserve(b, n)) return;
    if (n) memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void mp_buf_puts(mp_buf *b, const char *s) { mp_buf_append(b, s, strlen(s)); }

void mp_buf_put_u64(mp_buf *b, unsigned long long v) {
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    mp_buf_append(b, tmp + i, sizeof tmp - i);
}

void mp_buf_put_i64(mp_buf *b, long long v) {
    if (v < 0) {
        mp_buf_putc(b, '-');
        mp_buf_put_u64(b, 0ull - (unsigned long long)v); /* exact for LLONG_MIN too */
        return;
    }
    mp_buf_put_u64(b, (unsigned long long)v);
}

void mp_buf_printf(mp_buf *b, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        mp_buf_append(b, small, (size_t)n);
        return;
    }
    if (!mp_buf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *mp_buf_take(mp_buf *b, size_t *len) {
    if (!b->data && !b->failed) mp_buf_reserve(b, 0);
    char *p = b->data;
    if (p) p[b->len] = '\0';
    if (len) *len = b->len;
    mp_buf_init(b);
    return p;
}
