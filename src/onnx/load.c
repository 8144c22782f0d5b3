/*
 * load.c -- ONNX bytes -> graph IR. The only file that reads protobuf-c
 * messages: it prunes and checks the wire bytes, unpacks them, converts every
 * message into arena-owned IR records, frees the protobuf-c tree, and hands
 * name resolution and ordering to src/ir/build.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/build.h"
#include "memplan/model.h"
#include "onnx.pb-c.h"
#include "onnx/prune.h"
#include "util/strmap.h"

typedef struct model_internal {
    memplan_model model;
    mp_arena arena;
    mp_ir_ctx ctx;
} model_internal;

typedef struct loader {
    mp_arena *arena;
    memplan_error *err;
    int depth; /* graph nesting while converting */
} loader;

static memplan_status oom(loader *L) {
    return memplan_error_set(L->err, MEMPLAN_ENOMEM, "out of memory while loading the model");
}

static const char *str(loader *L, const char *s) {
    if (!s) return "";
    size_t n = strlen(s);
    if (n > MEMPLAN_MAX_NAME) n = MEMPLAN_MAX_NAME; /* names are checked by check_name */
    return mp_arena_strndup(L->arena, s, n);
}

/* A string field whole (no MEMPLAN_MAX_NAME cut): metadata text. */
static const char *text(loader *L, const char *s) { return s ? mp_arena_strndup(L->arena, s, strlen(s)) : ""; }

static memplan_status check_name(loader *L, const char *s, const char *what) {
    if (s && strlen(s) > MEMPLAN_MAX_NAME)
        return memplan_error_set(L->err, MEMPLAN_ELIMIT, "a %s name is longer than %d bytes", what, MEMPLAN_MAX_NAME);
    return MEMPLAN_OK;
}

static memplan_status check_dim(loader *L, int64_t d, const char *owner, size_t axis) {
    if (d < 0 || d > MEMPLAN_MAX_DIM_VALUE)
        return memplan_error_set(L->err, MEMPLAN_EINPUT, "'%s': dim %zu is %lld, outside [0, 2^53]", owner, axis,
                                 (long long)d);
    return MEMPLAN_OK;
}

/* metadata_props entries as memplan_kv records, in order, repeats kept. */
static memplan_status convert_meta(loader *L, Onnx__StringStringEntryProto *const *e, size_t n, int32_t *count,
                                   const memplan_kv **out) {
    *count = 0;
    *out = NULL;
    if (!n) return MEMPLAN_OK;
    if (n > INT32_MAX)
        return memplan_error_set(L->err, MEMPLAN_ELIMIT, "a message has more than %d metadata_props entries",
                                 INT32_MAX);
    memplan_kv *kv = mp_arena_array(L->arena, n, sizeof *kv);
    if (!kv) return oom(L);
    for (size_t i = 0; i < n; i++) {
        kv[i].key = text(L, e[i]->key);
        kv[i].value = text(L, e[i]->value);
        if (!kv[i].key || !kv[i].value) return oom(L);
    }
    *count = (int32_t)n;
    *out = kv;
    return MEMPLAN_OK;
}

/* ---- types ------------------------------------------------------------ */

static memplan_status convert_shape(loader *L, const Onnx__TensorShapeProto *sp, const char *owner, memplan_type *t) {
    if (!sp) {
        t->rank = -1;
        return MEMPLAN_OK;
    }
    if (sp->n_dim > MEMPLAN_MAX_RANK)
        return memplan_error_set(L->err, MEMPLAN_ELIMIT, "'%s': rank %zu exceeds %d", owner, sp->n_dim,
                                 MEMPLAN_MAX_RANK);
    memplan_dim *dims = mp_arena_array(L->arena, sp->n_dim, sizeof *dims);
    if (sp->n_dim && !dims) return oom(L);
    for (size_t i = 0; i < sp->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = sp->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            memplan_status st = check_dim(L, d->dim_value, owner, i);
            if (st) return st;
            dims[i].kind = MEMPLAN_DIM_VALUE;
            dims[i].value = d->dim_value;
        } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param &&
                   d->dim_param[0]) {
            memplan_status st = check_name(L, d->dim_param, "dim");
            if (st) return st;
            dims[i].kind = MEMPLAN_DIM_PARAM;
            dims[i].param = str(L, d->dim_param);
            if (!dims[i].param) return oom(L);
        } else {
            dims[i].kind = MEMPLAN_DIM_UNKNOWN;
        }
    }
    t->rank = (int32_t)sp->n_dim;
    t->dims = dims;
    return MEMPLAN_OK;
}

