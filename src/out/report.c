/*
 * report.c -- the plan document: liveness + sizes + slot/arena plans, as JSON
 * and text. Stages are called through their public headers only.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "out/json.h"
#include "util/strmap.h"

typedef struct plan_ctx {
    const memplan_graph *g;
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
} plan_ctx;

static void plan_free(plan_ctx *c) {
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

static memplan_status plan_build(plan_ctx *c, const memplan_model *m, const memplan_request *r,
                                 memplan_error *err) {
    memset(c, 0, sizeof *c);
    c->g = m->graph;
    c->r = r;
    const memplan_graph *g = c->g;
    memplan_status st = memplan_viewmap_default(&c->vm, g, err);
    if (st) return st;
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
        c->size[v] = memplan_type_size(&g->values[v].type, r->bindings, r->n_bindings);
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
    if ((st = memplan_plan_slots(c->bufs, c->n_bufs, MEMPLAN_SLOT_EXACT, &c->exact, err))) return st;
    memplan_pack_options po;
    memplan_pack_options_init(&po);
    po.align = r->align;
    po.budget_ms = r->budget_ms;
    if ((st = memplan_pack(c->bufs, c->n_bufs, &po, &c->arena, err))) return st;
    if (r->strategy == MEMPLAN_STRATEGY_SLOTS) {
        c->slot_offset = malloc((c->slots.slot_count ? c->slots.slot_count : 1) * sizeof *c->slot_offset);
        if (!c->slot_offset) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        uint64_t off = 0;
        for (size_t s = 0; s < c->slots.slot_count; s++) {
            c->slot_offset[s] = off;
            off += (c->slots.slot_bytes[s] + r->align - 1) / r->align * r->align;
        }
        c->peak = c->slots.peak_bytes;
    } else {
        c->peak = c->arena.arena_bytes;
    }
    return MEMPLAN_OK;
}

static void json_size(mp_json *j, const memplan_size *s) {
    if (s->kind == MEMPLAN_SIZE_KNOWN) mp_json_uint(j, s->bytes);
    else mp_json_null(j);
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
    /* Unbound dim names, each once, in first-seen order (a set: linear in the
     * number of dims, however many distinct names a model has). */
    mp_json_key(j, "dims");
    mp_json_arr(j);
    mp_strmap seen;
    mp_strmap_init(&seen);
    for (int32_t i = 0; i < c->lv.n_owners; i++) {
        const memplan_size *s = &c->size[c->lv.owners[i]];
        if (s->kind != MEMPLAN_SIZE_SYMBOLIC) continue;
        for (int32_t k = 0; k < s->rank; k++) {
            const memplan_dim *d = &s->dims[k];
            if (d->kind != MEMPLAN_DIM_PARAM) continue;
            bool bound = false;
            for (size_t b = 0; b < c->r->n_bindings; b++) bound |= strcmp(c->r->bindings[b].name, d->param) == 0;
            if (bound || mp_strmap_get(&seen, d->param) >= 0) continue;
            if (!mp_strmap_put(&seen, d->param, 0)) j->out->failed = true; /* reported as out of memory */
            mp_json_str(j, d->param);
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
    if (def) mp_json_null(j); else mp_json_uint(j, c->arena.lower_bound_bytes);
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
        human_bytes(b, c->arena.lower_bound_bytes);
        mp_buf_printf(b, "\nsavings:           %.1f%%\n", c->naive ? 100.0 * (1.0 - (double)c->peak / (double)c->naive) : 0.0);
        mp_buf_printf(b, "compare:           arena %llu, slots %llu, exact reuse %llu\n",
                      (unsigned long long)c->arena.arena_bytes, (unsigned long long)c->slots.peak_bytes,
                      (unsigned long long)c->exact.peak_bytes);
    }
}

/* Both document forms: the info summary, or the plan built once and printed. */
static memplan_status report(const memplan_model *m, const char *command, const memplan_request *r,
                             char **out, size_t *len, memplan_error *err, bool json) {
    if (strcmp(command, "info") == 0)
        return json ? memplan_info_json(m, out, len, err) : memplan_info_text(m, out, len, err);
    if (strcmp(command, "plan") != 0)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "unknown command '%s'", command);
    plan_ctx c;
    memplan_status st = plan_build(&c, m, r, err);
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
