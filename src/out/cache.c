/* cache.c -- the plan-core list and keys of mp_cache (see cache.h). */
#include "out/cache.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

void mp_cache_init(mp_cache *c) { memset(c, 0, sizeof *c); }

void mp_cache_clear(mp_cache *c) {
    for (int i = 0; i < MP_CACHE_PLANS; i++) mp_plan_core_free(c->plans[i]);
    memplan_inplace_free(c->inplace.ctx);
    memplan_shapes_free(c->inplace.shapes);
    unsigned long plans = c->plan_builds, inplace = c->inplace_builds;
    mp_cache_init(c);
    c->plan_builds = plans; /* statistics survive */
    c->inplace_builds = inplace;
}

/* Names are written with their length first, so no name can forge a key. */
char *mp_plan_key(const memplan_request *r) {
    mp_buf b;
    mp_buf_init(&b);
    mp_buf_printf(&b, "inputs=%d inplace=%d overwrite=%d align=%llu budget=%lu dims=", r->include_inputs,
                  r->inplace, r->allow_input_overwrite, (unsigned long long)r->align, (unsigned long)r->budget_ms);
    for (size_t i = 0; i < r->n_bindings; i++)
        mp_buf_printf(&b, "%zu:%s=%lld;", strlen(r->bindings[i].name), r->bindings[i].name,
                      (long long)r->bindings[i].value);
    if (b.failed) {
        mp_buf_free(&b);
        return NULL;
    }
    return mp_buf_take(&b, NULL);
}

mp_plan_core *mp_cache_find_plan(mp_cache *c, const char *key) {
    for (int i = 0; i < MP_CACHE_PLANS && c->plans[i]; i++) {
        if (strcmp(mp_plan_core_key(c->plans[i]), key) != 0) continue;
        mp_plan_core *hit = c->plans[i];
        memmove(&c->plans[1], &c->plans[0], (size_t)i * sizeof c->plans[0]);
        c->plans[0] = hit;
        return hit;
    }
    return NULL;
}

void mp_cache_put_plan(mp_cache *c, mp_plan_core *k) {
    c->plan_builds++;
    mp_plan_core_free(c->plans[MP_CACHE_PLANS - 1]);
    memmove(&c->plans[1], &c->plans[0], (MP_CACHE_PLANS - 1) * sizeof c->plans[0]);
    c->plans[0] = k;
}
