/*
 * report_inplace.h -- the seed-001 documents: `inplace`, `profile`, `tags`
 * (one JSON document; text forms differ) and `annotate` (the model's bytes).
 */
#ifndef MEMPLAN_OUT_REPORT_INPLACE_H
#define MEMPLAN_OUT_REPORT_INPLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "memplan/report.h"
#include "memplan/shapes.h"

/* True for "inplace", "profile", "tags" and "annotate". */
bool mp_inplace_command(const char *command);

/* Run one of those commands. For annotate, *out holds the model bytes. */
struct mp_cache;
memplan_status mp_report_inplace(struct mp_cache *cache, const memplan_model *m, const char *command,
                                 const memplan_request *r, char **out, size_t *len, memplan_error *err, bool json);

#endif
