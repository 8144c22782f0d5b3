/*
 * test_plan_control.c -- plans of models with control flow and constants,
 * through memplan_plan_model: every If/Loop/Scan body gets a plan of its own,
 * the node holds the body's arena (and state) as one transient buffer at its
 * position, an If counts the branch its condition selects (the larger when it
 * is not known), Loop scan outputs grow with the trip count, and Constant
 * outputs and constant-foldable values are weights, not activations.
 * Sizes are float32 (4 bytes an element); alignment 1 keeps the sums plain.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"

enum { F32 = 1, I64 = 7, BOOL = 9 };

typedef struct planned {
    memplan_model *m;
    memplan_model_plan *p;
} planned;

/* Plan g (align 1, heuristics only) with dims "a=1,b=2" and values "c=1". */
static planned plan_opts(mb_graph *g, const char *dims, const char *values, bool constants_as_activations,
                         bool include_inputs) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    planned r = {NULL, NULL};
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &r.m, &err)) fail_msg("load: %s", err.message);
    free(bytes);
    memplan_binding binds[8];
    char names[8][32];
    memplan_input_value vals[8];
    int64_t elems[8];
    size_t nb = 0, nv = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", dims ? dims : "");
    for (char *tok = strtok(buf, ","); tok && nb < 8; tok = strtok(NULL, ",")) {
        assert_true(memplan_binding_parse(tok, &binds[nb], names[nb], sizeof names[nb]));
        nb++;
    }
    char vbuf[256];
    char vnames[8][32];
    snprintf(vbuf, sizeof vbuf, "%s", values ? values : "");
    for (char *tok = strtok(vbuf, ","); tok && nv < 8; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        assert_non_null(eq);
        snprintf(vnames[nv], sizeof vnames[nv], "%.*s", (int)(eq - tok), tok);
        elems[nv] = strtoll(eq + 1, NULL, 10);
        vals[nv] = (memplan_input_value){vnames[nv], 1, &elems[nv]};
        nv++;
    }
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.align = 1;
    o.budget_ms = 0;
    o.bindings = binds;
    o.n_bindings = nb;
    o.values = vals;
    o.n_values = nv;
    o.constants_as_activations = constants_as_activations;
    o.include_inputs = include_inputs;
    if (memplan_plan_model(r.m, &o, &r.p, &err)) fail_msg("plan: %s", err.message);
    return r;
}

static planned plan_with(mb_graph *g, const char *dims, const char *values, bool constants_as_activations) {
    return plan_opts(g, dims, values, constants_as_activations, false);
}

static planned plan(mb_graph *g) { return plan_with(g, NULL, NULL, false); }

static void done(planned *r) {
    memplan_model_plan_free(r->p);
    memplan_model_free(r->m);
}

static uint64_t peak(const memplan_model_plan *p) { return p->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes; }

/* ---- If ---------------------------------------------------------------- */

/* then: t1 = Relu(x), t2 = Neg(t1), y = Abs(t2): t1 and t2 meet at one
 * position, 128 bytes; else: e1 = Concat(x, x) (128 B), e2 = Relu(e1)
 * (128 B, never read), y = Neg(x): 256 bytes. The branch outputs are the If's
 * output y (64 B), planned in the main graph. */
static mb_graph *if_model(bool cond_is_input, int64_t cond) {
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "16");
    if (cond_is_input) {
        mb_input(g, "c", BOOL, "");
    } else {
        mb_initializer_ints(g, "c64", "", &cond, 1);
        Onnx__NodeProto *cast = mb_node(g, "Cast", "c64", "c");
        mb_int_attr(cast, "to", BOOL);
    }
    mb_graph *t = mb_new_graph("then");
    mb_node(t, "Relu", "x", "t1");
    mb_node(t, "Neg", "t1", "t2");
    mb_node(t, "Abs", "t2", "yt");
    mb_output(t, "yt", F32, "16");
    mb_graph *e = mb_new_graph("else");
    Onnx__NodeProto *cat = mb_node(e, "Concat", "x,x", "e1");
    mb_int_attr(cat, "axis", 0);
    mb_node(e, "Relu", "e1", "e2");
    mb_node(e, "Neg", "x", "ye");
    mb_output(e, "ye", F32, "16");
    Onnx__NodeProto *n = mb_node(g, "If", "c", "y");
    n->name = mb_strdup("the_if");
    mb_graph_attr(n, "then_branch", t);
    mb_graph_attr(n, "else_branch", e);
    mb_output(g, "y", F32, "16");
    return g;
}

static const memplan_subgraph_plan *body(const memplan_model_plan *p, const char *attr) {
    for (size_t i = 0; i < p->n_subgraphs; i++)
        if (strcmp(p->subgraphs[i].attribute, attr) == 0) return &p->subgraphs[i];
    fail_msg("no body %s", attr);
    return NULL;
}

