/* test_plan_slots.c -- slot planner, exact-reuse strategy, lower bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "memplan/plan.h"
#include "memplan/validate.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Plan, validate, and compare slot ids and peak. */
static void expect_slots(const memplan_buffer *b, size_t n, memplan_slot_strategy strat, const size_t *want,
                         size_t want_slots, uint64_t want_peak) {
    memplan_slot_plan p;
    memplan_error err = {0};
    assert_int_equal(memplan_plan_slots(b, n, strat, &p, &err), MEMPLAN_OK);
    assert_int_equal(memplan_validate_slots(b, n, &p, NULL, &err), MEMPLAN_OK);
    for (size_t i = 0; i < n; i++) assert_int_equal(p.slot_of[i], want[i]);
    assert_int_equal(p.slot_count, want_slots);
    assert_int_equal(p.peak_bytes, want_peak);
    uint64_t naive = 0;
    for (size_t i = 0; i < n; i++) naive += b[i].size;
    assert_int_equal(p.naive_bytes, naive);
    memplan_slot_plan_free(&p);
}

/* v0 -> v1 -> v2 -> v3: inclusive [0,1] [1,2] [2,3] [3,3]. */
static void test_chain_two_slots(void **state) {
    (void)state;
    memplan_buffer b[] = {{100, 0, 2}, {100, 1, 3}, {100, 2, 4}, {100, 3, 4}};
    size_t want[] = {0, 1, 0, 1};
    expect_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, want, 2, 200);
    memplan_slot_plan p;
    assert_int_equal(memplan_plan_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, &p, NULL), MEMPLAN_OK);
    assert_true(p.savings_ratio > 0.4999 && p.savings_ratio < 0.5001);
    memplan_slot_plan_free(&p);
}

/* a feeds b and c, which feed d. */
static void test_diamond(void **state) {
    (void)state;
    memplan_buffer b[] = {{100, 0, 3}, {100, 1, 4}, {100, 2, 4}, {100, 3, 4}};
    size_t want[] = {0, 1, 2, 0};
    expect_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, want, 3, 300);
}

/* x -> y -> z, then w = x + z: the skip keeps x alive, so three slots. */
static void test_residual_skip(void **state) {
    (void)state;
    memplan_buffer b[] = {{64, 0, 4}, {64, 1, 3}, {64, 2, 4}, {64, 3, 4}};
    size_t want[] = {0, 1, 2, 1};
    expect_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, want, 3, 192);
}

/* Two chains one after the other reuse the first chain's slots, best fit. */
static void test_disjoint_chains_share(void **state) {
    (void)state;
    memplan_buffer b[] = {{10, 0, 2}, {20, 1, 3}, {20, 3, 5}, {10, 4, 6}};
    size_t want[] = {0, 1, 1, 0};
    expect_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, want, 2, 30);
}

/* Retired capacities 50, 30, 30: a 25 takes slot 1 (smallest, lowest id). */
static void test_best_fit_tie_lowest_id(void **state) {
    (void)state;
    memplan_buffer b[] = {{50, 0, 1}, {30, 0, 1}, {30, 0, 1}, {25, 1, 2}, {30, 1, 2}, {40, 1, 2}};
    size_t want[] = {0, 1, 2, 1, 2, 0};
    expect_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, want, 3, 110);
}

/* A retired slot too small is never grown: a new slot opens. */
static void test_never_grow(void **state) {
    (void)state;
    memplan_buffer b[] = {{10, 0, 1}, {20, 1, 2}, {10, 2, 3}};
    size_t want[] = {0, 1, 0};
    expect_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, want, 2, 30);
}

/* Same start: outputs of one node never share; input order decides ids. */
static void test_same_start_and_touching(void **state) {
    (void)state;
    memplan_buffer b[] = {{8, 0, 1}, {8, 0, 2}, {8, 1, 2}};
    size_t want[] = {0, 1, 0};
    expect_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, want, 2, 16);
}

/* Input not sorted by start: walked by start, ties by input order. */
static void test_unsorted_input(void **state) {
    (void)state;
    memplan_buffer b[] = {{10, 2, 3}, {10, 0, 2}, {10, 0, 1}};
    size_t want[] = {0, 0, 1};
    expect_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, want, 2, 20);
}

