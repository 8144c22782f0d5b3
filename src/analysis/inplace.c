/*
 * inplace.c -- in-place reuse and release lists (docs/semantics.md: "In-place reuse", "Release lists", "Decision log"),
 * the context that holds every seed-001 result, and its accessors.
 *
 * Steps (memplan_inplace_compute):
 *   1. referenced(i), last_use(v), producer(v), protected(v);
 *   2. tags (tags.c);
 *   3. per node: reuse matching (equal pass, then greater pass), release_after,
 *      not_used_after, release_after_shape_tag, and the decision log;
 *   4. the memory profile (profile.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/inplace_internal.h"

/* ---- small helpers ------------------------------------------------------ */

bool mp_ilist_init(mp_ilist *l, int32_t n_nodes) {
    memset(l, 0, sizeof *l);
    l->off = calloc((size_t)n_nodes + 1, sizeof *l->off);
    return l->off != NULL;
}

bool mp_ilist_push(mp_ilist *l, int32_t x) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        int32_t *v = realloc(l->v, cap * sizeof *v);
        if (!v) return false;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return true;
}

void mp_ilist_mark(mp_ilist *l, int32_t node) { l->off[node + 1] = (int32_t)l->n; }

void mp_ilist_free(mp_ilist *l) {
    free(l->v);
    free(l->off);
    memset(l, 0, sizeof *l);
}

bool mp_is_op(const memplan_node *n, const char *op) {
    return (!n->domain[0] || strcmp(n->domain, "ai.onnx") == 0) && strcmp(n->op_type, op) == 0;
}

const char *memplan_tag_name(memplan_tag tag) {
    static const char *const NAMES[MEMPLAN_TAG_COUNT] = {"", "shape", "axes", "weight", "ambiguous"};
    return (unsigned)tag < MEMPLAN_TAG_COUNT ? NAMES[tag] : "";
}

bool memplan_tag_parse(const char *text, memplan_tag *tag) {
    for (int t = 0; text && t < MEMPLAN_TAG_COUNT; t++)
        if (strcmp(text, memplan_tag_name((memplan_tag)t)) == 0) {
            *tag = (memplan_tag)t;
            return true;
        }
    return false;
}

const char *memplan_reuse_kind_name(memplan_reuse_kind kind) {
    return kind == MEMPLAN_REUSE_GREATER ? "greater" : "equal";
}

const char *memplan_event_action_name(memplan_event_action action) {
    switch (action) {
    case MEMPLAN_EVENT_INPLACE: return "inplace";
    case MEMPLAN_EVENT_RELEASE: return "release";
    default: return "release_shape_tag";
    }
}

const char *memplan_bucket_name(memplan_bucket b) {
    static const char *const NAMES[MEMPLAN_BUCKET_COUNT] = {"inputs", "initializers", "intermediates", "outputs"};
    return (unsigned)b < MEMPLAN_BUCKET_COUNT ? NAMES[b] : "";
}

static memplan_status oom(memplan_error *err) {
    return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory in the in-place analysis");
}

/* ---- step 1: referenced, last use, producer, protection ------------------ */

/* referenced(i): direct inputs (non-empty, de-duplicated, in order), then the
 * outer values the node's subgraphs read (the IR resolved shadowing). */
static memplan_status compute_referenced(memplan_inplace *c, memplan_error *err) {
    const memplan_graph *g = c->g;
    int32_t *seen = malloc((size_t)(c->n_values ? c->n_values : 1) * sizeof *seen);
    if (!seen || !mp_ilist_init(&c->ref, c->n_nodes)) {
        free(seen);
        return oom(err);
    }
    for (int32_t v = 0; v < c->n_values; v++) seen[v] = -1;
    for (int32_t i = 0; i < c->n_nodes; i++) {
        const memplan_node *n = &g->nodes[i];
        for (int32_t pass = 0; pass < 2; pass++) {
            int32_t cnt = pass ? n->n_captures : n->n_inputs;
            const int32_t *ids = pass ? n->captures : n->inputs;
            for (int32_t k = 0; k < cnt; k++) {
                int32_t v = ids[k];
                if (v < 0 || v >= c->n_values || seen[v] == i) continue;
                seen[v] = i;
                if (!mp_ilist_push(&c->ref, v)) {
                    free(seen);
                    return oom(err);
                }
                c->last_use[v] = i; /* nodes come in order: the last write wins */
            }
        }
        mp_ilist_mark(&c->ref, i);
    }
    free(seen);
    return MEMPLAN_OK;
}

