/*
 * memplan/trace.h -- a plan as a Chrome/Perfetto trace (`memplan plan --trace`).
 *
 * The trace-event JSON format ("JSON Object Format": {"traceEvents": [...]}),
 * which ui.perfetto.dev and chrome://tracing open. Positions are time: node
 * position p is at p microseconds, and a buffer live over [start, end] lasts
 * from start to end + 1. One process (pid 1) holds:
 *   - three counter tracks (ph "C", tid 0): "live bytes" (the sum of the
 *     aligned sizes of the buffers live at each position; its maximum is the
 *     lower bound), "arena top" (the highest arena byte in use at each
 *     position, offset + aligned size; its maximum is the arena size) and
 *     "lower bound" (flat), each a sample where its value changes and a
 *     last one at the end;
 *   - one track per best-fit slot (tid = slot + 1, named "slot N (B bytes)")
 *     with one complete event (ph "X") per buffer in that slot: the value's
 *     name, and in args its size, arena offset, slot, first and last
 *     positions, and the op and node producing it. A control-flow node's
 *     transient buffer (its bodies' memory) is named "NODE body".
 * Only the main graph's buffers are events; a body's memory is its node's
 * transient buffer. The trace of a deferred plan is refused.
 */
#ifndef MEMPLAN_TRACE_H
#define MEMPLAN_TRACE_H

#include <stddef.h>

#include "memplan/error.h"
#include "memplan/model_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The trace of a planned plan, malloc'ed into *out (free it). Errors:
 * MEMPLAN_EUSAGE for a deferred plan (naming the dims to bind), ENOMEM. */
memplan_status memplan_plan_trace_json(const memplan_model_plan *p, char **out, size_t *len, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
