/*
 * common.c -- input checks, alignment and sorting shared by the planners.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/plan_internal.h"
#include "util/heap.h"

memplan_status mp_plan_check_buffers(const memplan_buffer *bufs, size_t n, memplan_error *err) {
    if (n > 0 && !bufs) return memplan_error_set(err, MEMPLAN_EUSAGE, "buffers: NULL array of %zu", n);
    for (size_t i = 0; i < n; i++) {
        if (bufs[i].start < 0)
            return memplan_error_set(err, MEMPLAN_EINPUT, "buffer %zu: start %lld is negative", i,
                                     (long long)bufs[i].start);
        if (bufs[i].end <= bufs[i].start)
            return memplan_error_set(err, MEMPLAN_EINPUT,
                                     "buffer %zu: empty lifetime [%lld, %lld) (end must exceed start)", i,
                                     (long long)bufs[i].start, (long long)bufs[i].end);
    }
    return MEMPLAN_OK;
}

bool mp_align_ok(uint64_t align) { return align != 0 && (align & (align - 1)) == 0; }

bool mp_align_up(uint64_t size, uint64_t align, uint64_t *out) {
    uint64_t mask = align - 1;
    if (size > UINT64_MAX - mask) return false;
    *out = (size + mask) & ~mask;
    return true;
}

memplan_status mp_aligned_sizes(const memplan_buffer *bufs, size_t n, uint64_t align, uint64_t **sizes, uint64_t *total,
                                memplan_error *err) {
    uint64_t *s = mp_malloc_big((n ? n : 1) * sizeof *s);
    uint64_t sum = 0;
    *sizes = NULL;
    if (!s) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory for %zu sizes", n);
    for (size_t i = 0; i < n; i++) {
        if (!mp_align_up(bufs[i].size, align, &s[i]) || s[i] > UINT64_MAX - sum) {
            free(s);
            return memplan_error_set(err, MEMPLAN_ELIMIT, "buffer %zu: size %llu makes the total overflow 64 bits", i,
                                     (unsigned long long)bufs[i].size);
        }
        sum += s[i];
    }
    *sizes = s;
    *total = sum;
    return MEMPLAN_OK;
}

/* Merge idx[lo, mid) and idx[mid, hi), both sorted, through tmp. */
static void merge_runs(size_t *idx, size_t *tmp, size_t lo, size_t mid, size_t hi, mp_idx_cmp cmp, const void *ctx) {
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) tmp[k++] = cmp(ctx, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
    while (i < mid) tmp[k++] = idx[i++];
    while (j < hi) tmp[k++] = idx[j++];
    memcpy(idx + lo, tmp + lo, (hi - lo) * sizeof *idx);
}

bool mp_sort_idx(size_t *idx, size_t n, mp_idx_cmp cmp, const void *ctx) {
    if (n < 2) return true;
    size_t *tmp = mp_malloc_big(n * sizeof *tmp);
    if (!tmp) return false;
    mp_sort_idx_tmp(idx, n, cmp, ctx, tmp);
    free(tmp);
    return true;
}

