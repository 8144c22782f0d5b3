/*
 * report.c -- the plan document: liveness + sizes + slot/arena plans, as JSON
 * and text. Stages are called through their public headers only.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "out/cache.h"
#include "out/json.h"
#include "out/report_inplace.h"
#include "memplan/shapes.h"
#include "util/strmap.h"

/* What a plan request computes before its strategy is applied: shapes under
 * the bindings, liveness, sizes, the slot plans and the arena. A session keeps
 * the last few (src/out/cache.h): `plan --strategy slots` after `plan` with
 * the same dims and options costs only the JSON. */
struct mp_plan_core {
    char *key;                   /* mp_plan_key() of the request that built it */
    const memplan_graph *g;
    memplan_shapes *shapes;
    memplan_viewmap vm;
    memplan_liveness lv;
    memplan_size *size;          /* per value (owners and views) */
    memplan_buffer *bufs;        /* planned owners, in placement order */
    int32_t *buf_value;          /* value id of each buffer */
    int32_t *buf_of;             /* per value: buffer index or -1 */
    size_t n_bufs;
    size_t n_unknown, n_unplanned;
    memplan_slot_plan slots, exact;
    memplan_arena_plan arena;
};
typedef struct mp_plan_core plan_core;

/* One request's view of a core: the strategy's figures. */
typedef struct plan_ctx {
    const plan_core *k;
    const memplan_request *r;
    uint64_t *slot_offset;       /* slots strategy: offset of each slot */
    uint64_t naive, peak;
    uint64_t lower_bound;        /* on the strategy's basis: aligned for arena, raw for slots */
    bool saved_known;            /* --inplace: peak without minus peak with */
    int64_t saved;
} plan_ctx;

const char *mp_plan_core_key(const plan_core *k) { return k->key; }

void mp_plan_core_free(plan_core *k) {
    if (!k) return;
    memplan_shapes_free(k->shapes);
    memplan_viewmap_free(&k->vm);
    memplan_liveness_free(&k->lv);
    memplan_slot_plan_free(&k->slots);
    memplan_slot_plan_free(&k->exact);
    memplan_arena_plan_free(&k->arena);
    free(k->size);
    free(k->bufs);
    free(k->buf_value);
    free(k->buf_of);
    free(k->key);
    free(k);
}

static void plan_free(plan_ctx *c) {
    free(c->slot_offset);
    c->slot_offset = NULL;
}

static bool core_deferred(const plan_core *k) { return k->n_unknown > 0; }
static bool deferred(const plan_ctx *c) { return core_deferred(c->k); }

/* Every slot plan is checked twice before it is shown: by the planner's own
 * validator on intervals, and against the graph (views, outputs). */
static memplan_status check_slots(const plan_core *k, memplan_error *err) {
    memplan_violation viol;
    memplan_status st = memplan_validate_slots(k->bufs, k->n_bufs, &k->slots, &viol, err);
    if (st) return memplan_error_prefix(err, "internal error: the slot plan is invalid");
    int64_t *slot_of = malloc((size_t)(k->g->n_values ? k->g->n_values : 1) * sizeof *slot_of);
    if (!slot_of) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t v = 0; v < k->g->n_values; v++)
        slot_of[v] = k->buf_of[v] >= 0 ? (int64_t)k->slots.slot_of[k->buf_of[v]] : -1;
    st = memplan_liveness_check_slots(k->g, &k->lv, slot_of, NULL, err);
    free(slot_of);
    return st ? memplan_error_prefix(err, "internal error: the slot plan breaks the graph's rules") : MEMPLAN_OK;
}