static memplan_status convert_type(loader *L, const Onnx__TypeProto *tp, const char *owner, memplan_type *t) {
    memset(t, 0, sizeof *t);
    t->rank = -1;
    if (!tp) return MEMPLAN_OK;
    switch (tp->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        t->kind = MEMPLAN_TYPE_TENSOR;
        t->elem_type = tp->tensor_type->elem_type;
        return convert_shape(L, tp->tensor_type->shape, owner, t);
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
        t->kind = MEMPLAN_TYPE_SPARSE_TENSOR;
        t->elem_type = tp->sparse_tensor_type->elem_type;
        return convert_shape(L, tp->sparse_tensor_type->shape, owner, t);
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: t->kind = MEMPLAN_TYPE_SEQUENCE; break;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: t->kind = MEMPLAN_TYPE_MAP; break;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: t->kind = MEMPLAN_TYPE_OPTIONAL; break;
    case ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE: t->kind = MEMPLAN_TYPE_OPAQUE; break;
    default: break;
    }
    return MEMPLAN_OK;
}

static memplan_status convert_decls(loader *L, Onnx__ValueInfoProto **vi, size_t n, mp_decl **out) {
    *out = mp_arena_array(L->arena, n, sizeof **out);
    if (n && !*out) return oom(L);
    for (size_t i = 0; i < n; i++) {
        memplan_status st = check_name(L, vi[i]->name, "value");
        if (st) return st;
        (*out)[i].name = str(L, vi[i]->name);
        if (!(*out)[i].name) return oom(L);
        st = convert_type(L, vi[i]->type, (*out)[i].name, &(*out)[i].type);
        if (!st)
            st = convert_meta(L, vi[i]->metadata_props, vi[i]->n_metadata_props, &(*out)[i].n_meta, &(*out)[i].meta);
        if (st) return st;
    }
    return MEMPLAN_OK;
}

/* ---- tensors ---------------------------------------------------------- */

/* Element data as little-endian bytes, for small numeric tensors. */
static void convert_tensor_data(loader *L, const Onnx__TensorProto *tp, memplan_tensor *t) {
    unsigned bits = memplan_dtype_bits(t->elem_type);
    uint64_t elems = 1;
    for (int32_t i = 0; i < t->rank; i++) {
        if (t->dims[i] && elems > MEMPLAN_TENSOR_DATA_MAX / (uint64_t)t->dims[i]) return;
        elems *= (uint64_t)t->dims[i];
    }
    if (bits == 0 || t->external || elems * bits > (uint64_t)MEMPLAN_TENSOR_DATA_MAX * 8) return;
    size_t bytes = (size_t)((elems * bits + 7) / 8);
    if (tp->has_raw_data) {
        if (tp->raw_data.len != bytes) return;
        t->data = mp_arena_strndup(L->arena, (const char *)tp->raw_data.data, bytes);
        t->data_len = t->data ? bytes : 0;
        return;
    }
    if (bits % 8) return; /* packed sub-byte types only from raw_data */
    size_t width = bits / 8;
    const void *src = NULL;
    size_t count = 0, src_width = 0;
    switch (t->elem_type) {
    case MEMPLAN_DTYPE_FLOAT:
        src = tp->float_data;
        count = tp->n_float_data;
        src_width = 4;
        break;
    case MEMPLAN_DTYPE_DOUBLE:
        src = tp->double_data;
        count = tp->n_double_data;
        src_width = 8;
        break;
    case MEMPLAN_DTYPE_INT64:
        src = tp->int64_data;
        count = tp->n_int64_data;
        src_width = 8;
        break;
    case MEMPLAN_DTYPE_UINT32:
    case MEMPLAN_DTYPE_UINT64:
        src = tp->uint64_data;
        count = tp->n_uint64_data;
        src_width = 8;
        break;
    case MEMPLAN_DTYPE_STRING:
    case MEMPLAN_DTYPE_COMPLEX64:
    case MEMPLAN_DTYPE_COMPLEX128: return;
    default:
        src = tp->int32_data;
        count = tp->n_int32_data;
        src_width = 4;
        break;
    }
    if (count != elems) return;
    unsigned char *dst = mp_arena_alloc(L->arena, bytes);
    if (!dst) return;
    for (size_t i = 0; i < count; i++) /* little-endian hosts: truncate each element */
        memcpy(dst + i * width, (const unsigned char *)src + i * src_width, width < src_width ? width : src_width);
    t->data = dst;
    t->data_len = bytes;
}

static memplan_status convert_tensor(loader *L, const Onnx__TensorProto *tp, memplan_tensor *t) {
    memplan_status st = check_name(L, tp->name, "tensor");
    if (st) return st;
    t->name = str(L, tp->name);
    if (!t->name) return oom(L);
    t->elem_type = tp->data_type;
    if (tp->n_dims > MEMPLAN_MAX_RANK)
        return memplan_error_set(L->err, MEMPLAN_ELIMIT, "tensor '%s': rank %zu exceeds %d", t->name, tp->n_dims,
                                 MEMPLAN_MAX_RANK);
    int64_t *dims = mp_arena_array(L->arena, tp->n_dims, sizeof *dims);
    if (tp->n_dims && !dims) return oom(L);
    for (size_t i = 0; i < tp->n_dims; i++) {
        st = check_dim(L, tp->dims[i], t->name, i);
        if (st) return st;
        dims[i] = tp->dims[i];
    }
    t->rank = (int32_t)tp->n_dims;
    t->dims = dims;
    t->external = tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    convert_tensor_data(L, tp, t);
    return convert_meta(L, tp->metadata_props, tp->n_metadata_props, &t->n_metadata, &t->metadata);
}

