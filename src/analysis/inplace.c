/*
 * inplace.c -- in-place reuse and release lists (SEMANTICS §5, §6, §10),
 * the context that holds every seed-001 result, and its accessors.
 *
 * Steps (memplan_inplace_compute):
 *   1. referenced(i), last_use(v), producer(v), protected(v);
 *   2. tags (tags.c);
 *   3. per node: reuse matching (equal pass, then greater pass), release_after,
 *      not_used_after, release_after_shape_tag, and the decision log;
 *   4. the memory profile (profile.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/inplace_internal.h"

/* ---- small helpers ------------------------------------------------------ */

bool mp_ilist_init(mp_ilist *l, int32_t n_nodes) {
    memset(l, 0, sizeof *l);
    l->off = calloc((size_t)n_nodes + 1, sizeof *l->off);
    return l->off != NULL;
}

bool mp_ilist_push(mp_ilist *l, int32_t x) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        int32_t *v = realloc(l->v, cap * sizeof *v);
        if (!v) return false;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return true;
}

void mp_ilist_mark(mp_ilist *l, int32_t node) { l->off[node + 1] = (int32_t)l->n; }

void mp_ilist_free(mp_ilist *l) {
    free(l->v);
    free(l->off);
    memset(l, 0, sizeof *l);
}

bool mp_is_op(const memplan_node *n, const char *op) {
    return (!n->domain[0] || strcmp(n->domain, "ai.onnx") == 0) && strcmp(n->op_type, op) == 0;
}

const char *memplan_tag_name(memplan_tag tag) {
    static const char *const NAMES[MEMPLAN_TAG_COUNT] = {"", "shape", "axes", "weight", "ambiguous"};
    return (unsigned)tag < MEMPLAN_TAG_COUNT ? NAMES[tag] : "";
}

bool memplan_tag_parse(const char *text, memplan_tag *tag) {
    for (int t = 0; text && t < MEMPLAN_TAG_COUNT; t++)
        if (strcmp(text, memplan_tag_name((memplan_tag)t)) == 0) {
            *tag = (memplan_tag)t;
            return true;
        }
    return false;
}

const char *memplan_reuse_kind_name(memplan_reuse_kind kind) {
    return kind == MEMPLAN_REUSE_GREATER ? "greater" : "equal";
}

const char *memplan_event_action_name(memplan_event_action action) {
    switch (action) {
    case MEMPLAN_EVENT_INPLACE: return "inplace";
    case MEMPLAN_EVENT_RELEASE: return "release";
    default: return "release_shape_tag";
    }
}

const char *memplan_bucket_name(memplan_bucket b) {
    static const char *const NAMES[MEMPLAN_BUCKET_COUNT] = {"inputs", "initializers", "intermediates", "outputs"};
    return (unsigned)b < MEMPLAN_BUCKET_COUNT ? NAMES[b] : "";
}

static memplan_status oom(memplan_error *err) {
    return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory in the in-place analysis");
}

/* ---- step 1: referenced, last use, producer, protection ------------------ */

/* referenced(i): direct inputs (non-empty, de-duplicated, in order), then the
 * outer values the node's subgraphs read (the IR resolved shadowing). */
static memplan_status compute_referenced(memplan_inplace *c, memplan_error *err) {
    const memplan_graph *g = c->g;
    int32_t *seen = malloc((size_t)(c->n_values ? c->n_values : 1) * sizeof *seen);
    if (!seen || !mp_ilist_init(&c->ref, c->n_nodes)) {
        free(seen);
        return oom(err);
    }
    for (int32_t v = 0; v < c->n_values; v++) seen[v] = -1;
    for (int32_t i = 0; i < c->n_nodes; i++) {
        const memplan_node *n = &g->nodes[i];
        for (int32_t pass = 0; pass < 2; pass++) {
            int32_t cnt = pass ? n->n_captures : n->n_inputs;
            const int32_t *ids = pass ? n->captures : n->inputs;
            for (int32_t k = 0; k < cnt; k++) {
                int32_t v = ids[k];
                if (v < 0 || v >= c->n_values || seen[v] == i) continue;
                seen[v] = i;
                if (!mp_ilist_push(&c->ref, v)) {
                    free(seen);
                    return oom(err);
                }
                c->last_use[v] = i; /* nodes come in order: the last write wins */
            }
        }
        mp_ilist_mark(&c->ref, i);
    }
    free(seen);
    return MEMPLAN_OK;
}

