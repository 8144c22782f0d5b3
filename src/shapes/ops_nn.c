/*
 * ops_nn.c -- shape rules of the nn family: convolutions and pools (Conv,
 * ConvTranspose, ConvInteger, DeformConv, MaxPool, AveragePool, LpPool, the
 * global pools, MaxUnpool, MaxRoiPool, RoiAlign), products (Gemm, MatMul,
 * MatMulInteger, Einsum), recurrent ops (RNN, GRU, LSTM), sampling (GridSample,
 * AffineGrid, Col2Im), normalizations and losses, Attention.
 *
 * Window arithmetic follows the ONNX operator specs (opsets 7 to 23) and
 * stays symbolic: with H a dim name, a 3x3 stride-2 pad-1 Conv gives
 * (H+1)//2 (= (H+2-3)//2+1). A dim that depends on an unknown or symbolic
 * kernel size is left unknown (a fresh name) but the rank is kept.
 */
#include <string.h>

#include "shapes/rules.h"

#define R MEMPLAN_MAX_RANK

static memplan_expr_pool *P(mp_sctx *c) { return mp_pool(c); }
static memplan_expr add(mp_sctx *c, memplan_expr a, memplan_expr b) { return memplan_expr_add(P(c), a, b); }
static memplan_expr sub(mp_sctx *c, memplan_expr a, memplan_expr b) { return memplan_expr_sub(P(c), a, b); }
static memplan_expr mul(mp_sctx *c, memplan_expr a, memplan_expr b) { return memplan_expr_mul(P(c), a, b); }
static bool is_const(mp_sctx *c, memplan_expr e, int64_t *v) { return memplan_expr_is_const(P(c), e, v); }

/* Dim i of a shape, or NONE when the shape or its rank is unknown. */
static memplan_expr dim_at(const memplan_vshape *v, int32_t i) {
    return v && v->rank > i && i >= 0 ? v->dims[i] : MEMPLAN_EXPR_NONE;
}

/* ---- INTS attributes with a default ------------------------------------ */

/* A view on an INTS attribute: v[i] when given, else dflt. */
typedef struct ints_view {
    const int64_t *v;
    int64_t n;
    int64_t dflt;
} ints_view;

static int64_t iv_at(ints_view a, int32_t i) { return a.v && i < a.n ? a.v[i] : a.dflt; }

/* Read attribute name; false (with a note) when it is given with a count other than want. */
static bool ints_attr(mp_sctx *c, const char *name, int64_t want, int64_t dflt, ints_view *out) {
    out->n = mp_attr_ints(c, name, &out->v);
    out->dflt = dflt;
    if (out->n >= 0 && out->n != want) {
        mp_note(c, "attribute %s has %lld values, expected %lld", name, (long long)out->n, (long long)want);
        return false;
    }
    return true;
}

/* ---- shared conv/pool window arithmetic -------------------------------- */

/* A constant as an amount. Attribute values are arbitrary int64s, so all
 * arithmetic on them goes through the pool (overflow gives NONE, not UB). */
static memplan_expr K(mp_sctx *c, int64_t v) { return mp_const(c, v); }

/* Dilated kernel size (k-1)*d+1. */
static memplan_expr eff_kernel(mp_sctx *c, int64_t k, int64_t d) {
    return add(c, mul(c, sub(c, K(c, k), K(c, 1)), K(c, d)), K(c, 1));
}

/* One spatial output dim of a window of effective size ek (dilated kernel)
 * over `in` with pads pb/pe and stride s: (in + pb + pe - ek)//s + 1. With
 * ceil_mode the division rounds up, and a last window that would start in
 * the end padding is dropped (ONNX pool spec, as onnxruntime does). */
static memplan_expr window_out(mp_sctx *c, memplan_expr in, int64_t pb, int64_t pe, memplan_expr ek, int64_t s,
                               bool ceil_mode) {
    memplan_expr total = sub(c, add(c, add(c, in, K(c, pb)), K(c, pe)), ek);
    memplan_expr one = K(c, 1), sc = K(c, s);
    if (!ceil_mode) return add(c, memplan_expr_floordiv(P(c), total, sc), one);
    memplan_expr out = add(c, memplan_expr_ceildiv(P(c), total, sc), one);
    int64_t ekv;
    if (pe == 0 && is_const(c, ek, &ekv) && ekv >= s) return out; /* the last window starts inside */
    /* windows must start before in + pb: out <= (in + pb - 1)//s + 1 */
    memplan_expr limit = add(c, memplan_expr_floordiv(P(c), sub(c, add(c, in, K(c, pb)), one), sc), one);
    return memplan_expr_min(P(c), out, limit);
}

