/* sweep.c -- the plan's figures as one dim varies (memplan_plan_sweep). */
#include <stdlib.h>
#include <string.h>

#include "memplan/model_plan.h"
#include "memplan/shapes.h"

memplan_status memplan_plan_sweep(const memplan_model *m, const memplan_plan_options *o, const char *dim,
                                  const int64_t *values, size_t n, memplan_sweep_point *out, memplan_error *err) {
    if (!dim || !*dim) return memplan_error_set(err, MEMPLAN_EUSAGE, "no dim to sweep");
    memplan_binding *b = malloc((o->n_bindings + 1) * sizeof *b);
    if (!b) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    size_t nb = 0;
    for (size_t i = 0; i < o->n_bindings; i++)
        if (!memplan_expr_name_is(o->bindings[i].name, dim)) b[nb++] = o->bindings[i];
    memplan_plan_options po = *o;
    po.bindings = b;
    po.n_bindings = nb + 1;
    memplan_status st = MEMPLAN_OK;
    bool taken = false; /* the dim is one of the model's: asked of the first plan made */
    for (size_t i = 0; i < n && !st; i++) {
        b[nb] = (memplan_binding){dim, values[i]};
        memplan_model_plan *p = NULL;
        memplan_sweep_point *q = &out[i];
        memset(q, 0, sizeof *q);
        q->value = values[i];
        st = memplan_plan_model(m, &po, &p, err);
        if (st == MEMPLAN_EINPUT) { /* this value does not fit the model; the next may */
            st = MEMPLAN_OK;
            continue;
        }
        if (st) break;
        if (!taken && !(taken = memplan_shapes_binding_taken(p->shapes, dim))) {
            memplan_model_plan_free(p);
            st = memplan_error_set(err, MEMPLAN_EUSAGE, "no dim of the model is named '%.200s'", dim);
            break;
        }
        q->fits = true;
        q->deferred = p->deferred;
        if (!p->deferred) {
            const memplan_plan_figures *f = &p->figures[MEMPLAN_STRATEGY_ARENA];
            q->naive_bytes = f->naive_bytes;
            q->peak_bytes = f->peak_bytes;
            q->lower_bound_bytes = f->lower_bound_bytes;
            q->slots_bytes = p->figures[MEMPLAN_STRATEGY_SLOTS].peak_bytes;
            q->total_known = memplan_plan_total(p, MEMPLAN_STRATEGY_ARENA, &q->total_bytes) == NULL;
        }
        memplan_model_plan_free(p);
    }
    free(b);
    return st;
}
