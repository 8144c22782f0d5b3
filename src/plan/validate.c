/*
 * validate.c -- independent checks of slot and arena plans.
 *
 * Every check reports the first violation in a fixed order (per-buffer
 * checks in index order, then the pairwise check), with its own
 * memplan_violation_kind and a message naming the buffer indices.
 */
#include <stdlib.h>

#include "plan/plan_internal.h"
#include "plan/treap.h"

typedef unsigned long long ull;
typedef long long ll;

/* Record a violation in *v and err; returns EINPUT. */
static memplan_status violation(memplan_violation *v, memplan_violation_kind kind, size_t a, size_t b) {
    if (v) {
        v->kind = kind;
        v->buffer = a;
        v->other = b;
    }
    return MEMPLAN_EINPUT;
}

static void no_violation(memplan_violation *v) {
    if (v) *v = (memplan_violation){MEMPLAN_VIOLATION_NONE, SIZE_MAX, SIZE_MAX};
}

/* Valid lifetimes; on failure a BAD_BUFFER violation. */
static memplan_status check_lifetimes(const memplan_buffer *bufs, size_t n, memplan_violation *v, memplan_error *err) {
    for (size_t i = 0; i < n; i++) {
        if (bufs[i].start < 0 || bufs[i].end <= bufs[i].start) {
            memplan_error_set(err, MEMPLAN_EINPUT, "buffer %zu: invalid lifetime [%lld, %lld)", i, (ll)bufs[i].start,
                              (ll)bufs[i].end);
            return violation(v, MEMPLAN_VIOLATION_BAD_BUFFER, i, SIZE_MAX);
        }
    }
    return MEMPLAN_OK;
}

static bool live_together(const memplan_buffer *a, const memplan_buffer *b) {
    return a->start < b->end && b->start < a->end;
}

/* ------------------------------------------------------------- slot plans */

typedef struct slot_ctx {
    const memplan_buffer *bufs;
    const size_t *slot_of;
} slot_ctx;

static int cmp_slot_start(const void *ctx, size_t a, size_t b) {
    const slot_ctx *c = ctx;
    if (c->slot_of[a] != c->slot_of[b]) return c->slot_of[a] < c->slot_of[b] ? -1 : 1;
    if (c->bufs[a].start != c->bufs[b].start) return c->bufs[a].start < c->bufs[b].start ? -1 : 1;
    return 0;
}

memplan_status memplan_validate_slots(const memplan_buffer *bufs, size_t n, const memplan_slot_plan *plan,
                                      memplan_violation *v, memplan_error *err) {
    no_violation(v);
    if (!plan || plan->count != n || (n > 0 && (!bufs || !plan->slot_of)) ||
        (plan->slot_count > 0 && !plan->slot_bytes))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "validate_slots: plan does not match %zu buffers", n);
    memplan_status st = check_lifetimes(bufs, n, v, err);
    if (st != MEMPLAN_OK) return st;

    for (size_t i = 0; i < n; i++) {
        size_t s = plan->slot_of[i];
        if (s == MEMPLAN_NO_SLOT) {
            memplan_error_set(err, MEMPLAN_EINPUT, "buffer %zu has no slot", i);
            return violation(v, MEMPLAN_VIOLATION_NO_SLOT, i, SIZE_MAX);
        }
        if (s >= plan->slot_count) {
            memplan_error_set(err, MEMPLAN_EINPUT, "buffer %zu: unknown slot %zu (plan has %zu)", i, s,
                              plan->slot_count);
            return violation(v, MEMPLAN_VIOLATION_UNKNOWN_SLOT, i, SIZE_MAX);
        }
        if (plan->slot_bytes[s] < bufs[i].size) {
            memplan_error_set(err, MEMPLAN_EINPUT, "buffer %zu: %llu bytes do not fit slot %zu of %llu", i,
                              (ull)bufs[i].size, s, (ull)plan->slot_bytes[s]);
            return violation(v, MEMPLAN_VIOLATION_SLOT_TOO_SMALL, i, SIZE_MAX);
        }
    }

    /* Within a slot sorted by start, some pair overlaps iff some adjacent
     * pair does (an earlier buffer reaching a later one reaches all between). */
    slot_ctx c = {bufs, plan->slot_of};
    size_t *idx = mp_iota(n);
    if (!idx || !mp_sort_idx(idx, n, cmp_slot_start, &c)) {
        free(idx);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "validate_slots: out of memory");
    }
    for (size_t k = 1; k < n; k++) {
        size_t a = idx[k - 1], b = idx[k];
        if (plan->slot_of[a] == plan->slot_of[b] && live_together(&bufs[a], &bufs[b])) {
            size_t lo = MP_MIN(a, b), hi = MP_MAX(a, b);
            free(idx);
            memplan_error_set(
                err, MEMPLAN_EINPUT, "buffers %zu [%lld, %lld) and %zu [%lld, %lld) are live together in slot %zu", lo,
                (ll)bufs[lo].start, (ll)bufs[lo].end, hi, (ll)bufs[hi].start, (ll)bufs[hi].end, plan->slot_of[a]);
            return violation(v, MEMPLAN_VIOLATION_SLOT_SHARED, lo, hi);
        }
    }
    free(idx);
    return MEMPLAN_OK;
}

