/* test_shapes_reduce.c -- shape rules of the reduce family (ops_reduce.c):
 * Reduce* with axes as attribute or input, keepdims, noop_with_empty_axes,
 * partial evaluation; ArgMax/ArgMin; normalizations; losses; Det; ... */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"
#include "shapes_test_util.h"

enum { F32 = 1, I64 = 7, STR = 8, F64 = 11 };

/* ---- model building ------------------------------------------------------ */

static Onnx__AttributeProto *new_attr(Onnx__NodeProto *nd, const char *name, Onnx__AttributeProto__AttributeType t) {
    Onnx__AttributeProto *a = malloc(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = mb_strdup(name);
    a->has_type = 1;
    a->type = t;
    MB_PUSH(nd->attribute, nd->n_attribute, a);
    return a;
}

static void dup_str_attr(Onnx__NodeProto *nd, const char *name, const char *v) {
    Onnx__AttributeProto *a = new_attr(nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.data = (uint8_t *)mb_strdup(v);
    a->s.len = strlen(v);
}

static void strs_attr(Onnx__NodeProto *nd, const char *name, size_t n, const char *const *v) {
    Onnx__AttributeProto *a = new_attr(nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
    a->strings = malloc((n ? n : 1) * sizeof *a->strings);
    for (size_t i = 0; i < n; i++) {
        a->strings[i].data = (uint8_t *)mb_strdup(v[i]);
        a->strings[i].len = strlen(v[i]);
    }
    a->n_strings = n;
}

/* A Constant node whose output `name` is the int64 vector v. */
static void const_ints(mb_graph *g, const char *name, size_t n, const int64_t *v) {
    mb_ints_attr(mb_node(g, "Constant", "", name), "value_ints", n, v);
}

/* Free what mb_free_graph does not know about (string attributes). */
static void free_strings(mb_graph *g) {
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_attribute; k++) {
            Onnx__AttributeProto *a = g->node[i]->attribute[k];
            if (a->has_s) free(a->s.data);
            for (size_t j = 0; j < a->n_strings; j++) free(a->strings[j].data);
            free(a->strings);
            a->strings = NULL;
            a->n_strings = 0;
        }
}

/* Like mb_pack, with the default-domain opset given. */
static uint8_t *pack(mb_graph *g, int64_t opset, size_t *len) {
    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.has_ir_version = 1;
    m.ir_version = 8;
    Onnx__OperatorSetIdProto op;
    onnx__operator_set_id_proto__init(&op);
    op.has_version = 1;
    op.version = opset;
    Onnx__OperatorSetIdProto *ops[1] = {&op};
    m.opset_import = ops;
    m.n_opset_import = 1;
    m.graph = g;
    *len = onnx__model_proto__get_packed_size(&m);
    uint8_t *bytes = malloc(*len ? *len : 1);
    onnx__model_proto__pack(&m, bytes);
    free_strings(g);
    mb_free_graph(g);
    return bytes;
}

/* ---- inference and checks ------------------------------------------------ */

static void infer(ctx *c, mb_graph *g, int64_t opset) {
    size_t len;
    uint8_t *bytes = pack(g, opset, &len);
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &c->m, &err)) fail_msg("%s", err.message);
    free(bytes);
    assert_int_equal(memplan_shapes_infer(c->m, &c->s, &err), MEMPLAN_OK);
}

/* Known element values "e0,e1,..." of a value, or "-" when unknown. */
static void expect_elems(ctx *c, const char *name, const char *want) {
    const memplan_vshape *v = value(c, name);
    memplan_expr_pool *p = memplan_shapes_pool(c->s);
    char buf[512] = "-";
    size_t n = 0;
    for (int32_t i = 0; i < v->n_elems; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? "," : "", memplan_expr_str(p, v->elems[i]));
    if (strcmp(buf, want) != 0) fail_msg("%s: elems '%s', expected '%s'", name, buf, want);
}

