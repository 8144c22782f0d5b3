/*
 * test_plan_dag.c -- property test over 10,000 random DAGs: random sizes,
 * views (and views of views), several outputs per node, graph outputs.
 * Each is planned by memplan_plan_model, the product's path. Every slot and
 * arena plan must validate, the arena never goes below the lower bound, the
 * figures are the plans' own, and an independent O(n^2) checker written here
 * (not the planner's validator) re-checks slot sharing, address overlap, view
 * liveness, graph-output lifetimes and every value's placement. Some nodes
 * are an If or a Loop with random bodies: every body's plan is checked the
 * same way, and its node's transient buffer against the bodies' arenas.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"

/* The byte size a declared tensor type gives, every dim a value: the
 * reference the planned sizes are checked against, computed without shape
 * inference. Fails the test for any other type. */
static uint64_t declared_bytes(const memplan_type *t) {
    assert_int_equal(t->kind, MEMPLAN_TYPE_TENSOR);
    assert_true(t->rank >= 0 && memplan_dtype_bits(t->elem_type) > 0);
    uint64_t elems = 1;
    for (int32_t i = 0; i < t->rank; i++) {
        assert_int_equal(t->dims[i].kind, MEMPLAN_DIM_VALUE);
        elems *= (uint64_t)t->dims[i].value;
    }
    return (elems * memplan_dtype_bits(t->elem_type) + 7) / 8;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint32_t below(uint32_t n) { return (uint32_t)(rnd() % n); }

/* Declared element counts: mostly small, sometimes large, sometimes zero. */
static unsigned long long random_elems(void) {
    uint32_t pick = below(10);
    return pick == 0 ? 0 : pick < 8 ? 1 + below(64) : 1 + below(1u << 20);
}

/* A body of a few Custom nodes named <prefix>_t<k>, reading the outer values
 * v0..v<n_outer-1> (captures), its own values and its inputs (`first` and
 * more, comma-separated, may be NULL), ending with `out` of `out_elems`. */
static void random_body(mb_graph *b, const char *prefix, int n_outer, const char *first, const char *out,
                        unsigned long long out_elems) {
    char name[48], ins[160], dims[32];
    int nodes = 1 + (int)below(5);
    for (int i = 0; i < nodes; i++) {
        ins[0] = 0;
        int n_in = 1 + (int)below(2);
        for (int k = 0; k < n_in; k++) {
            uint32_t pick = below(3);
            if (pick == 0 && i > 0) snprintf(name, sizeof name, "%s%s_t%u", k ? "," : "", prefix, below((uint32_t)i));
            else if (pick == 1 && first)
                snprintf(name, sizeof name, "%s%s", k ? "," : "", first);
            else
                snprintf(name, sizeof name, "%sv%u", k ? "," : "", below((uint32_t)n_outer));
            strcat(ins, name);
        }
        bool last = i == nodes - 1;
        if (last) snprintf(name, sizeof name, "%s", out);
        else
            snprintf(name, sizeof name, "%s_t%d", prefix, i);
        snprintf(dims, sizeof dims, "%llu", last ? out_elems : random_elems());
        mb_value(b, name, 1, dims);
        mb_node(b, "Custom", ins, name);
    }
    snprintf(dims, sizeof dims, "%llu", out_elems);
    mb_output(b, out, 1, dims);
}

/* Declared element count of each main-graph value v<i>; views' declarations
 * are not their inferred shapes (an Identity has its source's). */
static unsigned long long value_elems[1024];
static bool value_is_view[1024];

/* An If (condition: the input c, never known) or a Loop (3 iterations,
 * carrying an outer value of the same size) writing value `out`. */
static void random_control(mb_graph *g, int node, int n_outer, const char *out, unsigned long long *elems_out) {
    char prefix[32], name[48], carried[32];
    unsigned long long elems = random_elems();
    if (below(2)) {
        mb_graph *t = mb_new_graph("then"), *e = mb_new_graph("else");
        snprintf(prefix, sizeof prefix, "b%d_then", node);
        snprintf(name, sizeof name, "%s_out", prefix);
        random_body(t, prefix, n_outer, NULL, name, elems);
        snprintf(prefix, sizeof prefix, "b%d_else", node);
        snprintf(name, sizeof name, "%s_out", prefix);
        random_body(e, prefix, n_outer, NULL, name, elems);
        Onnx__NodeProto *nd = mb_node(g, "If", "c", out);
        mb_graph_attr(nd, "then_branch", t);
        mb_graph_attr(nd, "else_branch", e);
    } else {
        uint32_t from = below((uint32_t)n_outer);
        if (value_is_view[from]) from = 0;
        snprintf(carried, sizeof carried, "v%u", from);
        elems = value_elems[from];
        mb_graph *b = mb_new_graph("body");
        char dims[32];
        snprintf(prefix, sizeof prefix, "b%d", node);
        snprintf(name, sizeof name, "%s_s", prefix);
        mb_input(b, "iter", 7, "");
        mb_input(b, "cond_in", 9, "");
        snprintf(dims, sizeof dims, "%llu", elems);
        mb_input(b, name, 1, dims);
        mb_node(b, "Identity", "cond_in", "cond_out");
        mb_output(b, "cond_out", 9, "");
        char out_name[48];
        snprintf(out_name, sizeof out_name, "%s_s_out", prefix);
        random_body(b, prefix, n_outer, name, out_name, elems);
        char ins[64];
        snprintf(ins, sizeof ins, "trip3,,%s", carried);
        mb_graph_attr(mb_node(g, "Loop", ins, out), "body", b);
    }
    *elems_out = elems;
}

/* A random graph: values v0 (input), then node outputs; some nodes are an If
 * or a Loop with random bodies. */
static mb_graph *random_graph(int *n_values_out) {
    mb_graph *g = mb_new_graph("rand");
    char name[32], ins[128], outs[128], dims[32];
    mb_input(g, "v0", 1, "3");
    value_elems[0] = 3;
    value_is_view[0] = false;
    mb_input(g, "c", 9, "");
    int64_t three = 3;
    mb_initializer_ints(g, "trip3", "", &three, 1);
    int nv = 1;
    int nodes = 1 + (int)below(30);
    for (int i = 0; i < nodes; i++) {
        if (below(8) == 0) {
            unsigned long long elems;
            snprintf(name, sizeof name, "v%d", nv);
            random_control(g, i, nv, name, &elems);
            snprintf(dims, sizeof dims, "%llu", elems);
            mb_value(g, name, 1, dims);
            value_is_view[nv] = false;
            value_elems[nv++] = elems;
            continue;
        }
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
            value_elems[nv + k] = random_elems();
            value_is_view[nv + k] = view;
            snprintf(dims, sizeof dims, "%llu", value_elems[nv + k]);
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

static uint64_t up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

/* Independent checks of one graph's plan, then of every body's. */
static void check_plan(int iter, const memplan_model_plan *p, uint64_t align) {
    memplan_error err = {0};
    assert_false(p->deferred);
    const memplan_graph *g = p->graph;
    const memplan_liveness *lv = &p->liveness;
    const memplan_buffer *bufs = p->buffers;
    size_t n = p->n_buffers;
    /* owners, then one transient per control-flow node */
    assert_int_equal(n, (size_t)lv->n_owners + p->n_transients);
    for (size_t i = 0; i < (size_t)lv->n_owners; i++) {
        int32_t v = p->buffer_value[i];
        assert_int_equal(v, lv->owners[i]);
        assert_int_equal(bufs[i].size, declared_bytes(&g->values[v].type)); /* the declared size */
        assert_int_equal(bufs[i].start, lv->start[v]);
        assert_int_equal(bufs[i].end, lv->end[v] + 1);
    }
    /* Transients: live at their node only; If: the larger branch (c is never
     * known); Loop: the body's arena + its inputs (8 + 1 + the carried value).
     * Their naive share: the counted body's own naive total + its state. */
    uint64_t t_naive[2] = {0, 0};
    for (size_t t = 0; t < p->n_transients; t++) {
        const memplan_transient *tr = &p->transients[t];
        assert_true(tr->known && tr->placed);
        const memplan_buffer *b = &bufs[tr->buffer];
        assert_int_equal(p->buffer_value[tr->buffer], -1);
        assert_int_equal(b->start, tr->node);
        assert_int_equal(b->end, tr->node + 1);
        uint64_t want = 0, t_naive_of[2] = {0, 0};
        for (size_t k = 0; k < p->n_subgraphs; k++) {
            const memplan_subgraph_plan *sp = &p->subgraphs[k];
            if (sp->node != tr->node) continue;
            const memplan_model_plan *c = sp->plan;
            uint64_t state = 0;
            for (int32_t i = 0; i < c->graph->n_inputs; i++)
                state += up(declared_bytes(&c->graph->values[c->graph->inputs[i]].type), align);
            assert_int_equal(sp->state_bytes, state);
            assert_int_equal(sp->transient_bytes, c->arena.arena_bytes + state);
            if (sp->transient_bytes > want) want = sp->transient_bytes;
            if (sp->counted)
                for (int s = 0; s < 2; s++) {
                    uint64_t nv = c->figures[s ? MEMPLAN_STRATEGY_SLOTS : MEMPLAN_STRATEGY_ARENA].naive_bytes + state;
                    if (nv > t_naive_of[s]) t_naive_of[s] = nv;
                }
        }
        assert_int_equal(b->size, want);
        t_naive[0] += t_naive_of[0];
        t_naive[1] += t_naive_of[1];
    }
    /* Independent liveness checks: every use of a value lies in its root's interval. */
    int32_t last = g->n_nodes - 1;
    for (int32_t q = 0; q < g->n_nodes; q++) {
        const memplan_node *nd = &g->nodes[q];
        for (int32_t k = 0; k < nd->n_inputs; k++) {
            int32_t r = nd->inputs[k] >= 0 ? lv->root[nd->inputs[k]] : -1;
            if (r >= 0) assert_true(lv->start[r] <= q && q <= lv->end[r]);
        }
        for (int32_t k = 0; k < nd->n_captures; k++) {
            int32_t r = lv->root[nd->captures[k]];
            if (r >= 0) assert_true(lv->start[r] <= q && q <= lv->end[r]);
        }
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
    int64_t *slot_of = malloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *slot_of);
    for (int32_t v = 0; v < g->n_values; v++) slot_of[v] = -1;
    for (size_t i = 0; i < (size_t)lv->n_owners; i++) slot_of[lv->owners[i]] = (int64_t)sp->slot_of[i];
    if (memplan_liveness_check_slots(g, lv, slot_of, NULL, &err)) fail_msg("iter %d: %s", iter, err.message);
    free(slot_of);
    assert_int_equal(memplan_validate_arena(bufs, n, ap->offset, align, ap->arena_bytes, &viol, &err), MEMPLAN_OK);
    uint64_t lb, lb1;
    assert_int_equal(memplan_lower_bound(bufs, n, align, &lb, &err), MEMPLAN_OK);
    assert_int_equal(memplan_lower_bound(bufs, n, 1, &lb1, &err), MEMPLAN_OK);
    assert_true(ap->arena_bytes >= lb);
    assert_int_equal(ap->lower_bound_bytes, lb);
    uint64_t naive = 0, naive_aligned = 0, naive_bufs = 0;
    for (size_t i = 0; i < n; i++) {
        naive_bufs += bufs[i].size;
        if (p->buffer_value[i] < 0) continue; /* a transient: its body's naive total below */
        naive += bufs[i].size;
        naive_aligned += up(bufs[i].size, align);
    }
    naive += t_naive[1];
    naive_aligned += t_naive[0];
    assert_int_equal(sp->naive_bytes, naive_bufs); /* the slot plan's own figure: its buffers */
    assert_true(sp->peak_bytes <= naive_bufs);
    /* The figures are the plans' own. */
    const memplan_plan_figures *fa = &p->figures[MEMPLAN_STRATEGY_ARENA], *fs = &p->figures[MEMPLAN_STRATEGY_SLOTS];
    assert_int_equal(fa->peak_bytes, ap->arena_bytes);
    assert_int_equal(fa->lower_bound_bytes, lb);
    assert_int_equal(fa->naive_bytes, naive_aligned);
    assert_int_equal(fs->naive_bytes, naive);
    assert_int_equal(fs->lower_bound_bytes, lb1);
    assert_true(fs->peak_bytes >= sp->peak_bytes);
    /* The peak position holds the lower bound, and no earlier position does. */
    for (int basis = 0; basis < 2; basis++) {
        uint64_t a = basis ? 1 : align, want = basis ? lb1 : lb;
        int32_t at = basis ? fs->peak_position : fa->peak_position;
        if (!n) {
            assert_int_equal(at, -1);
            continue;
        }
        for (int32_t t = 0; t <= at; t++) {
            uint64_t live = 0;
            for (size_t i = 0; i < n; i++)
                if (bufs[i].start <= t && t < bufs[i].end) live += up(bufs[i].size, a);
            if (t < at) assert_true(live < want);
            else
                assert_int_equal(live, want);
        }
    }
    /* Independent pairwise checks. */
    for (size_t i = 0; i < n; i++) {
        assert_true(sp->slot_of[i] < sp->slot_count);
        assert_true(sp->slot_bytes[sp->slot_of[i]] >= bufs[i].size);
        assert_int_equal(ap->offset[i] % align, 0);
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
    for (size_t k = 0; k < p->n_subgraphs; k++) check_plan(iter, p->subgraphs[k].plan, align);
}

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
     * view policy, liveness, sizes, bodies, slots and arena), then checks of
     * our own on every plan of the tree. */
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.include_inputs = below(2) == 0;
    o.align = 1u << below(7);
    o.budget_ms = iter % 200 == 0 ? 1 : 0;
    memplan_model_plan *p;
    if (memplan_plan_model(m, &o, &p, &err)) fail_msg("iter %d: %s", iter, err.message);
    check_plan(iter, p, o.align);
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
