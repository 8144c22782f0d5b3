/* test_shapes.c -- symbolic shape inference and partial evaluation. */
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

static void test_symbolic_chain_and_broadcast(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "batch,seq,64");
    mb_input(g, "b", 1, "64");
    mb_input(g, "y", 1, "batch,1,1");
    mb_node(g, "Relu", "x", "a");
    mb_node(g, "Add", "a,b", "c");
    mb_node(g, "Mul", "c,y", "d");
    mb_node(g, "Less", "d,b", "e");
    mb_node(g, "Cast", "e", "f");
    mb_output(g, "f", 1, NULL);
    Onnx__NodeProto *cast = g->node[4];
    mb_int_attr(cast, "to", 7);
    ctx c;
    infer(&c, g);
    expect(&c, "a", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "c", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "d", "float[batch,seq,64] 256*batch*seq");
    expect(&c, "e", "bool[batch,seq,64] 64*batch*seq");
    expect(&c, "f", "int64[batch,seq,64] 512*batch*seq");
    done(&c);
}

/* Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the classic flatten. */
static void test_shape_computation(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "batch,3,8,8");
    mb_node(g, "Shape", "x", "s");
    mb_node(g, "Constant", "", "zero");
    mb_node(g, "Gather", "s,zero", "n");
    mb_node(g, "Constant", "", "axes");
    mb_node(g, "Unsqueeze", "n,axes", "n1");
    mb_node(g, "Constant", "", "minus1");
    mb_node(g, "Concat", "n1,minus1", "target");
    mb_node(g, "Reshape", "x,target", "flat");
    mb_output(g, "flat", 1, NULL);
    /* constants: zero = 0 (scalar), axes = [0], minus1 = [-1] */
    Onnx__AttributeProto *a;
    const char *which[3] = {"value_int", "value_ints", "value_ints"};
    int64_t vals[3] = {0, 0, -1};
    for (int i = 0; i < 3; i++) {
        a = malloc(sizeof *a);
        onnx__attribute_proto__init(a);
        a->name = mb_strdup(which[i]);
        a->has_type = 1;
        if (i == 0) {
            a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
            a->has_i = 1;
            a->i = vals[i];
        } else {
            a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
            a->ints = malloc(sizeof *a->ints);
            a->ints[0] = vals[i];
            a->n_ints = 1;
        }
        Onnx__NodeProto *nd = g->node[1 + 2 * i];
        MB_PUSH(nd->attribute, nd->n_attribute, a);
    }
    ctx c;
    infer(&c, g);
    expect(&c, "s", "int64[4] 32");
    expect(&c, "n", "int64[] 8");
    expect(&c, "target", "int64[2] 16");
    expect(&c, "flat", "float[batch,192] 768*batch");
    done(&c);
}

/* If: branches reading outer values; differing dims become fresh names.
 * Loop: carried value keeps its shape, scan output gets the trip count. */
static void test_control_flow(void **state) {
    (void)state;
    mb_graph *t = mb_new_graph("then");
    mb_node(t, "Relu", "x", "t_out");
    mb_output(t, "t_out", 1, NULL);
    mb_graph *e = mb_new_graph("else");
    mb_node(e, "Concat", "x,x", "e_out");
    mb_int_attr(e->node[0], "axis", 1);
    mb_output(e, "e_out", 1, NULL);
    mb_graph *body = mb_new_graph("body");
    mb_input(body, "i", 7, "");
    mb_input(body, "cond_in", 9, "");
    mb_input(body, "acc", 1, "batch,4");
    mb_node(body, "Add", "acc,x", "acc_out");
    mb_node(body, "Identity", "cond_in", "cond_out");
    mb_node(body, "Neg", "x", "scan_out");
    mb_output(body, "cond_out", 9, NULL);
    mb_output(body, "acc_out", 1, NULL);
    mb_output(body, "scan_out", 1, NULL);
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "batch,4");
    mb_input(g, "c", 9, "");
    mb_input(g, "M", 7, "");
    Onnx__NodeProto *nd = mb_node(g, "If", "c", "y");
    mb_graph_attr(nd, "then_branch", t);
    mb_graph_attr(nd, "else_branch", e);
    nd = mb_node(g, "Loop", "M,c,x", "acc_final,scans");
    mb_graph_attr(nd, "body", body);
    mb_output(g, "y", 1, NULL);
    mb_output(g, "acc_final", 1, NULL);
    mb_output(g, "scans", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "y", "float[batch,unk__0] 4*batch*unk__0");
    expect(&c, "acc_final", "float[batch,4] 16*batch");
    /* the trip count M is an input without a value: a dim named after the
     * (unnamed) node, trips_loop + its index in the file, for --dim */
    expect(&c, "scans", "float[trips_loop1,batch,4] 16*batch*trips_loop1");
    done(&c);
}

