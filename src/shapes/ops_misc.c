/*
 * ops_misc.c -- sequences and optionals, string ops, NonMaxSuppression,
 * Unique, random ops, signal ops (DFT, STFT, windows, MelWeightMatrix),
 * ImageDecoder, GridSample, CumSum, Det, training ops
 * (ai.onnx.preview.training) and a few ai.onnx.ml ops.
 *
 * SEQUENCE AND OPTIONAL CONTENTS. The rule API has no field for the element
 * shapes of a sequence or the contents of an optional, so this family keeps
 * them in the value's element list (n_elems/elems), which is otherwise unused
 * for non-tensors. Only rules of this file write or read it:
 *   sequence:  [count, mode, item...]   count: an amount, -1 when unknown
 *              mode 0: one item per element (count is a constant)
 *              mode 1: one item that every element matches
 *   item:      [rank, dim...]           rank -1: unknown; a dim -1: unknown
 *   optional:  [kind, ...]              kind 1 (tensor): an item follows;
 *              kind 3 (sequence): a sequence encoding follows
 * Sequences read from graph inputs carry nothing (the IR keeps no element
 * type for them): their elements come out unranked.
 */
#include <string.h>

#include "shapes/rules.h"

#define R MEMPLAN_MAX_RANK
#define T MEMPLAN_MAX_TRACKED_ELEMS

static memplan_expr_pool *P(mp_sctx *c) { return mp_pool(c); }

/* Constant value of e, or `dflt` when not a constant. */
static int64_t const_or(mp_sctx *c, memplan_expr e, int64_t dflt) {
    int64_t k;
    return memplan_expr_is_const(P(c), e, &k) ? k : dflt;
}

/* The single known integer value of input k (a scalar or 1-element tensor). */
static bool scalar_in(mp_sctx *c, int32_t k, int64_t *v) {
    int64_t buf[1];
    int32_t n;
    if (!mp_in_ints(c, k, buf, 1, &n) || n != 1) return false;
    *v = buf[0];
    return true;
}

/* Input k as an amount when its single value is known (maybe symbolic). */
static memplan_expr scalar_amount(mp_sctx *c, int32_t k) {
    int32_t n;
    const memplan_expr *e = mp_in_elems(c, k, &n);
    return e && n == 1 ? e[0] : MEMPLAN_EXPR_NONE;
}

/* Output k with the rank and dims of x and type et (unranked when x is). */
static void out_shape_of(mp_sctx *c, int32_t k, int32_t et, const memplan_vshape *x) {
    if (!x || x->kind != MEMPLAN_TYPE_TENSOR || x->rank < 0) mp_out_unranked(c, k, et, "input rank unknown");
    else
        mp_out(c, k, et, x->rank, x->dims);
}

/* ======================================================================
 * Sequence encoding (see the file comment)
 * ====================================================================== */

typedef struct item {
    int32_t rank;             /* -1 unknown */
    const memplan_expr *dims; /* -1 constants for unknown dims */
} item;

typedef struct seq {
    memplan_expr count; /* NONE when unknown */
    bool per_item;      /* items[i] per element, else items[0] common */
    int32_t n_items;
    item *items; /* room for T / 2 (seq_alloc), or fewer where said */
} seq;

/* Room for the items of s (scratch); false when memory runs out. */
static bool seq_alloc(mp_sctx *c, seq *s) {
    s->items = mp_tmp(c, T / 2, sizeof *s->items);
    return s->items != NULL;
}

/* An encoder writing into a buffer of T amounts; ok turns false on overflow. */
typedef struct enc {
    memplan_expr *buf;
    int32_t n;
    bool ok;
} enc;

static void enc_init(mp_sctx *c, enc *e) {
    e->buf = mp_tmp_exprs(c, T);
    e->n = 0;
    e->ok = e->buf != NULL;
}

static void enc_put(enc *e, memplan_expr x) {
    if (!e->ok) return;
    if (e->n >= T || x == MEMPLAN_EXPR_NONE) e->ok = false;
    else
        e->buf[e->n++] = x;
}

/* Append an item; NONE dims become the -1 marker. */
static void enc_item(mp_sctx *c, enc *e, int32_t rank, const memplan_expr *dims) {
    enc_put(e, mp_const(c, rank < 0 ? -1 : rank));
    for (int32_t i = 0; i < rank; i++) enc_put(e, dims[i] == MEMPLAN_EXPR_NONE ? mp_const(c, -1) : dims[i]);
}

static void enc_seq(mp_sctx *c, enc *e, const seq *s) {
    enc_put(e, s->count == MEMPLAN_EXPR_NONE ? mp_const(c, -1) : s->count);
    enc_put(e, mp_const(c, s->per_item ? 0 : 1));
    for (int32_t i = 0; i < s->n_items; i++) enc_item(c, e, s->items[i].rank, s->items[i].dims);
}

/* Decode one item at e[*at]; false when malformed. */
static bool dec_item(mp_sctx *c, const memplan_expr *e, int32_t n, int32_t *at, item *it) {
    if (*at >= n) return false;
    int64_t r = const_or(c, e[*at], -2);
    if (r < -1 || r > R || *at + 1 + (r > 0 ? r : 0) > n) return false;
    it->rank = (int32_t)r;
    it->dims = e + *at + 1;
    *at += 1 + (r > 0 ? (int32_t)r : 0);
    return true;
}

/* Decode a sequence encoding starting at e[*at]. */
static bool dec_seq(mp_sctx *c, const memplan_expr *e, int32_t n, int32_t *at, seq *s) {
    if (*at + 2 > n) return false;
    int64_t cnt = const_or(c, e[*at], 0), mode = const_or(c, e[*at + 1], -1);
    s->count = cnt == -1 ? MEMPLAN_EXPR_NONE : e[*at];
    s->per_item = mode == 0;
    if (mode != 0 && mode != 1) return false;
    if (s->per_item && (!memplan_expr_is_const(P(c), e[*at], &cnt) || cnt < 0 || cnt > T / 2)) return false;
    s->n_items = s->per_item ? (int32_t)cnt : 1;
    *at += 2;
    for (int32_t i = 0; i < s->n_items; i++)
        if (!dec_item(c, e, n, at, &s->items[i])) return false;
    return true;
}

