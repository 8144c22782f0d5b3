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

#include <string.h>

#include "plan/plan_internal.h"

typedef struct mp_pack_input {
    const memplan_buffer *bufs;
    size_t n;
    const uint64_t *size;   /* aligned sizes */
    const size_t *by_start; /* indices sorted by (start, index) */
    uint64_t lower_bound;
} mp_pack_input;

/* First index of the ascending a[0..n) whose element is >= t. */
static inline size_t mp_first_at_least(const int64_t *a, size_t n, int64_t t) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < t) lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The gcd of the non-zero sizes (aligned sizes: a multiple of the align), or
 * `none` when every size is 0. Every offset of a packing dropped as low as it
 * goes is a sum of sizes, so the lowest height is a multiple of it. */
static inline uint64_t mp_size_gcd(const uint64_t *size, size_t n, uint64_t none) {
    uint64_t g = 0;
    for (size_t i = 0; i < n && g != 1; i++)
        for (uint64_t a = size[i]; a != 0;) {
            uint64_t r = g % a;
            g = a;
            a = r;
        }
    return g ? g : none;
}

/* ---- greedy best-fit decoder (pack_greedy.c) */

typedef struct mp_greedy mp_greedy;

/* tree: also the arrays of mp_greedy_decode (a segment tree, ~32 B a
 * buffer), which mp_greedy_decode_by_start does without. NULL: ENOMEM. */
mp_greedy *mp_greedy_new(const mp_pack_input *in, bool tree);
void mp_greedy_free(mp_greedy *g);

/* Place buffers one by one in `order`: each goes to the lowest-waste gap
 * (smallest gap that fits, lowest address on ties) between the already
 * placed buffers that are live with it, else on top of them. Writes off[]
 * and returns the arena height. g made with tree. */
uint64_t mp_greedy_decode(mp_greedy *g, const size_t *order, uint64_t *off, uint64_t *work);
/* The same placement for an order sorted by start (the time-ordered best
 * fit), without the segment tree: the same offsets, in O(k) per buffer for
 * k buffers live at its start. */
uint64_t mp_greedy_decode_by_start(mp_greedy *g, const size_t *order, uint64_t *off, uint64_t *work);
/* The same placement in legs: places the buffers of `order` from where the
 * last call on g stopped (the first, on a fresh g: from the start) until
 * every one is placed or the height passes `limit` (the buffer that passed
 * it is placed). true: all placed at a height <= limit; *height the highest
 * top so far either way. A later call with a higher limit goes on where
 * this one stopped, so a run that no longer needs finishing costs only
 * the part done. */
bool mp_greedy_by_start_until(mp_greedy *g, const size_t *order, uint64_t *off, uint64_t limit, uint64_t *height,
                              uint64_t *work);

/* ---- first fit through an interval index (pack_firstfit.c) */

/* Each buffer's start and end as ranks among the distinct times
 * (mp_time_ranks), made once for the several users of one pack. */
typedef struct mp_times {
    size_t *lo, *hi;
    size_t distinct;
} mp_times;
bool mp_times_init(mp_times *t, const memplan_buffer *bufs, size_t n); /* false: ENOMEM, t freed */
void mp_times_free(mp_times *t);

/* Place buffers one by one in `order`, each at the lowest offset where it
 * meets no placed buffer live with it (TFLite Micro's greedy rule, fed with
 * size descending), in O(log n) set look-ups per buffer instead of a walk
 * of its conflicts. Writes off[] and *height. false: ENOMEM. */
/* times: in->bufs's (mp_times_init), or NULL to make them here. */
bool mp_first_fit(const mp_pack_input *in, const mp_times *times, const size_t *order, uint64_t *off, uint64_t *height,
                  uint64_t *work);

/* A pressure key's band (pack.c's pressure orders, pack_squeaky.c's
 * boosted ones): its exponent and two leading mantissa bits. The keys are
 * non-negative doubles, whose bit patterns order as they do: a band is
 * below 2^13 (bits 50-62). */
_Static_assert(sizeof(double) == sizeof(uint64_t), "a key is 64 bits");
static inline uint64_t mp_pressure_band(double key) {
    uint64_t bits;
    memcpy(&bits, &key, sizeof bits);
    return bits >> 50;
}

