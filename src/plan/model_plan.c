/*
 * model_plan.c -- the pipeline behind memplan_plan_model: shapes under the
 * bindings -> for each graph (the main graph, then every control-flow body,
 * recursively): weights, view map (+ in-place links), liveness, sizes, the
 * bodies' plans as transient buffers, slot plans and arena -> figures. Each
 * stage is called through its public header; the planners see buffers
 * (sizes and intervals) only. This is the one file of src/plan/ that knows
 * there is a model.
 *
 * A body is planned like a graph of its own. What it needs at its node's
 * position in the parent is its arena plus its state: the body inputs the node
 * feeds it (a Loop's iteration count, condition and carried values, a Scan's
 * state; a Scan's sliced inputs are views of the parent's), held while the
 * next iteration's values are made. An If runs one branch: the one its
 * condition selects, or, when the condition is not known, the larger one (and
 * the plan says so). Every other node with bodies runs them one at a time:
 * the largest counts. An If branch writes its outputs into the If's outputs,
 * so they are not in the branch's arena; a Loop or Scan body's outputs are
 * (the next iteration reads them while the parent's copy is made).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/inplace.h"
#include "memplan/model_plan.h"
#include "memplan/qdq.h"
#include "memplan/validate.h"
#include "memplan/workspace.h"
#include "plan/model_order.h"
#include "plan/model_plan_internal.h"
#include "util/strmap.h"

void memplan_plan_options_init(memplan_plan_options *o) {
    memset(o, 0, sizeof *o);
    o->align = MEMPLAN_PACK_DEFAULT_ALIGN;
    o->budget_ms = MEMPLAN_PACK_DEFAULT_BUDGET_MS;
    o->order = MEMPLAN_ORDER_FILE;
    o->order_budget_ms = MEMPLAN_ORDER_DEFAULT_BUDGET_MS;
}

const char *memplan_strategy_name(memplan_strategy s) { return s == MEMPLAN_STRATEGY_SLOTS ? "slots" : "arena"; }

/* The plan's owned arrays, behind the const pointers the header shows. */
typedef struct plan_impl {
    memplan_model_plan pub;
    memplan_binding *bindings; /* copy of the options' bindings; names in one block */
    char *binding_names;
    memplan_bounded_dim *bounded;
    memplan_size *size;
    uint8_t *constant;
    uint8_t *held; /* per value: a weight a runtime keeps after load (mark_held) */
    memplan_buffer *buffers;
    int32_t *buffer_value;
    int32_t *buf_of; /* per value: buffer index or -1 */
    memplan_value_plan *values;
    int32_t *unplanned, *unknown;
    const char **unbound_dims;
    const char **internal_dims;
    int32_t *value_inputs;
    uint64_t *slot_offset;
    memplan_plan_link *links;
    memplan_plan_link *shares;
    memplan_transient *transients;
    memplan_subgraph_plan *subgraphs;
    char **attr_names;         /* owned "name[i]" for GRAPHS attributes, else NULL */
    mp_graph_copy *graph_copy; /* a graph under an order: the graph planned */
    int32_t *order_node;       /* its order (order.node) */
    int32_t *ort_written;      /* pub.ort_order.written */
    memplan_qdq_unit *qdq;     /* the QDQ units' entries (a Split's one per output); the first
                                  n_qdq_fused are planned fused */
    size_t n_qdq, n_qdq_fused;
    int32_t *quantized_as;            /* pub.quantized_as */
    struct plan_impl *with_workspace; /* the main plan made with options.kernel_workspace, for
                                         pub.workspace when the graph has bodies; else NULL */
} plan_impl;

/* What every graph of one plan shares. */
typedef struct plan_env {
    const memplan_model *m;
    const memplan_plan_options *o; /* the main plan's options, as given */
    uint64_t total_nodes;          /* in the main graph and every body below it */
    const struct plan_env *file;   /* the same with o->order FILE (itself when it is) */
    mp_order_memo *memo;           /* the bodies' orders found so far */
} plan_env;