/* Some note mentions `part`. */
static void expect_note(ctx *c, const char *part) {
    for (size_t i = 0; i < memplan_shapes_note_count(c->s); i++)
        if (strstr(memplan_shapes_note(c->s, i), part)) return;
    fail_msg("no note mentions '%s'", part);
}

/* ---- Reduce* --------------------------------------------------------------- */

/* Opset 11: axes as an attribute, negative axes, keepdims on and off. */
static void test_reduce_axes_attribute(void **state) {
    (void)state;
    const int64_t last[1] = {-1}, mid[1] = {1}, two[2] = {0, -1};
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq,64");
    mb_ints_attr(mb_node(g, "ReduceMean", "x", "mean"), "axes", 1, last);
    Onnx__NodeProto *n = mb_node(g, "ReduceSum", "x", "sum");
    mb_ints_attr(n, "axes", 1, mid);
    mb_int_attr(n, "keepdims", 0);
    n = mb_node(g, "ReduceL2", "x", "l2");
    mb_ints_attr(n, "axes", 2, two);
    mb_int_attr(n, "keepdims", 0);
    mb_node(g, "ReduceMax", "x", "all_keep");
    mb_int_attr(mb_node(g, "ReduceLogSumExp", "x", "all"), "keepdims", 0);
    mb_output(g, "mean", F32, NULL);
    ctx c;
    infer(&c, g, 11);
    expect(&c, "mean", "float[batch,seq,1] 4*batch*seq");
    expect(&c, "sum", "float[batch,64] 256*batch");
    expect(&c, "l2", "float[seq] 4*seq");
    expect(&c, "all_keep", "float[1,1,1] 4");
    expect(&c, "all", "float[] 4");
    done(&c);
}

/* Opset 18: axes as input 1 for every Reduce*; noop_with_empty_axes. */
static void test_reduce_axes_input_opset18(void **state) {
    (void)state;
    const int64_t ax[2] = {0, 2}, neg[1] = {-2};
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq,64");
    const_ints(g, "axes", 2, ax);
    const_ints(g, "neg", 1, neg);
    const_ints(g, "empty", 0, NULL);
    mb_int_attr(mb_node(g, "ReduceMean", "x,axes", "mean"), "keepdims", 0);
    mb_node(g, "ReduceProd", "x,neg", "prod");
    mb_int_attr(mb_node(g, "ReduceMin", "x", "noop"), "noop_with_empty_axes", 1);
    mb_int_attr(mb_node(g, "ReduceSumSquare", "x,empty", "noop2"), "noop_with_empty_axes", 1);
    mb_int_attr(mb_node(g, "ReduceL1", "x,empty", "all"), "keepdims", 0);
    mb_output(g, "mean", F32, NULL);
    ctx c;
    infer(&c, g, 18);
    expect(&c, "mean", "float[seq] 4*seq");
    expect(&c, "prod", "float[batch,1,64] 256*batch");
    expect(&c, "noop", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "noop2", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "all", "float[] 4");
    done(&c);
}

/* ReduceSum takes axes as an input from opset 13; unknown axis values still
 * give the rank (keepdims, or a known count of axes). */
static void test_reduce_sum_opset13_unknown_axes(void **state) {
    (void)state;
    const int64_t ax[1] = {1};
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,1,64");
    mb_input(g, "dyn", I64, "2");
    mb_input(g, "anyn", I64, "?");
    const_ints(g, "axes", 1, ax);
    mb_int_attr(mb_node(g, "ReduceSum", "x,axes", "known"), "keepdims", 0);
    mb_node(g, "ReduceSum", "x,dyn", "keep");
    mb_int_attr(mb_node(g, "ReduceSum", "x,dyn", "drop2"), "keepdims", 0);
    mb_int_attr(mb_node(g, "ReduceSum", "x,anyn", "lost"), "keepdims", 0);
    /* before opset 18 ReduceMean still reads the attribute */
    mb_ints_attr(mb_node(g, "ReduceMean", "x", "mean"), "axes", 1, ax);
    mb_output(g, "known", F32, NULL);
    ctx c;
    infer(&c, g, 13);
    expect(&c, "known", "float[batch,64] 256*batch");
    /* anyn's anonymous dim is the input dim anyn:0, not a fresh one */
    expect(&c, "keep", "float[unk__0,1,unk__1] 4*unk__0*unk__1");
    expect(&c, "drop2", "float[unk__2] 4*unk__2");
    expect(&c, "lost", "float[?] ?");
    expect(&c, "mean", "float[batch,1,64] 256*batch");
    done(&c);
}

