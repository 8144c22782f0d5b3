/*
 * prune.h -- a checked copy of ModelProto bytes without large tensor data.
 *
 * Before protobuf-c parses a model, prune walks the wire format once, guided
 * by the generated descriptors: it checks every tag, length and wire type,
 * bounds the message nesting depth (so protobuf-c's recursive parser never
 * meets absurd nesting), and drops the data fields of TensorProto messages
 * that are longer than MEMPLAN_TENSOR_DATA_MAX bytes. Memory for the parsed
 * model is then O(graph), not O(weights). Errors name the byte offset.
 */
#ifndef MEMPLAN_ONNX_PRUNE_H
#define MEMPLAN_ONNX_PRUNE_H

#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/model.h"
#include "util/buf.h"

/* Write the pruned copy of a ModelProto into out (NULL: only check the
 * bytes, with the same errors). *dropped counts the bytes of tensor data
 * left out. */
memplan_status mp_prune_model(const uint8_t *bytes, size_t len, mp_buf *out, uint64_t *dropped, memplan_error *err);

/* The same walk keeping tensor data up to data_max bytes (UINT64_MAX: all of
 * it): a checked copy that protobuf-c can unpack safely (nesting bounded,
 * empty packed fields, which hold nothing, left out). */
memplan_status mp_clean_model(const uint8_t *bytes, size_t len, uint64_t data_max, mp_buf *out, uint64_t *dropped,
                              memplan_error *err);

/* mp_prune_model reading through a reader, window bytes at a time (at least
 * MP_PRUNE_WINDOW_MIN, which holds any varint): dropped tensor data is
 * skipped, never read. The output and errors equal mp_prune_model's on the
 * same bytes, whatever the window (malformed_tool checks it with 16). */
#define MP_PRUNE_WINDOW (1u << 20)
#define MP_PRUNE_WINDOW_MIN 16u
memplan_status mp_prune_reader(const memplan_reader *rd, size_t window, mp_buf *out, uint64_t *dropped,
                               memplan_error *err);

/* The model's bytes as the loader takes them: mp_prune_reader's, which
 * mp_prune_model would give back unchanged, with the error that second walk
 * would give (its decode cap is the pruned bytes' own, smaller when tensor
 * data was dropped). The walk counts what it decodes, so the second walk
 * runs only when it must fail: loading these bytes needs no other walk. */
memplan_status mp_strip_reader(const memplan_reader *rd, mp_buf *out, memplan_error *err);

#endif
