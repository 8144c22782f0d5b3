/* test_shapes_nn.c -- shape rules of the nn family (src/shapes/ops_nn.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"
#include "shapes_test_util.h"

static void infer(ctx *c, mb_graph *g) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &c->m, &err)) fail_msg("%s", err.message);
    free(bytes);
    assert_int_equal(memplan_shapes_infer(c->m, &c->s, &err), MEMPLAN_OK);
}

/* ---- convolutions ------------------------------------------------------ */

/* A 3x3 stride-2 pad-1 Conv over a symbolic H x W: (H-1)//2+1 = (H+1)//2. */
static void test_conv_symbolic(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,3,H,W");
    mb_initializer(g, "w", 1, "16,3,3,3");
    mb_initializer(g, "w5", 1, "8,16,5,5");
    Onnx__NodeProto *c1 = mb_node(g, "Conv", "x,w", "y");
    INTS(c1, "strides", 2, 2);
    INTS(c1, "pads", 1, 1, 1, 1);
    Onnx__NodeProto *c2 = mb_node(g, "Conv", "y,w5", "z"); /* no padding, dilation 2: H' - 8 */
    INTS(c2, "dilations", 2, 2);
    Onnx__NodeProto *c3 = mb_node(g, "Conv", "x,w", "s"); /* SAME_UPPER stride 2: ceil(H/2) */
    str_attr(c3, "auto_pad", "SAME_UPPER");
    INTS(c3, "strides", 2, 2);
    Onnx__NodeProto *c4 = mb_node(g, "Conv", "x,w", "v"); /* VALID stride 3: (H-3)//3+1 = H//3 */
    str_attr(c4, "auto_pad", "VALID");
    INTS(c4, "strides", 3, 1);
    mb_output(g, "z", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "y", "float[N,16,(H+1)//2,(W+1)//2] 64*((H+1)//2)*((W+1)//2)*N");
    expect(&c, "z",
           "float[N,8,(H+1)//2-8,(W+1)//2-8] 32*((H+1)//2)*((W+1)//2)*N-256*((H+1)//2)*N-256*((W+1)//2)*N+2048*N");
    expect(&c, "s", "float[N,16,(H+1)//2,(W+1)//2] 64*((H+1)//2)*((W+1)//2)*N");
    expect(&c, "v", "float[N,16,H//3,W-2] 64*(H//3)*N*W-128*(H//3)*N");
    done(&c);
}

/* A symbolic kernel leaves the spatial dims unknown but keeps the rank;
 * ConvInteger gives int32. */
static void test_conv_unknown_kernel(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "1,3,32,32");
    mb_input(g, "w", 1, "M,3,k,k");
    mb_input(g, "xi", 2, "1,1,5,5");
    mb_input(g, "wi", 2, "1,1,3,3");
    mb_node(g, "Conv", "x,w", "y");
    mb_node(g, "ConvInteger", "xi,wi", "yi");
    mb_output(g, "y", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "y", "float[1,M,unk__0,unk__1] 4*M*unk__0*unk__1");
    expect(&c, "yi", "int32[1,1,3,3] 36");
    done(&c);
}

static void test_conv_transpose(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,4,H,W");
    mb_initializer(g, "w", 1, "4,2,3,3");
    Onnx__NodeProto *t1 = mb_node(g, "ConvTranspose", "x,w", "y"); /* 3*(H-1)+1+3, 2*(W-1)+1+3-1-1 */
    INTS(t1, "strides", 3, 2);
    INTS(t1, "output_padding", 1, 1);
    INTS(t1, "pads", 0, 1, 0, 1);
    mb_int_attr(t1, "group", 2);
    Onnx__NodeProto *t2 = mb_node(g, "ConvTranspose", "x,w", "s");
    str_attr(t2, "auto_pad", "SAME_LOWER");
    INTS(t2, "strides", 2, 2);
    Onnx__NodeProto *t3 = mb_node(g, "ConvTranspose", "x,w", "o");
    INTS(t3, "output_shape", 10, 8);
    INTS(t3, "strides", 3, 2);
    mb_output(g, "y", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "y", "float[N,4,3*H+1,2*W] 96*H*N*W+32*N*W");
    expect(&c, "s", "float[N,2,2*H,2*W] 32*H*N*W");
    expect(&c, "o", "float[N,2,10,8] 640*N");
    done(&c);
}

