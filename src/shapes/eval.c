/*
 * eval.c -- partial evaluation: ops computed on small tensors whose values
 * are known (at most MEMPLAN_MAX_TRACKED_ELEMS elements; integer, bool,
 * float or double), after the op's rule has given the output shapes.
 *
 * VALUES. A tensor's values are amounts v[i] / 2^shift with one shift per
 * tensor (memplan_vshape.elem_shift; 0 for integer and bool types), so the
 * dims of shape computations stay symbolic (Shape -> Gather -> Mul) and a
 * float is known when it is a dyadic rational: 512.0, 0.5 and the float32
 * nearest 0.1 (13421773 / 2^27) are. A float that needs a shift above 62,
 * an infinity or a NaN is unknown; so are float16 and the other narrow
 * float types.
 *
 * EXACTNESS. On constants an op computes what a runtime computes: IEEE
 * double arithmetic, rounded to float32 for float results (exact for one
 * + - * / of float32 operands); C truncation for integer Div; Python's sign
 * rule for integer Mod (fmod=0) and C's for fmod=1; two's complement
 * wrapping for casts between integer types. On symbolic values an op gives
 * a value only where exact arithmetic equals the runtime's for every dim a
 * model can have (dims are >= 0 and far below 2^24, where float32 holds
 * every integer): + - *, float division by a power of two or by a divisor
 * of the numerator, integer Div as floor division (the operands of shape
 * computations are >= 0), Floor and Ceil of num / 2^k, comparisons, Min,
 * Max, Abs and Sign decided by mp_le, casts to 32- and 64-bit integers and
 * to float. Anything else gives no value, and then the tensor has none:
 * values are all or nothing.
 *
 * THE TABLE. mp_evals (at the end) lists every op that evaluates: a new op
 * is one entry there, and a function when no existing one fits. An op runs
 * when each of its present inputs has values and each output it fills has
 * a static shape of at most MEMPLAN_MAX_TRACKED_ELEMS elements.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "shapes/rules.h"

#define T MEMPLAN_MAX_TRACKED_ELEMS
#define MAX_SHIFT 62

/* One value: v / 2^s. */
typedef struct q {
    memplan_expr v;
    int32_t s;
} q;

static const q QNONE = {MEMPLAN_EXPR_NONE, 0};

/* A tensor with known values and a static shape. */
typedef struct tv {
    int32_t et; /* element type */
    int32_t rank;
    const int64_t *dims;
    int32_t n;             /* -1: absent (or, for an output, not to be filled) */
    const memplan_expr *v; /* inputs: the values times 2^shift */
    int32_t shift;
    q *out; /* outputs: n values to fill */
    bool filled;
} tv;

struct mp_ev {
    mp_sctx *c;
    memplan_expr_pool *p;
    int32_t n_in, n_out;
    tv *in, *out;
};

static memplan_expr K(mp_ev *e, int64_t k) { return memplan_expr_const(e->p, k); }
static q qk(mp_ev *e, int64_t k) { return (q){K(e, k), 0}; }
static q qin(const tv *t, int64_t i) { return (q){t->v[i], t->shift}; }
static bool is_real(int32_t et) { return et == MEMPLAN_DTYPE_FLOAT || et == MEMPLAN_DTYPE_DOUBLE; }

/* Types whose values are tracked. */
static bool value_type(int32_t et) {
    switch (et) {
    case MEMPLAN_DTYPE_FLOAT:
    case MEMPLAN_DTYPE_DOUBLE:
    case MEMPLAN_DTYPE_BOOL:
    case MEMPLAN_DTYPE_INT8:
    case MEMPLAN_DTYPE_INT16:
    case MEMPLAN_DTYPE_INT32:
    case MEMPLAN_DTYPE_INT64:
    case MEMPLAN_DTYPE_UINT8:
    case MEMPLAN_DTYPE_UINT16:
    case MEMPLAN_DTYPE_UINT32:
    case MEMPLAN_DTYPE_UINT64: return true;
    default: return false;
    }
}

/* ---- dyadic values ------------------------------------------------------ */

/* f as num / 2^shift with the smallest shift; false when it cannot be. */
static bool dyadic(double f, int64_t *num, int32_t *shift) {
    if (!isfinite(f)) return false;
    if (f == 0) {
        *num = 0;
        *shift = 0;
        return true;
    }
    int ex;
    double m = frexp(f, &ex);             /* f = m * 2^ex, 0.5 <= |m| < 1 */
    int64_t mant = (int64_t)ldexp(m, 53); /* exact: 53 bits */
    int32_t e2 = ex - 53;
    while (e2 < 0 && mant % 2 == 0) {
        mant /= 2;
        e2++;
    }
    if (e2 < 0) {
        if (-e2 > MAX_SHIFT) return false;
        *num = mant;
        *shift = -e2;
        return true;
    }
    for (; e2 > 0; e2--) /* an integer: scale up, within int64 */
        if (__builtin_mul_overflow(mant, 2, &mant)) return false;
    *num = mant;
    *shift = 0;
    return true;
}

bool mp_reals_to_vals(mp_sctx *c, const double *f, int32_t n, memplan_expr *v, int32_t *shift) {
    memplan_expr_pool *p = mp_pool(c);
    int32_t s = 0;
    int64_t num;
    int32_t sh;
    for (int32_t i = 0; i < n; i++) {
        if (!dyadic(f[i], &num, &sh)) return false;
        if (sh > s) s = sh;
    }
    for (int32_t i = 0; i < n; i++) {
        dyadic(f[i], &num, &sh);
        for (int32_t k = sh; k < s; k++)
            if (__builtin_mul_overflow(num, 2, &num)) return false;
        v[i] = memplan_expr_const(p, num);
    }
    *shift = s;
    return true;
}

/* a as an amount with shift s >= a.s (v * 2^(s - a.s)). */
static memplan_expr align(mp_ev *e, q a, int32_t s) {
    memplan_expr v = a.v;
    for (int32_t k = a.s; k < s && v != MEMPLAN_EXPR_NONE; k++) v = memplan_expr_mul(e->p, v, K(e, 2));
    return v;
}

/* The constant value of a as a double (exact), or false. */
static bool qconst(mp_ev *e, q a, double *f) {
    int64_t k;
    if (a.v == MEMPLAN_EXPR_NONE || !memplan_expr_is_const(e->p, a.v, &k)) return false;
    if (k > (INT64_C(1) << 53) || k < -(INT64_C(1) << 53)) return false;
    *f = ldexp((double)k, -a.s);
    return true;
}

/* An integer constant (shift 0). */
static bool qint(mp_ev *e, q a, int64_t *k) {
    return a.s == 0 && a.v != MEMPLAN_EXPR_NONE && memplan_expr_is_const(e->p, a.v, k);
}

/* A real result of type et: rounded like the runtime (float32), then dyadic. */
static q qreal(mp_ev *e, double f, int32_t et) {
    if (et == MEMPLAN_DTYPE_FLOAT) {
        if (!(fabs(f) <= FLT_MAX)) return QNONE; /* also NaN; converting would be undefined */
        f = (float)f;
    }
    int64_t num;
    int32_t s;
    if (!dyadic(f, &num, &s)) return QNONE;
    return (q){K(e, num), s};
}

/* x < y for every value of the dims in them. */
static bool lt(mp_ev *e, memplan_expr x, memplan_expr y) { return mp_le(e->c, memplan_expr_add(e->p, x, K(e, 1)), y); }

/* Sign of a: -1, 0, 1; 2 when it cannot be told. */
static int qsign(mp_ev *e, q a) {
    int64_t k;
    if (a.v == MEMPLAN_EXPR_NONE) return 2;
    if (memplan_expr_is_const(e->p, a.v, &k)) return (k > 0) - (k < 0);
    if (lt(e, K(e, 0), a.v)) return 1;
    if (lt(e, a.v, K(e, 0))) return -1;
    return 2;
}

/* a - b compared with 0: -1, 0, 1, or 2 when it cannot be told. */
static int qcmp(mp_ev *e, q a, q b) {
    int32_t s = a.s > b.s ? a.s : b.s;
    memplan_expr x = align(e, a, s), y = align(e, b, s);
    if (x == MEMPLAN_EXPR_NONE || y == MEMPLAN_EXPR_NONE) return 2;
    if (x == y) return 0;
    return qsign(e, (q){memplan_expr_sub(e->p, x, y), 0});
}

/* Truth of a: 0, 1, or -1 when it cannot be told. */
static int qtruth(mp_ev *e, q a) {
    int s = qsign(e, a);
    return s == 2 ? -1 : s != 0;
}