/* The sequence behind input k, when it carries an encoding, decoded into s
 * (whose items seq_alloc made room for). */
static bool seq_decode(mp_sctx *c, int32_t k, seq *s) {
    const memplan_vshape *v = mp_in(c, k);
    int32_t n, at = 0;
    if (!v || v->kind != MEMPLAN_TYPE_SEQUENCE) return false;
    const memplan_expr *e = mp_in_elems(c, k, &n);
    return e && dec_seq(c, e, n, &at, s) && at == n;
}

/* seq_decode into a new s. */
static bool seq_in(mp_sctx *c, int32_t k, seq *s) { return seq_alloc(c, s) && seq_decode(c, k, s); }

/* Set output k to a sequence of et with contents s (NULL: unknown). */
static void seq_out(mp_sctx *c, int32_t k, int32_t et, const seq *s) {
    mp_out_kind(c, k, MEMPLAN_TYPE_SEQUENCE, et);
    if (!s) return;
    enc e;
    enc_init(c, &e);
    enc_seq(c, &e, s);
    if (e.ok) mp_out_elems(c, k, e.n, e.buf);
}

/* Merge item b into a: equal dims stay, others become unknown. */
static void merge_item(mp_sctx *c, item *a, memplan_expr *store, const item *b) {
    if (a->rank < 0 || b->rank != a->rank) {
        a->rank = -1;
        return;
    }
    for (int32_t i = 0; i < a->rank; i++) store[i] = a->dims[i] == b->dims[i] ? a->dims[i] : mp_const(c, -1);
    a->dims = store;
}

/* The item every element of s matches (rank -1 when unknown). */
static item common_item(mp_sctx *c, const seq *s, memplan_expr *store) {
    item it = {-1, NULL};
    if (s->n_items == 0) return it;
    it = s->items[0];
    for (int32_t i = 1; i < s->n_items; i++) merge_item(c, &it, store, &s->items[i]);
    return it;
}

