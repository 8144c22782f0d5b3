/*
 * reports.h -- the function that prints each command of the table
 * (memplan/command.h: the run field), as JSON or text into a malloc'ed *out.
 *
 *   report.c          info, shapes, plan, reorder (the model's bytes, as annotate)
 *   report_inplace.c  inplace, profile, tags (one JSON document; text forms
 *                     differ) and annotate (the model's bytes: it needs
 *                     r->model_bytes or r->model_reader)
 *   report_sweep.c    sweep (the plan's figures as one dim varies)
 */
#ifndef MEMPLAN_OUT_REPORTS_H
#define MEMPLAN_OUT_REPORTS_H

#include <stdbool.h>
#include <stddef.h>

#include "memplan/command.h"
#include "memplan/model_plan.h"
#include "memplan/report.h"
#include "out/json.h"

#define MP_REPORT_ARGS                                                                                                 \
    struct mp_cache *cache, const memplan_model *m, const memplan_request *r, bool json, char **out, size_t *len,      \
        memplan_error *err

memplan_status mp_run_info(MP_REPORT_ARGS);
memplan_status mp_run_shapes(MP_REPORT_ARGS);
memplan_status mp_run_plan(MP_REPORT_ARGS);
memplan_status mp_run_inplace(MP_REPORT_ARGS);
memplan_status mp_run_profile(MP_REPORT_ARGS);
memplan_status mp_run_tags(MP_REPORT_ARGS);
memplan_status mp_run_annotate(MP_REPORT_ARGS);
memplan_status mp_run_sweep(MP_REPORT_ARGS);
memplan_status mp_run_reorder(MP_REPORT_ARGS);

/* [{output, input}] of KV-cache pairs (memplan_share_kv_pairs) of graph g:
 * plan's share_kv and info's kv_cache. */
void mp_json_kv_pairs(mp_json *j, const memplan_graph *g, const memplan_plan_link *pairs, size_t n);

#endif
