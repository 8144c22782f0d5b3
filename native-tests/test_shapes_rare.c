/* test_shapes_rare.c -- shape rules no other test reached: sequence
 * insert/erase at unknown positions, the string ops, Multinomial,
 * ImageDecoder, the ai.onnx.ml mappers and extractors, a few ONNX Runtime
 * contrib ops (com.microsoft) and MaxRoiPool / AffineGrid / Col2Im.
 *
 * Every expectation comes from the operator's specification (the ONNX
 * operator docs and defs, ONNX Runtime's contrib schemas), cited per test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"
#include "shapes_test_util.h"

enum { F32 = 1, U8 = 2, I8 = 3, I32 = 6, I64 = 7, STR = 8, F16 = 10, F64 = 11 };

#define MS "com.microsoft"
#define ML "ai.onnx.ml"

/* An int64 initializer from literal values (dims "" for a scalar). */
#define INIT(g, name, dims, ...)                                                                                       \
    mb_initializer_ints((g), (name), (dims), (const int64_t[]){__VA_ARGS__},                                           \
                        sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

/* Opset 20: the string ops, ImageDecoder and AffineGrid are opset 20 ops. */
static void infer(ctx *c, mb_graph *g) { infer_opset(c, g, 20); }

/* The output has no known rank (and so no size), type dtype, and says why. */
static void expect_unknown(ctx *c, const char *name, const char *dtype) {
    char want[64];
    snprintf(want, sizeof want, "%s[?] ?", dtype);
    expect(c, name, want);
    assert_non_null(value(c, name)->reason);
}

/* The single known value of a main-graph value (NULL: not known). */
static void expect_scalar(ctx *c, const char *name, const char *want) {
    const memplan_vshape *v = value(c, name);
    if (!want) {
        assert_true(v->n_elems < 0);
        return;
    }
    assert_int_equal(v->n_elems, 1);
    assert_string_equal(memplan_expr_str(memplan_shapes_pool(c->s), v->elems[0]), want);
}

/* A one-entry STRINGS attribute (static data: the builder does not free it). */
static void strings_attr(Onnx__NodeProto *nd, const char *name) {
    static ProtobufCBinaryData one[1] = {{1, (uint8_t *)(uintptr_t) "a"}};
    Onnx__AttributeProto *a = mb_attr(nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
    a->n_strings = 1;
    a->strings = one;
}

/* A one-entry FLOATS attribute. */
static void floats_attr(Onnx__NodeProto *nd, const char *name) {
    static float one[1] = {0.5f};
    Onnx__AttributeProto *a = mb_attr(nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    a->n_floats = 1;
    a->floats = one;
}

/* A TENSOR attribute holding an empty tensor of type elem (static). */
static void tensor_attr(Onnx__NodeProto *nd, const char *name, int32_t elem) {
    static Onnx__TensorProto t;
    onnx__tensor_proto__init(&t);
    t.has_data_type = 1;
    t.data_type = elem;
    mb_attr(nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR)->t = &t;
}

/* ---- sequences: insert and erase at an unknown position ---------------- */

/* SequenceInsert "outputs a tensor sequence that inserts 'tensor' into
 * 'input_sequence' at 'position'" and SequenceErase "removes the tensor at
 * 'position'" (ONNX operator docs): one more / one fewer element wherever the
 * position is. ONNX's inference merges the element shapes (dims that differ
 * become unknown), so at an unknown position only the common shape is known. */
static void test_sequence_unknown_position(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2,3,4");
    mb_input(g, "y", F32, "2,5,4");
    mb_input(g, "pos", I64, "");
    mb_node(g, "SequenceConstruct", "x,y", "s");
    mb_node(g, "SequenceInsert", "s,x,pos", "ins");
    mb_node(g, "SequenceLength", "ins", "n_ins");
    mb_node(g, "SequenceAt", "ins,pos", "at_ins");
    mb_node(g, "SequenceErase", "s,pos", "era");
    mb_node(g, "SequenceLength", "era", "n_era");
    mb_node(g, "SequenceAt", "era,pos", "at_era");
    /* a symbolic count (one element per row of w), then one unknown count */
    mb_input(g, "w", F32, "B,6");
    mb_input(g, "row", F32, "1,6");
    mb_input(g, "step", I64, "");
    mb_node(g, "SplitToSequence", "w", "rows");
    mb_node(g, "SequenceInsert", "rows,row", "rows_plus");
    mb_node(g, "SequenceLength", "rows_plus", "n_plus");
    mb_node(g, "SequenceErase", "rows_plus", "rows_back");
    mb_node(g, "SequenceLength", "rows_back", "n_back");
    mb_node(g, "SequenceAt", "rows_back,pos", "a_row");
    mb_node(g, "SplitToSequence", "w,step", "chunks");
    mb_node(g, "SequenceInsert", "chunks,row,pos", "chunks_plus");
    mb_node(g, "SequenceLength", "chunks_plus", "n_chunks");
    ctx c;
    infer(&c, g);
    expect_scalar(&c, "n_ins", "3");
    expect(&c, "at_ins", "float[2,unk__0,4] 32*unk__0");
    expect_scalar(&c, "n_era", "1");
    expect(&c, "at_era", "float[2,unk__1,4] 32*unk__1");
    expect_scalar(&c, "n_plus", "B+1");
    expect_scalar(&c, "n_back", "B");
    expect(&c, "a_row", "float[1,6] 24");
    expect_scalar(&c, "n_chunks", NULL);
    done(&c);
}

/* ---- strings ----------------------------------------------------------- */

/* StringConcat "concatenates string tensors elementwise (with NumPy-style
 * broadcasting support)", Z is tensor(string). StringSplit: Y "has one
 * additional rank compared to the input tensor", Z is int64 with X's shape
 * (ONNX's test_string_split_nested: X (2,4,3) -> (2,4,3,None), (2,4,3)). */
static void test_strings(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "a", STR, "2,1");
    mb_input(g, "b", STR, "3");
    mb_input(g, "n", STR, "N,1");
    mb_input(g, "m", STR, "1,M");
    mb_input(g, "two", STR, "2");
    mb_input(g, "t", STR, "2,4,3");
    mb_input(g, "u", STR, NULL);
    mb_node(g, "StringConcat", "a,b", "cat");
    mb_node(g, "StringConcat", "n,m", "cat_sym");
    mb_node(g, "StringConcat", "two,b", "cat_bad"); /* 2 and 3 do not broadcast */
    mb_int_attr(mb_node(g, "StringSplit", "t", "sub,cnt"), "maxsplit", 2);
    mb_node(g, "StringSplit", "u", "sub_u,cnt_u");
    ctx c;
    infer(&c, g);
    expect(&c, "cat", "string[2,3] ?");
    expect(&c, "cat_sym", "string[N,M] ?");
    expect_unknown(&c, "cat_bad", "string");
    expect(&c, "sub", "string[2,4,3,unk__0] ?");
    expect(&c, "cnt", "int64[2,4,3] 192");
    expect_unknown(&c, "sub_u", "string");
    expect_unknown(&c, "cnt_u", "int64");
    done(&c);
}

/* ---- Multinomial, ImageDecoder ----------------------------------------- */

/* Multinomial: input [batch_size, class_size], output [batch_size,
 * sample_size] of dtype (default int32, sample_size default 1).
 * ImageDecoder: "Decoded images follow a channel-last layout: (Height,
 * Width, Channels)", uint8; pixel_format RGB (default), BGR or Grayscale --
 * height and width are in the data. */
static void test_multinomial_image_decoder(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "B,10");
    mb_input(g, "x3", F32, "2,3,4");
    mb_int_attr(mb_node(g, "Multinomial", "x", "m"), "sample_size", 5);
    mb_int_attr(mb_node(g, "Multinomial", "x", "m64"), "dtype", I64);
    mb_node(g, "Multinomial", "x3", "m_bad");
    mb_input(g, "img", U8, "L");
    mb_node(g, "ImageDecoder", "img", "rgb");
    str_attr(mb_node(g, "ImageDecoder", "img", "bgr"), "pixel_format", "BGR");
    str_attr(mb_node(g, "ImageDecoder", "img", "gray"), "pixel_format", "Grayscale");
    ctx c;
    infer(&c, g);
    expect(&c, "m", "int32[B,5] 20*B");
    expect(&c, "m64", "int64[B,1] 8*B");
    expect_unknown(&c, "m_bad", "int32");
    expect(&c, "rgb", "uint8[unk__0,unk__1,3] 3*unk__0*unk__1");
    expect(&c, "bgr", "uint8[unk__2,unk__3,3] 3*unk__2*unk__3");
    expect(&c, "gray", "uint8[unk__4,unk__5,1] unk__4*unk__5");
    done(&c);
}

/* ---- ai.onnx.ml -------------------------------------------------------- */

/* LabelEncoder: "the output type is identical to the specified 'values_*'
 * attribute ... its input and output shapes are the same" (values_tensor:
 * its type, opset 4). CategoryMapper: "If strings are input, the output
 * values are integers, and vice versa", same shape (onnx defs.cc). */
static void test_ml_mappers(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "s", STR, "N,2");
    mb_input(g, "i", I64, "N");
    mb_input(g, "f", F32, "3");
    mb_input(g, "u", STR, NULL);
    Onnx__NodeProto *n = in_domain(mb_node(g, "LabelEncoder", "s", "le_i"), ML);
    strings_attr(n, "keys_strings");
    INTS(n, "values_int64s", 5);
    n = in_domain(mb_node(g, "LabelEncoder", "i", "le_s"), ML);
    INTS(n, "keys_int64s", 5);
    strings_attr(n, "values_strings");
    n = in_domain(mb_node(g, "LabelEncoder", "f", "le_f"), ML);
    floats_attr(n, "keys_floats");
    floats_attr(n, "values_floats");
    n = in_domain(mb_node(g, "LabelEncoder", "i", "le_t"), ML);
    INTS(n, "keys_int64s", 5);
    tensor_attr(n, "values_tensor", F64);
    n = in_domain(mb_node(g, "LabelEncoder", "u", "le_u"), ML);
    strings_attr(n, "keys_strings");
    INTS(n, "values_int64s", 5);
    in_domain(mb_node(g, "CategoryMapper", "s", "cm_i"), ML);
    in_domain(mb_node(g, "CategoryMapper", "i", "cm_s"), ML);
    in_domain(mb_node(g, "CategoryMapper", "u", "cm_u"), ML);
    ctx c;
    infer_opset(&c, g, 21);
    expect(&c, "le_i", "int64[N,2] 16*N");
    expect(&c, "le_s", "string[N] ?");
    expect(&c, "le_f", "float[3] 12");
    expect(&c, "le_t", "double[N] 8*N");
    expect_unknown(&c, "le_u", "int64");
    expect(&c, "cm_i", "int64[N,2] 16*N");
    expect(&c, "cm_s", "string[N] ?");
    expect_unknown(&c, "cm_u", "int64");
    done(&c);
}

