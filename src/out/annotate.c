/*
 * annotate.c -- the in-place results as metadata_props entries (docs/semantics.md, "Metadata written into a model"):
 * per node of the main graph and of every body below it the five node keys
 * (a body analysed by the same rules), per tagged value its
 * MEMPLAN_KEY_VALUE_TAG, and every other entry with one of the six keys
 * removed. src/onnx/splice.c writes them into the model's wire bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/annotate.h"
#include "onnx/prune.h"
#include "onnx/splice.h"
#include "out/annotate.h"
#include "util/arena.h"
#include "util/buf.h"

/* The keys annotation owns: every message loses the entries it does not renew. */
static const char *const OURS[] = {MEMPLAN_KEY_INPLACE_REUSE, MEMPLAN_KEY_RELEASE_AFTER, MEMPLAN_KEY_NOT_USED_AFTER,
                                   MEMPLAN_KEY_SHAPE_TAG,     MEMPLAN_KEY_NODE_TAG,      MEMPLAN_KEY_VALUE_TAG};
#define N_OURS (sizeof OURS / sizeof OURS[0])

/* The edits of one annotation; everything lives in the arena. */
typedef struct edits {
    mp_splice_edits e;
    mp_meta_edit other; /* untouched values: our keys go */
    mp_arena arena;
    mp_buf b;              /* scratch for one entry's text */
    memplan_status status; /* a body's analysis failed (message in *err) */
    memplan_error *err;
} edits;

/* b's text as an entry (key, text) at kv[*n]; false when out of memory. */
static bool add(edits *E, memplan_kv *kv, size_t *n, const char *key) {
    char *text = E->b.failed ? NULL : mp_arena_strndup(&E->arena, E->b.data ? E->b.data : "", E->b.len);
    E->b.len = 0;
    if (!text) return false;
    kv[*n].key = key;
    kv[*n].value = text;
    (*n)++;
    return true;
}

/* Names of value ids joined by ';' into b. A ';' or '\\' inside a name is
 * written with a '\\' before it, so a name with ';' in it reads back as one. */
static void join_names(mp_buf *b, const memplan_graph *g, const int32_t *ids, size_t n) {
    for (size_t k = 0; k < n; k++) {
        if (k) mp_buf_putc(b, ';');
        for (const char *c = g->values[ids[k]].name; *c; c++) {
            if (*c == ';' || *c == '\\') mp_buf_putc(b, '\\');
            mp_buf_putc(b, *c);
        }
    }
}

/* The entries of node i, in the order inplace_reuse, release_after,
 * not_used_after, release_after_shape_tag, node_tag (each when non-empty);
 * false when out of memory. */
static bool node_entries(edits *E, const memplan_inplace *ctx, int32_t i, mp_meta_edit *e) {
    const memplan_graph *g = memplan_inplace_graph(ctx);
    memplan_kv *kv = mp_arena_array(&E->arena, 5, sizeof *kv);
    if (!kv) return false;
    size_t n = 0, cnt;
    const memplan_reuse *items;
    const int32_t *ids;
    memplan_inplace_node_reuse(ctx, i, &items, &cnt, NULL);
    for (size_t k = 0; k < cnt; k++)
        mp_buf_printf(&E->b, "%s%d:%d:%s", k ? ";" : "", (int)items[k].output_index, (int)items[k].input_index,
                      memplan_reuse_kind_name(items[k].kind));
    if (cnt && !add(E, kv, &n, MEMPLAN_KEY_INPLACE_REUSE)) return false;
    memplan_inplace_release_after(ctx, i, &ids, &cnt, NULL);
    join_names(&E->b, g, ids, cnt);
    if (cnt && !add(E, kv, &n, MEMPLAN_KEY_RELEASE_AFTER)) return false;
    memplan_inplace_not_used_after(ctx, i, &ids, &cnt, NULL);
    join_names(&E->b, g, ids, cnt);
    if (cnt && !add(E, kv, &n, MEMPLAN_KEY_NOT_USED_AFTER)) return false;
    if (memplan_inplace_has_tags(ctx)) {
        memplan_inplace_release_after_shape_tag(ctx, i, &ids, &cnt, NULL);
        join_names(&E->b, g, ids, cnt);
        if (cnt && !add(E, kv, &n, MEMPLAN_KEY_SHAPE_TAG)) return false;
    }
    memplan_tag tag;
    memplan_inplace_node_tag(ctx, i, &tag, NULL);
    if (tag != MEMPLAN_TAG_NONE) {
        mp_buf_puts(&E->b, memplan_tag_name(tag));
        if (!add(E, kv, &n, MEMPLAN_KEY_NODE_TAG)) return false;
    }
    e->set = kv;
    e->n_set = n;
    e->remove = OURS;
    e->n_remove = N_OURS;
    return true;
}

static bool build(edits *E, const memplan_inplace *ctx, mp_splice_edits *out, int depth);

/* The edits of the bodies of node i of ctx's graph, each analysed with ctx's
 * model, shapes and options, into *b. False when out of memory or when an
 * analysis fails (E->status, E->err). */
