/*
 * report.c -- the plan document: liveness + sizes + slot/arena plans, as JSON
 * and text. Stages are called through their public headers only.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "memplan/reorder.h"
#include "out/cache.h"
#include "out/json.h"
#include "out/reports.h"
#include "out/text.h"
#include "memplan/shapes.h"

/* One request's view of a plan: the strategy whose figures it prints. */
typedef struct plan_ctx {
    const memplan_model_plan *p;
    const memplan_request *r;
    const memplan_plan_figures *f; /* p->figures[strategy] */
    bool other_known;              /* text of a QDQ model: the other reading's peak (fused, or as written) */
    uint64_t other_peak;
    /* The main graph has float16 nodes ONNX Runtime's CPU execution provider
     * runs in float32: the graph it runs (memplan/ort_float16.h), planned
     * with the same options, when it could be made and planned. */
    bool f16_made, f16_planned, f16_ort_known;
    memplan_ort_float16_stats f16;
    uint64_t f16_peak, f16_bound, f16_ort_bound;
} plan_ctx;

static bool deferred(const plan_ctx *c) { return c->p->deferred; }

static void json_amount(mp_json *j, memplan_expr_pool *p, memplan_expr e);
static const char *kind_label(const memplan_vshape *v);

static void json_size(mp_json *j, const memplan_size *s) {
    if (s->kind == MEMPLAN_SIZE_KNOWN) mp_json_uint(j, s->bytes);
    else
        mp_json_null(j);
}

/* "dtype" and "shape" (dims bound by the request) of a value; a fused QDQ
 * unit's output has its QuantizeLinear output's dtype (--fuse-qdq). */
static void json_type_of(mp_json *j, const plan_ctx *c, int32_t v) {
    const memplan_vshape *vs = memplan_shapes_value(c->p->shapes, c->p->graph, v);
    memplan_expr_pool *p = memplan_shapes_pool(c->p->shapes);
    int32_t as = c->p->quantized_as ? c->p->quantized_as[v] : -1;
    MP_JSON_KEY(j, "dtype");
    mp_json_str(j, kind_label(as >= 0 ? memplan_shapes_value(c->p->shapes, c->p->graph, as) : vs));
    MP_JSON_KEY(j, "shape");
    if (vs->rank < 0) {
        mp_json_null(j);
        return;
    }
    mp_json_arr(j);
    for (int32_t i = 0; i < vs->rank; i++)
        json_amount(j, p,
                    c->r->shapes.n_bindings
                        ? memplan_expr_bind(p, vs->dims[i], c->r->shapes.bindings, c->r->shapes.n_bindings)
                        : vs->dims[i]);
    mp_json_end(j);
}

/* Nodes in position order, for tables and tooltips; `folded`: folded at
 * load, never run (memplan_plan_node_folded). */
static void json_nodes(mp_json *j, const memplan_model_plan *plan) {
    const memplan_graph *g = plan->graph;
    mp_json_arr(j);
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *n = &g->nodes[p];
        mp_json_obj(j);
        MP_JSON_KEY(j, "index");
        mp_json_int(j, p);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, n->name);
        MP_JSON_KEY(j, "op_type");
        mp_json_str(j, n->op_type);
        MP_JSON_KEY(j, "domain");
        mp_json_str(j, n->domain);
        for (int io = 0; io < 2; io++) {
            mp_json_key(j, io ? "outputs" : "inputs");
            mp_json_arr(j);
            int32_t cnt = io ? n->n_outputs : n->n_inputs;
            const int32_t *ids = io ? n->outputs : n->inputs;
            for (int32_t k = 0; k < cnt; k++) mp_json_str(j, ids[k] >= 0 ? g->values[ids[k]].name : "");
            mp_json_end(j);
        }
        MP_JSON_KEY(j, "folded");
        mp_json_bool(j, memplan_plan_node_folded(plan, p));
        mp_json_end(j);
    }
    mp_json_end(j);
}

static bool slots_strategy(const plan_ctx *c) { return c->r->strategy == MEMPLAN_STRATEGY_SLOTS; }

static void json_value(mp_json *j, const plan_ctx *c, const memplan_value_plan *vp) {
    const memplan_graph *g = c->p->graph;
    mp_json_obj(j);
    MP_JSON_KEY(j, "name");
    mp_json_str(j, g->values[vp->value].name);
    MP_JSON_KEY(j, "size");
    json_size(j, &vp->size);
    MP_JSON_KEY(j, "start");
    mp_json_int(j, vp->start);
    MP_JSON_KEY(j, "end");
    mp_json_int(j, vp->end);
    MP_JSON_KEY(j, "owner");
    mp_json_str(j, g->values[vp->owner].name);
    MP_JSON_KEY(j, "view");
    mp_json_bool(j, vp->view);
    MP_JSON_KEY(j, "slot");
    if (vp->placed && slots_strategy(c)) mp_json_uint(j, vp->slot);
    else
        mp_json_null(j);
    MP_JSON_KEY(j, "offset");
    if (vp->placed) mp_json_uint(j, slots_strategy(c) ? vp->slot_offset : vp->arena_offset);
    else
        mp_json_null(j);
    json_type_of(j, c, vp->value);
    mp_json_end(j);
}

/* Why a counted body defers its node's transient. */
static const char *subgraph_reason(const memplan_subgraph_plan *sp) {
    return sp->plan->deferred ? "the body's plan is deferred" : "the size of a loop-carried input is not known";
}

/* Why internal symbol `name` exists ("data-dependent: NonZero (node 'y')"),
 * malloc'ed; NULL when out of memory. */
static char *dim_reason(const memplan_model_plan *p, const char *name) {
    size_t need = memplan_shapes_dim_reason(p->shapes, name, NULL, 0) + 1;
    char *buf = malloc(need);
    if (buf) memplan_shapes_dim_reason(p->shapes, name, buf, need);
    return buf;
}

/* The reason an unknown owner defers the plan: "unbound dims" when its
 * symbolic size rests on a dim the user can bind; when it rests on made-up
 * dims only (memplan/shapes.h: binding nothing resolves them), why the first
 * of them exists ("size unknown after If (node 'If_0')"); the inference's
 * reason for the others. malloc'ed; NULL when out of memory. */
static char *copy_text(const char *t) {
    char *c = malloc(strlen(t) + 1);
    if (c) strcpy(c, t);
    return c;
}

static char *unknown_reason(const memplan_model_plan *p, const memplan_size *s) {
    if (s->kind != MEMPLAN_SIZE_SYMBOLIC) return copy_text(s->reason ? s->reason : "unknown");
    memplan_expr_pool *pool = memplan_shapes_pool(p->shapes);
    size_t n = memplan_expr_names(pool, s->expr, NULL, 0);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names) return NULL;
    memplan_expr_names(pool, s->expr, names, n);
    const char *made_up = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!memplan_shapes_internal_dim(p->shapes, names[i], NULL)) {
            made_up = NULL; /* a dim to bind: that is the reason */
            break;
        }
        if (!made_up) made_up = names[i];
    }
    char *why = made_up ? dim_reason(p, made_up) : copy_text("unbound dims");
    free(names);
    return why;
}

/* The internal symbols a deferred plan rests on: each with why it exists
 * and the input dims to bind instead (none: only data decides it). */
static void json_internal_dims(mp_json *j, const memplan_model_plan *p) {
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_internal_dims; i++) {
        const char *name = p->internal_dims[i];
        char *why = dim_reason(p, name);
        if (!why) {
            j->out->failed = true; /* finish_buf reports it */
            break;
        }
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, name);
        MP_JSON_KEY(j, "reason");
        mp_json_str(j, why);
        MP_JSON_KEY(j, "data_dependent");
        mp_json_bool(j, memplan_shapes_data_bound(p->shapes, name, NULL));
        MP_JSON_KEY(j, "bind_instead");
        mp_json_arr(j);
        const char *few[8];
        size_t n = memplan_shapes_bind_instead(p->shapes, name, few, 8);
        for (size_t k = 0; k < n && k < 8; k++) mp_json_str(j, few[k]);
        mp_json_end(j);
        mp_json_end(j);
        free(why);
    }
    mp_json_end(j);
}

