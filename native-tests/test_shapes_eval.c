/* test_shapes_eval.c -- partial evaluation (src/shapes/eval.c): every op of
 * the table on known values, with the ONNX operator spec's own examples
 * where it has them; symbolic values where the op is exact on them; none
 * where it is not; and the two model patterns of issue 16 (M-LSD's Pad
 * pads from a Split of a constant, BERT's Cast-to-float / Min / Cast-back
 * slice bound). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"
#include "shapes_test_util.h"

enum { F32 = 1, U8 = 2, I8 = 3, I32 = 6, I64 = 7, BOOL = 9, F64 = 11 };

/* ---- building ----------------------------------------------------------- */

/* Float data the builder does not free; freed after packing. */
static void *owned[64];
static size_t n_owned;

static void ints(mb_graph *g, const char *name, const char *dims, size_t n, const int64_t *v) {
    mb_initializer_ints(g, name, dims, v, n);
}

static void floats(mb_graph *g, const char *name, const char *dims, size_t n, const float *v) {
    mb_initializer(g, name, F32, dims);
    Onnx__TensorProto *t = g->initializer[g->n_initializer - 1];
    t->float_data = malloc((n ? n : 1) * sizeof *t->float_data);
    memcpy(t->float_data, v, n * sizeof *v);
    t->n_float_data = n;
    owned[n_owned++] = t->float_data;
}

#define I(g, name, dims, ...)                                                                                          \
    do {                                                                                                               \
        static const int64_t v_[] = {__VA_ARGS__};                                                                     \
        ints((g), (name), (dims), sizeof v_ / sizeof v_[0], v_);                                                       \
    } while (0)
#define F(g, name, dims, ...)                                                                                          \
    do {                                                                                                               \
        static const float v_[] = {__VA_ARGS__};                                                                       \
        floats((g), (name), (dims), sizeof v_ / sizeof v_[0], v_);                                                     \
    } while (0)
/* Packing frees the graph, not the float data: free it after. */
static void infer_at(ctx *c, mb_graph *g, int64_t opset) {
    infer_opset(c, g, opset);
    for (size_t i = 0; i < n_owned; i++) free(owned[i]);
    n_owned = 0;
}

static void infer(ctx *c, mb_graph *g) { infer_at(c, g, 18); }

/* Known values "v0,v1,..." of a value ("-" when unknown): integers and
 * amounts as printed, floats with %.9g (float) or %.17g (double), a
 * symbolic float as (amount)/2^k. */
static void expect_vals(ctx *c, const char *name, const char *want) {
    const memplan_vshape *v = value(c, name);
    memplan_expr_pool *p = memplan_shapes_pool(c->s);
    char buf[2048] = "-";
    size_t n = 0;
    for (int32_t i = 0; i < v->n_elems && n < sizeof buf; i++) {
        int64_t k;
        const char *sep = i ? "," : "";
        if (v->elem_shift == 0) {
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", sep, memplan_expr_str(p, v->elems[i]));
        } else if (memplan_expr_is_const(p, v->elems[i], &k)) {
            n += (size_t)snprintf(buf + n, sizeof buf - n, v->elem_type == F32 ? "%s%.9g" : "%s%.17g", sep,
                                  ldexp((double)k, -v->elem_shift));
        } else {
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s(%s)/2^%d", sep, memplan_expr_str(p, v->elems[i]),
                                  (int)v->elem_shift);
        }
    }
    if (strcmp(buf, want) != 0) fail_msg("%s: values '%s', expected '%s'", name, buf, want);
}

/* ---- issue 16's model patterns ------------------------------------------ */

/* M-LSD: the pads of a Pad are a Split of a constant (concatenated back). */
static void test_mlsd_pads_from_split(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "1,4,512,512");
    I(g, "all", "8", 0, 0, 1, 1, 0, 0, 1, 1);
    Onnx__NodeProto *sp = mb_node(g, "Split", "all", "head,tail");
    mb_int_attr(sp, "num_outputs", 2);
    mb_int_attr(mb_node(g, "Concat", "tail,head", "pads"), "axis", 0);
    mb_node(g, "Pad", "x,pads", "y");
    mb_output(g, "y", F32, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "head", "0,0,1,1");
    expect_vals(&c, "pads", "0,0,1,1,0,0,1,1");
    expect(&c, "y", "float[1,4,514,514] 4227136");
    done(&c);
}