/* ------------------------------------------------------------ arena plans */

/* Per-buffer checks: alignment and the arena's end. */
static memplan_status check_placements(const memplan_buffer *bufs, size_t n, const uint64_t *off, uint64_t align,
                                       uint64_t arena, memplan_violation *v, memplan_error *err) {
    for (size_t i = 0; i < n; i++) {
        if (off[i] & (align - 1)) {
            memplan_error_set(err, MEMPLAN_EINPUT, "buffer %zu: offset %llu is not a multiple of %llu", i, (ull)off[i],
                              (ull)align);
            return violation(v, MEMPLAN_VIOLATION_MISALIGNED, i, SIZE_MAX);
        }
        if (bufs[i].size > arena || off[i] > arena - bufs[i].size) {
            memplan_error_set(err, MEMPLAN_EINPUT, "buffer %zu: [%llu, +%llu) ends beyond the arena of %llu bytes", i,
                              (ull)off[i], (ull)bufs[i].size, (ull)arena);
            return violation(v, MEMPLAN_VIOLATION_BEYOND_ARENA, i, SIZE_MAX);
        }
    }
    return MEMPLAN_OK;
}

/* Do the address ranges of a and b (both inside the arena) intersect? */
static bool share_bytes(const memplan_buffer *bufs, const uint64_t *off, size_t a, size_t b) {
    return off[a] < off[b] + bufs[b].size && off[b] < off[a] + bufs[a].size;
}

memplan_status memplan_validate_arena(const memplan_buffer *bufs, size_t n, const uint64_t *offsets, uint64_t align,
                                      uint64_t arena_bytes, memplan_violation *v, memplan_error *err) {
    no_violation(v);
    if (!mp_align_ok(align))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "align %llu is not a power of two >= 1", (ull)align);
    if (n > 0 && (!bufs || !offsets)) return memplan_error_set(err, MEMPLAN_EUSAGE, "validate_arena: NULL arrays");
    if (n > SIZE_MAX / 2 / sizeof(size_t))
        return memplan_error_set(err, MEMPLAN_ELIMIT, "validate_arena: %zu buffers is too many", n);
    memplan_status st = check_lifetimes(bufs, n, v, err);
    if (st == MEMPLAN_OK) st = check_placements(bufs, n, offsets, align, arena_bytes, v, err);
    if (st != MEMPLAN_OK) return st;

    /* Sweep in time. The live non-empty ranges are pairwise disjoint (else
     * we would have stopped), so a new range meets one of them iff it meets
     * its neighbour below or above in address order. */
    size_t *ev = mp_events_by_time(bufs, n);
    mp_treap live;
    bool have_treap = mp_treap_init(&live, n, offsets);
    if (!ev || !have_treap) {
        free(ev);
        if (have_treap) mp_treap_free(&live);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "validate_arena: out of memory");
    }
    size_t bad_a = SIZE_MAX, bad_b = SIZE_MAX;
    for (size_t k = 0; k < 2 * n && bad_a == SIZE_MAX; k++) {
        size_t i = ev[k] % n;
        if (bufs[i].size == 0) continue;
        if (ev[k] >= n) {
            mp_treap_erase(&live, i);
            continue;
        }
        size_t p = mp_treap_prev(&live, offsets[i], i);
        size_t q = mp_treap_next(&live, offsets[i], i);
        if (p != MP_TREAP_NIL && share_bytes(bufs, offsets, p, i)) bad_a = p, bad_b = i;
        else if (q != MP_TREAP_NIL && share_bytes(bufs, offsets, q, i))
            bad_a = q, bad_b = i;
        else
            mp_treap_insert(&live, i);
    }
    free(ev);
    mp_treap_free(&live);
    if (bad_a == SIZE_MAX) return MEMPLAN_OK;
    size_t lo = MP_MIN(bad_a, bad_b), hi = MP_MAX(bad_a, bad_b);
    memplan_error_set(err, MEMPLAN_EINPUT,
                      "buffers %zu [%llu, +%llu) and %zu [%llu, +%llu) overlap in address while both live", lo,
                      (ull)offsets[lo], (ull)bufs[lo].size, hi, (ull)offsets[hi], (ull)bufs[hi].size);
    return violation(v, MEMPLAN_VIOLATION_ADDRESS_OVERLAP, lo, hi);
}