/* a with the fewest shift: halved while the amount is even. */
static q qnorm(mp_ev *e, q a) {
    while (a.s > 0 && a.v != MEMPLAN_EXPR_NONE) {
        memplan_expr m = memplan_expr_mod(e->p, a.v, K(e, 2));
        int64_t k;
        if (!memplan_expr_is_const(e->p, m, &k) || k != 0) break;
        a.v = memplan_expr_floordiv(e->p, a.v, K(e, 2));
        a.s--;
    }
    return a;
}

/* Wrap a constant into an integer type (two's complement), as casts do. */
static int64_t wrap(int64_t k, int32_t et) {
    switch (et) {
    case MEMPLAN_DTYPE_INT8: return (int8_t)(uint8_t)((uint64_t)k & 0xff);
    case MEMPLAN_DTYPE_UINT8: return (int64_t)((uint64_t)k & 0xff);
    case MEMPLAN_DTYPE_INT16: return (int16_t)(uint16_t)((uint64_t)k & 0xffff);
    case MEMPLAN_DTYPE_UINT16: return (int64_t)((uint64_t)k & 0xffff);
    case MEMPLAN_DTYPE_INT32: return (int32_t)(uint32_t)((uint64_t)k & 0xffffffffu);
    case MEMPLAN_DTYPE_UINT32: return (int64_t)((uint64_t)k & 0xffffffffu);
    case MEMPLAN_DTYPE_BOOL: return k != 0;
    default: return k;
    }
}

/* ---- elementwise arithmetic -------------------------------------------- */

typedef enum {
    B_ADD,
    B_SUB,
    B_MUL,
    B_DIV,
    B_MOD,
    B_FMOD,
    B_POW,
    B_MIN,
    B_MAX,
    B_EQ,
    B_LT,
    B_GT,
    B_LE,
    B_GE,
    B_AND,
    B_OR,
    B_XOR,
    B_BAND,
    B_BOR,
    B_BXOR,
} binop;

/* Both constant: what the runtime computes. */
static q bin_const(mp_ev *e, binop op, q a, q b, bool real, int32_t et) {
    int64_t x, y, r;
    if (!real && qint(e, a, &x) && qint(e, b, &y)) {
        switch (op) {
        case B_ADD: return __builtin_add_overflow(x, y, &r) ? QNONE : qk(e, r);
        case B_SUB: return __builtin_sub_overflow(x, y, &r) ? QNONE : qk(e, r);
        case B_MUL: return __builtin_mul_overflow(x, y, &r) ? QNONE : qk(e, r);
        case B_DIV: return y == 0 || (x == INT64_MIN && y == -1) ? QNONE : qk(e, x / y);
        case B_MOD: return (q){memplan_expr_mod(e->p, a.v, b.v), 0}; /* Python's sign rule */
        case B_FMOD: return y == 0 || (x == INT64_MIN && y == -1) ? QNONE : qk(e, x % y);
        case B_POW:
            if (y < 0) return QNONE;
            for (r = 1; y > 0; y--)
                if (__builtin_mul_overflow(r, x, &r)) return QNONE;
            return qk(e, r);
        case B_MIN: return qk(e, x < y ? x : y);
        case B_MAX: return qk(e, x > y ? x : y);
        case B_BAND: return qk(e, x & y);
        case B_BOR: return qk(e, x | y);
        case B_BXOR: return qk(e, x ^ y);
        default: break;
        }
    }
    double f, g;
    if (!qconst(e, a, &f) || !qconst(e, b, &g)) return QNONE;
    switch (op) {
    case B_ADD: return qreal(e, f + g, et);
    case B_SUB: return qreal(e, f - g, et);
    case B_MUL: return qreal(e, f * g, et);
    case B_DIV: return g == 0 ? QNONE : qreal(e, f / g, et);
    case B_MOD:
    case B_FMOD: return g == 0 ? QNONE : qreal(e, fmod(f, g), et);
    case B_POW: return qreal(e, pow(f, g), et);
    case B_MIN: return qreal(e, f < g ? f : g, et);
    case B_MAX: return qreal(e, f > g ? f : g, et);
    case B_EQ: return qk(e, f == g);
    case B_LT: return qk(e, f < g);
    case B_GT: return qk(e, f > g);
    case B_LE: return qk(e, f <= g);
    case B_GE: return qk(e, f >= g);
    case B_AND: return qk(e, f != 0 && g != 0);
    case B_OR: return qk(e, f != 0 || g != 0);
    case B_XOR: return qk(e, (f != 0) != (g != 0));
    default: return QNONE;
    }
}

/* b as sign * 2^m when it is a constant power of two (m may be negative). */
static bool pow2(mp_ev *e, q b, int *sign, int32_t *m) {
    int64_t k;
    if (!memplan_expr_is_const(e->p, b.v, &k) || k == 0 || k == INT64_MIN) return false;
    *sign = k < 0 ? -1 : 1;
    if (k < 0) k = -k;
    if (k & (k - 1)) return false;
    int32_t lg = 0;
    while ((INT64_C(1) << lg) < k) lg++;
    *m = lg - b.s;
    return true;
}

/* a op b on values, real (et: the result type) or integer. */
static q bin(mp_ev *e, binop op, q a, q b, bool real, int32_t et) {
    if (a.v == MEMPLAN_EXPR_NONE || b.v == MEMPLAN_EXPR_NONE) return QNONE;
    if (memplan_expr_is_const(e->p, a.v, NULL) && memplan_expr_is_const(e->p, b.v, NULL))
        return bin_const(e, op, a, b, real, et);
    int32_t s = a.s > b.s ? a.s : b.s;
    memplan_expr x = align(e, a, s), y = align(e, b, s);
    if (x == MEMPLAN_EXPR_NONE || y == MEMPLAN_EXPR_NONE) return QNONE;
    switch (op) {
    case B_ADD: return qnorm(e, (q){memplan_expr_add(e->p, x, y), s});
    case B_SUB: return qnorm(e, (q){memplan_expr_sub(e->p, x, y), s});
    case B_MUL:
        if (a.s + b.s > MAX_SHIFT) return QNONE;
        return qnorm(e, (q){memplan_expr_mul(e->p, a.v, b.v), a.s + b.s});
    case B_DIV: {
        if (!real) return (q){memplan_expr_floordiv(e->p, x, y), 0}; /* non-negative operands */
        int sign;
        int32_t m;
        if (pow2(e, b, &sign, &m)) { /* a / (sign * 2^m) */
            memplan_expr v = sign < 0 ? memplan_expr_neg(e->p, a.v) : a.v;
            int32_t sh = a.s + m;
            for (; sh < 0 && v != MEMPLAN_EXPR_NONE; sh++) v = memplan_expr_mul(e->p, v, K(e, 2));
            return sh > MAX_SHIFT ? QNONE : qnorm(e, (q){v, sh});
        }
        int64_t r;
        memplan_expr rem = memplan_expr_mod(e->p, x, y); /* exact when y divides x */
        if (memplan_expr_is_const(e->p, rem, &r) && r == 0) return (q){memplan_expr_floordiv(e->p, x, y), 0};
        return QNONE;
    }
    case B_MOD: return real ? QNONE : (q){memplan_expr_mod(e->p, x, y), 0};
    case B_FMOD: /* C's sign rule equals Python's for operands >= 0 */
        return !real && mp_le(e->c, K(e, 0), x) && lt(e, K(e, 0), y) ? (q){memplan_expr_mod(e->p, x, y), 0} : QNONE;
    case B_POW: {
        int64_t k;
        if (!qint(e, b, &k) || k < 0 || k > 3) return QNONE;
        q r = k == 0 ? qk(e, 1) : a;
        for (; k > 1; k--) r = bin(e, B_MUL, r, a, real, et);
        return r;
    }
    case B_MIN:
    case B_MAX: {
        bool le_xy = mp_le(e->c, x, y), le_yx = mp_le(e->c, y, x);
        memplan_expr r = le_xy         ? (op == B_MIN ? x : y)
                         : le_yx       ? (op == B_MIN ? y : x)
                         : op == B_MIN ? memplan_expr_min(e->p, x, y)
                                       : memplan_expr_max(e->p, x, y);
        return qnorm(e, (q){r, s});
    }
    /* symbolic values are dims (>= 0), which can order them: batch > -1,
     * past+seq >= seq (mp_le) */
    case B_EQ: return x == y ? qk(e, 1) : lt(e, x, y) || lt(e, y, x) ? qk(e, 0) : QNONE;
    case B_LT: return lt(e, x, y) ? qk(e, 1) : mp_le(e->c, y, x) ? qk(e, 0) : QNONE;
    case B_GT: return lt(e, y, x) ? qk(e, 1) : mp_le(e->c, x, y) ? qk(e, 0) : QNONE;
    case B_LE: return mp_le(e->c, x, y) ? qk(e, 1) : lt(e, y, x) ? qk(e, 0) : QNONE;
    case B_GE: return mp_le(e->c, y, x) ? qk(e, 1) : lt(e, x, y) ? qk(e, 0) : QNONE;
    case B_AND:
    case B_OR:
    case B_XOR: {
        int ta = qtruth(e, a), tb = qtruth(e, b);
        if (op == B_AND && (ta == 0 || tb == 0)) return qk(e, 0);
        if (op == B_OR && (ta == 1 || tb == 1)) return qk(e, 1);
        if (ta < 0 || tb < 0) return QNONE;
        return qk(e, op == B_AND ? ta && tb : op == B_OR ? ta || tb : ta != tb);
    }
    default: return QNONE;
    }
}

