/*
 * report.c -- the plan document: liveness + sizes + slot/arena plans, as JSON
 * and text. Stages are called through their public headers only.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "out/json.h"
#include "out/report_inplace.h"
#include "memplan/shapes.h"
#include "util/strmap.h"

typedef struct plan_ctx {
    const memplan_graph *g;
    memplan_shapes *shapes;
    const memplan_request *r;
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
    uint64_t *slot_offset;       /* slots strategy: offset of each slot */
    uint64_t naive, peak;
    uint64_t lower_bound;        /* on the strategy's basis: aligned for arena, raw for slots */
    bool saved_known;            /* --inplace: peak without minus peak with */
    int64_t saved;
} plan_ctx;

static void plan_free(plan_ctx *c) {
    memplan_shapes_free(c->shapes);
    memplan_viewmap_free(&c->vm);
    memplan_liveness_free(&c->lv);
    memplan_slot_plan_free(&c->slots);
    memplan_slot_plan_free(&c->exact);
    memplan_arena_plan_free(&c->arena);
    free(c->size);
    free(c->bufs);
    free(c->buf_value);
    free(c->buf_of);
    free(c->slot_offset);
}

static bool deferred(const plan_ctx *c) { return c->n_unknown > 0; }

/* Every slot plan is checked twice before it is shown: by the planner's own
 * validator on intervals, and against the graph (views, outputs). */
static memplan_status check_slots(plan_ctx *c, memplan_error *err) {
    memplan_violation viol;
    memplan_status st = memplan_validate_slots(c->bufs, c->n_bufs, &c->slots, &viol, err);
    if (st) return memplan_error_prefix(err, "internal error: the slot plan is invalid");
    int64_t *slot_of = malloc((size_t)(c->g->n_values ? c->g->n_values : 1) * sizeof *slot_of);
    if (!slot_of) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t v = 0; v < c->g->n_values; v++)
        slot_of[v] = c->buf_of[v] >= 0 ? (int64_t)c->slots.slot_of[c->buf_of[v]] : -1;
    st = memplan_liveness_check_slots(c->g, &c->lv, slot_of, NULL, err);
    free(slot_of);
    return st ? memplan_error_prefix(err, "internal error: the slot plan breaks the graph's rules") : MEMPLAN_OK;
}