/* The dims an upper-bound plan fixed at their maximum. */
static void json_upper_bounds(mp_json *j, const memplan_model_plan *p) {
    mp_json_obj(j);
    for (int data = 1; data >= 0; data--) {
        mp_json_key(j, data ? "data_dims" : "ranges");
        mp_json_arr(j);
        for (size_t i = 0; i < p->n_bounded; i++) {
            const memplan_bounded_dim *d = &p->bounded[i];
            if (d->data != (data == 1)) continue;
            mp_json_obj(j);
            MP_JSON_KEY(j, "name");
            mp_json_str(j, d->name);
            if (!data) {
                MP_JSON_KEY(j, "lo");
                mp_json_int(j, d->lo);
            }
            mp_json_key(j, data ? "bound" : "hi");
            mp_json_int(j, d->value);
            if (data) {
                char *why = dim_reason(p, d->name);
                MP_JSON_KEY(j, "reason");
                if (!why) j->out->failed = true;
                mp_json_str(j, why);
                free(why);
            }
            mp_json_end(j);
        }
        mp_json_end(j);
    }
    mp_json_end(j);
}

static void json_unknown(mp_json *j, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    mp_json_obj(j);
    MP_JSON_KEY(j, "values");
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_unknown; i++) {
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, p->graph->values[p->unknown[i]].name);
        MP_JSON_KEY(j, "reason");
        char *why = unknown_reason(p, &p->size[p->unknown[i]]);
        if (!why) j->out->failed = true; /* finish_buf reports it */
        mp_json_str(j, why ? why : "");
        free(why);
        mp_json_end(j);
    }
    mp_json_end(j);
    MP_JSON_KEY(j, "dims");
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_unbound_dims; i++) mp_json_str(j, p->unbound_dims[i]);
    mp_json_end(j);
    MP_JSON_KEY(j, "internal_dims");
    json_internal_dims(j, p);
    MP_JSON_KEY(j, "value_inputs");
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_value_inputs; i++) mp_json_str(j, p->graph->values[p->value_inputs[i]].name);
    mp_json_end(j);
    MP_JSON_KEY(j, "subgraphs");
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_subgraphs; i++) {
        const memplan_subgraph_plan *sp = &p->subgraphs[i];
        if (!sp->counted || sp->known) continue;
        mp_json_obj(j);
        MP_JSON_KEY(j, "node");
        mp_json_str(j, p->graph->nodes[sp->node].name);
        MP_JSON_KEY(j, "attribute");
        mp_json_str(j, sp->attribute);
        MP_JSON_KEY(j, "reason");
        mp_json_str(j, subgraph_reason(sp));
        mp_json_end(j);
    }
    mp_json_end(j);
    MP_JSON_KEY(j, "workspaces"); /* --workspace: the nodes whose kernel workspace has no known size */
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_transients; i++) {
        const memplan_transient *t = &p->transients[i];
        if (!t->workspace || t->known) continue;
        mp_json_obj(j);
        MP_JSON_KEY(j, "node");
        mp_json_str(j, p->graph->nodes[t->node].name);
        MP_JSON_KEY(j, "op_type");
        mp_json_str(j, p->graph->nodes[t->node].op_type);
        mp_json_end(j);
    }
    mp_json_end(j);
    mp_json_end(j);
}

static const char *branch_name(memplan_branch b) {
    return b == MEMPLAN_BRANCH_TAKEN       ? "taken"
           : b == MEMPLAN_BRANCH_NOT_TAKEN ? "not taken"
           : b == MEMPLAN_BRANCH_UNKNOWN   ? "unknown"
                                           : NULL;
}

/* {bytes, count, unknown, <flag>}: the weights' and the graph inputs' tallies
 * (docs/semantics.md, "The figures of a planned plan"). */
static void json_tally(mp_json *j, uint64_t bytes, size_t count, size_t unknown, const char *flag, bool value,
                       const memplan_model_plan *load_only) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "bytes");
    mp_json_uint(j, bytes);
    MP_JSON_KEY(j, "count");
    mp_json_uint(j, count);
    MP_JSON_KEY(j, "unknown");
    mp_json_uint(j, unknown);
    mp_json_key(j, flag);
    mp_json_bool(j, value);
    if (load_only) { /* the weights' tally: what loading reads or computes and drops */
        MP_JSON_KEY(j, "load_only_bytes");
        mp_json_uint(j, load_only->load_only_bytes);
        MP_JSON_KEY(j, "load_only_count");
        mp_json_uint(j, load_only->n_load_only);
    }
    mp_json_end(j);
}

/* The main graph's kernel workspace (memplan_model_plan.workspace): in the
 * plan with --workspace, else what it would add; null while deferred. */
static void json_workspace(mp_json *j, const memplan_model_plan *p) {
    if (!p->workspace.known) {
        mp_json_null(j);
        return;
    }
    const memplan_node *n = p->workspace.largest_node;
    mp_json_obj(j);
    MP_JSON_KEY(j, "runtime");
    mp_json_str(j, "onnxruntime-cpu");
    MP_JSON_KEY(j, "included");
    mp_json_bool(j, p->workspace.included);
    MP_JSON_KEY(j, "nodes");
    mp_json_uint(j, p->workspace.nodes);
    MP_JSON_KEY(j, "unknown");
    mp_json_uint(j, p->workspace.unknown);
    MP_JSON_KEY(j, "largest_bytes");
    mp_json_uint(j, p->workspace.largest_bytes);
    MP_JSON_KEY(j, "largest_node"); /* null when no node takes any */
    mp_json_str(j, n ? n->name : NULL);
    MP_JSON_KEY(j, "largest_op_type");
    mp_json_str(j, n ? n->op_type : NULL);
    MP_JSON_KEY(j, "largest_what");
    mp_json_str(j, n ? p->workspace.what : NULL);
    MP_JSON_KEY(j, "lower_bound_bytes"); /* the arena's lower bound with every node's workspace at its position */
    mp_json_uint(j, p->workspace.lower_bound);
    mp_json_end(j);
}

/* v, or null when it is not known. */
static void json_uint_if(mp_json *j, bool known, uint64_t v) {
    if (known) mp_json_uint(j, v);
    else
        mp_json_null(j);
}

/* The float16 nodes ONNX Runtime's CPU execution provider runs in float32
 * (memplan_model_plan.float16_cpu): {nodes, ops}, null when there is none. */
static void json_float16(mp_json *j, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    if (!p->float16_cpu.nodes) {
        mp_json_null(j);
        return;
    }
    mp_json_obj(j);
    MP_JSON_KEY(j, "nodes");
    mp_json_uint(j, p->float16_cpu.nodes);
    MP_JSON_KEY(j, "ops"); /* most nodes first, at most 8 */
    mp_json_arr(j);
    for (size_t i = 0; i < p->float16_cpu.n_ops; i++) mp_json_str(j, p->float16_cpu.ops[i]);
    mp_json_end(j);
    MP_JSON_KEY(j, "weight_bytes"); /* the weights it keeps then (float32 copies); null when not known */
    json_uint_if(j, p->float16_cpu.weights_known, p->float16_cpu.weight_bytes);
    /* The graph it runs (--float16-cpu), planned with the same options: null
     * while this plan or that one is deferred, or the graph was not made. */
    MP_JSON_KEY(j, "float32_nodes"); /* nodes run in float32 there, with a float16 kernel or not */
    json_uint_if(j, c->f16_made, (uint64_t)c->f16.float32_nodes);
    MP_JSON_KEY(j, "casts"); /* Casts it adds */
    json_uint_if(j, c->f16_made, (uint64_t)c->f16.casts);
    MP_JSON_KEY(j, "peak_bytes");
    json_uint_if(j, c->f16_planned, c->f16_peak);
    MP_JSON_KEY(j, "lower_bound_bytes");
    json_uint_if(j, c->f16_planned, c->f16_bound);
    MP_JSON_KEY(j, "onnxruntime_order_lower_bound_bytes"); /* in the order ONNX Runtime runs that graph */
    json_uint_if(j, c->f16_ort_known, c->f16_ort_bound);
    mp_json_end(j);
}

/* --float16-cpu: what the rewrite changed; null for the file's graph. */
static void json_float16_graph(mp_json *j, const memplan_ort_float16_stats *s) {
    if (!s) {
        mp_json_null(j);
        return;
    }
    mp_json_obj(j);
    MP_JSON_KEY(j, "float32_nodes");
    mp_json_int(j, s->float32_nodes);
    MP_JSON_KEY(j, "forced"); /* of those, nodes with a float16 kernel run in float32 between such nodes */
    mp_json_int(j, s->forced);
    MP_JSON_KEY(j, "casts");
    mp_json_int(j, s->casts);
    MP_JSON_KEY(j, "casts_removed"); /* the file's own Casts that cancel out */
    mp_json_int(j, s->casts_removed);
    mp_json_end(j);
}

