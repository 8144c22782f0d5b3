/* splice.c -- new metadata_props entries spliced into a model's wire bytes
 * (see splice.h). */
#include "onnx/splice.h"

#include <stdlib.h>
#include <string.h>

#include "onnx/prune.h"
#include "onnx/wire.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/strmap.h"

/* Field numbers (src/onnx/onnx.proto). */
#define F_MODEL_GRAPH 7
#define F_GRAPH_NODE 1
#define F_GRAPH_INITIALIZER 5
#define F_GRAPH_INPUT 11
#define F_GRAPH_OUTPUT 12
#define F_GRAPH_VALUE_INFO 13
#define F_ENTRY_KEY 1
#define F_ENTRY_VALUE 2
#define F_NODE_ATTRIBUTE 5
#define F_ATTR_F 2
#define F_ATTR_I 3
#define F_ATTR_S 4
#define F_ATTR_T 5
#define F_ATTR_G 6
#define F_ATTR_GRAPHS 11
#define F_ATTR_TYPE 20
#define ATTR_GRAPH 5 /* AttributeProto.AttributeType */
#define ATTR_GRAPHS 10

/* The messages we edit: where their name (op_type for a node) and their
 * metadata_props are. */
typedef struct kind {
    uint32_t name_field;
    uint32_t meta_field;
    bool node;
} kind;
static const kind NODE = {4, 9, true};     /* NodeProto.op_type, .metadata_props */
static const kind VALUE = {1, 4, false};   /* ValueInfoProto.name, .metadata_props */
static const kind TENSOR = {8, 16, false}; /* TensorProto.name, .metadata_props */

/* Where output goes: buf NULL only counts the bytes. */
typedef struct sink {
    uint8_t *buf;
    uint64_t len, cap;
} sink;

/* One field: the tag at start, a LEN field's body at [body, end). */
typedef struct fld {
    uint64_t start, body, end;
    uint32_t field;
    int wt;
} fld;

typedef struct splicer {
    mp_wire_src src;
    size_t window;            /* the prune walk's, for a reader */
    const mp_splice_edits *e; /* the graph being walked: the main graph's edits or a body's */
    mp_strmap names;          /* name -> index in e->names (the first one) */
    size_t key_max;           /* the longest key of any edit */
    char *key;                /* key_max + 2 bytes: the key being matched */
    bool *placed;             /* per set entry of the message being written, set_max per depth */
    size_t set_max;
    int depth;          /* of the graph being walked: 0 main, bodies nest in their nodes */
    int32_t next_node;  /* file index of the next node message in e's graph */
    fld *node_fld;      /* with node_order: each node message of e's graph, by file index */
    bool nodes_written; /* with node_order: the reordered nodes are out */
    bool overflow;      /* the input changed between walks */
    mp_buf name;        /* the name of the child being spliced */
    struct tape *tape;  /* what the measuring walk found, for the writing walk */
    size_t n_tape, cap_tape, tape_pos;
    memplan_error *err;
} splicer;

/* One message the measuring walk rewrote or left alone (a node, value info
 * or initializer, a node's graph attribute, a body's or the main graph), in
 * the order both walks meet them: the writing walk takes its new length from
 * here rather than measuring it again, and skips what is left alone. */
typedef struct tape {
    uint64_t len;  /* the new body's length */
    size_t end;    /* the entry after those of the messages inside it */
    int32_t after; /* the walk's counter after it: the next body (attribute) or node (graph) */
    bool changed;
    bool written; /* a graph's nodes_written after it */
} tape;

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
    default: return mp_wire_error(s->err, f->start, "invalid wire type");
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

/* The body of the LEN field f, edited, to o; *changed: it differs from the input's. */
typedef memplan_status (*body_fn)(splicer *s, const void *arg, const fld *f, sink *o, bool *changed);