/* An item as a tensor output (the -1 markers become fresh dims). */
static void item_out(mp_sctx *c, int32_t k, int32_t et, const item *it) {
    if (it->rank < 0) {
        mp_out_unranked(c, k, et, "sequence element shape unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, (size_t)it->rank);
    if (!dims) return;
    for (int32_t i = 0; i < it->rank; i++)
        dims[i] = const_or(c, it->dims[i], 0) == -1 ? MEMPLAN_EXPR_NONE : it->dims[i];
    mp_out(c, k, et, it->rank, dims);
}

/* Item of a tensor input (rank -1 when not a ranked tensor). */
static item item_of(const memplan_vshape *v) {
    item it = {-1, NULL};
    if (v && v->kind == MEMPLAN_TYPE_TENSOR && v->rank >= 0) {
        it.rank = v->rank;
        it.dims = v->dims;
    }
    return it;
}

/* A position in [-n, n] (insert) or [-n, n) (others) made non-negative. */
static bool norm_pos(int64_t pos, int64_t n, bool insert, int64_t *out) {
    if (pos < 0) pos += n;
    if (pos < 0 || pos > n || (!insert && pos == n)) return false;
    *out = pos;
    return true;
}

/* seq with a known count but a single common item (positions unknown). */
static void to_common(mp_sctx *c, seq *s, memplan_expr *store) {
    item it = common_item(c, s, store);
    s->per_item = false;
    s->n_items = 1;
    s->items[0] = it;
}

static memplan_expr count_plus(mp_sctx *c, memplan_expr n, int64_t d) {
    return n == MEMPLAN_EXPR_NONE ? n : memplan_expr_add(P(c), n, mp_const(c, d));
}

/* ---- sequence ops ------------------------------------------------------ */

static void sequence_empty(mp_sctx *c) {
    seq s = {mp_const(c, 0), true, 0, NULL};
    seq_out(c, 0, (int32_t)mp_attr_int(c, "dtype", MEMPLAN_DTYPE_FLOAT), &s);
}

static void sequence_construct(mp_sctx *c) {
    seq t;
    int32_t n = mp_n_in(c);
    if (!seq_alloc(c, &t)) return;
    if (n > T / 2) {
        seq_out(c, 0, mp_in(c, 0) ? mp_in(c, 0)->elem_type : 0, NULL);
        return;
    }
    t.count = mp_const(c, n);
    t.per_item = true;
    t.n_items = n;
    for (int32_t i = 0; i < n; i++) t.items[i] = item_of(mp_in(c, i));
    seq_out(c, 0, mp_in(c, 0) ? mp_in(c, 0)->elem_type : 0, &t);
}

/* SequenceInsert(S, T, pos?): at pos (default: the end). */
static void sequence_insert(mp_sctx *c) {
    const memplan_vshape *sv = mp_in(c, 0), *tv = mp_in(c, 1);
    int32_t et = sv && sv->elem_type ? sv->elem_type : tv ? tv->elem_type : 0;
    seq s;
    memplan_expr *store = mp_tmp_exprs(c, R);
    if (!store) return;
    if (!seq_in(c, 0, &s)) {
        seq_out(c, 0, et, NULL);
        return;
    }
    item t = item_of(tv);
    int64_t pos, n;
    bool has_pos = mp_in(c, 2) != NULL;
    if (s.per_item && s.n_items < T / 2 && (!has_pos || scalar_in(c, 2, &pos)) &&
        norm_pos(has_pos ? pos : s.n_items, s.n_items, true, &n)) {
        memmove(&s.items[n + 1], &s.items[n], (size_t)(s.n_items - n) * sizeof s.items[0]);
        s.items[n] = t;
        s.n_items++;
        s.count = mp_const(c, s.n_items);
    } else {
        if (s.per_item) to_common(c, &s, store);
        merge_item(c, &s.items[0], store, &t);
        s.count = count_plus(c, s.count, 1);
    }
    seq_out(c, 0, et, &s);
}

/* SequenceErase(S, pos?): default the last element. */
static void sequence_erase(mp_sctx *c) {
    const memplan_vshape *sv = mp_in(c, 0);
    int32_t et = sv ? sv->elem_type : 0;
    seq s;
    memplan_expr *store = mp_tmp_exprs(c, R);
    if (!store) return;
    if (!seq_in(c, 0, &s)) {
        seq_out(c, 0, et, NULL);
        return;
    }
    int64_t pos, n;
    bool has_pos = mp_in(c, 1) != NULL;
    if (s.per_item && (!has_pos || scalar_in(c, 1, &pos)) && norm_pos(has_pos ? pos : -1, s.n_items, false, &n)) {
        memmove(&s.items[n], &s.items[n + 1], (size_t)(s.n_items - n - 1) * sizeof s.items[0]);
        s.n_items--;
        s.count = mp_const(c, s.n_items);
    } else {
        if (s.per_item) to_common(c, &s, store);
        s.count = count_plus(c, s.count, -1);
    }
    seq_out(c, 0, et, &s);
}

static void sequence_at(mp_sctx *c) {
    const memplan_vshape *sv = mp_in(c, 0);
    int32_t et = sv ? sv->elem_type : 0;
    seq s;
    memplan_expr *store = mp_tmp_exprs(c, R);
    if (!store) return;
    int64_t pos, n;
    if (!seq_in(c, 0, &s)) {
        mp_out_unranked(c, 0, et, "sequence element shape unknown");
        return;
    }
    if (s.per_item && scalar_in(c, 1, &pos) && norm_pos(pos, s.n_items, false, &n)) {
        item_out(c, 0, et, &s.items[n]);
        return;
    }
    item it = s.per_item ? common_item(c, &s, store) : s.items[0];
    item_out(c, 0, et, &it);
}

static void sequence_length(mp_sctx *c) {
    seq s;
    mp_out(c, 0, MEMPLAN_DTYPE_INT64, 0, NULL);
    if (seq_in(c, 0, &s) && s.count != MEMPLAN_EXPR_NONE) mp_out_elems(c, 0, 1, &s.count);
}

/* SplitToSequence(X, split?): equal chunks of 1 (keepdims) or given sizes. */
static void split_to_sequence(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    int32_t et = x->elem_type;
    int32_t axis = x->rank >= 0 ? mp_axis(mp_attr_int(c, "axis", 0), x->rank) : -1;
    if (axis < 0) {
        seq_out(c, 0, et, NULL);
        return;
    }
    seq s;
    memplan_expr unk = mp_const(c, -1);
    memplan_expr *dims = mp_tmp_exprs(c, R);
    int64_t *sizes = mp_tmp_ints(c, T / 2), step, total;
    if (!dims || !sizes || !seq_alloc(c, &s)) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    memplan_expr d = x->dims[axis];
    const memplan_vshape *sp = mp_in(c, 1);
    int32_t n;
    s.per_item = false;
    s.n_items = 1;
    s.items[0].rank = x->rank;
    s.items[0].dims = dims;
    if (!sp) { /* one element per index along axis */
        s.count = d;
        if (mp_attr_int(c, "keepdims", 1)) {
            dims[axis] = mp_const(c, 1);
        } else {
            memmove(dims + axis, dims + axis + 1, (size_t)(x->rank - axis - 1) * sizeof *dims);
            s.items[0].rank--;
        }
    } else if (sp->rank == 0 && scalar_in(c, 1, &step) && step > 0) {
        s.count = memplan_expr_ceildiv(P(c), d, mp_const(c, step));
        bool exact = memplan_expr_is_const(P(c), d, &total) && total % step == 0;
        dims[axis] = exact ? mp_const(c, step) : unk; /* the last chunk may be shorter */
    } else if (sp->rank == 1 && mp_in_ints(c, 1, sizes, T / 2, &n)) {
        static const item none = {0, NULL};
        memplan_expr *per = mp_tmp_exprs(c, T);
        if (!per) return;
        if ((int64_t)n * x->rank > T) {
            seq_out(c, 0, et, NULL);
            return;
        }
        s.per_item = true;
        s.n_items = n;
        s.count = mp_const(c, n);
        for (int32_t i = 0; i < n; i++) {
            memplan_expr *pd = per + (size_t)i * (size_t)x->rank;
            memcpy(pd, x->dims, (size_t)x->rank * sizeof *pd);
            pd[axis] = mp_const(c, sizes[i]);
            s.items[i] = none;
            s.items[i].rank = x->rank;
            s.items[i].dims = pd;
        }
        seq_out(c, 0, et, &s);
        return;
    } else {
        s.count = MEMPLAN_EXPR_NONE;
        dims[axis] = unk;
    }
    seq_out(c, 0, et, &s);
}

/* ConcatFromSequence(S): concatenate along axis, or stack (new_axis=1). */
static void concat_from_sequence(mp_sctx *c) {
    const memplan_vshape *sv = mp_in(c, 0);
    int32_t et = sv ? sv->elem_type : 0;
    seq s;
    memplan_expr *store = mp_tmp_exprs(c, R);
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!store || !dims) return;
    if (!seq_in(c, 0, &s)) {
        mp_out_unranked(c, 0, et, "sequence element shape unknown");
        return;
    }
    item it = s.per_item ? common_item(c, &s, store) : s.items[0];
    bool new_axis = mp_attr_int(c, "new_axis", 0) != 0;
    int32_t r = it.rank + (new_axis ? 1 : 0);
    int32_t axis = it.rank >= 0 && r <= R ? mp_axis(mp_attr_int(c, "axis", 0), r) : -1;
    if (axis < 0) {
        mp_out_unranked(c, 0, et, "sequence element rank or axis unknown");
        return;
    }
    for (int32_t i = 0, q = 0; i < r; i++)
        dims[i] = new_axis && i == axis              ? MEMPLAN_EXPR_NONE
                  : const_or(c, it.dims[q], 0) == -1 ? (q++, MEMPLAN_EXPR_NONE)
                                                     : it.dims[q++];
    memplan_expr n = s.count;
    if (new_axis) {
        dims[axis] = n;
    } else if (s.per_item) { /* sum of the elements' dims along axis */
        memplan_expr sum = mp_const(c, 0);
        for (int32_t i = 0; i < s.n_items; i++) {
            memplan_expr di = s.items[i].rank == it.rank ? s.items[i].dims[axis] : MEMPLAN_EXPR_NONE;
            sum = di == MEMPLAN_EXPR_NONE || const_or(c, di, 0) == -1 ? MEMPLAN_EXPR_NONE
                                                                      : memplan_expr_add(P(c), sum, di);
        }
        dims[axis] = sum;
    } else {
        dims[axis] = dims[axis] == MEMPLAN_EXPR_NONE || n == MEMPLAN_EXPR_NONE ? MEMPLAN_EXPR_NONE
                                                                               : memplan_expr_mul(P(c), n, dims[axis]);
    }
    mp_out(c, 0, et, r, dims);
}

/* SequenceMap: the body runs on one element of each sequence input; each
 * output is a sequence of the body's outputs, as long as the first input. */
static void sequence_map(mp_sctx *c) {
    const memplan_attr *a = mp_attr(c, "body");
    const memplan_graph *body = a && a->type == MEMPLAN_ATTR_GRAPH ? a->g : NULL;
    seq s, first;
    bool have_first = seq_in(c, 0, &first);
    if (!body || mp_n_in(c) > 64) return;
    int32_t n = mp_n_in(c), used = 0;
    memplan_vshape *elems = mp_tmp(c, (size_t)n, sizeof *elems);
    const memplan_vshape **given = mp_tmp(c, (size_t)n, sizeof *given);
    memplan_expr *store = mp_tmp_exprs(c, T); /* element dims of all sequence inputs */
    memplan_expr *tmp = mp_tmp_exprs(c, R);
    if (!elems || !given || !store || !tmp || !seq_alloc(c, &s)) return;
    for (int32_t k = 0; k < n; k++) {
        const memplan_vshape *v = mp_in(c, k);
        given[k] = v;
        if (!v || v->kind != MEMPLAN_TYPE_SEQUENCE) continue;
        memset(&elems[k], 0, sizeof elems[k]);
        elems[k].kind = MEMPLAN_TYPE_TENSOR;
        elems[k].elem_type = v->elem_type;
        elems[k].rank = -1;
        elems[k].n_elems = -1;
        elems[k].bytes = MEMPLAN_EXPR_NONE;
        given[k] = &elems[k];
        if (!seq_decode(c, k, &s)) continue;
        item it = s.per_item ? common_item(c, &s, tmp) : s.items[0];
        if (it.rank < 0 || used + it.rank > T) continue;
        bool known = true; /* an unknown element dim leaves the rank unknown too */
        for (int32_t i = 0; i < it.rank; i++) known = known && const_or(c, it.dims[i], 0) != -1;
        if (!known) continue;
        memcpy(store + used, it.dims, (size_t)it.rank * sizeof *store);
        elems[k].rank = it.rank;
        elems[k].dims = store + used;
        used += it.rank;
    }
    mp_infer_sub(c, body, n, given);
    for (int32_t k = 0; k < mp_n_out(c); k++) {
        const memplan_vshape *o = mp_sub_out(c, body, k);
        item it = item_of(o);
        seq r = {have_first ? first.count : MEMPLAN_EXPR_NONE, false, 1, &it};
        seq_out(c, k, o ? o->elem_type : 0, &r);
    }
}

/* ---- optional ops ------------------------------------------------------ */

static void optional_op(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    mp_out_kind(c, 0, MEMPLAN_TYPE_OPTIONAL, x ? x->elem_type : 0);
    if (!x) return;
    enc e;
    enc_init(c, &e);
    seq s;
    if (x->kind == MEMPLAN_TYPE_TENSOR) {
        enc_put(&e, mp_const(c, MEMPLAN_TYPE_TENSOR));
        enc_item(c, &e, x->rank, x->dims);
    } else if (x->kind == MEMPLAN_TYPE_SEQUENCE) {
        enc_put(&e, mp_const(c, MEMPLAN_TYPE_SEQUENCE));
        if (seq_in(c, 0, &s)) enc_seq(c, &e, &s);
    } else {
        return;
    }
    if (e.ok) mp_out_elems(c, 0, e.n, e.buf);
}

static void optional_has_element(mp_sctx *c) { mp_out(c, 0, MEMPLAN_DTYPE_BOOL, 0, NULL); }

static void optional_get_element(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->kind != MEMPLAN_TYPE_OPTIONAL) { /* opset 18: a tensor or sequence passes through */
        mp_out_like(c, 0, x);
        if (x->n_elems >= 0) mp_out_vals(c, 0, x->n_elems, x->elems, x->elem_shift);
        return;
    }
    int32_t n, at = 1;
    const memplan_expr *e = mp_in_elems(c, 0, &n);
    int64_t kind = e && n >= 1 ? const_or(c, e[0], 0) : 0;
    item it;
    seq s;
    if (kind == MEMPLAN_TYPE_TENSOR && dec_item(c, e, n, &at, &it)) item_out(c, 0, x->elem_type, &it);
    else if (kind == MEMPLAN_TYPE_SEQUENCE)
        seq_out(c, 0, x->elem_type, n > 1 && seq_alloc(c, &s) && dec_seq(c, e, n, &at, &s) ? &s : NULL);
    else
        mp_out_unknown(c, 0, "optional contents unknown"); /* maybe not a tensor: keep the declared type */
}