/* Sizes of every value; the owners with a known size become buffers. */
static memplan_status collect_buffers(plan_core *k, const memplan_request *r, memplan_error *err) {
    const memplan_graph *g = k->g;
    size_t nv = (size_t)(g->n_values ? g->n_values : 1);
    k->size = calloc(nv, sizeof *k->size);
    k->bufs = calloc(nv, sizeof *k->bufs);
    k->buf_value = calloc(nv, sizeof *k->buf_value);
    k->buf_of = malloc(nv * sizeof *k->buf_of);
    if (!k->size || !k->bufs || !k->buf_value || !k->buf_of)
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t v = 0; v < g->n_values; v++) {
        k->buf_of[v] = -1;
        k->size[v] = memplan_shapes_size(k->shapes, memplan_shapes_value(k->shapes, g, v), r->bindings,
                                         r->n_bindings);
    }
    for (int32_t i = 0; i < k->lv.n_owners; i++) {
        int32_t v = k->lv.owners[i];
        const memplan_size *s = &k->size[v];
        if (s->kind == MEMPLAN_SIZE_UNPLANNABLE) {
            k->n_unplanned++;
            continue;
        }
        if (s->kind != MEMPLAN_SIZE_KNOWN) {
            k->n_unknown++;
            continue;
        }
        k->buf_of[v] = (int32_t)k->n_bufs;
        k->buf_value[k->n_bufs] = v;
        k->bufs[k->n_bufs].size = s->bytes;
        k->bufs[k->n_bufs].start = k->lv.start[v];
        k->bufs[k->n_bufs].end = (int64_t)k->lv.end[v] + 1;
        k->n_bufs++;
    }
    return MEMPLAN_OK;
}

/* Shapes, liveness, sizes; then (all sizes known) the slot plans and the arena. */
static memplan_status core_build(plan_core *k, const memplan_model *m, const memplan_request *r,
                                 memplan_error *err) {
    k->g = m->graph;
    memplan_status st = memplan_shapes_infer_bound(m, r->bindings, r->n_bindings, &k->shapes, err);
    if (st) return st;
    if ((st = memplan_viewmap_default(&k->vm, k->g, err))) return st;
    if (r->inplace && (st = mp_inplace_view_links(m, k->shapes, r, &k->vm, err))) return st;
    memplan_liveness_options lo = {r->include_inputs, &k->vm};
    if ((st = memplan_liveness_compute(k->g, &lo, &k->lv, err))) return st;
    if ((st = collect_buffers(k, r, err))) return st;
    if (core_deferred(k)) return MEMPLAN_OK;
    if ((st = memplan_plan_slots(k->bufs, k->n_bufs, MEMPLAN_SLOT_BEST_FIT, &k->slots, err))) return st;
    if ((st = check_slots(k, err))) return st;
    if ((st = memplan_plan_slots(k->bufs, k->n_bufs, MEMPLAN_SLOT_EXACT, &k->exact, err))) return st;
    memplan_pack_options po;
    memplan_pack_options_init(&po);
    po.align = r->align;
    po.budget_ms = r->budget_ms;
    return memplan_pack(k->bufs, k->n_bufs, &po, &k->arena, err);
}