/* A sparse initializer as the dense tensor a runtime makes of it at load:
 * its values' name and element type, its own dims, no element data. */
static memplan_status convert_sparse(loader *L, const Onnx__SparseTensorProto *sp, memplan_tensor *t) {
    if (!sp->values)
        return memplan_error_set(L->err, MEMPLAN_EINPUT, "a sparse initializer has no values tensor (so no name)");
    memplan_status st = check_name(L, sp->values->name, "sparse tensor");
    if (st) return st;
    t->name = str(L, sp->values->name);
    if (!t->name) return oom(L);
    t->elem_type = sp->values->data_type;
    if (sp->n_dims > MEMPLAN_MAX_RANK)
        return memplan_error_set(L->err, MEMPLAN_ELIMIT, "sparse tensor '%s': rank %zu exceeds %d", t->name, sp->n_dims,
                                 MEMPLAN_MAX_RANK);
    int64_t *dims = mp_arena_array(L->arena, sp->n_dims, sizeof *dims);
    if (sp->n_dims && !dims) return oom(L);
    for (size_t i = 0; i < sp->n_dims; i++) {
        if ((st = check_dim(L, sp->dims[i], t->name, i))) return st;
        dims[i] = sp->dims[i];
    }
    t->rank = (int32_t)sp->n_dims;
    t->dims = dims;
    return convert_meta(L, sp->values->metadata_props, sp->values->n_metadata_props, &t->n_metadata, &t->metadata);
}

/* ---- graphs ----------------------------------------------------------- */

static memplan_status convert_graph(loader *L, const Onnx__GraphProto *gp, mp_pgraph **out);

static memplan_status convert_attr(loader *L, const Onnx__AttributeProto *ap, memplan_attr *a, mp_pgraph **subs,
                                   int32_t *n_sub) {
    memplan_status st = check_name(L, ap->name, "attribute");
    if (st) return st;
    a->name = str(L, ap->name);
    a->ref_attr_name = ap->ref_attr_name ? str(L, ap->ref_attr_name) : NULL;
    if (!a->name) return oom(L);
    a->type = ap->has_type ? (memplan_attr_type)ap->type : MEMPLAN_ATTR_UNDEFINED;
    if (a->type == MEMPLAN_ATTR_UNDEFINED) { /* IR version 1: infer from the field present */
        if (ap->g) a->type = MEMPLAN_ATTR_GRAPH;
        else if (ap->t)
            a->type = MEMPLAN_ATTR_TENSOR;
        else if (ap->has_s)
            a->type = MEMPLAN_ATTR_STRING;
        else if (ap->has_i)
            a->type = MEMPLAN_ATTR_INT;
        else if (ap->has_f)
            a->type = MEMPLAN_ATTR_FLOAT;
        else if (ap->n_graphs)
            a->type = MEMPLAN_ATTR_GRAPHS;
        else if (ap->n_tensors)
            a->type = MEMPLAN_ATTR_TENSORS;
        else if (ap->n_strings)
            a->type = MEMPLAN_ATTR_STRINGS;
        else if (ap->n_ints)
            a->type = MEMPLAN_ATTR_INTS;
        else if (ap->n_floats)
            a->type = MEMPLAN_ATTR_FLOATS;
    }
    a->f = ap->f;
    a->i = ap->i;
    if (ap->has_s) {
        a->s = mp_arena_strndup(L->arena, (const char *)ap->s.data, ap->s.len);
        a->s_len = ap->s.len;
        if (!a->s) return oom(L);
    }
    switch (a->type) {
    case MEMPLAN_ATTR_FLOATS:
        a->n = ap->n_floats;
        a->floats = ap->n_floats ? mp_arena_array(L->arena, ap->n_floats, sizeof(float)) : NULL;
        if (a->n && !a->floats) return oom(L);
        if (a->n) memcpy((float *)a->floats, ap->floats, a->n * sizeof(float));
        break;
    case MEMPLAN_ATTR_INTS:
        a->n = ap->n_ints;
        a->ints = ap->n_ints ? mp_arena_array(L->arena, ap->n_ints, sizeof(int64_t)) : NULL;
        if (a->n && !a->ints) return oom(L);
        if (a->n) memcpy((int64_t *)a->ints, ap->ints, a->n * sizeof(int64_t));
        break;
    case MEMPLAN_ATTR_STRINGS: {
        a->n = ap->n_strings;
        const char **ss = mp_arena_array(L->arena, a->n, sizeof *ss);
        if (a->n && !ss) return oom(L);
        for (size_t i = 0; i < a->n; i++) {
            ss[i] = mp_arena_strndup(L->arena, (const char *)ap->strings[i].data, ap->strings[i].len);
            if (!ss[i]) return oom(L);
        }
        a->strings = ss;
        break;
    }
    case MEMPLAN_ATTR_TENSOR:
        if (ap->t) {
            memplan_tensor *t = mp_arena_alloc(L->arena, sizeof *t);
            if (!t) return oom(L);
            st = convert_tensor(L, ap->t, t);
            if (st) return st;
            a->t = t;
        }
        break;
    case MEMPLAN_ATTR_TENSORS: {
        a->n = ap->n_tensors;
        memplan_tensor *ts = mp_arena_array(L->arena, a->n, sizeof *ts);
        if (a->n && !ts) return oom(L);
        for (size_t i = 0; i < a->n; i++) {
            st = convert_tensor(L, ap->tensors[i], &ts[i]);
            if (st) return st;
        }
        a->tensors = ts;
        break;
    }
    case MEMPLAN_ATTR_GRAPH:
        if (ap->g) {
            st = convert_graph(L, ap->g, &subs[*n_sub]);
            if (st) return st;
            a->g = subs[(*n_sub)++]->g;
        }
        break;
    case MEMPLAN_ATTR_GRAPHS: {
        a->n = ap->n_graphs;
        const memplan_graph **gs = mp_arena_array(L->arena, a->n, sizeof *gs);
        if (a->n && !gs) return oom(L);
        for (size_t i = 0; i < a->n; i++) {
            st = convert_graph(L, ap->graphs[i], &subs[*n_sub]);
            if (st) return st;
            gs[i] = subs[(*n_sub)++]->g;
        }
        a->graphs = gs;
        break;
    }
    default: break;
    }
    return MEMPLAN_OK;
}

