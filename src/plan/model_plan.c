/*
 * model_plan.c -- the pipeline behind memplan_plan_model: shapes under the
 * bindings -> view map (+ in-place links) -> liveness -> sizes -> slot plans
 * and arena -> figures. Each stage is called through its public header; the
 * planners see buffers (sizes and intervals) only. This is the one file of
 * src/plan/ that knows there is a model.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/inplace.h"
#include "memplan/model_plan.h"
#include "plan/model_plan_internal.h"
#include "util/strmap.h"

void memplan_plan_options_init(memplan_plan_options *o) {
    memset(o, 0, sizeof *o);
    o->align = MEMPLAN_PACK_DEFAULT_ALIGN;
    o->budget_ms = MEMPLAN_PACK_DEFAULT_BUDGET_MS;
}

const char *memplan_strategy_name(memplan_strategy s) { return s == MEMPLAN_STRATEGY_SLOTS ? "slots" : "arena"; }

/* The plan's owned arrays, behind the const pointers the header shows. */
typedef struct plan_impl {
    memplan_model_plan pub;
    memplan_binding *bindings;   /* copy of the options' bindings; names in one block */
    char *binding_names;
    memplan_size *size;
    memplan_buffer *buffers;
    int32_t *buffer_value;
    int32_t *buf_of;             /* per value: buffer index or -1 */
    memplan_value_plan *values;
    int32_t *unplanned, *unknown;
    const char **unbound_dims;
    uint64_t *slot_offset;
    memplan_plan_link *links;
} plan_impl;

static memplan_status oom(memplan_error *err) { return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory"); }

void memplan_model_plan_free(memplan_model_plan *p) {
    if (!p) return;
    plan_impl *k = (plan_impl *)p;
    memplan_shapes_free(p->shapes);
    memplan_liveness_free(&p->liveness);
    memplan_slot_plan_free(&p->slots);
    memplan_slot_plan_free(&p->exact);
    memplan_arena_plan_free(&p->arena);
    free(k->bindings);
    free(k->binding_names);
    free(k->size);
    free(k->buffers);
    free(k->buffer_value);
    free(k->buf_of);
    free(k->values);
    free(k->unplanned);
    free(k->unknown);
    free(k->unbound_dims);
    free(k->slot_offset);
    free(k->links);
    free(k);
}

/* The options, with the bindings copied into the plan. */
static memplan_status copy_options(plan_impl *k, const memplan_plan_options *o, memplan_error *err) {
    k->pub.options = *o;
    k->pub.options.bindings = NULL;
    k->pub.options.n_bindings = 0;
    if (!o->n_bindings) return MEMPLAN_OK;
    size_t chars = 0;
    for (size_t i = 0; i < o->n_bindings; i++) chars += strlen(o->bindings[i].name) + 1;
    k->bindings = malloc(o->n_bindings * sizeof *k->bindings);
    k->binding_names = malloc(chars);
    if (!k->bindings || !k->binding_names) return oom(err);
    char *at = k->binding_names;
    for (size_t i = 0; i < o->n_bindings; i++) {
        size_t n = strlen(o->bindings[i].name) + 1;
        memcpy(at, o->bindings[i].name, n);
        k->bindings[i].name = at;
        k->bindings[i].value = o->bindings[i].value;
        at += n;
    }
    k->pub.options.bindings = k->bindings;
    k->pub.options.n_bindings = o->n_bindings;
    return MEMPLAN_OK;
}

/* The view map: the default policy, then (options.inplace) the in-place
 * reuse pairs the analysis allows, recorded as the plan's links. */
static memplan_status build_views(plan_impl *k, const memplan_model *m, memplan_viewmap *vm, memplan_error *err) {
    const memplan_graph *g = k->pub.graph;
    memplan_status st = memplan_viewmap_default(vm, g, err);
    if (st || !k->pub.options.inplace) return st;
    int32_t *before = malloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *before);
    if (!before) return oom(err);
    memcpy(before, vm->source, (size_t)g->n_values * sizeof *before);
    memplan_inplace_options io = {k->pub.options.allow_input_overwrite, false};
    memplan_inplace *ctx = NULL;
    st = memplan_inplace_compute(m, k->pub.shapes, &io, &ctx, err);
    if (!st) st = memplan_inplace_view_links(ctx, vm, err);
    memplan_inplace_free(ctx);
    size_t n = 0;
    for (int32_t v = 0; !st && v < g->n_values; v++) n += vm->source[v] != before[v];
    if (!st && !(k->links = malloc((n ? n : 1) * sizeof *k->links))) st = oom(err);
    for (int32_t v = 0; !st && v < g->n_values; v++)
        if (vm->source[v] != before[v]) k->links[k->pub.n_links++] = (memplan_plan_link){v, vm->source[v]};
    k->pub.links = k->links;
    free(before);
    return st;
}

