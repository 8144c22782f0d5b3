/*
 * memplan/command.h -- the commands, and the options that fill a request.
 *
 * One table of commands: each one's name, operands, the options it takes,
 * the function that prints it and the kind of its output. It drives the
 * library's dispatch (memplan_report_json, memplan_session_report), and the
 * shells read it for argument parsing, the per-command option check,
 * `memplan --help` and the WASM exports (src/cli/args.c, src/cli/main.c,
 * src/wasm/exports.c). One table of options: each one's spelling, the form
 * of its value, and the request field it sets (memplan/report.h).
 *
 * Adding an option: one entry in OPTIONS (src/out/request.c) with its id
 * below, its field in memplan_request, and its bit in the commands that take
 * it (COMMANDS, src/out/command.c). A switch needs no code (the entry names
 * its bool); an option with a value names the function that parses it.
 */
#ifndef MEMPLAN_COMMAND_H
#define MEMPLAN_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/model.h"
#include "memplan/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The options, in the order --help lists them. */
typedef enum memplan_option_id {
    MEMPLAN_OPT_STRATEGY,
    MEMPLAN_OPT_ALIGN,
    MEMPLAN_OPT_BUDGET_MS,
    MEMPLAN_OPT_DIM,
    MEMPLAN_OPT_VALUE,
    MEMPLAN_OPT_INCLUDE_INPUTS,
    MEMPLAN_OPT_CONSTANTS_AS_ACTIVATIONS,
    MEMPLAN_OPT_INPLACE,
    MEMPLAN_OPT_ALLOW_INPUT_OVERWRITE,
    MEMPLAN_OPT_EVENTS,
    MEMPLAN_OPT_NO_NODES,
    MEMPLAN_OPT_NO_AT_PEAK,
    MEMPLAN_OPT_COLUMNS,
    MEMPLAN_OPT_UPPER_BOUNDS,
    MEMPLAN_OPT_TRACE,
    MEMPLAN_OPT_ORDER,
    MEMPLAN_OPT_ORDER_BUDGET_MS,
    MEMPLAN_OPT_SHARE_KV,
    MEMPLAN_OPT_FUSE_QDQ,
    MEMPLAN_OPT_QDQ_INT8,
    MEMPLAN_OPT_WORKSPACE,
    MEMPLAN_OPT_FLOAT16_CPU,
    MEMPLAN_OPT_COUNT
} memplan_option_id;

#define MEMPLAN_OPT_BIT(id) (1u << (id))

typedef struct memplan_option {
    const char *name;    /* "--dim" */
    const char *metavar; /* the value's form for --help ("NAME=VALUE"); NULL for a switch */
    bool repeatable;     /* may be given again ("..." in --help) */
    size_t flag;         /* a switch: offsetof(memplan_request, the bool it sets) */
    /* An option with a value: parse `value` (NULL when the argument list
     * ended) into the request; a bad value is MEMPLAN_EUSAGE naming the option. */
    memplan_status (*set)(memplan_request *r, const char *value, memplan_error *err);
} memplan_option;

/* The option `id`; NULL past MEMPLAN_OPT_COUNT. */
const memplan_option *memplan_option_get(memplan_option_id id);
/* The id of the option spelled `name`; false when there is none. */
bool memplan_option_find(const char *name, memplan_option_id *id);
/* Apply option `id` to the request: set its switch, or parse its value. */
memplan_status memplan_option_apply(memplan_request *r, memplan_option_id id, const char *value, memplan_error *err);

/* What a command reads. */
typedef enum memplan_input {
    MEMPLAN_INPUT_MODEL,     /* an .onnx model: the library prints it (run) */
    MEMPLAN_INPUT_CSV,       /* buffers id,lower,upper,size (pack): the shells call memplan_pack */
    MEMPLAN_INPUT_TWO_MODELS /* two models (diff): the shells call memplan_diff_report */
} memplan_input;

/* What a command's report is. */
typedef enum memplan_output {
    MEMPLAN_OUTPUT_DOCUMENT, /* text, or JSON (the CLI's --json, the WASM's every call) */
    MEMPLAN_OUTPUT_BYTES     /* a file's bytes (annotate, reorder: the model written; CLI -o) */
} memplan_output;

struct mp_cache; /* the stage cache of src/out/cache.h */

/* Print a command's report for a model and a request (json or text) into a
 * malloc'ed *out. Internal: call it through memplan_report_json or
 * memplan_session_report, which own the cache. */
typedef memplan_status (*memplan_command_run)(struct mp_cache *cache, const memplan_model *m, const memplan_request *r,
                                              bool json, char **out, size_t *len, memplan_error *err);

typedef struct memplan_command {
    const char *name;     /* "plan" */
    const char *operands; /* for --help: "MODEL", or "FILE.csv [--align N] ..." for pack, whose
                             options are the packer's own (memplan_pack_options) */
    const char *summary;  /* one line for --help */
    uint32_t options;     /* MEMPLAN_OPT_BIT of each option it takes (every one takes --json) */
    memplan_input input;
    memplan_output output;
    bool whole_model;        /* reads the model's whole file (model_bytes or model_reader), not just its graph */
    memplan_command_run run; /* NULL for MEMPLAN_INPUT_CSV */
} memplan_command;

/* The command named `name`; NULL when there is none. */
const memplan_command *memplan_command_find(const char *name);
/* The i-th command, in the order --help lists them; NULL past the last. */
const memplan_command *memplan_command_at(size_t i);

#ifdef __cplusplus
}
#endif
#endif
