/*
 * ops_control.c -- If, Loop, Scan: their bodies are inferred with the
 * shapes the node passes in, and the node's outputs come from the bodies.
 */
#include <stdio.h>
#include <string.h>

#include "shapes/rules.h"

#define R MEMPLAN_MAX_RANK

static const memplan_graph *graph_attr(mp_sctx *c, const char *name) {
    const memplan_attr *a = mp_attr(c, name);
    return a && a->type == MEMPLAN_ATTR_GRAPH ? a->g : NULL;
}

/* Merge two branch shapes: equal dims stay, different ones become fresh. */
static void merge_out(mp_sctx *c, int32_t k, const memplan_vshape *a, const memplan_vshape *b) {
    if (!a || a->kind == MEMPLAN_TYPE_NONE) {
        mp_out_like(c, k, b);
        return;
    }
    if (!b || b->kind == MEMPLAN_TYPE_NONE || a->kind != MEMPLAN_TYPE_TENSOR) {
        mp_out_like(c, k, a);
        return;
    }
    if (a->rank < 0 || b->rank != a->rank) {
        mp_out_unranked(c, k, a->elem_type, "branches give different ranks");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, (size_t)a->rank);
    if (!dims) return;
    for (int32_t i = 0; i < a->rank; i++) dims[i] = a->dims[i] == b->dims[i] ? a->dims[i] : MEMPLAN_EXPR_NONE;
    mp_out(c, k, a->elem_type, a->rank, dims);
}

static void if_op(mp_sctx *c) {
    const memplan_graph *t = graph_attr(c, "then_branch"), *e = graph_attr(c, "else_branch");
    if (!t || !e) return;
    mp_infer_sub(c, t, 0, NULL);
    mp_infer_sub(c, e, 0, NULL);
    int64_t cond;
    int32_t n;
    bool known = mp_in_ints(c, 0, &cond, 1, &n) && n == 1;
    for (int32_t k = 0; k < mp_n_out(c); k++) {
        const memplan_vshape *a = mp_sub_out(c, t, k), *b = mp_sub_out(c, e, k);
        if (known) {
            const memplan_vshape *v = cond ? a : b;
            mp_out_like(c, k, v);
            if (v && v->n_elems >= 0) mp_out_vals(c, k, v->n_elems, v->elems, v->elem_shift);
        } else {
            merge_out(c, k, a, b);
        }
    }
}

/* A Loop's trip count when M is not known (absent, computed from data, or a
 * graph input without a value): a dim named after the node, `trips_` and the
 * node's name with every character outside [A-Za-z0-9_] as `_`, so the user
 * can bind it (`--dim trips_loop_1=64`). Scan outputs grow along it. */
static memplan_expr trip_dim(mp_sctx *c) {
    const memplan_node *n = mp_node(c);
    char name[128] = "trips_";
    size_t at = strlen(name);
    const char *src = n->name[0] ? n->name : "loop";
    for (; *src && at + 1 < sizeof name; src++, at++) {
        char ch = *src;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
        name[at] = ok ? ch : '_';
    }
    name[at] = 0;
    if (!n->name[0]) snprintf(name + at, sizeof name - at, "%d", (int)n->file_index);
    return memplan_expr_sym(mp_pool(c), name);
}

/* Loop(M, cond, v_initial...) -> (v_final..., scan_outputs...) */
static void loop_op(mp_sctx *c) {
    const memplan_graph *body = graph_attr(c, "body");
    if (!body) return;
    int32_t n_carried = mp_n_in(c) - 2;
    if (n_carried < 0) n_carried = 0;
    memplan_vshape iter = {MEMPLAN_TYPE_TENSOR,
                           MEMPLAN_DTYPE_INT64,
                           0,
                           NULL,
                           MEMPLAN_EXPR_NONE,
                           MEMPLAN_ORIGIN_INFERRED,
                           NULL,
                           -1,
                           NULL,
                           0};
    memplan_vshape cond = iter;
    cond.elem_type = MEMPLAN_DTYPE_BOOL;
    const memplan_vshape **given = mp_tmp(c, 2 + 256, sizeof *given);
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!given || !dims) return;
    given[0] = &iter;
    given[1] = &cond;
    int32_t ng = 2;
    for (int32_t k = 0; k < n_carried && ng < 2 + 256; k++) given[ng++] = mp_in(c, 2 + k);
    mp_infer_sub(c, body, ng, given);
    for (int32_t k = 0; k < n_carried; k++) {
        const memplan_vshape *in = mp_in(c, 2 + k), *out = mp_sub_out(c, body, 1 + k);
        /* a carried value keeps its shape when the body agrees, else dims differ */
        if (in && out && in->rank >= 0 && out->rank == in->rank) merge_out(c, k, in, out);
        else
            mp_out_like(c, k, out ? out : in);
    }
    int32_t trip_n;
    const memplan_expr *trip = mp_in_elems(c, 0, &trip_n);
    memplan_expr m = trip && trip_n == 1 ? trip[0] : MEMPLAN_EXPR_NONE;
    if (m == MEMPLAN_EXPR_NONE && mp_n_out(c) > n_carried) m = trip_dim(c);
    for (int32_t k = n_carried; k < mp_n_out(c); k++) {
        const memplan_vshape *s = mp_sub_out(c, body, 1 + k);
        if (!s || s->kind != MEMPLAN_TYPE_TENSOR || s->rank < 0 || s->rank + 1 > R) {
            if (s) mp_out_unranked(c, k, s->elem_type, "scan output rank unknown");
            continue;
        }
        dims[0] = m;
        if (s->rank > 0) memcpy(dims + 1, s->dims, (size_t)s->rank * sizeof *dims);
        mp_out(c, k, s->elem_type, s->rank + 1, dims);
    }
}