/* Element count of a shape: ReduceProd/Sum/Max/Min of Shape(x). */
static void test_reduce_partial_eval_of_shape(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,3,8,8");
    mb_node(g, "Shape", "x", "s");
    mb_int_attr(mb_node(g, "ReduceProd", "s", "count"), "keepdims", 0);
    mb_node(g, "ReduceProd", "s", "count1");
    mb_int_attr(mb_node(g, "ReduceSum", "s", "sum"), "keepdims", 0);
    mb_int_attr(mb_node(g, "ReduceMax", "s", "max"), "keepdims", 0);
    mb_int_attr(mb_node(g, "ReduceMin", "s", "min"), "keepdims", 0);
    mb_int_attr(mb_node(g, "ReduceMean", "s", "mean"), "keepdims", 0);
    mb_output(g, "count", I64, NULL);
    ctx c;
    infer(&c, g, 11);
    expect(&c, "count", "int64[] 8");
    expect_elems(&c, "count", "192*batch");
    expect(&c, "count1", "int64[1] 8");
    expect_elems(&c, "count1", "192*batch");
    expect_elems(&c, "sum", "batch+19");
    expect_elems(&c, "max", "max(batch,8)");
    expect_elems(&c, "min", "min(batch,3)");
    expect_elems(&c, "mean", "(batch+3)//4+4"); /* integer mean: (batch+19) // 4, operands >= 0 */
    done(&c);
}

/* Partial evaluation along one axis of a 2-D tensor. */
static void test_reduce_partial_eval_2d(void **state) {
    (void)state;
    const int64_t v[6] = {1, 2, 3, 4, 5, 6}, shape[2] = {2, 3}, a0[1] = {0}, a1[1] = {-1};
    mb_graph *g = mb_new_graph("g");
    const_ints(g, "v", 6, v);
    const_ints(g, "shape", 2, shape);
    const_ints(g, "a0", 1, a0);
    const_ints(g, "a1", 1, a1);
    mb_node(g, "Reshape", "v,shape", "m");
    mb_int_attr(mb_node(g, "ReduceSum", "m,a0", "cols"), "keepdims", 0);
    mb_node(g, "ReduceSum", "m,a1", "rows");
    mb_int_attr(mb_node(g, "ReduceMax", "m,a0", "colmax"), "keepdims", 0);
    mb_node(g, "ReduceProd", "m,a1", "rowprod");
    mb_output(g, "cols", I64, NULL);
    ctx c;
    infer(&c, g, 18);
    expect(&c, "cols", "int64[3] 24");
    expect_elems(&c, "cols", "5,7,9");
    expect(&c, "rows", "int64[2,1] 16");
    expect_elems(&c, "rows", "6,15");
    expect_elems(&c, "colmax", "4,5,6");
    expect_elems(&c, "rowprod", "6,120");
    done(&c);
}

/* Reductions of an empty tensor: sum 0, product 1, max unknown; a huge
 * static output. */
