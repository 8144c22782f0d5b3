/*
 * model_order.c -- from a planned graph to a scheduling problem (what the
 * schedulers of src/schedule/ see: dependencies and sizes, no ops), and from
 * an order back to a graph.
 */
#include "plan/model_order.h"

#include <stdlib.h>
#include <string.h>

static memplan_status oom(memplan_error *err) { return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory"); }

static uint64_t align_up(uint64_t n, uint64_t align) { return (n + align - 1) / align * align; }

void mp_order_problem_free(mp_order_problem *q) {
    free(q->pred_start), free(q->pred), free(q->use_start), free(q->use), free(q->def);
    free(q->bytes), free(q->trans), free(q->to_end), free(q->rank);
    memset(q, 0, sizeof *q);
}

/* The values node s reads: its inputs, then the outer values its bodies read. */
static int32_t n_reads(const memplan_node *nd) { return nd->n_inputs + nd->n_captures; }
static int32_t read_at(const memplan_node *nd, int32_t k) {
    return k < nd->n_inputs ? nd->inputs[k] : nd->captures[k - nd->n_inputs];
}

/* Node s depends on the producers of what it reads. */
static void fill_preds(const memplan_graph *g, mp_order_problem *q) {
    int32_t e = 0;
    for (int32_t s = 0; s < g->n_nodes; s++) {
        const memplan_node *nd = &g->nodes[s];
        q->pred_start[s] = e;
        for (int32_t k = 0; k < n_reads(nd); k++) {
            int32_t v = read_at(nd, k);
            if (v >= 0 && (g->values[v].flags & MEMPLAN_VALUE_NODE_OUTPUT) && g->values[v].producer >= 0)
                q->pred[e++] = g->values[v].producer;
        }
    }
    q->pred_start[g->n_nodes] = e;
}

/* The buffer a read of value v reaches (through views), or -1. */
static int32_t buffer_read(const memplan_model_plan *p, const int32_t *buf_of, int32_t v) {
    int32_t r = v >= 0 ? p->liveness.root[v] : -1;
    return r >= 0 ? buf_of[r] : -1;
}

/* Readers of each buffer (counted, then filled). */
static void fill_uses(const memplan_model_plan *p, const int32_t *buf_of, mp_order_problem *q, int32_t nb) {
    const memplan_graph *g = p->graph;
    for (int pass = 0; pass < 2; pass++) { /* count at b + 1; then fill, moving each start */
        for (int32_t s = 0; s < g->n_nodes; s++)
            for (int32_t k = 0; k < n_reads(&g->nodes[s]); k++) {
                int32_t b = buffer_read(p, buf_of, read_at(&g->nodes[s], k));
                if (b < 0 || q->def[b] == s) continue;
                if (!pass) q->use_start[b + 1]++;
                else
                    q->use[q->use_start[b]++] = s;
            }
        if (!pass)
            for (int32_t b = 0; b < nb; b++) q->use_start[b + 1] += q->use_start[b];
    }
    /* the fill pass moved each start to the next buffer's: shift back */
    for (int32_t b = nb; b > 0; b--) q->use_start[b] = q->use_start[b - 1];
    q->use_start[0] = 0;
}

memplan_status mp_order_problem_build(const memplan_model_plan *p, mp_order_problem *q, memplan_error *err) {
    memset(q, 0, sizeof *q);
    const memplan_graph *g = p->graph;
    int32_t n = g->n_nodes, nb = 0;
    for (size_t b = 0; b < p->n_buffers; b++) nb += p->buffer_value[b] >= 0;
    size_t reads = 0;
    for (int32_t s = 0; s < n; s++) reads += (size_t)n_reads(&g->nodes[s]);
    size_t nn = (size_t)n + 1, nbb = (size_t)nb + 1;
    int32_t *buf_of = malloc(((size_t)g->n_values + 1) * sizeof *buf_of);
    q->pred_start = malloc(nn * sizeof *q->pred_start);
    q->pred = malloc((reads + 1) * sizeof *q->pred);
    q->use_start = calloc(nbb + 1, sizeof *q->use_start);
    q->use = malloc((reads + 1) * sizeof *q->use);
    q->def = malloc(nbb * sizeof *q->def);
    q->bytes = malloc(nbb * sizeof *q->bytes);
    q->trans = calloc(nn, sizeof *q->trans);
    q->to_end = calloc(nbb, 1);
    if (!buf_of || !q->pred_start || !q->pred || !q->use_start || !q->use || !q->def || !q->bytes || !q->trans ||
        !q->to_end) {
        free(buf_of);
        mp_order_problem_free(q);
        return oom(err);
    }
    uint64_t align = p->options.align;
    for (int32_t v = 0; v < g->n_values; v++) buf_of[v] = -1;
    for (size_t b = 0; b < (size_t)nb; b++) { /* owners come first in buffers[] */
        int32_t v = p->buffer_value[b];
        buf_of[v] = (int32_t)b;
        q->bytes[b] = align_up(p->buffers[b].size, align);
        q->def[b] = (g->values[v].flags & MEMPLAN_VALUE_NODE_OUTPUT) ? g->values[v].producer : -1;
    }
    for (int32_t i = 0; i < g->n_outputs; i++) {
        int32_t b = buffer_read(p, buf_of, g->outputs[i]);
        if (b >= 0) q->to_end[b] = 1;
    }
    for (size_t i = 0; i < p->n_transients; i++)
        if (p->transients[i].buffer >= 0) q->trans[p->transients[i].node] += align_up(p->transients[i].bytes, align);
    fill_preds(g, q);
    fill_uses(p, buf_of, q, nb);
    free(buf_of);
    q->p = (memplan_sched_problem){.n_steps = n,
                                   .pred_start = q->pred_start,
                                   .pred = q->pred,
                                   .n_buffers = nb,
                                   .bytes = q->bytes,
                                   .def = q->def,
                                   .to_end = q->to_end,
                                   .use_start = q->use_start,
                                   .use = q->use,
                                   .transient = q->trans,
                                   .edge_start = q->pred_start, /* a node's inputs: the graph's own edges */
                                   .edge = q->pred};
    /* ONNX Runtime numbers the nodes as the file does: a graph whose file
     * order is not its order of positions (the graph memplan_onnxruntime_cpu_graph
     * makes) gives its file indices as the ranks. */
    bool renumbered = false;
    for (int32_t i = 0; i < n && !renumbered; i++) renumbered = g->nodes[i].file_index != i;
    if (renumbered) {
        if (!(q->rank = malloc((size_t)n * sizeof *q->rank))) {
            mp_order_problem_free(q);
            return oom(err);
        }
        for (int32_t i = 0; i < n; i++) q->rank[i] = g->nodes[i].file_index;
        q->p.rank = q->rank;
    }
    return MEMPLAN_OK;
}

memplan_status mp_order_graph(const memplan_graph *g, const int32_t *order, mp_graph_copy *out, memplan_error *err) {
    memset(out, 0, sizeof *out);
    size_t nn = (size_t)g->n_nodes + 1, nv = (size_t)g->n_values + 1;
    int32_t *pos = malloc(nn * sizeof *pos);
    out->nodes = malloc(nn * sizeof *out->nodes);
    out->values = malloc(nv * sizeof *out->values);
    if (!pos || !out->nodes || !out->values) {
        free(pos);
        mp_graph_copy_free(out);
        return oom(err);
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        out->nodes[i] = g->nodes[order[i]];
        pos[order[i]] = i;
    }
    for (int32_t v = 0; v < g->n_values; v++) {
        out->values[v] = g->values[v];
        if (g->values[v].producer >= 0) out->values[v].producer = pos[g->values[v].producer];
    }
    free(pos);
    out->g = *g;
    out->g.nodes = out->nodes;
    out->g.values = out->values;
    return MEMPLAN_OK;
}

void mp_graph_copy_free(mp_graph_copy *c) {
    free(c->nodes);
    free(c->values);
    memset(c, 0, sizeof *c);
}

/* Bodies are few next to nodes: a linear search is enough. */
const mp_order_memo_entry *mp_order_memo_find(const mp_order_memo *m, const memplan_graph *g) {
    for (size_t i = 0; i < m->n; i++)
        if (m->e[i].g == g) return &m->e[i];
    return NULL;
}

memplan_status mp_order_memo_put(mp_order_memo *m, const mp_order_memo_entry *e, memplan_error *err) {
    if (m->n == m->cap) {
        size_t want = m->cap ? 2 * m->cap : 8;
        mp_order_memo_entry *grown = realloc(m->e, want * sizeof *grown);
        if (!grown) return oom(err);
        m->e = grown;
        m->cap = want;
    }
    mp_order_memo_entry *d = &m->e[m->n];
    *d = *e;
    if (e->order) {
        size_t n = (size_t)e->g->n_nodes;
        if (!(d->order = malloc((n ? n : 1) * sizeof *d->order))) return oom(err);
        memcpy(d->order, e->order, n * sizeof *d->order);
    }
    m->n++;
    return MEMPLAN_OK;
}

void mp_order_memo_free(mp_order_memo *m) {
    for (size_t i = 0; i < m->n; i++) free(m->e[i].order);
    free(m->e);
    memset(m, 0, sizeof *m);
}