/* ---- pools ------------------------------------------------------------- */

/* ceil_mode: 4 -> 2 with k3 s2; a last window starting in the end padding
 * is dropped (5 with k3 s3 p1: ceil(4/3)+1 = 3 -> 2). */
static void test_maxpool_ceil(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "1,1,4,4");
    mb_input(g, "x5", 1, "1,1,5");
    mb_input(g, "xs", 1, "N,C,H,W");
    Onnx__NodeProto *p1 = mb_node(g, "MaxPool", "x", "y,idx");
    INTS(p1, "kernel_shape", 3, 3);
    INTS(p1, "strides", 2, 2);
    mb_int_attr(p1, "ceil_mode", 1);
    Onnx__NodeProto *p2 = mb_node(g, "MaxPool", "x5", "y5");
    INTS(p2, "kernel_shape", 3);
    INTS(p2, "strides", 3);
    INTS(p2, "pads", 1, 1);
    mb_int_attr(p2, "ceil_mode", 1);
    Onnx__NodeProto *p3 = mb_node(g, "MaxPool", "xs", "ys");
    INTS(p3, "kernel_shape", 2, 2);
    INTS(p3, "strides", 2, 2);
    mb_int_attr(p3, "ceil_mode", 1);
    Onnx__NodeProto *p4 = mb_node(g, "AveragePool", "xs", "fs"); /* floor mode */
    INTS(p4, "kernel_shape", 2, 2);
    INTS(p4, "strides", 2, 2);
    mb_output(g, "y", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "y", "float[1,1,2,2] 16");
    expect(&c, "idx", "int64[1,1,2,2] 32");
    expect(&c, "y5", "float[1,1,2] 8");
    expect(&c, "ys", "float[N,C,(H+1)//2,(W+1)//2] 4*((H+1)//2)*((W+1)//2)*C*N");
    expect(&c, "fs", "float[N,C,H//2,W//2] 4*C*(H//2)*N*(W//2)");
    done(&c);
}

static void test_global_pool_and_unpool(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,C,H,W");
    mb_input(g, "i", 7, "N,C,H,W");
    mb_node(g, "GlobalAveragePool", "x", "ga");
    mb_node(g, "GlobalMaxPool", "x", "gm");
    Onnx__NodeProto *u = mb_node(g, "MaxUnpool", "x,i", "u");
    INTS(u, "kernel_shape", 2, 2);
    INTS(u, "strides", 2, 2);
    mb_output(g, "ga", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "ga", "float[N,C,1,1] 4*C*N");
    expect(&c, "gm", "float[N,C,1,1] 4*C*N");
    expect(&c, "u", "float[N,C,2*H,2*W] 16*C*H*N*W");
    done(&c);
}

/* ---- products ---------------------------------------------------------- */

static void test_gemm_matmul(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "a", 1, "K,M");
    mb_input(g, "b", 1, "N,K");
    mb_input(g, "x", 1, "B,1,M,K");
    mb_input(g, "y", 1, "S,K,N");
    mb_input(g, "v", 1, "K");
    mb_input(g, "m", 1, "M,K");
    Onnx__NodeProto *ge = mb_node(g, "Gemm", "a,b", "gemm");
    mb_int_attr(ge, "transA", 1);
    mb_int_attr(ge, "transB", 1);
    mb_node(g, "MatMul", "x,y", "mm");
    mb_node(g, "MatMul", "v,y", "vm");
    mb_node(g, "MatMul", "m,v", "mv");
    mb_node(g, "MatMul", "v,v", "vv");
    mb_output(g, "mm", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "gemm", "float[M,N] 4*M*N");
    expect(&c, "mm", "float[B,S,M,N] 4*B*M*N*S");
    expect(&c, "vm", "float[S,N] 4*N*S");
    expect(&c, "mv", "float[M] 4*M");
    expect(&c, "vv", "float[] 4");
    done(&c);
}

