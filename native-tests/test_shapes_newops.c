/* test_shapes_newops.c -- rules for the ops of ONNX 1.23 (opsets up to 28,
 * the preview and ml domains), the legacy ops and ONNX Runtime ops seen in
 * published models (issue 16 item 5), with the shapes of the operators'
 * own test cases where they have them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"
#include "shapes_test_util.h"

enum { F32 = 1, I32 = 6, I64 = 7, F64 = 11 };

#define I(g, name, dims, ...)                                                                                          \
    do {                                                                                                               \
        static const int64_t v_[] = {__VA_ARGS__};                                                                     \
        mb_initializer_ints((g), (name), (dims), v_, sizeof v_ / sizeof v_[0]);                                        \
    } while (0)

/* Opset 23-28 ops of the default domain and the preview domain. */
static void test_new_default_ops(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    /* TensorScatter (test_tensorscatter): past [2,1,4,5], update [2,1,1,5] */
    mb_input(g, "past", F32, "2,1,4,5");
    mb_input(g, "upd", F32, "2,1,1,5");
    mb_input(g, "wi", I64, "2");
    str_attr(mb_node(g, "TensorScatter", "past,upd,wi", "present"), "mode", "linear");
    /* CausalConvWithState (test_causal_conv_with_state_basic): [2,4,8], weight [4,1,4] */
    mb_input(g, "sig", F32, "B,4,L");
    mb_input(g, "w", F32, "4,1,4");
    mb_node(g, "CausalConvWithState", "sig,w", "conv,conv_state");
    /* LinearAttention: Hq 4 x dk 8, Hkv 2 x dv 12 */
    mb_input(g, "q", F32, "B,T,32");
    mb_input(g, "k", F32, "B,T,16");
    mb_input(g, "v", F32, "B,T,24");
    Onnx__NodeProto *la = mb_node(g, "LinearAttention", "q,k,v", "la,la_state");
    mb_int_attr(la, "q_num_heads", 4);
    mb_int_attr(la, "kv_num_heads", 2);
    /* FlexAttention: Q [2,3,S,8], V [2,3,6,10] */
    mb_input(g, "fq", F32, "2,3,S,8");
    mb_input(g, "fk", F32, "2,3,6,8");
    mb_input(g, "fv", F32, "2,3,6,10");
    in_domain(mb_node(g, "FlexAttention", "fq,fk,fv", "flex"), "ai.onnx.preview");
    /* RotaryEmbedding, Swish, SwiGLU, BitCast */
    mb_input(g, "x", F32, "B,S,64");
    mb_input(g, "cos", F32, "S,32");
    mb_node(g, "RotaryEmbedding", "x,cos,cos", "rot");
    mb_node(g, "Swish", "x", "swish");
    mb_node(g, "SwiGLU", "x,x", "swiglu");
    mb_int_attr(mb_node(g, "BitCast", "x", "bits"), "to", I32);
    mb_int_attr(mb_node(g, "BitCast", "x", "wide"), "to", F64); /* 32 -> 64 bits: a note */
    mb_output(g, "present", F32, NULL);
    ctx c;
    infer_opset(&c, g, 28);
    expect(&c, "present", "float[2,1,4,5] 160");
    expect(&c, "conv", "float[B,4,L] 16*B*L");
    expect(&c, "conv_state", "float[B,4,3] 48*B");
    expect(&c, "la", "float[B,T,48] 192*B*T");
    expect(&c, "la_state", "float[B,2,8,12] 768*B");
    expect(&c, "flex", "float[2,3,S,10] 240*S");
    expect(&c, "rot", "float[B,S,64] 256*B*S");
    expect(&c, "swish", "float[B,S,64] 256*B*S");
    expect(&c, "swiglu", "float[B,S,64] 256*B*S");
    expect(&c, "bits", "int32[B,S,64] 256*B*S");
    expect(&c, "wide", "double[B,S,64] 512*B*S");
    bool noted = false;
    for (size_t i = 0; i < memplan_shapes_note_count(c.s); i++)
        noted = noted || strstr(memplan_shapes_note(c.s, i), "BitCast from 32-bit to 64-bit") != NULL;
    assert_true(noted);
    done(&c);
}

/* CenterCropPad (the spec's crop, crop-and-pad and chw-axes cases), CumProd,
 * and the legacy Crop. */
