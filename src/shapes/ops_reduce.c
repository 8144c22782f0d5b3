/*
 * ops_reduce.c -- reductions and normalizations: Reduce* (axes as an
 * attribute in old opsets, as input 1 from opset 13 for ReduceSum and from
 * opset 18 for the others; keepdims; noop_with_empty_axes), ArgMax/ArgMin,
 * Softmax/LogSoftmax/Hardmax, CumSum, the normalizations (Layer, Batch,
 * Instance, Group, MeanVariance, Lp, RMS, onnxruntime's SimplifiedLayer),
 * the losses SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss, Det,
 * TfIdfVectorizer and StringNormalizer.
 *
 * Their values on known inputs (shape computations take ReduceProd of a
 * Shape for an element count) are evaluated by eval.c.
 */
#include <string.h>

#include "shapes/rules.h"

#define R MEMPLAN_MAX_RANK
#define T MEMPLAN_MAX_TRACKED_ELEMS

static memplan_expr_pool *P(mp_sctx *c) { return mp_pool(c); }

/* Output 0 like input 0 (Softmax family, CumSum, most normalizations). */
static void like_input0(mp_sctx *c) { mp_out_like(c, 0, mp_in(c, 0)); }

/* Of two amounts for the same dim, the constant one (else the first). */
static memplan_expr prefer_const(mp_sctx *c, memplan_expr a, memplan_expr b) {
    if (memplan_expr_is_const(P(c), a, NULL) || b == MEMPLAN_EXPR_NONE) return a;
    return memplan_expr_is_const(P(c), b, NULL) ? b : a;
}

/* ---- Reduce* ------------------------------------------------------------ */

typedef enum { AXES_LIST, AXES_NONE, AXES_UNKNOWN } axes_kind;

/* Which axes a Reduce* node reduces. AXES_LIST: n values in axes;
 * AXES_NONE: no axes given (absent or empty); AXES_UNKNOWN: given as an input
 * whose values are unknown, *n its length or -1 when that is unknown too. */
static axes_kind reduce_axes(mp_sctx *c, int64_t *axes, int32_t *n) {
    bool from_input = mp_opset(c) >= (strcmp(mp_node(c)->op_type, "ReduceSum") == 0 ? 13 : 18);
    const int64_t *a;
    int64_t na = mp_attr_ints(c, "axes", &a);
    if (!from_input) {
        if (mp_in(c, 1)) mp_note(c, "axes input ignored before this opset");
        if (na <= 0) return AXES_NONE;
        if (na > R) {
            *n = -1;
            return AXES_UNKNOWN;
        }
        memcpy(axes, a, (size_t)na * sizeof *axes);
        *n = (int32_t)na;
        return AXES_LIST;
    }
    if (na >= 0) mp_note(c, "axes attribute ignored from this opset (axes is an input)");
    const memplan_vshape *v = mp_in(c, 1);
    if (!v) return AXES_NONE;
    if (mp_in_ints(c, 1, axes, R, n)) return *n == 0 ? AXES_NONE : AXES_LIST;
    int64_t len;
    *n = v->rank == 1 && memplan_expr_is_const(P(c), v->dims[0], &len) && len <= R ? (int32_t)len : -1;
    return *n == 0 ? AXES_NONE : AXES_UNKNOWN;
}

/* Output shape when the axes are unknown: the rank is still known when
 * keepdims is set (dims of 1 stay 1) or the number of axes is known. */
static void reduce_unknown_axes(mp_sctx *c, const memplan_vshape *x, int32_t n, bool keep, bool noop) {
    if (keep) {
        memplan_expr *dims = mp_tmp_exprs(c, R);
        if (!dims) return;
        int64_t k;
        for (int32_t i = 0; i < x->rank; i++)
            dims[i] = memplan_expr_is_const(P(c), x->dims[i], &k) && k == 1 ? x->dims[i] : MEMPLAN_EXPR_NONE;
        mp_out(c, 0, x->elem_type, x->rank, dims);
    } else if (n > 0 && n <= x->rank && !noop)
        mp_out_fresh(c, 0, x->elem_type, x->rank - n);
    else
        mp_out_unranked(c, 0, x->elem_type, "reduced axes unknown");
}

/* ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare. */
static void reduce(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    bool keep = mp_attr_int(c, "keepdims", 1) != 0, noop = mp_attr_int(c, "noop_with_empty_axes", 0) != 0;
    int64_t *axes = mp_tmp_ints(c, R);
    if (!axes) return;
    int32_t n = 0;
    axes_kind kind = reduce_axes(c, axes, &n);
    if (kind == AXES_NONE && noop) { /* identity */
        mp_out_like(c, 0, x);
        return;
    }
    if (x->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    if (kind == AXES_UNKNOWN) {
        reduce_unknown_axes(c, x, n, keep, noop);
        return;
    }
    bool *red = mp_tmp(c, R, sizeof(bool));
    if (!red) return;
    for (int32_t i = 0; i < x->rank; i++) red[i] = kind == AXES_NONE;
    for (int32_t i = 0; i < n; i++) {
        int32_t a = mp_axis(axes[i], x->rank);
        if (a < 0) {
            mp_note(c, "axis %lld out of range for rank %d", (long long)axes[i], (int)x->rank);
            return;
        }
        red[a] = true;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = 0;
    for (int32_t i = 0; i < x->rank; i++)
        if (!red[i]) dims[r++] = x->dims[i];
        else if (keep)
            dims[r++] = mp_const(c, 1);
    mp_out(c, 0, x->elem_type, r, dims);
}

/* ---- ArgMax / ArgMin ---------------------------------------------------- */

/* The input's shape with `axis` dropped (or 1 with keepdims); int64. */
static void arg_reduce(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 0) {
        mp_out_unranked(c, 0, MEMPLAN_DTYPE_INT64, "input rank unknown");
        return;
    }
    int64_t axis_attr = mp_attr_int(c, "axis", 0);
    int32_t axis = mp_axis(axis_attr, x->rank);
    if (axis < 0) {
        mp_note(c, "axis %lld out of range for rank %d", (long long)axis_attr, (int)x->rank);
        return;
    }
    bool keep = mp_attr_int(c, "keepdims", 1) != 0;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = 0;
    for (int32_t i = 0; i < x->rank; i++)
        if (i != axis) dims[r++] = x->dims[i];
        else if (keep)
            dims[r++] = mp_const(c, 1);
    mp_out(c, 0, MEMPLAN_DTYPE_INT64, r, dims);
}

/* ---- normalizations ----------------------------------------------------- */

/* Y: X's shape; its type X's, or the scale's (input 1) when y_scale_type. */
static void out_y(mp_sctx *c, const memplan_vshape *x, bool y_scale_type) {
    const memplan_vshape *scale = mp_in(c, 1);
    int32_t et = y_scale_type && scale && scale->elem_type ? scale->elem_type : x->elem_type;
    if (x->rank < 0) mp_out_unranked(c, 0, et, "input rank unknown");
    else
        mp_out(c, 0, et, x->rank, x->dims);
}

/* Y like X; the statistics outputs 1 and 2 (Mean and InvStdDev, or
 * inv_std_var alone) have X's dims from `axis` on set to 1, type stash_type. */
static void norm_with_stats(mp_sctx *c, bool y_scale_type) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    out_y(c, x, y_scale_type);
    int32_t stash = (int32_t)mp_attr_int(c, "stash_type", MEMPLAN_DTYPE_FLOAT);
    if (x->rank < 0) {
        for (int32_t k = 1; k < 3; k++) mp_out_unranked(c, k, stash, "input rank unknown");
        return;
    }
    int64_t axis_attr = mp_attr_int(c, "axis", -1);
    int32_t axis = mp_axis(axis_attr, x->rank);
    if (axis < 0) {
        mp_note(c, "axis %lld out of range for rank %d", (long long)axis_attr, (int)x->rank);
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int32_t i = 0; i < x->rank; i++) dims[i] = i < axis ? x->dims[i] : mp_const(c, 1);
    for (int32_t k = 1; k < 3; k++) mp_out(c, k, stash, x->rank, dims);
}

/* LayerNormalization (opset 17): Y, Mean, InvStdDev. */
static void layer_norm(mp_sctx *c) { norm_with_stats(c, false); }

/* SimplifiedLayerNormalization (onnxruntime, default domain): Y has the
 * scale's type; optional inv_std_var. */
static void simplified_layer_norm(mp_sctx *c) { norm_with_stats(c, true); }

/* RMSNormalization (opset 23): Y like X with the scale's type. */
static void rms_norm(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (x) out_y(c, x, true);
}

/* Y like X. Other outputs (running mean/var in training mode from opset 14;
 * mean, var, saved mean, saved var before) have shape [C], or the shape of
 * the mean input when spatial=0 (opsets 7 and 8). */
static void batch_norm(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *scale = mp_in(c, 1), *mean = mp_in(c, 3);
    if (!x) return;
    mp_out_like(c, 0, x);
    bool spatial = mp_opset(c) >= 9 || mp_attr_int(c, "spatial", 1) != 0;
    memplan_expr ch = MEMPLAN_EXPR_NONE;
    if (x->rank > 1) ch = x->dims[1];
    else if (x->rank == 1)
        ch = mp_const(c, 1);
    if (scale && scale->rank == 1) /* scale is [C] */
        ch = ch == MEMPLAN_EXPR_NONE ? scale->dims[0] : prefer_const(c, ch, scale->dims[0]);
    for (int32_t k = 1; k < mp_n_out(c) && k < 5; k++) {
        const memplan_vshape *stat = mp_in(c, k <= 2 ? k + 2 : 0); /* mean, var: their inputs' types */
        int32_t et = stat ? stat->elem_type : x->elem_type;
        if (!spatial && mean) mp_out_like(c, k, mean);
        else
            mp_out(c, k, et, 1, &ch);
    }
}

