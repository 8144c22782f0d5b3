/*
 * memplan/shapes.h -- symbolic shape inference with partial evaluation.
 *
 * Every value of every graph gets an element type and a shape whose dims are
 * memplan_expr amounts: constants, dim names from the model (`batch`, `seq`),
 * fresh names for anonymous dims (`unk__0`, `unk__1`, ... -- two unknown dims
 * are never assumed equal), or expressions over them (`2*seq+1`).
 *
 * Small tensors (at most MEMPLAN_MAX_TRACKED_ELEMS elements; integer, bool,
 * float or double) also carry their element values when they can be known,
 * symbolic where need be: shape computations (Shape -> Gather -> Concat ->
 * Reshape, Cast to float -> Min -> Cast back, Split of a constant) are
 * evaluated op by op, so ops that take computed shapes (Reshape, Expand,
 * Tile, Slice, Pad, Resize, ConstantOfShape, TopK, Range, ...) get exact
 * output shapes. A value is elems[i] / 2^elem_shift: integers have shift 0,
 * and a float is known when it is such a dyadic rational (512.0, 0.5, the
 * float32 nearest 0.1), exactly what the runtime computes.
 *
 * Declared types (graph inputs, outputs, value_info) are hints: for ops
 * without a rule the declared type is the answer; a conflict between a hint
 * and an inferred shape is recorded as a note (the inferred shape is kept,
 * unknown inferred dims are filled from the hint). Nothing here fails on an
 * odd model: values that cannot be inferred are left unknown with a reason.
 */
#ifndef MEMPLAN_SHAPES_H
#define MEMPLAN_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/expr.h"
#include "memplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum memplan_origin {
    MEMPLAN_ORIGIN_NONE = 0, /* nothing known */
    MEMPLAN_ORIGIN_DECLARED, /* from the file (input, initializer, value_info, output) */
    MEMPLAN_ORIGIN_INFERRED  /* computed by a rule */
} memplan_origin;

/* Largest tensor whose element values are tracked. */
#define MEMPLAN_MAX_TRACKED_ELEMS 1024

typedef struct memplan_vshape {
    memplan_type_kind kind;
    int32_t elem_type;
    int32_t rank;             /* -1 when unknown */
    const memplan_expr *dims; /* rank entries */
    memplan_expr bytes;       /* MEMPLAN_EXPR_NONE when unknown or unplannable */
    memplan_origin origin;
    const char *reason;        /* why the shape or size is unknown, else NULL */
    int32_t n_elems;           /* >= 0: the element values are known */
    const memplan_expr *elems; /* n_elems entries, row-major: the values times 2^elem_shift */
    int32_t elem_shift;        /* 0..62; 0 for integer and bool tensors */
} memplan_vshape;

typedef struct memplan_shapes memplan_shapes;

memplan_status memplan_shapes_infer(const memplan_model *m, memplan_shapes **out, memplan_error *err);

/* Infer with dim names bound to values from the start: a declared dim named
 * in the bindings is that constant everywhere, so shape computations that
 * branch on sizes (If on Equal(Shape(x)[0], 1), ...) resolve.
 * Bindings that do not fit the model fail with EINPUT and a message naming
 * the node: "the dims bound do not fit the model: node 'add' (Add): cannot
 * broadcast dims 128 and 8" -- a conflict (dims that do not broadcast, a
 * Reshape that cannot hold its input, MatMul inner dims or Concat dims that
 * differ) that inference without the bindings does not have. Dims that only
 * make a size negative are not an error: those sizes are unknown
 * (memplan_shapes_size). */
memplan_status memplan_shapes_infer_bound(const memplan_model *m, const memplan_binding *b, size_t nb,
                                          memplan_shapes **out, memplan_error *err);
/* A value the user gives a graph input of the main graph (`--value NAME=V`):
 * a scalar or a small integer or bool tensor, row-major. Partial evaluation
 * starts from it, so If conditions, Loop trip counts, Reshape targets and
 * Range bounds that depend on it resolve. */
typedef struct memplan_input_value {
    const char *name;
    int32_t n;            /* element count, 1..MEMPLAN_MAX_TRACKED_ELEMS */
    const int64_t *elems; /* bools are 0/1 */
} memplan_input_value;

typedef struct memplan_shapes_options {
    const memplan_binding *bindings; /* dim names bound from the start */
    size_t n_bindings;
    const memplan_input_value *values; /* input values */
    size_t n_values;
} memplan_shapes_options;

/* Infer with dims and input values bound. A value that names no graph input,
 * an input that is not an integer or bool tensor, an element that does not
 * fit the type, or a count that differs from the input's (dims bound) is an
 * EUSAGE error naming the input. */
memplan_status memplan_shapes_infer_opts(const memplan_model *m, const memplan_shapes_options *o, memplan_shapes **out,
                                         memplan_error *err);
void memplan_shapes_free(memplan_shapes *s);

memplan_expr_pool *memplan_shapes_pool(const memplan_shapes *s);

