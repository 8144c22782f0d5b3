/* test_plan_arena.c -- arena heuristics, search, validators. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memplan/plan.h"
#include "memplan/validate.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* P [0,2) 10, Q [1,3) 10, R [2,4) 20, S [0,4) 5: lower bound 35 at t = 2. */
static const memplan_buffer pqrs[] = {{10, 0, 2}, {10, 1, 3}, {20, 2, 4}, {5, 0, 4}};

static void expect_pack(const memplan_buffer *b, size_t n, unsigned heur, uint64_t align, const uint64_t *want,
                        uint64_t want_arena, memplan_heuristic want_h) {
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.heuristics = heur;
    o.budget_ms = 0;
    o.align = align;
    memplan_arena_plan p;
    memplan_error err = {0};
    assert_int_equal(memplan_pack(b, n, &o, &p, &err), MEMPLAN_OK);
    for (size_t i = 0; i < n; i++) assert_int_equal(p.offset[i], want[i]);
    assert_int_equal(p.arena_bytes, want_arena);
    assert_int_equal(p.heuristic, want_h);
    assert_int_equal(p.iterations, 0);
    assert_int_equal(memplan_validate_arena(b, n, p.offset, align, p.arena_bytes, NULL, &err), MEMPLAN_OK);
    memplan_arena_plan_free(&p);
}

static void test_greedy_size(void **state) {
    (void)state;
    uint64_t want[] = {0, 20, 0, 30};
    expect_pack(pqrs, 4, MEMPLAN_HEUR_GREEDY_SIZE, 1, want, 35, MEMPLAN_HEUR_GREEDY_SIZE);
}

static void test_time_fit(void **state) {
    (void)state;
    uint64_t want[] = {0, 15, 25, 10};
    expect_pack(pqrs, 4, MEMPLAN_HEUR_TIME_FIT, 1, want, 45, MEMPLAN_HEUR_TIME_FIT);
}

static void test_skyline(void **state) {
    (void)state;
    uint64_t want[] = {0, 25, 0, 20};
    expect_pack(pqrs, 4, MEMPLAN_HEUR_SKYLINE, 1, want, 35, MEMPLAN_HEUR_SKYLINE);
}

/* All heuristics: ties keep the first (greedy-size). */
static void test_best_kept(void **state) {
    (void)state;
    uint64_t want[] = {0, 20, 0, 30};
    expect_pack(pqrs, 4, 0, 1, want, 35, MEMPLAN_HEUR_GREEDY_SIZE);
    memplan_arena_plan p;
    assert_int_equal(memplan_pack(pqrs, 4, NULL, &p, NULL), MEMPLAN_OK);
    assert_int_equal(p.align, 64);
    assert_int_equal(p.lower_bound_bytes, 3 * 64); /* each size rounds to 64; 3 live */
    memplan_arena_plan_free(&p);
}

/* Best fit picks the smallest gap, not the first. */
static void test_greedy_best_gap(void **state) {
    (void)state;
    /* Long buffers at 0..30 and 40..50 and 60..100 leave gaps of 10 ([30,40)) and
     * 10 ([50,60)); a 10-byte buffer takes the lowest; sizes chosen so the
     * long ones are placed first by size. */
    memplan_buffer b[] = {{30, 0, 10}, {20, 0, 1}, {10, 1, 10}, {40, 0, 10}, {10, 1, 10}, {5, 2, 3}};
    /* size order: 40(d) 30(a) 20(b) 10(c) 10(e) 5(f).
     * d=0; a=40 (on top); b [0,1): conflicts d 0-40, a 40-70 -> 70;
     * c [1,10): conflicts d, a -> 70; e: d, a, c -> 80;
     * f [2,3): d 0-40, a 40-70, c 70-80, e 80-90 -> 90. */
    uint64_t want[] = {40, 70, 70, 0, 80, 90};
    expect_pack(b, N(b), MEMPLAN_HEUR_GREEDY_SIZE, 1, want, 95, MEMPLAN_HEUR_GREEDY_SIZE);
    /* A real gap: X [0,4) 10 at 0, Y [0,1) 30, Z [0,4) 10 ... */
    memplan_buffer g[] = {{50, 0, 1}, {40, 0, 2}, {30, 1, 3}, {20, 2, 3}, {10, 1, 2}};
    /* 50 A=0; 40 B: A -> 50; 30 C [1,3): B 50-90 -> gap [0,50) fits -> 0;
     * 20 D [2,3): C 0-30 -> 30; 10 E [1,2): C 0-30, B 50-90 -> gap [30,50)
     * of 20 -> 30. */
    uint64_t gw[] = {0, 50, 0, 30, 30};
    expect_pack(g, N(g), MEMPLAN_HEUR_GREEDY_SIZE, 1, gw, 90, MEMPLAN_HEUR_GREEDY_SIZE);
}