/* ======================================================================
 * Strings
 * ====================================================================== */

static void regex_full_match(mp_sctx *c) { out_shape_of(c, 0, MEMPLAN_DTYPE_BOOL, mp_in(c, 0)); }

static void string_concat(mp_sctx *c) {
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = mp_broadcast(c, mp_in(c, 0), mp_in(c, 1), dims);
    if (r < 0) mp_out_unranked(c, 0, MEMPLAN_DTYPE_STRING, "input rank unknown or shapes do not broadcast");
    else
        mp_out(c, 0, MEMPLAN_DTYPE_STRING, r, dims);
}

/* StringSplit(X) -> Y: X dims + [max substrings], Z: int64 like X. */
static void string_split(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    out_shape_of(c, 1, MEMPLAN_DTYPE_INT64, x);
    if (!x || x->rank < 0 || x->rank >= R) {
        mp_out_unranked(c, 0, MEMPLAN_DTYPE_STRING, "input rank unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    dims[x->rank] = MEMPLAN_EXPR_NONE;
    mp_out(c, 0, MEMPLAN_DTYPE_STRING, x->rank + 1, dims);
}

/* ======================================================================
 * Data-dependent selections
 * ====================================================================== */

/* NonMaxSuppression(boxes [B, n, 4], scores [B, C, n], max per class?) ->
 * int64 [selected, 3]; none when max boxes is 0 (or absent). The count is
 * the data's, at most min(max per class, n) * B * C. */
static void non_max_suppression(mp_sctx *c) {
    int64_t max_boxes;
    bool zero = !mp_in(c, 2) || (scalar_in(c, 2, &max_boxes) && max_boxes <= 0);
    const memplan_vshape *boxes = mp_in(c, 0), *scores = mp_in(c, 1);
    memplan_expr n = boxes && boxes->rank == 3     ? boxes->dims[1]
                     : scores && scores->rank == 3 ? scores->dims[2]
                                                   : MEMPLAN_EXPR_NONE;
    memplan_expr per_class = scalar_amount(c, 2), bound = MEMPLAN_EXPR_NONE;
    if (per_class == MEMPLAN_EXPR_NONE) per_class = n;
    else if (n != MEMPLAN_EXPR_NONE)
        per_class = mp_le(c, per_class, n)   ? per_class
                    : mp_le(c, n, per_class) ? n
                                             : memplan_expr_min(P(c), per_class, n);
    if (scores && scores->rank == 3 && per_class != MEMPLAN_EXPR_NONE)
        bound = memplan_expr_mul(P(c), per_class, memplan_expr_mul(P(c), scores->dims[0], scores->dims[1]));
    memplan_expr dims[2] = {zero ? mp_const(c, 0) : mp_data_dim(c, bound), mp_const(c, 3)};
    mp_out(c, 0, MEMPLAN_DTYPE_INT64, 2, dims);
}

/* Distinct values (axis < 0) or distinct slices along axis of a constant
 * input with a static shape; -1 when unknown. */
static int64_t count_unique(mp_sctx *c, const memplan_vshape *x, int32_t axis) {
    double *v = mp_tmp(c, MEMPLAN_MAX_TRACKED_ELEMS, sizeof *v);
    int64_t *shape = mp_tmp_ints(c, R);
    int32_t n;
    if (!v || !shape) return -1;
    if (x->rank < 0 || !mp_in_floats(c, 0, v, MEMPLAN_MAX_TRACKED_ELEMS, &n)) return -1;
    /* A static shape of exactly those n >= 1 values: every dim in [1, n],
     * so the products and loops below stay small. */
    if (n < 1 || mp_static_count(c, x->rank, x->dims) != n) return -1;
    for (int32_t i = 0; i < x->rank; i++)
        if (!memplan_expr_is_const(mp_pool(c), x->dims[i], &shape[i])) return -1;
    int64_t outer = 1, len = 1, inner = 1;
    if (axis < 0) {
        len = n;
    } else {
        for (int32_t i = 0; i < axis; i++) outer *= shape[i];
        len = shape[axis];
        for (int32_t i = axis + 1; i < x->rank; i++) inner *= shape[i];
    }
    if (outer * len * inner != n) return -1;
    int64_t distinct = 0;
    for (int64_t a = 0; a < len; a++) { /* slice a is new unless equal to an earlier one */
        bool seen = false;
        for (int64_t b = 0; b < a && !seen; b++) {
            bool same = true;
            for (int64_t o = 0; o < outer && same; o++)
                for (int64_t i = 0; i < inner && same; i++)
                    same = v[(o * len + a) * inner + i] == v[(o * len + b) * inner + i];
            seen = same;
        }
        distinct += !seen;
    }
    return distinct;
}

/* Unique(X) -> Y, indices, inverse_indices, counts. The unique count is
 * the data's (one dim for all three), at most the input's length. */
static void unique(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    const memplan_attr *ax = mp_attr(c, "axis");
    memplan_expr u = MEMPLAN_EXPR_NONE, inv, *dims = mp_tmp_exprs(c, R);
    int32_t axis = -1;
    if (!dims) return;
    if (x->rank >= 0) {
        int32_t a = ax ? mp_axis(mp_attr_int(c, "axis", 0), x->rank) : -1;
        int64_t k = count_unique(c, x, a);
        if (k >= 0) u = mp_const(c, k);
        else if (!ax || a >= 0)
            u = mp_data_dim(c, a >= 0 ? x->dims[a] : mp_product(c, x->rank, x->dims));
    }
    if (x->rank < 0 || (ax && (axis = mp_axis(mp_attr_int(c, "axis", 0), x->rank)) < 0)) {
        mp_out_unranked(c, 0, x->elem_type, "input rank or axis unknown");
        inv = MEMPLAN_EXPR_NONE;
    } else if (!ax) {
        mp_out(c, 0, x->elem_type, 1, &u);
        inv = mp_product(c, x->rank, x->dims);
    } else {
        memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
        dims[axis] = u;
        mp_out(c, 0, x->elem_type, x->rank, dims);
        inv = x->dims[axis];
    }
    mp_out(c, 1, MEMPLAN_DTYPE_INT64, 1, &u);
    mp_out(c, 2, MEMPLAN_DTYPE_INT64, 1, &inv);
    mp_out(c, 3, MEMPLAN_DTYPE_INT64, 1, &u);
}

/* ======================================================================
 * Random
 * ====================================================================== */

/* RandomNormal / RandomUniform: shape and dtype from attributes. */
static void random_shape(mp_sctx *c) {
    const int64_t *s;
    int64_t n = mp_attr_ints(c, "shape", &s);
    int32_t et = (int32_t)mp_attr_int(c, "dtype", MEMPLAN_DTYPE_FLOAT);
    if (n < 0 || n > R) {
        mp_out_unranked(c, 0, et, "shape attribute missing");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int64_t i = 0; i < n; i++) dims[i] = mp_const(c, s[i]);
    mp_out(c, 0, et, (int32_t)n, dims);
}

/* RandomNormalLike / RandomUniformLike / Bernoulli: input's shape, dtype attr. */
static void random_like(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    out_shape_of(c, 0, (int32_t)mp_attr_int(c, "dtype", x->elem_type), x);
}

/* Multinomial([batch, classes]) -> [batch, sample_size]. */
static void multinomial(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    int32_t et = (int32_t)mp_attr_int(c, "dtype", MEMPLAN_DTYPE_INT32);
    if (!x || x->rank != 2) {
        mp_out_unranked(c, 0, et, "input must be [batch, classes]");
        return;
    }
    memplan_expr dims[2] = {x->dims[0], mp_const(c, mp_attr_int(c, "sample_size", 1))};
    mp_out(c, 0, et, 2, dims);
}

/* ======================================================================
 * Signal
 * ====================================================================== */

/* Length of a transformed axis: n, or n//2+1 when one-sided. */
static memplan_expr bins(mp_sctx *c, memplan_expr n, bool onesided) {
    if (n == MEMPLAN_EXPR_NONE || !onesided) return n;
    return memplan_expr_add(P(c), memplan_expr_floordiv(P(c), n, mp_const(c, 2)), mp_const(c, 1));
}

/* DFT(input [..., n, 1|2], dft_length?, axis? (opset 20)) -> [..., m, 2]. */
static void dft(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (!x) return;
    if (x->rank < 2) {
        mp_out_unranked(c, 0, x->elem_type, "input rank unknown");
        return;
    }
    int64_t a = mp_opset(c) >= 20 ? -2 : mp_attr_int(c, "axis", 1);
    if (mp_opset(c) >= 20 && mp_in(c, 2) && !scalar_in(c, 2, &a)) {
        mp_out_unranked(c, 0, x->elem_type, "axis unknown");
        return;
    }
    int32_t axis = mp_axis(a, x->rank);
    if (axis < 0 || axis == x->rank - 1) {
        mp_note(c, "axis %lld out of range", (long long)a);
        return;
    }
    /* onesided keeps n//2+1 bins, forward or inverse (as the reference
     * implementation does: the spec allows it for real input only) */
    bool onesided = mp_attr_int(c, "onesided", 0) != 0;
    memplan_expr n = x->dims[axis];
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    if (mp_in(c, 1)) n = scalar_amount(c, 1);
    dims[axis] = bins(c, n, onesided);
    dims[x->rank - 1] = mp_const(c, 2);
    mp_out(c, 0, x->elem_type, x->rank, dims);
}

/* STFT(signal [B, L, 1|2], frame_step, window?, frame_length?)
 * -> [B, (L - frame_length)//frame_step + 1, bins, 2]. */
static void stft(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *w = mp_in(c, 2);
    if (!x) return;
    if (x->rank != 3) {
        mp_out_unranked(c, 0, x->elem_type, "signal must be [batch, length, 1 or 2]");
        return;
    }
    memplan_expr step = scalar_amount(c, 1), len = MEMPLAN_EXPR_NONE;
    if (mp_in(c, 3)) len = scalar_amount(c, 3);
    else if (w && w->rank == 1)
        len = w->dims[0];
    memplan_expr frames = MEMPLAN_EXPR_NONE;
    if (step != MEMPLAN_EXPR_NONE && len != MEMPLAN_EXPR_NONE)
        frames = memplan_expr_add(P(c), memplan_expr_floordiv(P(c), memplan_expr_sub(P(c), x->dims[1], len), step),
                                  mp_const(c, 1));
    memplan_expr dims[4] = {x->dims[0], frames, bins(c, len, mp_attr_int(c, "onesided", 1) != 0), mp_const(c, 2)};
    mp_out(c, 0, x->elem_type, 4, dims);
}

/* HannWindow / HammingWindow / BlackmanWindow(size) -> [size]. */
static void window(mp_sctx *c) {
    memplan_expr n = scalar_amount(c, 0);
    mp_out(c, 0, (int32_t)mp_attr_int(c, "output_datatype", MEMPLAN_DTYPE_FLOAT), 1, &n);
}

/* MelWeightMatrix(num_mel_bins, dft_length, ...) -> [dft_length//2+1, num_mel_bins]. */
static void mel_weight_matrix(mp_sctx *c) {
    memplan_expr dims[2] = {bins(c, scalar_amount(c, 1), true), scalar_amount(c, 0)};
    mp_out(c, 0, (int32_t)mp_attr_int(c, "output_datatype", MEMPLAN_DTYPE_FLOAT), 2, dims);
}

/* ImageDecoder(bytes) -> uint8 [H, W, channels]: the size is in the data. */
static void image_decoder(mp_sctx *c) {
    const char *fmt = mp_attr_str(c, "pixel_format", "RGB");
    memplan_expr dims[3] = {MEMPLAN_EXPR_NONE, MEMPLAN_EXPR_NONE, mp_const(c, strcmp(fmt, "Grayscale") == 0 ? 1 : 3)};
    mp_out(c, 0, MEMPLAN_DTYPE_UINT8, 3, dims);
}

/* ======================================================================
 * Others without a family
 * ====================================================================== */

static void like_input0(mp_sctx *c) { mp_out_like(c, 0, mp_in(c, 0)); }

/* ======================================================================
 * Training (ai.onnx.preview.training)
 * ====================================================================== */

/* Optimizers: inputs R, T, then `groups` groups of n tensors (X, G, V...);
 * outputs are the groups other than G (the gradients), in order. */
static void optimizer(mp_sctx *c, int32_t groups) {
    int32_t n = (mp_n_in(c) - 2) / groups;
    for (int32_t k = 0; k < mp_n_out(c) && n > 0; k++) {
        int32_t g = k / n, j = k % n; /* output group g: X, then V, H... */
        int32_t in_group = g == 0 ? 0 : g + 1;
        mp_out_like(c, k, mp_in(c, 2 + in_group * n + j));
    }
}

static void momentum(mp_sctx *c) { optimizer(c, 3); }
static void adagrad(mp_sctx *c) { optimizer(c, 3); }
static void adam(mp_sctx *c) { optimizer(c, 4); }

/* Gradient: d y / d xs[i] has the shape of xs[i], the i-th input. */
static void gradient(mp_sctx *c) {
    for (int32_t k = 0; k < mp_n_out(c); k++) mp_out_like(c, k, mp_in(c, k));
}

/* ======================================================================
 * ai.onnx.ml
 * ====================================================================== */

/* Element type of the values_* attributes (LabelEncoder, CategoryMapper). */
static int32_t ml_value_type(mp_sctx *c, int32_t dflt) {
    const memplan_attr *t = mp_attr(c, "values_tensor");
    if (t && t->type == MEMPLAN_ATTR_TENSOR && t->t) return t->t->elem_type;
    if (mp_attr(c, "values_strings")) return MEMPLAN_DTYPE_STRING;
    if (mp_attr(c, "values_int64s")) return MEMPLAN_DTYPE_INT64;
    if (mp_attr(c, "values_floats")) return MEMPLAN_DTYPE_FLOAT;
    return dflt;
}

static void label_encoder(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (x) out_shape_of(c, 0, ml_value_type(c, x->elem_type), x);
}

/* CategoryMapper: string <-> int64, same shape. */
static void category_mapper(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    if (x) out_shape_of(c, 0, x->elem_type == MEMPLAN_DTYPE_STRING ? MEMPLAN_DTYPE_INT64 : MEMPLAN_DTYPE_STRING, x);
}

/* ArrayFeatureExtractor(X, Y): the indices Y select along the last axis. */
static void array_feature_extractor(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0), *y = mp_in(c, 1);
    if (!x) return;
    if (x->rank < 1 || !y || y->rank < 0) {
        mp_out_unranked(c, 0, x->elem_type, "input ranks unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = x->rank == 1 ? 2 : x->rank;
    memcpy(dims, x->dims, (size_t)(x->rank - 1) * sizeof *dims);
    if (x->rank == 1) dims[0] = mp_const(c, 1);
    dims[r - 1] = mp_product(c, y->rank, y->dims);
    mp_out(c, 0, x->elem_type, r, dims);
}

/* Class labels of a classifier: int64 or string, how many (-1 when no
 * attribute is given). The tree ensemble names its integer labels
 * classlabels_int64s, the linear and SVM classifiers classlabels_ints. */
static int64_t class_labels(mp_sctx *c, int32_t *et) {
    const memplan_attr *s = mp_attr(c, "classlabels_strings"), *i = mp_attr(c, "classlabels_int64s");
    if (!i) i = mp_attr(c, "classlabels_ints");
    *et = s ? MEMPLAN_DTYPE_STRING : MEMPLAN_DTYPE_INT64;
    return s ? (int64_t)s->n : i ? (int64_t)i->n : -1;
}

/* Rows of X: [N, F] -> N, [F] -> 1. */
static memplan_expr rows_of(mp_sctx *c, const memplan_vshape *x) {
    return !x || x->rank < 1 ? MEMPLAN_EXPR_NONE : x->rank == 1 ? mp_const(c, 1) : x->dims[0];
}

/* Regressors (TreeEnsembleRegressor, LinearRegressor, SVMRegressor) and
 * TreeEnsemble: Y [N, targets]; float, or X's type for TreeEnsemble. */
static void regressor(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    const char *op = mp_node(c)->op_type;
    const char *attr = strcmp(op, "LinearRegressor") == 0 ? "targets" : "n_targets";
    int64_t t = strcmp(op, "SVMRegressor") == 0 ? 1 : mp_attr_int(c, attr, 1);
    int32_t et = strcmp(op, "TreeEnsemble") == 0 && x ? x->elem_type : MEMPLAN_DTYPE_FLOAT;
    memplan_expr dims[2] = {rows_of(c, x), mp_const(c, t)};
    mp_out(c, 0, et, 2, dims);
}

/* Classifiers (TreeEnsembleClassifier, LinearClassifier, SVMClassifier):
 * labels [N] (int64 or string), scores float [N, classes]. */
static void classifier(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    int32_t et;
    int64_t k = class_labels(c, &et);
    memplan_expr n = rows_of(c, x), dims[2] = {n, k >= 0 ? mp_const(c, k) : MEMPLAN_EXPR_NONE};
    mp_out(c, 0, et, 1, &n);
    mp_out(c, 1, MEMPLAN_DTYPE_FLOAT, 2, dims);
}

/* OneHotEncoder(X) -> float X's dims + [categories]. */
static void one_hot_encoder(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    const memplan_attr *s = mp_attr(c, "cats_strings"), *i = mp_attr(c, "cats_int64s");
    if (!x || x->rank < 0 || x->rank >= R) {
        mp_out_unranked(c, 0, MEMPLAN_DTYPE_FLOAT, "input rank unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, (size_t)x->rank + 1);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    dims[x->rank] = s ? mp_const(c, (int64_t)s->n) : i ? mp_const(c, (int64_t)i->n) : MEMPLAN_EXPR_NONE;
    mp_out(c, 0, MEMPLAN_DTYPE_FLOAT, x->rank + 1, dims);
}

/* FeatureVectorizer(X...) -> float [N, sum(inputdimensions)]. */
static void feature_vectorizer(mp_sctx *c) {
    const int64_t *d;
    int64_t n = mp_attr_ints(c, "inputdimensions", &d);
    memplan_expr sum = n >= 0 ? mp_const(c, 0) : MEMPLAN_EXPR_NONE;
    for (int64_t i = 0; i < n; i++) sum = memplan_expr_add(P(c), sum, mp_const(c, d[i]));
    memplan_expr dims[2] = {rows_of(c, mp_in(c, 0)), sum};
    mp_out(c, 0, MEMPLAN_DTYPE_FLOAT, 2, dims);
}

/* Float output with the input's shape (Normalizer, Scaler). */
static void float_like(mp_sctx *c) { out_shape_of(c, 0, MEMPLAN_DTYPE_FLOAT, mp_in(c, 0)); }

/* ZipMap -> a sequence of maps. */
static void zip_map(mp_sctx *c) { mp_out_kind(c, 0, MEMPLAN_TYPE_SEQUENCE, 0); }

const mp_rule mp_rules_misc[] = {
    /* sequences and optionals */
    {"", "SequenceEmpty", sequence_empty},
    {"", "SequenceConstruct", sequence_construct},
    {"", "SequenceInsert", sequence_insert},
    {"", "SequenceErase", sequence_erase},
    {"", "SequenceAt", sequence_at},
    {"", "SequenceLength", sequence_length},
    {"", "SplitToSequence", split_to_sequence},
    {"", "ConcatFromSequence", concat_from_sequence},
    {"", "SequenceMap", sequence_map},
    {"", "Optional", optional_op},
    {"", "OptionalHasElement", optional_has_element},
    {"", "OptionalGetElement", optional_get_element},
    /* strings */
    {"", "RegexFullMatch", regex_full_match},
    {"", "StringConcat", string_concat},
    {"", "StringSplit", string_split},
    /* data-dependent selections */
    {"", "NonMaxSuppression", non_max_suppression},
    {"", "Unique", unique},
    /* random */
    {"", "RandomNormal", random_shape},
    {"", "RandomUniform", random_shape},
    {"", "RandomNormalLike", random_like},
    {"", "RandomUniformLike", random_like},
    {"", "Bernoulli", random_like},
    {"", "Multinomial", multinomial},
    /* signal and images */
    {"", "DFT", dft},
    {"", "STFT", stft},
    {"", "HannWindow", window},
    {"", "HammingWindow", window},
    {"", "BlackmanWindow", window},
    {"", "MelWeightMatrix", mel_weight_matrix},
    {"", "ImageDecoder", image_decoder},
    /* others */

    /* training */
    {"ai.onnx.preview.training", "Momentum", momentum},
    {"ai.onnx.preview.training", "Adagrad", adagrad},
    {"ai.onnx.preview.training", "Adam", adam},
    {"ai.onnx.preview.training", "Gradient", gradient},
    /* ai.onnx.ml */
    {"ai.onnx.ml", "LabelEncoder", label_encoder},
    {"ai.onnx.ml", "CategoryMapper", category_mapper},
    {"ai.onnx.ml", "ArrayFeatureExtractor", array_feature_extractor},
    {"ai.onnx.ml", "Binarizer", like_input0},
    {"ai.onnx.ml", "Imputer", like_input0},
    {"ai.onnx.ml", "Normalizer", float_like},
    {"ai.onnx.ml", "Scaler", float_like},
    {"ai.onnx.ml", "ZipMap", zip_map},
    {"ai.onnx.ml", "TreeEnsemble", regressor},
    {"ai.onnx.ml", "TreeEnsembleRegressor", regressor},
    {"ai.onnx.ml", "LinearRegressor", regressor},
    {"ai.onnx.ml", "SVMRegressor", regressor},
    {"ai.onnx.ml", "TreeEnsembleClassifier", classifier},
    {"ai.onnx.ml", "LinearClassifier", classifier},
    {"ai.onnx.ml", "SVMClassifier", classifier},
    {"ai.onnx.ml", "OneHotEncoder", one_hot_encoder},
    {"ai.onnx.ml", "FeatureVectorizer", feature_vectorizer},
    /* ONNX Runtime's experimental signal ops: the ai.onnx rules */
    {"com.microsoft.experimental", "STFT", stft},
    {"com.microsoft.experimental", "HannWindow", window},
    {"com.microsoft.experimental", "HammingWindow", window},
    {"com.microsoft.experimental", "BlackmanWindow", window},
    {"com.microsoft.experimental", "MelWeightMatrix", mel_weight_matrix},
    {NULL, NULL, NULL},
};
