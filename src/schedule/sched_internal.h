/*
 * sched_internal.h -- the schedulers' shared form of a problem.
 *
 * memplan_schedule_run compiles the caller's problem once into mp_sched:
 * predecessor and successor lists without duplicates (a reader follows the
 * step that defines what it reads: that edge is added), the buffers each
 * step defines and reads, and per step the bytes it allocates. Every
 * scheduler (heuristics.c, beam.c, exact.c) reads that form, and the
 * simulation below runs one step at a time the same way for all of them.
 */
#ifndef MEMPLAN_SCHEDULE_INTERNAL_H
#define MEMPLAN_SCHEDULE_INTERNAL_H

#include "memplan/schedule.h"

typedef struct mp_sched {
    int32_t n, nb;
    int32_t *pred_start, *pred; /* distinct, ascending */
    int32_t *succ_start, *succ; /* distinct, ascending */
    /* The problem's graph edges (memplan_sched_problem.edge; without them,
     * pred) and their successors: distinct, ascending. ONNX Runtime's order
     * walks these. */
    int32_t *epred_start, *epred, *esucc_start, *esucc;
    int32_t *def_start, *defs; /* buffers each step defines */
    int32_t *rd_start, *rd;    /* buffers each step reads, distinct */
    int32_t *nuse;             /* per buffer: distinct readers */
    int32_t *use_start, *use;  /* per buffer: its distinct readers, ascending */
    uint64_t *bytes;           /* per buffer */
    uint8_t *to_end;           /* per buffer */
    int32_t *def;              /* per buffer */
    uint64_t *alloc;           /* per step: bytes of the buffers it defines */
    uint64_t *trans;           /* per step: its transient */
    uint64_t base;             /* buffers live from the start */
    uint64_t base_dead;        /* of those, the ones nothing reads (dead after position 0) */
    const int32_t *rank;       /* the problem's (borrowed), or NULL */
} mp_sched;

/* The work budget of the searches: units per millisecond of budget_ms. */
#define MP_SCHED_WORK_PER_MS 80000u

memplan_status mp_sched_compile(const memplan_sched_problem *p, mp_sched *s, memplan_error *err);
void mp_sched_free(mp_sched *s);

/* The lower bound under a topological order (not checked). */
uint64_t mp_sched_eval(const mp_sched *s, const int32_t *order, int32_t *pos_scratch, uint64_t *delta_scratch);

/* One step at a time: the live bytes and the remaining readers per buffer. */
typedef struct mp_sim {
    uint64_t live, peak;
    int32_t *rem; /* per buffer: readers not run yet */
    int32_t done; /* steps run */
} mp_sim;

/* Bytes live while step v runs, after the steps run so far. */
static inline uint64_t mp_sim_mem(const mp_sched *s, const mp_sim *m, int32_t v) {
    return m->live + s->alloc[v] + s->trans[v];
}
/* Bytes freed once step v has run. */
uint64_t mp_sim_freed(const mp_sched *s, const mp_sim *m, int32_t v);
/* Run step v: update live, peak and the readers left. */
void mp_sim_run(const mp_sched *s, mp_sim *m, int32_t v);
void mp_sim_start(const mp_sched *s, mp_sim *m);

/* The heuristics (heuristics.c): each fills order[0..n). ENOMEM only. */
memplan_status mp_sched_greedy(const mp_sched *s, int32_t *order, memplan_error *err);
memplan_status mp_sched_dfs(const mp_sched *s, bool heavy_first, int32_t *order, memplan_error *err);
memplan_status mp_sched_forward(const mp_sched *s, int32_t *order, memplan_error *err);
memplan_status mp_sched_onnxruntime(const mp_sched *s, int32_t *order, memplan_error *err);
/* A numbering of the steps (a topological order) under which ONNX Runtime's
 * order has the lowest lower bound of the candidates tried, the order it
 * gives and that bound (memplan_schedule_onnxruntime_numbering). */
memplan_status mp_sched_onnxruntime_numbering(const mp_sched *s, int32_t *numbering, int32_t *order, uint64_t *peak,
                                              memplan_error *err);

/* Beam search (beam.c) under *work units; *ran false when the width would
 * be below 2 (order untouched). */
memplan_status mp_sched_beam(const mp_sched *s, uint64_t work, int32_t *order, bool *ran, memplan_error *err);

/* Exact search (exact.c): per segment between cut steps, the best of the
 * candidate orders (n_cand full orders of the problem) or, where the dynamic
 * program finishes within *work, an optimal order. *exact: every segment was
 * solved exactly. */
memplan_status mp_sched_exact(const mp_sched *s, const int32_t *const *cand, size_t n_cand, uint64_t work,
                              int32_t *order, bool *exact, memplan_error *err);

#endif
