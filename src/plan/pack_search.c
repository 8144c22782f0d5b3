/*
 * pack_search.c -- simulated annealing over the skyline's priority order.
 *
 * State: a permutation of the buffers (best ranked first), decoded by the
 * skyline. Moves swap the ranks of two buffers:
 *   - a rival swap (3/4 of the moves): take a step of the current decode,
 *     its winner and another buffer that could have won that valley, and
 *     swap them -- the decode then surely changes at that step;
 *   - else two buffers with the same start time, or (a buffer alone at its
 *     start time) two buffers anywhere.
 *
 * Cost: the height alone is flat over huge plateaus (most swaps do not move
 * the tallest column), so the annealing minimizes
 *     height + waste / span
 * where waste is the area of the holes the decoder left (see pack_skyline.c)
 * and span the time axis length: both terms are in bytes, and a packing
 * without holes meets the lower bound. A move of cost increase d is accepted
 * when d <= T * E, E an exponential variate drawn before the decode (the
 * Metropolis rule); T falls geometrically from 0.1% to 0.001% of the lower
 * bound as the work budget is spent, restarting from the best order found
 * whenever a stretch of the budget brings no improvement. The lowest height
 * seen is kept (ties: lower cost).
 *
 * Speed: both cost terms only grow during a decode, so a trial stops as soon
 * as a lower bound on its cost passes cur + T * E -- the height bound being
 * max over time of skyline + the load still unplaced, which every raised
 * valley lifts (see pack_skyline.c); and a trial starts from the decoder
 * checkpoint before the first step the swap can change
 * (mp_skyline_first_change), not from scratch.
 *
 * Budget and determinism: budget_ms buys WORK_PER_MS decoder steps per
 * millisecond (steps as counted by the decoder: tree nodes visited, heap
 * moves, checkpoint segments copied). The run stops when that work is spent,
 * the lower bound is met, or -- a safety cap for pathological slowness --
 * the wall clock passes SAFETY_FACTOR x budget_ms + 100 ms. The work count is
 * calibrated so that on a 2020s x86 core the work runs out at about 80% of
 * the budget; the wide cap keeps WebAssembly (~1.5-2x slower) and sanitizer
 * builds (~3-5x) on the work count too. No libm function is used on the way
 * (exp and log below use + - * / only, which IEEE 754 rounds the same
 * everywhere), so the result depends only on the input, the budget and the
 * seed, and native and WASM print the same plan.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan/pack_internal.h"

/* Milliseconds on a clock that never steps back or jumps (a stepped wall
 * clock would end a search early); C11's UTC clock where POSIX's monotonic
 * one is missing. */
