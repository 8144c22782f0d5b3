/*
 * dims.h -- the dim names of one shape inference: which the user can bind
 * (the main graph's input dims), and which inference made up (fresh
 * "unk__N" dims, each with the node where it was born).
 *
 * A fresh name never equals a dim name the model declares (tf2onnx writes
 * "unk__314" as a dim_param: that one is the model's own and bindable), so
 * "is this name internal" has one answer.
 */
#ifndef MEMPLAN_SHAPES_DIMS_H
#define MEMPLAN_SHAPES_DIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/shapes.h"
#include "util/arena.h"
#include "util/strmap.h"

typedef struct mp_dim_birth {
    const char *name;
    int32_t graph;      /* graph id */
    int32_t node;       /* position in that graph, -1 when declared without a size */
    bool data;          /* data-dependent (NonZero's count, ...) */
    memplan_expr bound; /* data: an upper bound, or NONE */
} mp_dim_birth;

typedef struct mp_dims {
    mp_arena *arena; /* the inference's (borrowed) */
    memplan_expr_pool *pool;
    mp_strmap declared; /* "unk__*" names the model declares */
    mp_strmap fresh;    /* fresh name -> index in births */
    mp_dim_birth *births;
    size_t n_births, cap_births;
    int64_t next;              /* the next N to try */
    memplan_input_dim *inputs; /* bindable dims, first appearance order */
    size_t n_inputs, cap_inputs;
    mp_strmap input_names;        /* name -> index in inputs */
    const memplan_graph **graphs; /* by id */
    int32_t n_graphs;
    size_t *data; /* indices of the data-dependent births */
    size_t n_data, cap_data;
} mp_dims;

/* Collects the declared names of every graph of m; false when memory runs out. */
bool mp_dims_init(mp_dims *d, mp_arena *arena, memplan_expr_pool *pool, const memplan_model *m);
void mp_dims_free(mp_dims *d);
/* A new fresh dim born at (graph, node); NONE when memory runs out. */
memplan_expr mp_dims_fresh(mp_dims *d, int32_t graph, int32_t node);
/* The last fresh dim is data-dependent, with bound (NONE: none known);
 * false when memory runs out. */
bool mp_dims_mark_data(mp_dims *d, memplan_expr bound);
/* The birth of a fresh dim named name (raw or escaped), or NULL. */
const mp_dim_birth *mp_dims_birth(const mp_dims *d, const char *name);
/* Record a bindable input dim (once per name); false when memory runs out. */
bool mp_dims_add_input(mp_dims *d, const char *name, const char *input, int32_t axis);
/* The input dim named name (raw or escaped), or NULL. */
const memplan_input_dim *mp_dims_input(const mp_dims *d, const char *name);

#endif
