/* test_workspace.c -- kernel workspace (memplan/workspace.h): each rule's
 * bytes on hand-worked shapes, and a plan with and without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "memplan/workspace.h"
#include "model_builder.h"
#include "shapes_test_util.h"

enum { F32 = 1, U8 = 2 };

static memplan_model *load(mb_graph *g, int64_t opset) {
    size_t len;
    uint8_t *bytes = mb_pack_opset(g, opset, &len);
    memplan_error err = {0};
    memplan_model *m = NULL;
    if (memplan_model_load(bytes, len, NULL, &m, &err)) fail_msg("%s", err.message);
    free(bytes);
    return m;
}

/* The workspace of the node writing `out` (one of its outputs), under the bindings. */
static memplan_workspace_status ws_of(const memplan_model *m, const memplan_shapes *s, const char *out, int64_t opset,
                                      const memplan_binding *b, size_t nb, uint64_t *bytes) {
    const memplan_graph *g = m->graph;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const memplan_node *n = &g->nodes[i];
        bool writes = false;
        for (int32_t o = 0; o < n->n_outputs; o++)
            writes |= n->outputs[o] >= 0 && !strcmp(g->values[n->outputs[o]].name, out);
        if (!writes) continue;
        memplan_workspace w = {0, NULL};
        memplan_workspace_status st = memplan_workspace_onnxruntime(s, g, i, opset, b, nb, &w);
        *bytes = w.bytes;
        if (st == MEMPLAN_WORKSPACE_KNOWN) assert_non_null(w.what);
        return st;
    }
    fail_msg("no node writes %s", out);
    return MEMPLAN_WORKSPACE_NONE;
}

static void expect_ws(const memplan_model *m, const memplan_shapes *s, const char *out, uint64_t want) {
    uint64_t got = 0;
    memplan_workspace_status st = ws_of(m, s, out, 17, NULL, 0, &got);
    if (want == 0 && st != MEMPLAN_WORKSPACE_NONE)
        fail_msg("%s: expected no workspace, got %llu", out, (unsigned long long)got);
    if (want && (st != MEMPLAN_WORKSPACE_KNOWN || got != want))
        fail_msg("%s: expected %llu bytes, got status %d, %llu", out, (unsigned long long)want, (int)st,
                 (unsigned long long)got);
}

/* Convolutions: ConvInteger's whole uint8 im2col, MLAS's working buffer for
 * a float Conv, ConvTranspose's column buffer. */
