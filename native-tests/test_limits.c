/*
 * test_limits.c -- every loader limit of include/memplan/model.h ends in a
 * clear error with the exact message (and the value just inside the limit
 * still loads). Subgraph nesting (32) is tested in test_load.c. The value
 * limit (20M values) is not tested: reaching it needs ~120 MB of distinct
 * names; the code path is the same counter as the node limit's in build.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "model_builder.h"

#define F32 1

static void expect_load(const uint8_t *bytes, size_t len, memplan_status want, const char *fragment) {
    memplan_model *m = NULL;
    memplan_error err = {0};
    memplan_status st = memplan_model_load(bytes, len, NULL, &m, &err);
    if (st != want) fail_msg("status %d, expected %d (%s)", (int)st, (int)want, err.message);
    if (want == MEMPLAN_OK) {
        assert_non_null(m);
        memplan_model_free(m);
        return;
    }
    assert_null(m);
    if (!strstr(err.message, fragment)) fail_msg("message '%s' lacks '%s'", err.message, fragment);
}

static void expect_graph(mb_graph *g, memplan_status want, const char *fragment) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    expect_load(bytes, len, want, fragment);
    free(bytes);
}

/* An input of the given rank, all dims 1. */
static mb_graph *rank_graph(int rank) {
    mb_graph *g = mb_new_graph("g");
    size_t cap = (size_t)rank * 2 + 1;
    char *dims = calloc(cap, 1);
    for (int i = 0; i < rank; i++) strcat(dims, i ? ",1" : "1");
    mb_input(g, "x", F32, dims);
    free(dims);
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", F32, "1");
    return g;
}

static void test_rank(void **state) {
    (void)state;
    expect_graph(rank_graph(MEMPLAN_MAX_RANK), MEMPLAN_OK, NULL);
    expect_graph(rank_graph(MEMPLAN_MAX_RANK + 1), MEMPLAN_ELIMIT, "'x': rank 1025 exceeds 1024");
}

static void test_tensor_rank(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    char dims[2 * 1025 + 1] = "";
    for (int i = 0; i < 1025; i++) strcat(dims, i ? ",1" : "1");
    mb_initializer(g, "w", F32, dims);
    mb_node(g, "Relu", "w", "y");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_ELIMIT, "tensor 'w': rank 1025 exceeds 1024");
}

static void test_dim_values(void **state) {
    (void)state;
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "9007199254740992"); /* 2^53: the largest accepted */
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_OK, NULL);
    g = mb_new_graph("g");
    mb_input(g, "x", F32, "2,9007199254740993");
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_EINPUT, "'x': dim 1 is 9007199254740993, outside [0, 2^53]");
    g = mb_new_graph("g");
    mb_input(g, "x", F32, "1");
    g->input[0]->type->tensor_type->shape->dim[0]->dim_value = -3;
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_EINPUT, "'x': dim 0 is -3, outside [0, 2^53]");
    g = mb_new_graph("g");
    mb_initializer(g, "w", F32, "4");
    g->initializer[0]->dims[0] = -1;
    mb_node(g, "Relu", "w", "y");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_EINPUT, "'w': dim 0 is -1, outside [0, 2^53]");
}

/* A name of n bytes: 'n' repeated. */
static char *long_name(size_t n) {
    char *s = malloc(n + 1);
    memset(s, 'n', n);
    s[n] = 0;
    return s;
}

static void test_names(void **state) {
    (void)state;
    char *ok = long_name(MEMPLAN_MAX_NAME), *bad = long_name(MEMPLAN_MAX_NAME + 1);
    /* value names */
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", F32, "1");
    mb_node(g, "Relu", "x", ok);
    mb_node(g, "Relu", ok, "y");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_OK, NULL);
    g = mb_new_graph("g");
    mb_input(g, bad, F32, "1");
    mb_node(g, "Relu", bad, "y");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_ELIMIT, "a value name is longer than 65536 bytes");
    /* node name, op type, domain */
    static const char *const what[] = {"node", "op", "domain"};
    for (int k = 0; k < 3; k++) {
        g = mb_new_graph("g");
        mb_input(g, "x", F32, "1");
        Onnx__NodeProto *nd = mb_node(g, "Relu", "x", "y");
        if (k == 0) nd->name = mb_strdup(bad);
        if (k == 1) {
            free(nd->op_type);
            nd->op_type = mb_strdup(bad);
        }
        if (k == 2) nd->domain = mb_strdup(bad);
        mb_output(g, "y", F32, "1");
        size_t len;
        uint8_t *bytes = mb_pack(g, &len); /* mb_free_graph frees name and domain too */
        char frag[64];
        snprintf(frag, sizeof frag, "a %s name is longer than 65536 bytes", what[k]);
        expect_load(bytes, len, MEMPLAN_ELIMIT, frag);
        free(bytes);
    }
    /* graph name, dim name, tensor name */
    g = mb_new_graph(bad);
    mb_input(g, "x", F32, "1");
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_ELIMIT, "a graph name is longer than 65536 bytes");
    g = mb_new_graph("g");
    mb_input(g, "x", F32, bad);
    mb_node(g, "Relu", "x", "y");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_ELIMIT, "a dim name is longer than 65536 bytes");
    g = mb_new_graph("g");
    mb_initializer(g, bad, F32, "1");
    mb_node(g, "Relu", "x", "y");
    mb_input(g, "x", F32, "1");
    mb_output(g, "y", F32, "1");
    expect_graph(g, MEMPLAN_ELIMIT, "a tensor name is longer than 65536 bytes");
    free(ok);
    free(bad);
}

