/*
 * build.c -- name resolution, captures and topological order.
 *
 * Resolution of one graph, in this order:
 *   1. define: graph inputs, initializers, node outputs (each name once);
 *   2. graph outputs and value_info lend their declared types, and every
 *      declaration its metadata_props;
 *   3. subgraphs are resolved recursively; a name they cannot find locally is
 *      looked up in the enclosing scopes and becomes a CAPTURE value there;
 *   4. node inputs are resolved the same way;
 *   5. each node gets the outer values its subgraphs read (its captures);
 *   6. nodes are ordered topologically (the file's order if it already is).
 */
#include "ir/build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"

typedef struct scope {
    mp_ir_ctx *ctx;
    mp_pgraph *pg;
    struct scope *parent;
    int depth;
    mp_strmap *map;
    memplan_value *values; /* malloc'ed while resolving */
    int32_t n_values, cap_values;
    int32_t *captures;
    int32_t n_captures, cap_captures;
    int32_t **outs; /* per node (file index): its outputs' ids, -1 for empty slots (arena) */
} scope;

mp_pgraph *mp_pgraph_new(mp_arena *arena, const char *name) {
    mp_pgraph *pg = mp_arena_alloc(arena, sizeof *pg);
    if (!pg) return NULL;
    pg->g = mp_arena_alloc(arena, sizeof *pg->g);
    if (!pg->g) return NULL;
    pg->name = name ? name : "";
    pg->what = "graph";
    return pg;
}

static memplan_status oom(scope *s) {
    return memplan_error_set(s->ctx->err, MEMPLAN_ENOMEM, "out of memory while building the graph");
}

/* "graph 'name'" or "function 'name'" for messages. */
static const char *where_name(const scope *s) { return s->pg->name; }

static const char *node_label(const mp_pnode *n, int32_t index, char *buf, size_t size) {
    if (n->name && n->name[0]) snprintf(buf, size, "'%s' (%s)", n->name, n->op_type);
    else
        snprintf(buf, size, "#%d (%s)", (int)index, n->op_type);
    return buf;
}

static int32_t add_value(scope *s, const char *name, uint32_t flags) {
    if (s->n_values == s->cap_values) {
        int32_t cap = s->cap_values ? s->cap_values * 2 : 16;
        memplan_value *v = realloc(s->values, (size_t)cap * sizeof *v);
        if (!v) return -1;
        s->values = v;
        s->cap_values = cap;
    }
    if (++s->ctx->values_total > MEMPLAN_MAX_VALUES) return -2;
    int32_t id = s->n_values++;
    memplan_value *v = &s->values[id];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->flags = flags;
    v->type.rank = -1;
    v->producer = -1;
    v->producer_output = -1;
    v->outer = -1;
    if (!mp_strmap_put(s->map, name, id)) return -1;
    return id;
}

static memplan_status add_value_checked(scope *s, const char *name, uint32_t flags, int32_t *id) {
    *id = add_value(s, name, flags);
    if (*id == -2) return memplan_error_set(s->ctx->err, MEMPLAN_ELIMIT, "more than %d values", MEMPLAN_MAX_VALUES);
    if (*id < 0) return oom(s);
    return MEMPLAN_OK;
}

/* Find a name here or in an enclosing scope (creating CAPTURE values on the
 * way down). -1 when no scope defines it, -2 on out of memory. */
static int32_t lookup(scope *s, const char *name) {
    int32_t id = mp_strmap_get(s->map, name);
    if (id >= 0 || !s->parent) return id;
    int32_t outer = lookup(s->parent, name);
    if (outer < 0) return outer;
    id = add_value(s, name, MEMPLAN_VALUE_CAPTURE);
    if (id < 0) return -2;
    s->values[id].outer = outer;
    s->values[id].type = s->parent->values[outer].type;
    if (s->n_captures == s->cap_captures) {
        int32_t cap = s->cap_captures ? s->cap_captures * 2 : 8;
        int32_t *c = realloc(s->captures, (size_t)cap * sizeof *c);
        if (!c) return -2;
        s->captures = c;
        s->cap_captures = cap;
    }
    s->captures[s->n_captures++] = id;
    return id;
}

