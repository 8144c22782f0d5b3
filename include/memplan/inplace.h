/*
 * memplan/inplace.h -- in-place reuse, release lists, value tags, the per-node
 * memory profile and the decision log (seed 001, SEMANTICS §5-8, §10). Writing
 * them into a model (§9) is memplan/annotate.h.
 *
 * Everything is computed once, for the MAIN graph of a model, into a context:
 *
 *   memplan_shapes *S;   memplan_shapes_infer(m, &S, &err);
 *   memplan_inplace_options o = {0};  o.allow_input_overwrite = true;
 *   memplan_inplace *ctx;  memplan_inplace_compute(m, S, &o, &ctx, &err);
 *   ... memplan_inplace_node_reuse(ctx, i, &items, &n, &err) ...
 *   memplan_inplace_free(ctx);  memplan_shapes_free(S);  memplan_model_free(m);
 *
 * The context borrows the model and the shapes (their pool holds the profile's
 * amounts): free it before them. Positions are the IR's node order (the
 * topological order, SEMANTICS §1); node i's place in the file is
 * m->graph->nodes[i].file_index. Value ids are ids of m->graph.
 *
 * Choices made where SEMANTICS is silent:
 *  - Types and sizes come from shape inference (memplan_shapes_value). A value
 *    "has an inferred type" when it is a tensor with a known element type.
 *    "Identical dims" = same rank and equal memplan_expr handles per dim (the
 *    pool is canonical, so symbolic dims compare by name); "identical byte-size
 *    expressions" = equal bytes handles.
 *  - Profile: a value whose byte size is unknown (no inferred shape, strings,
 *    sequences, ...) contributes nothing; an amount that overflows is NONE
 *    (printed null). Graph inputs that are also initializers (IR < 4) count once,
 *    as initializers.
 *  - Tags: the start tag of a graph input or initializer comes from its
 *    metadata in the IR (memplan_value.metadata, then its initializer's): the
 *    last `onnx_light.value_tag` entry that is one of shape/axes/weight/
 *    ambiguous, or "" for no tag (anything else is ignored); other values'
 *    entries are ignored. Concat's "common tag" is the merge of its
 *    TAGGED inputs (untagged inputs are ignored; no tagged input: no tag).
 *    Binary elementwise ops (for the backward `weight` rule): Add, Sub, Mul,
 *    Div, Pow, Mod, And, Or, Xor, BitShift, BitwiseAnd/Or/Xor, Equal, Less,
 *    LessOrEqual, Greater, GreaterOrEqual. A node's tag is the merge of its
 *    outputs' final tags. "Tags are known" when at least one value has a tag.
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
#include "memplan/shapes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum memplan_reuse_kind {
    MEMPLAN_REUSE_EQUAL = 0,   /* same size: space-optimal */
    MEMPLAN_REUSE_GREATER = 1  /* the input is strictly larger (concrete sizes only) */
} memplan_reuse_kind;

/* Output output_index of a node may take the buffer of its input input_index
 * (indices into the node's output / input lists). */
typedef struct memplan_reuse {
    int32_t output_index;
    int32_t input_index;
    memplan_reuse_kind kind;
} memplan_reuse;

typedef enum memplan_tag {
    MEMPLAN_TAG_NONE = 0,
    MEMPLAN_TAG_SHAPE,
    MEMPLAN_TAG_AXES,
    MEMPLAN_TAG_WEIGHT,
    MEMPLAN_TAG_AMBIGUOUS
} memplan_tag;
#define MEMPLAN_TAG_COUNT 5

/* The metadata key of a value's tag: read as a start tag (graph inputs and
 * initializers), written by memplan_annotate. */
#define MEMPLAN_KEY_VALUE_TAG "onnx_light.value_tag"

/* "" for NONE, else "shape", "axes", "weight", "ambiguous". */
const char *memplan_tag_name(memplan_tag tag);
/* Inverse of memplan_tag_name; false for any other text. */
bool memplan_tag_parse(const char *text, memplan_tag *tag);
/* "equal" / "greater". */
const char *memplan_reuse_kind_name(memplan_reuse_kind kind);