/* LEN field f to o through fn: as it is, or (when fn changes its body) with
 * the new body and length. The measuring walk (o counts only) runs fn into
 * a count and notes the result on the tape; the writing walk takes it from
 * there, so fn runs once per walk. *counter and *written (NULL: none) are
 * what fn advances, set as it would leave them when the field is skipped. */
static memplan_status splice_field(splicer *s, const fld *f, body_fn fn, const void *arg, sink *o, bool *changed,
                                   int32_t *counter, bool *written) {
    memplan_status st;
    *changed = false;
    if (!o->buf) {
        size_t i = s->n_tape;
        if (s->n_tape == s->cap_tape) {
            size_t cap = s->cap_tape ? s->cap_tape * 2 : 256;
            tape *t = cap < SIZE_MAX / sizeof *t ? realloc(s->tape, cap * sizeof *t) : NULL;
            if (!t) return oom(s);
            s->tape = t;
            s->cap_tape = cap;
        }
        s->n_tape++;
        sink count = {NULL, 0, 0};
        if ((st = fn(s, arg, f, &count, changed))) return st;
        s->tape[i] = (tape){count.len, s->n_tape, counter ? *counter : 0, *changed, written && *written};
        if (!*changed) return put_src(s, o, f->start, f->end - f->start);
        put_varint(s, o, (uint64_t)f->field << 3 | WT_LEN);
        put_varint(s, o, count.len);
        o->len += count.len;
        return MEMPLAN_OK;
    }
    if (s->tape_pos >= s->n_tape) { /* the walks disagree: the input changed */
        s->overflow = true;
        return MEMPLAN_OK;
    }
    const tape *t = &s->tape[s->tape_pos++];
    *changed = t->changed;
    if (!t->changed) {
        s->tape_pos = t->end;
        if (counter) *counter = t->after;
        if (written) *written = t->written;
        return put_src(s, o, f->start, f->end - f->start);
    }
    put_varint(s, o, (uint64_t)f->field << 3 | WT_LEN);
    put_varint(s, o, t->len);
    uint64_t from = o->len;
    bool c;
    if ((st = fn(s, arg, f, o, &c))) return st;
    if (!c || o->len - from != t->len || s->tape_pos != t->end) s->overflow = true;
    return MEMPLAN_OK;
}

/* A StringStringEntryProto (key, value) as field `field` of its message. */
static void put_entry(splicer *s, sink *o, uint32_t field, const memplan_kv *kv) {
    size_t kl = strlen(kv->key), vl = strlen(kv->value);
    uint8_t tmp[10];
    uint64_t body = 1 + mp_wire_encode_varint(tmp, kl) + kl + 1 + mp_wire_encode_varint(tmp, vl) + vl;
    put_varint(s, o, (uint64_t)field << 3 | WT_LEN);
    put_varint(s, o, body);
    put_varint(s, o, F_ENTRY_KEY << 3 | WT_LEN);
    put_varint(s, o, kl);
    put(s, o, kv->key, kl);
    put_varint(s, o, F_ENTRY_VALUE << 3 | WT_LEN);
    put_varint(s, o, vl);
    put(s, o, kv->value, vl);
}

