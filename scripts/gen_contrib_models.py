#!/usr/bin/env python3
"""gen_contrib_models.py OUTDIR -- five small models (random weights) in the
forms ONNX Runtime's own tools write, built on its contrib ops (com.microsoft),
and one of ai.onnx.ml:

  genai_decoder.onnx  the model builder of ONNX Runtime GenAI (how int4 LLMs
      such as its Phi, Llama and Qwen exports ship): an int4 embedding table
      (GatherBlockQuantized), RMS norms (SimplifiedLayerNormalization,
      SkipSimplifiedLayerNormalization), 4-bit projections (MatMulNBits),
      GroupQueryAttention with rotary embedding and a KV cache, a SiLU-gated
      MLP. Inputs input_ids [batch, sequence_length], attention_mask
      [batch, total_sequence_length], past_key_values.N.key/value
      [batch, 2, past_sequence_length, 16]; outputs logits, present.N.*.
  bert_encoder.onnx   the transformer optimizer's fusions of a BERT layer
      (EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu,
      FastGelu, QuickGelu, FusedMatMul), then a cached MultiHeadAttention with
      RotaryEmbedding and GPT-2's causal Attention with its 5-D cache. Inputs
      input_ids, segment_ids, attention_mask, position_ids [batch, seq],
      past_key/value [batch, 4, past, 8], past_kv [2, batch, 4, past, 8].
  quant_conv.onnx     FusedConv, GridSample, the QLinear ops, the contrib
      Quantize/DequantizeLinear, DynamicQuantizeMatMul, MatMulIntegerToFloat
      and QGemm. Inputs image [N, 3, H, W], grid [N, Ho, Wo, 2].
  misc_ops.onnx       the rest ONNX Runtime runs on a CPU: TransposeMatMul, CDist,
      MatMulInteger16, MatMulBnb4, ExpandDims, MurmurHash3, NGramRepeatBlock,
      CropAndResize, MaxpoolWithMask, a beam search decoder's step
      (DecoderMaskedMultiHeadAttention, its cache one buffer of max_len),
      QLinearWhere, NhwcMaxPool, QEmbedLayerNormalization. Inputs a [M, 5],
      ids/ids32/mask32 [batch, len], scores [batch, 50], image [N, 3, H, W],
      rois [R, 4], roi_batch [R], pool_mask [1, 3, H, W], step [B, 1, 16],
      cache_k/v [B, 2, max_len, 8], cache_len (scalar).
  ml_pipeline.onnx    a scikit-learn pipeline as skl2onnx writes one (ai.onnx.ml:
      Imputer, Scaler, Normalizer, the linear, SVM and tree classifiers and
      regressors with integer and string labels, Binarizer, OneHotEncoder,
      LabelEncoder, ArrayFeatureExtractor, FeatureVectorizer). Inputs X [N, 4],
      category [N, C].

wasm-tests/ort-shapes.test.js writes them at test time and has ONNX Runtime
run them: every value's shape must be ours. No npm package ships such models,
and the shapes of models that use these ops rest on our reading of the op
schemas alone otherwise."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"


class Builder:
    """Nodes and initializers of one graph, named after their outputs."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []

    def init(self, name, arr):
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def weight(self, name, *shape):
        return self.init(name, (self.rng.standard_normal(shape) * 0.05).astype(np.float32))

    def scale_zero(self, name):
        """A scalar scale (0.05) and uint8 zero point (128): the names name_s, name_z."""
        return [self.init(name + "_s", np.array(0.05, np.float32)), self.init(name + "_z", np.array(128, np.uint8))]

    def bytes(self, name, *shape):
        return self.init(name, self.rng.integers(0, 255, shape, dtype=np.uint8))

    def node(self, op, ins, outs, domain="", **attrs):
        self.nodes.append(helper.make_node(op, ins, outs, name=outs[0] + "_node", domain=domain, **attrs))
        return outs[0]

    def save(self, path, name, inputs, outputs, opset):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
        model.ir_version = 7
        onnx.save(model, path)


