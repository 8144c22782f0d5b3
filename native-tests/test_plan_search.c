/* test_plan_search.c -- the incremental skyline decoding behind the search,
 * the time-mirrored search half, exact search results, search rounds for
 * budgets over a second, and the start-order sweep of the greedy decoder. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan/pack_internal.h"
#include "util/heap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng_state = 12345;

/* n buffers of sizes 1..100 starting in [0, span), living 1..max_len. */
static void random_buffers_len(memplan_buffer *b, size_t n, int64_t span, uint64_t max_len) {
    for (size_t i = 0; i < n; i++) {
        int64_t s = (int64_t)(mp_rand_next(&rng_state) % (uint64_t)span);
        int64_t len = 1 + (int64_t)(mp_rand_next(&rng_state) % max_len);
        b[i] = (memplan_buffer){1 + mp_rand_next(&rng_state) % 100, s, s + len};
    }
}

static void random_buffers(memplan_buffer *b, size_t n, int64_t span) { random_buffers_len(b, n, span, 12); }

/* A skyline over b with identity ranks, traced once (the first accepted
 * decode). f->in must outlive the skyline, so it lives in the fixture. */
typedef struct sky_fixture {
    mp_pack_input in;
    size_t *by_start;
    mp_skyline *s;
} sky_fixture;

static mp_skyline *traced_skyline(sky_fixture *f, const memplan_buffer *b, size_t n, uint64_t *size, size_t *rank,
                                  double span) {
    for (size_t i = 0; i < n; i++) size[i] = b[i].size, rank[i] = i;
    f->by_start = mp_order_by_start(b, n);
    assert_non_null(f->by_start);
    f->in = (mp_pack_input){b, n, size, f->by_start, 0};
    f->s = mp_skyline_new(&f->in);
    assert_non_null(f->s);
    assert_true(mp_skyline_trace_init(f->s));
    uint64_t work = 0, h;
    double w;
    assert_true(mp_skyline_trace_full(f->s, rank, span, &work, &h, &w));
    return f->s;
}

static void sky_fixture_free(sky_fixture *f) {
    mp_skyline_free(f->s);
    free(f->by_start);
}

/* Swap the ranks of two distinct random buffers. */
static void random_swap(size_t *rank, size_t n, size_t *x, size_t *y) {
    *x = mp_rand_next(&rng_state) % n;
    *y = (*x + 1 + mp_rand_next(&rng_state) % (n - 1)) % n;
    size_t t = rank[*x];
    rank[*x] = rank[*y];
    rank[*y] = t;
}

/* Trials from checkpoints, stopped at convergence, then accepted, give the
 * very offsets, height and waste a decode from scratch gives. */
static void test_incremental_equals_full(void **state) {
    (void)state;
    enum { n = 300 };
    static memplan_buffer b[n];
    static uint64_t size[n], full[n];
    static size_t rank[n];
    for (int round = 0; round < 4; round++) {
        random_buffers(b, n, 60);
        sky_fixture f;
        double w, w2, span = 72.0;
        mp_skyline *s = traced_skyline(&f, b, n, size, rank, span);
        uint64_t work = 0, h, h2;
        for (int it = 0; it < 400; it++) {
            size_t x, y;
            random_swap(rank, n, &x, &y);
            size_t step = mp_skyline_first_change(s, rank, x, y);
            assert_true(mp_skyline_try(s, rank, x, y, step, INFINITY, span, &work, &h, &w));
            mp_skyline_accept(s, h, w);
            h2 = mp_skyline_decode(s, rank, full, &work, &w2);
            assert_int_equal(h, h2);
            assert_true(w == w2);
            assert_memory_equal(full, mp_skyline_current(s)->off, n * sizeof *full);
        }
        sky_fixture_free(&f);
    }
}

/* The early stop of a trial is exact: a trial under a limit equal to the
 * cost of the full decode of its order succeeds with that height, and under
 * the next lower double it fails -- so the load bound that stops trials
 * early never rejects a trial the limit allows. Short and long buffers. */
