/*
 * annotate.c -- write the seed-001 results into a model (SEMANTICS §9), and
 * read the value-tag hints a model carries.
 *
 * Annotation is a splice over the original wire bytes: the output is the
 * input byte for byte, except inside the main graph (ModelProto.graph, every
 * occurrence of field 7), where each NodeProto (GraphProto.node), ValueInfoProto
 * (input, output, value_info) and TensorProto (initializer) that gains, loses
 * or replaces an onnx_light.* metadata_props entry is written again: its
 * fields in their order, each entry with one of our keys replaced in place by
 * the new entry with that key (the first time the key is met) or dropped (a
 * stale or repeated one), the new entries not placed yet appended. Only the
 * length prefixes of the rewritten messages and of the GraphProto change.
 *
 * The input is read through a wire source (memory, or a reader a window at a
 * time; src/onnx/wire.h) in four walks: the prune walk checks the whole model
 * (tags, lengths, wire types, nesting depth, node count) exactly as loading
 * does; a count of the main graph's nodes; a walk that measures each graph's
 * new length (and checks each node's op_type against the results); and the
 * walk that writes into one buffer of the exact size. Tensor data is never
 * read except to be copied, and memory is the output plus O(graph).
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/inplace.h"
#include "onnx.pb-c.h"
#include "onnx/prune.h"
#include "onnx/wire.h"
#include "out/annotate.h"
#include "util/buf.h"

#define KEY_REUSE "onnx_light.inplace_reuse"
#define KEY_RELEASE "onnx_light.release_after"
#define KEY_NOT_USED "onnx_light.not_used_after"
#define KEY_SHAPE_TAG "onnx_light.release_after_shape_tag"
#define KEY_NODE_TAG "onnx_light.node_tag"
#define KEY_VALUE_TAG "onnx_light.value_tag"
#define KEY_MAX 34 /* the longest of them */

/* Field numbers (src/onnx/onnx.proto). */
#define F_MODEL_GRAPH 7
#define F_GRAPH_NODE 1
#define F_GRAPH_INITIALIZER 5
#define F_GRAPH_INPUT 11
#define F_GRAPH_OUTPUT 12
#define F_GRAPH_VALUE_INFO 13
#define F_ENTRY_KEY 1
#define F_ENTRY_VALUE 2

/* The messages we annotate: where their name (op_type for a node) and their
 * metadata_props are. */
typedef struct kind {
    uint32_t name_field;
    uint32_t meta_field;
    bool node;
} kind;
static const kind NODE = {4, 9, true};    /* NodeProto.op_type, .metadata_props */
static const kind VALUE = {1, 4, false};  /* ValueInfoProto.name, .metadata_props */
static const kind TENSOR = {8, 16, false}; /* TensorProto.name, .metadata_props */

/* Where output goes: buf NULL only counts the bytes. */
typedef struct sink {
    uint8_t *buf;
    uint64_t len, cap;
} sink;

typedef struct splicer {
    mp_wire_src src;
    const memplan_inplace *ctx;
    const memplan_graph *g;
    int32_t *node_of;     /* file index -> graph node (-1: none) */
    int32_t n_nodes;
    int32_t next_node;    /* file index of the next node message */
    bool overflow;        /* the input changed between walks */
    memplan_error *err;
} splicer;

/* One field: the tag at start, a LEN field's body at [body, end). */
typedef struct fld {
    uint64_t start, body, end;
    uint32_t field;
    int wt;
} fld;

/* The new entries of one message (at most 5), each placed once. */
typedef struct entries {
    size_t n;
    const char *keys[5];
    char *vals[5];
} entries;

static memplan_status io_error(splicer *s) { return mp_wire_io_error(&s->src, s->err); }

static memplan_status oom(splicer *s) {
    return memplan_error_set(s->err, MEMPLAN_ENOMEM, "out of memory while annotating the model");
}

