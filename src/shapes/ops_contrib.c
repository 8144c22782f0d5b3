/*
 * ops_contrib.c -- ONNX Runtime contrib ops (domain com.microsoft), as used
 * by exported transformer and quantized models: activations, fused layer
 * norms, attention variants, fused conv/matmul, QLinear* ops, quantized and
 * 4-bit matmuls, and a few others. Shapes follow ONNX Runtime's contrib op
 * schemas (bert_defs.cc, quantization_defs.cc, contrib_defs.cc).
 */
#include <string.h>

#include "shapes/rules.h"

#define R MEMPLAN_MAX_RANK
#define MS "com.microsoft"

static memplan_expr_pool *P(mp_sctx *c) { return mp_pool(c); }

/* Element type of input k, or dflt. */
static int32_t type_of(mp_sctx *c, int32_t k, int32_t dflt) {
    const memplan_vshape *v = mp_in(c, k);
    return v && v->elem_type ? v->elem_type : dflt;
}

/* Ranked tensor input k, else NULL. */
static const memplan_vshape *ranked(mp_sctx *c, int32_t k) { return mp_in_ranked(c, k) ? mp_in(c, k) : NULL; }

/* Output k: x's shape with type et (unranked when x is). */
static void out_like_typed(mp_sctx *c, int32_t k, int32_t et, const memplan_vshape *x) {
    if (!x || x->rank < 0) mp_out_unranked(c, k, et, "input rank unknown");
    else
        mp_out(c, k, et, x->rank, x->dims);
}

