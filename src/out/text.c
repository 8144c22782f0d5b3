/* text.c -- escaped text for the reports (see text.h). */
#include "out/text.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes put_escaped copies as they are. */
static bool plain(unsigned char c) { return c >= 0x20 && c != 0x7f && c != 0xc2 && c != '\\'; }

/* The first n bytes of s, escaped; runs of plain bytes appended at once. */
static void put_escaped(mp_buf *b, const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        size_t run = i;
        while (run < n && plain(p[run])) run++;
        if (run > i) {
            mp_buf_append(b, p + i, run - i);
            i = run;
            if (i == n) break;
        }
        unsigned char c = p[i];
        if (c < 0x20 || c == 0x7f) mp_buf_printf(b, "\\x%02x", c);
        else if (c == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
            mp_buf_printf(b, "\\u%04x", p[++i]);
        else if (c == '\\')
            mp_buf_puts(b, "\\\\");
        else
            mp_buf_putc(b, (char)c);
    }
}

void mp_text_put(mp_buf *b, const char *s) {
    if (s) put_escaped(b, s, strlen(s));
}

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int hex_digit(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* A name read from an escaped token "_0x" + hex of t[0..n): as it is when it
 * reads unambiguously inside an expression (see below), else in double
 * quotes (a '"' or '\' in it written \" and \\). */
static void put_name(mp_buf *b, const char *t, size_t n) {
    mp_buf raw;
    mp_buf_init(&raw);
    for (size_t i = 0; i + 1 < n; i += 2) mp_buf_putc(&raw, (char)(hex_digit(t[i]) * 16 + hex_digit(t[i + 1])));
    /* bare: starts like an identifier, then letters, digits, '_', '.', ':'; not a word of the
     * grammar (max, min) nor an escape's look-alike (the page's displayName, web/src/data/format.js, agrees) */
    bool bare = raw.len > 0 && !(raw.data[0] >= '0' && raw.data[0] <= '9');
    for (size_t i = 0; i < raw.len; i++) bare &= ident_char(raw.data[i]) || raw.data[i] == '.' || raw.data[i] == ':';
    if (bare && raw.len == 3 && (memcmp(raw.data, "max", 3) == 0 || memcmp(raw.data, "min", 3) == 0)) bare = false;
    if (bare && raw.len >= 3 && memcmp(raw.data, "_0x", 3) == 0) bare = false;
    if (!bare) mp_buf_putc(b, '"');
    for (size_t i = 0; !raw.failed && i < raw.len; i++) {
        if (raw.data[i] == '"') mp_buf_putc(b, '\\');
        put_escaped(b, &raw.data[i], 1);
    }
    if (!bare) mp_buf_putc(b, '"');
    b->failed |= raw.failed;
    mp_buf_free(&raw);
}

void mp_text_expr(mp_buf *b, const char *e) {
    if (!e) return;
    for (size_t i = 0; e[i];) {
        size_t j = i;
        while (ident_char(e[j])) j++;
        if (j == i) { /* an operator, digit run's end, ... */
            put_escaped(b, &e[i], 1);
            i++;
            continue;
        }
        size_t h = i + 3; /* an escaped name: "_0x" and an even run of hex digits, the whole token */
        bool esc = j - i > 3 && (j - h) % 2 == 0 && strncmp(&e[i], "_0x", 3) == 0;
        for (size_t k = h; esc && k < j; k++) esc = hex_digit(e[k]) >= 0;
        if (esc && (i == 0 || !ident_char(e[i - 1]))) put_name(b, &e[h], j - h);
        else
            put_escaped(b, &e[i], j - i);
        i = j;
    }
}

/* A %s conversion: the argument escaped into its own buffer, then padded. */
static void put_string(mp_buf *b, const char *s, int width, int precision, bool left) {
    if (!s) s = "(null)";
    size_t n = strlen(s);
    if (precision >= 0 && (size_t)precision < n) n = (size_t)precision;
    if (width <= 0) { /* no padding: escaped straight into b */
        put_escaped(b, s, n);
        return;
    }
    mp_buf e;
    mp_buf_init(&e);
    put_escaped(&e, s, n);
    size_t len = e.failed ? 0 : e.len;
    b->failed |= e.failed;
    size_t pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
    for (size_t i = 0; !left && i < pad; i++) mp_buf_putc(b, ' ');
    if (len) mp_buf_append(b, e.data, len);
    for (size_t i = 0; left && i < pad; i++) mp_buf_putc(b, ' ');
    mp_buf_free(&e);
}

/* One conversion other than %s and %%: spec is its text with any '*'
 * already replaced by the number; the argument is read by its type. */
static void put_other(mp_buf *b, const char *spec, const char *len, char conv, va_list *ap) {
    bool l = strcmp(len, "l") == 0, ll = strcmp(len, "ll") == 0, z = strcmp(len, "z") == 0, j = strcmp(len, "j") == 0,
         t = strcmp(len, "t") == 0;
    switch (conv) {
    case 'd':
    case 'i':
        if (ll) mp_buf_printf(b, spec, va_arg(*ap, long long));
        else if (l)
            mp_buf_printf(b, spec, va_arg(*ap, long));
        else if (z || t)
            mp_buf_printf(b, spec, va_arg(*ap, ptrdiff_t));
        else if (j)
            mp_buf_printf(b, spec, va_arg(*ap, intmax_t));
        else
            mp_buf_printf(b, spec, va_arg(*ap, int));
        break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
        if (ll) mp_buf_printf(b, spec, va_arg(*ap, unsigned long long));
        else if (l)
            mp_buf_printf(b, spec, va_arg(*ap, unsigned long));
        else if (z)
            mp_buf_printf(b, spec, va_arg(*ap, size_t));
        else if (j)
            mp_buf_printf(b, spec, va_arg(*ap, uintmax_t));
        else if (t)
            mp_buf_printf(b, spec, va_arg(*ap, ptrdiff_t));
        else
            mp_buf_printf(b, spec, va_arg(*ap, unsigned));
        break;
    case 'e':
    case 'f':
    case 'g':
    case 'E':
    case 'G':
        if (strcmp(len, "L") == 0) mp_buf_printf(b, spec, va_arg(*ap, long double));
        else
            mp_buf_printf(b, spec, va_arg(*ap, double));
        break;
    case 'c': mp_buf_printf(b, spec, va_arg(*ap, int)); break;
    case 'p': mp_buf_printf(b, spec, va_arg(*ap, void *)); break;
    default: b->failed = true; /* a conversion text.h does not list: a bug in a format */
    }
}

/* %d, %lld, %u, %zu ... with no flag, width or precision: the digits
 * written directly (what printf writes, without its cost). False for any
 * other conversion. */
static bool put_integer(mp_buf *b, const char *len, char conv, va_list *ap) {
    bool l = strcmp(len, "l") == 0, ll = strcmp(len, "ll") == 0, z = strcmp(len, "z") == 0, none = !len[0];
    if (conv == 'd' || conv == 'i') {
        if (!ll && !l && !none) return false;
        mp_buf_put_i64(b, ll ? va_arg(*ap, long long) : l ? va_arg(*ap, long) : va_arg(*ap, int));
        return true;
    }
    if (conv == 'u') {
        if (!ll && !l && !z && !none) return false;
        mp_buf_put_u64(b, ll  ? va_arg(*ap, unsigned long long)
                          : l ? va_arg(*ap, unsigned long)
                          : z ? va_arg(*ap, size_t)
                              : va_arg(*ap, unsigned));
        return true;
    }
    return false;
}

/* The format text is the program's own: -Wformat checks it at every call. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
void mp_text_printf(mp_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p;) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            mp_buf_puts(b, p);
            break;
        }
        if (pct > p) mp_buf_append(b, p, (size_t)(pct - p));
        const char *q = pct + 1;
        if (*q == '%') {
            mp_buf_putc(b, '%');
            p = q + 1;
            continue;
        }
        char spec[64];
        size_t k = 0;
        spec[k++] = '%';
        bool left = false;
        while (*q && strchr("-+ #0", *q)) {
            left |= *q == '-';
            if (k < 8) spec[k++] = *q;
            q++;
        }
        int width = -1, precision = -1;
        if (*q == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                left = true;
                width = -width;
            }
            q++;
        } else if (*q >= '0' && *q <= '9') {
            char *end;
            width = (int)strtol(q, &end, 10);
            q = end;
        }
        if (*q == '.') {
            q++;
            if (*q == '*') {
                precision = va_arg(ap, int);
                q++;
            } else {
                char *end;
                precision = (int)strtol(q, &end, 10);
                q = end;
            }
        }
        char len[3] = "";
        size_t nl = 0;
        while (*q && strchr("hlzjtL", *q) && nl < 2) len[nl++] = *q++;
        len[nl] = 0;
        char conv = *q ? *q++ : 0;
        p = q;
        if (conv == 's') {
            put_string(b, va_arg(ap, const char *), width, precision, left);
            continue;
        }
        if (k == 1 && width < 0 && precision < 0 && put_integer(b, len, conv, &ap)) continue;
        if (left && !memchr(spec, '-', k)) spec[k++] = '-'; /* a '*' width below 0 is the '-' flag (C11 7.21.6.1) */
        if (width >= 0) k += (size_t)snprintf(spec + k, sizeof spec - k, "%d", width);
        if (precision >= 0) k += (size_t)snprintf(spec + k, sizeof spec - k, ".%d", precision);
        snprintf(spec + k, sizeof spec - k, "%s%c", len, conv);
        put_other(b, spec, len, conv, &ap);
    }
    va_end(ap);
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