/* Sizes of every value; the owners with a known size become buffers, the
 * others are listed as unplanned (no static size) or unknown. */
static memplan_status collect_buffers(plan_impl *k, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    const memplan_graph *g = p->graph;
    const memplan_liveness *lv = &p->liveness;
    size_t nv = (size_t)(g->n_values ? g->n_values : 1);
    k->size = calloc(nv, sizeof *k->size);
    k->buffers = calloc(nv, sizeof *k->buffers);
    k->buffer_value = calloc(nv, sizeof *k->buffer_value);
    k->buf_of = malloc(nv * sizeof *k->buf_of);
    k->unplanned = malloc(nv * sizeof *k->unplanned);
    k->unknown = malloc(nv * sizeof *k->unknown);
    if (!k->size || !k->buffers || !k->buffer_value || !k->buf_of || !k->unplanned || !k->unknown) return oom(err);
    for (int32_t v = 0; v < g->n_values; v++) {
        k->buf_of[v] = -1;
        k->size[v] = memplan_shapes_size(p->shapes, memplan_shapes_value(p->shapes, g, v), p->options.bindings,
                                         p->options.n_bindings);
    }
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
    p->deferred = p->n_unknown > 0;
    return MEMPLAN_OK;
}

/* The dim names the symbolic sizes of the unknown owners need, each once,
 * in first-seen order. */
