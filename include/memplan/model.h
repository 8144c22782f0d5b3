/*
 * memplan/model.h -- loading an ONNX model into the graph IR.
 *
 * The IR is a set of dense arrays with integer ids, read-only after load:
 *
 *   memplan_model
 *     .graph            the main graph
 *       .values[]       every name the graph defines or reads: inputs,
 *                       initializers, node outputs, captured outer names
 *       .nodes[]        in execution (topological) order; node i is at
 *                       position i. node.file_index is its index in the file.
 *         .inputs[]     value ids, -1 for an empty optional input
 *         .subgraphs[]  If/Loop/Scan bodies (child graphs)
 *         .captures[]   values of this graph its subgraphs read
 *     .functions[]      model-local functions, each with a body graph
 *
 * The metadata_props entries of the model, its graphs, nodes, declared values
 * and tensors are kept (memplan_kv, in file order); the value tags' start
 * tags come from them (memplan/inplace.h).
 *
 * All strings are NUL-terminated copies owned by the model. Freeing the model
 * frees everything in one call. Loading never needs weight bytes: tensor data
 * larger than MEMPLAN_TENSOR_DATA_MAX is dropped before parsing, and external
 * data files are never opened.
 */
#ifndef MEMPLAN_MODEL_H
#define MEMPLAN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits. Exceeding one is a MEMPLAN_ELIMIT error naming the limit. */
#define MEMPLAN_MAX_GRAPH_DEPTH 32               /* nested subgraph levels */
#define MEMPLAN_MAX_WIRE_DEPTH 200               /* nested protobuf messages */
#define MEMPLAN_MAX_NODES 10000000               /* nodes in one model, all graphs */
#define MEMPLAN_MAX_CALL_NODES 250000            /* nodes of the copies of called functions */
#define MEMPLAN_MAX_VALUES 20000000              /* values in one model, all graphs */
#define MEMPLAN_MAX_RANK 1024                    /* dims of one tensor */
#define MEMPLAN_MAX_DIM_VALUE (INT64_C(1) << 53) /* largest accepted dim_value */
#define MEMPLAN_MAX_NAME 65536                   /* bytes in one name */
#define MEMPLAN_TENSOR_DATA_MAX 65536            /* tensor data kept in memory, bytes */

/* ONNX TensorProto.DataType numbering. */
typedef enum memplan_dtype {
    MEMPLAN_DTYPE_UNDEFINED = 0,
    MEMPLAN_DTYPE_FLOAT = 1,
    MEMPLAN_DTYPE_UINT8 = 2,
    MEMPLAN_DTYPE_INT8 = 3,
    MEMPLAN_DTYPE_UINT16 = 4,
    MEMPLAN_DTYPE_INT16 = 5,
    MEMPLAN_DTYPE_INT32 = 6,
    MEMPLAN_DTYPE_INT64 = 7,
    MEMPLAN_DTYPE_STRING = 8,
    MEMPLAN_DTYPE_BOOL = 9,
    MEMPLAN_DTYPE_FLOAT16 = 10,
    MEMPLAN_DTYPE_DOUBLE = 11,
    MEMPLAN_DTYPE_UINT32 = 12,
    MEMPLAN_DTYPE_UINT64 = 13,
    MEMPLAN_DTYPE_COMPLEX64 = 14,
    MEMPLAN_DTYPE_COMPLEX128 = 15,
    MEMPLAN_DTYPE_BFLOAT16 = 16,
    MEMPLAN_DTYPE_FLOAT8E4M3FN = 17,
    MEMPLAN_DTYPE_FLOAT8E4M3FNUZ = 18,
    MEMPLAN_DTYPE_FLOAT8E5M2 = 19,
    MEMPLAN_DTYPE_FLOAT8E5M2FNUZ = 20,
    MEMPLAN_DTYPE_UINT4 = 21,
    MEMPLAN_DTYPE_INT4 = 22,
    MEMPLAN_DTYPE_FLOAT4E2M1 = 23,
    MEMPLAN_DTYPE_FLOAT8E8M0 = 24,
    MEMPLAN_DTYPE_UINT2 = 25,
    MEMPLAN_DTYPE_INT2 = 26
} memplan_dtype;

/* Bits per element (0 for unknown types and strings). */
unsigned memplan_dtype_bits(int32_t dtype);
/* Lowercase name as ONNX prints it ("float", "int64", "float8e4m3fn", ...);
 * "undefined" for 0, "dtype(N)" style is not used: unknown codes give NULL. */
const char *memplan_dtype_name(int32_t dtype);

typedef enum memplan_dim_kind {
    MEMPLAN_DIM_UNKNOWN = 0, /* neither dim_value nor dim_param */
    MEMPLAN_DIM_VALUE = 1,
    MEMPLAN_DIM_PARAM = 2
} memplan_dim_kind;

typedef struct memplan_dim {
    memplan_dim_kind kind;
    int64_t value;     /* MEMPLAN_DIM_VALUE */
    const char *param; /* MEMPLAN_DIM_PARAM */
} memplan_dim;

