/*
 * memplan/plan.h -- the planning core: given buffers as (lifetime, size)
 * pairs, decide where each one lives.
 *
 * It knows nothing of ONNX: a buffer is a size in bytes and a HALF-OPEN
 * lifetime [start, end) in abstract time units. A model value live over the
 * inclusive positions [def, last] is the buffer [def, last + 1). Two buffers
 * conflict when their lifetimes intersect (a.start < b.end && b.start < a.end);
 * a buffer ending at t never conflicts with one starting at t.
 *
 * Two kinds of plan:
 *   - slot plan (docs/semantics.md, "Slot plan"): each buffer gets a reusable
 *     slot; the memory needed is the sum of slot capacities;
 *   - arena plan ("Arena plan"): each buffer gets a byte offset in one arena;
 *     the memory needed is the arena size.
 * Both can be checked by a validator that names the buffers at fault
 * (memplan/validate.h).
 *
 * Every function that can fail returns a memplan_status and, given a non-NULL
 * memplan_error, a message naming the buffer index at fault. Nothing aborts.
 * Results own malloc'ed arrays: release them with the matching *_free, which
 * accepts a zeroed or already freed result.
 */
#ifndef MEMPLAN_PLAN_H
#define MEMPLAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One buffer: `size` bytes live over [start, end). Valid when
 * 0 <= start < end. A size of 0 is allowed (it occupies no address). */
typedef struct memplan_buffer {
    uint64_t size;
    int64_t start;
    int64_t end;
} memplan_buffer;

/* ---------------------------------------------------------------- slots */

/* How a buffer chooses among retired slots. */
typedef enum memplan_slot_strategy {
    /* Smallest retired slot whose capacity fits (ties: lowest slot id);
     * else a new slot of exactly the buffer's size. docs/semantics.md, "Slot plan". */
    MEMPLAN_SLOT_BEST_FIT = 0,
    /* A retired slot is reused only by a buffer of exactly its capacity
     * (ties: lowest slot id), the pairing ONNX Runtime's allocation planner
     * makes (by shape and element size there); it frees a slot after its last
     * buffer, so it holds less than the sum of capacities. */
    MEMPLAN_SLOT_EXACT = 1
} memplan_slot_strategy;

/* slot_of[i] of a buffer that has no slot (only in hand-made plans). */
#define MEMPLAN_NO_SLOT SIZE_MAX

typedef struct memplan_slot_plan {
    size_t count;    /* number of buffers */
    size_t *slot_of; /* slot id of each buffer, in input order */
    size_t slot_count;
    uint64_t *slot_bytes; /* capacity of each slot */
    uint64_t naive_bytes; /* sum of buffer sizes */
    uint64_t peak_bytes;  /* sum of slot capacities */
    double savings_ratio; /* 1 - peak/naive; 0 when naive is 0 */
} memplan_slot_plan;

/* Plan slots for n buffers. Buffers are walked by start time; buffers with
 * equal start keep their input order (so give them in output order). A
 * buffer starting at t may take a slot whose holder ended at or before t.
 * Slots never grow. O(n log n). Errors: EINPUT for an invalid buffer,
 * ELIMIT when the sum of sizes overflows 64 bits, ENOMEM. */
memplan_status memplan_plan_slots(const memplan_buffer *bufs, size_t n, memplan_slot_strategy strategy,
                                  memplan_slot_plan *out, memplan_error *err);

void memplan_slot_plan_free(memplan_slot_plan *plan);

/* ----------------------------------------------------------- lower bound */

/* Maximum over time of the sum of live sizes, each rounded up to `align`
 * (a power of two >= 1). No arena can be smaller. O(n log n). */
memplan_status memplan_lower_bound(const memplan_buffer *bufs, size_t n, uint64_t align, uint64_t *out,
                                   memplan_error *err);

/* ----------------------------------------------------------------- arena */

/* Packing heuristics, as bits of memplan_pack_options.heuristics and as the
 * winner reported in memplan_arena_plan.heuristic. */
typedef enum memplan_heuristic {
    MEMPLAN_HEUR_GREEDY_SIZE = 1, /* by size descending, best-fit gap; above
                                   * 4,096 buffers first fit (lowest offset)
                                   * through an interval index, O(log n)
                                   * look-ups per buffer */
    MEMPLAN_HEUR_TIME_FIT = 2,    /* by start (then size desc), best-fit gap */
    MEMPLAN_HEUR_SKYLINE = 4,     /* bottom-up skyline decoder, by size desc */
    MEMPLAN_HEUR_SEARCH = 8,      /* annealing over the skyline priority order,
                                   * forward then on time-reversed buffers;
                                   * above 4,096 buffers squeaky-wheel rounds
                                   * of the first fit near the arena's top */
    /* Not in MEMPLAN_HEUR_ALL: the fallback when buffers overlap so much
     * that the best-fit decoders would be quadratic (the sum over buffers of
     * the buffers live at their start exceeds MEMPLAN_PACK_OVERLAP_MAX, or 8x
     * that when the skyline does not run, as above 50,000 buffers) and so
     * many share their times that the indexed first fit would be too (more
     * than 4,096 with an end in one of its blocks): the best-fit slot plan
     * laid out at aligned prefix sums, O(n log n); the indexed greedy-size
     * still runs after it. Under heavy overlap without such ties only that
     * first fit runs. */
    MEMPLAN_HEUR_SLOT_LAYOUT = 16,
    /* The exact mode: a complete search at a target height in the manner
     * of MiniMalloc, run with the search (it needs MEMPLAN_HEUR_SEARCH too)
     * on up to 2,048 non-zero buffers. It shares the budget: a quarter at
     * the lower bound first, then half to the annealing, then a quarter
     * below the best arena found (each decision tried first along the best
     * packing so far); it proves plans optimal or bounds stronger. */
    MEMPLAN_HEUR_EXACT = 32
} memplan_heuristic;