static void test_einsum(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "a", 1, "B,I,J");
    mb_input(g, "b", 1, "B,J,K");
    mb_input(g, "e", 1, "X,1,I,J");
    mb_input(g, "f", 1, "Y,I,J");
    str_attr(mb_node(g, "Einsum", "a,b", "bmm"), "equation", "bij,bjk->bik");
    str_attr(mb_node(g, "Einsum", "a,b", "imp"), "equation", "bij,bjk");
    str_attr(mb_node(g, "Einsum", "e,f", "ell"), "equation", "...ij,...ij->...ji");
    str_attr(mb_node(g, "Einsum", "a", "tr"), "equation", "bii->b");
    mb_output(g, "bmm", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "bmm", "float[B,I,K] 4*B*I*K");
    expect(&c, "imp", "float[I,K] 4*I*K");
    expect(&c, "ell", "float[X,Y,J,I] 4*I*J*X*Y");
    expect(&c, "tr", "float[B] 4*B");
    done(&c);
}

/* ---- recurrent --------------------------------------------------------- */

static void test_recurrent(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "S,B,10");
    mb_initializer(g, "w", 1, "2,80,10");
    mb_initializer(g, "r", 1, "2,80,20");
    mb_input(g, "xb", 1, "B,S,10");
    mb_initializer(g, "wg", 1, "1,60,10");
    mb_initializer(g, "rg", 1, "1,60,20");
    Onnx__NodeProto *l = mb_node(g, "LSTM", "x,w,r", "y,yh,yc");
    str_attr(l, "direction", "bidirectional");
    mb_int_attr(l, "hidden_size", 20);
    Onnx__NodeProto *gr = mb_node(g, "GRU", "xb,wg,rg", "gy,gh"); /* hidden from R */
    mb_int_attr(gr, "layout", 1);
    mb_output(g, "y", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "y", "float[S,2,B,20] 160*B*S");
    expect(&c, "yh", "float[2,B,20] 160*B");
    expect(&c, "yc", "float[2,B,20] 160*B");
    expect(&c, "gy", "float[B,S,1,20] 80*B*S");
    expect(&c, "gh", "float[B,1,20] 80*B");
    done(&c);
}

/* ---- sampling, normalization ------------------------------------------- */

static void test_sampling_and_norms(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,C,H,W");
    mb_input(g, "grid", 1, "N,Ho,Wo,2");
    mb_input(g, "rois", 1, "R,4");
    mb_input(g, "bi", 7, "R");
    mb_node(g, "GridSample", "x,grid", "gs");
    Onnx__NodeProto *ra = mb_node(g, "RoiAlign", "x,rois,bi", "ra");
    mb_int_attr(ra, "output_height", 7);
    mb_int_attr(ra, "output_width", 5);
    mb_node(g, "LRN", "x", "lrn");
    Onnx__NodeProto *ln = mb_node(g, "LayerNormalization", "x", "ln,mean,inv");
    mb_int_attr(ln, "axis", 2);
    mb_output(g, "gs", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "gs", "float[N,C,Ho,Wo] 4*C*Ho*N*Wo");
    expect(&c, "ra", "float[R,C,7,5] 140*C*R");
    expect(&c, "lrn", "float[N,C,H,W] 4*C*H*N*W");
    expect(&c, "mean", "float[N,C,1,1] 4*C*N");
    expect(&c, "inv", "float[N,C,1,1] 4*C*N");
    done(&c);
}