static void test_if_known_condition(void **state) {
    (void)state;
    for (int c = 0; c < 2; c++) {
        planned r = plan(if_model(false, c)); /* Cast(initializer): known, and a weight */
        const memplan_model_plan *p = r.p;
        assert_false(p->deferred);
        assert_int_equal(p->n_subgraphs, 2);
        assert_int_equal(p->n_transients, 1);
        const memplan_subgraph_plan *t = body(p, "then_branch"), *e = body(p, "else_branch");
        assert_int_equal(t->branch, c ? MEMPLAN_BRANCH_TAKEN : MEMPLAN_BRANCH_NOT_TAKEN);
        assert_int_equal(e->branch, c ? MEMPLAN_BRANCH_NOT_TAKEN : MEMPLAN_BRANCH_TAKEN);
        assert_int_equal(t->counted, c == 1);
        assert_int_equal(e->counted, c == 0);
        assert_int_equal(peak(t->plan), 128);
        assert_int_equal(peak(e->plan), 256);
        /* the branch outputs are the If's: not in the branches' arenas */
        assert_int_equal(t->plan->n_buffers, 2);
        assert_int_equal(e->plan->n_buffers, 2);
        assert_int_equal(t->state_bytes, 0);
        assert_int_equal(p->transients[0].node, 1);
        assert_int_equal(p->transients[0].bytes, c ? 128 : 256);
        assert_null(p->transients[0].assumption);
        /* y (64 B) and the transient meet at the If's position */
        assert_int_equal(peak(p), 64 + (c ? 128 : 256));
        assert_int_equal(p->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes, 64 + (c ? 128 : 256));
        /* the Cast of an initializer is folded at load: the If reads its output (1 byte), a weight
         * kept; the initializer (8 bytes) only the fold reads: load-only */
        assert_int_equal(p->n_weights, 1);
        assert_int_equal(p->weight_bytes, 1);
        assert_int_equal(p->n_load_only, 1);
        assert_int_equal(p->load_only_bytes, 8);
        done(&r);
    }
}

/* The naive figure counts a body as a naive allocator runs it: each of its
 * buffers apart. If(true) over x float[16]: the then branch is the chain
 * Relu t1 -> Neg t2 -> Abs t3 -> Exp yt (yt is the If's output), 64 B each:
 * its arena holds two at a time (128 B), its naive total is 192 B. Main: y
 * (64 B) and the transient at the If. */
static void test_naive_counts_bodies_naive(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "16");
    mb_initializer(g, "c", BOOL, "");
    mb_graph *t = mb_new_graph("then");
    mb_node(t, "Relu", "x", "t1");
    mb_node(t, "Neg", "t1", "t2");
    mb_node(t, "Abs", "t2", "t3");
    mb_node(t, "Exp", "t3", "yt");
    mb_output(t, "yt", F32, "16");
    mb_graph *e = mb_new_graph("else");
    mb_node(e, "Neg", "x", "ye");
    mb_output(e, "ye", F32, "16");
    Onnx__NodeProto *n = mb_node(g, "If", "c", "y");
    mb_graph_attr(n, "then_branch", t);
    mb_graph_attr(n, "else_branch", e);
    mb_output(g, "y", F32, "16");
    planned r = plan(g);
    const memplan_model_plan *p = r.p;
    const memplan_subgraph_plan *tb = body(p, "then_branch");
    assert_true(tb->counted);
    assert_int_equal(tb->plan->figures[MEMPLAN_STRATEGY_ARENA].naive_bytes, 3 * 64);
    assert_int_equal(peak(tb->plan), 2 * 64);
    assert_int_equal(p->transients[0].bytes, 2 * 64);
    assert_int_equal(p->transients[0].naive_bytes[0], 3 * 64);
    assert_int_equal(p->transients[0].naive_bytes[1], 3 * 64);
    assert_int_equal(peak(p), 64 + 2 * 64);
    assert_int_equal(p->figures[MEMPLAN_STRATEGY_ARENA].naive_bytes, 64 + 3 * 64);
    assert_int_equal(p->figures[MEMPLAN_STRATEGY_SLOTS].naive_bytes, 64 + 3 * 64);
    done(&r);
}

static void test_if_unknown_condition_plans_larger(void **state) {
    (void)state;
    planned r = plan(if_model(true, 0));
    const memplan_model_plan *p = r.p;
    assert_false(p->deferred);
    const memplan_subgraph_plan *t = body(p, "then_branch"), *e = body(p, "else_branch");
    assert_int_equal(t->branch, MEMPLAN_BRANCH_UNKNOWN);
    assert_int_equal(e->branch, MEMPLAN_BRANCH_UNKNOWN);
    assert_false(t->counted);
    assert_true(e->counted);
    assert_int_equal(p->transients[0].bytes, 256);
    assert_string_equal(p->transients[0].assumption, "the condition is not known: the larger branch is planned");
    assert_int_equal(peak(p), 320);
    done(&r);
    /* --value c=1 selects then_branch */
    r = plan_with(if_model(true, 0), NULL, "c=1", false);
    assert_int_equal(body(r.p, "then_branch")->branch, MEMPLAN_BRANCH_TAKEN);
    assert_int_equal(peak(r.p), 192);
    assert_null(r.p->transients[0].assumption);
    done(&r);
}

/* In-place reuse applies inside bodies: then's t2 = Neg(t1) takes t1's buffer
 * (t1 is read there for the last time), so the branch needs 64 bytes, not 128;
 * x (a captured outer value) and the branch's output (the If's) are never
 * linked. */
