/* test_shapes_misc.c -- shape rules of the misc, quant and contrib families:
 * sequences/optionals, signal, random, training, quantization and ONNX
 * Runtime contrib (com.microsoft) ops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"
#include "shapes_test_util.h"

/* Buffers the builder does not free (tensor data); freed after packing. */
static void *owned[64];
static size_t n_owned;

static void infer(ctx *c, mb_graph *g) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    for (size_t i = 0; i < n_owned; i++) free(owned[i]);
    n_owned = 0;
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &c->m, &err)) fail_msg("%s", err.message);
    free(bytes);
    assert_int_equal(memplan_shapes_infer(c->m, &c->s, &err), MEMPLAN_OK);
}

/* Kind of a main-graph value. */
static memplan_type_kind kind_of(ctx *c, const char *name) {
    int32_t id = memplan_graph_find(c->m->graph, name);
    assert_true(id >= 0);
    return memplan_shapes_value(c->s, c->m->graph, id)->kind;
}

/* An int64 initializer with data (dims "" for a scalar). */
static void int64_init(mb_graph *g, const char *name, const char *dims, size_t n, const int64_t *v) {
    uint8_t *data = malloc(n ? n * 8 : 1);
    memcpy(data, v, n * 8);
    mb_initializer_raw(g, name, MEMPLAN_DTYPE_INT64, dims, data, n * 8);
    owned[n_owned++] = data;
}

/* Set a node's domain (a copy: the builder frees it with the node). */

#define MS "com.microsoft"
#define I64(...)                                                                                                       \
    (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]) { __VA_ARGS__ }

/* ---- sequences and optionals ------------------------------------------- */

static void test_sequence_construct_at_concat(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "2,3,4");
    mb_input(g, "y", 1, "2,3,4");
    mb_input(g, "z", 1, "2,5,4");
    int64_init(g, "p2", "", 1, (int64_t[]){-1});
    mb_node(g, "SequenceConstruct", "x,y,z", "s");
    mb_node(g, "SequenceAt", "s,p2", "last");
    mb_node(g, "SequenceLength", "s", "len");
    mb_int_attr(mb_node(g, "ConcatFromSequence", "s", "cat"), "axis", 1);
    mb_node(g, "SequenceErase", "s", "s2"); /* drops z */
    Onnx__NodeProto *st = mb_node(g, "ConcatFromSequence", "s2", "stacked");
    mb_int_attr(st, "axis", 0);
    mb_int_attr(st, "new_axis", 1);
    mb_node(g, "SequenceInsert", "s2,z,p2", "s3"); /* z before y */
    mb_node(g, "SequenceAt", "s3,p2", "y_again");
    mb_output(g, "cat", 1, NULL);
    ctx c;
    infer(&c, g);
    assert_int_equal(kind_of(&c, "s"), MEMPLAN_TYPE_SEQUENCE);
    expect(&c, "last", "float[2,5,4] 160");
    expect(&c, "len", "int64[] 8");
    expect(&c, "cat", "float[2,11,4] 352");
    expect(&c, "stacked", "float[2,2,3,4] 192");
    expect(&c, "y_again", "float[2,3,4] 96");
    done(&c);
}

/* SplitToSequence along a symbolic axis, SequenceAt at an unknown position. */
static void test_split_to_sequence(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "batch,6");
    mb_input(g, "pos", 7, "");
    int64_init(g, "sizes", "2", 2, (int64_t[]){2, 4});
    Onnx__NodeProto *n = mb_node(g, "SplitToSequence", "x", "s");
    mb_int_attr(n, "axis", 0);
    mb_int_attr(n, "keepdims", 0);
    mb_node(g, "SequenceAt", "s,pos", "row");
    mb_node(g, "SequenceLength", "s", "len");
    n = mb_node(g, "ConcatFromSequence", "s", "back");
    mb_int_attr(n, "axis", 0);
    mb_int_attr(n, "new_axis", 1);
    mb_int_attr(mb_node(g, "SplitToSequence", "x,sizes", "parts"), "axis", 1);
    mb_node(g, "SequenceAt", "parts,pos", "part");
    mb_int_attr(mb_node(g, "ConcatFromSequence", "parts", "whole"), "axis", 1);
    mb_int_attr(mb_node(g, "SequenceEmpty", "", "e"), "dtype", 7);
    mb_node(g, "SequenceInsert", "e,pos", "one");
    mb_node(g, "SequenceAt", "one,pos", "pos_again");
    ctx c;
    infer(&c, g);
    expect(&c, "row", "float[6] 24");
    expect(&c, "len", "int64[] 8");
    expect(&c, "back", "float[batch,6] 24*batch");
    expect(&c, "part", "float[batch,unk__0] 4*batch*unk__0");
    expect(&c, "whole", "float[batch,6] 24*batch");
    expect(&c, "pos_again", "int64[] 8");
    done(&c);
}

