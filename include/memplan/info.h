/*
 * memplan/info.h -- a model's summary: versions, opsets, counts, inputs and
 * outputs, op histogram. The JSON form is what `memplan info --json` prints
 * and what the WASM export returns.
 */
#ifndef MEMPLAN_INFO_H
#define MEMPLAN_INFO_H

#include <stddef.h>

#include "memplan/error.h"
#include "memplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sum of the static byte sizes of the main graph's initializers. Tensors
 * with an unknown element size count 0; the sum saturates at ULLONG_MAX. */
unsigned long long memplan_initializer_bytes(const memplan_model *model);

/* The info document as JSON (malloc'ed, NUL-terminated; free() it). */
memplan_status memplan_info_json(const memplan_model *model, char **json, size_t *len, memplan_error *err);

/* The same facts as readable text. */
memplan_status memplan_info_text(const memplan_model *model, char **text, size_t *len, memplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