/* producer(v) and protected(v) (docs/semantics.md, "In-place reuse"). */
static void compute_producers(memplan_inplace *c) {
    for (int32_t v = 0; v < c->n_values; v++) {
        const memplan_value *val = &c->g->values[v];
        bool input = (val->flags & MEMPLAN_VALUE_INPUT) != 0;
        bool init = (val->flags & MEMPLAN_VALUE_INITIALIZER) != 0;
        bool output = (val->flags & MEMPLAN_VALUE_OUTPUT) != 0;
        bool outer = (val->flags & MEMPLAN_VALUE_CAPTURE) != 0; /* a parent's buffer, read only */
        c->protect[v] = init || output || outer || (input && !c->allow_input_overwrite);
        if (val->producer >= 0) c->producer[v] = val->producer;
        else if (input && !init && c->allow_input_overwrite)
            c->producer[v] = -1;
        else
            c->producer[v] = MP_NO_PRODUCER;
    }
}

/* ---- step 3: reuse and release lists ------------------------------------- */

static const memplan_vshape *vshape(const memplan_inplace *c, int32_t v) {
    return memplan_shapes_value(c->shapes, c->g, v);
}

static bool has_type(const memplan_vshape *s) { return s && s->kind == MEMPLAN_TYPE_TENSOR && s->elem_type != 0; }

static int cmp_reuse(const void *a, const void *b) {
    const memplan_reuse *x = a, *y = b;
    return (x->output_index > y->output_index) - (x->output_index < y->output_index);
}

/* ---- step 3a: reuse matching ("In-place reuse") -----------------------------------------
 *
 * "In-place reuse" reads as a double loop: outputs in order, each taking the first eligible
 * input that fits. Visiting every (output, input) pair is quadratic in the
 * node's arity (cubic with the occurrence count), and custom ops, Concat or
 * Split can have many thousands of each. "Fits as equal" is a disjunction of
 * key equalities:
 *   A  the same element type and the same canonical dims;
 *   B  input 0 of Squeeze/Unsqueeze with the same element type;
 *   C  the same byte size: both concrete and equal, or both symbolic with the
 *      same canonical expression.
 * So the eligible inputs are sorted once by the A key and once by the C key
 * (stable: input order within a key), and an output's first fitting input is
 * the smallest of: the first unused input of its A group, that of its C group,
 * and input 0 under B. "Greater" (both concrete, the input strictly larger)
 * is the leftmost unused input above the output's size, found in a max
 * segment tree over the inputs. A node costs O((inputs + outputs) log inputs)
 * key comparisons; the results are the double loop's exactly
 * (native-tests/test_inplace_match.c runs a copy of it on random nodes).
 */

enum { BYTES_NONE, BYTES_CONST, BYTES_SYMBOLIC };

/* Scratch space of the matching, sized once for the widest node. */
typedef struct matcher {
    const memplan_inplace *c;
    const memplan_node *n;
    int32_t node;
    int32_t *stamp, *where;       /* per value: last node that read it; its input index there, -1 if repeated */
    const memplan_vshape **shape; /* per input, NULL when not eligible */
    uint8_t *bclass;              /* per input: BYTES_* */
    int64_t *bval;                /* per input: the size, or the expression handle */
    uint8_t *in_used;             /* matched, or never eligible */
    uint8_t *out_used;
    int32_t *by_dims, *by_bytes, *tmp; /* eligible inputs sorted by the A and the C key */
    int32_t n_eligible, n_dims, n_bytes;
    int32_t *dims_head, *dims_end, *bytes_head, *bytes_end; /* at a group's first place: its first candidate, its end */
    int64_t *tree; /* max of the concrete sizes of unused inputs; INT64_MIN for none */
    size_t leaves;
    uint64_t work;
} matcher;

