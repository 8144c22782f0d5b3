/* test_shapes_scratch.c -- the shape inference's scratch memory
 * (src/shapes/scratch.h): stack order, block reuse, limits; and inference of
 * deeply nested subgraphs on a small thread stack, which the rank-sized
 * arrays the rules once kept on the stack (a Scan frame of 22.7 KB per
 * level, Slice 82 KB) overflowed. */
#include <pthread.h>
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
    unsigned char *b = mp_scratch_alloc(&s, 40 * 1024, 1);    /* does not fit a 64 KiB block: the next one */
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

/* ---- deep nesting on a small stack -------------------------------------- */

#define DEPTH 31 /* Scans nested in Scan bodies: the loader allows 32 levels */

/* A Scan body whose state s goes through a nested Scan (when depth > 0) and
 * rules that once kept rank-sized arrays on the stack. */
static mb_graph *scan_body(int depth) {
    mb_graph *g = mb_new_graph("body");
    mb_input(g, "s", 1, NULL);
    const char *in = "s";
    if (depth > 0) {
        Onnx__NodeProto *nd = mb_node(g, "Scan", "s", "inner");
        mb_int_attr(nd, "num_scan_inputs", 0);
        mb_graph_attr(nd, "body", scan_body(depth - 1));
        in = "inner";
    }
    mb_node(g, "Transpose", in, "t");
    mb_node(g, "Transpose", "t", "s_out");
    mb_node(g, "ReduceSum", "t", "r");
    int64_t starts[1] = {1}, ends[1] = {3};
    mb_initializer_ints(g, "starts", "1", starts, 1);
    mb_initializer_ints(g, "ends", "1", ends, 1);
    mb_node(g, "Slice", "t,starts,ends", "sl");
    mb_output(g, "s_out", 1, NULL);
    return g;
}

typedef struct job {
    const memplan_model *m;
    memplan_shapes *s;
    memplan_status st;
    char message[512];
} job;

/* The thread only infers; cmocka's checks stay on the main thread. */
static void *infer_job(void *arg) {
    job *j = arg;
    memplan_error err = {0};
    j->st = memplan_shapes_infer(j->m, &j->s, &err);
    if (j->st) snprintf(j->message, sizeof j->message, "%s", err.message);
    return NULL;
}

static void test_deep_scans_small_stack(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "s", 1, "4,8");
    Onnx__NodeProto *nd = mb_node(g, "Scan", "s", "y");
    mb_int_attr(nd, "num_scan_inputs", 0);
    mb_graph_attr(nd, "body", scan_body(DEPTH - 1));
    mb_output(g, "y", 1, NULL);
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m;
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &m, &err)) fail_msg("%s", err.message);
    free(bytes);
    job j = {m, NULL, MEMPLAN_OK, ""};
    /* Inference alone (loading is not under test) in 64 KiB, the default
     * stack of current Emscripten: the former frames needed 31 x 22.7 KB
     * for the Scans alone. Sanitizers widen every frame: 1 MiB there. */
    size_t stack = 64 * 1024;
#if defined(__SANITIZE_ADDRESS__)
    stack = 1024 * 1024;
#endif
    pthread_attr_t attr;
    pthread_t t;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, stack), 0);
    assert_int_equal(pthread_create(&t, &attr, infer_job, &j), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&attr);
    if (j.st) fail_msg("%s", j.message);
    ctx c = {m, j.s};
    expect(&c, "y", "float[4,8] 128");
    /* the innermost body, 31 levels down, saw the shapes passed in */
    const memplan_graph *body = c.m->graph;
    for (int d = 0; d < DEPTH; d++) {
        const memplan_node *scan = &body->nodes[0];
        assert_string_equal(scan->op_type, "Scan");
        body = scan->subgraphs[0];
    }
    memplan_expr_pool *p = memplan_shapes_pool(c.s);
    const char *names[3] = {"t", "r", "sl"}, *want[3] = {"8,4", "1,1", "2,4"};
    for (int k = 0; k < 3; k++) {
        const memplan_vshape *v = memplan_shapes_value(c.s, body, memplan_graph_find(body, names[k]));
        assert_non_null(v);
        char got[64];
        assert_int_equal(v->rank, 2);
        snprintf(got, sizeof got, "%s,%s", memplan_expr_str(p, v->dims[0]), memplan_expr_str(p, v->dims[1]));
        assert_string_equal(got, want[k]);
    }
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_order),
        cmocka_unit_test(test_blocks_reused),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_deep_scans_small_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