static memplan_status oom(memplan_error *err) { return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory"); }

/* Nodes of g and of every body below it. */
static uint64_t count_nodes(const memplan_graph *g) {
    uint64_t n = (uint64_t)g->n_nodes;
    for (int32_t p = 0; p < g->n_nodes; p++)
        for (int32_t k = 0; k < g->nodes[p].n_subgraphs; k++) n += count_nodes(g->nodes[p].subgraphs[k]);
    return n;
}

static void plan_free(plan_impl *k, bool root) {
    memplan_model_plan *p = &k->pub;
    if (k->with_workspace) plan_free(k->with_workspace, true);
    for (size_t i = 0; i < p->n_subgraphs; i++) plan_free((plan_impl *)k->subgraphs[i].plan, false);
    for (size_t i = 0; k->attr_names && i < p->n_subgraphs; i++) free(k->attr_names[i]);
    if (root) memplan_shapes_free(p->shapes);
    if (k->graph_copy) mp_graph_copy_free(k->graph_copy);
    free(k->graph_copy);
    free(k->order_node);
    free(k->ort_written);
    memplan_liveness_free(&p->liveness);
    memplan_slot_plan_free(&p->slots);
    memplan_slot_plan_free(&p->exact);
    memplan_arena_plan_free(&p->arena);
    free(k->bindings);
    free(k->binding_names);
    free(k->bounded);
    free(k->size);
    free(k->constant);
    free(k->held);
    free(k->buffers);
    free(k->buffer_value);
    free(k->buf_of);
    free(k->values);
    free(k->unplanned);
    free(k->unknown);
    free(k->unbound_dims);
    free(k->internal_dims);
    free(k->value_inputs);
    free(k->slot_offset);
    free(k->links);
    free(k->shares);
    free(k->transients);
    free(k->subgraphs);
    free(k->attr_names);
    free(k->qdq);
    free(k->quantized_as);
    free(k);
}

void memplan_model_plan_free(memplan_model_plan *p) {
    if (p) plan_free((plan_impl *)p, true);
}

/* The options, with the bindings copied into the plan (values are read
 * by shape inference only). An upper-bound plan binds each ranged dim at
 * its hi too; the data-dependent dims are added after inference
 * (bind_data_bounds). */
static memplan_status copy_options(plan_impl *k, const memplan_plan_options *o, memplan_error *err) {
    k->pub.options = *o;
    k->pub.options.bindings = NULL;
    k->pub.options.n_bindings = 0;
    k->pub.options.values = NULL;
    k->pub.options.n_values = 0;
    k->pub.options.ranges = NULL;
    k->pub.options.n_ranges = 0;
    size_t nr = o->upper_bounds ? o->n_ranges : 0, n = o->n_bindings + nr;
    for (size_t i = 0; i < o->n_ranges; i++) {
        if (o->ranges[i].lo < 0 || o->ranges[i].lo > o->ranges[i].hi)
            return memplan_error_set(err, MEMPLAN_EUSAGE, "the range of dim '%s' is empty", o->ranges[i].name);
        for (size_t b = 0; b < o->n_bindings; b++)
            if (strcmp(o->bindings[b].name, o->ranges[i].name) == 0)
                return memplan_error_set(err, MEMPLAN_EUSAGE, "dim '%s' is given both a value and a range",
                                         o->ranges[i].name);
    }
    if (!n) return MEMPLAN_OK;
    size_t chars = 0;
    for (size_t i = 0; i < n; i++)
        chars += strlen(i < o->n_bindings ? o->bindings[i].name : o->ranges[i - o->n_bindings].name) + 1;
    k->bindings = malloc(n * sizeof *k->bindings);
    k->binding_names = malloc(chars);
    k->bounded = malloc((nr ? nr : 1) * sizeof *k->bounded);
    if (!k->bindings || !k->binding_names || !k->bounded) return oom(err);
    char *at = k->binding_names;
    for (size_t i = 0; i < n; i++) {
        const char *name = i < o->n_bindings ? o->bindings[i].name : o->ranges[i - o->n_bindings].name;
        size_t len = strlen(name) + 1;
        memcpy(at, name, len);
        k->bindings[i].name = at;
        k->bindings[i].value = i < o->n_bindings ? o->bindings[i].value : o->ranges[i - o->n_bindings].hi;
        if (i >= o->n_bindings)
            k->bounded[k->pub.n_bounded++] =
                (memplan_bounded_dim){at, k->bindings[i].value, false, o->ranges[i - o->n_bindings].lo};
        at += len;
    }
    k->pub.options.bindings = k->bindings;
    k->pub.options.n_bindings = n;
    k->pub.bounded = k->bounded;
    return MEMPLAN_OK;
}

/* An upper-bound plan: each data-dependent dim whose bound evaluates under
 * the bindings so far is bound at it, for sizes only (inference keeps the
 * symbol). A bound may name another data-dependent dim (NonZero of a
 * NonZero's output), so passes repeat until one adds nothing. */
static memplan_status bind_data_bounds(plan_impl *k, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    size_t nd = memplan_shapes_data_dim_count(p->shapes);
    if (!nd) return MEMPLAN_OK;
    size_t cap = p->options.n_bindings + nd;
    memplan_binding *b = realloc(k->bindings, cap * sizeof *b);
    if (b) k->bindings = b;
    memplan_bounded_dim *bd = b ? realloc(k->bounded, (p->n_bounded + nd) * sizeof *bd) : NULL;
    if (bd) k->bounded = bd;
    if (!b || !bd) return oom(err);
    memplan_expr_pool *pool = memplan_shapes_pool(p->shapes);
    size_t n = p->options.n_bindings;
    for (bool added = true; added;) {
        added = false;
        for (size_t i = 0; i < nd; i++) {
            memplan_expr bound;
            const char *name = memplan_shapes_data_dim(p->shapes, i, &bound);
            bool done = false;
            for (size_t j = 0; j < n && !done; j++) done = strcmp(b[j].name, name) == 0;
            int64_t v;
            if (done || bound == MEMPLAN_EXPR_NONE || memplan_expr_eval(pool, bound, b, n, &v, NULL)) continue;
            b[n++] = (memplan_binding){name, v};
            bd[p->n_bounded++] = (memplan_bounded_dim){name, v, true, 0};
            added = true;
        }
    }
    p->options.bindings = b;
    p->options.n_bindings = n;
    p->bounded = bd;
    return MEMPLAN_OK;
}

/* options.fuse_qdq: the QDQ units' views (memplan_qdq_fuse_views), for
 * the units whose op and QuantizeLinear outputs are buffers of this plan (an
 * If branch's output is the If's: that unit stays as written), and no view
 * for a value whose buffer is outside it. The units fused are moved to the
 * front of k->qdq; collect_buffers sizes their op's output as the quantized
 * one. */
/* Whether the entries of the unit at k->qdq[i] (its node's, up to *end) hold
 * a value outside the plan. */
static bool unit_outside(const plan_impl *k, const uint8_t *external, size_t i, size_t *end) {
    bool out = false;
    size_t j = i;
    for (; j < k->n_qdq && k->qdq[j].node == k->qdq[i].node; j++) {
        const memplan_qdq_unit *u = &k->qdq[j];
        out |= external[u->output] || (u->quantized >= 0 && external[u->quantized]) ||
               (u->between >= 0 && external[u->between]);
    }
    *end = j;
    return out;
}

static memplan_status fuse_qdq(plan_impl *k, const uint8_t *external, memplan_viewmap *vm, memplan_error *err) {
    const memplan_graph *g = k->pub.graph;
    size_t n = 0;
    memplan_qdq_unit *sorted = malloc((k->n_qdq ? k->n_qdq : 1) * sizeof *sorted);
    if (!sorted) return oom(err);
    /* The units fused first, in order (a node's entries stay adjacent), then
     * those with a value outside the plan. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass) k->n_qdq_fused = n;
        for (size_t i = 0, j; i < k->n_qdq; i = j)
            if (unit_outside(k, external, i, &j) == pass)
                for (size_t m = i; m < j; m++) sorted[n++] = k->qdq[m];
    }
    if (n) memcpy(k->qdq, sorted, n * sizeof *sorted);
    free(sorted);
    n = k->n_qdq_fused;
    int32_t *before = malloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *before);
    if (!before) return oom(err);
    memcpy(before, vm->source, (size_t)g->n_values * sizeof *before);
    memplan_status st = memplan_qdq_fuse_views(g, k->qdq, n, vm, err);
    for (int32_t v = 0; !st && v < g->n_values; v++)
        if (external[v]) vm->source[v] = before[v];
    k->pub.n_qdq_fused = memplan_qdq_unit_nodes(k->qdq, n);
    if (!st && n && !(k->quantized_as = malloc((size_t)g->n_values * sizeof *k->quantized_as))) st = oom(err);
    if (st || !n) {
        free(before);
        return st;
    }
    /* Each value a fused unit holds quantized: a DequantizeLinear output made a
     * view (of its input), the op's output and the Relu's or Clip's (of the
     * QuantizeLinear's output). */
    for (int32_t v = 0; v < g->n_values; v++) k->quantized_as[v] = vm->source[v] != before[v] ? vm->source[v] : -1;
    for (size_t i = 0; i < n; i++) {
        const memplan_qdq_unit *u = &k->qdq[i];
        if (u->quantized < 0) continue; /* a float output stays float */
        k->quantized_as[u->quantized] = -1;
        k->quantized_as[u->output] = u->quantized;
        if (u->between >= 0) k->quantized_as[u->between] = u->quantized;
    }
    free(before);
    k->pub.quantized_as = k->quantized_as;
    return MEMPLAN_OK;
}

/* The view map: the default policy, the QDQ units fused (options.fuse_qdq),
 * then (options.inplace) the in-place reuse pairs the analysis allows in this
 * graph, recorded as its links. */
static memplan_status build_views(plan_impl *k, const memplan_model *m, const uint8_t *external, memplan_viewmap *vm,
                                  memplan_error *err) {
    const memplan_graph *g = k->pub.graph;
    memplan_status st = memplan_viewmap_default(vm, g, err);
    memplan_qdq_options qo = {k->pub.options.qdq_int8, memplan_model_opset(m, "")}, qother = qo;
    qother.int8_allowed = !qo.int8_allowed;
    memplan_qdq_unit *other = NULL;
    size_t n_other = 0;
    if (!st) st = memplan_qdq_unit_list(g, k->pub.shapes, &qo, &k->qdq, &k->n_qdq, err);
    if (!st) st = memplan_qdq_unit_list(g, k->pub.shapes, &qother, &other, &n_other, err);
    k->pub.n_qdq_units = memplan_qdq_unit_nodes(k->qdq, k->n_qdq);
    k->pub.n_qdq_units_other = memplan_qdq_unit_nodes(other, n_other);
    free(other);
    if (!st && k->pub.options.fuse_qdq) st = fuse_qdq(k, external, vm, err);
    if (st || !k->pub.options.inplace) return st;
    int32_t *before = malloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *before);
    if (!before) return oom(err);
    memcpy(before, vm->source, (size_t)g->n_values * sizeof *before);
    memplan_inplace_options io = {k->pub.options.allow_input_overwrite, false};
    memplan_inplace *ctx = NULL;
    st = memplan_inplace_compute_graph(m, g, k->pub.shapes, &io, &ctx, err);
    if (!st) st = memplan_inplace_view_links(ctx, vm, err);
    memplan_inplace_free(ctx);
    /* A value whose buffer is outside this plan (an If branch's output is the
     * If's; a folded constant) keeps it: no link. */
    for (int32_t v = 0; !st && v < g->n_values; v++)
        if (external[v]) vm->source[v] = before[v];
    /* A fused unit's op reads and writes quantized tensors: the analysis, which
     * sees the float ones, cannot pair it (its uint8 output would keep a float
     * input's buffer). Dropping a link only frees the others' constraints. */
    for (size_t i = 0; !st && i < k->n_qdq_fused; i++) vm->source[k->qdq[i].output] = before[k->qdq[i].output];
    size_t n = 0;
    for (int32_t v = 0; !st && v < g->n_values; v++) n += vm->source[v] != before[v];
    if (!st && !(k->links = malloc((n ? n : 1) * sizeof *k->links))) st = oom(err);
    for (int32_t v = 0; !st && v < g->n_values; v++)
        if (vm->source[v] != before[v]) k->links[k->pub.n_links++] = (memplan_plan_link){v, vm->source[v]};
    k->pub.links = k->links;
    free(before);
    return st;
}

/* Graph output `out`'s KV-cache input, or -1 (memplan_share_kv_pairs): ONNX
 * Runtime GenAI and Optimum name their caches past_key_values.N.key /
 * present.N.key, older GPT-2 exports past_N / present_N. A graph input or a
 * weight passed through to an output named present has no buffer of its own
 * to share. A look-up by name, so a model of many outputs and inputs costs
 * its outputs. */
static int32_t kv_input(const memplan_graph *g, int32_t out) {
    static const char *const PAST[] = {"past_key_values", "past"};
    const char *name = g->values[out].name, *rest = name + strlen("present");
    if (strncmp(name, "present", strlen("present")) != 0 || g->values[out].producer < 0) return -1; /* not written */
    char small[256], *key = small;
    size_t need = strlen(PAST[0]) + strlen(rest) + 1;
    if (need > sizeof small && !(key = malloc(need))) return -1;
    int32_t v = -1;
    for (size_t k = 0; k < sizeof PAST / sizeof PAST[0] && v < 0; k++) {
        strcpy(key, PAST[k]);
        strcat(key, rest);
        v = memplan_graph_find(g, key);
        if (v >= 0 && (!(g->values[v].flags & MEMPLAN_VALUE_INPUT) || (g->values[v].flags & MEMPLAN_VALUE_INITIALIZER)))
            v = -1;
    }
    if (key != small) free(key);
    return v;
}

size_t memplan_share_kv_pairs(const memplan_graph *g, memplan_plan_link *out) {
    size_t n = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) {
        int32_t o = g->outputs[i], past = kv_input(g, o);
        bool seen = false; /* an output listed twice is shared once */
        for (size_t j = 0; j < n && past >= 0; j++) seen |= out[j].value == o;
        if (past >= 0 && !seen) out[n++] = (memplan_plan_link){o, past};
    }
    return n;
}

/* options.share_kv: each present* output a view of its past* input. */
static memplan_status share_kv(plan_impl *k, memplan_viewmap *vm, memplan_error *err) {
    const memplan_graph *g = k->pub.graph;
    if (!(k->shares = malloc((size_t)(g->n_outputs ? g->n_outputs : 1) * sizeof *k->shares))) return oom(err);
    k->pub.shares = k->shares;
    k->pub.n_shares = memplan_share_kv_pairs(g, k->shares);
    for (size_t j = 0; j < k->pub.n_shares; j++) {
        memplan_status st = memplan_viewmap_add(vm, k->shares[j].value, k->shares[j].source, err);
        if (st) return st;
    }
    if (!k->pub.n_shares)
        return memplan_error_set(
            err, MEMPLAN_EUSAGE,
            "--share-kv: no graph output named present... written by a node has a graph input named "
            "past_key_values... or past... with the same rest of its name");
    return MEMPLAN_OK;
}

/* A shared output larger than its input's buffer cannot be written there. */
static memplan_status check_shares(const plan_impl *k, memplan_error *err) {
    const memplan_graph *g = k->pub.graph;
    for (size_t j = 0; j < k->pub.n_shares; j++) {
        const memplan_size *o = &k->size[k->shares[j].value], *i = &k->size[k->shares[j].source];
        if (o->kind == MEMPLAN_SIZE_KNOWN && i->kind == MEMPLAN_SIZE_KNOWN && o->bytes > i->bytes)
            return memplan_error_set(err, MEMPLAN_EUSAGE,
                                     "--share-kv: '%s' (%llu B) does not fit in the buffer of '%s' (%llu B): a shared "
                                     "buffer holds the whole cache, so bind the past length to its full length",
                                     g->values[k->shares[j].value].name, (unsigned long long)o->bytes,
                                     g->values[k->shares[j].source].name, (unsigned long long)i->bytes);
    }
    return MEMPLAN_OK;
}