typedef enum { U_NEG, U_ABS, U_SIGN, U_FLOOR, U_CEIL, U_ROUND, U_NOT, U_RECIPROCAL, U_SQRT, U_RELU } unop;

static q un(mp_ev *e, unop op, q a, bool real, int32_t et) {
    if (a.v == MEMPLAN_EXPR_NONE) return QNONE;
    double f;
    int64_t k;
    if (qconst(e, a, &f)) {
        if (!real && qint(e, a, &k)) {
            switch (op) {
            case U_NEG: return k == INT64_MIN ? QNONE : qk(e, -k);
            case U_ABS: return k == INT64_MIN ? QNONE : qk(e, k < 0 ? -k : k);
            case U_SIGN: return qk(e, (k > 0) - (k < 0));
            case U_NOT: return qk(e, k == 0);
            case U_RELU: return qk(e, k > 0 ? k : 0);
            case U_FLOOR:
            case U_CEIL:
            case U_ROUND: return a;
            default: return QNONE;
            }
        }
        switch (op) {
        case U_NEG: return qreal(e, -f, et);
        case U_ABS: return qreal(e, fabs(f), et);
        case U_SIGN: return qreal(e, (f > 0) - (f < 0), et);
        case U_FLOOR: return qreal(e, floor(f), et);
        case U_CEIL: return qreal(e, ceil(f), et);
        case U_ROUND: return qreal(e, nearbyint(f), et); /* half to even, the default rounding mode */
        case U_NOT: return qk(e, f == 0);
        case U_RECIPROCAL: return f == 0 ? QNONE : qreal(e, 1.0 / f, et);
        case U_SQRT: return f < 0 ? QNONE : qreal(e, sqrt(f), et);
        case U_RELU: return qreal(e, f > 0 ? f : 0, et);
        }
        return QNONE;
    }
    int sg;
    switch (op) {
    case U_NEG: return (q){memplan_expr_neg(e->p, a.v), a.s};
    case U_ABS:
        sg = qsign(e, a);
        if (sg == 2 && memplan_expr_nonneg(e->p, a.v)) sg = 1;
        if (sg == 2 && memplan_expr_nonneg(e->p, memplan_expr_neg(e->p, a.v))) sg = -1;
        return sg == 2 ? QNONE : sg < 0 ? (q){memplan_expr_neg(e->p, a.v), a.s} : a;
    case U_SIGN: sg = qsign(e, a); return sg == 2 ? QNONE : real ? qreal(e, sg, et) : qk(e, sg);
    case U_FLOOR: return a.s == 0 ? a : (q){memplan_expr_floordiv(e->p, a.v, K(e, INT64_C(1) << a.s)), 0};
    case U_CEIL: return a.s == 0 ? a : (q){memplan_expr_ceildiv(e->p, a.v, K(e, INT64_C(1) << a.s)), 0};
    case U_ROUND: return a.s == 0 ? a : QNONE;
    case U_NOT: sg = qtruth(e, a); return sg < 0 ? QNONE : qk(e, !sg);
    case U_RELU:
        if (memplan_expr_nonneg(e->p, a.v)) return a;
        sg = qsign(e, a);
        return sg == 2 ? QNONE : sg > 0 ? a : qk(e, 0);
    default: return QNONE;
    }
}

/* Cast of a from type from to type to. */
static q cast1(mp_ev *e, q a, int32_t from, int32_t to) {
    if (a.v == MEMPLAN_EXPR_NONE || !value_type(to)) return QNONE;
    double f;
    if (to == MEMPLAN_DTYPE_BOOL) {
        int t = qtruth(e, a);
        return t < 0 ? QNONE : qk(e, t);
    }
    if (is_real(to)) {
        if (qconst(e, a, &f)) return qreal(e, f, to);
        return a; /* an integer amount, or num / 2^k: exact for dims */
    }
    /* to an integer type */
    int64_t k;
    if (qint(e, a, &k) && !is_real(from)) return to == MEMPLAN_DTYPE_UINT64 && k < 0 ? QNONE : qk(e, wrap(k, to));
    if (qconst(e, a, &f)) { /* truncation toward zero; out of the type's range is undefined: unknown */
        unsigned bits = memplan_dtype_bits(to);
        bool is_signed = to != MEMPLAN_DTYPE_UINT64 && wrap(-1, to) < 0;
        double t = trunc(f), lo = is_signed ? -ldexp(1.0, (int)bits - 1) : 0, hi = ldexp(1.0, (int)bits - is_signed);
        if (!(t >= lo && t < hi) || !mp_double_to_int(t, &k)) return QNONE;
        return qk(e, k);
    }
    /* symbolic: only to types that hold every dim */
    unsigned bits = memplan_dtype_bits(to);
    if (bits < 32) return QNONE;
    if (a.s == 0) return a;
    if (memplan_expr_nonneg(e->p, a.v)) return un(e, U_FLOOR, a, true, from);
    if (memplan_expr_nonneg(e->p, memplan_expr_neg(e->p, a.v))) return un(e, U_CEIL, a, true, from);
    return QNONE;
}

/* ---- indexing helpers -------------------------------------------------- */

/* Row-major strides of a static shape. */
static void strides(int32_t rank, const int64_t *dims, int64_t *st) {
    int64_t s = 1;
    for (int32_t i = rank - 1; i >= 0; i--) {
        st[i] = s;
        s *= dims[i];
    }
}

/* Multi-index of flat position i in dims. */
static void unflatten(int64_t i, int32_t rank, const int64_t *dims, int64_t *idx) {
    for (int32_t d = rank - 1; d >= 0; d--) {
        idx[d] = dims[d] ? i % dims[d] : 0;
        if (dims[d]) i /= dims[d];
    }
}

/* Flat position in t of output position o under numpy broadcasting to
 * (rank, dims); -1 when t does not broadcast to it. */
static int64_t bcast_at(const tv *t, int32_t rank, const int64_t *dims, int64_t o) {
    if (t->rank > rank) return -1;
    int64_t src = 0, stride = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        int64_t i = dims[d] ? o % dims[d] : 0;
        if (dims[d]) o /= dims[d];
        int32_t td = d - (rank - t->rank);
        if (td < 0) continue;
        int64_t n = t->dims[td];
        if (n != 1 && n != dims[d]) return -1;
        src += (n == 1 ? 0 : i) * stride;
        stride *= n;
    }
    return src;
}

/* ---- the driver ---------------------------------------------------------- */

/* A present input's values with a static shape that holds them. */
static bool load_input(mp_ev *e, int32_t k, tv *t) {
    const memplan_vshape *v = mp_in(e->c, k);
    t->n = -1;
    if (!v) return true; /* absent optional input */
    int32_t n, shift;
    const memplan_expr *vals = v->kind == MEMPLAN_TYPE_TENSOR && v->rank >= 0 ? mp_in_vals(e->c, k, &n, &shift) : NULL;
    if (!vals || mp_static_count(e->c, v->rank, v->dims) != n) return false;
    int64_t *dims = mp_tmp_ints(e->c, (size_t)v->rank);
    if (!dims) return false;
    for (int32_t i = 0; i < v->rank; i++) memplan_expr_is_const(e->p, v->dims[i], &dims[i]);
    t->et = v->elem_type;
    t->rank = v->rank;
    t->dims = dims;
    t->n = n;
    t->v = vals;
    t->shift = shift;
    return true;
}

