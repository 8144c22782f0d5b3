/*
 * annotate.c -- write the seed-001 results into a model (SEMANTICS §9), and
 * read the value-tag hints a model carries.
 *
 * The original bytes are unpacked completely by protobuf-c (no pruning, so
 * weights survive; unknown fields are kept and packed again). The new
 * metadata entries are spliced in by swapping each touched metadata_props
 * array for a larger copy that we own, packing, and swapping back before the
 * protobuf-c tree is freed: protobuf-c never frees memory it did not allocate.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/inplace.h"
#include "onnx.pb-c.h"
#include "onnx/prune.h"
#include "util/buf.h"

#define KEY_REUSE "onnx_light.inplace_reuse"
#define KEY_RELEASE "onnx_light.release_after"
#define KEY_NOT_USED "onnx_light.not_used_after"
#define KEY_SHAPE_TAG "onnx_light.release_after_shape_tag"
#define KEY_NODE_TAG "onnx_light.node_tag"
#define KEY_VALUE_TAG "onnx_light.value_tag"

/* One swapped metadata_props field: restored before the tree is freed. */
typedef struct patch {
    Onnx__StringStringEntryProto ***field;
    size_t *count;
    Onnx__StringStringEntryProto **old_arr;
    size_t old_n;
} patch;

typedef struct annotator {
    patch *patches;
    size_t n_patches, cap_patches;
    void **owned;                 /* our entries, arrays and strings */
    size_t n_owned, cap_owned;
    ProtobufCBinaryData **empties; /* empty bytes fields pointed at NO_BYTES */
    size_t n_empties, cap_empties;
    bool failed;
} annotator;

static void *own(annotator *a, void *p) {
    if (!p) {
        a->failed = true;
        return NULL;
    }
    if (a->n_owned == a->cap_owned) {
        size_t cap = a->cap_owned ? a->cap_owned * 2 : 64;
        void **o = realloc(a->owned, cap * sizeof *o);
        if (!o) {
            free(p);
            a->failed = true;
            return NULL;
        }
        a->owned = o;
        a->cap_owned = cap;
    }
    a->owned[a->n_owned++] = p;
    return p;
}

/* Start patching a metadata_props field: swap in a copy with room for `extra`. */
static bool begin_patch(annotator *a, Onnx__StringStringEntryProto ***field, size_t *count, size_t extra) {
    if (a->n_patches == a->cap_patches) {
        size_t cap = a->cap_patches ? a->cap_patches * 2 : 64;
        patch *p = realloc(a->patches, cap * sizeof *p);
        if (!p) return !(a->failed = true);
        a->patches = p;
        a->cap_patches = cap;
    }
    Onnx__StringStringEntryProto **arr = own(a, malloc((*count + extra) * sizeof *arr));
    if (!arr) return false;
    if (*count) memcpy(arr, *field, *count * sizeof *arr);
    a->patches[a->n_patches++] = (patch){field, count, *field, *count};
    *field = arr;
    return true;
}

/* Replace the first entry with this key in place, else append (room was made). */
static void put_entry(annotator *a, Onnx__StringStringEntryProto **arr, size_t *count, const char *key,
                      char *value) {
    Onnx__StringStringEntryProto *e = own(a, malloc(sizeof *e));
    if (!e) return;
    onnx__string_string_entry_proto__init(e);
    e->key = (char *)key;
    e->value = value;
    for (size_t j = 0; j < *count; j++)
        if (arr[j]->key && strcmp(arr[j]->key, key) == 0) {
            arr[j] = e;
            return;
        }
    arr[(*count)++] = e;
}

/* One of the keys this file writes? */
static bool is_ours(const char *key) {
    static const char *const OURS[] = {KEY_REUSE, KEY_RELEASE, KEY_NOT_USED, KEY_SHAPE_TAG, KEY_NODE_TAG, KEY_VALUE_TAG};
    for (size_t i = 0; key && i < sizeof OURS / sizeof OURS[0]; i++)
        if (strcmp(key, OURS[i]) == 0) return true;
    return false;
}

