/* test_liveness.c -- owners, views and intervals (docs/semantics.md, "Liveness"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"

typedef struct fixture {
    memplan_model *m;
    memplan_viewmap vm;
    memplan_liveness lv;
} fixture;

static void run(fixture *f, mb_graph *g, bool views, bool include_inputs) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &f->m, &err), MEMPLAN_OK);
    free(bytes);
    if (views) assert_int_equal(memplan_viewmap_default(&f->vm, f->m->graph, &err), MEMPLAN_OK);
    else
        assert_int_equal(memplan_viewmap_init(&f->vm, f->m->graph, &err), MEMPLAN_OK);
    memplan_liveness_options o = {include_inputs, &f->vm, NULL};
    assert_int_equal(memplan_liveness_compute(f->m->graph, &o, &f->lv, &err), MEMPLAN_OK);
}

static void done(fixture *f) {
    memplan_liveness_free(&f->lv);
    memplan_viewmap_free(&f->vm);
    memplan_model_free(f->m);
}

static int32_t id(fixture *f, const char *name) { return memplan_graph_find(f->m->graph, name); }

static void assert_interval(fixture *f, const char *name, int32_t start, int32_t end) {
    int32_t v = id(f, name);
    assert_true(v >= 0);
    if (f->lv.start[v] != start || f->lv.end[v] != end)
        fail_msg("%s: [%d,%d], expected [%d,%d]", name, f->lv.start[v], f->lv.end[v], start, end);
}

static void test_chain_and_unused(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_initializer(g, "w", 1, "4");
    mb_node(g, "Add", "x,w", "a");    /* 0 */
    mb_node(g, "Abs", "a", "b,junk"); /* 1: junk is never read */
    mb_node(g, "Neg", "b", "y");      /* 2 */
    mb_node(g, "Exp", "a", "z");      /* 3 */
    mb_output(g, "y", 1, "4");
    mb_output(g, "z", 1, "4");
    fixture f = {0};
    run(&f, g, true, false);
    assert_interval(&f, "a", 0, 3);
    assert_interval(&f, "b", 1, 2);
    assert_interval(&f, "junk", 1, 1);
    assert_interval(&f, "y", 2, 3); /* graph output: to the last position */
    assert_interval(&f, "z", 3, 3);
    assert_int_equal(f.lv.root[id(&f, "x")], -1);
    assert_int_equal(f.lv.root[id(&f, "w")], -1);
    assert_int_equal(f.lv.n_owners, 5);
    assert_int_equal(f.lv.owners[0], id(&f, "a"));
    assert_int_equal(f.lv.owners[1], id(&f, "b"));
    assert_int_equal(f.lv.owners[2], id(&f, "junk"));
    done(&f);
}

static void test_views_extend_root(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "2,3");
    mb_input(g, "shape", 7, "1");
    mb_node(g, "Relu", "x", "a");          /* 0 */
    mb_node(g, "Reshape", "a,shape", "r"); /* 1: view of a */
    mb_node(g, "Identity", "r", "rr");     /* 2: view of a view */
    mb_node(g, "Abs", "x", "b");           /* 3 */
    mb_node(g, "Add", "b,rr", "c");        /* 4: last use of rr -> a */
    mb_node(g, "Neg", "c", "d");           /* 5 */
    mb_node(g, "Flatten", "d", "out");     /* 6: a view that is a graph output */
    mb_node(g, "Exp", "x", "e");           /* 7 */
    mb_output(g, "out", 1, "6");
    mb_output(g, "e", 1, "2,3");
    fixture f = {0};
    run(&f, g, true, false);
    assert_int_equal(f.lv.root[id(&f, "rr")], id(&f, "a"));
    assert_int_equal(f.lv.root[id(&f, "r")], id(&f, "a"));
    assert_int_equal(f.lv.start[id(&f, "r")], -1);
    assert_interval(&f, "a", 0, 4);
    assert_interval(&f, "d", 5, 7);     /* kept alive by its view 'out' */
    assert_int_equal(f.lv.n_owners, 5); /* a, b, c, d, e */
    done(&f);
}

static void test_include_inputs(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_input(g, "y", 1, "4");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Add", "a,y", "b");
    mb_node(g, "Neg", "b", "c");
    mb_output(g, "c", 1, "4");
    fixture f = {0};
    run(&f, g, true, true);
    assert_interval(&f, "x", 0, 0);
    assert_interval(&f, "y", 0, 1);
    assert_int_equal(f.lv.owners[0], id(&f, "x"));
    assert_int_equal(f.lv.owners[1], id(&f, "y"));
    assert_int_equal(f.lv.n_owners, 5);
    done(&f);
}

static void test_capture_is_a_use(void **state) {
    (void)state;
    mb_graph *then_g = mb_new_graph("then");
    mb_node(then_g, "Abs", "a", "t");
    mb_output(then_g, "t", 1, "4");
    mb_graph *else_g = mb_new_graph("else");
    mb_node(else_g, "Neg", "a", "e");
    mb_output(else_g, "e", 1, "4");
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_input(g, "c", 9, "");
    mb_node(g, "Relu", "x", "a");                     /* 0 */
    mb_node(g, "Abs", "x", "b");                      /* 1 */
    Onnx__NodeProto *nd = mb_node(g, "If", "c", "y"); /* 2: reads a through its branches */
    mb_graph_attr(nd, "then_branch", then_g);
    mb_graph_attr(nd, "else_branch", else_g);
    mb_node(g, "Add", "y,b", "z"); /* 3 */
    mb_output(g, "z", 1, "4");
    fixture f = {0};
    run(&f, g, true, false);
    assert_interval(&f, "a", 0, 2);
    assert_interval(&f, "b", 1, 3);
    done(&f);
}

