/* test_plan_firstfit.c -- first fit and best fit through the interval index
 * (pack_firstfit.c) against plain quadratic versions of the same rules,
 * offset for offset, on thousands of random instances (best fit also
 * against pack_greedy.c's decoder; first fit also around pinned buffers),
 * greedy-size above 4,096 buffers, and the squeaky-wheel rounds that are
 * the search there (pack_squeaky.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "plan/pack_internal.h"

static uint64_t rng_state = 777;

static uint64_t below(uint64_t n) { return mp_rand_next(&rng_state) % n; }

/* The placed buffers of non-zero size live with i, into live[]: their
 * count. O(n). */
static size_t placed_live(const memplan_buffer *b, const uint64_t *size, size_t n, const bool *placed, size_t i,
                          size_t *live) {
    size_t nl = 0;
    for (size_t j = 0; j < n; j++)
        if (placed[j] && size[j] > 0 && b[j].start < b[i].end && b[i].start < b[j].end) live[nl++] = j;
    return nl;
}

/* The first-fit reference: each buffer in order at the lowest offset, 0 or
 * the top of a placed buffer live with it, that overlaps no placed buffer
 * live with it (the lowest feasible offset is always one of those). */
static uint64_t first_fit_offset(const uint64_t *size, const uint64_t *off, const size_t *live, size_t nl, size_t i) {
    uint64_t best = UINT64_MAX;
    for (size_t c = 0; c <= nl; c++) { /* candidate c < nl: top of live[c]; c == nl: 0 */
        uint64_t y = c < nl ? off[live[c]] + size[live[c]] : 0;
        bool clear = y < best;
        for (size_t m = 0; m < nl && clear; m++)
            if (off[live[m]] < y + size[i] && y < off[live[m]] + size[live[m]]) clear = false;
        if (clear) best = y;
    }
    return best;
}

static const uint64_t *offset_ctx;
static int cmp_offset_q(const void *pa, const void *pb) {
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    if (offset_ctx[x] != offset_ctx[y]) return offset_ctx[x] < offset_ctx[y] ? -1 : 1;
    return x < y ? -1 : (x > y);
}

/* The best-fit reference, the rule as TFLite GPU's greedy by size states
 * it: the live placed buffers in address order, the
 * running highest end swept over them; each gap from it to the next
 * buffer's offset that holds the buffer is a candidate, the smallest wins
 * (the first of equal ones), none: the highest end. */
static uint64_t best_fit_offset(const uint64_t *size, const uint64_t *off, size_t *live, size_t nl, size_t i) {
    offset_ctx = off;
    qsort(live, nl, sizeof *live, cmp_offset_q);
    uint64_t end = 0, gap = UINT64_MAX, at = 0;
    for (size_t c = 0; c < nl; c++) {
        uint64_t o = off[live[c]];
        if (o >= end && o - end >= size[i] && o - end < gap) {
            gap = o - end;
            at = end;
        }
        end = MP_MAX(end, o + size[live[c]]);
    }
    return gap != UINT64_MAX ? at : end;
}

/* Each buffer of `order` at its first (or best) fit, zero sizes at 0 and
 * in nobody's way. O(n^2) per buffer. */
static uint64_t plain_fit(const memplan_buffer *b, const uint64_t *size, size_t n, const size_t *order, bool best,
                          uint64_t *off) {
    bool *placed = calloc(n, sizeof *placed);
    size_t *live = malloc(n * sizeof *live); /* placed buffers live with i */
    assert_true(placed && live);
    uint64_t height = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k], nl = placed_live(b, size, n, placed, i, live);
        off[i] = size[i] == 0 ? 0
                 : best       ? best_fit_offset(size, off, live, nl, i)
                              : first_fit_offset(size, off, live, nl, i);
        placed[i] = true;
        height = MP_MAX(height, off[i] + size[i]);
    }
    free(placed);
    free(live);
    return height;
}

static uint64_t plain_first_fit(const memplan_buffer *b, const uint64_t *size, size_t n, const size_t *order,
                                uint64_t *off) {
    return plain_fit(b, size, n, order, false, off);
}

/* First fit around obstacles: order[0..pinned) stay at off[], the rest each
 * at its plain first fit. O(n^2) per buffer. */
