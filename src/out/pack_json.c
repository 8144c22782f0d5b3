/* pack_json.c -- JSON of an arena packing; see pack_json.h. */
#include "out/pack_json.h"

#include "out/json.h"

void mp_pack_json(mp_buf *out, const memplan_buffer_list *list,
                  const memplan_arena_plan *plan) {
    mp_json j;
    mp_json_init(&j, out);
    mp_json_obj(&j);
    MP_JSON_KEY(&j, "buffers");
    mp_json_uint(&j, plan->count);
    MP_JSON_KEY(&j, "align");
    mp_json_uint(&j, plan->align);
    MP_JSON_KEY(&j, "arena_bytes");
    mp_json_uint(&j, plan->arena_bytes);
    MP_JSON_KEY(&j, "lower_bound_bytes");
    mp_json_uint(&j, plan->lower_bound_bytes);
    MP_JSON_KEY(&j, "gap_ratio");
    mp_json_double(&j, plan->gap_ratio);
    MP_JSON_KEY(&j, "heuristic");
    mp_json_str(&j, memplan_heuristic_name(plan->heuristic));
    MP_JSON_KEY(&j, "iterations");
    mp_json_uint(&j, plan->iterations);
    MP_JSON_KEY(&j, "offsets");
    mp_json_arr(&j);
    for (size_t i = 0; i < plan->count && i < list->count; i++) {
        mp_json_obj(&j);
        MP_JSON_KEY(&j, "id");
        mp_json_str(&j, list->ids[i]);
        MP_JSON_KEY(&j, "offset");
        mp_json_uint(&j, plan->offset[i]);
        mp_json_end(&j);
    }
    mp_json_end(&j);
    mp_json_end(&j);
}