/* The request's core: the cache's when the key matches, else built and kept. */
static memplan_status core_get(mp_cache *cache, const memplan_model *m, const memplan_request *r,
                               const plan_core **out, memplan_error *err) {
    char *key = mp_plan_key(r);
    if (!key) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    plan_core *k = mp_cache_find_plan(cache, key);
    if (k) {
        free(key);
        *out = k;
        return MEMPLAN_OK;
    }
    k = calloc(1, sizeof *k);
    if (!k) {
        free(key);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    k->key = key;
    memplan_status st = core_build(k, m, r, err);
    if (st) {
        mp_plan_core_free(k);
        return st;
    }
    mp_cache_put_plan(cache, k);
    *out = k;
    return MEMPLAN_OK;
}

/* The strategy's figures on a core: naive, peak, lower bound, slot offsets. */
static memplan_status plan_finish(plan_ctx *c, const plan_core *k, const memplan_request *r,
                                  memplan_error *err) {
    memset(c, 0, sizeof *c);
    c->k = k;
    c->r = r;
    /* Naive: one buffer per owner. The arena strategy aligns each one, as a
     * naive allocator would; the slot strategy counts raw sizes (seed 000). */
    for (size_t b = 0; b < k->n_bufs; b++)
        c->naive += r->strategy == MEMPLAN_STRATEGY_ARENA ? (k->bufs[b].size + r->align - 1) / r->align * r->align
                                                          : k->bufs[b].size;
    if (core_deferred(k)) return MEMPLAN_OK;
    if (r->strategy == MEMPLAN_STRATEGY_ARENA) {
        c->peak = k->arena.arena_bytes;
        c->lower_bound = k->arena.lower_bound_bytes;
        return MEMPLAN_OK;
    }
    c->slot_offset = malloc((k->slots.slot_count ? k->slots.slot_count : 1) * sizeof *c->slot_offset);
    if (!c->slot_offset) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    uint64_t off = 0, end = 0;
    for (size_t s = 0; s < k->slots.slot_count; s++) {
        c->slot_offset[s] = off;
        end = off + k->slots.slot_bytes[s];
        off += (k->slots.slot_bytes[s] + r->align - 1) / r->align * r->align;
    }
    /* The memory the slot layout needs: the sum of the slot capacities
     * (seed 000) when align is 1, plus the padding between slots otherwise. */
    c->peak = end;
    /* slot capacities are raw sizes (seed 000): compare with the raw bound */
    return memplan_lower_bound(k->bufs, k->n_bufs, 1, &c->lower_bound, err);
}

static memplan_status plan_build(plan_ctx *c, mp_cache *cache, const memplan_model *m,
                                 const memplan_request *r, memplan_error *err) {
    const plan_core *k = NULL;
    memset(c, 0, sizeof *c);
    memplan_status st = core_get(cache, m, r, &k, err);
    return st ? st : plan_finish(c, k, r, err);
}

static void json_size(mp_json *j, const memplan_size *s) {
    if (s->kind == MEMPLAN_SIZE_KNOWN) mp_json_uint(j, s->bytes);
    else mp_json_null(j);
}

static void json_amount(mp_json *j, memplan_expr_pool *p, memplan_expr e);
static const char *kind_label(const memplan_vshape *v);

/* "dtype" and "shape" (dims bound by the request) of a value. */
static void json_type_of(mp_json *j, const plan_ctx *c, int32_t v) {
    const memplan_vshape *vs = memplan_shapes_value(c->k->shapes, c->k->g, v);
    memplan_expr_pool *p = memplan_shapes_pool(c->k->shapes);
    MP_JSON_KEY(j, "dtype");
    mp_json_str(j, kind_label(vs));
    MP_JSON_KEY(j, "shape");
    if (vs->rank < 0) {
        mp_json_null(j);
        return;
    }
    mp_json_arr(j);
    for (int32_t i = 0; i < vs->rank; i++)
        json_amount(j, p, c->r->n_bindings ? memplan_expr_bind(p, vs->dims[i], c->r->bindings, c->r->n_bindings)
                                           : vs->dims[i]);
    mp_json_end(j);
}

/* Nodes in position order, for tables and tooltips. */
static void json_nodes(mp_json *j, const memplan_graph *g) {
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
        mp_json_end(j);
    }
    mp_json_end(j);
}

static void json_value(mp_json *j, const plan_ctx *c, int32_t v) {
    const memplan_graph *g = c->k->g;
    int32_t root = c->k->lv.root[v];
    int32_t b = root >= 0 ? c->k->buf_of[root] : -1;
    mp_json_obj(j);
    MP_JSON_KEY(j, "name");
    mp_json_str(j, g->values[v].name);
    MP_JSON_KEY(j, "size");
    json_size(j, &c->k->size[v]);
    MP_JSON_KEY(j, "start");
    mp_json_int(j, c->k->lv.start[root]);
    MP_JSON_KEY(j, "end");
    mp_json_int(j, c->k->lv.end[root]);
    MP_JSON_KEY(j, "owner");
    mp_json_str(j, g->values[root].name);
    MP_JSON_KEY(j, "view");
    mp_json_bool(j, root != v);
    MP_JSON_KEY(j, "slot");
    bool planned = b >= 0 && !deferred(c);
    bool slots = c->r->strategy == MEMPLAN_STRATEGY_SLOTS;
    if (planned && slots) mp_json_uint(j, c->k->slots.slot_of[b]);
    else mp_json_null(j);
    MP_JSON_KEY(j, "offset");
    if (planned) mp_json_uint(j, slots ? c->slot_offset[c->k->slots.slot_of[b]] : c->k->arena.offset[b]);
    else mp_json_null(j);
    json_type_of(j, c, v);
    mp_json_end(j);
}

