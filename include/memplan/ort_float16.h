/*
 * memplan/ort_float16.h -- the graph ONNX Runtime's CPU execution provider
 * runs for a model with float16 tensors.
 *
 * The CPU provider has float16 kernels for few ops
 * (memplan_onnxruntime_cpu_float16). When it loads a model, its
 * InsertCastTransformer gives every other node with a float16 input float32
 * tensors instead: a Cast to float before each float16 input (one per value,
 * shared by its readers) and a Cast back to float16 after each float16
 * output. A node that could run float16 but sits alone between such nodes
 * (all its float16 inputs made by them, all its float16 outputs read only by
 * them) is run in float32 too. Then RemoveDuplicateCastTransformer drops the
 * Cast pairs that cancel (float32 -> float16 -> float32), so a chain of such
 * nodes passes float32 tensors along and casts only at its ends.
 *
 * memplan_onnxruntime_cpu_graph returns that graph as a model of its own,
 * following ONNX Runtime 1.30's two transformers rule for rule (read from
 * its sources; checked node for node against the graphs it saves,
 * wasm-tests/ort-float16.test.js), for the main graph and every body. Plan
 * it like any model: the float32 copies and the inserted Casts' outputs are
 * values of its graph. Its Casts of initializers are folded at load (weights)
 * as memplan folds every node that reads only weights; ONNX Runtime folds
 * them at its default level ("all"), and at lower levels casts them at every
 * run.
 *
 * The new graph keeps the file's node order with each inserted Cast where it
 * runs: a Cast to float right before the first node that reads it, a Cast
 * back right after the node that writes its input. Its values keep their
 * names; the float32 ones are named as ONNX Runtime names them,
 * "InsertedPrecisionFreeCast_" + the value's name (with a number added when
 * that name is taken).
 */
#ifndef MEMPLAN_ORT_FLOAT16_H
#define MEMPLAN_ORT_FLOAT16_H

#include <stdint.h>

#include "memplan/error.h"
#include "memplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct memplan_ort_float16_stats {
    int64_t float32_nodes; /* nodes run in float32 (all graphs), forced ones included */
    int64_t forced;        /* of those, nodes with a float16 kernel run in float32 (isolated) */
    int64_t casts;         /* Casts in the new graph that the file does not have */
    int64_t casts_removed; /* the file's own Casts that cancel out and are dropped */
} memplan_ort_float16_stats;

/* The graph ONNX Runtime's CPU execution provider runs for m (see above).
 * The new model borrows m's strings, tensors and attributes: free it before
 * m. stats may be NULL. A model whose nodes call model-local functions is
 * not rewritten (MEMPLAN_EUSAGE): the calls' bodies are not copied. When no
 * node runs in float32 the new graph is m's, node for node. */
memplan_status memplan_onnxruntime_cpu_graph(const memplan_model *m, memplan_model **out,
                                             memplan_ort_float16_stats *stats, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
