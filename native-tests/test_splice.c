/*
 * test_splice.c -- the wire splice of src/onnx/splice.h through its own
 * interface: entries set and removed per node (file index) and per value
 * name, exact results, untouched bytes, errors, and the reader path.
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
static void edits(mp_splice_edits *e, mp_meta_edit nodes[2], mp_meta_edit values[3], mp_meta_edit *other) {
    nodes[0] = (mp_meta_edit){NODE0, 3, REMOVE, 1};
    nodes[1] = (mp_meta_edit){NODE1, 1, NULL, 0};
    values[0] = (mp_meta_edit){XSET, 1, REMOVE, 1};
    values[1] = (mp_meta_edit){NULL, 0, NULL, 0};   /* W: left as it is */
    values[2] = (mp_meta_edit){NODE1, 1, NULL, 0};  /* a repeated name: the first counts */
    *other = (mp_meta_edit){NULL, 0, REMOVE, 1};
    *e = (mp_splice_edits){2, nodes, OPS, 3, NAMES, values, other};
}

static void test_splice_entries(void **state) {
    (void)state;
    size_t len, out_len;
    uint8_t *bytes = model(&len);
    mp_splice_edits e;
    mp_meta_edit nodes[2], values[3], other;
    edits(&e, nodes, values, &other);
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

    /* The same edits again: nothing left to change, the same bytes. */
    unsigned char *again;
    size_t again_len;
    assert_int_equal(mp_splice(out, out_len, &e, &again, &again_len, &err), MEMPLAN_OK);
    assert_int_equal(again_len, out_len);
    assert_memory_equal(again, out, out_len);
    free(again);
    free(out);
    free(bytes);
}

static bool mem_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    memcpy(buf, (const uint8_t *)ctx + offset, len);
    return true;
}

/* Through a reader with the smallest window: the same bytes. */
static void test_splice_reader(void **state) {
    (void)state;
    size_t len, a_len, b_len;
    uint8_t *bytes = model(&len);
    mp_splice_edits e;
    mp_meta_edit nodes[2], values[3], other;
    edits(&e, nodes, values, &other);
    unsigned char *a, *b;
    memplan_error err = {0};
    assert_int_equal(mp_splice(bytes, len, &e, &a, &a_len, &err), MEMPLAN_OK);
    memplan_reader rd = {mem_read, bytes, len};
    assert_int_equal(mp_splice_reader(&rd, 16, &e, &b, &b_len, &err), MEMPLAN_OK);
    assert_int_equal(a_len, b_len);
    assert_memory_equal(a, b, a_len);
    free(a);
    free(b);
    free(bytes);
}

/* Edits that change nothing copy every byte. */
static void test_splice_untouched(void **state) {
    (void)state;
    size_t len, out_len;
    uint8_t *bytes = model(&len);
    mp_meta_edit none[2] = {{NULL, 0, NULL, 0}, {NULL, 0, NULL, 0}};
    static const char *const ABSENT[] = {"not-there"};
    mp_meta_edit other = {NULL, 0, ABSENT, 1};
    mp_splice_edits e = {2, none, NULL, 0, NULL, NULL, &other};
    unsigned char *out;
    memplan_error err = {0};
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_OK);
    assert_int_equal(out_len, len);
    assert_memory_equal(out, bytes, len);
    free(out);
    /* A key longer than every edit's key never matches a shorter one's prefix. */
    static const char *const SHORT[] = {"kee"};
    mp_meta_edit cut = {NULL, 0, SHORT, 1};
    e.other = &cut;
    assert_int_equal(mp_splice(bytes, len, &e, &out, &out_len, &err), MEMPLAN_OK);
    assert_int_equal(out_len, len);
    assert_memory_equal(out, bytes, len);
    free(out);
    free(bytes);
}

static void test_splice_errors(void **state) {
    (void)state;
    size_t len, out_len;
    uint8_t *bytes = model(&len);
    mp_splice_edits e;
    mp_meta_edit nodes[2], values[3], other;
    edits(&e, nodes, values, &other);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splice_entries),
        cmocka_unit_test(test_splice_reader),
        cmocka_unit_test(test_splice_untouched),
        cmocka_unit_test(test_splice_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
