/*
 * test_splice.c -- the wire splice of src/onnx/splice.h through its own
 * interface: entries set and removed per node (file index) and per value
 * name, exact results, untouched bytes, errors; the reader path gives the
 * same bytes each time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "model_builder.h"
#include "onnx/splice.h"

enum { F32 = 1 };

/* "k=v;k=v" of a metadata list. */
static const char *entries(Onnx__StringStringEntryProto *const *e, size_t n) {
    static char buf[512];
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s=%s", i ? ";" : "", e[i]->key, e[i]->value);
    return buf;
}

/* x -> Abs a -> Neg y, with W an initializer; entries already present:
 * node 0 x=0, b=old, a=old, b=dup, r=gone; input x r=gone, keep=1;
 * value_info x r=gone; initializer W r=gone. */
static uint8_t *model(size_t *len) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_meta(&g->input[0]->metadata_props, &g->input[0]->n_metadata_props, "r", "gone");
    mb_meta(&g->input[0]->metadata_props, &g->input[0]->n_metadata_props, "keep", "1");
    mb_initializer(g, "W", F32, "2");
    mb_meta(&g->initializer[0]->metadata_props, &g->initializer[0]->n_metadata_props, "r", "gone");
    Onnx__NodeProto *nd = mb_node(g, "Abs", "x", "a");
    mb_node_meta(nd, "x", "0");
    mb_node_meta(nd, "b", "old");
    mb_node_meta(nd, "a", "old");
    mb_node_meta(nd, "b", "dup");
    mb_node_meta(nd, "r", "gone");
    mb_node(g, "Add", "a,W", "y");
    mb_output(g, "y", F32, "2");
    mb_value(g, "x", F32, "2");
    mb_meta(&g->value_info[0]->metadata_props, &g->value_info[0]->n_metadata_props, "r", "gone");
    return mb_pack(g, len);
}

static const char *const REMOVE[] = {"r"};
static const memplan_kv NODE0[] = {{"a", "1"}, {"b", "2"}, {"c", "3"}};
static const memplan_kv NODE1[] = {{"n", "v"}};
static const memplan_kv XSET[] = {{"tag", "shape"}};
static const char *const OPS[] = {"Abs", "Add"};
static const char *const NAMES[] = {"x", "W", "x"};

/* Node 0: a, b, c set and r removed; node 1: n appended; x and W named;
 * other messages lose r. */
static const mp_meta_edit NODES[] = {{NODE0, 3, REMOVE, 1}, {NODE1, 1, NULL, 0}};
static const mp_meta_edit VALUES[] = {
    {XSET, 1, REMOVE, 1},
    {NULL, 0, NULL, 0},  /* W: left as it is */
    {NODE1, 1, NULL, 0}, /* a repeated name: the first counts */
};
static const mp_meta_edit OTHER = {NULL, 0, REMOVE, 1};
static const mp_splice_edits EDITS = {2, NODES, OPS, 3, NAMES, VALUES, &OTHER, NULL, NULL};

static bool mem_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    memcpy(buf, (const uint8_t *)ctx + offset, len);
    return true;
}

/* bytes spliced with e give want, from memory and through a reader with the
 * smallest window. */
static void expect_splice(const uint8_t *bytes, size_t len, const mp_splice_edits *e, const uint8_t *want,
                          size_t want_len) {
    memplan_reader rd = {mem_read, (void *)bytes, len};
    for (int via_reader = 0; via_reader < 2; via_reader++) {
        unsigned char *out;
        size_t out_len;
        memplan_error err = {0};
        memplan_status st = via_reader ? mp_splice_reader(&rd, 16, e, &out, &out_len, &err)
                                       : mp_splice(bytes, len, e, &out, &out_len, &err);
        assert_int_equal(st, MEMPLAN_OK);
        assert_int_equal(out_len, want_len);
        assert_memory_equal(out, want, want_len);
        free(out);
    }
}