/* The same, the first `pinned` buffers of the order kept at their offsets
 * in off[] (obstacles, which must not overlap one another) and the rest
 * placed around them. */
bool mp_first_fit_around(const mp_pack_input *in, const mp_times *times, const size_t *order, size_t pinned,
                         uint64_t *off, uint64_t *height, uint64_t *work);

/* Squeaky-wheel rounds of the first fit near the arena's top
 * (pack_squeaky.c), from the plan off[] of height *height: key holds the
 * buffers' pressure keys. The lowest plan found goes to off[] and *height.
 * Stops after `quota` steps (counted into *work) or at the mp_now_ms()
 * deadline (0: none); the rounds run are added to *rounds. false: out of
 * memory (off[] is then still a valid plan of height *height). */
bool mp_squeaky(const mp_pack_input *in, const mp_times *times, const double *key, uint64_t *off, uint64_t *height,
                uint64_t quota, double deadline, uint64_t *rounds, uint64_t *work);

/* The longest of the first fit's per-block lists (the buffers with an end
 * inside one leaf block), which each placement there scans: a few hundred
 * on random and model-like sets of any size, n when n buffers share their
 * times. false: ENOMEM. */
bool mp_first_fit_lists(const mp_pack_input *in, const mp_times *times, size_t *most);
/* The same index, each buffer at its best fit: the smallest gap that holds
 * it between the placed buffers live with it (the lowest of equal gaps),
 * else on top of them -- mp_greedy_decode's rule (TFLite GPU's greedy by
 * size, fed with size descending), with zero-size buffers at 0. */
bool mp_best_fit(const mp_pack_input *in, const size_t *order, uint64_t *off, uint64_t *height, uint64_t *work);

/* ---- skyline decoder (pack_skyline.c) */

typedef struct mp_skyline mp_skyline;

mp_skyline *mp_skyline_new(const mp_pack_input *in);
void mp_skyline_free(mp_skyline *s);

/* Bottom-up placement driven by rank[] (lower = placed first when it
 * fits). Writes off[] and returns the arena height; *waste (if not NULL)
 * gets the area (bytes x time) of the holes the packing left. */
uint64_t mp_skyline_decode(mp_skyline *s, const size_t *rank, uint64_t *off, uint64_t *work, double *waste);

/* Incremental decoding, for the search. A trace records one decode: the
 * buffer placed at each step, the valley it went into, and every
 * `every` placements a checkpoint of the skyline (its segments, height and
 * waste). Changing a few ranks leaves the decode unchanged up to the first
 * step where one of the changed buffers could win its valley, so a trial
 * restarts from the checkpoint before that step. */
typedef struct mp_sky_ckpt {
    size_t len, cap; /* the skyline's segments, left to right */
    int64_t *ts;
    uint64_t *h;
    uint64_t height;    /* arena height so far */
    double waste;       /* waste so far */
    uint64_t top_after; /* highest top placed from here on (current trace) */
} mp_sky_ckpt;

typedef struct mp_sky_trace {
    size_t *seq;        /* buffer placed at each step */
    int64_t *vts, *vte; /* the valley [vts, vte) of each step */
    size_t *step_of;    /* step of each buffer */
    uint64_t *off;      /* offset of each buffer */
    mp_sky_ckpt *cp;    /* checkpoint k: after k * every placements */
    size_t ncp;
    uint64_t height; /* final height and waste */
    double waste;
} mp_sky_trace;

/* The annealing cost of a (partial) decode; both terms only grow as the
 * decode goes on. */
static inline double mp_sky_cost(uint64_t height, double waste, double span) { return (double)height + waste / span; }

/* Allocate the two traces (the accepted decode and a trial); a second call
 * keeps them. false: ENOMEM. */
bool mp_skyline_trace_init(mp_skyline *s);

/* Decode from scratch into the accepted trace. false: ENOMEM. */
bool mp_skyline_trace_full(mp_skyline *s, const size_t *rank, double span, uint64_t *work, uint64_t *height,
                           double *waste);

