/* prune.c -- wire-format walk: validate, bound nesting, drop bulky tensor data. */
#include "onnx/prune.h"

#include <stdbool.h>
#include <stdio.h>

#include "memplan/model.h"
#include "onnx.pb-c.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

typedef struct walker {
    const uint8_t *base;   /* start of the whole input, for offsets */
    uint64_t dropped;
    uint64_t data_max;     /* tensor data fields longer than this are dropped */
    uint64_t nodes;        /* NodeProto messages seen, in every graph and function */
    uint64_t decoded;      /* bytes protobuf-c will allocate for the messages seen */
    uint64_t decoded_max;
    memplan_error *err;
} walker;

/* protobuf-c allocates a struct per message (and a pointer to it in its
 * parent's array): 152 bytes for an empty NodeProto, 256 for an empty
 * AttributeProto, each 2 bytes on the wire -- a 5 MB file of empty attributes
 * decoded to ~1 GB. Real models decode to a few times their graph bytes; the
 * cap (64 MiB + 96 per input byte) is far above them and still lets a file
 * of empty nodes reach MEMPLAN_MAX_NODES (76 bytes each per wire byte). */
#define DECODED_BASE (UINT64_C(64) << 20)
#define DECODED_PER_BYTE 96

static memplan_status wire_error(walker *w, const uint8_t *at, const char *what) {
    return memplan_error_set(w->err, MEMPLAN_EINPUT,
                             "malformed protobuf at byte %zu: %s",
                             (size_t)(at - w->base), what);
}

static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= end) return false;
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

static void put_varint(mp_buf *out, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t b = v & 0x7F;
        v >>= 7;
        tmp[n++] = b | (v ? 0x80 : 0);
    } while (v);
    mp_buf_append(out, tmp, n);
}

/* The wire type a field is written with (packed repeated scalars: LEN too). */
static int expected_wire_type(const ProtobufCFieldDescriptor *f) {
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_BOOL: case PROTOBUF_C_TYPE_ENUM:
        return WT_VARINT;
    case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
        return WT_I32;
    case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
        return WT_I64;
    default:
        return WT_LEN;
    }
}

/* TensorProto fields holding element data (float_data .. uint64_data, raw_data). */
static bool is_tensor_data_field(const ProtobufCMessageDescriptor *desc, uint32_t field) {
    if (desc != &onnx__tensor_proto__descriptor) return false;
    switch (field) {
    case 4: case 5: case 6: case 7: case 9: case 10: case 11: return true;
    default: return false;
    }
}