/* Everything about input k but the output: may node's input k be overwritten at all? */
static bool input_eligible(const matcher *m, int32_t k) {
    const memplan_inplace *c = m->c;
    int32_t v = m->n->inputs[k];
    if (v < 0 || !c->g->values[v].name[0] || m->where[v] != k || c->protect[v]) return false;
    if (c->producer[v] == MP_NO_PRODUCER || c->producer[v] >= m->node) return false;
    return c->last_use[v] == m->node && has_type(vshape(c, v));
}

static bool output_eligible(const memplan_inplace *c, int32_t ov) {
    return ov >= 0 && c->g->values[ov].name[0] && has_type(vshape(c, ov));
}

/* The A key exists when every dim is known. */
static bool dims_keyed(const memplan_vshape *s) {
    if (s->rank < 0) return false;
    for (int32_t d = 0; d < s->rank; d++)
        if (s->dims[d] == MEMPLAN_EXPR_NONE) return false;
    return true;
}

static int cmp_dims_key(matcher *m, const memplan_vshape *a, const memplan_vshape *b) {
    m->work++;
    if (a->elem_type != b->elem_type) return a->elem_type < b->elem_type ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    for (int32_t d = 0; d < a->rank; d++, m->work++)
        if (a->dims[d] != b->dims[d]) return a->dims[d] < b->dims[d] ? -1 : 1;
    return 0;
}

static int cmp_bytes_key(matcher *m, int cls_a, int64_t val_a, int cls_b, int64_t val_b) {
    m->work++;
    if (cls_a != cls_b) return cls_a < cls_b ? -1 : 1;
    return (val_a > val_b) - (val_a < val_b);
}

static int bytes_class(const memplan_inplace *c, const memplan_vshape *s, int64_t *val) {
    if (s->bytes == MEMPLAN_EXPR_NONE) return BYTES_NONE;
    if (memplan_expr_is_const(c->pool, s->bytes, val)) return BYTES_CONST;
    *val = s->bytes;
    return BYTES_SYMBOLIC;
}

/* Input j's key against input k's: by A (by_dims) or by C. */
static int cmp_inputs(matcher *m, bool dims, int32_t j, int32_t k) {
    return dims ? cmp_dims_key(m, m->shape[j], m->shape[k])
                : cmp_bytes_key(m, m->bclass[j], m->bval[j], m->bclass[k], m->bval[k]);
}

/* Stable bottom-up merge sort of n input indices (given in increasing order). */
static void sort_inputs(matcher *m, bool dims, int32_t *idx, size_t n) {
    int32_t *a = idx, *b = m->tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, t = lo;
            while (i < mid && j < hi) b[t++] = cmp_inputs(m, dims, a[j], a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid) b[t++] = a[i++];
            while (j < hi) b[t++] = a[j++];
        }
        int32_t *swap = a;
        a = b;
        b = swap;
    }
    if (a != idx) memcpy(idx, a, n * sizeof *idx);
}

/* Record each group of equal keys at its first place: head = first place, end. */
static void mark_groups(matcher *m, bool dims, const int32_t *order, int32_t n, int32_t *head, int32_t *end) {
    for (int32_t p = 0; p < n;) {
        int32_t s = p++;
        while (p < n && cmp_inputs(m, dims, order[p], order[s]) == 0) p++;
        head[s] = s;
        end[s] = p;
    }
}

/* Input k's key against an output's (shape os for A; class and value for C). */
static int cmp_input_output(matcher *m, bool dims, int32_t k, const memplan_vshape *os, int cls, int64_t val) {
    return dims ? cmp_dims_key(m, m->shape[k], os) : cmp_bytes_key(m, m->bclass[k], m->bval[k], cls, val);
}

/* The first place whose key is the output's, or -1 (binary search). */
static int32_t find_group(matcher *m, bool dims, const int32_t *order, int32_t n, const memplan_vshape *os, int cls,
                          int64_t val) {
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (cmp_input_output(m, dims, order[mid], os, cls, val) < 0) lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && cmp_input_output(m, dims, order[lo], os, cls, val) == 0 ? lo : -1;
}

