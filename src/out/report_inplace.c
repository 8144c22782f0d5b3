/*
 * report_inplace.c -- the `inplace`, `profile`, `tags` and `annotate` commands.
 *
 * JSON (the same document for inplace, profile and tags):
 *   {allow_input_overwrite, tags_known,
 *    nodes: [{index, file_index, name, op_type, tag, reuse: [{output_index, input_index, kind}],
 *             release_after: [names], not_used_after: [names],
 *             release_after_shape_tag: [names]   (only when tags are known),
 *             profile: {total_bytes, already_allocated_bytes, output_allocation_bytes,
 *                       inputs: {tag: amount}, initializers: {}, intermediates: {}, outputs: {}}}],
 *    values: [{name, tag}],
 *    events: [{action, node_index, name, output_index, input_index, kind}]  (with --events)}
 * Tags are null when a value or node has none; bucket keys are tags, "" for
 * untagged, sorted; zero amounts are left out. Amounts are integers, or
 * expression strings when symbolic (after --dim bindings), null when unknown.
 * Event fields that do not apply are null.
 *
 * With --columns (inplace and profile, JSON only) each graph's `nodes` is one
 * object of columns instead, and `values` is left out -- the page's form,
 * ~20x smaller on a 200k-node graph (80 -> 4 MB), since it reads nothing
 * else per node and a JSON object per node is most of its parse time:
 *   nodes: {count, reuse: [[index, output_index, input_index, kind]] (nodes in order),
 *           profile: {inputs: {tag: [amount per node]}, initializers, intermediates, outputs}}
 * A tag's column is there when some node has a non-zero amount of it in that
 * bucket; its other entries are 0. No names, node tags, release lists or
 * profile totals (the sum of a node's buckets is its total_bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/annotate.h"
#include "memplan/inplace.h"
#include "out/json.h"
#include "out/reports.h"
#include "out/cache.h"
#include "out/text.h"

/* One graph's document: the main graph, or a control-flow body (whose
 * analyses are computed when it is printed, with the main graph's options). */
typedef struct doc {
    const memplan_graph *g;
    const memplan_inplace *ctx;
    memplan_expr_pool *pool;
    const memplan_request *r;
    memplan_expr *memo; /* bound form of each amount id < n_memo, or MEMO_UNSET (one pool for all graphs) */
    size_t n_memo;
    const memplan_model *m;
    memplan_shapes *S;
    memplan_status *status; /* the first failure while printing a body (its message in *err) */
    memplan_error *err;
    int depth; /* 0 for the main graph; text indents bodies by it */
} doc;

/* The document of body `g` below d: its own analyses, d's everything else.
 * False (and *d->status set) when they cannot be computed. */
static bool body_doc(const doc *d, const memplan_graph *g, doc *out, memplan_inplace **ctx) {
    memplan_inplace_options o = d->r->inplace;
    *ctx = NULL;
    if (*d->status) return false;
    memplan_status st = memplan_inplace_compute_graph(d->m, g, d->S, &o, ctx, d->err);
    if (st) {
        *d->status = st;
        return false;
    }
    *out = *d;
    out->g = g;
    out->ctx = *ctx;
    out->depth = d->depth + 1;
    return true;
}

#define MEMO_UNSET ((memplan_expr)-2)

/* Tags in the order bucket keys are printed (sorted by name). */
static const memplan_tag SORTED_TAGS[MEMPLAN_TAG_COUNT] = {MEMPLAN_TAG_NONE, MEMPLAN_TAG_AMBIGUOUS, MEMPLAN_TAG_AXES,
                                                           MEMPLAN_TAG_SHAPE, MEMPLAN_TAG_WEIGHT};

/* e under the request's dims. Many amounts repeat (one shape, many nodes),
 * so each is bound once per document. */
static memplan_expr bound(const doc *d, memplan_expr e) {
    if (e == MEMPLAN_EXPR_NONE || !d->r->shapes.n_bindings) return e;
    if (e < 0 || (size_t)e >= d->n_memo)
        return memplan_expr_bind(d->pool, e, d->r->shapes.bindings, d->r->shapes.n_bindings);
    if (d->memo[e] == MEMO_UNSET)
        d->memo[e] = memplan_expr_bind(d->pool, e, d->r->shapes.bindings, d->r->shapes.n_bindings);
    return d->memo[e];
}

