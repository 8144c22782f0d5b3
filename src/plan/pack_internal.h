/*
 * pack_internal.h -- what the arena packing files share.
 *
 * All packers work on the same prepared input: aligned sizes and the buffer
 * order by start time. A "decoder" turns a priority order into offsets; the
 * heuristics are decoders fed with fixed orders, and the search feeds them
 * orders it mutates. Decoders count their elementary steps in *work, which
 * is what bounds the search deterministically.
 */
#ifndef MEMPLAN_PLAN_PACK_INTERNAL_H
#define MEMPLAN_PLAN_PACK_INTERNAL_H

#include "plan/plan_internal.h"

typedef struct mp_pack_input {
    const memplan_buffer *bufs;
    size_t n;
    const uint64_t *size;    /* aligned sizes */
    const size_t *by_start;  /* indices sorted by (start, index) */
    uint64_t lower_bound;
} mp_pack_input;

/* ---- greedy best-fit decoder (pack_greedy.c) */

typedef struct mp_greedy mp_greedy;

mp_greedy *mp_greedy_new(const mp_pack_input *in);
void mp_greedy_free(mp_greedy *g);

/* Place buffers one by one in `order`: each goes to the lowest-waste gap
 * (smallest gap that fits, lowest address on ties) between the already
 * placed buffers that are live with it, else on top of them. Writes off[]
 * and returns the arena height. */
uint64_t mp_greedy_decode(mp_greedy *g, const size_t *order, uint64_t *off,
                          uint64_t *work);

/* ---- skyline decoder (pack_skyline.c) */

typedef struct mp_skyline mp_skyline;

mp_skyline *mp_skyline_new(const mp_pack_input *in);
void mp_skyline_free(mp_skyline *s);

/* Bottom-up placement driven by rank[] (lower = placed first when it
 * fits). Writes off[] and returns the arena height; *waste (if not NULL)
 * gets the area (bytes x time) of the holes the packing left. */
uint64_t mp_skyline_decode(mp_skyline *s, const size_t *rank, uint64_t *off,
                           uint64_t *work, double *waste);

/* ---- improvement search (pack_search.c) */

typedef struct mp_search_result {
    uint64_t height;     /* best found, UINT64_MAX when none beat `bound` */
    uint64_t iterations; /* orders evaluated */
} mp_search_result;

/* Simulated annealing over the priority order given by `order` (a
 * permutation, best first), decoded by the skyline. Stops at the lower
 * bound, after budget_ms worth of work, or at the wall-clock budget. Writes
 * the offsets of the best order found into off[] only when its height is
 * below `bound`. false when memory runs out. */
bool mp_search(const mp_pack_input *in, mp_skyline *sky, const size_t *order,
               uint32_t budget_ms, uint64_t seed, uint64_t bound, uint64_t *off,
               mp_search_result *res);

#endif