static uint64_t plain_first_fit_around(const memplan_buffer *b, const uint64_t *size, size_t n, const size_t *order,
                                       size_t pinned, uint64_t *off) {
    bool *placed = calloc(n, sizeof *placed);
    size_t *live = malloc(n * sizeof *live);
    assert_true(placed && live);
    uint64_t height = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        if (size[i] == 0) off[i] = 0;
        else if (k >= pinned)
            off[i] = first_fit_offset(size, off, live, placed_live(b, size, n, placed, i, live), i);
        placed[i] = true;
        height = MP_MAX(height, off[i] + size[i]);
    }
    free(placed);
    free(live);
    return height;
}

/* Check mp_first_fit and mp_best_fit against the references on b[0..n) in
 * a random order; best fit, when no size is 0, against mp_greedy_decode
 * too (which places zero sizes in a gap of its own). Every plan validates. */
static void check_instance(const memplan_buffer *b, size_t n) {
    uint64_t *size = malloc(n * sizeof *size), *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    size_t *order = malloc(n * sizeof *order);
    assert_true(size && want && got && order);
    bool zero = false;
    for (size_t i = 0; i < n; i++) {
        size[i] = b[i].size;
        zero |= size[i] == 0;
        order[i] = i;
    }
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)below(i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    mp_pack_input in = {b, n, size, mp_order_by_start(b, n), 0};
    assert_non_null(in.by_start);
    uint64_t got_h = 0; /* after the loop: best fit's, in got[] */
    for (int best = 0; best < 2; best++) {
        uint64_t want_h = plain_fit(b, size, n, order, best, want), work = 0;
        mp_times t; /* first fit on shared time ranks, as pack.c calls it (the hand cases: its own) */
        assert_true(mp_times_init(&t, b, n));
        assert_true(best ? mp_best_fit(&in, order, got, &got_h, &work)
                         : mp_first_fit(&in, &t, order, got, &got_h, &work));
        mp_times_free(&t);
        assert_int_equal(got_h, want_h);
        for (size_t i = 0; i < n; i++) assert_int_equal(got[i], want[i]);
        assert_int_equal(memplan_validate_arena(b, n, got, 1, got_h, NULL, NULL), MEMPLAN_OK);
    }
    if (!zero) {
        mp_greedy *g = mp_greedy_new(&in, true);
        uint64_t work = 0;
        assert_non_null(g);
        assert_int_equal(mp_greedy_decode(g, order, want, &work), got_h);
        for (size_t i = 0; i < n; i++) assert_int_equal(got[i], want[i]);
        mp_greedy_free(g);
    }
    /* Around obstacles: a random third of the first fit's plan kept where
     * it is, the rest placed again in a new order around it. */
    {
        uint64_t *plan = malloc(n * sizeof *plan), h = 0, want_h, work = 0;
        assert_non_null(plan);
        mp_times t;
        assert_true(mp_times_init(&t, b, n));
        assert_true(mp_first_fit(&in, &t, order, plan, &h, &work));
        size_t pinned = n / 3;
        for (size_t i = n; i > pinned + 1; i--) { /* shuffle the rest */
            size_t j = pinned + (size_t)below(i - pinned), x = order[i - 1];
            order[i - 1] = order[j];
            order[j] = x;
        }
        memcpy(want, plan, n * sizeof *want);
        memcpy(got, plan, n * sizeof *got);
        want_h = plain_first_fit_around(b, size, n, order, pinned, want);
        assert_true(mp_first_fit_around(&in, &t, order, pinned, got, &h, &work));
        mp_times_free(&t);
        assert_int_equal(h, want_h);
        for (size_t i = 0; i < n; i++) assert_int_equal(got[i], want[i]);
        for (size_t k = 0; k < pinned; k++)
            if (size[order[k]]) assert_int_equal(got[order[k]], plan[order[k]]);
        assert_int_equal(memplan_validate_arena(b, n, got, 1, h, NULL, NULL), MEMPLAN_OK);
        free(plan);
    }
    free((void *)in.by_start);
    free(size), free(want), free(got), free(order);
}

/* Random instances over short and long time axes (one leaf block to many,
 * lifetimes inside one block, across edges and spanning many blocks), with
 * zero sizes, ties of every kind and sizes of few distinct values. */