static void test_inplace_in_a_branch(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = mb_pack(if_model(false, 1), &len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.align = 1;
    o.budget_ms = 0;
    o.inplace = true;
    memplan_model_plan *p = NULL;
    if (memplan_plan_model(m, &o, &p, &err)) fail_msg("%s", err.message);
    const memplan_subgraph_plan *t = body(p, "then_branch");
    assert_int_equal(t->plan->n_links, 1);
    const memplan_graph *tg = t->plan->graph;
    assert_string_equal(tg->values[t->plan->links[0].value].name, "t2");
    assert_string_equal(tg->values[t->plan->links[0].source].name, "t1");
    assert_int_equal(peak(t->plan), 64);
    assert_int_equal(peak(p), 64 + 64);
    assert_true(p->figures[MEMPLAN_STRATEGY_ARENA].inplace_saved_known);
    assert_int_equal(p->figures[MEMPLAN_STRATEGY_ARENA].inplace_saved_bytes, 64);
    memplan_model_plan_free(p);
    memplan_model_free(m);
}

/* A branch that returns an outer value as its output: nothing to plan in it. */
static void test_if_branch_returns_outer_value(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "16");
    mb_input(g, "c", BOOL, "");
    mb_node(g, "Relu", "x", "w");
    mb_graph *t = mb_new_graph("then");
    mb_output(t, "w", F32, "16");
    mb_graph *e = mb_new_graph("else");
    mb_node(e, "Neg", "w", "ye");
    mb_output(e, "ye", F32, "16");
    Onnx__NodeProto *n = mb_node(g, "If", "c", "y");
    mb_graph_attr(n, "then_branch", t);
    mb_graph_attr(n, "else_branch", e);
    mb_node(g, "Abs", "y", "z");
    mb_output(g, "z", F32, "16");
    mb_value(g, "w", F32, "16");
    planned r = plan_with(g, NULL, "c=1", false);
    const memplan_model_plan *p = r.p;
    assert_int_equal(body(p, "then_branch")->plan->n_buffers, 0);
    assert_int_equal(body(p, "then_branch")->transient_bytes, 0);
    /* w is read by the branches (a capture): live at the If's position */
    int32_t w = -1;
    for (int32_t v = 0; v < p->graph->n_values; v++)
        if (strcmp(p->graph->values[v].name, "w") == 0) w = v;
    assert_int_equal(p->liveness.start[w], 0);
    assert_int_equal(p->liveness.end[w], 1);
    /* w [0,1], y [1,2], z [2,2]: the transient (0 B) is not a buffer that costs */
    assert_int_equal(peak(p), 128);
    done(&r);
}

/* ---- Loop -------------------------------------------------------------- */

/* Loop(M, "", x) -> (v_final, scans); body (i, cond_in, v_in) -> (cond_out,
 * v_out, scan_out) with v1 = Relu(v_in), v_out = Neg(v1), scan_out = Abs(v1),
 * cond_out = Identity(cond_in). The body's owners v1 [0,2], v_out [1,2] and
 * scan_out [2,2] all meet at position 2: 192 bytes; its state is what the
 * Loop feeds it: i (8) + cond_in (1) + v_in (64) = 73 bytes. */
static mb_graph *loop_model(const char *trip) {
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "16");
    if (strcmp(trip, "n") == 0) {
        mb_input(g, "n", I64, "");
    } else {
        int64_t five = 5;
        mb_initializer_ints(g, trip, "", &five, 1);
    }
    mb_graph *b = mb_new_graph("body");
    mb_input(b, "i", I64, "");
    mb_input(b, "cond_in", BOOL, "");
    mb_input(b, "v_in", F32, "16");
    mb_node(b, "Relu", "v_in", "v1");
    mb_node(b, "Neg", "v1", "v_out");
    mb_node(b, "Abs", "v1", "scan_out");
    mb_node(b, "Identity", "cond_in", "cond_out");
    mb_output(b, "cond_out", BOOL, "");
    mb_output(b, "v_out", F32, "16");
    mb_output(b, "scan_out", F32, "16");
    Onnx__NodeProto *n = mb_node(g, "Loop", strcmp(trip, "n") == 0 ? "n,,x" : "five,,x", "v_final,scans");
    n->name = mb_strdup("my/loop.1");
    mb_graph_attr(n, "body", b);
    mb_output(g, "v_final", F32, "16");
    mb_output(g, "scans", F32, NULL);
    return g;
}

static void test_loop_known_trip_count(void **state) {
    (void)state;
    planned r = plan(loop_model("five"));
    const memplan_model_plan *p = r.p;
    assert_false(p->deferred);
    const memplan_subgraph_plan *b = body(p, "body");
    assert_int_equal(b->branch, MEMPLAN_BRANCH_NONE);
    assert_true(b->counted);
    assert_int_equal(peak(b->plan), 192);
    assert_int_equal(b->state_bytes, 73);
    assert_int_equal(b->transient_bytes, 265);
    /* v_final 64 B + scans 5 x 64 B + the transient */
    assert_int_equal(peak(p), 64 + 320 + 265);
    done(&r);
}

/* A node with a GRAPHS attribute (a custom op's list of bodies): each entry
 * is a body of its own, named "gs[0]", "gs[1]". gs[0]: t = Relu(x), 64 B;
 * gs[1]: u = Neg(x), v = Abs(u), which meet: 128 B. */
static void test_graphs_attribute_bodies(void **state) {
    (void)state;
    mb_graph *b0 = mb_new_graph("b0");
    mb_node(b0, "Relu", "x", "t");
    mb_output(b0, "t", F32, "16");
    mb_graph *b1 = mb_new_graph("b1");
    mb_node(b1, "Neg", "x", "u");
    mb_node(b1, "Abs", "u", "v");
    mb_output(b1, "v", F32, "16");
    Onnx__GraphProto *list[2] = {b0, b1};
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "16");
    Onnx__NodeProto *n = mb_node(g, "Custom", "x", "y");
    n->domain = mb_strdup("my.domain");
    Onnx__AttributeProto *a = mb_attr(n, "gs", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS);
    a->graphs = list;
    a->n_graphs = 2;
    mb_output(g, "y", F32, "16");
    planned r = plan(g); /* packs g; the list and its graphs stay ours */
    mb_free_graph(b0);
    mb_free_graph(b1);
    const memplan_model_plan *p = r.p;
    assert_false(p->deferred);
    assert_int_equal(p->n_subgraphs, 2);
    assert_string_equal(p->subgraphs[0].attribute, "gs[0]");
    assert_string_equal(p->subgraphs[1].attribute, "gs[1]");
    assert_true(p->subgraphs[0].known && p->subgraphs[1].known);
    assert_int_equal(p->subgraphs[0].transient_bytes, 64);
    assert_int_equal(p->subgraphs[1].transient_bytes, 128);
    done(&r);
}

