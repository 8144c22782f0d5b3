/* test_shapes_dims.c -- dim names (issue 16 item 2): the input dims a user
 * binds (declared names and "input:axis" for anonymous ones), internal
 * symbols and the input dims to bind instead, declared names refining
 * fresh dims, and bindings that do not fit the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "model_builder.h"
#include "shapes_test_util.h"

enum { F32 = 1, I64 = 7 };

static memplan_model *load(mb_graph *g) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m;
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &m, &err)) fail_msg("%s", err.message);
    free(bytes);
    return m;
}

/* Inference under bindings; the status, and the message in err. */
static memplan_status bound(ctx *c, memplan_model *m, const memplan_binding *b, size_t nb, memplan_error *err) {
    c->m = m;
    c->s = NULL;
    return memplan_shapes_infer_bound(m, b, nb, &c->s, err);
}

/* Anonymous input dims are "input:axis", listed with the declared ones and
 * bindable by either spelling; other inputs' names are listed once. */
static void test_input_dims(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "input_ids", I64, "?,seq");
    mb_input(g, "mask", I64, "batch,seq");
    mb_initializer(g, "w", F32, "4");
    mb_node(g, "Add", "input_ids,mask", "sum");
    mb_output(g, "sum", I64, NULL);
    memplan_model *m = load(g);
    ctx c;
    memplan_error err = {0};
    assert_int_equal(bound(&c, m, NULL, 0, &err), MEMPLAN_OK);
    /* input_ids:0 escaped: not an identifier */
    expect(&c, "input_ids", "int64[_0x696e7075745f6964733a30,seq] 8*_0x696e7075745f6964733a30*seq");
    assert_int_equal(memplan_shapes_input_dim_count(c.s), 3);
    const memplan_input_dim *d = memplan_shapes_input_dim(c.s, 0);
    assert_string_equal(d->name, "input_ids:0");
    assert_string_equal(d->input, "input_ids");
    assert_int_equal(d->axis, 0);
    assert_string_equal(memplan_shapes_input_dim(c.s, 1)->name, "seq");
    d = memplan_shapes_input_dim(c.s, 2);
    assert_string_equal(d->name, "batch");
    assert_string_equal(d->input, "mask");
    assert_int_equal(d->axis, 0);
    assert_null(memplan_shapes_input_dim(c.s, 3));
    assert_false(memplan_shapes_internal_dim(c.s, "seq", NULL));
    assert_false(memplan_shapes_internal_dim(c.s, "input_ids:0", NULL));
    memplan_shapes_free(c.s);
    /* bound raw or escaped, all the way through inference */
    memplan_binding raw[2] = {{"input_ids:0", 2}, {"seq", 5}};
    assert_int_equal(bound(&c, m, raw, 2, &err), MEMPLAN_OK);
    expect(&c, "sum", "int64[2,5] 80");
    memplan_shapes_free(c.s);
    memplan_binding esc[2] = {{"_0x696e7075745f6964733a30", 3}, {"seq", 5}};
    assert_int_equal(bound(&c, m, esc, 2, &err), MEMPLAN_OK);
    expect(&c, "sum", "int64[3,5] 120");
    done(&c);
}

/* A dim inference makes up is internal, born at its node; the input dims to
 * bind instead are the ones its node's inputs have. A dim the model declares
 * with the same spelling (tf2onnx writes "unk__0") is the model's, and fresh
 * names skip it. */