/* Kernel size of spatial axis i: kernel_shape attribute, else W's dim; -1 unknown. */
static int64_t kernel_at(mp_sctx *c, ints_view ks, const memplan_vshape *w, int32_t i) {
    int64_t k;
    if (ks.v) return ks.v[i];
    if (w && w->rank > i + 2 && is_const(c, w->dims[i + 2], &k)) return k;
    return -1;
}

int32_t mp_conv_out_dims(mp_sctx *c, const memplan_vshape *x, const memplan_vshape *w, bool channels_last,
                         memplan_expr *dims) {
    const int64_t *ksv;
    int64_t nks = mp_attr_ints(c, "kernel_shape", &ksv);
    int32_t rank = x && x->rank >= 0          ? x->rank
                   : w && w->rank >= 0        ? w->rank
                   : nks >= 0 && nks <= R - 2 ? (int32_t)nks + 2
                                              : -1;
    if (rank < 3 || rank > R) return -1;
    int32_t ns = rank - 2, sp = channels_last ? 1 : 2, ch = channels_last ? rank - 1 : 1; /* where spatial dims start */
    ints_view ks, st, dl, pads;
    if (!ints_attr(c, "kernel_shape", ns, 0, &ks) || !ints_attr(c, "strides", ns, 1, &st) ||
        !ints_attr(c, "dilations", ns, 1, &dl) || !ints_attr(c, "pads", 2 * (int64_t)ns, 0, &pads))
        return -1;
    const char *auto_pad = mp_attr_str(c, "auto_pad", "NOTSET");
    bool same = strncmp(auto_pad, "SAME", 4) == 0, valid = strcmp(auto_pad, "VALID") == 0;
    bool ceil_mode = mp_attr_int(c, "ceil_mode", 0) != 0;
    dims[0] = dim_at(x, 0);
    dims[ch] = w ? dim_at(w, 0) : dim_at(x, ch);
    for (int32_t i = 0; i < ns; i++) {
        memplan_expr in = dim_at(x, i + sp);
        int64_t s = iv_at(st, i), d = iv_at(dl, i), k = kernel_at(c, ks, w, i);
        if (s < 1 || d < 1) {
            mp_note(c, "stride or dilation below 1");
            return -1;
        }
        if (same) dims[i + sp] = memplan_expr_ceildiv(P(c), in, mp_const(c, s));
        else if (k < 0)
            dims[i + sp] = MEMPLAN_EXPR_NONE;
        else
            dims[i + sp] = window_out(c, in, valid ? 0 : iv_at(pads, i), valid ? 0 : iv_at(pads, i + ns),
                                      eff_kernel(c, k, d), s, ceil_mode);
    }
    return rank;
}

/* ---- convolutions ------------------------------------------------------ */

/* Conv-like op: X at input 0, W at input w_k (-1: a pool), output type et
 * (0: X's). n_out outputs get the shape; output 1 of MaxPool (Indices) is
 * int64. */
static void conv_like(mp_sctx *c, int32_t w_k, int32_t et, int32_t n_out) {
    const memplan_vshape *x = mp_in(c, 0), *w = w_k >= 0 ? mp_in(c, w_k) : NULL;
    if (!et) et = x ? x->elem_type : 0;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t rank = mp_conv_out_dims(c, x, w, false, dims);
    for (int32_t k = 0; k < n_out; k++) {
        int32_t t = k == 0 ? et : MEMPLAN_DTYPE_INT64;
        if (rank < 0) mp_out_unranked(c, k, t, "input rank unknown or attributes invalid");
        else
            mp_out(c, k, t, rank, dims);
    }
}

static void conv(mp_sctx *c) { conv_like(c, 1, 0, 1); }
static void conv_integer(mp_sctx *c) { conv_like(c, 1, MEMPLAN_DTYPE_INT32, 1); }
static void pool(mp_sctx *c) { conv_like(c, -1, 0, 1); }
static void max_pool(mp_sctx *c) { conv_like(c, -1, 0, 2); }

/* ConvTranspose: output_shape wins; else stride*(in-1) + output_padding +
 * dilated kernel - pads; SAME_* gives in*stride. Channels: W[1]*group. */