/* Take a declared type when the value has none, or a shape when it has none. */
static void lend_type(memplan_value *v, const memplan_type *t) {
    bool better = v->type.kind == MEMPLAN_TYPE_NONE || (v->type.kind == t->kind && v->type.rank < 0 && t->rank >= 0 &&
                                                        (v->type.elem_type == t->elem_type || v->type.elem_type == 0));
    if (t->kind != MEMPLAN_TYPE_NONE && better) {
        v->type = *t;
        v->flags |= MEMPLAN_VALUE_DECLARED;
    }
}

static memplan_status define_values(scope *s) {
    mp_pgraph *pg = s->pg;
    char lab[320];
    for (int32_t i = 0; i < pg->n_inputs; i++) {
        const mp_decl *d = &pg->inputs[i];
        if (!d->name[0])
            return memplan_error_set(s->ctx->err, MEMPLAN_EINPUT, "%s '%s': input %d has no name", pg->what,
                                     where_name(s), (int)i);
        if (mp_strmap_get(s->map, d->name) >= 0)
            return memplan_error_set(s->ctx->err, MEMPLAN_EINPUT, "%s '%s': input '%s' is declared twice", pg->what,
                                     where_name(s), d->name);
        int32_t id;
        memplan_status st = add_value_checked(s, d->name, MEMPLAN_VALUE_INPUT, &id);
        if (st) return st;
        lend_type(&s->values[id], &d->type);
    }
    for (int32_t i = 0; i < pg->n_inits; i++) {
        memplan_tensor *t = &pg->inits[i];
        if (!t->name[0])
            return memplan_error_set(s->ctx->err, MEMPLAN_EINPUT, "%s '%s': initializer %d has no name", pg->what,
                                     where_name(s), (int)i);
        int32_t id = mp_strmap_get(s->map, t->name);
        if (id >= 0 && (s->values[id].flags & MEMPLAN_VALUE_INITIALIZER))
            return memplan_error_set(s->ctx->err, MEMPLAN_EINPUT, "%s '%s': initializer '%s' is defined twice",
                                     pg->what, where_name(s), t->name);
        if (id < 0) {
            memplan_status st = add_value_checked(s, t->name, 0, &id);
            if (st) return st;
        }
        memplan_value *v = &s->values[id];
        v->flags |= MEMPLAN_VALUE_INITIALIZER | MEMPLAN_VALUE_DECLARED;
        v->initializer = t;
        v->type.kind = MEMPLAN_TYPE_TENSOR;
        v->type.elem_type = t->elem_type;
        v->type.rank = t->rank;
        memplan_dim *dims = mp_arena_array(s->ctx->arena, (size_t)t->rank, sizeof *dims);
        if (t->rank && !dims) return oom(s);
        for (int32_t k = 0; k < t->rank; k++) {
            dims[k].kind = MEMPLAN_DIM_VALUE;
            dims[k].value = t->dims[k];
        }
        v->type.dims = dims;
    }
    for (int32_t i = 0; i < pg->n_nodes; i++) {
        const mp_pnode *n = &pg->nodes[i];
        int32_t *outs = mp_arena_array(s->ctx->arena, (size_t)n->n_out, sizeof *outs);
        if (n->n_out && !outs) return oom(s);
        s->outs[i] = outs;
        for (int32_t k = 0; k < n->n_out; k++) {
            const char *name = n->out[k];
            outs[k] = -1;
            if (!name[0]) continue;
            int32_t id = mp_strmap_get(s->map, name);
            if (id >= 0) {
                const memplan_value *old = &s->values[id];
                const char *by = (old->flags & MEMPLAN_VALUE_NODE_OUTPUT)   ? "another node"
                                 : (old->flags & MEMPLAN_VALUE_INITIALIZER) ? "an initializer"
                                                                            : "a graph input";
                return memplan_error_set(s->ctx->err, MEMPLAN_EINPUT,
                                         "%s '%s': value '%s' is defined twice: by node %s and by %s", pg->what,
                                         where_name(s), name, node_label(n, i, lab, sizeof lab), by);
            }
            memplan_status st = add_value_checked(s, name, MEMPLAN_VALUE_NODE_OUTPUT, &id);
            if (st) return st;
            s->values[id].producer = i; /* file index until ordered */
            s->values[id].producer_output = k;
            outs[k] = id;
        }
    }
    return MEMPLAN_OK;
}