/* Slice / Expand / Pad / ConstantOfShape / Range with computed values. */
static void test_partial_evaluation(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,16");
    const int64_t one = 1, zero = 0, big = INT64_C(1) << 60, two = 2, pads[4] = {0, 1, 0, 2}, minus2 = -2;
    mb_initializer_ints(g, "one", "1", &one, 1);
    mb_initializer_ints(g, "zero", "1", &zero, 1);
    mb_initializer_ints(g, "big", "1", &big, 1);
    mb_initializer_ints(g, "two", "1", &two, 1);
    mb_initializer_ints(g, "m2", "1", &minus2, 1);
    mb_initializer_ints(g, "pads", "4", pads, 4);
    mb_initializer_ints(g, "zs", "", &zero, 1);
    mb_node(g, "Slice", "x,one,big,zero", "s1"); /* rows 1.. : N-1 */
    mb_node(g, "Slice", "x,zero,m2,one", "s2");  /* cols :-2 : 14 */
    mb_node(g, "Shape", "s1", "shp");            /* [N-1, 16] */
    mb_node(g, "ConstantOfShape", "shp", "zeros");
    mb_node(g, "Pad", "x,pads", "padded");   /* [N, 19] */
    mb_node(g, "Gather", "shp,zs", "rows");  /* N-1 */
    mb_node(g, "Range", "zs,rows,two", "r"); /* ceil((N-1)/2) */
    mb_output(g, "zeros", 1, NULL);
    mb_output(g, "padded", 1, NULL);
    mb_output(g, "r", 7, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "s1", "float[N-1,16] 64*N-64");
    expect(&c, "s2", "float[N,14] 56*N");
    expect(&c, "zeros", "float[N-1,16] 64*N-64");
    expect(&c, "padded", "float[N,19] 76*N");
    expect(&c, "r", "int64[N//2] 8*(N//2)"); /* N//2 >= 0 for every N >= 0: no max(..,0) */
    done(&c);
}

/* Slice steps at the ends of int64 (a step of INT64_MIN once negated
 * into undefined behaviour; INT64_MAX overflowed end - start + step - 1):
 * one element each, like numpy. */
static void test_slice_extreme_steps(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "8");
    const int64_t zero = 0, big = INT64_MAX, small = INT64_MIN, last = 7, three = 3;
    mb_initializer_ints(g, "zero", "1", &zero, 1);
    mb_initializer_ints(g, "big", "1", &big, 1);
    mb_initializer_ints(g, "small", "1", &small, 1);
    mb_initializer_ints(g, "last", "1", &last, 1);
    mb_initializer_ints(g, "three", "1", &three, 1);
    mb_node(g, "Slice", "x,zero,big,zero,big", "up");       /* x[0::MAX] */
    mb_node(g, "Slice", "x,last,small,zero,small", "down"); /* x[7::MIN] */
    mb_node(g, "Slice", "x,zero,big,zero,three", "third");  /* x[0::3]: 0, 3, 6 */
    mb_output(g, "up", 1, NULL);
    mb_output(g, "down", 1, NULL);
    mb_output(g, "third", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "up", "float[1] 4");
    expect(&c, "down", "float[1] 4");
    expect(&c, "third", "float[3] 12");
    done(&c);
}

/* Constant slice bounds on a symbolic dim N are clamped exactly: a finite
 * end is min(N, e) (tf2onnx's "to the end" 2^31 - 1 included: taken as a
 * size of its own it planned x[0:2147483647] of N x 4 floats as 32 GiB
 * with N unbound), [-k:] is min(N, k), a start from -1 backwards with an
 * end past the front reverses the whole dim. */
