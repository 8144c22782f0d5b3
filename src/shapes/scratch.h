/*
 * scratch.h -- the temporary memory of one shape inference.
 *
 * Rules need arrays as long as a rank (up to MEMPLAN_MAX_RANK dims) or an
 * element list (up to MEMPLAN_MAX_TRACKED_ELEMS values) while they run. On
 * the stack those made frames of 20-80 KB, in functions that recurse once
 * per subgraph level; here they come from a stack of blocks the inference
 * owns instead. The driver marks the top before a rule and releases back to
 * the mark after it, so what a rule takes lives until the rule returns, and
 * the rules of a subgraph it infers take and give back above it. Blocks are
 * kept for reuse until the inference is freed: a steady inference allocates
 * nothing per node.
 */
#ifndef MEMPLAN_SHAPES_SCRATCH_H
#define MEMPLAN_SHAPES_SCRATCH_H

#include <stddef.h>

typedef struct mp_scratch_block mp_scratch_block;

typedef struct mp_scratch {
    mp_scratch_block *first; /* blocks in stack order */
    mp_scratch_block *top;   /* the block allocations come from; NULL before the first */
} mp_scratch;

/* A position to release back to. */
typedef struct mp_scratch_mark {
    mp_scratch_block *block;
    size_t used;
} mp_scratch_mark;

void mp_scratch_init(mp_scratch *s);
void mp_scratch_free(mp_scratch *s);
/* count * size bytes, 16-byte aligned, not zeroed (at least one byte, so
 * never NULL for a count of 0). NULL when memory runs out or the size
 * overflows. */
void *mp_scratch_alloc(mp_scratch *s, size_t count, size_t size);
mp_scratch_mark mp_scratch_top(const mp_scratch *s);
/* Give back everything allocated since the mark m. */
void mp_scratch_release(mp_scratch *s, mp_scratch_mark m);

#endif