static memplan_status declare_outputs(scope *s, int32_t *ids) {
    mp_pgraph *pg = s->pg;
    for (int32_t i = 0; i < pg->n_outputs; i++) {
        const mp_decl *d = &pg->outputs[i];
        int32_t id = d->name[0] ? lookup(s, d->name) : -1;
        if (id == -2) return oom(s);
        if (id < 0)
            return memplan_error_set(s->ctx->err, MEMPLAN_EINPUT, "%s '%s': output '%s' is not defined", pg->what,
                                     where_name(s), d->name);
        s->values[id].flags |= MEMPLAN_VALUE_OUTPUT;
        lend_type(&s->values[id], &d->type);
        ids[i] = id;
    }
    for (int32_t i = 0; i < pg->n_vinfo; i++) {
        int32_t id = mp_strmap_get(s->map, pg->vinfo[i].name);
        if (id >= 0) lend_type(&s->values[id], &pg->vinfo[i].type);
    }
    return MEMPLAN_OK;
}

/* One walk over the declarations that carry metadata (graph inputs, outputs,
 * value_info, in that order): counting each value's entries into count[], or
 * (fill) appending them to the value's array, which has room for count[v]. */
static void metadata_walk(scope *s, const int32_t *out_ids, int64_t *count, bool fill) {
    mp_pgraph *pg = s->pg;
    const mp_decl *lists[3] = {pg->inputs, pg->outputs, pg->vinfo};
    int32_t sizes[3] = {pg->n_inputs, pg->n_outputs, pg->n_vinfo};
    for (int l = 0; l < 3; l++)
        for (int32_t i = 0; i < sizes[l]; i++) {
            const mp_decl *d = &lists[l][i];
            int32_t id = !d->n_meta ? -1 : l == 1 ? out_ids[i] : mp_strmap_get(s->map, d->name);
            if (id < 0) continue;
            if (!fill) {
                count[id] += d->n_meta;
                continue;
            }
            memplan_value *v = &s->values[id];
            memcpy((memplan_kv *)v->metadata + v->n_metadata, d->meta, (size_t)d->n_meta * sizeof *d->meta);
            v->n_metadata += d->n_meta;
        }
}

/* Each value gets the metadata of all its declarations in one array,
 * counted first so a name declared many times stays linear. */
static memplan_status gather_metadata(scope *s, const int32_t *out_ids) {
    int64_t *count = calloc((size_t)(s->n_values ? s->n_values : 1), sizeof *count);
    if (!count) return oom(s);
    metadata_walk(s, out_ids, count, false);
    memplan_status st = MEMPLAN_OK;
    for (int32_t v = 0; !st && v < s->n_values; v++) {
        if (!count[v]) continue;
        if (count[v] > INT32_MAX)
            st = memplan_error_set(s->ctx->err, MEMPLAN_ELIMIT,
                                   "%s '%s': value '%s' has more than %d metadata_props entries", s->pg->what,
                                   where_name(s), s->values[v].name, INT32_MAX);
        else if (!(s->values[v].metadata = mp_arena_array(s->ctx->arena, (size_t)count[v], sizeof(memplan_kv))))
            st = oom(s);
    }
    if (!st) metadata_walk(s, out_ids, count, true);
    free(count);
    return st;
}

static memplan_status resolve_scope(mp_ir_ctx *ctx, mp_pgraph *pg, scope *parent);

/* Control-flow ops of the default domain and the graph attributes they need. */
static memplan_status check_control_flow(scope *s, const mp_pnode *n, int32_t index) {
    static const struct {
        const char *op, *attrs[2];
    } REQUIRED[] = {{"If", {"then_branch", "else_branch"}}, {"Loop", {"body", NULL}}, {"Scan", {"body", NULL}}};
    if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0) return MEMPLAN_OK;
    for (size_t r = 0; r < sizeof REQUIRED / sizeof REQUIRED[0]; r++) {
        if (strcmp(n->op_type, REQUIRED[r].op) != 0) continue;
        for (int k = 0; k < 2 && REQUIRED[r].attrs[k]; k++) {
            bool found = false;
            for (int32_t a = 0; a < n->n_attrs && !found; a++)
                found = n->attrs[a].g && strcmp(n->attrs[a].name, REQUIRED[r].attrs[k]) == 0;
            if (!found) {
                char lab[320];
                return memplan_error_set(s->ctx->err, MEMPLAN_EINPUT, "%s '%s': node %s has no '%s' graph", s->pg->what,
                                         where_name(s), node_label(n, index, lab, sizeof lab), REQUIRED[r].attrs[k]);
            }
        }
    }
    return MEMPLAN_OK;
}