/* An output the rule gave a static shape of a tracked type. */
static bool load_output(mp_ev *e, int32_t k, tv *t) {
    const memplan_vshape *v = mp_out_get(e->c, k);
    t->n = -1;
    t->filled = false;
    if (!v || v->kind != MEMPLAN_TYPE_TENSOR || v->rank < 0 || !value_type(v->elem_type)) return true;
    int32_t n = mp_static_count(e->c, v->rank, v->dims);
    if (n < 0) return true;
    int64_t *dims = mp_tmp_ints(e->c, (size_t)v->rank);
    q *out = mp_tmp(e->c, (size_t)n, sizeof *out);
    if (!dims || !out) return false;
    for (int32_t i = 0; i < v->rank; i++) memplan_expr_is_const(e->p, v->dims[i], &dims[i]);
    t->et = v->elem_type;
    t->rank = v->rank;
    t->dims = dims;
    t->n = n;
    t->out = out;
    t->shift = 0;
    return true;
}

/* Output k's values to the node: one shift for all, integers for integer types. */
static void store_output(mp_ev *e, int32_t k, const tv *t) {
    int32_t s = 0;
    for (int32_t i = 0; i < t->n; i++) {
        if (t->out[i].v == MEMPLAN_EXPR_NONE) return; /* all or nothing */
        if (t->out[i].s > s) s = t->out[i].s;
    }
    if (s > 0 && !is_real(t->et)) return;
    memplan_expr *v = mp_tmp_exprs(e->c, (size_t)t->n);
    if (!v) return;
    for (int32_t i = 0; i < t->n; i++)
        if ((v[i] = align(e, t->out[i], s)) == MEMPLAN_EXPR_NONE) return;
    mp_out_vals(e->c, k, t->n, v, s);
}

void mp_eval_node(mp_sctx *c, const mp_eval *ev) {
    /* most nodes are not shape computations: leave before any work */
    for (int32_t k = 0; k < mp_n_in(c); k++)
        if (mp_in(c, k) && !mp_in_has_vals(c, k)) return;
    mp_ev e = {c, mp_pool(c), mp_n_in(c), mp_n_out(c), NULL, NULL};
    e.in = mp_tmp(c, (size_t)e.n_in, sizeof *e.in);
    e.out = mp_tmp(c, (size_t)e.n_out, sizeof *e.out);
    if (!e.in || !e.out) return;
    for (int32_t k = 0; k < e.n_in; k++)
        if (!load_input(&e, k, &e.in[k])) return;
    bool any = false;
    for (int32_t k = 0; k < e.n_out; k++) {
        if (!load_output(&e, k, &e.out[k])) return;
        any = any || e.out[k].n >= 0;
    }
    if (!any || !ev->fn(&e)) return;
    for (int32_t k = 0; k < e.n_out; k++)
        if (e.out[k].n >= 0 && e.out[k].filled) store_output(&e, k, &e.out[k]);
}

/* Input k when present, else NULL. */
static const tv *IN(mp_ev *e, int32_t k) { return k < e->n_in && e->in[k].n >= 0 ? &e->in[k] : NULL; }
/* Output k when it is to be filled, else NULL. */
static tv *OUT(mp_ev *e, int32_t k) { return k < e->n_out && e->out[k].n >= 0 ? &e->out[k] : NULL; }

/* Integer constants of input k (at most max); false when not all are. */
static bool in_ints(mp_ev *e, int32_t k, int64_t *v, int32_t max, int32_t *n) {
    const tv *t = IN(e, k);
    if (!t || t->n > max || t->shift != 0) return false;
    for (int32_t i = 0; i < t->n; i++)
        if (!memplan_expr_is_const(e->p, t->v[i], &v[i])) return false;
    *n = t->n;
    return true;
}

/* The single integer constant of input k. */
static bool in_int(mp_ev *e, int32_t k, int64_t *v) {
    int32_t n;
    return in_ints(e, k, v, 1, &n) && n == 1;
}

/* ---- elementwise ops ---------------------------------------------------- */

static binop binop_of(mp_ev *e) {
    const char *op = mp_node(e->c)->op_type;
    static const struct {
        const char *name;
        binop b;
    } NAMES[] = {
        {"Add", B_ADD},         {"Sub", B_SUB}, {"Mul", B_MUL},    {"Div", B_DIV},         {"Mod", B_MOD},
        {"Pow", B_POW},         {"Min", B_MIN}, {"Max", B_MAX},    {"Sum", B_ADD},         {"Mean", B_ADD},
        {"Equal", B_EQ},        {"Less", B_LT}, {"Greater", B_GT}, {"LessOrEqual", B_LE},  {"GreaterOrEqual", B_GE},
        {"And", B_AND},         {"Or", B_OR},   {"Xor", B_XOR},    {"BitwiseAnd", B_BAND}, {"BitwiseOr", B_BOR},
        {"BitwiseXor", B_BXOR},
    };
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (strcmp(op, NAMES[i].name) == 0) {
            if (NAMES[i].b == B_MOD && mp_attr_int(e->c, "fmod", 0)) return B_FMOD;
            return NAMES[i].b;
        }
    return B_ADD;
}

/* Broadcasting binary and variadic ops (Mean divides the sum by the count). */
static bool ev_binary(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *a = IN(e, 0);
    if (!o || !a) return false;
    binop op = binop_of(e);
    bool real = is_real(a->et);
    for (int64_t i = 0; i < o->n; i++) {
        int64_t at = bcast_at(a, o->rank, o->dims, i);
        if (at < 0) return false;
        q acc = qin(a, at);
        for (int32_t k = 1; k < e->n_in; k++) {
            const tv *b = IN(e, k);
            if (!b) continue;
            int64_t bt = bcast_at(b, o->rank, o->dims, i);
            if (bt < 0) return false;
            acc = bin(e, op, acc, qin(b, bt), real, real ? o->et : a->et);
        }
        if (strcmp(mp_node(e->c)->op_type, "Mean") == 0) acc = bin(e, B_DIV, acc, qk(e, e->n_in), real, o->et);
        o->out[i] = acc;
    }
    o->filled = true;
    return true;
}

static bool ev_unary(mp_ev *e) {
    static const struct {
        const char *name;
        unop u;
    } NAMES[] = {
        {"Neg", U_NEG},   {"Abs", U_ABS},     {"Sign", U_SIGN}, {"Floor", U_FLOOR},
        {"Ceil", U_CEIL}, {"Round", U_ROUND}, {"Not", U_NOT},   {"Reciprocal", U_RECIPROCAL},
        {"Sqrt", U_SQRT}, {"Relu", U_RELU},
    };
    const char *name = mp_node(e->c)->op_type;
    unop op = U_NEG;
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (strcmp(name, NAMES[i].name) == 0) op = NAMES[i].u;
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x || x->n != o->n) return false;
    for (int64_t i = 0; i < o->n; i++) o->out[i] = un(e, op, qin(x, i), is_real(x->et), o->et);
    o->filled = true;
    return true;
}

static bool ev_cast(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x || x->n != o->n) return false;
    for (int64_t i = 0; i < o->n; i++) o->out[i] = cast1(e, qin(x, i), x->et, o->et);
    o->filled = true;
    return true;
}

/* Where(cond, x, y). */
static bool ev_where(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *c = IN(e, 0), *x = IN(e, 1), *y = IN(e, 2);
    if (!o || !c || !x || !y) return false;
    for (int64_t i = 0; i < o->n; i++) {
        int64_t ci = bcast_at(c, o->rank, o->dims, i), xi = bcast_at(x, o->rank, o->dims, i),
                yi = bcast_at(y, o->rank, o->dims, i);
        if (ci < 0 || xi < 0 || yi < 0) return false;
        int t = qtruth(e, qin(c, ci));
        if (t < 0) return false;
        o->out[i] = t ? qin(x, xi) : qin(y, yi);
    }
    o->filled = true;
    return true;
}

/* Clip(x, min?, max?); opset < 11: the min/max attributes. */
static bool ev_clip(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0), *lo = IN(e, 1), *hi = IN(e, 2);
    if (!o || !x || x->n != o->n) return false;
    bool real = is_real(x->et);
    q qlo = QNONE, qhi = QNONE;
    if (mp_opset(e->c) < 11) {
        if (mp_attr(e->c, "min")) qlo = qreal(e, mp_attr_float(e->c, "min", 0), MEMPLAN_DTYPE_DOUBLE);
        if (mp_attr(e->c, "max")) qhi = qreal(e, mp_attr_float(e->c, "max", 0), MEMPLAN_DTYPE_DOUBLE);
    } else {
        if (lo && lo->n == 1) qlo = qin(lo, 0);
        if (hi && hi->n == 1) qhi = qin(hi, 0);
        if ((lo && lo->n != 1) || (hi && hi->n != 1)) return false;
    }
    for (int64_t i = 0; i < o->n; i++) {
        q v = qin(x, i);
        if (qlo.v != MEMPLAN_EXPR_NONE) v = bin(e, B_MAX, v, qlo, real, o->et);
        if (qhi.v != MEMPLAN_EXPR_NONE) v = bin(e, B_MIN, v, qhi, real, o->et);
        o->out[i] = v;
    }
    o->filled = true;
    return true;
}