/* Does the edit set or remove this key? */
static bool matches(const mp_meta_edit *e, const char *key) {
    for (size_t j = 0; j < e->n_set; j++)
        if (strcmp(key, e->set[j].key) == 0) return true;
    for (size_t j = 0; j < e->n_remove; j++)
        if (strcmp(key, e->remove[j]) == 0) return true;
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

/* The key of the StringStringEntryProto at [body, end) when the edit matches
 * it (the last key field counts, as when unpacked), else NULL in *key. */
static memplan_status entry_key(splicer *s, const mp_meta_edit *e, uint64_t body, uint64_t end, const char **key) {
    *key = NULL;
    for (uint64_t p = body; p < end;) {
        fld f = {0};
        memplan_status st = next_field(s, &p, end, &f);
        if (st) return st;
        if (f.field != F_ENTRY_KEY || f.wt != WT_LEN) continue;
        /* Longer than every key of the edits (before any NUL): no match;
         * read at most one byte more. */
        uint64_t n = f.end - f.body < s->key_max + 1 ? f.end - f.body : s->key_max + 1;
        if ((st = read_bytes(s, f.body, n, (uint8_t *)s->key))) return st;
        s->key[n] = '\0';
        *key = strlen(s->key) <= s->key_max ? s->key : NULL;
    }
    if (*key && !matches(e, *key)) *key = NULL;
    return MEMPLAN_OK;
}

static memplan_status emit_graph(splicer *s, uint64_t body, uint64_t end, sink *o, bool *changed);
static memplan_status emit_attr(splicer *s, const fld *f, const mp_splice_bodies *b, int32_t *next, sink *o,
                                bool *changed);

/* The body of a message at [body, end) with its edit applied, to o; for a
 * node with body edits b (else NULL), its attributes' graphs edited too.
 * *changed: the body differs from the input's. */
static memplan_status emit_msg(splicer *s, const kind *k, uint64_t body, uint64_t end, const mp_meta_edit *e,
                               const mp_splice_bodies *b, sink *o, bool *changed) {
    *changed = false;
    bool *placed = s->placed + (size_t)s->depth * s->set_max; /* a body's messages nest inside this one */
    for (size_t j = 0; j < e->n_set; j++) placed[j] = false;
    int32_t next_body = 0;
    for (uint64_t p = body; p < end;) {
        fld f = {0};
        memplan_status st = next_field(s, &p, end, &f);
        if (st) return st;
        if (b && f.field == F_NODE_ATTRIBUTE && f.wt == WT_LEN) {
            bool c;
            if ((st = emit_attr(s, &f, b, &next_body, o, &c))) return st;
            *changed |= c;
            continue;
        }
        if (f.field == k->meta_field && f.wt == WT_LEN) {
            const char *key;
            if ((st = entry_key(s, e, f.body, f.end, &key))) return st;
            if (key) { /* the new entries with this key take its place, once */
                *changed = true;
                for (size_t j = 0; j < e->n_set; j++)
                    if (!placed[j] && strcmp(key, e->set[j].key) == 0) {
                        put_entry(s, o, k->meta_field, &e->set[j]);
                        placed[j] = true;
                    }
                continue;
            }
        }
        if ((st = put_src(s, o, f.start, f.end - f.start))) return st;
    }
    for (size_t j = 0; j < e->n_set; j++)
        if (!placed[j]) {
            put_entry(s, o, k->meta_field, &e->set[j]);
            *changed = true;
        }
    if (b && next_body != b->n)
        return memplan_error_set(s->err, MEMPLAN_EINPUT, "a node has %d bodies, the results are for %d", (int)next_body,
                                 (int)b->n);
    return MEMPLAN_OK;
}

/* The edit of a message whose name (op_type for a node) is `name` (NULL:
 * none); NULL when it is left alone. */
static memplan_status edit_of(splicer *s, const kind *k, const char *name, const mp_meta_edit **e,
                              const mp_splice_bodies **b) {
    const mp_splice_edits *E = s->e;
    *e = NULL;
    *b = NULL;
    if (!k->node) {
        int32_t i = name ? mp_strmap_get(&s->names, name) : -1;
        *e = i >= 0 ? &E->values[i] : E->other;
        return MEMPLAN_OK;
    }
    int32_t fi = s->next_node++;
    const char *op = name ? name : "";
    const char *want = fi < E->n_nodes ? (E->op_types ? E->op_types[fi] : op) : NULL;
    if (!want || strcmp(op, want) != 0)
        return memplan_error_set(s->err, MEMPLAN_EINPUT, "node %d of the file is '%s', the results are for '%s'",
                                 (int)fi, op, want ? want : "");
    *e = &E->nodes[fi];
    if (E->bodies && E->bodies[fi].n) *b = &E->bodies[fi];
    return MEMPLAN_OK;
}

/* emit_msg as a body_fn. */
typedef struct msg_arg {
    const kind *k;
    const mp_meta_edit *e;
    const mp_splice_bodies *b;
} msg_arg;

static memplan_status msg_body(splicer *s, const void *arg, const fld *f, sink *o, bool *changed) {
    const msg_arg *m = arg;
    return emit_msg(s, m->k, f->body, f->end, m->e, m->b, o, changed);
}

/* One node, value info or initializer field f of the main graph to o: as it
 * is, or (when its edit changes it) with a new body and length. */
static memplan_status splice_child(splicer *s, const kind *k, const fld *f, sink *o, bool *changed) {
    mp_buf name = s->name; /* done with before the walk goes inside f */
    bool named = false;
    memplan_status st = MEMPLAN_OK;
    for (uint64_t p = f->body; p < f->end && !st;) { /* its name (the last one counts) */
        fld c = {0};
        if ((st = next_field(s, &p, f->end, &c))) break;
        if (c.field == k->name_field && c.wt == WT_LEN) {
            st = read_string(s, c.body, c.end, &name);
            named = true;
        }
    }
    static const mp_meta_edit NO_EDIT = {NULL, 0, NULL, 0};
    const mp_meta_edit *e = NULL;
    const mp_splice_bodies *b = NULL;
    if (!st) st = edit_of(s, k, named ? name.data : NULL, &e, &b);
    s->name = name;
    if (!e && b) e = &NO_EDIT;
    *changed = false;
    if (st || !e) return st ? st : put_src(s, o, f->start, f->end - f->start);
    msg_arg m = {k, e, b};
    return splice_field(s, f, msg_body, &m, o, changed, NULL, NULL);
}

/* With node_order: at the first node message of the graph, every node in the
 * new order (each spliced as usual); nothing at the others. */
static memplan_status emit_nodes(splicer *s, sink *o) {
    if (s->nodes_written) return MEMPLAN_OK;
    s->nodes_written = true;
    for (int32_t i = 0; i < s->e->n_nodes; i++) {
        int32_t fi = s->e->node_order[i];
        bool c;
        s->next_node = fi;
        memplan_status st = splice_child(s, &NODE, &s->node_fld[fi], o, &c);
        if (st) return st;
    }
    s->next_node = s->e->n_nodes;
    return MEMPLAN_OK;
}

/* The body of a GraphProto at [body, end) with its children spliced, to o. */
static memplan_status emit_graph(splicer *s, uint64_t body, uint64_t end, sink *o, bool *changed) {
    *changed = false;
    for (uint64_t p = body; p < end;) {
        fld f = {0};
        memplan_status st = next_field(s, &p, end, &f);
        if (st) return st;
        const kind *k = NULL;
        if (f.wt == WT_LEN) switch (f.field) {
            case F_GRAPH_NODE: k = &NODE; break;
            case F_GRAPH_INITIALIZER: k = &TENSOR; break;
            case F_GRAPH_INPUT:
            case F_GRAPH_OUTPUT:
            case F_GRAPH_VALUE_INFO: k = &VALUE; break;
            default: break;
            }
        bool c = false;
        if (k == &NODE && s->e->node_order) {
            st = emit_nodes(s, o);
            *changed = true;
            if (st) return st;
            continue;
        }
        st = k ? splice_child(s, k, &f, o, &c) : put_src(s, o, f.start, f.end - f.start);
        if (st) return st;
        *changed |= c;
    }
    return MEMPLAN_OK;
}

/* Walking into a body: its edits, their value names, a node count of its
 * own and, with a node order, its node messages; the outer graph's, saved,
 * come back with leave_body. */
typedef struct outer {
    const mp_splice_edits *e;
    mp_strmap names;
    int32_t next_node;
    fld *node_fld;
    bool nodes_written;
} outer;

static memplan_status check_order(splicer *s, const mp_splice_edits *e);

/* The node messages of the graph in the GraphProto fields of attribute f
 * (every `g` when merged, else the GRAPHS entry c only), by file index:
 * exactly e->n_nodes of them. */
static memplan_status body_nodes(splicer *s, const mp_splice_edits *e, const fld *f, bool merged, const fld *c) {
    int32_t count = 0;
    uint64_t to = merged ? f->end : c->end;
    for (uint64_t p = merged ? f->body : c->start; p < to;) {
        fld g = {0};
        memplan_status st = next_field(s, &p, to, &g);
        if (st) return st;
        if (g.wt != WT_LEN || g.field != (merged ? F_ATTR_G : F_ATTR_GRAPHS)) continue;
        for (uint64_t q = g.body; q < g.end;) {
            fld n = {0};
            if ((st = next_field(s, &q, g.end, &n))) return st;
            if (n.field != F_GRAPH_NODE || n.wt != WT_LEN) continue;
            if (count < e->n_nodes) s->node_fld[count] = n;
            count++;
        }
    }
    if (count != e->n_nodes)
        return memplan_error_set(s->err, MEMPLAN_EINPUT, "a body has %d nodes, the results are for %d", (int)count,
                                 (int)e->n_nodes);
    return MEMPLAN_OK;
}

static memplan_status enter_body(splicer *s, const mp_splice_edits *e, const fld *f, bool merged, const fld *c,
                                 outer *saved) {
    *saved = (outer){s->e, s->names, s->next_node, s->node_fld, s->nodes_written};
    s->e = e;
    s->next_node = 0;
    s->node_fld = NULL;
    s->nodes_written = false;
    s->depth++;
    mp_strmap_init(&s->names);
    for (size_t i = 0; i < e->n_values; i++)
        if (mp_strmap_get(&s->names, e->names[i]) < 0 && !mp_strmap_put(&s->names, e->names[i], (int32_t)i))
            return oom(s);
    memplan_status st = e->node_order ? check_order(s, e) : MEMPLAN_OK;
    return st ? st : e->node_order ? body_nodes(s, e, f, merged, c) : MEMPLAN_OK;
}

/* Back to the outer graph; an error when the body had fewer nodes than its
 * edits (more is caught node by node, in edit_of). */
static memplan_status leave_body(splicer *s, outer *saved, memplan_status st) {
    if (!st && s->next_node != s->e->n_nodes)
        st = memplan_error_set(s->err, MEMPLAN_EINPUT, "a body has %d nodes, the results are for %d", (int)s->next_node,
                               (int)s->e->n_nodes);
    mp_strmap_free(&s->names);
    free(s->node_fld);
    s->e = saved->e;
    s->names = saved->names;
    s->next_node = saved->next_node;
    s->node_fld = saved->node_fld;
    s->nodes_written = saved->nodes_written;
    s->depth--;
    return st;
}

/* One GraphProto field f of a body to o: as it is, or rewritten when its
 * messages change. Node numbering goes on across the occurrences of one
 * graph (the caller entered the body). */
static memplan_status graph_body(splicer *s, const void *arg, const fld *f, sink *o, bool *changed) {
    (void)arg;
    return emit_graph(s, f->body, f->end, o, changed);
}

static memplan_status emit_body_graph(splicer *s, const fld *f, sink *o, bool *changed) {
    return splice_field(s, f, graph_body, NULL, o, changed, &s->next_node, &s->nodes_written);
}

/* The attribute type as loading reads it: the type field (the last one),
 * or, when it is absent (IR version 1), the first kind of value present in
 * loading's order (g, t, s, i, f, then graphs). */
static memplan_status attr_type(splicer *s, const fld *f, uint64_t *type) {
    bool g = false, scalar = false, graphs = false, io = false;
    *type = 0;
    for (uint64_t p = f->body; p < f->end;) {
        fld c = {0};
        memplan_status st = next_field(s, &p, f->end, &c);
        if (st) return st;
        if (c.field == F_ATTR_TYPE && c.wt == WT_VARINT) {
            uint64_t q = c.start, tag;
            if (!mp_wire_varint(&s->src, &q, c.end, &tag, &io) || !mp_wire_varint(&s->src, &q, c.end, type, &io))
                return io ? io_error(s) : mp_wire_error(s->err, c.start, "truncated varint");
        }
        g |= c.field == F_ATTR_G;
        scalar |= c.field == F_ATTR_T || c.field == F_ATTR_S || c.field == F_ATTR_I || c.field == F_ATTR_F;
        graphs |= c.field == F_ATTR_GRAPHS;
    }
    if (*type == 0) *type = g ? ATTR_GRAPH : !scalar && graphs ? ATTR_GRAPHS : 0;
    return MEMPLAN_OK;
}

/* The body of AttributeProto f to o: its graphs edited by b->graphs from
 * *next on (advanced past them). */
static memplan_status emit_attr_body(splicer *s, const fld *f, uint64_t type, const mp_splice_bodies *b, int32_t *next,
                                     sink *o, bool *changed) {
    *changed = false;
    bool merged = type == ATTR_GRAPH; /* every `g` field is one graph */
    outer saved = {0};
    bool entered = false;
    memplan_status st = MEMPLAN_OK;
    for (uint64_t p = f->body; p < f->end && !st;) {
        fld c = {0};
        if ((st = next_field(s, &p, f->end, &c))) break;
        bool graph = c.wt == WT_LEN && (merged ? c.field == F_ATTR_G : c.field == F_ATTR_GRAPHS);
        if (!graph) {
            st = put_src(s, o, c.start, c.end - c.start);
            continue;
        }
        if (!entered) {
            if (*next >= b->n)
                return memplan_error_set(s->err, MEMPLAN_EINPUT, "a node has more bodies than the results give (%d)",
                                         (int)b->n);
            entered = true;
            if ((st = enter_body(s, &b->graphs[*next], f, merged, &c, &saved))) break;
        }
        bool cg = false;
        st = emit_body_graph(s, &c, o, &cg);
        *changed |= cg;
        if (!merged) { /* each entry of GRAPHS is a graph of its own */
            st = leave_body(s, &saved, st);
            entered = false;
            (*next)++;
        }
    }
    if (entered) {
        st = leave_body(s, &saved, st);
        (*next)++;
    }
    return st;
}

/* emit_attr_body as a body_fn. */
typedef struct attr_arg {
    uint64_t type;
    const mp_splice_bodies *b;
    int32_t *next;
} attr_arg;

static memplan_status attr_body(splicer *s, const void *arg, const fld *f, sink *o, bool *changed) {
    const attr_arg *a = arg;
    return emit_attr_body(s, f, a->type, a->b, a->next, o, changed);
}

/* AttributeProto field f of a node with body edits b to o: as it is unless
 * one of its graphs changes. */
static memplan_status emit_attr(splicer *s, const fld *f, const mp_splice_bodies *b, int32_t *next, sink *o,
                                bool *changed) {
    uint64_t type;
    *changed = false;
    memplan_status st = attr_type(s, f, &type);
    if (st) return st;
    if (type != ATTR_GRAPH && type != ATTR_GRAPHS) return put_src(s, o, f->start, f->end - f->start);
    if (s->depth >= MEMPLAN_MAX_GRAPH_DEPTH)
        return memplan_error_set(s->err, MEMPLAN_ELIMIT, "subgraphs nested deeper than %d levels",
                                 MEMPLAN_MAX_GRAPH_DEPTH);
    attr_arg a = {type, b, next};
    return splice_field(s, f, attr_body, &a, o, changed, next, NULL);
}

/* How many node messages the main graph has (in every occurrence of the
 * graph field, which protobuf merges); -1 when there is no graph. With
 * node_order, where the first n_nodes of them are. */
static memplan_status count_nodes(splicer *s, int64_t *count) {
    *count = -1;
    for (uint64_t p = 0; p < s->src.size;) {
        fld f = {0};
        memplan_status st = next_field(s, &p, s->src.size, &f);
        if (st) return st;
        if (f.field != F_MODEL_GRAPH || f.wt != WT_LEN) continue;
        if (*count < 0) *count = 0;
        for (uint64_t q = f.body; q < f.end;) {
            fld c = {0};
            if ((st = next_field(s, &q, f.end, &c))) return st;
            if (c.field != F_GRAPH_NODE || c.wt != WT_LEN) continue;
            if (s->node_fld && *count < s->e->n_nodes) s->node_fld[*count] = c;
            ++*count;
        }
    }
    return MEMPLAN_OK;
}

/* The whole model to o: every field as it is but the graph's. */
static memplan_status emit_model(splicer *s, sink *o) {
    s->next_node = 0;
    s->nodes_written = false;
    s->tape_pos = 0;
    for (uint64_t p = 0; p < s->src.size;) {
        fld f = {0};
        memplan_status st = next_field(s, &p, s->src.size, &f);
        if (st) return st;
        if (f.field != F_MODEL_GRAPH || f.wt != WT_LEN) {
            if ((st = put_src(s, o, f.start, f.end - f.start))) return st;
            continue;
        }
        bool changed;
        if ((st = splice_field(s, &f, graph_body, NULL, o, &changed, &s->next_node, &s->nodes_written))) return st;
    }
    return MEMPLAN_OK;
}

/* Check, count, measure, write. */
static memplan_status walk(splicer *s, unsigned char **out, size_t *out_len) {
    /* The prune walk checks every byte as loading does (and copies none). */
    memplan_status st = s->src.rd ? mp_prune_reader(s->src.rd, s->window, NULL, NULL, s->err)
                                  : mp_prune_model(s->src.mem, (size_t)s->src.size, NULL, NULL, s->err);
    if (st) return st;
    int64_t count;
    if ((st = count_nodes(s, &count))) return st;
    if (count < 0) return memplan_error_set(s->err, MEMPLAN_EINPUT, "the model has no graph");
    if (count != s->e->n_nodes)
        return memplan_error_set(s->err, MEMPLAN_EINPUT,
                                 "the results are for a graph with %d nodes, but the model's graph has %lld",
                                 (int)s->e->n_nodes, (long long)count);
    sink o = {NULL, 0, 0};
    if ((st = emit_model(s, &o))) return st;
    if (o.len > SIZE_MAX)
        return memplan_error_set(s->err, MEMPLAN_ENOMEM,
                                 "the annotated model would be %llu bytes: more than one block can hold here (%zu "
                                 "bytes)%s",
                                 (unsigned long long)o.len, (size_t)SIZE_MAX, MP_ALLOC_LIMIT_NOTE);
    o.cap = o.len;
    o.len = 0;
    o.buf = mp_alloc_large((size_t)o.cap);
    if (!o.buf)
        return memplan_error_set(s->err, MEMPLAN_ENOMEM,
                                 "out of memory: the annotated model needs one block of %llu bytes%s",
                                 (unsigned long long)o.cap, MP_ALLOC_LIMIT_NOTE);
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

/* The longest key and the most set entries of one edit, over *key_max, *set_max. */
static void measure(const mp_meta_edit *e, size_t *key_max, size_t *set_max) {
    if (!e) return;
    for (size_t j = 0; j < e->n_set; j++) {
        size_t n = strlen(e->set[j].key);
        if (n > *key_max) *key_max = n;
    }
    for (size_t j = 0; j < e->n_remove; j++) {
        size_t n = strlen(e->remove[j]);
        if (n > *key_max) *key_max = n;
    }
    if (e->n_set > *set_max) *set_max = e->n_set;
}

/* measure() over a graph's edits and its bodies', to the depth loading allows. */
static void measure_graph(const mp_splice_edits *e, int depth, size_t *key_max, size_t *set_max) {
    for (int32_t i = 0; i < e->n_nodes; i++) measure(&e->nodes[i], key_max, set_max);
    for (size_t i = 0; i < e->n_values; i++) measure(&e->values[i], key_max, set_max);
    measure(e->other, key_max, set_max);
    for (int32_t i = 0; e->bodies && depth < MEMPLAN_MAX_GRAPH_DEPTH && i < e->n_nodes; i++)
        for (int32_t k = 0; k < e->bodies[i].n; k++)
            measure_graph(&e->bodies[i].graphs[k], depth + 1, key_max, set_max);
}

/* e's node_order is a permutation; room for the node messages' places. */
static memplan_status check_order(splicer *s, const mp_splice_edits *e) {
    int32_t n = e->n_nodes;
    bool *seen = calloc((size_t)n + 1, 1);
    s->node_fld = calloc((size_t)n + 1, sizeof *s->node_fld);
    if (!seen || !s->node_fld) {
        free(seen);
        return oom(s);
    }
    memplan_status st = MEMPLAN_OK;
    for (int32_t i = 0; i < n && !st; i++) {
        int32_t fi = e->node_order[i];
        if (fi < 0 || fi >= n || seen[fi])
            st = memplan_error_set(s->err, MEMPLAN_EUSAGE, "the node order is not a permutation (entry %d)", (int)i);
        else
            seen[fi] = true;
    }
    free(seen);
    return st;
}

/* Index the edits, then walk src (opened). */
static memplan_status run(mp_wire_src *src, size_t window, const mp_splice_edits *e, unsigned char **out,
                          size_t *out_len, memplan_error *err) {
    splicer s = {0};
    s.src = *src;
    s.window = window;
    s.e = e;
    s.err = err;
    mp_strmap_init(&s.names);
    mp_buf_init(&s.name);
    size_t set_max = 0;
    measure_graph(e, 0, &s.key_max, &set_max);
    memplan_status st = e->n_values > INT32_MAX
                            ? memplan_error_set(err, MEMPLAN_ELIMIT, "more than %d value edits", INT32_MAX)
                            : MEMPLAN_OK;
    for (size_t i = 0; !st && i < e->n_values; i++)
        if (mp_strmap_get(&s.names, e->names[i]) < 0 && !mp_strmap_put(&s.names, e->names[i], (int32_t)i)) st = oom(&s);
    s.key = malloc(s.key_max + 2);
    s.set_max = set_max;
    s.placed = malloc(set_max ? set_max * (MEMPLAN_MAX_GRAPH_DEPTH + 1) * sizeof *s.placed : 1);
    if (!st && (!s.key || !s.placed)) st = oom(&s);
    if (!st && e->node_order) st = check_order(&s, e);
    if (!st) st = walk(&s, out, out_len);
    free(s.key);
    free(s.placed);
    free(s.node_fld);
    free(s.tape);
    mp_buf_free(&s.name);
    mp_strmap_free(&s.names);
    return st;
}

memplan_status mp_splice(const void *bytes, size_t len, const mp_splice_edits *edits, unsigned char **out,
                         size_t *out_len, memplan_error *err) {
    *out = NULL;
    *out_len = 0;
    mp_wire_src src;
    mp_wire_open_mem(&src, bytes, len);
    return run(&src, 0, edits, out, out_len, err);
}

memplan_status mp_splice_reader(const memplan_reader *reader, size_t window, const mp_splice_edits *edits,
                                unsigned char **out, size_t *out_len, memplan_error *err) {
    *out = NULL;
    *out_len = 0;
    if (window < MP_PRUNE_WINDOW_MIN) window = MP_PRUNE_WINDOW_MIN;
    mp_wire_src src;
    if (!mp_wire_open_reader(&src, reader, window))
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while annotating the model");
    memplan_status st = run(&src, window, edits, out, out_len, err);
    mp_wire_close(&src);
    return st;
}
