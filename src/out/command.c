/*
 * command.c -- the command table (memplan/command.h) and the dispatch
 * through it: every shell finds a command here, and nowhere else.
 */
#include <string.h>

#include "memplan/command.h"
#include "out/cache.h"
#include "out/reports.h"

#define OPT(x) MEMPLAN_OPT_BIT(MEMPLAN_OPT_##x)

static const memplan_command COMMANDS[] = {
    {"info", "MODEL", "model summary: versions, opsets, counts, inputs, outputs, ops", 0, MEMPLAN_INPUT_MODEL,
     MEMPLAN_OUTPUT_DOCUMENT, false, mp_run_info},
    {"shapes", "MODEL", "every value's element type, shape and byte size", OPT(DIM) | OPT(VALUE) | OPT(FLOAT16_CPU),
     MEMPLAN_INPUT_MODEL, MEMPLAN_OUTPUT_DOCUMENT, false, mp_run_shapes},
    {"plan", "MODEL", "live intervals, slot and arena plans, lower bound (and --dim NAME=LO..HI)",
     OPT(STRATEGY) | OPT(ALIGN) | OPT(BUDGET_MS) | OPT(DIM) | OPT(VALUE) | OPT(INCLUDE_INPUTS) |
         OPT(CONSTANTS_AS_ACTIVATIONS) | OPT(INPLACE) | OPT(ALLOW_INPUT_OVERWRITE) | OPT(NO_NODES) | OPT(NO_AT_PEAK) |
         OPT(UPPER_BOUNDS) | OPT(TRACE) | OPT(ORDER) | OPT(ORDER_BUDGET_MS) | OPT(SHARE_KV) | OPT(FUSE_QDQ) |
         OPT(QDQ_INT8) | OPT(WORKSPACE) | OPT(FLOAT16_CPU),
     MEMPLAN_INPUT_MODEL, MEMPLAN_OUTPUT_DOCUMENT, false, mp_run_plan},
    {"sweep", "MODEL", "peak, lower bound and naive as one dim goes LO..HI in N values (--dim NAME=LO..HI:N)",
     OPT(ALIGN) | OPT(BUDGET_MS) | OPT(DIM) | OPT(VALUE) | OPT(INCLUDE_INPUTS) | OPT(CONSTANTS_AS_ACTIVATIONS) |
         OPT(INPLACE) | OPT(ALLOW_INPUT_OVERWRITE) | OPT(UPPER_BOUNDS) | OPT(SHARE_KV) | OPT(FUSE_QDQ) | OPT(QDQ_INT8) |
         OPT(WORKSPACE) | OPT(FLOAT16_CPU),
     MEMPLAN_INPUT_MODEL, MEMPLAN_OUTPUT_DOCUMENT, false, mp_run_sweep},
    {"diff", "A.onnx B.onnx", "two models planned with the same options: figures, deltas, values that changed",
     OPT(ALIGN) | OPT(BUDGET_MS) | OPT(DIM) | OPT(VALUE) | OPT(INCLUDE_INPUTS) | OPT(CONSTANTS_AS_ACTIVATIONS) |
         OPT(INPLACE) | OPT(ALLOW_INPUT_OVERWRITE) | OPT(UPPER_BOUNDS) | OPT(SHARE_KV) | OPT(FUSE_QDQ) | OPT(QDQ_INT8) |
         OPT(WORKSPACE),
     MEMPLAN_INPUT_TWO_MODELS, MEMPLAN_OUTPUT_DOCUMENT, false, NULL},
    {"pack", "FILE.csv [--align N] [--budget-ms N] [--seed N] [--wall-cap-ms N]",
     "pack buffers 'id,lower,upper,size' into one arena", 0, MEMPLAN_INPUT_CSV, MEMPLAN_OUTPUT_DOCUMENT, false, NULL},
    {"inplace", "MODEL", "in-place reuse pairs and release lists per node",
     OPT(VALUE) | OPT(ALLOW_INPUT_OVERWRITE) | OPT(EVENTS) | OPT(COLUMNS) | OPT(FLOAT16_CPU), MEMPLAN_INPUT_MODEL,
     MEMPLAN_OUTPUT_DOCUMENT, false, mp_run_inplace},
    {"profile", "MODEL", "memory per node: live, newly allocated, by tag",
     OPT(DIM) | OPT(VALUE) | OPT(ALLOW_INPUT_OVERWRITE) | OPT(COLUMNS) | OPT(FLOAT16_CPU), MEMPLAN_INPUT_MODEL,
     MEMPLAN_OUTPUT_DOCUMENT, false, mp_run_profile},
    {"tags", "MODEL", "value and node tags (shape, axes, weight, ambiguous)", OPT(VALUE), MEMPLAN_INPUT_MODEL,
     MEMPLAN_OUTPUT_DOCUMENT, false, mp_run_tags},
    {"annotate", "MODEL", "write the results into the model's metadata_props", OPT(VALUE) | OPT(ALLOW_INPUT_OVERWRITE),
     MEMPLAN_INPUT_MODEL, MEMPLAN_OUTPUT_BYTES, true, mp_run_annotate},
    {"reorder", "MODEL",
     "write the model with its nodes in the order --order finds (default best; onnxruntime: the file ONNX Runtime runs "
     "with the lowest peak found)",
     OPT(ORDER) | OPT(ORDER_BUDGET_MS) | OPT(ALIGN) | OPT(DIM) | OPT(VALUE) | OPT(INCLUDE_INPUTS) |
         OPT(CONSTANTS_AS_ACTIVATIONS) | OPT(UPPER_BOUNDS),
     MEMPLAN_INPUT_MODEL, MEMPLAN_OUTPUT_BYTES, true, mp_run_reorder},
};