/* ModelProto { graph { node {} x n } }: n empty NodeProto, 2 bytes each. */
static uint8_t *empty_nodes(size_t n, size_t *len) {
    size_t body = 2 * n;
    uint8_t *b = malloc(body + 16);
    size_t p = 0;
    b[p++] = 0x3a; /* ModelProto.graph, LEN */
    for (size_t v = body;; v >>= 7) {
        b[p++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
        if (!(v >> 7)) break;
    }
    for (size_t i = 0; i < n; i++) {
        b[p++] = 0x0a;
        b[p++] = 0x00;
    }
    *len = p;
    return b;
}

static void test_node_count(void **state) {
    (void)state;
    size_t len;
    uint8_t *b = empty_nodes((size_t)MEMPLAN_MAX_NODES + 1, &len);
    expect_load(b, len, MEMPLAN_ELIMIT, "more than 10000000 nodes (at byte");
    free(b);
    b = empty_nodes(1000, &len); /* under the limit: loads (empty op types are allowed) */
    expect_load(b, len, MEMPLAN_OK, NULL);
    free(b);
}

/* One node with n empty attributes (2 bytes each on the wire, 256 bytes
 * each once protobuf-c decodes them). */
static uint8_t *empty_attributes(size_t n, size_t *len) {
    size_t node = 2 * n, p = 0;
    uint8_t *b = malloc(node + 32);
    size_t lens[2] = {node + 2 + (node >= 128) + (node >= 16384) + (node >= 2097152), node};
    const uint8_t tags[2] = {0x3a, 0x0a}; /* ModelProto.graph (tag + varint + node), GraphProto.node */
    for (int k = 0; k < 2; k++) {
        b[p++] = tags[k];
        for (size_t v = lens[k];; v >>= 7) {
            b[p++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
            if (!(v >> 7)) break;
        }
    }
    for (size_t i = 0; i < n; i++) {
        b[p++] = 0x2a; /* NodeProto.attribute, LEN 0 */
        b[p++] = 0x00;
    }
    *len = p;
    return b;
}

/* Messages that decode to far more memory than the file holds are refused
 * before protobuf-c allocates them (64 MiB + 96 bytes per input byte, at
 * most 2 GiB; strings, bytes and packed values count too). */
static void test_decoded_size(void **state) {
    (void)state;
    size_t len;
    uint8_t *b = empty_attributes(1200000, &len); /* 2.4 MB -> 307 MB decoded */
    expect_load(b, len, MEMPLAN_ELIMIT, "MB when decoded (at byte");
    free(b);
}

static bool mem_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    memcpy(buf, (const uint8_t *)ctx + offset, len);
    return true;
}

/* Read through a reader, the cap is the pruned bytes' own: 2.4 MB of empty
 * attributes (307 MB decoded) beside a 4 MiB raw_data that the walk drops
 * are under the file's cap (64 MiB + 96 x 6.6 MB) but over the pruned
 * bytes' (64 MiB + 96 x 2.4 MB), as when the CLI walked the pruned bytes a
 * second time; the one walk that loads them now must refuse them too. */
static void test_decoded_size_pruned(void **state) {
    (void)state;
    size_t alen, raw = (size_t)4 << 20;
    uint8_t *a = empty_attributes(1200000, &alen);
    /* ModelProto.graph { GraphProto.initializer { TensorProto.raw_data } }: varints of raw + 5, raw + 5 + 5 */
    uint8_t *b = calloc(1, alen + raw + 32);
    memcpy(b, a, alen);
    size_t p = alen;
    size_t lens[3] = {raw + 5 + 5, raw + 5, raw};
    const uint8_t tags[3] = {0x3a, 0x2a, 0x4a}; /* ModelProto.graph, GraphProto.initializer, TensorProto.raw_data */
    for (int k = 0; k < 3; k++) {
        b[p++] = tags[k];
        for (size_t v = lens[k];; v >>= 7) {
            b[p++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
            if (!(v >> 7)) break;
        }
    }
    p += raw;
    memplan_reader rd = {mem_read, b, p};
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load_reader(&rd, NULL, &m, &err), MEMPLAN_ELIMIT);
    assert_null(m);
    assert_non_null(strstr(err.message, "the model expands to more than 283 MB when decoded (at byte 2324304)"));
    void *bytes = NULL;
    size_t len = 0;
    assert_int_equal(memplan_model_strip(&rd, &bytes, &len, &err), MEMPLAN_ELIMIT);
    assert_null(bytes);
    free(a);
    free(b);
}

/* A singular message field given again and again (protobuf-c merges each
 * repeat into what it decoded so far: quadratic) is refused past 64 repeats;
 * a few repeats still load, merged. */
static void test_repeated_singular_message(void **state) {
    (void)state;
    for (int n = 2; n <= 65; n += 63) {
        size_t len = 0;
        uint8_t *b = malloc((size_t)n * 4);
        for (int i = 0; i < n; i++) { /* ModelProto.graph = GraphProto{node: NodeProto{}} */
            b[len++] = 0x3a;
            b[len++] = 0x02;
            b[len++] = 0x0a;
            b[len++] = 0x00;
        }
        if (n == 2) {
            memplan_model *m = NULL;
            memplan_error err = {0};
            assert_int_equal(memplan_model_load(b, len, NULL, &m, &err), MEMPLAN_OK);
            assert_int_equal(m->graph->n_nodes, 2); /* the two graph fields merged */
            memplan_model_free(m);
        } else {
            expect_load(b, len, MEMPLAN_EINPUT,
                        "malformed protobuf at byte 256: field onnx.ModelProto.graph is given "
                        "more than 64 times in one message");
        }
        free(b);
    }
}

/* TypeProto nested through sequence_type: each level is two messages. */
static void test_wire_depth(void **state) {
    (void)state;
    for (int levels = 95; levels <= 100; levels += 5) {
        Onnx__TypeProto *t = mb_tensor_type(F32, "2");
        for (int i = 0; i < levels; i++) {
            Onnx__TypeProto *outer = malloc(sizeof *outer);
            onnx__type_proto__init(outer);
            outer->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
            outer->sequence_type = malloc(sizeof *outer->sequence_type);
            onnx__type_proto__sequence__init(outer->sequence_type);
            outer->sequence_type->elem_type = t;
            t = outer;
        }
        Onnx__ValueInfoProto vi;
        onnx__value_info_proto__init(&vi);
        vi.name = "s";
        vi.type = t;
        Onnx__ValueInfoProto *vis[1] = {&vi};
        Onnx__GraphProto g;
        onnx__graph_proto__init(&g);
        g.input = vis;
        g.n_input = 1;
        g.output = vis;
        g.n_output = 1;
        Onnx__ModelProto m;
        onnx__model_proto__init(&m);
        m.graph = &g;
        size_t len = onnx__model_proto__get_packed_size(&m);
        uint8_t *bytes = malloc(len);
        onnx__model_proto__pack(&m, bytes);
        /* depth of the innermost TypeProto: model 0, graph 1, value info 2, type 3 + 2 * levels */
        if (3 + 2 * levels + 2 <= MEMPLAN_MAX_WIRE_DEPTH) expect_load(bytes, len, MEMPLAN_OK, NULL);
        else
            expect_load(bytes, len, MEMPLAN_ELIMIT, "messages nested deeper than 200 levels at byte");
        free(bytes);
        while (t->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
            Onnx__TypeProto *inner = t->sequence_type->elem_type;
            free(t->sequence_type);
            free(t);
            t = inner;
        }
        mb_free_type(t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank),
        cmocka_unit_test(test_tensor_rank),
        cmocka_unit_test(test_dim_values),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_node_count),
        cmocka_unit_test(test_wire_depth),
        cmocka_unit_test(test_decoded_size),
        cmocka_unit_test(test_decoded_size_pruned),
        cmocka_unit_test(test_repeated_singular_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