static void test_internal_dims(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,unk__0");
    Onnx__NodeProto *nz = mb_node(g, "NonZero", "x", "idx");
    nz->name = mb_strdup("find");
    mb_node(g, "Transpose", "idx", "t");
    mb_output(g, "t", I64, NULL);
    memplan_model *m = load(g);
    ctx c;
    memplan_error err = {0};
    assert_int_equal(bound(&c, m, NULL, 0, &err), MEMPLAN_OK);
    expect(&c, "idx", "int64[2,unk__1] 16*unk__1");
    assert_false(memplan_shapes_internal_dim(c.s, "unk__0", NULL)); /* the model's */
    memplan_dim_origin o;
    assert_true(memplan_shapes_internal_dim(c.s, "unk__1", &o));
    assert_ptr_equal(o.graph, m->graph);
    assert_non_null(o.node);
    assert_string_equal(o.node->name, "find");
    assert_string_equal(o.node->op_type, "NonZero");
    const char *names[4];
    assert_int_equal(memplan_shapes_bind_instead(c.s, "unk__1", names, 4), 2);
    assert_string_equal(names[0], "batch");
    assert_string_equal(names[1], "unk__0");
    assert_int_equal(memplan_shapes_bind_instead(c.s, "unk__1", names, 1), 2); /* count even past max */
    assert_int_equal(memplan_shapes_bind_instead(c.s, "batch", names, 4), 0);
    assert_false(memplan_shapes_internal_dim(c.s, "unk__2", NULL));
    done(&c);
}

/* A declared dim name on a value_info or a graph output refines a fresh dim
 * to that name, which then flows on (and binds). */
static void test_declared_name_refines(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,4");
    mb_node(g, "NonZero", "x", "idx");
    mb_value(g, "idx", I64, "2,nnz");
    mb_node(g, "Transpose", "idx", "t");
    mb_node(g, "Unique", "x", "u,ui,uinv,ucount");
    mb_node(g, "Relu", "u", "ur");
    mb_output(g, "t", I64, NULL);
    mb_output(g, "u", F32, "n_unique");
    memplan_model *m = load(g);
    ctx c;
    memplan_error err = {0};
    assert_int_equal(bound(&c, m, NULL, 0, &err), MEMPLAN_OK);
    expect(&c, "idx", "int64[2,nnz] 16*nnz");
    expect(&c, "t", "int64[nnz,2] 16*nnz");
    expect(&c, "ur", "float[n_unique] 4*n_unique");
    memplan_shapes_free(c.s);
    memplan_binding b = {"nnz", 3};
    assert_int_equal(bound(&c, m, &b, 1, &err), MEMPLAN_OK);
    expect(&c, "t", "int64[3,2] 48");
    done(&c);
}

/* GPT-2's 8-token position table, sliced to the sequence and added in each
 * layer: symbolic seq stays seq; seq=6 fits; seq=128 is an error naming the
 * node where it cannot (the table clamps to 8). */
static mb_graph *gpt2_like(void) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq,4");
    mb_initializer(g, "pos", F32, "8,4");
    const int64_t zero = 0, one = 1;
    mb_initializer_ints(g, "zero", "1", &zero, 1);
    mb_initializer_ints(g, "one", "1", &one, 1);
    mb_node(g, "Shape", "x", "s");
    mb_node(g, "Gather", "s,one", "len");
    mb_node(g, "Slice", "pos,zero,len,zero", "p");
    const char *in = "x";
    char out[16], ins[32];
    for (int i = 0; i < 3; i++) {
        snprintf(out, sizeof out, "h%d", i);
        snprintf(ins, sizeof ins, "%s,p", in);
        Onnx__NodeProto *add = mb_node(g, "Add", ins, out);
        char name[16];
        snprintf(name, sizeof name, "add%d", i);
        add->name = mb_strdup(name);
        in = i == 0 ? "h0" : i == 1 ? "h1" : "h2";
    }
    mb_output(g, "h2", F32, NULL);
    return g;
}