static void test_slice_symbolic_ends(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,4");
    const int64_t zero = 0, two = 2, ten = 10, i32 = INT32_MAX, i64 = INT64_MAX, m3 = -3, m1 = -1, m2 = -2,
                  front = -INT64_MAX;
    mb_initializer_ints(g, "zero", "1", &zero, 1);
    mb_initializer_ints(g, "two", "1", &two, 1);
    mb_initializer_ints(g, "ten", "1", &ten, 1);
    mb_initializer_ints(g, "i32", "1", &i32, 1);
    mb_initializer_ints(g, "i64", "1", &i64, 1);
    mb_initializer_ints(g, "m3", "1", &m3, 1);
    mb_initializer_ints(g, "m1", "1", &m1, 1);
    mb_initializer_ints(g, "m2", "1", &m2, 1);
    mb_initializer_ints(g, "front", "1", &front, 1);
    mb_node(g, "Slice", "x,zero,i32,zero", "open32");  /* x[0:2^31-1] */
    mb_node(g, "Slice", "x,zero,i64,zero", "open64");  /* x[0:INT64_MAX]: the end */
    mb_node(g, "Slice", "x,two,ten,zero", "mid");      /* x[2:10] */
    mb_node(g, "Slice", "x,ten,two,zero", "empty");    /* x[10:2] */
    mb_node(g, "Slice", "x,m3,i64,zero", "tail");      /* x[-3:] */
    mb_node(g, "Slice", "x,m1,front,zero,m1", "rev");  /* x[-1::-1] */
    mb_node(g, "Slice", "x,m1,front,zero,m2", "rev2"); /* x[-1::-2] */
    mb_node(g, "Slice", "x,zero,two,zero", "x4");      /* x[0:2] of [N, 4] */
    mb_node(g, "Slice", "x4,zero,i32,zero", "known");  /* min(min(N,2), 2^31-1) is min(N,2) */
    const char *outs[] = {"open32", "open64", "mid", "empty", "tail", "rev", "rev2", "known"};
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) mb_output(g, outs[i], 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "open32", "float[min(N,2147483647),4] 16*min(N,2147483647)");
    expect(&c, "open64", "float[N,4] 16*N");
    expect(&c, "mid", "float[min(N,10)-2,4] 16*min(N,10)-32");
    expect(&c, "empty", "float[0,4] 0");
    expect(&c, "tail", "float[min(N,3),4] 16*min(N,3)");
    expect(&c, "rev", "float[N,4] 16*N");
    expect(&c, "rev2", "float[(N+1)//2,4] 16*((N+1)//2)");
    expect(&c, "known", "float[min(N,2),4] 16*min(N,2)");
    done(&c);
}

/* With dims bound from the start, an If on a size comparison picks its branch. */
static void test_bound_inference_resolves_if(void **state) {
    (void)state;
    mb_graph *t = mb_new_graph("then");
    mb_node(t, "Relu", "x", "t_out"); /* keeps [N,4] */
    mb_output(t, "t_out", 1, NULL);
    mb_graph *e = mb_new_graph("else");
    mb_node(e, "Flatten", "x", "e_out"); /* [N*4]... rank 2 via Flatten */
    mb_node(e, "Shape", "e_out", "e_shape");
    mb_node(e, "Reshape", "e_out,e_shape", "e_res");
    mb_node(e, "Squeeze", "e_res", "e_sq"); /* rank unknown without values */
    mb_output(e, "e_sq", 1, NULL);
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "N,4");
    const int64_t zero = 0, one = 1;
    mb_initializer_ints(g, "i0", "", &zero, 1);
    mb_initializer_ints(g, "one", "", &one, 1);
    mb_node(g, "Shape", "x", "s");
    mb_node(g, "Gather", "s,i0", "n");
    mb_node(g, "Equal", "n,one", "is_one");
    Onnx__NodeProto *nd = mb_node(g, "If", "is_one", "y");
    mb_graph_attr(nd, "then_branch", t);
    mb_graph_attr(nd, "else_branch", e);
    mb_output(g, "y", 1, NULL);
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    free(bytes);
    memplan_binding b = {"N", 1};
    ctx c = {m, NULL};
    assert_int_equal(memplan_shapes_infer_bound(m, &b, 1, &c.s, &err), MEMPLAN_OK);
    expect(&c, "y", "float[1,4] 16");
    memplan_shapes_free(c.s);
    assert_int_equal(memplan_shapes_infer(m, &c.s, &err), MEMPLAN_OK); /* unbound: the branches disagree */
    const memplan_vshape *y = memplan_shapes_value(c.s, m->graph, memplan_graph_find(m->graph, "y"));
    assert_int_equal(y->rank, -1);
    done(&c);
}

