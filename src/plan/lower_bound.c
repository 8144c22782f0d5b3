/*
 * lower_bound.c -- the largest live set, in aligned bytes.
 *
 * Sweep over 2n events (a start adds the buffer's aligned size, an end
 * subtracts it), sorted by time with ends before starts at equal times since
 * lifetimes are half-open. The running maximum is a bound no packing can
 * beat: all those buffers are live together and need disjoint addresses.
 */
#include <stdlib.h>

#include "plan/plan_internal.h"

memplan_status memplan_lower_bound(const memplan_buffer *bufs, size_t n, uint64_t align, uint64_t *out,
                                   memplan_error *err) {
    if (!out) return memplan_error_set(err, MEMPLAN_EUSAGE, "lower_bound: NULL result");
    *out = 0;
    if (!mp_align_ok(align))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "align %llu is not a power of two >= 1",
                                 (unsigned long long)align);
    memplan_status st = mp_plan_check_buffers(bufs, n, err);
    if (st != MEMPLAN_OK) return st;
    if (n > SIZE_MAX / 2 / sizeof(size_t))
        return memplan_error_set(err, MEMPLAN_ELIMIT, "lower_bound: %zu buffers is too many", n);
    uint64_t *sizes, total;
    st = mp_aligned_sizes(bufs, n, align, &sizes, &total, err);
    if (st != MEMPLAN_OK) return st;

    size_t *ev = mp_events_by_time(bufs, n);
    if (!ev) {
        free(ev);
        free(sizes);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "lower_bound: out of memory for %zu buffers", n);
    }
    uint64_t live = 0, best = 0; /* live <= total: no overflow */
    for (size_t k = 0; k < 2 * n; k++) {
        size_t e = ev[k];
        if (e < n) {
            live += sizes[e];
            if (live > best) best = live;
        } else {
            live -= sizes[e - n];
        }
    }
    free(ev);
    free(sizes);
    *out = best;
    return MEMPLAN_OK;
}
