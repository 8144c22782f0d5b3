/*
 * rules.h -- how an op rule sees a node during shape inference.
 *
 * A rule is a function `void rule(mp_sctx *c)` that reads the node's input
 * shapes and attributes and sets its outputs. It never fails hard: when it
 * cannot tell, it leaves an output unknown (mp_out_unknown) with a reason or
 * records a note (mp_note). Outputs a rule does not set fall back to the
 * declared type, if any.
 *
 * Adding an op = one rule function in the family file (ops_*.c) and one row
 * in that file's table. The family tables are listed in infer.c (FAMILIES);
 * an op claimed twice fails every inference with EINTERNAL.
 */
#ifndef MEMPLAN_SHAPES_RULES_H
#define MEMPLAN_SHAPES_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/shapes.h"

typedef struct mp_sctx mp_sctx;
typedef void (*mp_rule_fn)(mp_sctx *c);

typedef struct mp_rule {
    const char *domain; /* "" default, "com.microsoft", ... */
    const char *op;
    mp_rule_fn fn;
} mp_rule;

/* Partial evaluation (eval.c): an op of this table runs on its inputs'
 * known values after its rule, when every present input has values and the
 * outputs have static shapes; one table for every op that evaluates. */
typedef struct mp_ev mp_ev;
typedef struct mp_eval {
    const char *domain;
    const char *op;
    bool (*fn)(mp_ev *e);
} mp_eval;
extern const mp_eval mp_evals[];
void mp_eval_node(mp_sctx *c, const mp_eval *ev);

/* Family tables, each ending with {NULL, NULL, NULL}. */
extern const mp_rule mp_rules_elementwise[];
extern const mp_rule mp_rules_shape[];
extern const mp_rule mp_rules_control[];
extern const mp_rule mp_rules_reduce[];
extern const mp_rule mp_rules_nn[];
extern const mp_rule mp_rules_quant[];
extern const mp_rule mp_rules_contrib[];
extern const mp_rule mp_rules_misc[];

/* ---- the node ---------------------------------------------------------- */
const memplan_node *mp_node(const mp_sctx *c);
memplan_expr_pool *mp_pool(const mp_sctx *c);
/* Opset version of the node's domain (default domain: the ai.onnx opset). */
int64_t mp_opset(const mp_sctx *c);
int32_t mp_n_in(const mp_sctx *c);
int32_t mp_n_out(const mp_sctx *c);
/* Input k's shape, or NULL when the slot is absent or empty. */
const memplan_vshape *mp_in(const mp_sctx *c, int32_t k);
/* Input k has a known rank (and is a tensor). */
bool mp_in_ranked(const mp_sctx *c, int32_t k);
bool mp_has_out(const mp_sctx *c, int32_t k);

/* ---- attributes -------------------------------------------------------- */
const memplan_attr *mp_attr(const mp_sctx *c, const char *name);
int64_t mp_attr_int(const mp_sctx *c, const char *name, int64_t dflt);
float mp_attr_float(const mp_sctx *c, const char *name, float dflt);
const char *mp_attr_str(const mp_sctx *c, const char *name, const char *dflt);
/* INTS attribute: count and values; -1 when absent. */
int64_t mp_attr_ints(const mp_sctx *c, const char *name, const int64_t **v);

/* ---- known element values of small inputs ------------------------------- */
/* The elements of input k as integer amounts (NULL when unknown, or when
 * they are not all integers); *n gets the count. */
const memplan_expr *mp_in_elems(const mp_sctx *c, int32_t k, int32_t *n);
/* The known values of input k: v[i] / 2^*shift (NULL when unknown). Float
 * and double constants (initializers, Constant outputs) are read on demand
 * into scratch memory. */
const memplan_expr *mp_in_vals(mp_sctx *c, int32_t k, int32_t *n, int32_t *shift);
/* Whether mp_in_vals may find values for input k (a cheap test, no reading). */
bool mp_in_has_vals(const mp_sctx *c, int32_t k);
/* The elements of input k as constants; false if unknown or not all constant.
 * Writes at most max values; *n gets the count. */
bool mp_in_ints(const mp_sctx *c, int32_t k, int64_t *out, int32_t max, int32_t *n);

/* Float values of input k when they are known constants (an initializer,
 * a Constant's output, or evaluated); false otherwise. */
bool mp_in_floats(mp_sctx *c, int32_t k, double *out, int32_t max, int32_t *n);

/* ---- outputs ----------------------------------------------------------- */
/* Set output k to a tensor of elem_type and the given dims (copied). */
void mp_out(mp_sctx *c, int32_t k, int32_t elem_type, int32_t rank, const memplan_expr *dims);
/* A new dim whose value depends on the data (NonZero's count, ...), with an
 * upper bound over other dims (NONE when none is known). Give it to every
 * output that has that count. */
