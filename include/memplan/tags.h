/*
 * memplan/tags.h -- value and node tags (docs/semantics.md, "Tags"): which
 * values hold shapes, axes or weights, read from a computed in-place context
 * (memplan/inplace.h).
 *
 * Choices made where the contract is silent: the start tag of a graph input
 * or initializer comes from its metadata in the IR (memplan_value.metadata,
 * then its initializer's): the last `onnx_light.value_tag` entry that is one
 * of shape/axes/weight/ambiguous, or "" for no tag (anything else is
 * ignored); other values' entries are ignored. Concat's "common tag" is the
 * merge of its TAGGED inputs (untagged inputs are ignored; no tagged input:
 * no tag). Binary elementwise ops (for the backward `weight` rule): Add, Sub,
 * Mul, Div, Pow, Mod, And, Or, Xor, BitShift, BitwiseAnd/Or/Xor, Equal, Less,
 * LessOrEqual, Greater, GreaterOrEqual. A node's tag is the merge of its
 * outputs' final tags. "Tags are known" when at least one value has a tag.
 */
#ifndef MEMPLAN_TAGS_H
#define MEMPLAN_TAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "memplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum memplan_tag {
    MEMPLAN_TAG_NONE = 0,
    MEMPLAN_TAG_SHAPE,
    MEMPLAN_TAG_AXES,
    MEMPLAN_TAG_WEIGHT,
    MEMPLAN_TAG_AMBIGUOUS
} memplan_tag;
#define MEMPLAN_TAG_COUNT 5

/* The metadata key of a value's tag: read as a start tag (graph inputs and
 * initializers), written by memplan_annotate. */
#define MEMPLAN_KEY_VALUE_TAG "onnx_light.value_tag"

/* "" for NONE, else "shape", "axes", "weight", "ambiguous". */
const char *memplan_tag_name(memplan_tag tag);
/* Inverse of memplan_tag_name; false for any other text. */
bool memplan_tag_parse(const char *text, memplan_tag *tag);

/* The context the results live in (memplan/inplace.h). */
typedef struct memplan_inplace memplan_inplace;

/* Node `node`'s tag (positions as in memplan/inplace.h); MEMPLAN_EUSAGE
 * when out of range. */
memplan_status memplan_inplace_node_tag(const memplan_inplace *ctx, int32_t node, memplan_tag *tag, memplan_error *err);
/* Value `value`'s tag (ids of the main graph); MEMPLAN_EUSAGE when out of range. */
memplan_status memplan_inplace_value_tag(const memplan_inplace *ctx, int32_t value, memplan_tag *tag,
                                         memplan_error *err);
/* True when at least one value has a tag (release_after_shape_tag exists). */
bool memplan_inplace_has_tags(const memplan_inplace *ctx);

#ifdef __cplusplus
}
#endif
#endif