/* Weights (memplan/constants.h) and, for liveness, the values whose buffer
 * lives outside this plan: folded constants unless they are planned as
 * activations, and an If branch's outputs (the If's outputs). */
static memplan_status mark_external(plan_impl *k, const uint8_t *outer, bool if_branch, uint8_t **external,
                                    memplan_error *err) {
    const memplan_graph *g = k->pub.graph;
    memplan_status st = memplan_constants_default(g, outer, &k->constant, err);
    if (st) return st;
    if (k->pub.options.constants_as_activations)
        for (int32_t v = 0; v < g->n_values; v++)
            if (k->constant[v] == MEMPLAN_CONST_FOLDED) k->constant[v] = 0;
    k->pub.constant = k->constant;
    uint8_t *x = malloc((size_t)(g->n_values ? g->n_values : 1));
    if (!x) return oom(err);
    for (int32_t v = 0; v < g->n_values; v++) x[v] = k->constant[v] == MEMPLAN_CONST_FOLDED;
    for (int32_t i = 0; if_branch && i < g->n_outputs; i++) x[g->outputs[i]] = 1;
    *external = x;
    return MEMPLAN_OK;
}

/* Sizes of every value; the owners with a known size become buffers, the
 * others are listed as unplanned (no static size) or unknown. Room is left
 * for one transient buffer per node. */
static memplan_status collect_buffers(plan_impl *k, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    const memplan_graph *g = p->graph;
    const memplan_liveness *lv = &p->liveness;
    size_t nv = (size_t)(g->n_values ? g->n_values : 1), nb = nv + (size_t)g->n_nodes;
    k->size = calloc(nv, sizeof *k->size);
    k->buffers = calloc(nb, sizeof *k->buffers);
    k->buffer_value = calloc(nb, sizeof *k->buffer_value);
    k->buf_of = malloc(nv * sizeof *k->buf_of);
    k->unplanned = malloc(nv * sizeof *k->unplanned);
    k->unknown = malloc(nv * sizeof *k->unknown);
    if (!k->size || !k->buffers || !k->buffer_value || !k->buf_of || !k->unplanned || !k->unknown) return oom(err);
    for (int32_t v = 0; v < g->n_values; v++) {
        k->buf_of[v] = -1;
        k->size[v] = memplan_shapes_size(p->shapes, memplan_shapes_value(p->shapes, g, v), p->options.bindings,
                                         p->options.n_bindings);
    }
    /* What a fused unit holds quantized has the quantized value's size: the
     * op's output (the QuantizeLinear's output a view of it), and its views. */
    for (int32_t v = 0; p->quantized_as && v < g->n_values; v++)
        if (p->quantized_as[v] >= 0) k->size[v] = k->size[p->quantized_as[v]];
    for (int32_t i = 0; i < lv->n_owners; i++) {
        int32_t v = lv->owners[i];
        const memplan_size *s = &k->size[v];
        if (s->kind == MEMPLAN_SIZE_UNPLANNABLE) {
            k->unplanned[p->n_unplanned++] = v;
        } else if (s->kind != MEMPLAN_SIZE_KNOWN) {
            k->unknown[p->n_unknown++] = v;
        } else {
            k->buf_of[v] = (int32_t)p->n_buffers;
            k->buffer_value[p->n_buffers] = v;
            k->buffers[p->n_buffers] = (memplan_buffer){s->bytes, lv->start[v], (int64_t)lv->end[v] + 1};
            p->n_buffers++;
        }
    }
    p->size = k->size;
    p->buffers = k->buffers;
    p->buffer_value = k->buffer_value;
    p->unplanned = k->unplanned;
    p->unknown = k->unknown;
    return MEMPLAN_OK;
}

bool memplan_plan_node_folded(const memplan_model_plan *p, int32_t pos) {
    const memplan_node *n = &p->graph->nodes[pos];
    bool folded = n->n_outputs > 0;
    for (int32_t o = 0; folded && o < n->n_outputs; o++)
        folded = n->outputs[o] >= 0 && p->constant[n->outputs[o]] == MEMPLAN_CONST_FOLDED;
    return folded;
}

/* The weights a runtime keeps once the model is loaded: of the constant
 * values (initializers and values folded at load), those an unfolded node
 * reads, those that are graph outputs or graph inputs (an overridable
 * initializer), and those a body below keeps (a captured value, as the
 * body's own held[] says: an unfolded node there reads it, ...). The rest --
 * a folded chain's intermediates, an initializer only folding reads, one
 * nothing reads -- a runtime computes or reads while loading and drops
 * (ONNX Runtime's constant folding, then its removal of unused
 * initializers). A node is folded when its outputs are: folding is decided
 * for all of a node's outputs at once (memplan/constants.h). Run after the
 * bodies are planned: their held[] is read. */
static memplan_status mark_held(plan_impl *k, memplan_error *err) {
    const memplan_model_plan *p = &k->pub;
    const memplan_graph *g = p->graph;
    k->held = calloc((size_t)(g->n_values ? g->n_values : 1), 1);
    if (!k->held) return oom(err);
    for (int32_t v = 0; v < g->n_values; v++)
        if (k->constant[v] && (g->values[v].flags & (MEMPLAN_VALUE_OUTPUT | MEMPLAN_VALUE_INPUT))) k->held[v] = 1;
    for (int32_t pos = 0; pos < g->n_nodes; pos++) {
        const memplan_node *n = &g->nodes[pos];
        bool folded = memplan_plan_node_folded(p, pos);
        for (int32_t i = 0; !folded && i < n->n_inputs; i++)
            if (n->inputs[i] >= 0 && k->constant[n->inputs[i]]) k->held[n->inputs[i]] = 1;
    }
    for (size_t b = 0; b < p->n_subgraphs; b++) {
        const plan_impl *c = (const plan_impl *)p->subgraphs[b].plan;
        const memplan_graph *cg = c->pub.graph;
        for (int32_t w = 0; w < cg->n_values; w++)
            if ((cg->values[w].flags & MEMPLAN_VALUE_CAPTURE) && cg->values[w].outer >= 0 && c->held[w])
                k->held[cg->values[w].outer] = 1;
    }
    return MEMPLAN_OK;
}

/* The weights of this graph (its bodies' were added as they were planned):
 * the held ones count; the others count as load-only. */
static void count_weights(plan_impl *k) {
    memplan_model_plan *p = &k->pub;
    for (int32_t v = 0; v < p->graph->n_values; v++) {
        if (!k->constant[v] || (p->graph->values[v].flags & MEMPLAN_VALUE_CAPTURE)) continue;
        bool known = k->size[v].kind == MEMPLAN_SIZE_KNOWN;
        if (!k->held[v]) { /* dropped after load: its size, known or not, is not held */
            p->n_load_only++;
            if (known && k->size[v].bytes <= UINT64_MAX - p->load_only_bytes) p->load_only_bytes += k->size[v].bytes;
            continue;
        }
        /* a sum beyond 64 bits counts the rest as unknown, as count_inputs does */
        if (known && k->size[v].bytes <= UINT64_MAX - p->weight_bytes) {
            p->weight_bytes += k->size[v].bytes;
            p->n_weights++;
        } else {
            p->n_weights_unknown++;
        }
    }
}

/* The main graph's inputs that are not initializers, outside the arena or
 * not (count_weights' counterpart; a sum beyond 64 bits counts as unknown). */
static void count_inputs(plan_impl *k) {
    memplan_model_plan *p = &k->pub;
    const memplan_graph *g = p->graph;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        int32_t v = g->inputs[i];
        if (g->values[v].flags & MEMPLAN_VALUE_INITIALIZER) continue;
        const memplan_size *s = &k->size[v];
        if (s->kind == MEMPLAN_SIZE_KNOWN && s->bytes <= UINT64_MAX - p->input_bytes) {
            p->input_bytes += s->bytes;
            p->n_inputs_known++;
        } else {
            p->n_inputs_unknown++;
        }
    }
}

