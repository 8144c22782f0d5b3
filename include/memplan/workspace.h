/*
 * memplan/workspace.h -- the scratch memory a kernel allocates while it runs.
 *
 * A plan counts tensors: the values a graph names. A runtime's kernel may
 * also take memory of its own for the time it runs -- its workspace: the
 * im2col of a convolution's input, a recurrent op's gate buffer, a transpose
 * around a softmax over an inner axis -- and free it when it returns. How
 * much is the kernel's choice, so it is a property of one runtime, not of
 * the model. memplan knows one: ONNX Runtime's CPU execution provider
 * (read from its sources and measured on onnxruntime-node 1.30, one
 * intra-op thread, the graph as written: bench/README.md, "Kernel
 * workspace"). A plan made with memplan_plan_options.kernel_workspace holds
 * each node's workspace as one buffer live at the node's position
 * (memplan_transient, workspace = true), so the arena, peak and lower bound
 * include it; without it the plan says what it leaves out
 * (memplan_model_plan.workspace).
 *
 * The rules (docs/semantics.md, "Kernel workspace"), in bytes; N batch, C
 * input and M output channels, G groups, k the kernel's size (the product
 * of kernel_shape), K = C/G x k, IS and OS the input's and output's spatial
 * sizes:
 *   ConvInteger           K x OS (the uint8 im2col of one group), none for a
 *                         1x1 kernel with unit strides and no pads attribute
 *   Conv (float)          none for a 1x1 kernel with unit strides and no pads;
 *                         4 x OS x K when M/G > OS; else 64 KiB (one thread's
 *                         segment of the im2col)
 *   ConvTranspose (float) 4 x M/G x k x IS, always
 *   QLinearConv           C x IS + M x OS (channels-last copies), and with
 *                         uint8 weights 4 x M x OS + the im2col (K x OS; a
 *                         depthwise kernel: 8 x k x OS), with int8 weights of
 *                         zero point 0 8 x k x OS; no im2col for a 1x1 kernel
 *   QLinearMatMul         4 x the output's elements (the int32 product)
 *   DynamicQuantizeMatMul (com.microsoft) the input's elements (uint8)
 *   LSTM, GRU, RNN        the gates of every step: 4 x (4, 3 or 1) x H x B x S
 *                         per direction, and what the kernel keeps besides
 *   Softmax, LogSoftmax   (opset 13 on) over an axis that is not the last:
 *                         2 x the input's bytes (a transpose in and out)
 * "float" includes float16, which the CPU execution provider runs in float32
 * for all of these (memplan_onnxruntime_cpu_float16). Every other op: none
 * known.
 */
#ifndef MEMPLAN_WORKSPACE_H
#define MEMPLAN_WORKSPACE_H

#include <stddef.h>
#include <stdint.h>

#include "memplan/model.h"
#include "memplan/shapes.h"
#include "memplan/sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum memplan_workspace_status {
    MEMPLAN_WORKSPACE_NONE = 0, /* the kernel takes none (or no rule is known for the op) */
    MEMPLAN_WORKSPACE_KNOWN,    /* out->bytes > 0 */
    MEMPLAN_WORKSPACE_UNKNOWN   /* the op takes some, but a shape it depends on is not known */
} memplan_workspace_status;

typedef struct memplan_workspace {
    uint64_t bytes;
    const char *what; /* static text: what the kernel allocates ("the im2col of its input") */
} memplan_workspace;

/* The workspace ONNX Runtime's CPU kernel allocates to run node `node` of
 * g, from its inputs' and outputs' shapes under the bindings; `opset` is the
 * model's ai.onnx opset version (memplan_model_opset). */
memplan_workspace_status memplan_workspace_onnxruntime(const memplan_shapes *s, const memplan_graph *g, int32_t node,
                                                       int64_t opset, const memplan_binding *b, size_t nb,
                                                       memplan_workspace *out);

/* Whether ONNX Runtime's CPU execution provider has a float16 kernel for the
 * op (1.30, x86-64, measured: bench/README.md "float16 on the CPU"): data
 * movement (Reshape, Transpose, Slice, Concat, Gather, Split, Expand, ...),
 * Cast, Clip, Min, Max, Round, Sign, Mod, IsNaN, LayerNormalization,
 * RMSNormalization, QuantizeLinear, DequantizeLinear, and control flow. It
 * runs every other default-domain op given float16 tensors in float32,
 * with Casts it inserts around the node (its inputs, weights included, and
 * its outputs), so the tensors there are held in float32 as well. Ops of
 * other domains: true (not looked at). */
bool memplan_onnxruntime_cpu_float16(const char *domain, const char *op);

#ifdef __cplusplus
}
#endif
#endif
