/*
 * memplan/inplace.h -- the in-place analyses of a graph (docs/semantics.md,
 * "In-place reuse" to "Decision log"), computed once into a context: the
 * reuse pairs and the decision log here; release lists, tags and the
 * per-node profile are read from the same context through memplan/release.h,
 * memplan/tags.h and memplan/profile.h (included). Writing them into a model
 * is memplan/annotate.h.
 *
 *   memplan_shapes *S;   memplan_shapes_infer(m, &S, &err);
 *   memplan_inplace_options o = {0};  o.allow_input_overwrite = true;
 *   memplan_inplace *ctx;  memplan_inplace_compute(m, S, &o, &ctx, &err);
 *   ... memplan_inplace_node_reuse(ctx, i, &items, &n, &err) ...
 *   memplan_inplace_free(ctx);  memplan_shapes_free(S);  memplan_model_free(m);
 *
 * The context borrows the model and the shapes (their pool holds the profile's
 * amounts): free it before them. Positions are the IR's node order (the
 * topological order, "Positions and topological order"); node i's place in
 * the file is m->graph->nodes[i].file_index. Value ids are ids of m->graph.
 *
 * Choices made where the contract is silent:
 *  - Types and sizes come from shape inference (memplan_shapes_value). A value
 *    "has an inferred type" when it is a tensor with a known element type.
 *    "Identical dims" = same rank and equal memplan_expr handles per dim (the
 *    pool is canonical, so symbolic dims compare by name); "identical byte-size
 *    expressions" = equal bytes handles.
 *  - Ops are matched in the default domain ("" or "ai.onnx") only.
 */
#ifndef MEMPLAN_INPLACE_H
#define MEMPLAN_INPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/expr.h"
#include "memplan/liveness.h"
#include "memplan/model.h"
#include "memplan/profile.h"
#include "memplan/release.h"
#include "memplan/shapes.h"
#include "memplan/tags.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum memplan_reuse_kind {
    MEMPLAN_REUSE_EQUAL = 0,  /* same size: space-optimal */
    MEMPLAN_REUSE_GREATER = 1 /* the input is strictly larger (concrete sizes only) */
} memplan_reuse_kind;

/* Output output_index of a node may take the buffer of its input input_index
 * (indices into the node's output / input lists). */
typedef struct memplan_reuse {
    int32_t output_index;
    int32_t input_index;
    memplan_reuse_kind kind;
} memplan_reuse;

/* "equal" / "greater". */
const char *memplan_reuse_kind_name(memplan_reuse_kind kind);

typedef enum memplan_event_action {
    MEMPLAN_EVENT_INPLACE = 0,          /* "inplace" */
    MEMPLAN_EVENT_RELEASE = 1,          /* "release" */
    MEMPLAN_EVENT_RELEASE_SHAPE_TAG = 2 /* "release_shape_tag" */
} memplan_event_action;

const char *memplan_event_action_name(memplan_event_action action);

/* One decision-log entry ("Decision log"). */
typedef struct memplan_event {
    memplan_event_action action;
    int32_t node_index;
    int32_t value;           /* release*: the value id; inplace: -1 */
    const char *name;        /* release*: its name (model-owned); inplace: NULL */
    int32_t output_index;    /* inplace only, else -1 */
    int32_t input_index;     /* inplace only, else -1 */
    memplan_reuse_kind kind; /* inplace only (EQUAL otherwise) */
} memplan_event;

typedef struct memplan_inplace_options {
    bool allow_input_overwrite; /* graph inputs may be reused (and are "produced" before 0) */
    bool events;                /* record the decision log */
} memplan_inplace_options;

typedef struct memplan_inplace memplan_inplace;

/* Compute every analysis for m's main graph. opts may be NULL (all off). */
memplan_status memplan_inplace_compute(const memplan_model *m, memplan_shapes *shapes,
                                       const memplan_inplace_options *opts, memplan_inplace **out, memplan_error *err);
/* The same for any graph of m: a control-flow body (its captured outer
 * values are protected: they are the parent's buffers) or the main graph. */
memplan_status memplan_inplace_compute_graph(const memplan_model *m, const memplan_graph *g, memplan_shapes *shapes,
                                             const memplan_inplace_options *opts, memplan_inplace **out,
                                             memplan_error *err);
void memplan_inplace_free(memplan_inplace *ctx);

/* The graph the results are for, its node count, and the amounts' pool. */
const memplan_graph *memplan_inplace_graph(const memplan_inplace *ctx);
int32_t memplan_inplace_node_count(const memplan_inplace *ctx);
memplan_expr_pool *memplan_inplace_pool(const memplan_inplace *ctx);
/* What ctx was computed from and with: for the analyses of the bodies of
 * its graph's nodes (memplan_inplace_compute_graph), as annotate makes them. */
const memplan_model *memplan_inplace_model(const memplan_inplace *ctx);
memplan_shapes *memplan_inplace_shapes(const memplan_inplace *ctx);
memplan_inplace_options memplan_inplace_options_of(const memplan_inplace *ctx);

/* Per-node results. Each returns MEMPLAN_EUSAGE "node index N is out of range
 * (the graph has M nodes)" for a bad index; arrays are owned by ctx. */
memplan_status memplan_inplace_node_reuse(const memplan_inplace *ctx, int32_t node, const memplan_reuse **items,
                                          size_t *n, memplan_error *err);
/* Initializers, graph outputs, and graph inputs unless allow_input_overwrite
 * (value ids of the graph). */
bool memplan_inplace_is_protected(const memplan_inplace *ctx, int32_t value);

/* The decision log (empty unless options.events). Clearing keeps the results. */
size_t memplan_inplace_event_count(const memplan_inplace *ctx);
const memplan_event *memplan_inplace_events(const memplan_inplace *ctx);
bool memplan_inplace_events_enabled(const memplan_inplace *ctx);
void memplan_inplace_clear_events(memplan_inplace *ctx);

/* Apply the reuse pairs to a view map of the same graph (memplan/liveness.h)
 * as view links output -> input, for planning with in-place reuse: a pair is
 * skipped when the input's buffer is read after the node through another
 * view, when a value sharing it is protected, or when the output is already
 * a view. Liveness then gives each pair one buffer. */
memplan_status memplan_inplace_view_links(const memplan_inplace *ctx, memplan_viewmap *vm, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
