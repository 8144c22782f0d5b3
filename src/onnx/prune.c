/* prune.c -- wire-format walk: validate, bound nesting, drop bulky tensor data. */
#include "onnx/prune.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "memplan/model.h"
#include "onnx/wire.h"

typedef struct walker {
    mp_wire_src src;
    uint64_t dropped;
    uint64_t data_max; /* tensor data fields longer than this are dropped */
    uint64_t nodes;    /* NodeProto messages seen, in every graph and function */
    uint64_t decoded;  /* bytes protobuf-c will allocate for the messages seen */
    uint64_t decoded_max;
    uint64_t pend_pos, pend_len; /* input bytes due to out next, copied as one run */
    mp_buf *out;                 /* where the copy goes (NULL: checking only) */
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
#define DECODED_MAX (UINT64_C(2) << 30) /* and never more than 2 GiB (WASM's heap is 4 GiB) */

/* What protobuf-c allocates besides the message structs: a string or bytes
 * field its length plus a NUL and the allocator's overhead (and, repeated,
 * a pointer in the array); a packed repeated scalar at most one element per
 * wire byte. Counted so that empty strings (2 wire bytes, ~48 decoded) or
 * packed one-byte varints (8 decoded each) cannot go around the cap. */
#define DECODED_PER_STRING 48

/* A singular message field given more than this many times in one message
 * is refused: protobuf-c merges the repeats by concatenating what it has
 * decoded so far, which is quadratic (100,000 repeated ModelProto.graph
 * fields, 400 KB, took 15 s). Real models give each once. */
#define MAX_SINGULAR_REPEATS 64

static memplan_status wire_error(walker *w, uint64_t at, const char *what) { return mp_wire_error(w->err, at, what); }

static memplan_status io_error(walker *w) { return mp_wire_io_error(&w->src, w->err); }

/* The pending run of input bytes to out. */
static memplan_status flush(walker *w, mp_buf *out) {
    uint64_t n = w->pend_len;
    w->pend_len = 0;
    return !out || !n || mp_wire_copy(&w->src, w->pend_pos, n, out) ? MEMPLAN_OK : io_error(w);
}

/* Bytes [pos, pos + n) are in a reader's window (memory: always). */
static bool in_window(const walker *w, uint64_t pos, uint64_t n) {
    return !w->src.rd || (pos >= w->src.win_pos && pos + n <= w->src.win_pos + w->src.win_len);
}

/* Before reading [pos, pos + n): the pending run goes out first when the
 * read would move the window off it (so nothing is read twice). */
static memplan_status keep_run(walker *w, uint64_t pos, uint64_t n) {
    return w->pend_len && !in_window(w, pos, n) ? flush(w, w->out) : MEMPLAN_OK;
}

/* Append the input's bytes [pos, pos + n) to out (NULL: checking only):
 * runs of adjacent fields (and message headers) in the window go out in one
 * copy of at most RUN_MAX bytes, rather than a field at a time. */
#define RUN_MAX (64u * 1024u)
static memplan_status src_copy(walker *w, uint64_t pos, uint64_t n, mp_buf *out) {
    if (!out) return MEMPLAN_OK;
    if (w->pend_len && w->pend_pos + w->pend_len == pos && w->pend_len + n <= RUN_MAX &&
        in_window(w, w->pend_pos, w->pend_len + n)) {
        w->pend_len += n;
        return MEMPLAN_OK;
    }
    memplan_status st = flush(w, out);
    if (st || !in_window(w, pos, n) || n > RUN_MAX)
        return st ? st : mp_wire_copy(&w->src, pos, n, out) ? MEMPLAN_OK : io_error(w);
    w->pend_pos = pos;
    w->pend_len = n;
    return MEMPLAN_OK;
}

static bool read_varint(walker *w, uint64_t *pos, uint64_t end, uint64_t *v, bool *io) {
    if (keep_run(w, *pos, end - *pos < 10 ? end - *pos : 10)) {
        *io = true;
        return false;
    }
    return mp_wire_varint(&w->src, pos, end, v, io);
}

static void put_varint(mp_buf *out, uint64_t v) {
    uint8_t tmp[10];
    mp_buf_append(out, tmp, mp_wire_encode_varint(tmp, v));
}

#define expected_wire_type mp_wire_expected_type

/* TensorProto fields holding element data (float_data .. uint64_data, raw_data). */
static bool is_tensor_data_field(const ProtobufCMessageDescriptor *desc, uint32_t field) {
    if (desc != &onnx__tensor_proto__descriptor) return false;
    switch (field) {
    case 4:
    case 5:
    case 6:
    case 7:
    case 9:
    case 10:
    case 11: return true;
    default: return false;
    }
}

/* String fields that name something (values, nodes, ops, domains, dims):
 * protobuf-c keeps a string only up to a NUL byte, so a NUL in one would
 * merge distinct names; such a model is refused instead. */
static bool is_name_field(const ProtobufCFieldDescriptor *fd) {
    static const char *const NAMES[] = {"name",   "op_type",   "domain",   "input",
                                        "output", "dim_param", "overload", "ref_attr_name"};
    if (fd->type != PROTOBUF_C_TYPE_STRING) return false;
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (strcmp(fd->name, NAMES[i]) == 0) return true;
    return false;
}

/* An error when the string at [body, body + n) holds a NUL byte. */
static memplan_status check_no_nul(walker *w, const ProtobufCMessageDescriptor *desc,
                                   const ProtobufCFieldDescriptor *fd, uint64_t body, uint64_t n) {
    size_t chunk = w->src.rd ? w->src.win_cap : (size_t)n;
    for (uint64_t off = 0; off < n;) {
        size_t k = n - off < chunk ? (size_t)(n - off) : chunk;
        if (keep_run(w, body + off, k)) return io_error(w);
        const uint8_t *q = mp_wire_at(&w->src, body + off, k);
        if (!q) return io_error(w);
        const uint8_t *z = memchr(q, 0, k);
        if (z) {
            char what[200];
            snprintf(what, sizeof what, "%s.%s holds a NUL byte: names cannot contain one", desc->name, fd->name);
            return wire_error(w, body + off + (uint64_t)(z - q), what);
        }
        off += k;
    }
    return MEMPLAN_OK;
}

/* A packed repeated varint field of n > 0 bytes at `body` must end where a
 * varint ends: protobuf-c counts its elements by the bytes below 0x80, and
 * one holding none has no array, which it then indexes (NULL + 0: UB, found
 * by fuzz_plan on a mutated int32_data). Malformed either way: an error. */
static memplan_status check_packed_end(walker *w, const ProtobufCMessageDescriptor *desc,
                                       const ProtobufCFieldDescriptor *fd, uint64_t start, uint64_t body, uint64_t n) {
    if (keep_run(w, body + n - 1, 1)) return io_error(w);
    const uint8_t *q = mp_wire_at(&w->src, body + n - 1, 1);
    if (!q) return io_error(w);
    if (!(*q & 0x80)) return MEMPLAN_OK;
    char what[200];
    snprintf(what, sizeof what, "field %s.%s: its packed varints end inside a varint", desc->name, fd->name);
    return wire_error(w, start, what);
}

/* A varint field at *p: false with the error set when it is not one. */
static bool varint_or_error(walker *w, uint64_t *p, uint64_t end, uint64_t *v, uint64_t start, const char *what,
                            memplan_status *st) {
    bool io = false;
    if (read_varint(w, p, end, v, &io)) return true;
    *st = io ? io_error(w) : wire_error(w, start, what);
    return false;
}

/* Bytes protobuf-c allocates for a LEN field of v wire bytes that is not a
 * message: a string or bytes value, or a packed repeated scalar. */
static uint64_t decoded_len_field(const ProtobufCFieldDescriptor *fd, uint64_t v) {
    switch (fd->type) {
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES: return v + DECODED_PER_STRING;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_DOUBLE: return 8 * v;
    default: return 4 * v; /* 32-bit scalars, enums, bools (4 bytes each in protobuf-c) */
    }
}

static memplan_status too_large(walker *w, uint64_t at) {
    return memplan_error_set(w->err, MEMPLAN_ELIMIT,
                             "the model expands to more than %llu MB when decoded (at byte %llu): too many small "
                             "messages, strings or values for the file's size",
                             (unsigned long long)(w->decoded_max >> 20), (unsigned long long)at);
}

static memplan_status walk(walker *w, const ProtobufCMessageDescriptor *desc, uint64_t p, uint64_t end, int depth,
                           mp_buf *out);

/* A message field (tag, v bytes of body at [body, end)) walked straight into
 * out: its tag and v's varint first, then its pruned body after them. The
 * body never grows, so when it shrank (tensor data dropped) its length's
 * varint can only get shorter: it is rewritten and the body moved back over
 * the spare bytes. Each byte is copied once, not once per nesting level. */
static memplan_status walk_message(walker *w, const ProtobufCMessageDescriptor *md, uint64_t tag, uint64_t v,
                                   uint64_t start, uint64_t body, uint64_t end, int depth, mp_buf *out) {
    if (!out) return walk(w, md, body, end, depth, NULL);
    uint8_t tmp[10];
    size_t tag_len = mp_wire_encode_varint(tmp, tag), v_len = mp_wire_encode_varint(tmp, v);
    memplan_status st;
    size_t len_at, body_at;
    if (body - start == tag_len + v_len && in_window(w, start, body - start)) {
        /* the input's header is the one written: one run with the body */
        if ((st = src_copy(w, start, body - start, out))) return st;
        len_at = out->len + (size_t)w->pend_len - v_len;
    } else {
        if ((st = flush(w, out))) return st;
        put_varint(out, tag);
        len_at = out->len;
        put_varint(out, v);
    }
    body_at = len_at + v_len;
    if ((st = walk(w, md, body, end, depth, out))) return st;
    size_t got = out->len + (size_t)w->pend_len - body_at;
    if (got == v) return MEMPLAN_OK;
    if ((st = flush(w, out)) || out->failed) return st;
    size_t k = mp_wire_encode_varint(tmp, got);
    memcpy(out->data + len_at, tmp, k);
    memmove(out->data + len_at + k, out->data + body_at, got);
    out->len = len_at + k + got;
    out->data[out->len] = '\0';
    return MEMPLAN_OK;
}

static memplan_status walk(walker *w, const ProtobufCMessageDescriptor *desc, uint64_t p, uint64_t end, int depth,
                           mp_buf *out) {
    memplan_status st = MEMPLAN_OK;
    /* Occurrences of each singular message field of this message (ONNX's
     * messages have fewer fields than this; a larger one goes unchecked). */
    uint32_t repeats[48] = {0};
    if (depth > MEMPLAN_MAX_WIRE_DEPTH)
        return memplan_error_set(w->err, MEMPLAN_ELIMIT, "messages nested deeper than %d levels at byte %llu",
                                 MEMPLAN_MAX_WIRE_DEPTH, (unsigned long long)p);
    while (p < end) {
        uint64_t start = p;
        uint64_t tag;
        if (!varint_or_error(w, &p, end, &tag, start, "truncated field tag", &st)) return st;
        uint64_t field = tag >> 3;
        int wt = (int)(tag & 7);
        if (field == 0 || field > 0x1FFFFFFF) return wire_error(w, start, "invalid field number");
        const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(desc, (unsigned)field);
        if (fd) {
            int want = expected_wire_type(fd);
            bool packed_ok = fd->label == PROTOBUF_C_LABEL_REPEATED && want != WT_LEN && wt == WT_LEN;
            if (wt != want && !packed_ok) {
                char what[160];
                snprintf(what, sizeof what, "field %s.%s (%u) has wire type %d, expected %d", desc->name, fd->name,
                         (unsigned)field, wt, want);
                return wire_error(w, start, what);
            }
        }
        uint64_t v;
        switch (wt) {
        case WT_VARINT:
            if (!varint_or_error(w, &p, end, &v, start, "truncated varint", &st)) return st;
            st = src_copy(w, start, p - start, out);
            break;
        case WT_I64:
            if (end - p < 8) return wire_error(w, start, "truncated 64-bit field");
            p += 8;
            st = src_copy(w, start, p - start, out);
            break;
        case WT_I32:
            if (end - p < 4) return wire_error(w, start, "truncated 32-bit field");
            p += 4;
            st = src_copy(w, start, p - start, out);
            break;
        case WT_LEN: {
            if (!varint_or_error(w, &p, end, &v, start, "truncated length", &st)) return st;
            if (v > end - p) return wire_error(w, start, "length runs past the end of the data");
            uint64_t body = p;
            p += v;
            if (v > 0 && fd && fd->label == PROTOBUF_C_LABEL_REPEATED && expected_wire_type(fd) == WT_VARINT &&
                (st = check_packed_end(w, desc, fd, start, body, v)) != MEMPLAN_OK)
                return st;
            if (fd && fd->type == PROTOBUF_C_TYPE_MESSAGE && fd->label != PROTOBUF_C_LABEL_REPEATED) {
                size_t k = (size_t)(fd - desc->fields);
                if (k < sizeof repeats / sizeof repeats[0] && ++repeats[k] > MAX_SINGULAR_REPEATS) {
                    char what[200];
                    snprintf(what, sizeof what, "field %s.%s is given more than %d times in one message", desc->name,
                             fd->name, MAX_SINGULAR_REPEATS);
                    return wire_error(w, start, what);
                }
            }
            bool dropped = is_tensor_data_field(desc, (uint32_t)field) && v > w->data_max;
            if (fd && fd->type != PROTOBUF_C_TYPE_MESSAGE && !dropped) {
                w->decoded += decoded_len_field(fd, v);
                if (w->decoded > w->decoded_max) return too_large(w, start);
            }
            if (fd && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
                /* The node limit is checked here, before protobuf-c allocates a
                 * struct for each node: 2 bytes of input make an empty node. */
                if (fd->descriptor == &onnx__node_proto__descriptor && ++w->nodes > MEMPLAN_MAX_NODES)
                    return memplan_error_set(w->err, MEMPLAN_ELIMIT, "more than %d nodes (at byte %llu)",
                                             MEMPLAN_MAX_NODES, (unsigned long long)start);
                const ProtobufCMessageDescriptor *md = fd->descriptor;
                w->decoded += md->sizeof_message + sizeof(void *);
                if (w->decoded > w->decoded_max) return too_large(w, start);
                st = walk_message(w, md, tag, v, start, body, p, depth + 1, out);
            } else if (v == 0 && fd && fd->label == PROTOBUF_C_LABEL_REPEATED && expected_wire_type(fd) != WT_LEN) {
                /* An empty packed repeated scalar holds no element: drop it. Left in,
                 * protobuf-c computes NULL + 0 for its array (UB, found by fuzz_plan). */
            } else if (dropped) {
                w->dropped += v; /* never read: a reader skips it */
            } else {
                if (fd && is_name_field(fd)) st = check_no_nul(w, desc, fd, body, v);
                if (!st) st = src_copy(w, start, p - start, out);
            }
            break;
        }
        case WT_SGROUP:
        case WT_EGROUP: return wire_error(w, start, "groups are not used by ONNX");
        default: return wire_error(w, start, "invalid wire type");
        }
        if (st != MEMPLAN_OK) return st;
        if (out && out->failed)
            return memplan_error_set(w->err, MEMPLAN_ENOMEM, "out of memory while reading the model");
    }
    return MEMPLAN_OK;
}

static uint64_t decoded_max(uint64_t size) {
    uint64_t m = DECODED_BASE + DECODED_PER_BYTE * size;
    return m > DECODED_MAX ? DECODED_MAX : m;
}

static memplan_status run(walker *w, uint64_t data_max, mp_buf *out, uint64_t *dropped, memplan_error *err) {
    w->data_max = data_max;
    w->decoded_max = decoded_max(w->src.size);
    w->err = err;
    w->out = out;
    memplan_status st = walk(w, &onnx__model_proto__descriptor, 0, w->src.size, 0, out);
    if (!st) st = flush(w, out);
    if (!st && out && out->failed) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while reading the model");
    if (dropped) *dropped = w->dropped;
    return st;
}

memplan_status mp_prune_model(const uint8_t *bytes, size_t len, mp_buf *out, uint64_t *dropped, memplan_error *err) {
    return mp_clean_model(bytes, len, MEMPLAN_TENSOR_DATA_MAX, out, dropped, err);
}

memplan_status mp_clean_model(const uint8_t *bytes, size_t len, uint64_t data_max, mp_buf *out, uint64_t *dropped,
                              memplan_error *err) {
    walker w = {0};
    mp_wire_open_mem(&w.src, bytes, len);
    return run(&w, data_max, out, dropped, err);
}

static memplan_status prune_reader(const memplan_reader *rd, size_t window, mp_buf *out, uint64_t *dropped,
                                   uint64_t *decoded, memplan_error *err) {
    walker w = {0};
    if (window < MP_PRUNE_WINDOW_MIN) window = MP_PRUNE_WINDOW_MIN;
    if (!mp_wire_open_reader(&w.src, rd, window)) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    memplan_status st = run(&w, MEMPLAN_TENSOR_DATA_MAX, out, dropped, err);
    mp_wire_close(&w.src);
    if (decoded) *decoded = w.decoded;
    return st;
}

memplan_status mp_prune_reader(const memplan_reader *rd, size_t window, mp_buf *out, uint64_t *dropped,
                               memplan_error *err) {
    return prune_reader(rd, window, out, dropped, NULL, err);
}

memplan_status mp_strip_reader(const memplan_reader *rd, mp_buf *out, memplan_error *err) {
    uint64_t decoded = 0;
    memplan_status st = prune_reader(rd, MP_PRUNE_WINDOW, out, NULL, &decoded, err);
    if (st || decoded <= decoded_max(out->len)) return st;
    /* Over the pruned bytes' own cap: the second walk stops where the
     * running count passes it, with that walk's error. */
    mp_buf again;
    mp_buf_init(&again);
    st = mp_prune_model((const uint8_t *)out->data, out->len, &again, NULL, err);
    mp_buf_free(out);
    *out = again;
    return st;
}