/* Same values, another shape: Identity, Reshape, (Un)Squeeze, Flatten, Dropout. */
static bool ev_copy(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x || x->n != o->n || x->et != o->et) return false;
    for (int64_t i = 0; i < o->n; i++) o->out[i] = qin(x, i);
    o->filled = true;
    return true;
}

/* ---- rearranging ops ---------------------------------------------------- */

static bool ev_transpose(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x || x->n != o->n || o->rank != x->rank) return false;
    const int64_t *perm;
    int64_t np = mp_attr_ints(e->c, "perm", &perm);
    int64_t *st = mp_tmp_ints(e->c, (size_t)x->rank), *idx = mp_tmp_ints(e->c, (size_t)x->rank);
    if (!st || !idx || (np >= 0 && np != x->rank)) return false;
    strides(x->rank, x->dims, st);
    for (int64_t i = 0; i < o->n; i++) {
        unflatten(i, o->rank, o->dims, idx);
        int64_t src = 0;
        for (int32_t d = 0; d < o->rank; d++) {
            int64_t p = np >= 0 ? perm[d] : x->rank - 1 - d;
            if (p < 0 || p >= x->rank) return false;
            src += idx[d] * st[p];
        }
        o->out[i] = qin(x, src);
    }
    o->filled = true;
    return true;
}

/* Copy a block of x along an axis into o: o's index on axis shifted by off. */
static bool concat_part(mp_ev *e, tv *o, const tv *x, int32_t axis, int64_t off) {
    int64_t *idx = mp_tmp_ints(e->c, (size_t)o->rank), *ost = mp_tmp_ints(e->c, (size_t)o->rank);
    if (!idx || !ost || x->rank != o->rank) return false;
    strides(o->rank, o->dims, ost);
    for (int64_t i = 0; i < x->n; i++) {
        unflatten(i, x->rank, x->dims, idx);
        idx[axis] += off;
        int64_t dst = 0;
        for (int32_t d = 0; d < o->rank; d++) {
            if (idx[d] >= o->dims[d]) return false;
            dst += idx[d] * ost[d];
        }
        o->out[dst] = qin(x, i);
    }
    return true;
}

static bool ev_concat(mp_ev *e) {
    tv *o = OUT(e, 0);
    if (!o || o->rank < 1) return false;
    int32_t axis = mp_axis(mp_attr_int(e->c, "axis", 0), o->rank);
    if (axis < 0) return false;
    int64_t off = 0, total = 0;
    for (int32_t k = 0; k < e->n_in; k++) {
        const tv *x = IN(e, k);
        if (!x) continue;
        if (!concat_part(e, o, x, axis, off)) return false;
        off += x->dims[axis];
        total += x->n;
    }
    if (total != o->n) return false;
    o->filled = true;
    return true;
}

/* Split: output k is the slice of x along axis after the earlier outputs. */
static bool ev_split(mp_ev *e) {
    const tv *x = IN(e, 0);
    if (!x || x->rank < 1) return false;
    int32_t axis = mp_axis(mp_attr_int(e->c, "axis", 0), x->rank);
    if (axis < 0) return false;
    int64_t *idx = mp_tmp_ints(e->c, (size_t)x->rank), *xst = mp_tmp_ints(e->c, (size_t)x->rank);
    if (!idx || !xst) return false;
    strides(x->rank, x->dims, xst);
    int64_t off = 0;
    for (int32_t k = 0; k < e->n_out; k++) {
        tv *o = OUT(e, k);
        if (!o || o->rank != x->rank) return k > 0; /* later parts need this one's size */
        for (int64_t i = 0; i < o->n; i++) {
            unflatten(i, o->rank, o->dims, idx);
            idx[axis] += off;
            int64_t src = 0;
            for (int32_t d = 0; d < x->rank; d++) {
                if (idx[d] >= x->dims[d]) return false;
                src += idx[d] * xst[d];
            }
            o->out[i] = qin(x, src);
        }
        o->filled = true;
        off += o->dims[axis];
    }
    return true;
}

/* Slice: starts/ends/axes/steps from inputs 1-4 (attributes before opset 10). */
static bool ev_slice(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x || o->rank != x->rank) return false;
    int32_t r = x->rank, ns, ne, na = -1, nst = -1;
    int64_t *starts = mp_tmp_ints(e->c, T), *ends = mp_tmp_ints(e->c, T), *axes = mp_tmp_ints(e->c, T),
            *steps = mp_tmp_ints(e->c, T);
    int64_t *first = mp_tmp_ints(e->c, (size_t)r), *step = mp_tmp_ints(e->c, (size_t)r),
            *idx = mp_tmp_ints(e->c, (size_t)r), *st = mp_tmp_ints(e->c, (size_t)r);
    if (!starts || !ends || !axes || !steps || !first || !step || !idx || !st) return false;
    if (mp_opset(e->c) < 10) {
        const int64_t *a;
        int64_t n1 = mp_attr_ints(e->c, "starts", &a);
        if (n1 < 0 || n1 > T) return false;
        memcpy(starts, a, (size_t)n1 * sizeof *a);
        if (mp_attr_ints(e->c, "ends", &a) != n1) return false;
        memcpy(ends, a, (size_t)n1 * sizeof *a);
        ns = ne = (int32_t)n1;
        int64_t n3 = mp_attr_ints(e->c, "axes", &a);
        if (n3 >= 0) {
            if (n3 != n1) return false;
            memcpy(axes, a, (size_t)n3 * sizeof *a);
            na = (int32_t)n3;
        }
    } else {
        if (!in_ints(e, 1, starts, T, &ns) || !in_ints(e, 2, ends, T, &ne) || ns != ne) return false;
        if (IN(e, 3) && (!in_ints(e, 3, axes, T, &na) || na != ns)) return false;
        if (IN(e, 4) && (!in_ints(e, 4, steps, T, &nst) || nst != ns)) return false;
    }
    for (int32_t d = 0; d < r; d++) {
        first[d] = 0;
        step[d] = 1;
    }
    for (int32_t i = 0; i < ns; i++) {
        int32_t a = mp_axis(na >= 0 ? axes[i] : i, r);
        int64_t s = starts[i], sp = nst >= 0 ? steps[i] : 1, n = x->dims[a];
        if (a < 0 || sp == 0) return false;
        if (s < 0) s += n; /* clamp as the shape rule does */
        s = sp > 0 ? (s < 0 ? 0 : s > n ? n : s) : (s < 0 ? -1 : s > n - 1 ? n - 1 : s);
        first[a] = s;
        step[a] = sp;
    }
    strides(r, x->dims, st);
    for (int64_t i = 0; i < o->n; i++) {
        unflatten(i, r, o->dims, idx);
        int64_t src = 0;
        for (int32_t d = 0; d < r; d++) {
            int64_t j = first[d] + idx[d] * step[d];
            if (j < 0 || j >= x->dims[d]) return false;
            src += j * st[d];
        }
        o->out[i] = qin(x, src);
    }
    o->filled = true;
    return true;
}

/* An index into a dim of n (negative counts from the end); -1 when out of range. */
static int64_t index_in(int64_t j, int64_t n) {
    if (j < 0) j += n;
    return j >= 0 && j < n ? j : -1;
}

static bool ev_gather(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0), *ind = IN(e, 1);
    if (!o || !x || !ind || ind->shift != 0 || x->rank < 1) return false;
    int32_t axis = mp_axis(mp_attr_int(e->c, "axis", 0), x->rank);
    if (axis < 0 || o->rank != x->rank - 1 + ind->rank) return false;
    int64_t *oi = mp_tmp_ints(e->c, (size_t)o->rank), *xst = mp_tmp_ints(e->c, (size_t)x->rank),
            *ist = mp_tmp_ints(e->c, (size_t)ind->rank);
    if (!oi || !xst || !ist) return false;
    strides(x->rank, x->dims, xst);
    strides(ind->rank, ind->dims, ist);
    for (int64_t i = 0; i < o->n; i++) {
        unflatten(i, o->rank, o->dims, oi);
        int64_t pos = 0, src = 0, j;
        for (int32_t d = 0; d < ind->rank; d++) pos += oi[axis + d] * ist[d];
        if (!memplan_expr_is_const(e->p, ind->v[pos], &j) || (j = index_in(j, x->dims[axis])) < 0) return false;
        for (int32_t d = 0; d < x->rank; d++) {
            int64_t at = d < axis ? oi[d] : d == axis ? j : oi[d - 1 + ind->rank];
            src += at * xst[d];
        }
        o->out[i] = qin(x, src);
    }
    o->filled = true;
    return true;
}