static void test_matches_plain_fits(void **state) {
    (void)state;
    memplan_buffer b[400];
    for (int round = 0; round < 3000; round++) {
        size_t n = 1 + (size_t)below(round < 2500 ? 40 : 400);
        uint64_t span = 1 + below(round % 3 == 0 ? 8 : round % 3 == 1 ? 100 : 2000);
        uint64_t longest = 1 + below(span + 1);
        for (size_t i = 0; i < n; i++) {
            int64_t s = (int64_t)below(span);
            uint64_t size = below(10) == 0 ? 0 : round % 2 ? 1 + below(4) : 1 + below(1000);
            b[i] = (memplan_buffer){size, s, s + 1 + (int64_t)below(longest)};
        }
        check_instance(b, n);
    }
}

/* Larger instances, 50 to 2,000 buffers, sizes in 64-byte units as in
 * bench_pack --random, lifetimes up to a tenth of the time axis. */
static void test_best_fit_larger(void **state) {
    (void)state;
    memplan_buffer *b = malloc(2000 * sizeof *b);
    assert_non_null(b);
    for (int round = 0; round < 12; round++) {
        size_t n = 50 + (size_t)below(1951);
        uint64_t span = n / 2 + 1;
        for (size_t i = 0; i < n; i++) {
            int64_t s = (int64_t)below(span);
            b[i] = (memplan_buffer){64 * (1 + below(round % 2 ? 16 : 16384)), s, s + 1 + (int64_t)below(span / 10 + 1)};
        }
        check_instance(b, n);
    }
    free(b);
}

/* Best fit against first fit by hand (a [0,5) 3 bytes, b [0,10) 1,
 * f [0,5) 1, c [0,10) 2 stack up at 0, 3, 4, 5): e [5,10) 1 byte meets b
 * [3,4) and c [5,7), so its gaps are [0,3) and [4,5); best fit takes the
 * exact [4,5), first fit 0. Then g [5,10) 3 bytes: with e at 4 the gap
 * [0,3) holds it (height 7); with e at 0 no gap does, so on top at 7
 * (height 10). */
static void test_best_fit_hand_case(void **state) {
    (void)state;
    const memplan_buffer b[] = {{3, 0, 5}, {1, 0, 10}, {1, 0, 5}, {2, 0, 10}, {1, 5, 10}, {3, 5, 10}};
    const uint64_t size[] = {3, 1, 1, 2, 1, 3};
    const size_t order[] = {0, 1, 2, 3, 4, 5};
    const uint64_t best_off[] = {0, 3, 4, 5, 4, 0}, first_off[] = {0, 3, 4, 5, 0, 7};
    uint64_t off[6], h = 0, work = 0;
    mp_pack_input in = {b, 6, size, NULL, 0};
    assert_true(mp_best_fit(&in, order, off, &h, &work));
    assert_int_equal(h, 7);
    for (size_t i = 0; i < 6; i++) assert_int_equal(off[i], best_off[i]);
    assert_true(mp_first_fit(&in, NULL, order, off, &h, &work));
    assert_int_equal(h, 10);
    for (size_t i = 0; i < 6; i++) assert_int_equal(off[i], first_off[i]);
}

/* A hand-checked case: A [0,10) 4 bytes, D [2,8) 2, B [0,5) 2, C [5,10) 2
 * in that order: A at 0, D on A at 4, B beside D's start: on A at 4 is
 * taken by D (live together at 2..5), so 6; C the same at 6. */
static void test_hand_case(void **state) {
    (void)state;
    const memplan_buffer b[] = {{4, 0, 10}, {2, 0, 5}, {2, 5, 10}, {2, 2, 8}};
    const uint64_t size[] = {4, 2, 2, 2};
    const size_t order[] = {0, 3, 1, 2};
    uint64_t off[4], h = 0, work = 0;
    mp_pack_input in = {b, 4, size, NULL, 0};
    assert_true(mp_first_fit(&in, NULL, order, off, &h, &work));
    assert_int_equal(off[0], 0);
    assert_int_equal(off[3], 4);
    assert_int_equal(off[1], 6);
    assert_int_equal(off[2], 6);
    assert_int_equal(h, 8);
}

/* Above 4,096 buffers greedy-size is first fit on the pressure orders
 * (pack.c): key = size x r^p, r = the highest load along the buffer's
 * lifetime / the peak load, for p = 8 and 4, in bands descending (a band:
 * the key's binary exponent and its two leading mantissa bits, here from
 * frexp: key = m 2^e, m in [0.5, 1), band (e, floor(8 m))), within a band
 * the earlier start first, then size descending, longer lifetime, index;
 * the lower of the two (p = 8 on a tie). The reference computes the loads
 * by brute force over the integer times. */