/* producer(v) and protected(v) (SEMANTICS §5). */
static void compute_producers(memplan_inplace *c) {
    for (int32_t v = 0; v < c->n_values; v++) {
        const memplan_value *val = &c->g->values[v];
        bool input = (val->flags & MEMPLAN_VALUE_INPUT) != 0;
        bool init = (val->flags & MEMPLAN_VALUE_INITIALIZER) != 0;
        bool output = (val->flags & MEMPLAN_VALUE_OUTPUT) != 0;
        c->protect[v] = init || output || (input && !c->allow_input_overwrite);
        if (val->producer >= 0) c->producer[v] = val->producer;
        else if (input && !init && c->allow_input_overwrite) c->producer[v] = -1;
        else c->producer[v] = MP_NO_PRODUCER;
    }
}

/* ---- step 3: reuse and release lists ------------------------------------- */

static const memplan_vshape *vshape(const memplan_inplace *c, int32_t v) {
    return memplan_shapes_value(c->shapes, c->g, v);
}

static bool has_type(const memplan_vshape *s) {
    return s && s->kind == MEMPLAN_TYPE_TENSOR && s->elem_type != 0;
}

/* Same rank and the same canonical amount in every dim. */
static bool same_dims(const memplan_vshape *a, const memplan_vshape *b) {
    if (a->rank < 0 || a->rank != b->rank) return false;
    for (int32_t d = 0; d < a->rank; d++)
        if (a->dims[d] == MEMPLAN_EXPR_NONE || a->dims[d] != b->dims[d]) return false;
    return true;
}

/* Does input `in` (at input_index of node n) fit output `out`, as `kind`? */
static bool size_fits(const memplan_inplace *c, const memplan_node *n, int32_t input_index,
                      const memplan_vshape *in, const memplan_vshape *out, memplan_reuse_kind kind) {
    int64_t bi = 0, bo = 0;
    bool ci = memplan_expr_is_const(c->pool, in->bytes, &bi);
    bool co = memplan_expr_is_const(c->pool, out->bytes, &bo);
    if (kind == MEMPLAN_REUSE_GREATER) return ci && co && bi > bo;
    bool same_type = in->elem_type == out->elem_type;
    if (same_type && same_dims(in, out)) return true;
    if (same_type && input_index == 0 && (mp_is_op(n, "Squeeze") || mp_is_op(n, "Unsqueeze"))) return true;
    if (ci && co) return bi == bo;
    return !ci && !co && in->bytes != MEMPLAN_EXPR_NONE && in->bytes == out->bytes;
}

/* Everything but the size: may input k of node i be overwritten by output o? */
static bool input_eligible(const memplan_inplace *c, int32_t i, int32_t k, int32_t o_value) {
    const memplan_node *n = &c->g->nodes[i];
    int32_t v = n->inputs[k];
    if (v < 0 || o_value < 0 || v == o_value) return false;
    if (!c->g->values[v].name[0] || !c->g->values[o_value].name[0]) return false;
    int32_t count = 0;
    for (int32_t j = 0; j < n->n_inputs; j++) count += n->inputs[j] == v;
    if (count != 1 || c->protect[v]) return false;
    if (c->producer[v] == MP_NO_PRODUCER || c->producer[v] >= i) return false;
    return c->last_use[v] == i && has_type(vshape(c, v)) && has_type(vshape(c, o_value));
}

static int cmp_reuse(const void *a, const void *b) {
    const memplan_reuse *x = a, *y = b;
    return (x->output_index > y->output_index) - (x->output_index < y->output_index);
}

