/*
 * test_inplace_match.c -- in-place matching (docs/semantics.md, "In-place reuse") on wide nodes.
 *
 * inplace.c matches through sorted keys and a segment tree instead of the
 * rule's double loop (issue 21: the loop was cubic in a node's arity). Here:
 *   - reference_reuse() is that double loop, kept as it was written, and must
 *     give the same pairs on every node of random models (small pools of
 *     types and dims so keys collide; repeated, empty, protected, late-read,
 *     untyped inputs; Squeeze/Unsqueeze; with and without input overwrite);
 *   - a generated node with 8,000 inputs and outputs gets exactly the pairs a
 *     closed-form rule predicts, which the reference gives on the 40-wide one;
 *   - the matching's work counter grows as n log n, not n^2: compared at n
 *     and 8n (wide nodes, and one input repeated), never timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/inplace_internal.h"
#include "memplan/memplan.h"
#include "model_builder.h"
#include "test_inplace_util.h"

/* ---- the rule as first written (inplace.c before issue 21) --------------- */

static const memplan_vshape *ref_shape(const memplan_inplace *c, int32_t v) {
    return memplan_shapes_value(c->shapes, c->g, v);
}

static bool ref_has_type(const memplan_vshape *s) { return s && s->kind == MEMPLAN_TYPE_TENSOR && s->elem_type != 0; }

static bool ref_same_dims(const memplan_vshape *a, const memplan_vshape *b) {
    if (a->rank < 0 || a->rank != b->rank) return false;
    for (int32_t d = 0; d < a->rank; d++)
        if (a->dims[d] == MEMPLAN_EXPR_NONE || a->dims[d] != b->dims[d]) return false;
    return true;
}

static bool ref_size_fits(const memplan_inplace *c, const memplan_node *n, int32_t input_index,
                          const memplan_vshape *in, const memplan_vshape *out, memplan_reuse_kind kind) {
    int64_t bi = 0, bo = 0;
    bool ci = memplan_expr_is_const(c->pool, in->bytes, &bi);
    bool co = memplan_expr_is_const(c->pool, out->bytes, &bo);
    if (kind == MEMPLAN_REUSE_GREATER) return ci && co && bi > bo;
    bool same_type = in->elem_type == out->elem_type;
    if (same_type && ref_same_dims(in, out)) return true;
    if (same_type && input_index == 0 && (mp_is_op(n, "Squeeze") || mp_is_op(n, "Unsqueeze"))) return true;
    if (ci && co) return bi == bo;
    return !ci && !co && in->bytes != MEMPLAN_EXPR_NONE && in->bytes == out->bytes;
}

static bool ref_input_eligible(const memplan_inplace *c, int32_t i, int32_t k, int32_t o_value) {
    const memplan_node *n = &c->g->nodes[i];
    int32_t v = n->inputs[k];
    if (v < 0 || o_value < 0 || v == o_value) return false;
    if (!c->g->values[v].name[0] || !c->g->values[o_value].name[0]) return false;
    int32_t count = 0;
    for (int32_t j = 0; j < n->n_inputs; j++) count += n->inputs[j] == v;
    if (count != 1 || c->protect[v]) return false;
    if (c->producer[v] == MP_NO_PRODUCER || c->producer[v] >= i) return false;
    return c->last_use[v] == i && ref_has_type(ref_shape(c, v)) && ref_has_type(ref_shape(c, o_value));
}

/* Node i's pairs as "out:in:kind;..." in output order, into buf. */
static void reference_reuse(const memplan_inplace *c, int32_t i, char *buf, size_t cap) {
    const memplan_node *n = &c->g->nodes[i];
    uint8_t *in_used = calloc((size_t)n->n_inputs + 1, 1), *out_used = calloc((size_t)n->n_outputs + 1, 1);
    int32_t *in_of = malloc(((size_t)n->n_outputs + 1) * sizeof *in_of);
    uint8_t *kind_of = calloc((size_t)n->n_outputs + 1, 1);
    for (int32_t o = 0; o < n->n_outputs; o++) in_of[o] = -1;
    for (int pass = 0; pass < 2; pass++) {
        memplan_reuse_kind kind = pass ? MEMPLAN_REUSE_GREATER : MEMPLAN_REUSE_EQUAL;
        for (int32_t o = 0; o < n->n_outputs; o++) {
            int32_t ov = n->outputs[o];
            if (out_used[o] || ov < 0) continue;
            for (int32_t k = 0; k < n->n_inputs; k++) {
                if (in_used[k] || !ref_input_eligible(c, i, k, ov)) continue;
                if (!ref_size_fits(c, n, k, ref_shape(c, n->inputs[k]), ref_shape(c, ov), kind)) continue;
                in_of[o] = k;
                kind_of[o] = (uint8_t)kind;
                in_used[k] = out_used[o] = 1;
                break;
            }
        }
    }
    size_t len = 0;
    buf[0] = 0;
    for (int32_t o = 0; o < n->n_outputs; o++)
        if (in_of[o] >= 0 && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%d:%d:%s", len ? ";" : "", (int)o, (int)in_of[o],
                                    memplan_reuse_kind_name((memplan_reuse_kind)kind_of[o]));
    free(in_used);
    free(out_used);
    free(in_of);
    free(kind_of);
}

