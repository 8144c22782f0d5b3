/* test_plan_property.c -- randomized checks of every planner against
 * independent O(n^2) checkers written here: 10,000 random instances with
 * sizes from 0 to near 2^40, random lifetimes with many ties. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memplan/plan.h"
#include "memplan/validate.h"

#define INSTANCES 10000
#define MAX_N 40

static uint64_t rng_state = 0x1234567u;

static uint64_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static uint64_t below(uint64_t n) { return rnd() % n; }

static uint64_t random_size(void) {
    switch (below(6)) {
    case 0: return 0;
    case 1: return 1 + below(64);
    case 2: return 64 * (1 + below(16));
    case 3: return (1ull << 40) - below(4096); /* huge, near 2^40 */
    default: return 1 + below(100000);
    }
}

static size_t random_instance(memplan_buffer *b) {
    size_t n = 1 + (size_t)below(MAX_N);
    int64_t horizon = 1 + (int64_t)below(3 + n); /* small horizons force ties */
    for (size_t i = 0; i < n; i++) {
        int64_t s = (int64_t)below((uint64_t)horizon);
        int64_t len = below(4) == 0 ? horizon + 1 - s : 1 + (int64_t)below(3);
        b[i] = (memplan_buffer){random_size(), s, s + len};
    }
    return n;
}

static bool live_together(const memplan_buffer *a, const memplan_buffer *b) {
    return a->start < b->end && b->start < a->end;
}

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

/* Lower bound by brute force over every start time. */
static uint64_t brute_lower_bound(const memplan_buffer *b, size_t n, uint64_t align) {
    uint64_t best = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t live = 0;
        for (size_t j = 0; j < n; j++)
            if (b[j].start <= b[i].start && b[i].start < b[j].end) live += align_up(b[j].size, align);
        if (live > best) best = live;
    }
    return best;
}

/* Independent O(n^2) arena check: true when valid. */
static bool brute_arena_ok(const memplan_buffer *b, size_t n, const uint64_t *off, uint64_t align, uint64_t arena) {
    for (size_t i = 0; i < n; i++) {
        if (off[i] % align) return false;
        if (off[i] + b[i].size > arena) return false;
        for (size_t j = i + 1; j < n; j++) {
            if (!live_together(&b[i], &b[j]) || !b[i].size || !b[j].size) continue;
            if (off[i] < off[j] + b[j].size && off[j] < off[i] + b[i].size) return false;
        }
    }
    return true;
}

static void check_slots(const memplan_buffer *b, size_t n, memplan_slot_strategy strat) {
    memplan_slot_plan p;
    memplan_error err = {0};
    assert_int_equal(memplan_plan_slots(b, n, strat, &p, &err), MEMPLAN_OK);
    assert_int_equal(memplan_validate_slots(b, n, &p, NULL, &err), MEMPLAN_OK);
    uint64_t peak = 0;
    for (size_t s = 0; s < p.slot_count; s++) peak += p.slot_bytes[s];
    assert_int_equal(peak, p.peak_bytes);
    for (size_t i = 0; i < n; i++) {
        assert_true(p.slot_of[i] < p.slot_count);
        assert_true(p.slot_bytes[p.slot_of[i]] >= b[i].size);
        if (strat == MEMPLAN_SLOT_EXACT) assert_int_equal(p.slot_bytes[p.slot_of[i]], b[i].size);
        for (size_t j = i + 1; j < n; j++)
            if (p.slot_of[i] == p.slot_of[j]) assert_false(live_together(&b[i], &b[j]));
    }
    assert_true(p.peak_bytes <= p.naive_bytes);
    memplan_slot_plan_free(&p);
}

static uint64_t check_pack(const memplan_buffer *b, size_t n, unsigned heur, uint64_t align, uint32_t budget) {
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.align = align;
    o.heuristics = heur;
    o.budget_ms = budget;
    memplan_arena_plan p;
    memplan_error err = {0};
    assert_int_equal(memplan_pack(b, n, &o, &p, &err), MEMPLAN_OK);
    assert_int_equal(memplan_validate_arena(b, n, p.offset, align, p.arena_bytes, NULL, &err), MEMPLAN_OK);
    assert_true(brute_arena_ok(b, n, p.offset, align, p.arena_bytes));
    assert_int_equal(p.lower_bound_bytes, brute_lower_bound(b, n, align));
    assert_true(p.arena_bytes >= p.lower_bound_bytes);
    uint64_t top = 0;
    for (size_t i = 0; i < n; i++)
        if (p.offset[i] + align_up(b[i].size, align) > top) top = p.offset[i] + align_up(b[i].size, align);
    assert_int_equal(top, p.arena_bytes);
    uint64_t arena = p.arena_bytes;
    memplan_arena_plan_free(&p);
    return arena;
}

/* The validator agrees with the brute-force checker on corrupted plans. */
static void check_validator_agrees(const memplan_buffer *b, size_t n) {
    uint64_t off[MAX_N];
    uint64_t align = below(2) ? 1 : 16;
    for (size_t i = 0; i < n; i++) off[i] = below(3) ? below(8) * align : below(1u << 20);
    uint64_t arena = 0;
    for (size_t i = 0; i < n; i++)
        if (off[i] + b[i].size > arena) arena = off[i] + b[i].size;
    if (below(4) == 0 && arena > 0) arena--;
    bool ok = memplan_validate_arena(b, n, off, align, arena, NULL, NULL) == MEMPLAN_OK;
    assert_int_equal(ok, brute_arena_ok(b, n, off, align, arena));
}

static void test_random_instances(void **state) {
    (void)state;
    static const uint64_t aligns[] = {1, 8, 64, 4096};
    memplan_buffer b[MAX_N];
    for (int k = 0; k < INSTANCES; k++) {
        size_t n = random_instance(b);
        uint64_t align = aligns[below(4)];
        check_slots(b, n, MEMPLAN_SLOT_BEST_FIT);
        check_slots(b, n, MEMPLAN_SLOT_EXACT);
        uint64_t g = check_pack(b, n, MEMPLAN_HEUR_GREEDY_SIZE, align, 0);
        uint64_t t = check_pack(b, n, MEMPLAN_HEUR_TIME_FIT, align, 0);
        uint64_t s = check_pack(b, n, MEMPLAN_HEUR_SKYLINE, align, 0);
        uint64_t all = check_pack(b, n, 0, align, k % 200 == 0 ? 1 : 0);
        assert_true(all <= g && all <= t && all <= s);
        check_validator_agrees(b, n);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_instances),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
