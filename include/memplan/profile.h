/*
 * memplan/profile.h -- the memory seen while each node runs (docs/semantics.md,
 * "Profile"): what is live, what the node allocates, by bucket and tag, read
 * from a computed in-place context (memplan/inplace.h).
 *
 * Choices made where the contract is silent: a value whose byte size is
 * unknown (no inferred shape, strings, sequences, ...) contributes nothing;
 * an amount that overflows is NONE (printed null). Graph inputs that are also
 * initializers (IR < 4) count once, as initializers.
 */
#ifndef MEMPLAN_PROFILE_H
#define MEMPLAN_PROFILE_H

#include <stdint.h>

#include "memplan/error.h"
#include "memplan/expr.h"
#include "memplan/tags.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum memplan_bucket {
    MEMPLAN_BUCKET_INPUTS = 0,
    MEMPLAN_BUCKET_INITIALIZERS,
    MEMPLAN_BUCKET_INTERMEDIATES,
    MEMPLAN_BUCKET_OUTPUTS
} memplan_bucket;
#define MEMPLAN_BUCKET_COUNT 4

/* "inputs", "initializers", "intermediates", "outputs". */
const char *memplan_bucket_name(memplan_bucket b);

/* The memory seen while one node runs. Amounts are handles in
 * the shapes' pool: constants or symbolic expressions; 0 for an empty cell. */
typedef struct memplan_profile {
    memplan_expr total_bytes;
    memplan_expr already_allocated_bytes;                         /* inputs + initializers + intermediates */
    memplan_expr output_allocation_bytes;                         /* outputs */
    memplan_expr bucket[MEMPLAN_BUCKET_COUNT][MEMPLAN_TAG_COUNT]; /* [bucket][tag] */
} memplan_profile;

/* The context the results live in (memplan/inplace.h). */
typedef struct memplan_inplace memplan_inplace;

/* Node `node`'s profile; MEMPLAN_EUSAGE when out of range. */
memplan_status memplan_inplace_node_profile(const memplan_inplace *ctx, int32_t node, const memplan_profile **profile,
                                            memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
