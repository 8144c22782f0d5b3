/*
 * memplan/qdq.h -- QDQ node units: an op between DequantizeLinear and
 * QuantizeLinear.
 *
 * A QDQ model (the format ONNX Runtime's quantization tools write by
 * default) keeps float ops and marks their quantization with
 * DequantizeLinear on each input and QuantizeLinear on the output. The
 * plan takes the graph as written: the float values between them are
 * activations. ONNX Runtime's CPU execution provider fuses such a unit into
 * one op on the quantized tensors (QLinearConv, QLinearMatMul, QLinearAdd,
 * ..., or the op itself on int8 where the QDQ pair only marks it: Reshape,
 * Transpose, MaxPool, ...), so those float values never exist there and it
 * needs less than the plan says. These units are counted so the plan can
 * say so; they are not planned fused.
 */
#ifndef MEMPLAN_QDQ_H
#define MEMPLAN_QDQ_H

#include <stddef.h>

#include "memplan/error.h"
#include "memplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The QDQ node units of g (not of its bodies), in *count: a node whose op
 * ONNX Runtime's CPU execution provider fuses (its qdq_selector_action
 * transformer: Conv, MatMul, Add, Mul, Concat, AveragePool,
 * GlobalAveragePool, LeakyRelu, Sigmoid, Softmax, and the data-movement ops
 * Expand, Flatten, Gather, GatherElements, Reshape, Slice, Squeeze, Tile,
 * Transpose, Unsqueeze, MaxPool, ReduceMax, ReduceMin, Resize) whose data
 * inputs are each a DequantizeLinear's output read by it alone, and whose
 * output is read by one QuantizeLinear alone and is no graph output. The
 * selectors' finer conditions (element types, equal quantization
 * parameters, the platform's int8 support) are not checked: a count of
 * what ONNX Runtime may fuse. */
memplan_status memplan_qdq_units(const memplan_graph *g, size_t *count, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
