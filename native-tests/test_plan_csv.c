/* test_plan_csv.c -- the id,lower,upper,size reader and the offset writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memplan/plan.h"

static void test_read_write(void **state) {
    (void)state;
    const char text[] =
        "id,lower,upper,size\r\nb1,0,3,4\r\n\nb2,3,9,18446744073709551615\nx,9223372036854775806,9223372036854775807,0";
    memplan_buffer_list l;
    memplan_error err = {0};
    assert_int_equal(memplan_csv_read(text, strlen(text), &l, &err), MEMPLAN_OK);
    assert_int_equal(l.count, 3);
    assert_string_equal(l.ids[0], "b1");
    assert_string_equal(l.ids[2], "x");
    assert_int_equal(l.buffers[1].size, UINT64_MAX);
    assert_int_equal(l.buffers[1].start, 3);
    assert_int_equal(l.buffers[2].end, INT64_MAX);
    uint64_t off[] = {0, 4, 7};
    char *out = NULL;
    size_t len = 0;
    assert_int_equal(memplan_csv_write(&l, off, &out, &len, &err), MEMPLAN_OK);
    assert_string_equal(out, "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,18446744073709551615,4\n"
                             "x,9223372036854775806,9223372036854775807,0,7\n");
    assert_int_equal(len, strlen(out));
    free(out);
    memplan_buffer_list_free(&l);

    assert_int_equal(memplan_csv_read("id,lower,upper,size\n", 20, &l, &err), MEMPLAN_OK);
    assert_int_equal(l.count, 0);
    memplan_buffer_list_free(&l);
}

static void expect_error(const char *text, size_t len, const char *message) {
    memplan_buffer_list l;
    memplan_error err = {0};
    assert_int_equal(memplan_csv_read(text, len, &l, &err), MEMPLAN_EINPUT);
    if (strcmp(err.message, message) != 0) fail_msg("got '%s', want '%s'", err.message, message);
    assert_null(l.buffers);
}

#define H "id,lower,upper,size\n"
#define E(t, m) expect_error(t, sizeof(t) - 1, m)

static void test_read_errors(void **state) {
    (void)state;
    E("", "line 1: missing header 'id,lower,upper,size'");
    E("\n\n", "line 1: missing header 'id,lower,upper,size'");
    E("id,lower,upper\n", "line 1: expected the header 'id,lower,upper,size'");
    E("0,1,2,3\n", "line 1: expected the header 'id,lower,upper,size'");
    E(H "a,1,2\n", "line 2: expected 4 fields id,lower,upper,size, found 3");
    E(H "a,1,2,3,4\n", "line 2: expected 4 fields id,lower,upper,size, found 5");
    E(H "a,0,1,1\n,0,1,1\n", "line 3: empty id");
    E(H "\"a\",0,1,1\n", "line 2: quoted ids are not supported");
    E(H "a,x,1,1\n", "line 2: lower 'x' is not an integer in int64 range");
    E(H "a,,1,1\n", "line 2: lower '' is not an integer in int64 range");
    E(H "a, 1,2,1\n", "line 2: lower ' 1' is not an integer in int64 range");
    E(H "a,0,9223372036854775808,1\n", "line 2: upper '9223372036854775808' is not an integer in int64 range");
    E(H "a,0,1,18446744073709551616\n", "line 2: size '18446744073709551616' is not an integer in uint64 range");
    E(H "a,0,1,-5\n", "line 2: size -5 is negative");
    E(H "a,0,1,1.5\n", "line 2: size '1.5' is not an integer in uint64 range");
    E(H "a,-1,1,1\n", "line 2: lower -1 is negative");
    E(H "a,5,5,1\n", "line 2: upper 5 must be greater than lower 5");
    E(H "a,5,-9223372036854775808,1\n", "line 2: upper -9223372036854775808 must be greater than lower 5");
    E(H "a,0,1,1\nb,0,1,1\na,0,1,1\nb,1,2,2\n", "line 4: duplicate id 'a' (first on line 2)");
    E(H "b,0,1,1\na,0,1,1\na,0,1,1\nb,1,2,2\n", "line 4: duplicate id 'a' (first on line 3)");
    expect_error(H "a,0,1\0,1\n", sizeof(H "a,0,1\0,1\n") - 1, "line 2: NUL byte in line");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_write),
        cmocka_unit_test(test_read_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
