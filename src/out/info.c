/* info.c -- the model summary, as JSON and as text. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/info.h"
#include "out/json.h"
#include "out/reports.h"
#include "out/text.h"
#include "util/strmap.h"

unsigned long long memplan_initializer_bytes(const memplan_model *model) {
    const memplan_graph *g = model->graph;
    unsigned long long total = 0;
    for (int32_t i = 0; i < g->n_initializers; i++) {
        uint64_t b;
        if (memplan_type_static_bytes(&g->values[g->initializers[i]].type, &b))
            total = b > ULLONG_MAX - total ? ULLONG_MAX : total + b; /* saturates, never wraps */
    }
    return total;
}

/* Graph inputs that are not also initializers (IR < 4 lists weights as inputs). */
static bool is_true_input(const memplan_value *v) {
    return (v->flags & MEMPLAN_VALUE_INPUT) && !(v->flags & MEMPLAN_VALUE_INITIALIZER);
}

static const char *kind_name(memplan_type_kind k) {
    switch (k) {
    case MEMPLAN_TYPE_SPARSE_TENSOR: return "sparse_tensor";
    case MEMPLAN_TYPE_SEQUENCE: return "sequence";
    case MEMPLAN_TYPE_MAP: return "map";
    case MEMPLAN_TYPE_OPTIONAL: return "optional";
    case MEMPLAN_TYPE_OPAQUE: return "opaque";
    default: return NULL;
    }
}

static void json_type(mp_json *j, const memplan_type *t) {
    MP_JSON_KEY(j, "dtype");
    const char *dt = t->kind == MEMPLAN_TYPE_TENSOR || t->kind == MEMPLAN_TYPE_SPARSE_TENSOR
                         ? memplan_dtype_name(t->elem_type)
                         : kind_name(t->kind);
    if (dt && t->kind != MEMPLAN_TYPE_NONE && !(t->elem_type == 0 && t->kind == MEMPLAN_TYPE_TENSOR))
        mp_json_str(j, dt);
    else
        mp_json_null(j);
    MP_JSON_KEY(j, "shape");
    if (t->rank < 0) {
        mp_json_null(j);
        return;
    }
    mp_json_arr(j);
    for (int32_t i = 0; i < t->rank; i++) {
        const memplan_dim *d = &t->dims[i];
        if (d->kind == MEMPLAN_DIM_VALUE) mp_json_int(j, d->value);
        else if (d->kind == MEMPLAN_DIM_PARAM)
            mp_json_str(j, d->param);
        else
            mp_json_null(j);
    }
    mp_json_end(j);
}

static void json_values(mp_json *j, const memplan_graph *g, const int32_t *ids, int32_t n, bool inputs) {
    mp_json_arr(j);
    for (int32_t i = 0; i < n; i++) {
        const memplan_value *v = &g->values[ids[i]];
        if (inputs && !is_true_input(v)) continue;
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, v->name);
        json_type(j, &v->type);
        mp_json_end(j);
    }
    mp_json_end(j);
}

/* op histogram over the main graph and its subgraphs */
typedef struct op_count {
    char *op; /* "Op" or "domain:Op" */
    int64_t count;
} op_count;

typedef struct op_hist {
    op_count *items;
    size_t n, cap;
    mp_strmap index; /* op -> item, so a model of many distinct ops stays linear */
    bool failed;
} op_hist;

static void hist_add(op_hist *h, const memplan_node *nd) {
    if (h->failed) return;
    size_t dl = nd->domain[0] && strcmp(nd->domain, "ai.onnx") ? strlen(nd->domain) + 1 : 0;
    size_t len = dl + strlen(nd->op_type);
    char *op = malloc(len + 1);
    if (!op) {
        h->failed = true;
        return;
    }
    if (dl) {
        memcpy(op, nd->domain, dl - 1);
        op[dl - 1] = ':';
    }
    strcpy(op + dl, nd->op_type);
    int32_t at = mp_strmap_get(&h->index, op);
    if (at >= 0) {
        h->items[at].count++;
        free(op);
        return;
    }
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 32;
        op_count *p = realloc(h->items, cap * sizeof *p);
        if (!p) {
            free(op);
            h->failed = true;
            return;
        }
        h->items = p;
        h->cap = cap;
    }
    if (h->n >= INT32_MAX || !mp_strmap_put(&h->index, op, (int32_t)h->n)) {
        free(op);
        h->failed = true;
        return;
    }
    h->items[h->n].op = op;
    h->items[h->n].count = 1;
    h->n++;
}