static void json_transients(mp_json *j, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_transients; i++) {
        const memplan_transient *t = &p->transients[i];
        const memplan_node *n = &p->graph->nodes[t->node];
        mp_json_obj(j);
        MP_JSON_KEY(j, "node");
        mp_json_str(j, n->name);
        MP_JSON_KEY(j, "op_type");
        mp_json_str(j, n->op_type);
        MP_JSON_KEY(j, "kind"); /* a body's memory, or a kernel's workspace (--workspace) */
        mp_json_str(j, t->workspace ? "workspace" : "body");
        MP_JSON_KEY(j, "position");
        mp_json_int(j, t->node);
        MP_JSON_KEY(j, "bytes");
        if (t->known) mp_json_uint(j, t->bytes);
        else
            mp_json_null(j);
        MP_JSON_KEY(j, "naive_bytes"); /* its share of naive_bytes: the counted body's naive total + state */
        if (t->known) mp_json_uint(j, t->naive_bytes[slots_strategy(c) ? 1 : 0]);
        else
            mp_json_null(j);
        MP_JSON_KEY(j, "slot");
        if (t->placed && slots_strategy(c)) mp_json_uint(j, t->slot);
        else
            mp_json_null(j);
        MP_JSON_KEY(j, "offset");
        if (t->placed) mp_json_uint(j, slots_strategy(c) ? t->slot_offset : t->arena_offset);
        else
            mp_json_null(j);
        MP_JSON_KEY(j, "assumption"); /* a body's: why a branch was chosen without knowing */
        mp_json_str(j, t->workspace ? NULL : t->assumption);
        MP_JSON_KEY(j, "what"); /* a workspace's: what the kernel allocates */
        mp_json_str(j, t->workspace ? t->assumption : NULL);
        mp_json_end(j);
    }
    mp_json_end(j);
}

static void plan_json(mp_json *j, const plan_ctx *c);

void mp_json_kv_pairs(mp_json *j, const memplan_graph *g, const memplan_plan_link *pairs, size_t n) {
    mp_json_arr(j);
    for (size_t i = 0; i < n; i++) {
        mp_json_obj(j);
        MP_JSON_KEY(j, "output");
        mp_json_str(j, g->values[pairs[i].value].name);
        MP_JSON_KEY(j, "input");
        mp_json_str(j, g->values[pairs[i].source].name);
        mp_json_end(j);
    }
    mp_json_end(j);
}

static void json_notes(mp_json *j, const memplan_shapes *S) {
    mp_json_arr(j);
    for (size_t i = 0; i < memplan_shapes_note_count(S); i++) mp_json_str(j, memplan_shapes_note(S, i));
    mp_json_end(j);
}

/* One live buffer for the at-peak order: larger first, ties by placement
 * order (the index), which makes qsort's order the stable one. */
typedef struct {
    uint64_t size;
    size_t buffer;
} live_entry;

static int by_size_descending(const void *a, const void *b) {
    const live_entry *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? 1 : -1;
    return x->buffer < y->buffer ? -1 : x->buffer > y->buffer;
}

/* The buffers live at position t, largest first (ties: placement order);
 * *n gets the count. malloc'ed; NULL when out of memory. O(n log n): a
 * Split's 200k outputs can all be live at the peak. */
static size_t *live_at(const memplan_model_plan *p, int32_t t, size_t *n) {
    size_t cap = p->n_buffers ? p->n_buffers : 1;
    size_t *idx = malloc(cap * sizeof *idx);
    live_entry *e = malloc(cap * sizeof *e);
    *n = 0;
    if (!idx || !e) {
        free(idx);
        free(e);
        return NULL;
    }
    for (size_t b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].start <= t && t < p->buffers[b].end) e[(*n)++] = (live_entry){p->buffers[b].size, b};
    if (*n) qsort(e, *n, sizeof *e, by_size_descending);
    for (size_t i = 0; i < *n; i++) idx[i] = e[i].buffer;
    free(e);
    return idx;
}

/* at_peak: what is live where the most bytes are, each buffer's share of the
 * lower bound (on the strategy's basis). */
static void json_at_peak(mp_json *j, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    const memplan_graph *g = p->graph;
    uint64_t align = slots_strategy(c) ? 1 : p->options.align;
    size_t n = 0, *idx = c->f->peak_position >= 0 ? live_at(p, c->f->peak_position, &n) : NULL;
    if (c->f->peak_position >= 0 && !idx) j->out->failed = true;
    mp_json_obj(j);
    MP_JSON_KEY(j, "position");
    mp_json_int(j, c->f->peak_position);
    MP_JSON_KEY(j, "bytes");
    mp_json_uint(j, c->f->lower_bound_bytes);
    MP_JSON_KEY(j, "buffers");
    mp_json_arr(j);
    for (size_t i = 0; i < n; i++) {
        const memplan_buffer *b = &p->buffers[idx[i]];
        int32_t v = p->buffer_value[idx[i]];
        const memplan_transient *t = NULL;
        for (size_t k = 0; v < 0 && k < p->n_transients; k++)
            if (p->transients[k].buffer == (int64_t)idx[i]) t = &p->transients[k];
        int32_t node = v >= 0 ? g->values[v].producer : t ? t->node : -1;
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, v >= 0 ? g->values[v].name : node >= 0 ? g->nodes[node].name : "");
        MP_JSON_KEY(j, "transient");
        mp_json_bool(j, v < 0);
        MP_JSON_KEY(j, "workspace"); /* a kernel's workspace (--workspace), not a body's memory */
        mp_json_bool(j, t && t->workspace);
        MP_JSON_KEY(j, "bytes");
        mp_json_uint(j, b->size);
        MP_JSON_KEY(j, "share");
        uint64_t aligned = (b->size + align - 1) / align * align;
        mp_json_double(j, c->f->lower_bound_bytes ? (double)aligned / (double)c->f->lower_bound_bytes : 0.0);
        MP_JSON_KEY(j, "op_type");
        if (node >= 0) mp_json_str(j, g->nodes[node].op_type);
        else
            mp_json_null(j);
        MP_JSON_KEY(j, "node");
        if (node >= 0) mp_json_str(j, g->nodes[node].name);
        else
            mp_json_null(j);
        if (v >= 0) {
            json_type_of(j, c, v);
        } else {
            MP_JSON_KEY(j, "dtype");
            mp_json_null(j);
            MP_JSON_KEY(j, "shape");
            mp_json_null(j);
        }
        mp_json_end(j);
    }
    mp_json_end(j);
    mp_json_end(j);
    free(idx);
}

static void json_subgraphs(mp_json *j, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_subgraphs; i++) {
        const memplan_subgraph_plan *sp = &p->subgraphs[i];
        mp_json_obj(j);
        MP_JSON_KEY(j, "node");
        mp_json_str(j, p->graph->nodes[sp->node].name);
        MP_JSON_KEY(j, "op_type");
        mp_json_str(j, p->graph->nodes[sp->node].op_type);
        MP_JSON_KEY(j, "position");
        mp_json_int(j, sp->node);
        MP_JSON_KEY(j, "attribute");
        mp_json_str(j, sp->attribute);
        MP_JSON_KEY(j, "branch_taken");
        if (sp->branch == MEMPLAN_BRANCH_TAKEN || sp->branch == MEMPLAN_BRANCH_NOT_TAKEN)
            mp_json_bool(j, sp->branch == MEMPLAN_BRANCH_TAKEN);
        else
            mp_json_null(j);
        MP_JSON_KEY(j, "counted");
        mp_json_bool(j, sp->counted);
        MP_JSON_KEY(j, "state_bytes");
        if (sp->known) mp_json_uint(j, sp->state_bytes);
        else
            mp_json_null(j);
        MP_JSON_KEY(j, "transient_bytes");
        if (sp->known) mp_json_uint(j, sp->transient_bytes);
        else
            mp_json_null(j);
        MP_JSON_KEY(j, "plan");
        plan_ctx cc = {.p = sp->plan, .r = c->r, .f = &sp->plan->figures[c->r->strategy]};
        plan_json(j, &cc);
        mp_json_end(j);
    }
    mp_json_end(j);
}

/* A figure, or null while the plan is deferred. */
static void json_figure(mp_json *j, const plan_ctx *c, const char *key, uint64_t v) {
    mp_json_key(j, key);
    if (deferred(c)) mp_json_null(j);
    else
        mp_json_uint(j, v);
}

