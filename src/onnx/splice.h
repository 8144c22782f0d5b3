/*
 * splice.h -- new metadata_props entries for the messages of a model's main
 * graph and of the bodies below it, and optionally a new order of the nodes
 * of each, written into a copy of its wire bytes.
 *
 * The output is the input byte for byte, except inside the main graph
 * (ModelProto.graph, every occurrence of field 7, which protobuf merges):
 * each NodeProto (GraphProto.node), ValueInfoProto (input, output,
 * value_info) and TensorProto (initializer) whose edit matches one of its
 * entries or sets one is written again -- its fields in their order, with
 *  - an entry whose key is set by the edit replaced, the first time the key
 *    is met, by the new entries with that key, and dropped after that;
 *  - an entry whose key the edit removes dropped;
 *  - the new entries not placed so far appended, in order --
 * and only the length prefixes of the rewritten messages and of the
 * GraphProto change. Bodies (graphs in a node's attributes) are edited the
 * same way when their node's edits have them; the node, attribute and graph
 * messages holding an edited body get new length prefixes. A message the edit leaves alone is copied as it is.
 * Keys compare as C strings (up to a NUL byte, as loading reads them).
 *
 * The input is read through a wire source (memory, or a reader a window at a
 * time) in four walks: the prune walk checks the whole model exactly as
 * loading does; a count of the main graph's nodes; a walk that measures the
 * new length of each graph; and the walk that writes into one buffer of the
 * exact size. Tensor data is never read except to be copied, and memory is
 * the output plus O(graph). This knows the wire format and nothing of what
 * the entries mean (src/out/annotate.c builds them).
 */
#ifndef MEMPLAN_ONNX_SPLICE_H
#define MEMPLAN_ONNX_SPLICE_H

#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/model.h"

/* What to do to one message's metadata_props. */
typedef struct mp_meta_edit {
    const memplan_kv *set; /* entries to write, in order */
    size_t n_set;
    const char *const *remove; /* keys whose entries are dropped */
    size_t n_remove;
} mp_meta_edit;

typedef struct mp_splice_edits mp_splice_edits;

/* The edits of one node's bodies: one per graph among its attributes, in
 * the order they come in the node's message (a GRAPH attribute's graph --
 * every occurrence of its `g` field, which protobuf merges -- and each entry
 * of a GRAPHS attribute), as loading counts them (memplan_node.subgraphs). */
typedef struct mp_splice_bodies {
    int32_t n;
    const mp_splice_edits *graphs;
} mp_splice_bodies;

/* The edits of one graph: the model's main graph, or a body. */
struct mp_splice_edits {
    /* Node messages by their index in the file: the graph must have exactly
     * n_nodes of them ("the results are for a graph with N nodes, but the
     * model's graph has M" otherwise), node i gets nodes[i], and its op_type
     * must be op_types[i] when op_types is given. */
    int32_t n_nodes;
    const mp_meta_edit *nodes;
    const char *const *op_types;
    /* Value infos and initializers by name: the first of names[] equal to
     * the message's name gives values[] at its index; a message whose name
     * is not there (or that has none) gets `other` (NULL: left alone). */
    size_t n_values;
    const char *const *names;
    const mp_meta_edit *values;
    const mp_meta_edit *other;
    /* By node file index (n_nodes of them), the edits of its bodies; NULL,
     * or an entry with n 0, leaves a node's bodies as they are. A node with
     * edits for n bodies must have exactly n, and each body the node count
     * and op types its edits give. */
    const mp_splice_bodies *bodies;
    /* NULL, or the node messages in a new order: node_order[i] is the file
     * index of the i-th node written (a permutation of 0..n_nodes-1). They
     * are all written where the first node message of the graph is, and its
     * other node messages (a graph given in several occurrences) are dropped;
     * nothing else moves. A body's messages must number n_nodes. */
    const int32_t *node_order;
};

/* The edited copy of bytes (a serialized ModelProto) in *out, one malloc'ed
 * buffer (free it). Errors: the loader's for malformed bytes, "the model has
 * no graph", the node count and op_type checks above. */
memplan_status mp_splice(const void *bytes, size_t len, const mp_splice_edits *edits, unsigned char **out,
                         size_t *out_len, memplan_error *err);

/* mp_splice reading the model through a reader, window bytes at a time (at
 * least MP_PRUNE_WINDOW_MIN): the same result and errors on the same bytes,
 * whatever the window; "the model changed while it was being annotated" when
 * the reader's bytes change between the walks. */
memplan_status mp_splice_reader(const memplan_reader *reader, size_t window, const mp_splice_edits *edits,
                                unsigned char **out, size_t *out_len, memplan_error *err);

#endif
