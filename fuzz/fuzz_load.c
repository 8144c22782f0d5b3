/*
 * fuzz_load.c -- libFuzzer target: model bytes -> memplan_model_load -> info.
 *
 * Every input either loads (the IR then satisfies fuzz_check_model and both
 * info forms print) or fails with a status and a message. The wire walk
 * through a reader, with a window of 16..271 bytes (set by the input's size),
 * must give the in-memory walk's bytes or its error.
 */
#include "fuzz_common.h"
#include "onnx/prune.h"

static bool copy_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    memcpy(buf, (const uint8_t *)ctx + offset, len);
    return true;
}

static void check_reader_walk(const uint8_t *data, size_t size) {
    mp_buf a, b;
    mp_buf_init(&a);
    mp_buf_init(&b);
    memplan_error ea = {0}, eb = {0};
    memplan_reader rd = {copy_read, (void *)data, size};
    memplan_status sa = mp_prune_model(data, size, &a, NULL, &ea);
    memplan_status sb = mp_prune_reader(&rd, MP_PRUNE_WINDOW_MIN + size % 256, &b, NULL, &eb);
    FUZZ_CHECK(sa == sb && strcmp(ea.message, eb.message) == 0, "reader walk: another outcome");
    FUZZ_CHECK(sa || (a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0)),
               "reader walk: other bytes");
    mp_buf_free(&a);
    mp_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_reader_walk(data, size);
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