static void test_convolutions(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "xq", U8, "1,8,16,16");
    mb_initializer(g, "wq3", U8, "4,8,3,3");
    mb_initializer(g, "wq1", U8, "4,8,1,1");
    mb_initializer(g, "wqg", U8, "4,4,3,3");
    Onnx__NodeProto *n = mb_node(g, "ConvInteger", "xq,wq3", "ci3"); /* K = 72, OS = 256 */
    INTS(n, "pads", 1, 1, 1, 1);
    mb_node(g, "ConvInteger", "xq,wq1", "ci1");      /* 1x1, no pads: none */
    n = mb_node(g, "ConvInteger", "xq,wq1", "ci1p"); /* explicit zero pads: none */
    INTS(n, "pads", 0, 0, 0, 0);
    n = mb_node(g, "ConvInteger", "xq,wq1", "ci1s"); /* 1x1 stride 2: K = 8, OS = 64 */
    INTS(n, "strides", 2, 2);
    n = mb_node(g, "ConvInteger", "xq,wqg", "cig"); /* two groups: K = 36 per group */
    INTS(n, "pads", 1, 1, 1, 1);
    mb_int_attr(n, "group", 2);

    mb_input(g, "x", F32, "1,8,16,16");
    mb_input(g, "x2", F32, "2,8,16,16");
    mb_input(g, "xs", F32, "1,8,2,2");
    mb_input(g, "xd", F32, "1,8,64,64");
    mb_input(g, "x1d", F32, "1,1,100");
    mb_initializer(g, "w3", F32, "4,8,3,3");
    mb_initializer(g, "w1", F32, "4,8,1,1");
    mb_initializer(g, "wm", F32, "64,8,3,3");
    mb_initializer(g, "wd", F32, "8,1,3,3");
    mb_initializer(g, "w1d", F32, "4,1,100");
    mb_node(g, "Conv", "x,w1", "c1"); /* pointwise: one GEMM over the input */
    n = mb_node(g, "Conv", "x,w3", "c3");
    INTS(n, "pads", 1, 1, 1, 1);           /* N = G = 1, M/G <= OS: one thread's 16384 floats */
    n = mb_node(g, "Conv", "xs,wm", "cm"); /* M/G = 64 > OS = 4: 4 x OS x K = 4 x 4 x 72 */
    INTS(n, "pads", 1, 1, 1, 1);
    n = mb_node(g, "Conv", "xd,wd", "cd"); /* depthwise: one thread's segment too (ONNX Runtime 1.30) */
    INTS(n, "pads", 1, 1, 1, 1);
    mb_int_attr(n, "group", 8);
    n = mb_node(g, "Conv", "x2,w3", "cb"); /* batch 2: the same */
    INTS(n, "pads", 1, 1, 1, 1);
    mb_node(g, "Conv", "x1d,w1d", "c1d"); /* a 1-D kernel as wide as the input: one GEMM */
    n = mb_node(g, "Conv", "x,w1", "cs"); /* 1x1 SAME: no pads, so still one GEMM */
    str_attr(n, "auto_pad", "SAME_UPPER");
    n = mb_node(g, "Conv", "x,w1", "cp"); /* 1x1 with explicit pads: padded, so a segment */
    INTS(n, "pads", 1, 1, 1, 1);

    mb_initializer(g, "wt", F32, "8,4,4,4");
    n = mb_node(g, "ConvTranspose", "x,wt", "ct"); /* 4 x M/G x k x IS = 4 x 4 x 16 x 256 */
    INTS(n, "strides", 2, 2);
    /* float16: run in float32 between Casts, so the same float32 buffers */
    mb_input(g, "xh", 10, "1,8,16,16");
    mb_initializer(g, "wth", 10, "8,4,4,4");
    n = mb_node(g, "ConvTranspose", "xh,wth", "cth");
    INTS(n, "strides", 2, 2);
    mb_initializer(g, "wmh", 10, "64,8,3,3");
    mb_input(g, "xsh", 10, "1,8,2,2");
    n = mb_node(g, "Conv", "xsh,wmh", "cmh");
    INTS(n, "pads", 1, 1, 1, 1);
    mb_output(g, "ci3", 0, NULL);
    memplan_model *m = load(g, 17);
    memplan_shapes *s = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_shapes_infer(m, &s, &err), MEMPLAN_OK);
    expect_ws(m, s, "ci3", 72 * 256);
    expect_ws(m, s, "ci1", 0);
    expect_ws(m, s, "ci1p", 0);
    expect_ws(m, s, "ci1s", 8 * 64);
    expect_ws(m, s, "cig", 36 * 256);
    expect_ws(m, s, "c1", 0);
    expect_ws(m, s, "c3", 65536);
    expect_ws(m, s, "cm", 4 * 4 * 72);
    expect_ws(m, s, "cd", 65536);
    expect_ws(m, s, "cb", 65536);
    expect_ws(m, s, "c1d", 0);
    expect_ws(m, s, "cs", 0);
    expect_ws(m, s, "cp", 65536);
    expect_ws(m, s, "ct", 4 * 4 * 16 * 256);
    expect_ws(m, s, "cth", 4 * 4 * 16 * 256);
    expect_ws(m, s, "cmh", 4 * 4 * 72);
    memplan_shapes_free(s);
    memplan_model_free(m);
}

/* QLinearConv: the transposes to channels-last (C x IS + M x OS bytes); with
 * uint8 weights the int32 product (4 x M x OS) and the im2col (K x OS), or
 * for a depthwise kernel 8 bytes per tap and output pixel; with int8 weights
 * of zero point 0 the taps alone. */
static const uint8_t ZERO = 0, ONE = 1;

