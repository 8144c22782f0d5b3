/* reorder.c -- the model with the nodes of its main graph and of every body
 * in a plan's order: the splice writer (src/onnx/splice.h) given a node order
 * per graph of the plan tree and no metadata edits. */
#include "memplan/reorder.h"

#include <stdlib.h>

#include "onnx/prune.h"
#include "onnx/splice.h"

/* The splice edits of one graph of the plan tree and what they point to:
 * its node order, and its bodies' edits (kids, one per subgraph plan, copied
 * by value into `graphs`, grouped by node for `bodies`). */
typedef struct graph_edits {
    mp_splice_edits e;
    mp_meta_edit *nodes;
    const char **ops;
    int32_t *order;
    mp_splice_bodies *bodies;
    mp_splice_edits *graphs;
    struct graph_edits *kids;
    size_t n_kids;
} graph_edits;

static void edits_free(graph_edits *t) {
    for (size_t i = 0; t->kids && i < t->n_kids; i++) edits_free(&t->kids[i]);
    free(t->nodes), free(t->ops), free(t->order), free(t->bodies), free(t->graphs), free(t->kids);
}

/* The edits of plan p's graph: position i runs the node that is file_index in
 * the file; each body's edits below, built the same way. */
static memplan_status edits_build(const memplan_model_plan *p, graph_edits *t, memplan_error *err) {
    const memplan_graph *g = p->graph;
    size_t n = (size_t)g->n_nodes + 1, nb = p->n_subgraphs ? p->n_subgraphs : 1;
    t->nodes = calloc(n, sizeof *t->nodes);
    t->ops = malloc(n * sizeof *t->ops);
    t->order = malloc(n * sizeof *t->order);
    t->bodies = calloc(n, sizeof *t->bodies);
    t->graphs = calloc(nb, sizeof *t->graphs);
    t->kids = calloc(nb, sizeof *t->kids);
    if (!t->nodes || !t->ops || !t->order || !t->bodies || !t->graphs || !t->kids)
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t i = 0; i < g->n_nodes; i++) {
        t->order[i] = g->nodes[i].file_index;
        t->ops[t->order[i]] = g->nodes[i].op_type;
    }
    memplan_status st = MEMPLAN_OK;
    for (size_t i = 0; i < p->n_subgraphs && !st; i++, t->n_kids++) {
        st = edits_build(p->subgraphs[i].plan, &t->kids[i], err);
        t->graphs[i] = t->kids[i].e;
    }
    /* subgraph plans come by node position, each node's in the order
     * loading counts its bodies (memplan_node.subgraphs) */
    for (size_t i = 0; i < p->n_subgraphs && !st; i++) {
        const memplan_node *nd = &g->nodes[p->subgraphs[i].node];
        mp_splice_bodies *b = &t->bodies[nd->file_index];
        if (!b->n) b->graphs = &t->graphs[i];
        if (++b->n > nd->n_subgraphs)
            st = memplan_error_set(err, MEMPLAN_EINTERNAL, "reorder: node '%s' has more body plans than bodies",
                                   nd->name);
    }
    t->e = (mp_splice_edits){g->n_nodes, t->nodes, t->ops, 0, NULL, NULL, NULL, p->n_subgraphs ? t->bodies : NULL,
                             t->order};
    return st;
}

static memplan_status run(const void *bytes, size_t len, const memplan_reader *reader, const memplan_model_plan *p,
                          const int32_t *main_order, unsigned char **out, size_t *out_len, memplan_error *err) {
    if (!out || !out_len || !p || (!reader && !bytes && len))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "reorder: missing argument");
    *out = NULL;
    *out_len = 0;
    if (p->parent) return memplan_error_set(err, MEMPLAN_EUSAGE, "reorder: the plan is a body's, not the model's");
    graph_edits t = {0};
    memplan_status st = edits_build(p, &t, err);
    if (!st && main_order) { /* each node once (the output is loaded again, which checks the order is topological) */
        unsigned char *seen = calloc((size_t)p->graph->n_nodes + 1, 1);
        if (!seen) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        for (int32_t i = 0; i < p->graph->n_nodes && !st; i++) {
            int32_t f = main_order[i];
            if (f < 0 || f >= p->graph->n_nodes || seen[f])
                st = memplan_error_set(err, MEMPLAN_EUSAGE, "reorder: node order entry %d is not a node or repeats one",
                                       (int)i);
            else
                seen[f] = 1, t.order[i] = f;
        }
        free(seen);
    }
    if (!st)
        st = reader ? mp_splice_reader(reader, MP_PRUNE_WINDOW, &t.e, out, out_len, err)
                    : mp_splice(bytes, len, &t.e, out, out_len, err);
    edits_free(&t);
    return st;
}

memplan_status memplan_reorder(const void *bytes, size_t len, const memplan_model_plan *p, unsigned char **out,
                               size_t *out_len, memplan_error *err) {
    return run(bytes, len, NULL, p, NULL, out, out_len, err);
}

memplan_status memplan_reorder_main(const void *bytes, size_t len, const memplan_reader *reader,
                                    const memplan_model_plan *p, const int32_t *main_order, unsigned char **out,
                                    size_t *out_len, memplan_error *err) {
    if (!main_order || (reader && !reader->read))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "reorder: missing argument");
    return run(reader ? NULL : bytes, reader ? 0 : len, reader, p, main_order, out, out_len, err);
}

memplan_status memplan_reorder_reader(const memplan_reader *reader, const memplan_model_plan *p, unsigned char **out,
                                      size_t *out_len, memplan_error *err) {
    if (!reader || !reader->read) return memplan_error_set(err, MEMPLAN_EUSAGE, "reorder: missing argument");
    return run(NULL, 0, reader, p, NULL, out, out_len, err);
}