/* Two passes (equal, then greater); outputs in order, first eligible input wins. */
static size_t match_node(const memplan_inplace *c, int32_t i, memplan_reuse *dst, uint8_t *in_used,
                         uint8_t *out_used) {
    const memplan_node *n = &c->g->nodes[i];
    size_t cnt = 0;
    memset(in_used, 0, (size_t)n->n_inputs);
    memset(out_used, 0, (size_t)n->n_outputs);
    for (int pass = 0; pass < 2; pass++) {
        memplan_reuse_kind kind = pass ? MEMPLAN_REUSE_GREATER : MEMPLAN_REUSE_EQUAL;
        for (int32_t o = 0; o < n->n_outputs; o++) {
            int32_t ov = n->outputs[o];
            if (out_used[o] || ov < 0) continue;
            for (int32_t k = 0; k < n->n_inputs; k++) {
                if (in_used[k] || !input_eligible(c, i, k, ov)) continue;
                if (!size_fits(c, n, k, vshape(c, n->inputs[k]), vshape(c, ov), kind)) continue;
                dst[cnt++] = (memplan_reuse){o, k, kind};
                in_used[k] = out_used[o] = 1;
                break;
            }
        }
    }
    qsort(dst, cnt, sizeof *dst, cmp_reuse);
    return cnt;
}

static bool log_event(memplan_inplace *c, memplan_event e) {
    if (!c->events_enabled) return true;
    if (c->n_ev == c->cap_ev) {
        size_t cap = c->cap_ev ? c->cap_ev * 2 : 64;
        memplan_event *ev = realloc(c->ev, cap * sizeof *ev);
        if (!ev) return false;
        c->ev = ev;
        c->cap_ev = cap;
    }
    c->ev[c->n_ev++] = e;
    return true;
}

static memplan_event release_event(const memplan_inplace *c, memplan_event_action a, int32_t i, int32_t v) {
    return (memplan_event){a, i, v, c->g->values[v].name, -1, -1, MEMPLAN_REUSE_EQUAL};
}

/* release_after, not_used_after, shape-tagged subset of node i (§6). */
static bool release_lists(memplan_inplace *c, int32_t i) {
    for (int32_t r = c->ref.off[i]; r < c->ref.off[i + 1]; r++) {
        int32_t v = c->ref.v[r];
        if (c->last_use[v] != i) continue;
        uint32_t fl = c->g->values[v].flags;
        if (fl & (MEMPLAN_VALUE_INPUT | MEMPLAN_VALUE_INITIALIZER))
            if (!mp_ilist_push(&c->nua, v)) return false;
        if (c->protect[v] || c->producer[v] < 0 || c->producer[v] >= i) continue;
        if (!mp_ilist_push(&c->rel, v) || !log_event(c, release_event(c, MEMPLAN_EVENT_RELEASE, i, v)))
            return false;
        if (c->has_tags && c->vtag[v] == MEMPLAN_TAG_SHAPE && !mp_ilist_push(&c->rst, v)) return false;
    }
    mp_ilist_mark(&c->rel, i);
    mp_ilist_mark(&c->nua, i);
    mp_ilist_mark(&c->rst, i);
    return true;
}