/* ---- patterns of PyTorch (torch.onnx.export) transformer graphs ---------- */

/* The sign test behind the rules below: names are dims, so >= 0. */
static void test_expr_nonneg(void **state) {
    (void)state;
    memplan_expr_pool *p = memplan_expr_pool_new();
    assert_non_null(p);
    const char *yes[] = {"0",   "7",        "N",         "N*M+1", "max(N-1,0)", "(N+1)//2", "max(N-2,-1)*max(N-2,-1)",
                         "N%3", "min(N,M)", "max(N-5,M)"};
    const char *no[] = {"-1", "N-1", "M-N", "max(N-1,-1)", "min(N,-1)", "N%(M-1)", "(N-2)//3", "-N", "(N-M)*(N-M)"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!memplan_expr_nonneg(p, memplan_expr_parse(p, yes[i], NULL))) fail_msg("%s: expected non-negative", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (memplan_expr_nonneg(p, memplan_expr_parse(p, no[i], NULL))) fail_msg("%s: not known non-negative", no[i]);
    assert_false(memplan_expr_nonneg(p, MEMPLAN_EXPR_NONE));
    memplan_expr_pool_free(p);
}

/* BERT/GPT-2 position ids: torch.arange(seq) is Range(0, seq, 1) of a dim,
 * so its length is seq (was max(seq,0), which then spread as
 * max(max(seq,0),seq) through every broadcast after the embedding Add), and
 * arange(past, past+seq).view(-1, seq) is [1, seq] (was max(seq,0)//seq). */
static void test_torch_position_ids(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "ids", 7, "batch,seq");
    mb_input(g, "past", 1, "batch,4,past_seq,8");
    mb_initializer(g, "table", 1, "128,32");
    const int64_t zero = 0, one = 1, two = 2, axes0[1] = {0}, m1[1] = {-1};
    mb_initializer_ints(g, "i0", "", &zero, 1);
    mb_initializer_ints(g, "i1", "", &one, 1);
    mb_initializer_ints(g, "i2", "", &two, 1);
    mb_initializer_ints(g, "ax0", "1", axes0, 1);
    mb_initializer_ints(g, "m1", "1", m1, 1);
    mb_node(g, "Shape", "ids", "s");
    mb_node(g, "Gather", "s,i1", "seq_len");
    mb_node(g, "Range", "i0,seq_len,i1", "pos"); /* arange(seq) */
    mb_node(g, "Unsqueeze", "pos,ax0", "pos1");  /* [1, seq] */
    mb_node(g, "Expand", "pos1,s", "pos_ids");   /* expand_as(ids) */
    mb_node(g, "Gather", "table,pos_ids", "pe"); /* the position embedding */
    mb_node(g, "Shape", "past", "ps");
    mb_node(g, "Gather", "ps,i2", "past_len");
    mb_node(g, "Add", "past_len,seq_len", "end");
    mb_node(g, "Range", "past_len,end,i1", "pos2"); /* arange(past, past+seq) */
    mb_node(g, "Unsqueeze", "seq_len,ax0", "seq1");
    mb_node(g, "Concat", "m1,seq1", "view_shape");
    mb_int_attr(g->node[g->n_node - 1], "axis", 0);
    mb_node(g, "Reshape", "pos2,view_shape", "pos2v"); /* .view(-1, seq) */
    mb_output(g, "pe", 1, NULL);
    mb_output(g, "pos2v", 7, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "pos", "int64[seq] 8*seq");
    expect(&c, "pos_ids", "int64[batch,seq] 8*batch*seq");
    expect(&c, "pe", "float[batch,seq,32] 128*batch*seq");
    expect(&c, "pos2", "int64[seq] 8*seq");
    expect(&c, "pos2v", "int64[1,seq] 8*seq");
    done(&c);
}