/* Call fn(name, arg) for each unbound dim name of the deferred sizes, each
 * once, in first-seen order; false when memory ran out. */
static bool each_unbound_dim(const plan_ctx *c, void (*fn)(const char *, void *), void *arg) {
    bool ok = true;
    mp_strmap seen;
    mp_strmap_init(&seen);
    memplan_expr_pool *pool = memplan_shapes_pool(c->k->shapes);
    for (int32_t i = 0; i < c->k->lv.n_owners && ok; i++) {
        const memplan_size *s = &c->k->size[c->k->lv.owners[i]];
        if (s->kind != MEMPLAN_SIZE_SYMBOLIC) continue;
        const char *few[16], **names = few;
        size_t n = memplan_expr_names(pool, s->expr, few, 16);
        if (n > 16) { /* every name is listed, however many one size has */
            names = malloc(n * sizeof *names);
            if (!names) {
                ok = false;
                break;
            }
            memplan_expr_names(pool, s->expr, names, n);
        }
        for (size_t k = 0; k < n && ok; k++) {
            if (mp_strmap_get(&seen, names[k]) >= 0) continue;
            ok = mp_strmap_put(&seen, names[k], 1);
            if (ok) fn(names[k], arg);
        }
        if (names != few) free(names);
    }
    mp_strmap_free(&seen);
    return ok;
}

static void put_json_dim(const char *name, void *j) { mp_json_str(j, name); }

static void json_unknown(mp_json *j, const plan_ctx *c) {
    const memplan_graph *g = c->k->g;
    mp_json_obj(j);
    MP_JSON_KEY(j, "values");
    mp_json_arr(j);
    for (int32_t i = 0; i < c->k->lv.n_owners; i++) {
        int32_t v = c->k->lv.owners[i];
        const memplan_size *s = &c->k->size[v];
        if (s->kind != MEMPLAN_SIZE_SYMBOLIC && s->kind != MEMPLAN_SIZE_UNKNOWN) continue;
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, g->values[v].name);
        MP_JSON_KEY(j, "reason");
        mp_json_str(j, s->kind == MEMPLAN_SIZE_SYMBOLIC ? "unbound dims" : s->reason);
        mp_json_end(j);
    }
    mp_json_end(j);
    MP_JSON_KEY(j, "dims");
    mp_json_arr(j);
    if (!each_unbound_dim(c, put_json_dim, j)) j->out->failed = true; /* reported as out of memory */
    mp_json_end(j);
    mp_json_end(j);
}