typedef enum memplan_type_kind {
    MEMPLAN_TYPE_NONE = 0, /* no type information */
    MEMPLAN_TYPE_TENSOR,
    MEMPLAN_TYPE_SPARSE_TENSOR,
    MEMPLAN_TYPE_SEQUENCE,
    MEMPLAN_TYPE_MAP,
    MEMPLAN_TYPE_OPTIONAL,
    MEMPLAN_TYPE_OPAQUE
} memplan_type_kind;

/* A type as declared: tensor element type and shape, or the kind only. */
typedef struct memplan_type {
    memplan_type_kind kind;
    int32_t elem_type; /* tensor / sparse tensor element type, 0 unknown */
    int32_t rank;      /* -1 when the shape is not given */
    const memplan_dim *dims;
} memplan_type;

/* One metadata_props entry (StringStringEntryProto). Key and value are the
 * file's text up to its first NUL byte, like every string field of the IR
 * (protobuf-c gives string fields as C strings): any length, never cut to
 * MEMPLAN_MAX_NAME. An absent key or value is "". Entries keep the file's
 * order, and a repeated key is kept as often as it occurs. */
typedef struct memplan_kv {
    const char *key;
    const char *value;
} memplan_kv;

typedef struct memplan_tensor {
    const char *name;
    int32_t elem_type;
    int32_t rank;
    const int64_t *dims;
    bool external; /* data_location EXTERNAL: data lives in another file */
    /* Element data, little-endian, only for numeric tensors whose data was in
     * the file and at most MEMPLAN_TENSOR_DATA_MAX bytes; otherwise NULL. */
    const void *data;
    size_t data_len;
    int32_t n_metadata; /* TensorProto.metadata_props */
    const memplan_kv *metadata;
} memplan_tensor;

/* Value flags: a value may be several of these at once. */
#define MEMPLAN_VALUE_INPUT 0x01u       /* graph input */
#define MEMPLAN_VALUE_INITIALIZER 0x02u /* initializer (weight) */
#define MEMPLAN_VALUE_NODE_OUTPUT 0x04u /* produced by a node of this graph */
#define MEMPLAN_VALUE_OUTPUT 0x08u      /* graph output */
#define MEMPLAN_VALUE_CAPTURE 0x10u     /* an outer-scope name read in a subgraph */
#define MEMPLAN_VALUE_DECLARED 0x20u    /* type comes from the file (value_info, input/output, initializer) */

typedef struct memplan_value {
    const char *name;
    uint32_t flags;
    memplan_type type;
    int32_t producer;                  /* position of the node that outputs it, or -1 */
    int32_t producer_output;           /* output index in that node, or -1 */
    int32_t outer;                     /* CAPTURE: value id in the parent graph, else -1 */
    const memplan_tensor *initializer; /* INITIALIZER: its tensor (its own metadata) */
    /* metadata_props of the ValueInfoProto entries of this graph that declare
     * the value: its graph input, its graph output, then every value_info
     * entry with its name, in that order (each list in file order). Node
     * outputs without a value_info entry and CAPTURE values have none; the
     * entries of a value_info naming no value of the graph are not kept. */
    int32_t n_metadata;
    const memplan_kv *metadata;
} memplan_value;

typedef enum memplan_attr_type {
    MEMPLAN_ATTR_UNDEFINED = 0,
    MEMPLAN_ATTR_FLOAT = 1,
    MEMPLAN_ATTR_INT = 2,
    MEMPLAN_ATTR_STRING = 3,
    MEMPLAN_ATTR_TENSOR = 4,
    MEMPLAN_ATTR_GRAPH = 5,
    MEMPLAN_ATTR_FLOATS = 6,
    MEMPLAN_ATTR_INTS = 7,
    MEMPLAN_ATTR_STRINGS = 8,
    MEMPLAN_ATTR_TENSORS = 9,
    MEMPLAN_ATTR_GRAPHS = 10,
    MEMPLAN_ATTR_SPARSE_TENSOR = 11,
    MEMPLAN_ATTR_SPARSE_TENSORS = 12,
    MEMPLAN_ATTR_TYPE_PROTO = 13,
    MEMPLAN_ATTR_TYPE_PROTOS = 14
} memplan_attr_type;

struct memplan_graph;

typedef struct memplan_attr {
    const char *name;
    memplan_attr_type type;
    const char *ref_attr_name; /* function attribute reference, or NULL */
    float f;
    int64_t i;
    const char *s; /* STRING (NUL added; s_len is exact) */
    size_t s_len;
    size_t n; /* element count of the list forms */
    const float *floats;
    const int64_t *ints;
    const char *const *strings;
    const memplan_tensor *t;                   /* TENSOR */
    const memplan_tensor *tensors;             /* TENSORS, n of them */
    const struct memplan_graph *g;             /* GRAPH */
    const struct memplan_graph *const *graphs; /* GRAPHS, n of them */
} memplan_attr;