/* BERT: a position slice bound through Cast to float, Min with 512 and
 * Cast back. */
static void test_bert_cast_min_cast_back(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "ids", I64, "batch,seq");
    mb_initializer(g, "pos", F32, "512,768");
    I(g, "one", "1", 1);
    I(g, "zero", "1", 0);
    F(g, "limit", "", 512.0f);
    mb_node(g, "Shape", "ids", "s");
    mb_node(g, "Gather", "s,one", "len");
    mb_int_attr(mb_node(g, "Cast", "len", "lenf"), "to", F32);
    mb_node(g, "Min", "lenf,limit", "m");
    mb_int_attr(mb_node(g, "Cast", "m", "end"), "to", I64);
    mb_node(g, "Slice", "pos,zero,end,zero", "table");
    mb_output(g, "table", F32, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "lenf", "seq");
    expect_vals(&c, "m", "min(seq,512)");
    expect_vals(&c, "end", "min(seq,512)");
    expect(&c, "table", "float[min(seq,512),768] 3072*min(seq,512)");
    done(&c);
}

/* ---- elementwise --------------------------------------------------------- */

static void test_arithmetic_constants(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    I(g, "a", "4", 7, -7, 7, -7);
    I(g, "b", "4", 2, 2, -2, -2);
    mb_node(g, "Add", "a,b", "add");
    mb_node(g, "Sub", "a,b", "sub");
    mb_node(g, "Mul", "a,b", "mul");
    mb_node(g, "Div", "a,b", "div");                          /* integers truncate */
    mb_node(g, "Mod", "a,b", "mod");                          /* fmod=0: the sign of the divisor */
    mb_int_attr(mb_node(g, "Mod", "a,b", "fmod"), "fmod", 1); /* C: the sign of the dividend */
    mb_node(g, "Pow", "b,b", "pow");                          /* 2^-2 is not an integer */
    mb_node(g, "Pow", "a,b", "pow_abs");                      /* (-2)^-2 neither: all or nothing */
    I(g, "e", "4", 0, 1, 2, 3);
    mb_node(g, "Pow", "b,e", "pow_ok");
    mb_output(g, "add", I64, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "add", "9,-5,5,-9");
    expect_vals(&c, "sub", "5,-9,9,-5");
    expect_vals(&c, "mul", "14,-14,-14,14");
    expect_vals(&c, "div", "3,-3,-3,3");
    expect_vals(&c, "mod", "1,1,-1,-1");
    expect_vals(&c, "fmod", "1,-1,1,-1");
    expect_vals(&c, "pow", "-");
    expect_vals(&c, "pow_abs", "-");
    expect_vals(&c, "pow_ok", "1,2,4,-8");
    done(&c);
}

static void test_arithmetic_constants_float(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    I(g, "a", "4", 7, -7, 7, -7);
    I(g, "b", "4", 2, 2, -2, -2);
    F(g, "fa", "4", 7.0f, -7.0f, 0.5f, 1.5f);
    F(g, "fb", "4", 2.0f, 2.0f, 0.25f, 3.0f);
    F(g, "tenth", "", 0.1f);
    mb_node(g, "Div", "fa,fb", "fdiv");
    mb_int_attr(mb_node(g, "Mod", "fa,fb", "ffmod"), "fmod", 1);
    mb_node(g, "Max", "a,b,b", "max3");
    mb_node(g, "Min", "fa,fb", "fmin");
    mb_node(g, "Sum", "a,b,b", "sum3");
    mb_node(g, "Mean", "fa,fb", "mean");
    mb_node(g, "Pow", "fb,fb", "fpow");
    mb_node(g, "Mul", "fa,tenth", "tenths"); /* float32 products, rounded as the runtime rounds */
    mb_output(g, "fdiv", F32, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "fdiv", "3.5,-3.5,2,0.5");
    expect_vals(&c, "ffmod", "1,-1,0,1.5");
    expect_vals(&c, "max3", "7,2,7,-2");
    expect_vals(&c, "fmin", "2,-7,0.25,1.5");
    expect_vals(&c, "sum3", "11,-3,3,-11");
    expect_vals(&c, "mean", "4.5,-2.5,0.375,2.25");
    expect_vals(&c, "fpow", "4,4,0.707106769,27");
    expect_vals(&c, "tenths", "0.699999988,-0.699999988,0.0500000007,0.150000006");
    done(&c);
}