/* The library's pairs of node i in the same form. */
static void library_reuse(const memplan_inplace *c, int32_t i, char *buf, size_t cap) {
    const memplan_reuse *items;
    size_t n, len = 0;
    assert_int_equal(memplan_inplace_node_reuse(c, i, &items, &n, NULL), MEMPLAN_OK);
    buf[0] = 0;
    for (size_t r = 0; r < n && len < cap; r++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%d:%d:%s", r ? ";" : "", (int)items[r].output_index,
                                (int)items[r].input_index, memplan_reuse_kind_name(items[r].kind));
}

/* ---- random models -------------------------------------------------------- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33) % n;
}

/* Few types and dims, so that keys collide: same dims, same bytes by other
 * dims (2,2 / 4), symbolic names, unknown dims and ranks, scalars. */
static const char *const DIMS[] = {"2", "4", "2,2", "8", "N", "N,2", "2,N", "M", "?", "3,?", "", NULL, "1,4", "N,N"};
static const int32_t ELEMS[] = {1, 1, 1, 10, 7, 6, 0};

static void random_value(mb_graph *g, const char *name) { mb_value(g, name, ELEMS[rnd(7)], DIMS[rnd(14)]); }

/* Append "name" to a comma list. */
static void list_add(char *list, size_t cap, const char *name) {
    size_t n = strlen(list);
    snprintf(list + n, cap - n, "%s%s", n ? "," : "", name);
}

/* x0..x2 (graph inputs), w (initializer); P makes p0..p(np-1); wide nodes
 * read random mixes of them (and of earlier wide outputs), and Z reads a few
 * late so their last use is not the wide node. */
static void random_model(tctx *t, bool allow) {
    mb_graph *g = mb_new_graph("g");
    char name[32], ins[4096], outs[4096];
    for (int x = 0; x < 3; x++) {
        snprintf(name, sizeof name, "x%d", x);
        mb_input(g, name, ELEMS[rnd(6)], DIMS[rnd(11)]);
    }
    mb_initializer(g, "w", 1, "2,2");
    int np = 4 + (int)rnd(10);
    outs[0] = 0;
    for (int p = 0; p < np; p++) {
        snprintf(name, sizeof name, "p%d", p);
        list_add(outs, sizeof outs, name);
        random_value(g, name);
    }
    mb_node(g, "Custom", "x0", outs);
    int nw = 1 + (int)rnd(3), made = 0;
    static const char *const OPS[] = {"Custom", "Custom", "Squeeze", "Unsqueeze"};
    for (int w = 0; w < nw; w++) {
        int ni = 1 + (int)rnd(12), no = 1 + (int)rnd(12);
        ins[0] = outs[0] = 0;
        for (int k = 0; k < ni; k++) {
            uint32_t r = rnd(20);
            if (r < 13) snprintf(name, sizeof name, "p%d", (int)rnd((uint32_t)np));
            else if (r < 15 && made)
                snprintf(name, sizeof name, "q%d", (int)rnd((uint32_t)made));
            else if (r < 17)
                snprintf(name, sizeof name, "x%d", (int)rnd(3));
            else if (r < 18)
                snprintf(name, sizeof name, "w");
            else
                name[0] = 0; /* an omitted optional input */
            if (k) strcat(ins, ",");
            strcat(ins, name);
        }
        for (int o = 0; o < no; o++) {
            if (rnd(10) == 0) {
                name[0] = 0;
            } else {
                snprintf(name, sizeof name, "q%d", made++);
                random_value(g, name);
                if (rnd(8) == 0) mb_output(g, name, 0, NULL);
            }
            if (o) strcat(outs, ",");
            strcat(outs, name);
        }
        mb_node(g, OPS[rnd(4)], ins, outs);
    }
    ins[0] = 0;
    for (int k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "p%d", (int)rnd((uint32_t)np));
        list_add(ins, sizeof ins, name);
    }
    mb_node(g, "Custom", ins, "z");
    mb_value(g, "z", 1, "2");
    mb_output(g, "z", 1, "2");
    t_build(t, g, allow, false);
}

