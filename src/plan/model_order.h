/*
 * model_order.h -- a planned graph as a scheduling problem, and a graph with
 * its nodes in another order (for plans under an order, model_plan.c).
 */
#ifndef MEMPLAN_PLAN_MODEL_ORDER_H
#define MEMPLAN_PLAN_MODEL_ORDER_H

#include "memplan/model_plan.h"
#include "memplan/schedule.h"

/* The problem and the arrays behind it. */
typedef struct mp_order_problem {
    memplan_sched_problem p;
    int32_t *pred_start, *pred, *use_start, *use, *def;
    uint64_t *bytes, *trans;
    uint8_t *to_end;
} mp_order_problem;

/* Steps: the plan's nodes. Buffers: its owners' buffers, at their aligned
 * sizes, read by every node that reads the owner or a view of it (inputs and
 * captures), living to the end when a graph output is one of them; each
 * control-flow node's transient at its step. Under the plan's own order the
 * problem's lower bound is the arena's lower_bound_bytes. The plan must be
 * planned (not deferred). */
memplan_status mp_order_problem_build(const memplan_model_plan *p, mp_order_problem *q, memplan_error *err);
void mp_order_problem_free(mp_order_problem *q);

/* g's nodes in order (order[i]: the node at position i, a topological
 * order), every value's producer renumbered; the rest of g shared. */
typedef struct mp_graph_copy {
    memplan_graph g;
    memplan_node *nodes;
    memplan_value *values;
} mp_graph_copy;

memplan_status mp_order_graph(const memplan_graph *g, const int32_t *order, mp_graph_copy *out, memplan_error *err);
void mp_graph_copy_free(mp_graph_copy *c);

#endif