/* Scan (opset 9+): N state inputs, then scan inputs sliced along their axes. */
static void scan_op(mp_sctx *c) {
    const memplan_graph *body = graph_attr(c, "body");
    if (!body) return;
    int64_t n_scan_in = mp_attr_int(c, "num_scan_inputs", 0);
    bool v8 = mp_opset(c) < 9;
    int32_t first = v8 ? 1 : 0; /* opset 8 has sequence_lens first */
    int32_t n_state = mp_n_in(c) - first - (int32_t)n_scan_in;
    if (n_state < 0 || n_scan_in < 0 || body->n_inputs != n_state + n_scan_in) return;
    const int64_t *in_axes, *out_axes;
    int64_t nia = mp_attr_ints(c, "scan_input_axes", &in_axes);
    int64_t noa = mp_attr_ints(c, "scan_output_axes", &out_axes);
    memplan_expr seq = MEMPLAN_EXPR_NONE;
    if (n_state + n_scan_in > 256) return;
    memplan_vshape *sliced = mp_tmp(c, 256, sizeof *sliced);
    const memplan_vshape **given = mp_tmp(c, 512, sizeof *given);
    /* sliced dims live here until the body has copied them */
    memplan_expr *buf = mp_tmp_exprs(c, (size_t)(n_scan_in ? n_scan_in : 1) * R);
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!sliced || !given || !buf || !dims) return;
    for (int32_t k = 0; k < n_state; k++) given[k] = mp_in(c, first + k);
    for (int32_t k = 0; k < n_scan_in; k++) {
        const memplan_vshape *x = mp_in(c, first + n_state + k);
        given[n_state + k] = NULL;
        if (!x || x->rank < (v8 ? 2 : 1)) continue;
        int32_t axis = v8 ? 1 : mp_axis(nia > k ? in_axes[k] : 0, x->rank);
        if (axis < 0) continue;
        sliced[k] = *x;
        sliced[k].n_elems = -1;
        memplan_expr *d = buf + (size_t)k * R;
        int32_t r = 0;
        for (int32_t i = 0; i < x->rank; i++)
            if (i != axis && !(v8 && i == 0)) d[r++] = x->dims[i];
        sliced[k].rank = r;
        sliced[k].dims = d;
        if (seq == MEMPLAN_EXPR_NONE) seq = x->dims[axis];
        given[n_state + k] = &sliced[k];
    }
    mp_infer_sub(c, body, n_state + (int32_t)n_scan_in, given);
    for (int32_t k = 0; k < n_state; k++) mp_out_like(c, k, mp_sub_out(c, body, k));
    for (int32_t k = n_state; k < mp_n_out(c); k++) {
        const memplan_vshape *s = mp_sub_out(c, body, k);
        if (!s || s->kind != MEMPLAN_TYPE_TENSOR || s->rank < 0 || s->rank + 1 > R) continue;
        int32_t j = k - n_state;
        int32_t axis = v8 ? 0 : mp_axis(noa > j ? out_axes[j] : 0, s->rank + 1);
        if (axis < 0) continue;
        for (int32_t i = 0, q = 0; i < s->rank + 1; i++) dims[i] = i == axis ? seq : s->dims[q++];
        if (v8) { /* opset 8: [batch, seq, ...] */
            const memplan_vshape *x0 = mp_in(c, first + n_state);
            if (x0 && x0->rank >= 1) {
                dims[0] = x0->dims[0];
                for (int32_t i = 0; i < s->rank; i++) dims[i + 1] = s->dims[i];
                dims[1] = seq;
            }
        }
        mp_out(c, k, s->elem_type, s->rank + 1, dims);
    }
}

const mp_rule mp_rules_control[] = {
    {"", "If", if_op},
    {"", "Loop", loop_op},
    {"", "Scan", scan_op},
    {NULL, NULL, NULL},
};