/* Floor, Ceil, Round (half to even), Abs, Neg, Sign, Relu, Reciprocal, Sqrt. */
static void test_unary(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    F(g, "x", "6", -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.0f);
    I(g, "k", "3", -3, 0, 4);
    const char *ops[] = {"Floor", "Ceil", "Round", "Abs", "Neg", "Sign", "Relu"};
    const char *outs[] = {"floor", "ceil", "round", "abs", "neg", "sign", "relu"};
    for (int i = 0; i < 7; i++) mb_node(g, ops[i], "x", outs[i]);
    mb_node(g, "Abs", "k", "kabs");
    mb_node(g, "Neg", "k", "kneg");
    mb_node(g, "Sign", "k", "ksign");
    mb_node(g, "Relu", "k", "krelu");
    F(g, "four", "2", 4.0f, 0.25f);
    mb_node(g, "Reciprocal", "four", "recip");
    mb_node(g, "Sqrt", "four", "sqrt");
    mb_output(g, "floor", F32, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "floor", "-2,-1,0,1,2,2");
    expect_vals(&c, "ceil", "-1,0,1,2,3,2"); /* ceil(-0.5) is -0: equal to 0 */
    expect_vals(&c, "round", "-2,0,0,2,2,2");
    expect_vals(&c, "abs", "1.5,0.5,0.5,1.5,2.5,2");
    expect_vals(&c, "neg", "1.5,0.5,-0.5,-1.5,-2.5,-2");
    expect_vals(&c, "sign", "-1,-1,1,1,1,1");
    expect_vals(&c, "relu", "0,0,0.5,1.5,2.5,2");
    expect_vals(&c, "kabs", "3,0,4");
    expect_vals(&c, "kneg", "3,0,-4");
    expect_vals(&c, "ksign", "-1,0,1");
    expect_vals(&c, "krelu", "0,0,4");
    expect_vals(&c, "recip", "0.25,4");
    expect_vals(&c, "sqrt", "2,0.5");
    done(&c);
}

/* Comparisons, Not/And/Or/Xor, Where, Clip; on constants and on dims. */
static void test_logic_where_clip(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq");
    I(g, "a", "3", 1, 2, 3);
    I(g, "b", "3", 2, 2, 2);
    I(g, "zero", "", 0);
    I(g, "minus1", "", -1);
    mb_node(g, "Equal", "a,b", "eq");
    mb_node(g, "Less", "a,b", "lt");
    mb_node(g, "Greater", "a,b", "gt");
    mb_node(g, "LessOrEqual", "a,b", "le");
    mb_node(g, "GreaterOrEqual", "a,b", "ge");
    mb_node(g, "Not", "lt", "nlt");
    mb_node(g, "And", "le,ge", "and");
    mb_node(g, "Or", "lt,gt", "or");
    mb_node(g, "Xor", "le,ge", "xor");
    mb_node(g, "Where", "lt,a,b", "where");
    I(g, "lo", "", 2);
    mb_node(g, "Clip", "a,lo", "clip");
    /* dims: batch is >= 0, so Equal(batch, -1) is false and Less(batch, 0) too */
    mb_node(g, "Shape", "x", "s");
    mb_node(g, "Equal", "s,minus1", "s_eq");
    mb_node(g, "Less", "s,zero", "s_lt");
    mb_output(g, "eq", BOOL, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "eq", "0,1,0");
    expect_vals(&c, "lt", "1,0,0");
    expect_vals(&c, "gt", "0,0,1");
    expect_vals(&c, "le", "1,1,0");
    expect_vals(&c, "ge", "0,1,1");
    expect_vals(&c, "nlt", "0,1,1");
    expect_vals(&c, "and", "0,1,0");
    expect_vals(&c, "or", "1,0,1");
    expect_vals(&c, "xor", "1,0,1");
    expect_vals(&c, "where", "1,2,2");
    expect_vals(&c, "clip", "2,2,3");
    expect_vals(&c, "s_eq", "0,0");
    expect_vals(&c, "s_lt", "0,0");
    done(&c);
}

