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
    int32_t *rank; /* the nodes' file indices, when they are not their positions; else NULL */
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

/* The order chosen for one body during one memplan_plan_model call. A body's
 * plan does not depend on its parent's order, and a parent is planned more
 * than once (file order, then the order found), so each body is scheduled
 * once and its choice replayed. */
typedef struct mp_order_memo_entry {
    const memplan_graph *g; /* the body as loaded */
    bool all_file;          /* best kept the file order, in the body and below it */
    int32_t *order;         /* the body's nodes in order; NULL: the file's */
    memplan_order_kind kind;
    bool exact;
    memplan_plan_figures file[MEMPLAN_STRATEGY_COUNT];
} mp_order_memo_entry;

typedef struct mp_order_memo {
    mp_order_memo_entry *e;
    size_t n, cap;
} mp_order_memo;

/* The entry of g, or NULL. */
const mp_order_memo_entry *mp_order_memo_find(const mp_order_memo *m, const memplan_graph *g);
/* Add e, its order (g->n_nodes entries) copied. */
memplan_status mp_order_memo_put(mp_order_memo *m, const mp_order_memo_entry *e, memplan_error *err);
void mp_order_memo_free(mp_order_memo *m);

#endif