static memplan_status collect_unbound_dims(plan_impl *k, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    memplan_expr_pool *pool = memplan_shapes_pool(p->shapes);
    size_t cap = 0;
    memplan_status st = MEMPLAN_OK;
    mp_strmap seen;
    mp_strmap_init(&seen);
    for (size_t i = 0; i < p->n_unknown && !st; i++) {
        const memplan_size *s = &p->size[p->unknown[i]];
        if (s->kind != MEMPLAN_SIZE_SYMBOLIC) continue;
        size_t n = memplan_expr_names(pool, s->expr, NULL, 0);
        if (p->n_unbound_dims + n > cap) { /* room for every name this size has */
            size_t want = (p->n_unbound_dims + n) * 2;
            const char **grown = realloc(k->unbound_dims, want * sizeof *grown);
            if (!grown) {
                st = oom(err);
                break;
            }
            k->unbound_dims = grown;
            cap = want;
        }
        const char **names = k->unbound_dims + p->n_unbound_dims;
        memplan_expr_names(pool, s->expr, names, n);
        for (size_t j = 0; j < n && !st; j++) {
            if (mp_strmap_get(&seen, names[j]) >= 0) continue;
            if (!mp_strmap_put(&seen, names[j], 1)) st = oom(err);
            else k->unbound_dims[p->n_unbound_dims++] = names[j];
        }
    }
    mp_strmap_free(&seen);
    p->unbound_dims = k->unbound_dims;
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

/* Slot layout (slots one after another, each at an aligned offset) and the
 * figures of both strategies. */
static memplan_status finish_figures(plan_impl *k, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    uint64_t align = p->options.align;
    memplan_plan_figures *fa = &p->figures[MEMPLAN_STRATEGY_ARENA], *fs = &p->figures[MEMPLAN_STRATEGY_SLOTS];
    /* Naive: one buffer per owner. The arena strategy aligns each one, as a
     * naive allocator would; the slot strategy counts raw sizes (seed 000). */
    for (size_t b = 0; b < p->n_buffers; b++) {
        fa->naive_bytes += (p->buffers[b].size + align - 1) / align * align;
        fs->naive_bytes += p->buffers[b].size;
    }
    fa->peak_bytes = p->arena.arena_bytes;
    fa->lower_bound_bytes = p->arena.lower_bound_bytes;
    k->slot_offset = malloc((p->slots.slot_count ? p->slots.slot_count : 1) * sizeof *k->slot_offset);
    if (!k->slot_offset) return oom(err);
    uint64_t off = 0, end = 0;
    for (size_t s = 0; s < p->slots.slot_count; s++) {
        k->slot_offset[s] = off;
        end = off + p->slots.slot_bytes[s];
        off += (p->slots.slot_bytes[s] + align - 1) / align * align;
    }
    p->slot_offset = k->slot_offset;
    /* The memory the slot layout needs: the sum of the slot capacities
     * (seed 000) when align is 1, plus the padding between slots otherwise. */
    fs->peak_bytes = end;
    fa->savings_ratio = savings(fa->naive_bytes, fa->peak_bytes);
    fs->savings_ratio = savings(fs->naive_bytes, fs->peak_bytes);
    /* slot capacities are raw sizes (seed 000): compare with the raw bound */
    return memplan_lower_bound(p->buffers, p->n_buffers, 1, &fs->lower_bound_bytes, err);
}

/* One record per plannable owner (placement order), then per view of one
 * (value order). */
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
            *r = (memplan_value_plan){.value = v, .owner = root, .view = root != v, .size = k->size[v],
                                      .start = lv->start[root], .end = lv->end[root], .buffer = b};
            r->placed = b >= 0 && !p->deferred;
            if (!r->placed) continue;
            r->slot = p->slots.slot_of[b];
            r->slot_offset = k->slot_offset[r->slot];
            r->arena_offset = p->arena.offset[b];
        }
    p->values = k->values;
    return MEMPLAN_OK;
}

/* Slots, exact reuse and the arena, when every size is known. */
static memplan_status place(plan_impl *k, memplan_error *err) {
    memplan_model_plan *p = &k->pub;
    memplan_status st = memplan_plan_slots(p->buffers, p->n_buffers, MEMPLAN_SLOT_BEST_FIT, &p->slots, err);
    if (!st) st = check_slots(k, err);
    if (!st) st = memplan_plan_slots(p->buffers, p->n_buffers, MEMPLAN_SLOT_EXACT, &p->exact, err);
    if (st) return st;
    memplan_pack_options po;
    memplan_pack_options_init(&po);
    po.align = p->options.align;
    po.budget_ms = p->options.budget_ms;
    if ((st = memplan_pack(p->buffers, p->n_buffers, &po, &p->arena, err))) return st;
    return finish_figures(k, err);
}

memplan_status mp_model_plan_build(const memplan_model *m, const memplan_plan_options *o, memplan_model_plan **out,
                                   memplan_error *err) {
    *out = NULL;
    plan_impl *k = calloc(1, sizeof *k);
    if (!k) return oom(err);
    memplan_model_plan *p = &k->pub;
    p->graph = m->graph;
    p->positions = m->graph->n_nodes;
    memplan_viewmap vm = {0, NULL};
    memplan_status st = copy_options(k, o, err);
    if (!st) st = memplan_shapes_infer_bound(m, p->options.bindings, p->options.n_bindings, &p->shapes, err);
    if (!st) st = build_views(k, m, &vm, err);
    memplan_liveness_options lo = {p->options.include_inputs, &vm};
    if (!st) st = memplan_liveness_compute(p->graph, &lo, &p->liveness, err);
    memplan_viewmap_free(&vm);
    if (!st) st = collect_buffers(k, err);
    if (!st) st = p->deferred ? collect_unbound_dims(k, err) : place(k, err);
    if (!st) st = collect_values(k, err);
    if (st) {
        memplan_model_plan_free(p);
        return st;
    }
    *out = p;
    return MEMPLAN_OK;
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