static void test_random_nodes_match_the_rule(void **state) {
    (void)state;
    rng_state = 21;
    char want[4096], got[4096];
    int pairs = 0, greater = 0, nodes = 0;
    for (int model = 0; model < 1000; model++) {
        tctx t;
        random_model(&t, model % 2 == 1);
        for (int32_t i = 0; i < t.ctx->n_nodes; i++, nodes++) {
            reference_reuse(t.ctx, i, want, sizeof want);
            library_reuse(t.ctx, i, got, sizeof got);
            if (strcmp(want, got) != 0)
                fail_msg("model %d node %d: got '%s', the rule gives '%s'", model, (int)i, got, want);
            for (const char *p = want; (p = strchr(p, ':')) != NULL; p++) pairs++;
            for (const char *p = want; (p = strstr(p, "greater")) != NULL; p++) greater++;
        }
        t_free(&t);
    }
    /* The models exercise the rule: many pairs, both kinds (two ':' a pair). */
    print_message("random: %d nodes, %d pairs, %d greater\n", nodes, pairs / 2, greater);
    assert_true(pairs / 2 > 1500);
    assert_true(greater > 300);
}

/* ---- one wide node with a closed-form answer ------------------------------ */

/* Wide lists are filled in place: model_builder's one-realloc-per-item
 * appends are quadratic under ASan (every realloc copies). */
/* n names: fmt with the index (a fmt without %d repeats one name). */
static char **names(size_t n, const char *fmt) {
    char **v = malloc(n * sizeof *v), name[32];
    for (size_t k = 0; k < n; k++) {
        snprintf(name, sizeof name, fmt, (int)k);
        v[k] = mb_strdup(name);
    }
    return v;
}

static Onnx__NodeProto *wide_node(mb_graph *g, const char *op, char **ins, size_t n_in, char **outs, size_t n_out) {
    Onnx__NodeProto *nd = mb_node(g, op, "", "");
    nd->input = ins;
    nd->n_input = n_in;
    nd->output = outs;
    nd->n_output = n_out;
    return nd;
}

/* x -> P -> t0..t(n-1), r; C reads t0..t(n-1), then r n times, then x and w,
 * and writes y0..y(n-1). t_k is float[2 + k%4]. For o < n/2, y_o is
 * float[2 + (o+1)%4]; for o >= n/2, float[1] when o is even and float[6]
 * (larger than every input) when odd. */
static void wide_model(tctx *t, int32_t n) {
    mb_graph *g = mb_new_graph("wide");
    char name[32], dims[16];
    mb_input(g, "x", 1, "2");
    mb_initializer(g, "w", 1, "2");
    size_t nv = 2 * (size_t)n + 1;
    g->value_info = malloc(nv * sizeof *g->value_info);
    for (int32_t k = 0; k < n; k++) {
        snprintf(name, sizeof name, "t%d", (int)k);
        snprintf(dims, sizeof dims, "%d", 2 + (int)(k % 4));
        g->value_info[g->n_value_info++] = mb_value_info(name, 1, dims);
        snprintf(name, sizeof name, "y%d", (int)k);
        int d = k < n / 2 ? 2 + (int)((k + 1) % 4) : k % 2 ? 6 : 1;
        snprintf(dims, sizeof dims, "%d", d);
        g->value_info[g->n_value_info++] = mb_value_info(name, 1, dims);
    }
    g->value_info[g->n_value_info++] = mb_value_info("r", 1, "2");
    char **made = names((size_t)n + 1, "t%d");
    free(made[n]);
    made[n] = mb_strdup("r");
    wide_node(g, "P", names(1, "x"), 1, made, (size_t)n + 1);
    char **ins = names(2 * (size_t)n + 2, "t%d");
    for (int32_t k = n; k < 2 * n + 2; k++) {
        free(ins[k]);
        ins[k] = mb_strdup(k < 2 * n ? "r" : k == 2 * n ? "x" : "w");
    }
    wide_node(g, "C", ins, 2 * (size_t)n + 2, names((size_t)n, "y%d"), (size_t)n);
    t_build(t, g, false, false);
}

