/*
 * ops_shape.c -- ops that compute or rearrange shapes: Shape, Size, Reshape,
 * Flatten, (Un)Squeeze, Transpose, Concat, Split, Slice, Gather, Expand, Tile,
 * Pad, ConstantOfShape, Constant, Range, DepthToSpace, SpaceToDepth, Resize,
 * Upsample, TopK, NonZero and friends. The rules give shapes, reading the
 * known values of shape inputs; the values of their outputs are evaluated
 * by eval.c, except where values begin: Shape, Size, Constant and
 * ConstantOfShape.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "shapes/rules.h"

#define R MEMPLAN_MAX_RANK
#define T MEMPLAN_MAX_TRACKED_ELEMS

static memplan_expr_pool *P(mp_sctx *c) { return mp_pool(c); }

/* Axes from the attribute (older opsets) or from input k (newer). */
static bool axes_of(mp_sctx *c, int32_t input_k, int64_t *axes, int32_t *n, bool *given) {
    const int64_t *a;
    int64_t na = mp_attr_ints(c, "axes", &a);
    *given = true;
    if (na >= 0) {
        if (na > R) return false;
        if (na > 0) memcpy(axes, a, (size_t)na * sizeof *axes);
        *n = (int32_t)na;
        return true;
    }
    if (mp_in(c, input_k)) return mp_in_ints(c, input_k, axes, R, n);
    *given = false;
    *n = 0;
    return true;
}

static void shape_op(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x || x->rank < 0) {
        mp_out_unranked(c, 0, MEMPLAN_DTYPE_INT64, "input rank unknown");
        return;
    }
    int64_t start = mp_attr_int(c, "start", 0), end = mp_attr_int(c, "end", x->rank);
    if (start < 0) start += x->rank;
    if (end < 0) end += x->rank;
    if (start < 0) start = 0;
    if (start > x->rank) start = x->rank;
    if (end > x->rank) end = x->rank;
    int32_t n = end > start ? (int32_t)(end - start) : 0;
    memplan_expr d = mp_const(c, n);
    mp_out(c, 0, MEMPLAN_DTYPE_INT64, 1, &d);
    mp_out_elems(c, 0, n, x->dims + start);
}

static void size_op(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    mp_out(c, 0, MEMPLAN_DTYPE_INT64, 0, NULL);
    if (x && x->rank >= 0) {
        memplan_expr e = mp_product(c, x->rank, x->dims);
        mp_out_elems(c, 0, 1, &e);
    }
}

static void reshape(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int32_t n;
    const memplan_expr *target;
    const int64_t *attr_shape;
    memplan_expr *from_attr = mp_tmp_exprs(c, R);
    if (!from_attr) return;
    int64_t na = mp_attr_ints(c, "shape", &attr_shape); /* opset < 5 */
    if (na >= 0 && na <= R) {
        for (int64_t i = 0; i < na; i++) from_attr[i] = mp_const(c, attr_shape[i]);
        target = from_attr;
        n = (int32_t)na;
    } else {
        target = mp_in_elems(c, 1, &n);
    }
    if (!target) {
        const memplan_vshape *s = mp_in(c, 1);
        int64_t r;
        if (s && s->rank == 1 && memplan_expr_is_const(P(c), s->dims[0], &r) && r >= 0 && r <= R) {
            mp_out_fresh(c, 0, x->elem_type, (int32_t)r);
        } else {
            mp_out_unranked(c, 0, x->elem_type, "target shape unknown");
        }
        return;
    }
    if (n > R) return;
    bool allowzero = mp_attr_int(c, "allowzero", 0) != 0;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t infer_at = -1;
    memplan_expr known = mp_const(c, 1);
    for (int32_t i = 0; i < n; i++) {
        int64_t k;
        bool is_c = memplan_expr_is_const(P(c), target[i], &k);
        if (is_c && k == -1) {
            infer_at = i;
            dims[i] = MEMPLAN_EXPR_NONE;
            continue;
        }
        if (is_c && k < -1) { /* invalid in ONNX: an unknown dim, not a negative size */
            mp_note(c, "target dim %d is %lld (below -1)", (int)i, (long long)k);
            dims[i] = MEMPLAN_EXPR_NONE;
            known = MEMPLAN_EXPR_NONE;
            continue;
        }
        if (is_c && k == 0 && !allowzero) {
            if (x->rank < 0 || i >= x->rank) {
                dims[i] = MEMPLAN_EXPR_NONE;
                known = MEMPLAN_EXPR_NONE;
                continue;
            }
            dims[i] = x->dims[i];
        } else {
            dims[i] = target[i];
        }
        known = memplan_expr_mul(P(c), known, dims[i]);
    }
    if (infer_at >= 0 && x->rank >= 0 && known != MEMPLAN_EXPR_NONE) {
        /* -1 = total / known. Cancel the target dims that are input dims
         * first (batch against batch), so symbolic factors divide out. */
        bool *used = mp_tmp(c, R, sizeof(bool));
        if (!used) return;
        memset(used, 0, (size_t)R * sizeof *used);
        memplan_expr rest = mp_const(c, 1);
        for (int32_t i = 0; i < n; i++) {
            if (i == infer_at || dims[i] == MEMPLAN_EXPR_NONE) continue;
            int32_t j = 0;
            while (j < x->rank && (used[j] || x->dims[j] != dims[i])) j++;
            if (j < x->rank) used[j] = true;
            else
                rest = memplan_expr_mul(P(c), rest, dims[i]);
        }
        memplan_expr total = mp_const(c, 1);
        for (int32_t j = 0; j < x->rank; j++)
            if (!used[j]) total = memplan_expr_mul(P(c), total, x->dims[j]);
        int64_t t, r;
        if (memplan_expr_is_const(P(c), total, &t) && memplan_expr_is_const(P(c), rest, &r) &&
            (r == 0 ? t != 0 : t % r)) {
            mp_conflict(c, "cannot reshape %lld elements into a multiple of %lld", (long long)t, (long long)r);
            dims[infer_at] = MEMPLAN_EXPR_NONE;
        } else {
            dims[infer_at] = memplan_expr_floordiv(P(c), total, rest);
        }
    } else if (infer_at < 0 && x->rank >= 0 && known != MEMPLAN_EXPR_NONE) {
        int64_t t, k;
        memplan_expr total = mp_product(c, x->rank, x->dims);
        if (memplan_expr_is_const(P(c), total, &t) && memplan_expr_is_const(P(c), known, &k) && t != k)
            mp_conflict(c, "cannot reshape %lld elements into %lld", (long long)t, (long long)k);
    }
    mp_out(c, 0, x->elem_type, n, dims);
}