/* The first unused input of the group at place s, other than the output's own
 * value ov (no valid graph reads a value where it is defined; kept so the
 * results are the rule's on any IR). Used places are skipped for good. */
static int32_t first_unused(matcher *m, const int32_t *order, int32_t *head, const int32_t *end, int32_t s,
                            int32_t ov) {
    int32_t h = head[s];
    while (h < end[s] && m->in_used[order[h]]) h++, m->work++;
    head[s] = h;
    for (; h < end[s]; h++, m->work++)
        if (!m->in_used[order[h]] && m->n->inputs[order[h]] != ov) return order[h];
    return -1;
}

/* Tree node t from its two children. */
static void tree_pull(int64_t *tree, size_t t) {
    tree[t] = tree[2 * t] > tree[2 * t + 1] ? tree[2 * t] : tree[2 * t + 1];
}

static void tree_set(matcher *m, int32_t k, int64_t v) {
    size_t i = m->leaves + (size_t)k;
    m->tree[i] = v;
    for (i /= 2; i >= 1; i /= 2, m->work++) tree_pull(m->tree, i);
}

/* The leftmost input whose leaf is above x, or -1. */
static int32_t tree_first_above(matcher *m, int64_t x) {
    if (m->tree[1] <= x) return -1;
    size_t i = 1;
    for (; i < m->leaves; m->work++) i = m->tree[2 * i] > x ? 2 * i : 2 * i + 1;
    return (int32_t)(i - m->leaves);
}

/* Node i's inputs: eligibility, keys, the two sorted orders and the groups. */
static void prepare_inputs(matcher *m, int32_t i) {
    const memplan_node *n = m->n = &m->c->g->nodes[i];
    m->node = i;
    m->work += (uint64_t)n->n_inputs + (uint64_t)n->n_outputs;
    for (int32_t k = 0; k < n->n_inputs; k++) {
        int32_t v = n->inputs[k];
        if (v < 0) continue;
        if (m->stamp[v] != i) {
            m->stamp[v] = i;
            m->where[v] = k;
        } else {
            m->where[v] = -1;
        }
    }
    m->n_eligible = m->n_dims = m->n_bytes = 0;
    for (int32_t k = 0; k < n->n_inputs; k++) {
        bool ok = input_eligible(m, k);
        m->in_used[k] = !ok;
        m->shape[k] = ok ? vshape(m->c, n->inputs[k]) : NULL;
        m->bclass[k] = BYTES_NONE;
        if (!ok) continue;
        m->n_eligible++;
        if (dims_keyed(m->shape[k])) m->by_dims[m->n_dims++] = k;
        m->bclass[k] = (uint8_t)bytes_class(m->c, m->shape[k], &m->bval[k]);
        if (m->bclass[k] != BYTES_NONE) m->by_bytes[m->n_bytes++] = k;
    }
    memset(m->out_used, 0, (size_t)n->n_outputs);
    sort_inputs(m, true, m->by_dims, (size_t)m->n_dims);
    sort_inputs(m, false, m->by_bytes, (size_t)m->n_bytes);
    mark_groups(m, true, m->by_dims, m->n_dims, m->dims_head, m->dims_end);
    mark_groups(m, false, m->by_bytes, m->n_bytes, m->bytes_head, m->bytes_end);
}

/* The first input that fits output o (value ov, shape os) as equal, or -1. */
static int32_t first_equal(matcher *m, bool squeeze, int32_t ov, const memplan_vshape *os) {
    if (squeeze && !m->in_used[0] && m->shape[0]->elem_type == os->elem_type && m->n->inputs[0] != ov) return 0;
    int32_t best = -1, s;
    if (dims_keyed(os) && (s = find_group(m, true, m->by_dims, m->n_dims, os, 0, 0)) >= 0)
        best = first_unused(m, m->by_dims, m->dims_head, m->dims_end, s, ov);
    int64_t val = 0;
    int cls = bytes_class(m->c, os, &val);
    if (cls != BYTES_NONE && (s = find_group(m, false, m->by_bytes, m->n_bytes, NULL, cls, val)) >= 0) {
        int32_t k = first_unused(m, m->by_bytes, m->bytes_head, m->bytes_end, s, ov);
        if (k >= 0 && (best < 0 || k < best)) best = k;
    }
    return best;
}