void mp_sort_idx_tmp(size_t *idx, size_t n, mp_idx_cmp cmp, const void *ctx, size_t *tmp) {
    /* Bottom-up: insertion-sort runs of 16, then merge runs pairwise. */
    const size_t run = 16;
    for (size_t lo = 0; lo < n; lo += run) {
        size_t hi = MP_MIN(lo + run, n);
        for (size_t i = lo + 1; i < hi; i++) {
            size_t v = idx[i], j = i;
            while (j > lo && cmp(ctx, v, idx[j - 1]) < 0) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
    }
    for (size_t width = run; width < n; width *= 2) {
        for (size_t lo = 0; lo + width < n; lo += 2 * width) {
            size_t mid = lo + width;
            size_t hi = mid + width < n ? mid + width : n;
            if (cmp(ctx, idx[mid], idx[mid - 1]) < 0) merge_runs(idx, tmp, lo, mid, hi, cmp, ctx);
        }
        if (width > SIZE_MAX / 2) break;
    }
}

size_t *mp_iota(size_t n) {
    size_t *idx = mp_malloc_big((n ? n : 1) * sizeof *idx);
    if (idx)
        for (size_t i = 0; i < n; i++) idx[i] = i;
    return idx;
}

/* LSD radix sort, a byte per pass, the eight byte histograms counted in
 * one read; a pass where every key has the same byte is skipped (times and
 * sizes rarely use all eight). Each pass is a stable counting sort, so
 * equal keys keep their order. No comparison callback: several times
 * faster than a merge sort on times, in WebAssembly too. */
bool mp_radix_sort(uint64_t *key, size_t *val, size_t n) {
    if (n < 2) return true;
    uint64_t *k2 = mp_malloc_big(n * sizeof *k2);
    size_t *v2 = val ? mp_malloc_big(n * sizeof *v2) : NULL;
    size_t(*count)[256] = calloc(8, sizeof *count);
    if (!k2 || (val && !v2) || !count) {
        free(k2);
        free(v2);
        free(count);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        for (unsigned b = 0; b < 8; b++) count[b][(key[i] >> (8 * b)) & 255]++;
    for (unsigned b = 0; b < 8; b++) {
        unsigned shift = 8 * b;
        size_t *c = count[b];
        if (c[(key[0] >> shift) & 255] == n) continue; /* one byte value: in order */
        size_t pos = 0;
        for (unsigned d = 0; d < 256; d++) {
            size_t m = c[d];
            c[d] = pos;
            pos += m;
        }
        for (size_t i = 0; i < n; i++) {
            size_t to = c[(key[i] >> shift) & 255]++;
            k2[to] = key[i];
            if (val) v2[to] = val[i];
        }
        memcpy(key, k2, n * sizeof *key);
        if (val) memcpy(val, v2, n * sizeof *val);
    }
    free(k2);
    free(v2);
    free(count);
    return true;
}

/* val = 0..m-1 sorted by key (m entries, freed here); NULL on failure. */
static size_t *order_by_keys(uint64_t *key, size_t m) {
    size_t *idx = key ? mp_iota(m) : NULL;
    if (idx && !mp_radix_sort(key, idx, m)) {
        free(idx);
        idx = NULL;
    }
    free(key);
    return idx;
}

size_t *mp_order_by_start(const memplan_buffer *bufs, size_t n) {
    uint64_t *key = mp_malloc_big((n ? n : 1) * sizeof *key);
    for (size_t i = 0; key && i < n; i++) key[i] = (uint64_t)bufs[i].start; /* start >= 0 */
    return order_by_keys(key, n);
}

size_t *mp_events_by_time(const memplan_buffer *bufs, size_t n) {
    if (n > SIZE_MAX / 2 / sizeof(uint64_t)) return NULL;
    uint64_t *key = mp_malloc_big((n ? 2 * n : 1) * sizeof *key);
    for (size_t i = 0; key && i < n; i++) { /* 2 * time fits: times are < 2^63 */
        key[i] = 2 * (uint64_t)bufs[i].start + 1;
        key[n + i] = 2 * (uint64_t)bufs[i].end;
    }
    return order_by_keys(key, 2 * n);
}

bool mp_time_ranks(const memplan_buffer *bufs, size_t n, size_t *lo, size_t *hi, size_t *distinct) {
    *distinct = 0;
    if (n > SIZE_MAX / 2 / sizeof(uint64_t)) return false;
    uint64_t *key = mp_malloc_big((n ? 2 * n : 1) * sizeof *key);
    size_t *ev = mp_malloc_big((n ? 2 * n : 1) * sizeof *ev);
    bool ok = key && ev;
    for (size_t i = 0; ok && i < n; i++) { /* times are >= 0 */
        key[2 * i] = (uint64_t)bufs[i].start;
        key[2 * i + 1] = (uint64_t)bufs[i].end;
        ev[2 * i] = 2 * i;
        ev[2 * i + 1] = 2 * i + 1;
    }
    ok = ok && mp_radix_sort(key, ev, 2 * n);
    size_t u = 0;
    for (size_t k = 0; ok && k < 2 * n; k++) {
        if (k > 0 && key[k] != key[k - 1]) u++;
        if (ev[k] & 1) hi[ev[k] / 2] = u;
        else
            lo[ev[k] / 2] = u;
    }
    if (ok && n > 0) *distinct = u + 1;
    free(key);
    free(ev);
    return ok;
}
