/*
 * pack_search.c -- simulated annealing over the skyline's priority order.
 *
 * State: a permutation of the buffers (best ranked first), decoded by the
 * skyline. The decoder only ever compares the ranks of buffers competing
 * for the same valley, and those mostly start at the same time; so half of
 * the moves swap two buffers with the same start time, the other half swap
 * two buffers anywhere.
 *
 * Cost: the height alone is flat over huge plateaus (most swaps do not move
 * the tallest column), so the annealing minimizes
 *     height + waste / span
 * where waste is the area of the holes the decoder left (see pack_skyline.c)
 * and span the time axis length: both terms are in bytes, and a packing
 * without holes meets the lower bound. Worse moves are accepted with
 * probability exp(-delta / T); T falls geometrically from 0.1% to 0.001% of
 * the lower bound as the work budget is spent. The lowest height seen is
 * kept (ties: lower cost).
 *
 * Budget and determinism: budget_ms buys WORK_PER_MS decoder steps per
 * millisecond (steps as counted by the decoders: tree nodes visited, heap
 * moves). The run stops when that work is spent, the lower bound is met, or
 * -- a safety cap for pathological slowness -- the wall clock passes
 * SAFETY_FACTOR x budget_ms + 100 ms. The work count is calibrated so that on
 * a 2020s x86 core the work runs out at about half of the budget; the wide
 * cap keeps WebAssembly (~1.5-2x slower) and sanitizer builds (~3-5x) on the
 * work count too, so the result depends only on the input, the budget and the
 * seed, and native and WASM print the same plan.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan/pack_internal.h"

#define WORK_PER_MS 25000u
#define SAFETY_FACTOR 8.0

static double now_ms(void) {
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0.0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct annealer {
    const mp_pack_input *in;
    size_t *perm;      /* buffers, best ranked first */
    size_t *rank;      /* inverse of perm */
    size_t *group_lo;  /* per buffer: start-order positions of the buffers */
    size_t *group_hi;  /*   with the same start, [lo, hi) */
    uint64_t rng;
    double span;
} annealer;

static void swap_buffers(annealer *a, size_t x, size_t y) {
    size_t rx = a->rank[x], ry = a->rank[y];
    a->perm[rx] = y;
    a->perm[ry] = x;
    a->rank[x] = ry;
    a->rank[y] = rx;
}

/* Two distinct buffers to swap. */
static void pick_move(annealer *a, size_t *x, size_t *y) {
    size_t n = a->in->n;
    *x = mp_rand_below(&a->rng, n);
    size_t lo = a->group_lo[*x], hi = a->group_hi[*x];
    if (hi - lo > 1 && (mp_rand_next(&a->rng) & 1)) {
        *y = a->in->by_start[lo + mp_rand_below(&a->rng, hi - lo - 1)];
        if (*y == *x) *y = a->in->by_start[hi - 1];
    } else {
        *y = (*x + 1 + mp_rand_below(&a->rng, n - 1)) % n;
    }
}

static double cost(const annealer *a, uint64_t height, double waste) {
    return (double)height + waste / a->span;
}

static bool annealer_init(annealer *a, const mp_pack_input *in, const size_t *order, uint64_t seed) {
    size_t n = in->n;
    a->in = in;
    a->rng = seed;
    a->perm = malloc(n * sizeof *a->perm);
    a->rank = malloc(n * sizeof *a->rank);
    a->group_lo = malloc(n * sizeof *a->group_lo);
    a->group_hi = malloc(n * sizeof *a->group_hi);
    if (!a->perm || !a->rank || !a->group_lo || !a->group_hi) return false;
    memcpy(a->perm, order, n * sizeof *a->perm);
    for (size_t k = 0; k < n; k++) a->rank[a->perm[k]] = k;
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        int64_t t = in->bufs[in->by_start[lo]].start;
        for (hi = lo; hi < n && in->bufs[in->by_start[hi]].start == t; hi++) {}
        for (size_t p = lo; p < hi; p++) {
            a->group_lo[in->by_start[p]] = lo;
            a->group_hi[in->by_start[p]] = hi;
        }
    }
    int64_t t0 = in->bufs[in->by_start[0]].start, t1 = t0;
    for (size_t i = 0; i < n; i++) t1 = MP_MAX(t1, in->bufs[i].end);
    a->span = (double)(t1 - t0);
    return true;
}

static void annealer_free(annealer *a) {
    free(a->perm);
    free(a->rank);
    free(a->group_lo);
    free(a->group_hi);
}

bool mp_search(const mp_pack_input *in, mp_skyline *sky, const size_t *order,
               uint32_t budget_ms, uint64_t seed, uint64_t bound, uint64_t *off,
               mp_search_result *res) {
    size_t n = in->n;
    res->height = UINT64_MAX;
    res->iterations = 0;
    if (n < 2 || budget_ms == 0) return true;
    annealer a = {0};
    uint64_t *cur_off = malloc(n * sizeof *cur_off);
    uint64_t *best_off = malloc(n * sizeof *best_off);
    if (!cur_off || !best_off || !annealer_init(&a, in, order, seed)) {
        free(cur_off), free(best_off), annealer_free(&a);
        return false;
    }

    uint64_t work = 0, quota = (uint64_t)budget_ms * WORK_PER_MS;
    double deadline = now_ms() + SAFETY_FACTOR * (double)budget_ms + 100.0;
    double waste;
    uint64_t best = mp_skyline_decode(sky, a.rank, best_off, &work, &waste);
    double cur = cost(&a, best, waste), best_cost = cur;
    double t_hi = 0.001 * (double)in->lower_bound + 1.0;
    double t_lo = 0.00001 * (double)in->lower_bound + 1.0;

    while (best > in->lower_bound && work < quota && now_ms() < deadline) {
        double temp = t_hi * pow(t_lo / t_hi, (double)work / (double)quota);
        size_t x, y;
        pick_move(&a, &x, &y);
        swap_buffers(&a, x, y);
        uint64_t h = mp_skyline_decode(sky, a.rank, cur_off, &work, &waste);
        double c = cost(&a, h, waste);
        res->iterations++;
        double u = (double)(mp_rand_next(&a.rng) >> 11) * 0x1.0p-53;
        if (c <= cur || u < exp((cur - c) / temp)) {
            cur = c;
            if (h < best || (h == best && c < best_cost)) {
                best = h;
                best_cost = c;
                memcpy(best_off, cur_off, n * sizeof *best_off);
            }
        } else {
            swap_buffers(&a, x, y); /* undo */
        }
    }
    if (best < bound) {
        memcpy(off, best_off, n * sizeof *off);
        res->height = best;
    }
    free(cur_off), free(best_off), annealer_free(&a);
    return true;
}