/* The field at *p (before end), moved past. The prune walk checked these
 * bytes already; a reader's file may have changed since, so check again. */
static memplan_status next_field(splicer *s, uint64_t *p, uint64_t end, fld *f) {
    bool io = false;
    uint64_t tag, v;
    f->start = *p;
    if (!mp_wire_varint(&s->src, p, end, &tag, &io))
        return io ? io_error(s) : mp_wire_error(s->err, f->start, "truncated field tag");
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1FFFFFFF) return mp_wire_error(s->err, f->start, "invalid field number");
    f->field = (uint32_t)(tag >> 3);
    f->wt = (int)(tag & 7);
    switch (f->wt) {
    case WT_VARINT:
        if (!mp_wire_varint(&s->src, p, end, &v, &io))
            return io ? io_error(s) : mp_wire_error(s->err, f->start, "truncated varint");
        break;
    case WT_I64:
    case WT_I32: {
        uint64_t n = f->wt == WT_I64 ? 8 : 4;
        if (end - *p < n) return mp_wire_error(s->err, f->start, "truncated fixed-size field");
        *p += n;
        break;
    }
    case WT_LEN:
        if (!mp_wire_varint(&s->src, p, end, &v, &io))
            return io ? io_error(s) : mp_wire_error(s->err, f->start, "truncated length");
        if (v > end - *p) return mp_wire_error(s->err, f->start, "length runs past the end of the data");
        f->body = *p;
        *p += v;
        break;
    default:
        return mp_wire_error(s->err, f->start, "invalid wire type");
    }
    if (f->wt != WT_LEN) f->body = *p;
    f->end = *p;
    return MEMPLAN_OK;
}

/* Copy n input bytes from pos into dst, a window at a time. */
static memplan_status read_bytes(splicer *s, uint64_t pos, uint64_t n, uint8_t *dst) {
    size_t chunk = s->src.rd ? s->src.win_cap : SIZE_MAX;
    while (n) {
        size_t k = n < chunk ? (size_t)n : chunk;
        const uint8_t *q = mp_wire_at(&s->src, pos, k);
        if (!q) return io_error(s);
        memcpy(dst, q, k);
        dst += k;
        pos += k;
        n -= k;
    }
    return MEMPLAN_OK;
}

static void put(splicer *s, sink *o, const void *p, size_t n) {
    if (o->buf) {
        if (n > o->cap - o->len) {
            s->overflow = true;
            return;
        }
        memcpy(o->buf + o->len, p, n);
    }
    o->len += n;
}

static void put_varint(splicer *s, sink *o, uint64_t v) {
    uint8_t tmp[10];
    put(s, o, tmp, mp_wire_encode_varint(tmp, v));
}

/* The input's bytes [pos, pos + n) to o. */
static memplan_status put_src(splicer *s, sink *o, uint64_t pos, uint64_t n) {
    if (!o->buf) {
        o->len += n;
        return MEMPLAN_OK;
    }
    if (n > o->cap - o->len) {
        s->overflow = true;
        return MEMPLAN_OK;
    }
    memplan_status st = read_bytes(s, pos, n, o->buf + o->len);
    o->len += n;
    return st;
}

/* A StringStringEntryProto (key, value) as field `field` of its message. */
static void put_entry(splicer *s, sink *o, uint32_t field, const char *key, const char *val) {
    size_t kl = strlen(key), vl = strlen(val);
    uint8_t tmp[10];
    uint64_t body = 1 + mp_wire_encode_varint(tmp, kl) + kl + 1 + mp_wire_encode_varint(tmp, vl) + vl;
    put_varint(s, o, (uint64_t)field << 3 | WT_LEN);
    put_varint(s, o, body);
    put_varint(s, o, F_ENTRY_KEY << 3 | WT_LEN);
    put_varint(s, o, kl);
    put(s, o, key, kl);
    put_varint(s, o, F_ENTRY_VALUE << 3 | WT_LEN);
    put_varint(s, o, vl);
    put(s, o, val, vl);
}