static void test_splice_entries(void **state) {
    (void)state;
    size_t len, out_len;
    uint8_t *bytes = model(&len);
    mp_splice_edits e = EDITS;
    unsigned char *out;
    memplan_error err = {0};
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_OK);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, out_len, out);
    assert_non_null(mp);
    const Onnx__GraphProto *g = mp->graph;
    /* b replaced where b first was (and a, c placed by the first of their
     * keys or appended); the second b and r dropped; x kept in place. */
    assert_string_equal(entries(g->node[0]->metadata_props, g->node[0]->n_metadata_props), "x=0;b=2;a=1;c=3");
    assert_string_equal(entries(g->node[1]->metadata_props, g->node[1]->n_metadata_props), "n=v");
    assert_string_equal(entries(g->input[0]->metadata_props, g->input[0]->n_metadata_props), "keep=1;tag=shape");
    assert_string_equal(entries(g->value_info[0]->metadata_props, g->value_info[0]->n_metadata_props), "tag=shape");
    assert_string_equal(entries(g->initializer[0]->metadata_props, g->initializer[0]->n_metadata_props), "r=gone");
    assert_int_equal(g->output[0]->n_metadata_props, 0);
    onnx__model_proto__free_unpacked(mp, NULL);

    expect_splice(bytes, len, &e, out, out_len);   /* the reader gives the same */
    expect_splice(out, out_len, &e, out, out_len); /* again: nothing left to change */
    free(out);
    free(bytes);
}

/* Edits that change nothing copy every byte. */
static void test_splice_untouched(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = model(&len);
    mp_meta_edit none[2] = {{NULL, 0, NULL, 0}, {NULL, 0, NULL, 0}};
    static const char *const ABSENT[] = {"not-there"};
    mp_meta_edit other = {NULL, 0, ABSENT, 1};
    mp_splice_edits e = {2, none, NULL, 0, NULL, NULL, &other, NULL, NULL};
    expect_splice(bytes, len, &e, bytes, len);
    /* A key longer than every edit's key never matches a shorter one's prefix. */
    static const char *const SHORT[] = {"kee"};
    mp_meta_edit cut = {NULL, 0, SHORT, 1};
    e.other = &cut;
    expect_splice(bytes, len, &e, bytes, len);
    free(bytes);
}

/* A node order: the node messages move, every other byte stays; metadata
 * edits follow their node (by file index). */
static void test_splice_order(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = model(&len);
    /* what protobuf-c packs with the two nodes swapped */
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, bytes);
    assert_non_null(mp);
    Onnx__NodeProto *t = mp->graph->node[0];
    mp->graph->node[0] = mp->graph->node[1];
    mp->graph->node[1] = t;
    size_t want_len = onnx__model_proto__get_packed_size(mp);
    uint8_t *want = malloc(want_len);
    onnx__model_proto__pack(mp, want);
    mp->graph->node[1] = mp->graph->node[0];
    mp->graph->node[0] = t;
    onnx__model_proto__free_unpacked(mp, NULL);
    static const int32_t SWAP[] = {1, 0};
    mp_meta_edit none[2] = {{NULL, 0, NULL, 0}, {NULL, 0, NULL, 0}};
    mp_splice_edits e = {2, none, OPS, 0, NULL, NULL, NULL, NULL, SWAP};
    assert_int_equal(want_len, len);
    expect_splice(bytes, len, &e, want, want_len);
    free(want);
    /* with the entry edits too */
    e = EDITS;
    e.node_order = SWAP;
    unsigned char *out;
    size_t out_len;
    memplan_error err = {0};
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_OK);
    mp = onnx__model_proto__unpack(NULL, out_len, out);
    assert_non_null(mp);
    assert_string_equal(mp->graph->node[0]->op_type, "Add");
    assert_string_equal(entries(mp->graph->node[0]->metadata_props, mp->graph->node[0]->n_metadata_props), "n=v");
    assert_string_equal(mp->graph->node[1]->op_type, "Abs");
    assert_string_equal(entries(mp->graph->node[1]->metadata_props, mp->graph->node[1]->n_metadata_props),
                        "x=0;b=2;a=1;c=3");
    onnx__model_proto__free_unpacked(mp, NULL);
    free(out);
    static const int32_t BAD[] = {1, 1};
    e.node_order = BAD;
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_EUSAGE);
    assert_string_equal(err.message, "the node order is not a permutation (entry 1)");
    free(bytes);
}