static void test_loop_unknown_trip_count(void **state) {
    (void)state;
    planned r = plan(loop_model("n"));
    const memplan_model_plan *p = r.p;
    assert_true(p->deferred);
    assert_int_equal(p->n_unbound_dims, 1);
    assert_string_equal(p->unbound_dims[0], "trips_my_loop_1");
    done(&r);
    r = plan_with(loop_model("n"), "trips_my_loop_1=5", NULL, false);
    assert_false(r.p->deferred);
    assert_int_equal(peak(r.p), 649);
    done(&r);
    r = plan_with(loop_model("n"), NULL, "n=5", false);
    assert_false(r.p->deferred);
    assert_int_equal(peak(r.p), 649);
    done(&r);
}

/* An If inside the Loop's body: the body's plan holds the If's transient. */
static void test_if_inside_loop(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "16");
    int64_t two = 2;
    mb_initializer_ints(g, "two", "", &two, 1);
    mb_graph *b = mb_new_graph("body");
    mb_input(b, "i", I64, "");
    mb_input(b, "cond_in", BOOL, "");
    mb_input(b, "v_in", F32, "16");
    mb_graph *t = mb_new_graph("then");
    mb_node(t, "Relu", "v_in", "t1");
    mb_node(t, "Neg", "t1", "yt");
    mb_output(t, "yt", F32, "16");
    mb_graph *e = mb_new_graph("else");
    mb_node(e, "Neg", "v_in", "ye");
    mb_output(e, "ye", F32, "16");
    Onnx__NodeProto *inner = mb_node(b, "If", "cond_in", "v_out");
    mb_graph_attr(inner, "then_branch", t);
    mb_graph_attr(inner, "else_branch", e);
    mb_node(b, "Identity", "cond_in", "cond_out");
    mb_output(b, "cond_out", BOOL, "");
    mb_output(b, "v_out", F32, "16");
    Onnx__NodeProto *n = mb_node(g, "Loop", "two,,x", "v_final");
    mb_graph_attr(n, "body", b);
    mb_output(g, "v_final", F32, "16");
    planned r = plan(g);
    const memplan_model_plan *p = r.p;
    assert_false(p->deferred);
    const memplan_subgraph_plan *lb = body(p, "body");
    const memplan_model_plan *bp = lb->plan;
    assert_int_equal(bp->n_subgraphs, 2);
    assert_int_equal(bp->n_transients, 1);
    /* then: t1 (64 B); else: nothing: cond_in is not known, then is larger */
    assert_int_equal(bp->transients[0].bytes, 64);
    assert_non_null(bp->transients[0].assumption);
    /* body: v_out [0,1] (64 B) with the If's 64 B at 0: 128; state 8 + 1 + 64 */
    assert_int_equal(peak(bp), 128);
    assert_int_equal(lb->transient_bytes, 128 + 73);
    assert_int_equal(peak(p), 64 + 201);
    done(&r);
}

/* ---- Scan -------------------------------------------------------------- */

/* Scan(s0 [4], xs [3,4]) with one scan input: body (s_in, x_t) -> (s_out,
 * y_t), s_out = Add(s_in, x_t), y_t = Relu(s_out). Outputs s_final [4] and
 * ys [3,4]. Body: s_out [0,1] + y_t [1,1] = 32 bytes; state: s_in (16 B)
 * only, x_t is a slice of the parent's xs. */
static void test_scan_outputs(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "s0", F32, "4");
    mb_input(g, "xs", F32, "3,4");
    mb_graph *b = mb_new_graph("body");
    mb_input(b, "s_in", F32, "4");
    mb_input(b, "x_t", F32, "4");
    mb_node(b, "Add", "s_in,x_t", "s_out");
    mb_node(b, "Relu", "s_out", "y_t");
    mb_output(b, "s_out", F32, "4");
    mb_output(b, "y_t", F32, "4");
    Onnx__NodeProto *n = mb_node(g, "Scan", "s0,xs", "s_final,ys");
    mb_int_attr(n, "num_scan_inputs", 1);
    mb_graph_attr(n, "body", b);
    mb_output(g, "s_final", F32, "4");
    mb_output(g, "ys", F32, "3,4");
    planned r = plan(g);
    const memplan_model_plan *p = r.p;
    assert_false(p->deferred);
    const memplan_subgraph_plan *sb = body(p, "body");
    assert_int_equal(peak(sb->plan), 32);
    assert_int_equal(sb->state_bytes, 16);
    assert_int_equal(sb->transient_bytes, 48);
    assert_int_equal(peak(p), 16 + 48 + 48);
    done(&r);
}

/* A body value named like an outer one is the body's own (shadowing): its
 * size is the body's, and the outer value is unaffected. */