static void test_binding_that_does_not_fit(void **state) {
    (void)state;
    memplan_model *m = load(gpt2_like());
    ctx c;
    memplan_error err = {0};
    assert_int_equal(bound(&c, m, NULL, 0, &err), MEMPLAN_OK);
    expect(&c, "p", "float[min(seq,8),4] 16*min(seq,8)");
    expect(&c, "h2", "float[batch,seq,4] 16*batch*seq"); /* max(seq,min(seq,8)) = seq */
    memplan_shapes_free(c.s);
    memplan_binding fits[2] = {{"batch", 1}, {"seq", 6}};
    assert_int_equal(bound(&c, m, fits, 2, &err), MEMPLAN_OK);
    expect(&c, "h2", "float[1,6,4] 96");
    memplan_shapes_free(c.s);
    memplan_binding too_long[2] = {{"batch", 1}, {"seq", 128}};
    assert_int_equal(bound(&c, m, too_long, 2, &err), MEMPLAN_EINPUT);
    assert_null(c.s);
    assert_string_equal(err.message,
                        "the dims bound do not fit the model: node 'add0' (Add): cannot broadcast dims 128 and 8");
    memplan_model_free(m);
}

/* A Reshape that cannot hold its input under the bindings is an error; a
 * conflict the model has anyway stays a note. */
