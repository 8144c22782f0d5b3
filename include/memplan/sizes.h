/*
 * memplan/sizes.h -- byte sizes of values, with symbolic dims bound by name.
 *
 * Sizes come from shape inference (memplan/shapes.h) under the dims bound
 * (docs/semantics.md, "Sizes and symbolic amounts"). A size is:
 *   KNOWN        all dims known (after bindings): bytes = elems x bits / 8, rounded up;
 *   SYMBOLIC     some dims are names not bound yet (the amount is `expr`);
 *   UNKNOWN      no inferred shape, or an overflow (`reason` says which);
 *   UNPLANNABLE  strings, sequences, maps, optionals, sparse or opaque values:
 *                no static byte size, kept out of the arena ("Unplanned types").
 */
#ifndef MEMPLAN_SIZES_H
#define MEMPLAN_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "memplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct memplan_binding {
    const char *name;
    int64_t value;
} memplan_binding;

typedef enum memplan_size_kind {
    MEMPLAN_SIZE_KNOWN = 0,
    MEMPLAN_SIZE_SYMBOLIC,
    MEMPLAN_SIZE_UNKNOWN,
    MEMPLAN_SIZE_UNPLANNABLE
} memplan_size_kind;

typedef struct memplan_size {
    memplan_size_kind kind;
    uint64_t bytes;     /* KNOWN */
    const char *reason; /* UNKNOWN / UNPLANNABLE: a short static phrase */
    int32_t expr;       /* SYMBOLIC: the byte amount (a memplan_expr of the
                           shapes' pool), else -1 */
} memplan_size;

/* Parse "NAME=VALUE" (VALUE a non-negative integer <= 2^53). */
bool memplan_binding_parse(const char *text, memplan_binding *out, char *name_buf, size_t name_cap);

#ifdef __cplusplus
}
#endif
#endif