static memplan_status plan_build(plan_ctx *c, const memplan_model *m, const memplan_request *r,
                                 memplan_error *err) {
    memset(c, 0, sizeof *c);
    c->g = m->graph;
    c->r = r;
    const memplan_graph *g = c->g;
    memplan_status st = memplan_shapes_infer_bound(m, r->bindings, r->n_bindings, &c->shapes, err);
    if (st) return st;
    if ((st = memplan_viewmap_default(&c->vm, g, err))) return st;
    if (r->inplace && (st = mp_inplace_view_links(m, c->shapes, r, &c->vm, err))) return st;
    memplan_liveness_options lo = {r->include_inputs, &c->vm};
    if ((st = memplan_liveness_compute(g, &lo, &c->lv, err))) return st;
    size_t nv = (size_t)(g->n_values ? g->n_values : 1);
    c->size = calloc(nv, sizeof *c->size);
    c->bufs = calloc(nv, sizeof *c->bufs);
    c->buf_value = calloc(nv, sizeof *c->buf_value);
    c->buf_of = malloc(nv * sizeof *c->buf_of);
    if (!c->size || !c->bufs || !c->buf_value || !c->buf_of)
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t v = 0; v < g->n_values; v++) {
        c->buf_of[v] = -1;
        c->size[v] = memplan_shapes_size(c->shapes, memplan_shapes_value(c->shapes, g, v), r->bindings,
                                         r->n_bindings);
    }
    for (int32_t i = 0; i < c->lv.n_owners; i++) {
        int32_t v = c->lv.owners[i];
        const memplan_size *s = &c->size[v];
        if (s->kind == MEMPLAN_SIZE_UNPLANNABLE) {
            c->n_unplanned++;
            continue;
        }
        if (s->kind != MEMPLAN_SIZE_KNOWN) {
            c->n_unknown++;
            continue;
        }
        c->buf_of[v] = (int32_t)c->n_bufs;
        c->buf_value[c->n_bufs] = v;
        c->bufs[c->n_bufs].size = s->bytes;
        c->bufs[c->n_bufs].start = c->lv.start[v];
        c->bufs[c->n_bufs].end = (int64_t)c->lv.end[v] + 1;
        /* Naive: one buffer per owner. The arena strategy aligns each one,
         * as a naive allocator would; the slot strategy counts raw sizes (seed 000). */
        c->naive += r->strategy == MEMPLAN_STRATEGY_ARENA ? (s->bytes + r->align - 1) / r->align * r->align
                                                          : s->bytes;
        c->n_bufs++;
    }
    if (deferred(c)) return MEMPLAN_OK;
    if ((st = memplan_plan_slots(c->bufs, c->n_bufs, MEMPLAN_SLOT_BEST_FIT, &c->slots, err))) return st;
    if ((st = check_slots(c, err))) return st;
    if ((st = memplan_plan_slots(c->bufs, c->n_bufs, MEMPLAN_SLOT_EXACT, &c->exact, err))) return st;
    memplan_pack_options po;
    memplan_pack_options_init(&po);
    po.align = r->align;
    po.budget_ms = r->budget_ms;
    if ((st = memplan_pack(c->bufs, c->n_bufs, &po, &c->arena, err))) return st;
    if (r->strategy == MEMPLAN_STRATEGY_SLOTS) {
        c->slot_offset = malloc((c->slots.slot_count ? c->slots.slot_count : 1) * sizeof *c->slot_offset);
        if (!c->slot_offset) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        uint64_t off = 0, end = 0;
        for (size_t s = 0; s < c->slots.slot_count; s++) {
            c->slot_offset[s] = off;
            end = off + c->slots.slot_bytes[s];
            off += (c->slots.slot_bytes[s] + r->align - 1) / r->align * r->align;
        }
        /* The memory the slot layout needs: the sum of the slot capacities
         * (seed 000) when align is 1, plus the padding between slots otherwise. */
        c->peak = end;
        /* slot capacities are raw sizes (seed 000): compare with the raw bound */
        if ((st = memplan_lower_bound(c->bufs, c->n_bufs, 1, &c->lower_bound, err))) return st;
    } else {
        c->peak = c->arena.arena_bytes;
        c->lower_bound = c->arena.lower_bound_bytes;
    }
    return MEMPLAN_OK;
}

static void json_size(mp_json *j, const memplan_size *s) {
    if (s->kind == MEMPLAN_SIZE_KNOWN) mp_json_uint(j, s->bytes);
    else mp_json_null(j);
}

static void json_amount(mp_json *j, memplan_expr_pool *p, memplan_expr e);
static const char *kind_label(const memplan_vshape *v);

/* "dtype" and "shape" (dims bound by the request) of a value. */
static void json_type_of(mp_json *j, const plan_ctx *c, int32_t v) {
    const memplan_vshape *vs = memplan_shapes_value(c->shapes, c->g, v);
    memplan_expr_pool *p = memplan_shapes_pool(c->shapes);
    mp_json_key(j, "dtype");
    mp_json_str(j, kind_label(vs));
    mp_json_key(j, "shape");
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
        mp_json_key(j, "index");
        mp_json_int(j, p);
        mp_json_key(j, "name");
        mp_json_str(j, n->name);
        mp_json_key(j, "op_type");
        mp_json_str(j, n->op_type);
        mp_json_key(j, "domain");
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
    const memplan_graph *g = c->g;
    int32_t root = c->lv.root[v];
    int32_t b = root >= 0 ? c->buf_of[root] : -1;
    mp_json_obj(j);
    mp_json_key(j, "name");
    mp_json_str(j, g->values[v].name);
    mp_json_key(j, "size");
    json_size(j, &c->size[v]);
    mp_json_key(j, "start");
    mp_json_int(j, c->lv.start[root]);
    mp_json_key(j, "end");
    mp_json_int(j, c->lv.end[root]);
    mp_json_key(j, "owner");
    mp_json_str(j, g->values[root].name);
    mp_json_key(j, "view");
    mp_json_bool(j, root != v);
    mp_json_key(j, "slot");
    bool planned = b >= 0 && !deferred(c);
    bool slots = c->r->strategy == MEMPLAN_STRATEGY_SLOTS;
    if (planned && slots) mp_json_uint(j, c->slots.slot_of[b]);
    else mp_json_null(j);
    mp_json_key(j, "offset");
    if (planned) mp_json_uint(j, slots ? c->slot_offset[c->slots.slot_of[b]] : c->arena.offset[b]);
    else mp_json_null(j);
    json_type_of(j, c, v);
    mp_json_end(j);
}