static bool is_zero(const doc *d, memplan_expr e) {
    int64_t k;
    return memplan_expr_is_const(d->pool, e, &k) && k == 0;
}

/* An amount already under the dims. */
static void json_bound_amount(mp_json *j, const doc *d, memplan_expr e) {
    int64_t k;
    if (e == MEMPLAN_EXPR_NONE) mp_json_null(j);
    else if (memplan_expr_is_const(d->pool, e, &k))
        mp_json_int(j, k);
    else
        mp_json_str(j, memplan_expr_str(d->pool, e));
}

static void json_amount(mp_json *j, const doc *d, memplan_expr e) { json_bound_amount(j, d, bound(d, e)); }

static void json_tag(mp_json *j, memplan_tag t) {
    if (t == MEMPLAN_TAG_NONE) mp_json_null(j);
    else
        mp_json_str(j, memplan_tag_name(t));
}

static void json_names(mp_json *j, const doc *d, const char *key, const int32_t *ids, size_t n) {
    mp_json_key(j, key);
    mp_json_arr(j);
    for (size_t k = 0; k < n; k++) mp_json_str(j, d->g->values[ids[k]].name);
    mp_json_end(j);
}

static void json_profile(mp_json *j, const doc *d, const memplan_profile *p) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "total_bytes");
    json_amount(j, d, p->total_bytes);
    MP_JSON_KEY(j, "already_allocated_bytes");
    json_amount(j, d, p->already_allocated_bytes);
    MP_JSON_KEY(j, "output_allocation_bytes");
    json_amount(j, d, p->output_allocation_bytes);
    for (int b = 0; b < MEMPLAN_BUCKET_COUNT; b++) {
        mp_json_key(j, memplan_bucket_name((memplan_bucket)b));
        mp_json_obj(j);
        for (int t = 0; t < MEMPLAN_TAG_COUNT; t++) {
            memplan_expr e = bound(d, p->bucket[b][SORTED_TAGS[t]]);
            if (is_zero(d, e)) continue;
            mp_json_key(j, memplan_tag_name(SORTED_TAGS[t]));
            json_bound_amount(j, d, e);
        }
        mp_json_end(j);
    }
    mp_json_end(j);
}

static void json_node(mp_json *j, const doc *d, int32_t i) {
    const memplan_node *n = &d->g->nodes[i];
    const memplan_reuse *items;
    const int32_t *ids;
    const memplan_profile *p;
    size_t cnt;
    memplan_tag tag;
    mp_json_obj(j);
    MP_JSON_KEY(j, "index");
    mp_json_int(j, i);
    MP_JSON_KEY(j, "file_index");
    mp_json_int(j, n->file_index);
    MP_JSON_KEY(j, "name");
    mp_json_str(j, n->name);
    MP_JSON_KEY(j, "op_type");
    mp_json_str(j, n->op_type);
    MP_JSON_KEY(j, "tag");
    memplan_inplace_node_tag(d->ctx, i, &tag, NULL);
    json_tag(j, tag);
    MP_JSON_KEY(j, "reuse");
    mp_json_arr(j);
    memplan_inplace_node_reuse(d->ctx, i, &items, &cnt, NULL);
    for (size_t k = 0; k < cnt; k++) {
        mp_json_obj(j);
        MP_JSON_KEY(j, "output_index");
        mp_json_int(j, items[k].output_index);
        MP_JSON_KEY(j, "input_index");
        mp_json_int(j, items[k].input_index);
        MP_JSON_KEY(j, "kind");
        mp_json_str(j, memplan_reuse_kind_name(items[k].kind));
        mp_json_end(j);
    }
    mp_json_end(j);
    memplan_inplace_release_after(d->ctx, i, &ids, &cnt, NULL);
    json_names(j, d, "release_after", ids, cnt);
    memplan_inplace_not_used_after(d->ctx, i, &ids, &cnt, NULL);
    json_names(j, d, "not_used_after", ids, cnt);
    if (memplan_inplace_has_tags(d->ctx)) {
        memplan_inplace_release_after_shape_tag(d->ctx, i, &ids, &cnt, NULL);
        json_names(j, d, "release_after_shape_tag", ids, cnt);
    }
    MP_JSON_KEY(j, "profile");
    memplan_inplace_node_profile(d->ctx, i, &p, NULL);
    json_profile(j, d, p);
    mp_json_end(j);
}