static void test_shadowing(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "16");
    mb_input(g, "c", BOOL, "");
    mb_node(g, "Relu", "x", "t");
    mb_graph *th = mb_new_graph("then");
    Onnx__NodeProto *cat = mb_node(th, "Concat", "x,x,x", "t"); /* shadows the outer t: 192 B */
    mb_int_attr(cat, "axis", 0);
    mb_node(th, "ReduceSum", "t", "yt");
    mb_output(th, "yt", F32, "1");
    mb_graph *el = mb_new_graph("else");
    mb_node(el, "ReduceSum", "x", "ye");
    mb_output(el, "ye", F32, "1");
    Onnx__NodeProto *n = mb_node(g, "If", "c", "y");
    mb_graph_attr(n, "then_branch", th);
    mb_graph_attr(n, "else_branch", el);
    mb_output(g, "y", F32, "1");
    mb_output(g, "t", F32, "16");
    planned r = plan_with(g, NULL, "c=1", false);
    const memplan_subgraph_plan *tb = body(r.p, "then_branch");
    assert_int_equal(tb->plan->n_buffers, 1);
    assert_int_equal(tb->plan->buffers[0].size, 192);
    /* main: t (64 B, an output) + y (4 B) + the branch's 192 B */
    assert_int_equal(peak(r.p), 64 + 4 + 192);
    done(&r);
}

/* ---- constants --------------------------------------------------------- */

/* k = Constant(value_ints: 256 int64s), kc = Cast(k) to float, w2 =
 * ConstantOfShape(shape) of a constant shape [1000], a = Add(x, kc): k, kc
 * and w2 are folded at load (weights); a is an activation. */
static mb_graph *constant_model(void) {
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "256");
    int64_t vals[256];
    for (int i = 0; i < 256; i++) vals[i] = i;
    Onnx__NodeProto *k = mb_node(g, "Constant", "", "k");
    mb_ints_attr(k, "value_ints", 256, vals);
    Onnx__NodeProto *cast = mb_node(g, "Cast", "k", "kc");
    mb_int_attr(cast, "to", F32);
    int64_t thousand = 1000;
    mb_initializer_ints(g, "shape", "1", &thousand, 1);
    mb_node(g, "ConstantOfShape", "shape", "w2");
    mb_node(g, "Add", "x,kc", "a");
    mb_output(g, "a", F32, "256");
    mb_output(g, "w2", F32, "1000");
    return g;
}

static void test_constants_are_weights(void **state) {
    (void)state;
    planned r = plan(constant_model());
    const memplan_model_plan *p = r.p;
    /* kept: kc (1024 B, Add reads it), w2 (4000 B, an output); load-only: shape (8 B) and k
     * (2048 B), which only the folded ConstantOfShape and Cast read */
    assert_int_equal(p->n_weights, 2);
    assert_int_equal(p->weight_bytes, 1024 + 4000);
    assert_int_equal(p->n_load_only, 2);
    assert_int_equal(p->load_only_bytes, 8 + 2048);
    assert_int_equal(p->n_buffers, 1); /* a */
    assert_int_equal(peak(p), 1024);
    done(&r);
    r = plan_with(constant_model(), NULL, NULL, true);
    p = r.p;
    assert_int_equal(p->n_weights, 1); /* shape: ConstantOfShape, an activation now, reads it */
    assert_int_equal(p->weight_bytes, 8);
    assert_int_equal(p->n_load_only, 0);
    assert_int_equal(p->n_buffers, 4);
    /* k [0,1], kc [1,3], w2 [2,3] (an output), a [3,3]: 1024 + 4000 + 1024 at 3 */
    assert_int_equal(peak(p), 1024 + 4000 + 1024);
    done(&r);
}

/* Weights read through a body: main has W float[4] (16 B) and an If on the
 * input c. The then branch folds nw = Neg(W) (nw is a weight of the body)
 * and adds it to x; the else branch adds W itself, or (else_reads_w false)
 * only negates x. nw is kept (an unfolded Add reads it); W is kept only when
 * a body reads it unfolded, else it is load-only: only the fold reads it. */
static mb_graph *capture_model(bool else_reads_w) {
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "4");
    mb_input(g, "c", BOOL, "");
    mb_initializer(g, "W", F32, "4");
    mb_graph *t = mb_new_graph("then");
    mb_node(t, "Neg", "W", "nw");
    mb_node(t, "Add", "x,nw", "yt");
    mb_output(t, "yt", F32, "4");
    mb_graph *e = mb_new_graph("else");
    mb_node(e, else_reads_w ? "Add" : "Neg", else_reads_w ? "x,W" : "x", "ye");
    mb_output(e, "ye", F32, "4");
    Onnx__NodeProto *n = mb_node(g, "If", "c", "y");
    mb_graph_attr(n, "then_branch", t);
    mb_graph_attr(n, "else_branch", e);
    mb_output(g, "y", F32, "4");
    return g;
}

static void test_weights_kept_through_bodies(void **state) {
    (void)state;
    for (int reads = 0; reads < 2; reads++) {
        planned r = plan(capture_model(reads));
        const memplan_model_plan *p = r.p;
        const memplan_model_plan *t = body(p, "then_branch")->plan;
        assert_int_equal(t->n_weights, 1); /* nw */
        assert_int_equal(t->weight_bytes, 16);
        assert_int_equal(t->n_load_only, 0);
        assert_int_equal(p->n_weights, reads ? 2 : 1);
        assert_int_equal(p->weight_bytes, reads ? 32 : 16);
        assert_int_equal(p->n_load_only, reads ? 0 : 1);
        assert_int_equal(p->load_only_bytes, reads ? 0 : 16);
        done(&r);
    }
}

/* A QDQ weight: wq int8[1000] (1000 B), its scale float[] (4 B) and zero
 * point int8[] (1 B), DequantizeLinear -> w float[1000], Add(x, w). ONNX
 * Runtime keeps the DequantizeLinear (QDQ fusions), so the three
 * initializers are the weights kept and w is an activation (4000 B, in the
 * arena), not a 4000 B weight with the int8 one dropped. */