/* Cast: float to int truncates, integers wrap, to bool is nonzero. */
static void test_cast(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    F(g, "f", "4", -1.5f, 2.7f, 300.0f, -0.0f);
    I(g, "k", "4", 300, -1, 0, 255);
    mb_int_attr(mb_node(g, "Cast", "f", "f_i64"), "to", I64);
    mb_int_attr(mb_node(g, "Cast", "f", "f_u8"), "to", U8); /* 300 is out of range: unknown */
    mb_int_attr(mb_node(g, "Cast", "k", "k_i8"), "to", I8); /* wraps */
    mb_int_attr(mb_node(g, "Cast", "k", "k_u8"), "to", U8);
    mb_int_attr(mb_node(g, "Cast", "k", "k_bool"), "to", BOOL);
    mb_int_attr(mb_node(g, "Cast", "k", "k_f"), "to", F32);
    mb_int_attr(mb_node(g, "Cast", "f", "f_d"), "to", F64);
    mb_output(g, "f_i64", I64, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "f_i64", "-1,2,300,0");
    expect_vals(&c, "f_u8", "-");
    expect_vals(&c, "k_i8", "44,-1,0,-1");
    expect_vals(&c, "k_u8", "44,255,0,255");
    expect_vals(&c, "k_bool", "1,1,0,1");
    expect_vals(&c, "k_f", "300,-1,0,255");
    expect_vals(&c, "f_d", "-1.5,2.7000000476837158,300,0");
    done(&c);
}

/* Initializers of the narrow integer types keep their values, sign or not
 * (ONNX's raw_data is little-endian; the values as Cast to int64 show them). */
static void test_narrow_initializers(void **state) {
    (void)state;
    static const int8_t i8[] = {-1, 3};
    static const uint8_t u8[] = {255, 0};
    static const int16_t i16[] = {-300, 7};
    static const uint16_t u16[] = {65535, 1};
    static const int32_t i32[] = {-5, 6};
    static const uint32_t u32[] = {4294967295u, 2};
    static const struct {
        const char *name;
        int32_t type;
        const void *data;
        size_t len;
        const char *want;
    } cases[] = {{"i8", I8, i8, sizeof i8, "-1,3"},     {"u8", U8, u8, sizeof u8, "255,0"},
                 {"i16", 5, i16, sizeof i16, "-300,7"}, {"u16", 4, u16, sizeof u16, "65535,1"},
                 {"i32", I32, i32, sizeof i32, "-5,6"}, {"u32", 12, u32, sizeof u32, "4294967295,2"}};
    mb_graph *g = mb_new_graph("g");
    char out[16];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mb_initializer_raw(g, cases[k].name, cases[k].type, "2", cases[k].data, cases[k].len);
        snprintf(out, sizeof out, "%s_i64", cases[k].name);
        mb_int_attr(mb_node(g, "Cast", cases[k].name, out), "to", I64);
    }
    mb_output(g, "u32_i64", I64, NULL);
    ctx c;
    infer(&c, g);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(out, sizeof out, "%s_i64", cases[k].name);
        expect_vals(&c, out, cases[k].want);
    }
    /* int8 [-1, 3] as a Reshape's shape: the -1 is inferred */
    g = mb_new_graph("g");
    mb_input(g, "x", F32, "6");
    mb_initializer_raw(g, "s8", I8, "2", i8, sizeof i8);
    mb_int_attr(mb_node(g, "Cast", "s8", "s"), "to", I64);
    mb_node(g, "Reshape", "x,s", "y");
    mb_output(g, "y", F32, NULL);
    ctx c2;
    infer(&c2, g);
    expect(&c2, "y", "float[2,3] 24");
    done(&c);
    done(&c2);
}