double mp_now_ms(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
#else
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0.0;
#endif
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* exp(x) for -50 <= x <= 0 with + - * / only: exp(x / 64) by Taylor, then
 * squared six times. Relative error ~1e-13; identical on every IEEE target. */
static double det_exp(double x) {
    if (x < -50.0) return 0.0;
    double y = x / 64.0, term = 1.0, sum = 1.0;
    for (int k = 1; k <= 8; k++) {
        term = term * y / (double)k;
        sum += term;
    }
    for (int k = 0; k < 6; k++) sum *= sum;
    return sum;
}

/* -log(u) for u in (0, 1]: u = m * 2^-e with m in [0.5, 1), then the atanh
 * series of log(m). */
static double det_neglog(double u) {
    int e = 0;
    while (u < 0.5) {
        u *= 2.0;
        e++;
    }
    double z = (u - 1.0) / (u + 1.0), z2 = z * z, p = z, sum = 0.0;
    for (int k = 1; k <= 25; k += 2) {
        sum += p / (double)k;
        p *= z2;
    }
    return (double)e * 0.69314718055994530942 - 2.0 * sum;
}

typedef struct annealer {
    const mp_pack_input *in;
    mp_skyline *sky;
    size_t *perm;     /* buffers, best ranked first */
    size_t *rank;     /* inverse of perm */
    size_t *group_lo; /* per buffer: start-order positions of the buffers */
    size_t *group_hi; /*   with the same start, [lo, hi) */
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

/* First position in start order whose buffer starts at or after t. */
static size_t first_start_at(const mp_pack_input *in, int64_t t) {
    size_t lo = 0, hi = in->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (in->bufs[in->by_start[mid]].start < t) lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A rival of the winner of a random step: unplaced then, inside the valley,
 * and starting at its left edge when the winner does. Scans at most 24
 * buffers from a random start. false when none was found. */
static bool pick_rival(annealer *a, size_t *x, size_t *y) {
    const mp_pack_input *in = a->in;
    const mp_sky_trace *t = mp_skyline_current(a->sky);
    size_t j = mp_rand_below(&a->rng, in->n);
    size_t w = t->seq[j];
    int64_t ts = t->vts[j], te = t->vte[j];
    bool edge = in->bufs[w].start == ts;
    size_t lo = first_start_at(in, ts), hi = first_start_at(in, edge ? ts + 1 : te);
    if (hi - lo < 2) return false;
    size_t len = hi - lo, k0 = mp_rand_below(&a->rng, len);
    for (size_t k = 0; k < len && k < 24; k++) {
        size_t c = in->by_start[lo + (k0 + k) % len];
        if (c != w && t->step_of[c] > j && in->bufs[c].end <= te) {
            *x = w;
            *y = c;
            return true;
        }
    }
    return false;
}

/* Two distinct buffers to swap. */
static void pick_move(annealer *a, size_t *x, size_t *y) {
    size_t n = a->in->n;
    uint64_t r = mp_rand_next(&a->rng) & 3;
    if (r < 3 && pick_rival(a, x, y)) return;
    *x = mp_rand_below(&a->rng, n);
    size_t lo = a->group_lo[*x], hi = a->group_hi[*x];
    if (hi - lo > 1) {
        *y = a->in->by_start[lo + mp_rand_below(&a->rng, hi - lo - 1)];
        if (*y == *x) *y = a->in->by_start[hi - 1];
    } else {
        *y = (*x + 1 + mp_rand_below(&a->rng, n - 1)) % n;
    }
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

bool mp_search(const mp_pack_input *in, mp_skyline *sky, const size_t *order, uint64_t quota, double deadline,
               uint64_t seed, uint64_t bound, uint64_t *off, mp_search_result *res) {
    size_t n = in->n;
    res->height = UINT64_MAX;
    res->iterations = 0;
    res->work = 0;
    if (n < 2 || quota == 0) return true;
    annealer a = {0};
    a.sky = sky;
    uint64_t *best_off = malloc(n * sizeof *best_off);
    size_t *best_perm = malloc(n * sizeof *best_perm);
    bool ok = best_off && best_perm && annealer_init(&a, in, order, seed) && mp_skyline_trace_init(sky);
    uint64_t work = 0;
    uint64_t best = UINT64_MAX, h;
    double waste, cur = 0.0, best_cost = 0.0;
    if (ok) ok = mp_skyline_trace_full(sky, a.rank, a.span, &work, &best, &waste);
    if (ok) {
        cur = best_cost = mp_sky_cost(best, waste, a.span);
        memcpy(best_off, mp_skyline_current(sky)->off, n * sizeof *best_off);
        memcpy(best_perm, a.perm, n * sizeof *best_perm);
    }
    const double t_hi = 0.001 * (double)in->lower_bound + 1.0;
    const double log_ratio = -4.605170185988091; /* log(1/100): T ends at t_hi / 100 */
    /* Restart from the best order after a stretch without improvement. */
    uint64_t stretch = quota / 3 + 1, last_gain = 0, phase0 = 0;

    while (ok && best > in->lower_bound && work < quota && mp_now_ms() < deadline) {
        double frac = (double)(work - phase0) / (double)(quota - phase0);
        double temp = t_hi * det_exp(frac * log_ratio);
        size_t x, y;
        pick_move(&a, &x, &y);
        swap_buffers(&a, x, y);
        size_t step = mp_skyline_first_change(sky, a.rank, x, y);
        double u = (double)((mp_rand_next(&a.rng) >> 11) + 1) * 0x1.0p-53;
        double limit = cur + temp * det_neglog(u);
        res->iterations++;
        bool tried = mp_skyline_try(sky, a.rank, x, y, step, limit, a.span, &work, &h, &waste);
        if (mp_skyline_oom(sky)) ok = false;
        if (tried) {
            double c = mp_sky_cost(h, waste, a.span);
            mp_skyline_accept(sky, h, waste);
            cur = c;
            if (h < best || (h == best && c < best_cost)) {
                if (h < best) last_gain = work;
                best = h;
                best_cost = c;
                memcpy(best_off, mp_skyline_current(sky)->off, n * sizeof *best_off);
                memcpy(best_perm, a.perm, n * sizeof *best_perm);
            }
        } else {
            swap_buffers(&a, x, y); /* undo */
        }
        if (work < quota && work - last_gain > stretch && quota - work > stretch) {
            /* Reheat from the best order. */
            memcpy(a.perm, best_perm, n * sizeof *a.perm);
            for (size_t k = 0; k < n; k++) a.rank[a.perm[k]] = k;
            if (ok) ok = mp_skyline_trace_full(sky, a.rank, a.span, &work, &h, &waste);
            cur = mp_sky_cost(h, waste, a.span);
            last_gain = phase0 = work;
        }
    }
    res->work = work;
    if (ok && best < bound) {
        memcpy(off, best_off, n * sizeof *off);
        res->height = best;
    }
    free(best_off), free(best_perm), annealer_free(&a);
    return ok;
}