/* The element values of a main-graph value, "[a,b,...]", or "-" when unknown. */
static const char *elems_of(ctx *c, const char *name) {
    static char buf[512];
    const memplan_vshape *v = value(c, name);
    if (v->n_elems < 0) return "-";
    size_t n = (size_t)snprintf(buf, sizeof buf, "[");
    for (int32_t i = 0; i < v->n_elems && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? "," : "",
                              memplan_expr_str(memplan_shapes_pool(c->s), v->elems[i]));
    if (n < sizeof buf) snprintf(buf + n, sizeof buf - n, "]");
    return buf;
}

/* torch's expand(batch, -1, -1) (ViT cls token, BERT's mask to
 * [batch,1,seq,seq]) exports the target shape through
 * Where(Equal(shape, -1), 1, shape). A dim is never -1, so Equal is false for
 * it and the shape is known (was: Equal unknown, Expand [unk__0,unk__1,...]).
 * Less/Min/Max of sizes are decided the same way where they can be. */
static void test_torch_expand_minus_one(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "batch,64,32");
    mb_input(g, "past", 1, "batch,past_seq");
    mb_input(g, "cur", 1, "batch,seq");
    mb_initializer(g, "cls", 1, "1,1,32");
    const int64_t zero = 0, one = 1, axes0[1] = {0}, m1[1] = {-1}, ones[3] = {1, 1, 1}, minus = -1;
    mb_initializer_ints(g, "i0", "", &zero, 1);
    mb_initializer_ints(g, "i1", "", &one, 1);
    mb_initializer_ints(g, "ax0", "1", axes0, 1);
    mb_initializer_ints(g, "m1", "1", m1, 1);
    mb_initializer_ints(g, "ones", "3", ones, 3);
    mb_initializer_ints(g, "minus", "", &minus, 1);
    mb_node(g, "Shape", "x", "s");
    mb_node(g, "Gather", "s,i0", "b");
    mb_node(g, "Unsqueeze", "b,ax0", "b1");
    mb_node(g, "Concat", "b1,m1,m1", "target"); /* [batch, -1, -1] */
    mb_int_attr(g->node[g->n_node - 1], "axis", 0);
    mb_node(g, "Mul", "ones,minus", "neg");
    mb_node(g, "Equal", "target,neg", "is_neg");
    mb_node(g, "Where", "is_neg,ones,target", "fixed");
    mb_node(g, "Expand", "cls,fixed", "cls_b");
    /* sizes compared: past_seq+seq against seq */
    mb_node(g, "Shape", "past", "sp");
    mb_node(g, "Shape", "cur", "sc");
    mb_node(g, "Gather", "sp,i1", "p");
    mb_node(g, "Gather", "sc,i1", "q");
    mb_node(g, "Add", "p,q", "k");
    mb_node(g, "Less", "k,q", "lt");        /* false */
    mb_node(g, "LessOrEqual", "q,k", "le"); /* true */
    mb_node(g, "Greater", "k,q", "gt");     /* unknown: past_seq may be 0 */
    mb_node(g, "Min", "k,q", "mn");
    mb_node(g, "Max", "k,q", "mx");
    mb_node(g, "Equal", "k,p", "eq"); /* unknown: seq may be 0 */
    mb_output(g, "cls_b", 1, NULL);
    ctx c;
    infer(&c, g);
    assert_string_equal(elems_of(&c, "is_neg"), "[0,1,1]");
    assert_string_equal(elems_of(&c, "fixed"), "[batch,1,1]");
    expect(&c, "cls_b", "float[batch,1,32] 128*batch");
    assert_string_equal(elems_of(&c, "lt"), "[0]");
    assert_string_equal(elems_of(&c, "le"), "[1]");
    assert_string_equal(elems_of(&c, "gt"), "-");
    assert_string_equal(elems_of(&c, "mn"), "[seq]");
    assert_string_equal(elems_of(&c, "mx"), "[past_seq+seq]");
    assert_string_equal(elems_of(&c, "eq"), "-");
    done(&c);
}

/* GPT-2 with a KV cache: the causal mask of the whole length k = past+seq is
 * cut to the new rows with mask[k - q:k, :k] (torch slices with computed
 * bounds). Bounds that are amounts known >= 0 clamp by mp_le (was: every
 * sliced dim unknown, and the attention scores after it). */