static memplan_status convert_names(loader *L, char **names, size_t n, const char ***out) {
    *out = mp_arena_array(L->arena, n, sizeof **out);
    if (n && !*out) return oom(L);
    for (size_t i = 0; i < n; i++) {
        memplan_status st = check_name(L, names[i], "value");
        if (st) return st;
        (*out)[i] = str(L, names[i]);
        if (!(*out)[i]) return oom(L);
    }
    return MEMPLAN_OK;
}

static memplan_status convert_node(loader *L, const Onnx__NodeProto *np, mp_pnode *n) {
    memplan_status st;
    if ((st = check_name(L, np->name, "node")) || (st = check_name(L, np->op_type, "op")) ||
        (st = check_name(L, np->domain, "domain")))
        return st;
    n->name = str(L, np->name);
    n->op_type = str(L, np->op_type);
    n->domain = str(L, np->domain);
    n->overload = str(L, np->overload);
    if (!n->name || !n->op_type || !n->domain || !n->overload) return oom(L);
    if (np->n_input > INT32_MAX / 2 || np->n_output > INT32_MAX / 2 || np->n_attribute > INT32_MAX / 2)
        return memplan_error_set(L->err, MEMPLAN_ELIMIT, "node '%s' has too many inputs, outputs or attributes",
                                 n->name);
    if ((st = convert_names(L, np->input, np->n_input, &n->in))) return st;
    if ((st = convert_names(L, np->output, np->n_output, &n->out))) return st;
    n->n_in = (int32_t)np->n_input;
    n->n_out = (int32_t)np->n_output;
    size_t graphs = 0;
    for (size_t i = 0; i < np->n_attribute; i++) graphs += (np->attribute[i]->g ? 1 : 0) + np->attribute[i]->n_graphs;
    n->attrs = mp_arena_array(L->arena, np->n_attribute, sizeof *n->attrs);
    n->sub = mp_arena_array(L->arena, graphs, sizeof *n->sub);
    if ((np->n_attribute && !n->attrs) || (graphs && !n->sub)) return oom(L);
    for (size_t i = 0; i < np->n_attribute; i++) {
        st = convert_attr(L, np->attribute[i], &n->attrs[i], n->sub, &n->n_sub);
        if (st) return st;
    }
    n->n_attrs = (int32_t)np->n_attribute;
    return convert_meta(L, np->metadata_props, np->n_metadata_props, &n->n_meta, &n->meta);
}

