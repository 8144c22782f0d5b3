/*
 * memplan/liveness.h -- live intervals of activation buffers (docs/semantics.md,
 * "Liveness"). A slot plan is checked against them by memplan/validate.h.
 *
 * Positions are node indices in the graph's topological order. A buffer owner
 * is a value a node produces that is not a view (and, when asked, a graph
 * input, live from position 0). Initializers are weights: never owners.
 * A view owns no buffer; every use of a view extends the interval of its root
 * owner, found by following view -> source links. Intervals are inclusive:
 * [definition, last use]. Graph outputs live to the last position. Values that
 * subgraphs read count as used at the node that owns the subgraph.
 *
 * Which values are views is a policy given by the caller as a view map;
 * memplan_viewmap_default() is the usual one (Reshape, Flatten, Squeeze,
 * Unsqueeze, Identity: output 0 views input 0). Liveness never names an op.
 */
#ifndef MEMPLAN_LIVENESS_H
#define MEMPLAN_LIVENESS_H

#include <stdbool.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* view -> source links, one entry per value of a graph (-1: not a view). */
typedef struct memplan_viewmap {
    int32_t n_values;
    int32_t *source;
} memplan_viewmap;

/* An empty map (no views) for a graph. */
memplan_status memplan_viewmap_init(memplan_viewmap *vm, const memplan_graph *g, memplan_error *err);
/* Mark value `view` as a view of value `source`. */
memplan_status memplan_viewmap_add(memplan_viewmap *vm, int32_t view, int32_t source, memplan_error *err);
/* The default policy: output 0 of Reshape, Flatten, Squeeze, Unsqueeze and
 * Identity (default domain) views input 0. */
memplan_status memplan_viewmap_default(memplan_viewmap *vm, const memplan_graph *g, memplan_error *err);
void memplan_viewmap_free(memplan_viewmap *vm);

typedef struct memplan_liveness_options {
    bool include_inputs;          /* graph inputs own buffers, live from 0 */
    const memplan_viewmap *views; /* NULL: no views */
    const uint8_t *external;      /* per value, NULL for none: nonzero when the value's
                                     buffer lives outside this plan (a constant a runtime
                                     folds at load, a body output the parent provides):
                                     it owns nothing, like an initializer */
} memplan_liveness_options;

typedef struct memplan_liveness {
    int32_t n_values;     /* of the graph */
    int32_t n_positions;  /* nodes in the graph */
    int32_t *root;        /* per value: its buffer owner, or -1 when it has none */
    int32_t *start, *end; /* per owner value: inclusive interval; -1 otherwise */
    int32_t n_owners;
    int32_t *owners; /* owners in placement order: inputs, then by
                        defining position and output index */
} memplan_liveness;

memplan_status memplan_liveness_compute(const memplan_graph *g, const memplan_liveness_options *opts,
                                        memplan_liveness *out, memplan_error *err);
void memplan_liveness_free(memplan_liveness *lv);

#ifdef __cplusplus
}
#endif
#endif
