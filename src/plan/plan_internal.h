/*
 * plan_internal.h -- helpers shared by the planning files: input checks,
 * alignment, a stable index sort and a small deterministic PRNG.
 */
#ifndef MEMPLAN_PLAN_INTERNAL_H
#define MEMPLAN_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/plan.h"
#include "memplan/validate.h"

/* Check 0 <= start < end for every buffer; EINPUT naming the first bad one. */
memplan_status mp_plan_check_buffers(const memplan_buffer *bufs, size_t n, memplan_error *err);

/* True when align is a power of two >= 1. */
bool mp_align_ok(uint64_t align);

/* Round size up to a multiple of align (a power of two). False on overflow. */
bool mp_align_up(uint64_t size, uint64_t align, uint64_t *out);

/* malloc'ed array of aligned sizes; *total = their sum. ELIMIT when a size
 * or the sum overflows 64 bits (then every offset and arena size computed
 * from these sizes fits, since none exceeds the sum). */
memplan_status mp_aligned_sizes(const memplan_buffer *bufs, size_t n, uint64_t align, uint64_t **sizes, uint64_t *total,
                                memplan_error *err);

/* Three-way comparison of two buffer indices under some context. */
typedef int (*mp_idx_cmp)(const void *ctx, size_t a, size_t b);

/* Stable merge sort of n indices. false when scratch memory runs out. */
bool mp_sort_idx(size_t *idx, size_t n, mp_idx_cmp cmp, const void *ctx);

/* The same with caller-provided scratch of n entries (never fails). */
void mp_sort_idx_tmp(size_t *idx, size_t n, mp_idx_cmp cmp, const void *ctx, size_t *tmp);

/* malloc'ed identity permutation 0..n-1 (NULL on failure; n may be 0). */
size_t *mp_iota(size_t n);

/* Stable radix sort of n keys ascending, val (NULL: none) moved along.
 * false when scratch memory runs out (nothing moved then). */
bool mp_radix_sort(uint64_t *key, size_t *val, size_t n);

/* Buffer order by start, ties by index. NULL when memory runs out. */
size_t *mp_order_by_start(const memplan_buffer *bufs, size_t n);

/* The 2n events by time, ends before starts at equal times (lifetimes are
 * half-open), ties by event number: event e < n starts buffer e, e >= n
 * ends buffer e - n. NULL when memory runs out. */
size_t *mp_events_by_time(const memplan_buffer *bufs, size_t n);

/* Each buffer's start and end as ranks among the distinct times (the
 * elementary interval r is [r-th time, (r+1)-th time)): lo[i] and hi[i]
 * with hi[i] > lo[i], and *distinct. Radix sorted, no searches. false when
 * memory runs out. */
bool mp_time_ranks(const memplan_buffer *bufs, size_t n, size_t *lo, size_t *hi, size_t *distinct);

/* splitmix64: a tiny, good, fully deterministic PRNG. */
static inline uint64_t mp_rand_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [0, bound) (bound > 0); the tiny modulo bias is fine. */
static inline size_t mp_rand_below(uint64_t *state, size_t bound) {
    return (size_t)(mp_rand_next(state) % (uint64_t)bound);
}

#define MP_MAX(a, b) ((a) > (b) ? (a) : (b))
#define MP_MIN(a, b) ((a) < (b) ? (a) : (b))

#endif