/* ---- --columns ---------------------------------------------------------- */

static void json_reuse_column(mp_json *j, const doc *d) {
    mp_json_arr(j);
    for (int32_t i = 0; i < d->g->n_nodes; i++) {
        const memplan_reuse *items;
        size_t cnt;
        memplan_inplace_node_reuse(d->ctx, i, &items, &cnt, NULL);
        for (size_t k = 0; k < cnt; k++) {
            mp_json_arr(j);
            mp_json_int(j, i);
            mp_json_int(j, items[k].output_index);
            mp_json_int(j, items[k].input_index);
            mp_json_str(j, memplan_reuse_kind_name(items[k].kind));
            mp_json_end(j);
        }
    }
    mp_json_end(j);
}

static const memplan_profile *node_profile(const doc *d, int32_t i) {
    const memplan_profile *p;
    memplan_inplace_node_profile(d->ctx, i, &p, NULL);
    return p;
}

/* A bucket's columns: one per tag some node has a non-zero amount of. */
static void json_bucket_columns(mp_json *j, const doc *d, int b) {
    mp_json_obj(j);
    for (int t = 0; t < MEMPLAN_TAG_COUNT; t++) {
        memplan_tag tag = SORTED_TAGS[t];
        int32_t first = 0;
        while (first < d->g->n_nodes && is_zero(d, bound(d, node_profile(d, first)->bucket[b][tag]))) first++;
        if (first == d->g->n_nodes) continue;
        mp_json_key(j, memplan_tag_name(tag));
        mp_json_arr(j);
        for (int32_t i = 0; i < d->g->n_nodes; i++) {
            if (i < first) mp_json_int(j, 0);
            else
                json_amount(j, d, node_profile(d, i)->bucket[b][tag]);
        }
        mp_json_end(j);
    }
    mp_json_end(j);
}

static void json_node_columns(mp_json *j, const doc *d) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "count");
    mp_json_int(j, d->g->n_nodes);
    MP_JSON_KEY(j, "reuse");
    json_reuse_column(j, d);
    MP_JSON_KEY(j, "profile");
    mp_json_obj(j);
    for (int b = 0; b < MEMPLAN_BUCKET_COUNT; b++) {
        mp_json_key(j, memplan_bucket_name((memplan_bucket)b));
        json_bucket_columns(j, d, b);
    }
    mp_json_end(j);
    mp_json_end(j);
}

static void json_event(mp_json *j, const memplan_event *e) {
    bool inplace = e->action == MEMPLAN_EVENT_INPLACE;
    mp_json_obj(j);
    MP_JSON_KEY(j, "action");
    mp_json_str(j, memplan_event_action_name(e->action));
    MP_JSON_KEY(j, "node_index");
    mp_json_int(j, e->node_index);
    MP_JSON_KEY(j, "name");
    mp_json_str(j, e->name);
    MP_JSON_KEY(j, "output_index");
    if (inplace) mp_json_int(j, e->output_index);
    else
        mp_json_null(j);
    MP_JSON_KEY(j, "input_index");
    if (inplace) mp_json_int(j, e->input_index);
    else
        mp_json_null(j);
    MP_JSON_KEY(j, "kind");
    if (inplace) mp_json_str(j, memplan_reuse_kind_name(e->kind));
    else
        mp_json_null(j);
    mp_json_end(j);
}

static void doc_fields(mp_json *j, const doc *d);

/* Call fn for every body of every node of d's graph, in node then
 * attribute order (GRAPHS entries are printed "name[i]": index >= 0), with
 * the body's document. Stops at the first body that cannot be analysed. */
