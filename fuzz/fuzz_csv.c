/*
 * fuzz_csv.c -- libFuzzer target: CSV text -> memplan_csv_read -> memplan_pack
 * -> memplan_validate_arena -> memplan_csv_write (and the slot planner with
 * its validator). Every text parses or fails with "line N: ..."; every plan
 * of parsed buffers passes its validator.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    memplan_buffer_list list;
    memplan_error err = {0};
    memplan_status st = memplan_csv_read((const char *)data, size, &list, &err);
    if (st != MEMPLAN_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(list.count == 0 && list.buffers == NULL, "failed read left buffers");
        return 0;
    }
    for (size_t i = 0; i < list.count; i++) {
        FUZZ_CHECK(list.ids[i] && list.ids[i][0], "buffer %zu without id", i);
        FUZZ_CHECK(list.buffers[i].start >= 0 && list.buffers[i].start < list.buffers[i].end,
                   "buffer %zu: [%lld, %lld)", i, (long long)list.buffers[i].start, (long long)list.buffers[i].end);
    }
    memplan_pack_options po;
    memplan_pack_options_init(&po);
    po.budget_ms = (size % 4 == 0) ? 1 : 0;
    po.align = (size % 3 == 0) ? 1 : 64;
    memplan_arena_plan ap = {0};
    st = memplan_pack(list.buffers, list.count, &po, &ap, &err);
    if (st == MEMPLAN_OK) {
        st = memplan_validate_arena(list.buffers, list.count, ap.offset, ap.align, ap.arena_bytes, NULL, &err);
        FUZZ_CHECK(st == MEMPLAN_OK, "arena plan invalid: %s", err.message);
        FUZZ_CHECK(ap.lower_bound_bytes <= ap.arena_bytes, "lower bound above the arena");
        char *text = NULL;
        size_t len = 0;
        st = memplan_csv_write(&list, ap.offset, &text, &len, &err);
        if (st == MEMPLAN_OK) {
            fuzz_check_text(text, len);
            free(text);
        } else {
            fuzz_check_error(st, &err);
        }
    } else {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(st == MEMPLAN_ELIMIT || st == MEMPLAN_ENOMEM, "pack of parsed buffers: %s", err.message);
    }
    memplan_arena_plan_free(&ap);
    memplan_slot_plan sp = {0};
    st = memplan_plan_slots(list.buffers, list.count, MEMPLAN_SLOT_BEST_FIT, &sp, &err);
    if (st == MEMPLAN_OK) {
        st = memplan_validate_slots(list.buffers, list.count, &sp, NULL, &err);
        FUZZ_CHECK(st == MEMPLAN_OK, "slot plan invalid: %s", err.message);
    } else {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(st == MEMPLAN_ELIMIT || st == MEMPLAN_ENOMEM, "slots of parsed buffers: %s", err.message);
    }
    memplan_slot_plan_free(&sp);
    memplan_buffer_list_free(&list);
    return 0;
}