static void test_dequantize_linear_is_not_folded(void **state) {
    (void)state;
    for (int ms = 0; ms < 2; ms++) { /* ai.onnx, then com.microsoft */
        mb_graph *g = mb_new_graph("main");
        mb_input(g, "x", F32, "1000");
        mb_initializer(g, "wq", 3 /* INT8 */, "1000");
        mb_initializer(g, "s", F32, "");
        mb_initializer(g, "zp", 3, "");
        Onnx__NodeProto *dq = mb_node(g, "DequantizeLinear", "wq,s,zp", "w");
        if (ms) dq->domain = mb_strdup("com.microsoft");
        mb_node(g, "Add", "x,w", "y");
        mb_output(g, "y", F32, "1000");
        planned r = plan(g);
        const memplan_model_plan *p = r.p;
        assert_false(p->deferred);
        assert_int_equal(p->n_weights, 3);
        assert_int_equal(p->weight_bytes, 1000 + 4 + 1);
        assert_int_equal(p->n_load_only, 0);
        assert_int_equal(p->n_buffers, 2); /* w and y */
        assert_int_equal(peak(p), 4000 + 4000);
        done(&r);
    }
}

/* ---- graph inputs and the total ----------------------------------------- */

/* x float[256] (an input, 1024 B), w float[2] (an input that is also an
 * initializer: a weight kept, 8 B), k = Constant(value_ints: 4 int64s, 32 B,
 * read by nothing: load-only),
 * r = Relu(x) at 0, e = Concat(r, r) float[512] at 1 (an output); with
 * `extra` an input y (float[n], or a string tensor when extra is "string")
 * that nothing reads. */
static mb_graph *inputs_model(const char *extra) {
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "256");
    mb_input(g, "w", F32, "2");
    mb_initializer(g, "w", F32, "2");
    if (extra) mb_input(g, "y", strcmp(extra, "string") == 0 ? 8 : F32, "n");
    int64_t vals[4] = {1, 2, 3, 4};
    mb_ints_attr(mb_node(g, "Constant", "", "k"), "value_ints", 4, vals);
    mb_node(g, "Relu", "x", "r");
    mb_int_attr(mb_node(g, "Concat", "r,r", "e"), "axis", 0);
    mb_output(g, "e", F32, "512");
    return g;
}

static planned plan_inputs(mb_graph *g, const char *dim, bool include_inputs) {
    return plan_opts(g, dim, NULL, false, include_inputs);
}

/* Five float[2^30, 2^30] weights (2^62 bytes each, graph outputs: kept) sum
 * past 2^64: the three that fit are counted, the rest are of unknown size,
 * so the total is unknown rather than wrapped. Read by nothing instead, they
 * are load-only: their sum stops below 2^64 and the total is known. */
static void test_weights_beyond_64_bits(void **state) {
    (void)state;
    const char *names[5] = {"h0", "h1", "h2", "h3", "h4"};
    for (int kept = 1; kept >= 0; kept--) {
        mb_graph *g = inputs_model(NULL);
        for (int i = 0; i < 5; i++) {
            mb_initializer(g, names[i], F32, "1073741824,1073741824");
            if (kept) mb_output(g, names[i], F32, "1073741824,1073741824");
        }
        planned r = plan_inputs(g, NULL, false);
        const memplan_model_plan *p = r.p;
        uint64_t total;
        if (kept) {
            assert_int_equal(p->n_weights, 1 + 3);
            assert_int_equal(p->n_weights_unknown, 2);
            assert_int_equal(p->weight_bytes, 8 + 3 * (UINT64_C(1) << 62));
            assert_int_equal(p->n_load_only, 1);
            assert_int_equal(p->load_only_bytes, 32);
            assert_string_equal(memplan_plan_total(p, MEMPLAN_STRATEGY_ARENA, &total),
                                "some weights have no known size");
        } else {
            assert_int_equal(p->n_weights, 1);
            assert_int_equal(p->n_weights_unknown, 0);
            assert_int_equal(p->weight_bytes, 8);
            assert_int_equal(p->n_load_only, 6);
            assert_int_equal(p->load_only_bytes, 32 + 3 * (UINT64_C(1) << 62));
            assert_null(memplan_plan_total(p, MEMPLAN_STRATEGY_ARENA, &total));
            assert_int_equal(total, 8 + 1024 + 3072);
        }
        done(&r);
    }
}