static void test_qlinear_conv(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", U8, "1,8,16,16");
    mb_initializer(g, "sc", F32, "");
    mb_initializer_raw(g, "zu", U8, "", &ZERO, 1);
    mb_initializer_raw(g, "zs", 3, "", &ZERO, 1);
    mb_initializer_raw(g, "zs1", 3, "", &ONE, 1);
    mb_initializer(g, "wu", U8, "4,8,3,3");
    mb_initializer(g, "wu1", U8, "4,8,1,1");
    mb_initializer(g, "wud", U8, "8,1,3,3");
    mb_initializer(g, "ws", 3, "4,8,3,3");
    Onnx__NodeProto *n = mb_node(g, "QLinearConv", "x,sc,zu,wu,sc,zu,sc,zu", "qu");
    INTS(n, "pads", 1, 1, 1, 1);
    mb_node(g, "QLinearConv", "x,sc,zu,wu1,sc,zu,sc,zu", "qu1");
    n = mb_node(g, "QLinearConv", "x,sc,zu,wud,sc,zu,sc,zu", "qud");
    INTS(n, "pads", 1, 1, 1, 1);
    mb_int_attr(n, "group", 8);
    n = mb_node(g, "QLinearConv", "x,sc,zu,ws,sc,zs,sc,zu", "qs");
    INTS(n, "pads", 1, 1, 1, 1);
    n = mb_node(g, "QLinearConv", "x,sc,zu,ws,sc,zs1,sc,zu", "qs1"); /* zero point 1: not symmetric */
    INTS(n, "pads", 1, 1, 1, 1);
    mb_input(g, "a", F32, "64,32");
    mb_initializer(g, "b", U8, "32,16");
    in_domain(mb_node(g, "DynamicQuantizeMatMul", "a,b,sc,zu", "dq"), "com.microsoft");
    mb_output(g, "qu", 0, NULL);
    memplan_model *m = load(g, 17);
    memplan_shapes *s = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_shapes_infer(m, &s, &err), MEMPLAN_OK);
    expect_ws(m, s, "qu", 2048 + 1024 + 4096 + 72 * 256);
    expect_ws(m, s, "qu1", 2048 + 1024 + 4096);
    expect_ws(m, s, "qud", 2048 + 2048 + 8192 + 8 * 9 * 256);
    expect_ws(m, s, "qs", 2048 + 1024 + 8 * 9 * 256);
    expect_ws(m, s, "qs1", 2048 + 1024 + 4096 + 72 * 256);
    expect_ws(m, s, "dq", 64 * 32);
    memplan_shapes_free(s);
    memplan_model_free(m);
}

/* Recurrent ops, QLinearMatMul and Softmax over an inner axis. */
static void test_other_ops(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "10,2,3"); /* S = 10, B = 2, I = 3 */
    mb_initializer(g, "wl", F32, "1,20,3");
    mb_initializer(g, "rl", F32, "1,20,5");
    mb_initializer(g, "bl", F32, "1,40");
    Onnx__NodeProto *n = mb_node(g, "LSTM", "x,wl,rl,bl", "ly,lh,lc");
    mb_int_attr(n, "hidden_size", 5);
    mb_initializer(g, "wg", F32, "2,15,3");
    mb_initializer(g, "rg", F32, "2,15,5");
    n = mb_node(g, "GRU", "x,wg,rg", "gy");
    mb_int_attr(n, "hidden_size", 5);
    str_attr(n, "direction", "bidirectional");
    mb_initializer(g, "wr", F32, "1,5,3");
    mb_initializer(g, "rr", F32, "1,5,5");
    n = mb_node(g, "RNN", "x,wr,rr", ",rh");
    mb_int_attr(n, "hidden_size", 5);
    mb_input(g, "a", U8, "64,32");
    mb_input(g, "b", U8, "32,16");
    mb_initializer(g, "sc", F32, "");
    mb_initializer(g, "zp", U8, "");
    mb_node(g, "QLinearMatMul", "a,sc,zp,b,sc,zp,sc,zp", "qm");
    mb_input(g, "t", F32, "4,8,16");
    n = mb_node(g, "Softmax", "t", "sm1");
    mb_int_attr(n, "axis", 1);
    mb_input(g, "th", 10, "4,8,16");
    n = mb_node(g, "Softmax", "th", "smh"); /* float16: transposed in float32 */
    mb_int_attr(n, "axis", 1);
    mb_node(g, "Softmax", "t", "smlast");
    n = mb_node(g, "LogSoftmax", "t", "lsm0");
    mb_int_attr(n, "axis", -3);
    mb_output(g, "ly", 0, NULL);
    memplan_model *m = load(g, 17);
    memplan_shapes *s = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_shapes_infer(m, &s, &err), MEMPLAN_OK);
    /* LSTM, forward, with bias: 4 x (4HBS + 3BH + 2H + 4H) + 4B (no sequence lengths) */
    expect_ws(m, s, "ly", 4 * (400 + 30 + 10 + 20) + 8);
    /* GRU, both ways, no bias, Y_h not asked for: 2 x (3HBS + 2BH) + the reverse's
     * SBI + SBH, + DBH for Y_h; + 4B */
    expect_ws(m, s, "gy", 4 * (2 * (300 + 20) + 60 + 100 + 20) + 8);
    /* RNN, Y not asked for: SBH + DSBH */
    uint64_t got = 0;
    assert_int_equal(ws_of(m, s, "rh", 17, NULL, 0, &got), MEMPLAN_WORKSPACE_KNOWN);
    assert_int_equal(got, 4 * (100 + 100));
    expect_ws(m, s, "qm", 4 * 64 * 16);
    expect_ws(m, s, "sm1", 2 * 4 * 512);
    expect_ws(m, s, "smh", 2 * 4 * 512);
    expect_ws(m, s, "smlast", 0);
    expect_ws(m, s, "lsm0", 2 * 4 * 512);
    /* before opset 13, Softmax flattens to 2-D: no transpose */
    assert_int_equal(ws_of(m, s, "sm1", 12, NULL, 0, &got), MEMPLAN_WORKSPACE_NONE);
    memplan_shapes_free(s);
    memplan_model_free(m);
}

