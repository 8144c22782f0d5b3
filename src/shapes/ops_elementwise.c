/*
 * ops_elementwise.c -- unary and broadcasting ops, Cast, Where, variadic
 * Sum/Max/Min/Mean. Their values on known inputs (the arithmetic of shape
 * computations) are evaluated by eval.c.
 */
#include <string.h>

#include "shapes/rules.h"

/* Output 0 like input 0. */
static void same_as_input(mp_sctx *c) { mp_out_like(c, 0, mp_in(c, 0)); }

/* Unary op whose output is bool with the input's shape. */
static void unary_bool(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x || x->rank < 0) mp_out_unranked(c, 0, MEMPLAN_DTYPE_BOOL, "input rank unknown");
    else
        mp_out(c, 0, MEMPLAN_DTYPE_BOOL, x->rank, x->dims);
}

/* Variadic broadcasting op; out_type 0 = the first input's type. */
static void broadcast_n(mp_sctx *c, int32_t out_type) {
    const memplan_vshape *first = mp_in(c, 0);
    if (!first) return;
    int32_t et = out_type ? out_type : first->elem_type;
    memplan_expr *dims = mp_tmp_exprs(c, MEMPLAN_MAX_RANK), *next = mp_tmp_exprs(c, MEMPLAN_MAX_RANK);
    if (!dims || !next) return;
    memplan_vshape acc = *first;
    int32_t rank = first->rank;
    if (rank > 0) memcpy(dims, first->dims, (size_t)rank * sizeof *dims);
    for (int32_t k = 1; k < mp_n_in(c) && rank >= 0; k++) {
        const memplan_vshape *v = mp_in(c, k);
        if (!v) continue;
        acc.rank = rank;
        acc.dims = dims;
        rank = mp_broadcast(c, &acc, v, next);
        if (rank >= 0) memcpy(dims, next, (size_t)rank * sizeof *dims);
    }
    if (rank < 0) {
        mp_out_unranked(c, 0, et, "input rank unknown or shapes do not broadcast");
        return;
    }
    mp_out(c, 0, et, rank, dims);
}

static void binary(mp_sctx *c) { broadcast_n(c, 0); }
static void compare(mp_sctx *c) { broadcast_n(c, MEMPLAN_DTYPE_BOOL); }

static void cast(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    int32_t to = (int32_t)mp_attr_int(c, "to", 0);
    if (!x) return;
    if (x->rank < 0) mp_out_unranked(c, 0, to, "input rank unknown");
    else
        mp_out(c, 0, to, x->rank, x->dims);
}

/* BitCast(x, to): the same bits read as `to` (same width), so x's shape. */
static void bitcast(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    int32_t to = (int32_t)mp_attr_int(c, "to", 0);
    if (!x) return;
    if (x->elem_type && to && memplan_dtype_bits(x->elem_type) != memplan_dtype_bits(to))
        mp_note(c, "BitCast from %d-bit to %d-bit elements", (int)memplan_dtype_bits(x->elem_type),
                (int)memplan_dtype_bits(to));
    if (x->rank < 0) mp_out_unranked(c, 0, to, "input rank unknown");
    else
        mp_out(c, 0, to, x->rank, x->dims);
}

static void cast_like(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *t = mp_in(c, 1);
    if (!x || !t) return;
    if (x->rank < 0) mp_out_unranked(c, 0, t->elem_type, "input rank unknown");
    else
        mp_out(c, 0, t->elem_type, x->rank, x->dims);
}

static void where(mp_sctx *c) {
    const memplan_vshape *cond = mp_in(c, 0), *x = mp_in(c, 1), *y = mp_in(c, 2);
    if (!cond || !x || !y) return;
    memplan_expr *d1 = mp_tmp_exprs(c, MEMPLAN_MAX_RANK);
    memplan_expr *d2 = mp_tmp_exprs(c, MEMPLAN_MAX_RANK);
    if (!d1 || !d2) return;
    int32_t r1 = mp_broadcast(c, cond, x, d1);
    memplan_vshape t = *x;
    t.rank = r1;
    t.dims = d1;
    int32_t r = r1 < 0 ? -1 : mp_broadcast(c, &t, y, d2);
    if (r < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown or shapes do not broadcast");
        return;
    }
    mp_out(c, 0, x->elem_type, r, d2);
}

