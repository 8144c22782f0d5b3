/*
 * beam.c -- beam search over ready sets.
 *
 * A state is a prefix of an order (the steps run, their live bytes and peak).
 * Each round extends every state of the beam by every ready step and keeps
 * the `width` best children: lowest peak so far, then fewest live bytes, then
 * the parent's rank and the step number (so the search is deterministic).
 * Two children that have run the same set of steps are the same state as far
 * as the future goes; only the better is kept (sets compared by a Zobrist
 * hash). Width 1 would be a greedy scheduler by peak; the width is what the
 * work budget buys: each round costs about width x steps x (steps + buffers).
 */
#include <stdlib.h>
#include <string.h>

#include "schedule/sched_internal.h"

#define BEAM_MAX_WIDTH 16

typedef struct bstate {
    int32_t *indeg; /* -1 once run */
    int32_t *order; /* the prefix */
    mp_sim sim;
    uint64_t hash;
} bstate;

typedef struct cand {
    uint64_t peak, live, hash;
    int32_t parent, step;
} cand;

static int cmp_cand(const void *a, const void *b) {
    const cand *x = a, *y = b;
    if (x->peak != y->peak) return x->peak < y->peak ? -1 : 1;
    if (x->live != y->live) return x->live < y->live ? -1 : 1;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    return (x->step > y->step) - (x->step < y->step);
}

static uint64_t zobrist(int32_t v) { /* splitmix64 of the step number */
    uint64_t z = (uint64_t)v * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* One pool of width states, each with its arrays carved from one block. */
static bstate *pool_new(int32_t width, int32_t n, int32_t nb, int32_t **block) {
    size_t per = 2 * (size_t)n + (size_t)nb + 1;
    bstate *p = calloc((size_t)width, sizeof *p);
    *block = malloc((size_t)width * per * sizeof **block);
    if (!p || !*block) {
        free(p), free(*block);
        *block = NULL;
        return NULL;
    }
    for (int32_t i = 0; i < width; i++) {
        int32_t *at = *block + (size_t)i * per;
        p[i].indeg = at;
        p[i].order = at + n;
        p[i].sim.rem = at + 2 * (size_t)n;
    }
    return p;
}

/* dst = src extended by step v. */
static void extend(const mp_sched *s, const bstate *src, bstate *dst, int32_t v) {
    int32_t n = s->n;
    memcpy(dst->indeg, src->indeg, (size_t)n * sizeof *dst->indeg);
    memcpy(dst->order, src->order, (size_t)src->sim.done * sizeof *dst->order);
    memcpy(dst->sim.rem, src->sim.rem, (size_t)s->nb * sizeof *dst->sim.rem);
    int32_t *rem = dst->sim.rem;
    dst->sim = src->sim;
    dst->sim.rem = rem;
    dst->hash = src->hash ^ zobrist(v);
    dst->order[dst->sim.done] = v;
    mp_sim_run(s, &dst->sim, v);
    dst->indeg[v] = -1;
    for (int32_t i = s->succ_start[v]; i < s->succ_start[v + 1]; i++) dst->indeg[s->succ[i]]--;
}

memplan_status mp_sched_beam(const mp_sched *s, uint64_t work, int32_t *order, bool *ran, memplan_error *err) {
    int32_t n = s->n;
    *ran = false;
    uint64_t round = (uint64_t)n * (3 * (uint64_t)n + (uint64_t)s->nb + 8) + 1;
    uint64_t w = work / round;
    if (w < 2 || n < 2) return MEMPLAN_OK;
    int32_t width = w > BEAM_MAX_WIDTH ? BEAM_MAX_WIDTH : (int32_t)w;
    int32_t *blk_a = NULL, *blk_b = NULL;
    bstate *cur = pool_new(width, n, s->nb, &blk_a), *nxt = pool_new(width, n, s->nb, &blk_b);
    cand *cs = malloc((size_t)width * (size_t)n * sizeof *cs);
    if (!cur || !nxt || !cs) {
        free(cur), free(nxt), free(blk_a), free(blk_b), free(cs);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    mp_sim_start(s, &cur[0].sim);
    for (int32_t v = 0; v < n; v++) cur[0].indeg[v] = s->pred_start[v + 1] - s->pred_start[v];
    cur[0].hash = 0;
    int32_t live_states = 1;
    for (int32_t level = 0; level < n; level++) {
        size_t nc = 0;
        for (int32_t i = 0; i < live_states; i++) {
            const bstate *st = &cur[i];
            for (int32_t v = 0; v < n; v++) {
                if (st->indeg[v] != 0) continue;
                uint64_t at = mp_sim_mem(s, &st->sim, v);
                uint64_t live = st->sim.live + s->alloc[v] - mp_sim_freed(s, &st->sim, v);
                cs[nc++] = (cand){at > st->sim.peak ? at : st->sim.peak, live, st->hash ^ zobrist(v), i, v};
            }
        }
        qsort(cs, nc, sizeof *cs, cmp_cand);
        int32_t kept = 0;
        for (size_t c = 0; c < nc && kept < width; c++) {
            bool dup = false;
            for (int32_t j = 0; j < kept && !dup; j++) dup = nxt[j].hash == cs[c].hash;
            if (dup) continue;
            extend(s, &cur[cs[c].parent], &nxt[kept++], cs[c].step);
        }
        bstate *t = cur;
        cur = nxt;
        nxt = t;
        live_states = kept;
    }
    memcpy(order, cur[0].order, (size_t)n * sizeof *order); /* sorted: the lowest peak first */
    *ran = true;
    free(cur), free(nxt), free(blk_a), free(blk_b), free(cs);
    return MEMPLAN_OK;
}