static void conv_transpose(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *w = mp_in(c, 1);
    int32_t et = x ? x->elem_type : 0;
    int32_t rank = x && x->rank >= 0 ? x->rank : w && w->rank >= 0 ? w->rank : -1;
    if (rank < 3 || rank > R) {
        mp_out_unranked(c, 0, et, "input rank unknown");
        return;
    }
    int32_t ns = rank - 2;
    ints_view ks, st, dl, pads, opad, oshape;
    oshape.n = mp_attr_ints(c, "output_shape", &oshape.v);
    if (!ints_attr(c, "kernel_shape", ns, 0, &ks) || !ints_attr(c, "strides", ns, 1, &st) ||
        !ints_attr(c, "dilations", ns, 1, &dl) || !ints_attr(c, "pads", 2 * (int64_t)ns, 0, &pads) ||
        !ints_attr(c, "output_padding", ns, 0, &opad) || (oshape.n >= 0 && oshape.n != ns && oshape.n != rank)) {
        mp_out_unranked(c, 0, et, "attributes invalid");
        return;
    }
    const char *auto_pad = mp_attr_str(c, "auto_pad", "NOTSET");
    bool same = strncmp(auto_pad, "SAME", 4) == 0, valid = strcmp(auto_pad, "VALID") == 0;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    dims[0] = dim_at(x, 0);
    dims[1] = mul(c, dim_at(w, 1), mp_const(c, mp_attr_int(c, "group", 1)));
    for (int32_t i = 0; i < ns; i++) {
        memplan_expr in = dim_at(x, i + 2);
        int64_t s = iv_at(st, i), k = kernel_at(c, ks, w, i);
        if (oshape.n >= 0) dims[i + 2] = mp_const(c, oshape.v[oshape.n == rank ? i + 2 : i]);
        else if (same)
            dims[i + 2] = mul(c, in, mp_const(c, s));
        else if (k < 0)
            dims[i + 2] = MEMPLAN_EXPR_NONE;
        else {
            memplan_expr ek = eff_kernel(c, k, iv_at(dl, i));
            memplan_expr pad = valid ? K(c, 0) : add(c, K(c, iv_at(pads, i)), K(c, iv_at(pads, i + ns)));
            memplan_expr base = mul(c, sub(c, in, K(c, 1)), K(c, s));
            dims[i + 2] = sub(c, add(c, add(c, base, K(c, iv_at(opad, i))), ek), pad);
        }
    }
    mp_out(c, 0, et, rank, dims);
}

/* ---- pools ------------------------------------------------------------- */

/* GlobalAveragePool / GlobalMaxPool / GlobalLpPool: spatial dims become 1. */
static void global_pool(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 2) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int32_t i = 0; i < x->rank; i++) dims[i] = i < 2 ? x->dims[i] : mp_const(c, 1);
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

