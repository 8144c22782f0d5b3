/*
 * memplan/sizes.h -- byte sizes of values, with symbolic dims bound by name.
 *
 * Until the shape-inference stage lands, sizes come from the declared types
 * (graph inputs/outputs, value_info, initializers). A size is:
 *   KNOWN        all dims known (after bindings): bytes = elems x bits / 8, rounded up;
 *   SYMBOLIC     some dims are names not bound yet (listed in `dims`);
 *   UNKNOWN      no type, unknown rank, an anonymous dim, or an overflow;
 *   UNPLANNABLE  strings, sequences, maps, optionals, sparse or opaque values:
 *                no static byte size, kept out of the arena (SEMANTICS §1).
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
    uint64_t bytes;          /* KNOWN */
    const char *reason;      /* UNKNOWN / UNPLANNABLE: a short static phrase */
    int32_t rank;            /* SYMBOLIC from a declared type: the unbound dims are */
    const memplan_dim *dims; /* the PARAM dims of this shape without a binding */
    int32_t expr;            /* SYMBOLIC from shape inference: the byte amount (a
                                memplan_expr of the shapes' pool), else -1 */
} memplan_size;

/* Size of a value of type t under the bindings. */
memplan_size memplan_type_size(const memplan_type *t, const memplan_binding *bindings, size_t n_bindings);

/* Parse "NAME=VALUE" (VALUE a non-negative integer <= 2^53). */
bool memplan_binding_parse(const char *text, memplan_binding *out, char *name_buf, size_t name_cap);

#ifdef __cplusplus
}
#endif
#endif