static void json_strategies(mp_json *j, const memplan_model_plan *p) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "arena");
    mp_json_uint(j, p->arena.arena_bytes);
    MP_JSON_KEY(j, "slots");
    mp_json_uint(j, p->slots.peak_bytes);
    MP_JSON_KEY(j, "exact_reuse");
    mp_json_uint(j, p->exact.peak_bytes);
    MP_JSON_KEY(j, "arena_heuristic");
    mp_json_str(j, memplan_heuristic_name(p->arena.heuristic));
    MP_JSON_KEY(j, "arena_gap_ratio");
    mp_json_double(j, p->arena.gap_ratio);
    MP_JSON_KEY(j, "arena_optimal");
    mp_json_bool(j, p->arena.optimal);
    MP_JSON_KEY(j, "arena_proven_lower_bound_bytes");
    mp_json_uint(j, p->arena.proven_lower_bound_bytes);
    mp_json_end(j);
}

static void json_slots(mp_json *j, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    mp_json_arr(j);
    if (!deferred(c) && slots_strategy(c))
        for (size_t s = 0; s < p->slots.slot_count; s++) {
            mp_json_obj(j);
            MP_JSON_KEY(j, "id");
            mp_json_uint(j, s);
            MP_JSON_KEY(j, "capacity");
            mp_json_uint(j, p->slots.slot_bytes[s]);
            MP_JSON_KEY(j, "offset");
            mp_json_uint(j, p->slot_offset[s]);
            mp_json_end(j);
        }
    mp_json_end(j);
}

static void json_unplanned(mp_json *j, const memplan_model_plan *p) {
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_unplanned; i++) {
        int32_t v = p->unplanned[i];
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, p->graph->values[v].name);
        MP_JSON_KEY(j, "reason");
        mp_json_str(j, p->size[v].reason);
        mp_json_end(j);
    }
    mp_json_end(j);
}

/* The execution order (with --order): which scheduler, each position's node
 * in the file order, and the strategy's figures under both orders. */
static void json_order(mp_json *j, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    const memplan_plan_order *o = &p->order;
    const memplan_plan_figures *file = &o->file[c->r->strategy];
    bool def = deferred(c);
    mp_json_obj(j);
    MP_JSON_KEY(j, "asked");
    mp_json_str(j, memplan_order_name(o->asked));
    MP_JSON_KEY(j, "name");
    mp_json_str(j, memplan_order_name(o->kind));
    MP_JSON_KEY(j, "exact");
    mp_json_bool(j, o->exact);
    MP_JSON_KEY(j, "positions");
    mp_json_arr(j);
    for (int32_t i = 0; i < p->positions; i++) mp_json_int(j, o->node ? o->node[i] : i);
    mp_json_end(j);
    json_figure(j, c, "file_lower_bound_bytes", file->lower_bound_bytes);
    json_figure(j, c, "file_peak_bytes", file->peak_bytes);
    json_figure(j, c, "lower_bound_bytes", c->f->lower_bound_bytes);
    json_figure(j, c, "peak_bytes", c->f->peak_bytes);
    MP_JSON_KEY(j, "saving_bytes");
    if (def) mp_json_null(j);
    else
        mp_json_int(j, (int64_t)file->peak_bytes - (int64_t)c->f->peak_bytes);
    if (p->ort_order.written) { /* onnxruntime, the main graph: the file written for it */
        MP_JSON_KEY(j, "written_lower_bound_bytes");
        mp_json_uint(j, p->ort_order.written_lower_bound);
    }
    mp_json_end(j);
}

static void plan_json(mp_json *j, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    const memplan_plan_figures *f = c->f;
    bool def = deferred(c);
    mp_json_obj(j);
    MP_JSON_KEY(j, "status");
    mp_json_str(j, def ? "deferred" : "planned");
    MP_JSON_KEY(j, "strategy");
    mp_json_str(j, memplan_strategy_name(c->r->strategy));
    MP_JSON_KEY(j, "align");
    mp_json_uint(j, p->options.align);
    MP_JSON_KEY(j, "positions");
    mp_json_int(j, p->positions);
    json_figure(j, c, "naive_bytes", f->naive_bytes);
    json_figure(j, c, "peak_bytes", f->peak_bytes);
    json_figure(j, c, "lower_bound_bytes", f->lower_bound_bytes);
    MP_JSON_KEY(j, "savings_ratio");
    if (def) mp_json_null(j);
    else
        mp_json_double(j, f->savings_ratio);
    if (slots_strategy(c)) json_figure(j, c, "slot_layout_bytes", f->layout_bytes);
    MP_JSON_KEY(j, "strategies");
    if (def) mp_json_null(j);
    else
        json_strategies(j, p);
    MP_JSON_KEY(j, "slots");
    json_slots(j, c);
    MP_JSON_KEY(j, "values");
    mp_json_arr(j);
    for (size_t i = 0; i < p->n_values; i++) json_value(j, c, &p->values[i]);
    mp_json_end(j);
    MP_JSON_KEY(j, "unplanned");
    json_unplanned(j, p);
    MP_JSON_KEY(j, "unknown");
    if (def) json_unknown(j, c);
    else
        mp_json_null(j);
    if (!c->r->no_nodes) {
        MP_JSON_KEY(j, "nodes");
        json_nodes(j, p);
    }
    if (p->options.inplace && !p->parent) {
        MP_JSON_KEY(j, "inplace");
        mp_json_obj(j);
        MP_JSON_KEY(j, "enabled");
        mp_json_bool(j, true);
        MP_JSON_KEY(j, "saved_bytes");
        if (f->inplace_saved_known) mp_json_int(j, f->inplace_saved_bytes);
        else
            mp_json_null(j);
        mp_json_end(j);
    }
    if (p->options.share_kv && !p->parent) {
        MP_JSON_KEY(j, "share_kv");
        mp_json_kv_pairs(j, p->graph, p->shares, p->n_shares);
    }
    MP_JSON_KEY(j, "qdq_units");
    mp_json_int(j, p->n_qdq_units);
    MP_JSON_KEY(j, "qdq_fused");
    mp_json_int(j, p->n_qdq_fused);
    MP_JSON_KEY(j, "qdq_int8");
    mp_json_bool(j, p->options.qdq_int8);
    MP_JSON_KEY(j, "qdq_units_other");
    mp_json_int(j, p->n_qdq_units_other);
    if (p->order.asked != MEMPLAN_ORDER_FILE) { /* every body has its own order */
        MP_JSON_KEY(j, "order");
        json_order(j, c);
    }
    if (!p->parent) { /* the main graph: ONNX Runtime's order beside the file's */
        MP_JSON_KEY(j, "onnxruntime_order");
        if (p->ort_order.known) {
            mp_json_obj(j);
            MP_JSON_KEY(j, "moved");
            mp_json_int(j, p->ort_order.moved);
            MP_JSON_KEY(j, "lower_bound_bytes");
            mp_json_uint(j, p->ort_order.lower_bound);
            mp_json_end(j);
        } else {
            mp_json_null(j);
        }
    }
    if (!p->parent) {
        MP_JSON_KEY(j, "kernel_workspace");
        json_workspace(j, p);
        MP_JSON_KEY(j, "onnxruntime_float16"); /* float16 nodes ONNX Runtime's CPU EP runs in float32 */
        json_float16(j, c);
        MP_JSON_KEY(j,
                    "onnxruntime_cpu_graph"); /* --float16-cpu: the plan is of the graph ONNX Runtime's CPU EP runs */
        json_float16_graph(j, c->r->float16_graph);
    }
    if (!c->r->no_at_peak) {
        MP_JSON_KEY(j, "at_peak");
        if (def) mp_json_null(j);
        else
            json_at_peak(j, c);
    }
    if (p->options.upper_bounds && !p->parent) {
        MP_JSON_KEY(j, "upper_bounds");
        json_upper_bounds(j, p);
    }
    MP_JSON_KEY(j, "weights");
    json_tally(j, p->weight_bytes, p->n_weights, p->n_weights_unknown, "folded", !p->options.constants_as_activations,
               p);
    if (!p->parent) { /* a body's inputs are its parent's buffers */
        uint64_t total;
        MP_JSON_KEY(j, "inputs");
        json_tally(j, p->input_bytes, p->n_inputs_known, p->n_inputs_unknown, "in_arena", p->options.include_inputs,
                   NULL);
        const char *why = memplan_plan_total(p, c->r->strategy, &total);
        MP_JSON_KEY(j, "total_bytes");
        if (why) mp_json_null(j);
        else
            mp_json_uint(j, total);
        MP_JSON_KEY(j, "total_unknown_reason"); /* why total_bytes is null, as the text's "total: unknown (...)" */
        mp_json_str(j, why);
    }
    MP_JSON_KEY(j, "transients");
    json_transients(j, c);
    MP_JSON_KEY(j, "subgraphs");
    json_subgraphs(j, c);
    if (!p->parent) { /* the shape inference's, as in the shapes document */
        MP_JSON_KEY(j, "notes");
        json_notes(j, p->shapes);
    }
    mp_json_end(j);
}