const char *memplan_plan_total(const memplan_model_plan *p, memplan_strategy s, uint64_t *out) {
    *out = 0;
    if (p->parent) return "a body's inputs are its parent's buffers";
    if (p->deferred) return "the plan is deferred";
    if (p->n_weights_unknown) return "some weights have no known size";
    if (p->n_inputs_unknown) return "some graph inputs have no known size";
    uint64_t inputs = p->options.include_inputs ? 0 : p->input_bytes;
    uint64_t peak =
        p->figures[s == MEMPLAN_STRATEGY_SLOTS ? MEMPLAN_STRATEGY_SLOTS : MEMPLAN_STRATEGY_ARENA].peak_bytes;
    if (inputs > UINT64_MAX - p->weight_bytes || peak > UINT64_MAX - p->weight_bytes - inputs)
        return "the sum is beyond 64 bits";
    *out = p->weight_bytes + inputs + peak;
    return NULL;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static uint64_t align_up(uint64_t n, uint64_t align) { return (n + align - 1) / align * align; }

/* ---- control flow -------------------------------------------------------- */

static bool is_op(const memplan_node *n, const char *op) {
    return (!n->domain[0] || strcmp(n->domain, "ai.onnx") == 0) && strcmp(n->op_type, op) == 0;
}

static memplan_status plan_graph(const plan_env *env, const memplan_graph *g, const plan_impl *parent, bool if_branch,
                                 plan_impl **out, memplan_error *err);
static memplan_status plan_body(const plan_env *env, const memplan_graph *g, const plan_impl *parent, bool if_branch,
                                plan_impl **out, memplan_error *err);

/* The body inputs a node holds while the body runs (aligned bytes); false
 * when one's size is not known. Scan's sliced inputs are views of the
 * parent's inputs and cost nothing. */
static bool state_bytes(const plan_impl *child, const memplan_node *n, uint64_t align, uint64_t *out) {
    const memplan_model_plan *c = &child->pub;
    int32_t n_state = c->graph == n->call ? 0 : c->graph->n_inputs; /* a function's inputs are the node's */
    if (is_op(n, "Scan")) {
        int64_t scans = 0;
        for (int32_t a = 0; a < n->n_attrs; a++)
            if (strcmp(n->attrs[a].name, "num_scan_inputs") == 0) scans = n->attrs[a].i;
        if (scans >= 0 && scans <= n_state) n_state -= (int32_t)scans;
    }
    uint64_t sum = 0;
    for (int32_t i = 0; i < n_state; i++) {
        const memplan_size *s = &c->size[c->graph->inputs[i]];
        if (s->kind == MEMPLAN_SIZE_UNPLANNABLE) continue;
        if (s->kind != MEMPLAN_SIZE_KNOWN) return false;
        sum += align_up(s->bytes, align);
    }
    *out = sum;
    return true;
}

/* The If condition's value when shape inference knows it. */
static bool if_condition(const plan_impl *k, const memplan_node *n, bool *cond) {
    if (n->n_inputs < 1 || n->inputs[0] < 0) return false;
    const memplan_vshape *c = memplan_shapes_value(k->pub.shapes, k->pub.graph, n->inputs[0]);
    int64_t x;
    if (!c || c->n_elems != 1 || !memplan_expr_is_const(memplan_shapes_pool(k->pub.shapes), c->elems[0], &x))
        return false;
    *cond = x != 0;
    return true;
}

/* Plan one body of the node at pos (attribute `attr`, owned by the plan when
 * owned_name) and record it. */
static memplan_status add_body(plan_impl *k, const plan_env *env, int32_t pos, const char *attr, bool owned_name,
                               const memplan_graph *body, bool if_branch, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    plan_impl *child = NULL;
    memplan_status st = plan_body(env, body, k, if_branch, &child, err);
    if (st) {
        if (owned_name) free((char *)attr);
        return st;
    }
    size_t i = p->n_subgraphs++;
    k->attr_names[i] = owned_name ? (char *)attr : NULL;
    memplan_subgraph_plan *sp = &k->subgraphs[i];
    *sp = (memplan_subgraph_plan){.node = pos, .attribute = attr, .plan = &child->pub};
    uint64_t state = 0;
    sp->known = !child->pub.deferred && state_bytes(child, &p->graph->nodes[pos], p->options.align, &state);
    sp->state_bytes = state;
    if (sp->known) sp->transient_bytes = child->pub.arena.arena_bytes + state;
    if (child->pub.weight_bytes <= UINT64_MAX - p->weight_bytes) {
        p->weight_bytes += child->pub.weight_bytes;
        p->n_weights += child->pub.n_weights;
    } else { /* beyond 64 bits: the body's weights count as unknown */
        p->n_weights_unknown += child->pub.n_weights;
    }
    p->n_weights_unknown += child->pub.n_weights_unknown;
    p->n_load_only += child->pub.n_load_only;
    uint64_t room = UINT64_MAX - p->load_only_bytes;
    p->load_only_bytes += child->pub.load_only_bytes < room ? child->pub.load_only_bytes : room;
    return MEMPLAN_OK;
}

/* The copy of a model-local function's body the node at n calls, when its
 * shapes were inferred (an op with a rule is not called), else NULL. */
static const memplan_graph *called_body(const plan_impl *k, const memplan_node *n) {
    return n->call && memplan_shapes_graph_inferred(k->pub.shapes, n->call) ? n->call : NULL;
}

/* Every graph attribute of the node at pos; GRAPHS entries are "name[i]".
 * A call of a model-local function: its body, as an If branch (it writes
 * the node's outputs), attribute "function". */
static memplan_status plan_bodies(plan_impl *k, const plan_env *env, int32_t pos, memplan_error *err) {
    const memplan_node *n = &k->pub.graph->nodes[pos];
    bool is_if = is_op(n, "If");
    const memplan_graph *fn = called_body(k, n);
    memplan_status st = fn ? add_body(k, env, pos, "function", false, fn, true, err) : MEMPLAN_OK;
    for (int32_t a = 0; a < n->n_attrs && !st; a++) {
        const memplan_attr *at = &n->attrs[a];
        if (at->type == MEMPLAN_ATTR_GRAPH && at->g) st = add_body(k, env, pos, at->name, false, at->g, is_if, err);
        for (size_t i = 0; at->type == MEMPLAN_ATTR_GRAPHS && i < at->n && !st; i++) {
            char *name = malloc(strlen(at->name) + 24);
            if (!name) return oom(err);
            sprintf(name, "%s[%zu]", at->name, i);
            st = add_body(k, env, pos, name, true, at->graphs[i], false, err);
        }
    }
    return st;
}

/* The node's transient: which bodies count and how many bytes they need. */
static void count_bodies(plan_impl *k, size_t first, size_t end, int32_t pos) {
    memplan_model_plan *p = &k->pub;
    const memplan_node *n = &p->graph->nodes[pos];
    memplan_transient *t = &k->transients[p->n_transients++];
    *t = (memplan_transient){.node = pos, .known = true, .buffer = -1};
    bool cond;
    bool is_if = is_op(n, "If") && end - first == 2;
    size_t pick = first; /* If: the branch that counts */
    if (is_if) {
        memplan_subgraph_plan *a = &k->subgraphs[first], *b = &k->subgraphs[first + 1];
        bool a_then = strcmp(a->attribute, "then_branch") == 0;
        memplan_subgraph_plan *then_b = a_then ? a : b, *else_b = a_then ? b : a;
        if (if_condition(k, n, &cond)) {
            then_b->branch = cond ? MEMPLAN_BRANCH_TAKEN : MEMPLAN_BRANCH_NOT_TAKEN;
            else_b->branch = cond ? MEMPLAN_BRANCH_NOT_TAKEN : MEMPLAN_BRANCH_TAKEN;
            pick = (size_t)((cond ? then_b : else_b) - k->subgraphs);
        } else {
            then_b->branch = else_b->branch = MEMPLAN_BRANCH_UNKNOWN;
            /* the larger branch; one whose size is not known may be larger, so it is chosen */
            bool else_larger = !else_b->known || (then_b->known && else_b->transient_bytes > then_b->transient_bytes);
            pick = (size_t)((else_larger ? else_b : then_b) - k->subgraphs);
            t->assumption = k->subgraphs[pick].known
                                ? "the condition is not known: the larger branch is planned"
                                : "the condition is not known: a branch of unknown size may be the larger";
        }
    }
    /* A call's body is planned like an If branch, inside the node's time:
     * the call's inputs and outputs count from its start to its end, where
     * a runtime that inlines the function (ONNX Runtime does) may free an
     * input after its last read inside and make an output at its writer. */
    if (called_body(k, n))
        t->assumption = "a model-local function, planned as a body of its call: its inputs and outputs count "
                        "for the whole call, an upper bound where a runtime inlines it";
    for (size_t i = first; i < end; i++) {
        memplan_subgraph_plan *sp = &k->subgraphs[i];
        sp->counted = !is_if || i == pick;
        if (!sp->counted) continue;
        if (!sp->known) {
            t->known = false;
            continue;
        }
        t->bytes = max_u64(t->bytes, sp->transient_bytes);
        for (int s = 0; s < 2; s++) {
            const memplan_plan_figures *f = &sp->plan->figures[s ? MEMPLAN_STRATEGY_SLOTS : MEMPLAN_STRATEGY_ARENA];
            uint64_t naive =
                f->naive_bytes > UINT64_MAX - sp->state_bytes ? UINT64_MAX : f->naive_bytes + sp->state_bytes;
            t->naive_bytes[s] = max_u64(t->naive_bytes[s], naive);
        }
    }
    if (!t->known) t->bytes = t->naive_bytes[0] = t->naive_bytes[1] = 0;
}

/* What node_workspace reads for each node of one graph, found once: the
 * model's opset and the positions of the fused QDQ units' ops (NULL: none). */
typedef struct ws_scan {
    int64_t opset;
    uint8_t *fused;
} ws_scan;

static bool ws_scan_init(const plan_impl *k, const plan_env *env, ws_scan *s) {
    s->opset = memplan_model_opset(env->m, "");
    s->fused = NULL;
    if (!k->n_qdq_fused) return true;
    if (!(s->fused = calloc((size_t)k->pub.positions, 1))) return false;
    for (size_t i = 0; i < k->n_qdq_fused; i++) s->fused[k->qdq[i].node] = 1;
    return true;
}

/* The workspace ONNX Runtime's CPU kernel takes to run the node at pos
 * (memplan/workspace.h). A node folded at load never runs, and a fused QDQ
 * unit's op runs as another kernel (QLinearConv...): neither has one here. */
static memplan_workspace_status node_workspace(const plan_impl *k, const ws_scan *s, int32_t pos,
                                               memplan_workspace *w) {
    const memplan_model_plan *p = &k->pub;
    *w = (memplan_workspace){0, NULL};
    if (memplan_plan_node_folded(p, pos) || (s->fused && s->fused[pos])) return MEMPLAN_WORKSPACE_NONE;
    return memplan_workspace_onnxruntime(p->shapes, p->graph, pos, s->opset, p->options.bindings, p->options.n_bindings,
                                         w);
}

/* options.kernel_workspace: the node's workspace, when it has one, as its transient. */
static void add_workspace(plan_impl *k, const ws_scan *s, int32_t pos) {
    memplan_model_plan *p = &k->pub;
    memplan_workspace w;
    memplan_workspace_status ws = node_workspace(k, s, pos, &w);
    if (ws == MEMPLAN_WORKSPACE_NONE) return;
    memplan_transient *t = &k->transients[p->n_transients++];
    *t = (memplan_transient){.node = pos, .workspace = true, .buffer = -1, .assumption = w.what};
    t->known = ws == MEMPLAN_WORKSPACE_KNOWN;
    if (!t->known) return;
    t->bytes = w.bytes;
    t->naive_bytes[0] = align_up(w.bytes, p->options.align);
    t->naive_bytes[1] = w.bytes;
}

/* Plan every body and give each control-flow node its transient buffer;
 * with options.kernel_workspace, every other node its workspace. */
static memplan_status plan_control_flow(plan_impl *k, const plan_env *env, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    const memplan_graph *g = p->graph;
    size_t bodies = 0, nodes = 0;
    for (int32_t pos = 0; pos < g->n_nodes; pos++) {
        const memplan_node *n = &g->nodes[pos];
        size_t before = bodies;
        bodies += called_body(k, n) != NULL;
        for (int32_t a = 0; a < n->n_attrs; a++)
            bodies += n->attrs[a].type == MEMPLAN_ATTR_GRAPH    ? 1
                      : n->attrs[a].type == MEMPLAN_ATTR_GRAPHS ? n->attrs[a].n
                                                                : 0;
        nodes += bodies > before;
    }
    bool workspace = p->options.kernel_workspace;
    if (workspace) nodes = (size_t)g->n_nodes;
    if (!nodes) return MEMPLAN_OK;
    k->subgraphs = calloc(bodies ? bodies : 1, sizeof *k->subgraphs);
    k->attr_names = calloc(bodies ? bodies : 1, sizeof *k->attr_names);
    k->transients = calloc(nodes, sizeof *k->transients);
    if (!k->subgraphs || !k->attr_names || !k->transients) return oom(err);
    p->subgraphs = k->subgraphs;
    p->transients = k->transients;
    ws_scan scan = {0, NULL};
    if (workspace && !ws_scan_init(k, env, &scan)) return oom(err);
    memplan_status st = MEMPLAN_OK;
    for (int32_t pos = 0; pos < g->n_nodes && !st; pos++) {
        size_t first = p->n_subgraphs;
        st = plan_bodies(k, env, pos, err);
        if (st) break;
        if (p->n_subgraphs > first) count_bodies(k, first, p->n_subgraphs, pos);
        else if (workspace)
            add_workspace(k, &scan, pos);
    }
    free(scan.fused);
    if (st) return st;
    /* Known transients become buffers, after the owners (a transient starts
     * with the node's outputs and is placed after them). */
    for (size_t i = 0; i < p->n_transients; i++) {
        memplan_transient *t = &k->transients[i];
        if (!t->known) continue;
        t->buffer = (int64_t)p->n_buffers;
        k->buffer_value[p->n_buffers] = -1;
        k->buffers[p->n_buffers++] = (memplan_buffer){t->bytes, t->node, (int64_t)t->node + 1};
    }
    return MEMPLAN_OK;
}

/* ---- placement ----------------------------------------------------------- */

/* A growable list of dim names, each once. */
typedef struct dim_list {
    const char **names;
    size_t n, cap;
} dim_list;

/* Append names not seen yet: internal symbols to `internal`, the rest to
 * `bindable`. */
static memplan_status add_dims(plan_impl *k, mp_strmap *seen, dim_list *bindable, dim_list *internal,
                               const char *const *names, size_t n, memplan_error *err) {
    for (size_t j = 0; j < n; j++) {
        if (mp_strmap_get(seen, names[j]) >= 0) continue;
        if (!mp_strmap_put(seen, names[j], 1)) return oom(err);
        dim_list *l = memplan_shapes_internal_dim(k->pub.shapes, names[j], NULL) ? internal : bindable;
        if (l->n == l->cap) {
            size_t want = l->cap ? 2 * l->cap : 8;
            const char **grown = realloc(l->names, want * sizeof *grown);
            if (!grown) return oom(err);
            l->names = grown;
            l->cap = want;
        }
        l->names[l->n++] = names[j];
    }
    return MEMPLAN_OK;
}

/* A graph input a --value could give: an integer or bool scalar, or a
 * vector of a few static elements, that has no value yet. */
static bool takes_value(const memplan_plan_options *o, const memplan_value *v) {
    const memplan_type *t = &v->type;
    if (!(v->flags & MEMPLAN_VALUE_INPUT) || (v->flags & MEMPLAN_VALUE_INITIALIZER) || t->kind != MEMPLAN_TYPE_TENSOR)
        return false;
    switch (t->elem_type) {
    case MEMPLAN_DTYPE_BOOL:
    case MEMPLAN_DTYPE_INT8:
    case MEMPLAN_DTYPE_UINT8:
    case MEMPLAN_DTYPE_INT16:
    case MEMPLAN_DTYPE_UINT16:
    case MEMPLAN_DTYPE_INT32:
    case MEMPLAN_DTYPE_UINT32:
    case MEMPLAN_DTYPE_INT64:
    case MEMPLAN_DTYPE_UINT64: break;
    default: return false;
    }
    if (t->rank > 1 ||
        (t->rank == 1 && (t->dims[0].kind != MEMPLAN_DIM_VALUE || t->dims[0].value < 1 || t->dims[0].value > 64)))
        return false;
    for (size_t i = 0; i < o->n_values; i++)
        if (strcmp(o->values[i].name, v->name) == 0) return false;
    return true;
}

/* The main graph's inputs a --value could resolve (see takes_value). */
static memplan_status collect_value_inputs(plan_impl *k, const memplan_plan_options *given, memplan_error *err) {
    const memplan_graph *g = k->pub.graph;
    k->value_inputs = malloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *k->value_inputs);
    if (!k->value_inputs) return oom(err);
    for (int32_t v = 0; v < g->n_values; v++)
        if (takes_value(given, &g->values[v])) k->value_inputs[k->pub.n_value_inputs++] = v;
    k->pub.value_inputs = k->value_inputs;
    return MEMPLAN_OK;
}

