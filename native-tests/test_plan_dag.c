/*
 * test_plan_dag.c -- property test over 10,000 random DAGs: random sizes,
 * views (and views of views), several outputs per node, graph outputs.
 * Every slot and arena plan must validate, the arena never goes below the
 * lower bound, and an independent O(n^2) checker written here (not the
 * planner's validator) re-checks slot sharing, address overlap, view
 * liveness and graph-output lifetimes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint32_t below(uint32_t n) { return (uint32_t)(rnd() % n); }

/* A random graph: values v0 (input), then node outputs. */
static mb_graph *random_graph(int *n_values_out) {
    mb_graph *g = mb_new_graph("rand");
    char name[32], ins[128], outs[128], dims[32];
    mb_input(g, "v0", 1, "3");
    int nv = 1;
    int nodes = 1 + (int)below(30);
    for (int i = 0; i < nodes; i++) {
        bool view = below(4) == 0;
        int n_in = view ? 1 : 1 + (int)below(3);
        int n_out = view ? 1 : 1 + (int)below(3);
        ins[0] = outs[0] = 0;
        for (int k = 0; k < n_in; k++) {
            snprintf(name, sizeof name, "%sv%u", k ? "," : "", below((uint32_t)nv));
            strcat(ins, name);
        }
        for (int k = 0; k < n_out; k++) {
            snprintf(name, sizeof name, "%sv%d", k ? "," : "", nv + k);
            strcat(outs, name);
            /* sizes: mostly small, sometimes large, sometimes zero */
            uint32_t pick = below(10);
            unsigned long long elems = pick == 0 ? 0 : pick < 8 ? 1 + below(64) : 1 + below(1u << 20);
            snprintf(dims, sizeof dims, "%llu", elems);
            snprintf(name, sizeof name, "v%d", nv + k);
            mb_value(g, name, 1, dims);
        }
        mb_node(g, view ? (below(2) ? "Identity" : "Reshape") : "Custom", ins, outs);
        nv += n_out;
    }
    /* last value always an output, plus a few random ones */
    snprintf(name, sizeof name, "v%d", nv - 1);
    mb_output(g, name, 1, NULL);
    for (int k = 0; k < 2; k++) {
        uint32_t v = 1 + below((uint32_t)(nv - 1 > 0 ? nv - 1 : 1));
        if ((int)v == nv - 1 || v >= (uint32_t)nv) continue;
        snprintf(name, sizeof name, "v%u", v);
        bool dup = false;
        for (size_t o = 0; o < g->n_output; o++) dup |= strcmp(g->output[o]->name, name) == 0;
        if (!dup) mb_output(g, name, 1, NULL);
    }
    *n_values_out = nv;
    return g;
}

static bool overlap(int64_t s1, int64_t e1, int64_t s2, int64_t e2) { return s1 < e2 && s2 < e1; }