static const memplan_buffer *sort_ctx;
static const double *sort_key;
static int cmp_greedy_q(const void *pa, const void *pb) {
    const memplan_buffer *b = sort_ctx;
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    int ex = 0, ey = 0;
    double mx = frexp(sort_key[x], &ex), my = frexp(sort_key[y], &ey);
    if (sort_key[x] == 0 || sort_key[y] == 0) { /* zero: the lowest band */
        if ((sort_key[x] == 0) != (sort_key[y] == 0)) return sort_key[x] == 0 ? 1 : -1;
    } else if (ex != ey)
        return ex > ey ? -1 : 1;
    else if ((int)(8 * mx) != (int)(8 * my))
        return (int)(8 * mx) > (int)(8 * my) ? -1 : 1;
    if (b[x].start != b[y].start) return b[x].start < b[y].start ? -1 : 1;
    if (b[x].size != b[y].size) return b[x].size > b[y].size ? -1 : 1;
    int64_t lx = b[x].end - b[x].start, ly = b[y].end - b[y].start;
    if (lx != ly) return lx > ly ? -1 : 1;
    return x < y ? -1 : (x > y);
}

/* r for every buffer, by brute force over times 0..horizon. */
static void pressure_ratios(const memplan_buffer *b, size_t n, int64_t horizon, double *r) {
    uint64_t *load = calloc((size_t)horizon, sizeof *load), peak = 0;
    assert_non_null(load);
    for (size_t i = 0; i < n; i++)
        for (int64_t t = b[i].start; t < b[i].end; t++) load[t] += b[i].size;
    for (int64_t t = 0; t < horizon; t++) peak = load[t] > peak ? load[t] : peak;
    for (size_t i = 0; i < n; i++) {
        uint64_t m = 0;
        for (int64_t t = b[i].start; t < b[i].end; t++) m = load[t] > m ? load[t] : m;
        r[i] = (double)m / (double)peak;
    }
    free(load);
}

static void test_greedy_size_above_limit(void **state) {
    (void)state;
    enum { N = 4200, HORIZON = 2200 };
    memplan_buffer *b = malloc(N * sizeof *b);
    uint64_t *size = malloc(N * sizeof *size), *want[2], want_h[2];
    size_t *order = malloc(N * sizeof *order);
    double *r = malloc(N * sizeof *r), *key = malloc(N * sizeof *key);
    assert_true(b && size && order && r && key);
    for (size_t i = 0; i < N; i++) {
        int64_t s = (int64_t)below(2100);
        b[i] = (memplan_buffer){64 * (1 + below(64)), s, s + 1 + (int64_t)below(60)};
        size[i] = b[i].size; /* multiples of 64: the default alignment keeps them */
    }
    pressure_ratios(b, N, HORIZON, r);
    for (int k = 0; k < 2; k++) { /* p = 8, then 4 */
        for (size_t i = 0; i < N; i++) {
            double q = r[i] * r[i];
            q *= q;
            if (k == 0) q *= q;
            key[i] = (double)size[i] * q;
            order[i] = i;
        }
        sort_ctx = b;
        sort_key = key;
        qsort(order, N, sizeof *order, cmp_greedy_q);
        want[k] = malloc(N * sizeof *want[k]);
        assert_non_null(want[k]);
        want_h[k] = plain_first_fit(b, size, N, order, want[k]);
    }
    /* the two orders differ here, and so do their heights: the choice is tested */
    assert_int_not_equal(want_h[0], want_h[1]);
    int w = want_h[1] < want_h[0];

    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.heuristics = MEMPLAN_HEUR_GREEDY_SIZE;
    memplan_arena_plan p;
    memplan_error err = {0};
    assert_int_equal(memplan_pack(b, N, &o, &p, &err), MEMPLAN_OK);
    assert_int_equal(p.heuristic, MEMPLAN_HEUR_GREEDY_SIZE);
    assert_int_equal(p.arena_bytes, want_h[w]);
    for (size_t i = 0; i < N; i++) assert_int_equal(p.offset[i], want[w][i]);
    assert_int_equal(memplan_validate_arena(b, N, p.offset, 64, p.arena_bytes, NULL, &err), MEMPLAN_OK);
    memplan_arena_plan_free(&p);
    free(b), free(size), free(want[0]), free(want[1]), free(order), free(r), free(key);
}