static void dropout(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    mp_out_like(c, 0, x);
    if (mp_n_out(c) > 1 && x) {
        if (x->rank < 0) mp_out_unranked(c, 1, MEMPLAN_DTYPE_BOOL, "input rank unknown");
        else
            mp_out(c, 1, mp_opset(c) >= 12 ? MEMPLAN_DTYPE_BOOL : x->elem_type, x->rank, x->dims);
    }
}

/* Identity: tensor values are evaluated (eval.c); a sequence's or an
 * optional's contents (ops_misc.c) pass through. */
static void identity(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    mp_out_like(c, 0, x);
    if (x && x->kind != MEMPLAN_TYPE_TENSOR && x->n_elems >= 0) mp_out_elems(c, 0, x->n_elems, x->elems);
}

const mp_rule mp_rules_elementwise[] = {
    /* unary, same shape and type */
    {"", "Relu", same_as_input},
    {"", "Sigmoid", same_as_input},
    {"", "Tanh", same_as_input},
    {"", "Exp", same_as_input},
    {"", "Log", same_as_input},
    {"", "Sqrt", same_as_input},
    {"", "Reciprocal", same_as_input},
    {"", "Floor", same_as_input},
    {"", "Ceil", same_as_input},
    {"", "Round", same_as_input},
    {"", "Sign", same_as_input},
    {"", "Sin", same_as_input},
    {"", "Cos", same_as_input},
    {"", "Tan", same_as_input},
    {"", "Asin", same_as_input},
    {"", "Acos", same_as_input},
    {"", "Atan", same_as_input},
    {"", "Sinh", same_as_input},
    {"", "Cosh", same_as_input},
    {"", "Asinh", same_as_input},
    {"", "Acosh", same_as_input},
    {"", "Atanh", same_as_input},
    {"", "Erf", same_as_input},
    {"", "Softplus", same_as_input},
    {"", "Softsign", same_as_input},
    {"", "Elu", same_as_input},
    {"", "Selu", same_as_input},
    {"", "LeakyRelu", same_as_input},
    {"", "ThresholdedRelu", same_as_input},
    {"", "HardSigmoid", same_as_input},
    {"", "HardSwish", same_as_input},
    {"", "Mish", same_as_input},
    {"", "Gelu", same_as_input},
    {"", "Celu", same_as_input},
    {"", "Shrink", same_as_input},
    {"", "BitwiseNot", same_as_input},
    {"", "Clip", same_as_input},
    {"", "Neg", same_as_input},
    {"", "Abs", same_as_input},
    {"", "Not", unary_bool},
    {"", "IsNaN", unary_bool},
    {"", "IsInf", unary_bool},
    {"", "Identity", identity},
    {"", "Dropout", dropout},
    {"", "Cast", cast},
    {"", "CastLike", cast_like},
    {"", "BitCast", bitcast},
    {"", "Swish", same_as_input},
    /* gated activations: A and B of one shape (no broadcasting), Y like A */
    {"", "SwiGLU", same_as_input},
    {"", "GeGLU", same_as_input},
    /* legacy (opset 1 experimental), same shape */
    {"", "ImageScaler", same_as_input},
    {"", "Affine", same_as_input},
    {"", "ScaledTanh", same_as_input},
    {"", "ParametricSoftplus", same_as_input},
    /* broadcasting */
    {"", "Add", binary},
    {"", "Sub", binary},
    {"", "Mul", binary},
    {"", "Div", binary},
    {"", "Pow", binary},
    {"", "Mod", binary},
    {"", "BitShift", binary},
    {"", "BitwiseAnd", binary},
    {"", "BitwiseOr", binary},
    {"", "BitwiseXor", binary},
    {"", "PRelu", same_as_input},
    {"", "Sum", binary},
    {"", "Max", binary},
    {"", "Min", binary},
    {"", "Mean", binary},
    {"", "And", compare},
    {"", "Or", compare},
    {"", "Xor", compare},
    {"", "Equal", compare},
    {"", "Less", compare},
    {"", "Greater", compare},
    {"", "LessOrEqual", compare},
    {"", "GreaterOrEqual", compare},
    {"", "Where", where},
    {NULL, NULL, NULL},
};