static void test_view_cycle(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Neg", "a", "b");
    mb_output(g, "b", 1, "4");
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    memplan_viewmap vm;
    assert_int_equal(memplan_viewmap_init(&vm, m->graph, &err), MEMPLAN_OK);
    int32_t a = memplan_graph_find(m->graph, "a"), b = memplan_graph_find(m->graph, "b");
    assert_int_equal(memplan_viewmap_add(&vm, a, b, &err), MEMPLAN_OK);
    assert_int_equal(memplan_viewmap_add(&vm, b, a, &err), MEMPLAN_OK);
    assert_int_equal(memplan_viewmap_add(&vm, b, b, &err), MEMPLAN_EUSAGE);
    memplan_liveness lv;
    memplan_liveness_options o = {false, &vm, NULL};
    assert_int_equal(memplan_liveness_compute(m->graph, &o, &lv, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "view links form a cycle through value 'a'");
    memplan_viewmap_free(&vm);
    memplan_model_free(m);
}

/* A graph cycle is reported through a value on the cycle (a <-> c), not
 * through 'x', which only the nodes downstream of the cycle read (docs/semantics.md, "Positions and topological
 * order"). */
static void test_graph_cycle_names_a_cycle_value(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "in", 1, "4");
    mb_node(g, "Abs", "x", "d");    /* #0: downstream of the cycle */
    mb_node(g, "Abs", "a", "x");    /* #1: downstream of the cycle */
    mb_node(g, "Add", "in,c", "a"); /* #2: on the cycle */
    mb_node(g, "Abs", "a", "c");    /* #3: on the cycle */
    mb_output(g, "d", 1, "4");
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_EINPUT);
    free(bytes);
    assert_string_equal(err.message,
                        "graph 'g' has a cycle through value 'c' (node #2 (Add) reads it, node #3 (Abs) makes it)");
}

/* The graph-level check catches each kind of violation. */
static void test_check_slots(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_input(g, "s", 7, "1");
    mb_node(g, "Abs", "x", "a");       /* 0 */
    mb_node(g, "Reshape", "a,s", "v"); /* 1: view of a */
    mb_node(g, "Neg", "x", "y");       /* 2: graph output */
    mb_node(g, "Relu", "v", "b");      /* 3: reads a through v */
    mb_node(g, "Exp", "b", "z");       /* 4 */
    mb_output(g, "y", 1, "4");
    mb_output(g, "z", 1, "4");
    fixture f = {0};
    run(&f, g, true, false);
    int64_t slot[16];
    for (int i = 0; i < 16; i++) slot[i] = -1;
    int32_t a = id(&f, "a"), y = id(&f, "y"), b = id(&f, "b"), z = id(&f, "z");
    memplan_error err = {0};
    memplan_graph_violation kind;
    slot[a] = 0;
    slot[y] = 1;
    slot[b] = 2;
    slot[z] = 3;
    assert_int_equal(memplan_liveness_check_slots(f.m->graph, &f.lv, slot, &kind, &err), MEMPLAN_OK);
    slot[b] = 0; /* a lives to 3 (through v), b starts at 3 */
    assert_int_equal(memplan_liveness_check_slots(f.m->graph, &f.lv, slot, &kind, &err), MEMPLAN_EINTERNAL);
    assert_int_equal(kind, MEMPLAN_GV_SHARED_OVERLAP);
    assert_string_equal(err.message, "'a' and 'b' share a slot while both live (position 3)");
    slot[b] = 2;
    slot[z] = 1; /* z (defined at 4) takes output y's slot */
    assert_int_equal(memplan_liveness_check_slots(f.m->graph, &f.lv, slot, &kind, &err), MEMPLAN_EINTERNAL);
    assert_int_equal(kind, MEMPLAN_GV_SHARED_OVERLAP); /* y lives to the end: overlap is found first */
    /* A liveness that ends a's interval too early: the view's use is outside. */
    f.lv.end[a] = 1;
    slot[z] = 3;
    assert_int_equal(memplan_liveness_check_slots(f.m->graph, &f.lv, slot, &kind, &err), MEMPLAN_EINTERNAL);
    assert_int_equal(kind, MEMPLAN_GV_USE_OUTSIDE);
    assert_string_equal(err.message, "'v' is used outside the interval of its buffer 'a' (at position 3)");
    /* An output whose interval was cut short and whose slot goes to a later value. */
    f.lv.end[a] = 3;
    f.lv.end[y] = 2;
    slot[z] = 1;
    assert_int_equal(memplan_liveness_check_slots(f.m->graph, &f.lv, slot, &kind, &err), MEMPLAN_EINTERNAL);
    assert_int_equal(kind, MEMPLAN_GV_OUTPUT_REUSED);
    assert_string_equal(err.message, "graph output 'y' gives its slot to 'z' (defined at position 4)");
    done(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_and_unused), cmocka_unit_test(test_views_extend_root),
        cmocka_unit_test(test_include_inputs),   cmocka_unit_test(test_capture_is_a_use),
        cmocka_unit_test(test_view_cycle),       cmocka_unit_test(test_graph_cycle_names_a_cycle_value),
        cmocka_unit_test(test_check_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