/* Random lifetimes as bench_pack --random makes them: n buffers starting
 * over n/2 steps, living 1-1000 steps (log-uniform), 64 B - 1 MiB. */
static memplan_buffer *random_lifetimes(size_t n, uint64_t **size) {
    memplan_buffer *b = malloc(n * sizeof *b);
    *size = malloc(n * sizeof **size);
    assert_true(b && *size);
    for (size_t i = 0; i < n; i++) {
        int64_t s = (int64_t)below(n / 2), len = (int64_t)exp((double)below(1000000) / 1e6 * log(1000.0));
        b[i] = (memplan_buffer){64 * (1 + below(16384)), s, s + (len < 1 ? 1 : len)};
        (*size)[i] = b[i].size;
    }
    return b;
}

/* mp_squeaky from the first fit on the pressure order (p = 8): never
 * higher, lower here, a valid plan, the same plan every time for the same
 * quota, and nothing moved on a quota of 0. */
static void test_squeaky_rounds(void **state) {
    (void)state;
    enum { N = 6000 };
    uint64_t *size, lb = 0, work = 0, h0 = 0, rounds = 0, rounds2 = 0;
    rng_state = 4242;
    memplan_buffer *b = random_lifetimes(N, &size);
    int64_t horizon = 0;
    for (size_t i = 0; i < N; i++) horizon = MP_MAX(horizon, b[i].end);
    size_t *order = malloc(N * sizeof *order);
    double *r = malloc(N * sizeof *r), *key = malloc(N * sizeof *key);
    uint64_t *first = malloc(N * sizeof *first), *a = malloc(N * sizeof *a), *c = malloc(N * sizeof *c);
    assert_true(order && r && key && first && a && c);
    assert_int_equal(memplan_lower_bound(b, N, 1, &lb, NULL), MEMPLAN_OK);
    pressure_ratios(b, N, horizon + 1, r);
    for (size_t i = 0; i < N; i++) {
        double q = r[i] * r[i];
        q *= q;
        key[i] = (double)size[i] * q * q;
        order[i] = i;
    }
    sort_ctx = b;
    sort_key = key;
    qsort(order, N, sizeof *order, cmp_greedy_q);
    mp_pack_input in = {b, N, size, NULL, lb};
    mp_times t;
    assert_true(mp_times_init(&t, b, N));
    assert_true(mp_first_fit(&in, &t, order, first, &h0, &work));
    uint64_t ha = h0, hc = h0;
    memcpy(a, first, N * sizeof *a);
    assert_true(mp_squeaky(&in, &t, key, a, &ha, 0, 0, &rounds, &work)); /* no work: nothing moves */
    assert_int_equal(rounds, 0);
    assert_int_equal(ha, h0);
    assert_memory_equal(a, first, N * sizeof *a);
    assert_true(mp_squeaky(&in, &t, key, a, &ha, 20000000, 0, &rounds, &work));
    memcpy(c, first, N * sizeof *c);
    assert_true(mp_squeaky(&in, &t, key, c, &hc, 20000000, 0, &rounds2, &work));
    assert_int_equal(ha, hc);
    assert_int_equal(rounds, 10); /* 20 M steps: ten rounds of ~2 M */
    assert_int_equal(rounds2, 10);
    assert_memory_equal(a, c, N * sizeof *a);
    assert_int_equal(h0, 171986944);
    assert_int_equal(ha, 170722496); /* the rounds lower this one, 1.0204x -> 1.0129x the bound */
    assert_int_equal(lb, 168555008);
    assert_int_equal(memplan_validate_arena(b, N, a, 1, ha, NULL, NULL), MEMPLAN_OK);
    mp_times_free(&t);
    free(b), free(size), free(order), free(r), free(key), free(first), free(a), free(c);
}

/* A squeaky buffer live all the time makes every buffer one to place
 * again, whatever the margin: on less work than that costs no round runs
 * (the plan stays as it was, valid); on enough, rounds run and keep a plan
 * no higher. */