/* ArrayFeatureExtractor: "The indices are applied to the last axes of the
 * tensor", Z of X's type; the spec's example: X (3,4), Y [0,1] -> (3,2); the
 * last dim is the number of indices, a single symbolic one passes (onnx
 * defs.cc); a 1-D X gives {1, num_indices} (ONNX Runtime's kernel: "for 1D
 * input, return {1, num_indices}"), a scalar X is an error there.
 * Binarizer and Imputer keep X's type and shape; Normalizer and Scaler give
 * tensor(float) of X's shape; ZipMap gives seq(map(..., float)). */
static void test_ml_extract_and_transform(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "3,4");
    mb_input(g, "y", I64, "2");
    mb_input(g, "xn", F32, "N,5");
    mb_input(g, "k", I64, "1,K");
    mb_input(g, "v", F32, "4");
    mb_input(g, "scalar", F32, "");
    mb_input(g, "yu", I64, NULL);
    in_domain(mb_node(g, "ArrayFeatureExtractor", "x,y", "afe"), ML);
    in_domain(mb_node(g, "ArrayFeatureExtractor", "xn,k", "afe_sym"), ML);
    in_domain(mb_node(g, "ArrayFeatureExtractor", "v,y", "afe_1d"), ML);
    in_domain(mb_node(g, "ArrayFeatureExtractor", "scalar,y", "afe_0d"), ML);
    in_domain(mb_node(g, "ArrayFeatureExtractor", "x,yu", "afe_yu"), ML);
    mb_input(g, "xi", I32, "N,4");
    mb_input(g, "xd", F64, "N,3");
    mb_input(g, "xl", I64, "N,4");
    mb_input(g, "xu", I32, NULL);
    in_domain(mb_node(g, "Binarizer", "xi", "bin"), ML);
    in_domain(mb_node(g, "Binarizer", "xu", "bin_u"), ML);
    in_domain(mb_node(g, "Imputer", "xd", "imp"), ML);
    in_domain(mb_node(g, "Normalizer", "xl", "norm"), ML);
    in_domain(mb_node(g, "Scaler", "xd", "scaled"), ML);
    in_domain(mb_node(g, "Scaler", "xu", "scaled_u"), ML);
    INTS(in_domain(mb_node(g, "ZipMap", "x", "zip"), ML), "classlabels_int64s", 0, 1, 2, 3);
    ctx c;
    infer_opset(&c, g, 21);
    expect(&c, "afe", "float[3,2] 24");
    expect(&c, "afe_sym", "float[N,K] 4*K*N");
    expect(&c, "afe_1d", "float[1,2] 8");
    expect_unknown(&c, "afe_0d", "float");
    expect_unknown(&c, "afe_yu", "float");
    expect(&c, "bin", "int32[N,4] 16*N");
    expect(&c, "bin_u", "int32[?] ?");
    expect(&c, "imp", "double[N,3] 24*N");
    expect(&c, "norm", "float[N,4] 16*N");
    expect(&c, "scaled", "float[N,3] 12*N");
    expect_unknown(&c, "scaled_u", "float");
    assert_int_equal(value(&c, "zip")->kind, MEMPLAN_TYPE_SEQUENCE);
    done(&c);
}