static memplan_status convert_graph(loader *L, const Onnx__GraphProto *gp, mp_pgraph **out) {
    if (L->depth >= MEMPLAN_MAX_GRAPH_DEPTH)
        return memplan_error_set(L->err, MEMPLAN_ELIMIT, "subgraphs nested deeper than %d levels",
                                 MEMPLAN_MAX_GRAPH_DEPTH);
    memplan_status st = check_name(L, gp->name, "graph");
    if (st) return st;
    mp_pgraph *pg = mp_pgraph_new(L->arena, str(L, gp->name));
    if (!pg) return oom(L);
    size_t n_inits = gp->n_initializer + gp->n_sparse_initializer;
    if (gp->n_node > MEMPLAN_MAX_NODES || n_inits > MEMPLAN_MAX_VALUES)
        return memplan_error_set(L->err, MEMPLAN_ELIMIT, "graph '%s' has more than %d nodes or values", pg->name,
                                 MEMPLAN_MAX_NODES);
    L->depth++;
    if ((st = convert_decls(L, gp->input, gp->n_input, &pg->inputs)) ||
        (st = convert_decls(L, gp->output, gp->n_output, &pg->outputs)) ||
        (st = convert_decls(L, gp->value_info, gp->n_value_info, &pg->vinfo))) {
        L->depth--;
        return st;
    }
    pg->n_inputs = (int32_t)gp->n_input;
    pg->n_outputs = (int32_t)gp->n_output;
    pg->n_vinfo = (int32_t)gp->n_value_info;
    st = convert_meta(L, gp->metadata_props, gp->n_metadata_props, &pg->n_meta, &pg->meta);
    pg->inits = mp_arena_array(L->arena, n_inits, sizeof *pg->inits);
    pg->nodes = mp_arena_array(L->arena, gp->n_node, sizeof *pg->nodes);
    if (!st && ((n_inits && !pg->inits) || (gp->n_node && !pg->nodes))) st = oom(L);
    for (size_t i = 0; !st && i < gp->n_initializer; i++) st = convert_tensor(L, gp->initializer[i], &pg->inits[i]);
    for (size_t i = 0; !st && i < gp->n_sparse_initializer; i++)
        st = convert_sparse(L, gp->sparse_initializer[i], &pg->inits[gp->n_initializer + i]);
    pg->n_inits = (int32_t)n_inits;
    for (size_t i = 0; !st && i < gp->n_node; i++) st = convert_node(L, gp->node[i], &pg->nodes[i]);
    pg->n_nodes = (int32_t)gp->n_node;
    L->depth--;
    *out = pg;
    return st;
}

/* The body of FunctionProto fp as a graph of its own (named after it). */
static memplan_status function_body(loader *L, mp_ir_ctx *ctx, const Onnx__FunctionProto *fp, const char *name,
                                    mp_pgraph **out);

static memplan_status convert_function(loader *L, mp_ir_ctx *ctx, const Onnx__FunctionProto *fp, memplan_function *f) {
    memplan_status st;
    f->name = str(L, fp->name);
    f->domain = str(L, fp->domain);
    f->overload = str(L, fp->overload);
    if (!f->name || !f->domain || !f->overload) return oom(L);
    size_t na = fp->n_attribute + fp->n_attribute_proto;
    const char **attrs = mp_arena_array(L->arena, na, sizeof *attrs);
    if (na && !attrs) return oom(L);
    for (size_t i = 0; i < fp->n_attribute; i++)
        if (!(attrs[i] = str(L, fp->attribute[i]))) return oom(L);
    for (size_t i = 0; i < fp->n_attribute_proto; i++)
        if (!(attrs[fp->n_attribute + i] = str(L, fp->attribute_proto[i]->name))) return oom(L);
    f->attributes = attrs;
    f->n_attributes = (int32_t)na;
    /* Functions are counted apart from the main graph's nodes (each call's
     * copy, link_calls, counts). */
    int64_t before = ctx->nodes_total;
    mp_pgraph *pg;
    st = function_body(L, ctx, fp, f->name, &pg);
    ctx->nodes_total = before;
    if (st) return st; /* resolve names the function already ("function 'f': ...") */
    f->body = pg->g;
    return MEMPLAN_OK;
}

static memplan_status function_body(loader *L, mp_ir_ctx *ctx, const Onnx__FunctionProto *fp, const char *name,
                                    mp_pgraph **out) {
    memplan_status st;
    mp_pgraph *pg = mp_pgraph_new(L->arena, name);
    if (!pg) return oom(L);
    pg->what = "function";
    const char **in, **outn;
    if ((st = convert_names(L, fp->input, fp->n_input, &in)) ||
        (st = convert_names(L, fp->output, fp->n_output, &outn)))
        return st;
    pg->inputs = mp_arena_array(L->arena, fp->n_input, sizeof *pg->inputs);
    pg->outputs = mp_arena_array(L->arena, fp->n_output, sizeof *pg->outputs);
    pg->nodes = mp_arena_array(L->arena, fp->n_node, sizeof *pg->nodes);
    if ((fp->n_input && !pg->inputs) || (fp->n_output && !pg->outputs) || (fp->n_node && !pg->nodes)) return oom(L);
    for (size_t i = 0; i < fp->n_input; i++) {
        pg->inputs[i].name = in[i];
        pg->inputs[i].type.rank = -1;
    }
    for (size_t i = 0; i < fp->n_output; i++) {
        pg->outputs[i].name = outn[i];
        pg->outputs[i].type.rank = -1;
    }
    pg->n_inputs = (int32_t)fp->n_input;
    pg->n_outputs = (int32_t)fp->n_output;
    if ((st = convert_decls(L, fp->value_info, fp->n_value_info, &pg->vinfo))) return st;
    pg->n_vinfo = (int32_t)fp->n_value_info;
    for (size_t i = 0; i < fp->n_node; i++)
        if ((st = convert_node(L, fp->node[i], &pg->nodes[i]))) return st;
    pg->n_nodes = (int32_t)fp->n_node;
    *out = pg;
    return mp_ir_resolve(ctx, pg);
}

