/* test_shapes_scratch.c -- the shape inference's scratch memory
 * (src/shapes/scratch.h): stack order, block reuse, limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"
#include "shapes/scratch.h"
#include "shapes_test_util.h"

static void test_stack_order(void **state) {
    (void)state;
    mp_scratch s;
    mp_scratch_init(&s);
    mp_scratch_mark m0 = mp_scratch_top(&s);
    unsigned char *a = mp_scratch_alloc(&s, 3, 1);
    unsigned char *b = mp_scratch_alloc(&s, 0, 8); /* a count of 0 still gets room */
    unsigned char *c = mp_scratch_alloc(&s, 5, 8);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_int_equal((uintptr_t)a % 16, 0);
    assert_ptr_equal(b, a + 16); /* sizes round up to 16 */
    assert_ptr_equal(c, b + 16);
    mp_scratch_mark m1 = mp_scratch_top(&s);
    unsigned char *d = mp_scratch_alloc(&s, 100, 1);
    assert_ptr_equal(d, c + 48);
    mp_scratch_mark m2 = mp_scratch_top(&s);
    unsigned char *e = mp_scratch_alloc(&s, 1, 1);
    mp_scratch_release(&s, m2);
    assert_ptr_equal(mp_scratch_alloc(&s, 1, 1), e);
    mp_scratch_release(&s, m1); /* back past m2 too */
    assert_ptr_equal(mp_scratch_alloc(&s, 1, 1), d);
    mp_scratch_release(&s, m0);
    assert_ptr_equal(mp_scratch_alloc(&s, 1, 1), a);
    mp_scratch_free(&s);
    mp_scratch_free(&s); /* freeing twice is harmless: the list is empty */
}

static void test_blocks_reused(void **state) {
    (void)state;
    mp_scratch s;
    mp_scratch_init(&s);
    mp_scratch_mark m = mp_scratch_top(&s);
    unsigned char *a = mp_scratch_alloc(&s, 40 * 1024, 1);
    unsigned char *b = mp_scratch_alloc(&s, 40 * 1024, 1); /* does not fit a 64 KiB block: the next one */
    unsigned char *big = mp_scratch_alloc(&s, 300 * 1024, 1); /* a block of its own size */
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(big);
    memset(a, 1, 40 * 1024);
    memset(b, 2, 40 * 1024);
    memset(big, 3, 300 * 1024); /* every byte is ours (ASan checks) */
    assert_int_equal(a[40 * 1024 - 1], 1);
    mp_scratch_release(&s, m);
    /* the same blocks again, in the same order: nothing new is allocated */
    assert_ptr_equal(mp_scratch_alloc(&s, 40 * 1024, 1), a);
    assert_ptr_equal(mp_scratch_alloc(&s, 40 * 1024, 1), b);
    assert_ptr_equal(mp_scratch_alloc(&s, 300 * 1024, 1), big);
    mp_scratch_release(&s, m);
    /* a request larger than the next block gets a new one before it */
    unsigned char *a2 = mp_scratch_alloc(&s, 40 * 1024, 1);
    unsigned char *huge = mp_scratch_alloc(&s, 400 * 1024, 1);
    assert_ptr_equal(a2, a);
    assert_non_null(huge);
    assert_true(huge != b && huge != big);
    memset(huge, 4, 400 * 1024);
    assert_ptr_equal(mp_scratch_alloc(&s, 40 * 1024, 1), b);
    mp_scratch_free(&s);
}

static void test_limits(void **state) {
    (void)state;
    mp_scratch s;
    mp_scratch_init(&s);
    unsigned char *a = mp_scratch_alloc(&s, 8, 1);
    assert_null(mp_scratch_alloc(&s, SIZE_MAX / 2, 8)); /* count * size overflows */
    assert_null(mp_scratch_alloc(&s, 1, SIZE_MAX));
    assert_ptr_equal(mp_scratch_alloc(&s, 8, 1), a + 16); /* a refusal changes nothing */
    mp_scratch_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_order),
        cmocka_unit_test(test_blocks_reused),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
