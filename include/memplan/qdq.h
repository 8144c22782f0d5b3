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
 * say so, and planned fused when asked (memplan_plan_options.fuse_qdq,
 * `plan --fuse-qdq`): memplan_qdq_fuse_views() gives a unit's values the
 * buffers ONNX Runtime gives them, and the plan sizes the op's output as the
 * quantized one.
 */
#ifndef MEMPLAN_QDQ_H
#define MEMPLAN_QDQ_H

#include <stddef.h>

#include "memplan/error.h"
#include "memplan/liveness.h"
#include "memplan/model.h"
#include "memplan/shapes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One QDQ node unit. */
typedef struct memplan_qdq_unit {
    int32_t node;      /* the op's position in the graph */
    int32_t output;    /* its output 0: float as written, read by the QuantizeLinear alone */
    int32_t quantized; /* that QuantizeLinear's output 0; -1 for a MatMul or Gemm without one,
                          whose output stays float (MatMulIntegerToFloat, QGemm) */
    int32_t between;   /* the output of a Relu or Clip between the op and the QuantizeLinear, or -1 */
} memplan_qdq_unit;

/* The QDQ node units of g (not of its bodies), in node order: a malloc'ed
 * array in *units (NULL when there is none; the caller frees it), its length
 * in *count (memplan_qdq_unit_nodes: the nodes). A unit is a node of one output whose op ONNX Runtime's CPU
 * execution provider fuses (its qdq_selector_action transformer: Conv,
 * MatMul, Gemm, Add, Mul, Concat, AveragePool, GlobalAveragePool, LeakyRelu,
 * Sigmoid, Softmax, Where, and the ops whose QDQ pair it only drops, Expand,
 * Flatten, Gather, GatherElements, Reshape, Slice, Squeeze, Tile, Transpose,
 * Unsqueeze, MaxPool, ReduceMax, ReduceMin, Resize) whose data inputs are
 * each a DequantizeLinear's output (every input given of Conv, MatMul, Gemm,
 * Add, Mul and Concat, a bias too; Where's inputs 1 and 2; the first of the
 * others; other nodes may
 * read it too, and it may be a graph output, as ONNX Runtime first gives each
 * unit a DequantizeLinear of its own), and whose output is read by one
 * QuantizeLinear alone and is no graph output -- or read by one Relu or Clip
 * alone whose output is so read, where ONNX Runtime removes that Relu or
 * Clip first (the QuantizeLinear's zero point one uint8 or int8 constant; a
 * Relu when it is the type's least value, ReluQuantFusion; a Clip whose
 * constant bounds hold the range the QuantizeLinear represents,
 * ClipQuantFusion; a Relu or Clip it keeps keeps the op unfused). A MatMul's
 * or Gemm's output may also be read by anything but such a Relu or Clip
 * (MatMulIntegerToFloat, QGemm with a float output: quantized = -1). A
 * weight-only quantized MatMul is a unit too (quantized = -1; ONNX Runtime
 * runs it as MatMulNBits, DQMatMulToMatMulNBits): a float A that no
 * DequantizeLinear makes, B a DequantizeLinear output only it reads, of a
 * constant 2-, 4- or 8-bit weight [K, N] with a float or float16 scale,
 * blockwise along axis 0 (block_size a power of 2 from 16; scale and zero
 * point [ceil(K / block), N]), per tensor (a scalar scale and zero point) or
 * per column (axis 1; [N]); no QuantizeLinear reading its output; a scale no
 * other node reads, nor an equal one ONNX Runtime would share with it (a
 * float, float16, double, int32 or int64 constant of at most 8 elements); a
 * Gemm's with alpha 1, neither input transposed and no bias; a MatMul of an
 * A of rank 2 whose output one Add alone reads only when that Add's other
 * input is [N] (ONNX Runtime first makes the two a Gemm, MatMulAddFusion). An ArgMax
 * reading a DequantizeLinear output is one (quantized = -1; ONNX Runtime
 * drops the DequantizeLinear, DropDQ): its zero point given, scale and zero
 * point constants of one element, no 16- or 4-bit type. A Split is one entry
 * per output (SplitQDQRules: the pair dropped around it): its input 0 a
 * DequantizeLinear output, each output read by one QuantizeLinear alone, no
 * graph output, of the DequantizeLinear's scale, zero point and type (no
 * 4-bit type); entries of one node are adjacent. Around
 * the ops whose pair ONNX Runtime only drops, their DequantizeLinear and
 * QuantizeLinear must have the same scale and zero point: both given,
 * constants (initializers or Constant nodes) of one element, of equal type,
 * shape and bytes.
 *
 * The element types pass the op's selector: the quantized input and output
 * of one type (and both inputs of Add and Mul, every input of Concat), no
 * 16-bit type but where the pair is only dropped (not around Resize, MaxPool,
 * ReduceMax, ReduceMin), no 4-bit type but around MaxPool, ReduceMax and
 * ReduceMin (whose scale must be positive), an int32 bias (a Gemm's with
 * beta 1), an int8 weight under an int8 input; types are s's where it knows
 * them (s may be NULL), else the file's, and a type known nowhere fails.
 * o->int8_allowed (o may be NULL: x86-64, opset not known): as ONNX Runtime
 * where int8 QDQ is allowed (ARM64, or the
 * session option session.qdqisint8allowed): int8 Conv and MatMul inputs are
 * fused. Otherwise as on x86-64: they are not, and ONNX Runtime first makes
 * an int8 QuantizeLinear -> DequantizeLinear pair uint8 when the
 * QuantizeLinear's output has that one reader once each reader of the
 * DequantizeLinear's output has a copy of its own (QDQS8ToU8Transformer, both
 * zero points one equal int8 constant): a unit between pairs made uint8 is
 * fused, one whose pairs are not all alike is not. MaxPool is a unit from
 * opset 12 on (o->opset). Also as measured against ONNX Runtime 1.30: a
 * Conv's bias scale is the input's times the weight's (within 1e-6 + 1%), a
 * Gemm's DequantizeLinears of A and B give their zero points.
 * QuantizeLinear and DequantizeLinear are ONNX's or ONNX Runtime's
 * (com.microsoft). */