/* The dim names the symbolic sizes of the unknown owners need, each once,
 * in first-seen order, then those of the counted bodies that are deferred;
 * internal symbols apart. */
static memplan_status collect_unbound_dims(plan_impl *k, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    memplan_expr_pool *pool = memplan_shapes_pool(p->shapes);
    dim_list bindable = {NULL, 0, 0}, internal = {NULL, 0, 0};
    memplan_status st = MEMPLAN_OK;
    mp_strmap seen;
    mp_strmap_init(&seen);
    const char *few[16];
    for (size_t i = 0; i < p->n_unknown && !st; i++) {
        const memplan_size *s = &p->size[p->unknown[i]];
        if (s->kind != MEMPLAN_SIZE_SYMBOLIC) continue;
        const char **names = few;
        size_t n = memplan_expr_names(pool, s->expr, few, 16);
        if (n > 16 && !(names = malloc(n * sizeof *names))) st = oom(err);
        if (!st && names != few) memplan_expr_names(pool, s->expr, names, n);
        if (!st) st = add_dims(k, &seen, &bindable, &internal, names, n, err);
        if (names != few) free(names);
    }
    for (size_t i = 0; i < p->n_subgraphs && !st; i++) {
        const memplan_model_plan *c = p->subgraphs[i].plan;
        if (!p->subgraphs[i].counted || !c->deferred) continue;
        st = add_dims(k, &seen, &bindable, &internal, c->unbound_dims, c->n_unbound_dims, err);
        if (!st) st = add_dims(k, &seen, &bindable, &internal, c->internal_dims, c->n_internal_dims, err);
    }
    mp_strmap_free(&seen);
    k->unbound_dims = bindable.names;
    p->unbound_dims = k->unbound_dims;
    p->n_unbound_dims = bindable.n;
    k->internal_dims = internal.names;
    p->internal_dims = k->internal_dims;
    p->n_internal_dims = internal.n;
    return st;
}

/* Every slot plan is checked twice before it is used: by the planner's own
 * validator on intervals, and against the graph (views, outputs). */
static memplan_status check_slots(const plan_impl *k, memplan_error *err) {
    const memplan_model_plan *p = &k->pub;
    memplan_violation viol;
    memplan_status st = memplan_validate_slots(p->buffers, p->n_buffers, &p->slots, &viol, err);
    if (st) return memplan_error_prefix(err, "internal error: the slot plan is invalid");
    int64_t *slot_of = malloc((size_t)(p->graph->n_values ? p->graph->n_values : 1) * sizeof *slot_of);
    if (!slot_of) return oom(err);
    for (int32_t v = 0; v < p->graph->n_values; v++)
        slot_of[v] = k->buf_of[v] >= 0 ? (int64_t)p->slots.slot_of[k->buf_of[v]] : -1;
    st = memplan_liveness_check_slots(p->graph, &p->liveness, slot_of, NULL, err);
    free(slot_of);
    return st ? memplan_error_prefix(err, "internal error: the slot plan breaks the graph's rules") : MEMPLAN_OK;
}

static double savings(uint64_t naive, uint64_t peak) { return naive ? 1.0 - (double)peak / (double)naive : 0.0; }

/* The bytes live at each position, sizes rounded up to align (the lower
 * bound's basis): a malloc'ed array of p->positions + 1 entries, or NULL. */
static uint64_t *live_bytes(const memplan_model_plan *p, uint64_t align) {
    size_t n = (size_t)p->positions + 1;
    uint64_t *live = calloc(n, sizeof *live), *gone = calloc(n + 1, sizeof *gone);
    if (!live || !gone) {
        free(live);
        free(gone);
        return NULL;
    }
    for (size_t b = 0; b < p->n_buffers; b++) { /* intervals lie in [0, positions] */
        uint64_t sz = align_up(p->buffers[b].size, align);
        live[p->buffers[b].start] += sz;
        gone[p->buffers[b].end] += sz;
    }
    uint64_t sum = 0;
    for (size_t t = 0; t < n; t++) live[t] = sum = sum + live[t] - gone[t];
    free(gone);
    return live;
}

/* The first position where the most bytes are live, sizes rounded up to
 * align (the lower bound's basis); -1 when there are no buffers. */
