/*
 * model_plan_internal.h -- the two halves of memplan_plan_model, for the
 * session cache (src/out/cache.c), which keeps plans between reports.
 */
#ifndef MEMPLAN_PLAN_MODEL_PLAN_INTERNAL_H
#define MEMPLAN_PLAN_MODEL_PLAN_INTERNAL_H

#include "memplan/model_plan.h"

/* One plan for the options, without the in-place saving figures. */
memplan_status mp_model_plan_build(const memplan_model *m, const memplan_plan_options *o, memplan_model_plan **out,
                                   memplan_error *err);

/* Fill p's in-place saving figures from the plan made without in-place reuse. */
void mp_model_plan_set_saved(memplan_model_plan *p, const memplan_model_plan *plain);

#endif