/* Any entry with one of our keys (from an earlier annotation)? */
static bool has_ours(Onnx__StringStringEntryProto *const *arr, size_t n) {
    for (size_t j = 0; j < n; j++)
        if (is_ours(arr[j]->key)) return true;
    return false;
}

/* Drop the entries with our keys that are not among keys[0..n): an earlier
 * annotation's claims these results no longer make. */
static void drop_stale(Onnx__StringStringEntryProto **arr, size_t *count, const char *const *keys, size_t n) {
    size_t kept = 0;
    for (size_t j = 0; j < *count; j++) {
        bool stale = is_ours(arr[j]->key);
        for (size_t k = 0; stale && k < n; k++) stale = strcmp(arr[j]->key, keys[k]) != 0;
        if (!stale) arr[kept++] = arr[j];
    }
    *count = kept;
}

/* protobuf-c packs a bytes field with memcpy(out, data, len), and decodes an
 * empty one (an empty tensor's raw_data, say) as data NULL, len 0: memcpy
 * from NULL is undefined even for 0 bytes. So before packing, every empty
 * bytes field of the message tree points at a static byte; restore() puts
 * NULL back before protobuf-c frees the tree. The walk follows the
 * descriptors (set oneof members only); nesting depth was checked on load. */
static const uint8_t NO_BYTES[1];

static void mark_empty(annotator *a, ProtobufCBinaryData *bd) {
    if (bd->len || bd->data) return;
    if (a->n_empties == a->cap_empties) {
        size_t cap = a->cap_empties ? a->cap_empties * 2 : 16;
        ProtobufCBinaryData **p = realloc(a->empties, cap * sizeof *p);
        if (!p) {
            a->failed = true;
            return;
        }
        a->empties = p;
        a->cap_empties = cap;
    }
    a->empties[a->n_empties++] = bd;
    bd->data = (uint8_t *)NO_BYTES;
}

static void fill_empty_bytes(annotator *a, ProtobufCMessage *m) {
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields && !a->failed; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_BYTES && f->type != PROTOBUF_C_TYPE_MESSAGE) continue;
        char *member = (char *)m + f->offset;
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            uint32_t set;
            memcpy(&set, (char *)m + f->quantifier_offset, sizeof set);
            if (set != f->id) continue;
        }
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n;
            void *arr;
            memcpy(&n, (char *)m + f->quantifier_offset, sizeof n);
            memcpy(&arr, member, sizeof arr);
            for (size_t k = 0; k < n && !a->failed; k++) {
                if (f->type == PROTOBUF_C_TYPE_BYTES) mark_empty(a, &((ProtobufCBinaryData *)arr)[k]);
                else if (((ProtobufCMessage **)arr)[k]) fill_empty_bytes(a, ((ProtobufCMessage **)arr)[k]);
            }
        } else if (f->type == PROTOBUF_C_TYPE_BYTES) {
            mark_empty(a, (ProtobufCBinaryData *)member);
        } else {
            ProtobufCMessage *sub;
            memcpy(&sub, member, sizeof sub);
            if (sub) fill_empty_bytes(a, sub);
        }
    }
}

static void restore(annotator *a) {
    for (size_t i = 0; i < a->n_empties; i++) a->empties[i]->data = NULL;
    free(a->empties);
    for (size_t i = a->n_patches; i-- > 0;) {
        *a->patches[i].field = a->patches[i].old_arr;
        *a->patches[i].count = a->patches[i].old_n;
    }
    for (size_t i = 0; i < a->n_owned; i++) free(a->owned[i]);
    free(a->owned);
    free(a->patches);
}

/* Names of value ids joined by ';' (owned), or NULL when the list is empty.
 * A ';' or '\\' inside a name is written with a '\\' before it, so a name
 * with ';' in it reads back as one name. */