static void test_squeaky_round_too_big(void **state) {
    (void)state;
    enum { N = 5000 };
    uint64_t *size, lb = 0, work = 0, h0 = 0, rounds = 0;
    rng_state = 7;
    memplan_buffer *b = random_lifetimes(N, &size);
    int64_t horizon = 0;
    for (size_t i = 0; i < N; i++) horizon = MP_MAX(horizon, b[i].end);
    b[0] = (memplan_buffer){1 << 20, 0, horizon}; /* live all the time */
    size[0] = b[0].size;
    size_t *order = malloc(N * sizeof *order);
    double *key = malloc(N * sizeof *key);
    uint64_t *plan = malloc(N * sizeof *plan), *off = malloc(N * sizeof *off);
    assert_true(order && key && plan && off);
    for (size_t i = 0; i < N; i++) order[i] = (i + 1) % N, key[i] = (double)size[i]; /* buffer 0 last: on top */
    assert_int_equal(memplan_lower_bound(b, N, 1, &lb, NULL), MEMPLAN_OK);
    mp_pack_input in = {b, N, size, NULL, lb};
    mp_times t;
    assert_true(mp_times_init(&t, b, N));
    assert_true(mp_first_fit(&in, &t, order, plan, &h0, &work));
    assert_int_equal(plan[0] + size[0], h0); /* the squeaky one */
    uint64_t h = h0;
    memcpy(off, plan, N * sizeof *off);
    assert_true(mp_squeaky(&in, &t, key, off, &h, 300 * (uint64_t)N - 1, 0, &rounds, &work));
    assert_int_equal(rounds, 0);
    assert_int_equal(h, h0);
    assert_memory_equal(off, plan, N * sizeof *off);
    assert_true(mp_squeaky(&in, &t, key, off, &h, 100 * 300 * (uint64_t)N, 0, &rounds, &work));
    assert_true(rounds > 0);
    assert_true(h <= h0);
    assert_int_equal(memplan_validate_arena(b, N, off, 1, h, NULL, NULL), MEMPLAN_OK);
    mp_times_free(&t);
    free(b), free(size), free(order), free(key), free(plan), free(off);
}

/* memplan_pack above 4,096 buffers: the budget buys squeaky rounds (the
 * winner "search"), lower than greedy-size and time-fit alone, valid, the
 * same for the same options; budget 0 runs none. */
static void test_pack_search_above_limit(void **state) {
    (void)state;
    enum { N = 6000 };
    uint64_t *size;
    rng_state = 99;
    memplan_buffer *b = random_lifetimes(N, &size);
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    memplan_arena_plan p0, p1, p2;
    memplan_error err = {0};
    o.budget_ms = 0;
    assert_int_equal(memplan_pack(b, N, &o, &p0, &err), MEMPLAN_OK);
    assert_int_not_equal(p0.heuristic, MEMPLAN_HEUR_SEARCH);
    o.budget_ms = 100;
    o.wall_cap_ms = 600000; /* the work count ends it */
    assert_int_equal(memplan_pack(b, N, &o, &p1, &err), MEMPLAN_OK);
    assert_int_equal(memplan_pack(b, N, &o, &p2, &err), MEMPLAN_OK);
    assert_int_equal(p1.heuristic, MEMPLAN_HEUR_SEARCH);
    assert_int_equal(p1.iterations, 8); /* the rounds run */
    assert_int_equal(p0.arena_bytes, 172277504);
    assert_int_equal(p1.arena_bytes, 171660352);
    assert_int_equal(p1.arena_bytes, p2.arena_bytes);
    assert_memory_equal(p1.offset, p2.offset, N * sizeof *p1.offset);
    assert_int_equal(memplan_validate_arena(b, N, p1.offset, 64, p1.arena_bytes, NULL, &err), MEMPLAN_OK);
    memplan_arena_plan_free(&p0), memplan_arena_plan_free(&p1), memplan_arena_plan_free(&p2);
    free(b), free(size);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_case),
        cmocka_unit_test(test_best_fit_hand_case),
        cmocka_unit_test(test_matches_plain_fits),
        cmocka_unit_test(test_best_fit_larger),
        cmocka_unit_test(test_greedy_size_above_limit),
        cmocka_unit_test(test_squeaky_rounds),
        cmocka_unit_test(test_squeaky_round_too_big),
        cmocka_unit_test(test_pack_search_above_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
