/*
 * memplan/release.h -- release lists (docs/semantics.md, "Release lists" and
 * "Reads and last uses"): after which node each value may be freed, read
 * from a computed in-place context (memplan/inplace.h). Arrays are owned by
 * the context; a bad index is MEMPLAN_EUSAGE "node index N is out of range
 * (the graph has M nodes)".
 */
#ifndef MEMPLAN_RELEASE_H
#define MEMPLAN_RELEASE_H

#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The context the results live in (memplan/inplace.h). */
typedef struct memplan_inplace memplan_inplace;

/* Value ids, in referenced() order. */
memplan_status memplan_inplace_release_after(const memplan_inplace *ctx, int32_t node, const int32_t **values,
                                             size_t *n, memplan_error *err);
memplan_status memplan_inplace_not_used_after(const memplan_inplace *ctx, int32_t node, const int32_t **values,
                                              size_t *n, memplan_error *err);
/* Absent when no tags are known: then MEMPLAN_EUSAGE "no value tags are known"
 * (check memplan_inplace_has_tags first). */
memplan_status memplan_inplace_release_after_shape_tag(const memplan_inplace *ctx, int32_t node, const int32_t **values,
                                                       size_t *n, memplan_error *err);
/* Largest position whose referenced() holds the value, -1 when never read. */
memplan_status memplan_inplace_last_use(const memplan_inplace *ctx, int32_t value, int32_t *pos, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
