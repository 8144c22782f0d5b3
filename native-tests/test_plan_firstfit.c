/* test_plan_firstfit.c -- first fit through the interval index
 * (pack_firstfit.c) against a plain quadratic first fit, offset for offset,
 * on thousands of random instances, and greedy-size above 4,096 buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan/pack_internal.h"

static uint64_t rng_state = 777;

static uint64_t below(uint64_t n) { return mp_rand_next(&rng_state) % n; }

/* The reference: each buffer in order at the lowest offset, 0 or the top of
 * a placed buffer live with it, that overlaps no placed buffer live with it
 * (the lowest feasible offset is always one of those). O(n^2) per buffer. */
static uint64_t plain_first_fit(const memplan_buffer *b, const uint64_t *size, size_t n, const size_t *order,
                                uint64_t *off) {
    bool *placed = calloc(n, sizeof *placed);
    size_t *live = malloc(n * sizeof *live); /* placed buffers live with i */
    assert_true(placed && live);
    uint64_t height = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k], nl = 0;
        for (size_t j = 0; j < n; j++)
            if (placed[j] && b[j].start < b[i].end && b[i].start < b[j].end) live[nl++] = j;
        uint64_t best = UINT64_MAX;
        for (size_t c = 0; c <= nl; c++) { /* candidate c < nl: top of live[c]; c == nl: 0 */
            uint64_t y = c < nl ? off[live[c]] + size[live[c]] : 0;
            bool clear = y < best;
            for (size_t m = 0; m < nl && clear && size[i] > 0; m++)
                if (off[live[m]] < y + size[i] && y < off[live[m]] + size[live[m]]) clear = false;
            if (clear) best = y;
        }
        off[i] = size[i] ? best : 0;
        placed[i] = true;
        height = MP_MAX(height, off[i] + size[i]);
    }
    free(placed);
    free(live);
    return height;
}

/* Check mp_first_fit against the reference on b[0..n) in a random order. */
static void check_instance(const memplan_buffer *b, size_t n) {
    uint64_t *size = malloc(n * sizeof *size), *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    size_t *order = malloc(n * sizeof *order);
    assert_true(size && want && got && order);
    for (size_t i = 0; i < n; i++) {
        size[i] = b[i].size;
        order[i] = i;
    }
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)below(i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    mp_pack_input in = {b, n, size, NULL, 0};
    uint64_t want_h = plain_first_fit(b, size, n, order, want), got_h = 0, work = 0;
    assert_true(mp_first_fit(&in, order, got, &got_h, &work));
    assert_int_equal(got_h, want_h);
    for (size_t i = 0; i < n; i++) assert_int_equal(got[i], want[i]);
    free(size), free(want), free(got), free(order);
}

/* Random instances over short and long time axes (one leaf block to many,
 * lifetimes inside one block, across edges and spanning many blocks), with
 * zero sizes, ties of every kind and sizes of few distinct values. */
static void test_matches_plain_first_fit(void **state) {
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
    assert_true(mp_first_fit(&in, order, off, &h, &work));
    assert_int_equal(off[0], 0);
    assert_int_equal(off[3], 4);
    assert_int_equal(off[1], 6);
    assert_int_equal(off[2], 6);
    assert_int_equal(h, 8);
}

/* Above 4,096 buffers greedy-size is this first fit in size order (size
 * descending, longer lifetime, earlier start, index): memplan_pack's offsets
 * equal the reference's, and the plan validates. */
static const memplan_buffer *sort_ctx;
static int cmp_greedy_q(const void *pa, const void *pb) {
    const memplan_buffer *b = sort_ctx;
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    if (b[x].size != b[y].size) return b[x].size > b[y].size ? -1 : 1;
    int64_t lx = b[x].end - b[x].start, ly = b[y].end - b[y].start;
    if (lx != ly) return lx > ly ? -1 : 1;
    if (b[x].start != b[y].start) return b[x].start < b[y].start ? -1 : 1;
    return x < y ? -1 : (x > y);
}

static void test_greedy_size_above_limit(void **state) {
    (void)state;
    enum { N = 4200 };
    memplan_buffer *b = malloc(N * sizeof *b);
    uint64_t *size = malloc(N * sizeof *size), *want = malloc(N * sizeof *want);
    size_t *order = malloc(N * sizeof *order);
    assert_true(b && size && want && order);
    for (size_t i = 0; i < N; i++) {
        int64_t s = (int64_t)below(2100);
        b[i] = (memplan_buffer){64 * (1 + below(64)), s, s + 1 + (int64_t)below(60)};
        size[i] = b[i].size; /* multiples of 64: the default alignment keeps them */
        order[i] = i;
    }
    sort_ctx = b;
    qsort(order, N, sizeof *order, cmp_greedy_q);
    uint64_t want_h = plain_first_fit(b, size, N, order, want);

    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.heuristics = MEMPLAN_HEUR_GREEDY_SIZE;
    memplan_arena_plan p;
    memplan_error err = {0};
    assert_int_equal(memplan_pack(b, N, &o, &p, &err), MEMPLAN_OK);
    assert_int_equal(p.heuristic, MEMPLAN_HEUR_GREEDY_SIZE);
    assert_int_equal(p.arena_bytes, want_h);
    for (size_t i = 0; i < N; i++) assert_int_equal(p.offset[i], want[i]);
    assert_int_equal(memplan_validate_arena(b, N, p.offset, 64, p.arena_bytes, NULL, &err), MEMPLAN_OK);
    memplan_arena_plan_free(&p);
    free(b), free(size), free(want), free(order);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_case),
        cmocka_unit_test(test_matches_plain_first_fit),
        cmocka_unit_test(test_greedy_size_above_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