static void test_try_limit_exact(void **state) {
    (void)state;
    enum { n = 150 };
    static memplan_buffer b[n];
    static uint64_t size[n], full[n];
    static size_t rank[n];
    for (int round = 0; round < 4; round++) {
        random_buffers_len(b, n, 60, round < 2 ? 12 : 50);
        sky_fixture f;
        double w, w2, span = 110.0;
        mp_skyline *s = traced_skyline(&f, b, n, size, rank, span);
        uint64_t work = 0, h, h2;
        for (int it = 0; it < 300; it++) {
            size_t x, y;
            random_swap(rank, n, &x, &y);
            h2 = mp_skyline_decode(s, rank, full, &work, &w2);
            double cost = mp_sky_cost(h2, w2, span);
            size_t step = mp_skyline_first_change(s, rank, x, y);
            uint64_t before = work;
            if (mp_skyline_try(s, rank, x, y, step, nextafter(cost, -INFINITY), span, &work, &h, &w))
                fail_msg("a trial of cost %.6f passed the limit below it", cost);
            uint64_t stop_work = work - before;
            before = work;
            assert_true(mp_skyline_try(s, rank, x, y, step, cost, span, &work, &h, &w));
            assert_int_equal(h, h2);
            assert_true(stop_work <= work - before); /* stopping never costs more */
            mp_skyline_accept(s, h, w);
        }
        sky_fixture_free(&f);
    }
}

/* mp_greedy_by_start_until in three legs (to half the height, to one below
 * it, to it) places what one run does: each stopped leg ends at the first
 * buffer whose top passes its limit, with every top before it within the
 * limit, and the work of the legs adds up to one run's. */
static void check_by_start_legs(const mp_pack_input *in, const size_t *order, const uint64_t *want, uint64_t height) {
    static uint64_t off[2000];
    assert_true(in->n <= 2000);
    mp_greedy *g = mp_greedy_new(in, false);
    assert_non_null(g);
    uint64_t work = 0, h = 0, one = 0, top = 0;
    uint64_t limits[] = {height / 2, height - 1, height};
    size_t k = 0;
    for (int leg = 0; leg < 3; leg++) {
        bool done = mp_greedy_by_start_until(g, order, off, limits[leg], &h, &work);
        assert_int_equal(done, leg == 2);
        for (; k < in->n && top <= limits[leg]; k++) { /* the prefix this leg placed */
            size_t i = order[k];
            assert_int_equal(off[i], want[i]);
            top = MP_MAX(top, want[i] + in->size[i]);
        }
        assert_int_equal(h, top);
        assert_true(done ? h <= limits[leg] : h > limits[leg]);
    }
    assert_int_equal(k, in->n);
    assert_int_equal(h, height);
    mp_greedy_free(g);
    g = mp_greedy_new(in, false);
    assert_non_null(g);
    assert_int_equal(mp_greedy_decode_by_start(g, order, off, &one), height);
    assert_int_equal(work, one);
    mp_greedy_free(g);
}

/* The time-ordered best fit: the active-list sweep places every buffer where
 * the segment-tree decoder does (same offsets, same height), with ties in
 * start, equal sizes and long-lived buffers; also in legs. */
static void test_greedy_by_start_equals_tree(void **state) {
    (void)state;
    enum { n = 2000 };
    static memplan_buffer b[n];
    static uint64_t size[n], tree_off[n], sweep_off[n];
    for (int round = 0; round < 6; round++) {
        random_buffers(b, n, round < 3 ? 40 : 400);
        for (size_t i = 0; i < n; i++) {
            if (i % 97 == 0) b[i].end = b[i].start + 300; /* a few long ones */
            if (round % 2) b[i].size = 1 + b[i].size % 4; /* many equal sizes */
            size[i] = (b[i].size + 7) / 8 * 8;
        }
        size_t *by_start = mp_order_by_start(b, n);
        assert_non_null(by_start);
        mp_pack_input in = {b, n, size, by_start, 0};
        mp_greedy *g = mp_greedy_new(&in, true);
        assert_non_null(g);
        uint64_t work = 0;
        uint64_t h1 = mp_greedy_decode(g, by_start, tree_off, &work);
        uint64_t h2 = mp_greedy_decode_by_start(g, by_start, sweep_off, &work);
        assert_int_equal(h1, h2);
        assert_memory_equal(tree_off, sweep_off, sizeof tree_off);
        mp_greedy_free(g);
        check_by_start_legs(&in, by_start, sweep_off, h2);
        free(by_start);
    }
}