static char *join_names(annotator *a, const memplan_graph *g, const int32_t *ids, size_t n) {
    if (!n) return NULL;
    mp_buf b;
    mp_buf_init(&b);
    for (size_t k = 0; k < n; k++) {
        if (k) mp_buf_putc(&b, ';');
        for (const char *c = g->values[ids[k]].name; *c; c++) {
            if (*c == ';' || *c == '\\') mp_buf_putc(&b, '\\');
            mp_buf_putc(&b, *c);
        }
    }
    if (b.failed) {
        mp_buf_free(&b);
        a->failed = true;
        return NULL;
    }
    size_t len;
    return own(a, mp_buf_take(&b, &len));
}

static char *copy_str(annotator *a, const char *s) {
    size_t n = strlen(s) + 1;
    char *p = own(a, malloc(n));
    if (p) memcpy(p, s, n);
    return p;
}

/* The (key, value) pairs of node i; returns how many (at most 5). */
static size_t node_entries(annotator *a, const memplan_inplace *ctx, int32_t i, const char **keys, char **vals) {
    const memplan_graph *g = memplan_inplace_graph(ctx);
    size_t cnt = 0, n;
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
        keys[cnt] = KEY_REUSE;
        vals[cnt++] = b.failed ? (mp_buf_free(&b), a->failed = true, NULL) : own(a, mp_buf_take(&b, &len));
    }
    memplan_inplace_release_after(ctx, i, &ids, &n, NULL);
    if (n) keys[cnt] = KEY_RELEASE, vals[cnt++] = join_names(a, g, ids, n);
    memplan_inplace_not_used_after(ctx, i, &ids, &n, NULL);
    if (n) keys[cnt] = KEY_NOT_USED, vals[cnt++] = join_names(a, g, ids, n);
    if (memplan_inplace_has_tags(ctx)) {
        memplan_inplace_release_after_shape_tag(ctx, i, &ids, &n, NULL);
        if (n) keys[cnt] = KEY_SHAPE_TAG, vals[cnt++] = join_names(a, g, ids, n);
    }
    memplan_tag tag;
    memplan_inplace_node_tag(ctx, i, &tag, NULL);
    if (tag != MEMPLAN_TAG_NONE) keys[cnt] = KEY_NODE_TAG, vals[cnt++] = copy_str(a, memplan_tag_name(tag));
    return cnt;
}

static void annotate_node(annotator *a, const memplan_inplace *ctx, int32_t i, Onnx__NodeProto *np) {
    const char *keys[5];
    char *vals[5];
    size_t cnt = node_entries(a, ctx, i, keys, vals);
    if (a->failed || (!cnt && !has_ours(np->metadata_props, np->n_metadata_props)) ||
        !begin_patch(a, &np->metadata_props, &np->n_metadata_props, cnt))
        return;
    for (size_t k = 0; k < cnt; k++) put_entry(a, np->metadata_props, &np->n_metadata_props, keys[k], vals[k]);
    drop_stale(np->metadata_props, &np->n_metadata_props, keys, cnt);
}

/* onnx_light.value_tag on one value's metadata list, when it has a tag. */
static void annotate_value(annotator *a, const memplan_inplace *ctx, const char *name,
                           Onnx__StringStringEntryProto ***md, size_t *n_md) {
    memplan_tag tag = MEMPLAN_TAG_NONE;
    int32_t v = name ? memplan_graph_find(memplan_inplace_graph(ctx), name) : -1;
    if (v >= 0 && memplan_inplace_value_tag(ctx, v, &tag, NULL)) tag = MEMPLAN_TAG_NONE;
    if (tag == MEMPLAN_TAG_NONE) { /* only drop what an earlier annotation left */
        if (has_ours(*md, *n_md) && begin_patch(a, md, n_md, 0)) drop_stale(*md, n_md, NULL, 0);
        return;
    }
    char *val = copy_str(a, memplan_tag_name(tag));
    if (val && begin_patch(a, md, n_md, 1)) put_entry(a, *md, n_md, KEY_VALUE_TAG, val);
}

static void annotate_values(annotator *a, const memplan_inplace *ctx, Onnx__ValueInfoProto **vis, size_t n) {
    for (size_t k = 0; k < n && !a->failed; k++)
        annotate_value(a, ctx, vis[k]->name, &vis[k]->metadata_props, &vis[k]->n_metadata_props);
}