static void test_reshape_does_not_fit(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq");
    mb_input(g, "y", F32, "2");
    mb_initializer(g, "z", F32, "3");
    const int64_t shape[2] = {-1, 3};
    mb_initializer_ints(g, "shape", "2", shape, 2);
    Onnx__NodeProto *r = mb_node(g, "Reshape", "x,shape", "r");
    r->name = mb_strdup("split_heads");
    mb_node(g, "Add", "y,z", "broken"); /* [2] + [3]: the model's own conflict */
    mb_output(g, "r", F32, NULL);
    memplan_model *m = load(g);
    ctx c;
    memplan_error err = {0};
    assert_int_equal(bound(&c, m, NULL, 0, &err), MEMPLAN_OK);
    expect(&c, "r", "float[batch*seq//3,3] 12*(batch*seq//3)");
    memplan_shapes_free(c.s);
    memplan_binding ok[2] = {{"batch", 2}, {"seq", 6}};
    assert_int_equal(bound(&c, m, ok, 2, &err), MEMPLAN_OK); /* the Add's conflict is the model's */
    expect(&c, "r", "float[4,3] 48");
    memplan_shapes_free(c.s);
    memplan_binding bad[2] = {{"batch", 1}, {"seq", 4}};
    assert_int_equal(bound(&c, m, bad, 2, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "the dims bound do not fit the model: node 'split_heads' (Reshape): "
                                     "cannot reshape 4 elements into a multiple of 3");
    memplan_model_free(m);
}

/* The same through a Slice to tf2onnx's "to the end" (2^31 - 1): taken as
 * a size of its own, the slice made the Reshape a conflict of the model's
 * (a note, exit 0) rather than of the bindings. */
static void test_reshape_after_open_slice(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "N,4");
    const int64_t zero = 0, open = INT32_MAX, four = 4;
    mb_initializer_ints(g, "zero", "1", &zero, 1);
    mb_initializer_ints(g, "open", "1", &open, 1);
    mb_initializer_ints(g, "four", "1", &four, 1);
    mb_node(g, "Slice", "x,zero,open,zero", "rows");
    Onnx__NodeProto *r = mb_node(g, "Reshape", "rows,four", "flat");
    r->name = mb_strdup("to4");
    mb_output(g, "flat", F32, NULL);
    memplan_model *m = load(g);
    ctx c;
    memplan_error err = {0};
    assert_int_equal(bound(&c, m, NULL, 0, &err), MEMPLAN_OK);
    expect(&c, "rows", "float[min(N,2147483647),4] 16*min(N,2147483647)");
    memplan_shapes_free(c.s);
    memplan_binding one[1] = {{"N", 1}};
    assert_int_equal(bound(&c, m, one, 1, &err), MEMPLAN_OK);
    expect(&c, "flat", "float[4] 16");
    memplan_shapes_free(c.s);
    memplan_binding three[1] = {{"N", 3}};
    assert_int_equal(bound(&c, m, three, 1, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message,
                        "the dims bound do not fit the model: node 'to4' (Reshape): cannot reshape 12 elements into 4");
    memplan_model_free(m);
}

/* A binding no dim of the model takes (a misspelt --dim) is said in a note:
 * it changes nothing, and a sweep over it would print equal rows. */
static void test_binding_of_no_dim(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,4");
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", F32, NULL);
    memplan_model *m = load(g);
    ctx c;
    memplan_error err = {0};
    memplan_binding b[5] = {{"batch", 2}, {"btach", 3}, {"seq", 1}, {"batch", 5}, {"seq", 2}};
    assert_int_equal(bound(&c, m, b, 5, &err), MEMPLAN_OK);
    expect(&c, "y", "float[5,4] 80"); /* the last binding of a name wins; the first is not said unused */
    assert_int_equal(memplan_shapes_note_count(c.s), 2); /* seq bound twice: said once */
    assert_string_equal(memplan_shapes_note(c.s, 0),
                        "no dim of the model is named 'btach': that binding changes nothing");
    assert_string_equal(memplan_shapes_note(c.s, 1),
                        "no dim of the model is named 'seq': that binding changes nothing");
    memplan_shapes_free(c.s);
    memplan_model_free(m);
}

/* Data-dependent dims and their upper bounds. */
static void expect_bound(ctx *c, const char *dim, const char *want) {
    memplan_expr b;
    if (!memplan_shapes_data_bound(c->s, dim, &b)) fail_msg("%s is not data-dependent", dim);
    const char *got = memplan_expr_str(memplan_shapes_pool(c->s), b);
    if (strcmp(got, want) != 0) fail_msg("%s: bound '%s', expected '%s'", dim, got, want);
}

static void test_data_dependent_bounds(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,seq");
    mb_input(g, "boxes", F32, "batch,100,4");
    mb_input(g, "scores", F32, "batch,80,100");
    mb_input(g, "cond", 9, "seq");
    mb_input(g, "k", I64, "1");
    const int64_t five = 5;
    mb_initializer_ints(g, "five", "1", &five, 1);
    mb_node(g, "NonZero", "x", "nz");
    mb_node(g, "NonMaxSuppression", "boxes,scores,five", "sel");
    mb_int_attr(mb_node(g, "Compress", "x,cond", "cx"), "axis", 1);
    mb_node(g, "Compress", "x,cond", "cflat");
    mb_node(g, "TopK", "x,k", "top,top_i");
    mb_output(g, "nz", I64, NULL);
    memplan_model *m = load(g);
    ctx c;
    memplan_error err = {0};
    assert_int_equal(bound(&c, m, NULL, 0, &err), MEMPLAN_OK);
    expect(&c, "nz", "int64[2,unk__0] 16*unk__0");
    expect_bound(&c, "unk__0", "batch*seq");
    expect(&c, "sel", "int64[unk__1,3] 24*unk__1");
    expect_bound(&c, "unk__1", "400*batch"); /* min(5, 100) per class, 80 classes */
    expect(&c, "cx", "float[batch,unk__2] 4*batch*unk__2");
    expect_bound(&c, "unk__2", "seq");
    expect_bound(&c, "unk__3", "min(batch*seq,seq)"); /* flattened: the condition or numel */
    expect(&c, "top", "float[batch,unk__4] 4*batch*unk__4");
    expect(&c, "top_i", "int64[batch,unk__4] 8*batch*unk__4"); /* both outputs: one k */
    expect_bound(&c, "unk__4", "seq");
    assert_int_equal(memplan_shapes_data_dim_count(c.s), 5);
    memplan_dim_origin o;
    assert_true(memplan_shapes_internal_dim(c.s, "unk__4", &o));
    assert_string_equal(o.node->op_type, "TopK");
    done(&c);
}

/* Reasons name the node where an unknown began, passed on downstream; the
 * notes list each op without a rule once; internal symbols say why. */
static void expect_reason(ctx *c, const char *name, const char *want) {
    const memplan_vshape *v = value(c, name);
    if (!v->reason || strcmp(v->reason, want) != 0) fail_msg("%s: reason '%s', expected '%s'", name, v->reason, want);
}

static void test_root_causes(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "batch,4");
    mb_input(g, "y", F32, "batch,4,2");
    mb_input(g, "t", I64, "2");
    Onnx__NodeProto *nd = mb_node(g, "ImageScalerV9", "x", "a");
    nd->name = mb_strdup("scale");
    mb_node(g, "ImageScalerV9", "a", "a2"); /* unnamed: #1 */
    mb_node(g, "Relu", "a", "b");
    mb_node(g, "Add", "b,x", "c");
    nd = mb_node(g, "Concat", "x,y", "cat");
    nd->name = mb_strdup("join");
    mb_int_attr(nd, "axis", 0);
    mb_node(g, "Sigmoid", "cat", "d");
    nd = mb_node(g, "Reshape", "x,t", "r");
    nd->name = mb_strdup("flat");
    mb_node(g, "NonZero", "x", "nz");
    mb_output(g, "c", F32, NULL);
    memplan_model *m = load(g);
    ctx c;
    memplan_error err = {0};
    assert_int_equal(bound(&c, m, NULL, 0, &err), MEMPLAN_OK);
    expect_reason(&c, "a", "no rule for ImageScalerV9 (node 'scale')");
    expect_reason(&c, "a2", "no rule for ImageScalerV9 (node 'scale')"); /* began upstream */
    expect_reason(&c, "b", "no rule for ImageScalerV9 (node 'scale')");
    expect_reason(&c, "c", "no rule for ImageScalerV9 (node 'scale')");
    expect_reason(&c, "cat", "inputs of different ranks in Concat (node 'join')");
    expect_reason(&c, "d", "inputs of different ranks in Concat (node 'join')");
    expect(&c, "r", "float[unk__0,unk__1] 4*unk__0*unk__1"); /* rank from t's length, values unknown */
    size_t notes = memplan_shapes_note_count(c.s);
    assert_string_equal(memplan_shapes_note(c.s, notes - 1), "no rule for ImageScalerV9 (2 nodes)");
    for (size_t i = 0; i + 1 < notes; i++) assert_null(strstr(memplan_shapes_note(c.s, i), "no rule for"));
    char buf[128];
    assert_int_equal(memplan_shapes_dim_reason(c.s, "unk__0", buf, sizeof buf),
                     strlen("size unknown after Reshape (node 'flat')"));
    assert_string_equal(buf, "size unknown after Reshape (node 'flat')");
    assert_true(memplan_shapes_dim_reason(c.s, "unk__2", buf, sizeof buf) > 0);
    assert_string_equal(buf, "data-dependent: NonZero (node #7)");
    assert_int_equal(memplan_shapes_dim_reason(c.s, "batch", buf, sizeof buf), 0);
    done(&c);
}

