/*
 * malformed_tool.c -- damaged copies of models through the library, in process.
 *
 *   malformed_tool FILE...     one JSON line per case on stdout
 *
 * Cases per FILE (deterministic, so wasm-tests/malformed.test.js can rebuild
 * every input and compare the WASM results with these lines):
 *   "full"        the file as it is
 *   "trunc N"     the first N bytes: every N when the file has at most 4096
 *                 bytes, else 2,000 offsets N = i * size / 2000
 *   "flip P B"    bit B of byte P flipped (200 cases, xorshift64 seeded by size)
 *   "wire P W"    the low 3 bits of byte P set to W (a protobuf key with another
 *                 wire type when P is a key; 100 cases, same generator)
 * Each line: {"case":..., "ok":true, "info":"<info JSON>", "plan":"<plan JSON>"}
 * (plan with --budget-ms 0; "plan" may instead be an error object) or
 * {"case":..., "ok":false, "status":N, "message":"..."}.
 * Exit 1 when a failure has no message or a status outside the enum; a crash
 * or sanitizer report fails the ctest that runs it (malformed.cmake), also
 * under valgrind (label valgrind).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "onnx/prune.h"
#include "out/annotate.h"

static int bad;

static void put_str(const char *s, size_t n) {
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static bool copy_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    memcpy(buf, (const uint8_t *)ctx + offset, len);
    return true;
}

/* The wire walk through a reader with a 16-byte window (every varint and
 * copy crosses windows) must give mp_prune_model's bytes or its error. */
static void check_reader(const char *label, const uint8_t *copy, size_t len) {
    mp_buf a, b;
    mp_buf_init(&a);
    mp_buf_init(&b);
    memplan_error ea = {0}, eb = {0};
    uint64_t da = 0, db = 0;
    memplan_reader rd = {copy_read, (void *)copy, len};
    memplan_status sa = mp_prune_model(copy, len, &a, &da, &ea);
    memplan_status sb = mp_prune_reader(&rd, MP_PRUNE_WINDOW_MIN, &b, &db, &eb);
    bool same = sa == sb && strcmp(ea.message, eb.message) == 0 &&
                (sa || (a.len == b.len && da == db && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0)));
    if (!same) {
        fprintf(stderr, "malformed_tool: %s: reader walk differs: %d '%s' (%zu bytes) vs %d '%s' (%zu bytes)\n", label,
                (int)sa, ea.message, a.len, (int)sb, eb.message, b.len);
        bad = 1;
    }
    mp_buf_free(&a);
    mp_buf_free(&b);
}

/* A model that loads is annotated from memory and through a reader with a
 * 16-byte window: the same bytes (or the same error); and annotating the
 * output again gives the output (the entries are replaced, not repeated). */
static void check_annotate(const char *label, const memplan_model *m, const uint8_t *copy, size_t len) {
    memplan_shapes *S = NULL;
    memplan_inplace *ctx = NULL;
    memplan_error err = {0}, eb = {0};
    memplan_inplace_options o = {0};
    if (memplan_shapes_infer(m, &S, &err) || memplan_inplace_compute(m, S, &o, &ctx, &err)) {
        memplan_inplace_free(ctx);
        memplan_shapes_free(S);
        return;
    }
    unsigned char *a = NULL, *b = NULL, *c = NULL;
    size_t na = 0, nb = 0, nc = 0;
    memplan_reader rd = {copy_read, (void *)copy, len};
    memplan_status sa = memplan_annotate(copy, len, ctx, &a, &na, &err);
    memplan_status sb = mp_annotate_reader_window(&rd, MP_PRUNE_WINDOW_MIN, ctx, &b, &nb, &eb);
    if (sa != sb || strcmp(err.message, eb.message) != 0 || (!sa && (na != nb || memcmp(a, b, na) != 0))) {
        fprintf(stderr,
                "malformed_tool: %s: annotate through a reader differs: %d '%s' (%zu bytes) vs %d '%s' (%zu bytes)\n",
                label, (int)sa, err.message, na, (int)sb, eb.message, nb);
        bad = 1;
    }
    if (!sa && (memplan_annotate(a, na, ctx, &c, &nc, &err) || nc != na || memcmp(a, c, na) != 0)) {
        fprintf(stderr, "malformed_tool: %s: annotating the annotated model changes it\n", label);
        bad = 1;
    }
    free(a);
    free(b);
    free(c);
    memplan_inplace_free(ctx);
    memplan_shapes_free(S);
}

