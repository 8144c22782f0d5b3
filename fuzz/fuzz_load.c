/*
 * fuzz_load.c -- libFuzzer target: model bytes -> memplan_model_load -> info.
 *
 * Every input either loads (the IR then satisfies fuzz_check_model and both
 * info forms print) or fails with a status and a message.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    memplan_model *m = NULL;
    memplan_error err = {0};
    memplan_status st = memplan_model_load(data, size, NULL, &m, &err);
    if (st != MEMPLAN_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(m == NULL, "failed load returned a model");
        return 0;
    }
    FUZZ_CHECK(m != NULL, "OK without a model");
    fuzz_check_model(m);
    char *text = NULL;
    size_t len = 0;
    st = memplan_info_json(m, &text, &len, &err);
    if (st == MEMPLAN_OK) {
        fuzz_check_text(text, len);
        FUZZ_CHECK(len >= 2 && text[0] == '{' && text[len - 1] == '\n', "info JSON framing");
        free(text);
    } else {
        fuzz_check_error(st, &err);
    }
    text = NULL;
    st = memplan_info_text(m, &text, &len, &err);
    if (st == MEMPLAN_OK) {
        fuzz_check_text(text, len);
        free(text);
    } else {
        fuzz_check_error(st, &err);
    }
    memplan_model_free(m);
    return 0;
}