/* A call of a model-local function is inferred through its body. */
static void test_function_call(void **state) {
    (void)state;
    memplan_model *m = NULL;
    memplan_error err = {0};
    const char *dir = getenv("MEMPLAN_FIXTURES");
    char path[1024];
    snprintf(path, sizeof path, "%s/function.onnx", dir ? dir : "fixtures");
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    static uint8_t bytes[1 << 16];
    size_t len = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    ctx c;
    assert_int_equal(bound(&c, m, NULL, 0, &err), MEMPLAN_OK);
    const memplan_vshape *b = value(&c, "b");
    assert_int_equal(b->origin, MEMPLAN_ORIGIN_INFERRED);
    expect(&c, "b", "float[2,8] 64");
    for (size_t i = 0; i < memplan_shapes_note_count(c.s); i++)
        assert_null(strstr(memplan_shapes_note(c.s, i), "no rule"));
    done(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_dims),
        cmocka_unit_test(test_internal_dims),
        cmocka_unit_test(test_declared_name_refines),
        cmocka_unit_test(test_binding_that_does_not_fit),
        cmocka_unit_test(test_reshape_does_not_fit),
        cmocka_unit_test(test_reshape_after_open_slice),
        cmocka_unit_test(test_binding_of_no_dim),
        cmocka_unit_test(test_data_dependent_bounds),
        cmocka_unit_test(test_root_causes),
        cmocka_unit_test(test_function_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
