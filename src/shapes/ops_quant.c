/*
 * ops_quant.c -- quantization ops of the default domain: QuantizeLinear,
 * DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul, QLinearConv. The
 * last two use the float twins' rules (mp_matmul_dims, mp_conv_out_dims in
 * ops_nn.c). MatMulInteger and ConvInteger live in ops_nn.c.
 */
#include <string.h>

#include "shapes/rules.h"

#define R MEMPLAN_MAX_RANK

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
    else
        mp_out(c, 0, et, x->rank, x->dims);
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
    int32_t r = mp_matmul_dims(c, mp_in(c, 0), mp_in(c, 3), false, false, dims);
    if (r < 0) mp_out_unranked(c, 0, et, "input ranks unknown or do not match");
    else
        mp_out(c, 0, et, r, dims);
}

/* QLinearConv(x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp, B?): conv of x and w. */
static void qlinear_conv(mp_sctx *c) {
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t et = type_of(c, 7, type_of(c, 0, MEMPLAN_DTYPE_UINT8));
    int32_t r = mp_conv_out_dims(c, mp_in(c, 0), mp_in(c, 3), false, dims);
    if (r < 0) mp_out_unranked(c, 0, et, "input ranks or conv attributes unknown");
    else
        mp_out(c, 0, et, r, dims);
}

const mp_rule mp_rules_quant[] = {
    {"", "QuantizeLinear", quantize_linear},
    {"", "DequantizeLinear", dequantize_linear},
    {"", "DynamicQuantizeLinear", dynamic_quantize_linear},
    {"", "QLinearMatMul", qlinear_matmul},
    {"", "QLinearConv", qlinear_conv},
    {NULL, NULL, NULL},
};