static void test_reduce_partial_eval_empty(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    const_ints(g, "e", 0, NULL);
    mb_int_attr(mb_node(g, "ReduceSum", "e", "sum"), "keepdims", 0);
    mb_int_attr(mb_node(g, "ReduceProd", "e", "prod"), "keepdims", 0);
    mb_int_attr(mb_node(g, "ReduceMax", "e", "max"), "keepdims", 0);
    /* counting the output elements must not overflow (1024 * 2^53) */
    mb_input(g, "big", F32, "1024,9007199254740992,3");
    const int64_t last[1] = {2};
    mb_ints_attr(mb_node(g, "ReduceSum", "big", "bigsum"), "axes", 1, last);
    mb_output(g, "sum", I64, NULL);
    ctx c;
    infer(&c, g, 11);
    expect(&c, "sum", "int64[] 8");
    expect_elems(&c, "sum", "0");
    expect_elems(&c, "prod", "1");
    expect(&c, "max", "int64[] 8");
    expect_elems(&c, "max", "-");
    expect(&c, "bigsum", "float[1024,9007199254740992,1] ?");
    done(&c);
}

/* Unknown rank, out-of-range axis: no crash, a note, the output left alone. */
static void test_reduce_odd_inputs(void **state) {
    (void)state;
    const int64_t bad[1] = {3};
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,4");
    mb_input(g, "u", F32, NULL);
    mb_ints_attr(mb_node(g, "ReduceMean", "x", "bad"), "axes", 1, bad);
    mb_node(g, "ReduceSum", "u", "unranked");
    mb_node(g, "ArgMax", "u", "arg_unranked");
    mb_int_attr(mb_node(g, "ArgMin", "x", "arg_bad"), "axis", -3);
    mb_output(g, "bad", F32, NULL);
    ctx c;
    infer(&c, g, 11);
    expect_note(&c, "axis 3 out of range for rank 2");
    expect_note(&c, "axis -3 out of range for rank 2");
    expect(&c, "bad", "float[?] ?");
    expect(&c, "unranked", "float[?] ?");
    expect(&c, "arg_unranked", "int64[?] ?");
    done(&c);
}

/* ---- ArgMax / ArgMin ------------------------------------------------------- */

static void test_argmax_argmin(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq,10");
    Onnx__NodeProto *n = mb_node(g, "ArgMax", "x", "last");
    mb_int_attr(n, "axis", -1);
    mb_int_attr(n, "keepdims", 0);
    mb_int_attr(n, "select_last_index", 1);
    mb_int_attr(mb_node(g, "ArgMin", "x", "mid"), "axis", 1);
    mb_node(g, "ArgMax", "x", "first");
    mb_output(g, "last", I64, NULL);
    ctx c;
    infer(&c, g, 13);
    expect(&c, "last", "int64[batch,seq] 8*batch*seq");
    expect(&c, "mid", "int64[batch,1,10] 80*batch");
    expect(&c, "first", "int64[1,seq,10] 80*seq");
    done(&c);
}

/* ---- same-shape ops -------------------------------------------------------- */

static void test_same_shape_ops(void **state) {
    (void)state;
    static const char *const ops[] = {"Softmax",
                                      "LogSoftmax",
                                      "Hardmax",
                                      "CumSum",
                                      "InstanceNormalization",
                                      "GroupNormalization",
                                      "MeanVarianceNormalization",
                                      "LpNormalization"};
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,3,seq");
    mb_input(g, "k", I64, "");
    char out[8][8];
    for (int i = 0; i < 8; i++) {
        snprintf(out[i], sizeof out[i], "y%d", i);
        mb_node(g, ops[i], i == 3 ? "x,k" : "x", out[i]);
    }
    mb_output(g, "y0", F32, NULL);
    ctx c;
    infer(&c, g, 18);
    for (int i = 0; i < 8; i++) expect(&c, out[i], "float[batch,3,seq] 12*batch*seq");
    done(&c);
}

/* ---- normalizations -------------------------------------------------------- */