/* Initializers are values too (SEMANTICS §9): their TensorProto carries the tag. */
static void annotate_initializers(annotator *a, const memplan_inplace *ctx, Onnx__TensorProto **ts, size_t n) {
    for (size_t k = 0; k < n && !a->failed; k++)
        annotate_value(a, ctx, ts[k]->name, &ts[k]->metadata_props, &ts[k]->n_metadata_props);
}

/* The same checks as loading (tags, lengths, nesting depth) before protobuf-c
 * recurses over the bytes. */
/* Every node of the file must be the node the results describe. */
static memplan_status check_nodes(const memplan_inplace *ctx, const Onnx__GraphProto *gp, memplan_error *err) {
    const memplan_graph *g = memplan_inplace_graph(ctx);
    int32_t n = memplan_inplace_node_count(ctx);
    if (gp->n_node != (size_t)n)
        return memplan_error_set(err, MEMPLAN_EINPUT,
                                 "the results are for a graph with %d nodes, but the model's graph has %zu",
                                 (int)n, gp->n_node);
    for (int32_t i = 0; i < n; i++) {
        const memplan_node *nd = &g->nodes[i];
        const Onnx__NodeProto *np = gp->node[nd->file_index];
        if (!np->op_type || strcmp(np->op_type, nd->op_type) != 0)
            return memplan_error_set(err, MEMPLAN_EINPUT, "node %d of the file is '%s', the results are for '%s'",
                                     (int)nd->file_index, np->op_type ? np->op_type : "", nd->op_type);
    }
    return MEMPLAN_OK;
}

memplan_status memplan_annotate(const void *bytes, size_t len, const memplan_inplace *ctx, unsigned char **out,
                                size_t *out_len, memplan_error *err) {
    if (!out || !out_len || !ctx || (!bytes && len))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "annotate: missing argument");
    *out = NULL;
    *out_len = 0;
    /* A checked copy with every byte of data kept: protobuf-c then never meets
     * absurd nesting or the empty packed fields it mishandles. */
    mp_buf clean;
    mp_buf_init(&clean);
    memplan_status st = mp_clean_model(bytes, len, UINT64_MAX, &clean, NULL, err);
    if (st) {
        mp_buf_free(&clean);
        return st;
    }
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, clean.len, (const uint8_t *)clean.data);
    mp_buf_free(&clean);
    if (!mp || !mp->graph) {
        if (mp) onnx__model_proto__free_unpacked(mp, NULL);
        return memplan_error_set(err, MEMPLAN_EINPUT, "protobuf-c could not decode the bytes as an ONNX model with a graph");
    }
    if ((st = check_nodes(ctx, mp->graph, err))) {
        onnx__model_proto__free_unpacked(mp, NULL);
        return st;
    }
    annotator a = {0};
    const memplan_graph *g = memplan_inplace_graph(ctx);
    for (int32_t i = 0; i < g->n_nodes && !a.failed; i++) annotate_node(&a, ctx, i, mp->graph->node[g->nodes[i].file_index]);
    annotate_values(&a, ctx, mp->graph->input, mp->graph->n_input);
    annotate_values(&a, ctx, mp->graph->output, mp->graph->n_output);
    annotate_values(&a, ctx, mp->graph->value_info, mp->graph->n_value_info);
    annotate_initializers(&a, ctx, mp->graph->initializer, mp->graph->n_initializer);
    if (!a.failed) fill_empty_bytes(&a, &mp->base);
    if (!a.failed) {
        size_t size = onnx__model_proto__get_packed_size(mp);
        *out = malloc(size ? size : 1);
        if (*out) *out_len = onnx__model_proto__pack(mp, *out);
        a.failed = !*out || *out_len != size;
    }
    restore(&a);
    onnx__model_proto__free_unpacked(mp, NULL);
    if (a.failed) {
        free(*out);
        *out = NULL;
        *out_len = 0;
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while annotating the model");
    }
    return MEMPLAN_OK;
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
