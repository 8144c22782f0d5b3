/*
 * ops_elementwise.c -- unary and broadcasting ops, Cast, Where, variadic
 * Sum/Max/Min/Mean; with partial evaluation of small integer tensors (the
 * arithmetic of shape computations).
 */
#include <string.h>

#include "shapes/rules.h"

/* Output 0 like input 0. */
static void same_as_input(mp_sctx *c) { mp_out_like(c, 0, mp_in(c, 0)); }

/* Unary op whose output is bool with the input's shape. */
static void unary_bool(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x || x->rank < 0) mp_out_unranked(c, 0, MEMPLAN_DTYPE_BOOL, "input rank unknown");
    else mp_out(c, 0, MEMPLAN_DTYPE_BOOL, x->rank, x->dims);
}

typedef enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_MIN, OP_MAX, OP_EQ, OP_LT, OP_GT, OP_LE, OP_GE, OP_AND, OP_OR, OP_NONE } arith;

static arith arith_of(const char *op) {
    static const struct { const char *name; arith a; } T[] = {
        {"Add", OP_ADD}, {"Sub", OP_SUB}, {"Mul", OP_MUL}, {"Div", OP_DIV}, {"Mod", OP_MOD},
        {"Min", OP_MIN}, {"Max", OP_MAX}, {"Sum", OP_ADD}, {"Equal", OP_EQ}, {"Less", OP_LT},
        {"Greater", OP_GT}, {"LessOrEqual", OP_LE}, {"GreaterOrEqual", OP_GE}, {"And", OP_AND}, {"Or", OP_OR},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (strcmp(op, T[i].name) == 0) return T[i].a;
    return OP_NONE;
}

/* x < y for every value of the dims in them. */
static bool lt(mp_sctx *c, memplan_expr x, memplan_expr y) {
    return mp_le(c, memplan_expr_add(mp_pool(c), x, mp_const(c, 1)), y);
}

/* x < y (strict) or x <= y as 1 or 0; NONE when it cannot be told. */
static memplan_expr cmp(mp_sctx *c, memplan_expr x, memplan_expr y, bool strict) {
    int64_t kx, ky;
    if (memplan_expr_is_const(mp_pool(c), x, &kx) && memplan_expr_is_const(mp_pool(c), y, &ky))
        return mp_const(c, strict ? kx < ky : kx <= ky);
    if (strict ? lt(c, x, y) : mp_le(c, x, y)) return mp_const(c, 1);
    if (strict ? mp_le(c, y, x) : lt(c, y, x)) return mp_const(c, 0);
    return MEMPLAN_EXPR_NONE;
}

/* One element of a partial evaluation; NONE when it cannot be told. */
static memplan_expr apply(mp_sctx *c, arith a, memplan_expr x, memplan_expr y) {
    memplan_expr_pool *p = mp_pool(c);
    int64_t kx, ky;
    bool cx = memplan_expr_is_const(p, x, &kx), cy = memplan_expr_is_const(p, y, &ky);
    switch (a) {
    case OP_ADD: return memplan_expr_add(p, x, y);
    case OP_SUB: return memplan_expr_sub(p, x, y);
    case OP_MUL: return memplan_expr_mul(p, x, y);
    case OP_DIV: /* integer Div truncates; equal to floor for the non-negative amounts of shapes */
        if (cx && cy && ky != 0 && !(kx == INT64_MIN && ky == -1)) return mp_const(c, kx / ky);
        return memplan_expr_floordiv(p, x, y);
    case OP_MOD: return memplan_expr_mod(p, x, y);
    /* Symbolic values are dims (>= 0), which can order them: batch > -1,
     * past+seq >= seq (mp_le). */
    case OP_MIN: return mp_le(c, x, y) ? x : mp_le(c, y, x) ? y : memplan_expr_min(p, x, y);
    case OP_MAX: return mp_le(c, x, y) ? y : mp_le(c, y, x) ? x : memplan_expr_max(p, x, y);
    case OP_EQ:
        if (x == y) return mp_const(c, 1);
        if (cx && cy) return mp_const(c, kx == ky);
        return lt(c, x, y) || lt(c, y, x) ? mp_const(c, 0) : MEMPLAN_EXPR_NONE;
    case OP_LT: return cmp(c, x, y, true);
    case OP_GT: return cmp(c, y, x, true);
    case OP_LE: return cmp(c, x, y, false);
    case OP_GE: return cmp(c, y, x, false);
    case OP_AND: return cx && cy ? mp_const(c, kx && ky) : MEMPLAN_EXPR_NONE;
    case OP_OR: return cx && cy ? mp_const(c, kx || ky) : MEMPLAN_EXPR_NONE;
    default: return MEMPLAN_EXPR_NONE;
    }
}

/* Elementwise on known values when the shapes broadcast trivially:
 * equal counts, or one side with a single element. */
static void eval_binary(mp_sctx *c, arith a, int32_t ka, int32_t kb, int32_t n_out) {
    int32_t na, nb;
    const memplan_expr *ea = mp_in_elems(c, ka, &na), *eb = mp_in_elems(c, kb, &nb);
    if (!ea || !eb || a == OP_NONE) return;
    if (!(na == nb || na == 1 || nb == 1) || n_out != (na > nb ? na : nb)) return;
    memplan_expr *out = mp_tmp_exprs(c, MEMPLAN_MAX_TRACKED_ELEMS);
    if (!out) return;
    for (int32_t i = 0; i < n_out; i++) {
        out[i] = apply(c, a, ea[na == 1 ? 0 : i], eb[nb == 1 ? 0 : i]);
        if (out[i] == MEMPLAN_EXPR_NONE) return;
    }
    mp_out_elems(c, 0, n_out, out);
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
    int32_t n = mp_static_count(c, rank, dims);
    if (n < 0) return;
    arith a = arith_of(mp_node(c)->op_type);
    if (mp_n_in(c) == 2) {
        eval_binary(c, a, 0, 1, n);
    } else if (mp_n_in(c) == 1) {
        int32_t m;
        const memplan_expr *e = mp_in_elems(c, 0, &m);
        if (e && m == n) mp_out_elems(c, 0, n, e);
    }
}

static void binary(mp_sctx *c) { broadcast_n(c, 0); }
static void compare(mp_sctx *c) { broadcast_n(c, MEMPLAN_DTYPE_BOOL); }

static void cast(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    int32_t to = (int32_t)mp_attr_int(c, "to", 0);
    if (!x) return;
    if (x->rank < 0) mp_out_unranked(c, 0, to, "input rank unknown");
    else mp_out(c, 0, to, x->rank, x->dims);
    int32_t n;
    const memplan_expr *e = mp_in_elems(c, 0, &n);
    bool integral = to == MEMPLAN_DTYPE_INT64 || to == MEMPLAN_DTYPE_INT32 || to == MEMPLAN_DTYPE_INT16 ||
                    to == MEMPLAN_DTYPE_UINT32 || to == MEMPLAN_DTYPE_UINT64;
    if (e && integral) mp_out_elems(c, 0, n, e);
    if (e && to == MEMPLAN_DTYPE_BOOL) { /* nonzero -> 1, when the values are constants */
        memplan_expr *out = mp_tmp_exprs(c, MEMPLAN_MAX_TRACKED_ELEMS);
        if (!out) return;
        for (int32_t i = 0; i < n; i++) {
            int64_t k;
            if (!memplan_expr_is_const(mp_pool(c), e[i], &k)) return;
            out[i] = mp_const(c, k != 0);
        }
        mp_out_elems(c, 0, n, out);
    }
}

static void cast_like(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *t = mp_in(c, 1);
    if (!x || !t) return;
    if (x->rank < 0) mp_out_unranked(c, 0, t->elem_type, "input rank unknown");
    else mp_out(c, 0, t->elem_type, x->rank, x->dims);
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
    int32_t n = mp_static_count(c, r, d2), nc, nx, ny;
    const memplan_expr *ec = mp_in_elems(c, 0, &nc), *ex = mp_in_elems(c, 1, &nx), *ey = mp_in_elems(c, 2, &ny);
    if (n < 0 || !ec || !ex || !ey) return;
    if ((nc != n && nc != 1) || (nx != n && nx != 1) || (ny != n && ny != 1)) return;
    memplan_expr *out = mp_tmp_exprs(c, MEMPLAN_MAX_TRACKED_ELEMS);
    if (!out) return;
    for (int32_t i = 0; i < n; i++) {
        int64_t k;
        if (!memplan_expr_is_const(mp_pool(c), ec[nc == 1 ? 0 : i], &k)) return;
        out[i] = k ? ex[nx == 1 ? 0 : i] : ey[ny == 1 ? 0 : i];
    }
    mp_out_elems(c, 0, n, out);
}

static void not_op(mp_sctx *c) {
    unary_bool(c);
    int32_t n;
    const memplan_expr *e = mp_in_elems(c, 0, &n);
    if (!e) return;
    memplan_expr *out = mp_tmp_exprs(c, MEMPLAN_MAX_TRACKED_ELEMS);
    if (!out) return;
    for (int32_t i = 0; i < n; i++) {
        int64_t k;
        if (!memplan_expr_is_const(mp_pool(c), e[i], &k)) return;
        out[i] = mp_const(c, !k);
    }
    mp_out_elems(c, 0, n, out);
}

/* Neg and Abs of known values. */
static void neg_abs(mp_sctx *c) {
    same_as_input(c);
    int32_t n;
    const memplan_expr *e = mp_in_elems(c, 0, &n);
    if (!e) return;
    bool neg = strcmp(mp_node(c)->op_type, "Neg") == 0;
    memplan_expr *out = mp_tmp_exprs(c, MEMPLAN_MAX_TRACKED_ELEMS);
    if (!out) return;
    for (int32_t i = 0; i < n; i++) {
        int64_t k;
        if (neg) out[i] = memplan_expr_sub(mp_pool(c), mp_const(c, 0), e[i]);
        else if (memplan_expr_is_const(mp_pool(c), e[i], &k) && k != INT64_MIN) out[i] = mp_const(c, k < 0 ? -k : k);
        else return;
    }
    mp_out_elems(c, 0, n, out);
}

static void dropout(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    mp_out_like(c, 0, x);
    if (mp_n_out(c) > 1 && x) {
        if (x->rank < 0) mp_out_unranked(c, 1, MEMPLAN_DTYPE_BOOL, "input rank unknown");
        else mp_out(c, 1, mp_opset(c) >= 12 ? MEMPLAN_DTYPE_BOOL : x->elem_type, x->rank, x->dims);
    }
}

static void identity(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    mp_out_like(c, 0, x);
    int32_t n;
    const memplan_expr *e = mp_in_elems(c, 0, &n);
    if (e) mp_out_elems(c, 0, n, e);
}

const mp_rule mp_rules_elementwise[] = {
    /* unary, same shape and type */
    {"", "Relu", same_as_input}, {"", "Sigmoid", same_as_input}, {"", "Tanh", same_as_input},
    {"", "Exp", same_as_input}, {"", "Log", same_as_input}, {"", "Sqrt", same_as_input},
    {"", "Reciprocal", same_as_input}, {"", "Floor", same_as_input}, {"", "Ceil", same_as_input},
    {"", "Round", same_as_input}, {"", "Sign", same_as_input}, {"", "Sin", same_as_input},
    {"", "Cos", same_as_input}, {"", "Tan", same_as_input}, {"", "Asin", same_as_input},
    {"", "Acos", same_as_input}, {"", "Atan", same_as_input}, {"", "Sinh", same_as_input},
    {"", "Cosh", same_as_input}, {"", "Asinh", same_as_input}, {"", "Acosh", same_as_input},
    {"", "Atanh", same_as_input}, {"", "Erf", same_as_input}, {"", "Softplus", same_as_input},
    {"", "Softsign", same_as_input}, {"", "Elu", same_as_input}, {"", "Selu", same_as_input},
    {"", "LeakyRelu", same_as_input}, {"", "ThresholdedRelu", same_as_input},
    {"", "HardSigmoid", same_as_input}, {"", "HardSwish", same_as_input}, {"", "Mish", same_as_input},
    {"", "Gelu", same_as_input}, {"", "Celu", same_as_input}, {"", "Shrink", same_as_input},
    {"", "BitwiseNot", same_as_input}, {"", "Clip", same_as_input}, {"", "Neg", neg_abs},
    {"", "Abs", neg_abs}, {"", "Not", not_op}, {"", "IsNaN", unary_bool}, {"", "IsInf", unary_bool},
    {"", "Identity", identity}, {"", "Dropout", dropout}, {"", "Cast", cast}, {"", "CastLike", cast_like},
    /* broadcasting */
    {"", "Add", binary}, {"", "Sub", binary}, {"", "Mul", binary}, {"", "Div", binary},
    {"", "Pow", binary}, {"", "Mod", binary}, {"", "BitShift", binary}, {"", "BitwiseAnd", binary},
    {"", "BitwiseOr", binary}, {"", "BitwiseXor", binary}, {"", "PRelu", same_as_input},
    {"", "Sum", binary}, {"", "Max", binary}, {"", "Min", binary}, {"", "Mean", binary},
    {"", "And", compare}, {"", "Or", compare}, {"", "Xor", compare}, {"", "Equal", compare},
    {"", "Less", compare}, {"", "Greater", compare}, {"", "LessOrEqual", compare},
    {"", "GreaterOrEqual", compare}, {"", "Where", where},
    {NULL, NULL, NULL},
};
