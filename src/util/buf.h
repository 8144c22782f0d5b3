/*
 * buf.h -- a growable byte buffer (always NUL-terminated), used for JSON and
 * for serialized models. On allocation failure the buffer latches `failed`
 * and further appends are ignored, so writers check once at the end.
 */
#ifndef MEMPLAN_UTIL_BUF_H
#define MEMPLAN_UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mp_buf {
    char *data;
    size_t len;
    size_t cap;
    bool failed;
} mp_buf;

void mp_buf_init(mp_buf *b);
void mp_buf_free(mp_buf *b);
bool mp_buf_reserve(mp_buf *b, size_t extra);
void mp_buf_append(mp_buf *b, const void *data, size_t n);
void mp_buf_puts(mp_buf *b, const char *s);
/* One byte; inline because writers call it for every separator. */
static inline void mp_buf_putc(mp_buf *b, char c) {
    if (b->len + 2 <= b->cap) { /* room for c and the terminating NUL */
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return;
    }
    mp_buf_append(b, &c, 1);
}
/* Decimal digits of v (with a '-' when negative). */
void mp_buf_put_i64(mp_buf *b, long long v);
void mp_buf_put_u64(mp_buf *b, unsigned long long v);
void mp_buf_printf(mp_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Hand the data to the caller (free() it); the buffer is reset. */
char *mp_buf_take(mp_buf *b, size_t *len);

#endif