typedef void (*body_fn)(void *arg, const doc *body, int32_t node, const char *attr, int64_t index);

static void each_body(const doc *d, body_fn fn, void *arg) {
    for (int32_t i = 0; i < d->g->n_nodes; i++) {
        const memplan_node *n = &d->g->nodes[i];
        for (int32_t a = 0; a < n->n_attrs; a++) {
            const memplan_attr *at = &n->attrs[a];
            size_t cnt = at->type == MEMPLAN_ATTR_GRAPH ? (at->g != NULL) : at->type == MEMPLAN_ATTR_GRAPHS ? at->n : 0;
            for (size_t k = 0; k < cnt; k++) {
                doc body;
                memplan_inplace *ctx;
                if (!body_doc(d, at->type == MEMPLAN_ATTR_GRAPH ? at->g : at->graphs[k], &body, &ctx)) return;
                fn(arg, &body, i, at->name, at->type == MEMPLAN_ATTR_GRAPH ? -1 : (int64_t)k);
                memplan_inplace_free(ctx);
            }
        }
    }
}

static void json_body(void *arg, const doc *body, int32_t node, const char *attr, int64_t index) {
    mp_json *j = arg;
    const memplan_node *n = &body->g->parent->nodes[node];
    mp_json_obj(j);
    MP_JSON_KEY(j, "node");
    mp_json_int(j, node);
    MP_JSON_KEY(j, "name");
    mp_json_str(j, n->name);
    MP_JSON_KEY(j, "op_type");
    mp_json_str(j, n->op_type);
    MP_JSON_KEY(j, "attribute");
    if (index < 0) {
        mp_json_str(j, attr);
    } else {
        mp_buf t;
        mp_buf_init(&t);
        mp_buf_printf(&t, "%s[%lld]", attr, (long long)index);
        mp_json_strn(j, t.failed ? "" : t.data, t.failed ? 0 : t.len);
        j->out->failed |= t.failed;
        mp_buf_free(&t);
    }
    doc_fields(j, body);
    mp_json_end(j);
}

/* Each body of each node: {node, name, op_type, attribute, then the body's
 * own document fields}. */
static void json_subgraphs(mp_json *j, const doc *d) {
    mp_json_arr(j);
    each_body(d, json_body, j);
    if (*d->status) j->out->failed = true;
    mp_json_end(j);
}

static void doc_json(mp_json *j, const doc *d) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "allow_input_overwrite");
    mp_json_bool(j, d->r->inplace.allow_input_overwrite);
    if (d->r->columns) {
        MP_JSON_KEY(j, "columns");
        mp_json_bool(j, true);
    }
    doc_fields(j, d);
    mp_json_end(j);
}

/* Each value's {name, tag}. */
static void json_values(mp_json *j, const doc *d) {
    MP_JSON_KEY(j, "values");
    mp_json_arr(j);
    for (int32_t v = 0; v < d->g->n_values; v++) {
        memplan_tag tag;
        memplan_inplace_value_tag(d->ctx, v, &tag, NULL);
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, d->g->values[v].name);
        MP_JSON_KEY(j, "tag");
        json_tag(j, tag);
        mp_json_end(j);
    }
    mp_json_end(j);
}

/* tags_known, nodes, values, subgraphs, events: one graph's results. */
static void doc_fields(mp_json *j, const doc *d) {
    MP_JSON_KEY(j, "tags_known");
    mp_json_bool(j, memplan_inplace_has_tags(d->ctx));
    MP_JSON_KEY(j, "nodes");
    if (d->r->columns) {
        json_node_columns(j, d);
    } else {
        mp_json_arr(j);
        for (int32_t i = 0; i < d->g->n_nodes; i++) json_node(j, d, i);
        mp_json_end(j);
        json_values(j, d);
    }
    MP_JSON_KEY(j, "subgraphs");
    json_subgraphs(j, d);
    if (d->r->inplace.events) {
        MP_JSON_KEY(j, "events");
        mp_json_arr(j);
        const memplan_event *ev = memplan_inplace_events(d->ctx);
        for (size_t k = 0; k < memplan_inplace_event_count(d->ctx); k++) json_event(j, &ev[k]);
        mp_json_end(j);
    }
}