/* The recurrent rules' other terms: batch-first layout, backwards, peepholes,
 * sequence lengths given, outputs not asked for, linear_before_reset. */
static void test_recurrent_variants(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2,10,3"); /* B = 2, S = 10, I = 3 (layout 1) */
    mb_input(g, "lens", 6, "2");
    mb_initializer(g, "wl", F32, "1,20,3");
    mb_initializer(g, "rl", F32, "1,20,5");
    mb_initializer(g, "bl", F32, "1,40");
    mb_initializer(g, "pl", F32, "1,15");
    Onnx__NodeProto *n = mb_node(g, "LSTM", "x,wl,rl,bl,lens,,,pl", "ly");
    mb_int_attr(n, "hidden_size", 5);
    mb_int_attr(n, "layout", 1);
    str_attr(n, "direction", "reverse");
    mb_input(g, "xs", F32, "10,2,3");
    mb_initializer(g, "wg", F32, "1,15,3");
    mb_initializer(g, "rg", F32, "1,15,5");
    mb_initializer(g, "bg", F32, "1,30");
    n = mb_node(g, "GRU", "xs,wg,rg,bg", ",gh");
    mb_int_attr(n, "hidden_size", 5);
    mb_int_attr(n, "linear_before_reset", 1);
    mb_output(g, "ly", 0, NULL);
    memplan_model *m = load(g, 17);
    memplan_shapes *s = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_shapes_infer(m, &s, &err), MEMPLAN_OK);
    /* 4HBS + 3BH + 2H + 4H (bias) + 3H (peepholes) + SBI + SBH (backwards) + 2 x DBH (Y_h, Y_c) */
    expect_ws(m, s, "ly", 4 * (400 + 30 + 10 + 20 + 15 + 60 + 100 + 10 + 10));
    /* 3HBS + 2BH + 4BH (bias, linear_before_reset) + BH (the linear output); + 4B */
    expect_ws(m, s, "gh", 4 * (300 + 20 + 40 + 10) + 8);
    memplan_shapes_free(s);
    memplan_model_free(m);
}

