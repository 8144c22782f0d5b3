/*
 * model_builder.h -- build small ONNX models in memory for tests, through
 * protobuf-c's generated structs (the same schema the loader reads).
 *
 *   mb_graph *g = mb_new_graph("main");
 *   mb_input(g, "x", 1, "1,4,batch");   // dims: numbers, names, or "?" for unknown
 *   mb_node(g, "Abs", "x", "a");        // inputs / outputs comma-separated, "" slots allowed
 *   mb_output(g, "a", 1, "1,4,batch");
 *   size_t len; uint8_t *bytes = mb_pack(g, &len);  // frees the graph; free(bytes)
 *
 * Everything is freed by mb_pack (or mb_free_graph for graphs not packed).
 */
#ifndef MEMPLAN_TEST_MODEL_BUILDER_H
#define MEMPLAN_TEST_MODEL_BUILDER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/model.h"
#include "onnx.pb-c.h"

typedef Onnx__GraphProto mb_graph;

static inline char *mb_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    memcpy(p, s, n);
    return p;
}

#define MB_PUSH(arr, n, item)                                                                                          \
    do {                                                                                                               \
        (arr) = realloc((arr), ((n) + 1) * sizeof *(arr));                                                             \
        (arr)[(n)++] = (item);                                                                                         \
    } while (0)

static inline mb_graph *mb_new_graph(const char *name) {
    mb_graph *g = malloc(sizeof *g);
    onnx__graph_proto__init(g);
    g->name = mb_strdup(name);
    return g;
}

/* Split "a,b,,c" into strings (empty slots kept). */
static inline size_t mb_split(const char *list, char ***out) {
    *out = NULL;
    size_t n = 0;
    if (!list || !*list) return 0;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *s = malloc(len + 1);
        memcpy(s, p, len);
        s[len] = 0;
        MB_PUSH(*out, n, s);
        if (!e) break;
        p = e + 1;
    }
    return n;
}

static inline Onnx__TypeProto *mb_tensor_type(int32_t elem, const char *dims) {
    Onnx__TypeProto *t = malloc(sizeof *t);
    onnx__type_proto__init(t);
    t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    t->tensor_type = malloc(sizeof *t->tensor_type);
    onnx__type_proto__tensor__init(t->tensor_type);
    t->tensor_type->has_elem_type = 1;
    t->tensor_type->elem_type = elem;
    if (!dims) return t; /* unknown rank */
    Onnx__TensorShapeProto *sp = malloc(sizeof *sp);
    onnx__tensor_shape_proto__init(sp);
    char **parts;
    size_t n = mb_split(dims, &parts);
    for (size_t i = 0; i < n; i++) {
        Onnx__TensorShapeProto__Dimension *d = malloc(sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        if (parts[i][0] >= '0' && parts[i][0] <= '9') {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = strtoll(parts[i], NULL, 10);
        } else if (strcmp(parts[i], "?") != 0) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = mb_strdup(parts[i]);
        }
        free(parts[i]);
        MB_PUSH(sp->dim, sp->n_dim, d);
    }
    free(parts);
    t->tensor_type->shape = sp;
    return t;
}

static inline Onnx__ValueInfoProto *mb_value_info(const char *name, int32_t elem, const char *dims) {
    Onnx__ValueInfoProto *v = malloc(sizeof *v);
    onnx__value_info_proto__init(v);
    v->name = mb_strdup(name);
    if (elem) v->type = mb_tensor_type(elem, dims);
    return v;
}

static inline void mb_input(mb_graph *g, const char *name, int32_t elem, const char *dims) {
    MB_PUSH(g->input, g->n_input, mb_value_info(name, elem, dims));
}

static inline void mb_output(mb_graph *g, const char *name, int32_t elem, const char *dims) {
    MB_PUSH(g->output, g->n_output, mb_value_info(name, elem, dims));
}