#define N_COMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

const memplan_command *memplan_command_find(const char *name) {
    for (size_t i = 0; name && i < N_COMMANDS; i++)
        if (strcmp(COMMANDS[i].name, name) == 0) return &COMMANDS[i];
    return NULL;
}

const memplan_command *memplan_command_at(size_t i) { return i < N_COMMANDS ? &COMMANDS[i] : NULL; }

memplan_status mp_report(mp_cache *cache, const memplan_model *m, const char *command, const memplan_request *r,
                         char **out, size_t *len, memplan_error *err, bool json) {
    const memplan_command *c = memplan_command_find(command);
    if (!c) return memplan_error_set(err, MEMPLAN_EUSAGE, "unknown command '%s'", command);
    if (!c->run)
        return c->input == MEMPLAN_INPUT_CSV
                   ? memplan_error_set(err, MEMPLAN_EUSAGE,
                                       "'%s' reads buffers from a CSV file, not a model (memplan_pack)", command)
                   : memplan_error_set(err, MEMPLAN_EUSAGE, "'%s' compares two models (memplan_diff_report)", command);
    if (r->float16_cpu && (c->options & OPT(FLOAT16_CPU))) {
        /* The graph ONNX Runtime's CPU execution provider runs, with a cache
         * of its own; the report is that graph's. */
        const memplan_model *dm;
        mp_cache *sub;
        memplan_ort_float16_stats stats;
        memplan_status st = mp_cache_float16_cpu(cache, m, &dm, &sub, &stats, err);
        if (st) return st;
        memplan_request own = *r;
        own.float16_cpu = false;
        own.float16_graph = &stats;
        own.model_bytes = NULL, own.model_len = 0, own.model_reader = NULL;
        return c->run(sub, dm, &own, json, out, len, err);
    }
    return c->run(cache, m, r, json, out, len, err);
}

/* One-shot reports: a cache that lives for the one call. */
static memplan_status report_once(const memplan_model *m, const char *command, const memplan_request *r, char **out,
                                  size_t *len, memplan_error *err, bool json) {
    mp_cache cache;
    mp_cache_init(&cache);
    memplan_status st = mp_report(&cache, m, command, r, out, len, err, json);
    mp_cache_clear(&cache);
    return st;
}

memplan_status memplan_report_json(const memplan_model *m, const char *command, const memplan_request *r, char **json,
                                   size_t *len, memplan_error *err) {
    return report_once(m, command, r, json, len, err, true);
}

memplan_status memplan_report_text(const memplan_model *m, const char *command, const memplan_request *r, char **text,
                                   size_t *len, memplan_error *err) {
    return report_once(m, command, r, text, len, err, false);
}