/* The functions by "domain\x1Fname\x1Foverload" ("" and "ai.onnx" alike),
 * so a model of many calls and functions links in linear time. */
typedef struct calls {
    const Onnx__ModelProto *mp;
    mp_strmap by_key;   /* -> index into mp->functions, the first of a key */
    int64_t first_node; /* ctx->nodes_total before the copies */
    char *buf;          /* a node's key while it is looked up */
    size_t cap;
} calls;

/* The key of (domain, name, overload): in the arena when stored (C NULL),
 * else in C->buf; NULL when out of memory. */
static char *call_key(loader *L, calls *C, const char *domain, const char *name, const char *overload) {
    domain = !domain || strcmp(domain, "ai.onnx") == 0 ? "" : domain;
    size_t len = mp_strmap_key3(NULL, domain, name, overload);
    char *k;
    if (!C) k = mp_arena_alloc(L->arena, len);
    else if (len <= C->cap)
        k = C->buf;
    else if ((k = realloc(C->buf, len))) {
        C->buf = k;
        C->cap = len;
    }
    if (k) mp_strmap_key3(k, domain, name, overload);
    return k;
}

static memplan_status index_calls(loader *L, calls *C) {
    for (size_t i = 0; i < C->mp->n_functions; i++) {
        const Onnx__FunctionProto *fp = C->mp->functions[i];
        char *k = call_key(L, NULL, fp->domain, fp->name, fp->overload);
        if (!k) return oom(L);
        if (mp_strmap_get(&C->by_key, k) < 0 && !mp_strmap_put(&C->by_key, k, (int32_t)i)) return oom(L);
    }
    return MEMPLAN_OK;
}

/* The model-local function node n calls, or NULL (*st set when out of memory). */
static const Onnx__FunctionProto *called(loader *L, calls *C, const memplan_node *n, memplan_status *st) {
    char *k = call_key(L, C, n->domain, n->op_type, n->overload);
    if (!k) {
        *st = oom(L);
        return NULL;
    }
    int32_t i = mp_strmap_get(&C->by_key, k);
    return i >= 0 ? C->mp->functions[i] : NULL;
}

/* Give every node of g (and of its bodies) that calls a model-local
 * function a copy of the function's body of its own (memplan_node.call),
 * and so on inside the copies: `depth` calls deep. A function calling
 * itself, or calls nested or fanned out past the limits (each call a copy:
 * a function calling the next twice, 20 deep, is a million copies), is an
 * error rather than a plan that leaves their memory out. */
static memplan_status link_calls(loader *L, mp_ir_ctx *ctx, calls *C, const memplan_graph *g, int32_t depth) {
    memplan_status st = MEMPLAN_OK;
    for (int32_t i = 0; i < g->n_nodes && !st; i++) {
        memplan_node *n = (memplan_node *)&g->nodes[i]; /* the loader's own arena */
        for (int32_t k = 0; k < n->n_subgraphs && !st; k++) st = link_calls(L, ctx, C, n->subgraphs[k], depth);
        const Onnx__FunctionProto *fp = st ? NULL : called(L, C, n, &st);
        if (!fp) continue;
        if (depth >= MEMPLAN_MAX_GRAPH_DEPTH)
            return memplan_error_set(L->err, MEMPLAN_ELIMIT,
                                     "model-local functions call each other deeper than %d levels ('%s' calls '%s')",
                                     MEMPLAN_MAX_GRAPH_DEPTH, g->name, n->op_type);
        if (ctx->nodes_total - C->first_node + (int64_t)fp->n_node > MEMPLAN_MAX_CALL_NODES)
            return memplan_error_set(
                L->err, MEMPLAN_ELIMIT,
                "the calls of model-local functions expand to more than %d nodes (at a call of '%s')",
                MEMPLAN_MAX_CALL_NODES, n->op_type);
        mp_pgraph *pg;
        if ((st = function_body(L, ctx, fp, n->op_type, &pg))) return st;
        n->call = pg->g;
        st = link_calls(L, ctx, C, n->call, depth + 1);
    }
    return st;
}