/* The first unused input strictly larger than output o (concrete sizes), or -1. */
static int32_t first_greater(matcher *m, int32_t ov, const memplan_vshape *os) {
    int64_t bo;
    if (!memplan_expr_is_const(m->c->pool, os->bytes, &bo)) return -1;
    int32_t k = tree_first_above(m, bo);
    if (k >= 0 && m->n->inputs[k] == ov) { /* see first_unused */
        tree_set(m, k, INT64_MIN);
        int32_t next = tree_first_above(m, bo);
        tree_set(m, k, m->bval[k]);
        k = next;
    }
    return k;
}

/* Node i's reuse pairs into dst, sorted by output index; returns their count. */
static size_t match_node(matcher *m, int32_t i, memplan_reuse *dst) {
    const memplan_inplace *c = m->c;
    prepare_inputs(m, i);
    const memplan_node *n = m->n;
    bool squeeze = n->n_inputs > 0 && (mp_is_op(n, "Squeeze") || mp_is_op(n, "Unsqueeze"));
    size_t cnt = 0;
    for (int pass = 0; pass < 2 && m->n_eligible > 0; pass++) {
        memplan_reuse_kind kind = pass ? MEMPLAN_REUSE_GREATER : MEMPLAN_REUSE_EQUAL;
        if (kind == MEMPLAN_REUSE_GREATER) {
            for (m->leaves = 1; m->leaves < (size_t)n->n_inputs; m->leaves *= 2) {}
            for (size_t k = 0; k < m->leaves; k++) {
                bool live = k < (size_t)n->n_inputs && !m->in_used[k] && m->bclass[k] == BYTES_CONST;
                m->tree[m->leaves + k] = live ? m->bval[k] : INT64_MIN;
            }
            for (size_t t = m->leaves - 1; t >= 1; t--) tree_pull(m->tree, t);
            m->work += 2 * m->leaves;
        }
        for (int32_t o = 0; o < n->n_outputs; o++) {
            int32_t ov = n->outputs[o];
            if (m->out_used[o] || !output_eligible(c, ov)) continue;
            const memplan_vshape *os = vshape(c, ov);
            int32_t k = pass ? first_greater(m, ov, os) : first_equal(m, squeeze, ov, os);
            if (k < 0) continue;
            dst[cnt++] = (memplan_reuse){o, k, kind};
            m->in_used[k] = m->out_used[o] = 1;
            if (pass) tree_set(m, k, INT64_MIN);
        }
    }
    qsort(dst, cnt, sizeof *dst, cmp_reuse);
    return cnt;
}

static bool log_event(memplan_inplace *c, memplan_event e) {
    if (!c->events_enabled) return true;
    if (c->n_ev == c->cap_ev) {
        size_t cap = c->cap_ev ? c->cap_ev * 2 : 64;
        memplan_event *ev = realloc(c->ev, cap * sizeof *ev);
        if (!ev) return false;
        c->ev = ev;
        c->cap_ev = cap;
    }
    c->ev[c->n_ev++] = e;
    return true;
}

static memplan_event release_event(const memplan_inplace *c, memplan_event_action a, int32_t i, int32_t v) {
    return (memplan_event){a, i, v, c->g->values[v].name, -1, -1, MEMPLAN_REUSE_EQUAL};
}

