/*
 * ops_quant.c -- quantization ops of the default domain: QuantizeLinear,
 * DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul, QLinearConv; and
 * the matmul / conv dims helpers the contrib family shares (ops_quant.h).
 * MatMulInteger and ConvInteger live in ops_nn.c.
 */
#include <string.h>

#include "shapes/ops_quant.h"

#define R MEMPLAN_MAX_RANK

static memplan_expr_pool *P(mp_sctx *c) { return mp_pool(c); }

/* ---- shared helpers ---------------------------------------------------- */

int32_t mp_q_matmul_dims(mp_sctx *c, const memplan_vshape *a, const memplan_vshape *b, bool trans_a, bool trans_b,
                         memplan_expr *dims) {
    if (!a || !b || a->rank < 1 || b->rank < 1 || a->rank > R || b->rank > R) return -1;
    memplan_expr one = mp_const(c, 1);
    /* a as [..., M, K] and b as [..., K, N]; 1-D operands get a 1 added */
    memplan_expr *ad = mp_tmp_exprs(c, R + 1);
    memplan_expr *bd = mp_tmp_exprs(c, R + 1);
    if (!ad || !bd) return -1;
    int32_t ra = a->rank, rb = b->rank;
    memcpy(ad + (ra == 1), a->dims, (size_t)ra * sizeof *ad);
    memcpy(bd, b->dims, (size_t)rb * sizeof *bd);
    if (ra == 1) ad[0] = one, ra = 2;
    if (rb == 1) bd[1] = one, rb = 2;
    if (trans_a && a->rank >= 2) {
        memplan_expr t = ad[ra - 1];
        ad[ra - 1] = ad[ra - 2];
        ad[ra - 2] = t;
    }
    if (trans_b && b->rank >= 2) {
        memplan_expr t = bd[rb - 1];
        bd[rb - 1] = bd[rb - 2];
        bd[rb - 2] = t;
    }
    memplan_vshape ba = *a, bb = *b; /* batch parts */
    ba.rank = ra - 2;
    ba.dims = ad;
    bb.rank = rb - 2;
    bb.dims = bd;
    int32_t r = mp_broadcast(c, &ba, &bb, dims);
    if (r < 0 || r + 2 > R) return -1;
    if (a->rank != 1) dims[r++] = ad[ra - 2];
    if (b->rank != 1) dims[r++] = bd[rb - 1];
    return r;
}

/* One spatial output dim. pad = total padding; NONE pad means SAME. */
static memplan_expr conv_dim(mp_sctx *c, memplan_expr d, int64_t k, int64_t s, int64_t dil, memplan_expr pad,
                             const char *auto_pad, bool ceil_mode) {
    if (strcmp(auto_pad, "SAME_UPPER") == 0 || strcmp(auto_pad, "SAME_LOWER") == 0)
        return memplan_expr_ceildiv(P(c), d, mp_const(c, s));
    /* dil * (k - 1) + 1 in the pool, which turns an overflow into NONE */
    memplan_expr span = k < 1 ? MEMPLAN_EXPR_NONE
                              : memplan_expr_add(P(c), memplan_expr_mul(P(c), mp_const(c, dil), mp_const(c, k - 1)),
                                                 mp_const(c, 1));
    memplan_expr e = memplan_expr_sub(P(c), memplan_expr_add(P(c), d, pad), span);
    memplan_expr q = ceil_mode ? memplan_expr_ceildiv(P(c), e, mp_const(c, s)) : memplan_expr_floordiv(P(c), e, mp_const(c, s));
    return memplan_expr_add(P(c), q, mp_const(c, 1));
}