static memplan_status walk(walker *w, const ProtobufCMessageDescriptor *desc,
                           const uint8_t *p, const uint8_t *end, int depth, mp_buf *out) {
    if (depth > MEMPLAN_MAX_WIRE_DEPTH)
        return memplan_error_set(w->err, MEMPLAN_ELIMIT,
                                 "messages nested deeper than %d levels at byte %zu",
                                 MEMPLAN_MAX_WIRE_DEPTH, (size_t)(p - w->base));
    while (p < end) {
        const uint8_t *start = p;
        uint64_t tag;
        if (!read_varint(&p, end, &tag)) return wire_error(w, start, "truncated field tag");
        uint64_t field = tag >> 3;
        int wt = (int)(tag & 7);
        if (field == 0 || field > 0x1FFFFFFF) return wire_error(w, start, "invalid field number");
        const ProtobufCFieldDescriptor *fd =
            protobuf_c_message_descriptor_get_field(desc, (unsigned)field);
        if (fd) {
            int want = expected_wire_type(fd);
            bool packed_ok = fd->label == PROTOBUF_C_LABEL_REPEATED && want != WT_LEN && wt == WT_LEN;
            if (wt != want && !packed_ok) {
                char what[160];
                snprintf(what, sizeof what, "field %s.%s (%u) has wire type %d, expected %d",
                         desc->name, fd->name, (unsigned)field, wt, want);
                return wire_error(w, start, what);
            }
        }
        uint64_t v;
        switch (wt) {
        case WT_VARINT:
            if (!read_varint(&p, end, &v)) return wire_error(w, start, "truncated varint");
            mp_buf_append(out, start, (size_t)(p - start));
            break;
        case WT_I64:
            if (end - p < 8) return wire_error(w, start, "truncated 64-bit field");
            p += 8;
            mp_buf_append(out, start, (size_t)(p - start));
            break;
        case WT_I32:
            if (end - p < 4) return wire_error(w, start, "truncated 32-bit field");
            p += 4;
            mp_buf_append(out, start, (size_t)(p - start));
            break;
        case WT_LEN: {
            if (!read_varint(&p, end, &v)) return wire_error(w, start, "truncated length");
            if (v > (uint64_t)(end - p)) return wire_error(w, start, "length runs past the end of the data");
            const uint8_t *body = p;
            p += v;
            if (fd && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
                /* The node limit is checked here, before protobuf-c allocates a
                 * struct for each node: 2 bytes of input make an empty node. */
                if (fd->descriptor == &onnx__node_proto__descriptor && ++w->nodes > MEMPLAN_MAX_NODES)
                    return memplan_error_set(w->err, MEMPLAN_ELIMIT, "more than %d nodes (at byte %zu)",
                                             MEMPLAN_MAX_NODES, (size_t)(start - w->base));
                const ProtobufCMessageDescriptor *md = fd->descriptor;
                w->decoded += md->sizeof_message + sizeof(void *);
                if (w->decoded > w->decoded_max)
                    return memplan_error_set(w->err, MEMPLAN_ELIMIT,
                                             "the model's messages would take more than %llu MB to decode "
                                             "(at byte %zu): too many small messages for the file's size",
                                             (unsigned long long)(w->decoded_max >> 20), (size_t)(start - w->base));
                mp_buf sub;
                mp_buf_init(&sub);
                memplan_status st = walk(w, fd->descriptor, body, p, depth + 1, &sub);
                if (st == MEMPLAN_OK) {
                    put_varint(out, tag);
                    put_varint(out, sub.len);
                    mp_buf_append(out, sub.data, sub.len);
                    if (sub.failed) out->failed = true;
                }
                mp_buf_free(&sub);
                if (st != MEMPLAN_OK) return st;
            } else if (v == 0 && fd && fd->label == PROTOBUF_C_LABEL_REPEATED && expected_wire_type(fd) != WT_LEN) {
                /* An empty packed repeated scalar holds no element: drop it. Left in,
                 * protobuf-c computes NULL + 0 for its array (UB, found by fuzz_plan). */
            } else if (is_tensor_data_field(desc, (uint32_t)field) && v > w->data_max) {
                w->dropped += v;
            } else {
                mp_buf_append(out, start, (size_t)(p - start));
            }
            break;
        }
        case WT_SGROUP:
        case WT_EGROUP:
            return wire_error(w, start, "groups are not used by ONNX");
        default:
            return wire_error(w, start, "invalid wire type");
        }
        if (out->failed)
            return memplan_error_set(w->err, MEMPLAN_ENOMEM, "out of memory while reading the model");
    }
    return MEMPLAN_OK;
}

memplan_status mp_prune_model(const uint8_t *bytes, size_t len, mp_buf *out,
                              uint64_t *dropped, memplan_error *err) {
    return mp_clean_model(bytes, len, MEMPLAN_TENSOR_DATA_MAX, out, dropped, err);
}

memplan_status mp_clean_model(const uint8_t *bytes, size_t len, uint64_t data_max, mp_buf *out,
                              uint64_t *dropped, memplan_error *err) {
    walker w = {0};
    w.base = bytes;
    w.data_max = data_max;
    w.decoded_max = DECODED_BASE + DECODED_PER_BYTE * (uint64_t)len;
    w.err = err;
    memplan_status st = walk(&w, &onnx__model_proto__descriptor, bytes, bytes + len, 0, out);
    if (dropped) *dropped = w.dropped;
    return st;
}
