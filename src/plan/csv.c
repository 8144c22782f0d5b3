/*
 * csv.c -- the benchmark buffer format `id,lower,upper,size` (plan.h).
 *
 * The reader is strict and total: every byte sequence either parses or
 * yields "line N: ..." naming what is wrong; numbers are range-checked
 * digit by digit, so nothing overflows. Ids are copied into one block of
 * storage sized by the input, so the reader allocates a bounded amount.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/plan_internal.h"
#include "util/buf.h"

#define HEADER "id,lower,upper,size"

typedef struct field {
    const char *p;
    size_t n;
} field;

/* Parse a decimal integer with an optional '-' into [-2^63, 2^64). */
static bool parse_int(field f, bool *neg, uint64_t *mag) {
    size_t i = 0;
    *neg = false;
    *mag = 0;
    if (f.n > 0 && f.p[0] == '-') *neg = true, i = 1;
    if (i == f.n) return false;
    for (; i < f.n; i++) {
        if (f.p[i] < '0' || f.p[i] > '9') return false;
        uint64_t d = (uint64_t)(f.p[i] - '0');
        if (*mag > (UINT64_MAX - d) / 10) return false;
        *mag = *mag * 10 + d;
    }
    return true;
}

/* Field as int64 time; err names the field on failure. */
static memplan_status parse_time(field f, const char *name, size_t line, int64_t *out, memplan_error *err) {
    bool neg;
    uint64_t mag;
    if (!parse_int(f, &neg, &mag) || mag > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
        return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: %s '%.*s' is not an integer in int64 range", line,
                                 name, (int)MP_MIN(f.n, 40), f.p);
    *out = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
    return MEMPLAN_OK;
}

static memplan_status parse_size(field f, size_t line, uint64_t *out, memplan_error *err) {
    bool neg;
    uint64_t mag;
    if (!parse_int(f, &neg, &mag))
        return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: size '%.*s' is not an integer in uint64 range", line,
                                 (int)MP_MIN(f.n, 40), f.p);
    if (neg && mag != 0)
        return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: size %.*s is negative", line, (int)MP_MIN(f.n, 40),
                                 f.p);
    *out = mag;
    return MEMPLAN_OK;
}

/* Split a line at commas into exactly 4 fields. */
static memplan_status split_line(const char *p, size_t n, size_t line, field f[4], memplan_error *err) {
    size_t k = 0, from = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && p[i] == '\0') return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: NUL byte in line", line);
        if (i < n && p[i] != ',') continue;
        if (k < 4) f[k] = (field){p + from, i - from};
        k++;
        from = i + 1;
    }
    if (k != 4)
        return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: expected 4 fields id,lower,upper,size, found %zu",
                                 line, k);
    return MEMPLAN_OK;
}

typedef struct reader {
    memplan_buffer_list *out;
    size_t cap;
    size_t *line_of;  /* line number of each buffer */
    size_t text_used; /* bytes of id_text used */
} reader;

static bool grow(reader *r) {
    if (r->out->count < r->cap) return true;
    size_t cap = r->cap ? 2 * r->cap : 64;
    if (cap > SIZE_MAX / sizeof(memplan_buffer)) return false;
    memplan_buffer *b = realloc(r->out->buffers, cap * sizeof *b);
    if (b) r->out->buffers = b;
    char **ids = realloc(r->out->ids, cap * sizeof *ids);
    if (ids) r->out->ids = ids;
    size_t *lines = realloc(r->line_of, cap * sizeof *lines);
    if (lines) r->line_of = lines;
    if (!b || !ids || !lines) return false;
    r->cap = cap;
    return true;
}

/* One data line -> one buffer. */
static memplan_status read_row(reader *r, const char *p, size_t n, size_t line, memplan_error *err) {
    field f[4];
    memplan_status st = split_line(p, n, line, f, err);
    if (st != MEMPLAN_OK) return st;
    if (f[0].n == 0) return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: empty id", line);
    if (memchr(f[0].p, '"', f[0].n))
        return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: quoted ids are not supported", line);
    memplan_buffer b;
    if ((st = parse_time(f[1], "lower", line, &b.start, err)) != MEMPLAN_OK) return st;
    if ((st = parse_time(f[2], "upper", line, &b.end, err)) != MEMPLAN_OK) return st;
    if ((st = parse_size(f[3], line, &b.size, err)) != MEMPLAN_OK) return st;
    if (b.start < 0)
        return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: lower %lld is negative", line, (long long)b.start);
    if (b.end <= b.start)
        return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: upper %lld must be greater than lower %lld", line,
                                 (long long)b.end, (long long)b.start);
    if (!grow(r)) return memplan_error_set(err, MEMPLAN_ENOMEM, "line %zu: out of memory", line);
    char *id = r->out->id_text + r->text_used;
    memcpy(id, f[0].p, f[0].n);
    id[f[0].n] = '\0';
    r->text_used += f[0].n + 1;
    r->out->ids[r->out->count] = id;
    r->line_of[r->out->count] = line;
    r->out->buffers[r->out->count++] = b;
    return MEMPLAN_OK;
}