static memplan_status compute_reuse_and_release(memplan_inplace *c, memplan_error *err) {
    const memplan_graph *g = c->g;
    size_t total = 0;
    int32_t widest = 1;
    for (int32_t i = 0; i < c->n_nodes; i++) {
        total += (size_t)(g->nodes[i].n_outputs < g->nodes[i].n_inputs ? g->nodes[i].n_outputs : g->nodes[i].n_inputs);
        if (g->nodes[i].n_inputs > widest) widest = g->nodes[i].n_inputs;
        if (g->nodes[i].n_outputs > widest) widest = g->nodes[i].n_outputs;
    }
    c->reuse_off = calloc((size_t)c->n_nodes + 1, sizeof *c->reuse_off);
    c->reuse = malloc((total ? total : 1) * sizeof *c->reuse);
    uint8_t *used = malloc((size_t)widest * 2);
    if (!c->reuse_off || !c->reuse || !used || !mp_ilist_init(&c->rel, c->n_nodes) ||
        !mp_ilist_init(&c->nua, c->n_nodes) || !mp_ilist_init(&c->rst, c->n_nodes)) {
        free(used);
        return oom(err);
    }
    size_t at = 0;
    for (int32_t i = 0; i < c->n_nodes; i++) {
        size_t cnt = match_node(c, i, c->reuse + at, used, used + widest);
        bool ok = release_lists(c, i);
        for (size_t r = 0; ok && r < cnt; r++) {
            const memplan_reuse *x = &c->reuse[at + r];
            ok = log_event(c, (memplan_event){MEMPLAN_EVENT_INPLACE, i, -1, NULL, x->output_index, x->input_index, x->kind});
        }
        if (!ok) {
            free(used);
            return oom(err);
        }
        at += cnt;
        c->reuse_off[i + 1] = (int32_t)at;
    }
    free(used);
    /* Shape-tag entries come after all others, in node order (§10). */
    for (int32_t i = 0; i < c->n_nodes; i++)
        for (int32_t r = c->rst.off[i]; r < c->rst.off[i + 1]; r++)
            if (!log_event(c, release_event(c, MEMPLAN_EVENT_RELEASE_SHAPE_TAG, i, c->rst.v[r]))) return oom(err);
    return MEMPLAN_OK;
}

/* ---- the context --------------------------------------------------------- */

memplan_status memplan_inplace_compute(const memplan_model *m, memplan_shapes *shapes,
                                       const memplan_inplace_options *opts, memplan_inplace **out,
                                       memplan_error *err) {
    if (!out) return memplan_error_set(err, MEMPLAN_EUSAGE, "no result pointer given");
    *out = NULL;
    if (!m || !m->graph || !shapes) return memplan_error_set(err, MEMPLAN_EUSAGE, "no model or shapes given");
    memplan_inplace_options none = {0};
    const memplan_inplace_options *o = opts ? opts : &none;
    memplan_inplace *c = calloc(1, sizeof *c);
    if (!c) return oom(err);
    c->g = m->graph;
    c->shapes = shapes;
    c->pool = memplan_shapes_pool(shapes);
    c->allow_input_overwrite = o->allow_input_overwrite;
    c->events_enabled = o->events;
    c->n_nodes = m->graph->n_nodes;
    c->n_values = m->graph->n_values;
    size_t nv = (size_t)(c->n_values ? c->n_values : 1);
    c->last_use = malloc(nv * sizeof *c->last_use);
    c->producer = malloc(nv * sizeof *c->producer);
    c->protect = calloc(nv, 1);
    memplan_status st = MEMPLAN_OK;
    if (!c->last_use || !c->producer || !c->protect) st = oom(err);
    for (int32_t v = 0; !st && v < c->n_values; v++) c->last_use[v] = -1;
    if (!st) st = compute_referenced(c, err);
    if (!st) {
        compute_producers(c);
        st = mp_compute_tags(c, err);
    }
    if (!st) st = compute_reuse_and_release(c, err);
    if (!st) st = mp_compute_profile(c, err);
    if (st) {
        memplan_inplace_free(c);
        return st;
    }
    *out = c;
    return MEMPLAN_OK;
}

void memplan_inplace_free(memplan_inplace *c) {
    if (!c) return;
    free(c->last_use);
    free(c->producer);
    free(c->protect);
    free(c->vtag);
    mp_ilist_free(&c->ref);
    mp_ilist_free(&c->rel);
    mp_ilist_free(&c->nua);
    mp_ilist_free(&c->rst);
    free(c->reuse_off);
    free(c->reuse);
    free(c->ntag);
    free(c->prof);
    free(c->ev);
    free(c);
}

/* ---- accessors ----------------------------------------------------------- */