typedef struct memplan_node {
    const char *name;
    const char *op_type;
    const char *domain; /* "" for the default domain */
    const char *overload;
    int32_t file_index; /* index in the file's node list */
    int32_t n_inputs;
    const int32_t *inputs; /* value ids; -1 = empty optional slot */
    int32_t n_outputs;
    const int32_t *outputs; /* value ids; -1 = empty optional slot */
    int32_t n_attrs;
    const memplan_attr *attrs;
    int32_t n_subgraphs;
    const struct memplan_graph *const *subgraphs;
    int32_t n_captures;      /* outer values read by the subgraphs, */
    const int32_t *captures; /* deduplicated, in first-read order */
    int32_t n_metadata;      /* NodeProto.metadata_props */
    const memplan_kv *metadata;
    /* The body of the model-local function the node calls (matched by
     * name, domain and overload), this call's own copy: shapes inferred
     * with this call's inputs, planned as a body of the node. NULL when the
     * node calls none. */
    const struct memplan_graph *call;
} memplan_node;

typedef struct memplan_graph {
    const char *name;
    int32_t id;                         /* 0..model.n_graphs-1; the main graph is 0 */
    const struct memplan_graph *parent; /* NULL for the main graph and functions */
    int32_t depth;                      /* 0 for the main graph */
    int32_t n_values;
    const memplan_value *values;
    int32_t n_nodes;
    const memplan_node *nodes; /* topological order */
    bool reordered;            /* the file's order was not topological */
    int32_t n_inputs;
    const int32_t *inputs;
    int32_t n_outputs;
    const int32_t *outputs;
    int32_t n_initializers;
    const int32_t *initializers;
    int32_t n_captures; /* CAPTURE values of this graph */
    const int32_t *captures;
    int32_t n_metadata; /* GraphProto.metadata_props (none for function bodies) */
    const memplan_kv *metadata;
    const void *internal; /* name index; do not touch */
} memplan_graph;

typedef struct memplan_opset {
    const char *domain; /* "" = ai.onnx */
    int64_t version;
} memplan_opset;

typedef struct memplan_function {
    const char *name;
    const char *domain;
    const char *overload;
    int32_t n_attributes;
    const char *const *attributes; /* attribute names, then attribute_proto names */
    const memplan_graph *body;     /* inputs/outputs are untyped */
} memplan_function;

typedef struct memplan_model {
    int64_t ir_version;
    const char *producer_name;
    const char *producer_version;
    const char *domain;
    int64_t model_version;
    const char *doc_string;
    int32_t n_opsets;
    const memplan_opset *opsets;
    int32_t n_metadata; /* ModelProto.metadata_props */
    const memplan_kv *metadata;
    const memplan_graph *graph;
    int32_t n_functions;
    const memplan_function *functions;
    int64_t n_nodes_total; /* main graph and all its subgraphs */
    int32_t n_graphs;      /* graphs with an id: main, subgraphs, function bodies */
    size_t ir_bytes;       /* memory the IR occupies */
    void *internal;        /* owned allocations; do not touch */
} memplan_model;

typedef struct memplan_load_options {
    /* Reserved for later use; zero-initialize. */
    int unused;
} memplan_load_options;

/* Parse bytes (a serialized ModelProto) into a model. The bytes are not kept
 * and may be freed after the call. opts may be NULL. */
memplan_status memplan_model_load(const void *bytes, size_t len, const memplan_load_options *opts, memplan_model **out,
                                  memplan_error *err);

/* A model read through a callback instead of from memory, for files larger
 * than one wants to hold: loading reads the graph's bytes a window (1 MiB) at
 * a time and skips tensor data larger than MEMPLAN_TENSOR_DATA_MAX without
 * reading it, so memory stays O(graph) whatever the file's size. read()
 * copies len bytes at offset into buf (offset + len <= size) and returns
 * true, or false when it cannot (the load then fails with an error). */
typedef struct memplan_reader {
    bool (*read)(void *ctx, uint64_t offset, void *buf, size_t len);
    void *ctx;
    uint64_t size; /* bytes in the serialized ModelProto */
} memplan_reader;

/* The model's bytes without its large tensor data, read through a reader:
 * a serialized ModelProto that loads to the same model (the same checks and
 * errors as loading). *bytes is malloc'ed: free it. */
memplan_status memplan_model_strip(const memplan_reader *reader, void **bytes, size_t *len, memplan_error *err);

/* memplan_model_load through a reader; the same model, the same errors. */
memplan_status memplan_model_load_reader(const memplan_reader *reader, const memplan_load_options *opts,
                                         memplan_model **out, memplan_error *err);

void memplan_model_free(memplan_model *model);

/* Opset version of a domain ("" or "ai.onnx" = default), or -1 when absent. */
int64_t memplan_model_opset(const memplan_model *model, const char *domain);

/* Id of a value by name in one graph (not its parents), or -1. */
int32_t memplan_graph_find(const memplan_graph *graph, const char *name);

/* Element count of a tensor type when every dim is a known value; returns
 * false when a dim is symbolic/unknown, the rank is unknown or the product
 * overflows. Byte size rounds packed sub-byte types up. */
bool memplan_type_static_elems(const memplan_type *type, uint64_t *elems);
bool memplan_type_static_bytes(const memplan_type *type, uint64_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