static memplan_status convert_model(loader *L, model_internal *mi, const Onnx__ModelProto *mp) {
    memplan_model *m = &mi->model;
    memplan_status st;
    m->ir_version = mp->ir_version;
    m->producer_name = str(L, mp->producer_name);
    m->producer_version = str(L, mp->producer_version);
    m->domain = str(L, mp->domain);
    m->model_version = mp->model_version;
    m->doc_string = str(L, mp->doc_string);
    if (!m->producer_name || !m->producer_version || !m->domain || !m->doc_string) return oom(L);
    memplan_opset *ops = mp_arena_array(L->arena, mp->n_opset_import, sizeof *ops);
    if (mp->n_opset_import && !ops) return oom(L);
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        ops[i].domain = str(L, mp->opset_import[i]->domain);
        ops[i].version = mp->opset_import[i]->version;
        if (!ops[i].domain) return oom(L);
    }
    m->opsets = ops;
    m->n_opsets = (int32_t)mp->n_opset_import;
    if ((st = convert_meta(L, mp->metadata_props, mp->n_metadata_props, &m->n_metadata, &m->metadata))) return st;

    mp_pgraph *pg;
    if ((st = convert_graph(L, mp->graph, &pg))) return st;
    if ((st = mp_ir_resolve(&mi->ctx, pg))) return st;
    m->graph = pg->g;
    m->n_nodes_total = mi->ctx.nodes_total;

    memplan_function *fs = mp_arena_array(L->arena, mp->n_functions, sizeof *fs);
    if (mp->n_functions && !fs) return oom(L);
    for (size_t i = 0; i < mp->n_functions; i++)
        if ((st = convert_function(L, &mi->ctx, mp->functions[i], &fs[i]))) return st;
    m->functions = fs;
    m->n_functions = (int32_t)mp->n_functions;
    if (mp->n_functions) {
        calls C = {mp, {0}, mi->ctx.nodes_total, NULL, 0};
        mp_strmap_init(&C.by_key);
        st = index_calls(L, &C);
        if (!st) st = link_calls(L, &mi->ctx, &C, m->graph, 0);
        mp_strmap_free(&C.by_key);
        free(C.buf);
        if (st) return st;
    }
    m->n_graphs = mi->ctx.n_graphs;
    return MEMPLAN_OK;
}

/* protobuf-c's allocator: the decoded ModelProto lives only until it is
 * converted, so small blocks (a message, a string, a short array) come from
 * a bump arena, and freeing one does nothing; large blocks (long arrays,
 * which protobuf-c may free and replace while merging, and its scratch)
 * are malloc'ed, kept in a list and freed when freed. The whole message is
 * then dropped in one call, not freed a field at a time. Every block has a
 * 16-byte header (protobuf-c needs no more alignment) telling which kind it
 * is. A failed allocation is noted: the bytes are already checked by prune,
 * so a NULL from unpack after one is out of memory. */
#define PB_SMALL 1024 /* bytes: larger blocks are malloc'ed */

#define PB_HEADER 16     /* before a small block: 8 bytes, then its kind word (0) */
#define PB_BIG_HEADER 32 /* before a large block: its list links, then its kind word (1) */

typedef struct pb_big {
    struct pb_big *prev, *next;
} pb_big;

typedef struct pb_heap {
    mp_arena small;
    pb_big *big;
    bool oom;
} pb_heap;

static void *pb_alloc(void *data, size_t size) {
    pb_heap *h = data;
    if (size <= PB_SMALL) {
        char *p = mp_arena_alloc(&h->small, size + PB_HEADER); /* zeroed: kind 0 */
        if (!p) h->oom = true;
        return p ? p + PB_HEADER : NULL;
    }
    char *raw = size > SIZE_MAX - PB_BIG_HEADER ? NULL : malloc(PB_BIG_HEADER + size);
    if (!raw) {
        h->oom = true;
        return NULL;
    }
    pb_big *b = (pb_big *)(void *)raw;
    uint64_t one = 1;
    memcpy(raw + PB_BIG_HEADER - sizeof one, &one, sizeof one);
    b->prev = NULL;
    b->next = h->big;
    if (h->big) h->big->prev = b;
    h->big = b;
    return raw + PB_BIG_HEADER;
}

static void pb_free(void *data, void *p) {
    pb_heap *h = data;
    uint64_t kind = 0;
    if (p) memcpy(&kind, (char *)p - sizeof kind, sizeof kind);
    if (kind == 0) return; /* small (or NULL): the arena holds it */
    pb_big *b = (pb_big *)(void *)((char *)p - PB_BIG_HEADER);
    if (b->prev) b->prev->next = b->next;
    else
        h->big = b->next;
    if (b->next) b->next->prev = b->prev;
    free(b);
}

/* Drop everything unpack allocated. */
static void pb_heap_free(pb_heap *h) {
    while (h->big) {
        pb_big *next = h->big->next;
        free(h->big);
        h->big = next;
    }
    mp_arena_free(&h->small);
}

/* Decode pruned ModelProto bytes into the IR; frees them once decoded (so
 * they and the IR are never both held). */
