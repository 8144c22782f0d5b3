/* roundtrip_tool.c -- protobuf-c round trip of one ONNX model.
 *
 *   roundtrip_tool IN.onnx OUT.onnx
 *
 * Reads IN, unpacks it completely with the protobuf-c code generated from our
 * src/onnx/onnx.proto (onnx__model_proto__unpack, no pruning), packs it again
 * and writes the bytes to OUT. As a second check it unpacks its own output and
 * packs that once more: the two packings must be byte-identical (packing is a
 * function of the unpacked message).
 *
 * Exit codes: 0 ok, 1 usage, 2 unreadable or unparsable input, 3 internal
 * inconsistency (size mismatch, non-idempotent packing, write failure).
 * native-tests/roundtrip_check.py compares IN and OUT field by field with
 * Python's protobuf.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

static int read_all(const char *path, uint8_t **out, size_t *out_len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 0;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        fprintf(stderr, "%s: out of memory\n", path);
        return 0;
    }
    for (;;) {
        if (len == cap) {
            if (cap > SIZE_MAX / 2) {
                free(buf);
                fclose(f);
                fprintf(stderr, "%s: file too large\n", path);
                return 0;
            }
            uint8_t *grown = realloc(buf, cap * 2);
            if (grown == NULL) {
                free(buf);
                fclose(f);
                fprintf(stderr, "%s: out of memory\n", path);
                return 0;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) { break; }
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        fprintf(stderr, "%s: read error\n", path);
        return 0;
    }
    *out = buf;
    *out_len = len;
    return 1;
}

/* Pack m into a fresh buffer; returns NULL (with a message) on failure. */
static uint8_t *pack_model(const Onnx__ModelProto *m, size_t *out_len) {
    size_t size = onnx__model_proto__get_packed_size(m);
    uint8_t *buf = malloc(size > 0 ? size : 1);
    if (buf == NULL) {
        fprintf(stderr, "roundtrip_tool: out of memory (%zu bytes)\n", size);
        return NULL;
    }
    size_t written = onnx__model_proto__pack(m, buf);
    if (written != size) {
        fprintf(stderr, "roundtrip_tool: packed %zu bytes, get_packed_size said %zu\n", written, size);
        free(buf);
        return NULL;
    }
    *out_len = size;
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: roundtrip_tool IN.onnx OUT.onnx\n");
        return 1;
    }
    uint8_t *in = NULL;
    size_t in_len = 0;
    if (!read_all(argv[1], &in, &in_len)) { return 2; }
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, in_len, in);
    free(in);
    if (m == NULL) {
        fprintf(stderr, "%s: protobuf-c could not unpack a ModelProto\n", argv[1]);
        return 2;
    }
    size_t out_len = 0;
    uint8_t *out = pack_model(m, &out_len);
    onnx__model_proto__free_unpacked(m, NULL);
    if (out == NULL) { return 3; }

    /* Idempotence: unpack what we wrote and pack it again. */
    int rc = 0;
    Onnx__ModelProto *m2 = onnx__model_proto__unpack(NULL, out_len, out);
    if (m2 == NULL) {
        fprintf(stderr, "%s: protobuf-c could not unpack its own output\n", argv[1]);
        rc = 3;
    } else {
        size_t again_len = 0;
        uint8_t *again = pack_model(m2, &again_len);
        onnx__model_proto__free_unpacked(m2, NULL);
        if (again == NULL) {
            rc = 3;
        } else {
            if (again_len != out_len || memcmp(again, out, out_len) != 0) {
                fprintf(stderr, "%s: second packing differs (%zu vs %zu bytes)\n", argv[1], again_len, out_len);
                rc = 3;
            }
            free(again);
        }
    }

    if (rc == 0) {
        FILE *f = fopen(argv[2], "wb");
        if (f == NULL) {
            perror(argv[2]);
            rc = 3;
        } else {
            size_t put = out_len > 0 ? fwrite(out, 1, out_len, f) : 0;
            if (fclose(f) != 0 || put != out_len) {
                fprintf(stderr, "%s: write error\n", argv[2]);
                rc = 3;
            }
        }
    }
    free(out);
    return rc;
}