static void test_torch_slice_computed_bounds(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "past", 1, "batch,4,past_seq,8");
    mb_input(g, "cur", 1, "batch,4,seq,8");
    mb_initializer(g, "fill", 1, "");
    const int64_t two = 2, axes0[1] = {0}, axes1[1] = {1}, zero1[1] = {0}, step2[1] = {2}, back[1] = {-1},
                  big[1] = {INT64_MAX};
    mb_initializer_ints(g, "i2", "", &two, 1);
    mb_initializer_ints(g, "ax0", "1", axes0, 1);
    mb_initializer_ints(g, "ax1", "1", axes1, 1);
    mb_initializer_ints(g, "z1", "1", zero1, 1);
    mb_initializer_ints(g, "st2", "1", step2, 1);
    mb_initializer_ints(g, "back", "1", back, 1);
    mb_initializer_ints(g, "big", "1", big, 1);
    mb_node(g, "Concat", "past,cur", "key"); /* [batch,4,past_seq+seq,8] */
    mb_int_attr(g->node[g->n_node - 1], "axis", 2);
    mb_node(g, "Shape", "key", "sk");
    mb_node(g, "Shape", "cur", "sq");
    mb_node(g, "Gather", "sk,i2", "kn");
    mb_node(g, "Gather", "sq,i2", "qn");
    mb_node(g, "Sub", "kn,qn", "start"); /* past_seq */
    mb_node(g, "Unsqueeze", "start,ax0", "start1");
    mb_node(g, "Unsqueeze", "kn,ax0", "kn1");
    mb_node(g, "Unsqueeze", "qn,ax0", "qn1");
    mb_node(g, "Concat", "kn1,kn1", "mshape");
    mb_int_attr(g->node[g->n_node - 1], "axis", 0);
    mb_node(g, "Expand", "fill,mshape", "mask");            /* [past_seq+seq, past_seq+seq] */
    mb_node(g, "Slice", "mask,start1,kn1,ax0", "rows");     /* mask[k-q:k] */
    mb_node(g, "Slice", "rows,z1,kn1,ax1", "cols");         /* [:, :k] */
    mb_node(g, "Slice", "mask,qn1,big,ax0", "tail");        /* mask[q:] : past_seq rows */
    mb_node(g, "Slice", "mask,z1,qn1,ax1", "head");         /* mask[:, :q] */
    mb_node(g, "Slice", "mask,start1,kn1,ax0,st2", "even"); /* step 2: ceil(seq/2) */
    mb_node(g, "Slice", "mask,kn1,start1,ax0,back", "rev"); /* step -1: not told */
    mb_output(g, "cols", 1, NULL);
    mb_output(g, "tail", 1, NULL);
    mb_output(g, "head", 1, NULL);
    mb_output(g, "even", 1, NULL);
    mb_output(g, "rev", 1, NULL);
    ctx c;
    infer(&c, g);
    expect(&c, "rows", "float[seq,past_seq+seq] 4*past_seq*seq+4*seq*seq");
    expect(&c, "cols", "float[seq,past_seq+seq] 4*past_seq*seq+4*seq*seq");
    expect(&c, "tail", "float[past_seq,past_seq+seq] 4*past_seq*past_seq+4*past_seq*seq");
    expect(&c, "head", "float[past_seq+seq,seq] 4*past_seq*seq+4*seq*seq");
    expect(&c, "even", "float[(seq+1)//2,past_seq+seq] 4*((seq+1)//2)*past_seq+4*((seq+1)//2)*seq");
    expect(&c, "rev", "float[unk__0,past_seq+seq] 4*past_seq*unk__0+4*seq*unk__0");
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbolic_chain_and_broadcast),
        cmocka_unit_test(test_shape_computation),
        cmocka_unit_test(test_control_flow),
        cmocka_unit_test(test_partial_evaluation),
        cmocka_unit_test(test_slice_extreme_steps),
        cmocka_unit_test(test_slice_symbolic_ends),
        cmocka_unit_test(test_bound_inference_resolves_if),
        cmocka_unit_test(test_expr_nonneg),
        cmocka_unit_test(test_torch_position_ids),
        cmocka_unit_test(test_torch_expand_minus_one),
        cmocka_unit_test(test_torch_slice_computed_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