/* MaxUnpool: output_shape input when known, else (in-1)*stride + k - pads. */
static void max_unpool(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int32_t n;
    const memplan_expr *os = mp_in(c, 2) ? mp_in_elems(c, 2, &n) : NULL;
    if (os && n <= R) {
        mp_out(c, 0, x->elem_type, n, os);
        return;
    }
    if (x->rank < 3) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    int32_t ns = x->rank - 2;
    ints_view ks, st, pads;
    if (!ints_attr(c, "kernel_shape", ns, 0, &ks) || !ks.v || !ints_attr(c, "strides", ns, 1, &st) ||
        !ints_attr(c, "pads", 2 * (int64_t)ns, 0, &pads))
        return;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (int32_t i = 0; i < ns; i++) {
        memplan_expr base = mul(c, sub(c, x->dims[i + 2], mp_const(c, 1)), mp_const(c, iv_at(st, i)));
        memplan_expr pad = add(c, K(c, iv_at(pads, i)), K(c, iv_at(pads, i + ns)));
        dims[i + 2] = sub(c, add(c, base, K(c, ks.v[i])), pad);
    }
    /* an output_shape input of unknown values still fixes the rank */
    if (mp_in(c, 2))
        for (int32_t i = 0; i < x->rank; i++) dims[i] = MEMPLAN_EXPR_NONE;
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

/* MaxRoiPool: (num_rois, C, pooled_h, pooled_w). */
static void max_roi_pool(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *rois = mp_in(c, 1);
    if (!x) return;
    const int64_t *ps;
    if (mp_attr_ints(c, "pooled_shape", &ps) != 2) {
        mp_out_unranked(c, 0, x->elem_type, "pooled_shape missing");
        return;
    }
    memplan_expr dims[4] = {dim_at(rois, 0), dim_at(x, 1), mp_const(c, ps[0]), mp_const(c, ps[1])};
    mp_out(c, 0, x->elem_type, 4, dims);
}

/* RoiAlign: (num_rois, C, output_height, output_width). */
static void roi_align(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *rois = mp_in(c, 1), *bi = mp_in(c, 2);
    if (!x) return;
    memplan_expr n = dim_at(rois, 0);
    if (n == MEMPLAN_EXPR_NONE) n = dim_at(bi, 0);
    memplan_expr dims[4] = {n, dim_at(x, 1), mp_const(c, mp_attr_int(c, "output_height", 1)),
                            mp_const(c, mp_attr_int(c, "output_width", 1))};
    mp_out(c, 0, x->elem_type, 4, dims);
}

/* ---- products ---------------------------------------------------------- */

/* Gemm: (M, N) with M = A[transA], N = B[1 - transB]. */
static void gemm(mp_sctx *c) {
    const memplan_vshape *a = mp_in(c, 0), *b = mp_in(c, 1);
    if (!a) return;
    bool ta = mp_attr_int(c, "transA", 0) != 0, tb = mp_attr_int(c, "transB", 0) != 0;
    if ((a->rank >= 0 && a->rank != 2) || (b && b->rank >= 0 && b->rank != 2)) {
        mp_note(c, "Gemm inputs must be 2-D");
        mp_out_unranked(c, 0, a->elem_type, "inputs not 2-D");
        return;
    }
    memplan_expr dims[2] = {dim_at(a, ta ? 1 : 0), dim_at(b, tb ? 0 : 1)};
    mp_out(c, 0, a->elem_type, 2, dims);
}

/* A shape view of dims[0..rank). */
static memplan_vshape view(const memplan_vshape *like, int32_t rank, const memplan_expr *dims) {
    memplan_vshape v = *like;
    v.rank = rank;
    v.dims = dims;
    return v;
}

/* v with its last two dims swapped (rank >= 2), dims in scratch. */
static bool transposed(mp_sctx *c, const memplan_vshape *v, memplan_vshape *out) {
    memplan_expr *d = mp_tmp_exprs(c, (size_t)v->rank);
    if (!d) return false;
    memcpy(d, v->dims, (size_t)v->rank * sizeof *d);
    d[v->rank - 1] = v->dims[v->rank - 2];
    d[v->rank - 2] = v->dims[v->rank - 1];
    *out = view(v, v->rank, d);
    return true;
}

/* Numpy matmul of two ranked shapes (declared in rules.h). */
int32_t mp_matmul_dims(mp_sctx *c, const memplan_vshape *a, const memplan_vshape *b, bool trans_a, bool trans_b,
                       memplan_expr *dims) {
    if (!a || !b || a->rank < 1 || b->rank < 1) return -1;
    memplan_vshape ta, tb;
    if (trans_a && a->rank >= 2) {
        if (!transposed(c, a, &ta)) return -1;
        a = &ta;
    }
    if (trans_b && b->rank >= 2) {
        if (!transposed(c, b, &tb)) return -1;
        b = &tb;
    }
    int32_t ba = a->rank >= 2 ? a->rank - 2 : 0, bb = b->rank >= 2 ? b->rank - 2 : 0;
    memplan_expr ka = a->dims[a->rank - 1], kb = b->dims[b->rank >= 2 ? b->rank - 2 : 0];
    int64_t x, y;
    if (is_const(c, ka, &x) && is_const(c, kb, &y) && x != y) {
        mp_conflict(c, "inner dims %lld and %lld differ", (long long)x, (long long)y);
        return -1;
    }
    memplan_vshape va = view(a, ba, a->dims), vb = view(b, bb, b->dims);
    int32_t r = mp_broadcast(c, &va, &vb, dims);
    if (r < 0 || r + 2 > R) return -1;
    if (a->rank >= 2) dims[r++] = a->dims[a->rank - 2];
    if (b->rank >= 2) dims[r++] = b->dims[b->rank - 1];
    return r;
}

/* MatMul / MatMulInteger (et: output type, 0 = A's). */
static void matmul_like(mp_sctx *c, int32_t et) {
    const memplan_vshape *a = mp_in(c, 0), *b = mp_in(c, 1);
    if (!a || !b) return;
    if (!et) et = a->elem_type;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = a->rank >= 0 && b->rank >= 0 ? mp_matmul_dims(c, a, b, false, false, dims) : -1;
    if (r < 0) mp_out_unranked(c, 0, et, "input rank unknown or shapes do not match");
    else
        mp_out(c, 0, et, r, dims);
}

static void matmul(mp_sctx *c) { matmul_like(c, 0); }
static void matmul_integer(mp_sctx *c) { matmul_like(c, MEMPLAN_DTYPE_INT32); }

/* ---- Einsum ------------------------------------------------------------ */

/* Letters 'A'-'Z' and 'a'-'z' to 0..51; -1 otherwise. */
static int letter_index(char ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return 26 + ch - 'a';
    return -1;
}

typedef struct einsum_state {
    memplan_expr label[52]; /* dim of each letter (NONE until seen) */
    int count[52];          /* occurrences on the left side */
    memplan_expr *ell;      /* broadcast dims of the ellipsis (R entries) */
    memplan_expr *tmp;      /* R entries for the next broadcast */
    int32_t ell_rank;       /* -1 when no term has one */
} einsum_state;

/* Merge a letter's dim: a constant other than 1 wins over 1 and symbols. */
static void einsum_label(mp_sctx *c, einsum_state *st, int li, memplan_expr d) {
    int64_t k;
    memplan_expr *cur = &st->label[li];
    if (*cur == MEMPLAN_EXPR_NONE || (is_const(c, *cur, &k) && k == 1) ||
        (!is_const(c, *cur, &k) && is_const(c, d, &k) && k != 1))
        *cur = d;
}

/* One input term [s, e) against shape v; false when it does not fit. */
static bool einsum_term(mp_sctx *c, einsum_state *st, const char *s, const char *e, const memplan_vshape *v) {
    int32_t letters = 0;
    bool ell = false;
    for (const char *p = s; p < e; p++) {
        if (letter_index(*p) >= 0) letters++;
        else if (*p == '.')
            ell = true;
    }
    if (v->rank < letters || (!ell && v->rank != letters)) return false;
    int32_t er = v->rank - letters, pos = 0;
    bool seen_ell = false;
    for (const char *p = s; p < e; p++) {
        int li = letter_index(*p);
        if (li >= 0) {
            st->count[li]++;
            einsum_label(c, st, li, v->dims[pos++]);
        } else if (*p == '.' && p + 2 < e && p[1] == '.' && p[2] == '.' && !seen_ell) {
            seen_ell = true;
            memplan_vshape a = view(v, st->ell_rank < 0 ? 0 : st->ell_rank, st->ell), b = view(v, er, v->dims + pos);
            int32_t r = mp_broadcast(c, &a, &b, st->tmp);
            if (r < 0) return false;
            memcpy(st->ell, st->tmp, (size_t)r * sizeof *st->tmp);
            st->ell_rank = r;
            pos += er;
            p += 2;
        } else if (*p != ' ') {
            return false;
        }
    }
    return true;
}

/* Output dims from the right side [s, e) or, when s is NULL, implicitly. */
static int32_t einsum_output(einsum_state *st, const char *s, const char *e, memplan_expr *dims) {
    int32_t r = 0;
    if (!s) {
        for (int32_t i = 0; i < st->ell_rank; i++) dims[r++] = st->ell[i];
        for (int li = 0; li < 52; li++)
            if (st->count[li] == 1 && r < R) dims[r++] = st->label[li];
        return r;
    }
    for (const char *p = s; p < e; p++) {
        int li = letter_index(*p);
        if (li >= 0) {
            if (st->label[li] == MEMPLAN_EXPR_NONE || r >= R) return -1;
            dims[r++] = st->label[li];
        } else if (*p == '.' && p + 2 < e && p[1] == '.' && p[2] == '.') {
            for (int32_t i = 0; i < st->ell_rank && r < R; i++) dims[r++] = st->ell[i];
            p += 2;
        } else if (*p != ' ') {
            return -1;
        }
    }
    return r;
}

static void einsum(mp_sctx *c) {
    const char *eq = mp_attr_str(c, "equation", NULL);
    const memplan_vshape *x0 = mp_in(c, 0);
    int32_t et = x0 ? x0->elem_type : 0;
    einsum_state st;
    st.ell = mp_tmp_exprs(c, R);
    st.tmp = mp_tmp_exprs(c, R);
    if (!st.ell || !st.tmp) return;
    for (int i = 0; i < 52; i++) {
        st.label[i] = MEMPLAN_EXPR_NONE;
        st.count[i] = 0;
    }
    st.ell_rank = -1;
    const char *arrow = eq ? strstr(eq, "->") : NULL, *lhs_end = arrow ? arrow : eq ? eq + strlen(eq) : NULL;
    const char *s = eq;
    for (int32_t k = 0; eq && k < mp_n_in(c); k++) {
        const char *e = memchr(s, ',', (size_t)(lhs_end - s));
        if (!e) e = lhs_end;
        const memplan_vshape *v = mp_in(c, k);
        if (!v || v->rank < 0 || (k + 1 < mp_n_in(c)) != (e < lhs_end) || !einsum_term(c, &st, s, e, v)) {
            mp_out_unranked(c, 0, et, "equation or input ranks do not fit");
            return;
        }
        s = e + 1;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = eq ? einsum_output(&st, arrow ? arrow + 2 : NULL, arrow ? eq + strlen(eq) : NULL, dims) : -1;
    if (r < 0) mp_out_unranked(c, 0, et, "equation not understood");
    else
        mp_out(c, 0, et, r, dims);
}

/* ---- recurrent --------------------------------------------------------- */

/* RNN / GRU / LSTM: Y (seq, dirs, batch, hidden) or, with layout=1,
 * (batch, seq, dirs, hidden); Y_h and Y_c (dirs, batch, hidden) or
 * (batch, dirs, hidden). */
static void recurrent(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *w = mp_in(c, 1), *rr = mp_in(c, 2);
    if (!x) return;
    bool layout = mp_attr_int(c, "layout", 0) != 0;
    const char *dir = mp_attr_str(c, "direction", "forward");
    memplan_expr dirs = mp_const(c, strcmp(dir, "bidirectional") == 0 ? 2 : 1);
    if (!mp_attr(c, "direction") && w && w->rank == 3) dirs = w->dims[0];
    const memplan_attr *hs = mp_attr(c, "hidden_size");
    memplan_expr hidden = hs && hs->type == MEMPLAN_ATTR_INT ? mp_const(c, hs->i) : dim_at(rr, 2);
    if (x->rank >= 0 && x->rank != 3) {
        mp_note(c, "X must be 3-D");
        return;
    }
    memplan_expr seq = dim_at(x, layout ? 1 : 0), batch = dim_at(x, layout ? 0 : 1);
    memplan_expr y[4] = {seq, dirs, batch, hidden};
    if (layout) {
        y[0] = batch;
        y[1] = seq;
        y[2] = dirs;
    }
    memplan_expr h[3] = {layout ? batch : dirs, layout ? dirs : batch, hidden};
    mp_out(c, 0, x->elem_type, 4, y);
    for (int32_t k = 1; k < mp_n_out(c) && k < 3; k++) mp_out(c, k, x->elem_type, 3, h);
}

/* ---- sampling ---------------------------------------------------------- */

/* GridSample: (N, C) + grid's spatial dims (grid is (N, D1.., r)). */
static void grid_sample(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *g = mp_in(c, 1);
    if (!x) return;
    int32_t rank = g && g->rank >= 3 ? g->rank : x->rank;
    if (rank < 3) {
        mp_out_unranked(c, 0, x->elem_type, "input ranks unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    dims[0] = dim_at(x, 0);
    if (dims[0] == MEMPLAN_EXPR_NONE) dims[0] = dim_at(g, 0);
    dims[1] = dim_at(x, 1);
    for (int32_t i = 2; i < rank; i++) dims[i] = dim_at(g, i - 1);
    mp_out(c, 0, x->elem_type, rank, dims);
}

/* AffineGrid: size = (N, C, H, W) -> (N, H, W, 2); (N, C, D, H, W) -> (N, D, H, W, 3). */
static void affine_grid(mp_sctx *c) {
    const memplan_vshape *theta = mp_in(c, 0), *size = mp_in(c, 1);
    if (!theta) return;
    int32_t n;
    const memplan_expr *sz = mp_in_elems(c, 1, &n);
    int64_t len = -1;
    if (!sz && size && size->rank == 1) is_const(c, size->dims[0], &len);
    if (sz) len = n;
    if (len != 4 && len != 5) {
        mp_out_unranked(c, 0, theta->elem_type, "size unknown");
        return;
    }
    memplan_expr dims[5];
    int32_t r = (int32_t)len;
    dims[0] = sz ? sz[0] : dim_at(theta, 0);
    for (int32_t i = 1; i < r - 1; i++) dims[i] = sz ? sz[i + 1] : MEMPLAN_EXPR_NONE;
    dims[r - 1] = mp_const(c, r - 2);
    mp_out(c, 0, theta->elem_type, r, dims);
}

/* Col2Im: (N, C*prod(block), L) -> (N, C, image_shape...). */
static void col2im(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int32_t ni, nb;
    const memplan_expr *img = mp_in_elems(c, 1, &ni), *blk = mp_in_elems(c, 2, &nb);
    const memplan_vshape *is = mp_in(c, 1);
    int64_t k = -1;
    if (img) k = ni;
    else if (is && is->rank == 1)
        is_const(c, is->dims[0], &k);
    if (k < 1 || k > R - 2) {
        mp_out_unranked(c, 0, x->elem_type, "image_shape unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    dims[0] = dim_at(x, 0);
    dims[1] = blk && nb == k ? memplan_expr_floordiv(P(c), dim_at(x, 1), mp_product(c, nb, blk)) : MEMPLAN_EXPR_NONE;
    for (int32_t i = 0; i < k; i++) dims[i + 2] = img ? img[i] : MEMPLAN_EXPR_NONE;
    mp_out(c, 0, x->elem_type, (int32_t)k + 2, dims);
}

/* ---- normalizations and softmax --------------------------------------- */

static void same_as_input(mp_sctx *c) { mp_out_like(c, 0, mp_in(c, 0)); }

/* ---- losses ------------------------------------------------------------ */

/* ---- Attention (opset 23) ---------------------------------------------- */

/* Y: 4-D Q (B, Hq, S, h) -> (B, Hq, S, hv); 3-D Q (B, S, Hq*h) -> (B, S, Hq*hv).
 * present_key/value: past and current along the sequence axis (4-D);
 * qk_matmul_output: (B, Hq, S, total). */
static void attention(mp_sctx *c) {
    const memplan_vshape *q = mp_in(c, 0), *k = mp_in(c, 1), *v = mp_in(c, 2);
    const memplan_vshape *pk = mp_in(c, 4);
    if (!q) return;
    int32_t et = q->elem_type;
    if (q->rank != 3 && q->rank != 4) {
        mp_out_unranked(c, 0, et, "Q rank unknown");
        return;
    }
    bool four = q->rank == 4;
    const memplan_attr *aq = mp_attr(c, "q_num_heads"), *akv = mp_attr(c, "kv_num_heads");
    bool has_q = aq && aq->type == MEMPLAN_ATTR_INT, has_kv = akv && akv->type == MEMPLAN_ATTR_INT;
    memplan_expr hq = four ? q->dims[1] : has_q ? mp_const(c, aq->i) : MEMPLAN_EXPR_NONE;
    memplan_expr hkv = four ? dim_at(k, 1) : has_kv ? mp_const(c, akv->i) : MEMPLAN_EXPR_NONE;
    memplan_expr kv_seq = dim_at(k, four ? 2 : 1), hv = dim_at(v, 3), hk = dim_at(k, 3);
    if (!four) {
        hv = memplan_expr_floordiv(P(c), dim_at(v, 2), hkv);
        hk = memplan_expr_floordiv(P(c), dim_at(k, 2), hkv);
    }
    memplan_expr total = pk ? add(c, dim_at(pk, 2), kv_seq) : kv_seq;
    memplan_expr seq = q->dims[four ? 2 : 1];
    memplan_expr y4[4] = {q->dims[0], hq, seq, hv}, y3[3] = {q->dims[0], seq, mul(c, hq, hv)};
    if (four) mp_out(c, 0, et, 4, y4);
    else
        mp_out(c, 0, et, 3, y3);
    memplan_expr pkd[4] = {q->dims[0], hkv, total, hk}, pvd[4] = {q->dims[0], hkv, total, hv};
    mp_out(c, 1, et, 4, pkd);
    mp_out(c, 2, et, 4, pvd);
    memplan_expr qk[4] = {q->dims[0], hq, seq, total};
    mp_out(c, 3, et, 4, qk);
}

/* CausalConvWithState(input [B, C, L], weight [C, 1, k], bias?, past_state?)
 * -> output [B, C, L], present_state [B, C, k-1] (the last k-1 positions of
 * the left-padded input; past_state's type when given). */
static void causal_conv_with_state(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *w = mp_in(c, 1), *past = mp_in(c, 3);
    if (!x) return;
    if (x->rank != 3) {
        mp_out_unranked(c, 0, x->elem_type, "input is not [batch, channels, length]");
        return;
    }
    mp_out(c, 0, x->elem_type, 3, x->dims);
    memplan_expr k = dim_at(w, 2);
    memplan_expr st[3] = {x->dims[0], x->dims[1], k == MEMPLAN_EXPR_NONE ? dim_at(past, 2) : sub(c, k, K(c, 1))};
    mp_out(c, 1, past && past->elem_type ? past->elem_type : x->elem_type, 3, st);
}

/* LinearAttention(query [B, T, Hq*dk], key [B, T, Hkv*dk], value [B, T, Hkv*dv],
 * past_state?, ...; q_num_heads, kv_num_heads) -> output [B, T, Hq*dv],
 * present_state [B, Hkv, dk, dv] (past_state's type, else query's). */
static void linear_attention(mp_sctx *c) {
    const memplan_vshape *q = mp_in(c, 0), *v = mp_in(c, 2), *past = mp_in(c, 3);
    if (!q) return;
    int64_t hq = mp_attr_int(c, "q_num_heads", 0), hkv = mp_attr_int(c, "kv_num_heads", 0);
    if (q->rank != 3 || hq <= 0 || hkv <= 0) {
        mp_out_unranked(c, 0, q->elem_type, "query rank or head counts unknown");
        return;
    }
    memplan_expr dk = memplan_expr_floordiv(P(c), q->dims[2], K(c, hq));
    memplan_expr dv = v && v->rank == 3 ? memplan_expr_floordiv(P(c), v->dims[2], K(c, hkv)) : MEMPLAN_EXPR_NONE;
    memplan_expr out[3] = {q->dims[0], q->dims[1], mul(c, K(c, hq), dv)};
    mp_out(c, 0, q->elem_type, 3, out);
    memplan_expr st[4] = {q->dims[0], K(c, hkv), dk, dv};
    mp_out(c, 1, past && past->elem_type ? past->elem_type : q->elem_type, 4, st);
}

/* FlexAttention (ai.onnx.preview): Q [B, H, Sq, D], K, V [B, H, Sk, Dv] ->
 * [B, H, Sq, Dv]; its score/mask/prob subgraphs do not change the shape. */
static void flex_attention(mp_sctx *c) {
    const memplan_vshape *q = mp_in(c, 0), *v = mp_in(c, 2);
    if (!q) return;
    if (q->rank != 4) {
        mp_out_unranked(c, 0, q->elem_type, "Q is not 4-D");
        return;
    }
    memplan_expr dims[4] = {q->dims[0], q->dims[1], q->dims[2], dim_at(v, 3)};
    mp_out(c, 0, q->elem_type, 4, dims);
}

const mp_rule mp_rules_nn[] = {
    /* convolutions */
    {"", "Conv", conv},
    {"", "ConvInteger", conv_integer},
    {"", "ConvTranspose", conv_transpose},
    {"", "DeformConv", conv}, /* opset 19: Conv's arithmetic, no auto_pad */
    /* pools */
    {"", "MaxPool", max_pool},
    {"", "AveragePool", pool},
    {"", "LpPool", pool},
    {"", "GlobalAveragePool", global_pool},
    {"", "GlobalMaxPool", global_pool},
    {"", "GlobalLpPool", global_pool},
    {"", "MaxUnpool", max_unpool},
    {"", "MaxRoiPool", max_roi_pool},
    {"", "RoiAlign", roi_align},
    /* products */
    {"", "Gemm", gemm},
    {"", "MatMul", matmul},
    {"", "MatMulInteger", matmul_integer},
    {"", "Einsum", einsum},
    /* recurrent */
    {"", "RNN", recurrent},
    {"", "GRU", recurrent},
    {"", "LSTM", recurrent},
    /* sampling */
    {"", "GridSample", grid_sample},
    {"", "AffineGrid", affine_grid},
    {"", "Col2Im", col2im},
    /* normalizations, softmax: same shape */
    {"", "LRN", same_as_input},

    /* losses */

    /* attention */
    {"", "Attention", attention},
    {"", "RotaryEmbedding", same_as_input}, /* opset 23: rotated in place, [B,H,S,D] or [B,S,H*D] */
    {"", "LinearAttention", linear_attention},
    {"", "CausalConvWithState", causal_conv_with_state},
    {"ai.onnx.preview", "FlexAttention", flex_attention},
    {NULL, NULL, NULL},
};