static bool build_bodies(edits *E, const memplan_inplace *ctx, const memplan_node *n, mp_splice_bodies *b, int depth) {
    mp_splice_edits *graphs = mp_arena_array(&E->arena, (size_t)n->n_subgraphs, sizeof *graphs);
    if (!graphs) return false;
    memplan_inplace_options o = memplan_inplace_options_of(ctx);
    for (int32_t k = 0; k < n->n_subgraphs; k++) {
        memplan_inplace *body = NULL;
        E->status = memplan_inplace_compute_graph(memplan_inplace_model(ctx), n->subgraphs[k],
                                                  memplan_inplace_shapes(ctx), &o, &body, E->err);
        bool ok = !E->status && build(E, body, &graphs[k], depth + 1);
        memplan_inplace_free(body);
        if (!ok) return false;
    }
    *b = (mp_splice_bodies){n->n_subgraphs, graphs};
    return true;
}

/* Per node (by file index) its entries, op_type and bodies' edits; per
 * tagged value of the graph its value tag. False when out of memory. */
static bool build(edits *E, const memplan_inplace *ctx, mp_splice_edits *out, int depth) {
    const memplan_graph *g = memplan_inplace_graph(ctx);
    int32_t n = memplan_inplace_node_count(ctx);
    mp_meta_edit *nodes = mp_arena_array(&E->arena, (size_t)n, sizeof *nodes);
    const char **ops = mp_arena_array(&E->arena, (size_t)n, sizeof *ops);
    mp_splice_bodies *bodies = mp_arena_array(&E->arena, (size_t)n, sizeof *bodies);
    if (n && (!nodes || !ops || !bodies)) return false;
    for (int32_t i = 0; i < n; i++) {
        int32_t fi = g->nodes[i].file_index;
        ops[fi] = g->nodes[i].op_type;
        bodies[fi] = (mp_splice_bodies){0, NULL};
        if (!node_entries(E, ctx, i, &nodes[fi])) return false;
        if (g->nodes[i].n_subgraphs && !build_bodies(E, ctx, &g->nodes[i], &bodies[fi], depth)) return false;
    }
    size_t tagged = 0;
    for (int32_t v = 0; v < g->n_values; v++) {
        memplan_tag tag;
        tagged += !memplan_inplace_value_tag(ctx, v, &tag, NULL) && tag != MEMPLAN_TAG_NONE;
    }
    const char **names = mp_arena_array(&E->arena, tagged, sizeof *names);
    mp_meta_edit *values = mp_arena_array(&E->arena, tagged, sizeof *values);
    memplan_kv *kv = mp_arena_array(&E->arena, tagged, sizeof *kv);
    if (tagged && (!names || !values || !kv)) return false;
    size_t k = 0;
    for (int32_t v = 0; v < g->n_values; v++) {
        memplan_tag tag;
        if (memplan_inplace_value_tag(ctx, v, &tag, NULL) || tag == MEMPLAN_TAG_NONE) continue;
        names[k] = g->values[v].name;
        kv[k].key = MEMPLAN_KEY_VALUE_TAG;
        kv[k].value = memplan_tag_name(tag);
        values[k] = (mp_meta_edit){&kv[k], 1, OURS, N_OURS};
        k++;
    }
    *out = (mp_splice_edits){n, nodes, ops, tagged, names, values, &E->other, bodies, NULL};
    return true;
}

/* Build the edits and splice them in through src: bytes (reader NULL) or reader. */
static memplan_status run(const void *bytes, size_t len, const memplan_reader *reader, size_t window,
                          const memplan_inplace *ctx, unsigned char **out, size_t *out_len, memplan_error *err) {
    edits E;
    mp_arena_init(&E.arena);
    mp_buf_init(&E.b);
    E.status = MEMPLAN_OK;
    E.err = err;
    E.other = (mp_meta_edit){NULL, 0, OURS, N_OURS};
    memplan_status st = build(&E, ctx, &E.e, 0) ? MEMPLAN_OK
                        : E.status              ? E.status
                                   : memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while annotating the model");
    if (!st)
        st = reader ? mp_splice_reader(reader, window, &E.e, out, out_len, err)
                    : mp_splice(bytes, len, &E.e, out, out_len, err);
    mp_buf_free(&E.b);
    mp_arena_free(&E.arena);
    return st;
}

memplan_status memplan_annotate(const void *bytes, size_t len, const memplan_inplace *ctx, unsigned char **out,
                                size_t *out_len, memplan_error *err) {
    if (!out || !out_len || !ctx || (!bytes && len))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "annotate: missing argument");
    *out = NULL;
    *out_len = 0;
    return run(bytes, len, NULL, 0, ctx, out, out_len, err);
}

memplan_status mp_annotate_reader_window(const memplan_reader *reader, size_t window, const memplan_inplace *ctx,
                                         unsigned char **out, size_t *out_len, memplan_error *err) {
    if (!out || !out_len || !ctx || !reader || !reader->read)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "annotate: missing argument");
    *out = NULL;
    *out_len = 0;
    return run(NULL, 0, reader, window, ctx, out, out_len, err);
}

memplan_status memplan_annotate_reader(const memplan_reader *reader, const memplan_inplace *ctx, unsigned char **out,
                                       size_t *out_len, memplan_error *err) {
    return mp_annotate_reader_window(reader, MP_PRUNE_WINDOW, ctx, out, out_len, err);
}