static void test_optional(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "n,3");
    mb_node(g, "Optional", "x", "o");
    mb_node(g, "OptionalHasElement", "o", "has");
    mb_node(g, "OptionalGetElement", "o", "back");
    mb_node(g, "OptionalGetElement", "x", "same"); /* opset 18: a tensor passes */
    ctx c;
    infer(&c, g);
    assert_int_equal(kind_of(&c, "o"), MEMPLAN_TYPE_OPTIONAL);
    expect(&c, "has", "bool[] 1");
    expect(&c, "back", "float[n,3] 12*n");
    expect(&c, "same", "float[n,3] 12*n");
    done(&c);
}

/* ---- other misc ops ---------------------------------------------------- */

static void test_selections_and_strings(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "boxes", 1, "b,k,4");
    mb_input(g, "scores", 1, "b,1,k");
    mb_input(g, "mb", 7, "1");
    mb_input(g, "x", 1, "3,4");
    mb_input(g, "t", 8, "1,c");
    mb_node(g, "NonMaxSuppression", "boxes,scores,mb", "sel");
    mb_node(g, "Unique", "x", "u,ui,uinv,uc");
    mb_int_attr(mb_node(g, "Unique", "x", "ua,uai,uainv,uac"), "axis", -1);
    mb_node(g, "StringNormalizer", "t", "tn");
    mb_node(g, "RegexFullMatch", "t", "tm");
    ctx c;
    infer(&c, g);
    expect(&c, "sel", "int64[unk__0,3] 24*unk__0");
    expect(&c, "u", "float[unk__1] 4*unk__1");
    expect(&c, "uc", "int64[unk__1] 8*unk__1"); /* one count for Y, indices and counts */
    expect(&c, "uinv", "int64[12] 96");
    expect(&c, "ua", "float[3,unk__2] 12*unk__2");
    /* data-dependent, with bounds: min(max per class, k) * b * classes (max per class unknown: k) */
    memplan_expr_pool *p = memplan_shapes_pool(c.s);
    memplan_expr bound;
    assert_int_equal(memplan_shapes_data_dim_count(c.s), 3);
    assert_string_equal(memplan_shapes_data_dim(c.s, 0, &bound), "unk__0");
    assert_string_equal(memplan_expr_str(p, bound), "b*k");
    assert_true(memplan_shapes_data_bound(c.s, "unk__1", &bound));
    assert_string_equal(memplan_expr_str(p, bound), "12");
    assert_true(memplan_shapes_data_bound(c.s, "unk__2", &bound));
    assert_string_equal(memplan_expr_str(p, bound), "4");
    assert_false(memplan_shapes_data_bound(c.s, "b", &bound));
    expect(&c, "uainv", "int64[4] 32");
    expect(&c, "tn", "string[1,c] ?");
    expect(&c, "tm", "bool[1,c] c");
    done(&c);
}