/* A trial that passes its cost limit stops and reports it. */
static void test_try_limit(void **state) {
    (void)state;
    memplan_buffer b[] = {{10, 0, 2}, {10, 1, 3}, {20, 2, 4}, {5, 0, 4}};
    uint64_t size[] = {10, 10, 20, 5};
    size_t rank[] = {0, 1, 2, 3};
    size_t *by_start = mp_order_by_start(b, 4);
    mp_pack_input in = {b, 4, size, by_start, 35};
    mp_skyline *s = mp_skyline_new(&in);
    assert_true(mp_skyline_trace_init(s));
    uint64_t work = 0, h;
    double w;
    assert_true(mp_skyline_trace_full(s, rank, 4.0, &work, &h, &w));
    rank[0] = 3, rank[3] = 0;
    size_t step = mp_skyline_first_change(s, rank, 0, 3);
    assert_int_equal(step, 0);
    assert_false(mp_skyline_try(s, rank, 0, 3, step, 1.0, 4.0, &work, &h, &w));
    mp_skyline_free(s);
    free(by_start);
}

/* The search alone with no budget still returns the skyline's packing. */
static void test_search_only_no_budget(void **state) {
    (void)state;
    memplan_buffer b[] = {{10, 0, 2}, {10, 1, 3}, {20, 2, 4}, {5, 0, 4}};
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.heuristics = MEMPLAN_HEUR_SEARCH;
    o.budget_ms = 0;
    o.align = 1;
    memplan_arena_plan p;
    assert_int_equal(memplan_pack(b, 4, &o, &p, NULL), MEMPLAN_OK);
    uint64_t want[] = {0, 25, 0, 20};
    assert_memory_equal(p.offset, want, sizeof want);
    assert_int_equal(p.arena_bytes, 35);
    assert_int_equal(p.heuristic, MEMPLAN_HEUR_SKYLINE);
    memplan_arena_plan_free(&p);
}

/* Random short-lived buffers: the search (forward, then mirrored) beats the
 * heuristics, with exactly the same result on every run and machine. The
 * exact mode is left out here (it reaches the bound); then put back. */
static void test_search_exact(void **state) {
    (void)state;
    enum { n = 120 };
    static memplan_buffer b[n];
    rng_state = 777;
    random_buffers(b, n, 40);
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.align = 1;
    o.budget_ms = 10;
    o.wall_cap_ms = 600000; /* only the work count may stop it, however slow the build */
    o.heuristics = MEMPLAN_HEUR_ALL & ~(unsigned)MEMPLAN_HEUR_EXACT;
    memplan_arena_plan p0, p1, p2;
    o.budget_ms = 0;
    assert_int_equal(memplan_pack(b, n, &o, &p0, NULL), MEMPLAN_OK);
    o.budget_ms = 10;
    assert_int_equal(memplan_pack(b, n, &o, &p1, NULL), MEMPLAN_OK);
    assert_int_equal(memplan_pack(b, n, &o, &p2, NULL), MEMPLAN_OK);
    assert_memory_equal(p1.offset, p2.offset, n * sizeof *p1.offset);
    assert_int_equal(p1.iterations, p2.iterations);
    assert_int_equal(p0.lower_bound_bytes, 1302);
    assert_int_equal(p0.arena_bytes, 1333);
    print_message("bound %llu: budget 0 -> %llu (%s), 10 ms -> %llu (%s, %llu iterations)\n",
                  (unsigned long long)p1.lower_bound_bytes, (unsigned long long)p0.arena_bytes,
                  memplan_heuristic_name(p0.heuristic), (unsigned long long)p1.arena_bytes,
                  memplan_heuristic_name(p1.heuristic), (unsigned long long)p1.iterations);
    assert_int_equal(p1.arena_bytes, 1307);
    assert_int_equal(p1.heuristic, MEMPLAN_HEUR_SEARCH);
    assert_int_equal(p1.iterations, 426);
    assert_int_equal(memplan_validate_arena(b, n, p1.offset, 1, p1.arena_bytes, NULL, NULL), MEMPLAN_OK);
    assert_false(p1.optimal);
    assert_int_equal(p1.proven_lower_bound_bytes, 1302);
    memplan_arena_plan_free(&p0);
    memplan_arena_plan_free(&p1);
    memplan_arena_plan_free(&p2);
    /* With the exact mode: the bound, found at the first try, proven. */
    o.heuristics = MEMPLAN_HEUR_ALL;
    assert_int_equal(memplan_pack(b, n, &o, &p1, NULL), MEMPLAN_OK);
    assert_int_equal(p1.arena_bytes, 1302);
    assert_int_equal(p1.heuristic, MEMPLAN_HEUR_EXACT);
    assert_true(p1.optimal);
    assert_int_equal(p1.iterations, 0);
    assert_int_equal(memplan_validate_arena(b, n, p1.offset, 1, p1.arena_bytes, NULL, NULL), MEMPLAN_OK);
    memplan_arena_plan_free(&p1);
}