/* ---- losses ------------------------------------------------------------- */

/* SoftmaxCrossEntropyLoss / NegativeLogLikelihoodLoss: the loss is a scalar,
 * or with reduction "none" the labels' shape [N, d1, ...]; the optional
 * log_prob output (SCE) is like the scores. */
static void loss(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *t = mp_in(c, 1);
    if (!x) return;
    if (mp_n_out(c) > 1) mp_out_like(c, 1, x);
    if (strcmp(mp_attr_str(c, "reduction", "mean"), "none") != 0) {
        mp_out(c, 0, x->elem_type, 0, NULL);
        return;
    }
    int32_t rank = t && t->rank >= 0 ? t->rank : x->rank >= 1 ? x->rank - 1 : -1;
    if (rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input ranks unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int32_t i = 0; i < rank; i++) {
        /* labels dim i is scores dim 0 (i = 0) or dim i + 1 */
        memplan_expr from_x = x->rank == rank + 1 ? x->dims[i == 0 ? 0 : i + 1] : MEMPLAN_EXPR_NONE;
        dims[i] = t && t->rank == rank ? prefer_const(c, t->dims[i], from_x) : from_x;
    }
    mp_out(c, 0, x->elem_type, rank, dims);
}

/* ---- others ------------------------------------------------------------- */

/* Det: [*, M, M] -> [*]. */
static void det(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 2) {
        if (x->rank < 0) mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        else
            mp_note(c, "input has rank %d, needs at least 2", (int)x->rank);
        return;
    }
    mp_out(c, 0, x->elem_type, x->rank - 2, x->dims);
}

/* TfIdfVectorizer: [C] -> [max(ngram_indexes)+1], [N, C] -> [N, that]; float. */
static void tfidf(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    const int64_t *idx;
    int64_t n = mp_attr_ints(c, "ngram_indexes", &idx), top = -1;
    for (int64_t i = 0; i < n; i++)
        if (idx[i] > top) top = idx[i];
    memplan_expr width = n > 0 && top < INT64_MAX ? mp_const(c, top + 1) : MEMPLAN_EXPR_NONE;
    if (x->rank == 1) {
        mp_out(c, 0, MEMPLAN_DTYPE_FLOAT, 1, &width);
    } else if (x->rank == 2) {
        memplan_expr dims[2] = {x->dims[0], width};
        mp_out(c, 0, MEMPLAN_DTYPE_FLOAT, 2, dims);
    } else {
        mp_out_unranked(c, 0, MEMPLAN_DTYPE_FLOAT, "input is not 1-D or 2-D");
    }
}

/* StringNormalizer: [C] or [1, C] strings; stopwords drop an unknown
 * number of them from the last axis, else the shape is kept. */
static void string_normalizer(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank != 1 && x->rank != 2) {
        mp_out_unranked(c, 0, MEMPLAN_DTYPE_STRING, "input is not 1-D or 2-D");
        return;
    }
    const memplan_attr *stop = mp_attr(c, "stopwords");
    memplan_expr dims[2] = {x->dims[0], x->rank == 2 ? x->dims[1] : MEMPLAN_EXPR_NONE};
    if (stop && stop->n > 0) dims[x->rank - 1] = MEMPLAN_EXPR_NONE;
    mp_out(c, 0, MEMPLAN_DTYPE_STRING, x->rank, dims);
}

const mp_rule mp_rules_reduce[] = {
    {"", "ReduceSum", reduce},
    {"", "ReduceMean", reduce},
    {"", "ReduceMax", reduce},
    {"", "ReduceMin", reduce},
    {"", "ReduceProd", reduce},
    {"", "ReduceL1", reduce},
    {"", "ReduceL2", reduce},
    {"", "ReduceLogSum", reduce},
    {"", "ReduceLogSumExp", reduce},
    {"", "ReduceSumSquare", reduce},
    {"", "ArgMax", arg_reduce},
    {"", "ArgMin", arg_reduce},
    {"", "Softmax", like_input0},
    {"", "LogSoftmax", like_input0},
    {"", "Hardmax", like_input0},
    {"", "CumSum", like_input0},
    {"", "CumProd", like_input0},
    {"", "LayerNormalization", layer_norm},
    {"", "SimplifiedLayerNormalization", simplified_layer_norm},
    {"", "RMSNormalization", rms_norm},
    {"", "BatchNormalization", batch_norm},
    {"", "InstanceNormalization", like_input0},
    {"", "GroupNormalization", like_input0},
    {"", "MeanVarianceNormalization", like_input0},
    {"", "LpNormalization", like_input0},
    {"", "SoftmaxCrossEntropyLoss", loss},
    {"", "NegativeLogLikelihoodLoss", loss},
    {"", "Det", det},
    {"", "TfIdfVectorizer", tfidf},
    {"", "StringNormalizer", string_normalizer},
    {NULL, NULL, NULL},
};