/* With rank[] already changed for buffers x and y (and no other): the first
 * step of the accepted trace whose outcome may change. */
size_t mp_skyline_first_change(const mp_skyline *s, const size_t *rank, size_t x, size_t y);

/* Decode into the trial trace from the checkpoint at or before `step`, for
 * ranks that differ from the current trace's in buffers x and y only. The
 * trial stops early, complete, once it reaches a checkpoint in the same
 * state as the current trace with x and y placed (the rest would be the
 * same); it gives up (false) when the cost passes `limit` on the way, or on
 * ENOMEM (mp_skyline_oom) -- the trial must then not be accepted. */
bool mp_skyline_try(mp_skyline *s, const size_t *rank, size_t x, size_t y, size_t step, double limit, double span,
                    uint64_t *work, uint64_t *height, double *waste);

bool mp_skyline_oom(const mp_skyline *s);

/* Make the complete trial (of that height and waste) the current trace. */
void mp_skyline_accept(mp_skyline *s, uint64_t height, double waste);

const mp_sky_trace *mp_skyline_current(const mp_skyline *s);

/* ---- exact mode (pack_exact.c) */

typedef struct mp_exact mp_exact;

typedef enum mp_exact_status {
    MP_EXACT_FEASIBLE,   /* a packing of the height exists: in off[] */
    MP_EXACT_INFEASIBLE, /* proven: none exists */
    MP_EXACT_UNKNOWN,    /* the quota ran out first */
    MP_EXACT_NOMEM
} mp_exact_status;

/* Tables for the exact search over `in` (which must outlive it); NULL when
 * memory runs out or the instance is too large for them. */
mp_exact *mp_exact_new(const mp_pack_input *in);
void mp_exact_free(mp_exact *x);

/* A wall-clock safety stop for the decisions (mp_now_ms() time; 0: none):
 * reached, a decision ends UNKNOWN. Only a very slow machine reaches it
 * before the quota. */
void mp_exact_set_deadline(mp_exact *x, double deadline);

/* The seed of the restarts' perturbed orders (default 1): the decisions
 * depend only on input, height, quota and seed. */
void mp_exact_set_seed(mp_exact *x, uint64_t seed);

/* The steps per buffer of a stream's turn in a decision (0: the default,
 * TURN_STEPS). Tests make it tiny, so that every search is stopped and
 * taken up again after about each placement. */
void mp_exact_set_turn(mp_exact *x, uint64_t steps_per_buffer);

/* The streams a decision runs (tests): bit k for static order k (0-5),
 * bit 7 for the restarts; 0, the default: all. */
void mp_exact_set_streams(mp_exact *x, unsigned mask);

/* A known packing (offsets by input index, NULL: none) whose canonical
 * order the restarts try first, then perturbed in turn with the static
 * orders; a hinted decision runs the restarts alone. false when memory
 * runs out. */
bool mp_exact_set_hint(mp_exact *x, const uint64_t *off);

/* Is there a packing of height <= h? Spends at most about `quota` steps,
 * counted in *work; on FEASIBLE writes every buffer's offset to off[]. */
mp_exact_status mp_exact_decide(mp_exact *x, uint64_t h, uint64_t quota, uint64_t *work, uint64_t *off);

/* ---- improvement search (pack_search.c) */

typedef struct mp_search_result {
    uint64_t height;     /* best found, UINT64_MAX when none beat `bound` */
    uint64_t iterations; /* orders evaluated */
    uint64_t work;       /* decoder steps spent */
} mp_search_result;

/* Wall clock in milliseconds (the search's safety cap only). */
double mp_now_ms(void);

/* Simulated annealing over the priority order given by `order` (a
 * permutation, best first), decoded by the skyline. Stops at the lower
 * bound, after `quota` decoder steps, or at the wall-clock `deadline`
 * (mp_now_ms). Writes the offsets of the best order found into off[] only
 * when its height is below `bound`. false when memory runs out. */
bool mp_search(const mp_pack_input *in, mp_skyline *sky, const size_t *order, uint64_t quota, double deadline,
               uint64_t seed, uint64_t bound, uint64_t *off, mp_search_result *res);

#endif