/* Symbolic values where the op is exact on them, none where it is not. */
static void test_symbolic_floats(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq");
    I(g, "one", "", 1);
    F(g, "half", "", 0.5f);
    F(g, "two", "", 2.0f);
    F(g, "three", "", 3.0f);
    mb_node(g, "Shape", "x", "s");
    mb_node(g, "Gather", "s,one", "n");
    mb_int_attr(mb_node(g, "Cast", "n", "nf"), "to", F32);
    mb_node(g, "Mul", "nf,half", "h"); /* seq/2 */
    mb_node(g, "Floor", "h", "hf");
    mb_node(g, "Ceil", "h", "hc");
    mb_node(g, "Round", "h", "hr");                        /* half to even: not an amount */
    mb_int_attr(mb_node(g, "Cast", "h", "hi"), "to", I64); /* truncation = floor for dims */
    mb_node(g, "Mul", "nf,two", "d");
    mb_node(g, "Div", "d,two", "back");                        /* (2*seq)/2 = seq */
    mb_node(g, "Div", "nf,three", "third");                    /* not exact */
    mb_int_attr(mb_node(g, "Cast", "n", "n8"), "to", I8);      /* may wrap */
    mb_node(g, "Sub", "h,nf", "neg");                          /* -seq/2 */
    mb_int_attr(mb_node(g, "Cast", "neg", "negi"), "to", I64); /* toward zero: ceil */
    mb_output(g, "hf", F32, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "nf", "seq");
    expect_vals(&c, "h", "(seq)/2^1");
    expect_vals(&c, "hf", "seq//2");
    expect_vals(&c, "hc", "(seq+1)//2");
    expect_vals(&c, "hr", "-");
    expect_vals(&c, "hi", "seq//2");
    expect_vals(&c, "back", "seq");
    expect_vals(&c, "third", "-");
    expect_vals(&c, "n8", "-");
    expect_vals(&c, "neg", "(-seq)/2^1");
    expect_vals(&c, "negi", "(seq+1)//2-seq"); /* = -(seq//2) */
    done(&c);
}

/* ---- rearranging ops ----------------------------------------------------- */

static void test_transpose_concat_split_slice(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    I(g, "m", "2,3", 1, 2, 3, 4, 5, 6);
    mb_node(g, "Transpose", "m", "t");
    mb_int_attr(mb_node(g, "Concat", "m,m", "c1"), "axis", 1);
    mb_int_attr(mb_node(g, "Concat", "m,m", "c0"), "axis", 0);
    Onnx__NodeProto *sp = mb_node(g, "Split", "m", "p0,p1");
    mb_int_attr(sp, "axis", 1);
    I(g, "sizes", "2", 1, 2);
    mb_int_attr(mb_node(g, "Split", "m,sizes", "q0,q1"), "axis", 1);
    /* the Split spec example: [1..6] in 2, 4 */
    I(g, "v6", "6", 1, 2, 3, 4, 5, 6);
    I(g, "s24", "2", 2, 4);
    mb_node(g, "Split", "v6,s24", "a2,a4");
    /* Slice m[:, ::-2] and m[1:, 1:] */
    I(g, "st", "1", -1);
    I(g, "en", "1", INT64_MIN);
    I(g, "ax", "1", 1);
    I(g, "step", "1", -2);
    mb_node(g, "Slice", "m,st,en,ax,step", "rev");
    I(g, "st2", "2", 1, 1);
    I(g, "en2", "2", 2, 3);
    mb_node(g, "Slice", "m,st2,en2", "corner");
    mb_output(g, "t", I64, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "t", "1,4,2,5,3,6");
    expect_vals(&c, "c1", "1,2,3,1,2,3,4,5,6,4,5,6");
    expect_vals(&c, "c0", "1,2,3,4,5,6,1,2,3,4,5,6");
    expect(&c, "p1", "int64[2,1] 16"); /* 3 in 2 parts: 2 and 1 */
    expect_vals(&c, "p0", "1,2,4,5");
    expect_vals(&c, "p1", "3,6");
    expect_vals(&c, "q0", "1,4");
    expect_vals(&c, "q1", "2,3,5,6");
    expect_vals(&c, "a2", "1,2");
    expect_vals(&c, "a4", "3,4,5,6");
    expect(&c, "rev", "int64[2,2] 32");
    expect_vals(&c, "rev", "3,1,6,4");
    expect_vals(&c, "corner", "5,6");
    done(&c);
}