/* The annealing search alone (no exact mode). */
static uint64_t pack_height(const memplan_buffer *b, size_t n, uint32_t budget_ms, uint64_t seed,
                            uint64_t *lower_bound) {
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.heuristics = MEMPLAN_HEUR_ALL & ~(unsigned)MEMPLAN_HEUR_EXACT;
    o.align = 1;
    o.budget_ms = budget_ms;
    o.seed = seed;
    o.wall_cap_ms = 600000; /* only the work count may stop it, however slow the build */
    memplan_arena_plan p;
    assert_int_equal(memplan_pack(b, n, &o, &p, NULL), MEMPLAN_OK);
    assert_int_equal(memplan_validate_arena(b, n, p.offset, 1, p.arena_bytes, NULL, NULL), MEMPLAN_OK);
    uint64_t h = p.arena_bytes;
    *lower_bound = p.lower_bound_bytes;
    memplan_arena_plan_free(&p);
    return h;
}

/* A budget whose work passes one round (18.75 M steps: 167 ms at 112,500
 * steps per ms) runs rounds of that work under seeds seed, seed + 2, ...
 * from the same start order and keeps the best; a last partial round under
 * a quarter round is not started. So 167 ms is one round, 200 ms the same
 * run (its 3.75 M steps left are under a quarter round), 334 ms the best of
 * two (seeds 1, 3), 668 ms the best of four (seeds 1, 3, 5, 7): more budget
 * is never worse. Dense long-lived buffers, so one run misses the bound and
 * the seeds differ. */
static void test_search_rounds(void **state) {
    (void)state;
    enum { n = 200 };
    static memplan_buffer b[n];
    rng_state = 3;
    random_buffers_len(b, n, 100, 60);
    uint64_t lb, r[4];
    for (int k = 0; k < 4; k++) r[k] = pack_height(b, n, 167, 1 + 2 * (uint64_t)k, &lb);
    uint64_t h200 = pack_height(b, n, 200, 1, &lb);
    uint64_t h334 = pack_height(b, n, 334, 1, &lb);
    uint64_t h668 = pack_height(b, n, 668, 1, &lb);
    print_message("bound %llu: one round (167 ms), seeds 1/3/5/7 %llu %llu %llu %llu; seed 1 at 200 ms %llu, "
                  "334 ms %llu, 668 ms %llu\n",
                  (unsigned long long)lb, (unsigned long long)r[0], (unsigned long long)r[1], (unsigned long long)r[2],
                  (unsigned long long)r[3], (unsigned long long)h200, (unsigned long long)h334,
                  (unsigned long long)h668);
    assert_int_equal(lb, 3354);
    assert_int_equal(r[0], 3449);
    assert_int_equal(r[1], 3417);
    assert_int_equal(r[2], 3449);
    assert_int_equal(r[3], 3426);
    assert_int_equal(h200, r[0]);
    assert_int_equal(h334, MP_MIN(r[0], r[1]));
    assert_int_equal(h668, MP_MIN(MP_MIN(r[0], r[1]), MP_MIN(r[2], r[3])));
    assert_int_equal(h668, 3417);
}

/* A quota smaller than the first full decode: the forward half spends it
 * all on that decode and the mirrored half gets nothing (it once got
 * quota - work, wrapped around, and ran until the wall-clock cap: a
 * 30 ms budget took 8 x 30 + 100 ms and the plan depended on the clock). */