static memplan_status finish_buf(mp_buf *b, char **out, size_t *len, memplan_error *err) {
    if (b->failed) {
        mp_buf_free(b);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while writing the report");
    }
    *out = mp_buf_take(b, len);
    return MEMPLAN_OK;
}

static void human_bytes(mp_buf *b, uint64_t v) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)v;
    int u = 0;
    while (x >= 1024 && u < 4) {
        x /= 1024;
        u++;
    }
    if (u == 0) mp_text_printf(b, "%llu B", (unsigned long long)v);
    else
        mp_text_printf(b, "%llu (%.2f %s)", (unsigned long long)v, x, units[u]);
}

/* The internal symbols, five at most, each with why it exists. */
static void text_internal_dims(mp_buf *b, const memplan_model_plan *p) {
    if (!p->n_internal_dims) return;
    mp_text_printf(b,
                   "made-up dims:      %zu (sizes the model leaves to data or to ops without a rule; not bindable)\n",
                   p->n_internal_dims);
    for (size_t i = 0; i < p->n_internal_dims && i < 5; i++) {
        char *why = dim_reason(p, p->internal_dims[i]);
        if (!why) {
            b->failed = true;
            return;
        }
        mp_text_printf(b, "  %s: %s", p->internal_dims[i], why);
        const char *few[4];
        size_t n = memplan_shapes_bind_instead(p->shapes, p->internal_dims[i], few, 4);
        for (size_t k = 0; k < n && k < 4; k++) mp_text_printf(b, "%s%s", k ? ", " : "; bind ", few[k]);
        if (n > 4) mp_buf_puts(b, ", ...");
        mp_buf_putc(b, '\n');
        free(why);
    }
    if (p->n_internal_dims > 5) mp_text_printf(b, "  ... and %zu more\n", p->n_internal_dims - 5);
    bool data = false;
    for (size_t i = 0; i < p->n_internal_dims && !data; i++)
        data = memplan_shapes_data_bound(p->shapes, p->internal_dims[i], NULL);
    if (data && !p->options.upper_bounds)
        mp_buf_puts(b, "                   (--upper-bounds plans data-dependent dims at their bounds)\n");
}

static void text_deferred(mp_buf *b, const memplan_model_plan *p) {
    mp_buf_puts(b, "status:            deferred: some sizes are not known\n");
    for (size_t i = 0; i < p->n_unbound_dims; i++) {
        mp_buf_puts(b, i ? ", " : "unbound dims:      ");
        mp_text_put(b, p->unbound_dims[i]);
    }
    if (p->n_unbound_dims) mp_buf_puts(b, "\n                   (bind them with --dim NAME=VALUE)\n");
    text_internal_dims(b, p);
    for (size_t i = 0; i < p->n_value_inputs; i++) {
        mp_buf_puts(b, i ? ", " : "value inputs:      ");
        mp_text_put(b, p->graph->values[p->value_inputs[i]].name);
    }
    if (p->n_value_inputs) mp_buf_puts(b, "\n                   (a value may resolve more: --value NAME=V)\n");
    size_t shown = p->n_unknown < 10 ? p->n_unknown : 10;
    for (size_t i = 0; i < shown; i++) {
        char *why = unknown_reason(p, &p->size[p->unknown[i]]);
        if (!why) b->failed = true;
        mp_text_printf(b, "  %s: %s\n", p->graph->values[p->unknown[i]].name, why ? why : "");
        free(why);
    }
    if (shown < p->n_unknown) mp_text_printf(b, "  ... and %zu more\n", p->n_unknown - shown);
    for (size_t i = 0; i < p->n_subgraphs; i++)
        if (p->subgraphs[i].counted && !p->subgraphs[i].known)
            mp_text_printf(b, "  %s of '%s': %s\n", p->subgraphs[i].attribute,
                           p->graph->nodes[p->subgraphs[i].node].name, subgraph_reason(&p->subgraphs[i]));
    for (size_t i = 0; i < p->n_transients; i++)
        if (p->transients[i].workspace && !p->transients[i].known)
            mp_text_printf(b, "  kernel workspace of '%s' (%s): size not known (--workspace)\n",
                           p->graph->nodes[p->transients[i].node].name, p->graph->nodes[p->transients[i].node].op_type);
}

/* Each body in one line under its node, indented by depth: what it needs,
 * whether it counts; then its own bodies. */
static void text_subgraphs(mp_buf *b, const memplan_model_plan *p, int depth) {
    for (size_t i = 0; i < p->n_subgraphs; i++) {
        const memplan_subgraph_plan *sp = &p->subgraphs[i];
        const memplan_node *n = &p->graph->nodes[sp->node];
        mp_text_printf(b, "%*s#%d %s", 2 * depth, "", (int)sp->node, n->op_type);
        if (n->name[0]) mp_text_printf(b, " '%s'", n->name);
        mp_text_printf(b, " %s", sp->attribute);
        if (sp->branch != MEMPLAN_BRANCH_NONE) mp_text_printf(b, " (branch %s)", branch_name(sp->branch));
        mp_text_printf(b, ", %d nodes: ", (int)sp->plan->positions);
        if (!sp->known) {
            mp_text_put(b, subgraph_reason(sp));
        } else {
            human_bytes(b, sp->transient_bytes);
            if (sp->state_bytes) mp_text_printf(b, " with %llu of state", (unsigned long long)sp->state_bytes);
        }
        mp_buf_puts(b, sp->counted ? "" : " (not counted)");
        for (size_t t = 0; sp->counted && t < p->n_transients; t++)
            if (p->transients[t].node == sp->node && p->transients[t].assumption)
                mp_text_printf(b, " (%s)", p->transients[t].assumption);
        mp_buf_putc(b, '\n');
        if (sp->counted) text_subgraphs(b, sp->plan, depth + 1);
    }
}

/* The dims an upper-bound plan fixed at their maximum, on one line. */
static void text_upper_bounds(mp_buf *b, const memplan_model_plan *p) {
    if (!p->options.upper_bounds) return;
    mp_buf_puts(b, "upper bounds:      ");
    if (!p->n_bounded) mp_buf_puts(b, "none needed");
    for (size_t i = 0; i < p->n_bounded; i++) {
        const memplan_bounded_dim *d = &p->bounded[i];
        mp_text_printf(b, "%s%s = %lld", i ? ", " : "", d->name, (long long)d->value);
        if (d->data) mp_buf_puts(b, " (data-dependent, at its bound)");
        else
            mp_text_printf(b, " (range %lld..%lld)", (long long)d->lo, (long long)d->value);
    }
    mp_buf_puts(b, "\n                   (one arena valid for every size up to these)\n");
}

/* The ten largest buffers live at the peak. */
static void text_at_peak(mp_buf *b, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    size_t n = 0, *idx = c->f->peak_position >= 0 ? live_at(p, c->f->peak_position, &n) : NULL;
    if (c->f->peak_position < 0) return;
    if (!idx) {
        b->failed = true;
        return;
    }
    mp_text_printf(b, "at the peak:       position %d, %zu buffers live%s\n", (int)c->f->peak_position, n,
                   n > 10 ? " (the 10 largest)" : "");
    for (size_t i = 0; i < n && i < 10; i++) {
        int32_t v = p->buffer_value[idx[i]];
        const char *what = v >= 0 ? "graph input" : "transient";
        int32_t node = -1;
        bool workspace = false;
        if (v >= 0) node = p->graph->values[v].producer;
        for (size_t k = 0; v < 0 && k < p->n_transients; k++)
            if (p->transients[k].buffer == (int64_t)idx[i]) {
                node = p->transients[k].node;
                workspace = p->transients[k].workspace;
            }
        if (node >= 0) what = p->graph->nodes[node].op_type;
        mp_buf_puts(b, "  ");
        human_bytes(b, p->buffers[idx[i]].size);
        mp_text_printf(b, "  %s  %s%s\n", what,
                       v >= 0      ? p->graph->values[v].name
                       : node >= 0 ? p->graph->nodes[node].name
                                   : "",
                       v >= 0      ? ""
                       : workspace ? " (its kernel's workspace)"
                                   : " (its body's memory)");
    }
    free(idx);
}