static memplan_status peak_position(const memplan_model_plan *p, uint64_t align, int32_t *out, memplan_error *err) {
    *out = -1;
    if (!p->n_buffers) return MEMPLAN_OK;
    uint64_t *live = live_bytes(p, align);
    if (!live) return oom(err);
    for (int32_t t = 0; t <= p->positions; t++)
        if (*out < 0 || live[t] > live[*out]) *out = t;
    free(live);
    return MEMPLAN_OK;
}

/* Slot layout (slots one after another, each at an aligned offset) and the
 * figures of both strategies. */
static memplan_status finish_figures(plan_impl *k, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    uint64_t align = p->options.align;
    memplan_plan_figures *fa = &p->figures[MEMPLAN_STRATEGY_ARENA], *fs = &p->figures[MEMPLAN_STRATEGY_SLOTS];
    /* Naive: one buffer per owner. The arena strategy aligns each one, as a
     * naive allocator would; the slot strategy counts raw sizes (docs/semantics.md, "Slot plan").
     * A control-flow node's transient counts as its body's naive total (+ state): a naive
     * allocator reuses nothing inside the body either. */
    for (size_t b = 0; b < p->n_buffers; b++) {
        if (k->buffer_value[b] >= 0) {
            fa->naive_bytes += align_up(p->buffers[b].size, align);
            fs->naive_bytes += p->buffers[b].size;
        }
    }
    for (size_t i = 0; i < p->n_transients; i++)
        if (p->transients[i].known) {
            fa->naive_bytes += p->transients[i].naive_bytes[0];
            fs->naive_bytes += p->transients[i].naive_bytes[1];
        }
    fa->peak_bytes = p->arena.arena_bytes;
    fa->lower_bound_bytes = p->arena.lower_bound_bytes;
    k->slot_offset = malloc((p->slots.slot_count ? p->slots.slot_count : 1) * sizeof *k->slot_offset);
    if (!k->slot_offset) return oom(err);
    uint64_t off = 0, end = 0;
    for (size_t s = 0; s < p->slots.slot_count; s++) {
        k->slot_offset[s] = off;
        end = off + p->slots.slot_bytes[s];
        off += align_up(p->slots.slot_bytes[s], align);
    }
    p->slot_offset = k->slot_offset;
    /* The slot plan's peak is the sum of the slot capacities (docs/semantics.md, "Slot plan"), at
     * any alignment: alignment and offsets belong to the arena. Laid out one
     * after another at aligned offsets, the slots end at `end`. */
    fs->peak_bytes = p->slots.peak_bytes;
    fs->layout_bytes = end;
    fa->layout_bytes = fa->peak_bytes;
    fa->savings_ratio = savings(fa->naive_bytes, fa->peak_bytes);
    fs->savings_ratio = savings(fs->naive_bytes, fs->peak_bytes);
    /* slot capacities are raw sizes (docs/semantics.md, "Slot plan"): compare with the raw bound */
    memplan_status st = memplan_lower_bound(p->buffers, p->n_buffers, 1, &fs->lower_bound_bytes, err);
    if (!st) st = peak_position(p, align, &fa->peak_position, err);
    if (!st) st = peak_position(p, 1, &fs->peak_position, err);
    return st;
}

/* One record per plannable owner (placement order), then per view of one
 * (value order); the transients' placement. */
static memplan_status collect_values(plan_impl *k, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    const memplan_graph *g = p->graph;
    const memplan_liveness *lv = &p->liveness;
    k->values = malloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *k->values);
    if (!k->values) return oom(err);
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < (pass ? g->n_values : lv->n_owners); i++) {
            int32_t v = pass ? i : lv->owners[i];
            int32_t root = lv->root[v];
            if (root < 0 || (pass ? root == v : false) || k->size[root].kind == MEMPLAN_SIZE_UNPLANNABLE) continue;
            int32_t b = k->buf_of[root];
            memplan_value_plan *r = &k->values[p->n_values++];
            *r = (memplan_value_plan){.value = v,
                                      .owner = root,
                                      .view = root != v,
                                      .size = k->size[v],
                                      .start = lv->start[root],
                                      .end = lv->end[root],
                                      .buffer = b};
            r->placed = b >= 0 && !p->deferred;
            if (!r->placed) continue;
            r->slot = p->slots.slot_of[b];
            r->slot_offset = k->slot_offset[r->slot];
            r->arena_offset = p->arena.offset[b];
        }
    p->values = k->values;
    for (size_t i = 0; i < p->n_transients && !p->deferred; i++) {
        memplan_transient *t = &k->transients[i];
        t->placed = t->buffer >= 0;
        if (!t->placed) continue;
        t->slot = p->slots.slot_of[t->buffer];
        t->slot_offset = k->slot_offset[t->slot];
        t->arena_offset = p->arena.offset[t->buffer];
    }
    return MEMPLAN_OK;
}

/* Slots, exact reuse and the arena, when every size is known. */
static memplan_status place(plan_impl *k, uint32_t budget_ms, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    memplan_status st = memplan_plan_slots(p->buffers, p->n_buffers, MEMPLAN_SLOT_BEST_FIT, &p->slots, err);
    if (!st) st = check_slots(k, err);
    if (!st) st = memplan_plan_slots(p->buffers, p->n_buffers, MEMPLAN_SLOT_EXACT, &p->exact, err);
    if (st) return st;
    memplan_pack_options po;
    memplan_pack_options_init(&po);
    po.align = p->options.align;
    po.budget_ms = budget_ms;
    if ((st = memplan_pack(p->buffers, p->n_buffers, &po, &p->arena, err))) return st;
    return finish_figures(k, err);
}

/* One graph's plan: the main graph (parent NULL) or a body. */
static void order_is_file(plan_impl *k, memplan_order_kind asked);

static memplan_status plan_graph(const plan_env *env, const memplan_graph *g, const plan_impl *parent, bool if_branch,
                                 plan_impl **out, memplan_error *err) {
    *out = NULL;
    plan_impl *k = calloc(1, sizeof *k);
    if (!k) return oom(err);
    memplan_model_plan *p = &k->pub;
    p->graph = g;
    p->positions = g->n_nodes;
    p->parent = parent ? &parent->pub : NULL;
    memplan_status st = MEMPLAN_OK;
    if (parent) { /* a body: the main plan's options and shapes; its graph inputs are the node's */
        p->options = parent->pub.options;
        p->options.include_inputs = false;
        p->shapes = parent->pub.shapes;
    } else {
        st = copy_options(k, env->o, err);
        memplan_shapes_options so = {p->options.bindings, p->options.n_bindings, env->o->values, env->o->n_values};
        if (!st) st = memplan_shapes_infer_opts(env->m, &so, &p->shapes, err);
        if (!st && p->options.upper_bounds) st = bind_data_bounds(k, err);
    }
    memplan_viewmap vm = {0, NULL};
    uint8_t *external = NULL;
    if (!st) st = mark_external(k, parent ? parent->constant : NULL, if_branch, &external, err);
    if (!st) st = build_views(k, env->m, external, &vm, err);
    if (!st && !parent && p->options.share_kv) st = share_kv(k, &vm, err);
    memplan_liveness_options lo = {p->options.include_inputs, &vm, external};
    if (!st) st = memplan_liveness_compute(g, &lo, &p->liveness, err);
    memplan_viewmap_free(&vm);
    free(external);
    if (!st) st = collect_buffers(k, err);
    if (!st) st = check_shares(k, err);
    if (!st && !parent) count_inputs(k);
    if (!st) st = plan_control_flow(k, env, err);
    if (!st) st = mark_held(k, err);
    if (!st) count_weights(k);
    if (!st) {
        p->deferred = p->n_unknown > 0;
        for (size_t i = 0; i < p->n_transients; i++) p->deferred |= !p->transients[i].known;
        /* The search budget is shared by every graph of the model, by node count. */
        uint32_t share = env->total_nodes > (uint64_t)g->n_nodes
                             ? (uint32_t)((uint64_t)p->options.budget_ms * (uint64_t)g->n_nodes / env->total_nodes)
                             : p->options.budget_ms;
        st = p->deferred ? collect_unbound_dims(k, err) : place(k, share, err);
        if (!st && p->deferred && !parent) st = collect_value_inputs(k, env->o, err);
    }
    if (!st) st = collect_values(k, err);
    if (st) {
        plan_free(k, !parent);
        return st;
    }
    order_is_file(k, p->options.order);
    *out = k;
    return MEMPLAN_OK;
}

/* ---- execution orders ---------------------------------------------------- */

/* A plan records its own order as the file's (plan_graph's last step; a
 * plan under another order is given its order after). */
static void order_is_file(plan_impl *k, memplan_order_kind asked) {
    memplan_plan_order *po = &k->pub.order;
    *po = (memplan_plan_order){.asked = asked, .kind = MEMPLAN_ORDER_FILE};
    memcpy(po->file, k->pub.figures, sizeof po->file);
    k->pub.options.order = asked;
}

/* The file-order plan kept under another asked order: it and every body
 * below it say what was asked. */
static void mark_asked(plan_impl *k, memplan_order_kind asked) {
    k->pub.options.order = asked;
    k->pub.order.asked = asked;
    for (size_t i = 0; i < k->pub.n_subgraphs; i++) mark_asked((plan_impl *)k->subgraphs[i].plan, asked);
}

static bool is_identity(const int32_t *order, int32_t n) {
    for (int32_t i = 0; i < n; i++)
        if (order[i] != i) return false;
    return true;
}

/* The scheduler's work budget for g: the main graph gets all of it, a body
 * its share by node count (at least 1 ms of work, unless the budget is 0). */
static uint32_t order_budget(const plan_env *env, const memplan_graph *g, bool body) {
    uint32_t all = env->o->order_budget_ms;
    if (!body || !all || env->total_nodes <= (uint64_t)g->n_nodes) return all;
    uint64_t share = (uint64_t)all * (uint64_t)g->n_nodes / env->total_nodes;
    return share ? (uint32_t)share : 1;
}

/* g planned with its nodes in `order` (owned by the plan from then on, freed
 * on failure). */