static void test_signal_random_training(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "sig", 1, "1,128,1");
    mb_input(g, "x", 1, "b,n,1");
    int64_init(g, "size", "", 1, (int64_t[]){10});
    int64_init(g, "step", "", 1, (int64_t[]){8});
    int64_init(g, "flen", "", 1, (int64_t[]){16});
    mb_node(g, "HannWindow", "size", "w");
    mb_node(g, "STFT", "sig,step,,flen", "spec");
    mb_int_attr(mb_node(g, "DFT", "x", "f"), "axis", 1);
    Onnx__NodeProto *d = mb_node(g, "DFT", "x", "f1");
    mb_int_attr(d, "axis", 1);
    mb_int_attr(d, "onesided", 1);
    Onnx__NodeProto *r = mb_node(g, "RandomNormal", "", "rn");
    mb_ints_attr(r, "shape", I64(2, 5));
    mb_int_attr(r, "dtype", 11);
    mb_node(g, "Bernoulli", "x", "bern");
    mb_input(g, "R", 1, "");
    mb_input(g, "T", 7, "");
    mb_input(g, "X1", 1, "3");
    mb_input(g, "X2", 1, "4,4");
    mb_input(g, "G1", 1, "3");
    mb_input(g, "G2", 1, "4,4");
    mb_input(g, "V1", 1, "3");
    mb_input(g, "V2", 1, "4,4");
    mb_input(g, "H1", 1, "3");
    mb_input(g, "H2", 1, "4,4");
    in_domain(mb_node(g, "Adam", "R,T,X1,X2,G1,G2,V1,V2,H1,H2", "X1n,X2n,V1n,V2n,H1n,H2n"), "ai.onnx.preview.training");
    ctx c;
    infer(&c, g);
    expect(&c, "w", "float[10] 40");
    expect(&c, "spec", "float[1,15,9,2] 1080");
    expect(&c, "f", "float[b,n,2] 8*b*n");
    expect(&c, "f1", "float[b,n//2+1,2] 8*b*(n//2)+8*b");
    expect(&c, "rn", "double[2,5] 80");
    expect(&c, "bern", "float[b,n,1] 4*b*n");
    expect(&c, "X2n", "float[4,4] 64");
    expect(&c, "V1n", "float[3] 12");
    expect(&c, "H2n", "float[4,4] 64");
    done(&c);
}

/* ---- quant ------------------------------------------------------------- */

static void test_quant(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "n,3,8,8");
    mb_input(g, "s", 1, "");
    mb_input(g, "zp", 3, "");
    mb_input(g, "w", 3, "16,3,3,3");
    mb_input(g, "a", 2, "b,m,k");
    mb_input(g, "bm", 2, "k,5");
    mb_node(g, "QuantizeLinear", "x,s,zp", "q");
    mb_node(g, "QuantizeLinear", "x,s", "q8");
    mb_node(g, "DequantizeLinear", "q,s,zp", "dq");
    mb_node(g, "DynamicQuantizeLinear", "x", "y,ys,yzp");
    mb_node(g, "QLinearMatMul", "a,s,zp,bm,s,zp,s,zp", "mm");
    Onnx__NodeProto *cv = mb_node(g, "QLinearConv", "q,s,zp,w,s,zp,s,zp", "conv");
    mb_ints_attr(cv, "pads", I64(1, 1, 1, 1));
    mb_ints_attr(cv, "strides", I64(2, 2));
    ctx c;
    infer(&c, g);
    expect(&c, "q", "int8[n,3,8,8] 192*n");
    expect(&c, "q8", "uint8[n,3,8,8] 192*n");
    expect(&c, "dq", "float[n,3,8,8] 768*n");
    expect(&c, "y", "uint8[n,3,8,8] 192*n");
    expect(&c, "ys", "float[] 4");
    expect(&c, "yzp", "uint8[] 1");
    expect(&c, "mm", "int8[b,m,5] 5*b*m");
    expect(&c, "conv", "int8[n,16,4,4] 256*n");
    done(&c);
}

/* ---- contrib ----------------------------------------------------------- */

