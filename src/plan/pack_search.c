/*
 * pack_search.c -- simulated annealing over the skyline's priority order.
 *
 * State: a permutation of the buffers (best ranked first). A move swaps two
 * entries -- half of the time neighbours within a small window, otherwise
 * anywhere -- and the skyline decoder turns the new order into a height.
 * Better or equal heights are always accepted, worse ones with probability
 * exp(-delta / T); T falls geometrically from 1% to 0.01% of the lower bound
 * as the work budget is spent. The best packing seen is kept.
 *
 * Budget and determinism: budget_ms buys WORK_PER_MS decoder steps per
 * millisecond (steps as counted by the decoder: tree nodes visited, heap
 * moves). The run stops when that work is spent, the lower bound is met, or
 * (as a safety cap on slow machines) the wall clock passes budget_ms. The
 * work count is calibrated so that on a 2020s x86 core the work runs out
 * first, at around 60-70% of the wall budget: the result then depends only
 * on the input, the budget and the seed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan/pack_internal.h"

#define WORK_PER_MS 60000u
#define SWAP_WINDOW 8u

static double now_ms(void) {
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0.0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Swap the buffers at permutation positions a and b, keeping rank inverse. */
static void swap_pos(size_t *perm, size_t *rank, size_t a, size_t b) {
    size_t t = perm[a];
    perm[a] = perm[b];
    perm[b] = t;
    rank[perm[a]] = a;
    rank[perm[b]] = b;
}

/* Two distinct positions: near each other half of the time. */
static void pick_move(uint64_t *rng, size_t n, size_t *a, size_t *b) {
    *a = mp_rand_below(rng, n);
    if (mp_rand_next(rng) & 1) {
        size_t d = 1 + mp_rand_below(rng, MP_MIN((size_t)SWAP_WINDOW, n - 1));
        *b = (*a + d) % n;
    } else {
        *b = (*a + 1 + mp_rand_below(rng, n - 1)) % n;
    }
}

bool mp_search(const mp_pack_input *in, mp_skyline *sky, const size_t *order,
               uint32_t budget_ms, uint64_t seed, uint64_t bound, uint64_t *off,
               mp_search_result *res) {
    size_t n = in->n;
    res->height = UINT64_MAX;
    res->iterations = 0;
    if (n < 2 || budget_ms == 0) return true;
    size_t *perm = malloc(n * sizeof *perm);
    size_t *rank = malloc(n * sizeof *rank);
    uint64_t *cur_off = malloc(n * sizeof *cur_off);
    uint64_t *best_off = malloc(n * sizeof *best_off);
    if (!perm || !rank || !cur_off || !best_off) {
        free(perm), free(rank), free(cur_off), free(best_off);
        return false;
    }
    memcpy(perm, order, n * sizeof *perm);
    for (size_t k = 0; k < n; k++) rank[perm[k]] = k;

    uint64_t work = 0, quota = (uint64_t)budget_ms * WORK_PER_MS;
    double deadline = now_ms() + budget_ms;
    uint64_t cur = mp_skyline_decode(sky, rank, cur_off, &work);
    uint64_t best = cur;
    memcpy(best_off, cur_off, n * sizeof *best_off);
    double t_hi = 0.01 * (double)in->lower_bound + 1.0;
    double t_lo = 0.0001 * (double)in->lower_bound + 1.0;
    uint64_t rng = seed;

    while (best > in->lower_bound && work < quota && now_ms() < deadline) {
        double temp = t_hi * pow(t_lo / t_hi, (double)work / (double)quota);
        size_t a, b;
        pick_move(&rng, n, &a, &b);
        swap_pos(perm, rank, a, b);
        uint64_t h = mp_skyline_decode(sky, rank, cur_off, &work);
        res->iterations++;
        double u = (double)(mp_rand_next(&rng) >> 11) * 0x1.0p-53;
        if (h <= cur || u < exp(-(double)(h - cur) / temp)) {
            cur = h;
            if (h < best) {
                best = h;
                memcpy(best_off, cur_off, n * sizeof *best_off);
            }
        } else {
            swap_pos(perm, rank, a, b); /* undo */
        }
    }
    if (best < bound) {
        memcpy(off, best_off, n * sizeof *off);
        res->height = best;
    }
    free(perm), free(rank), free(cur_off), free(best_off);
    return true;
}