static void test_layer_normalization(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq,64");
    mb_input(g, "w", F32, "64");
    mb_input(g, "w2", F32, "seq,64");
    mb_node(g, "LayerNormalization", "x,w", "y,mean,inv");
    Onnx__NodeProto *n = mb_node(g, "LayerNormalization", "x,w2", "y2,mean2,inv2");
    mb_int_attr(n, "axis", 1);
    mb_int_attr(n, "stash_type", F64);
    mb_node(g, "LayerNormalization", "x,w", "y3,,inv3");
    mb_output(g, "y", F32, NULL);
    ctx c;
    infer(&c, g, 17);
    expect(&c, "y", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "mean", "float[batch,seq,1] 4*batch*seq");
    expect(&c, "inv", "float[batch,seq,1] 4*batch*seq");
    expect(&c, "y2", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "mean2", "double[batch,1,1] 8*batch");
    expect(&c, "inv2", "double[batch,1,1] 8*batch");
    expect(&c, "inv3", "float[batch,seq,1] 4*batch*seq");
    done(&c);
}

/* RMSNormalization and onnxruntime's SimplifiedLayerNormalization: Y has
 * the scale's type. */
static void test_rms_and_simplified_layer_norm(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq,64");
    mb_input(g, "w", F64, "64");
    mb_node(g, "RMSNormalization", "x,w", "rms");
    mb_int_attr(mb_node(g, "SimplifiedLayerNormalization", "x,w", "y,inv"), "axis", -2);
    mb_output(g, "rms", F64, NULL);
    ctx c;
    infer(&c, g, 23);
    expect(&c, "rms", "double[batch,seq,64] 512*batch*seq");
    expect(&c, "y", "double[batch,seq,64] 512*batch*seq");
    expect(&c, "inv", "float[batch,1,1] 4*batch");
    done(&c);
}

static void test_batch_normalization(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,ch,h,w");
    mb_input(g, "s", F32, "ch");
    mb_input(g, "x3", F32, "batch,3,h,w");
    mb_input(g, "s3", F32, "3");
    mb_int_attr(mb_node(g, "BatchNormalization", "x,s,s,s,s", "y,rm,rv"), "training_mode", 1);
    mb_node(g, "BatchNormalization", "x3,s3,s3,s3,s3", "y3");
    mb_output(g, "y", F32, NULL);
    ctx c;
    infer(&c, g, 15);
    expect(&c, "y", "float[batch,ch,h,w] 4*batch*ch*h*w");
    expect(&c, "rm", "float[ch] 4*ch");
    expect(&c, "rv", "float[ch] 4*ch");
    expect(&c, "y3", "float[batch,3,h,w] 12*batch*h*w");
    done(&c);
}

/* Opset 9: mean, var, saved mean, saved var are all [C]. */
static void test_batch_normalization_opset9_outputs(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,ch,h");
    mb_input(g, "s", F32, "?");
    mb_node(g, "BatchNormalization", "x,s,s,s,s", "y,m,v,sm,sv");
    mb_output(g, "y", F32, NULL);
    ctx c;
    infer(&c, g, 9);
    expect(&c, "m", "float[ch] 4*ch");
    expect(&c, "sv", "float[ch] 4*ch");
    done(&c);
}

/* ---- losses ---------------------------------------------------------------- */

static void test_softmax_cross_entropy_loss(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,10,seq");
    mb_input(g, "t", I64, "batch,seq");
    mb_input(g, "t2", I64, "?,?");
    dup_str_attr(mb_node(g, "SoftmaxCrossEntropyLoss", "x,t", "none,logp"), "reduction", "none");
    mb_node(g, "SoftmaxCrossEntropyLoss", "x,t", "mean");
    dup_str_attr(mb_node(g, "SoftmaxCrossEntropyLoss", "x,t2", "none2"), "reduction", "none");
    dup_str_attr(mb_node(g, "SoftmaxCrossEntropyLoss", "x,t,", "sum,logp2"), "reduction", "sum");
    mb_output(g, "none", F32, NULL);
    ctx c;
    infer(&c, g, 13);
    expect(&c, "none", "float[batch,seq] 4*batch*seq");
    expect(&c, "logp", "float[batch,10,seq] 40*batch*seq");
    expect(&c, "mean", "float[] 4");
    expect(&c, "none2", "float[_0x74323a30,_0x74323a31] 4*_0x74323a30*_0x74323a31"); /* t2:0, t2:1 */
    expect(&c, "sum", "float[] 4");
    expect(&c, "logp2", "float[batch,10,seq] 40*batch*seq");
    done(&c);
}