static void test_contrib_activations_and_norms(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 10, "batch,seq,768");
    mb_input(g, "bias", 10, "768");
    mb_input(g, "gamma", 10, "768");
    const char *acts[] = {"Gelu", "FastGelu", "BiasGelu", "QuickGelu"};
    const char *outs[] = {"g0", "g1", "g2", "g3"};
    for (int i = 0; i < 4; i++) in_domain(mb_node(g, acts[i], i == 0 || i == 3 ? "x" : "x,bias", outs[i]), MS);
    in_domain(mb_node(g, "SkipLayerNormalization", "x,x,gamma,bias,bias", "sln,mean,isv,sum"), MS);
    in_domain(mb_node(g, "SkipSimplifiedLayerNormalization", "x,x,gamma", "ssln"), MS);
    mb_int_attr(in_domain(mb_node(g, "LayerNormalization", "x,gamma,bias", "ln,lmean,lisv"), MS), "axis", -1);
    in_domain(mb_node(g, "SimplifiedLayerNormalization", "x,gamma", "rms,rinv"), "");
    ctx c;
    infer(&c, g);
    for (int i = 0; i < 4; i++) expect(&c, outs[i], "float16[batch,seq,768] 1536*batch*seq");
    expect(&c, "sln", "float16[batch,seq,768] 1536*batch*seq");
    expect(&c, "mean", "float[batch,seq,1] 4*batch*seq");
    expect(&c, "isv", "float[batch,seq,1] 4*batch*seq");
    expect(&c, "sum", "float16[batch,seq,768] 1536*batch*seq");
    expect(&c, "ssln", "float16[batch,seq,768] 1536*batch*seq");
    expect(&c, "ln", "float16[batch,seq,768] 1536*batch*seq");
    expect(&c, "lisv", "float[batch,seq,1] 4*batch*seq");
    expect(&c, "rinv", "float[batch,seq,1] 4*batch*seq");
    done(&c);
}

static void test_contrib_attention(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "B,S,768");
    mb_input(g, "w", 1, "768,2304");
    mb_input(g, "b", 1, "2304");
    mb_input(g, "past", 1, "2,B,12,P,64");
    mb_input(g, "k", 1, "B,L,768");
    mb_input(g, "pk", 1, "B,12,P,64");
    mb_input(g, "xq", 2, "B,S,768");
    mb_input(g, "wq", 2, "768,2304");
    mb_input(g, "sc", 1, "");
    mb_input(g, "gq", 10, "B,S,2048");
    mb_input(g, "gk", 10, "B,S,512");
    mb_input(g, "gpk", 10, "B,4,P,128");
    int64_init(g, "total", "", 1, (int64_t[]){256});
    mb_int_attr(in_domain(mb_node(g, "Attention", "x,w,b,,past", "att,present"), MS), "num_heads", 12);
    mb_int_attr(in_domain(mb_node(g, "MultiHeadAttention", "x,k,k,,,,pk,pk", "mha,pkey,pval"), MS), "num_heads", 12);
    mb_int_attr(in_domain(mb_node(g, "QAttention", "xq,wq,b,sc,sc", "qatt"), MS), "num_heads", 12);
    Onnx__NodeProto *gqa = in_domain(mb_node(g, "GroupQueryAttention", "gq,gk,gk,gpk,gpk,,total", "gqa,gkey,gval"), MS);
    mb_int_attr(gqa, "num_heads", 16);
    mb_int_attr(gqa, "kv_num_heads", 4);
    in_domain(mb_node(g, "RotaryEmbedding", "x", "rot"), MS);
    ctx c;
    infer(&c, g);
    expect(&c, "att", "float[B,S,768] 3072*B*S");
    expect(&c, "present", "float[2,B,12,P+S,64] 6144*B*P+6144*B*S");
    expect(&c, "mha", "float[B,S,768] 3072*B*S");
    expect(&c, "pkey", "float[B,12,L+P,64] 3072*B*L+3072*B*P");
    expect(&c, "qatt", "float[B,S,768] 3072*B*S");
    expect(&c, "gqa", "float16[B,S,2048] 4096*B*S");
    expect(&c, "gkey", "float16[B,4,max(P,256),128] 1024*B*max(P,256)");
    expect(&c, "rot", "float[B,S,768] 3072*B*S");
    done(&c);
}

