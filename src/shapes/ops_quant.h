/*
 * ops_quant.h -- shape helpers shared by the quant and contrib families
 * (defined in ops_quant.c). To be replaced by shared helpers in rules.h
 * (e.g. mp_conv_out_dims) once the nn family provides them.
 */
#ifndef MEMPLAN_SHAPES_OPS_QUANT_H
#define MEMPLAN_SHAPES_OPS_QUANT_H

#include <stdbool.h>

#include "shapes/rules.h"

/* numpy matmul of a and b (1-D operands promoted and dropped, batch dims
 * broadcast), with a or b transposed in its last two dims when asked.
 * Writes dims (MEMPLAN_MAX_RANK entries); returns the rank or -1. */
int32_t mp_q_matmul_dims(mp_sctx *c, const memplan_vshape *a, const memplan_vshape *b, bool trans_a, bool trans_b,
                         memplan_expr *dims);

/* Conv output dims from x (input_k) and w (weight_k) with the node's attrs
 * (kernel_shape, strides, dilations, pads, auto_pad; ceil_mode for pooling).
 * weight_k < 0: no weight (pooling): the channel dim is NONE, kernel_shape required. x and the output
 * are [N, C, D...], or [N, D..., C] when channels_last; w is [M, C/group, k...].
 * Returns the rank or -1. */
int32_t mp_q_conv_dims(mp_sctx *c, int32_t input_k, int32_t weight_k, bool channels_last, memplan_expr *dims);

#endif