static memplan_status plan_in_order(const plan_env *env, const memplan_graph *g, const plan_impl *parent,
                                    bool if_branch, int32_t *order, plan_impl **out, memplan_error *err) {
    *out = NULL;
    mp_graph_copy *gc = calloc(1, sizeof *gc);
    memplan_status st = gc ? mp_order_graph(g, order, gc, err) : oom(err);
    if (!st) st = plan_graph(env, &gc->g, parent, if_branch, out, err);
    if (st) {
        if (gc) mp_graph_copy_free(gc);
        free(gc);
        free(order);
        return st;
    }
    (*out)->graph_copy = gc;
    (*out)->order_node = order;
    return MEMPLAN_OK;
}

/* Give k its order: the scheduler's kind, the node map (k's own, or NULL for
 * the file's) and the figures of the all-file plan. */
static void set_order(plan_impl *k, memplan_order_kind asked, memplan_order_kind kind, bool exact,
                      const memplan_plan_figures *file) {
    k->pub.order = (memplan_plan_order){asked, kind, exact, k->order_node, {{0}}};
    memcpy(k->pub.order.file, file, sizeof k->pub.order.file);
    k->pub.options.order = asked;
}

/* best keeps the all-file plan f when c is above it: on the lower bound for
 * the main graph (the order's objective), on the arena for a body (what its
 * parent holds as the node's transient). */
static bool worse_than_file(const plan_impl *c, const plan_impl *f, bool body) {
    const memplan_plan_figures *cf = &c->pub.figures[MEMPLAN_STRATEGY_ARENA],
                               *ff = &f->pub.figures[MEMPLAN_STRATEGY_ARENA];
    return body ? cf->peak_bytes > ff->peak_bytes : cf->lower_bound_bytes > ff->lower_bound_bytes;
}

/* The file to write for ONNX Runtime, from problem q of plan b (the main
 * graph in the file order): the numbering under which its order needs least
 * (memplan_schedule_onnxruntime_numbering) as the file index of the node to
 * write at each position, in *written, and that bound. */
static memplan_status ort_written(const memplan_model_plan *b, const mp_order_problem *q, int32_t **written,
                                  uint64_t *bound, memplan_error *err) {
    memplan_schedule s = {0};
    memplan_status st = memplan_schedule_onnxruntime_numbering(&q->p, written, &s, err);
    if (st) return st;
    for (int32_t i = 0; i < b->positions; i++) (*written)[i] = b->graph->nodes[(*written)[i]].file_index;
    *bound = s.peak;
    memplan_schedule_free(&s);
    return MEMPLAN_OK;
}

/* g under the asked order (docs/semantics.md, "Execution order"), in up to
 * three plans: F, g and everything below it in the file order (the baseline,
 * order.file); B, g's nodes in the file order and its bodies in the orders
 * found for them (what the scheduler reads: the bodies' transients as they
 * will be; F itself when g has no bodies); C, g's nodes in the order found
 * (B when that is the file's). *all_file: F is the plan returned. */
static memplan_status plan_under_order(const plan_env *env, const memplan_graph *g, const plan_impl *parent,
                                       bool if_branch, plan_impl **out, bool *all_file, memplan_error *err) {
    memplan_order_kind asked = env->o->order;
    plan_impl *f = NULL, *b = NULL, *c = NULL;
    memplan_schedule s = {0};
    bool root = !parent;
    int32_t *written = NULL; /* the main graph under onnxruntime: the file to write for it */
    uint64_t written_bound = 0;
    *out = NULL;
    memplan_status st = plan_graph(env->file, g, parent, if_branch, &f, err);
    if (st) return st;
    if (!f->pub.deferred) {
        b = f;
        if (f->pub.n_subgraphs) st = plan_graph(env, g, parent, if_branch, &b, err);
    }
    if (!st && b && !b->pub.deferred && b->pub.positions < 2) { /* one order only */
        c = b;
        s.exact = true;
    } else if (!st && b && !b->pub.deferred) {
        mp_order_problem q;
        if (!(st = mp_order_problem_build(&b->pub, &q, err))) {
            st = memplan_schedule_run(&q.p, asked, order_budget(env, g, !root), &s, err);
            if (!st && root && asked == MEMPLAN_ORDER_ONNXRUNTIME)
                st = ort_written(&b->pub, &q, &written, &written_bound, err);
            mp_order_problem_free(&q);
        }
        if (st) {
            free(s.order);
        } else if (is_identity(s.order, s.n_steps)) {
            c = b;
            if (asked == MEMPLAN_ORDER_BEST) s.kind = MEMPLAN_ORDER_FILE;
            free(s.order);
        } else {
            st = plan_in_order(env, g, parent, if_branch, s.order, &c, err);
        }
        s.order = NULL;
    }
    if (!st && c && asked == MEMPLAN_ORDER_BEST && worse_than_file(c, f, !root)) {
        if (c != b) plan_free(c, root);
        c = NULL;
    }
    if (b && b != f && b != c) plan_free(b, root);
    if (st) {
        free(written);
        plan_free(f, root);
        return st;
    }
    *all_file = !c;
    if (c) {
        set_order(c, asked, s.kind, s.exact, f->pub.figures);
        if (c != f) plan_free(f, root);
        *out = c;
    } else {
        mark_asked(f, asked);
        *out = f;
    }
    (*out)->ort_written = written;
    (*out)->pub.ort_order.written = written;
    (*out)->pub.ort_order.written_lower_bound = written_bound;
    return MEMPLAN_OK;
}

/* A body under the asked order: scheduled the first time it is met, its
 * choice replayed after (mp_order_memo). */
static memplan_status plan_body(const plan_env *env, const memplan_graph *g, const plan_impl *parent, bool if_branch,
                                plan_impl **out, memplan_error *err) {
    if (env->o->order == MEMPLAN_ORDER_FILE) return plan_graph(env, g, parent, if_branch, out, err);
    const mp_order_memo_entry *e = mp_order_memo_find(env->memo, g);
    memplan_status st;
    if (!e) {
        bool all_file = false;
        st = plan_under_order(env, g, parent, if_branch, out, &all_file, err);
        if (st) return st;
        const memplan_plan_order *o = &(*out)->pub.order;
        mp_order_memo_entry ne = {g, all_file, (int32_t *)o->node, o->kind, o->exact, {{0}}};
        memcpy(ne.file, o->file, sizeof ne.file);
        return mp_order_memo_put(env->memo, &ne, err);
    }
    int32_t *order = NULL;
    size_t n = (size_t)g->n_nodes;
    if (e->all_file) {
        st = plan_graph(env->file, g, parent, if_branch, out, err);
    } else if (!e->order) {
        st = plan_graph(env, g, parent, if_branch, out, err);
    } else {
        st = (order = malloc((n ? n : 1) * sizeof *order)) ? MEMPLAN_OK : oom(err);
        if (!st) memcpy(order, e->order, n * sizeof *order);
        if (!st) st = plan_in_order(env, g, parent, if_branch, order, out, err);
    }
    if (st) return st;
    if (e->all_file) mark_asked(*out, env->o->order);
    else
        set_order(*out, env->o->order, e->kind, e->exact, e->file);
    return MEMPLAN_OK;
}

static memplan_status build_plan(const memplan_model *m, const memplan_plan_options *o, bool side, plan_impl **out,
                                 memplan_error *err);

/* p->ort_order for a main graph planned in the file order: ONNX Runtime's
 * order of its nodes, how many positions it moves and its lower bound. A
 * graph without bodies: one depth-first pass and one measure (linear in the
 * nodes and reads). With bodies, which ONNX Runtime orders too (their
 * transients change with it): the plan under MEMPLAN_ORDER_ONNXRUNTIME. */
static memplan_status ort_order_figures(memplan_model_plan *p, const plan_env *env, memplan_error *err) {
    if (p->deferred || p->positions < 1) return MEMPLAN_OK;
    int32_t moved = 0;
    uint64_t bound;
    memplan_status st;
    if (p->n_subgraphs) {
        memplan_plan_options oo = *env->o;
        oo.order = MEMPLAN_ORDER_ONNXRUNTIME;
        plan_impl *o = NULL;
        st = build_plan(env->m, &oo, false, &o, err);
        bool known = !st && !o->pub.deferred;
        for (int32_t i = 0; known && o->pub.order.node && i < o->pub.positions; i++) moved += o->pub.order.node[i] != i;
        bound = known ? o->pub.figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes : 0;
        if (o) plan_free(o, true);
        if (!known) return st;
    } else {
        mp_order_problem q;
        memplan_schedule s = {0};
        if ((st = mp_order_problem_build(p, &q, err))) return st;
        st = memplan_schedule_run(&q.p, MEMPLAN_ORDER_ONNXRUNTIME, 0, &s, err);
        mp_order_problem_free(&q);
        if (st) return st;
        for (int32_t i = 0; i < s.n_steps; i++) moved += s.order[i] != i;
        bound = s.peak;
        memplan_schedule_free(&s);
    }
    p->ort_order.known = true;
    p->ort_order.moved = moved;
    p->ort_order.lower_bound = bound;
    return MEMPLAN_OK;
}

/* Whether a value of p's graph is a float16 tensor. */
static bool is_float16(const memplan_model_plan *p, int32_t v) {
    const memplan_vshape *s = v >= 0 ? memplan_shapes_value(p->shapes, p->graph, v) : NULL;
    return s && s->kind == MEMPLAN_TYPE_TENSOR && s->elem_type == MEMPLAN_DTYPE_FLOAT16;
}

/* The op types of the nodes ONNX Runtime's CPU execution provider runs in
 * float32 though given float16, and how many of each. */
#define F16_TYPES 64
typedef struct f16_tally {
    size_t nodes, n;
    const char *op[F16_TYPES];
    size_t count[F16_TYPES];
} f16_tally;

/* Whether ONNX Runtime's CPU execution provider runs the node at pos of w's
 * graph in float32 though it has a float16 input or output. */