static void hist_walk(op_hist *h, const memplan_graph *g) {
    for (int32_t i = 0; i < g->n_nodes; i++) {
        hist_add(h, &g->nodes[i]);
        for (int32_t k = 0; k < g->nodes[i].n_subgraphs; k++) hist_walk(h, g->nodes[i].subgraphs[k]);
    }
}

static int cmp_op(const void *a, const void *b) { return strcmp(((const op_count *)a)->op, ((const op_count *)b)->op); }

static void hist_free(op_hist *h) {
    mp_strmap_free(&h->index);
    for (size_t i = 0; i < h->n; i++) free(h->items[i].op);
    free(h->items);
}

static bool build_hist(const memplan_model *m, op_hist *h) {
    memset(h, 0, sizeof *h);
    mp_strmap_init(&h->index);
    hist_walk(h, m->graph);
    if (h->n) qsort(h->items, h->n, sizeof *h->items, cmp_op); /* items is NULL when there are no nodes */
    return !h->failed;
}

static int32_t count_true_inputs(const memplan_graph *g) {
    int32_t n = 0;
    for (int32_t i = 0; i < g->n_inputs; i++) n += is_true_input(&g->values[g->inputs[i]]);
    return n;
}

/* Opsets with one entry per domain ("" shown as "ai.onnx"), in first-seen
 * order, highest version kept. A map from domain to entry keeps a model with
 * many opset_import entries linear. False when memory runs out. */
static bool json_opsets(mp_json *j, const memplan_model *m) {
    int32_t *first = malloc((size_t)(m->n_opsets ? m->n_opsets : 1) * sizeof *first); /* entry -> opset index */
    int64_t *version = malloc((size_t)(m->n_opsets ? m->n_opsets : 1) * sizeof *version);
    mp_strmap index;
    mp_strmap_init(&index);
    bool ok = first && version;
    int32_t n = 0;
    for (int32_t i = 0; ok && i < m->n_opsets; i++) {
        const char *d = m->opsets[i].domain[0] ? m->opsets[i].domain : "ai.onnx";
        int32_t e = mp_strmap_get(&index, d);
        if (e < 0) {
            if (!mp_strmap_put(&index, d, n)) ok = false;
            first[n] = i;
            version[n++] = m->opsets[i].version;
        } else if (m->opsets[i].version > version[e]) {
            version[e] = m->opsets[i].version;
        }
    }
    mp_json_obj(j);
    for (int32_t e = 0; ok && e < n; e++) {
        const char *d = m->opsets[first[e]].domain;
        mp_json_key(j, d[0] ? d : "ai.onnx");
        mp_json_int(j, version[e]);
    }
    mp_json_end(j);
    mp_strmap_free(&index);
    free(first);
    free(version);
    return ok;
}

memplan_status memplan_info_json(const memplan_model *m, char **json, size_t *len, memplan_error *err) {
    const memplan_graph *g = m->graph;
    op_hist h;
    mp_buf b;
    mp_buf_init(&b);
    mp_json j;
    mp_json_init(&j, &b);
    bool ok = build_hist(m, &h);
    mp_json_obj(&j);
    MP_JSON_KEY(&j, "ir_version");
    mp_json_int(&j, m->ir_version);
    MP_JSON_KEY(&j, "producer");
    mp_json_str(&j, m->producer_name);
    MP_JSON_KEY(&j, "producer_version");
    mp_json_str(&j, m->producer_version);
    MP_JSON_KEY(&j, "graph_name");
    mp_json_str(&j, g->name);
    MP_JSON_KEY(&j, "opsets");
    if (!json_opsets(&j, m)) ok = false;
    MP_JSON_KEY(&j, "nodes");
    mp_json_int(&j, g->n_nodes);
    MP_JSON_KEY(&j, "nodes_total");
    mp_json_int(&j, m->n_nodes_total);
    MP_JSON_KEY(&j, "reordered");
    mp_json_bool(&j, g->reordered);
    MP_JSON_KEY(&j, "functions");
    mp_json_int(&j, m->n_functions);
    MP_JSON_KEY(&j, "initializers");
    mp_json_int(&j, g->n_initializers);
    MP_JSON_KEY(&j, "initializer_bytes");
    mp_json_uint(&j, memplan_initializer_bytes(m));
    MP_JSON_KEY(&j, "inputs");
    json_values(&j, g, g->inputs, g->n_inputs, true);
    MP_JSON_KEY(&j, "outputs");
    json_values(&j, g, g->outputs, g->n_outputs, false);
    MP_JSON_KEY(&j, "op_types");
    mp_json_obj(&j);
    for (size_t i = 0; i < h.n; i++) {
        mp_json_key(&j, h.items[i].op);
        mp_json_int(&j, h.items[i].count);
    }
    mp_json_end(&j);
    MP_JSON_KEY(&j, "kv_cache"); /* what plan --share-kv would share */
    memplan_plan_link *kv = malloc((size_t)(g->n_outputs ? g->n_outputs : 1) * sizeof *kv);
    if (!kv) ok = false;
    mp_json_kv_pairs(&j, g, kv, kv ? memplan_share_kv_pairs(g, kv) : 0);
    free(kv);
    mp_json_end(&j);
    mp_buf_putc(&b, '\n');
    hist_free(&h);
    if (!ok || b.failed) {
        mp_buf_free(&b);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while writing JSON");
    }
    *json = mp_buf_take(&b, len);
    return MEMPLAN_OK;
}