static void test_inputs_and_total(void **state) {
    (void)state;
    uint64_t total;
    /* Outside the arena: r [0,1] + e [1,1] = 1024 + 2048; total 8 + 1024 + 3072 (k is load-only). */
    planned r = plan_inputs(inputs_model(NULL), NULL, false);
    const memplan_model_plan *p = r.p;
    assert_int_equal(p->weight_bytes, 8);
    assert_int_equal(p->n_weights, 1);
    assert_int_equal(p->load_only_bytes, 32);
    assert_int_equal(p->n_load_only, 1);
    assert_int_equal(p->input_bytes, 1024);
    assert_int_equal(p->n_inputs_known, 1);
    assert_int_equal(p->n_inputs_unknown, 0);
    assert_int_equal(peak(p), 3072);
    assert_null(memplan_plan_total(p, MEMPLAN_STRATEGY_ARENA, &total));
    assert_int_equal(total, 8 + 1024 + 3072);
    /* slots: r and e in two slots, 1024 + 2048 */
    assert_null(memplan_plan_total(p, MEMPLAN_STRATEGY_SLOTS, &total));
    assert_int_equal(total, 8 + 1024 + 3072);
    done(&r);
    /* In the arena: x [0,0] beside r, e over x's place after it: the peak stays 3072. */
    r = plan_inputs(inputs_model(NULL), NULL, true);
    p = r.p;
    assert_int_equal(p->input_bytes, 1024);
    assert_int_equal(p->n_inputs_known, 1);
    assert_int_equal(p->n_buffers, 3);
    assert_int_equal(peak(p), 3072);
    assert_null(memplan_plan_total(p, MEMPLAN_STRATEGY_ARENA, &total));
    assert_int_equal(total, 8 + 3072);
    done(&r);
    /* An input y float[n] nothing reads: the plan is planned, the total is not known until n is bound. */
    r = plan_inputs(inputs_model("float"), NULL, false);
    p = r.p;
    assert_false(p->deferred);
    assert_int_equal(p->input_bytes, 1024);
    assert_int_equal(p->n_inputs_known, 1);
    assert_int_equal(p->n_inputs_unknown, 1);
    assert_string_equal(memplan_plan_total(p, MEMPLAN_STRATEGY_ARENA, &total), "some graph inputs have no known size");
    assert_int_equal(total, 0);
    done(&r);
    r = plan_inputs(inputs_model("float"), "n=3", false);
    p = r.p;
    assert_int_equal(p->input_bytes, 1024 + 12);
    assert_int_equal(p->n_inputs_known, 2);
    assert_int_equal(p->n_inputs_unknown, 0);
    assert_null(memplan_plan_total(p, MEMPLAN_STRATEGY_ARENA, &total));
    assert_int_equal(total, 8 + 1036 + 3072);
    done(&r);
    /* In the arena, y unbound defers the plan. */
    r = plan_inputs(inputs_model("float"), NULL, true);
    assert_true(r.p->deferred);
    assert_string_equal(memplan_plan_total(r.p, MEMPLAN_STRATEGY_ARENA, &total), "the plan is deferred");
    done(&r);
    /* A string input has no static size: unknown, bound or not. */
    r = plan_inputs(inputs_model("string"), "n=3", false);
    assert_int_equal(r.p->n_inputs_unknown, 1);
    assert_non_null(memplan_plan_total(r.p, MEMPLAN_STRATEGY_ARENA, &total));
    done(&r);
}

/* A body's plan counts no inputs (they are its parent's buffers); its total is not the model's. */
static void test_body_has_no_inputs(void **state) {
    (void)state;
    uint64_t total;
    planned r = plan_with(if_model(true, 0), NULL, NULL, false);
    const memplan_model_plan *p = r.p;
    assert_int_equal(p->input_bytes, 64 + 1); /* x float[16], c bool */
    assert_int_equal(p->n_inputs_known, 2);
    assert_true(p->n_subgraphs > 0);
    const memplan_model_plan *b = p->subgraphs[0].plan;
    assert_int_equal(b->input_bytes, 0);
    assert_int_equal(b->n_inputs_known, 0);
    assert_int_equal(b->n_inputs_unknown, 0);
    assert_string_equal(memplan_plan_total(b, MEMPLAN_STRATEGY_ARENA, &total),
                        "a body's inputs are its parent's buffers");
    done(&r);
}

/* ---- input values ------------------------------------------------------ */

/* Plan g (freed) with the value elems[0..n) given to input `name`: the
 * plan must fail with EUSAGE and `message`. */
static void expect_values_error(mb_graph *g, const char *name, int32_t n, const int64_t *elems, const char *message) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    memplan_input_value iv = {name, n, elems};
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.values = &iv;
    o.n_values = 1;
    memplan_model_plan *p = NULL;
    assert_int_equal(memplan_plan_model(m, &o, &p, &err), MEMPLAN_EUSAGE);
    assert_null(p);
    assert_string_equal(err.message, message);
    memplan_model_free(m);
}

static void expect_value_error(const char *name, int64_t v, const char *message) {
    expect_values_error(if_model(true, 0), name, 1, &v, message);
}

/* Inputs of every narrow integer type, each Relu'd to an output: a
 * int8[1], b uint8[1], c int16[1], d uint16[1], e int32[2], f uint32[1],
 * g int64[n]. */
static mb_graph *narrow_inputs_model(void) {
    static const struct {
        const char *name, *dims;
        int32_t type;
    } in[] = {{"a", "1", 3}, {"b", "1", 2}, {"c", "1", 5}, {"d", "1", 4}, {"e", "2", 6}, {"f", "1", 12}, {"g", "n", 7}};
    mb_graph *g = mb_new_graph("narrow");
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        char out[8];
        snprintf(out, sizeof out, "%s_out", in[i].name);
        mb_input(g, in[i].name, in[i].type, in[i].dims);
        mb_node(g, "Identity", in[i].name, out);
        mb_output(g, out, in[i].type, in[i].dims);
    }
    return g;
}