/* GatherElements: out[i] = x[i with the axis coordinate from indices]. */
static bool ev_gather_elements(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0), *ind = IN(e, 1);
    if (!o || !x || !ind || ind->n != o->n || ind->rank != x->rank || x->rank < 1) return false;
    int32_t axis = mp_axis(mp_attr_int(e->c, "axis", 0), x->rank);
    int64_t *idx = mp_tmp_ints(e->c, (size_t)x->rank), *xst = mp_tmp_ints(e->c, (size_t)x->rank);
    if (axis < 0 || !idx || !xst) return false;
    strides(x->rank, x->dims, xst);
    for (int64_t i = 0; i < o->n; i++) {
        int64_t j, src = 0;
        unflatten(i, ind->rank, ind->dims, idx);
        if (!memplan_expr_is_const(e->p, ind->v[i], &j) || (j = index_in(j, x->dims[axis])) < 0) return false;
        idx[axis] = j;
        for (int32_t d = 0; d < x->rank; d++) {
            if (idx[d] >= x->dims[d]) return false;
            src += idx[d] * xst[d];
        }
        o->out[i] = qin(x, src);
    }
    o->filled = true;
    return true;
}

/* GatherND (batch_dims b): out = indices.shape[:-1] + x.shape[b+m:]. */
static bool ev_gather_nd(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0), *ind = IN(e, 1);
    if (!o || !x || !ind || ind->rank < 1) return false;
    int64_t b = mp_attr_int(e->c, "batch_dims", 0), m = ind->dims[ind->rank - 1];
    if (b < 0 || b >= ind->rank || m < 1 || b + m > x->rank) return false;
    int64_t inner = 1, tuples = ind->n / m, batch = 1;
    for (int32_t d = (int32_t)(b + m); d < x->rank; d++) inner *= x->dims[d];
    for (int32_t d = 0; d < b; d++) batch *= x->dims[d];
    int64_t *xst = mp_tmp_ints(e->c, (size_t)x->rank);
    if (!xst || tuples * inner != o->n || batch == 0) return false;
    strides(x->rank, x->dims, xst);
    int64_t per_batch = tuples / batch;
    for (int64_t t = 0; t < tuples; t++) {
        int64_t bi = per_batch ? t / per_batch : 0, src = 0, rest = bi;
        for (int32_t d = (int32_t)b - 1; d >= 0; d--) { /* batch coordinates */
            src += (rest % x->dims[d]) * xst[d];
            rest /= x->dims[d];
        }
        for (int64_t j = 0; j < m; j++) {
            int64_t v;
            if (!memplan_expr_is_const(e->p, ind->v[t * m + j], &v) || (v = index_in(v, x->dims[b + j])) < 0)
                return false;
            src += v * xst[b + j];
        }
        for (int64_t i = 0; i < inner; i++) o->out[t * inner + i] = qin(x, src + i);
    }
    o->filled = true;
    return true;
}

/* Tile: out[i] = x[i mod dims]. Expand: x broadcast to the output. */
static bool ev_tile(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x || o->rank != x->rank) return false;
    int64_t *idx = mp_tmp_ints(e->c, (size_t)o->rank), *st = mp_tmp_ints(e->c, (size_t)o->rank);
    if (!idx || !st) return false;
    strides(x->rank, x->dims, st);
    for (int64_t i = 0; i < o->n; i++) {
        unflatten(i, o->rank, o->dims, idx);
        int64_t src = 0;
        for (int32_t d = 0; d < o->rank; d++) {
            if (x->dims[d] == 0) return false;
            src += (idx[d] % x->dims[d]) * st[d];
        }
        o->out[i] = qin(x, src);
    }
    o->filled = true;
    return true;
}

static bool ev_expand(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x) return false;
    for (int64_t i = 0; i < o->n; i++) {
        int64_t at = bcast_at(x, o->rank, o->dims, i);
        if (at < 0) return false;
        o->out[i] = qin(x, at);
    }
    o->filled = true;
    return true;
}

/* Pad: modes constant (input 2 or the value attribute), reflect, edge, wrap. */
static bool ev_pad(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x || o->rank != x->rank) return false;
    int32_t r = x->rank, np, nax = -1;
    int64_t *pads = mp_tmp_ints(e->c, T), *axes = mp_tmp_ints(e->c, T), *begin = mp_tmp_ints(e->c, (size_t)r),
            *idx = mp_tmp_ints(e->c, (size_t)r), *st = mp_tmp_ints(e->c, (size_t)r);
    if (!pads || !axes || !begin || !idx || !st) return false;
    const int64_t *a;
    int64_t na = mp_attr_ints(e->c, "pads", &a);
    q fill = qk(e, 0);
    if (na >= 0) { /* opset < 11 */
        if (na > T) return false;
        memcpy(pads, a, (size_t)na * sizeof *a);
        np = (int32_t)na;
        fill = qreal(e, mp_attr_float(e->c, "value", 0), MEMPLAN_DTYPE_DOUBLE);
    } else {
        if (!in_ints(e, 1, pads, T, &np)) return false;
        const tv *cv = IN(e, 2);
        if (cv) {
            if (cv->n != 1) return false;
            fill = qin(cv, 0);
        }
        if (IN(e, 3) && !in_ints(e, 3, axes, T, &nax)) return false;
    }
    int32_t k = nax >= 0 ? nax : r;
    if (np != 2 * k) return false;
    for (int32_t d = 0; d < r; d++) begin[d] = 0;
    for (int32_t i = 0; i < k; i++) {
        int32_t ax = nax >= 0 ? mp_axis(axes[i], r) : i;
        if (ax < 0) return false;
        begin[ax] = pads[i];
    }
    const char *mode = mp_attr_str(e->c, "mode", "constant");
    strides(r, x->dims, st);
    for (int64_t i = 0; i < o->n; i++) {
        unflatten(i, r, o->dims, idx);
        int64_t src = 0;
        bool outside = false;
        for (int32_t d = 0; d < r && !outside; d++) {
            int64_t j = idx[d] - begin[d], n = x->dims[d];
            if (j < 0 || j >= n) {
                if (strcmp(mode, "constant") == 0 || n == 0) {
                    outside = true;
                    break;
                }
                if (strcmp(mode, "edge") == 0) j = j < 0 ? 0 : n - 1;
                else if (strcmp(mode, "wrap") == 0)
                    j = ((j % n) + n) % n;
                else if (strcmp(mode, "reflect") == 0 && n > 1) {
                    int64_t period = 2 * (n - 1);
                    j = ((j % period) + period) % period;
                    if (j >= n) j = period - j;
                } else if (strcmp(mode, "reflect") == 0) {
                    j = 0;
                } else {
                    return false;
                }
            }
            src += j * st[d];
        }
        o->out[i] = outside ? fill : qin(x, src);
    }
    o->filled = true;
    return true;
}

/* ScatterND(data, indices, updates), reduction none/add/mul/max/min. */
static q reduce2(mp_ev *e, const char *red, q a, q b, bool real, int32_t et) {
    if (strcmp(red, "none") == 0) return b;
    binop op = strcmp(red, "add") == 0   ? B_ADD
               : strcmp(red, "mul") == 0 ? B_MUL
               : strcmp(red, "max") == 0 ? B_MAX
               : strcmp(red, "min") == 0 ? B_MIN
                                         : B_EQ;
    return op == B_EQ ? QNONE : bin(e, op, a, b, real, et);
}

