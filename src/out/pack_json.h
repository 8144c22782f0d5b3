/*
 * pack_json.h -- the JSON document of an arena packing (`memplan pack --json`):
 *
 *   {"buffers":N,"align":A,"arena_bytes":X,"lower_bound_bytes":L,
 *    "gap_ratio":X/L,"heuristic":"skyline","iterations":I,
 *    "offsets":[{"id":"b1","offset":0},...]}
 *
 * offsets are in input order; ids are strings (CSV ids need not be numbers).
 */
#ifndef MEMPLAN_OUT_PACK_JSON_H
#define MEMPLAN_OUT_PACK_JSON_H

#include "memplan/plan.h"
#include "util/buf.h"

void mp_pack_json(mp_buf *out, const memplan_buffer_list *list,
                  const memplan_arena_plan *plan);

#endif