/* Inputs of every node as ids, -1 for empty slots. */
static memplan_status resolve_inputs(scope *s, int32_t **in_ids) {
    mp_pgraph *pg = s->pg;
    char lab[320];
    for (int32_t i = 0; i < pg->n_nodes; i++) {
        const mp_pnode *n = &pg->nodes[i];
        int32_t *ids = mp_arena_array(s->ctx->arena, (size_t)n->n_in, sizeof *ids);
        if (n->n_in && !ids) return oom(s);
        for (int32_t k = 0; k < n->n_in; k++) {
            ids[k] = -1;
            if (!n->in[k][0]) continue;
            int32_t id = lookup(s, n->in[k]);
            if (id == -2) return oom(s);
            if (id < 0)
                return memplan_error_set(s->ctx->err, MEMPLAN_EINPUT,
                                         "%s '%s': node %s reads '%s', which nothing defines", pg->what, where_name(s),
                                         node_label(n, i, lab, sizeof lab), n->in[k]);
            ids[k] = id;
        }
        in_ids[i] = ids;
    }
    return MEMPLAN_OK;
}

/* Outer values read by a node's subgraphs, deduplicated in first-read order:
 * each subgraph's nodes in file order, a node's inputs before what its own
 * subgraphs read (the order of the reference's referenced(), docs/semantics.md, "Reads and last uses"),
 * then the outer values only the subgraph's outputs name.
 * mark[v] == stamp when value v is already listed for this node (mark has one
 * entry per value of the scope), so a node reading many outer values stays linear. */
static memplan_status node_captures(scope *s, const mp_pnode *n, int32_t *mark, int32_t stamp, int32_t **out,
                                    int32_t *count) {
    int32_t total = 0;
    for (int32_t k = 0; k < n->n_sub; k++) total += n->sub[k]->g->n_captures;
    *out = NULL;
    *count = 0;
    if (!total) return MEMPLAN_OK;
    int32_t *ids = mp_arena_array(s->ctx->arena, (size_t)total, sizeof *ids);
    if (!ids) return oom(s);
    int32_t m = 0;
    for (int32_t k = 0; k < n->n_sub; k++) {
        const memplan_graph *g = n->sub[k]->g;
        int32_t *by_file = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *by_file);
        if (!by_file) return oom(s);
        for (int32_t p = 0; p < g->n_nodes; p++) by_file[g->nodes[p].file_index] = p;
        for (int32_t f = 0; f <= g->n_nodes; f++) {
            const memplan_node *nd = f < g->n_nodes ? &g->nodes[by_file[f]] : NULL;
            int32_t cnt = nd ? nd->n_inputs + nd->n_captures : g->n_captures;
            for (int32_t c = 0; c < cnt; c++) {
                int32_t v = !nd ? g->captures[c] : c < nd->n_inputs ? nd->inputs[c] : nd->captures[c - nd->n_inputs];
                if (v < 0 || !(g->values[v].flags & MEMPLAN_VALUE_CAPTURE)) continue;
                int32_t outer = g->values[v].outer;
                if (mark[outer] == stamp) continue;
                mark[outer] = stamp;
                ids[m++] = outer;
            }
        }
        free(by_file);
    }
    *out = ids;
    *count = m;
    return MEMPLAN_OK;
}

/* Min-heap of node indices, for Kahn's algorithm with file order as priority. */
static void heap_push(int32_t *h, int32_t *n, int32_t v) {
    int32_t i = (*n)++;
    while (i > 0) {
        int32_t p = (i - 1) / 2;
        if (h[p] <= v) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = v;
}

static int32_t heap_pop(int32_t *h, int32_t *n) {
    int32_t top = h[0];
    int32_t v = h[--(*n)];
    int32_t i = 0;
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1] < h[c]) c++;
        if (v <= h[c]) break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) h[i] = v;
    return top;
}

