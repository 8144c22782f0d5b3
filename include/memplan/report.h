/*
 * memplan/report.h -- the documents memplan prints, from a model and a request.
 *
 * The CLI and the WASM exports both parse their options with
 * memplan_request_parse() and print memplan_report_json(), so their output is
 * the same by construction. Options (all commands accept the ones they use):
 *   --strategy arena|slots   --align N   --budget-ms N   --include-inputs
 *   --dim NAME=VALUE (repeatable)        --json (the CLI's switch; ignored here)
 *   --value NAME=V[,V...] (repeatable)   a graph input's value (integer or bool)
 *   --constants-as-activations           (plan: Constant outputs are planned, not weights)
 *   --allow-input-overwrite  --events    (inplace, profile, tags, annotate)
 *   --inplace                            (plan: outputs share the buffer they may reuse)
 *   --no-nodes                           (plan: leave out `nodes`, which depends on the
 *                                         model only: for clients that re-plan often)
 *   -o/--output PATH                     (annotate, CLI only: where to write)
 *
 * Commands: info, shapes, plan, and (src/out/report_inplace.c) inplace,
 * profile, tags -- one JSON document for the three -- and annotate, whose
 * "report" is the annotated model's bytes (it needs r->model_bytes).
 */
#ifndef MEMPLAN_REPORT_H
#define MEMPLAN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/model.h"
#include "memplan/model_plan.h"
#include "memplan/shapes.h"
#include "memplan/sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEMPLAN_MAX_BINDINGS 256
#define MEMPLAN_MAX_POSITIONAL 4
#define MEMPLAN_MAX_VALUE_BINDINGS 16
#define MEMPLAN_MAX_VALUE_ELEMS 64
#define MEMPLAN_MAX_RANGES 16

typedef struct memplan_request {
    bool json;
    memplan_strategy strategy;
    uint64_t align;
    uint32_t budget_ms;
    bool include_inputs;
    size_t n_bindings;
    memplan_binding bindings[MEMPLAN_MAX_BINDINGS];
    char binding_names[MEMPLAN_MAX_BINDINGS][128];
    size_t n_values;             /* --value NAME=V[,V...]: graph input values */
    memplan_input_value values[MEMPLAN_MAX_VALUE_BINDINGS];
    char value_names[MEMPLAN_MAX_VALUE_BINDINGS][128];
    int64_t value_elems[MEMPLAN_MAX_VALUE_BINDINGS][MEMPLAN_MAX_VALUE_ELEMS];
    size_t n_ranges;             /* --dim NAME=LO..HI (plan) */
    memplan_dim_range ranges[MEMPLAN_MAX_RANGES];
    char range_names[MEMPLAN_MAX_RANGES][128];
    bool upper_bounds;           /* plan --upper-bounds */
    memplan_order_kind order;    /* plan/reorder --order (default file; reorder: best) */
    bool order_set;              /* --order was given */
    uint32_t order_budget_ms;    /* --order-budget-ms */
    bool constants_as_activations; /* plan: Constant outputs are activations, not weights */
    bool allow_input_overwrite;  /* in-place reuse may overwrite graph inputs */
    bool events;                 /* include the decision log */
    bool inplace;                /* plan: apply in-place reuse as view links */
    bool no_nodes;               /* plan JSON: leave out the `nodes` list */
    const char *output_path;     /* -o/--output (borrowed from argv) */
    const void *model_bytes;     /* the model file, when the caller keeps it: needed by */
    size_t model_len;            /* annotate only */
    const memplan_reader *model_reader; /* annotate reads the whole model through this when
                                           set (model_bytes may then lack the tensor data) */
    size_t n_positional;
    const char *positional[MEMPLAN_MAX_POSITIONAL]; /* borrowed from argv */
    uint32_t given;              /* options memplan_request_parse met, one bit each */
} memplan_request;

void memplan_request_init(memplan_request *r);

/* Parse options (argv[0] is the first option, not the command). Unknown
 * options and bad values are MEMPLAN_EUSAGE errors naming the option. */
memplan_status memplan_request_parse(memplan_request *r, int argc, const char *const *argv,
                                     memplan_error *err);

/* MEMPLAN_EUSAGE naming the first option given to memplan_request_parse
 * that `command` does not take ("--dim does not apply to info"), as README's
 * synopsis lists them; every command takes --json. Unknown commands pass.
 * The CLI calls it, so a typed flag is never silently ignored; the reports do
 * not (a shell may send one request to several commands). */
memplan_status memplan_request_check(const memplan_request *r, const char *command, memplan_error *err);

/* Run `command` ("info", "plan") on the model; JSON is malloc'ed (free it). */
memplan_status memplan_report_json(const memplan_model *m, const char *command,
                                   const memplan_request *r, char **json, size_t *len,
                                   memplan_error *err);

/* Human-readable form of the same report. */
memplan_status memplan_report_text(const memplan_model *m, const char *command,
                                   const memplan_request *r, char **text, size_t *len,
                                   memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