int32_t mp_q_conv_dims(mp_sctx *c, int32_t input_k, int32_t weight_k, bool channels_last, memplan_expr *dims) {
    const memplan_vshape *x = mp_in(c, input_k), *w = mp_in(c, weight_k);
    if (!x || x->rank < 3) return -1;
    int32_t n = x->rank - 2, sp = channels_last ? 1 : 2; /* spatial dims and where they start */
    const int64_t *ks, *st, *dl, *pd;
    int64_t nk = mp_attr_ints(c, "kernel_shape", &ks), ns = mp_attr_ints(c, "strides", &st);
    int64_t nd = mp_attr_ints(c, "dilations", &dl), np = mp_attr_ints(c, "pads", &pd);
    const char *auto_pad = mp_attr_str(c, "auto_pad", "NOTSET");
    bool ceil_mode = mp_attr_int(c, "ceil_mode", 0) != 0; /* pooling */
    bool w_ok = w && w->rank == x->rank;
    if ((nk >= 0 && nk != n) || (nk < 0 && !w_ok) || (ns >= 0 && ns != n) || (nd >= 0 && nd != n) ||
        (np >= 0 && np != 2 * n))
        return -1;
    dims[0] = x->dims[0];
    dims[channels_last ? x->rank - 1 : 1] = w_ok ? w->dims[0] : MEMPLAN_EXPR_NONE;
    for (int32_t i = 0; i < n; i++) {
        int64_t k;
        if (nk >= 0) k = ks[i];
        else if (!memplan_expr_is_const(P(c), w->dims[2 + i], &k)) {
            dims[sp + i] = MEMPLAN_EXPR_NONE;
            continue;
        }
        memplan_expr pad = np >= 0 ? memplan_expr_add(P(c), mp_const(c, pd[i]), mp_const(c, pd[i + n])) : mp_const(c, 0);
        int64_t s = ns >= 0 ? st[i] : 1, d = nd >= 0 ? dl[i] : 1;
        dims[sp + i] = s > 0 ? conv_dim(c, x->dims[sp + i], k, s, d, pad, auto_pad, ceil_mode) : MEMPLAN_EXPR_NONE;
    }
    return x->rank;
}

/* ---- rules ------------------------------------------------------------- */

/* Element type of input k, or dflt when absent/unknown. */
static int32_t type_of(mp_sctx *c, int32_t k, int32_t dflt) {
    const memplan_vshape *v = mp_in(c, k);
    return v && v->elem_type ? v->elem_type : dflt;
}

/* Output 0 with input 0's shape and type et. */
static void shape_of_x(mp_sctx *c, int32_t et) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x || x->rank < 0) mp_out_unranked(c, 0, et, "input rank unknown");
    else mp_out(c, 0, et, x->rank, x->dims);
}

/* QuantizeLinear(x, scale, zero_point?): the zero point's type, else the
 * output_dtype attribute, else uint8. Block quantization keeps x's shape. */
static void quantize_linear(mp_sctx *c) {
    int32_t et = (int32_t)mp_attr_int(c, "output_dtype", 0);
    shape_of_x(c, type_of(c, 2, et ? et : MEMPLAN_DTYPE_UINT8));
}

/* DequantizeLinear(x, scale, zero_point?): output_dtype, else the scale's type. */
static void dequantize_linear(mp_sctx *c) {
    int32_t et = (int32_t)mp_attr_int(c, "output_dtype", 0);
    shape_of_x(c, et ? et : type_of(c, 1, MEMPLAN_DTYPE_FLOAT));
}

/* DynamicQuantizeLinear(x) -> uint8 y like x, float scale [], uint8 zero point []. */
static void dynamic_quantize_linear(mp_sctx *c) {
    shape_of_x(c, MEMPLAN_DTYPE_UINT8);
    mp_out(c, 1, MEMPLAN_DTYPE_FLOAT, 0, NULL);
    mp_out(c, 2, MEMPLAN_DTYPE_UINT8, 0, NULL);
}

/* QLinearMatMul(a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp): matmul of a and b. */
static void qlinear_matmul(mp_sctx *c) {
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t et = type_of(c, 7, type_of(c, 0, MEMPLAN_DTYPE_UINT8));
    int32_t r = mp_q_matmul_dims(c, mp_in(c, 0), mp_in(c, 3), false, false, dims);
    if (r < 0) mp_out_unranked(c, 0, et, "input ranks unknown or do not match");
    else mp_out(c, 0, et, r, dims);
}

/* QLinearConv(x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp, B?): conv of x and w. */
static void qlinear_conv(mp_sctx *c) {
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t et = type_of(c, 7, type_of(c, 0, MEMPLAN_DTYPE_UINT8));
    int32_t r = mp_q_conv_dims(c, 0, 3, false, dims);
    if (r < 0) mp_out_unranked(c, 0, et, "input ranks or conv attributes unknown");
    else mp_out(c, 0, et, r, dims);
}

const mp_rule mp_rules_quant[] = {
    {"", "QuantizeLinear", quantize_linear},
    {"", "DequantizeLinear", dequantize_linear},
    {"", "DynamicQuantizeLinear", dynamic_quantize_linear},
    {"", "QLinearMatMul", qlinear_matmul},
    {"", "QLinearConv", qlinear_conv},
    {NULL, NULL, NULL},
};