#define MEMPLAN_HEUR_ALL 47u
#define MEMPLAN_PACK_OVERLAP_MAX 20000000u

/* Default improvement-search budget: a 10k-buffer plan stays under 100 ms. */
#define MEMPLAN_PACK_DEFAULT_BUDGET_MS 20u
#define MEMPLAN_PACK_DEFAULT_ALIGN 64u
/* `memplan pack` (and the WASM mp_pack_csv) default to a second: a packing
 * benchmark is worth the time; the exact mode settles many instances. */
#define MEMPLAN_PACK_CSV_BUDGET_MS 1000u

typedef struct memplan_pack_options {
    uint64_t align;       /* power of two >= 1 (default 64) */
    uint32_t budget_ms;   /* search budget; 0 = heuristics only (default 20) */
    unsigned heuristics;  /* MEMPLAN_HEUR_* bits to try; 0 = ALL. ALL means
                           * time-fit before greedy-size above 4,096
                           * buffers, and only those two above 50,000 */
    uint64_t seed;        /* search PRNG seed (default 1) */
    uint32_t wall_cap_ms; /* safety stop on the wall clock; 0 = 8 x budget + 100 ms.
                             The work count normally ends the search first, so the
                             result does not depend on the machine; tests that
                             compare exact offsets set a large cap. */
} memplan_pack_options;

/* Fill the defaults above. */
void memplan_pack_options_init(memplan_pack_options *opt);

typedef struct memplan_arena_plan {
    size_t count;     /* number of buffers */
    uint64_t *offset; /* offset of each buffer, in input order */
    uint64_t align;
    uint64_t arena_bytes;        /* max(offset + aligned size) */
    uint64_t lower_bound_bytes;  /* memplan_lower_bound() */
    double gap_ratio;            /* arena / lower bound; 1 when both are 0 */
    memplan_heuristic heuristic; /* which one produced the kept offsets */
    uint64_t iterations;         /* candidate orders the search evaluated (above 4,096
                                  * buffers: its squeaky-wheel rounds) */
    /* No arena is lower than this: the lower bound, or more when the exact
     * mode proved a height below it infeasible; arena_bytes when optimal. */
    uint64_t proven_lower_bound_bytes;
    bool optimal; /* arena_bytes == proven_lower_bound_bytes */
} memplan_arena_plan;

/* Give every buffer an offset, a multiple of align, so that buffers with
 * intersecting lifetimes never intersect in [offset, offset + size). Each
 * selected heuristic runs; the smallest arena is kept (ties: the first in
 * enum order). The search then runs while budget and lower bound allow.
 *
 * Determinism: with budget 0 the result depends only on the input. The
 * search is bounded by a work count derived from budget_ms (each budget
 * millisecond buys a fixed number of decoder steps), so the result depends
 * only on input, options and seed (natively and in WebAssembly alike) --
 * unless the machine is so slow that the wall-clock safety cap (8x budget_ms
 * + 100 ms) runs out first. Above 2,048 buffers a millisecond buys fewer
 * steps, and a budget too small for a few full decodes runs no search.
 * Up to 2,048 buffers a budget over 250 ms runs in rounds of 250 ms of
 * work, each an independent search under seeds seed, seed + 2, ..., and
 * keeps the best: the result is never worse than with 250 ms.
 *
 * opt may be NULL (defaults). Errors: EUSAGE for a bad align, EINPUT for an
 * invalid buffer, ELIMIT when the sum of aligned sizes overflows 64 bits. */
memplan_status memplan_pack(const memplan_buffer *bufs, size_t n, const memplan_pack_options *opt,
                            memplan_arena_plan *out, memplan_error *err);

void memplan_arena_plan_free(memplan_arena_plan *plan);

/* Short name of one heuristic: "greedy-size", "time-fit", "skyline",
 * "search"; "unknown" otherwise. */
const char *memplan_heuristic_name(memplan_heuristic h);

/* ------------------------------------------------------------------- CSV */

/* Buffers read from CSV text, with their ids. */
typedef struct memplan_buffer_list {
    size_t count;
    memplan_buffer *buffers;
    char **ids;    /* NUL-terminated id of each buffer */
    char *id_text; /* storage behind ids */
} memplan_buffer_list;

/* Parse the benchmark format: a header line `id,lower,upper,size`, then one
 * buffer per line, lifetime [lower, upper). Lines end in LF or CRLF; empty
 * lines are skipped. Fields are exact: no spaces, no quoting. Rules:
 *   id     non-empty, no '"', unique within the file;
 *   lower  decimal integer, 0 <= lower < upper, fits int64;
 *   upper  decimal integer, fits int64;
 *   size   decimal integer >= 0 (a '-' sign is rejected), fits uint64.
 * A bad line fails the whole read with EINPUT "line N: ..." (1-based). */
memplan_status memplan_csv_read(const char *text, size_t len, memplan_buffer_list *out, memplan_error *err);

void memplan_buffer_list_free(memplan_buffer_list *list);

/* Write `id,lower,upper,size,offset` (header and one line per buffer) as a
 * malloc'ed NUL-terminated string; free() it. */
memplan_status memplan_csv_write(const memplan_buffer_list *list, const uint64_t *offsets, char **text, size_t *len,
                                 memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