/* Output k: x's dims with the last one replaced by d. */
static void out_last(mp_sctx *c, int32_t k, int32_t et, const memplan_vshape *x, memplan_expr d) {
    if (!x || x->rank < 1) {
        mp_out_unranked(c, k, et, "input rank unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    dims[x->rank - 1] = d;
    mp_out(c, k, et, x->rank, dims);
}

static memplan_expr div_c(mp_sctx *c, memplan_expr a, int64_t k) {
    return k > 0 && a != MEMPLAN_EXPR_NONE ? memplan_expr_floordiv(P(c), a, mp_const(c, k)) : MEMPLAN_EXPR_NONE;
}

/* The single value of input k as an amount, or NONE. */
static memplan_expr scalar_amount(mp_sctx *c, int32_t k) {
    int32_t n;
    const memplan_expr *e = mp_in_elems(c, k, &n);
    return e && n == 1 ? e[0] : MEMPLAN_EXPR_NONE;
}

/* ---- activations and simple ops ---------------------------------------- */

/* Gelu, FastGelu, BiasGelu, QuickGelu, BiasAdd, RotaryEmbedding, ...: like input 0. */
static void like_input0(mp_sctx *c) { mp_out_like(c, 0, mp_in(c, 0)); }

/* BiasDropout: output like data, mask bool like data. */
static void bias_dropout(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    mp_out_like(c, 0, x);
    if (x) out_like_typed(c, 1, MEMPLAN_DTYPE_BOOL, x);
}

/* BitmaskBiasDropout: output like data; the mask is bit-packed, "T3 :
 * tensor(uint32)", one bit per element of data: the schema infers no shape
 * for it, ONNX Runtime's kernels write ceil(N / 32) words for N elements
 * (its tests feed BitmaskDropoutGrad a mask of {bitmask_element_count}). */
static void bitmask_bias_dropout(mp_sctx *c) {
    const memplan_vshape *x = ranked(c, 0);
    mp_out_like(c, 0, mp_in(c, 0));
    memplan_expr n = x ? mp_product(c, x->rank, x->dims) : MEMPLAN_EXPR_NONE;
    if (n == MEMPLAN_EXPR_NONE) {
        mp_out_unranked(c, 1, MEMPLAN_DTYPE_UINT32, "bit-packed mask of data of unknown size");
        return;
    }
    memplan_expr words = memplan_expr_ceildiv(P(c), n, mp_const(c, 32));
    mp_out(c, 1, MEMPLAN_DTYPE_UINT32, 1, &words);
}

/* BiasSplitGelu([B, HW, D], bias) -> [B, HW, D/2]; the schema requires rank 3
 * ("input shall be 3 dimensions"). */
static void bias_split_gelu(mp_sctx *c) {
    const memplan_vshape *x = ranked(c, 0);
    if (x && x->rank != 3) x = NULL;
    out_last(c, 0, type_of(c, 0, 0), x, x ? div_c(c, x->dims[2], 2) : MEMPLAN_EXPR_NONE);
}

/* ---- layer norms -------------------------------------------------------- */

/* Output k: x's dims with those from `axis` on set to 1 (float stats). */
static void stats_out(mp_sctx *c, int32_t k, const memplan_vshape *x, int64_t axis) {
    int32_t et = (int32_t)mp_attr_int(c, "stash_type", MEMPLAN_DTYPE_FLOAT);
    int32_t a = x && x->rank >= 0 ? mp_axis(axis, x->rank) : -1;
    if (a < 0) {
        mp_out_unranked(c, k, et, "input rank or axis unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int32_t i = 0; i < x->rank; i++) dims[i] = i < a ? x->dims[i] : mp_const(c, 1);
    mp_out(c, k, et, x->rank, dims);
}

/* LayerNormalization / SimplifiedLayerNormalization (contrib):
 * Y like X, then mean and inv_std_var (Simplified: inv_std_var only). */
static void layer_norm(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    int64_t axis = mp_attr_int(c, "axis", -1);
    mp_out_like(c, 0, x);
    for (int32_t k = 1; k < mp_n_out(c); k++) stats_out(c, k, x, axis);
}

/* Skip(Simplified)LayerNormalization(input, skip, gamma, beta?, bias?) ->
 * output, mean, inv_std_var ([..., 1], float), input_skip_bias_sum (like input). */
static void skip_layer_norm(mp_sctx *c) {
    const memplan_vshape *x = mp_in(c, 0);
    mp_out_like(c, 0, x);
    stats_out(c, 1, x, -1);
    stats_out(c, 2, x, -1);
    mp_out_like(c, 3, x);
}

/* EmbedLayerNormalization(input_ids [B,S], segment_ids, word_emb [V,H], ...)
 * -> output [B,S,H], mask_index int32 [B], embedding_sum [B,S,H]. */
static void embed_layer_norm_out(mp_sctx *c, int32_t et) {
    const memplan_vshape *ids = ranked(c, 0), *we = ranked(c, 2);
    if (!ids || ids->rank != 2 || !we || we->rank != 2) {
        mp_out_unranked(c, 0, et, "input_ids or word_embedding rank unknown");
        return;
    }
    memplan_expr dims[3] = {ids->dims[0], ids->dims[1], we->dims[1]};
    mp_out(c, 0, et, 3, dims);
    mp_out(c, 1, MEMPLAN_DTYPE_INT32, 1, dims);
    mp_out(c, 2, et, 3, dims);
}

static void embed_layer_norm(mp_sctx *c) { embed_layer_norm_out(c, type_of(c, 2, MEMPLAN_DTYPE_FLOAT)); }

/* QEmbedLayerNormalization: the same, its tables quantized, in float. */
static void qembed_layer_norm(mp_sctx *c) { embed_layer_norm_out(c, type_of(c, 8, MEMPLAN_DTYPE_FLOAT)); }

/* ---- attention --------------------------------------------------------- */

/* present: [2, B, N, past + S, head]. */
static void present_out(mp_sctx *c, int32_t k, int32_t et, memplan_expr b, int64_t heads, memplan_expr total,
                        memplan_expr head) {
    memplan_expr dims[5] = {mp_const(c, 2), b, mp_const(c, heads), total, head};
    mp_out(c, k, et, 5, dims);
}

/* Attention(input [B,S,H], weights [H, 3*hidden], bias, mask, past, ...) ->
 * output [B,S,hidden_v], present [2,B,N,past+S,head]. QAttention has the
 * same layout with float output (input 3's type) and past at input 8. */
static void attention_like(mp_sctx *c, int32_t et, int32_t past_k) {
    const memplan_vshape *x = ranked(c, 0), *w = ranked(c, 1), *past = ranked(c, past_k);
    int64_t heads = mp_attr_int(c, "num_heads", 0);
    const int64_t *qkv;
    int64_t nq = mp_attr_ints(c, "qkv_hidden_sizes", &qkv);
    if (!x || x->rank != 3) {
        mp_out_unranked(c, 0, et, "input rank unknown");
        return;
    }
    memplan_expr hidden_qk = MEMPLAN_EXPR_NONE, hidden_v = MEMPLAN_EXPR_NONE;
    if (nq == 3) {
        hidden_qk = mp_const(c, qkv[0]);
        hidden_v = mp_const(c, qkv[2]);
    } else if (w && w->rank == 2) {
        hidden_qk = hidden_v = div_c(c, w->dims[1], 3);
    }
    memplan_expr dims[3] = {x->dims[0], x->dims[1], hidden_v};
    mp_out(c, 0, et, 3, dims);
    if (mp_n_out(c) < 2 || heads <= 0) return;
    memplan_expr total = x->dims[1];
    if (past && past->rank == 5) total = memplan_expr_add(P(c), past->dims[3], total);
    present_out(c, 1, et, x->dims[0], heads, total, div_c(c, hidden_qk, heads));
}

static void attention(mp_sctx *c) { attention_like(c, type_of(c, 0, MEMPLAN_DTYPE_FLOAT), 4); }
static void qattention(mp_sctx *c) { attention_like(c, type_of(c, 3, MEMPLAN_DTYPE_FLOAT), 8); }

/* MultiHeadAttention(query, key, value, bias, key_padding_mask, attention_bias,
 * past_key, past_value) -> output [B,S,Dv], present_key/value [B,N,total,H]. */
static void multi_head_attention(mp_sctx *c) {
    const memplan_vshape *q = ranked(c, 0), *k = ranked(c, 1), *v = ranked(c, 2), *pk = ranked(c, 6);
    int64_t n = mp_attr_int(c, "num_heads", 0);
    int32_t et = type_of(c, 0, MEMPLAN_DTYPE_FLOAT);
    if (!q || (q->rank != 3 && q->rank != 5) || n <= 0) {
        mp_out_unranked(c, 0, et, "query rank or num_heads unknown");
        return;
    }
    memplan_expr nc = mp_const(c, n), dq, dv, kv_len;
    if (q->rank == 5) { /* packed QKV [B, S, N, 3, H] */
        dq = dv = memplan_expr_mul(P(c), nc, q->dims[4]);
        kv_len = q->dims[1];
    } else if (k && k->rank == 5) { /* packed KV [B, L, N, 2, H] */
        dq = q->dims[2];
        dv = memplan_expr_mul(P(c), nc, k->dims[4]);
        kv_len = k->dims[1];
    } else {
        dq = q->dims[2];
        dv = !v             ? MEMPLAN_EXPR_NONE
             : v->rank == 3 ? v->dims[2]
             : v->rank == 4 ? memplan_expr_mul(P(c), v->dims[1], v->dims[3])
                            : MEMPLAN_EXPR_NONE;
        kv_len = !k ? MEMPLAN_EXPR_NONE : k->rank == 3 ? k->dims[1] : k->rank == 4 ? k->dims[2] : MEMPLAN_EXPR_NONE;
    }
    memplan_expr dims[4] = {q->dims[0], q->dims[1], dv, MEMPLAN_EXPR_NONE};
    mp_out(c, 0, et, 3, dims);
    memplan_expr total =
        pk && pk->rank == 4 && kv_len != MEMPLAN_EXPR_NONE ? memplan_expr_add(P(c), pk->dims[2], kv_len) : kv_len;
    memplan_expr pd[4] = {q->dims[0], nc, total, div_c(c, dq, n)};
    if (mp_has_out(c, 1)) mp_out(c, 1, et, 4, pd);
    pd[3] = div_c(c, dv, n);
    if (mp_has_out(c, 2)) mp_out(c, 2, et, 4, pd);
}

/* GroupQueryAttention(query, key, value, past_key, past_value, seqlens_k,
 * total_sequence_length, ...) -> output [B,S,N*H], present_key/value
 * [B, kv_num_heads, max(past, total), H]. Best effort. */
static void group_query_attention(mp_sctx *c) {
    const memplan_vshape *q = ranked(c, 0), *k = ranked(c, 1), *pk = ranked(c, 3);
    int64_t n = mp_attr_int(c, "num_heads", 0), kvn = mp_attr_int(c, "kv_num_heads", 0);
    int32_t et = type_of(c, 0, MEMPLAN_DTYPE_FLOAT);
    if (!q || q->rank != 3 || n <= 0 || kvn <= 0) {
        mp_out_unranked(c, 0, et, "query rank or head counts unknown");
        return;
    }
    /* head size: D / N, or D / (N + 2 kvN) when Q, K and V are packed */
    int64_t packed;
    bool fits = !__builtin_mul_overflow(kvn, 2, &packed) && !__builtin_add_overflow(packed, n, &packed);
    memplan_expr head = k ? div_c(c, q->dims[2], n) : fits ? div_c(c, q->dims[2], packed) : MEMPLAN_EXPR_NONE;
    memplan_expr dims[4] = {q->dims[0], q->dims[1], memplan_expr_mul(P(c), mp_const(c, n), head), MEMPLAN_EXPR_NONE};
    mp_out(c, 0, et, 3, dims);
    memplan_expr total = scalar_amount(c, 6);
    if (pk && pk->rank == 4)
        total = total == MEMPLAN_EXPR_NONE ? MEMPLAN_EXPR_NONE : memplan_expr_max(P(c), pk->dims[2], total);
    memplan_expr pd[4] = {q->dims[0], mp_const(c, kvn), total, head};
    for (int32_t o = 1; o <= 2; o++)
        if (mp_has_out(c, o)) mp_out(c, o, et, 4, pd);
}

/* The cache of an attention whose past and present share one buffer of
 * the longest length (past_present_share_buffer): present like past. */
static void present_like_past(mp_sctx *c, const memplan_vshape *pk, const memplan_vshape *pv) {
    if (mp_has_out(c, 1)) mp_out_like(c, 1, pk);
    if (mp_has_out(c, 2)) mp_out_like(c, 2, pv);
}

/* DecoderMaskedMultiHeadAttention(query [B,1,D] or packed QKV, key, value,
 * mask, bias, past_key [B,N,P,H], past_value, past_sequence_length, ...):
 * one decoding step of beam search decoders. output [B,1,Dv]; present
 * like past when past_present_share_buffer (P is the longest length), else
 * [B,N,P+1,H]; qk [B,N,1,total]. Key and value are [B,1,D] (self) or the
 * cached [B,N,L,H] (cross); without them query packs Q, K and V. */
static void decoder_masked_mha(mp_sctx *c) {
    const memplan_vshape *q = ranked(c, 0), *k = ranked(c, 1), *v = ranked(c, 2), *pk = ranked(c, 5),
                         *pv = ranked(c, 6);
    int64_t n = mp_attr_int(c, "num_heads", 0);
    int32_t et = type_of(c, 0, MEMPLAN_DTYPE_FLOAT);
    if (!q || q->rank != 3 || n <= 0) {
        mp_out_unranked(c, 0, et, "query rank or num_heads unknown");
        return;
    }
    memplan_expr nc = mp_const(c, n), head = pk && pk->rank == 4 ? pk->dims[3] : MEMPLAN_EXPR_NONE, dv, kv_len;
    if (v) {
        dv = v->rank == 3   ? v->dims[2]
             : v->rank == 4 ? memplan_expr_mul(P(c), v->dims[1], v->dims[3])
                            : MEMPLAN_EXPR_NONE;
        kv_len = k && k->rank == 4 ? k->dims[2] : mp_const(c, 1);
    } else { /* packed: 2 N H + Dv */
        memplan_expr qk =
            head == MEMPLAN_EXPR_NONE ? MEMPLAN_EXPR_NONE : memplan_expr_mul(P(c), mp_const(c, 2 * n), head);
        dv = qk == MEMPLAN_EXPR_NONE ? MEMPLAN_EXPR_NONE : memplan_expr_sub(P(c), q->dims[2], qk);
        kv_len = mp_const(c, 1);
    }
    memplan_expr dims[4] = {q->dims[0], q->dims[1], dv, MEMPLAN_EXPR_NONE};
    mp_out(c, 0, et, 3, dims);
    bool cross = k && k->rank == 4;
    memplan_expr total = cross ? kv_len : MEMPLAN_EXPR_NONE;
    if (!cross && mp_attr_int(c, "past_present_share_buffer", 0)) {
        present_like_past(c, pk, pv);
        memplan_expr past = scalar_amount(c, 7);
        if (past != MEMPLAN_EXPR_NONE) total = memplan_expr_add(P(c), past, kv_len);
    } else if (!cross && pk && pk->rank == 4) {
        total = memplan_expr_add(P(c), pk->dims[2], kv_len);
        memplan_expr pd[4] = {pk->dims[0], pk->dims[1], total, pk->dims[3]};
        for (int32_t o = 1; o <= 2; o++)
            if (mp_has_out(c, o)) mp_out(c, o, et, 4, pd);
    }
    memplan_expr qd[4] = {q->dims[0], nc, mp_const(c, 1), total};
    if (mp_has_out(c, 3)) mp_out(c, 3, et, 4, qd);
}

/* SparseAttention(query [B,S,D] or packed, key, value, past_key, past_value
 * [B, kvN, max_cache, H], block masks, total_sequence_length, ...): output
 * [B,S,N*H]; present shares past's buffer, so is like it. */
static void sparse_attention(mp_sctx *c) {
    const memplan_vshape *q = ranked(c, 0), *k = ranked(c, 1), *pk = ranked(c, 3), *pv = ranked(c, 4);
    int64_t n = mp_attr_int(c, "num_heads", 0), kvn = mp_attr_int(c, "kv_num_heads", 0);
    int32_t et = type_of(c, 0, MEMPLAN_DTYPE_FLOAT);
    if (!q || q->rank != 3 || n <= 0 || kvn <= 0) {
        mp_out_unranked(c, 0, et, "query rank or head counts unknown");
        return;
    }
    memplan_expr head = pk && pk->rank == 4 ? pk->dims[3] : k ? div_c(c, q->dims[2], n) : MEMPLAN_EXPR_NONE;
    memplan_expr dims[3] = {q->dims[0], q->dims[1], memplan_expr_mul(P(c), mp_const(c, n), head)};
    mp_out(c, 0, et, 3, dims);
    present_like_past(c, pk, pv);
}

/* ---- conv, matmul ------------------------------------------------------ */

/* Conv output from input x_k and weight w_k; type of input type_k. */
static void conv_out(mp_sctx *c, int32_t x_k, int32_t w_k, bool channels_last, int32_t et) {
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = mp_conv_out_dims(c, mp_in(c, x_k), mp_in(c, w_k), channels_last, dims);
    if (r < 0) mp_out_unranked(c, 0, et, "input ranks or conv attributes unknown");
    else
        mp_out(c, 0, et, r, dims);
}

static void fused_conv(mp_sctx *c) { conv_out(c, 0, 1, false, type_of(c, 0, 0)); }
static void nhwc_conv(mp_sctx *c) { conv_out(c, 0, 1, true, type_of(c, 0, 0)); }

/* Matmul of inputs a_k and b_k into output 0 of type et. */
static void matmul_out(mp_sctx *c, int32_t a_k, int32_t b_k, bool ta, bool tb, int32_t et) {
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = mp_matmul_dims(c, mp_in(c, a_k), mp_in(c, b_k), ta, tb, dims);
    if (r < 0) mp_out_unranked(c, 0, et, "input ranks unknown or do not match");
    else
        mp_out(c, 0, et, r, dims);
}

/* FusedMatMul(A, B): alpha * op(A) @ op(B); transBatch* are not modelled. */
static void fused_matmul(mp_sctx *c) {
    int32_t et = type_of(c, 0, 0);
    if (mp_attr_int(c, "transBatchA", 0) || mp_attr_int(c, "transBatchB", 0)) {
        mp_out_unranked(c, 0, et, "transBatchA/transBatchB not modelled");
        return;
    }
    matmul_out(c, 0, 1, mp_attr_int(c, "transA", 0) != 0, mp_attr_int(c, "transB", 0) != 0, et);
}

/* Gemm of inputs a_k and b_k (transA/transB) into output 0 of type et;
 * unranked when either is ranked but not 2-D. */
static void gemm_out(mp_sctx *c, int32_t a_k, int32_t b_k, int32_t et) {
    const memplan_vshape *a = ranked(c, a_k), *b = ranked(c, b_k);
    if ((a && a->rank != 2) || (b && b->rank != 2)) {
        mp_out_unranked(c, 0, et, "inputs not 2-D");
        return;
    }
    matmul_out(c, a_k, b_k, mp_attr_int(c, "transA", 0) != 0, mp_attr_int(c, "transB", 0) != 0, et);
}

/* FusedGemm(A, B, C): Gemm (transA/transB) with a fused activation. */
static void fused_gemm(mp_sctx *c) { gemm_out(c, 0, 1, type_of(c, 0, 0)); }

/* DynamicQuantizeMatMul(A float, B, b_scale, ...) -> A's type. */
static void dynamic_quantize_matmul(mp_sctx *c) {
    matmul_out(c, 0, 1, false, false, type_of(c, 0, MEMPLAN_DTYPE_FLOAT));
}

/* MatMulIntegerToFloat(A, B, a_scale, ...) -> a_scale's type. */
static void matmul_integer_to_float(mp_sctx *c) {
    matmul_out(c, 0, 1, false, false, type_of(c, 2, MEMPLAN_DTYPE_FLOAT));
}

/* MatMulNBits, MatMulBnb4 (A [..., K], packed B; N attr) -> [..., N], A's type. */
static void matmul_nbits(mp_sctx *c) {
    out_last(c, 0, type_of(c, 0, MEMPLAN_DTYPE_FLOAT), ranked(c, 0), mp_const(c, mp_attr_int(c, "N", 0)));
}

/* MatMulInteger16(A, B) -> int32 A @ B. */
static void matmul_integer16(mp_sctx *c) { matmul_out(c, 0, 1, false, false, MEMPLAN_DTYPE_INT32); }

/* CDist(A [N, K], B [M, K]) -> [N, M] distances, A's type. */
static void cdist(mp_sctx *c) { matmul_out(c, 0, 1, false, true, type_of(c, 0, MEMPLAN_DTYPE_FLOAT)); }

/* GatherBlockQuantized(data, indices, scales, zero_points?) -> Gather's
 * dims (data's before gather_axis, the indices', data's after), in the
 * scales' type; uint8 data packs 8 / bits values a byte along its last
 * dim, which the output unpacks (ORT GenAI's int4 embedding tables:
 * [vocab, hidden / 2] uint8 gathers to [batch, seq, hidden]). */
static void gather_block_quantized(mp_sctx *c) {
    const memplan_vshape *x = ranked(c, 0), *idx = ranked(c, 1);
    int32_t et = type_of(c, 2, MEMPLAN_DTYPE_FLOAT);
    int32_t axis = x ? mp_axis(mp_attr_int(c, "gather_axis", 0), x->rank) : -1;
    int64_t bits = mp_attr_int(c, "bits", 4);
    if (!x || !idx || axis < 0) {
        mp_out_unranked(c, 0, et, "input rank or gather_axis unknown");
        return;
    }
    if (bits < 1 || bits > 8 || 8 % bits) {
        mp_note(c, "bits %lld is invalid", (long long)bits);
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    int32_t r = dims ? mp_gather_dims(x, axis, idx, dims) : -1;
    if (r < 1) return; /* too many dims, or a scalar: no last dim to unpack */
    if (x->elem_type == MEMPLAN_DTYPE_UINT8 && bits < 8)
        dims[r - 1] = memplan_expr_mul(P(c), dims[r - 1], mp_const(c, 8 / bits));
    mp_out(c, 0, et, r, dims);
}

/* NGramRepeatBlock(input_ids, scores) -> scores with repeats masked. */
static void ngram_repeat_block(mp_sctx *c) { mp_out_like(c, 0, mp_in(c, 1)); }

/* MurmurHash3(X) -> hashes like X: uint32, or int32 when positive = 0. */
static void murmur_hash3(mp_sctx *c) {
    int32_t et = mp_attr_int(c, "positive", 1) ? MEMPLAN_DTYPE_UINT32 : MEMPLAN_DTYPE_INT32;
    out_like_typed(c, 0, et, ranked(c, 0));
}

/* ExpandDims(X, axis scalar) -> X with a dim of 1 inserted at axis. */
static void expand_dims(mp_sctx *c) {
    const memplan_vshape *x = ranked(c, 0);
    int64_t axis;
    int32_t na;
    int32_t et = type_of(c, 0, 0);
    int32_t a = x && x->rank < R && mp_in_ints(c, 1, &axis, 1, &na) && na == 1 ? mp_axis(axis, x->rank + 1) : -1;
    if (a < 0) {
        mp_out_unranked(c, 0, et, "input rank or axis unknown");
        return;
    }
    int32_t r = 0;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int32_t i = 0; i <= x->rank; i++) dims[r++] = i == a ? mp_const(c, 1) : x->dims[i - (i > a)];
    mp_out(c, 0, et, r, dims);
}

/* CropAndResize(X [N,C,H,W], rois [R,4], batch_indices [R], crop_size [2]) -> [R,C,h,w]. */
static void crop_and_resize(mp_sctx *c) {
    const memplan_vshape *x = ranked(c, 0), *rois = ranked(c, 1);
    int32_t et = type_of(c, 0, MEMPLAN_DTYPE_FLOAT), n;
    const memplan_expr *crop = mp_in_elems(c, 3, &n);
    if (!x || x->rank != 4 || !rois || rois->rank != 2) {
        mp_out_unranked(c, 0, et, "input or rois rank unknown");
        return;
    }
    memplan_expr dims[4] = {rois->dims[0], x->dims[1], crop && n == 2 ? crop[0] : MEMPLAN_EXPR_NONE,
                            crop && n == 2 ? crop[1] : MEMPLAN_EXPR_NONE};
    mp_out(c, 0, et, 4, dims);
}

/* A pool's output (X's type, the window attributes; mp_conv_out_dims):
 * MaxpoolWithMask(X, M), NhwcMaxPool(X [N,H,W,C]) channels last,
 * QLinearAveragePool below. */
static void pool_out(mp_sctx *c, bool channels_last) {
    int32_t et = type_of(c, 0, 0);
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t r = mp_conv_out_dims(c, ranked(c, 0), NULL, channels_last, dims);
    if (r < 0) mp_out_unranked(c, 0, et, "input rank or kernel_shape unknown");
    else
        mp_out(c, 0, et, r, dims);
}
static void maxpool_with_mask(mp_sctx *c) { pool_out(c, false); }
static void nhwc_max_pool(mp_sctx *c) { pool_out(c, true); }

/* QLinearWhere(cond, X, x_s, x_zp, Y, y_s, y_zp, z_s, z_zp) -> broadcast of
 * the three, z_zp's type. */
static void qlinear_where(mp_sctx *c) {
    int32_t et = type_of(c, 8, type_of(c, 1, MEMPLAN_DTYPE_UINT8));
    memplan_expr *dims = mp_tmp_exprs(c, R), *two = mp_tmp_exprs(c, R);
    if (!dims || !two) return;
    int32_t r = mp_broadcast(c, mp_in(c, 1), mp_in(c, 4), two);
    memplan_vshape xy = {.kind = MEMPLAN_TYPE_TENSOR, .elem_type = et, .rank = r, .dims = two};
    r = r < 0 ? -1 : mp_broadcast(c, mp_in(c, 0), &xy, dims);
    if (r < 0) mp_out_unranked(c, 0, et, "input rank unknown or shapes do not broadcast");
    else
        mp_out(c, 0, et, r, dims);
}

/* ---- generation loops (BeamSearch and kin) ----------------------------- */

/* BeamSearch / WhisperBeamSearch (input_ids [B,S] or features [B,F,T],
 * max_length, min_length, num_beams, num_return_sequences, length_penalty,
 * ...) -> sequences int32 [B, R, max_length], sequences_scores [B, R],
 * scores [max_length - S, B, num_beams, vocab_size]; the lengths are input
 * values (initializers, or --value). Their decoder and encoder bodies are
 * graph attributes, planned as bodies. */
static void beam_search(mp_sctx *c) {
    const memplan_vshape *ids = ranked(c, 0);
    memplan_expr max_len = scalar_amount(c, 1), beams = scalar_amount(c, 3), ret = scalar_amount(c, 4);
    int32_t st = type_of(c, 5, MEMPLAN_DTYPE_FLOAT);
    memplan_expr b = ids && ids->rank >= 2 ? ids->dims[0] : MEMPLAN_EXPR_NONE;
    memplan_expr seq[3] = {b, ret, max_len};
    mp_out(c, 0, MEMPLAN_DTYPE_INT32, 3, seq);
    if (mp_has_out(c, 1)) mp_out(c, 1, st, 2, seq);
    if (!mp_has_out(c, 2)) return;
    int64_t vocab = mp_attr_int(c, "vocab_size", -1);
    bool whisper = ids && ids->rank == 3;
    memplan_expr steps = max_len == MEMPLAN_EXPR_NONE || !ids || whisper
                             ? MEMPLAN_EXPR_NONE
                             : memplan_expr_sub(P(c), max_len, ids->dims[1]);
    memplan_expr sc[4] = {steps, b, beams, vocab > 0 ? mp_const(c, vocab) : MEMPLAN_EXPR_NONE};
    mp_out(c, 2, st, 4, sc);
}

/* GreedySearch / Sampling(input_ids [B,S], max_length, ...) -> sequences
 * int32 [B, max_length]. */
static void greedy_search(mp_sctx *c) {
    const memplan_vshape *ids = ranked(c, 0);
    memplan_expr seq[2] = {ids && ids->rank == 2 ? ids->dims[0] : MEMPLAN_EXPR_NONE, scalar_amount(c, 1)};
    mp_out(c, 0, MEMPLAN_DTYPE_INT32, 2, seq);
}

/* SkipGroupNorm(X, gamma, beta, skip, bias?) -> Y and the optional sum S,
 * both like X. */
static void skip_group_norm(mp_sctx *c) {
    mp_out_like(c, 0, mp_in(c, 0));
    mp_out_like(c, 1, mp_in(c, 0));
}

/* QGemm(A, a_s, a_zp, B, b_s, b_zp, C, y_s?, y_zp?) -> [M, N]: y_zp's type
 * when y_zp is given, else float (the schema: "The output is full
 * precision(float32) if it is not provided"); A and B must be 2-D. */
static void qgemm(mp_sctx *c) {
    gemm_out(c, 0, 3, mp_in(c, 8) ? type_of(c, 8, MEMPLAN_DTYPE_UINT8) : MEMPLAN_DTYPE_FLOAT);
}

/* ---- QLinear* ---------------------------------------------------------- */

/* QLinearAdd/Mul(A, A_s, A_zp, B, B_s, B_zp, C_s, C_zp): broadcast of A and B. */
static void qlinear_binary(mp_sctx *c) {
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    int32_t et = type_of(c, 0, 0);
    int32_t r = mp_broadcast(c, mp_in(c, 0), mp_in(c, 3), dims);
    if (r < 0) mp_out_unranked(c, 0, et, "input rank unknown or shapes do not broadcast");
    else
        mp_out(c, 0, et, r, dims);
}

/* QLinearConcat(Y_s, Y_zp, (X, X_s, X_zp)...): concat of the X along axis. */
static void qlinear_concat(mp_sctx *c) {
    const memplan_vshape *x0 = ranked(c, 2);
    int32_t et = type_of(c, 2, 0);
    int32_t axis = x0 ? mp_axis(mp_attr_int(c, "axis", 0), x0->rank) : -1;
    if (axis < 0) {
        mp_out_unranked(c, 0, et, "input rank or axis unknown");
        return;
    }
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    memcpy(dims, x0->dims, (size_t)x0->rank * sizeof *dims);
    for (int32_t k = 5; k < mp_n_in(c); k += 3) {
        const memplan_vshape *x = ranked(c, k);
        dims[axis] = x && x->rank == x0->rank ? memplan_expr_add(P(c), dims[axis], x->dims[axis]) : MEMPLAN_EXPR_NONE;
        if (dims[axis] == MEMPLAN_EXPR_NONE) break;
    }
    mp_out(c, 0, et, x0->rank, dims);
}

/* QLinearGlobalAveragePool(X, ...) -> spatial dims 1 (channels_last aware). */
static void qlinear_global_avg_pool(mp_sctx *c) {
    const memplan_vshape *x = ranked(c, 0);
    int32_t et = type_of(c, 0, 0);
    if (!x || x->rank < 3) {
        mp_out_unranked(c, 0, et, "input rank unknown");
        return;
    }
    bool last = mp_attr_int(c, "channels_last", 0) != 0;
    memplan_expr *dims = mp_tmp_exprs(c, R);
    if (!dims) return;
    for (int32_t i = 0; i < x->rank; i++) dims[i] = mp_const(c, 1);
    dims[0] = x->dims[0];
    dims[last ? x->rank - 1 : 1] = x->dims[last ? x->rank - 1 : 1];
    mp_out(c, 0, et, x->rank, dims);
}

/* QLinearAveragePool(X, x_s, x_zp, y_s, y_zp): AveragePool's dims. */
static void qlinear_avg_pool(mp_sctx *c) { pool_out(c, mp_attr_int(c, "channels_last", 0) != 0); }

/* ---- quantization (contrib versions) ----------------------------------- */

static void quantize_linear(mp_sctx *c) { out_like_typed(c, 0, type_of(c, 2, MEMPLAN_DTYPE_UINT8), ranked(c, 0)); }
static void dequantize_linear(mp_sctx *c) { out_like_typed(c, 0, type_of(c, 1, MEMPLAN_DTYPE_FLOAT), ranked(c, 0)); }

/* ---- others ------------------------------------------------------------ */

/* GridSample(X [N,C,H,W], grid [N,Ho,Wo,2]) -> [N,C,Ho,Wo]. */
static void grid_sample(mp_sctx *c) {
    const memplan_vshape *x = ranked(c, 0), *g = ranked(c, 1);
    int32_t et = type_of(c, 0, 0);
    if (!x || !g || x->rank != 4 || g->rank != 4) {
        mp_out_unranked(c, 0, et, "input or grid rank unknown");
        return;
    }
    memplan_expr dims[4] = {x->dims[0], x->dims[1], g->dims[1], g->dims[2]};
    mp_out(c, 0, et, 4, dims);
}

/* Range(start, limit, delta?) -> [ceil((limit - start) / delta)] when known. */
static void range(mp_sctx *c) {
    memplan_expr s = scalar_amount(c, 0), l = scalar_amount(c, 1),
                 d = mp_in(c, 2) ? scalar_amount(c, 2) : mp_const(c, 1);
    memplan_expr n = MEMPLAN_EXPR_NONE;
    int64_t k;
    if (s != MEMPLAN_EXPR_NONE && l != MEMPLAN_EXPR_NONE && memplan_expr_is_const(P(c), d, &k) && k != 0)
        n = memplan_expr_max(P(c), memplan_expr_ceildiv(P(c), memplan_expr_sub(P(c), l, s), d), mp_const(c, 0));
    mp_out(c, 0, type_of(c, 0, MEMPLAN_DTYPE_INT64), 1, &n);
}

const mp_rule mp_rules_contrib[] = {
    /* activations and elementwise */
    {MS, "Gelu", like_input0},
    {MS, "FastGelu", like_input0},
    {MS, "BiasGelu", like_input0},
    {MS, "QuickGelu", like_input0},
    {MS, "BiasAdd", like_input0},
    {MS, "BiasSoftmax", like_input0},
    {MS, "BiasDropout", bias_dropout},
    {MS, "BitmaskBiasDropout", bitmask_bias_dropout},
    {MS, "BiasSplitGelu", bias_split_gelu},
    {MS, "RotaryEmbedding", like_input0},
    {MS, "Inverse", like_input0},
    {MS, "Trilu", like_input0},
    {MS, "GroupNorm", like_input0},
    {MS, "SkipGroupNorm", skip_group_norm},
    {MS, "MoE", like_input0}, /* mixtures of experts: [tokens, hidden] or [batch, seq, hidden] in and out */
    {MS, "QMoE", like_input0},
    {MS, "QLinearSigmoid", like_input0},
    {MS, "QLinearLeakyRelu", like_input0},
    {MS, "QLinearSoftmax", like_input0},
    /* layer norms */
    {MS, "LayerNormalization", layer_norm},
    {MS, "SimplifiedLayerNormalization", layer_norm},
    {MS, "SkipLayerNormalization", skip_layer_norm},
    {MS, "SkipSimplifiedLayerNormalization", skip_layer_norm},
    {MS, "EmbedLayerNormalization", embed_layer_norm},
    {MS, "QEmbedLayerNormalization", qembed_layer_norm},
    /* attention */
    {MS, "Attention", attention},
    {MS, "QAttention", qattention},
    {MS, "MultiHeadAttention", multi_head_attention},
    {MS, "GroupQueryAttention", group_query_attention},
    {MS, "DecoderMaskedMultiHeadAttention", decoder_masked_mha},
    {MS, "SparseAttention", sparse_attention},
    /* conv and matmul */
    {MS, "FusedConv", fused_conv},
    {MS, "NhwcConv", nhwc_conv},
    {MS, "FusedMatMul", fused_matmul},
    {MS, "TransposeMatMul", fused_matmul}, /* FusedMatMul's first name */
    {MS, "MatMulBnb4", matmul_nbits},
    {MS, "MatMulInteger16", matmul_integer16},
    {MS, "CDist", cdist},
    {MS, "NhwcFusedConv", nhwc_conv},
    {MS, "FusedGemm", fused_gemm},
    {MS, "DynamicQuantizeMatMul", dynamic_quantize_matmul},
    {MS, "MatMulIntegerToFloat", matmul_integer_to_float},
    {MS, "MatMulNBits", matmul_nbits},
    {MS, "GatherBlockQuantized", gather_block_quantized},
    {MS, "QGemm", qgemm},
    /* QLinear */
    {MS, "QLinearAdd", qlinear_binary},
    {MS, "QLinearMul", qlinear_binary},
    {MS, "QLinearConcat", qlinear_concat},
    {MS, "QLinearGlobalAveragePool", qlinear_global_avg_pool},
    {MS, "QLinearAveragePool", qlinear_avg_pool},
    {MS, "QLinearWhere", qlinear_where},
    {MS, "NhwcMaxPool", nhwc_max_pool},
    {MS, "QuantizeLinear", quantize_linear},
    {MS, "DequantizeLinear", dequantize_linear},
    /* others */
    {MS, "GridSample", grid_sample},
    {MS, "Range", range},
    {MS, "CropAndResize", crop_and_resize},
    {MS, "MaxpoolWithMask", maxpool_with_mask},
    {MS, "ExpandDims", expand_dims},
    {MS, "NGramRepeatBlock", ngram_repeat_block},
    {MS, "MurmurHash3", murmur_hash3},
    /* generation loops */
    {MS, "BeamSearch", beam_search},
    {MS, "WhisperBeamSearch", beam_search},
    {MS, "GreedySearch", greedy_search},
    {MS, "Sampling", greedy_search},
    {NULL, NULL, NULL},
};