static void test_exact_reuse(void **state) {
    (void)state;
    memplan_buffer b[] = {{30, 0, 1}, {20, 1, 2}, {30, 2, 3}};
    size_t best[] = {0, 0, 0};
    size_t exact[] = {0, 1, 0};
    expect_slots(b, N(b), MEMPLAN_SLOT_BEST_FIT, best, 1, 30);
    expect_slots(b, N(b), MEMPLAN_SLOT_EXACT, exact, 2, 50);
}

static void test_empty_and_errors(void **state) {
    (void)state;
    memplan_slot_plan p;
    memplan_error err = {0};
    assert_int_equal(memplan_plan_slots(NULL, 0, MEMPLAN_SLOT_BEST_FIT, &p, &err), MEMPLAN_OK);
    assert_int_equal(p.peak_bytes, 0);
    assert_true(p.savings_ratio == 0.0);
    memplan_slot_plan_free(&p);

    memplan_buffer bad[] = {{1, 0, 1}, {1, 3, 3}};
    assert_int_equal(memplan_plan_slots(bad, 2, MEMPLAN_SLOT_BEST_FIT, &p, &err), MEMPLAN_EINPUT);
    assert_non_null(strstr(err.message, "buffer 1"));
    memplan_buffer neg[] = {{1, -1, 1}};
    assert_int_equal(memplan_plan_slots(neg, 1, MEMPLAN_SLOT_EXACT, &p, &err), MEMPLAN_EINPUT);
    assert_non_null(strstr(err.message, "buffer 0"));
    memplan_buffer big[] = {{UINT64_MAX, 0, 1}, {1, 0, 1}};
    assert_int_equal(memplan_plan_slots(big, 2, MEMPLAN_SLOT_BEST_FIT, &p, &err), MEMPLAN_ELIMIT);
    assert_non_null(strstr(err.message, "buffer 1"));
    assert_int_equal(memplan_plan_slots(big, 1, (memplan_slot_strategy)7, &p, &err), MEMPLAN_EUSAGE);
}

static void test_lower_bound(void **state) {
    (void)state;
    memplan_buffer b[] = {{100, 0, 2}, {64, 1, 3}, {1, 2, 4}};
    uint64_t lb = 0;
    memplan_error err = {0};
    assert_int_equal(memplan_lower_bound(b, N(b), 64, &lb, &err), MEMPLAN_OK);
    assert_int_equal(lb, 192); /* 128 + 64 at t = 1 */
    assert_int_equal(memplan_lower_bound(b, N(b), 1, &lb, &err), MEMPLAN_OK);
    assert_int_equal(lb, 164);
    /* touching lifetimes do not add up */
    memplan_buffer t[] = {{10, 0, 1}, {10, 1, 2}, {10, 2, 3}};
    assert_int_equal(memplan_lower_bound(t, N(t), 1, &lb, &err), MEMPLAN_OK);
    assert_int_equal(lb, 10);
    assert_int_equal(memplan_lower_bound(t, N(t), 3, &lb, &err), MEMPLAN_EUSAGE);
    assert_int_equal(memplan_lower_bound(t, N(t), 0, &lb, &err), MEMPLAN_EUSAGE);
    assert_int_equal(memplan_lower_bound(NULL, 0, 1, &lb, &err), MEMPLAN_OK);
    assert_int_equal(lb, 0);
    memplan_buffer huge[] = {{UINT64_MAX - 10, 0, 1}};
    assert_int_equal(memplan_lower_bound(huge, 1, 64, &lb, &err), MEMPLAN_ELIMIT);
    assert_non_null(strstr(err.message, "buffer 0"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_two_slots),
        cmocka_unit_test(test_diamond),
        cmocka_unit_test(test_residual_skip),
        cmocka_unit_test(test_disjoint_chains_share),
        cmocka_unit_test(test_best_fit_tie_lowest_id),
        cmocka_unit_test(test_never_grow),
        cmocka_unit_test(test_same_start_and_touching),
        cmocka_unit_test(test_unsorted_input),
        cmocka_unit_test(test_exact_reuse),
        cmocka_unit_test(test_empty_and_errors),
        cmocka_unit_test(test_lower_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