static void test_crop_pad_cumprod(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "a", F32, "20,10,3");
    mb_input(g, "b", F32, "20,8,3");
    mb_input(g, "chw", F32, "3,20,8");
    I(g, "s1", "3", 10, 7, 3);
    I(g, "s2", "3", 10, 10, 3);
    I(g, "s3", "2", 10, 9);
    mb_node(g, "CenterCropPad", "a,s1", "crop");
    mb_node(g, "CenterCropPad", "b,s2", "crop_pad");
    INTS(mb_node(g, "CenterCropPad", "chw,s3", "axes_chw"), "axes", 1, 2);
    I(g, "v", "5", 1, 2, 3, 4, 5);
    I(g, "ax", "", 0);
    mb_node(g, "CumProd", "v,ax", "cp");
    mb_int_attr(mb_node(g, "CumProd", "v,ax", "cp_x"), "exclusive", 1);
    mb_int_attr(mb_node(g, "CumProd", "v,ax", "cp_r"), "reverse", 1);
    mb_input(g, "img", F32, "1,3,H,12");
    INTS(mb_node(g, "Crop", "img", "cropped"), "border", 1, 2, 3, 4);
    INTS(mb_node(g, "Crop", "img", "scaled"), "scale", 5, 6);
    mb_output(g, "crop", F32, NULL);
    ctx c;
    infer_opset(&c, g, 28);
    expect(&c, "crop", "float[10,7,3] 840");
    expect(&c, "crop_pad", "float[10,10,3] 1200");
    expect(&c, "axes_chw", "float[3,10,9] 1080");
    expect(&c, "cp", "int64[5] 40");
    const memplan_vshape *cp = value(&c, "cp"), *cx = value(&c, "cp_x"), *cr = value(&c, "cp_r");
    memplan_expr_pool *p = memplan_shapes_pool(c.s);
    const int64_t want[3][5] = {{1, 2, 6, 24, 120}, {1, 1, 2, 6, 24}, {120, 120, 60, 20, 5}};
    const memplan_vshape *got[3] = {cp, cx, cr};
    for (int t = 0; t < 3; t++) {
        assert_int_equal(got[t]->n_elems, 5);
        for (int i = 0; i < 5; i++) {
            int64_t k;
            assert_true(memplan_expr_is_const(p, got[t]->elems[i], &k));
            assert_int_equal(k, want[t][i]);
        }
    }
    expect(&c, "cropped", "float[1,3,H-6,8] 96*H-576");
    expect(&c, "scaled", "float[1,3,5,6] 360");
    done(&c);
}

/* Resize's keep_aspect_ratio_policy with axes (the spec's sizes_nearest
 * not_larger / not_smaller cases), DFT's onesided and dft_length. */
static void test_resize_policy_and_dft(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "down", F32, "1,1,2,4");
    mb_input(g, "up", F32, "1,1,2,2");
    I(g, "s13", "2", 1, 3);
    I(g, "s78", "2", 7, 8);
    const char *pol[2] = {"not_larger", "not_smaller"};
    const char *outs[4] = {"down_nl", "down_ns", "up_nl", "up_ns"};
    for (int i = 0; i < 4; i++) {
        Onnx__NodeProto *r = mb_node(g, "Resize", i < 2 ? "down,,,s13" : "up,,,s78", outs[i]);
        str_attr(r, "keep_aspect_ratio_policy", pol[i % 2]);
        INTS(r, "axes", 2, 3);
    }
    mb_input(g, "sigr", F32, "1,10,10,1");
    mb_input(g, "sigc", F32, "1,10,10,2");
    I(g, "ax1", "", 1);
    I(g, "len5", "", 5);
    mb_node(g, "DFT", "sigr,,ax1", "dft");
    mb_int_attr(mb_node(g, "DFT", "sigr,,ax1", "dft_one"), "onesided", 1);
    mb_node(g, "DFT", "sigr,len5,ax1", "dft_len");
    Onnx__NodeProto *inv = mb_node(g, "DFT", "sigc,,ax1", "idft_one");
    mb_int_attr(inv, "inverse", 1);
    mb_int_attr(inv, "onesided", 1);
    mb_node(g, "DFT", "sigr", "dft_default"); /* axis -2: the last signal axis */
    mb_output(g, "down_nl", F32, NULL);
    ctx c;
    infer_opset(&c, g, 20);
    expect(&c, "down_nl", "float[1,1,1,2] 8");  /* scale min(1/2, 3/4) */
    expect(&c, "down_ns", "float[1,1,2,3] 24"); /* scale 3/4: 1.5 -> 2, 3 */
    expect(&c, "up_nl", "float[1,1,7,7] 196");  /* scale 3.5 */
    expect(&c, "up_ns", "float[1,1,8,8] 256");  /* scale 4 */
    expect(&c, "dft", "float[1,10,10,2] 800");
    expect(&c, "dft_one", "float[1,6,10,2] 480");
    expect(&c, "dft_len", "float[1,5,10,2] 400");
    expect(&c, "idft_one", "float[1,6,10,2] 480");
    expect(&c, "dft_default", "float[1,10,10,2] 800");
    done(&c);
}