static void test_search_quota_overrun(void **state) {
    (void)state;
    enum { n = 4000 }; /* the annealing runs up to 4,096 buffers (above, squeaky rounds) */
    static memplan_buffer b[n];
    rng_state = 99;
    random_buffers_len(b, n, 1000, 40);
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.align = 1;
    o.budget_ms = 8; /* 450k steps: above 32 per buffer, below one full decode */
    o.wall_cap_ms = 5000;
    memplan_arena_plan p1, p2;
    assert_int_equal(memplan_pack(b, n, &o, &p1, NULL), MEMPLAN_OK);
    assert_int_equal(memplan_pack(b, n, &o, &p2, NULL), MEMPLAN_OK);
    assert_int_equal(p1.iterations, 0);
    assert_int_equal(p2.iterations, 0);
    assert_int_equal(p1.arena_bytes, p2.arena_bytes);
    assert_memory_equal(p1.offset, p2.offset, n * sizeof *p1.offset);
    memplan_arena_plan_free(&p1);
    memplan_arena_plan_free(&p2);
}

/* The radix sort: ascending, stable, every byte position (keys up to
 * UINT64_MAX), values moved along; and the event order built on it. */
static void test_radix_sort(void **state) {
    (void)state;
    uint64_t key[] = {5, UINT64_MAX, 0, 5, 1ull << 40, 0};
    size_t val[] = {0, 1, 2, 3, 4, 5}, want[] = {2, 5, 0, 3, 4, 1};
    assert_true(mp_radix_sort(key, val, 6));
    assert_memory_equal(val, want, sizeof want);
    assert_int_equal(key[5], UINT64_MAX);
    assert_true(mp_radix_sort(key, NULL, 0));
    assert_true(mp_radix_sort(key, NULL, 1));

    enum { n = 5000 };
    static uint64_t k[n], orig[n];
    static size_t v[n];
    for (size_t i = 0; i < n; i++) {
        uint64_t r = mp_rand_next(&rng_state);
        k[i] = orig[i] = i % 3 ? r % 50 : r >> (r % 64); /* duplicates and every width */
        v[i] = i;
    }
    assert_true(mp_radix_sort(k, v, n));
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(k[i], orig[v[i]]);
        if (i > 0) {
            assert_true(k[i - 1] <= k[i]);
            if (k[i - 1] == k[i]) assert_true(v[i - 1] < v[i]);
        }
    }

    memplan_buffer b[] = {{1, 0, 2}, {1, 1, 3}, {1, 2, 4}};
    size_t *ev = mp_events_by_time(b, 3), ev_want[] = {0, 1, 3, 2, 4, 5}; /* end 0 before start 2 */
    assert_non_null(ev);
    assert_memory_equal(ev, ev_want, sizeof ev_want);
    free(ev);
}

/* The large-array allocators (util/heap.c) behave as malloc and calloc,
 * advised or not: zeroed, writable, sized; NULL on an overflowing size. */
static void test_big_arrays(void **state) {
    (void)state;
    for (size_t count = 1; count <= ((size_t)1 << 20); count *= 16) { /* 8 B to 8 MiB, across 4 MiB */
        uint64_t *a = mp_calloc_big(count, sizeof *a);
        assert_non_null(a);
        uint64_t sum = 0;
        for (size_t i = 0; i < count; i++) sum += a[i];
        assert_int_equal(sum, 0);
        a[count - 1] = 7;
        free(a);
        unsigned char *b = mp_malloc_big(count * 8);
        assert_non_null(b);
        memset(b, 1, count * 8);
        assert_int_equal(b[count * 8 - 1], 1);
        free(b);
    }
    void *z = mp_malloc_big(0);
    assert_non_null(z);
    free(z);
    z = mp_calloc_big(0, 8);
    assert_non_null(z);
    free(z);
    assert_null(mp_calloc_big(SIZE_MAX / 4, 8));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incremental_equals_full),
        cmocka_unit_test(test_greedy_by_start_equals_tree),
        cmocka_unit_test(test_try_limit),
        cmocka_unit_test(test_try_limit_exact),
        cmocka_unit_test(test_search_only_no_budget),
        cmocka_unit_test(test_search_exact),
        cmocka_unit_test(test_search_rounds),
        cmocka_unit_test(test_search_quota_overrun),
        cmocka_unit_test(test_radix_sort),
        cmocka_unit_test(test_big_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