/* release_after, not_used_after, shape-tagged subset of node i ("Release lists"). */
static bool release_lists(memplan_inplace *c, int32_t i) {
    for (int32_t r = c->ref.off[i]; r < c->ref.off[i + 1]; r++) {
        int32_t v = c->ref.v[r];
        if (c->last_use[v] != i) continue;
        uint32_t fl = c->g->values[v].flags;
        if (fl & (MEMPLAN_VALUE_INPUT | MEMPLAN_VALUE_INITIALIZER))
            if (!mp_ilist_push(&c->nua, v)) return false;
        if (c->protect[v] || c->producer[v] < 0 || c->producer[v] >= i) continue;
        if (!mp_ilist_push(&c->rel, v) || !log_event(c, release_event(c, MEMPLAN_EVENT_RELEASE, i, v))) return false;
        if (c->has_tags && c->vtag[v] == MEMPLAN_TAG_SHAPE && !mp_ilist_push(&c->rst, v)) return false;
    }
    mp_ilist_mark(&c->rel, i);
    mp_ilist_mark(&c->nua, i);
    mp_ilist_mark(&c->rst, i);
    return true;
}

static void matcher_free(matcher *m) {
    free(m->stamp);
    free(m->shape);
    free(m->bval);
    free(m->in_used);
    free(m->by_dims);
    free(m->tree);
}

/* Scratch for nodes of up to `widest` inputs and outputs; false when memory runs out. */
static bool matcher_init(matcher *m, const memplan_inplace *c, int32_t widest) {
    memset(m, 0, sizeof *m);
    m->c = c;
    size_t nv = (size_t)(c->n_values ? c->n_values : 1), w = (size_t)widest, leaves = 1;
    while (leaves < w) leaves *= 2;
    m->stamp = malloc(2 * nv * sizeof *m->stamp);
    m->shape = malloc(w * sizeof *m->shape);
    m->bval = malloc(w * sizeof *m->bval);
    m->in_used = malloc(3 * w); /* in_used, out_used, bclass */
    m->by_dims = malloc(7 * w * sizeof *m->by_dims);
    m->tree = malloc(2 * leaves * sizeof *m->tree);
    if (!m->stamp || !m->shape || !m->bval || !m->in_used || !m->by_dims || !m->tree) {
        matcher_free(m);
        return false;
    }
    m->where = m->stamp + nv;
    for (size_t v = 0; v < nv; v++) m->stamp[v] = -1;
    m->out_used = m->in_used + w;
    m->bclass = m->in_used + 2 * w;
    m->by_bytes = m->by_dims + w;
    m->tmp = m->by_dims + 2 * w;
    m->dims_head = m->by_dims + 3 * w;
    m->dims_end = m->by_dims + 4 * w;
    m->bytes_head = m->by_dims + 5 * w;
    m->bytes_end = m->by_dims + 6 * w;
    return true;
}

static memplan_status compute_reuse_and_release(memplan_inplace *c, memplan_error *err) {
    const memplan_graph *g = c->g;
    size_t total = 0;
    int32_t widest = 1;
    for (int32_t i = 0; i < c->n_nodes; i++) {
        total += (size_t)(g->nodes[i].n_outputs < g->nodes[i].n_inputs ? g->nodes[i].n_outputs : g->nodes[i].n_inputs);
        if (g->nodes[i].n_inputs > widest) widest = g->nodes[i].n_inputs;
        if (g->nodes[i].n_outputs > widest) widest = g->nodes[i].n_outputs;
    }
    c->reuse_off = calloc((size_t)c->n_nodes + 1, sizeof *c->reuse_off);
    c->reuse = malloc((total ? total : 1) * sizeof *c->reuse);
    matcher m;
    if (!matcher_init(&m, c, widest)) return oom(err);
    if (!c->reuse_off || !c->reuse || !mp_ilist_init(&c->rel, c->n_nodes) || !mp_ilist_init(&c->nua, c->n_nodes) ||
        !mp_ilist_init(&c->rst, c->n_nodes)) {
        matcher_free(&m);
        return oom(err);
    }
    size_t at = 0;
    for (int32_t i = 0; i < c->n_nodes; i++) {
        size_t cnt = match_node(&m, i, c->reuse + at);
        bool ok = release_lists(c, i);
        for (size_t r = 0; ok && r < cnt; r++) {
            const memplan_reuse *x = &c->reuse[at + r];
            ok = log_event(
                c, (memplan_event){MEMPLAN_EVENT_INPLACE, i, -1, NULL, x->output_index, x->input_index, x->kind});
        }
        if (!ok) {
            matcher_free(&m);
            return oom(err);
        }
        at += cnt;
        c->reuse_off[i + 1] = (int32_t)at;
    }
    c->match_work = m.work;
    matcher_free(&m);
    /* Shape-tag entries come after all others, in node order ("Decision log"). */
    for (int32_t i = 0; i < c->n_nodes; i++)
        for (int32_t r = c->rst.off[i]; r < c->rst.off[i + 1]; r++)
            if (!log_event(c, release_event(c, MEMPLAN_EVENT_RELEASE_SHAPE_TAG, i, c->rst.v[r]))) return oom(err);
    return MEMPLAN_OK;
}