/* ---- com.microsoft ----------------------------------------------------- */

/* BiasDropout: output like data, mask tensor(bool) of data's shape
 * (contrib_defs.cc: propagateShapeAndTypeFromFirstInput; mask BOOL with
 * input 0's shape). BitmaskBiasDropout: the mask is "T3 : tensor(uint32)",
 * bit-packed, with no shape in the schema; ONNX Runtime's kernels and tests
 * use ceil(N / 32) words for N elements (bitmask_dropout_grad_test.cc feeds
 * the mask as {bitmask_element_count}). BiasSplitGelu: X (N, S, D) -> Y
 * (N, S, D/2), "input shall be 3 dimensions" (diffusion_defs.cc). */
static void test_contrib_dropout_gelu(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "B,S,8");
    mb_input(g, "bias", F32, "8");
    mb_input(g, "xu", F32, NULL);
    in_domain(mb_node(g, "BiasDropout", "x,bias", "drop,mask"), MS);
    in_domain(mb_node(g, "BiasDropout", "xu,bias", "drop_u,mask_u"), MS);
    in_domain(mb_node(g, "BitmaskBiasDropout", "x,bias", "bdrop,bmask"), MS);
    mb_input(g, "x105", F32, "3,5,7");
    in_domain(mb_node(g, "BitmaskBiasDropout", "x105", "bdrop105,bmask105"), MS);
    in_domain(mb_node(g, "BitmaskBiasDropout", "xu,bias", "bdrop_u,bmask_u"), MS);
    mb_input(g, "h", F16, "B,HW,1280");
    mb_input(g, "hb", F16, "1280");
    mb_input(g, "h4", F16, "B,2,3,1280");
    in_domain(mb_node(g, "BiasSplitGelu", "h,hb", "gelu"), MS);
    in_domain(mb_node(g, "BiasSplitGelu", "h4,hb", "gelu4"), MS);
    ctx c;
    infer(&c, g);
    expect(&c, "drop", "float[B,S,8] 32*B*S");
    expect(&c, "mask", "bool[B,S,8] 8*B*S");
    expect(&c, "drop_u", "float[?] ?");
    expect_unknown(&c, "mask_u", "bool");
    expect(&c, "bdrop", "float[B,S,8] 32*B*S");
    expect(&c, "bmask", "uint32[(8*B*S+31)//32] 4*((8*B*S+31)//32)");
    expect(&c, "bmask105", "uint32[4] 16"); /* 105 bits in 4 words */
    expect_unknown(&c, "bmask_u", "uint32");
    expect(&c, "gelu", "float16[B,HW,640] 1280*B*HW");
    expect_unknown(&c, "gelu4", "float16");
    done(&c);
}