/* One of the keys this file writes? */
static bool is_ours(const char *key) {
    static const char *const OURS[] = {KEY_REUSE, KEY_RELEASE, KEY_NOT_USED, KEY_SHAPE_TAG, KEY_NODE_TAG, KEY_VALUE_TAG};
    for (size_t i = 0; key && i < sizeof OURS / sizeof OURS[0]; i++)
        if (strcmp(key, OURS[i]) == 0) return true;
    return false;
}

/* The string field at [body, end) as a C string in b (protobuf-c's view:
 * the text up to a NUL byte in it). */
static memplan_status read_string(splicer *s, uint64_t body, uint64_t end, mp_buf *b) {
    b->len = 0;
    if (end - body >= SIZE_MAX || !mp_buf_reserve(b, (size_t)(end - body))) return oom(s);
    memplan_status st = read_bytes(s, body, end - body, (uint8_t *)b->data);
    b->data[end - body] = '\0';
    return st;
}

/* The key of the StringStringEntryProto at [body, end) when it is one of
 * ours (the last key field counts, as when unpacked), else NULL in *key. */
static memplan_status entry_key(splicer *s, uint64_t body, uint64_t end, char buf[KEY_MAX + 2], const char **key) {
    *key = NULL;
    for (uint64_t p = body; p < end;) {
        fld f;
        memplan_status st = next_field(s, &p, end, &f);
        if (st) return st;
        if (f.field != F_ENTRY_KEY || f.wt != WT_LEN) continue;
        /* Longer than our keys (before any NUL): not ours; read at most one byte more. */
        uint64_t n = f.end - f.body < KEY_MAX + 1 ? f.end - f.body : KEY_MAX + 1;
        if ((st = read_bytes(s, f.body, n, (uint8_t *)buf))) return st;
        buf[n] = '\0';
        *key = strlen(buf) <= KEY_MAX ? buf : NULL;
    }
    if (*key && !is_ours(*key)) *key = NULL;
    return MEMPLAN_OK;
}

static void free_entries(entries *e) {
    for (size_t k = 0; k < e->n; k++) free(e->vals[k]);
    e->n = 0;
}

static bool add(entries *e, const char *key, char *val) {
    if (!val) return false;
    e->keys[e->n] = key;
    e->vals[e->n++] = val;
    return true;
}

/* Names of value ids joined by ';' (malloc'ed; NULL when out of memory).
 * A ';' or '\\' inside a name is written with a '\\' before it, so a name
 * with ';' in it reads back as one name. */
static char *join_names(const memplan_graph *g, const int32_t *ids, size_t n) {
    mp_buf b;
    mp_buf_init(&b);
    mp_buf_reserve(&b, 64); /* so an empty name still gives "" */
    for (size_t k = 0; k < n; k++) {
        if (k) mp_buf_putc(&b, ';');
        for (const char *c = g->values[ids[k]].name; *c; c++) {
            if (*c == ';' || *c == '\\') mp_buf_putc(&b, '\\');
            mp_buf_putc(&b, *c);
        }
    }
    size_t len;
    if (!b.failed) return mp_buf_take(&b, &len);
    mp_buf_free(&b);
    return NULL;
}

static char *copy_str(const char *src) {
    size_t n = strlen(src) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, src, n);
    return p;
}

/* The entries of node i, in the order inplace_reuse, release_after,
 * not_used_after, release_after_shape_tag, node_tag (each when non-empty);
 * false when out of memory. */