static void json_unknown(mp_json *j, const plan_ctx *c) {
    const memplan_graph *g = c->g;
    mp_json_obj(j);
    mp_json_key(j, "values");
    mp_json_arr(j);
    for (int32_t i = 0; i < c->lv.n_owners; i++) {
        int32_t v = c->lv.owners[i];
        const memplan_size *s = &c->size[v];
        if (s->kind != MEMPLAN_SIZE_SYMBOLIC && s->kind != MEMPLAN_SIZE_UNKNOWN) continue;
        mp_json_obj(j);
        mp_json_key(j, "name");
        mp_json_str(j, g->values[v].name);
        mp_json_key(j, "reason");
        mp_json_str(j, s->kind == MEMPLAN_SIZE_SYMBOLIC ? "unbound dims" : s->reason);
        mp_json_end(j);
    }
    mp_json_end(j);
    /* Unbound dim names, each once, in first-seen order. */
    mp_json_key(j, "dims");
    mp_json_arr(j);
    mp_strmap seen;
    mp_strmap_init(&seen);
    memplan_expr_pool *pool = memplan_shapes_pool(c->shapes);
    for (int32_t i = 0; i < c->lv.n_owners; i++) {
        const memplan_size *s = &c->size[c->lv.owners[i]];
        if (s->kind != MEMPLAN_SIZE_SYMBOLIC) continue;
        const char *names[16];
        size_t n = memplan_expr_names(pool, s->expr, names, 16);
        for (size_t k = 0; k < n && k < 16; k++) {
            if (mp_strmap_get(&seen, names[k]) >= 0) continue;
            if (!mp_strmap_put(&seen, names[k], 1)) j->out->failed = true; /* reported as out of memory */
            mp_json_str(j, names[k]);
        }
    }
    mp_strmap_free(&seen);
    mp_json_end(j);
    mp_json_end(j);
}