/* The order line: the scheduler and both orders' figures. */
static void text_order(mp_buf *b, const plan_ctx *c) {
    const memplan_plan_order *o = &c->p->order;
    const memplan_plan_figures *file = &o->file[c->r->strategy];
    mp_buf_printf(b, "order:             %s", memplan_order_name(o->kind));
    if (o->asked != o->kind) mp_buf_printf(b, " (asked: %s)", memplan_order_name(o->asked));
    mp_buf_puts(b, o->exact ? ", exact" : "");
    mp_buf_puts(b, "\n  file order:      peak ");
    human_bytes(b, file->peak_bytes);
    mp_buf_puts(b, ", lower bound ");
    human_bytes(b, file->lower_bound_bytes);
    mp_buf_printf(b, "\n  saving:          %lld bytes of peak\n",
                  (long long)((int64_t)file->peak_bytes - (int64_t)c->f->peak_bytes));
    if (c->p->ort_order.written) {
        mp_buf_puts(b, "  written for it:  lower bound ");
        human_bytes(b, c->p->ort_order.written_lower_bound);
        mp_buf_puts(b, " in ONNX Runtime's order of the file reorder --order onnxruntime writes\n");
    }
}

/* Strings, sequences, maps: no static size, so in no figure; the first
 * three by name and why. */
static void text_unplanned(mp_buf *b, const memplan_model_plan *p) {
    if (!p->n_unplanned) return;
    mp_text_printf(b, "not counted:       %zu value%s of no static size\n", p->n_unplanned,
                   p->n_unplanned == 1 ? "" : "s");
    for (size_t i = 0; i < p->n_unplanned && i < 3; i++) {
        mp_buf_puts(b, "  ");
        mp_text_put(b, p->graph->values[p->unplanned[i]].name);
        mp_text_printf(b, ": %s\n", p->size[p->unplanned[i]].reason);
    }
    if (p->n_unplanned > 3) mp_text_printf(b, "  ... and %zu more\n", p->n_unplanned - 3);
}

/* The qdq line: the main graph's QDQ units, as written or fused (--fuse-qdq:
 * every unit of a main graph fuses, as none of its values is outside the
 * plan), on x86-64 or where int8 QDQ is allowed (--qdq-int8); then the other
 * reading's peak, and the units of the other platform when they differ. */
static void text_qdq(mp_buf *b, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    size_t n = p->n_qdq_units, other = p->n_qdq_units_other;
    bool int8 = p->options.qdq_int8;
    const char *arm = "where int8 QDQ is allowed (--qdq-int8, as on ARM64)", *where = int8 ? arm : "on x86-64";
    if (!n) {
        if (other)
            mp_text_printf(b,
                           "qdq:               no DequantizeLinear -> op -> QuantizeLinear unit ONNX Runtime fuses %s; "
                           "%zu %s\n",
                           where, other, int8 ? "on x86-64 (without --qdq-int8)" : arm);
        return;
    }
    mp_text_printf(b, "qdq:               %zu DequantizeLinear -> op -> QuantizeLinear unit%s ", n, n == 1 ? "" : "s");
    if (p->n_qdq_fused)
        mp_text_printf(
            b,
            "planned fused (--fuse-qdq), as ONNX Runtime's CPU execution provider runs them %s: the op reads "
            "and writes the quantized tensors\n",
            where);
    else
        mp_text_printf(
            b,
            "planned as written (float values between them); ONNX Runtime's CPU execution provider fuses such "
            "units %s into int8 ops, so it may need less (--fuse-qdq plans them so)\n",
            where);
    if (c->other_known) {
        mp_buf_puts(b, p->n_qdq_fused ? "  as written:      peak " : "  fused:           peak ");
        human_bytes(b, c->other_peak);
        mp_buf_putc(b, '\n');
    }
    if (other != n)
        mp_text_printf(b, "  %s%zu unit%s\n", int8 ? "on x86-64:       " : "with --qdq-int8: ", other,
                       other == 1 ? "" : "s");
}

/* The onnxruntime line: when ONNX Runtime runs the main graph's nodes in
 * another order than the file's, how many positions move and its lower
 * bound beside the arena's in the file order. */
static void text_ort_order(mp_buf *b, const memplan_model_plan *p) {
    if (!p->ort_order.known || !p->ort_order.moved) return;
    uint64_t here = p->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes, there = p->ort_order.lower_bound;
    mp_text_printf(b,
                   "onnxruntime:       runs the nodes in another order (--order onnxruntime: %d of %d positions "
                   "move); lower bound there ",
                   (int)p->ort_order.moved, (int)p->positions);
    human_bytes(b, there);
    if (there == here) mp_buf_puts(b, ", the same\n");
    else
        mp_text_printf(b, ", %.1f%% %s the file order's\n",
                       100.0 * (double)(there > here ? there - here : here - there) / (double)here,
                       there > here ? "above" : "below");
}

/* The workspace line: the kernel workspace ONNX Runtime's CPU kernels
 * take, in the plan (--workspace) or beside it. */
static void text_workspace(mp_buf *b, const memplan_model_plan *p) {
    if (!p->workspace.known || (!p->workspace.nodes && !p->workspace.unknown)) return;
    mp_buf_puts(b, p->workspace.included ? "workspace:         in the plan (--workspace): "
                                         : "workspace:         not in the plan (--workspace adds it): ");
    mp_buf_puts(b, "ONNX Runtime's CPU kernels take scratch memory at ");
    if (p->workspace.nodes) {
        const memplan_node *n = p->workspace.largest_node;
        mp_text_printf(b, "%zu node%s, the largest ", p->workspace.nodes, p->workspace.nodes == 1 ? "" : "s");
        human_bytes(b, p->workspace.largest_bytes);
        mp_buf_puts(b, " at '");
        mp_text_put(b, n->name);
        mp_text_printf(b, "' (%s: %s)", n->op_type, p->workspace.what);
    }
    if (p->workspace.unknown)
        mp_text_printf(b, "%s%zu node%s of a size not known", p->workspace.nodes ? ", and " : "", p->workspace.unknown,
                       p->workspace.unknown == 1 ? "" : "s");
    if (!p->workspace.included && p->workspace.nodes) {
        mp_buf_puts(b, p->workspace.unknown ? "; lower bound with the known ones " : "; lower bound with it ");
        human_bytes(b, p->workspace.lower_bound);
    }
    mp_buf_putc(b, '\n');
}

/* The float16 line: the float16 nodes ONNX Runtime's CPU execution provider
 * runs in float32, with float32 copies the plan does not hold. */
static void text_float16(mp_buf *b, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    if (c->r->float16_graph)
        mp_text_printf(b,
                       "float16:           the graph ONNX Runtime's CPU kernels (x86-64) run (--float16-cpu): %lld "
                       "node%s in float32, %lld Cast%s added, %lld of the file's dropped\n",
                       (long long)c->r->float16_graph->float32_nodes,
                       c->r->float16_graph->float32_nodes == 1 ? "" : "s", (long long)c->r->float16_graph->casts,
                       c->r->float16_graph->casts == 1 ? "" : "s", (long long)c->r->float16_graph->casts_removed);
    if (!p->float16_cpu.nodes) return;
    mp_text_printf(
        b, "float16:           as written; ONNX Runtime's CPU kernels (x86-64) run %zu float16 node%s in float32 (",
        p->float16_cpu.nodes, p->float16_cpu.nodes == 1 ? "" : "s");
    for (size_t i = 0; i < p->float16_cpu.n_ops; i++) {
        if (i) mp_buf_puts(b, ", ");
        mp_text_put(b, p->float16_cpu.ops[i]);
    }
    mp_buf_puts(b, p->float16_cpu.n_ops == 8 ? ", ...)" : ")");
    mp_buf_puts(b, ", casting their inputs, weights and outputs: float32 copies the plan does not hold");
    if (p->float16_cpu.weights_known && p->float16_cpu.weight_bytes != p->weight_bytes) {
        mp_buf_puts(b, "; its weights then ");
        human_bytes(b, p->float16_cpu.weight_bytes);
    }
    if (c->f16_planned) {
        mp_buf_puts(b, "; the graph it runs plans at ");
        human_bytes(b, c->f16_peak);
        if (c->f16_ort_known) {
            mp_buf_puts(b, ", in its order ");
            human_bytes(b, c->f16_ort_bound);
        }
        mp_buf_puts(b, " (--float16-cpu)");
    }
    mp_buf_putc(b, '\n');
}