static void run_case(const char *label, const uint8_t *data, size_t len) {
    memplan_model *m = NULL;
    memplan_error err = {0};
    uint8_t *copy = malloc(len ? len : 1); /* exact size: reads past the end are caught */
    if (!copy) exit(2);
    memcpy(copy, data, len);
    check_reader(label, copy, len);
    memplan_status st = memplan_model_load(copy, len, NULL, &m, &err);
    if (st == MEMPLAN_OK) check_annotate(label, m, copy, len);
    free(copy);
    printf("{\"case\":\"%s\",", label);
    if (st != MEMPLAN_OK) {
        if (!err.message[0] || st > MEMPLAN_EINTERNAL) {
            fprintf(stderr, "malformed_tool: %s: status %d with message '%s'\n", label, (int)st, err.message);
            bad = 1;
        }
        printf("\"ok\":false,\"status\":%d,\"message\":", (int)st);
        put_str(err.message, strlen(err.message));
        printf("}\n");
        return;
    }
    char *out = NULL;
    size_t n = 0;
    printf("\"ok\":true,\"info\":");
    if (memplan_info_json(m, &out, &n, &err) == MEMPLAN_OK) put_str(out, n);
    else
        put_str(err.message, strlen(err.message));
    free(out);
    out = NULL;
    memplan_request r;
    memplan_request_init(&r);
    r.plan.budget_ms = 0;
    printf(",\"plan\":");
    st = memplan_report_json(m, "plan", &r, &out, &n, &err);
    if (st == MEMPLAN_OK) {
        put_str(out, n);
    } else {
        printf("{\"status\":%d,\"message\":", (int)st);
        put_str(err.message, strlen(err.message));
        putchar('}');
    }
    free(out);
    printf("}\n");
    memplan_model_free(m);
}

static uint64_t xs(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "malformed_tool: cannot open %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
    if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        free(data);
        return 1;
    }
    fclose(f);
    size_t len = (size_t)size;
    char label[64];
    run_case("full", data, len);
    if (len <= 4096) {
        for (size_t cut = 0; cut < len; cut++) {
            snprintf(label, sizeof label, "trunc %zu", cut);
            run_case(label, data, cut);
        }
    } else {
        for (size_t i = 0; i < 2000; i++) {
            size_t cut = (size_t)((uint64_t)i * len / 2000);
            snprintf(label, sizeof label, "trunc %zu", cut);
            run_case(label, data, cut);
        }
    }
    uint8_t *mut = malloc(len ? len : 1);
    uint64_t s = 0x9E3779B97F4A7C15ull ^ (uint64_t)len;
    for (int k = 0; k < 200 && len; k++) {
        size_t p = (size_t)(xs(&s) % len);
        unsigned b = (unsigned)(xs(&s) % 8);
        memcpy(mut, data, len);
        mut[p] ^= (uint8_t)(1u << b);
        snprintf(label, sizeof label, "flip %zu %u", p, b);
        run_case(label, mut, len);
    }
    for (int k = 0; k < 100 && len; k++) {
        size_t p = (size_t)(xs(&s) % len);
        unsigned w = (unsigned)(xs(&s) % 6);
        memcpy(mut, data, len);
        mut[p] = (uint8_t)((mut[p] & ~7u) | w);
        snprintf(label, sizeof label, "wire %zu %u", p, w);
        run_case(label, mut, len);
    }
    free(mut);
    free(data);
    return 0;
}

int main(int argc, char **argv) {
    int rc = 0;
    for (int i = 1; i < argc; i++) rc |= run_file(argv[i]);
    return rc | bad;
}