/* Shape of value `value` of graph g (main graph, a subgraph or a function body). */
const memplan_vshape *memplan_shapes_value(const memplan_shapes *s, const memplan_graph *g, int32_t value);

/* Whether some dim of the model took the value of a binding named name
 * (compared as given) in this inference: false for a name no dim of the
 * model has (a note says so), and for a name that was not bound. */
bool memplan_shapes_binding_taken(const memplan_shapes *s, const char *name);
/* Did inference reach graph g? A body is inferred when its node is (a
 * function call's copy only when no rule of the op came first). */
bool memplan_shapes_graph_inferred(const memplan_shapes *s, const memplan_graph *g);

/* Notes: hint conflicts and rule failures, "node 'n' (Op): message". */
size_t memplan_shapes_note_count(const memplan_shapes *s);
const char *memplan_shapes_note(const memplan_shapes *s, size_t i);

/* ---- dim names: what the user binds, what inference made up -------------
 *
 * The dims a user can bind are the main graph's input dims: a declared name
 * (dim_param), or, for an input dim with neither value nor name,
 * "input:axis" ("input_ids:1"; printed escaped like any name that is not an
 * identifier, and bound by either spelling). Every other name in the shapes
 * is either a name the model declares elsewhere (value_info, outputs) or an
 * internal symbol: a fresh "unk__N" born at a node whose output size
 * inference could not tell. Binding an internal symbol has no meaning (its
 * number depends on what else is bound); bind the input dims instead. */
typedef struct memplan_input_dim {
    const char *name;  /* raw (unescaped) */
    const char *input; /* the graph input where it first appears */
    int32_t axis;
} memplan_input_dim;

size_t memplan_shapes_input_dim_count(const memplan_shapes *s);
const memplan_input_dim *memplan_shapes_input_dim(const memplan_shapes *s, size_t i);

/* Where an internal symbol was born: the node (NULL when the dim came from
 * a declared type without a size, e.g. a subgraph input) in graph. */
typedef struct memplan_dim_origin {
    const memplan_graph *graph;
    const memplan_node *node;
} memplan_dim_origin;

/* True (and *origin, if not NULL) when name (raw or escaped) is an internal
 * symbol of this inference. */
bool memplan_shapes_internal_dim(const memplan_shapes *s, const char *name, memplan_dim_origin *origin);

/* The input dims to bind instead of internal symbol name: the input dims
 * that the inputs of its node have (sorted by strcmp, each once). Writes at
 * most max names and returns how many there are; 0 when there are none
 * (the size depends on data only) or name is not internal. */
size_t memplan_shapes_bind_instead(const memplan_shapes *s, const char *name, const char **names, size_t max);

/* Data-dependent dims: internal symbols whose value the data decides
 * (NonZero's count, NonMaxSuppression's selected boxes, Unique's and
 * Compress's kept elements, TopK with a computed k), each with an upper
 * bound, an amount in this inference's pool over other dims (NONE when none
 * is known): NonZero <= numel(X); NonMaxSuppression <= min(max boxes per
 * class, boxes) * batch * classes; Unique <= the input's length (along the
 * axis, or numel); Compress <= min(the condition's length, the axis' length
 * or numel); TopK <= the axis' length. Planning every such dim at its bound
 * gives memory valid for any data. */
size_t memplan_shapes_data_dim_count(const memplan_shapes *s);
/* Data-dependent dim i: its name (raw), and its bound in *bound (if not NULL). */
const char *memplan_shapes_data_dim(const memplan_shapes *s, size_t i, memplan_expr *bound);
/* True (and *bound) when name (raw or escaped) is a data-dependent dim. */
bool memplan_shapes_data_bound(const memplan_shapes *s, const char *name, memplan_expr *bound);

/* Why internal symbol name exists, for a deferred value's reason, written
 * into buf (cap bytes, NUL-terminated, cut when longer): "data-dependent:
 * NonZero (node 'y')", "size unknown after Loop (node 'l')", "declared
 * without a size in graph 'body'". Returns the length the full text needs
 * (as snprintf), 0 when name is not internal. */
size_t memplan_shapes_dim_reason(const memplan_shapes *s, const char *name, char *buf, size_t cap);

/* Root causes. A value without a size has a reason naming the node where
 * the unknown began and why, passed on to everything computed from it: "no
 * rule for ImageScaler (node 'x')", "inputs of different ranks in Concat
 * (node 'z')", "target shape unknown in Reshape (node 'r')". The notes end
 * with one line per op without a rule and its node count ("no rule for
 * ImageScaler (3 nodes)"). Calls of model-local functions are inferred
 * through their bodies. */

/* Byte size of a shape under bindings, as a memplan_size (KNOWN, SYMBOLIC with
 * the unbound names, UNKNOWN with the reason, UNPLANNABLE for non-tensors). */
memplan_size memplan_shapes_size(const memplan_shapes *s, const memplan_vshape *v, const memplan_binding *b, size_t nb);

#ifdef __cplusplus
}
#endif
#endif
