/* reorder.c -- the model with its main graph's nodes in a plan's order: the
 * splice writer (src/onnx/splice.h) given a node order and no metadata edits. */
#include "memplan/reorder.h"

#include <stdlib.h>

#include "onnx/prune.h"
#include "onnx/splice.h"

static memplan_status run(const void *bytes, size_t len, const memplan_reader *reader, const memplan_model_plan *p,
                          unsigned char **out, size_t *out_len, memplan_error *err) {
    if (!out || !out_len || !p || (!reader && !bytes && len))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "reorder: missing argument");
    *out = NULL;
    *out_len = 0;
    if (p->parent) return memplan_error_set(err, MEMPLAN_EUSAGE, "reorder: the plan is a body's, not the model's");
    const memplan_graph *g = p->graph;
    size_t n = (size_t)g->n_nodes + 1;
    mp_meta_edit *nodes = calloc(n, sizeof *nodes);
    const char **ops = malloc(n * sizeof *ops);
    int32_t *order = malloc(n * sizeof *order);
    memplan_status st = nodes && ops && order ? MEMPLAN_OK : memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    /* position i of the plan's graph runs the node that is file_index in the file */
    for (int32_t i = 0; !st && i < g->n_nodes; i++) {
        order[i] = g->nodes[i].file_index;
        ops[order[i]] = g->nodes[i].op_type;
    }
    mp_splice_edits e = {g->n_nodes, nodes, ops, 0, NULL, NULL, NULL, NULL, order};
    if (!st)
        st = reader ? mp_splice_reader(reader, MP_PRUNE_WINDOW, &e, out, out_len, err)
                    : mp_splice(bytes, len, &e, out, out_len, err);
    free(nodes);
    free(ops);
    free(order);
    return st;
}

memplan_status memplan_reorder(const void *bytes, size_t len, const memplan_model_plan *p, unsigned char **out,
                               size_t *out_len, memplan_error *err) {
    return run(bytes, len, NULL, p, out, out_len, err);
}

memplan_status memplan_reorder_reader(const memplan_reader *reader, const memplan_model_plan *p, unsigned char **out,
                                      size_t *out_len, memplan_error *err) {
    if (!reader || !reader->read) return memplan_error_set(err, MEMPLAN_EUSAGE, "reorder: missing argument");
    return run(NULL, 0, reader, p, out, out_len, err);
}