static bool node_entries(const memplan_inplace *ctx, int32_t i, entries *e) {
    const memplan_graph *g = memplan_inplace_graph(ctx);
    size_t n;
    const memplan_reuse *items;
    const int32_t *ids;
    memplan_inplace_node_reuse(ctx, i, &items, &n, NULL);
    if (n) {
        mp_buf b;
        mp_buf_init(&b);
        for (size_t k = 0; k < n; k++)
            mp_buf_printf(&b, "%s%d:%d:%s", k ? ";" : "", (int)items[k].output_index, (int)items[k].input_index,
                          memplan_reuse_kind_name(items[k].kind));
        size_t len;
        if (!add(e, KEY_REUSE, b.failed ? (mp_buf_free(&b), NULL) : mp_buf_take(&b, &len))) return false;
    }
    memplan_inplace_release_after(ctx, i, &ids, &n, NULL);
    if (n && !add(e, KEY_RELEASE, join_names(g, ids, n))) return false;
    memplan_inplace_not_used_after(ctx, i, &ids, &n, NULL);
    if (n && !add(e, KEY_NOT_USED, join_names(g, ids, n))) return false;
    if (memplan_inplace_has_tags(ctx)) {
        memplan_inplace_release_after_shape_tag(ctx, i, &ids, &n, NULL);
        if (n && !add(e, KEY_SHAPE_TAG, join_names(g, ids, n))) return false;
    }
    memplan_tag tag;
    memplan_inplace_node_tag(ctx, i, &tag, NULL);
    return tag == MEMPLAN_TAG_NONE || add(e, KEY_NODE_TAG, copy_str(memplan_tag_name(tag)));
}

/* The entry of a value: onnx_light.value_tag when the results give it a tag. */
static bool value_entries(const memplan_inplace *ctx, const char *name, entries *e) {
    memplan_tag tag = MEMPLAN_TAG_NONE;
    int32_t v = name ? memplan_graph_find(memplan_inplace_graph(ctx), name) : -1;
    if (v >= 0 && memplan_inplace_value_tag(ctx, v, &tag, NULL)) tag = MEMPLAN_TAG_NONE;
    return tag == MEMPLAN_TAG_NONE || add(e, KEY_VALUE_TAG, copy_str(memplan_tag_name(tag)));
}

/* The body of a message at [body, end) with its entries spliced in, to o.
 * *changed: the body differs from the input's. */
static memplan_status emit_msg(splicer *s, const kind *k, uint64_t body, uint64_t end, const entries *e, sink *o,
                               bool *changed) {
    bool placed[5] = {false};
    *changed = false;
    for (uint64_t p = body; p < end;) {
        fld f;
        memplan_status st = next_field(s, &p, end, &f);
        if (st) return st;
        if (f.field == k->meta_field && f.wt == WT_LEN) {
            char buf[KEY_MAX + 2];
            const char *key;
            if ((st = entry_key(s, f.body, f.end, buf, &key))) return st;
            if (key) { /* ours: the new entry with this key takes its place, once */
                *changed = true;
                for (size_t j = 0; j < e->n; j++)
                    if (!placed[j] && strcmp(key, e->keys[j]) == 0) {
                        put_entry(s, o, k->meta_field, e->keys[j], e->vals[j]);
                        placed[j] = true;
                    }
                continue;
            }
        }
        if ((st = put_src(s, o, f.start, f.end - f.start))) return st;
    }
    for (size_t j = 0; j < e->n; j++)
        if (!placed[j]) {
            put_entry(s, o, k->meta_field, e->keys[j], e->vals[j]);
            *changed = true;
        }
    return MEMPLAN_OK;
}

/* One node, value info or initializer field f of the main graph to o: as it
 * is, or (when its entries change) with a new body and length. */