typedef enum memplan_event_action {
    MEMPLAN_EVENT_INPLACE = 0,          /* "inplace" */
    MEMPLAN_EVENT_RELEASE = 1,          /* "release" */
    MEMPLAN_EVENT_RELEASE_SHAPE_TAG = 2 /* "release_shape_tag" */
} memplan_event_action;

const char *memplan_event_action_name(memplan_event_action action);

/* One decision-log entry (SEMANTICS §10). */
typedef struct memplan_event {
    memplan_event_action action;
    int32_t node_index;
    int32_t value;          /* release*: the value id; inplace: -1 */
    const char *name;       /* release*: its name (model-owned); inplace: NULL */
    int32_t output_index;   /* inplace only, else -1 */
    int32_t input_index;    /* inplace only, else -1 */
    memplan_reuse_kind kind;/* inplace only (EQUAL otherwise) */
} memplan_event;

typedef enum memplan_bucket {
    MEMPLAN_BUCKET_INPUTS = 0,
    MEMPLAN_BUCKET_INITIALIZERS,
    MEMPLAN_BUCKET_INTERMEDIATES,
    MEMPLAN_BUCKET_OUTPUTS
} memplan_bucket;
#define MEMPLAN_BUCKET_COUNT 4

/* "inputs", "initializers", "intermediates", "outputs". */
const char *memplan_bucket_name(memplan_bucket b);

/* The memory seen while one node runs (SEMANTICS §8). Amounts are handles in
 * the shapes' pool: constants or symbolic expressions; 0 for an empty cell. */
typedef struct memplan_profile {
    memplan_expr total_bytes;
    memplan_expr already_allocated_bytes;   /* inputs + initializers + intermediates */
    memplan_expr output_allocation_bytes;   /* outputs */
    memplan_expr bucket[MEMPLAN_BUCKET_COUNT][MEMPLAN_TAG_COUNT]; /* [bucket][tag] */
} memplan_profile;

typedef struct memplan_inplace_options {
    bool allow_input_overwrite; /* graph inputs may be reused (and are "produced" before 0) */
    bool events;                /* record the decision log */
} memplan_inplace_options;

typedef struct memplan_inplace memplan_inplace;

/* Compute every analysis for m's main graph. opts may be NULL (all off). */
memplan_status memplan_inplace_compute(const memplan_model *m, memplan_shapes *shapes,
                                       const memplan_inplace_options *opts, memplan_inplace **out,
                                       memplan_error *err);
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
memplan_status memplan_inplace_node_reuse(const memplan_inplace *ctx, int32_t node,
                                          const memplan_reuse **items, size_t *n, memplan_error *err);
/* Value ids, in referenced() order. */
memplan_status memplan_inplace_release_after(const memplan_inplace *ctx, int32_t node,
                                             const int32_t **values, size_t *n, memplan_error *err);
memplan_status memplan_inplace_not_used_after(const memplan_inplace *ctx, int32_t node,
                                              const int32_t **values, size_t *n, memplan_error *err);
/* Absent when no tags are known: then MEMPLAN_EUSAGE "no value tags are known"
 * (check memplan_inplace_has_tags first). */
memplan_status memplan_inplace_release_after_shape_tag(const memplan_inplace *ctx, int32_t node,
                                                       const int32_t **values, size_t *n,
                                                       memplan_error *err);
memplan_status memplan_inplace_node_tag(const memplan_inplace *ctx, int32_t node, memplan_tag *tag,
                                        memplan_error *err);
memplan_status memplan_inplace_node_profile(const memplan_inplace *ctx, int32_t node,
                                            const memplan_profile **profile, memplan_error *err);

/* Per-value results (ids of the main graph). MEMPLAN_EUSAGE when out of range. */
memplan_status memplan_inplace_value_tag(const memplan_inplace *ctx, int32_t value, memplan_tag *tag,
                                         memplan_error *err);
/* Largest position whose referenced() holds the value, -1 when never read. */
memplan_status memplan_inplace_last_use(const memplan_inplace *ctx, int32_t value, int32_t *pos,
                                        memplan_error *err);
/* Initializers, graph outputs, and graph inputs unless allow_input_overwrite. */
bool memplan_inplace_is_protected(const memplan_inplace *ctx, int32_t value);
/* True when at least one value has a tag (release_after_shape_tag exists). */
bool memplan_inplace_has_tags(const memplan_inplace *ctx);

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