/* A symbolic dim: unknown until bound. */
static void test_symbolic(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", U8, "N,8,16,16");
    mb_initializer(g, "w", U8, "4,8,3,3");
    Onnx__NodeProto *n = mb_node(g, "ConvInteger", "x,w", "y");
    INTS(n, "pads", 1, 1, 1, 1);
    mb_output(g, "y", 0, NULL);
    memplan_model *m = load(g, 17);
    memplan_shapes *s = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_shapes_infer(m, &s, &err), MEMPLAN_OK);
    uint64_t got = 0;
    assert_int_equal(ws_of(m, s, "y", 17, NULL, 0, &got), MEMPLAN_WORKSPACE_UNKNOWN);
    memplan_binding b = {"N", 3};
    /* one image's im2col, reused for each of the batch */
    assert_int_equal(ws_of(m, s, "y", 17, &b, 1, &got), MEMPLAN_WORKSPACE_KNOWN);
    assert_int_equal(got, 72 * 256);
    memplan_shapes_free(s);
    memplan_model_free(m);
}

/* x -> Relu -> a -> ConvInteger (3x3, pad 1) -> y -> Cast -> z: the
 * workspace sits at the ConvInteger, beside a and y. Without the option the
 * plan holds tensors only and says what the kernel adds; with it the
 * workspace is a transient buffer and the figures include it. */
static memplan_model *chain_model(void) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", U8, "1,8,16,16");
    mb_initializer(g, "w", U8, "4,8,3,3");
    mb_node(g, "Relu", "x", "a");
    Onnx__NodeProto *n = mb_node(g, "ConvInteger", "a,w", "y");
    INTS(n, "pads", 1, 1, 1, 1);
    Onnx__NodeProto *c = mb_node(g, "Cast", "y", "z");
    mb_int_attr(c, "to", 1);
    mb_output(g, "z", 0, NULL);
    return load(g, 17);
}

static void test_plan(void **state) {
    (void)state;
    memplan_model *m = chain_model();
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    memplan_error err = {0};
    memplan_model_plan *p = NULL;
    assert_int_equal(memplan_plan_model(m, &o, &p, &err), MEMPLAN_OK);
    /* a = 2048 B, y = 4096 B (int32), z = 4096 B; at the ConvInteger a and y: 6144 */
    assert_int_equal(p->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes, 8192);
    assert_int_equal(p->n_transients, 0);
    assert_true(p->workspace.known);
    assert_false(p->workspace.included);
    assert_int_equal(p->workspace.nodes, 1);
    assert_int_equal(p->workspace.unknown, 0);
    assert_ptr_equal(p->workspace.largest_node, &p->graph->nodes[1]);
    assert_int_equal(p->workspace.largest_bytes, 18432);
    assert_string_equal(p->workspace.what, "the im2col of its input (uint8)");
    assert_int_equal(p->workspace.lower_bound, 6144 + 18432);
    memplan_model_plan_free(p);

    o.kernel_workspace = true;
    assert_int_equal(memplan_plan_model(m, &o, &p, &err), MEMPLAN_OK);
    assert_int_equal(p->n_transients, 1);
    const memplan_transient *t = &p->transients[0];
    assert_true(t->workspace);
    assert_true(t->known && t->placed);
    assert_int_equal(t->node, 1);
    assert_int_equal(t->bytes, 18432);
    assert_int_equal(t->naive_bytes[0], 18432);
    const memplan_plan_figures *f = &p->figures[MEMPLAN_STRATEGY_ARENA];
    assert_int_equal(f->lower_bound_bytes, 6144 + 18432);
    assert_int_equal(f->peak_bytes, 6144 + 18432);
    assert_int_equal(f->peak_position, 1);
    assert_int_equal(f->naive_bytes, 2048 + 4096 + 4096 + 18432);
    assert_true(p->workspace.known && p->workspace.included);
    assert_int_equal(p->workspace.lower_bound, 6144 + 18432);
    memplan_model_plan_free(p);
    memplan_model_free(m);
}

/* float16 on ONNX Runtime's CPU: the nodes it runs in float32 (Conv, Relu,
 * Add here; not Reshape, which has a float16 kernel, nor the float Relu),
 * their op types most nodes first. */
