/*
 * test_plan_dag.c -- property test over 10,000 random DAGs: random sizes,
 * views (and views of views), several outputs per node, graph outputs.
 * Each is planned by memplan_plan_model, the product's path. Every slot and
 * arena plan must validate, the arena never goes below the lower bound, the
 * figures are the plans' own, and an independent O(n^2) checker written here
 * (not the planner's validator) re-checks slot sharing, address overlap, view
 * liveness, graph-output lifetimes and every value's placement.
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
    /* The product's path: memplan_plan_model (shape inference, the default
     * view policy, liveness, sizes, slots and arena), then checks of our own. */
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.include_inputs = below(2) == 0;
    o.align = 1u << below(7);
    o.budget_ms = iter % 200 == 0 ? 1 : 0;
    memplan_model_plan *p;
    if (memplan_plan_model(m, &o, &p, &err)) fail_msg("iter %d: %s", iter, err.message);
    assert_false(p->deferred);
    const memplan_graph *g = m->graph;
    const memplan_liveness *lv = &p->liveness;
    const memplan_buffer *bufs = p->buffers;
    size_t n = p->n_buffers;
    assert_int_equal(n, (size_t)lv->n_owners);
    for (size_t i = 0; i < n; i++) {
        int32_t v = p->buffer_value[i];
        assert_int_equal(v, lv->owners[i]);
        memplan_size s = memplan_type_size(&g->values[v].type, NULL, 0); /* the declared size */
        assert_int_equal(s.kind, MEMPLAN_SIZE_KNOWN);
        assert_int_equal(bufs[i].size, s.bytes);
        assert_int_equal(bufs[i].start, lv->start[v]);
        assert_int_equal(bufs[i].end, lv->end[v] + 1);
    }
    /* Independent liveness checks: every use of a value lies in its root's interval. */
    int32_t last = g->n_nodes - 1;
    for (int32_t q = 0; q < g->n_nodes; q++)
        for (int32_t k = 0; k < g->nodes[q].n_inputs; k++) {
            int32_t r = lv->root[g->nodes[q].inputs[k]];
            if (r >= 0) assert_true(lv->start[r] <= q && q <= lv->end[r]);
        }
    for (int32_t k = 0; k < g->n_outputs; k++) {
        int32_t r = lv->root[g->outputs[k]];
        if (r >= 0) assert_int_equal(lv->end[r], last);
    }
    const memplan_slot_plan *sp = &p->slots;
    const memplan_arena_plan *ap = &p->arena;
    memplan_violation viol;
    assert_int_equal(memplan_validate_slots(bufs, n, sp, &viol, &err), MEMPLAN_OK);
    /* The graph-level check agrees. */
    int64_t *slot_of = malloc((size_t)g->n_values * sizeof *slot_of);
    for (int32_t v = 0; v < g->n_values; v++) slot_of[v] = -1;
    for (size_t i = 0; i < n; i++) slot_of[lv->owners[i]] = (int64_t)sp->slot_of[i];
    if (memplan_liveness_check_slots(g, lv, slot_of, NULL, &err)) fail_msg("iter %d: %s", iter, err.message);
    free(slot_of);
    assert_int_equal(memplan_validate_arena(bufs, n, ap->offset, o.align, ap->arena_bytes, &viol, &err), MEMPLAN_OK);
    uint64_t lb, lb1;
    assert_int_equal(memplan_lower_bound(bufs, n, o.align, &lb, &err), MEMPLAN_OK);
    assert_int_equal(memplan_lower_bound(bufs, n, 1, &lb1, &err), MEMPLAN_OK);
    assert_true(ap->arena_bytes >= lb);
    assert_int_equal(ap->lower_bound_bytes, lb);
    uint64_t naive = 0, naive_aligned = 0;
    for (size_t i = 0; i < n; i++) {
        naive += bufs[i].size;
        naive_aligned += (bufs[i].size + o.align - 1) / o.align * o.align;
    }
    assert_int_equal(sp->naive_bytes, naive);
    assert_true(sp->peak_bytes <= naive);
    /* The figures are the plans' own. */
    const memplan_plan_figures *fa = &p->figures[MEMPLAN_STRATEGY_ARENA], *fs = &p->figures[MEMPLAN_STRATEGY_SLOTS];
    assert_int_equal(fa->peak_bytes, ap->arena_bytes);
    assert_int_equal(fa->lower_bound_bytes, lb);
    assert_int_equal(fa->naive_bytes, naive_aligned);
    assert_int_equal(fs->naive_bytes, naive);
    assert_int_equal(fs->lower_bound_bytes, lb1);
    assert_true(fs->peak_bytes >= sp->peak_bytes);
    /* Independent pairwise checks. */
    for (size_t i = 0; i < n; i++) {
        assert_true(sp->slot_of[i] < sp->slot_count);
        assert_true(sp->slot_bytes[sp->slot_of[i]] >= bufs[i].size);
        assert_int_equal(ap->offset[i] % o.align, 0);
        assert_true(ap->offset[i] + bufs[i].size <= ap->arena_bytes);
        for (size_t j = i + 1; j < n; j++) {
            if (!overlap(bufs[i].start, bufs[i].end, bufs[j].start, bufs[j].end)) continue;
            assert_true(sp->slot_of[i] != sp->slot_of[j]);
            if (bufs[i].size && bufs[j].size)
                assert_false(overlap((int64_t)ap->offset[i], (int64_t)(ap->offset[i] + bufs[i].size),
                                     (int64_t)ap->offset[j], (int64_t)(ap->offset[j] + bufs[j].size)));
        }
    }
    /* Each value record: a view sits at its owner's offset, inside its interval. */
    for (size_t i = 0; i < p->n_values; i++) {
        const memplan_value_plan *vp = &p->values[i];
        assert_true(vp->placed);
        assert_int_equal(vp->owner, lv->root[vp->value]);
        assert_int_equal(vp->arena_offset, ap->offset[vp->buffer]);
        assert_int_equal(vp->slot, sp->slot_of[vp->buffer]);
        assert_int_equal(vp->slot_offset, p->slot_offset[vp->slot]);
        assert_int_equal(p->buffer_value[vp->buffer], vp->owner);
    }
    memplan_model_plan_free(p);
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