static void test_contrib_conv_matmul(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,3,H,W");
    mb_input(g, "w", 1, "8,3,3,3");
    mb_input(g, "xh", 1, "N,32,32,3");
    mb_input(g, "a", 1, "b,1,M,K");
    mb_input(g, "bt", 1, "h,N2,K");
    mb_input(g, "bi", 3, "K,N2");
    mb_input(g, "s", 1, "");
    mb_input(g, "ai", 2, "M,K");
    Onnx__NodeProto *fc = in_domain(mb_node(g, "FusedConv", "x,w", "fc"), MS);
    mb_ints_attr(fc, "pads", I64(1, 1, 1, 1));
    Onnx__NodeProto *nc = in_domain(mb_node(g, "NhwcConv", "xh,w", "nc"), MS);
    mb_ints_attr(nc, "strides", I64(2, 2));
    mb_int_attr(in_domain(mb_node(g, "FusedMatMul", "a,bt", "fm"), MS), "transB", 1);
    in_domain(mb_node(g, "DynamicQuantizeMatMul", "a,bi,s", "dqm"), MS);
    in_domain(mb_node(g, "MatMulIntegerToFloat", "ai,bi,s,s", "mif"), MS);
    Onnx__NodeProto *nb = in_domain(mb_node(g, "MatMulNBits", "a,bi,s", "nb"), MS);
    mb_int_attr(nb, "K", 4096);
    mb_int_attr(nb, "N", 11008);
    ctx c;
    infer(&c, g);
    expect(&c, "fc", "float[N,8,H,W] 32*H*N*W");
    expect(&c, "nc", "float[N,15,15,8] 7200*N");
    expect(&c, "fm", "float[b,h,M,N2] 4*M*N2*b*h");
    expect(&c, "dqm", "float[b,1,M,N2] 4*M*N2*b");
    expect(&c, "mif", "float[M,N2] 4*M*N2");
    expect(&c, "nb", "float[b,1,M,11008] 44032*M*b");
    done(&c);
}

/* ORT GenAI's int4 embedding tables and mixtures of experts. */
static void test_contrib_gather_block_quantized(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "packed", 2, "32000,1536"); /* uint8, two 4-bit values a byte */
    mb_input(g, "q4", 22, "32000,3072");    /* int4: one value an element */
    mb_input(g, "ids", 7, "B,S");
    mb_input(g, "sc", 10, "32000,96");
    mb_input(g, "zp", 2, "32000,48");
    mb_input(g, "cube", 2, "4,10,16");
    mb_input(g, "pick", 7, "3");
    mb_input(g, "h", 1, "T,512");
    mb_input(g, "img", 10, "N,H,W,320");
    in_domain(mb_node(g, "GatherBlockQuantized", "packed,ids,sc,zp", "emb"), MS);
    in_domain(mb_node(g, "GatherBlockQuantized", "q4,ids,sc", "emb4"), MS);
    mb_int_attr(in_domain(mb_node(g, "GatherBlockQuantized", "packed,ids,sc", "emb8"), MS), "bits", 8);
    Onnx__NodeProto *ax = in_domain(mb_node(g, "GatherBlockQuantized", "cube,pick,h", "mid"), MS);
    mb_int_attr(ax, "gather_axis", -2);
    mb_int_attr(ax, "quantize_axis", 2);
    mb_int_attr(in_domain(mb_node(g, "GatherBlockQuantized", "cube,pick,h", "bad"), MS), "bits", 3);
    in_domain(mb_node(g, "MoE", "h,h,h", "moe"), MS);
    in_domain(mb_node(g, "QMoE", "h,h,h", "qmoe"), MS);
    in_domain(mb_node(g, "SkipGroupNorm", "img,h,h,img", "sgn,sum"), MS);
    ctx c;
    infer(&c, g);
    expect(&c, "emb", "float16[B,S,3072] 6144*B*S");
    expect(&c, "emb4", "float16[B,S,3072] 6144*B*S");
    expect(&c, "emb8", "float16[B,S,1536] 3072*B*S");
    expect(&c, "mid", "float[4,3,32] 1536");
    expect(&c, "bad", "?[?] ?"); /* and a note: bits 3 is invalid */
    expect(&c, "moe", "float[T,512] 2048*T");
    expect(&c, "qmoe", "float[T,512] 2048*T");
    expect(&c, "sgn", "float16[N,H,W,320] 640*H*N*W");
    expect(&c, "sum", "float16[N,H,W,320] 640*H*N*W");
    done(&c);
}

/* ONNX Runtime's generation loops (their lengths input values) and the
 * attention of Phi-3-small's sparse layers. */