/* QGemm (quantization_defs.cc): Y "(M, N)"; its type is y_zero_point's when
 * that input is given, else float ("The output is full precision(float32) if
 * it is not provided"); A and B must have rank 2. QuantizeLinear: y "has same
 * shape as input 'x'", y_zero_point's type, "Default is uint8". */
static void test_contrib_quant(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "a", U8, "M,4");
    mb_input(g, "a3", U8, "2,M,4");
    mb_input(g, "sc", F32, "");
    mb_input(g, "azp", U8, "");
    mb_input(g, "b", I8, "4,5");
    mb_input(g, "bt", I8, "5,4");
    mb_input(g, "bzp", I8, "");
    mb_input(g, "cc", I32, "5");
    mb_input(g, "yzp", I8, "");
    in_domain(mb_node(g, "QGemm", "a,sc,azp,b,sc,bzp", "qg"), MS);
    in_domain(mb_node(g, "QGemm", "a,sc,azp,b,sc,bzp,cc,sc,yzp", "qg_q"), MS);
    mb_int_attr(in_domain(mb_node(g, "QGemm", "a,sc,azp,bt,sc,bzp", "qg_t"), MS), "transB", 1);
    in_domain(mb_node(g, "QGemm", "a,sc,azp,b,sc,bzp,cc,sc", "qg_ys"), MS);
    in_domain(mb_node(g, "QGemm", "a3,sc,azp,b,sc,bzp", "qg_3d"), MS);
    mb_input(g, "x", F32, "N,3");
    mb_input(g, "xu", F32, NULL);
    in_domain(mb_node(g, "QuantizeLinear", "x,sc,yzp", "q8"), MS);
    in_domain(mb_node(g, "QuantizeLinear", "x,sc", "qu8"), MS);
    in_domain(mb_node(g, "QuantizeLinear", "xu,sc", "q_u"), MS);
    ctx c;
    infer(&c, g);
    expect(&c, "qg", "float[M,5] 20*M");
    expect(&c, "qg_q", "int8[M,5] 5*M");
    expect(&c, "qg_t", "float[M,5] 20*M");
    expect(&c, "qg_ys", "float[M,5] 20*M");
    expect_unknown(&c, "qg_3d", "float");
    expect(&c, "q8", "int8[N,3] 3*N");
    expect(&c, "qu8", "uint8[N,3] 3*N");
    expect_unknown(&c, "q_u", "uint8");
    done(&c);
}