/* ---- the context --------------------------------------------------------- */

memplan_status memplan_inplace_compute(const memplan_model *m, memplan_shapes *shapes,
                                       const memplan_inplace_options *opts, memplan_inplace **out, memplan_error *err) {
    return memplan_inplace_compute_graph(m, m ? m->graph : NULL, shapes, opts, out, err);
}

memplan_status memplan_inplace_compute_graph(const memplan_model *m, const memplan_graph *graph, memplan_shapes *shapes,
                                             const memplan_inplace_options *opts, memplan_inplace **out,
                                             memplan_error *err) {
    if (!out) return memplan_error_set(err, MEMPLAN_EUSAGE, "no result pointer given");
    *out = NULL;
    if (!m || !graph || !shapes) return memplan_error_set(err, MEMPLAN_EUSAGE, "no model or shapes given");
    memplan_inplace_options none = {0};
    const memplan_inplace_options *o = opts ? opts : &none;
    memplan_inplace *c = calloc(1, sizeof *c);
    if (!c) return oom(err);
    c->m = m;
    c->g = graph;
    c->shapes = shapes;
    c->pool = memplan_shapes_pool(shapes);
    c->allow_input_overwrite = o->allow_input_overwrite;
    c->events_enabled = o->events;
    c->n_nodes = graph->n_nodes;
    c->n_values = graph->n_values;
    size_t nv = (size_t)(c->n_values ? c->n_values : 1);
    c->last_use = malloc(nv * sizeof *c->last_use);
    c->producer = malloc(nv * sizeof *c->producer);
    c->protect = calloc(nv, 1);
    memplan_status st = MEMPLAN_OK;
    if (!c->last_use || !c->producer || !c->protect) st = oom(err);
    for (int32_t v = 0; !st && v < c->n_values; v++) c->last_use[v] = -1;
    if (!st) st = compute_referenced(c, err);
    if (!st) {
        compute_producers(c);
        st = mp_compute_tags(c, err);
    }
    if (!st) st = compute_reuse_and_release(c, err);
    if (!st) st = mp_compute_profile(c, err);
    if (st) {
        memplan_inplace_free(c);
        return st;
    }
    *out = c;
    return MEMPLAN_OK;
}

void memplan_inplace_free(memplan_inplace *c) {
    if (!c) return;
    free(c->last_use);
    free(c->producer);
    free(c->protect);
    free(c->vtag);
    mp_ilist_free(&c->ref);
    mp_ilist_free(&c->rel);
    mp_ilist_free(&c->nua);
    mp_ilist_free(&c->rst);
    free(c->reuse_off);
    free(c->reuse);
    free(c->ntag);
    free(c->prof);
    free(c->ev);
    free(c);
}

/* ---- accessors ----------------------------------------------------------- */

const memplan_graph *memplan_inplace_graph(const memplan_inplace *c) { return c ? c->g : NULL; }
int32_t memplan_inplace_node_count(const memplan_inplace *c) { return c ? c->n_nodes : 0; }
memplan_expr_pool *memplan_inplace_pool(const memplan_inplace *c) { return c ? c->pool : NULL; }

const memplan_model *memplan_inplace_model(const memplan_inplace *c) { return c ? c->m : NULL; }

memplan_shapes *memplan_inplace_shapes(const memplan_inplace *c) { return c ? c->shapes : NULL; }