/* Producer (file index) of each dependency of node i, through callback-free loops. */
#define FOR_EACH_DEP(s, in_ids, caps, ncaps, i, body)                                                                  \
    do {                                                                                                               \
        for (int32_t k_ = 0; k_ < (s)->pg->nodes[i].n_in; k_++) {                                                      \
            int32_t v_ = (in_ids)[i][k_];                                                                              \
            int32_t dep = v_ >= 0 ? (s)->values[v_].producer : -1;                                                     \
            if (dep >= 0) { body; }                                                                                    \
        }                                                                                                              \
        for (int32_t k_ = 0; k_ < (ncaps)[i]; k_++) {                                                                  \
            int32_t dep = (s)->values[(caps)[i][k_]].producer;                                                         \
            if (dep >= 0) { body; }                                                                                    \
        }                                                                                                              \
    } while (0)

static memplan_status topo_order(scope *s, int32_t **in_ids, int32_t **caps, int32_t *ncaps, int32_t *order,
                                 bool *reordered) {
    int32_t n = s->pg->n_nodes;
    bool sorted = true;
    for (int32_t i = 0; i < n && sorted; i++) FOR_EACH_DEP(s, in_ids, caps, ncaps, i, if (dep >= i) sorted = false);
    *reordered = !sorted;
    if (sorted) {
        for (int32_t i = 0; i < n; i++) order[i] = i;
        return MEMPLAN_OK;
    }
    /* Kahn: successor lists in CSR form. */
    int32_t *indeg = calloc((size_t)n, sizeof *indeg);
    int32_t *start = calloc((size_t)n + 1, sizeof *start);
    int32_t *heap = malloc((size_t)n * sizeof *heap);
    int64_t edges = 0;
    for (int32_t i = 0; i < n; i++) FOR_EACH_DEP(s, in_ids, caps, ncaps, i, edges++);
    int32_t *succ = malloc((size_t)(edges ? edges : 1) * sizeof *succ);
    int32_t *fill = calloc((size_t)n + 1, sizeof *fill);
    memplan_status st = MEMPLAN_OK;
    if (!indeg || !start || !heap || !succ || !fill) {
        st = oom(s);
        goto done;
    }
    for (int32_t i = 0; i < n; i++)
        FOR_EACH_DEP(s, in_ids, caps, ncaps, i, {
            start[dep + 1]++;
            indeg[i]++;
        });
    for (int32_t i = 0; i < n; i++) start[i + 1] += start[i];
    for (int32_t i = 0; i < n; i++) FOR_EACH_DEP(s, in_ids, caps, ncaps, i, succ[start[dep] + fill[dep]++] = i);
    int32_t hn = 0, m = 0;
    for (int32_t i = 0; i < n; i++)
        if (!indeg[i]) heap_push(heap, &hn, i);
    while (hn) {
        int32_t u = heap_pop(heap, &hn);
        order[m++] = u;
        for (int32_t e = start[u]; e < start[u + 1]; e++)
            if (--indeg[succ[e]] == 0) heap_push(heap, &hn, succ[e]);
    }
    if (m < n) {
        /* Name a value on the cycle. The first blocked node may only sit
         * downstream of it: step to each node's first blocked producer
         * until a node repeats (fill[] counts visits; it is free now). */
        int32_t u = 0;
        while (!indeg[u]) u++;
        int32_t prod = -1;
        memset(fill, 0, ((size_t)n + 1) * sizeof *fill);
        while (!fill[u]) {
            fill[u] = 1;
            prod = -1;
            FOR_EACH_DEP(
                s, in_ids, caps, ncaps, u, if (prod < 0 && indeg[dep]) { prod = dep; });
            u = prod;
        }
        const char *name = "?";
        prod = -1;
        FOR_EACH_DEP(
            s, in_ids, caps, ncaps, u, if (prod < 0 && indeg[dep]) { prod = dep; });
        for (int32_t k = 0; k < s->pg->nodes[u].n_in; k++) {
            int32_t v = in_ids[u][k];
            if (v >= 0 && s->values[v].producer == prod) name = s->values[v].name;
        }
        for (int32_t k = 0; k < ncaps[u] && !strcmp(name, "?"); k++)
            if (s->values[caps[u][k]].producer == prod) name = s->values[caps[u][k]].name;
        char a[320], b[320];
        st = memplan_error_set(s->ctx->err, MEMPLAN_EINPUT,
                               "%s '%s' has a cycle through value '%s' (node %s reads it, node %s makes it)",
                               s->pg->what, where_name(s), name, node_label(&s->pg->nodes[u], u, a, sizeof a),
                               prod >= 0 ? node_label(&s->pg->nodes[prod], prod, b, sizeof b) : "?");
    }
done:
    free(indeg);
    free(start);
    free(heap);
    free(succ);
    free(fill);
    return st;
}

