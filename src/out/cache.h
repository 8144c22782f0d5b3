/*
 * cache.h -- stage results kept between reports on one model.
 *
 * A report runs the pipeline (shapes -> analysis -> plans) for one request.
 * Much of that work depends on only part of the request, so a session keeps
 * it here and the next report reuses it (ARCHITECTURE: "binding new dims
 * re-runs only what depends on them, never the load"):
 *
 *   plans        memplan_model_plan: shapes under the dims, liveness, sizes,
 *                slot plans, arena; keyed by every plan option. The strategy
 *                is a printing choice (a plan holds both layouts), so `plan
 *                --strategy slots` after `plan` with the same dims is only the
 *                JSON. The last MP_CACHE_PLANS are kept: `plan --inplace` needs
 *                two (with and without in-place reuse).
 *   in-place     the seed-001 analyses (reuse, release lists, tags, profile).
 *                They run on shapes inferred under the request's dims and
 *                input values from the start, as the plan's are (dims that
 *                shape computations branch on, and values that pick an If's
 *                branch or size a Reshape, change the amounts, not only how
 *                they print): keyed by the two options they read, the dims
 *                and the values. Printing interns amounts in the shapes'
 *                pool, so the entry is also rebuilt once the pool has grown
 *                past MP_CACHE_POOL_GROWTH x its size when built (+
 *                MP_CACHE_POOL_SLACK): a long session stays bounded in memory.
 *
 * A cache never changes a document: every report equals a one-shot report
 * (memplan_report_json) of the same request. One-shot reports use a cache
 * that lives for the one call.
 */
#ifndef MEMPLAN_OUT_CACHE_H
#define MEMPLAN_OUT_CACHE_H

#include <stdbool.h>

#include "memplan/inplace.h"
#include "memplan/model_plan.h"
#include "memplan/ort_float16.h"
#include "memplan/report.h"
#include "memplan/shapes.h"

#define MP_CACHE_PLANS 2
#define MP_CACHE_POOL_GROWTH 4
#define MP_CACHE_POOL_SLACK 4096

/* A plan kept with the key of the options it was built for. */
typedef struct mp_cached_plan {
    char *key;
    memplan_model_plan *plan;
} mp_cached_plan;

typedef struct mp_cache {
    mp_cached_plan plans[MP_CACHE_PLANS];      /* most recently used first; plan NULL = empty */
    unsigned long plan_builds, inplace_builds; /* how often each was (re)built */
    struct {
        bool valid;
        bool allow_input_overwrite, events;
        char *shapes_key; /* mp_shapes_key of the dims and values the shapes were inferred under */
        memplan_shapes *shapes;
        memplan_inplace *ctx;
        size_t pool_built; /* amounts in the shapes' pool when built */
    } inplace;
    /* --float16-cpu: the graph ONNX Runtime's CPU execution provider runs
     * (memplan_onnxruntime_cpu_graph), made once, and a cache of its own. */
    struct {
        memplan_model *model;
        memplan_ort_float16_stats stats;
        struct mp_cache *cache;
    } f16;
} mp_cache;

void mp_cache_init(mp_cache *c);
/* A key naming the dims and input values of shapes options (names
 * length-prefixed, so none can forge another's): malloc'ed; NULL when out of
 * memory. */
char *mp_shapes_key(const memplan_shapes_options *o);
/* Free every entry; the cache is empty and usable again. */
void mp_cache_clear(mp_cache *c);

/* The plan for the options: the cache's when one was built for the same
 * options, else built and kept (dropping the least recent). For options with
 * inplace, the plan without in-place reuse is fetched first (it gives the
 * bytes saved), so both stay cached. The plan is borrowed: valid until the
 * next call on this cache. */
memplan_status mp_cache_plan(mp_cache *c, const memplan_model *m, const memplan_plan_options *o,
                             const memplan_model_plan **out, memplan_error *err);

/* The graph ONNX Runtime's CPU execution provider runs for m (made on the
 * first call), the cache its reports go through, and (unless NULL) what the
 * rewrite changed. Borrowed until the cache is cleared. */
memplan_status mp_cache_float16_cpu(mp_cache *c, const memplan_model *m, const memplan_model **out, mp_cache **sub,
                                    memplan_ort_float16_stats *stats, memplan_error *err);

/* The report for one request, through the cache: the command table's run
 * (src/out/command.c). */
memplan_status mp_report(mp_cache *cache, const memplan_model *m, const char *command, const memplan_request *r,
                         char **out, size_t *len, memplan_error *err, bool json);

#endif