static inline void mb_value(mb_graph *g, const char *name, int32_t elem, const char *dims) {
    MB_PUSH(g->value_info, g->n_value_info, mb_value_info(name, elem, dims));
}

/* An initializer with the given dims ("2,3") and no data. */
static inline void mb_initializer(mb_graph *g, const char *name, int32_t elem, const char *dims) {
    Onnx__TensorProto *t = malloc(sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = mb_strdup(name);
    t->has_data_type = 1;
    t->data_type = elem;
    char **parts;
    size_t n = mb_split(dims, &parts);
    t->dims = malloc((n ? n : 1) * sizeof *t->dims);
    for (size_t i = 0; i < n; i++) {
        t->dims[i] = strtoll(parts[i], NULL, 10);
        free(parts[i]);
    }
    free(parts);
    t->n_dims = n;
    MB_PUSH(g->initializer, g->n_initializer, t);
}

/* An initializer of any element type holding raw_data bytes[0..len), which
 * stay the caller's (the builder does not free raw_data). */
static inline void mb_initializer_raw(mb_graph *g, const char *name, int32_t elem, const char *dims, const void *bytes,
                                      size_t len) {
    mb_initializer(g, name, elem, dims);
    Onnx__TensorProto *t = g->initializer[g->n_initializer - 1];
    t->has_raw_data = 1;
    t->raw_data.data = (uint8_t *)(uintptr_t)bytes;
    t->raw_data.len = len;
}

/* An int64 initializer with values (dims "" = scalar). */
static inline void mb_initializer_ints(mb_graph *g, const char *name, const char *dims, const int64_t *v, size_t n) {
    mb_initializer(g, name, 7, dims);
    Onnx__TensorProto *t = g->initializer[g->n_initializer - 1];
    t->int64_data = malloc((n ? n : 1) * sizeof *t->int64_data);
    memcpy(t->int64_data, v, n * sizeof *v);
    t->n_int64_data = n;
}

static inline Onnx__NodeProto *mb_node(mb_graph *g, const char *op, const char *inputs, const char *outputs) {
    Onnx__NodeProto *nd = malloc(sizeof *nd);
    onnx__node_proto__init(nd);
    nd->op_type = mb_strdup(op);
    nd->n_input = mb_split(inputs, &nd->input);
    nd->n_output = mb_split(outputs, &nd->output);
    MB_PUSH(g->node, g->n_node, nd);
    return nd;
}

/* A new attribute of the given name and type, appended to the node. */
static inline Onnx__AttributeProto *mb_attr(Onnx__NodeProto *nd, const char *name,
                                            Onnx__AttributeProto__AttributeType type) {
    Onnx__AttributeProto *a = malloc(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = mb_strdup(name);
    a->has_type = 1;
    a->type = type;
    MB_PUSH(nd->attribute, nd->n_attribute, a);
    return a;
}

/* Attach a subgraph attribute (e.g. "then_branch") to a node; takes ownership. */
static inline void mb_graph_attr(Onnx__NodeProto *nd, const char *name, mb_graph *sub) {
    mb_attr(nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH)->g = sub;
}

static inline void mb_int_attr(Onnx__NodeProto *nd, const char *name, int64_t v) {
    Onnx__AttributeProto *a = mb_attr(nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

/* Append a metadata_props entry (key, value) to a list. */
static inline void mb_meta(Onnx__StringStringEntryProto ***arr, size_t *n, const char *key, const char *value) {
    Onnx__StringStringEntryProto *e = malloc(sizeof *e);
    onnx__string_string_entry_proto__init(e);
    e->key = mb_strdup(key);
    e->value = mb_strdup(value);
    MB_PUSH(*arr, *n, e);
}

static inline void mb_node_meta(Onnx__NodeProto *nd, const char *key, const char *value) {
    mb_meta(&nd->metadata_props, &nd->n_metadata_props, key, value);
}

static inline void mb_free_meta(Onnx__StringStringEntryProto **arr, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(arr[i]->key);
        free(arr[i]->value);
        free(arr[i]);
    }
    free(arr);
}

/* An INTS attribute with n values (copied). */
static inline void mb_ints_attr(Onnx__NodeProto *nd, const char *name, size_t n, const int64_t *v) {
    Onnx__AttributeProto *a = mb_attr(nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->ints = malloc((n ? n : 1) * sizeof *a->ints);
    if (n) memcpy(a->ints, v, n * sizeof *v);
    a->n_ints = n;
}

/* Free a builder graph: every pointer in it came from malloc. */
static inline void mb_free_graph(mb_graph *g);

static inline void mb_free_type(Onnx__TypeProto *t) {
    if (!t) return;
    if (t->tensor_type) {
        if (t->tensor_type->shape) {
            for (size_t i = 0; i < t->tensor_type->shape->n_dim; i++) {
                Onnx__TensorShapeProto__Dimension *d = t->tensor_type->shape->dim[i];
                if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) free(d->dim_param);
                free(d);
            }
            free(t->tensor_type->shape->dim);
            free(t->tensor_type->shape);
        }
        free(t->tensor_type);
    }
    free(t);
}

static inline void mb_free_vis(Onnx__ValueInfoProto **v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(v[i]->name);
        mb_free_type(v[i]->type);
        mb_free_meta(v[i]->metadata_props, v[i]->n_metadata_props);
        free(v[i]);
    }
    free(v);
}

static inline void mb_free_graph(mb_graph *g) {
    if (!g) return;
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *nd = g->node[i];
        for (size_t k = 0; k < nd->n_input; k++) free(nd->input[k]);
        for (size_t k = 0; k < nd->n_output; k++) free(nd->output[k]);
        free(nd->input);
        free(nd->output);
        for (size_t k = 0; k < nd->n_attribute; k++) {
            mb_free_graph(nd->attribute[k]->g);
            free(nd->attribute[k]->name);
            free(nd->attribute[k]->ints);
            free(nd->attribute[k]);
        }
        free(nd->attribute);
        mb_free_meta(nd->metadata_props, nd->n_metadata_props);
        if (nd->domain != protobuf_c_empty_string) free(nd->domain);
        if (nd->name != protobuf_c_empty_string) free(nd->name);
        if (nd->op_type != protobuf_c_empty_string) free(nd->op_type);
        free(nd);
    }
    free(g->node);
    for (size_t i = 0; i < g->n_initializer; i++) {
        free(g->initializer[i]->name);
        free(g->initializer[i]->dims);
        free(g->initializer[i]->int64_data);
        mb_free_meta(g->initializer[i]->metadata_props, g->initializer[i]->n_metadata_props);
        free(g->initializer[i]);
    }
    free(g->initializer);
    mb_free_vis(g->input, g->n_input);
    mb_free_vis(g->output, g->n_output);
    mb_free_vis(g->value_info, g->n_value_info);
    mb_free_meta(g->metadata_props, g->n_metadata_props);
    free(g->name);
    free(g);
}

/* Wrap the graph in a ModelProto (ir_version 8, the given default-domain
 * opset), serialize, free the graph. */
static inline uint8_t *mb_pack_opset(mb_graph *g, int64_t opset, size_t *len) {
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
    mb_free_graph(g);
    return bytes;
}

/* mb_pack_opset with opset 17. */
static inline uint8_t *mb_pack(mb_graph *g, size_t *len) { return mb_pack_opset(g, 17, len); }

/* The graph packed (mb_pack) and loaded; NULL when the load fails, the
 * message in *err. Frees the graph and the bytes. */
static inline memplan_model *mb_load(mb_graph *g, memplan_error *err) {
    size_t len;
    uint8_t *bytes = mb_pack(g, &len);
    memplan_model *m = NULL;
    if (memplan_model_load(bytes, len, NULL, &m, err)) m = NULL;
    free(bytes);
    return m;
}

#endif