static memplan_status splice_child(splicer *s, const kind *k, const fld *f, sink *o, bool *changed) {
    mp_buf name;
    mp_buf_init(&name);
    bool named = false;
    memplan_status st = MEMPLAN_OK;
    for (uint64_t p = f->body; p < f->end && !st;) { /* its name (the last one counts) */
        fld c;
        if ((st = next_field(s, &p, f->end, &c))) break;
        if (c.field == k->name_field && c.wt == WT_LEN) {
            st = read_string(s, c.body, c.end, &name);
            named = true;
        }
    }
    entries e = {0};
    if (!st && k->node) {
        int32_t fi = s->next_node++;
        int32_t i = fi < s->n_nodes ? s->node_of[fi] : -1;
        const char *op = named ? name.data : "";
        if (i < 0 || strcmp(op, s->g->nodes[i].op_type) != 0)
            st = memplan_error_set(s->err, MEMPLAN_EINPUT, "node %d of the file is '%s', the results are for '%s'",
                                   (int)fi, op, i < 0 ? "" : s->g->nodes[i].op_type);
        else if (!node_entries(s->ctx, i, &e))
            st = oom(s);
    } else if (!st && !value_entries(s->ctx, named ? name.data : NULL, &e)) {
        st = oom(s);
    }
    mp_buf_free(&name);
    sink count = {NULL, 0, 0};
    if (!st) st = emit_msg(s, k, f->body, f->end, &e, &count, changed);
    if (!st && !*changed) {
        st = put_src(s, o, f->start, f->end - f->start);
    } else if (!st) {
        put_varint(s, o, (uint64_t)f->field << 3 | WT_LEN);
        put_varint(s, o, count.len);
        if (!o->buf) o->len += count.len;
        else st = emit_msg(s, k, f->body, f->end, &e, o, changed);
    }
    free_entries(&e);
    return st;
}

/* The body of a GraphProto at [body, end) with its children spliced, to o. */
static memplan_status emit_graph(splicer *s, uint64_t body, uint64_t end, sink *o, bool *changed) {
    *changed = false;
    for (uint64_t p = body; p < end;) {
        fld f;
        memplan_status st = next_field(s, &p, end, &f);
        if (st) return st;
        const kind *k = NULL;
        if (f.wt == WT_LEN) switch (f.field) {
            case F_GRAPH_NODE: k = &NODE; break;
            case F_GRAPH_INITIALIZER: k = &TENSOR; break;
            case F_GRAPH_INPUT: case F_GRAPH_OUTPUT: case F_GRAPH_VALUE_INFO: k = &VALUE; break;
            default: break;
            }
        bool c = false;
        st = k ? splice_child(s, k, &f, o, &c) : put_src(s, o, f.start, f.end - f.start);
        if (st) return st;
        *changed |= c;
    }
    return MEMPLAN_OK;
}

/* How many node messages the main graph has (in every occurrence of the
 * graph field, which protobuf merges); -1 when there is no graph. */
static memplan_status count_nodes(splicer *s, int64_t *count) {
    *count = -1;
    for (uint64_t p = 0; p < s->src.size;) {
        fld f;
        memplan_status st = next_field(s, &p, s->src.size, &f);
        if (st) return st;
        if (f.field != F_MODEL_GRAPH || f.wt != WT_LEN) continue;
        if (*count < 0) *count = 0;
        for (uint64_t q = f.body; q < f.end;) {
            fld c;
            if ((st = next_field(s, &q, f.end, &c))) return st;
            *count += c.field == F_GRAPH_NODE && c.wt == WT_LEN;
        }
    }
    return MEMPLAN_OK;
}

/* The whole model to o: every field as it is but the graph's. */
static memplan_status emit_model(splicer *s, sink *o) {
    s->next_node = 0;
    for (uint64_t p = 0; p < s->src.size;) {
        fld f;
        memplan_status st = next_field(s, &p, s->src.size, &f);
        if (st) return st;
        if (f.field != F_MODEL_GRAPH || f.wt != WT_LEN) {
            if ((st = put_src(s, o, f.start, f.end - f.start))) return st;
            continue;
        }
        int32_t first = s->next_node;
        sink count = {NULL, 0, 0};
        bool changed;
        if ((st = emit_graph(s, f.body, f.end, &count, &changed))) return st;
        if (!changed) {
            st = put_src(s, o, f.start, f.end - f.start);
        } else {
            put_varint(s, o, (uint64_t)F_MODEL_GRAPH << 3 | WT_LEN);
            put_varint(s, o, count.len);
            s->next_node = first;
            st = emit_graph(s, f.body, f.end, o, &changed);
        }
        if (st) return st;
    }
    return MEMPLAN_OK;
}