/* Gather (N-D), GatherElements and GatherND: the spec's examples. */
static void test_gathers(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    /* Gather example 1: data [[1,1.2],[2.3,3.4],[4.5,5.7]], indices [[0,1],[1,2]] */
    I(g, "data", "3,2", 10, 12, 23, 34, 45, 57);
    I(g, "idx", "2,2", 0, 1, 1, 2);
    mb_node(g, "Gather", "data,idx", "g0");
    /* example 2: axis 1, indices [[0,2]] on a 3x3 */
    I(g, "d33", "3,3", 10, 19, 12, 23, 39, 34, 45, 59, 57);
    I(g, "idx02", "1,2", 0, 2);
    mb_int_attr(mb_node(g, "Gather", "d33,idx02", "g1"), "axis", 1);
    /* GatherElements: data [[1,2],[3,4]], indices [[0,0],[1,0]], axis 1 -> [[1,1],[4,3]] */
    I(g, "d22", "2,2", 1, 2, 3, 4);
    I(g, "ge_idx", "2,2", 0, 0, 1, 0);
    mb_int_attr(mb_node(g, "GatherElements", "d22,ge_idx", "ge"), "axis", 1);
    /* GatherND example 1: [[0,1],[2,3]], [[0,0],[1,1]] -> [0,3]; example 2: [[1],[0]] -> [[2,3],[0,1]] */
    I(g, "nd", "2,2", 0, 1, 2, 3);
    I(g, "nd_i1", "2,2", 0, 0, 1, 1);
    I(g, "nd_i2", "2,1", 1, 0);
    mb_node(g, "GatherND", "nd,nd_i1", "gnd1");
    mb_node(g, "GatherND", "nd,nd_i2", "gnd2");
    /* example 5 (batch_dims 1): [[[0,1],[2,3]],[[4,5],[6,7]]], [[1],[0]] -> [[2,3],[4,5]] */
    I(g, "nd3", "2,2,2", 0, 1, 2, 3, 4, 5, 6, 7);
    mb_int_attr(mb_node(g, "GatherND", "nd3,nd_i2", "gnd5"), "batch_dims", 1);
    mb_output(g, "g0", I64, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "g0", "int64[2,2,2] 64");
    expect_vals(&c, "g0", "10,12,23,34,23,34,45,57");
    expect(&c, "g1", "int64[3,1,2] 48");
    expect_vals(&c, "g1", "10,12,23,34,45,57");
    expect_vals(&c, "ge", "1,1,4,3");
    expect_vals(&c, "gnd1", "0,3");
    expect_vals(&c, "gnd2", "2,3,0,1");
    expect_vals(&c, "gnd5", "2,3,4,5");
    done(&c);
}

/* ScatterND and ScatterElements: the spec's examples. */
static void test_scatters(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    I(g, "data", "8", 1, 2, 3, 4, 5, 6, 7, 8);
    I(g, "idx", "4,1", 4, 3, 1, 7);
    I(g, "upd", "4", 9, 10, 11, 12);
    mb_node(g, "ScatterND", "data,idx,upd", "snd");
    str_attr(mb_node(g, "ScatterND", "data,idx,upd", "snd_add"), "reduction", "add");
    /* ScatterElements example 2: [[1,2,3,4,5]], [[1,3]], [[1.1,2.1]], axis 1 */
    F(g, "row", "1,5", 1.0f, 2.0f, 3.0f, 4.0f, 5.0f);
    I(g, "cols", "1,2", 1, 3);
    F(g, "vals", "1,2", 1.1f, 2.1f);
    mb_int_attr(mb_node(g, "ScatterElements", "row,cols,vals", "se"), "axis", 1);
    I(g, "neg", "1,2", 1, -3); /* -3 is column 2 */
    mb_int_attr(mb_node(g, "ScatterElements", "row,neg,vals", "se_neg"), "axis", 1);
    mb_output(g, "snd", I64, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "snd", "1,11,3,10,9,6,7,12");
    expect_vals(&c, "snd_add", "1,13,3,14,14,6,7,20");
    expect_vals(&c, "se", "1,1.10000002,3,2.0999999,5");
    expect_vals(&c, "se_neg", "1,1.10000002,2.0999999,4,5");
    done(&c);
}