typedef struct memplan_qdq_options {
    bool int8_allowed; /* as where ONNX Runtime allows int8 QDQ (ARM64); else as on x86-64 */
    int64_t opset;     /* the graph's default-domain opset (MaxPool fuses from 12 on), -1 not known */
} memplan_qdq_options;

memplan_status memplan_qdq_unit_list(const memplan_graph *g, const memplan_shapes *s, const memplan_qdq_options *o,
                                     memplan_qdq_unit **units, size_t *count, memplan_error *err);

/* How many nodes the units are: a Split unit has one entry per output (the
 * entries of one node adjacent, as memplan_qdq_unit_list gives them). */
size_t memplan_qdq_unit_nodes(const memplan_qdq_unit *units, size_t count);

/* The units fused, in view terms, as ONNX Runtime's CPU execution provider
 * runs them: each DequantizeLinear output that only the units' ops read
 * (their data inputs, and a Conv's bias) becomes a view of that
 * DequantizeLinear's input -- a fused op reads the quantized tensor -- and
 * each QuantizeLinear's output a view of its op's output (through the Relu's
 * or Clip's output, a view of the op's too, when there is one), which the op
 * writes quantized. A DequantizeLinear output another node reads too, or
 * that is a graph output, stays a buffer (ONNX Runtime makes it, in float,
 * for that node or the output). The op's output
 * keeps its own link (a Reshape's output stays a view of its input); the
 * caller sizes it as the quantized output (its element count, in the
 * quantized element type). */
memplan_status memplan_qdq_fuse_views(const memplan_graph *g, const memplan_qdq_unit *units, size_t count,
                                      memplan_viewmap *vm, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
