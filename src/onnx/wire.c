/* wire.c -- protobuf wire bytes from memory or a reader (see wire.h). */
#include "onnx/wire.h"

#include <stdlib.h>
#include <string.h>

#define READ_MIN ((size_t)1 << 16) /* first read, and the first after a jump */

void mp_wire_open_mem(mp_wire_src *s, const void *bytes, size_t len) {
    memset(s, 0, sizeof *s);
    s->mem = bytes;
    s->size = len;
}

bool mp_wire_open_reader(mp_wire_src *s, const memplan_reader *rd, size_t window) {
    memset(s, 0, sizeof *s);
    if (window < 16) window = 16;
    s->rd = rd;
    s->size = rd->size;
    s->win_cap = rd->size < window ? (size_t)rd->size : window;
    s->win = malloc(s->win_cap ? s->win_cap : 1);
    return s->win != NULL;
}

void mp_wire_close(mp_wire_src *s) {
    free(s->win);
    s->win = NULL;
}

const uint8_t *mp_wire_at(mp_wire_src *s, uint64_t pos, size_t n) {
    if (!s->rd) return s->mem + pos; /* memory (mem is NULL for an empty input) */
    if (pos >= s->win_pos && pos + n <= s->win_pos + s->win_len) return s->win + (pos - s->win_pos);
    /* Read-ahead: reading on from the window doubles the next read (up to
     * win_cap); a jump (past skipped tensor data) starts small again, since
     * the next weight is often a few hundred bytes away. */
    bool sequential = s->win_len && pos >= s->win_pos && pos <= s->win_pos + s->win_len;
    size_t want = sequential ? s->win_len * 2 : READ_MIN;
    if (want > s->win_cap) want = s->win_cap;
    if (want < n) want = n;
    size_t len = s->size - pos < want ? (size_t)(s->size - pos) : want;
    s->win_len = 0;
    if (!s->rd->read(s->rd->ctx, pos, s->win, len)) {
        s->io_failed_at = pos;
        return NULL;
    }
    s->win_pos = pos;
    s->win_len = len;
    return s->win;
}

bool mp_wire_copy(mp_wire_src *s, uint64_t pos, uint64_t n, mp_buf *out) {
    size_t chunk = s->rd ? s->win_cap : SIZE_MAX;
    while (n) {
        size_t k = n < chunk ? (size_t)n : chunk;
        const uint8_t *p = mp_wire_at(s, pos, k);
        if (!p) return false;
        mp_buf_append(out, p, k);
        pos += k;
        n -= k;
    }
    return true;
}

bool mp_wire_varint(mp_wire_src *s, uint64_t *pos, uint64_t end, uint64_t *v, bool *io) {
    size_t avail = end - *pos < 10 ? (size_t)(end - *pos) : 10;
    const uint8_t *p = avail ? mp_wire_at(s, *pos, avail) : NULL;
    if (avail && !p) {
        *io = true;
        return false;
    }
    uint64_t x = 0;
    for (size_t i = 0; i < avail; i++) {
        x |= (uint64_t)(p[i] & 0x7F) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = x;
            *pos += i + 1;
            return true;
        }
    }
    return false;
}

size_t mp_wire_encode_varint(uint8_t tmp[10], uint64_t v) {
    size_t n = 0;
    do {
        uint8_t b = v & 0x7F;
        v >>= 7;
        tmp[n++] = b | (v ? 0x80 : 0);
    } while (v);
    return n;
}

int mp_wire_expected_type(const ProtobufCFieldDescriptor *f) {
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_BOOL:
    case PROTOBUF_C_TYPE_ENUM: return WT_VARINT;
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT: return WT_I32;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE: return WT_I64;
    default: return WT_LEN;
    }
}

memplan_status mp_wire_error(memplan_error *err, uint64_t at, const char *what) {
    return memplan_error_set(err, MEMPLAN_EINPUT, "malformed protobuf at byte %llu: %s", (unsigned long long)at, what);
}

memplan_status mp_wire_io_error(const mp_wire_src *s, memplan_error *err) {
    return memplan_error_set(err, MEMPLAN_EINPUT, "could not read the model's bytes at %llu",
                             (unsigned long long)s->io_failed_at);
}