static void test_float16(void **state) {
    (void)state;
    assert_true(memplan_onnxruntime_cpu_float16("", "Reshape"));
    assert_true(memplan_onnxruntime_cpu_float16("com.microsoft", "Attention"));
    assert_false(memplan_onnxruntime_cpu_float16("", "Conv"));
    assert_false(memplan_onnxruntime_cpu_float16("ai.onnx", "Resize"));
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 10, "1,8,16,16");
    mb_input(g, "f", F32, "4");
    mb_initializer(g, "w", 10, "8,8,3,3");
    mb_initializer_ints(g, "shape", "2", (const int64_t[]){1, -1}, 2);
    Onnx__NodeProto *n = mb_node(g, "Conv", "x,w", "c");
    INTS(n, "pads", 1, 1, 1, 1);
    mb_node(g, "Relu", "c", "r1");
    mb_node(g, "Relu", "r1", "r2");
    mb_node(g, "Reshape", "r2,shape", "flat");
    mb_node(g, "Add", "flat,flat", "y");
    mb_node(g, "Relu", "f", "fr"); /* float: not counted */
    mb_initializer(g, "u", 10, "1,8,16,16");
    mb_node(g, "Mul", "x,u", "xm");        /* run in float32: a float32 copy of u */
    n = mb_node(g, "Concat", "x,u", "xc"); /* float16 kernel: u kept as written too */
    mb_int_attr(n, "axis", 0);
    mb_output(g, "y", 0, NULL);
    mb_output(g, "fr", 0, NULL);
    mb_output(g, "xm", 0, NULL);
    mb_output(g, "xc", 0, NULL);
    memplan_model *m = load(g, 17);
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    memplan_error err = {0};
    memplan_model_plan *p = NULL;
    assert_int_equal(memplan_plan_model(m, &o, &p, &err), MEMPLAN_OK);
    assert_int_equal(p->float16_cpu.nodes, 5);
    assert_int_equal(p->float16_cpu.n_ops, 4);
    assert_string_equal(p->float16_cpu.ops[0], "Relu");
    assert_string_equal(p->float16_cpu.ops[1], "Conv");
    assert_string_equal(p->float16_cpu.ops[2], "Add");
    assert_string_equal(p->float16_cpu.ops[3], "Mul");
    /* weights as written: w (1,152 B float16), shape (16 B), u (4,096 B).
     * ONNX Runtime keeps w as float32 (2,304 B; the float16 one only Conv
     * reads is dropped) and u twice: float16 for Concat, float32 for Mul. */
    assert_int_equal(p->weight_bytes, 1152 + 16 + 4096);
    assert_true(p->float16_cpu.weights_known);
    assert_int_equal(p->float16_cpu.weight_bytes, 2304 + 16 + 4096 + 8192);
    memplan_model_plan_free(p);
    memplan_model_free(m);
}

/* A workspace beyond what a plan can hold (a 1024x1024 kernel over 2^20
 * channels): not known, so --workspace defers the plan and names the node;
 * without it the plan holds tensors and says so. */
static void test_unknown_workspace(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", U8, "1,1048576,4096,4096");
    mb_input(g, "w", U8, "1,1048576,1024,1024");
    mb_node(g, "ConvInteger", "x,w", "y");
    mb_output(g, "y", 0, NULL);
    memplan_model *m = load(g, 17);
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    memplan_error err = {0};
    memplan_model_plan *p = NULL;
    assert_int_equal(memplan_plan_model(m, &o, &p, &err), MEMPLAN_OK);
    assert_false(p->deferred);
    assert_true(p->workspace.known);
    assert_int_equal(p->workspace.nodes, 0);
    assert_int_equal(p->workspace.unknown, 1);
    assert_null(p->workspace.largest_node);
    memplan_model_plan_free(p);
    o.kernel_workspace = true;
    assert_int_equal(memplan_plan_model(m, &o, &p, &err), MEMPLAN_OK);
    assert_true(p->deferred);
    assert_int_equal(p->n_transients, 1);
    assert_true(p->transients[0].workspace && !p->transients[0].known);
    assert_false(p->workspace.known);
    memplan_model_plan_free(p);
    memplan_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convolutions), cmocka_unit_test(test_qlinear_conv),
        cmocka_unit_test(test_other_ops),    cmocka_unit_test(test_recurrent_variants),
        cmocka_unit_test(test_symbolic),     cmocka_unit_test(test_plan),
        cmocka_unit_test(test_float16),      cmocka_unit_test(test_unknown_workspace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