memplan_inplace_options memplan_inplace_options_of(const memplan_inplace *c) {
    memplan_inplace_options o = {c && c->allow_input_overwrite, c && c->events_enabled};
    return o;
}
bool memplan_inplace_has_tags(const memplan_inplace *c) { return c && c->has_tags; }

static memplan_status check_node(const memplan_inplace *c, int32_t node, memplan_error *err) {
    if (!c) return memplan_error_set(err, MEMPLAN_EUSAGE, "no in-place context given");
    if (node < 0 || node >= c->n_nodes)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "node index %d is out of range (the graph has %d nodes)",
                                 (int)node, (int)c->n_nodes);
    return MEMPLAN_OK;
}

static memplan_status check_value(const memplan_inplace *c, int32_t value, memplan_error *err) {
    if (!c) return memplan_error_set(err, MEMPLAN_EUSAGE, "no in-place context given");
    if (value < 0 || value >= c->n_values)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "value id %d is out of range (the graph has %d values)",
                                 (int)value, (int)c->n_values);
    return MEMPLAN_OK;
}

static memplan_status list_of(const memplan_inplace *c, const mp_ilist *l, int32_t node, const int32_t **values,
                              size_t *n, memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (st) return st;
    *values = l->v ? l->v + l->off[node] : NULL;
    *n = (size_t)(l->off[node + 1] - l->off[node]);
    return MEMPLAN_OK;
}

memplan_status memplan_inplace_node_reuse(const memplan_inplace *c, int32_t node, const memplan_reuse **items,
                                          size_t *n, memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (st) return st;
    *items = c->reuse + c->reuse_off[node];
    *n = (size_t)(c->reuse_off[node + 1] - c->reuse_off[node]);
    return MEMPLAN_OK;
}

memplan_status memplan_inplace_release_after(const memplan_inplace *c, int32_t node, const int32_t **values, size_t *n,
                                             memplan_error *err) {
    return list_of(c, c ? &c->rel : NULL, node, values, n, err);
}

memplan_status memplan_inplace_not_used_after(const memplan_inplace *c, int32_t node, const int32_t **values, size_t *n,
                                              memplan_error *err) {
    return list_of(c, c ? &c->nua : NULL, node, values, n, err);
}

memplan_status memplan_inplace_release_after_shape_tag(const memplan_inplace *c, int32_t node, const int32_t **values,
                                                       size_t *n, memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (st) return st;
    if (!c->has_tags) return memplan_error_set(err, MEMPLAN_EUSAGE, "no value tags are known");
    return list_of(c, &c->rst, node, values, n, err);
}

memplan_status memplan_inplace_node_tag(const memplan_inplace *c, int32_t node, memplan_tag *tag, memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (!st) *tag = c->ntag[node];
    return st;
}

memplan_status memplan_inplace_node_profile(const memplan_inplace *c, int32_t node, const memplan_profile **p,
                                            memplan_error *err) {
    memplan_status st = check_node(c, node, err);
    if (!st) *p = &c->prof[node];
    return st;
}

memplan_status memplan_inplace_value_tag(const memplan_inplace *c, int32_t value, memplan_tag *tag,
                                         memplan_error *err) {
    memplan_status st = check_value(c, value, err);
    if (!st) *tag = c->vtag[value];
    return st;
}

memplan_status memplan_inplace_last_use(const memplan_inplace *c, int32_t value, int32_t *pos, memplan_error *err) {
    memplan_status st = check_value(c, value, err);
    if (!st) *pos = c->last_use[value];
    return st;
}

bool memplan_inplace_is_protected(const memplan_inplace *c, int32_t value) {
    return c && value >= 0 && value < c->n_values && c->protect[value];
}

size_t memplan_inplace_event_count(const memplan_inplace *c) { return c ? c->n_ev : 0; }
const memplan_event *memplan_inplace_events(const memplan_inplace *c) { return c ? c->ev : NULL; }
bool memplan_inplace_events_enabled(const memplan_inplace *c) { return c && c->events_enabled; }

void memplan_inplace_clear_events(memplan_inplace *c) {
    if (c) c->n_ev = 0;
}