static memplan_status load_pruned(mp_buf *pruned, memplan_model **out, memplan_error *err) {
    pb_heap heap = {.big = NULL, .oom = false};
    mp_arena_init(&heap.small);
    ProtobufCAllocator pb_allocator = {pb_alloc, pb_free, &heap};
    Onnx__ModelProto *mp = onnx__model_proto__unpack(&pb_allocator, pruned->len, (const uint8_t *)pruned->data);
    size_t pruned_len = pruned->len;
    mp_buf_free(pruned);
    if (!mp) pb_heap_free(&heap); /* what a failed unpack left in the arena */
    if (!mp && heap.oom)
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while decoding the model (%zu bytes of protobuf)",
                                 pruned_len);
    if (!mp)
        return memplan_error_set(err, MEMPLAN_EINPUT, "protobuf-c could not decode the bytes as an ONNX ModelProto");
    if (!mp->graph) {
        pb_heap_free(&heap);
        return memplan_error_set(err, MEMPLAN_EINPUT, "not an ONNX model: it has no graph");
    }

    model_internal *mi = calloc(1, sizeof *mi);
    if (!mi) {
        pb_heap_free(&heap);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    mp_arena_init(&mi->arena);
    mi->ctx.arena = &mi->arena;
    mi->ctx.err = err;
    mi->model.internal = mi;
    loader L = {&mi->arena, err, 0};
    memplan_status st = convert_model(&L, mi, mp);
    pb_heap_free(&heap);
    if (st) {
        memplan_model_free(&mi->model);
        return st;
    }
    mi->model.ir_bytes = mi->arena.used_total;
    mi->ctx.err = NULL;
    *out = &mi->model;
    return MEMPLAN_OK;
}

memplan_status memplan_model_load(const void *bytes, size_t len, const memplan_load_options *opts, memplan_model **out,
                                  memplan_error *err) {
    (void)opts;
    *out = NULL;
    if (!bytes && len) return memplan_error_set(err, MEMPLAN_EUSAGE, "no bytes given");
    if (len == 0) return memplan_error_set(err, MEMPLAN_EINPUT, "the file is empty: not an ONNX model");
    mp_buf pruned;
    mp_buf_init(&pruned);
    memplan_status st = mp_prune_model(bytes, len, &pruned, NULL, err);
    if (st) {
        mp_buf_free(&pruned);
        return st;
    }
    return load_pruned(&pruned, out, err);
}

static memplan_status strip(const memplan_reader *reader, mp_buf *pruned, memplan_error *err) {
    mp_buf_init(pruned);
    if (!reader || !reader->read) return memplan_error_set(err, MEMPLAN_EUSAGE, "no reader given");
    if (reader->size == 0) return memplan_error_set(err, MEMPLAN_EINPUT, "the file is empty: not an ONNX model");
    memplan_status st = mp_strip_reader(reader, pruned, err);
    if (st) mp_buf_free(pruned);
    return st;
}

memplan_status memplan_model_strip(const memplan_reader *reader, void **bytes, size_t *len, memplan_error *err) {
    *bytes = NULL;
    *len = 0;
    mp_buf pruned;
    memplan_status st = strip(reader, &pruned, err);
    if (st) return st;
    *len = pruned.len;
    *bytes = pruned.data ? (void *)pruned.data : malloc(1); /* an empty model still owns a block */
    if (!*bytes) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    return MEMPLAN_OK;
}

memplan_status memplan_model_load_reader(const memplan_reader *reader, const memplan_load_options *opts,
                                         memplan_model **out, memplan_error *err) {
    (void)opts;
    *out = NULL;
    mp_buf pruned;
    memplan_status st = strip(reader, &pruned, err);
    if (st) return st;
    return load_pruned(&pruned, out, err);
}

memplan_status mp_model_build(const memplan_model *like, mp_model_builder build, void *ctx, memplan_model **out,
                              memplan_error *err) {
    *out = NULL;
    model_internal *mi = calloc(1, sizeof *mi);
    if (!mi) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    mp_arena_init(&mi->arena);
    mi->ctx.arena = &mi->arena;
    mi->ctx.err = err;
    memplan_model *m = &mi->model;
    *m = *like; /* the header; the graph and counts are the new ones, no functions */
    m->internal = mi;
    m->graph = NULL;
    m->n_functions = 0;
    m->functions = NULL;
    mp_pgraph *pg = NULL;
    memplan_status st = build(&mi->arena, ctx, &pg, err);
    if (!st) st = mp_ir_resolve(&mi->ctx, pg);
    if (st) {
        memplan_model_free(m);
        return st;
    }
    m->graph = pg->g;
    m->n_nodes_total = mi->ctx.nodes_total;
    m->n_graphs = mi->ctx.n_graphs;
    m->ir_bytes = mi->arena.used_total;
    mi->ctx.err = NULL;
    *out = m;
    return MEMPLAN_OK;
}

void memplan_model_free(memplan_model *model) {
    if (!model) return;
    model_internal *mi = model->internal;
    mp_ir_ctx_free(&mi->ctx);
    mp_arena_free(&mi->arena);
    free(mi);
}
