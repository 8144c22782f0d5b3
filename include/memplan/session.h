/*
 * memplan/session.h -- a loaded model and its cached stage results.
 *
 * A session is what an interactive shell holds (the WASM exports, a viewer):
 * the model loaded once, and the pipeline re-run on demand for each report.
 * Work that a request does not change is kept and reused (see
 * src/out/cache.h): binding new dims re-runs shapes, liveness and the
 * planners, never the load; asking for the slot strategy after the arena
 * with the same dims prints from the same plan; the in-place analyses and
 * the profile are computed once per model and printed under each binding.
 *
 * Every document a session prints equals memplan_report_json() (or _text)
 * of the same model and request: the cache only saves time.
 *
 *   memplan_session *s;
 *   if (memplan_session_open(bytes, len, &s, &err)) { ...err.message... }
 *   memplan_session_report(s, "plan", &request, true, &json, &len, &err);
 *   free(json);
 *   memplan_session_close(s);
 */
#ifndef MEMPLAN_SESSION_H
#define MEMPLAN_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "memplan/error.h"
#include "memplan/model.h"
#include "memplan/report.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct memplan_session memplan_session;

/* Load a model from its file bytes. The session keeps its own copy of the
 * bytes (annotate rewrites them). */
memplan_status memplan_session_open(const void *bytes, size_t len, memplan_session **out, memplan_error *err);

/* Load a model through a reader (memplan/model.h): the session keeps only
 * the model's bytes without large tensor data, so a file of any size costs
 * O(graph) memory. Every command works as with memplan_session_open;
 * "annotate" (it copies the whole model) needs the reader again in the
 * request's model_reader, else it fails with MEMPLAN_EUSAGE. */
memplan_status memplan_session_open_reader(const memplan_reader *reader, memplan_session **out, memplan_error *err);

/* Free the session and everything it cached. NULL is fine. */
void memplan_session_close(memplan_session *s);

const memplan_model *memplan_session_model(const memplan_session *s);

/* Run `command` for the request, as memplan_report_json (json) or
 * memplan_report_text would; the request's model_bytes/model_len are ignored
 * (the session's copy is used; model_reader is passed on to annotate). *out is malloc'ed: free it. When memory runs
 * out, the session drops its cached results (the model stays loaded). */
memplan_status memplan_session_report(memplan_session *s, const char *command, const memplan_request *r, bool json,
                                      char **out, size_t *len, memplan_error *err);

/* The plan a `plan` report of request r is of: the session's model planned
 * with the request's options, or with r->float16_cpu the graph ONNX Runtime's
 * CPU execution provider runs (memplan/ort_float16.h). Borrowed as below. */
memplan_status memplan_session_plan_request(memplan_session *s, const memplan_request *r,
                                            const memplan_model_plan **out, memplan_error *err);

/* The plan of the session's model for the options (memplan/model_plan.h),
 * from the cache when the same options were planned before. The plan is the
 * session's: valid until the next call on the session; do not free it. */
memplan_status memplan_session_plan(memplan_session *s, const memplan_plan_options *o, const memplan_model_plan **out,
                                    memplan_error *err);

/* Drop every cached result (the model stays loaded). */
void memplan_session_forget(memplan_session *s);

#ifdef __cplusplus
}
#endif
#endif