memplan_expr mp_data_dim(mp_sctx *c, memplan_expr bound);
/* Output k of rank dims, each unknown (a fresh name). */
void mp_out_fresh(mp_sctx *c, int32_t k, int32_t elem_type, int32_t rank);
/* Element type known, rank unknown. */
void mp_out_unranked(mp_sctx *c, int32_t k, int32_t elem_type, const char *reason);
/* Same type and shape as a given shape (elements are not copied). */
void mp_out_like(mp_sctx *c, int32_t k, const memplan_vshape *v);
/* Non-tensor output (sequence, map, optional). */
void mp_out_kind(mp_sctx *c, int32_t k, memplan_type_kind kind, int32_t elem_type);
/* Attach known integer element values to output k (after mp_out; count must match). */
void mp_out_elems(mp_sctx *c, int32_t k, int32_t n, const memplan_expr *elems);
/* Attach known values v[i] / 2^shift to output k (after mp_out). */
void mp_out_vals(mp_sctx *c, int32_t k, int32_t n, const memplan_expr *v, int32_t shift);
/* Output k as a rule left it (NULL when the slot is absent). */
const memplan_vshape *mp_out_get(const mp_sctx *c, int32_t k);
void mp_out_unknown(mp_sctx *c, int32_t k, const char *reason);
/* Record "node 'name' (Op): message" among the notes. */
void mp_note(mp_sctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A note for dims that cannot agree (shapes that do not broadcast, a
 * Reshape that cannot hold its input, ...). Under bindings, a conflict that
 * inference without them does not meet fails memplan_shapes_infer_bound. */
void mp_conflict(mp_sctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- subgraphs --------------------------------------------------------- */
/* Infer subgraph g with its inputs given (n shapes; NULL entries keep the
 * declared type). Then read its outputs with mp_sub_out. */
void mp_infer_sub(mp_sctx *c, const memplan_graph *g, int32_t n, const memplan_vshape *const *inputs);
const memplan_vshape *mp_sub_out(const mp_sctx *c, const memplan_graph *g, int32_t k);

/* ---- scratch memory ---------------------------------------------------- */
/* A temporary array of count elements of size bytes (not zeroed), valid until
 * the rule returns: rank- and element-sized arrays come from here, never the
 * stack (a rule may run 33 subgraph levels deep). NULL when memory runs out
 * (the inference then fails with ENOMEM): the rule returns at once. */
void *mp_tmp(mp_sctx *c, size_t count, size_t size);
memplan_expr *mp_tmp_exprs(mp_sctx *c, size_t count);
int64_t *mp_tmp_ints(mp_sctx *c, size_t count);

/* ---- helpers shared by the families ------------------------------------ */
memplan_expr mp_const(mp_sctx *c, int64_t v);
/* Normalize an axis in [-rank, rank) to [0, rank); -1 when out of range. */
int32_t mp_axis(int64_t axis, int32_t rank);
/* Numpy broadcast of two ranked shapes into dims (at most MEMPLAN_MAX_RANK);
 * returns the rank or -1 when incompatible/unknown. */
int32_t mp_broadcast(mp_sctx *c, const memplan_vshape *a, const memplan_vshape *b, memplan_expr *dims);
/* a <= b for every value of the dim names in them: names are tensor dims, so
 * non-negative (memplan_expr_nonneg of b - a). False when it cannot tell. */
bool mp_le(mp_sctx *c, memplan_expr a, memplan_expr b);
/* f as an integer (truncated) when it is a number within +-2^53, where
 * every integer is exact and the conversion is defined; else false. */
bool mp_double_to_int(double f, int64_t *out);
/* n reals as values v[i] / 2^*shift with one shift (eval.c); false when one
 * is not finite or not a dyadic rational with a shift of at most 62. */
bool mp_reals_to_vals(mp_sctx *c, const double *f, int32_t n, memplan_expr *v, int32_t *shift);
/* Element count of a static shape when it is at most
 * MEMPLAN_MAX_TRACKED_ELEMS, else -1 (also for unknown dims). */
int32_t mp_static_count(mp_sctx *c, int32_t rank, const memplan_expr *dims);
/* Product of dims (NONE on overflow). */
memplan_expr mp_product(mp_sctx *c, int32_t rank, const memplan_expr *dims);

/* Gather's dims (ops_shape.c; also GatherBlockQuantized's): x's before
 * axis (in [0, rank)), all of idx's, x's after it, into dims (at most
 * MEMPLAN_MAX_RANK); returns the rank, or -1 when it would be larger. */
int32_t mp_gather_dims(const memplan_vshape *x, int32_t axis, const memplan_vshape *idx, memplan_expr *dims);

/* ---- shared by the nn family (ops_nn.c) with quant/contrib ------------- */
/* The one window rule of every Conv- and pool-like op (Conv, ConvInteger,
 * the pools, QLinearConv, QLinearAveragePool, FusedConv, NhwcConv, ...):
 * output dims from the node's attributes kernel_shape, strides, dilations,
 * pads, auto_pad and ceil_mode (ONNX semantics; with ceil_mode a last window
 * that would start in the end padding is dropped): dims = (N, C_out,
 * spatial...), or (N, spatial..., C_out) when channels_last, with N = x[0],
 * C_out = w[0] when a weight w is given else x's channels (pools). The
 * kernel is kernel_shape or w's spatial dims (w is [M, C/group, k...]); a
 * dim needing an unknown or symbolic kernel is NONE. x or w may be NULL /
 * unranked (the rank then comes from the other or from kernel_shape). dims
 * holds MEMPLAN_MAX_RANK entries. Returns the rank, or -1 (with a note for
 * bad attributes) when it cannot tell. */
int32_t mp_conv_out_dims(mp_sctx *c, const memplan_vshape *x, const memplan_vshape *w, bool channels_last,
                         memplan_expr *dims);
/* The one matmul rule (MatMul, MatMulInteger, QLinearMatMul, FusedMatMul,
 * QGemm, ...): numpy matmul of two ranked shapes a @ b, a or b transposed in
 * its last two dims when asked (1-D operands promoted and the added axis
 * removed; batch dims broadcast). Writes the output dims (at most
 * MEMPLAN_MAX_RANK) and returns the rank, or -1 (a conflict when the inner
 * dims are constants that differ). NULL or unranked operands give -1. */
int32_t mp_matmul_dims(mp_sctx *c, const memplan_vshape *a, const memplan_vshape *b, bool trans_a, bool trans_b,
                       memplan_expr *dims);

#endif