/* Check, count, measure, write. */
static memplan_status splice(splicer *s, size_t window, unsigned char **out, size_t *out_len) {
    /* The prune walk checks every byte as loading does (its copy, without
     * the large tensor data, is O(graph) and dropped). */
    mp_buf chk;
    mp_buf_init(&chk);
    memplan_status st = s->src.rd ? mp_prune_reader(s->src.rd, window, &chk, NULL, s->err)
                                  : mp_prune_model(s->src.mem, (size_t)s->src.size, &chk, NULL, s->err);
    mp_buf_free(&chk);
    if (st) return st;
    int64_t count;
    if ((st = count_nodes(s, &count))) return st;
    if (count < 0) return memplan_error_set(s->err, MEMPLAN_EINPUT, "the model has no graph");
    if (count != s->n_nodes)
        return memplan_error_set(s->err, MEMPLAN_EINPUT,
                                 "the results are for a graph with %d nodes, but the model's graph has %lld",
                                 (int)s->n_nodes, (long long)count);
    sink o = {NULL, 0, 0};
    if ((st = emit_model(s, &o))) return st;
    if (o.len > SIZE_MAX) return oom(s);
    o.cap = o.len;
    o.len = 0;
    o.buf = malloc(o.cap ? (size_t)o.cap : 1);
    if (!o.buf) return oom(s);
    st = emit_model(s, &o);
    if (!st && (s->overflow || o.len != o.cap))
        st = memplan_error_set(s->err, MEMPLAN_EINPUT, "the model changed while it was being annotated");
    if (st) {
        free(o.buf);
        return st;
    }
    *out = o.buf;
    *out_len = (size_t)o.len;
    return MEMPLAN_OK;
}

/* Set up the splicer over src (opened) and run it. */
static memplan_status run(mp_wire_src *src, size_t window, const memplan_inplace *ctx, unsigned char **out,
                          size_t *out_len, memplan_error *err) {
    splicer s = {0};
    s.src = *src;
    s.ctx = ctx;
    s.g = memplan_inplace_graph(ctx);
    s.err = err;
    s.n_nodes = memplan_inplace_node_count(ctx);
    s.node_of = malloc((s.n_nodes ? (size_t)s.n_nodes : 1) * sizeof *s.node_of);
    if (!s.node_of) return oom(&s);
    for (int32_t k = 0; k < s.n_nodes; k++) s.node_of[k] = -1;
    for (int32_t i = 0; i < s.n_nodes && i < s.g->n_nodes; i++) {
        int32_t fi = s.g->nodes[i].file_index;
        if (fi >= 0 && fi < s.n_nodes) s.node_of[fi] = i;
    }
    memplan_status st = splice(&s, window, out, out_len);
    free(s.node_of);
    return st;
}

memplan_status memplan_annotate(const void *bytes, size_t len, const memplan_inplace *ctx, unsigned char **out,
                                size_t *out_len, memplan_error *err) {
    if (!out || !out_len || !ctx || (!bytes && len))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "annotate: missing argument");
    *out = NULL;
    *out_len = 0;
    mp_wire_src src;
    mp_wire_open_mem(&src, bytes, len);
    return run(&src, 0, ctx, out, out_len, err);
}

memplan_status mp_annotate_reader_window(const memplan_reader *reader, size_t window, const memplan_inplace *ctx,
                                         unsigned char **out, size_t *out_len, memplan_error *err) {
    if (!out || !out_len || !ctx || !reader || !reader->read)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "annotate: missing argument");
    *out = NULL;
    *out_len = 0;
    if (window < MP_PRUNE_WINDOW_MIN) window = MP_PRUNE_WINDOW_MIN;
    mp_wire_src src;
    if (!mp_wire_open_reader(&src, reader, window))
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while annotating the model");
    memplan_status st = run(&src, window, ctx, out, out_len, err);
    mp_wire_close(&src);
    return st;
}