static void plan_json(mp_json *j, const plan_ctx *c) {
    const memplan_graph *g = c->g;
    bool def = deferred(c);
    mp_json_obj(j);
    mp_json_key(j, "status");
    mp_json_str(j, def ? "deferred" : "planned");
    mp_json_key(j, "strategy");
    mp_json_str(j, c->r->strategy == MEMPLAN_STRATEGY_SLOTS ? "slots" : "arena");
    mp_json_key(j, "align");
    mp_json_uint(j, c->r->align);
    mp_json_key(j, "positions");
    mp_json_int(j, g->n_nodes);
    mp_json_key(j, "naive_bytes");
    if (def) mp_json_null(j); else mp_json_uint(j, c->naive);
    mp_json_key(j, "peak_bytes");
    if (def) mp_json_null(j); else mp_json_uint(j, c->peak);
    mp_json_key(j, "lower_bound_bytes");
    if (def) mp_json_null(j); else mp_json_uint(j, c->lower_bound);
    mp_json_key(j, "savings_ratio");
    if (def) mp_json_null(j); else mp_json_double(j, c->naive ? 1.0 - (double)c->peak / (double)c->naive : 0.0);
    mp_json_key(j, "strategies");
    if (def) {
        mp_json_null(j);
    } else {
        mp_json_obj(j);
        mp_json_key(j, "arena");
        mp_json_uint(j, c->arena.arena_bytes);
        mp_json_key(j, "slots");
        mp_json_uint(j, c->slots.peak_bytes);
        mp_json_key(j, "exact_reuse");
        mp_json_uint(j, c->exact.peak_bytes);
        mp_json_key(j, "arena_heuristic");
        mp_json_str(j, memplan_heuristic_name(c->arena.heuristic));
        mp_json_key(j, "arena_gap_ratio");
        mp_json_double(j, c->arena.gap_ratio);
        mp_json_end(j);
    }
    mp_json_key(j, "slots");
    mp_json_arr(j);
    if (!def && c->r->strategy == MEMPLAN_STRATEGY_SLOTS)
        for (size_t s = 0; s < c->slots.slot_count; s++) {
            mp_json_obj(j);
            mp_json_key(j, "id");
            mp_json_uint(j, s);
            mp_json_key(j, "capacity");
            mp_json_uint(j, c->slots.slot_bytes[s]);
            mp_json_key(j, "offset");
            mp_json_uint(j, c->slot_offset[s]);
            mp_json_end(j);
        }
    mp_json_end(j);
    mp_json_key(j, "values");
    mp_json_arr(j);
    for (int32_t i = 0; i < c->lv.n_owners; i++)
        if (c->size[c->lv.owners[i]].kind != MEMPLAN_SIZE_UNPLANNABLE) json_value(j, c, c->lv.owners[i]);
    for (int32_t v = 0; v < g->n_values; v++) {
        int32_t root = c->lv.root[v];
        if (root >= 0 && root != v && c->size[root].kind != MEMPLAN_SIZE_UNPLANNABLE) json_value(j, c, v);
    }
    mp_json_end(j);
    mp_json_key(j, "unplanned");
    mp_json_arr(j);
    for (int32_t i = 0; i < c->lv.n_owners; i++) {
        int32_t v = c->lv.owners[i];
        if (c->size[v].kind != MEMPLAN_SIZE_UNPLANNABLE) continue;
        mp_json_obj(j);
        mp_json_key(j, "name");
        mp_json_str(j, g->values[v].name);
        mp_json_key(j, "reason");
        mp_json_str(j, c->size[v].reason);
        mp_json_end(j);
    }
    mp_json_end(j);
    mp_json_key(j, "unknown");
    if (def) json_unknown(j, c);
    else mp_json_null(j);
    mp_json_key(j, "nodes");
    json_nodes(j, g);
    if (c->r->inplace) {
        mp_json_key(j, "inplace");
        mp_json_obj(j);
        mp_json_key(j, "enabled");
        mp_json_bool(j, true);
        mp_json_key(j, "saved_bytes");
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

static void plan_text(mp_buf *b, const plan_ctx *c, const memplan_request *r) {
    mp_buf_printf(b, "positions:         %d nodes\n", (int)c->g->n_nodes);
    mp_buf_printf(b, "buffers:           %zu planned, %zu unplanned, %zu unknown\n", c->n_bufs, c->n_unplanned,
                  c->n_unknown);
    if (deferred(c)) {
        mp_buf_puts(b, "status:            deferred: some sizes are not known");
        mp_buf_puts(b, r->n_bindings ? "\n" : " (bind dims with --dim NAME=VALUE)\n");
        int shown = 0;
        for (int32_t i = 0; i < c->lv.n_owners && shown < 10; i++) {
            const memplan_size *s = &c->size[c->lv.owners[i]];
            if (s->kind != MEMPLAN_SIZE_SYMBOLIC && s->kind != MEMPLAN_SIZE_UNKNOWN) continue;
            mp_buf_printf(b, "  %s: %s\n", c->g->values[c->lv.owners[i]].name,
                          s->kind == MEMPLAN_SIZE_SYMBOLIC ? "unbound dims" : s->reason);
            shown++;
        }
        if ((size_t)shown < c->n_unknown) mp_buf_printf(b, "  ... and %zu more\n", c->n_unknown - (size_t)shown);
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
                      (unsigned long long)c->arena.arena_bytes, (unsigned long long)c->slots.peak_bytes,
                      (unsigned long long)c->exact.peak_bytes);
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
    mp_json_key(j, "values");
    mp_json_arr(j);
    for (int32_t v = 0; v < g->n_values; v++) {
        const memplan_vshape *vs = memplan_shapes_value(S, g, v);
        mp_json_obj(j);
        mp_json_key(j, "name");
        mp_json_str(j, g->values[v].name);
        mp_json_key(j, "dtype");
        mp_json_str(j, kind_label(vs));
        mp_json_key(j, "shape");
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
        mp_json_key(j, "bytes");
        json_amount(j, p, bytes);
        mp_json_key(j, "origin");
        mp_json_str(j, origin_name(vs->origin));
        if (bytes == MEMPLAN_EXPR_NONE) {
            mp_json_key(j, "reason");
            mp_json_str(j, vs->reason ? vs->reason : "unknown");
        }
        mp_json_end(j);
    }
    mp_json_end(j);
    mp_json_key(j, "summary");
    mp_json_obj(j);
    mp_json_key(j, "values");
    mp_json_int(j, g->n_values);
    mp_json_key(j, "static_bytes");
    mp_json_int(j, n_known);
    mp_json_key(j, "symbolic_bytes");
    mp_json_int(j, n_symbolic);
    mp_json_key(j, "unknown_bytes");
    mp_json_int(j, n_unknown);
    mp_json_end(j);
    mp_json_key(j, "notes");
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
 * integration); c->peak then holds the peak without in-place reuse. */
static memplan_status inplace_saving(const memplan_model *m, const memplan_request *r, plan_ctx *c,
                                     memplan_error *err) {
    memset(c, 0, sizeof *c);
    if (!r->inplace) return MEMPLAN_OK;
    memplan_request *plain = malloc(sizeof *plain);
    if (!plain) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    *plain = *r;
    plain->inplace = false;
    memplan_status st = plan_build(c, m, plain, err);
    bool known = !st && !deferred(c);
    int64_t peak = (int64_t)c->peak;
    plan_free(c);
    memset(c, 0, sizeof *c);
    c->saved_known = known;
    c->saved = peak;
    free(plain);
    return st;
}

/* plan_build, keeping what inplace_saving found. */
static memplan_status plan_build_saved(plan_ctx *c, const memplan_model *m, const memplan_request *r,
                                       memplan_error *err) {
    bool known = c->saved_known;
    int64_t without = c->saved;
    memplan_status st = plan_build(c, m, r, err);
    c->saved_known = known && !st && !deferred(c);
    c->saved = without - (int64_t)c->peak;
    return st;
}

/* Both document forms: the info summary, or the plan built once and printed. */
static memplan_status report(const memplan_model *m, const char *command, const memplan_request *r,
                             char **out, size_t *len, memplan_error *err, bool json) {
    if (strcmp(command, "info") == 0)
        return json ? memplan_info_json(m, out, len, err) : memplan_info_text(m, out, len, err);
    if (strcmp(command, "shapes") == 0) return shapes_report(m, r, out, len, err, json);
    if (mp_inplace_command(command)) return mp_report_inplace(m, command, r, out, len, err, json);
    if (strcmp(command, "plan") != 0)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "unknown command '%s'", command);
    plan_ctx c;
    memplan_status st = inplace_saving(m, r, &c, err);
    if (!st) st = plan_build_saved(&c, m, r, err);
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

memplan_status memplan_report_json(const memplan_model *m, const char *command, const memplan_request *r,
                                   char **json, size_t *len, memplan_error *err) {
    return report(m, command, r, json, len, err, true);
}

memplan_status memplan_report_text(const memplan_model *m, const char *command, const memplan_request *r,
                                   char **text, size_t *len, memplan_error *err) {
    return report(m, command, r, text, len, err, false);
}
