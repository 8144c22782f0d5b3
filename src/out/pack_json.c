/* pack_json.c -- JSON of an arena packing; see pack_json.h. */
#include "out/pack_json.h"

#include <string.h>

#include "out/json.h"

/* Decimal unsigned integer <= max; false when malformed or too large. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out) {
    uint64_t v = 0;
    if (!s || !*s) return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (max - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool mp_pack_option_known(const char *name) {
    return strcmp(name, "--align") == 0 || strcmp(name, "--budget-ms") == 0 || strcmp(name, "--seed") == 0 ||
           strcmp(name, "--wall-cap-ms") == 0;
}

memplan_status mp_pack_option(const char *name, const char *value, memplan_pack_options *opt, memplan_error *err) {
    uint64_t v;
    if (strcmp(name, "--align") == 0) {
        if (!parse_u64(value, UINT64_MAX, &v) || v == 0 || (v & (v - 1)))
            return memplan_error_set(err, MEMPLAN_EUSAGE, "--align needs a power of two >= 1");
        opt->align = v;
    } else if (strcmp(name, "--budget-ms") == 0) {
        if (!parse_u64(value, 86400000u, &v))
            return memplan_error_set(err, MEMPLAN_EUSAGE, "--budget-ms needs milliseconds from 0 to 86400000");
        opt->budget_ms = (uint32_t)v;
    } else if (strcmp(name, "--seed") == 0) {
        if (!parse_u64(value, UINT64_MAX, &v))
            return memplan_error_set(err, MEMPLAN_EUSAGE, "--seed needs a non-negative integer");
        opt->seed = v;
    } else if (strcmp(name, "--wall-cap-ms") == 0) {
        if (!parse_u64(value, 86400000u, &v) || v == 0)
            return memplan_error_set(err, MEMPLAN_EUSAGE, "--wall-cap-ms needs milliseconds from 1 to 86400000");
        opt->wall_cap_ms = (uint32_t)v;
    } else {
        return memplan_error_set(err, MEMPLAN_EUSAGE, "unknown option '%s'", name);
    }
    return MEMPLAN_OK;
}

void mp_pack_json(mp_buf *out, const memplan_buffer_list *list, const memplan_arena_plan *plan) {
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
    MP_JSON_KEY(&j, "proven_lower_bound_bytes");
    mp_json_uint(&j, plan->proven_lower_bound_bytes);
    MP_JSON_KEY(&j, "optimal");
    mp_json_bool(&j, plan->optimal);
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
