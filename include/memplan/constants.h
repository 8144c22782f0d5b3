/*
 * memplan/constants.h -- values a runtime computes once, at load: weights.
 *
 * Initializers are weights. So are the outputs of a Constant node and of any
 * node whose inputs are all weights (a constant-foldable subgraph:
 * ConstantOfShape of a constant shape, Cast/Reshape/Transpose of an
 * initializer, ...): ONNX Runtime and the other runtimes fold them when the
 * model loads, so they are not activations. Not folded: nodes with
 * subgraphs, nodes without inputs other than Constant (RandomNormal, ...),
 * ops whose outputs differ run to run (the Random* family, Multinomial,
 * Bernoulli, Dropout), and DequantizeLinear (ai.onnx or com.microsoft),
 * which ONNX Runtime keeps for its QDQ fusions: the quantized initializer
 * is the weight, the float values an activation. This is a policy handed to the planner, as the view map
 * is; the planner itself never names an op.
 */
#ifndef MEMPLAN_CONSTANTS_H
#define MEMPLAN_CONSTANTS_H

#include <stdint.h>

#include "memplan/error.h"
#include "memplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per value of g: 1 for an initializer, 2 for a value folded at load, 0 for
 * everything else (activations, graph inputs). A subgraph's captured outer
 * value is what `outer` (the parent graph's result, NULL for none) says it is.
 * *out is malloc'ed (g->n_values entries, at least one byte): free it. */
#define MEMPLAN_CONST_INITIALIZER 1
#define MEMPLAN_CONST_FOLDED 2
memplan_status memplan_constants_default(const memplan_graph *g, const uint8_t *outer, uint8_t **out,
                                         memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