static void check_one(int iter) {
    int nv;
    mb_graph *pg = random_graph(&nv);
    size_t len;
    uint8_t *bytes = mb_pack(pg, &len);
    memplan_model *m;
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &m, &err)) fail_msg("iter %d: %s", iter, err.message);
    free(bytes);
    const memplan_graph *g = m->graph;
    memplan_viewmap vm;
    assert_int_equal(memplan_viewmap_default(&vm, g, &err), MEMPLAN_OK);
    memplan_liveness lv;
    memplan_liveness_options lo = {below(2) == 0, &vm};
    assert_int_equal(memplan_liveness_compute(g, &lo, &lv, &err), MEMPLAN_OK);

    size_t n = (size_t)lv.n_owners;
    memplan_buffer *bufs = calloc(n ? n : 1, sizeof *bufs);
    for (size_t i = 0; i < n; i++) {
        int32_t v = lv.owners[i];
        memplan_size s = memplan_type_size(&g->values[v].type, NULL, 0);
        assert_int_equal(s.kind, MEMPLAN_SIZE_KNOWN);
        bufs[i].size = s.bytes;
        bufs[i].start = lv.start[v];
        bufs[i].end = lv.end[v] + 1;
    }
    /* Independent liveness checks: every use of a value lies in its root's interval. */
    int32_t last = g->n_nodes - 1;
    for (int32_t p = 0; p < g->n_nodes; p++)
        for (int32_t k = 0; k < g->nodes[p].n_inputs; k++) {
            int32_t r = lv.root[g->nodes[p].inputs[k]];
            if (r >= 0) assert_true(lv.start[r] <= p && p <= lv.end[r]);
        }
    for (int32_t o = 0; o < g->n_outputs; o++) {
        int32_t r = lv.root[g->outputs[o]];
        if (r >= 0) assert_int_equal(lv.end[r], last);
    }

    memplan_slot_plan sp;
    assert_int_equal(memplan_plan_slots(bufs, n, MEMPLAN_SLOT_BEST_FIT, &sp, &err), MEMPLAN_OK);
    memplan_violation viol;
    assert_int_equal(memplan_validate_slots(bufs, n, &sp, &viol, &err), MEMPLAN_OK);
    /* The graph-level check agrees. */
    int64_t *slot_of = malloc((size_t)g->n_values * sizeof *slot_of);
    for (int32_t v = 0; v < g->n_values; v++) slot_of[v] = -1;
    for (size_t i = 0; i < n; i++) slot_of[lv.owners[i]] = (int64_t)sp.slot_of[i];
    if (memplan_liveness_check_slots(g, &lv, slot_of, NULL, &err)) fail_msg("iter %d: %s", iter, err.message);
    free(slot_of);
    memplan_pack_options po;
    memplan_pack_options_init(&po);
    po.align = 1u << below(7);
    po.budget_ms = iter % 200 == 0 ? 1 : 0;
    memplan_arena_plan ap;
    assert_int_equal(memplan_pack(bufs, n, &po, &ap, &err), MEMPLAN_OK);
    assert_int_equal(memplan_validate_arena(bufs, n, ap.offset, po.align, ap.arena_bytes, &viol, &err), MEMPLAN_OK);
    uint64_t lb;
    assert_int_equal(memplan_lower_bound(bufs, n, po.align, &lb, &err), MEMPLAN_OK);
    assert_true(ap.arena_bytes >= lb);
    assert_int_equal(ap.lower_bound_bytes, lb);
    uint64_t naive = 0;
    for (size_t i = 0; i < n; i++) naive += bufs[i].size;
    assert_int_equal(sp.naive_bytes, naive);
    assert_true(sp.peak_bytes <= naive);
    /* Independent pairwise checks. */
    for (size_t i = 0; i < n; i++) {
        assert_true(sp.slot_of[i] < sp.slot_count);
        assert_true(sp.slot_bytes[sp.slot_of[i]] >= bufs[i].size);
        assert_int_equal(ap.offset[i] % po.align, 0);
        assert_true(ap.offset[i] + bufs[i].size <= ap.arena_bytes);
        for (size_t j = i + 1; j < n; j++) {
            if (!overlap(bufs[i].start, bufs[i].end, bufs[j].start, bufs[j].end)) continue;
            assert_true(sp.slot_of[i] != sp.slot_of[j]);
            if (bufs[i].size && bufs[j].size)
                assert_false(overlap((int64_t)ap.offset[i], (int64_t)(ap.offset[i] + bufs[i].size),
                                     (int64_t)ap.offset[j], (int64_t)(ap.offset[j] + bufs[j].size)));
        }
    }
    memplan_arena_plan_free(&ap);
    memplan_slot_plan_free(&sp);
    free(bufs);
    memplan_liveness_free(&lv);
    memplan_viewmap_free(&vm);
    memplan_model_free(m);
}

static void test_random_dags(void **state) {
    (void)state;
    for (int i = 0; i < 10000; i++) check_one(i);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_random_dags)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
