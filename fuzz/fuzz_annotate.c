/*
 * fuzz_annotate.c -- libFuzzer target: annotate through a reader with
 * windows the input chooses, against the one-shot annotate of the same bytes.
 *
 * For every model that loads, the in-place analyses are computed once and
 * the annotated copy is made three ways:
 *   1. memplan_annotate on the bytes in memory (the reference);
 *   2. through a reader, with a window of 16 bytes up to past the model's
 *      size (the input's last two bytes choose it, so the fuzzer steers
 *      where the window edges fall: inside varints, tags and tensor data);
 *   3. through a reader that fails from an offset the input chooses.
 * 2 gives exactly 1's bytes or the same error; 3 gives them too when the
 * failure lies past every byte read, else an error with a message. The
 * session does the same through memplan_session_open_reader and the
 * request's model_reader: its "annotate" document equals the one-shot
 * report of the bytes. A model that does not load must fail the same way
 * through a reader.
 */
#include "fuzz_common.h"
#include "onnx/prune.h"
#include "out/annotate.h"

/* A reader over the input's bytes that fails for any read reaching past
 * fail_at (UINT64_MAX: never), noting that it failed. */
typedef struct {
    const uint8_t *data;
    uint64_t fail_at;
    bool failed;
} window_reader;

static bool window_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    window_reader *w = ctx;
    if (offset + len > w->fail_at) {
        w->failed = true;
        return false;
    }
    memcpy(buf, w->data + offset, len);
    return true;
}

/* The window the input's last two bytes choose: 16 .. size + 31. */
static size_t chosen_window(const uint8_t *data, size_t size) {
    if (size < 2) return MP_PRUNE_WINDOW_MIN;
    size_t pick = (size_t)data[size - 1] | (size_t)data[size - 2] << 8;
    return MP_PRUNE_WINDOW_MIN + pick % (size + 16);
}

/* 2 and 3 above: the reader's outcome against the reference's. */
static void check_reader_annotate(const uint8_t *data, size_t size, const memplan_inplace *ctx, memplan_status st,
                                  const unsigned char *ref, size_t ref_len, const memplan_error *ref_err) {
    size_t window = chosen_window(data, size);
    window_reader w = {data, UINT64_MAX, false};
    memplan_reader rd = {window_read, &w, size};
    unsigned char *out = NULL;
    size_t len = 0;
    memplan_error err = {0};
    memplan_status s2 = mp_annotate_reader_window(&rd, window, ctx, &out, &len, &err);
    fuzz_check_same("annotate through a reader", st, ref, ref_len, ref_err, s2, out, len, &err);
    free(out);

    w.fail_at = size ? fuzz_fnv(data, size) % size : 0;
    out = NULL;
    memset(&err, 0, sizeof err);
    s2 = mp_annotate_reader_window(&rd, window, ctx, &out, &len, &err);
    if (!w.failed)
        fuzz_check_same("annotate through a reader that never failed", st, ref, ref_len, ref_err, s2, out, len, &err);
    else if (s2 == MEMPLAN_OK)
        FUZZ_CHECK(false, "annotate succeeded although the reader failed at %llu", (unsigned long long)w.fail_at);
    else
        fuzz_check_error(s2, &err);
    free(out);
}

/* The session's annotate (opened through a reader, given the reader again)
 * against the one-shot report of the bytes. */
static void check_session_annotate(const uint8_t *data, size_t size, const memplan_model *m, bool allow_overwrite) {
    window_reader w = {data, UINT64_MAX, false};
    memplan_reader rd = {window_read, &w, size};
    memplan_session *s = NULL;
    memplan_error err = {0};
    memplan_status st = memplan_session_open_reader(&rd, &s, &err);
    FUZZ_CHECK(st == MEMPLAN_OK, "the session does not load through a reader what memplan_model_load did: %s",
               err.message);
    memplan_request r;
    memplan_request_init(&r);
    r.inplace.allow_input_overwrite = allow_overwrite;
    r.model_bytes = data;
    r.model_len = size;
    char *ref = NULL, *out = NULL;
    size_t ref_len = 0, len = 0;
    memplan_error e1 = {0}, e2 = {0};
    memplan_status s1 = memplan_report_json(m, "annotate", &r, &ref, &ref_len, &e1);
    if (s1) fuzz_check_error(s1, &e1);
    r.model_bytes = NULL;
    r.model_len = 0;
    r.model_reader = &rd;
    memplan_status s2 = memplan_session_report(s, "annotate", &r, true, &out, &len, &e2);
    fuzz_check_same("the session's annotate through a reader", s1, ref, ref_len, &e1, s2, out, len, &e2);
    free(ref);
    free(out);
    memplan_request_free(&r);
    memplan_session_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    memplan_model *m = NULL;
    memplan_error err = {0};
    memplan_status st = memplan_model_load(data, size, NULL, &m, &err);
    window_reader w = {data, UINT64_MAX, false};
    memplan_reader rd = {window_read, &w, size};
    memplan_model *m2 = NULL;
    memplan_error err2 = {0};
    memplan_status st2 = memplan_model_load_reader(&rd, NULL, &m2, &err2);
    fuzz_check_same("load through a reader", st, NULL, 0, &err, st2, NULL, 0, &err2);
    memplan_model_free(m2);
    if (st != MEMPLAN_OK) {
        fuzz_check_error(st, &err);
        return 0;
    }
    bool allow_overwrite = (fuzz_fnv(data, size) & 1) != 0;
    memplan_shapes *S = NULL;
    memplan_inplace *ctx = NULL;
    memplan_inplace_options o = {allow_overwrite, false};
    st = memplan_shapes_infer(m, &S, &err);
    if (!st) st = memplan_inplace_compute(m, S, &o, &ctx, &err);
    if (st) {
        fuzz_check_error(st, &err);
    } else {
        unsigned char *ref = NULL;
        size_t ref_len = 0;
        st = memplan_annotate(data, size, ctx, &ref, &ref_len, &err);
        if (st) fuzz_check_error(st, &err);
        check_reader_annotate(data, size, ctx, st, ref, ref_len, &err);
        free(ref);
    }
    check_session_annotate(data, size, m, allow_overwrite);
    memplan_inplace_free(ctx);
    memplan_shapes_free(S);
    memplan_model_free(m);
    return 0;
}