static bool ev_scatter_nd(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0), *ind = IN(e, 1), *up = IN(e, 2);
    if (!o || !x || !ind || !up || o->n != x->n || ind->rank < 1) return false;
    int64_t m = ind->dims[ind->rank - 1];
    if (m < 1 || m > x->rank) return false;
    int64_t inner = 1, tuples = ind->n / m;
    for (int32_t d = (int32_t)m; d < x->rank; d++) inner *= x->dims[d];
    int64_t *st = mp_tmp_ints(e->c, (size_t)x->rank);
    if (!st || tuples * inner != up->n) return false;
    strides(x->rank, x->dims, st);
    const char *red = mp_attr_str(e->c, "reduction", "none");
    for (int64_t i = 0; i < o->n; i++) o->out[i] = qin(x, i);
    for (int64_t t = 0; t < tuples; t++) {
        int64_t dst = 0;
        for (int64_t j = 0; j < m; j++) {
            int64_t v;
            if (!memplan_expr_is_const(e->p, ind->v[t * m + j], &v) || (v = index_in(v, x->dims[j])) < 0) return false;
            dst += v * st[j];
        }
        for (int64_t i = 0; i < inner; i++)
            o->out[dst + i] = reduce2(e, red, o->out[dst + i], qin(up, t * inner + i), is_real(x->et), o->et);
    }
    o->filled = true;
    return true;
}

/* ScatterElements / Scatter(data, indices, updates): along axis. */
static bool ev_scatter_elements(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0), *ind = IN(e, 1), *up = IN(e, 2);
    if (!o || !x || !ind || !up || o->n != x->n || ind->n != up->n || ind->rank != x->rank || x->rank < 1) return false;
    int32_t axis = mp_axis(mp_attr_int(e->c, "axis", 0), x->rank);
    int64_t *idx = mp_tmp_ints(e->c, (size_t)x->rank), *st = mp_tmp_ints(e->c, (size_t)x->rank);
    if (axis < 0 || !idx || !st) return false;
    strides(x->rank, x->dims, st);
    const char *red = mp_attr_str(e->c, "reduction", "none");
    for (int64_t i = 0; i < o->n; i++) o->out[i] = qin(x, i);
    for (int64_t i = 0; i < ind->n; i++) {
        int64_t j, dst = 0;
        unflatten(i, ind->rank, ind->dims, idx);
        if (!memplan_expr_is_const(e->p, ind->v[i], &j) || (j = index_in(j, x->dims[axis])) < 0) return false;
        idx[axis] = j;
        for (int32_t d = 0; d < x->rank; d++) {
            if (idx[d] >= x->dims[d]) return false;
            dst += idx[d] * st[d];
        }
        o->out[dst] = reduce2(e, red, o->out[dst], qin(up, i), is_real(x->et), o->et);
    }
    o->filled = true;
    return true;
}

/* OneHot(indices, depth, values [off, on]), axis. */
static bool ev_one_hot(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *ind = IN(e, 0), *depth = IN(e, 1), *vals = IN(e, 2);
    if (!o || !ind || !depth || !vals || vals->n != 2 || depth->n != 1 || o->rank != ind->rank + 1) return false;
    int32_t axis = mp_axis(mp_attr_int(e->c, "axis", -1), o->rank);
    double df;
    int64_t d;
    if (axis < 0 || !qconst(e, qin(depth, 0), &df) || !mp_double_to_int(df, &d) || d != o->dims[axis]) return false;
    int64_t *oi = mp_tmp_ints(e->c, (size_t)o->rank), *ist = mp_tmp_ints(e->c, (size_t)ind->rank);
    if (!oi || !ist) return false;
    strides(ind->rank, ind->dims, ist);
    for (int64_t i = 0; i < o->n; i++) {
        unflatten(i, o->rank, o->dims, oi);
        int64_t pos = 0;
        for (int32_t k = 0, j = 0; k < o->rank; k++)
            if (k != axis) pos += oi[k] * ist[j++];
        double f;
        int64_t at;
        if (!qconst(e, qin(ind, pos), &f) || !mp_double_to_int(f, &at)) return false;
        if (at < 0) at += d; /* negative indices count from the end */
        o->out[i] = qin(vals, at == oi[axis] ? 1 : 0);
    }
    o->filled = true;
    return true;
}

/* Range(start, limit, delta): start + i * delta (the rule gave the count). */
static bool ev_range(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *s = IN(e, 0), *d = IN(e, 2);
    if (!o || !s || !d || s->n != 1 || d->n != 1) return false;
    bool real = is_real(o->et);
    for (int64_t i = 0; i < o->n; i++)
        o->out[i] = bin(e, B_ADD, qin(s, 0), bin(e, B_MUL, qk(e, i), qin(d, 0), real, o->et), real, o->et);
    o->filled = true;
    return true;
}

/* NonZero: the indices of the nonzero elements, [rank, count] (the rule counted). */
static bool ev_nonzero(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x || x->rank < 1 || o->rank != 2 || o->dims[0] != x->rank) return false;
    int64_t cnt = o->dims[1], found = 0;
    int64_t *idx = mp_tmp_ints(e->c, (size_t)x->rank);
    if (!idx) return false;
    for (int64_t i = 0; i < x->n; i++) {
        int t = qtruth(e, qin(x, i));
        if (t < 0) return false;
        if (!t) continue;
        if (found >= cnt) return false;
        unflatten(i, x->rank, x->dims, idx);
        for (int32_t d = 0; d < o->dims[0]; d++) o->out[d * cnt + found] = qk(e, idx[d]);
        found++;
    }
    if (found != cnt) return false;
    o->filled = true;
    return true;
}

/* ---- reductions ---------------------------------------------------------- */

/* Which axes of x a Reduce* / ArgMax node reduces: red[d]. */
static bool reduced_axes(mp_ev *e, const tv *x, bool *red, bool *noop) {
    int64_t *axes = mp_tmp_ints(e->c, T);
    int32_t n = 0;
    if (!axes) return false;
    bool from_input = mp_opset(e->c) >= (strcmp(mp_node(e->c)->op_type, "ReduceSum") == 0 ? 13 : 18);
    *noop = false;
    if (from_input) {
        if (IN(e, 1) && !in_ints(e, 1, axes, T, &n)) return false;
        *noop = n == 0 && mp_attr_int(e->c, "noop_with_empty_axes", 0) != 0;
    } else {
        const int64_t *a;
        int64_t na = mp_attr_ints(e->c, "axes", &a);
        if (na > T) return false;
        if (na > 0) memcpy(axes, a, (size_t)na * sizeof *a);
        n = na > 0 ? (int32_t)na : 0;
    }
    for (int32_t d = 0; d < x->rank; d++) red[d] = n == 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t a = mp_axis(axes[i], x->rank);
        if (a < 0) return false;
        red[a] = true;
    }
    return true;
}

/* Output position of input position i with the reduced axes dropped. */
static int64_t reduced_at(const tv *x, const bool *red, int64_t i) {
    int64_t o = 0, stride = 1;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        int64_t at = x->dims[d] ? i % x->dims[d] : 0;
        if (x->dims[d]) i /= x->dims[d];
        if (red[d]) continue;
        o += at * stride;
        stride *= x->dims[d];
    }
    return o;
}

/* One output element being folded. Max/min keep the constant operands
 * apart from the symbolic ones, so max(N, 3, 8) comes out as max(N,8). */
typedef struct fold {
    q sym, k;
    bool has_sym, has_k;
    int64_t count;
} fold;

static void fold_in(mp_ev *e, binop op, fold *f, q v, bool real, int32_t et) {
    bool minmax = op == B_MIN || op == B_MAX;
    f->count++;
    if (minmax && memplan_expr_is_const(e->p, v.v, NULL)) {
        f->k = f->has_k ? bin(e, op, f->k, v, real, et) : v;
        f->has_k = true;
    } else {
        f->sym = f->has_sym ? bin(e, op, f->sym, v, real, et) : v;
        f->has_sym = true;
    }
}

static bool ev_reduce(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    const char *name = mp_node(e->c)->op_type;
    binop op = strcmp(name, "ReduceProd") == 0  ? B_MUL
               : strcmp(name, "ReduceMax") == 0 ? B_MAX
               : strcmp(name, "ReduceMin") == 0 ? B_MIN
                                                : B_ADD;
    bool mean = strcmp(name, "ReduceMean") == 0, noop;
    bool *red = x ? mp_tmp(e->c, (size_t)(x->rank ? x->rank : 1), sizeof *red) : NULL;
    fold *acc = o ? mp_tmp(e->c, (size_t)o->n, sizeof *acc) : NULL;
    if (!o || !x || !red || !acc || !reduced_axes(e, x, red, &noop)) return false;
    if (noop) return ev_copy(e);
    bool real = is_real(x->et);
    memset(acc, 0, (size_t)o->n * sizeof *acc);
    for (int64_t i = 0; i < x->n; i++) {
        int64_t at = reduced_at(x, red, i);
        if (at >= o->n) return false;
        fold_in(e, op, &acc[at], qin(x, i), real, o->et);
    }
    for (int64_t i = 0; i < o->n; i++) {
        fold *f = &acc[i];
        q v;
        if (op == B_ADD || op == B_MUL) v = f->has_sym ? f->sym : qk(e, op == B_ADD ? 0 : 1);
        else if (!f->has_k)
            v = f->has_sym ? f->sym : QNONE; /* an empty max/min */
        else
            v = f->has_sym ? bin(e, op, f->sym, f->k, real, o->et) : f->k;
        if (mean) v = f->count ? bin(e, B_DIV, v, qk(e, f->count), real, o->et) : QNONE;
        o->out[i] = v;
    }
    o->filled = true;
    return true;
}