/* ---- text forms ---------------------------------------------------------- */

static void text_names(mp_buf *b, const doc *d, const char *label, const int32_t *ids, size_t n) {
    if (!n) return;
    mp_text_printf(b, "  %s", label);
    for (size_t k = 0; k < n; k++) mp_text_printf(b, "%s%s", k ? ", " : " ", d->g->values[ids[k]].name);
}

/* Lines of a body are indented two spaces per level. */
static void indent(mp_buf *b, const doc *d) { mp_text_printf(b, "%*s", 2 * d->depth, ""); }

static void text_node_head(mp_buf *b, const doc *d, int32_t i) {
    const memplan_node *n = &d->g->nodes[i];
    indent(b, d);
    mp_text_printf(b, "#%d %s", (int)i, n->op_type);
    if (n->name[0]) mp_text_printf(b, " '%s'", n->name);
    mp_buf_putc(b, ':');
}

/* The bodies of d's nodes after its own lines, each under a header naming
 * its node and attribute, printed by the same function one level in. */
typedef void (*text_fn)(mp_buf *b, const doc *d);
typedef struct text_arg {
    mp_buf *b;
    text_fn print;
} text_arg;

static void text_body(void *arg, const doc *body, int32_t node, const char *attr, int64_t index) {
    text_arg *t = arg;
    const memplan_node *n = &body->g->parent->nodes[node];
    mp_text_printf(t->b, "%*s%s", 2 * (body->depth - 1), "", attr);
    if (index >= 0) mp_text_printf(t->b, "[%lld]", (long long)index);
    mp_text_printf(t->b, " of #%d %s", (int)node, n->op_type);
    if (n->name[0]) mp_text_printf(t->b, " '%s'", n->name);
    mp_text_printf(t->b, " (%d nodes):\n", (int)body->g->n_nodes);
    t->print(t->b, body);
}

static void text_bodies(mp_buf *b, const doc *d, text_fn print) {
    text_arg t = {b, print};
    each_body(d, text_body, &t);
    if (*d->status) b->failed = true;
}

static void inplace_text(mp_buf *b, const doc *d) {
    for (int32_t i = 0; i < d->g->n_nodes; i++) {
        const memplan_reuse *items;
        const int32_t *ids;
        size_t cnt;
        text_node_head(b, d, i);
        memplan_inplace_node_reuse(d->ctx, i, &items, &cnt, NULL);
        if (cnt) mp_buf_puts(b, "  reuse");
        for (size_t k = 0; k < cnt; k++)
            mp_text_printf(b, " out %d <- in %d (%s)%s", (int)items[k].output_index, (int)items[k].input_index,
                           memplan_reuse_kind_name(items[k].kind), k + 1 < cnt ? "," : "");
        memplan_inplace_release_after(d->ctx, i, &ids, &cnt, NULL);
        text_names(b, d, "release", ids, cnt);
        memplan_inplace_not_used_after(d->ctx, i, &ids, &cnt, NULL);
        text_names(b, d, "inputs done", ids, cnt);
        if (memplan_inplace_has_tags(d->ctx)) {
            memplan_inplace_release_after_shape_tag(d->ctx, i, &ids, &cnt, NULL);
            text_names(b, d, "shape values", ids, cnt);
        }
        mp_buf_putc(b, '\n');
    }
    const memplan_event *ev = memplan_inplace_events(d->ctx);
    for (size_t k = 0; d->r->inplace.events && k < memplan_inplace_event_count(d->ctx); k++) {
        indent(b, d);
        if (ev[k].action == MEMPLAN_EVENT_INPLACE)
            mp_text_printf(b, "event inplace node %d: out %d <- in %d (%s)\n", (int)ev[k].node_index,
                           (int)ev[k].output_index, (int)ev[k].input_index, memplan_reuse_kind_name(ev[k].kind));
        else
            mp_text_printf(b, "event %s node %d: %s\n", memplan_event_action_name(ev[k].action), (int)ev[k].node_index,
                           ev[k].name);
    }
    text_bodies(b, d, inplace_text);
}

