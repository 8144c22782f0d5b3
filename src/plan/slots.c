/*
 * slots.c -- the slot planner (docs/semantics.md, "Slot plan") on intervals.
 *
 * Buffers are walked by start time. Before a buffer starting at t is placed,
 * every holder whose lifetime ended at or before t hands its slot back to the
 * retired set. The buffer then takes
 *   best fit: the retired slot of smallest capacity >= its size, or
 *   exact:    a retired slot of capacity == its size,
 * lowest slot id on ties, or else opens a new slot of exactly its size.
 * Slots never grow.
 *
 * Retired slots live in a treap ordered by (capacity, id), so "smallest that
 * fits" is one ceiling query; holders live in a min-heap on end time. Both
 * cost O(log n) per buffer: O(n log n) overall.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/plan_internal.h"
#include "plan/treap.h"

/* Min-heap of (end time, slot) of the current slot holders. */
typedef struct holder {
    int64_t end;
    size_t slot;
} holder;

typedef struct holder_heap {
    holder *h;
    size_t len;
} holder_heap;

static bool holder_before(holder a, holder b) { return a.end < b.end || (a.end == b.end && a.slot < b.slot); }

static void heap_push(holder_heap *hp, holder x) {
    size_t i = hp->len++;
    while (i > 0 && holder_before(x, hp->h[(i - 1) / 2])) {
        hp->h[i] = hp->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    hp->h[i] = x;
}

static holder heap_pop(holder_heap *hp) {
    holder top = hp->h[0];
    holder last = hp->h[--hp->len];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= hp->len) break;
        if (c + 1 < hp->len && holder_before(hp->h[c + 1], hp->h[c])) c++;
        if (!holder_before(hp->h[c], last)) break;
        hp->h[i] = hp->h[c];
        i = c;
    }
    if (hp->len > 0) hp->h[i] = last;
    return top;
}

/* The retired slot the strategy picks for `size`, or MP_TREAP_NIL. */
static size_t pick_slot(const mp_treap *retired, const uint64_t *slot_bytes, uint64_t size,
                        memplan_slot_strategy strategy) {
    size_t s = mp_treap_ceil(retired, size);
    if (strategy == MEMPLAN_SLOT_EXACT && s != MP_TREAP_NIL && slot_bytes[s] != size) return MP_TREAP_NIL;
    return s;
}

/* Sum of sizes; false when it overflows 64 bits (*bad = index at fault). */
static bool naive_sum(const memplan_buffer *bufs, size_t n, uint64_t *sum, size_t *bad) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        if (bufs[i].size > UINT64_MAX - s) {
            *bad = i;
            return false;
        }
        s += bufs[i].size;
    }
    *sum = s;
    return true;
}

memplan_status memplan_plan_slots(const memplan_buffer *bufs, size_t n, memplan_slot_strategy strategy,
                                  memplan_slot_plan *out, memplan_error *err) {
    if (!out) return memplan_error_set(err, MEMPLAN_EUSAGE, "plan_slots: NULL result");
    memset(out, 0, sizeof *out);
    if (strategy != MEMPLAN_SLOT_BEST_FIT && strategy != MEMPLAN_SLOT_EXACT)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "plan_slots: unknown strategy %d", (int)strategy);
    memplan_status st = mp_plan_check_buffers(bufs, n, err);
    if (st != MEMPLAN_OK) return st;
    size_t bad = 0;
    if (!naive_sum(bufs, n, &out->naive_bytes, &bad))
        return memplan_error_set(err, MEMPLAN_ELIMIT, "buffer %zu: size %llu makes the total overflow 64 bits", bad,
                                 (unsigned long long)bufs[bad].size);

    size_t cap = n ? n : 1;
    size_t *order = mp_order_by_start(bufs, n);
    holder_heap heap = {malloc(cap * sizeof(holder)), 0};
    out->count = n;
    out->slot_of = malloc(cap * sizeof *out->slot_of);
    out->slot_bytes = malloc(cap * sizeof *out->slot_bytes);
    mp_treap retired;
    bool have_treap = mp_treap_init(&retired, cap, out->slot_bytes);
    if (!order || !heap.h || !out->slot_of || !out->slot_bytes || !have_treap) {
        st = memplan_error_set(err, MEMPLAN_ENOMEM, "plan_slots: out of memory for %zu buffers", n);
        goto done;
    }

    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        while (heap.len > 0 && heap.h[0].end <= bufs[i].start) mp_treap_insert(&retired, heap_pop(&heap).slot);
        size_t s = pick_slot(&retired, out->slot_bytes, bufs[i].size, strategy);
        if (s != MP_TREAP_NIL) {
            mp_treap_erase(&retired, s);
        } else {
            s = out->slot_count++;
            out->slot_bytes[s] = bufs[i].size;
        }
        out->slot_of[i] = s;
        heap_push(&heap, (holder){bufs[i].end, s});
    }
    for (size_t s = 0; s < out->slot_count; s++) out->peak_bytes += out->slot_bytes[s];
    out->savings_ratio = out->naive_bytes == 0 ? 0.0 : 1.0 - (double)out->peak_bytes / (double)out->naive_bytes;

done:
    free(order);
    free(heap.h);
    if (have_treap) mp_treap_free(&retired);
    if (st != MEMPLAN_OK) memplan_slot_plan_free(out);
    return st;
}

void memplan_slot_plan_free(memplan_slot_plan *plan) {
    if (!plan) return;
    free(plan->slot_of);
    free(plan->slot_bytes);
    memset(plan, 0, sizeof *plan);
}