static void test_alignment(void **state) {
    (void)state;
    memplan_buffer b[] = {{100, 0, 2}, {1, 1, 3}};
    uint64_t want[] = {0, 128};
    expect_pack(b, 2, MEMPLAN_HEUR_GREEDY_SIZE, 64, want, 192, MEMPLAN_HEUR_GREEDY_SIZE);
    expect_pack(b, 2, MEMPLAN_HEUR_SKYLINE, 64, want, 192, MEMPLAN_HEUR_SKYLINE);
}

/* The example from MiniMalloc: lower bound 12 reached. */
static void test_example12_and_search(void **state) {
    (void)state;
    memplan_buffer b[] = {{4, 0, 3}, {4, 3, 9}, {4, 0, 9}, {4, 9, 21}, {4, 0, 21}};
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.align = 1;
    memplan_arena_plan p;
    assert_int_equal(memplan_pack(b, 5, &o, &p, NULL), MEMPLAN_OK);
    assert_int_equal(p.arena_bytes, 12);
    assert_int_equal(p.lower_bound_bytes, 12);
    assert_true(p.gap_ratio == 1.0);
    memplan_arena_plan_free(&p);

    /* Search alone, deterministic for a given budget and seed. */
    memplan_buffer c[] = {{10, 0, 2}, {10, 1, 3}, {20, 2, 4}, {5, 0, 4}, {7, 1, 4}, {9, 0, 1}, {3, 3, 5}};
    o.heuristics = MEMPLAN_HEUR_SEARCH;
    o.budget_ms = 2;
    o.wall_cap_ms = 600000; /* the work count, not the clock, ends the search */
    memplan_arena_plan p1, p2;
    assert_int_equal(memplan_pack(c, N(c), &o, &p1, NULL), MEMPLAN_OK);
    assert_int_equal(memplan_pack(c, N(c), &o, &p2, NULL), MEMPLAN_OK);
    assert_int_equal(p1.arena_bytes, p2.arena_bytes);
    assert_memory_equal(p1.offset, p2.offset, N(c) * sizeof(uint64_t));
    assert_true(p1.arena_bytes >= p1.lower_bound_bytes);
    assert_int_equal(memplan_validate_arena(c, N(c), p1.offset, 1, p1.arena_bytes, NULL, NULL), MEMPLAN_OK);
    memplan_arena_plan_free(&p1);
    memplan_arena_plan_free(&p2);
}

static void test_pack_errors(void **state) {
    (void)state;
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    memplan_arena_plan p;
    memplan_error err = {0};
    o.align = 48;
    assert_int_equal(memplan_pack(pqrs, 4, &o, &p, &err), MEMPLAN_EUSAGE);
    assert_non_null(strstr(err.message, "48"));
    o.align = 0;
    assert_int_equal(memplan_pack(pqrs, 4, &o, &p, &err), MEMPLAN_EUSAGE);
    o.align = 64;
    o.heuristics = 64;
    assert_int_equal(memplan_pack(pqrs, 4, &o, &p, &err), MEMPLAN_EUSAGE);
    o.heuristics = 0;
    memplan_buffer bad[] = {{1, 0, 1}, {1, 0, 1}, {1, 5, 2}};
    assert_int_equal(memplan_pack(bad, 3, &o, &p, &err), MEMPLAN_EINPUT);
    assert_non_null(strstr(err.message, "buffer 2"));
    memplan_buffer big[] = {{1, 0, 1}, {UINT64_MAX / 2, 0, 1}, {UINT64_MAX / 2, 0, 1}};
    assert_int_equal(memplan_pack(big, 3, &o, &p, &err), MEMPLAN_ELIMIT);
    assert_non_null(strstr(err.message, "buffer 2"));
    assert_int_equal(memplan_pack(NULL, 0, &o, &p, &err), MEMPLAN_OK);
    assert_int_equal(p.arena_bytes, 0);
    assert_true(p.gap_ratio == 1.0);
    memplan_arena_plan_free(&p);
    assert_string_equal(memplan_heuristic_name(MEMPLAN_HEUR_SKYLINE), "skyline");
    assert_string_equal(memplan_heuristic_name((memplan_heuristic)3), "unknown");
}

