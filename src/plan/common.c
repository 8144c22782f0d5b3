/*
 * common.c -- input checks, alignment and sorting shared by the planners.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/plan_internal.h"

memplan_status mp_plan_check_buffers(const memplan_buffer *bufs, size_t n,
                                     memplan_error *err) {
    if (n > 0 && !bufs)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "buffers: NULL array of %zu", n);
    for (size_t i = 0; i < n; i++) {
        if (bufs[i].start < 0)
            return memplan_error_set(err, MEMPLAN_EINPUT,
                                     "buffer %zu: start %lld is negative", i,
                                     (long long)bufs[i].start);
        if (bufs[i].end <= bufs[i].start)
            return memplan_error_set(err, MEMPLAN_EINPUT,
                                     "buffer %zu: empty lifetime [%lld, %lld) (end must exceed start)",
                                     i, (long long)bufs[i].start, (long long)bufs[i].end);
    }
    return MEMPLAN_OK;
}

bool mp_align_ok(uint64_t align) {
    return align != 0 && (align & (align - 1)) == 0;
}

bool mp_align_up(uint64_t size, uint64_t align, uint64_t *out) {
    uint64_t mask = align - 1;
    if (size > UINT64_MAX - mask) return false;
    *out = (size + mask) & ~mask;
    return true;
}

memplan_status mp_aligned_sizes(const memplan_buffer *bufs, size_t n,
                                uint64_t align, uint64_t **sizes,
                                uint64_t *total, memplan_error *err) {
    uint64_t *s = malloc((n ? n : 1) * sizeof *s);
    uint64_t sum = 0;
    *sizes = NULL;
    if (!s) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory for %zu sizes", n);
    for (size_t i = 0; i < n; i++) {
        if (!mp_align_up(bufs[i].size, align, &s[i]) || s[i] > UINT64_MAX - sum) {
            free(s);
            return memplan_error_set(err, MEMPLAN_ELIMIT,
                                     "buffer %zu: size %llu makes the total overflow 64 bits",
                                     i, (unsigned long long)bufs[i].size);
        }
        sum += s[i];
    }
    *sizes = s;
    *total = sum;
    return MEMPLAN_OK;
}

/* Merge idx[lo, mid) and idx[mid, hi), both sorted, through tmp. */
static void merge_runs(size_t *idx, size_t *tmp, size_t lo, size_t mid,
                       size_t hi, mp_idx_cmp cmp, const void *ctx) {
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) tmp[k++] = cmp(ctx, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
    while (i < mid) tmp[k++] = idx[i++];
    while (j < hi) tmp[k++] = idx[j++];
    memcpy(idx + lo, tmp + lo, (hi - lo) * sizeof *idx);
}

bool mp_sort_idx(size_t *idx, size_t n, mp_idx_cmp cmp, const void *ctx) {
    if (n < 2) return true;
    size_t *tmp = malloc(n * sizeof *tmp);
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
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (idx)
        for (size_t i = 0; i < n; i++) idx[i] = i;
    return idx;
}

static int cmp_start(const void *ctx, size_t a, size_t b) {
    const memplan_buffer *bufs = ctx;
    if (bufs[a].start != bufs[b].start) return bufs[a].start < bufs[b].start ? -1 : 1;
    return 0; /* stable sort keeps index order */
}

size_t *mp_order_by_start(const memplan_buffer *bufs, size_t n) {
    size_t *idx = mp_iota(n);
    if (idx && !mp_sort_idx(idx, n, cmp_start, bufs)) {
        free(idx);
        return NULL;
    }
    return idx;
}