static void plan_json(mp_json *j, const plan_ctx *c) {
    const memplan_graph *g = c->k->g;
    bool def = deferred(c);
    mp_json_obj(j);
    MP_JSON_KEY(j, "status");
    mp_json_str(j, def ? "deferred" : "planned");
    MP_JSON_KEY(j, "strategy");
    mp_json_str(j, c->r->strategy == MEMPLAN_STRATEGY_SLOTS ? "slots" : "arena");
    MP_JSON_KEY(j, "align");
    mp_json_uint(j, c->r->align);
    MP_JSON_KEY(j, "positions");
    mp_json_int(j, g->n_nodes);
    MP_JSON_KEY(j, "naive_bytes");
    if (def) mp_json_null(j); else mp_json_uint(j, c->naive);
    MP_JSON_KEY(j, "peak_bytes");
    if (def) mp_json_null(j); else mp_json_uint(j, c->peak);
    MP_JSON_KEY(j, "lower_bound_bytes");
    if (def) mp_json_null(j); else mp_json_uint(j, c->lower_bound);
    MP_JSON_KEY(j, "savings_ratio");
    if (def) mp_json_null(j); else mp_json_double(j, c->naive ? 1.0 - (double)c->peak / (double)c->naive : 0.0);
    MP_JSON_KEY(j, "strategies");
    if (def) {
        mp_json_null(j);
    } else {
        mp_json_obj(j);
        MP_JSON_KEY(j, "arena");
        mp_json_uint(j, c->k->arena.arena_bytes);
        MP_JSON_KEY(j, "slots");
        mp_json_uint(j, c->k->slots.peak_bytes);
        MP_JSON_KEY(j, "exact_reuse");
        mp_json_uint(j, c->k->exact.peak_bytes);
        MP_JSON_KEY(j, "arena_heuristic");
        mp_json_str(j, memplan_heuristic_name(c->k->arena.heuristic));
        MP_JSON_KEY(j, "arena_gap_ratio");
        mp_json_double(j, c->k->arena.gap_ratio);
        mp_json_end(j);
    }
    MP_JSON_KEY(j, "slots");
    mp_json_arr(j);
    if (!def && c->r->strategy == MEMPLAN_STRATEGY_SLOTS)
        for (size_t s = 0; s < c->k->slots.slot_count; s++) {
            mp_json_obj(j);
            MP_JSON_KEY(j, "id");
            mp_json_uint(j, s);
            MP_JSON_KEY(j, "capacity");
            mp_json_uint(j, c->k->slots.slot_bytes[s]);
            MP_JSON_KEY(j, "offset");
            mp_json_uint(j, c->slot_offset[s]);
            mp_json_end(j);
        }
    mp_json_end(j);
    MP_JSON_KEY(j, "values");
    mp_json_arr(j);
    for (int32_t i = 0; i < c->k->lv.n_owners; i++)
        if (c->k->size[c->k->lv.owners[i]].kind != MEMPLAN_SIZE_UNPLANNABLE) json_value(j, c, c->k->lv.owners[i]);
    for (int32_t v = 0; v < g->n_values; v++) {
        int32_t root = c->k->lv.root[v];
        if (root >= 0 && root != v && c->k->size[root].kind != MEMPLAN_SIZE_UNPLANNABLE) json_value(j, c, v);
    }
    mp_json_end(j);
    MP_JSON_KEY(j, "unplanned");
    mp_json_arr(j);
    for (int32_t i = 0; i < c->k->lv.n_owners; i++) {
        int32_t v = c->k->lv.owners[i];
        if (c->k->size[v].kind != MEMPLAN_SIZE_UNPLANNABLE) continue;
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, g->values[v].name);
        MP_JSON_KEY(j, "reason");
        mp_json_str(j, c->k->size[v].reason);
        mp_json_end(j);
    }
    mp_json_end(j);
    MP_JSON_KEY(j, "unknown");
    if (def) json_unknown(j, c);
    else mp_json_null(j);
    if (!c->r->no_nodes) {
        MP_JSON_KEY(j, "nodes");
        json_nodes(j, g);
    }
    if (c->r->inplace) {
        MP_JSON_KEY(j, "inplace");
        mp_json_obj(j);
        MP_JSON_KEY(j, "enabled");
        mp_json_bool(j, true);
        MP_JSON_KEY(j, "saved_bytes");
        if (c->saved_known) mp_json_int(j, c->saved); else mp_json_null(j);
        mp_json_end(j);
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
    if (u == 0) mp_buf_printf(b, "%llu B", (unsigned long long)v);
    else mp_buf_printf(b, "%llu (%.2f %s)", (unsigned long long)v, x, units[u]);
}

typedef struct text_dims {
    mp_buf *b;
    size_t n;
} text_dims;

static void put_text_dim(const char *name, void *arg) {
    text_dims *t = arg;
    mp_buf_puts(t->b, t->n++ ? ", " : "unbound dims:      ");
    mp_buf_puts(t->b, name);
}