/* ---------------------------------------------------------- validators */

static void expect_slot_violation(const memplan_buffer *b, size_t n, const size_t *slot_of, const uint64_t *slot_bytes,
                                  size_t slots, memplan_violation_kind kind, size_t x, size_t y, const char *needle) {
    memplan_slot_plan p = {n, (size_t *)slot_of, slots, (uint64_t *)slot_bytes, 0, 0, 0.0};
    memplan_violation v;
    memplan_error err = {0};
    assert_int_equal(memplan_validate_slots(b, n, &p, &v, &err), MEMPLAN_EINPUT);
    assert_int_equal(v.kind, kind);
    assert_int_equal(v.buffer, x);
    assert_int_equal(v.other, y);
    if (!strstr(err.message, needle)) fail_msg("'%s' lacks '%s'", err.message, needle);
}

static void test_validate_slots(void **state) {
    (void)state;
    memplan_buffer b[] = {{10, 0, 2}, {10, 2, 4}, {10, 1, 3}};
    uint64_t caps[] = {10, 10};
    size_t ok[] = {0, 0, 1};
    memplan_slot_plan good = {3, ok, 2, caps, 0, 0, 0.0};
    memplan_violation v;
    assert_int_equal(memplan_validate_slots(b, 3, &good, &v, NULL), MEMPLAN_OK);
    assert_int_equal(v.kind, MEMPLAN_VIOLATION_NONE);

    size_t shared[] = {0, 1, 0};
    expect_slot_violation(b, 3, shared, caps, 2, MEMPLAN_VIOLATION_SLOT_SHARED, 0, 2, "buffers 0 ");
    size_t none[] = {0, MEMPLAN_NO_SLOT, 1};
    expect_slot_violation(b, 3, none, caps, 2, MEMPLAN_VIOLATION_NO_SLOT, 1, SIZE_MAX, "buffer 1 has no slot");
    size_t unknown[] = {0, 0, 2};
    expect_slot_violation(b, 3, unknown, caps, 2, MEMPLAN_VIOLATION_UNKNOWN_SLOT, 2, SIZE_MAX,
                          "buffer 2: unknown slot 2");
    uint64_t small[] = {10, 9};
    expect_slot_violation(b, 3, ok, small, 2, MEMPLAN_VIOLATION_SLOT_TOO_SMALL, 2, SIZE_MAX, "buffer 2:");
    memplan_buffer bad[] = {{10, 0, 2}, {10, 2, 2}, {10, 1, 3}};
    expect_slot_violation(bad, 3, ok, caps, 2, MEMPLAN_VIOLATION_BAD_BUFFER, 1, SIZE_MAX, "buffer 1");
    assert_int_equal(memplan_validate_slots(b, 2, &good, &v, NULL), MEMPLAN_EUSAGE);
}

static void expect_arena_violation(const memplan_buffer *b, size_t n, const uint64_t *off, uint64_t align,
                                   uint64_t arena, memplan_violation_kind kind, size_t x, size_t y,
                                   const char *needle) {
    memplan_violation v;
    memplan_error err = {0};
    assert_int_equal(memplan_validate_arena(b, n, off, align, arena, &v, &err), MEMPLAN_EINPUT);
    assert_int_equal(v.kind, kind);
    assert_int_equal(v.buffer, x);
    assert_int_equal(v.other, y);
    if (!strstr(err.message, needle)) fail_msg("'%s' lacks '%s'", err.message, needle);
}