/* GridSample (contrib_defs.cc): X (N, C, H, W), grid (N, H_out, W_out, 2) ->
 * "(N, C, H_out, W_out)", checkInputRank 4 for both. Range
 * (range_schema_defs.cc): 1-D, start's type, ceil((limit - start) / delta)
 * when the values are known ("else unknown 1-D tensor"), delta defaults to
 * 1, a zero delta fails. */
static void test_contrib_grid_sample_range(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "N,C,H,W");
    mb_input(g, "grid", F32, "N,7,9,2");
    mb_input(g, "grid5", F32, "N,2,7,9,3");
    in_domain(mb_node(g, "GridSample", "x,grid", "gs"), MS);
    in_domain(mb_node(g, "GridSample", "x,grid5", "gs5"), MS);
    INIT(g, "start", "", 2);
    INIT(g, "limit", "", 11);
    INIT(g, "delta", "", 3);
    INIT(g, "zero", "", 0);
    mb_input(g, "lim_u", I64, "");
    in_domain(mb_node(g, "Range", "start,limit,delta", "r"), MS);
    in_domain(mb_node(g, "Range", "start,limit", "r1"), MS);
    in_domain(mb_node(g, "Range", "start,lim_u,delta", "r_u"), MS);
    in_domain(mb_node(g, "Range", "start,limit,zero", "r_0"), MS);
    ctx c;
    infer(&c, g);
    expect(&c, "gs", "float[N,C,7,9] 252*C*N");
    expect_unknown(&c, "gs5", "float");
    expect(&c, "r", "int64[3] 24");
    expect(&c, "r1", "int64[9] 72");
    expect(&c, "r_u", "int64[unk__0] 8*unk__0");
    expect(&c, "r_0", "int64[unk__1] 8*unk__1");
    done(&c);
}