static void text_type(mp_buf *b, const memplan_type *t) {
    const char *dt = t->kind == MEMPLAN_TYPE_TENSOR ? memplan_dtype_name(t->elem_type) : kind_name(t->kind);
    mp_text_put(b, dt ? dt : "?");
    if (t->rank < 0) {
        mp_buf_puts(b, "[?]");
        return;
    }
    mp_buf_putc(b, '[');
    for (int32_t i = 0; i < t->rank; i++) {
        if (i) mp_buf_putc(b, ',');
        const memplan_dim *d = &t->dims[i];
        if (d->kind == MEMPLAN_DIM_VALUE) mp_text_printf(b, "%lld", (long long)d->value);
        else if (d->kind == MEMPLAN_DIM_PARAM)
            mp_text_put(b, d->param);
        else
            mp_buf_putc(b, '?');
    }
    mp_buf_putc(b, ']');
}

memplan_status memplan_info_text(const memplan_model *m, char **text, size_t *len, memplan_error *err) {
    const memplan_graph *g = m->graph;
    op_hist h;
    mp_buf b;
    mp_buf_init(&b);
    bool ok = build_hist(m, &h);
    mp_text_printf(&b, "ir_version:        %lld\n", (long long)m->ir_version);
    mp_text_printf(&b, "producer:          %s %s\n", m->producer_name, m->producer_version);
    mp_buf_puts(&b, "opsets:           ");
    for (int32_t i = 0; i < m->n_opsets; i++)
        mp_text_printf(&b, " %s=%lld", m->opsets[i].domain[0] ? m->opsets[i].domain : "ai.onnx",
                       (long long)m->opsets[i].version);
    mp_text_printf(&b, "\nnodes:             %d (%lld including subgraphs)%s\n", (int)g->n_nodes,
                   (long long)m->n_nodes_total, g->reordered ? ", reordered topologically" : "");
    mp_text_printf(&b, "initializers:      %d (%llu bytes)\n", (int)g->n_initializers, memplan_initializer_bytes(m));
    mp_text_printf(&b, "inputs:            %d\n", (int)count_true_inputs(g));
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const memplan_value *v = &g->values[g->inputs[i]];
        if (!is_true_input(v)) continue;
        mp_text_printf(&b, "  %s: ", v->name);
        text_type(&b, &v->type);
        mp_buf_putc(&b, '\n');
    }
    mp_text_printf(&b, "outputs:           %d\n", (int)g->n_outputs);
    for (int32_t i = 0; i < g->n_outputs; i++) {
        const memplan_value *v = &g->values[g->outputs[i]];
        mp_text_printf(&b, "  %s: ", v->name);
        text_type(&b, &v->type);
        mp_buf_putc(&b, '\n');
    }
    memplan_plan_link *pairs = malloc((size_t)(g->n_outputs ? g->n_outputs : 1) * sizeof *pairs);
    size_t kv = pairs ? memplan_share_kv_pairs(g, pairs) : 0;
    free(pairs);
    if (!pairs) ok = false;
    if (kv)
        mp_text_printf(&b, "kv cache:          %zu present output%s with a past input (plan --share-kv shares them)\n",
                       kv, kv == 1 ? "" : "s");
    mp_buf_puts(&b, "op_types:\n");
    for (size_t i = 0; i < h.n; i++) mp_text_printf(&b, "  %-24s %lld\n", h.items[i].op, (long long)h.items[i].count);
    hist_free(&h);
    if (!ok || b.failed) {
        mp_buf_free(&b);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while writing text");
    }
    *text = mp_buf_take(&b, len);
    return MEMPLAN_OK;
}