/* OneHot, Pad (every mode), Tile, Expand, Range. */
static void test_one_hot_pad_tile_expand_range(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    I(g, "ind", "3", 0, 2, -1);
    I(g, "depth", "", 3);
    I(g, "onoff", "2", 5, 9);
    mb_node(g, "OneHot", "ind,depth,onoff", "oh");
    mb_int_attr(mb_node(g, "OneHot", "ind,depth,onoff", "oh0"), "axis", 0);
    I(g, "x", "3,2", 1, 2, 3, 4, 5, 6);
    I(g, "pads", "4", 0, 2, 0, 0);
    mb_node(g, "Pad", "x,pads", "pc");
    str_attr(mb_node(g, "Pad", "x,pads", "pr"), "mode", "reflect");
    str_attr(mb_node(g, "Pad", "x,pads", "pe"), "mode", "edge");
    str_attr(mb_node(g, "Pad", "x,pads", "pw"), "mode", "wrap");
    I(g, "seven", "", 7);
    mb_node(g, "Pad", "x,pads,seven", "p7");
    I(g, "crop", "4", 0, -1, 0, 0); /* negative pads remove */
    mb_node(g, "Pad", "x,crop", "pcrop");
    I(g, "reps", "2", 2, 1);
    mb_node(g, "Tile", "x,reps", "tile");
    I(g, "v3", "3", 1, 2, 3);
    I(g, "shape23", "2", 2, 3);
    mb_node(g, "Expand", "v3,shape23", "ex");
    F(g, "r0", "", 1.0f);
    F(g, "r1", "", 2.0f);
    F(g, "rd", "", 0.25f);
    mb_node(g, "Range", "r0,r1,rd", "range");
    I(g, "i10", "", 10);
    I(g, "im3", "", -3);
    I(g, "i0", "", 0);
    mb_node(g, "Range", "i10,i0,im3", "down");
    mb_output(g, "oh", I64, NULL);
    ctx c;
    infer_at(&c, g, 19);
    expect(&c, "oh", "int64[3,3] 72");
    expect_vals(&c, "oh", "9,5,5,5,5,9,5,5,9");
    expect_vals(&c, "oh0", "9,5,5,5,5,5,5,9,9");
    expect(&c, "pc", "int64[3,4] 96");
    expect_vals(&c, "pc", "0,0,1,2,0,0,3,4,0,0,5,6");
    expect_vals(&c, "pr", "1,2,1,2,3,4,3,4,5,6,5,6");
    expect_vals(&c, "pe", "1,1,1,2,3,3,3,4,5,5,5,6");
    expect_vals(&c, "pw", "1,2,1,2,3,4,3,4,5,6,5,6");
    expect_vals(&c, "p7", "7,7,1,2,7,7,3,4,7,7,5,6");
    expect_vals(&c, "pcrop", "2,4,6");
    expect_vals(&c, "tile", "1,2,3,4,5,6,1,2,3,4,5,6");
    expect_vals(&c, "ex", "1,2,3,1,2,3");
    expect(&c, "range", "float[4] 16");
    expect_vals(&c, "range", "1,1.25,1.5,1.75");
    expect_vals(&c, "down", "10,7,4,1");
    done(&c);
}