/* The inputs and total lines of the main graph's plan. */
static void text_total(mp_buf *b, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    bool in_arena = p->options.include_inputs;
    mp_buf_puts(b, "inputs:            ");
    human_bytes(b, p->input_bytes);
    mp_text_printf(b, " in %zu value%s", p->n_inputs_known, p->n_inputs_known == 1 ? "" : "s");
    if (p->n_inputs_unknown) mp_text_printf(b, ", and %zu of unknown size", p->n_inputs_unknown);
    mp_buf_puts(b, in_arena ? " (in the arena: --include-inputs)\n" : " (outside the arena)\n");
    text_qdq(b, c);
    if (p->n_shares) {
        mp_text_printf(b, "shared:            %zu output%s written into inputs' buffers (--share-kv)", p->n_shares,
                       p->n_shares == 1 ? "" : "s");
        for (size_t i = 0; i < p->n_shares && i < 3; i++) {
            mp_buf_puts(b, i ? ", " : ": ");
            mp_text_put(b, p->graph->values[p->shares[i].value].name);
            mp_buf_puts(b, " -> ");
            mp_text_put(b, p->graph->values[p->shares[i].source].name);
        }
        mp_buf_puts(b, p->n_shares > 3 ? ", ...\n" : "\n");
    }
    uint64_t total;
    const char *why = memplan_plan_total(p, c->r->strategy, &total);
    mp_buf_puts(b, "total:             ");
    if (why) {
        mp_text_printf(b, "unknown (%s)\n", why);
        return;
    }
    human_bytes(b, total);
    mp_buf_puts(b, in_arena ? " = weights + peak (the inputs are in the arena)\n" : " = weights + inputs + peak\n");
}

/* What the shape inference noted (a --dim no dim takes, an op without a
 * rule, a declared shape the inference contradicts), one per line. */
static void text_notes(mp_buf *b, const memplan_model_plan *p) {
    for (size_t i = 0; i < memplan_shapes_note_count(p->shapes); i++) {
        mp_buf_puts(b, i ? "                   " : "notes:             ");
        mp_text_put(b, memplan_shapes_note(p->shapes, i));
        mp_buf_putc(b, '\n');
    }
}

static void plan_text(mp_buf *b, const plan_ctx *c) {
    const memplan_model_plan *p = c->p;
    const memplan_plan_figures *f = c->f;
    mp_text_printf(b, "positions:         %d nodes\n", (int)p->positions);
    mp_text_printf(b, "buffers:           %zu planned, %zu unplanned, %zu unknown\n", p->n_buffers, p->n_unplanned,
                   p->n_unknown);
    if (deferred(c)) {
        text_deferred(b, p);
    } else {
        mp_text_printf(b, "strategy:          %s, align %llu\n", memplan_strategy_name(c->r->strategy),
                       (unsigned long long)p->options.align);
        text_upper_bounds(b, p);
        mp_buf_puts(b, "naive:             ");
        human_bytes(b, f->naive_bytes);
        mp_buf_puts(b, "\npeak:              ");
        human_bytes(b, f->peak_bytes);
        mp_buf_puts(b, "\nlower bound:       ");
        human_bytes(b, f->lower_bound_bytes);
        mp_text_printf(b, "\nsavings:           %.1f%%\n", 100.0 * f->savings_ratio);
        if (slots_strategy(c) && f->layout_bytes != f->peak_bytes) {
            mp_buf_puts(b, "slot layout:       ");
            human_bytes(b, f->layout_bytes);
            mp_text_printf(b, " (slots at offsets aligned to %llu)\n", (unsigned long long)p->options.align);
        }
        mp_text_printf(b, "compare:           arena %llu%s, slots %llu, exact reuse %llu\n",
                       (unsigned long long)p->arena.arena_bytes, p->arena.optimal ? " (optimal)" : "",
                       (unsigned long long)p->slots.peak_bytes, (unsigned long long)p->exact.peak_bytes);
        if (f->inplace_saved_known)
            mp_text_printf(b, "in-place reuse:    saves %lld bytes\n", (long long)f->inplace_saved_bytes);
        if (p->order.asked != MEMPLAN_ORDER_FILE) text_order(b, c);
        text_ort_order(b, p);
        text_workspace(b, p);
        text_float16(b, c);
        if (!c->r->no_at_peak) text_at_peak(b, c);
    }
    mp_buf_puts(b, "weights:           ");
    human_bytes(b, p->weight_bytes);
    mp_text_printf(b, " in %zu value%s", p->n_weights, p->n_weights == 1 ? "" : "s");
    if (p->n_weights_unknown) mp_text_printf(b, ", and %zu of unknown size", p->n_weights_unknown);
    mp_buf_puts(b, p->options.constants_as_activations
                       ? " kept once loaded (initializers)\n"
                       : " kept once loaded (initializers and constants folded at load)\n");
    if (p->n_load_only) {
        mp_buf_puts(b, "load-only:         ");
        human_bytes(b, p->load_only_bytes);
        mp_text_printf(b, " in %zu value%s read or computed at load, then dropped\n", p->n_load_only,
                       p->n_load_only == 1 ? "" : "s");
    }
    if (!p->parent) {
        text_total(b, c);
        text_unplanned(b, p);
        text_notes(b, p);
    }
    if (p->n_subgraphs) {
        mp_buf_puts(b, "subgraphs:         each body's arena and state, held at its node's position\n");
        text_subgraphs(b, p, 1);
    }
}

/* ---- the shapes document ---------------------------------------------- */

static const char *kind_label(const memplan_vshape *v) {
    switch (v->kind) {
    case MEMPLAN_TYPE_TENSOR:
    case MEMPLAN_TYPE_SPARSE_TENSOR: return v->elem_type ? memplan_dtype_name(v->elem_type) : NULL;
    case MEMPLAN_TYPE_SEQUENCE: return "sequence";
    case MEMPLAN_TYPE_MAP: return "map";
    case MEMPLAN_TYPE_OPTIONAL: return "optional";
    case MEMPLAN_TYPE_OPAQUE: return "opaque";
    default: return NULL;
    }
}

/* An amount as a JSON integer when constant, else its expression string. */
static void json_amount(mp_json *j, memplan_expr_pool *p, memplan_expr e) {
    int64_t k;
    if (e == MEMPLAN_EXPR_NONE) mp_json_null(j);
    else if (memplan_expr_is_const(p, e, &k))
        mp_json_int(j, k);
    else
        mp_json_str(j, memplan_expr_str(p, e));
}

static const char *origin_name(memplan_origin o) {
    return o == MEMPLAN_ORIGIN_DECLARED ? "declared" : o == MEMPLAN_ORIGIN_INFERRED ? "inferred" : "none";
}

static void shapes_json(mp_json *j, const memplan_graph *g, memplan_shapes *S, const memplan_request *r) {
    memplan_expr_pool *p = memplan_shapes_pool(S);
    int64_t n_known = 0, n_symbolic = 0, n_unknown = 0;
    mp_json_obj(j);
    MP_JSON_KEY(j, "values");
    mp_json_arr(j);
    for (int32_t v = 0; v < g->n_values; v++) {
        const memplan_vshape *vs = memplan_shapes_value(S, g, v);
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, g->values[v].name);
        MP_JSON_KEY(j, "dtype");
        mp_json_str(j, kind_label(vs));
        MP_JSON_KEY(j, "shape");
        if (vs->rank < 0) {
            mp_json_null(j);
        } else {
            mp_json_arr(j);
            for (int32_t i = 0; i < vs->rank; i++)
                json_amount(j, p,
                            r->shapes.n_bindings
                                ? memplan_expr_bind(p, vs->dims[i], r->shapes.bindings, r->shapes.n_bindings)
                                : vs->dims[i]);
            mp_json_end(j);
        }
        memplan_expr bytes = vs->bytes == MEMPLAN_EXPR_NONE || !r->shapes.n_bindings
                                 ? vs->bytes
                                 : memplan_expr_bind(p, vs->bytes, r->shapes.bindings, r->shapes.n_bindings);
        int64_t k;
        if (bytes == MEMPLAN_EXPR_NONE) n_unknown++;
        else if (memplan_expr_is_const(p, bytes, &k))
            n_known++;
        else
            n_symbolic++;
        MP_JSON_KEY(j, "bytes");
        json_amount(j, p, bytes);
        MP_JSON_KEY(j, "origin");
        mp_json_str(j, origin_name(vs->origin));
        if (bytes == MEMPLAN_EXPR_NONE) {
            MP_JSON_KEY(j, "reason");
            mp_json_str(j, vs->reason ? vs->reason : "unknown");
        }
        mp_json_end(j);
    }
    mp_json_end(j);
    MP_JSON_KEY(j, "summary");
    mp_json_obj(j);
    MP_JSON_KEY(j, "values");
    mp_json_int(j, g->n_values);
    MP_JSON_KEY(j, "static_bytes");
    mp_json_int(j, n_known);
    MP_JSON_KEY(j, "symbolic_bytes");
    mp_json_int(j, n_symbolic);
    MP_JSON_KEY(j, "unknown_bytes");
    mp_json_int(j, n_unknown);
    mp_json_end(j);
    MP_JSON_KEY(j, "notes");
    json_notes(j, S);
    mp_json_end(j);
}