static void test_validate_arena(void **state) {
    (void)state;
    memplan_buffer b[] = {{64, 0, 2}, {64, 2, 4}, {64, 1, 3}, {0, 0, 4}};
    uint64_t ok[] = {0, 0, 64, 32};
    assert_int_equal(memplan_validate_arena(b, 4, ok, 1, 128, NULL, NULL), MEMPLAN_OK);
    /* Touching lifetimes may share addresses; zero-size shares nothing. */
    expect_arena_violation(b, 4, ok, 64, 128, MEMPLAN_VIOLATION_MISALIGNED, 3, SIZE_MAX,
                           "buffer 3: offset 32 is not a multiple of 64");
    uint64_t over[] = {0, 0, 63, 0};
    expect_arena_violation(b, 4, over, 1, 128, MEMPLAN_VIOLATION_ADDRESS_OVERLAP, 0, 2, "buffers 0 ");
    uint64_t over2[] = {64, 0, 64, 0};
    expect_arena_violation(b, 4, over2, 64, 128, MEMPLAN_VIOLATION_ADDRESS_OVERLAP, 0, 2, "and 2");
    uint64_t beyond[] = {0, 0, 65, 0};
    expect_arena_violation(b, 4, beyond, 1, 128, MEMPLAN_VIOLATION_BEYOND_ARENA, 2, SIZE_MAX, "buffer 2:");
    uint64_t wrap[] = {0, 0, UINT64_MAX - 10, 0};
    expect_arena_violation(b, 4, wrap, 1, UINT64_MAX, MEMPLAN_VIOLATION_BEYOND_ARENA, 2, SIZE_MAX, "buffer 2:");
    memplan_buffer bad[] = {{1, 0, 1}, {1, -1, 1}};
    uint64_t z[] = {0, 0};
    expect_arena_violation(bad, 2, z, 1, 1, MEMPLAN_VIOLATION_BAD_BUFFER, 1, SIZE_MAX, "buffer 1");
    assert_int_equal(memplan_validate_arena(b, 4, ok, 6, 128, NULL, NULL), MEMPLAN_EUSAGE);
    /* Overlap found across a long-lived middle buffer. */
    memplan_buffer c[] = {{10, 0, 10}, {10, 0, 10}, {10, 5, 6}};
    uint64_t co[] = {0, 20, 15};
    expect_arena_violation(c, 3, co, 1, 30, MEMPLAN_VIOLATION_ADDRESS_OVERLAP, 1, 2, "buffers 1 ");
}

/* Thousands of buffers all live at once: the best-fit decoders would be
 * quadratic, so only first fit runs, or, when many buffers share their
 * times (first fit's per-block lists long), the slot layout first. Both
 * sets below are all live together at their end, so the sum is optimal.
 * Starts spread over 8,000 steps, one end: first fit (each buffer covers
 * the last blocks whole, its lists stay short). All 8,000 on one interval:
 * the slot layout, and first fit is skipped (at the bound). */
static void pack_all_live(const memplan_buffer *b, size_t n, memplan_heuristic want) {
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += (b[i].size + 63) / 64 * 64;
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    memplan_arena_plan p;
    memplan_error err = {0};
    assert_int_equal(memplan_pack(b, n, &o, &p, &err), MEMPLAN_OK);
    assert_int_equal(p.heuristic, want);
    assert_int_equal(p.arena_bytes, sum);
    assert_int_equal(p.lower_bound_bytes, sum);
    memplan_arena_plan_free(&p);
}

static void test_heavy_overlap_uses_slot_layout(void **state) {
    (void)state;
    enum { N = 8000 }; /* 8000 * 8001 / 2 = 32M buffer-overlaps > MEMPLAN_PACK_OVERLAP_MAX */
    memplan_buffer *b = calloc(N, sizeof *b);
    assert_non_null(b);
    for (size_t i = 0; i < N; i++) b[i] = (memplan_buffer){1 + i % 7, (int64_t)i, 2 * N};
    pack_all_live(b, N, MEMPLAN_HEUR_GREEDY_SIZE);
    for (size_t i = 0; i < N; i++) b[i] = (memplan_buffer){1 + i % 7, 0, 10};
    pack_all_live(b, N, MEMPLAN_HEUR_SLOT_LAYOUT);
    assert_string_equal(memplan_heuristic_name(MEMPLAN_HEUR_SLOT_LAYOUT), "slot-layout");
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heavy_overlap_uses_slot_layout),
        cmocka_unit_test(test_greedy_size),
        cmocka_unit_test(test_time_fit),
        cmocka_unit_test(test_skyline),
        cmocka_unit_test(test_best_kept),
        cmocka_unit_test(test_greedy_best_gap),
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_example12_and_search),
        cmocka_unit_test(test_pack_errors),
        cmocka_unit_test(test_validate_slots),
        cmocka_unit_test(test_validate_arena),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
