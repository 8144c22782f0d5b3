/*
 * memplan/reorder.h -- a model rewritten to run in a plan's order.
 *
 *   memplan_plan_options o;  memplan_plan_options_init(&o);  o.order = MEMPLAN_ORDER_BEST;
 *   memplan_plan_model(m, &o, &p, &err);
 *   unsigned char *out;  size_t len;
 *   memplan_reorder(bytes, n, p, &out, &len, &err);   ... free(out);
 *
 * The output is the input with the NodeProto messages of the main graph and
 * of every body in their plan's order (memplan/model_plan.h, plan->order of
 * each graph of the plan tree), so a runtime that runs nodes in file order
 * gets the plan's peak. It is a splice of the input's wire bytes (as
 * memplan/annotate.h's): the node messages are copied as they are, all where
 * the first one of their graph was, and only the length prefixes of the
 * graphs (and of the nodes and attributes holding a body) change; every
 * other byte -- initializers and their data, value infos, metadata,
 * functions -- is the same. A plan in the file order
 * writes the nodes in the IR's topological order (the file's, when it was
 * sorted: then the output is the input). The whole input is checked as
 * loading checks it; a plan for another graph (node count, op types) is an
 * MEMPLAN_EINPUT error, a body's plan MEMPLAN_EUSAGE. (A deferred plan is in
 * the file order: memplan reorder asks for the dims instead.) ONNX Runtime
 * runs a file in its own order, not the file's: memplan reorder --order
 * onnxruntime writes, with memplan_reorder_main, the node order under which
 * that order needs least (the plan's ort_order.written under
 * MEMPLAN_ORDER_ONNXRUNTIME).
 */
#ifndef MEMPLAN_REORDER_H
#define MEMPLAN_REORDER_H

#include <stddef.h>

#include "memplan/error.h"
#include "memplan/model.h"
#include "memplan/model_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

memplan_status memplan_reorder(const void *bytes, size_t len, const memplan_model_plan *p, unsigned char **out,
                               size_t *out_len, memplan_error *err);

/* The same with the main graph's nodes written in main_order (file indices,
 * each node once; the output is loaded again, so an order that is not
 * topological is an EINPUT error), its bodies in their plans' orders:
 * a plan's ort_order.written, say. From the bytes, or
 * through reader when it is not NULL. */
memplan_status memplan_reorder_main(const void *bytes, size_t len, const memplan_reader *reader,
                                    const memplan_model_plan *p, const int32_t *main_order, unsigned char **out,
                                    size_t *out_len, memplan_error *err);

/* The same through a reader, a window at a time: memory is the output plus O(graph). */
memplan_status memplan_reorder_reader(const memplan_reader *reader, const memplan_model_plan *p, unsigned char **out,
                                      size_t *out_len, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