/* An amount already under the dims. */
static void text_bound_amount(mp_buf *b, const doc *d, memplan_expr e) {
    if (e == MEMPLAN_EXPR_NONE) mp_buf_puts(b, "unknown");
    else
        mp_text_expr(b, memplan_expr_str(d->pool, e));
}

static void text_amount(mp_buf *b, const doc *d, memplan_expr e) { text_bound_amount(b, d, bound(d, e)); }

static void profile_text(mp_buf *b, const doc *d) {
    for (int32_t i = 0; i < d->g->n_nodes; i++) {
        const memplan_profile *p;
        memplan_inplace_node_profile(d->ctx, i, &p, NULL);
        text_node_head(b, d, i);
        mp_buf_puts(b, " total ");
        text_amount(b, d, p->total_bytes);
        mp_buf_puts(b, " = live ");
        text_amount(b, d, p->already_allocated_bytes);
        mp_buf_puts(b, " + new ");
        text_amount(b, d, p->output_allocation_bytes);
        for (int k = 0; k < MEMPLAN_BUCKET_COUNT; k++)
            for (int t = 0; t < MEMPLAN_TAG_COUNT; t++) {
                memplan_expr e = bound(d, p->bucket[k][SORTED_TAGS[t]]);
                if (is_zero(d, e)) continue;
                const char *tn = memplan_tag_name(SORTED_TAGS[t]);
                mp_text_printf(b, "  %s%s%s ", memplan_bucket_name((memplan_bucket)k), tn[0] ? "/" : "", tn);
                text_bound_amount(b, d, e);
            }
        mp_buf_putc(b, '\n');
    }
    text_bodies(b, d, profile_text);
}

static void tags_text(mp_buf *b, const doc *d) {
    indent(b, d);
    mp_buf_puts(b, "values:\n");
    for (int32_t v = 0; v < d->g->n_values; v++) {
        memplan_tag tag;
        memplan_inplace_value_tag(d->ctx, v, &tag, NULL);
        if (tag == MEMPLAN_TAG_NONE) continue;
        indent(b, d);
        mp_text_printf(b, "  %s: %s\n", d->g->values[v].name, memplan_tag_name(tag));
    }
    indent(b, d);
    mp_buf_puts(b, "nodes:\n");
    doc in = *d;
    in.depth++; /* node lines one level in */
    for (int32_t i = 0; i < d->g->n_nodes; i++) {
        memplan_tag tag;
        memplan_inplace_node_tag(d->ctx, i, &tag, NULL);
        if (tag == MEMPLAN_TAG_NONE) continue;
        text_node_head(b, &in, i);
        mp_text_printf(b, " %s\n", memplan_tag_name(tag));
    }
    text_bodies(b, d, tags_text);
}

/* ---- dispatch ------------------------------------------------------------ */

/* Shapes under the request's dims and input values from the start (as the
 * plan's), then the context (its start tags come from the model's metadata). */
static memplan_status build(const memplan_model *m, const memplan_request *r, memplan_shapes **S, memplan_inplace **ctx,
                            memplan_error *err) {
    memplan_status st = memplan_shapes_infer_opts(m, &r->shapes, S, err);
    if (!st) { st = memplan_inplace_compute(m, *S, &r->inplace, ctx, err); }
    return st;
}

/* The analyses for the request's two options, dims and input values: the
 * cache's, or built and kept there. */