static bool float32_run(const memplan_model_plan *w, int32_t pos) {
    const memplan_node *n = &w->graph->nodes[pos];
    if (memplan_onnxruntime_cpu_float16(n->domain, n->op_type) || memplan_plan_node_folded(w, pos)) return false;
    bool half = false;
    for (int32_t k = 0; !half && k < n->n_inputs; k++) half = is_float16(w, n->inputs[k]);
    for (int32_t k = 0; !half && k < n->n_outputs; k++) half = is_float16(w, n->outputs[k]);
    return half;
}

/* The change ONNX Runtime's CPU execution provider makes to the weights of
 * plan w and of all its bodies (added, dropped): a float32 copy of each held
 * float16 weight a float32-run node reads, the float16 one dropped when
 * nothing else reads it (a graph input or output, a body, a float16
 * kernel). False when a size is not known (or out of memory). */
static bool float16_weights(const plan_impl *kw, uint64_t *added, uint64_t *dropped) {
    const memplan_model_plan *w = &kw->pub;
    const memplan_graph *g = w->graph;
    enum { F32 = 1, OTHER = 2 }; /* who reads a value: a float32-run node, anything else */
    uint8_t *reads = calloc((size_t)(g->n_values ? g->n_values : 1), 1);
    if (!reads) return false;
    for (int32_t pos = 0; pos < g->n_nodes; pos++) {
        const memplan_node *n = &g->nodes[pos];
        uint8_t who = float32_run(w, pos) ? F32 : OTHER;
        for (int32_t k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0) reads[n->inputs[k]] |= who;
        for (int32_t k = 0; k < n->n_captures; k++) reads[n->captures[k]] |= OTHER;
    }
    bool known = true;
    for (int32_t v = 0; known && v < g->n_values; v++) {
        if (!(reads[v] & F32) || !kw->held[v] || !is_float16(w, v) || (g->values[v].flags & MEMPLAN_VALUE_CAPTURE))
            continue;
        if (!(known = kw->size[v].kind == MEMPLAN_SIZE_KNOWN)) break;
        *added += 2 * kw->size[v].bytes;
        if (!(reads[v] & OTHER) && !(g->values[v].flags & (MEMPLAN_VALUE_INPUT | MEMPLAN_VALUE_OUTPUT)))
            *dropped += kw->size[v].bytes;
    }
    free(reads);
    for (size_t i = 0; known && i < w->n_subgraphs; i++)
        known = float16_weights((const plan_impl *)w->subgraphs[i].plan, added, dropped);
    return known;
}

/* Those nodes of plan w and of its counted bodies, into t. */
static void count_float16(f16_tally *t, const memplan_model_plan *w) {
    for (int32_t pos = 0; pos < w->positions; pos++) {
        const memplan_node *n = &w->graph->nodes[pos];
        if (!float32_run(w, pos)) continue;
        t->nodes++;
        size_t i = 0;
        while (i < t->n && strcmp(t->op[i], n->op_type)) i++;
        if (i == t->n && t->n < F16_TYPES) t->op[t->n++] = n->op_type;
        if (i < t->n) t->count[i]++;
    }
    for (size_t i = 0; i < w->n_subgraphs; i++)
        if (w->subgraphs[i].counted) count_float16(t, w->subgraphs[i].plan);
}

/* p->float16_cpu: the nodes, the op types with most nodes first (ties:
 * first seen), the first 8, and the weights ONNX Runtime keeps then. */
static void float16_figures(plan_impl *k) {
    memplan_model_plan *p = &k->pub;
    f16_tally t = {0, 0, {0}, {0}};
    count_float16(&t, p);
    for (size_t i = 1; i < t.n; i++) /* insertion sort, stable */
        for (size_t j = i; j > 0 && t.count[j] > t.count[j - 1]; j--) {
            size_t c = t.count[j];
            const char *o = t.op[j];
            t.count[j] = t.count[j - 1];
            t.op[j] = t.op[j - 1];
            t.count[j - 1] = c;
            t.op[j - 1] = o;
        }
    p->float16_cpu.nodes = t.nodes;
    for (size_t i = 0; i < t.n && i < 8; i++) p->float16_cpu.ops[p->float16_cpu.n_ops++] = t.op[i];
    uint64_t added = 0, dropped = 0;
    p->float16_cpu.weights_known =
        !p->n_weights_unknown && float16_weights(k, &added, &dropped) && added <= UINT64_MAX - p->weight_bytes;
    if (p->float16_cpu.weights_known) p->float16_cpu.weight_bytes = p->weight_bytes + added - dropped;
}

/* Count one workspace in p->workspace (the largest kept). */
static void count_workspace(memplan_model_plan *p, const memplan_node *n, uint64_t bytes, const char *what) {
    p->workspace.nodes++;
    if (bytes <= p->workspace.largest_bytes) return;
    p->workspace.largest_bytes = bytes;
    p->workspace.largest_node = n;
    p->workspace.what = what;
}

/* The workspace transients of plan w and of its counted bodies, into p. */
static void count_transients(memplan_model_plan *p, const memplan_model_plan *w) {
    for (size_t i = 0; i < w->n_transients; i++) {
        const memplan_transient *t = &w->transients[i];
        if (t->workspace && t->known) count_workspace(p, &w->graph->nodes[t->node], t->bytes, t->assumption);
        p->workspace.unknown += t->workspace && !t->known;
    }
    for (size_t i = 0; i < w->n_subgraphs; i++)
        if (w->subgraphs[i].counted) count_transients(p, w->subgraphs[i].plan);
}

/* p->workspace for the main graph's plan, not deferred. With
 * options.kernel_workspace, from its transients. Without, for a graph
 * without bodies, each node's workspace added to the bytes live at its
 * position (one pass); with bodies, whose arenas the workspace changes, from
 * the same plan made with the option (kept: its nodes are named). */
static memplan_status workspace_figures(plan_impl *k, const plan_env *env, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    if (p->deferred) return MEMPLAN_OK;
    memplan_status st = MEMPLAN_OK;
    p->workspace.included = p->options.kernel_workspace;
    p->workspace.lower_bound = p->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes;
    if (p->workspace.included) {
        count_transients(p, p);
    } else if (p->n_subgraphs) {
        memplan_plan_options wo = *env->o;
        wo.kernel_workspace = true;
        if ((st = build_plan(env->m, &wo, false, &k->with_workspace, err))) return st;
        const memplan_model_plan *w = &k->with_workspace->pub;
        if (w->deferred) return MEMPLAN_OK; /* a workspace of unknown size: not known */
        count_transients(p, w);
        p->workspace.lower_bound = w->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes;
    } else {
        uint64_t align = p->options.align, *live = live_bytes(p, align);
        ws_scan scan = {0, NULL};
        if (!live || !ws_scan_init(k, env, &scan)) {
            free(live);
            return oom(err);
        }
        for (int32_t pos = 0; pos < p->positions; pos++) {
            memplan_workspace w;
            memplan_workspace_status ws = node_workspace(k, &scan, pos, &w);
            p->workspace.unknown += ws == MEMPLAN_WORKSPACE_UNKNOWN;
            if (ws != MEMPLAN_WORKSPACE_KNOWN) continue;
            count_workspace(p, &p->graph->nodes[pos], w.bytes, w.what);
            uint64_t with = live[pos] + align_up(w.bytes, align);
            if (with > p->workspace.lower_bound) p->workspace.lower_bound = with;
        }
        free(scan.fused);
        free(live);
    }
    p->workspace.known = true;
    return st;
}

/* The plan of the model's main graph under o; with side, the figures set
 * beside it too (ONNX Runtime's order, kernel workspace, float16 on the
 * CPU), which the plans made for them do without. */
static memplan_status build_plan(const memplan_model *m, const memplan_plan_options *o, bool side, plan_impl **out,
                                 memplan_error *err) {
    memplan_plan_options fo = *o;
    fo.order = MEMPLAN_ORDER_FILE;
    mp_order_memo memo = {NULL, 0, 0};
    plan_env fenv = {m, &fo, count_nodes(m->graph), &fenv, &memo};
    plan_env env = {m, o, fenv.total_nodes, &fenv, &memo};
    plan_impl *k = NULL;
    memplan_status st;
    if (o->order != MEMPLAN_ORDER_FILE) {
        bool all_file;
        st = plan_under_order(&env, m->graph, NULL, false, &k, &all_file, err);
    } else {
        st = plan_graph(&env, m->graph, NULL, false, &k, err);
        if (!st && side && !o->inplace) st = ort_order_figures(&k->pub, &env, err);
    }
    if (!st && side) st = workspace_figures(k, &env, err);
    if (!st && side) float16_figures(k);
    mp_order_memo_free(&memo);
    *out = k;
    return st;
}

memplan_status mp_model_plan_build(const memplan_model *m, const memplan_plan_options *o, memplan_model_plan **out,
                                   memplan_error *err) {
    plan_impl *k = NULL;
    memplan_status st = build_plan(m, o, true, &k, err);
    *out = k ? &k->pub : NULL;
    return st;
}

void mp_model_plan_set_saved(memplan_model_plan *p, const memplan_model_plan *plain) {
    for (int s = 0; s < MEMPLAN_STRATEGY_COUNT; s++) {
        p->figures[s].inplace_saved_known = !plain->deferred && !p->deferred;
        p->figures[s].inplace_saved_bytes = (int64_t)plain->figures[s].peak_bytes - (int64_t)p->figures[s].peak_bytes;
    }
}

memplan_status memplan_plan_model(const memplan_model *m, const memplan_plan_options *o, memplan_model_plan **out,
                                  memplan_error *err) {
    *out = NULL;
    memplan_model_plan *plain = NULL;
    if (o->inplace) { /* planned once without in-place reuse, for the bytes it saves */
        memplan_plan_options po = *o;
        po.inplace = false;
        memplan_status st = mp_model_plan_build(m, &po, &plain, err);
        if (st) return st;
    }
    memplan_status st = mp_model_plan_build(m, o, out, err);
    if (!st && plain) mp_model_plan_set_saved(*out, plain);
    memplan_model_plan_free(plain);
    return st;
}