static void shapes_text(mp_buf *b, const memplan_graph *g, memplan_shapes *S, const memplan_request *r) {
    memplan_expr_pool *p = memplan_shapes_pool(S);
    for (int32_t v = 0; v < g->n_values; v++) {
        const memplan_vshape *vs = memplan_shapes_value(S, g, v);
        const char *dt = kind_label(vs);
        mp_text_printf(b, "%s: %s", g->values[v].name, dt ? dt : "?");
        if (vs->rank >= 0) {
            mp_buf_putc(b, '[');
            for (int32_t i = 0; i < vs->rank; i++) {
                memplan_expr e = r->shapes.n_bindings
                                     ? memplan_expr_bind(p, vs->dims[i], r->shapes.bindings, r->shapes.n_bindings)
                                     : vs->dims[i];
                if (i) mp_buf_putc(b, ',');
                mp_text_expr(b, memplan_expr_str(p, e));
            }
            mp_buf_putc(b, ']');
        }
        memplan_expr bytes = vs->bytes == MEMPLAN_EXPR_NONE || !r->shapes.n_bindings
                                 ? vs->bytes
                                 : memplan_expr_bind(p, vs->bytes, r->shapes.bindings, r->shapes.n_bindings);
        if (bytes == MEMPLAN_EXPR_NONE) mp_text_printf(b, "  (%s)\n", vs->reason ? vs->reason : "unknown");
        else {
            mp_buf_puts(b, "  ");
            mp_text_expr(b, memplan_expr_str(p, bytes));
            mp_text_printf(b, " bytes, %s\n", origin_name(vs->origin));
        }
    }
    for (size_t i = 0; i < memplan_shapes_note_count(S); i++)
        mp_text_printf(b, "note: %s\n", memplan_shapes_note(S, i));
}

memplan_status mp_run_shapes(MP_REPORT_ARGS) {
    (void)cache;
    memplan_shapes *S;
    memplan_status st = memplan_shapes_infer_opts(m, &r->shapes, &S, err);
    if (st) return st;
    mp_buf b;
    mp_buf_init(&b);
    if (json) {
        mp_json j;
        mp_json_init(&j, &b);
        shapes_json(&j, m->graph, S, r);
        mp_buf_putc(&b, '\n');
    } else {
        shapes_text(&b, m->graph, S, r);
    }
    memplan_shapes_free(S);
    return finish_buf(&b, out, len, err);
}

/* The plan's options come from the request; the strategy is a printing
 * choice (a plan holds both layouts). */
/* The graph ONNX Runtime's CPU execution provider runs, planned with the
 * options o through the cache's own cache for it (c->p, of the other cache,
 * stays valid). A graph that cannot be made or planned leaves the figures
 * unknown; only running out of memory fails the report. */
static memplan_status float16_side(mp_cache *cache, const memplan_model *m, const memplan_plan_options *o, plan_ctx *c,
                                   memplan_error *err) {
    const memplan_model *dm;
    mp_cache *sub;
    memplan_error own = {0};
    memplan_status st = mp_cache_float16_cpu(cache, m, &dm, &sub, &c->f16, &own);
    const memplan_model_plan *q = NULL;
    if (!st) {
        c->f16_made = true;
        st = mp_cache_plan(sub, dm, o, &q, &own);
    }
    if (st == MEMPLAN_ENOMEM) return memplan_error_set(err, st, "%s", own.message);
    if (st || q->deferred) return MEMPLAN_OK;
    c->f16_planned = true;
    c->f16_peak = q->figures[c->r->strategy].peak_bytes;
    c->f16_bound = q->figures[c->r->strategy].lower_bound_bytes;
    c->f16_ort_known = q->ort_order.known;
    c->f16_ort_bound = q->ort_order.known ? q->ort_order.lower_bound : 0;
    return MEMPLAN_OK;
}

memplan_status mp_run_plan(MP_REPORT_ARGS) {
    memplan_plan_options o;
    memplan_request_plan_options(r, &o);
    plan_ctx c = {.r = r};
    memplan_status st = mp_cache_plan(cache, m, &o, &c.p, err);
    if (st) return st;
    /* The text of a QDQ model gives the other reading's peak too (the page's
     * note does): planned through the cache, then this plan fetched again, as
     * a cached plan is valid only until the next call. */
    if (!json && c.p->n_qdq_units && !c.p->deferred) {
        memplan_plan_options other = o;
        other.fuse_qdq = !o.fuse_qdq;
        const memplan_model_plan *q = NULL;
        if ((st = mp_cache_plan(cache, m, &other, &q, err))) return st;
        c.other_known = !q->deferred;
        c.other_peak = q->figures[r->strategy].peak_bytes;
        if ((st = mp_cache_plan(cache, m, &o, &c.p, err))) return st;
    }
    if (c.p->float16_cpu.nodes && !c.p->deferred && (st = float16_side(cache, m, &o, &c, err))) return st;
    c.f = &c.p->figures[r->strategy];
    mp_buf b;
    mp_buf_init(&b);
    if (json) {
        mp_json j;
        mp_json_init(&j, &b);
        plan_json(&j, &c);
        mp_buf_putc(&b, '\n');
    } else {
        plan_text(&b, &c);
    }
    return finish_buf(&b, out, len, err);
}

/* reorder: the model's bytes with the nodes in the order of a plan under
 * --order (best unless given). */
memplan_status mp_run_reorder(MP_REPORT_ARGS) {
    (void)json;
    if (!r->model_bytes && !r->model_reader)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "reorder needs the model's bytes");
    memplan_plan_options o;
    memplan_request_plan_options(r, &o);
    if (!r->order_given) o.order = MEMPLAN_ORDER_BEST;
    /* --order onnxruntime: the file ONNX Runtime runs with the lowest peak
     * found (it runs its own order, which depends on the node indices): the
     * main graph's nodes as that plan's ort_order.written says (copied: a
     * cached plan lasts until the next call), the bodies as they are (the
     * plan in the file order writes them so) */
    int32_t *written = NULL;
    memplan_status st = MEMPLAN_OK;
    if (o.order == MEMPLAN_ORDER_ONNXRUNTIME) {
        const memplan_model_plan *q = NULL;
        st = mp_cache_plan(cache, m, &o, &q, err);
        size_t n = !st && q->ort_order.written ? (size_t)q->positions : 0;
        if (n && !(written = malloc(n * sizeof *written))) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        if (written) memcpy(written, q->ort_order.written, n * sizeof *written);
        o.order = MEMPLAN_ORDER_FILE;
    }
    const memplan_model_plan *p = NULL;
    if (!st) st = mp_cache_plan(cache, m, &o, &p, err);
    if (!st && p->deferred)
        st = memplan_error_set(
            err, MEMPLAN_EINPUT, "some sizes are not known, so no order can be chosen%s%s%s",
            p->n_unbound_dims ? ": bind " : "", p->n_unbound_dims ? p->unbound_dims[0] : "",
            p->n_unbound_dims ? (p->n_unbound_dims > 1 ? " and the other dims with --dim" : " with --dim") : "");
    unsigned char *bytes = NULL;
    if (!st && written)
        st = memplan_reorder_main(r->model_bytes, r->model_len, r->model_reader, p, written, &bytes, len, err);
    else if (!st)
        st = r->model_reader ? memplan_reorder_reader(r->model_reader, p, &bytes, len, err)
                             : memplan_reorder(r->model_bytes, r->model_len, p, &bytes, len, err);
    free(written);
    *out = (char *)bytes;
    return st;
}

memplan_status mp_run_info(MP_REPORT_ARGS) {
    (void)cache;
    (void)r;
    return json ? memplan_info_json(m, out, len, err) : memplan_info_text(m, out, len, err);
}