/* ---- MaxRoiPool, AffineGrid, Col2Im ------------------------------------ */

/* MaxRoiPool: Y "(num_rois, channels, pooled_shape[0], pooled_shape[1])",
 * rois (num_rois, 5), pooled_shape required. AffineGrid: theta (N, 2, 3) /
 * (N, 3, 4), size (N, C, H, W) / (N, C, D, H, W) -> grid (N, H, W, 2) /
 * (N, D, H, W, 3) (test_affine_grid_2d: size [2,3,5,6] -> [2,5,6,2]). */
static void test_roi_pool_affine_grid(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "N,256,H,W");
    mb_input(g, "rois", F32, "R,5");
    INTS(mb_node(g, "MaxRoiPool", "x,rois", "roi"), "pooled_shape", 7, 7);
    mb_node(g, "MaxRoiPool", "x,rois", "roi_bad");
    mb_input(g, "theta", F32, "2,2,3");
    mb_input(g, "theta3", F32, "2,3,4");
    mb_input(g, "theta_n", F32, "N,2,3");
    INIT(g, "size", "4", 2, 3, 5, 6);
    INIT(g, "size3", "5", 2, 3, 4, 5, 6);
    mb_input(g, "size_u", I64, "4");
    mb_input(g, "size_k", I64, "k");
    mb_node(g, "AffineGrid", "theta,size", "grid");
    mb_node(g, "AffineGrid", "theta3,size3", "grid3");
    mb_node(g, "AffineGrid", "theta_n,size_u", "grid_u");
    mb_node(g, "AffineGrid", "theta_n,size_k", "grid_k");
    ctx c;
    infer(&c, g);
    expect(&c, "roi", "float[R,256,7,7] 50176*R");
    expect_unknown(&c, "roi_bad", "float");
    expect(&c, "grid", "float[2,5,6,2] 480");
    expect(&c, "grid3", "float[2,4,5,6,3] 2880");
    expect(&c, "grid_u", "float[N,unk__0,unk__1,2] 8*N*unk__0*unk__1");
    expect_unknown(&c, "grid_k", "float");
    done(&c);
}

/* Col2Im: input (N, C * n-ary-product(block_shape), L) -> output (N, C,
 * image_shape...) (test_col2im: [1,5,5], image [5,5], block [1,5] ->
 * [1,1,5,5]; test_col2im_5d: [1,10,12], image [3,4,5], block [1,1,5] ->
 * [1,2,3,4,5]). */
static void test_col2im(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "1,5,5");
    mb_input(g, "x5", F32, "1,10,12");
    mb_input(g, "xn", F32, "N,10,L");
    INIT(g, "img", "2", 5, 5);
    INIT(g, "blk", "2", 1, 5);
    INIT(g, "img3", "3", 3, 4, 5);
    INIT(g, "blk3", "3", 1, 1, 5);
    mb_input(g, "img_u", I64, "2");
    mb_input(g, "img_k", I64, "k");
    mb_node(g, "Col2Im", "x,img,blk", "im");
    mb_node(g, "Col2Im", "x5,img3,blk3", "im5");
    mb_node(g, "Col2Im", "xn,img,blk", "im_n");
    mb_node(g, "Col2Im", "xn,img_u,blk", "im_u");
    mb_node(g, "Col2Im", "xn,img_k,blk", "im_k");
    ctx c;
    infer(&c, g);
    expect(&c, "im", "float[1,1,5,5] 100");
    expect(&c, "im5", "float[1,2,3,4,5] 480");
    expect(&c, "im_n", "float[N,2,5,5] 200*N");
    expect(&c, "im_u", "float[N,2,unk__0,unk__1] 8*N*unk__0*unk__1");
    expect_unknown(&c, "im_k", "float");
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequence_unknown_position),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_multinomial_image_decoder),
        cmocka_unit_test(test_ml_mappers),
        cmocka_unit_test(test_ml_extract_and_transform),
        cmocka_unit_test(test_contrib_dropout_gelu),
        cmocka_unit_test(test_contrib_quant),
        cmocka_unit_test(test_contrib_grid_sample_range),
        cmocka_unit_test(test_roi_pool_affine_grid),
        cmocka_unit_test(test_col2im),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
