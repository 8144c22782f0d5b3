/*
 * memplan/schedule.h -- execution orders that lower the peak.
 *
 * The peak of a plan depends on the order its nodes run in. A scheduler here
 * sees a graph as steps (one per node), the steps each must follow, and
 * buffers: bytes, the step that allocates one, the steps that read it, and
 * whether it lives to the end (a graph output). It knows nothing of ops. A
 * control-flow node is one step with a transient: its bodies' memory, live at
 * that step only. See docs/semantics.md, "Execution order".
 *
 * Under an order, buffer b is live from the position of its defining step
 * (0 for a buffer with none: a graph input) to the position of its last
 * reader, inclusive (to the last position when it lives to the end); the
 * lower bound of the order is the most bytes live at one position, transients
 * included -- the plan's lower_bound_bytes when the bytes are the aligned
 * sizes.
 *
 *   memplan_schedule s;
 *   if (memplan_schedule_run(&problem, MEMPLAN_ORDER_BEST, 50, &s, &err)) ...
 *   for (int32_t i = 0; i < s.n_steps; i++) run(step s.order[i]);
 *   memplan_schedule_free(&s);
 *
 * Every scheduler returns a topological order. `best` runs them all and
 * keeps the lowest (the first of file, greedy, dfs, postorder, forward,
 * onnxruntime, beam, exact on a tie), so it is never worse than the file
 * order. onnxruntime is the order ONNX Runtime runs the nodes in (when the
 * steps are numbered as its nodes are: in the file's order). The beam
 * search and the exact search spend a budget counted in work, not time, so
 * the result depends only on the problem and the budget.
 */
#ifndef MEMPLAN_SCHEDULE_H
#define MEMPLAN_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A scheduling problem. Steps are numbered in a topological order (the
 * file's): every predecessor of a step has a smaller number. Lists are CSR:
 * step s follows pred[pred_start[s] .. pred_start[s + 1]); buffer b is read by
 * use[use_start[b] .. use_start[b + 1]), each numbered after the defining step
 * (the edge from it is implied); duplicates are allowed. Read during a call
 * only. */
typedef struct memplan_sched_problem {
    int32_t n_steps;
    const int32_t *pred_start; /* n_steps + 1 entries */
    const int32_t *pred;
    int32_t n_buffers;
    const uint64_t *bytes;    /* per buffer */
    const int32_t *def;       /* per buffer: its defining step, -1 when live from the start */
    const uint8_t *to_end;    /* per buffer, NULL for none: nonzero when live to the end */
    const int32_t *use_start; /* n_buffers + 1 entries */
    const int32_t *use;
    const uint64_t *transient; /* per step, NULL for none: bytes live at that step only */
    /* Per step, NULL for none: its node's index in ONNX Runtime's graph (a
     * permutation of 0..n_steps-1), which ONNX Runtime's order breaks ties
     * by; none: the step's number. */
    const int32_t *rank;
    /* NULL for none, else n_steps + 1 starts: the graph's own edges (each
     * step's predecessors as its graph links them), which ONNX Runtime's
     * order walks; none: pred and the definers of the buffers each step
     * reads. A graph's problem gives them: a step reading a view has its
     * buffer's definer as a predecessor, which the graph does not link. */
    const int32_t *edge_start;
    const int32_t *edge;
} memplan_sched_problem;

/* The schedulers. */
typedef enum memplan_order_kind {
    MEMPLAN_ORDER_FILE = 0,    /* steps by number */
    MEMPLAN_ORDER_GREEDY,      /* list scheduling: the ready step freeing the most bytes net of those it allocates */
    MEMPLAN_ORDER_DFS,         /* depth-first from the sinks, the heaviest input cone first (XLA's DFS) */
    MEMPLAN_ORDER_POSTORDER,   /* depth-first from the sinks, inputs in their listed order */
    MEMPLAN_ORDER_FORWARD,     /* depth-first forward: a step just made ready runs next */
    MEMPLAN_ORDER_ONNXRUNTIME, /* ONNX Runtime's default order: depth-first from the sinks, the last sink and
                                  the highest-numbered predecessor first */
    MEMPLAN_ORDER_BEAM,        /* beam search over ready sets */
    MEMPLAN_ORDER_EXACT,       /* dynamic program over downsets, per segment between cut steps */
    MEMPLAN_ORDER_BEST         /* all of the above; the lowest kept */
} memplan_order_kind;
#define MEMPLAN_ORDER_COUNT 9

/* The default budget of the beam and exact searches. */
#define MEMPLAN_ORDER_DEFAULT_BUDGET_MS 20

typedef struct memplan_schedule {
    memplan_order_kind kind; /* the scheduler that made the order (for best: the winner) */
    int32_t n_steps;
    int32_t *order; /* order[i]: the step at position i */
    uint64_t peak;  /* the lower bound under the order */
    bool exact;     /* the peak is proven the least of any order */
} memplan_schedule;

/* Run one scheduler (or best). The beam and exact searches stop when their
 * share of budget_ms of work is spent: exact then keeps, in each segment it
 * did not finish, the best of the heuristics' orders (exact = false); the
 * beam search returns the greedy order when its width would be below 2.
 * Errors: EINPUT for a malformed problem (naming the step or buffer), ENOMEM. */
memplan_status memplan_schedule_run(const memplan_sched_problem *p, memplan_order_kind kind, uint32_t budget_ms,
                                    memplan_schedule *out, memplan_error *err);

/* The lower bound under an order; EINPUT when it is not a topological order
 * of the problem's steps (naming the step out of place). */
memplan_status memplan_schedule_peak(const memplan_sched_problem *p, const int32_t *order, uint64_t *peak,
                                     memplan_error *err);

void memplan_schedule_free(memplan_schedule *s);

/* A numbering of p's steps -- an order to write the nodes in -- under which
 * ONNX Runtime runs them (its order, MEMPLAN_ORDER_ONNXRUNTIME's rule with the
 * new positions as its node indices) with the lowest lower bound found among:
 * the steps' own numbering; Kahn's algorithm taking first, of the ready steps,
 * the one the greedy, dfs, postorder or forward order runs last (ONNX Runtime
 * expands a step's highest-numbered predecessor first, so it then tends to
 * run them as that order does); and Kahn's taking the highest-numbered first.
 * Never above the steps' own numbering (the first candidate; a later one
 * replaces it only when lower). *numbering: n_steps entries, malloc'ed (the
 * caller frees it), the step at each new position; *out: the order ONNX
 * Runtime then runs and its lower bound (kind MEMPLAN_ORDER_ONNXRUNTIME). */
memplan_status memplan_schedule_onnxruntime_numbering(const memplan_sched_problem *p, int32_t **numbering,
                                                      memplan_schedule *out, memplan_error *err);

/* "file", "greedy", "dfs", "postorder", "forward", "onnxruntime", "beam", "exact", "best". */
const char *memplan_order_name(memplan_order_kind k);
/* The kind named; false for another name. */
bool memplan_order_parse(const char *name, memplan_order_kind *k);

#ifdef __cplusplus
}
#endif
#endif
