/*
 * memplan/report.h -- the documents memplan prints, from a model and a request.
 *
 * A request is typed per stage: the shapes options (dims and input values
 * bound), the plan options, the in-place options, and how the plan document
 * prints. The commands that print them, and the command-line options that
 * fill each field, are one table in memplan/command.h; the shells (src/cli,
 * src/wasm) turn their arguments into a request, and the library never sees
 * argv. memplan_report_json() and memplan_session_report() print any
 * command: the CLI's --json output and the WASM mp_call are the same bytes.
 * A report reads only the fields its command uses, so one request can serve
 * several commands.
 *
 *   memplan_request r;
 *   memplan_request_init(&r);
 *   memplan_request_bind_dim(&r, "batch", 1, &err);
 *   r.plan.align = 16;
 *   memplan_report_json(model, "plan", &r, &json, &len, &err);
 *   memplan_request_free(&r);
 */
#ifndef MEMPLAN_REPORT_H
#define MEMPLAN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/inplace.h"
#include "memplan/model.h"
#include "memplan/model_plan.h"
#include "memplan/shapes.h"
#include "memplan/sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most elements one --value may give (a scalar, a shape, a small table). */
#define MEMPLAN_MAX_VALUE_ELEMS 64
#define MEMPLAN_MAX_RANGES 16

typedef struct memplan_request {
    /* shapes: --dim NAME=VALUE and --value NAME=V[,V...]. Lists the request
     * owns, grown by memplan_request_bind_dim/_value (a later binding of a
     * name replaces the earlier one, in its place); names of any length. */
    memplan_shapes_options shapes;
    /* plan: --align, --budget-ms, --include-inputs, --inplace,
     * --constants-as-activations, --order, --order-budget-ms. Its bindings, values and
     * allow_input_overwrite are ignored: a plan takes the shapes' bindings and
     * the in-place allow_input_overwrite (memplan_request_plan_options). */
    memplan_plan_options plan;
    /* in-place analyses (inplace, profile, tags, annotate; plan --inplace):
     * --allow-input-overwrite, --events. */
    memplan_inplace_options inplace;
    /* printing the plan document: --strategy (whose figures it prints; a
     * plan holds both layouts), --no-nodes (leave out `nodes`, which
     * depends on the model only: for clients that re-plan often) and
     * --no-at-peak (leave out `at_peak`: for a client that draws a second
     * layout of a plan it already shows). */
    memplan_strategy strategy;
    bool no_nodes;
    bool no_at_peak;
    /* inplace and profile --json --columns: each graph's per-node reuse pairs
     * and profile amounts as columns, nothing else per node, no `values`
     * (src/out/report_inplace.c; for a client that reads only those). */
    bool columns;
    /* plan --trace OUT.json: the file a shell writes the plan's trace to
     * (memplan/trace.h: memplan_plan_trace_json). Borrowed; no report reads
     * it -- the library writes no files, the CLI does (src/cli/cmd_model.c). */
    const char *trace_path;
    /* --order was given (plan.order; reorder's default is best). */
    bool order_given;
    /* shapes, plan, sweep --float16-cpu: report on the graph ONNX Runtime's CPU
     * execution provider runs (memplan/ort_float16.h), not the file's. */
    bool float16_cpu;
    /* Set by the library on the request it runs on that graph (private):
     * what the rewrite changed, printed by plan (`onnxruntime_cpu_graph`). */
    const struct memplan_ort_float16_stats *float16_graph;
    /* annotate (its document is the model's bytes): the model file, or a
     * reader of it (then model_bytes may lack the tensor data). Borrowed. */
    const void *model_bytes;
    size_t model_len;
    const memplan_reader *model_reader;
    size_t dims_cap, values_cap, ranges_cap; /* room in the lists (private) */
} memplan_request;

/* Defaults: arena strategy, align 64, budget 20 ms, nothing bound. */
void memplan_request_init(memplan_request *r);
/* Free the lists the request owns; it is then empty (init state) again. */
void memplan_request_free(memplan_request *r);

/* Bind dim `name` (name_len bytes, no NUL needed) to value. */
memplan_status memplan_request_bind_dim(memplan_request *r, const char *name, size_t name_len, int64_t value,
                                        memplan_error *err);
/* Give dim `name` the range lo..hi (0 <= lo <= hi): plan options; planned
 * at hi with plan.upper_bounds, else left unbound. */
memplan_status memplan_request_bind_range(memplan_request *r, const char *name, size_t name_len, int64_t lo, int64_t hi,
                                          memplan_error *err);
/* Give graph input `name` the value elems[0..n) (1 <= n <= MEMPLAN_MAX_VALUE_ELEMS). */
memplan_status memplan_request_bind_value(memplan_request *r, const char *name, size_t name_len, const int64_t *elems,
                                          int32_t n, memplan_error *err);

/* The options a plan of this request is built with: r->plan, with the
 * shapes' bindings and values and the in-place allow_input_overwrite. */
void memplan_request_plan_options(const memplan_request *r, memplan_plan_options *o);

/* Run `command` (a name in memplan/command.h: "info", "plan") on the model;
 * the JSON is malloc'ed (free it). An unknown command is MEMPLAN_EUSAGE. */
memplan_status memplan_report_json(const memplan_model *m, const char *command, const memplan_request *r, char **json,
                                   size_t *len, memplan_error *err);

/* Human-readable form of the same report. */
memplan_status memplan_report_text(const memplan_model *m, const char *command, const memplan_request *r, char **text,
                                   size_t *len, memplan_error *err);

/* `memplan diff`: models a and b planned with the request's plan options,
 * their figures, the deltas and the values whose size, interval or offset
 * changed (by name; src/out/report_diff.c gives the JSON form). name_a and
 * name_b prefix the message when a plan fails. */
memplan_status memplan_diff_report(const memplan_model *a, const char *name_a, const memplan_model *b,
                                   const char *name_b, const memplan_request *r, bool json, char **out, size_t *len,
                                   memplan_error *err);

/* The same with a request per side: one model under two option sets (arena
 * against slots, in-place off and on, two dim bindings), or two models each
 * with its own bindings. memplan_diff_report is this with r for both. */
memplan_status memplan_diff_requests(const memplan_model *a, const char *name_a, const memplan_request *ra,
                                     const memplan_model *b, const char *name_b, const memplan_request *rb, bool json,
                                     char **out, size_t *len, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
