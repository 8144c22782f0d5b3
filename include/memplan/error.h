/*
 * memplan/error.h -- status codes and the error record every fallible call fills.
 *
 * Library functions never exit or abort. They return a memplan_status and,
 * when given a non-NULL memplan_error, write a one-line message that names the
 * value, node or byte offset at fault.
 */
#ifndef MEMPLAN_ERROR_H
#define MEMPLAN_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum memplan_status {
    MEMPLAN_OK = 0,
    MEMPLAN_EINPUT = 1,   /* the model or data given is malformed or inconsistent */
    MEMPLAN_ENOMEM = 2,   /* an allocation failed */
    MEMPLAN_ELIMIT = 3,   /* a documented limit was exceeded (nesting, counts, sizes) */
    MEMPLAN_EUSAGE = 4,   /* the caller passed invalid arguments or options */
    MEMPLAN_EINTERNAL = 5 /* a consistency check failed: a bug in memplan */
} memplan_status;

#define MEMPLAN_ERROR_MAX 512

typedef struct memplan_error {
    memplan_status status;
    char message[MEMPLAN_ERROR_MAX];
} memplan_error;

/* Fill err (if not NULL) with a printf-style message; returns status. */
memplan_status memplan_error_set(memplan_error *err, memplan_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prefix an existing message with "context: ". Returns err->status. */
memplan_status memplan_error_prefix(memplan_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Short lowercase name of a status ("input", "memory", ...). */
const char *memplan_status_name(memplan_status status);

#ifdef __cplusplus
}
#endif
#endif