static void plan_text(mp_buf *b, const plan_ctx *c, const memplan_request *r) {
    mp_buf_printf(b, "positions:         %d nodes\n", (int)c->k->g->n_nodes);
    mp_buf_printf(b, "buffers:           %zu planned, %zu unplanned, %zu unknown\n", c->k->n_bufs, c->k->n_unplanned,
                  c->k->n_unknown);
    if (deferred(c)) {
        mp_buf_puts(b, "status:            deferred: some sizes are not known\n");
        text_dims td = {b, 0};
        if (!each_unbound_dim(c, put_text_dim, &td)) b->failed = true;
        if (td.n) mp_buf_puts(b, "\n                   (bind them with --dim NAME=VALUE)\n");
        int shown = 0;
        for (int32_t i = 0; i < c->k->lv.n_owners && shown < 10; i++) {
            const memplan_size *s = &c->k->size[c->k->lv.owners[i]];
            if (s->kind != MEMPLAN_SIZE_SYMBOLIC && s->kind != MEMPLAN_SIZE_UNKNOWN) continue;
            mp_buf_printf(b, "  %s: %s\n", c->k->g->values[c->k->lv.owners[i]].name,
                          s->kind == MEMPLAN_SIZE_SYMBOLIC ? "unbound dims" : s->reason);
            shown++;
        }
        if ((size_t)shown < c->k->n_unknown) mp_buf_printf(b, "  ... and %zu more\n", c->k->n_unknown - (size_t)shown);
    } else {
        mp_buf_printf(b, "strategy:          %s, align %llu\n", r->strategy == MEMPLAN_STRATEGY_SLOTS ? "slots" : "arena",
                      (unsigned long long)r->align);
        mp_buf_puts(b, "naive:             ");
        human_bytes(b, c->naive);
        mp_buf_puts(b, "\npeak:              ");
        human_bytes(b, c->peak);
        mp_buf_puts(b, "\nlower bound:       ");
        human_bytes(b, c->lower_bound);
        mp_buf_printf(b, "\nsavings:           %.1f%%\n", c->naive ? 100.0 * (1.0 - (double)c->peak / (double)c->naive) : 0.0);
        mp_buf_printf(b, "compare:           arena %llu, slots %llu, exact reuse %llu\n",
                      (unsigned long long)c->k->arena.arena_bytes, (unsigned long long)c->k->slots.peak_bytes,
                      (unsigned long long)c->k->exact.peak_bytes);
        if (c->saved_known) mp_buf_printf(b, "in-place reuse:    saves %lld bytes\n", (long long)c->saved);
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
    else if (memplan_expr_is_const(p, e, &k)) mp_json_int(j, k);
    else mp_json_str(j, memplan_expr_str(p, e));
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
                json_amount(j, p, r->n_bindings ? memplan_expr_bind(p, vs->dims[i], r->bindings, r->n_bindings) : vs->dims[i]);
            mp_json_end(j);
        }
        memplan_expr bytes = vs->bytes == MEMPLAN_EXPR_NONE || !r->n_bindings
                                 ? vs->bytes : memplan_expr_bind(p, vs->bytes, r->bindings, r->n_bindings);
        int64_t k;
        if (bytes == MEMPLAN_EXPR_NONE) n_unknown++;
        else if (memplan_expr_is_const(p, bytes, &k)) n_known++;
        else n_symbolic++;
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
    mp_json_arr(j);
    for (size_t i = 0; i < memplan_shapes_note_count(S); i++) mp_json_str(j, memplan_shapes_note(S, i));
    mp_json_end(j);
    mp_json_end(j);
}

static void shapes_text(mp_buf *b, const memplan_graph *g, memplan_shapes *S, const memplan_request *r) {
    memplan_expr_pool *p = memplan_shapes_pool(S);
    for (int32_t v = 0; v < g->n_values; v++) {
        const memplan_vshape *vs = memplan_shapes_value(S, g, v);
        const char *dt = kind_label(vs);
        mp_buf_printf(b, "%s: %s", g->values[v].name, dt ? dt : "?");
        if (vs->rank >= 0) {
            mp_buf_putc(b, '[');
            for (int32_t i = 0; i < vs->rank; i++) {
                memplan_expr e = r->n_bindings ? memplan_expr_bind(p, vs->dims[i], r->bindings, r->n_bindings) : vs->dims[i];
                mp_buf_printf(b, "%s%s", i ? "," : "", memplan_expr_str(p, e));
            }
            mp_buf_putc(b, ']');
        }
        memplan_expr bytes = vs->bytes == MEMPLAN_EXPR_NONE || !r->n_bindings
                                 ? vs->bytes : memplan_expr_bind(p, vs->bytes, r->bindings, r->n_bindings);
        if (bytes == MEMPLAN_EXPR_NONE) mp_buf_printf(b, "  (%s)\n", vs->reason ? vs->reason : "unknown");
        else mp_buf_printf(b, "  %s bytes, %s\n", memplan_expr_str(p, bytes), origin_name(vs->origin));
    }
    for (size_t i = 0; i < memplan_shapes_note_count(S); i++) mp_buf_printf(b, "note: %s\n", memplan_shapes_note(S, i));
}

