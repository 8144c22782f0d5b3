/*
 * pack_json.h -- the JSON document of an arena packing (`memplan pack --json`):
 *
 *   {"buffers":N,"align":A,"arena_bytes":X,"lower_bound_bytes":L,
 *    "proven_lower_bound_bytes":P,"optimal":B,
 *    "gap_ratio":X/L,"heuristic":"skyline","iterations":I,
 *    "offsets":[{"id":"b1","offset":0},...]}
 *
 * P >= L: no arena is lower (more than L when the exact mode proved a
 * height infeasible); "optimal" is X == P. heuristic may also be "exact".
 * offsets are in input order; ids are strings (CSV ids need not be numbers).
 */
#ifndef MEMPLAN_OUT_PACK_JSON_H
#define MEMPLAN_OUT_PACK_JSON_H

#include <stdbool.h>

#include "memplan/plan.h"
#include "util/buf.h"

void mp_pack_json(mp_buf *out, const memplan_buffer_list *list, const memplan_arena_plan *plan);

/* True for the options `memplan pack` and mp_pack_csv share: --align,
 * --budget-ms, --seed. */
bool mp_pack_option_known(const char *name);

/* Set one of those options from its value text (NULL: missing). A bad value
 * is MEMPLAN_EUSAGE with the message both shells print. */
memplan_status mp_pack_option(const char *name, const char *value, memplan_pack_options *opt, memplan_error *err);

#endif