/* What "In-place reuse" gives on wide_model(n): the first half matches as equal, y_o with
 * input o+1 (o % 4 == 3: o-3), the inputs of its size class in order; then
 * the even outputs of the second half take the unused inputs in order as
 * greater; the odd ones nothing. */
static void predicted_reuse(int32_t n, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    for (int32_t o = 0; o < n; o++) {
        int32_t k = o < n / 2 ? (o % 4 == 3 ? o - 3 : o + 1) : o % 2 ? -1 : n / 2 + (o - n / 2) / 2;
        if (k >= 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s%d:%d:%s", len ? ";" : "", (int)o, (int)k,
                                    o < n / 2 ? "equal" : "greater");
    }
}

static void test_wide_node_closed_form(void **state) {
    (void)state;
    static const int32_t sizes[] = {40, 8000};
    for (size_t s = 0; s < 2; s++) {
        int32_t n = sizes[s];
        size_t cap = (size_t)n * 24 + 64;
        char *want = malloc(cap), *got = malloc(cap), *ref = malloc(cap);
        tctx t;
        wide_model(&t, n);
        assert_int_equal(t.m->graph->nodes[1].n_inputs, 2 * n + 2);
        predicted_reuse(n, want, cap);
        library_reuse(t.ctx, 1, got, cap);
        if (strcmp(want, got) != 0) fail_msg("n=%d: got '%.200s', predicted '%.200s'", (int)n, got, want);
        if (n <= 40) { /* the double loop agrees with the prediction (cubic: small n only) */
            reference_reuse(t.ctx, 1, ref, cap);
            if (strcmp(want, ref) != 0) fail_msg("n=%d: the rule gives '%s', predicted '%s'", (int)n, ref, want);
        }
        expect_list(&t, LIST_RELEASE, 0, "");
        t_free(&t);
        free(want);
        free(got);
        free(ref);
    }
}

/* ---- growth of the work counter ------------------------------------------- */

/* One node reading r `n` times and writing one output (never eligible). */
static void repeat_model(tctx *t, int32_t n) {
    mb_graph *g = mb_new_graph("repeat");
    mb_input(g, "x", 1, "2");
    mb_node(g, "Abs", "x", "r");
    wide_node(g, "C", names((size_t)n, "r"), (size_t)n, names(1, "y"), 1);
    mb_value(g, "y", 1, "2");
    t_build(t, g, false, false);
}

static uint64_t work_of(void (*build)(tctx *, int32_t), int32_t n) {
    tctx t;
    build(&t, n);
    uint64_t w = t.ctx->match_work;
    t_free(&t);
    return w;
}

/* n log n grows 8 x log2(8000)/log2(1000) = 10.4x from n = 1000 to 8n: allow
 * 12x (the counter is deterministic; a quadratic matching gives 64x, the old
 * loops 512x on wide nodes). One input repeated is linear: at most 9x. */
static void test_work_grows_n_log_n(void **state) {
    (void)state;
    const int32_t n = 1000;
    uint64_t w1 = work_of(wide_model, n), w8 = work_of(wide_model, 8 * n);
    print_message("wide: work %llu at n=%d, %llu at 8n (%.2fx)\n", (unsigned long long)w1, (int)n,
                  (unsigned long long)w8, (double)w8 / (double)w1);
    assert_true(w1 > (uint64_t)n);
    assert_true(w8 <= w1 * 12);
    uint64_t r1 = work_of(repeat_model, 10 * n), r8 = work_of(repeat_model, 80 * n);
    print_message("repeat: work %llu at n=%d, %llu at 8n (%.2fx)\n", (unsigned long long)r1, (int)(10 * n),
                  (unsigned long long)r8, (double)r8 / (double)r1);
    assert_true(r1 >= (uint64_t)(10 * n));
    assert_true(r8 <= r1 * 9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_nodes_match_the_rule),
        cmocka_unit_test(test_wide_node_closed_form),
        cmocka_unit_test(test_work_grows_n_log_n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