static void test_contrib_generation(void **state) {
    (void)state;
    static const int32_t max_len = 20, min_len = 1, beams = 4, ret = 2;
    static const float penalty = 1.0f;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "ids", 6, "B,S");
    mb_input(g, "features", 1, "B,80,3000");
    mb_input(g, "limit", 6, "1");
    mb_initializer_raw(g, "max_length", 6, "", &max_len, sizeof max_len);
    mb_initializer_raw(g, "min_length", 6, "", &min_len, sizeof min_len);
    mb_initializer_raw(g, "num_beams", 6, "", &beams, sizeof beams);
    mb_initializer_raw(g, "num_return", 6, "", &ret, sizeof ret);
    mb_initializer_raw(g, "length_penalty", 1, "", &penalty, sizeof penalty);
    mb_input(g, "q", 10, "B,S,64");
    mb_input(g, "k", 10, "B,S,32");
    mb_input(g, "past", 10, "B,2,128,16");
    mb_int_attr(in_domain(mb_node(g, "BeamSearch", "ids,max_length,min_length,num_beams,num_return,length_penalty",
                                  "seq,seq_scores,scores"),
                          MS),
                "vocab_size", 100);
    in_domain(mb_node(g, "WhisperBeamSearch", "features,max_length,min_length,num_beams,num_return,length_penalty",
                      "wseq,wscores"),
              MS);
    in_domain(mb_node(g, "GreedySearch", "ids,max_length", "greedy"), MS);
    in_domain(mb_node(g, "Sampling", "ids,limit", "sampled"), MS);
    Onnx__NodeProto *sa = in_domain(mb_node(g, "SparseAttention", "q,k,k,past,past", "sparse,pkey,pvalue"), MS);
    mb_int_attr(sa, "num_heads", 4);
    mb_int_attr(sa, "kv_num_heads", 2);
    ctx c;
    infer(&c, g);
    expect(&c, "seq", "int32[B,2,20] 160*B");
    expect(&c, "seq_scores", "float[B,2] 8*B");
    expect(&c, "scores", "float[-S+20,B,4,100] -1600*B*S+32000*B");
    expect(&c, "wseq", "int32[B,2,20] 160*B");
    expect(&c, "wscores", "float[B,2] 8*B");
    expect(&c, "greedy", "int32[B,20] 80*B");
    expect(&c, "sampled", "int32[B,unk__0] 4*B*unk__0"); /* max_length an input: --value gives it */
    expect(&c, "sparse", "float16[B,S,64] 128*B*S");
    expect(&c, "pkey", "float16[B,2,128,16] 8192*B");
    expect(&c, "pvalue", "float16[B,2,128,16] 8192*B");
    done(&c);
}

/* The rest of the contrib ops ONNX Runtime runs on a CPU (the same ops and
 * dims as gen_contrib_models.py's misc_ops.onnx, whose every value
 * ort-shapes.test.js compares with ONNX Runtime's). */
