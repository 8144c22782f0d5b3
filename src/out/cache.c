/* cache.c -- the plan list and keys of mp_cache (see cache.h). */
#include "out/cache.h"

#include <stdlib.h>
#include <string.h>

#include "plan/model_plan_internal.h"
#include "util/buf.h"

void mp_cache_init(mp_cache *c) { memset(c, 0, sizeof *c); }

static void entry_free(mp_cached_plan *e) {
    memplan_model_plan_free(e->plan);
    free(e->key);
    e->plan = NULL;
    e->key = NULL;
}

void mp_cache_clear(mp_cache *c) {
    for (int i = 0; i < MP_CACHE_PLANS; i++) entry_free(&c->plans[i]);
    if (c->f16.cache) mp_cache_clear(c->f16.cache);
    free(c->f16.cache);
    memplan_model_free(c->f16.model);
    memplan_inplace_free(c->inplace.ctx);
    memplan_shapes_free(c->inplace.shapes);
    free(c->inplace.shapes_key);
    unsigned long plans = c->plan_builds, inplace = c->inplace_builds;
    mp_cache_init(c);
    c->plan_builds = plans; /* statistics survive */
    c->inplace_builds = inplace;
}

memplan_status mp_cache_float16_cpu(mp_cache *c, const memplan_model *m, const memplan_model **out, mp_cache **sub,
                                    memplan_ort_float16_stats *stats, memplan_error *err) {
    if (!c->f16.model) {
        memplan_status st = memplan_onnxruntime_cpu_graph(m, &c->f16.model, &c->f16.stats, err);
        if (st) return st;
        if (!(c->f16.cache = malloc(sizeof *c->f16.cache))) {
            memplan_model_free(c->f16.model);
            c->f16.model = NULL;
            return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        }
        mp_cache_init(c->f16.cache);
    }
    *out = c->f16.model;
    *sub = c->f16.cache;
    if (stats) *stats = c->f16.stats;
    return MEMPLAN_OK;
}

static void put_values(mp_buf *b, const memplan_input_value *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        mp_buf_printf(b, "%zu:%s=", strlen(v[i].name), v[i].name);
        for (int32_t k = 0; k < v[i].n; k++) mp_buf_printf(b, "%lld,", (long long)v[i].elems[k]);
        mp_buf_putc(b, ';');
    }
}

static char *take_key(mp_buf *b) {
    if (b->failed) {
        mp_buf_free(b);
        return NULL;
    }
    return mp_buf_take(b, NULL);
}

static void put_bindings(mp_buf *b, const memplan_binding *d, size_t n) {
    for (size_t i = 0; i < n; i++)
        mp_buf_printf(b, "%zu:%s=%lld;", strlen(d[i].name), d[i].name, (long long)d[i].value);
}

char *mp_shapes_key(const memplan_shapes_options *o) {
    mp_buf b;
    mp_buf_init(&b);
    mp_buf_puts(&b, "dims=");
    put_bindings(&b, o->bindings, o->n_bindings);
    mp_buf_puts(&b, " values=");
    put_values(&b, o->values, o->n_values);
    return take_key(&b);
}

/* Every option a plan depends on. Names are written with their length
 * first, so no name can forge a key. malloc'ed; NULL when out of memory. */
static char *plan_key(const memplan_plan_options *o) {
    mp_buf b;
    mp_buf_init(&b);
    mp_buf_printf(&b, "inputs=%d inplace=%d overwrite=%d constants=%d align=%llu budget=%lu order=%d/%lu dims=",
                  o->include_inputs, o->inplace, o->allow_input_overwrite, o->constants_as_activations,
                  (unsigned long long)o->align, (unsigned long)o->budget_ms, (int)o->order,
                  (unsigned long)o->order_budget_ms);
    put_bindings(&b, o->bindings, o->n_bindings);
    mp_buf_printf(&b, " upper=%d sharekv=%d fuseqdq=%d qdqint8=%d workspace=%d ranges=", o->upper_bounds, o->share_kv,
                  o->fuse_qdq, o->qdq_int8, o->kernel_workspace);
    for (size_t i = 0; i < o->n_ranges; i++)
        mp_buf_printf(&b, "%zu:%s=%lld..%lld;", strlen(o->ranges[i].name), o->ranges[i].name,
                      (long long)o->ranges[i].lo, (long long)o->ranges[i].hi);
    mp_buf_puts(&b, " values=");
    put_values(&b, o->values, o->n_values);
    return take_key(&b);
}

/* The plan kept for `key`, now the most recent; NULL when there is none. */
static memplan_model_plan *find(mp_cache *c, const char *key) {
    for (int i = 0; i < MP_CACHE_PLANS && c->plans[i].plan; i++) {
        if (strcmp(c->plans[i].key, key) != 0) continue;
        mp_cached_plan hit = c->plans[i];
        memmove(&c->plans[1], &c->plans[0], (size_t)i * sizeof c->plans[0]);
        c->plans[0] = hit;
        return hit.plan;
    }
    return NULL;
}

/* Keep a new plan (the cache owns it and the key), dropping the least recent. */
static void put(mp_cache *c, char *key, memplan_model_plan *p) {
    c->plan_builds++;
    entry_free(&c->plans[MP_CACHE_PLANS - 1]);
    memmove(&c->plans[1], &c->plans[0], (MP_CACHE_PLANS - 1) * sizeof c->plans[0]);
    c->plans[0] = (mp_cached_plan){key, p};
}

/* The plan for o, found or built (in-place saving figures from `plain`). */
static memplan_status get(mp_cache *c, const memplan_model *m, const memplan_plan_options *o,
                          const memplan_model_plan *plain, memplan_model_plan **out, memplan_error *err) {
    char *key = plan_key(o);
    if (!key) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    if ((*out = find(c, key))) {
        free(key);
        return MEMPLAN_OK;
    }
    memplan_status st = mp_model_plan_build(m, o, out, err);
    if (st) {
        free(key);
        return st;
    }
    if (plain) mp_model_plan_set_saved(*out, plain);
    put(c, key, *out);
    return MEMPLAN_OK;
}

memplan_status mp_cache_plan(mp_cache *c, const memplan_model *m, const memplan_plan_options *o,
                             const memplan_model_plan **out, memplan_error *err) {
    memplan_model_plan *plain = NULL, *p = NULL;
    *out = NULL;
    if (o->inplace) {
        memplan_plan_options po = *o;
        po.inplace = false;
        memplan_status st = get(c, m, &po, NULL, &plain, err);
        if (st) return st;
    }
    memplan_status st = get(c, m, o, plain, &p, err);
    *out = p;
    return st;
}