static void test_splice_errors(void **state) {
    (void)state;
    size_t len, out_len;
    uint8_t *bytes = model(&len);
    mp_splice_edits e = EDITS;
    unsigned char *out = (unsigned char *)&out;
    memplan_error err = {0};
    static const char *const WRONG[] = {"Abs", "Mul"};
    e.op_types = WRONG;
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "node 1 of the file is 'Add', the results are for 'Mul'");
    assert_null(out);
    e.op_types = OPS;
    e.n_nodes = 1;
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "the results are for a graph with 1 nodes, but the model's graph has 2");
    e.n_nodes = 2;
    assert_int_equal(mp_splice(bytes, 0, &e, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "the model has no graph");
    /* Cut short: the loader's error. */
    assert_int_equal(mp_splice(bytes, len - 2, &e, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "malformed protobuf at byte 191: length runs past the end of the data");
    assert_null(out);
    free(bytes);
}

/* x -> If(c) -> y whose then_branch (Neg x -> t, then Abs t -> u) and
 * else_branch (Identity x -> e) each carry an entry. */
static uint8_t *if_model(size_t *len) {
    mb_graph *th = mb_new_graph("then");
    mb_node_meta(mb_node(th, "Neg", "x", "t"), "old", "1");
    mb_node(th, "Abs", "t", "u");
    mb_output(th, "u", F32, "2");
    mb_graph *el = mb_new_graph("else");
    mb_node(el, "Identity", "x", "e");
    mb_output(el, "e", F32, "2");
    mb_meta(&el->output[0]->metadata_props, &el->output[0]->n_metadata_props, "r", "gone");
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "2");
    mb_input(g, "c", 9, "");
    Onnx__NodeProto *nd = mb_node(g, "If", "c", "y");
    mb_graph_attr(nd, "then_branch", th);
    mb_graph_attr(nd, "else_branch", el);
    mb_output(g, "y", F32, "2");
    return mb_pack(g, len);
}

static const char *const THEN_OPS[] = {"Neg", "Abs"};
static const char *const ELSE_OPS[] = {"Identity"};
static const char *const OLD[] = {"old"};
static const mp_meta_edit THEN_NODES[] = {{NODE1, 1, OLD, 1}, {XSET, 1, NULL, 0}};
static const mp_meta_edit ELSE_NODES[] = {{NULL, 0, NULL, 0}};
static const char *const ELSE_NAMES[] = {"e"};
static const mp_meta_edit ELSE_VALUES[] = {{XSET, 1, REMOVE, 1}};

/* Body edits reach the nodes and values inside the branches; the If itself
 * and the main graph's messages are left as they are. */
static void test_splice_bodies(void **state) {
    (void)state;
    size_t len, out_len;
    uint8_t *bytes = if_model(&len);
    mp_splice_edits branches[2] = {
        {2, THEN_NODES, THEN_OPS, 0, NULL, NULL, NULL, NULL, NULL},
        {1, ELSE_NODES, ELSE_OPS, 1, ELSE_NAMES, ELSE_VALUES, NULL, NULL, NULL},
    };
    mp_meta_edit none = {NULL, 0, NULL, 0};
    static const char *const IF_OPS[] = {"If"};
    mp_splice_bodies bodies = {2, branches};
    mp_splice_edits e = {1, &none, IF_OPS, 0, NULL, NULL, NULL, &bodies, NULL};
    unsigned char *out;
    memplan_error err = {0};
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_OK);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, out_len, out);
    assert_non_null(mp);
    const Onnx__NodeProto *nd = mp->graph->node[0];
    assert_int_equal(nd->n_metadata_props, 0);
    const Onnx__GraphProto *th = nd->attribute[0]->g, *el = nd->attribute[1]->g;
    assert_string_equal(entries(th->node[0]->metadata_props, th->node[0]->n_metadata_props), "n=v");
    assert_string_equal(entries(th->node[1]->metadata_props, th->node[1]->n_metadata_props), "tag=shape");
    assert_int_equal(el->node[0]->n_metadata_props, 0);
    assert_string_equal(entries(el->output[0]->metadata_props, el->output[0]->n_metadata_props), "tag=shape");
    onnx__model_proto__free_unpacked(mp, NULL);
    expect_splice(bytes, len, &e, out, out_len);
    expect_splice(out, out_len, &e, out, out_len);
    free(out);

    /* Edits for bodies a node does not have, or of another shape, are errors. */
    mp_splice_bodies one = {1, branches};
    e.bodies = &one;
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "a node has more bodies than the results give (1)");
    mp_splice_edits swapped[2] = {branches[1], branches[0]};
    mp_splice_bodies wrong = {2, swapped};
    e.bodies = &wrong;
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "node 0 of the file is 'Neg', the results are for 'Identity'");
    mp_splice_edits short_then[2] = {{1, THEN_NODES, THEN_OPS, 0, NULL, NULL, NULL, NULL, NULL}, branches[1]};
    mp_splice_bodies shorter = {2, short_then};
    e.bodies = &shorter;
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "node 1 of the file is 'Abs', the results are for ''");
    free(bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splice_entries), cmocka_unit_test(test_splice_untouched),
        cmocka_unit_test(test_splice_order),   cmocka_unit_test(test_splice_errors),
        cmocka_unit_test(test_splice_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