static memplan_status finish(scope *s, int32_t **in_ids, int32_t **caps, int32_t *ncaps, int32_t *out_ids) {
    mp_pgraph *pg = s->pg;
    memplan_graph *g = pg->g;
    mp_arena *a = s->ctx->arena;
    int32_t n = pg->n_nodes;
    int32_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    int32_t *pos = malloc((size_t)(n ? n : 1) * sizeof *pos);
    if (!order || !pos) {
        free(order);
        free(pos);
        return oom(s);
    }
    memplan_status st = topo_order(s, in_ids, caps, ncaps, order, &g->reordered);
    memplan_node *nodes = NULL;
    if (!st && n) {
        nodes = mp_arena_array(a, (size_t)n, sizeof *nodes);
        if (!nodes) st = oom(s);
    }
    for (int32_t p = 0; !st && p < n; p++) {
        int32_t i = order[p];
        pos[i] = p;
        const mp_pnode *pn = &pg->nodes[i];
        memplan_node *nd = &nodes[p];
        nd->name = pn->name;
        nd->op_type = pn->op_type;
        nd->domain = pn->domain;
        nd->overload = pn->overload;
        nd->file_index = i;
        nd->n_inputs = pn->n_in;
        nd->inputs = in_ids[i];
        nd->n_outputs = pn->n_out;
        nd->outputs = s->outs[i];
        nd->n_attrs = pn->n_attrs;
        nd->attrs = pn->attrs;
        nd->n_subgraphs = pn->n_sub;
        const memplan_graph **subs = mp_arena_array(a, (size_t)pn->n_sub, sizeof *subs);
        if (pn->n_sub && !subs) {
            st = oom(s);
            break;
        }
        for (int32_t k = 0; k < pn->n_sub; k++) subs[k] = pn->sub[k]->g;
        nd->subgraphs = subs;
        nd->n_captures = ncaps[i];
        nd->captures = caps[i];
        nd->n_metadata = pn->n_meta;
        nd->metadata = pn->meta;
    }
    if (!st) {
        for (int32_t v = 0; v < s->n_values; v++)
            if (s->values[v].producer >= 0) s->values[v].producer = pos[s->values[v].producer];
        memplan_value *values = mp_arena_array(a, (size_t)s->n_values, sizeof *values);
        int32_t *inputs = mp_arena_array(a, (size_t)pg->n_inputs, sizeof *inputs);
        int32_t *inits = mp_arena_array(a, (size_t)pg->n_inits, sizeof *inits);
        int32_t *captures = mp_arena_array(a, (size_t)s->n_captures, sizeof *captures);
        if ((s->n_values && !values) || (pg->n_inputs && !inputs) || (pg->n_inits && !inits) ||
            (s->n_captures && !captures)) {
            st = oom(s);
        } else {
            if (s->n_values) memcpy(values, s->values, (size_t)s->n_values * sizeof *values);
            for (int32_t i = 0; i < pg->n_inputs; i++) inputs[i] = mp_strmap_get(s->map, pg->inputs[i].name);
            for (int32_t i = 0; i < pg->n_inits; i++) inits[i] = mp_strmap_get(s->map, pg->inits[i].name);
            if (s->n_captures) memcpy(captures, s->captures, (size_t)s->n_captures * sizeof *captures);
            g->name = pg->name;
            g->n_values = s->n_values;
            g->values = values;
            g->n_nodes = n;
            g->nodes = nodes;
            g->n_inputs = pg->n_inputs;
            g->inputs = inputs;
            g->n_outputs = pg->n_outputs;
            g->outputs = out_ids;
            g->n_initializers = pg->n_inits;
            g->initializers = inits;
            g->n_captures = s->n_captures;
            g->captures = captures;
            g->n_metadata = pg->n_meta;
            g->metadata = pg->meta;
            g->depth = s->depth;
        }
    }
    free(order);
    free(pos);
    return st;
}