/* NLL: labels' dims, constant ones preferred from the scores. */
static void test_negative_log_likelihood_loss(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "4,5,6,7");
    mb_input(g, "t", I64, "n,6,d");
    mb_input(g, "w", F32, "5");
    dup_str_attr(mb_node(g, "NegativeLogLikelihoodLoss", "x,t", "none"), "reduction", "none");
    dup_str_attr(mb_node(g, "NegativeLogLikelihoodLoss", "x,t,w", "sum"), "reduction", "sum");
    mb_node(g, "NegativeLogLikelihoodLoss", "x,t", "mean");
    mb_output(g, "none", F32, NULL);
    ctx c;
    infer(&c, g, 13);
    expect(&c, "none", "float[4,6,7] 672");
    expect(&c, "sum", "float[] 4");
    expect(&c, "mean", "float[] 4");
    done(&c);
}

/* ---- others ---------------------------------------------------------------- */

static void test_det_tfidf_string_normalizer(void **state) {
    (void)state;
    const int64_t idx[4] = {0, 3, 1, 2};
    static const char *const stop[1] = {"monday"};
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "m", F32, "batch,3,3");
    mb_input(g, "m2", F32, "n,n");
    mb_input(g, "tok", I64, "batch,12");
    mb_input(g, "s", STR, "words");
    mb_input(g, "s2", STR, "1,words");
    mb_node(g, "Det", "m", "det");
    mb_node(g, "Det", "m2", "det2");
    mb_ints_attr(mb_node(g, "TfIdfVectorizer", "tok", "tf"), "ngram_indexes", 4, idx);
    mb_node(g, "StringNormalizer", "s", "same");
    strs_attr(mb_node(g, "StringNormalizer", "s2", "fewer"), "stopwords", 1, stop);
    mb_output(g, "det", F32, NULL);
    ctx c;
    infer(&c, g, 13);
    expect(&c, "det", "float[batch] 4*batch");
    expect(&c, "det2", "float[] 4");
    expect(&c, "tf", "float[batch,4] 16*batch");
    expect(&c, "same", "string[words] ?");
    const memplan_vshape *v = value(&c, "fewer");
    assert_int_equal(v->rank, 2);
    assert_string_equal(memplan_expr_str(memplan_shapes_pool(c.s), v->dims[0]), "1");
    assert_false(memplan_expr_is_const(memplan_shapes_pool(c.s), v->dims[1], NULL));
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_axes_attribute),
        cmocka_unit_test(test_reduce_axes_input_opset18),
        cmocka_unit_test(test_reduce_sum_opset13_unknown_axes),
        cmocka_unit_test(test_reduce_partial_eval_of_shape),
        cmocka_unit_test(test_reduce_partial_eval_2d),
        cmocka_unit_test(test_reduce_partial_eval_empty),
        cmocka_unit_test(test_reduce_odd_inputs),
        cmocka_unit_test(test_argmax_argmin),
        cmocka_unit_test(test_same_shape_ops),
        cmocka_unit_test(test_layer_normalization),
        cmocka_unit_test(test_rms_and_simplified_layer_norm),
        cmocka_unit_test(test_batch_normalization),
        cmocka_unit_test(test_batch_normalization_opset9_outputs),
        cmocka_unit_test(test_softmax_cross_entropy_loss),
        cmocka_unit_test(test_negative_log_likelihood_loss),
        cmocka_unit_test(test_det_tfidf_string_normalizer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