static void test_contrib_misc(void **state) {
    (void)state;
    static const int32_t crop[2] = {5, 4}, axis = -1;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "a", 1, "M,5");
    mb_input(g, "bt", 1, "6,5");
    mb_input(g, "pts", 1, "7,5");
    mb_input(g, "a16", 5, "M,5");
    mb_input(g, "b16", 5, "5,3");
    mb_input(g, "ids", 7, "B,L");
    mb_input(g, "scores", 1, "B,50");
    mb_input(g, "image", 1, "N,3,H,W");
    mb_input(g, "rois", 1, "R,4");
    mb_input(g, "roi_batch", 6, "R");
    mb_initializer_raw(g, "crop", 6, "2", crop, sizeof crop);
    mb_initializer_raw(g, "axis", 6, "", &axis, sizeof axis);
    mb_input(g, "step", 1, "B,1,16");
    mb_input(g, "cache", 1, "B,2,T,8");
    mb_input(g, "cache_len", 6, "");
    mb_input(g, "qa", 2, "M,5");
    mb_input(g, "cond", 9, "M,5");
    mb_input(g, "qy", 2, "1,5");
    mb_input(g, "s", 1, "");
    mb_input(g, "z", 2, "");
    mb_input(g, "qnhwc", 2, "N,H,W,3");
    mb_input(g, "w", 1, "4,3,3,3");
    mb_input(g, "bnb", 2, "30");
    mb_int_attr(in_domain(mb_node(g, "TransposeMatMul", "a,bt", "tmm"), MS), "transB", 1);
    in_domain(mb_node(g, "CDist", "a,pts", "dist"), MS);
    in_domain(mb_node(g, "MatMulInteger16", "a16,b16", "mm16"), MS);
    Onnx__NodeProto *bnb = in_domain(mb_node(g, "MatMulBnb4", "a,bnb,s", "bnb4"), MS);
    mb_int_attr(bnb, "K", 5);
    mb_int_attr(bnb, "N", 12);
    in_domain(mb_node(g, "ExpandDims", "a,axis", "expanded"), MS);
    in_domain(mb_node(g, "MurmurHash3", "ids", "hashes"), MS);
    mb_int_attr(in_domain(mb_node(g, "MurmurHash3", "ids", "signed_hashes"), MS), "positive", 0);
    in_domain(mb_node(g, "NGramRepeatBlock", "ids,scores", "blocked"), MS);
    in_domain(mb_node(g, "CropAndResize", "image,rois,roi_batch,crop", "crops"), MS);
    Onnx__NodeProto *mp = in_domain(mb_node(g, "MaxpoolWithMask", "image,image", "masked_pool"), MS);
    mb_ints_attr(mp, "kernel_shape", I64(2, 2));
    mb_ints_attr(mp, "strides", I64(2, 2));
    Onnx__NodeProto *dm = in_domain(
        mb_node(g, "DecoderMaskedMultiHeadAttention", "step,step,step,,,cache,cache,cache_len", "dmmha,dk,dv,qk"), MS);
    mb_int_attr(dm, "num_heads", 2);
    mb_int_attr(dm, "past_present_share_buffer", 1);
    Onnx__NodeProto *dm2 =
        in_domain(mb_node(g, "DecoderMaskedMultiHeadAttention", "step,step,step,,,cache,cache", "dmmha2,dk2"), MS);
    mb_int_attr(dm2, "num_heads", 2);
    in_domain(mb_node(g, "QLinearWhere", "cond,qa,s,z,qy,s,z,s,z", "qwhere"), MS);
    Onnx__NodeProto *np = in_domain(mb_node(g, "NhwcMaxPool", "qnhwc", "nhwc_pool"), MS);
    mb_ints_attr(np, "kernel_shape", I64(3, 3));
    mb_ints_attr(np, "strides", I64(1, 2));
    mb_ints_attr(np, "pads", I64(1, 1, 1, 1));
    in_domain(mb_node(g, "NhwcFusedConv", "qnhwc,w", "nhwc_conv"), MS);
    ctx c;
    infer(&c, g);
    expect(&c, "tmm", "float[M,6] 24*M");
    expect(&c, "dist", "float[M,7] 28*M");
    expect(&c, "mm16", "int32[M,3] 12*M");
    expect(&c, "bnb4", "float[M,12] 48*M");
    expect(&c, "expanded", "float[M,5,1] 20*M");
    expect(&c, "hashes", "uint32[B,L] 4*B*L");
    expect(&c, "signed_hashes", "int32[B,L] 4*B*L");
    expect(&c, "blocked", "float[B,50] 200*B");
    expect(&c, "crops", "float[R,3,5,4] 240*R");
    expect(&c, "masked_pool", "float[N,3,H//2,W//2] 12*(H//2)*N*(W//2)");
    expect(&c, "dmmha", "float[B,1,16] 64*B");
    expect(&c, "dk", "float[B,2,T,8] 64*B*T");
    expect(&c, "dv", "float[B,2,T,8] 64*B*T");
    expect(&c, "qk", "float[B,2,1,unk__0] 8*B*unk__0");
    expect(&c, "dmmha2", "float[B,1,16] 64*B");
    expect(&c, "dk2", "float[B,2,T+1,8] 64*B*T+64*B");
    expect(&c, "qwhere", "uint8[M,5] 5*M");
    expect(&c, "nhwc_pool", "uint8[N,H,(W+1)//2,3] 3*((W+1)//2)*H*N");
    expect(&c, "nhwc_conv", "uint8[N,H-2,W-2,4] 4*H*N*W-8*H*N-8*N*W+16*N");
    done(&c);
}

