/* test_error.c -- the memplan_error record (src/util/error.c): messages
 * formatted and cut at MEMPLAN_ERROR_MAX, context prefixes that keep the
 * status and cut the longer side, a NULL record, the status names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "memplan/error.h"

static void test_set_formats_and_returns_status(void **state) {
    (void)state;
    memplan_error err = {0};
    assert_int_equal(memplan_error_set(&err, MEMPLAN_EINPUT, "node '%s' has %d inputs", "Add_1", 3), MEMPLAN_EINPUT);
    assert_int_equal(err.status, MEMPLAN_EINPUT);
    assert_string_equal(err.message, "node 'Add_1' has 3 inputs");
    /* no record: the status is still returned */
    assert_int_equal(memplan_error_set(NULL, MEMPLAN_ENOMEM, "out of memory"), MEMPLAN_ENOMEM);
}

/* A message longer than the record ends at MEMPLAN_ERROR_MAX - 1 characters. */
static void test_set_cuts_long_messages(void **state) {
    (void)state;
    char long_name[2 * MEMPLAN_ERROR_MAX];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    memplan_error err = {0};
    memplan_error_set(&err, MEMPLAN_ELIMIT, "%s", long_name);
    assert_int_equal(strlen(err.message), MEMPLAN_ERROR_MAX - 1);
    assert_int_equal(err.message[0], 'x');
}

static void test_prefix_keeps_status(void **state) {
    (void)state;
    memplan_error err = {0};
    memplan_error_set(&err, MEMPLAN_EINPUT, "dangling input 'x'");
    assert_int_equal(memplan_error_prefix(&err, "graph '%s'", "main"), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "graph 'main': dangling input 'x'");
    assert_int_equal(err.status, MEMPLAN_EINPUT);
    assert_int_equal(memplan_error_prefix(NULL, "graph"), MEMPLAN_EINTERNAL);
}

/* A long message under a short prefix loses its end; a prefix longer than
 * the record keeps its first MEMPLAN_ERROR_MAX - 3 characters and ": ". */
static void test_prefix_cuts(void **state) {
    (void)state;
    char fill[MEMPLAN_ERROR_MAX];
    memset(fill, 'm', sizeof fill - 1);
    fill[sizeof fill - 1] = '\0';
    memplan_error err = {0};
    memplan_error_set(&err, MEMPLAN_EINPUT, "%s", fill); /* 511 characters */
    memplan_error_prefix(&err, "ctx");
    assert_int_equal(strlen(err.message), MEMPLAN_ERROR_MAX - 1);
    assert_memory_equal(err.message, "ctx: mmm", 8);

    char big[2 * MEMPLAN_ERROR_MAX];
    memset(big, 'p', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memplan_error_set(&err, MEMPLAN_EUSAGE, "rest");
    memplan_error_prefix(&err, "%s", big);
    assert_int_equal(strlen(err.message), MEMPLAN_ERROR_MAX - 1);
    assert_int_equal(err.message[MEMPLAN_ERROR_MAX - 4], 'p');
    assert_memory_equal(&err.message[MEMPLAN_ERROR_MAX - 3], ": ", 2);
    assert_int_equal(err.status, MEMPLAN_EUSAGE);
}

static void test_status_names(void **state) {
    (void)state;
    assert_string_equal(memplan_status_name(MEMPLAN_OK), "ok");
    assert_string_equal(memplan_status_name(MEMPLAN_EINPUT), "input");
    assert_string_equal(memplan_status_name(MEMPLAN_ENOMEM), "memory");
    assert_string_equal(memplan_status_name(MEMPLAN_ELIMIT), "limit");
    assert_string_equal(memplan_status_name(MEMPLAN_EUSAGE), "usage");
    assert_string_equal(memplan_status_name(MEMPLAN_EINTERNAL), "internal");
    assert_string_equal(memplan_status_name((memplan_status)99), "unknown");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_formats_and_returns_status),
        cmocka_unit_test(test_set_cuts_long_messages),
        cmocka_unit_test(test_prefix_keeps_status),
        cmocka_unit_test(test_prefix_cuts),
        cmocka_unit_test(test_status_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