static memplan_status shapes_report(const memplan_model *m, const memplan_request *r, char **out, size_t *len,
                                    memplan_error *err, bool json) {
    memplan_shapes *S;
    memplan_status st = memplan_shapes_infer_bound(m, r->bindings, r->n_bindings, &S, err);
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

/* --inplace: plan once without it, to report the bytes it saves (§ arena
 * integration). Returns the peak without in-place reuse in *peak (known
 * when *known). */
static memplan_status peak_without_inplace(mp_cache *cache, const memplan_model *m, const memplan_request *r,
                                           bool *known, int64_t *peak, memplan_error *err) {
    memplan_request *plain = malloc(sizeof *plain);
    if (!plain) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    *plain = *r;
    plain->inplace = false;
    plan_ctx c;
    memplan_status st = plan_build(&c, cache, m, plain, err);
    *known = !st && !deferred(&c);
    *peak = (int64_t)c.peak;
    plan_free(&c);
    free(plain);
    return st;
}

/* The plan document's figures: the request's core with its strategy applied
 * (and, for --inplace, the bytes in-place reuse saves). */
static memplan_status plan_get(plan_ctx *c, mp_cache *cache, const memplan_model *m, const memplan_request *r,
                               memplan_error *err) {
    bool known = false;
    int64_t without = 0;
    memset(c, 0, sizeof *c);
    memplan_status st = r->inplace ? peak_without_inplace(cache, m, r, &known, &without, err) : MEMPLAN_OK;
    if (!st) st = plan_build(c, cache, m, r, err);
    c->saved_known = known && !st && !deferred(c);
    c->saved = without - (int64_t)c->peak;
    return st;
}

memplan_status mp_report(mp_cache *cache, const memplan_model *m, const char *command, const memplan_request *r,
                         char **out, size_t *len, memplan_error *err, bool json) {
    if (strcmp(command, "info") == 0)
        return json ? memplan_info_json(m, out, len, err) : memplan_info_text(m, out, len, err);
    if (strcmp(command, "shapes") == 0) return shapes_report(m, r, out, len, err, json);
    if (mp_inplace_command(command)) return mp_report_inplace(cache, m, command, r, out, len, err, json);
    if (strcmp(command, "plan") != 0)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "unknown command '%s'", command);
    plan_ctx c;
    memplan_status st = plan_get(&c, cache, m, r, err);
    if (st) {
        plan_free(&c);
        return st;
    }
    mp_buf b;
    mp_buf_init(&b);
    if (json) {
        mp_json j;
        mp_json_init(&j, &b);
        plan_json(&j, &c);
        mp_buf_putc(&b, '\n');
    } else {
        plan_text(&b, &c, r);
    }
    plan_free(&c);
    return finish_buf(&b, out, len, err);
}

/* One-shot reports: a cache that lives for the one call. */
static memplan_status report_once(const memplan_model *m, const char *command, const memplan_request *r,
                                  char **out, size_t *len, memplan_error *err, bool json) {
    mp_cache cache;
    mp_cache_init(&cache);
    memplan_status st = mp_report(&cache, m, command, r, out, len, err, json);
    mp_cache_clear(&cache);
    return st;
}

memplan_status memplan_report_json(const memplan_model *m, const char *command, const memplan_request *r,
                                   char **json, size_t *len, memplan_error *err) {
    return report_once(m, command, r, json, len, err, true);
}

memplan_status memplan_report_text(const memplan_model *m, const char *command, const memplan_request *r,
                                   char **text, size_t *len, memplan_error *err) {
    return report_once(m, command, r, text, len, err, false);
}
