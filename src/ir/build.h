/*
 * build.h -- turning a parsed-but-unresolved graph into the IR.
 *
 * The loader (src/onnx) fills mp_pgraph records: names as strings, types and
 * tensors already converted. mp_ir_resolve then gives every name a value id,
 * resolves outer-scope captures of subgraphs, checks that every input is
 * defined once, and orders the nodes topologically.
 */
#ifndef MEMPLAN_IR_BUILD_H
#define MEMPLAN_IR_BUILD_H

#include "memplan/model.h"
#include "util/arena.h"

typedef struct mp_decl {
    const char *name;
    memplan_type type;
    int32_t n_meta; /* ValueInfoProto.metadata_props */
    const memplan_kv *meta;
} mp_decl;

struct mp_pgraph;

typedef struct mp_pnode {
    const char *name, *op_type, *domain, *overload;
    int32_t n_in, n_out;
    const char **in, **out; /* "" for an empty optional slot */
    int32_t n_attrs;
    memplan_attr *attrs;
    int32_t n_sub;
    struct mp_pgraph **sub; /* graphs held by the attributes, in order */
    int32_t n_meta;
    const memplan_kv *meta;
} mp_pnode;

typedef struct mp_pgraph {
    memplan_graph *g; /* the result, allocated up front */
    const char *name;
    int32_t n_inputs, n_outputs, n_vinfo, n_inits, n_nodes;
    mp_decl *inputs, *outputs, *vinfo;
    memplan_tensor *inits;
    mp_pnode *nodes;
    const char *what; /* "graph", "function" for messages */
    int32_t n_meta;   /* GraphProto.metadata_props */
    const memplan_kv *meta;
} mp_pgraph;

struct mp_strmap;

typedef struct mp_ir_ctx {
    mp_arena *arena;
    struct mp_strmap **maps; /* every graph's name index, freed with the model */
    size_t n_maps, cap_maps;
    memplan_error *err;
    int64_t nodes_total; /* across every graph resolved so far */
    int64_t values_total;
    int32_t n_graphs; /* ids handed out so far */
} mp_ir_ctx;

/* A new pgraph whose result graph is allocated (and empty). NULL on OOM. */
mp_pgraph *mp_pgraph_new(mp_arena *arena, const char *name);

/* Resolve a top-level graph (main graph or function body). */
memplan_status mp_ir_resolve(mp_ir_ctx *ctx, mp_pgraph *pg);

/* A new empty name index owned by ctx. */
struct mp_strmap *mp_ir_new_map(mp_ir_ctx *ctx);

/* Free the name indexes (when the model is freed or loading failed). */
void mp_ir_ctx_free(mp_ir_ctx *ctx);

/* A model made from pgraph records instead of bytes (src/onnx/load.c owns
 * the model's memory, so it lives there): build() fills the main graph's
 * records from the model's arena, and the model takes like's header
 * (versions, opsets, metadata: borrowed, so like must outlive it) and no
 * model-local functions. Freed by memplan_model_free. */
typedef memplan_status (*mp_model_builder)(mp_arena *arena, void *ctx, mp_pgraph **main, memplan_error *err);
memplan_status mp_model_build(const memplan_model *like, mp_model_builder build, void *ctx, memplan_model **out,
                              memplan_error *err);

#endif