/* ai.onnx.ml: TreeEnsemble and the regressors/classifiers, OneHotEncoder,
 * FeatureVectorizer. */
static void test_ml(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "N,2");
    mb_int_attr(in_domain(mb_node(g, "TreeEnsemble", "x", "te"), "ai.onnx.ml"), "n_targets", 3);
    mb_int_attr(in_domain(mb_node(g, "TreeEnsembleRegressor", "x", "ter"), "ai.onnx.ml"), "n_targets", 2);
    in_domain(mb_node(g, "SVMRegressor", "x", "svr"), "ai.onnx.ml");
    INTS(in_domain(mb_node(g, "TreeEnsembleClassifier", "x", "lab,prob"), "ai.onnx.ml"), "classlabels_int64s", 0, 1, 2);
    /* the linear and SVM classifiers name their integer labels classlabels_ints */
    INTS(in_domain(mb_node(g, "LinearClassifier", "x", "lin_lab,lin_prob"), "ai.onnx.ml"), "classlabels_ints", 0, 1, 2,
         3);
    INTS(in_domain(mb_node(g, "SVMClassifier", "x", "svm_lab,svm_score"), "ai.onnx.ml"), "classlabels_ints", 3, 7);
    INTS(in_domain(mb_node(g, "OneHotEncoder", "x", "ohe"), "ai.onnx.ml"), "cats_int64s", 1, 2, 3, 4);
    INTS(in_domain(mb_node(g, "FeatureVectorizer", "x,x", "fv"), "ai.onnx.ml"), "inputdimensions", 2, 2);
    mb_output(g, "te", F32, NULL);
    ctx c;
    infer_opset(&c, g, 21);
    expect(&c, "te", "float[N,3] 12*N");
    expect(&c, "ter", "float[N,2] 8*N");
    expect(&c, "svr", "float[N,1] 4*N");
    expect(&c, "lab", "int64[N] 8*N");
    expect(&c, "prob", "float[N,3] 12*N");
    expect(&c, "lin_lab", "int64[N] 8*N");
    expect(&c, "lin_prob", "float[N,4] 16*N");
    expect(&c, "svm_lab", "int64[N] 8*N");
    expect(&c, "svm_score", "float[N,2] 8*N");
    expect(&c, "ohe", "float[N,2,4] 32*N");
    expect(&c, "fv", "float[N,4] 16*N");
    done(&c);
}

/* ONNX Runtime: FusedGemm; the experimental signal domain. */
static void test_onnxruntime_ops(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "a", F32, "M,3");
    mb_input(g, "b", F32, "5,3");
    Onnx__NodeProto *fg = in_domain(mb_node(g, "FusedGemm", "a,b", "fg"), "com.microsoft");
    mb_int_attr(fg, "transB", 1);
    mb_input(g, "sig", F32, "1,128,1");
    I(g, "step", "", 8);
    I(g, "n16", "", 16);
    in_domain(mb_node(g, "HannWindow", "n16", "win"), "com.microsoft.experimental");
    in_domain(mb_node(g, "STFT", "sig,step,win", "spec"), "com.microsoft.experimental");
    I(g, "bins", "", 10);
    I(g, "dftlen", "", 16);
    in_domain(mb_node(g, "MelWeightMatrix", "bins,dftlen", "mel"), "com.microsoft.experimental");
    mb_output(g, "fg", F32, NULL);
    ctx c;
    infer_opset(&c, g, 17);
    expect(&c, "fg", "float[M,5] 20*M");
    expect(&c, "win", "float[16] 64");
    expect(&c, "spec", "float[1,15,9,2] 1080");
    expect(&c, "mel", "float[9,10] 360");
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_default_ops),       cmocka_unit_test(test_crop_pad_cumprod),
        cmocka_unit_test(test_resize_policy_and_dft), cmocka_unit_test(test_ml),
        cmocka_unit_test(test_onnxruntime_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