static memplan_status resolve_scope(mp_ir_ctx *ctx, mp_pgraph *pg, scope *parent) {
    scope s = {0};
    s.ctx = ctx;
    s.pg = pg;
    s.parent = parent;
    s.depth = parent ? parent->depth + 1 : 0;
    if (s.depth > MEMPLAN_MAX_GRAPH_DEPTH)
        return memplan_error_set(ctx->err, MEMPLAN_ELIMIT, "subgraphs nested deeper than %d levels (in '%s')",
                                 MEMPLAN_MAX_GRAPH_DEPTH, pg->name);
    ctx->nodes_total += pg->n_nodes;
    if (ctx->nodes_total > MEMPLAN_MAX_NODES)
        return memplan_error_set(ctx->err, MEMPLAN_ELIMIT, "more than %d nodes", MEMPLAN_MAX_NODES);
    s.map = mp_ir_new_map(ctx);
    if (!s.map) return oom(&s);
    size_t names = (size_t)pg->n_inputs + (size_t)pg->n_inits;
    for (int32_t i = 0; i < pg->n_nodes; i++) names += (size_t)pg->nodes[i].n_out;
    if (!mp_strmap_reserve(s.map, names)) return oom(&s);
    if (names > 16 && names <= INT32_MAX) { /* add_value's room, grown only for captures */
        s.values = malloc(names * sizeof *s.values);
        if (!s.values) return oom(&s);
        s.cap_values = (int32_t)names;
    }
    pg->g->parent = parent ? parent->pg->g : NULL;
    pg->g->internal = s.map;
    pg->g->id = ctx->n_graphs++;

    int32_t n = pg->n_nodes;
    int32_t **in_ids = calloc((size_t)(n ? n : 1), sizeof *in_ids);
    int32_t **caps = calloc((size_t)(n ? n : 1), sizeof *caps);
    int32_t *ncaps = calloc((size_t)(n ? n : 1), sizeof *ncaps);
    s.outs = calloc((size_t)(n ? n : 1), sizeof *s.outs);
    int32_t *out_ids = mp_arena_array(ctx->arena, (size_t)pg->n_outputs, sizeof *out_ids);
    memplan_status st = MEMPLAN_OK;
    if (!in_ids || !caps || !ncaps || !s.outs || (pg->n_outputs && !out_ids)) st = oom(&s);
    if (!st) st = define_values(&s);
    if (!st) st = declare_outputs(&s, out_ids);
    if (!st) st = gather_metadata(&s, out_ids);
    for (int32_t i = 0; !st && i < n; i++) st = check_control_flow(&s, &pg->nodes[i], i);
    for (int32_t i = 0; !st && i < n; i++)
        for (int32_t k = 0; !st && k < pg->nodes[i].n_sub; k++) st = resolve_scope(ctx, pg->nodes[i].sub[k], &s);
    if (!st) st = resolve_inputs(&s, in_ids);
    int32_t *mark = NULL;
    if (!st) {
        mark = malloc((size_t)(s.n_values ? s.n_values : 1) * sizeof *mark);
        if (!mark) st = oom(&s);
        for (int32_t v = 0; mark && v < s.n_values; v++) mark[v] = -1;
    }
    for (int32_t i = 0; !st && i < n; i++) st = node_captures(&s, &pg->nodes[i], mark, i, &caps[i], &ncaps[i]);
    free(mark);
    if (!st) st = finish(&s, in_ids, caps, ncaps, out_ids);
    free(in_ids);
    free(caps);
    free(ncaps);
    free(s.outs);
    free(s.values);
    free(s.captures);
    return st;
}

memplan_status mp_ir_resolve(mp_ir_ctx *ctx, mp_pgraph *pg) { return resolve_scope(ctx, pg, NULL); }

mp_strmap *mp_ir_new_map(mp_ir_ctx *ctx) {
    if (ctx->n_maps == ctx->cap_maps) {
        size_t cap = ctx->cap_maps ? ctx->cap_maps * 2 : 8;
        mp_strmap **m = realloc(ctx->maps, cap * sizeof *m);
        if (!m) return NULL;
        ctx->maps = m;
        ctx->cap_maps = cap;
    }
    mp_strmap *map = malloc(sizeof *map);
    if (!map) return NULL;
    mp_strmap_init(map);
    ctx->maps[ctx->n_maps++] = map;
    return map;
}

void mp_ir_ctx_free(mp_ir_ctx *ctx) {
    for (size_t i = 0; i < ctx->n_maps; i++) {
        mp_strmap_free(ctx->maps[i]);
        free(ctx->maps[i]);
    }
    free(ctx->maps);
    ctx->maps = NULL;
    ctx->n_maps = ctx->cap_maps = 0;
}