/* Attention (opset 23): 4-D with a KV cache, and 3-D with head counts. */
static void test_attention(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "q", 1, "B,8,S,64");
    mb_input(g, "k", 1, "B,2,L,64");
    mb_input(g, "v", 1, "B,2,L,32");
    mb_input(g, "pk", 1, "B,2,P,64");
    mb_input(g, "pv", 1, "B,2,P,32");
    mb_input(g, "q3", 1, "B,S,512");
    mb_input(g, "k3", 1, "B,L,128");
    mb_input(g, "v3", 1, "B,L,64");
    mb_node(g, "Attention", "q,k,v,,pk,pv", "y,prk,prv,qk");
    Onnx__NodeProto *a3 = mb_node(g, "Attention", "q3,k3,v3", "y3,pk3");
    mb_int_attr(a3, "q_num_heads", 8);
    mb_int_attr(a3, "kv_num_heads", 2);
    mb_output(g, "y", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "y", "float[B,8,S,32] 1024*B*S");
    expect(&c, "prk", "float[B,2,L+P,64] 512*B*L+512*B*P");
    expect(&c, "prv", "float[B,2,L+P,32] 256*B*L+256*B*P");
    expect(&c, "qk", "float[B,8,S,L+P] 32*B*L*S+32*B*P*S");
    expect(&c, "y3", "float[B,S,256] 1024*B*S");
    expect(&c, "pk3", "float[B,2,L,64] 512*B*L");
    done(&c);
}

/* BatchNormalization training outputs, losses, Softmax. */
static void test_norm_outputs_and_losses(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,C,H,W");
    mb_input(g, "sc", 1, "C");
    mb_input(g, "t", 7, "N,H,W");
    mb_node(g, "BatchNormalization", "x,sc,sc,sc,sc", "bn,rm,rv");
    mb_node(g, "NegativeLogLikelihoodLoss", "x,t", "mean_loss");
    str_attr(mb_node(g, "SoftmaxCrossEntropyLoss", "x,t", "none_loss,logp"), "reduction", "none");
    mb_node(g, "Softmax", "x", "sm");
    mb_output(g, "bn", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "bn", "float[N,C,H,W] 4*C*H*N*W");
    expect(&c, "rm", "float[C] 4*C");
    expect(&c, "rv", "float[C] 4*C");
    expect(&c, "mean_loss", "float[] 4");
    expect(&c, "none_loss", "float[N,H,W] 4*H*N*W");
    expect(&c, "logp", "float[N,C,H,W] 4*C*H*N*W");
    expect(&c, "sm", "float[N,C,H,W] 4*C*H*N*W");
    done(&c);
}

/* Odd attributes never crash: wrong counts, huge values, bad equations. */
static void test_odd_attributes(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,C,H,W");
    mb_input(g, "a", 1, "I,J");
    Onnx__NodeProto *p1 = mb_node(g, "MaxPool", "x", "bad_count");
    INTS(p1, "kernel_shape", 2);
    Onnx__NodeProto *p2 = mb_node(g, "AveragePool", "x", "huge");
    INTS(p2, "kernel_shape", INT64_MAX, INT64_MIN);
    INTS(p2, "dilations", INT64_MAX, 3);
    INTS(p2, "pads", INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN);
    Onnx__NodeProto *p3 = mb_node(g, "ConvTranspose", "x,x", "huge_t");
    INTS(p3, "strides", INT64_MAX, INT64_MAX);
    INTS(p3, "output_padding", INT64_MAX, INT64_MIN);
    str_attr(mb_node(g, "Einsum", "a", "two_ell"), "equation", "...i...->i");
    str_attr(mb_node(g, "Einsum", "a", "missing"), "equation", "ij->k");
    str_attr(mb_node(g, "Einsum", "a,a", "terms"), "equation", "ij->ij");
    mb_output(g, "huge", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "bad_count", "float[?] ?");
    expect(&c, "two_ell", "float[?] ?");
    expect(&c, "missing", "float[?] ?");
    expect(&c, "terms", "float[?] ?");
    assert_true(memplan_shapes_note_count(c.s) >= 1);
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_symbolic),
        cmocka_unit_test(test_conv_unknown_kernel),
        cmocka_unit_test(test_conv_transpose),
        cmocka_unit_test(test_maxpool_ceil),
        cmocka_unit_test(test_global_pool_and_unpool),
        cmocka_unit_test(test_gemm_matmul),
        cmocka_unit_test(test_einsum),
        cmocka_unit_test(test_recurrent),
        cmocka_unit_test(test_sampling_and_norms),
        cmocka_unit_test(test_attention),
        cmocka_unit_test(test_norm_outputs_and_losses),
        cmocka_unit_test(test_odd_attributes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