static int cmp_id(const void *ctx, size_t a, size_t b) {
    char *const *ids = ctx;
    return strcmp(ids[a], ids[b]);
}

/* Reject duplicate ids, naming the earliest line that repeats one. */
static memplan_status check_unique(reader *r, memplan_error *err) {
    size_t n = r->out->count;
    size_t *idx = mp_iota(n);
    if (!idx || !mp_sort_idx(idx, n, cmp_id, r->out->ids)) {
        free(idx);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory checking ids");
    }
    size_t dup = SIZE_MAX, first = 0;
    for (size_t k = 1; k < n; k++) {
        /* stable sort: within equal ids, line order */
        if (strcmp(r->out->ids[idx[k - 1]], r->out->ids[idx[k]]) == 0 &&
            (k < 2 || strcmp(r->out->ids[idx[k - 2]], r->out->ids[idx[k]]) != 0) && (dup == SIZE_MAX || idx[k] < dup)) {
            dup = idx[k];
            first = idx[k - 1];
        }
    }
    free(idx);
    if (dup == SIZE_MAX) return MEMPLAN_OK;
    return memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: duplicate id '%.40s' (first on line %zu)", r->line_of[dup],
                             r->out->ids[dup], r->line_of[first]);
}

/* The next line [*pos, eol) without its LF or CRLF; advances *pos. */
static field next_line(const char *text, size_t len, size_t *pos) {
    const char *p = text + *pos;
    const char *nl = memchr(p, '\n', len - *pos);
    size_t n = nl ? (size_t)(nl - p) : len - *pos;
    *pos += n + (nl ? 1 : 0);
    if (n > 0 && p[n - 1] == '\r') n--;
    return (field){p, n};
}

memplan_status memplan_csv_read(const char *text, size_t len, memplan_buffer_list *out, memplan_error *err) {
    if (!out) return memplan_error_set(err, MEMPLAN_EUSAGE, "csv_read: NULL result");
    memset(out, 0, sizeof *out);
    if (!text && len > 0) return memplan_error_set(err, MEMPLAN_EUSAGE, "csv_read: NULL text");
    if (len == SIZE_MAX) return memplan_error_set(err, MEMPLAN_ELIMIT, "csv_read: input too large");
    reader r = {out, 0, NULL, 0};
    out->id_text = malloc(len + 1);
    if (!out->id_text) return memplan_error_set(err, MEMPLAN_ENOMEM, "csv_read: out of memory");

    memplan_status st = MEMPLAN_OK;
    size_t pos = 0, line = 0;
    bool header = false;
    while (st == MEMPLAN_OK && pos < len) {
        field l = next_line(text, len, &pos);
        line++;
        if (l.n == 0) continue;
        if (!header) {
            if (l.n != strlen(HEADER) || memcmp(l.p, HEADER, l.n) != 0)
                st = memplan_error_set(err, MEMPLAN_EINPUT, "line %zu: expected the header '" HEADER "'", line);
            header = true;
            continue;
        }
        st = read_row(&r, l.p, l.n, line, err);
    }
    if (st == MEMPLAN_OK && !header) st = memplan_error_set(err, MEMPLAN_EINPUT, "line 1: missing header '" HEADER "'");
    if (st == MEMPLAN_OK) st = check_unique(&r, err);
    free(r.line_of);
    if (st != MEMPLAN_OK) memplan_buffer_list_free(out);
    return st;
}

void memplan_buffer_list_free(memplan_buffer_list *list) {
    if (!list) return;
    free(list->buffers);
    free(list->ids);
    free(list->id_text);
    memset(list, 0, sizeof *list);
}

memplan_status memplan_csv_write(const memplan_buffer_list *list, const uint64_t *offsets, char **text, size_t *len,
                                 memplan_error *err) {
    if (!list || !text || (list->count > 0 && !offsets))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "csv_write: NULL argument");
    mp_buf b;
    mp_buf_init(&b);
    mp_buf_puts(&b, HEADER ",offset\n");
    for (size_t i = 0; i < list->count; i++) {
        const memplan_buffer *x = &list->buffers[i];
        mp_buf_printf(&b, "%s,%lld,%lld,%llu,%llu\n", list->ids[i], (long long)x->start, (long long)x->end,
                      (unsigned long long)x->size, (unsigned long long)offsets[i]);
    }
    if (b.failed) {
        mp_buf_free(&b);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "csv_write: out of memory");
    }
    size_t n = 0;
    *text = mp_buf_take(&b, &n);
    if (!*text) return memplan_error_set(err, MEMPLAN_ENOMEM, "csv_write: out of memory");
    if (len) *len = n;
    return MEMPLAN_OK;
}