static void flatten(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    int64_t axis = mp_attr_int(c, "axis", 1);
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis > x->rank) {
        mp_note(c, "axis %lld out of range", (long long)mp_attr_int(c, "axis", 1));
        return;
    }
    memplan_expr dims[2] = {mp_product(c, (int32_t)axis, x->dims),
                            mp_product(c, x->rank - (int32_t)axis, x->dims + axis)};
    mp_out(c, 0, x->elem_type, 2, dims);
}

static void squeeze(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int64_t *axes = mp_tmp_ints(c, R);
    if (!axes) return;
    int32_t na;
    bool given;
    if (x->rank < 0 || !axes_of(c, 1, axes, &na, &given)) {
        mp_out_unranked(c, 0, x->elem_type, "input rank or axes unknown");
        return;
    }
    bool *drop = mp_tmp(c, R, sizeof(bool));
    if (!drop) return;
    memset(drop, 0, (size_t)R * sizeof *drop);
    for (int32_t i = 0; i < na; i++) {
        int32_t a = mp_axis(axes[i], x->rank);
        if (a < 0) return;
        drop[a] = true;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = 0;
    for (int32_t i = 0; i < x->rank; i++) {
        int64_t k;
        bool one = memplan_expr_is_const(P(c), x->dims[i], &k) && k == 1;
        if (given ? drop[i] : one) continue;
        if (!given && !memplan_expr_is_const(P(c), x->dims[i], &k)) {
            mp_out_unranked(c, 0, x->elem_type, "which dims are 1 is unknown");
            return;
        }
        dims[r++] = x->dims[i];
    }
    mp_out(c, 0, x->elem_type, r, dims);
}

static void unsqueeze(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int64_t *axes = mp_tmp_ints(c, R);
    if (!axes) return;
    int32_t na;
    bool given;
    if (x->rank < 0 || !axes_of(c, 1, axes, &na, &given) || x->rank + na > R) {
        mp_out_unranked(c, 0, x->elem_type, "input rank or axes unknown");
        return;
    }
    int32_t r = x->rank + na;
    bool *ins = mp_tmp(c, R, sizeof(bool));
    if (!ins) return;
    memset(ins, 0, (size_t)R * sizeof *ins);
    for (int32_t i = 0; i < na; i++) {
        int32_t a = mp_axis(axes[i], r);
        if (a < 0 || ins[a]) return;
        ins[a] = true;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int32_t i = 0, j = 0; i < r; i++) dims[i] = ins[i] ? mp_const(c, 1) : x->dims[j++];
    mp_out(c, 0, x->elem_type, r, dims);
}

static void transpose(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    const int64_t *perm;
    int64_t np = mp_attr_ints(c, "perm", &perm);
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    bool *seen = mp_tmp(c, R, sizeof(bool));
    if (!seen) return;
    memset(seen, 0, (size_t)R * sizeof *seen);
    for (int32_t i = 0; i < x->rank; i++) {
        int64_t p = np >= 0 ? (np == x->rank ? perm[i] : -1) : x->rank - 1 - i;
        if (p < 0 || p >= x->rank || seen[p]) {
            mp_note(c, "invalid perm");
            return;
        }
        seen[p] = true;
        dims[i] = x->dims[p];
    }
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

static void concat(mp_sctx *c) {
    const memplan_vshape *first = NULL;
    for (int32_t k = 0; k < mp_n_in(c) && !first; k++) first = mp_in(c, k);
    if (!first) return;
    int32_t rank = -1;
    for (int32_t k = 0; k < mp_n_in(c); k++)
        if (mp_in(c, k) && mp_in(c, k)->rank >= 0) rank = mp_in(c, k)->rank;
    if (rank < 0) {
        mp_out_unranked(c, 0, first->elem_type, "input ranks unknown");
        return;
    }
    int32_t axis = mp_axis(mp_attr_int(c, "axis", 0), rank);
    if (axis < 0) return;
    memplan_expr sum = mp_const(c, 0);
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    bool have_dims = false;
    for (int32_t k = 0; k < mp_n_in(c); k++) {
        const memplan_vshape *v = mp_in(c, k);
        if (!v) continue;
        if (v->rank < 0) {
            sum = MEMPLAN_EXPR_NONE;
            continue;
        }
        if (v->rank != rank) {
            mp_note(c, "inputs of different ranks");
            return;
        }
        sum = memplan_expr_add(P(c), sum, v->dims[axis]);
        for (int32_t i = 0; i < rank; i++) {
            if (i == axis) continue;
            int64_t kk, kv;
            if (have_dims && memplan_expr_is_const(P(c), dims[i], &kk) &&
                memplan_expr_is_const(P(c), v->dims[i], &kv) && kk != kv) {
                mp_conflict(c, "dims %d of the inputs differ (%lld and %lld)", (int)i, (long long)kk, (long long)kv);
                mp_out_unranked(c, 0, first->elem_type, "input dims differ off the axis");
                return;
            }
            /* prefer a constant dim over a symbolic one */
            if (!have_dims ||
                (!memplan_expr_is_const(P(c), dims[i], &kk) && memplan_expr_is_const(P(c), v->dims[i], &kk)))
                dims[i] = v->dims[i];
        }
        if (!have_dims) {
            for (int32_t i = 0; i < rank; i++)
                if (i != axis) dims[i] = v->dims[i];
            have_dims = true;
        }
    }
    dims[axis] = sum;
    mp_out(c, 0, first->elem_type, rank, dims);
}

static void split(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int32_t nout = mp_n_out(c);
    if (x->rank < 0) {
        for (int32_t k = 0; k < nout; k++) mp_out_unranked(c, k, x->elem_type, "input rank unknown");
        return;
    }
    int32_t axis = mp_axis(mp_attr_int(c, "axis", 0), x->rank);
    if (axis < 0) return;
    int64_t *sizes = mp_tmp_ints(c, T);
    if (!sizes) return;
    int32_t ns = -1;
    const int64_t *a;
    int64_t na = mp_attr_ints(c, "split", &a);
    if (na >= 0 && na <= T) {
        if (na > 0) memcpy(sizes, a, (size_t)na * sizeof *a);
        ns = (int32_t)na;
    } else if (mp_in(c, 1) && !mp_in_ints(c, 1, sizes, T, &ns)) {
        ns = -2; /* given but unknown */
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    for (int32_t k = 0; k < nout; k++) {
        if (ns >= 0) {
            if (k >= ns) return;
            dims[axis] = mp_const(c, sizes[k]);
        } else if (ns == -2) {
            dims[axis] = MEMPLAN_EXPR_NONE;
        } else {
            /* equal parts; the last one smaller (opset 18 num_outputs) */
            memplan_expr n = mp_const(c, nout);
            memplan_expr part = memplan_expr_ceildiv(P(c), x->dims[axis], n);
            int64_t total;
            if (memplan_expr_is_const(P(c), x->dims[axis], &total) && total % nout == 0)
                part = mp_const(c, total / nout);
            if (k == nout - 1)
                part = memplan_expr_sub(P(c), x->dims[axis], memplan_expr_mul(P(c), part, mp_const(c, nout - 1)));
            dims[axis] = part;
        }
        mp_out(c, k, x->elem_type, x->rank, dims);
    }
}

/* min(dim, k) for an amount k >= 0, without the min where either side is
 * known to be the lower. */
static memplan_expr clamp_to(mp_sctx *c, memplan_expr dim, memplan_expr k) {
    return mp_le(c, k, dim) ? k : mp_le(c, dim, k) ? dim : memplan_expr_min(P(c), k, dim);
}

/* Clamp a slice bound like numpy/ONNX do, for a step sign. */
static memplan_expr slice_len(mp_sctx *c, memplan_expr dim, int64_t start, int64_t end, int64_t step) {
    int64_t d;
    if (memplan_expr_is_const(P(c), dim, &d)) {
        /* A negative dim (dims bound too small for the model) has no slice.
         * With d >= 0 the sums and differences below stay within int64;
         * -INT64_MIN is out of range, but any step that large takes one
         * element, as INT64_MAX does. */
        if (d < 0) return MEMPLAN_EXPR_NONE;
        if (start < 0) start += d;
        if (end < 0) end += d;
        if (step > 0) {
            start = start < 0 ? 0 : start > d ? d : start;
            end = end < 0 ? 0 : end > d ? d : end;
            return mp_const(c, end > start ? (end - start - 1) / step + 1 : 0);
        }
        int64_t down = step == INT64_MIN ? INT64_MAX : -step;
        start = start < 0 ? -1 : start > d - 1 ? d - 1 : start;
        end = end < -1 ? -1 : end > d - 1 ? d - 1 : end;
        return mp_const(c, start > end ? (start - end - 1) / down + 1 : 0);
    }
    /* Symbolic dim: common patterns. A bound at or past 2^53 is the end (a
     * dim is bound to at most 2^53). A start past a small dim, or a
     * negative end reaching before it, gives a negative length: the dims
     * bound do not fit the model, and that is reported. A finite end is
     * clamped exactly, min(dim, e), unless dim >= e is known: an exporter's
     * "to the end" below 2^53 (tf2onnx writes 2^31 - 1) must not become a
     * size of its own while the dim is unbound (an x[0:2147483647] of
     * N x 4 floats planned as 32 GiB), nor a slice past a small dim's end
     * a size larger than the dim. */
    const int64_t BIG = INT64_C(1) << 53;
    if (step == 1 && start >= 0 && end >= BIG) return memplan_expr_sub(P(c), dim, mp_const(c, start)); /* [s:] */
    if (step == 1 && start >= 0 && start < BIG && end < 0 && end > -BIG)                               /* [s:-k] */
        return memplan_expr_sub(P(c), dim, mp_const(c, start - end));
    if (step == 1 && start < 0 && start > -BIG && end >= BIG) return clamp_to(c, dim, mp_const(c, -start)); /* [-k:] */
    if (step == 1 && start >= 0 && end >= 0 && end < BIG)                                                   /* [s:e] */
        return end <= start ? mp_const(c, 0)
                            : memplan_expr_sub(P(c), clamp_to(c, dim, mp_const(c, end)), mp_const(c, start));
    if (step < 0 && step > -BIG && (start == -1 || start >= BIG - 1) && end <= -BIG) /* [::-k], [-1::-k] */
        return step == -1 ? dim : memplan_expr_ceildiv(P(c), dim, mp_const(c, -step));
    if (step > 1 && start == 0 && end >= BIG) return memplan_expr_ceildiv(P(c), dim, mp_const(c, step));
    return MEMPLAN_EXPR_NONE;
}

/* A slice bound that is a computed amount (torch's x[k - q:k] with k, q
 * sizes), clamped to [0, dim] for a positive step. A constant follows
 * slice_len's rules: k >= 2^53 is the end, -k counts from the end (dim >= k,
 * else the length comes out negative), a small k >= 0 is min(dim, k). A
 * symbolic bound must be known to be >= 0; NONE otherwise. */
static memplan_expr slice_bound(mp_sctx *c, memplan_expr dim, memplan_expr b) {
    const int64_t BIG = INT64_C(1) << 53;
    int64_t k, d;
    if (memplan_expr_is_const(P(c), b, &k)) {
        if (memplan_expr_is_const(P(c), dim, &d) && d >= 0 && d < BIG) { /* both known: clamp */
            if (k < 0) k = k > -BIG ? k + d : 0;
            return mp_const(c, k < 0 ? 0 : k > d ? d : k);
        }
        if (k >= BIG) return dim;
        if (k < 0 && k > -BIG) return memplan_expr_add(P(c), dim, b);
        return k >= 0 ? clamp_to(c, dim, b) : MEMPLAN_EXPR_NONE;
    }
    if (!mp_le(c, mp_const(c, 0), b)) return MEMPLAN_EXPR_NONE;
    return clamp_to(c, dim, b);
}

/* Length of dim[start:end:step] (step > 0) with bounds that are amounts:
 * ceil((end - start) / step), at least 0. */
static memplan_expr slice_len_sym(mp_sctx *c, memplan_expr dim, memplan_expr start, memplan_expr end, int64_t step) {
    memplan_expr s = slice_bound(c, dim, start), e = slice_bound(c, dim, end);
    if (s == MEMPLAN_EXPR_NONE || e == MEMPLAN_EXPR_NONE) return MEMPLAN_EXPR_NONE;
    memplan_expr len = memplan_expr_sub(P(c), e, s);
    if (!mp_le(c, s, e)) len = memplan_expr_max(P(c), len, mp_const(c, 0));
    return step == 1 ? len : memplan_expr_ceildiv(P(c), len, mp_const(c, step));
}

/* Slice whose starts or ends are amounts rather than constants: axes with a
 * positive step get slice_len_sym, the others stay unknown. False when the
 * bounds or the axes and steps are not known at all. */
static bool slice_sym(mp_sctx *c, const memplan_vshape *x, memplan_expr *dims) {
    int32_t ns, ne, na = -1, nst = -1;
    const memplan_expr *st = mp_in_elems(c, 1, &ns), *en = mp_in_elems(c, 2, &ne);
    int64_t *axes = mp_tmp_ints(c, R);
    int64_t *steps = mp_tmp_ints(c, R);
    if (!axes || !steps) return false;
    if (!st || !en || ns != ne || ns > R) return false;
    if (mp_in(c, 3) && (!mp_in_ints(c, 3, axes, R, &na) || na != ns)) return false;
    if (mp_in(c, 4) && (!mp_in_ints(c, 4, steps, R, &nst) || nst != ns)) return false;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    for (int32_t i = 0; i < ns; i++) {
        int32_t a = mp_axis(na >= 0 ? axes[i] : i, x->rank);
        if (a < 0) return false;
        int64_t step = nst >= 0 ? steps[i] : 1;
        dims[a] = step > 0 ? slice_len_sym(c, x->dims[a], st[i], en[i], step) : MEMPLAN_EXPR_NONE;
    }
    return true;
}

static void slice(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    int64_t *starts = mp_tmp_ints(c, R);
    int64_t *ends = mp_tmp_ints(c, R);
    int64_t *axes = mp_tmp_ints(c, R);
    int64_t *steps = mp_tmp_ints(c, R);
    if (!starts || !ends || !axes || !steps) return;
    int32_t ns, ne, na, nst;
    if (mp_opset(c) < 10) {
        const int64_t *a;
        int64_t n1 = mp_attr_ints(c, "starts", &a);
        if (n1 < 0 || n1 > R) return;
        if (n1 > 0) memcpy(starts, a, (size_t)n1 * sizeof *a);
        int64_t n2 = mp_attr_ints(c, "ends", &a);
        if (n2 != n1) return;
        if (n2 > 0) memcpy(ends, a, (size_t)n2 * sizeof *a);
        ns = ne = (int32_t)n1;
        int64_t n3 = mp_attr_ints(c, "axes", &a);
        if (n3 >= 0 && n3 != n1) return;
        na = n3 >= 0 ? (int32_t)n3 : -1;
        if (na > 0) memcpy(axes, a, (size_t)na * sizeof *a);
        nst = -1;
    } else {
        if (!mp_in_ints(c, 1, starts, R, &ns) || !mp_in_ints(c, 2, ends, R, &ne) || ns != ne) {
            memplan_expr *dims = mp_tmp_exprs(c, R);
            if (!dims) return;
            if (slice_sym(c, x, dims)) {
                mp_out(c, 0, x->elem_type, x->rank, dims);
                return;
            }
            for (int32_t i = 0; i < x->rank; i++) dims[i] = MEMPLAN_EXPR_NONE;
            /* axes known: the other dims are unchanged */
            int64_t *ax = mp_tmp_ints(c, R);
            if (!ax) return;
            int32_t nax;
            if (mp_in(c, 3) && mp_in_ints(c, 3, ax, R, &nax)) {
                bool *touched = mp_tmp(c, R, sizeof(bool));
                if (!touched) return;
                memset(touched, 0, (size_t)R * sizeof *touched);
                for (int32_t i = 0; i < nax; i++) {
                    int32_t a = mp_axis(ax[i], x->rank);
                    if (a >= 0) touched[a] = true;
                }
                for (int32_t i = 0; i < x->rank; i++)
                    if (!touched[i]) dims[i] = x->dims[i];
            }
            mp_out(c, 0, x->elem_type, x->rank, dims);
            return;
        }
        na = -1;
        if (mp_in(c, 3) && (!mp_in_ints(c, 3, axes, R, &na) || na != ns)) return;
        nst = -1;
        if (mp_in(c, 4) && (!mp_in_ints(c, 4, steps, R, &nst) || nst != ns)) return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    for (int32_t i = 0; i < ns; i++) {
        int32_t a = mp_axis(na >= 0 ? axes[i] : i, x->rank);
        int64_t step = nst >= 0 ? steps[i] : 1;
        if (a < 0 || step == 0) {
            mp_note(c, "invalid axis or step");
            return;
        }
        dims[a] = slice_len(c, x->dims[a], starts[i], ends[i], step);
    }
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

int32_t mp_gather_dims(const memplan_vshape *x, int32_t axis, const memplan_vshape *idx, memplan_expr *dims) {
    if (x->rank - 1 + idx->rank > R) return -1;
    int32_t r = 0;
    for (int32_t i = 0; i < axis; i++) dims[r++] = x->dims[i];
    for (int32_t i = 0; i < idx->rank; i++) dims[r++] = idx->dims[i];
    for (int32_t i = axis + 1; i < x->rank; i++) dims[r++] = x->dims[i];
    return r;
}

static void gather(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *idx = mp_in(c, 1);
    if (!x || !idx) return;
    if (x->rank < 0 || idx->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    int32_t axis = mp_axis(mp_attr_int(c, "axis", 0), x->rank);
    memplan_expr *dims = axis < 0 ? NULL : mp_tmp_exprs(c, R);
    int32_t r = dims ? mp_gather_dims(x, axis, idx, dims) : -1;
    if (r >= 0) mp_out(c, 0, x->elem_type, r, dims);
}

static void gather_elements(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *idx = mp_in(c, 1);
    if (!x || !idx) return;
    if (idx->rank < 0) mp_out_unranked(c, 0, x->elem_type, "indices rank unknown");
    else
        mp_out(c, 0, x->elem_type, idx->rank, idx->dims);
}

static void gather_nd(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *idx = mp_in(c, 1);
    if (!x || !idx) return;
    int64_t b = mp_attr_int(c, "batch_dims", 0), last;
    if (x->rank < 0 || idx->rank < 1 || !memplan_expr_is_const(P(c), idx->dims[idx->rank - 1], &last)) {
        mp_out_unranked(c, 0, x->elem_type, "ranks or index depth unknown");
        return;
    }
    if (b < 0 || b >= idx->rank || last < 0 || last > x->rank - b) {
        mp_note(c, "batch_dims %lld or index depth %lld out of range", (long long)b, (long long)last);
        mp_out_unranked(c, 0, x->elem_type, "batch_dims or index depth out of range");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = 0;
    for (int32_t i = 0; i < idx->rank - 1; i++) dims[r++] = idx->dims[i];
    for (int64_t i = b + last; i < x->rank && r < R; i++) dims[r++] = x->dims[i];
    mp_out(c, 0, x->elem_type, r, dims);
}

/* Broadcast x with a shape given as values (Expand). */
static void expand(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int32_t n;
    const memplan_expr *shape = mp_in_elems(c, 1, &n);
    if (!shape || n > R) {
        const memplan_vshape *s = mp_in(c, 1);
        int64_t r;
        if (s && s->rank == 1 && x->rank >= 0 && memplan_expr_is_const(P(c), s->dims[0], &r) && r <= R) {
            mp_out_fresh(c, 0, x->elem_type, (int32_t)(r > x->rank ? r : x->rank));
        } else {
            mp_out_unranked(c, 0, x->elem_type, "target shape unknown");
        }
        return;
    }
    memplan_vshape target = {MEMPLAN_TYPE_TENSOR,     x->elem_type, n,  shape, MEMPLAN_EXPR_NONE,
                             MEMPLAN_ORIGIN_INFERRED, NULL,         -1, NULL,  0};
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = mp_broadcast(c, x, &target, dims);
    if (r < 0) {
        mp_out_unranked(c, 0, x->elem_type, "shapes do not broadcast");
        return;
    }
    mp_out(c, 0, x->elem_type, r, dims);
}

static void tile(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int32_t n;
    const memplan_expr *reps = mp_in_elems(c, 1, &n);
    if (x->rank < 0 || !reps || n != x->rank) {
        if (x->rank >= 0) {
            mp_out_fresh(c, 0, x->elem_type, x->rank);
        } else {
            mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        }
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int32_t i = 0; i < x->rank; i++) dims[i] = memplan_expr_mul(P(c), x->dims[i], reps[i]);
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

static void pad(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    memplan_expr *pads = mp_tmp_exprs(c, 2 * R);
    if (!pads) return;
    int32_t np;
    const int64_t *a;
    int64_t na = mp_attr_ints(c, "pads", &a); /* opset < 11 */
    if (na >= 0) {
        if (na > 2 * R) return;
        for (int64_t i = 0; i < na; i++) pads[i] = mp_const(c, a[i]);
        np = (int32_t)na;
    } else {
        const memplan_expr *e = mp_in_elems(c, 1, &np);
        if (!e || np > 2 * R) {
            mp_out_fresh(c, 0, x->elem_type, x->rank);
            return;
        }
        memcpy(pads, e, (size_t)np * sizeof *e);
    }
    int64_t *axes = mp_tmp_ints(c, R);
    if (!axes) return;
    int32_t nax = -1;
    if (mp_in(c, 3) && !mp_in_ints(c, 3, axes, R, &nax)) return;
    int32_t k = nax >= 0 ? nax : x->rank;
    if (np != 2 * k) {
        mp_note(c, "pads has %d values for %d axes", (int)np, (int)k);
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    for (int32_t i = 0; i < k; i++) {
        int32_t ax = nax >= 0 ? mp_axis(axes[i], x->rank) : i;
        if (ax < 0) return;
        dims[ax] = memplan_expr_add(P(c), dims[ax], memplan_expr_add(P(c), pads[i], pads[i + k]));
    }
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

static void constant_of_shape(mp_sctx *c) {
    const memplan_attr *v = mp_attr(c, "value");
    int32_t et = v && v->t ? v->t->elem_type : MEMPLAN_DTYPE_FLOAT;
    int32_t n;
    const memplan_expr *shape = mp_in_elems(c, 0, &n);
    if (!shape || n > R) {
        const memplan_vshape *s = mp_in(c, 0);
        int64_t r;
        if (s && s->rank == 1 && memplan_expr_is_const(P(c), s->dims[0], &r) && r >= 0 && r <= R) {
            mp_out_fresh(c, 0, et, (int32_t)r);
        } else {
            mp_out_unranked(c, 0, et, "shape unknown");
        }
        return;
    }
    mp_out(c, 0, et, n, shape);
    int32_t total = mp_static_count(c, n, shape), shift = 0;
    if (total < 0 || (v && (!v->t || !v->t->data))) return;
    int64_t fill = 0; /* no value attribute: float 0 */
    double f = 0;
    if (v) {
        switch (et) {
        case MEMPLAN_DTYPE_INT64: memcpy(&fill, v->t->data, 8); break;
        case MEMPLAN_DTYPE_INT32: {
            int32_t y;
            memcpy(&y, v->t->data, 4);
            fill = y;
            break;
        }
        case MEMPLAN_DTYPE_FLOAT: {
            float y;
            memcpy(&y, v->t->data, 4);
            f = y;
            break;
        }
        case MEMPLAN_DTYPE_DOUBLE: memcpy(&f, v->t->data, 8); break;
        default: return;
        }
    }
    memplan_expr *out = mp_tmp_exprs(c, (size_t)total), k;
    if (!out) return;
    if (et == MEMPLAN_DTYPE_FLOAT || et == MEMPLAN_DTYPE_DOUBLE) {
        if (!mp_reals_to_vals(c, &f, 1, &k, &shift)) return;
    } else {
        k = mp_const(c, fill);
    }
    for (int32_t i = 0; i < total; i++) out[i] = k;
    mp_out_vals(c, 0, total, out, shift);
}

static void constant(mp_sctx *c) {
    const memplan_node *n = mp_node(c);
    memplan_expr *dims = mp_tmp_exprs(c, R), *vals = mp_tmp_exprs(c, T);
    if (!dims || !vals) return;
    for (int32_t i = 0; i < n->n_attrs; i++) {
        const memplan_attr *a = &n->attrs[i];
        if (strcmp(a->name, "value") == 0 && a->t) {
            const memplan_tensor *t = a->t;
            for (int32_t k = 0; k < t->rank && k < R; k++) dims[k] = mp_const(c, t->dims[k]);
            mp_out(c, 0, t->elem_type, t->rank, dims);
            if (!t->data) return;
            size_t w = memplan_dtype_bits(t->elem_type) / 8;
            size_t cnt = w ? t->data_len / w : 0;
            if (cnt > T) return;
            for (size_t k = 0; k < cnt; k++) {
                int64_t x;
                if (t->elem_type == MEMPLAN_DTYPE_INT64) memcpy(&x, (const char *)t->data + 8 * k, 8);
                else if (t->elem_type == MEMPLAN_DTYPE_INT32) {
                    int32_t y;
                    memcpy(&y, (const char *)t->data + 4 * k, 4);
                    x = y;
                } else if (t->elem_type == MEMPLAN_DTYPE_BOOL || t->elem_type == MEMPLAN_DTYPE_UINT8)
                    x = ((const unsigned char *)t->data)[k];
                else
                    return;
                vals[k] = mp_const(c, x);
            }
            mp_out_elems(c, 0, (int32_t)cnt, vals);
            return;
        }
        if (strcmp(a->name, "value_int") == 0) {
            mp_out(c, 0, MEMPLAN_DTYPE_INT64, 0, NULL);
            vals[0] = mp_const(c, a->i);
            mp_out_elems(c, 0, 1, vals);
            return;
        }
        if (strcmp(a->name, "value_ints") == 0) {
            dims[0] = mp_const(c, (int64_t)a->n);
            mp_out(c, 0, MEMPLAN_DTYPE_INT64, 1, dims);
            if (a->n > T) return;
            for (size_t k = 0; k < a->n; k++) vals[k] = mp_const(c, a->ints[k]);
            mp_out_elems(c, 0, (int32_t)a->n, vals);
            return;
        }
        if (strcmp(a->name, "value_float") == 0 || strcmp(a->name, "value_floats") == 0) {
            bool one = strcmp(a->name, "value_float") == 0;
            size_t cnt = one ? 1 : a->n;
            dims[0] = mp_const(c, (int64_t)cnt);
            mp_out(c, 0, MEMPLAN_DTYPE_FLOAT, one ? 0 : 1, dims);
            double *f = mp_tmp(c, cnt ? cnt : 1, sizeof *f);
            int32_t shift;
            if (!f || cnt > T) return;
            for (size_t k = 0; k < cnt; k++) f[k] = one ? a->f : a->floats[k];
            if (mp_reals_to_vals(c, f, (int32_t)cnt, vals, &shift)) mp_out_vals(c, 0, (int32_t)cnt, vals, shift);
            return;
        }
        if (strcmp(a->name, "value_string") == 0) {
            mp_out(c, 0, MEMPLAN_DTYPE_STRING, 0, NULL);
            return;
        }
        if (strcmp(a->name, "value_strings") == 0) {
            dims[0] = mp_const(c, (int64_t)a->n);
            mp_out(c, 0, MEMPLAN_DTYPE_STRING, 1, dims);
            return;
        }
        if (strcmp(a->name, "sparse_value") == 0) return; /* shape lives in the sparse tensor: declared */
    }
}

static void range(mp_sctx *c) {
    const memplan_vshape *s = mp_in(c, 0);
    if (!s) return;
    int32_t n1, n2, n3;
    const memplan_expr *start = mp_in_elems(c, 0, &n1), *limit = mp_in_elems(c, 1, &n2),
                       *delta = mp_in_elems(c, 2, &n3);
    memplan_expr len = MEMPLAN_EXPR_NONE;
    double f[3];
    int32_t nf;
    if (start && limit && delta && n1 == 1 && n2 == 1 && n3 == 1) {
        /* max(ceil((limit - start) / delta), 0); no max when the length is >= 0
         * for every dim value (Range(0, seq, 1) is seq) */
        int64_t d;
        if (memplan_expr_is_const(P(c), delta[0], &d) && d != 0 && d != INT64_MIN) {
            memplan_expr diff = memplan_expr_sub(P(c), limit[0], start[0]);
            len = d > 0 ? memplan_expr_ceildiv(P(c), diff, delta[0])
                        : memplan_expr_ceildiv(P(c), memplan_expr_sub(P(c), mp_const(c, 0), diff), mp_const(c, -d));
            if (!mp_le(c, mp_const(c, 0), len)) len = memplan_expr_max(P(c), len, mp_const(c, 0));
        }
    } else if (mp_in_floats(c, 0, f, 1, &nf) && mp_in_floats(c, 1, f + 1, 1, &nf) &&
               mp_in_floats(c, 2, f + 2, 1, &nf) && f[2] != 0) {
        double l = ceil((f[1] - f[0]) / f[2]);
        int64_t li;
        if (l <= 0) len = mp_const(c, 0);
        else if (mp_double_to_int(l, &li))
            len = mp_const(c, li);
    }
    mp_out(c, 0, s->elem_type, 1, &len);
}

static void depth_space(mp_sctx *c, bool to_space) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank != 4) {
        mp_out_unranked(c, 0, x->elem_type, "input is not 4-D");
        return;
    }
    int64_t b = mp_attr_int(c, "blocksize", 1), b2k;
    if (b < 1 || __builtin_mul_overflow(b, b, &b2k)) {
        mp_note(c, "blocksize %lld is invalid", (long long)b);
        mp_out_unranked(c, 0, x->elem_type, "blocksize invalid");
        return;
    }
    memplan_expr bb = mp_const(c, b), b2 = mp_const(c, b2k);
    memplan_expr dims[4] = {x->dims[0], x->dims[1], x->dims[2], x->dims[3]};
    if (to_space) {
        dims[1] = memplan_expr_floordiv(P(c), x->dims[1], b2);
        dims[2] = memplan_expr_mul(P(c), x->dims[2], bb);
        dims[3] = memplan_expr_mul(P(c), x->dims[3], bb);
    } else {
        dims[1] = memplan_expr_mul(P(c), x->dims[1], b2);
        dims[2] = memplan_expr_floordiv(P(c), x->dims[2], bb);
        dims[3] = memplan_expr_floordiv(P(c), x->dims[3], bb);
    }
    mp_out(c, 0, x->elem_type, 4, dims);
}
static void depth_to_space(mp_sctx *c) { depth_space(c, true); }
static void space_to_depth(mp_sctx *c) { depth_space(c, false); }

/* Resize's sizes under keep_aspect_ratio_policy not_larger / not_smaller:
 * one scale for the k axes, the smallest (largest) of sizes[i] / in[i], and
 * each out = (int)(scale * in + 0.5), as the reference implementation
 * rounds. Needs constant sizes and dims; the axes' dims are unknown
 * otherwise. False for an axis out of range. */
static bool aspect_sizes(mp_sctx *c, const memplan_vshape *x, const memplan_expr *sizes, int32_t k, const int64_t *axes,
                         bool not_larger, memplan_expr *dims) {
    double scale = 0;
    bool known = true;
    for (int32_t i = 0; i < k; i++) {
        int32_t ax = axes ? mp_axis(axes[i], x->rank) : i;
        int64_t s, d;
        if (ax < 0) return false;
        if (!memplan_expr_is_const(P(c), sizes[i], &s) || !memplan_expr_is_const(P(c), x->dims[ax], &d) || d <= 0) {
            known = false;
            continue;
        }
        double r = (double)s / (double)d;
        if (i == 0 || (not_larger ? r < scale : r > scale)) scale = r;
    }
    for (int32_t i = 0; i < k; i++) {
        int32_t ax = axes ? mp_axis(axes[i], x->rank) : i;
        int64_t d, v;
        dims[ax] =
            known && memplan_expr_is_const(P(c), x->dims[ax], &d) && mp_double_to_int(scale * (double)d + 0.5, &v)
                ? mp_const(c, v)
                : MEMPLAN_EXPR_NONE;
    }
    return true;
}

/* Resize / Upsample: sizes if given, else floor(dim * scale). */
static void resize(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    bool upsample = strcmp(mp_node(c)->op_type, "Upsample") == 0;
    int64_t opset = mp_opset(c);
    int32_t scales_k = upsample ? 1 : opset >= 11 ? 2 : 1, sizes_k = upsample ? -1 : opset >= 11 ? 3 : -1;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int64_t *axes = mp_tmp_ints(c, R);
    if (!axes) return;
    int32_t nax = -1;
    const int64_t *aa;
    int64_t na = mp_attr_ints(c, "axes", &aa);
    if (na >= 0 && na <= R) {
        if (na > 0) memcpy(axes, aa, (size_t)na * sizeof *aa);
        nax = (int32_t)na;
    }
    int32_t k = nax >= 0 ? nax : x->rank;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    int32_t ns;
    const memplan_expr *sizes = sizes_k >= 0 && mp_in(c, sizes_k) ? mp_in_elems(c, sizes_k, &ns) : NULL;
    double *scales = mp_tmp(c, R, sizeof(double));
    if (!scales) return;
    const float *sattr = NULL;
    const memplan_attr *sa = mp_attr(c, "scales");
    if (sa && sa->type == MEMPLAN_ATTR_FLOATS) sattr = sa->floats;
    int32_t nsc = 0;
    bool have_scales = false;
    if (sattr) {
        nsc = (int32_t)sa->n;
        for (int32_t i = 0; i < nsc && i < R; i++) scales[i] = sattr[i];
        have_scales = true;
    } else if (mp_in(c, scales_k) && mp_in_floats(c, scales_k, scales, R, &nsc) && nsc > 0) {
        have_scales = true;
    }
    const char *policy = mp_attr_str(c, "keep_aspect_ratio_policy", "stretch");
    if (sizes && ns == k && strcmp(policy, "stretch") == 0) {
        for (int32_t i = 0; i < k; i++) {
            int32_t ax = nax >= 0 ? mp_axis(axes[i], x->rank) : i;
            if (ax < 0) return;
            dims[ax] = sizes[i];
        }
    } else if (sizes && ns == k) {
        if (!aspect_sizes(c, x, sizes, k, nax >= 0 ? axes : NULL, strcmp(policy, "not_larger") == 0, dims)) return;
    } else if (have_scales && nsc == k) {
        for (int32_t i = 0; i < k; i++) {
            int32_t ax = nax >= 0 ? mp_axis(axes[i], x->rank) : i;
            if (ax < 0) return;
            int64_t d, v;
            if (scales[i] == 1.0) continue;
            if (memplan_expr_is_const(P(c), x->dims[ax], &d) &&
                mp_double_to_int(floor((double)d * scales[i] + 1e-9), &v)) {
                dims[ax] = mp_const(c, v);
            } else if (!memplan_expr_is_const(P(c), x->dims[ax], &d) && scales[i] == floor(scales[i]) &&
                       scales[i] > 0 && mp_double_to_int(scales[i], &v)) {
                dims[ax] = memplan_expr_mul(P(c), x->dims[ax], mp_const(c, v));
            } else {
                dims[ax] = MEMPLAN_EXPR_NONE;
            }
        }
    } else {
        for (int32_t i = 0; i < x->rank; i++) dims[i] = MEMPLAN_EXPR_NONE;
    }
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

static void topk(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        mp_out_unranked(c, 1, MEMPLAN_DTYPE_INT64, "input rank unknown");
        return;
    }
    int32_t axis = mp_axis(mp_attr_int(c, "axis", -1), x->rank);
    if (axis < 0) return;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    int32_t n;
    const memplan_expr *kk = mp_in_elems(c, 1, &n);
    if (mp_opset(c) < 10) dims[axis] = mp_const(c, mp_attr_int(c, "k", 0));
    else
        dims[axis] = kk && n == 1 ? kk[0] : mp_data_dim(c, x->dims[axis]); /* a k from the data: <= the axis */
    mp_out(c, 0, x->elem_type, x->rank, dims);
    mp_out(c, 1, MEMPLAN_DTYPE_INT64, x->rank, dims);
}

/* Nonzero elements of input k when its values are known, else -1. */
static int64_t count_nonzero(mp_sctx *c, int32_t k) {
    double *v = mp_tmp(c, T, sizeof(double));
    if (!v) return -1;
    int32_t n;
    if (!mp_in_floats(c, k, v, T, &n)) return -1;
    int64_t cnt = 0;
    for (int32_t i = 0; i < n; i++) cnt += v[i] != 0;
    return cnt;
}

static void nonzero(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x || x->rank < 0) {
        mp_out_unranked(c, 0, MEMPLAN_DTYPE_INT64, "input rank unknown");
        return;
    }
    int64_t cnt = count_nonzero(c, 0);
    memplan_expr dims[2] = {mp_const(c, x->rank),
                            cnt >= 0 ? mp_const(c, cnt) : mp_data_dim(c, mp_product(c, x->rank, x->dims))};
    mp_out(c, 0, MEMPLAN_DTYPE_INT64, 2, dims);
}

/* CenterCropPad(input, shape, axes attr): the axes' dims are shape's values
 * (cropped or padded about the centre). */
static void center_crop_pad(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    const int64_t *axes;
    int64_t na = mp_attr_ints(c, "axes", &axes);
    int32_t n;
    const memplan_expr *shape = mp_in_elems(c, 1, &n);
    memplan_expr *dims = mp_tmp_exprs(c, (size_t)x->rank);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    int64_t k = na >= 0 ? na : x->rank;
    for (int64_t i = 0; i < k; i++) {
        int32_t ax = mp_axis(na >= 0 ? axes[i] : i, x->rank);
        if (ax < 0) {
            mp_note(c, "axis out of range");
            return;
        }
        dims[ax] = shape && n == k ? shape[i] : MEMPLAN_EXPR_NONE;
    }
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

/* Crop (opset 1, legacy): NCHW less the border [left, top, right, bottom],
 * or the scale attribute's [height, width] when given. */
static void crop(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank != 4) {
        mp_out_unranked(c, 0, x->elem_type, "input is not 4-D");
        return;
    }
    const int64_t *b, *s;
    int64_t nb = mp_attr_ints(c, "border", &b), ns = mp_attr_ints(c, "scale", &s);
    memplan_expr dims[4] = {x->dims[0], x->dims[1], MEMPLAN_EXPR_NONE, MEMPLAN_EXPR_NONE};
    if (ns == 2) {
        dims[2] = mp_const(c, s[0]);
        dims[3] = mp_const(c, s[1]);
    } else if (nb == 4) {
        dims[2] = memplan_expr_sub(P(c), x->dims[2], memplan_expr_add(P(c), mp_const(c, b[1]), mp_const(c, b[3])));
        dims[3] = memplan_expr_sub(P(c), x->dims[3], memplan_expr_add(P(c), mp_const(c, b[0]), mp_const(c, b[2])));
    }
    mp_out(c, 0, x->elem_type, 4, dims);
}

/* Output 0 like input 0 (scatter family, Trilu, ReverseSequence, ...). */
static void like_input0(mp_sctx *c) { mp_out_like(c, 0, mp_in(c, 0)); }

static void eye_like(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int32_t et = (int32_t)mp_attr_int(c, "dtype", x->elem_type);
    if (x->rank < 0) mp_out_unranked(c, 0, et, "input rank unknown");
    else
        mp_out(c, 0, et, x->rank, x->dims);
}

static void one_hot(mp_sctx *c) {
    const memplan_vshape *idx = mp_in(c, 0), *vals = mp_in(c, 2);
    if (!idx || !vals) return;
    if (idx->rank < 0 || idx->rank + 1 > R) {
        mp_out_unranked(c, 0, vals->elem_type, "indices rank unknown");
        return;
    }
    int32_t r = idx->rank + 1, axis = mp_axis(mp_attr_int(c, "axis", -1), r), n;
    if (axis < 0) return;
    const memplan_expr *depth = mp_in_elems(c, 1, &n);
    double fd;
    int32_t nf;
    memplan_expr d = depth && n == 1 ? depth[0] : MEMPLAN_EXPR_NONE;
    int64_t di;
    if (d == MEMPLAN_EXPR_NONE && mp_in_floats(c, 1, &fd, 1, &nf) && mp_double_to_int(fd, &di)) d = mp_const(c, di);
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int32_t i = 0, j = 0; i < r; i++) dims[i] = i == axis ? d : idx->dims[j++];
    mp_out(c, 0, vals->elem_type, r, dims);
}

static void compress(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    const memplan_attr *a = mp_attr(c, "axis");
    int64_t cnt = count_nonzero(c, 1);
    int32_t axis = a && x->rank >= 0 ? mp_axis(a->i, x->rank) : -1;
    memplan_expr kept = cnt >= 0 ? mp_const(c, cnt) : MEMPLAN_EXPR_NONE;
    if (cnt < 0 && (!a || axis >= 0)) { /* the data's count: at most the condition's and the axis' lengths */
        const memplan_vshape *cond = mp_in(c, 1);
        memplan_expr len = !a ? (x->rank >= 0 ? mp_product(c, x->rank, x->dims) : MEMPLAN_EXPR_NONE) : x->dims[axis];
        memplan_expr clen = cond && cond->rank == 1 ? cond->dims[0] : MEMPLAN_EXPR_NONE;
        memplan_expr bound = len == MEMPLAN_EXPR_NONE    ? clen
                             : clen == MEMPLAN_EXPR_NONE ? len
                             : mp_le(c, clen, len)       ? clen
                             : mp_le(c, len, clen)       ? len
                                                         : memplan_expr_min(P(c), clen, len);
        kept = mp_data_dim(c, bound);
    }
    if (!a) {
        mp_out(c, 0, x->elem_type, 1, &kept);
        return;
    }
    if (x->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    if (axis < 0) return;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    dims[axis] = kept;
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

const mp_rule mp_rules_shape[] = {
    {"", "Shape", shape_op},
    {"", "Size", size_op},
    {"", "Reshape", reshape},
    {"", "Flatten", flatten},
    {"", "Squeeze", squeeze},
    {"", "Unsqueeze", unsqueeze},
    {"", "Transpose", transpose},
    {"", "Concat", concat},
    {"", "Split", split},
    {"", "Slice", slice},
    {"", "Gather", gather},
    {"", "GatherElements", gather_elements},
    {"", "GatherND", gather_nd},
    {"", "Expand", expand},
    {"", "Tile", tile},
    {"", "Pad", pad},
    {"", "ConstantOfShape", constant_of_shape},
    {"", "Constant", constant},
    {"", "Range", range},
    {"", "DepthToSpace", depth_to_space},
    {"", "SpaceToDepth", space_to_depth},
    {"", "Resize", resize},
    {"", "Upsample", resize},
    {"", "TopK", topk},
    {"", "NonZero", nonzero},
    {"", "ScatterElements", like_input0},
    {"", "ScatterND", like_input0},
    {"", "Scatter", like_input0},
    {"", "Trilu", like_input0},
    {"", "ReverseSequence", like_input0},
    {"", "EyeLike", eye_like},
    {"", "OneHot", one_hot},
    {"", "Compress", compress},
    {"", "CenterCropPad", center_crop_pad},
    {"", "Crop", crop},
    {"", "TensorScatter", like_input0}, /* past_cache with the update written in */
    {NULL, NULL, NULL},
};
