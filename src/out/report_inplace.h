/*
 * report_inplace.h -- the seed-001 documents: `inplace`, `profile`, `tags`
 * (one JSON document; text forms differ) and `annotate` (the model's bytes).
 */
#ifndef MEMPLAN_OUT_REPORT_INPLACE_H
#define MEMPLAN_OUT_REPORT_INPLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "memplan/liveness.h"
#include "memplan/report.h"
#include "memplan/shapes.h"

/* True for "inplace", "profile", "tags" and "annotate". */
bool mp_inplace_command(const char *command);

/* Run one of those commands. For annotate, *out holds the model bytes. */
struct mp_cache;
memplan_status mp_report_inplace(struct mp_cache *cache, const memplan_model *m, const char *command,
                                 const memplan_request *r, char **out, size_t *len, memplan_error *err, bool json);

/* `plan --inplace`: add each reuse pair (output -> input) to the view map, so
 * the output shares the input's buffer. A pair is skipped when the output is
 * already a view, or when the input's buffer (its view root) is read after the
 * node through another view, or is protected (an initializer, a graph output,
 * a graph input unless --allow-input-overwrite). */
memplan_status mp_inplace_view_links(const memplan_model *m, memplan_shapes *S, const memplan_request *r,
                                     memplan_viewmap *vm, memplan_error *err);

#endif