const memplan_graph *memplan_inplace_graph(const memplan_inplace *c) { return c ? c->g : NULL; }
int32_t memplan_inplace_node_count(const memplan_inplace *c) { return c ? c->n_nodes : 0; }
memplan_expr_pool *memplan_inplace_pool(const memplan_inplace *c) { return c ? c->pool : NULL; }
bool memplan_inplace_has_tags(const memplan_inplace *c) { return c && c->has_tags; }

static memplan_status check_node(const memplan_inplace *c, int32_t node, memplan_error *err) {
    if (!c) return memplan_error_set(err, MEMPLAN_EUSAGE, "no in-place context given");
    if (node < 0 || node >= c->n_nodes)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "node index %d is out of range (the graph has %d nodes)",
                                 (int)node, (int)c->n_nodes);
    return MEMPLAN_OK;
}

static memplan_status check_value(const memplan_inplace *c, int32_t value, memplan_error *err) {
    if (!c) return memplan_error_set(err, MEMPLAN_EUSAGE, "no in-place context given");
    if (value < 0 || value >= c->n_values)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "value id %d is out of range (the graph has %d values)",
                                 (int)value, (int)c->n_values);
    return MEMPLAN_OK;
}

static memplan_status list_of(const memplan_inplace *c, const mp_ilist *l, int32_t node, const int32_t **values,
                              size_t *n, memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (st) return st;
    *values = l->v ? l->v + l->off[node] : NULL;
    *n = (size_t)(l->off[node + 1] - l->off[node]);
    return MEMPLAN_OK;
}

memplan_status memplan_inplace_node_reuse(const memplan_inplace *c, int32_t node, const memplan_reuse **items,
                                          size_t *n, memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (st) return st;
    *items = c->reuse + c->reuse_off[node];
    *n = (size_t)(c->reuse_off[node + 1] - c->reuse_off[node]);
    return MEMPLAN_OK;
}

memplan_status memplan_inplace_release_after(const memplan_inplace *c, int32_t node, const int32_t **values,
                                             size_t *n, memplan_error *err) {
    return list_of(c, c ? &c->rel : NULL, node, values, n, err);
}

memplan_status memplan_inplace_not_used_after(const memplan_inplace *c, int32_t node, const int32_t **values,
                                              size_t *n, memplan_error *err) {
    return list_of(c, c ? &c->nua : NULL, node, values, n, err);
}

memplan_status memplan_inplace_release_after_shape_tag(const memplan_inplace *c, int32_t node,
                                                       const int32_t **values, size_t *n, memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (st) return st;
    if (!c->has_tags) return memplan_error_set(err, MEMPLAN_EUSAGE, "no value tags are known");
    return list_of(c, &c->rst, node, values, n, err);
}

memplan_status memplan_inplace_node_tag(const memplan_inplace *c, int32_t node, memplan_tag *tag,
                                        memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (!st) *tag = c->ntag[node];
    return st;
}

memplan_status memplan_inplace_node_profile(const memplan_inplace *c, int32_t node, const memplan_profile **p,
                                            memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (!st) *p = &c->prof[node];
    return st;
}

memplan_status memplan_inplace_value_tag(const memplan_inplace *c, int32_t value, memplan_tag *tag,
                                         memplan_error *err) {
    memplan_status st = check_value(c, value, err);
    if (!st) *tag = c->vtag[value];
    return st;
}

memplan_status memplan_inplace_last_use(const memplan_inplace *c, int32_t value, int32_t *pos, memplan_error *err) {
    memplan_status st = check_value(c, value, err);
    if (!st) *pos = c->last_use[value];
    return st;
}

bool memplan_inplace_is_protected(const memplan_inplace *c, int32_t value) {
    return c && value >= 0 && value < c->n_values && c->protect[value];
}

size_t memplan_inplace_event_count(const memplan_inplace *c) { return c ? c->n_ev : 0; }
const memplan_event *memplan_inplace_events(const memplan_inplace *c) { return c ? c->ev : NULL; }
bool memplan_inplace_events_enabled(const memplan_inplace *c) { return c && c->events_enabled; }

void memplan_inplace_clear_events(memplan_inplace *c) {
    if (c) c->n_ev = 0;
}