static memplan_status build_cached(mp_cache *cache, const memplan_model *m, const memplan_request *r,
                                   memplan_shapes **S, memplan_inplace **ctx, memplan_error *err) {
    char *vkey = mp_shapes_key(&r->shapes);
    if (!vkey) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    size_t pool = cache->inplace.valid ? memplan_expr_pool_count(memplan_shapes_pool(cache->inplace.shapes)) : 0;
    if (cache->inplace.valid && cache->inplace.allow_input_overwrite == r->inplace.allow_input_overwrite &&
        cache->inplace.events == r->inplace.events && strcmp(cache->inplace.shapes_key, vkey) == 0 &&
        pool <= MP_CACHE_POOL_GROWTH * cache->inplace.pool_built + MP_CACHE_POOL_SLACK) {
        free(vkey);
        *S = cache->inplace.shapes;
        *ctx = cache->inplace.ctx;
        return MEMPLAN_OK;
    }
    memplan_inplace_free(cache->inplace.ctx);
    memplan_shapes_free(cache->inplace.shapes);
    free(cache->inplace.shapes_key);
    memset(&cache->inplace, 0, sizeof cache->inplace);
    *S = NULL;
    *ctx = NULL;
    memplan_status st = build(m, r, S, ctx, err);
    if (st) {
        free(vkey);
        memplan_inplace_free(*ctx);
        memplan_shapes_free(*S);
        return st;
    }
    cache->inplace.shapes_key = vkey;
    cache->inplace.valid = true;
    cache->inplace_builds++;
    cache->inplace.allow_input_overwrite = r->inplace.allow_input_overwrite;
    cache->inplace.events = r->inplace.events;
    cache->inplace.shapes = *S;
    cache->inplace.ctx = *ctx;
    cache->inplace.pool_built = memplan_expr_pool_count(memplan_shapes_pool(*S));
    return MEMPLAN_OK;
}

/* The analyses' document: JSON (the same for inplace, profile and tags), or
 * the command's own text form. */
static memplan_status print_doc(mp_cache *cache, const memplan_model *m, const memplan_request *r, bool json,
                                void (*text)(mp_buf *, const doc *), char **out, size_t *len, memplan_error *err) {
    if (r->columns && !json)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "--columns changes the JSON only: add --json");
    memplan_shapes *S = NULL;
    memplan_inplace *ctx = NULL;
    memplan_status st = build_cached(cache, m, r, &S, &ctx, err);
    if (st) return st;
    memplan_status body_st = MEMPLAN_OK;
    doc d = {m->graph, ctx, memplan_shapes_pool(S), r, NULL, 0, m, S, &body_st, err, 0};
    if (r->shapes.n_bindings) { /* no memo (out of memory) only costs time */
        d.n_memo = memplan_expr_pool_count(d.pool);
        d.memo = malloc((d.n_memo ? d.n_memo : 1) * sizeof *d.memo);
        if (!d.memo) d.n_memo = 0;
        for (size_t i = 0; i < d.n_memo; i++) d.memo[i] = MEMO_UNSET;
    }
    mp_buf b;
    mp_buf_init(&b);
    if (json) {
        mp_json j;
        mp_json_init(&j, &b);
        doc_json(&j, &d);
        mp_buf_putc(&b, '\n');
    } else {
        text(&b, &d);
    }
    if (body_st) {
        mp_buf_free(&b);
        st = body_st; /* a body's analysis failed: its message is in err */
    } else if (b.failed) {
        mp_buf_free(&b);
        st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while writing the report");
    } else {
        *out = mp_buf_take(&b, len);
    }
    free(d.memo);
    return st;
}

memplan_status mp_run_inplace(MP_REPORT_ARGS) { return print_doc(cache, m, r, json, inplace_text, out, len, err); }
memplan_status mp_run_profile(MP_REPORT_ARGS) { return print_doc(cache, m, r, json, profile_text, out, len, err); }
memplan_status mp_run_tags(MP_REPORT_ARGS) { return print_doc(cache, m, r, json, tags_text, out, len, err); }

/* The model's bytes with the results in its metadata_props (json is moot:
 * the report is a file). */
memplan_status mp_run_annotate(MP_REPORT_ARGS) {
    (void)json;
    if (!r->model_bytes && !r->model_reader)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "annotate needs the model's bytes");
    memplan_shapes *S = NULL;
    memplan_inplace *ctx = NULL;
    memplan_status st = build_cached(cache, m, r, &S, &ctx, err);
    if (st) return st;
    unsigned char *bytes = NULL;
    st = r->model_reader ? memplan_annotate_reader(r->model_reader, ctx, &bytes, len, err)
                         : memplan_annotate(r->model_bytes, r->model_len, ctx, &bytes, len, err);
    *out = (char *)bytes;
    return st;
}