def tensor(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def rotary_caches(b, head, max_pos):
    ang = np.outer(np.arange(max_pos), 1.0 / 10000 ** (np.arange(0, head, 2) / head))
    return b.init("cos_cache", np.cos(ang).astype(np.float32)), b.init("sin_cache", np.sin(ang).astype(np.float32))


def genai_decoder(path):
    vocab, hidden, heads, kv_heads, inter, layers, block = 256, 64, 4, 2, 128, 2, 32
    head = hidden // heads
    b = Builder(7)

    def nbits(x, name, k, n):
        w = b.bytes(name + ".qweight", n, k // block, block // 2)
        s = b.init(name + ".scales", (b.rng.random(n * (k // block)) * 0.01).astype(np.float32))
        return b.node("MatMulNBits", [x, w, s], [name + ".out"], MS, K=k, N=n, bits=4, block_size=block)

    def skip_rms(x, skip, name):
        w = b.init(name + ".weight", np.ones(hidden, np.float32))
        return b.node("SkipSimplifiedLayerNormalization", [x, skip, w], [name + ".out", "", "", name + ".sum"], MS,
                      epsilon=1e-5), name + ".sum"

    table = b.bytes("embed.qweight", vocab, hidden // 2)
    scales = b.init("embed.scales", (b.rng.random((vocab, hidden // block)) * 0.01).astype(np.float32))
    h = b.node("GatherBlockQuantized", [table, "input_ids", scales], ["embed.out"], MS, bits=4, block_size=block,
               gather_axis=0, quantize_axis=1)
    # seqlens_k = sum(mask) - 1 and total_sequence_length = the mask's width, as int32
    s = b.node("ReduceSum", ["attention_mask", b.init("axes1", np.array([1], np.int64))], ["mask.sum"], keepdims=0)
    s = b.node("Sub", [s, b.init("one", np.array(1, np.int64))], ["mask.sub"])
    seqlens = b.node("Cast", [s], ["seqlens_k"], to=TensorProto.INT32)
    width = b.node("Gather", [b.node("Shape", ["attention_mask"], ["mask.shape"]), b.init("idx1", np.array(1))],
                   ["mask.width"], axis=0)
    total = b.node("Cast", [width], ["total_seq_len"], to=TensorProto.INT32)
    cos, sin = rotary_caches(b, head, 64)
    inputs = [tensor("input_ids", TensorProto.INT64, ["batch", "sequence_length"]),
              tensor("attention_mask", TensorProto.INT64, ["batch", "total_sequence_length"])]
    outputs = [tensor("logits", TensorProto.FLOAT, ["batch", "sequence_length", vocab])]
    norm = b.init("layers.0.input_layernorm.weight", np.ones(hidden, np.float32))
    x = b.node("SimplifiedLayerNormalization", [h, norm], ["layers.0.input_layernorm.out"], axis=-1, epsilon=1e-5,
               stash_type=1)
    residual = h
    for i in range(layers):
        pre, past = f"layers.{i}", f"past_key_values.{i}"
        for kv in ("key", "value"):
            inputs.append(tensor(f"{past}.{kv}", TensorProto.FLOAT, ["batch", kv_heads, "past_sequence_length", head]))
            outputs.append(tensor(f"present.{i}.{kv}", TensorProto.FLOAT,
                                  ["batch", kv_heads, "total_sequence_length", head]))
        q = nbits(x, pre + ".attn.q_proj", hidden, hidden)
        k = nbits(x, pre + ".attn.k_proj", hidden, kv_heads * head)
        v = nbits(x, pre + ".attn.v_proj", hidden, kv_heads * head)
        att = b.node("GroupQueryAttention", [q, k, v, past + ".key", past + ".value", seqlens, total, cos, sin],
                     [pre + ".attn.out", f"present.{i}.key", f"present.{i}.value"], MS, num_heads=heads,
                     kv_num_heads=kv_heads, do_rotary=1, rotary_interleaved=0)
        x, residual = skip_rms(nbits(att, pre + ".attn.o_proj", hidden, hidden), residual,
                               pre + ".post_attention_layernorm")
        gate = nbits(x, pre + ".mlp.gate_proj", hidden, inter)
        act = b.node("Mul", [gate, b.node("Sigmoid", [gate], [pre + ".mlp.sig"])], [pre + ".mlp.act"])
        prod = b.node("Mul", [act, nbits(x, pre + ".mlp.up_proj", hidden, inter)], [pre + ".mlp.prod"])
        nxt = f"layers.{i + 1}.input_layernorm" if i + 1 < layers else "norm"
        x, residual = skip_rms(nbits(prod, pre + ".mlp.down_proj", inter, hidden), residual, nxt)
    b.node("Identity", [nbits(x, "lm_head", hidden, vocab)], ["logits"])
    b.save(path, "genai_decoder", inputs, outputs, 14)


def bert_encoder(path):
    vocab, hidden, heads, inter, max_pos = 128, 32, 4, 64, 64
    b = Builder(11)
    w = b.weight
    emb = b.node("EmbedLayerNormalization",
                 ["input_ids", "segment_ids", w("word", vocab, hidden), w("pos", max_pos, hidden), w("seg", 2, hidden),
                  w("gamma0", hidden), w("beta0", hidden), "attention_mask"], ["emb.out", "mask_index", "emb.sum"], MS,
                 epsilon=1e-12)
    att = b.node("Attention", [emb, w("qkv", hidden, 3 * hidden), w("qkv_b", 3 * hidden), "mask_index"], ["att.out"],
                 MS, num_heads=heads)
    ln1 = b.node("SkipLayerNormalization", [att, emb, w("g1", hidden), w("b1", hidden), w("bias1", hidden)],
                 ["ln1.out", "ln1.mean", "ln1.inv", "ln1.sum"], MS, epsilon=1e-12)
    up = b.node("MatMul", [ln1, w("up", hidden, inter)], ["up.out"])
    gelu = b.node("BiasGelu", [up, w("up_b", inter)], ["gelu.out"], MS)
    quick = b.node("QuickGelu", [b.node("FastGelu", [up, w("up_b2", inter)], ["fastgelu.out"], MS)],
                   ["quickgelu.out"], MS, alpha=1.702)
    mix = b.node("Add", [gelu, quick], ["mix.out"])
    down = b.node("FusedMatMul", [mix, w("downT", hidden, inter)], ["down.out"], MS, transB=1)
    ln2 = b.node("SkipLayerNormalization", [down, ln1, w("g2", hidden), w("b2", hidden)], ["ln2.out"], MS,
                 epsilon=1e-12)
    cos, sin = rotary_caches(b, hidden // heads, max_pos)
    q = b.node("RotaryEmbedding", [b.node("MatMul", [ln2, w("wq", hidden, hidden)], ["q.out"]), "position_ids", cos,
                                   sin], ["rot.out"], MS, num_heads=heads)
    k = b.node("MatMul", [ln2, w("wk", hidden, hidden)], ["k.out"])
    v = b.node("MatMul", [ln2, w("wv", hidden, hidden)], ["v.out"])
    mha = b.node("MultiHeadAttention", [q, k, v, "", "", "", "past_key", "past_value"],
                 ["mha.out", "present_key", "present_value"], MS, num_heads=heads)
    h = b.node("Add", [mha, ln2], ["mha_res"])
    # GPT-2's fused attention: causal, its cache one 5-D tensor [2, batch, heads, past, head]
    b.node("Attention", [h, w("qkv2", hidden, 3 * hidden), w("qkv2_b", 3 * hidden), "", "past_kv"],
           ["last_hidden_state", "present_kv"], MS, num_heads=heads, unidirectional=1)
    ids = ["batch", "seq"]
    inputs = [tensor("input_ids", TensorProto.INT32, ids), tensor("segment_ids", TensorProto.INT32, ids),
              tensor("attention_mask", TensorProto.INT32, ids), tensor("position_ids", TensorProto.INT64, ids)]
    inputs += [tensor(n, TensorProto.FLOAT, ["batch", heads, "past", hidden // heads]) for n in ("past_key", "past_value")]
    inputs.append(tensor("past_kv", TensorProto.FLOAT, [2, "batch", heads, "past", hidden // heads]))
    outputs = [tensor(n, TensorProto.FLOAT, None)
               for n in ("last_hidden_state", "present_key", "present_value", "present_kv")]
    b.save(path, "bert_encoder", inputs, outputs, 14)


def quant_conv(path):
    b = Builder(5)
    f, u8, node, sz = b.weight, b.bytes, b.node, b.scale_zero

    conv = node("FusedConv", ["image", f("cw", 8, 3, 3, 3), f("cb", 8)], ["fconv"], MS, activation="Relu",
                pads=[1, 1, 1, 1])
    conv = node("Conv", [conv, f("cw2", 4, 8, 3, 3)], ["conv2"], strides=[2, 2])
    grid = node("GridSample", [conv, "grid"], ["gsample"], MS)
    q = node("QuantizeLinear", [grid, *sz("in")], ["q_in"], MS)
    qa = node("QLinearAdd", [q, *sz("a"), q, *sz("b"), *sz("c")], ["qadd"], MS)
    qm = node("QLinearMul", [qa, *sz("d"), u8("qk", 1, 4, 1, 1), *sz("e"), *sz("f")], ["qmul"], MS)
    qp = node("QLinearAveragePool", [qm, *sz("g"), *sz("h")], ["qpool"], MS, kernel_shape=[2, 2], strides=[1, 1])
    qgap = node("QLinearGlobalAveragePool", [qm, *sz("i"), *sz("j")], ["qgap"], MS)
    qsig = node("QLinearSigmoid", [qp, *sz("k"), *sz("l")], ["qsig"], MS)
    qcat = node("QLinearConcat", [*sz("m"), qsig, *sz("n"), qsig, *sz("o")], ["qcat"], MS, axis=1)
    node("Flatten", [node("DequantizeLinear", [qcat, *sz("p")], ["deq"], MS)], ["flat"], axis=1)
    feat = node("DequantizeLinear", [node("Flatten", [qgap], ["feat_q"], axis=1), *sz("q")], ["feat"], MS)
    node("DynamicQuantizeMatMul", [feat, u8("bq", 4, 6), *sz("r")], ["dqmm"], MS)
    node("DynamicQuantizeLinear", [feat], ["dql", "dql_s", "dql_z"])
    node("MatMulIntegerToFloat", ["dql", u8("bq2", 4, 5), "dql_s", *sz("t")[:1], "dql_z", *sz("u")[1:]], ["mitf"], MS)
    node("QGemm", ["dql", "dql_s", "dql_z", u8("bq3", 6, 4), *sz("v"), "", *sz("y")], ["qgemm"], MS, transB=1)
    inputs = [tensor("image", TensorProto.FLOAT, ["N", 3, "H", "W"]),
              tensor("grid", TensorProto.FLOAT, ["N", "Ho", "Wo", 2])]
    outputs = [tensor(n, TensorProto.FLOAT, None) for n in ("flat", "dqmm", "mitf")]
    outputs.append(tensor("qgemm", TensorProto.UINT8, None))
    b.save(path, "quant_conv", inputs, outputs, 13)


def misc_ops(path):
    b = Builder(3)
    f, node = b.weight, b.node
    node("TransposeMatMul", ["a", f("bt", 6, 5)], ["tmm"], MS, transB=1)
    node("CDist", ["a", f("pts", 7, 5)], ["dist"], MS, metric="euclidean")
    a16 = node("Cast", ["a"], ["a16"], to=TensorProto.INT16)
    node("MatMulInteger16", [a16, b.init("b16", np.ones((5, 3), np.int16))], ["mm16"], MS)
    node("ExpandDims", ["a", b.init("ax", np.array(-1, np.int32))], ["expanded"], MS)
    node("MurmurHash3", ["ids"], ["hashes"], MS, positive=1)
    node("NGramRepeatBlock", ["ids", "scores"], ["blocked"], MS, ngram_size=2)
    node("CropAndResize", ["image", "rois", "roi_batch", b.init("crop", np.array([5, 4], np.int32))], ["crops"], MS)
    node("MaxpoolWithMask", ["image", "pool_mask"], ["masked_pool"], MS, kernel_shape=[2, 2], strides=[2, 2])
    # one decoding step of a beam search decoder: its cache in one buffer of the longest length
    hidden, heads = 16, 2
    q = node("MatMul", ["step", f("wq", hidden, hidden)], ["dq"])
    k = node("MatMul", ["step", f("wk", hidden, hidden)], ["dk"])
    v = node("MatMul", ["step", f("wv", hidden, hidden)], ["dv"])
    node("DecoderMaskedMultiHeadAttention", [q, k, v, "", "", "cache_k", "cache_v", "cache_len"],
         ["dmmha", "dmmha_key", "dmmha_value"], MS, num_heads=heads, past_present_share_buffer=1)
    node("MatMulBnb4", ["a", b.bytes("bnb", 12 * 5 // 2), b.init("absmax", np.ones(1, np.float32))], ["bnb4"], MS,
         K=5, N=12, block_size=64, quant_type=1)
    # quantized: where, an NHWC max pool, a quantized BERT embedding
    sz = b.scale_zero
    qa = node("QuantizeLinear", ["a", *sz("qa")], ["qa"])
    cond = node("Greater", ["a", b.init("zero", np.array(0, np.float32))], ["cond"])
    node("QLinearWhere", [cond, qa, *sz("x"), b.bytes("qy", 1, 5), *sz("y"), *sz("z")], ["qwhere"], MS)
    nhwc = node("Transpose", [node("QuantizeLinear", ["image", *sz("qi")], ["qimage"])], ["qnhwc"], perm=[0, 2, 3, 1])
    node("NhwcMaxPool", [nhwc], ["nhwc_pool"], MS, kernel_shape=[3, 3], strides=[1, 2], pads=[1, 1, 1, 1])
    node("QEmbedLayerNormalization",
         ["ids32", "", b.bytes("qword", 64, 8), b.bytes("qpos", 16, 8), "", b.bytes("qgamma", 8), b.bytes("qbeta", 8),
          "mask32", *[b.init(n, np.array(0.02, np.float32)) for n in ("ws", "ps")], "",
          *[b.init(n, np.array(0.02, np.float32)) for n in ("gs", "bs")],
          *[b.init(n, np.array(128, np.uint8)) for n in ("wz", "pz")], "",
          *[b.init(n, np.array(128, np.uint8)) for n in ("gz", "bz")]], ["qemb", "qemb_mask"], MS)
    inputs = [tensor("a", TensorProto.FLOAT, ["M", 5]),
              tensor("ids", TensorProto.INT64, ["batch", "len"]), tensor("scores", TensorProto.FLOAT, ["batch", 50]),
              tensor("image", TensorProto.FLOAT, ["N", 3, "H", "W"]), tensor("rois", TensorProto.FLOAT, ["R", 4]),
              tensor("roi_batch", TensorProto.INT32, ["R"]), tensor("pool_mask", TensorProto.INT32, [1, 3, "H", "W"]),
              tensor("step", TensorProto.FLOAT, ["B", 1, hidden]),
              tensor("cache_k", TensorProto.FLOAT, ["B", heads, "max_len", hidden // heads]),
              tensor("cache_v", TensorProto.FLOAT, ["B", heads, "max_len", hidden // heads]),
              tensor("cache_len", TensorProto.INT32, []), tensor("ids32", TensorProto.INT32, ["batch", "len"]),
              tensor("mask32", TensorProto.INT32, ["batch", "len"])]
    outputs = [tensor(n, TensorProto.FLOAT, None) for n in ("tmm", "dist", "expanded", "blocked", "crops",
                                                            "masked_pool", "dmmha", "bnb4")]
    outputs += [tensor("mm16", TensorProto.INT32, None), tensor("hashes", TensorProto.UINT32, None),
                tensor("qwhere", TensorProto.UINT8, None), tensor("nhwc_pool", TensorProto.UINT8, None),
                tensor("qemb", TensorProto.FLOAT, None)]
    b.save(path, "misc_ops", inputs, outputs, 13)


def ml_pipeline(path):
    """A scikit-learn pipeline as skl2onnx writes it (ai.onnx.ml)."""
    ml = "ai.onnx.ml"
    b = Builder(9)
    node = b.node
    x = node("Imputer", ["X"], ["imputed"], ml, imputed_value_floats=[0.0], replaced_value_float=float("nan"))
    x = node("Scaler", [x], ["scaled"], ml, offset=[0.1, 0.2, 0.3, 0.4], scale=[1.0, 2.0, 0.5, 1.5])
    node("Normalizer", [x], ["normalized"], ml, norm="L2")
    node("LinearClassifier", [x], ["lin_label", "lin_prob"], ml, classlabels_ints=[0, 1, 2],
         coefficients=list(b.rng.standard_normal(12)), intercepts=[0.1, 0.2, 0.3], post_transform="SOFTMAX")
    node("LinearRegressor", [x], ["lin_reg"], ml, coefficients=list(b.rng.standard_normal(8)), intercepts=[0.0, 1.0],
         targets=2)
    node("SVMClassifier", [x], ["svm_label", "svm_score"], ml, classlabels_ints=[3, 7], kernel_type="LINEAR",
         coefficients=[1.0, -1.0], vectors_per_class=[1, 1], support_vectors=list(b.rng.standard_normal(8)), rho=[0.0],
         kernel_params=[0.1, 0.0, 3.0])
    tree = dict(nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
                nodes_values=[0.5, 0.0, 0.0], nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_truenodeids=[1, 0, 0],
                nodes_falsenodeids=[2, 0, 0])
    node("TreeEnsembleClassifier", [x], ["tree_label", "tree_prob"], ml, classlabels_int64s=[0, 1],
         class_treeids=[0, 0], class_nodeids=[1, 2], class_ids=[0, 1], class_weights=[1.0, 1.0], **tree)
    node("TreeEnsembleRegressor", [x], ["tree_reg"], ml, n_targets=1, target_treeids=[0, 0], target_nodeids=[1, 2],
         target_ids=[0, 0], target_weights=[1.5, -0.5], **tree)
    node("Binarizer", [x], ["binary"], ml, threshold=0.5)
    node("ArrayFeatureExtractor", [x, b.init("cols", np.array([0, 2], np.int64))], ["picked"], ml)
    node("OneHotEncoder", ["category"], ["onehot"], ml, cats_int64s=[1, 2, 3, 5], zeros=1)
    node("LabelEncoder", ["category"], ["relabelled"], ml, keys_int64s=[1, 2, 3], values_int64s=[10, 20, 30],
         default_int64=-1)
    node("FeatureVectorizer", [x, "picked"], ["features"], ml, inputdimensions=[4, 2])
    # binary and string-labelled classifiers, an RBF SVM with and without probabilities
    node("LinearClassifier", ["X"], ["bin_label", "bin_prob"], ml, classlabels_ints=[0, 1],
         coefficients=list(b.rng.standard_normal(4)), intercepts=[0.1], post_transform="LOGISTIC")
    node("LinearClassifier", ["X"], ["str_label", "str_prob"], ml, classlabels_strings=["a", "b"],
         coefficients=list(b.rng.standard_normal(4)), intercepts=[0.1])
    rbf = dict(classlabels_ints=[0, 1, 2], kernel_type="RBF", kernel_params=[0.1, 0.0, 3.0],
               coefficients=list(b.rng.standard_normal(6)), vectors_per_class=[1, 1, 1],
               support_vectors=list(b.rng.standard_normal(12)), rho=[0.0, 0.1, 0.2])
    node("SVMClassifier", ["X"], ["rbf_label", "rbf_score"], ml, **rbf)
    node("SVMClassifier", ["X"], ["rbfp_label", "rbfp_prob"], ml, prob_a=[1.0] * 3, prob_b=[0.0] * 3, **rbf)
    node("TreeEnsembleClassifier", [x], ["tstr_label", "tstr_prob"], ml, classlabels_strings=["x", "y", "z"],
         class_treeids=[0, 0], class_nodeids=[1, 2], class_ids=[0, 2], class_weights=[0.3, 0.7], **tree)
    inputs = [tensor("X", TensorProto.FLOAT, ["N", 4]), tensor("category", TensorProto.INT64, ["N", "C"])]
    outputs = [tensor(n, TensorProto.FLOAT, None)
               for n in ("normalized", "lin_prob", "lin_reg", "svm_score", "tree_prob", "tree_reg", "binary",
                         "onehot", "features")]
    outputs += [tensor(n, TensorProto.FLOAT, None) for n in ("bin_prob", "str_prob", "rbf_score", "rbfp_prob",
                                                            "tstr_prob")]
    outputs += [tensor(n, TensorProto.INT64, None)
                for n in ("lin_label", "svm_label", "tree_label", "relabelled", "bin_label", "rbf_label",
                          "rbfp_label")]
    outputs += [tensor(n, TensorProto.STRING, None) for n in ("str_label", "tstr_label")]
    graph = helper.make_graph(b.nodes, "ml_pipeline", inputs, outputs, b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(ml, 2)])
    model.ir_version = 7
    onnx.save(model, path)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    genai_decoder(os.path.join(out, "genai_decoder.onnx"))
    bert_encoder(os.path.join(out, "bert_encoder.onnx"))
    quant_conv(os.path.join(out, "quant_conv.onnx"))
    misc_ops(os.path.join(out, "misc_ops.onnx"))
    ml_pipeline(os.path.join(out, "ml_pipeline.onnx"))