/* NonZero, TopK, ArgMax/ArgMin, CumSum: the spec's examples. */
static void test_selections(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    I(g, "cond", "2,2", 1, 0, 1, 1);
    mb_node(g, "NonZero", "cond", "nz");
    I(g, "x", "3,4", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    I(g, "k", "1", 3);
    mb_node(g, "TopK", "x,k", "top,top_i");
    mb_int_attr(mb_node(g, "TopK", "x,k", "low,low_i"), "largest", 0);
    I(g, "ties", "1,4", 2, 5, 5, 1);
    I(g, "k2", "1", 2);
    mb_node(g, "TopK", "ties,k2", "tt,tt_i");
    I(g, "am", "2,2", 2, 1, 3, 10);
    mb_node(g, "ArgMax", "am", "argmax");
    mb_int_attr(mb_node(g, "ArgMin", "am", "argmin1"), "axis", 1);
    I(g, "eq", "2,2", 2, 2, 3, 10);
    Onnx__NodeProto *last = mb_node(g, "ArgMax", "eq", "argmax_last");
    mb_int_attr(last, "axis", 1);
    mb_int_attr(last, "select_last_index", 1);
    I(g, "cs", "5", 1, 2, 3, 4, 5);
    I(g, "ax0", "", 0);
    mb_node(g, "CumSum", "cs,ax0", "cum");
    mb_int_attr(mb_node(g, "CumSum", "cs,ax0", "cum_x"), "exclusive", 1);
    mb_int_attr(mb_node(g, "CumSum", "cs,ax0", "cum_r"), "reverse", 1);
    Onnx__NodeProto *xr = mb_node(g, "CumSum", "cs,ax0", "cum_xr");
    mb_int_attr(xr, "exclusive", 1);
    mb_int_attr(xr, "reverse", 1);
    mb_output(g, "nz", I64, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "nz", "int64[2,3] 48");
    expect_vals(&c, "nz", "0,1,1,0,0,1");
    expect(&c, "top", "int64[3,3] 72");
    expect_vals(&c, "top", "3,2,1,7,6,5,11,10,9");
    expect_vals(&c, "top_i", "3,2,1,3,2,1,3,2,1");
    expect_vals(&c, "low", "0,1,2,4,5,6,8,9,10");
    expect_vals(&c, "tt", "5,5");
    expect_vals(&c, "tt_i", "1,2"); /* equal values: the lower index first */
    expect(&c, "argmax", "int64[1,2] 16");
    expect_vals(&c, "argmax", "1,1");
    expect_vals(&c, "argmin1", "1,0");
    expect_vals(&c, "argmax_last", "1,1");
    expect_vals(&c, "cum", "1,3,6,10,15");
    expect_vals(&c, "cum_x", "0,1,3,6,10");
    expect_vals(&c, "cum_r", "15,14,12,9,5");
    expect_vals(&c, "cum_xr", "14,12,9,5,0");
    done(&c);
}

/* Reductions on a 2-D float tensor and on a Shape (symbolic). */
static void test_reductions(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,3,8,8");
    F(g, "m", "2,3", 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.5f);
    I(g, "a1", "1", 1);
    mb_node(g, "ReduceSum", "m,a1", "sum");
    mb_node(g, "ReduceMean", "m,a1", "mean");
    mb_int_attr(mb_node(g, "ReduceMax", "m", "max"), "keepdims", 0);
    mb_node(g, "ReduceMin", "m,a1", "min");
    mb_node(g, "ReduceProd", "m,a1", "prod");
    mb_node(g, "Shape", "x", "s");
    mb_int_attr(mb_node(g, "ReduceProd", "s", "count"), "keepdims", 0);
    mb_int_attr(mb_node(g, "ReduceMax", "s", "smax"), "keepdims", 0);
    mb_output(g, "sum", F32, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "sum", "float[2,1] 8");
    expect_vals(&c, "sum", "6,15.5");
    expect_vals(&c, "mean", "2,5.16666651");
    expect_vals(&c, "max", "6.5");
    expect_vals(&c, "min", "1,4");
    expect_vals(&c, "prod", "6,130");
    expect_vals(&c, "count", "192*batch");
    expect_vals(&c, "smax", "max(batch,8)");
    done(&c);
}

/* Values pass through Reshape, Squeeze, Unsqueeze, Flatten, Identity; a
 * tensor of more than 1024 elements has none. */
static void test_same_values_and_limits(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    I(g, "v", "1,4", 1, 2, 3, 4);
    I(g, "shape", "2", 2, 2);
    I(g, "ax0", "1", 0);
    mb_node(g, "Reshape", "v,shape", "r");
    mb_node(g, "Squeeze", "v,ax0", "sq");
    mb_node(g, "Unsqueeze", "sq,ax0", "us");
    mb_node(g, "Flatten", "r", "fl");
    mb_node(g, "Identity", "fl", "id");
    I(g, "big", "2", 33, 32);
    I(g, "one", "", 1);
    mb_node(g, "Expand", "one,big", "ones"); /* 1056 elements */
    mb_output(g, "r", I64, NULL);
    ctx c;
    infer(&c, g);
    expect_vals(&c, "r", "1,2,3,4");
    expect_vals(&c, "sq", "1,2,3,4");
    expect(&c, "us", "int64[1,4] 32");
    expect_vals(&c, "us", "1,2,3,4");
    expect(&c, "fl", "int64[2,2] 32");
    expect_vals(&c, "id", "1,2,3,4");
    expect(&c, "ones", "int64[33,32] 8448");
    expect_vals(&c, "ones", "-");
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mlsd_pads_from_split),
        cmocka_unit_test(test_bert_cast_min_cast_back),
        cmocka_unit_test(test_arithmetic_constants),
        cmocka_unit_test(test_arithmetic_constants_float),
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_logic_where_clip),
        cmocka_unit_test(test_cast),
        cmocka_unit_test(test_narrow_initializers),
        cmocka_unit_test(test_symbolic_floats),
        cmocka_unit_test(test_transpose_concat_split_slice),
        cmocka_unit_test(test_gathers),
        cmocka_unit_test(test_scatters),
        cmocka_unit_test(test_one_hot_pad_tile_expand_range),
        cmocka_unit_test(test_selections),
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_same_values_and_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