/* ArgMax / ArgMin: every comparison along the axis must be decided. */
static bool ev_arg(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    if (!o || !x || x->rank < 1) return false;
    int32_t axis = mp_axis(mp_attr_int(e->c, "axis", 0), x->rank);
    if (axis < 0 || x->dims[axis] == 0) return false;
    bool is_max = strcmp(mp_node(e->c)->op_type, "ArgMax") == 0, last = mp_attr_int(e->c, "select_last_index", 0) != 0;
    int64_t inner = 1, len = x->dims[axis];
    for (int32_t d = axis + 1; d < x->rank; d++) inner *= x->dims[d];
    if (inner == 0) return false;
    int64_t outer = x->n / (len * inner);
    if (outer * inner != o->n) return false;
    for (int64_t a = 0; a < outer; a++)
        for (int64_t b = 0; b < inner; b++) {
            int64_t best = 0;
            for (int64_t j = 1; j < len; j++) {
                int c = qcmp(e, qin(x, (a * len + j) * inner + b), qin(x, (a * len + best) * inner + b));
                if (c == 2) return false;
                if ((is_max ? c > 0 : c < 0) || (last && c == 0)) best = j;
            }
            o->out[a * inner + b] = qk(e, best);
        }
    o->filled = true;
    return true;
}

/* CumSum / CumProd(x, axis), exclusive, reverse. */
static bool ev_cumsum(mp_ev *e) {
    tv *o = OUT(e, 0);
    const tv *x = IN(e, 0);
    int64_t ax;
    if (!o || !x || o->n != x->n || x->rank < 1 || !in_int(e, 1, &ax)) return false;
    int32_t axis = mp_axis(ax, x->rank);
    if (axis < 0) return false;
    bool excl = mp_attr_int(e->c, "exclusive", 0) != 0, rev = mp_attr_int(e->c, "reverse", 0) != 0;
    bool real = is_real(x->et), prod = strcmp(mp_node(e->c)->op_type, "CumProd") == 0;
    binop op = prod ? B_MUL : B_ADD;
    int64_t inner = 1, len = x->dims[axis];
    for (int32_t d = axis + 1; d < x->rank; d++) inner *= x->dims[d];
    int64_t outer = len * inner != 0 ? x->n / (len * inner) : 0;
    for (int64_t a = 0; a < outer; a++)
        for (int64_t b = 0; b < inner; b++) {
            q acc = qk(e, prod ? 1 : 0);
            for (int64_t t = 0; t < len; t++) {
                int64_t j = rev ? len - 1 - t : t, at = (a * len + j) * inner + b;
                if (excl) {
                    o->out[at] = acc;
                    acc = bin(e, op, acc, qin(x, at), real, o->et);
                } else {
                    acc = bin(e, op, acc, qin(x, at), real, o->et);
                    o->out[at] = acc;
                }
            }
        }
    o->filled = true;
    return true;
}

/* TopK(x, k): values and indices along axis, largest or smallest first;
 * equal values keep their index order. Every comparison must be decided. */
static bool ev_topk(mp_ev *e) {
    tv *ov = OUT(e, 0), *oi = OUT(e, 1);
    const tv *x = IN(e, 0);
    tv *shape = ov ? ov : oi;
    if (!shape || !x || x->rank < 1) return false;
    int32_t axis = mp_axis(mp_attr_int(e->c, "axis", -1), x->rank);
    if (axis < 0) return false;
    bool largest = mp_attr_int(e->c, "largest", 1) != 0;
    int64_t len = x->dims[axis], k = shape->dims[axis], inner = 1;
    for (int32_t d = axis + 1; d < x->rank; d++) inner *= x->dims[d];
    int64_t outer = len * inner != 0 ? x->n / (len * inner) : 0;
    int64_t *order = mp_tmp_ints(e->c, (size_t)(len ? len : 1));
    if (!order || k > len) return false;
    for (int64_t a = 0; a < outer; a++)
        for (int64_t b = 0; b < inner; b++) {
            for (int64_t j = 0; j < len; j++) { /* insertion sort, stable */
                int64_t t = j;
                while (t > 0) {
                    int c = qcmp(e, qin(x, (a * len + j) * inner + b), qin(x, (a * len + order[t - 1]) * inner + b));
                    if (c == 2) return false;
                    if (!(largest ? c > 0 : c < 0)) break;
                    order[t] = order[t - 1];
                    t--;
                }
                order[t] = j;
            }
            for (int64_t j = 0; j < k; j++) {
                int64_t at = (a * k + j) * inner + b;
                if (ov) ov->out[at] = qin(x, (a * len + order[j]) * inner + b);
                if (oi) oi->out[at] = qk(e, order[j]);
            }
        }
    if (ov) ov->filled = true;
    if (oi) oi->filled = true;
    return true;
}

/* ---- the table ----------------------------------------------------------- */

const mp_eval mp_evals[] = {
    /* elementwise */
    {"", "Add", ev_binary},
    {"", "Sub", ev_binary},
    {"", "Mul", ev_binary},
    {"", "Div", ev_binary},
    {"", "Mod", ev_binary},
    {"", "Pow", ev_binary},
    {"", "Min", ev_binary},
    {"", "Max", ev_binary},
    {"", "Sum", ev_binary},
    {"", "Mean", ev_binary},
    {"", "Equal", ev_binary},
    {"", "Less", ev_binary},
    {"", "Greater", ev_binary},
    {"", "LessOrEqual", ev_binary},
    {"", "GreaterOrEqual", ev_binary},
    {"", "And", ev_binary},
    {"", "Or", ev_binary},
    {"", "Xor", ev_binary},
    {"", "BitwiseAnd", ev_binary},
    {"", "BitwiseOr", ev_binary},
    {"", "BitwiseXor", ev_binary},
    {"", "Neg", ev_unary},
    {"", "Abs", ev_unary},
    {"", "Sign", ev_unary},
    {"", "Floor", ev_unary},
    {"", "Ceil", ev_unary},
    {"", "Round", ev_unary},
    {"", "Not", ev_unary},
    {"", "Reciprocal", ev_unary},
    {"", "Sqrt", ev_unary},
    {"", "Relu", ev_unary},
    {"", "Cast", ev_cast},
    {"", "Where", ev_where},
    {"", "Clip", ev_clip},
    /* same values */
    {"", "Identity", ev_copy},
    {"", "Reshape", ev_copy},
    {"", "Squeeze", ev_copy},
    {"", "Unsqueeze", ev_copy},
    {"", "Flatten", ev_copy},
    {"", "Dropout", ev_copy},
    /* rearranging */
    {"", "Transpose", ev_transpose},
    {"", "Concat", ev_concat},
    {"", "Split", ev_split},
    {"", "Slice", ev_slice},
    {"", "Gather", ev_gather},
    {"", "GatherElements", ev_gather_elements},
    {"", "GatherND", ev_gather_nd},
    {"", "Tile", ev_tile},
    {"", "Expand", ev_expand},
    {"", "Pad", ev_pad},
    {"", "ScatterND", ev_scatter_nd},
    {"", "ScatterElements", ev_scatter_elements},
    {"", "Scatter", ev_scatter_elements},
    {"", "OneHot", ev_one_hot},
    {"", "Range", ev_range},
    {"", "NonZero", ev_nonzero},
    /* reductions */
    {"", "ReduceSum", ev_reduce},
    {"", "ReduceProd", ev_reduce},
    {"", "ReduceMax", ev_reduce},
    {"", "ReduceMin", ev_reduce},
    {"", "ReduceMean", ev_reduce},
    {"", "ArgMax", ev_arg},
    {"", "ArgMin", ev_arg},
    {"", "CumSum", ev_cumsum},
    {"", "CumProd", ev_cumsum},
    {"", "TopK", ev_topk},
    {NULL, NULL, NULL},
};