memplan_status memplan_annotate_reader(const memplan_reader *reader, const memplan_inplace *ctx, unsigned char **out,
                                       size_t *out_len, memplan_error *err) {
    return mp_annotate_reader_window(reader, MP_PRUNE_WINDOW, ctx, out, out_len, err);
}

/* ---- hints --------------------------------------------------------------- */

static const char *value_tag_of(Onnx__StringStringEntryProto *const *md, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (md[k]->key && strcmp(md[k]->key, KEY_VALUE_TAG) == 0) return md[k]->value ? md[k]->value : "";
    return NULL;
}

/* One hint (name, tag) when the metadata has a tag: counted, its string bytes
 * added up, and (dst given) copied. */
static void collect_one(const char *name, Onnx__StringStringEntryProto *const *md, size_t n_md,
                        memplan_tag_hint *dst, char **text, size_t *count, size_t *bytes) {
    const char *tag = value_tag_of(md, n_md);
    if (!tag || !name) return;
    size_t ln = strlen(name) + 1, lt = strlen(tag) + 1;
    if (dst) {
        memcpy(*text, name, ln);
        dst[*count].name = *text;
        memcpy(*text + ln, tag, lt);
        dst[*count].tag = *text + ln;
        *text += ln + lt;
    }
    (*count)++;
    *bytes += ln + lt;
}

/* The hints of one list of value infos. */
static void collect(Onnx__ValueInfoProto **vis, size_t n, memplan_tag_hint *dst, char **text, size_t *count,
                    size_t *bytes) {
    for (size_t k = 0; k < n; k++)
        collect_one(vis[k]->name, vis[k]->metadata_props, vis[k]->n_metadata_props, dst, text, count, bytes);
}

memplan_status memplan_read_tag_hints(const void *bytes, size_t len, memplan_tag_hint **hints, size_t *n,
                                      memplan_error *err) {
    *hints = NULL;
    *n = 0;
    mp_buf pruned;
    mp_buf_init(&pruned);
    memplan_status st = mp_prune_model(bytes, len, &pruned, NULL, err);
    Onnx__ModelProto *mp = st ? NULL : onnx__model_proto__unpack(NULL, pruned.len, (const uint8_t *)pruned.data);
    mp_buf_free(&pruned);
    if (st) return st;
    if (!mp || !mp->graph) {
        if (mp) onnx__model_proto__free_unpacked(mp, NULL);
        return memplan_error_set(err, MEMPLAN_EINPUT, "protobuf-c could not decode the bytes as an ONNX model with a graph");
    }
    const Onnx__GraphProto *gp = mp->graph;
    size_t count = 0, text_bytes = 0;
    for (int pass = 0; pass < 2; pass++) {
        memplan_tag_hint *dst = NULL;
        char *text = NULL;
        if (pass == 1) {
            if (!count) break;
            dst = malloc(count * sizeof *dst + text_bytes);
            if (!dst) {
                onnx__model_proto__free_unpacked(mp, NULL);
                return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while reading value tags");
            }
            text = (char *)(dst + count);
            *hints = dst;
            count = text_bytes = 0;
        }
        collect(gp->input, gp->n_input, dst, &text, &count, &text_bytes);
        collect(gp->output, gp->n_output, dst, &text, &count, &text_bytes);
        collect(gp->value_info, gp->n_value_info, dst, &text, &count, &text_bytes);
        for (size_t k = 0; k < gp->n_initializer; k++)
            collect_one(gp->initializer[k]->name, gp->initializer[k]->metadata_props,
                        gp->initializer[k]->n_metadata_props, dst, &text, &count, &text_bytes);
    }
    *n = count;
    onnx__model_proto__free_unpacked(mp, NULL);
    return MEMPLAN_OK;
}