static void test_value_errors(void **state) {
    (void)state;
    expect_value_error("nope", 1, "the model has no graph input named 'nope'");
    expect_value_error("x", 1, "input 'x' is float: only integer and bool inputs take a value");
    expect_value_error("c", 2, "2 does not fit input 'c' (bool)");
    /* each narrow type's range, at both ends */
    const int64_t v128 = 128, vm129 = -129, v256 = 256, vm1 = -1, v32768 = 32768, v65536 = 65536,
                  v2_32 = INT64_C(1) << 32, v2_31 = INT64_C(1) << 31, pair[2] = {1, 2}, three[3] = {1, 2, 3};
    expect_values_error(narrow_inputs_model(), "a", 1, &v128, "128 does not fit input 'a' (int8)");
    expect_values_error(narrow_inputs_model(), "a", 1, &vm129, "-129 does not fit input 'a' (int8)");
    expect_values_error(narrow_inputs_model(), "b", 1, &v256, "256 does not fit input 'b' (uint8)");
    expect_values_error(narrow_inputs_model(), "b", 1, &vm1, "-1 does not fit input 'b' (uint8)");
    expect_values_error(narrow_inputs_model(), "c", 1, &v32768, "32768 does not fit input 'c' (int16)");
    expect_values_error(narrow_inputs_model(), "d", 1, &v65536, "65536 does not fit input 'd' (uint16)");
    expect_values_error(narrow_inputs_model(), "e", 2, (const int64_t[]){1, v2_31},
                        "2147483648 does not fit input 'e' (int32)");
    expect_values_error(narrow_inputs_model(), "f", 1, &v2_32, "4294967296 does not fit input 'f' (uint32)");
    /* counts: none, too many, not the input's, and an input whose size is not bound yet */
    expect_values_error(narrow_inputs_model(), "a", 0, pair, "a value for input 'a' has 0 elements (1 to 1024)");
    static const int64_t zeros[MEMPLAN_MAX_TRACKED_ELEMS + 1];
    expect_values_error(narrow_inputs_model(), "g", MEMPLAN_MAX_TRACKED_ELEMS + 1, zeros,
                        "a value for input 'g' has 1025 elements (1 to 1024)");
    expect_values_error(narrow_inputs_model(), "e", 3, three, "input 'e' holds 2 elements, the value gives 3");
    expect_values_error(narrow_inputs_model(), "g", 2, pair,
                        "input 'g' has symbolic dims: bind them (--dim) before its value");
}

/* ---- memory against a dim ---------------------------------------------- */

/* y = Neg(Relu(x)) with x float[seq]: a and y meet at position 1, 8*seq
 * bytes; with seq unbound the plan is deferred, so a sweep binds it. */
static void test_sweep(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("main");
    mb_input(g, "x", F32, "seq");
    mb_node(g, "Relu", "x", "a");
    mb_node(g, "Neg", "a", "y");
    mb_output(g, "y", F32, "seq");
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.align = 1;
    memplan_binding other = {"seq", 7}; /* replaced by the swept values */
    o.bindings = &other;
    o.n_bindings = 1;
    const int64_t values[] = {0, 1, 10, 1000};
    memplan_sweep_point pts[4];
    assert_int_equal(memplan_plan_sweep(m, &o, "seq", values, 4, pts, &err), MEMPLAN_OK);
    for (int i = 0; i < 4; i++) {
        assert_false(pts[i].deferred);
        assert_int_equal(pts[i].value, values[i]);
        assert_int_equal(pts[i].peak_bytes, 8 * (uint64_t)values[i]);
        assert_int_equal(pts[i].lower_bound_bytes, 8 * (uint64_t)values[i]);
        assert_int_equal(pts[i].naive_bytes, 8 * (uint64_t)values[i]);
        assert_int_equal(pts[i].slots_bytes, 8 * (uint64_t)values[i]);
        assert_true(pts[i].total_known); /* no weights, x outside the arena */
        assert_int_equal(pts[i].total_bytes, 12 * (uint64_t)values[i]);
    }
    /* a dim the model does not have: every row would be the same (before,
     * every point came out deferred, seq unbound) */
    o.n_bindings = 0;
    assert_int_equal(memplan_plan_sweep(m, &o, "batch", values, 2, pts, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "no dim of the model is named 'batch'");
    assert_int_equal(memplan_plan_sweep(m, &o, "", values, 2, pts, &err), MEMPLAN_EUSAGE);
    memplan_model_free(m);

    /* the swept dim is one of two: the other unbound, every point deferred */
    g = mb_new_graph("main");
    mb_input(g, "x", F32, "batch,seq");
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", F32, "batch,seq");
    bytes = mb_pack(g, &len);
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    assert_int_equal(memplan_plan_sweep(m, &o, "batch", values + 1, 2, pts, &err), MEMPLAN_OK); /* 1, 10 */
    assert_true(pts[0].fits && pts[0].deferred && pts[1].fits && pts[1].deferred);
    memplan_model_free(m);

    /* an input nothing reads, of unbound size: the arena is planned, the
     * total to fit is not known */
    g = mb_new_graph("main");
    mb_input(g, "x", F32, "seq");
    mb_input(g, "u", F32, "n");
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", F32, "seq");
    bytes = mb_pack(g, &len);
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    assert_int_equal(memplan_plan_sweep(m, &o, "seq", values + 2, 1, pts, &err), MEMPLAN_OK);
    assert_true(pts[0].fits && !pts[0].deferred);
    assert_int_equal(pts[0].peak_bytes, 40);
    assert_false(pts[0].total_known);
    assert_int_equal(pts[0].total_bytes, 0);
    memplan_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_if_known_condition),
        cmocka_unit_test(test_if_unknown_condition_plans_larger),
        cmocka_unit_test(test_if_branch_returns_outer_value),
        cmocka_unit_test(test_inplace_in_a_branch),
        cmocka_unit_test(test_loop_known_trip_count),
        cmocka_unit_test(test_loop_unknown_trip_count),
        cmocka_unit_test(test_graphs_attribute_bodies),
        cmocka_unit_test(test_if_inside_loop),
        cmocka_unit_test(test_scan_outputs),
        cmocka_unit_test(test_shadowing),
        cmocka_unit_test(test_naive_counts_bodies_naive),
        cmocka_unit_test(test_constants_are_weights),
        cmocka_unit_test(test_dequantize_linear_is_not_folded),
        cmocka_unit_test(test_weights_kept_through_bodies),
        cmocka_unit_test(test_inputs_and_total),
        cmocka_unit_test(test_weights_beyond_64_bits),
        cmocka_unit_test(test_body_has_no_inputs),
        cmocka_unit_test(test_value_errors),
        cmocka_unit_test(test_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