static void test_contrib_qlinear(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 2, "N,C,H,W");
    mb_input(g, "y", 2, "1,C,1,1");
    mb_input(g, "z", 2, "N,4,H,W");
    mb_input(g, "s", 1, "");
    mb_input(g, "zp", 2, "");
    mb_input(g, "ids", 6, "B,S");
    mb_input(g, "emb", 1, "V,768");
    in_domain(mb_node(g, "QLinearAdd", "x,s,zp,y,s,zp,s,zp", "add"), MS);
    in_domain(mb_node(g, "QLinearSigmoid", "x,s,zp,s,zp", "sig"), MS);
    mb_int_attr(in_domain(mb_node(g, "QLinearConcat", "s,zp,x,s,zp,z,s,zp", "cat"), MS), "axis", 1);
    in_domain(mb_node(g, "QLinearGlobalAveragePool", "x,s,zp,s,zp", "gap"), MS);
    Onnx__NodeProto *ap = in_domain(mb_node(g, "QLinearAveragePool", "x,s,zp,s,zp", "ap"), MS);
    mb_ints_attr(ap, "kernel_shape", I64(2, 2));
    mb_ints_attr(ap, "strides", I64(2, 2));
    in_domain(mb_node(g, "EmbedLayerNormalization", "ids,ids,emb,emb,emb,emb,emb", "eln,mask"), MS);
    ctx c;
    infer(&c, g);
    expect(&c, "add", "uint8[N,C,H,W] C*H*N*W");
    expect(&c, "sig", "uint8[N,C,H,W] C*H*N*W");
    expect(&c, "cat", "uint8[N,C+4,H,W] C*H*N*W+4*H*N*W");
    expect(&c, "gap", "uint8[N,C,1,1] C*N");
    expect(&c, "ap", "uint8[N,C,H//2,W//2] C*(H//2)*N*(W//2)");
    expect(&c, "eln", "float[B,S,768] 3072*B*S");
    expect(&c, "mask", "int32[B] 4*B");
    done(&c);
}

/* AveragePool and QLinearAveragePool share one rule. x [1,1,4,4], kernel
 * [1,1], strides [2,2], pads [0,0,1,1], ceil_mode: ceil((4+1-1)/2+1) = 3
 * windows would start at 0, 2, 4, and the spec (AveragePool 19+: "sliding
 * windows that would start in the right padded region are ignored") drops
 * the one at 4, the end padding: [1,1,2,2] (QLinearAveragePool said
 * [1,1,3,3] with its own copy of the arithmetic). */
static void test_pool_twins_agree(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "1,1,4,4");
    mb_input(g, "q", 2, "1,1,4,4");
    mb_input(g, "qn", 2, "1,4,4,1");
    mb_input(g, "s", 1, "");
    mb_input(g, "zp", 2, "");
    Onnx__NodeProto *p[4] = {mb_node(g, "AveragePool", "x", "ap"), mb_node(g, "MaxPool", "x", "mp"),
                             in_domain(mb_node(g, "QLinearAveragePool", "q,s,zp,s,zp", "qap"), MS),
                             in_domain(mb_node(g, "QLinearAveragePool", "qn,s,zp,s,zp", "qap_nhwc"), MS)};
    for (int i = 0; i < 4; i++) {
        mb_ints_attr(p[i], "kernel_shape", I64(1, 1));
        mb_ints_attr(p[i], "strides", I64(2, 2));
        mb_ints_attr(p[i], "pads", I64(0, 0, 1, 1));
        mb_int_attr(p[i], "ceil_mode", 1);
    }
    mb_int_attr(p[3], "channels_last", 1);
    ctx c;
    infer(&c, g);
    expect(&c, "ap", "float[1,1,2,2] 16");
    expect(&c, "mp", "float[1,1,2,2] 16");
    expect(&c, "qap", "uint8[1,1,2,2] 4");
    expect(&c, "qap_nhwc", "uint8[1,2,2,1] 4");
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequence_construct_at_concat),
        cmocka_unit_test(test_split_to_sequence),
        cmocka_unit_test(test_optional),
        cmocka_unit_test(test_selections_and_strings),
        cmocka_unit_test(test_signal_random_training),
        cmocka_unit_test(test_quant),
        cmocka_unit_test(test_contrib_activations_and_norms),
        cmocka_unit_test(test_contrib_attention),
        cmocka_unit_test(test_contrib_conv_matmul),
        cmocka_unit_test(test_contrib_gather_block_quantized),
        cmocka_unit_test(test_contrib_generation),
        cmocka_unit_test(test_contrib_misc),
        cmocka_unit_test(test_contrib_qlinear),
        cmocka_unit_test(test_pool_twins_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
