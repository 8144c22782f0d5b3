/*
 * memplan/annotate.h -- writing the in-place results into a model (docs/semantics.md, "Metadata written into a model").
 *
 *   memplan_inplace *ctx;  ... memplan_inplace_compute(m, S, &o, &ctx, &err) ...
 *   unsigned char *out;  size_t len;
 *   memplan_annotate(bytes, len, ctx, &out, &len, &err);   ... free(out);
 *
 * The results go into the metadata_props of a copy of the model bytes they
 * were computed from:
 *  - on every node of the main graph and of every control-flow body below it
 *    (each body analysed by memplan_inplace_compute_graph with ctx's model,
 *    shapes and options): MEMPLAN_KEY_INPLACE_REUSE
 *    ("out:in:kind;..."), MEMPLAN_KEY_RELEASE_AFTER, MEMPLAN_KEY_NOT_USED_AFTER,
 *    MEMPLAN_KEY_SHAPE_TAG (value names joined by ';', a ';' or '\' inside a
 *    name written "\;" or "\\"), MEMPLAN_KEY_NODE_TAG, each only when non-empty;
 *  - MEMPLAN_KEY_VALUE_TAG (memplan/inplace.h) on the ValueInfoProto entries
 *    that exist (inputs, outputs, value_info) of the main graph and of the
 *    bodies, and on their initializers' TensorProto (none is added).
 * An entry takes the place of the first entry with its key, else it is
 * appended; any other entry with one of these six keys -- left by an earlier
 * annotation, or a repeated one -- is removed. The output is a splice of the input's wire
 * bytes (src/onnx/splice.h): only the touched node, value info and
 * initializer messages and the graph, attribute and node messages holding
 * them are written again (their
 * fields in order, new length prefixes); every other byte -- unknown fields,
 * functions, subgraphs, tensor data -- is copied unchanged. The whole input
 * is checked as loading checks it (errors name a byte offset). Results for a
 * graph with a different node count or other op types are an MEMPLAN_EINPUT
 * error. Annotating the output again with the same results gives the output.
 */
#ifndef MEMPLAN_ANNOTATE_H
#define MEMPLAN_ANNOTATE_H

#include <stddef.h>

#include "memplan/error.h"
#include "memplan/inplace.h"
#include "memplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The node keys (the value key is MEMPLAN_KEY_VALUE_TAG). */
#define MEMPLAN_KEY_INPLACE_REUSE "onnx_light.inplace_reuse"
#define MEMPLAN_KEY_RELEASE_AFTER "onnx_light.release_after"
#define MEMPLAN_KEY_NOT_USED_AFTER "onnx_light.not_used_after"
#define MEMPLAN_KEY_SHAPE_TAG "onnx_light.release_after_shape_tag"
#define MEMPLAN_KEY_NODE_TAG "onnx_light.node_tag"

/* The annotated copy of bytes (a serialized ModelProto). *out is one
 * malloc'ed buffer: free it. */
memplan_status memplan_annotate(const void *bytes, size_t len, const memplan_inplace *ctx, unsigned char **out,
                                size_t *out_len, memplan_error *err);

/* memplan_annotate reading the model through a reader, a window (1 MiB) at
 * a time: memory is the output plus O(graph); the result and errors equal
 * memplan_annotate's on the same bytes. */
memplan_status memplan_annotate_reader(const memplan_reader *reader, const memplan_inplace *ctx, unsigned char **out,
                                       size_t *out_len, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
