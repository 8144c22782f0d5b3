/*
 * memplan/validate.h -- independent checks of plans: a slot or arena plan
 * against its buffers (the planning core's terms: intervals and sizes), and
 * a slot assignment against the graph it was made for (views, graph outputs).
 * Each names the buffers or values at fault, and shares no code with the
 * planners it checks.
 */
#ifndef MEMPLAN_VALIDATE_H
#define MEMPLAN_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/liveness.h"
#include "memplan/model.h"
#include "memplan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- plans against their buffers --------------------------------------- */

typedef enum memplan_violation_kind {
    MEMPLAN_VIOLATION_NONE = 0,
    MEMPLAN_VIOLATION_BAD_BUFFER,      /* start < 0 or end <= start */
    MEMPLAN_VIOLATION_SLOT_SHARED,     /* two live-overlapping buffers, one slot */
    MEMPLAN_VIOLATION_NO_SLOT,         /* slot_of[i] == MEMPLAN_NO_SLOT */
    MEMPLAN_VIOLATION_UNKNOWN_SLOT,    /* slot_of[i] >= slot_count */
    MEMPLAN_VIOLATION_SLOT_TOO_SMALL,  /* slot capacity < buffer size */
    MEMPLAN_VIOLATION_MISALIGNED,      /* offset not a multiple of align */
    MEMPLAN_VIOLATION_ADDRESS_OVERLAP, /* live-overlapping buffers share bytes */
    MEMPLAN_VIOLATION_BEYOND_ARENA     /* offset + size > arena size */
} memplan_violation_kind;

/* What validation found: the kind and the buffer indices involved (`other`
 * is SIZE_MAX when only one buffer is at fault). */
typedef struct memplan_violation {
    memplan_violation_kind kind;
    size_t buffer;
    size_t other;
} memplan_violation;

/* Check a slot plan against its buffers. Returns MEMPLAN_OK, or EINPUT with
 * the first violation found in *v (may be NULL) and in err. O(n log n). */
memplan_status memplan_validate_slots(const memplan_buffer *bufs, size_t n, const memplan_slot_plan *plan,
                                      memplan_violation *v, memplan_error *err);

/* Check offsets (one per buffer) against the buffers: aligned, inside
 * arena_bytes, no two live-overlapping buffers sharing a byte (zero-size
 * buffers share none). Sweep over time with an ordered set of live address
 * ranges: O(n log n). Returns MEMPLAN_OK or EINPUT as above; EUSAGE for a
 * bad align. */
memplan_status memplan_validate_arena(const memplan_buffer *bufs, size_t n, const uint64_t *offsets, uint64_t align,
                                      uint64_t arena_bytes, memplan_violation *v, memplan_error *err);

/* ---- a slot assignment against the graph -------------------------------- */

typedef enum memplan_graph_violation {
    MEMPLAN_GV_NONE = 0,
    MEMPLAN_GV_USE_OUTSIDE,    /* a value (or a view of it) is used outside its owner's interval */
    MEMPLAN_GV_SHARED_OVERLAP, /* two owners in one slot are live at the same position */
    MEMPLAN_GV_OUTPUT_REUSED   /* a graph output's slot is given to a value defined after it */
} memplan_graph_violation;

/* Check a slot assignment against the graph (docs/semantics.md, "The graph
 * check"), independently of the planner: slot_of[v] is the slot of owner v, -1 for non-owners. Returns
 * MEMPLAN_EINTERNAL with a message naming the values when a rule is broken;
 * *kind (if not NULL) gets which. */
memplan_status memplan_liveness_check_slots(const memplan_graph *g, const memplan_liveness *lv, const int64_t *slot_of,
                                            memplan_graph_violation *kind, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
