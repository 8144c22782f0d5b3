/* error.c -- the memplan_error record. */
#include "memplan/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

memplan_status memplan_error_set(memplan_error *err, memplan_status status,
                                 const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

memplan_status memplan_error_prefix(memplan_error *err, const char *fmt, ...) {
    if (!err) return MEMPLAN_EINTERNAL;
    char prefix[MEMPLAN_ERROR_MAX];
    char rest[MEMPLAN_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(rest, err->message, sizeof rest);
    snprintf(err->message, sizeof err->message, "%s: %s", prefix, rest);
    return err->status;
}

const char *memplan_status_name(memplan_status status) {
    switch (status) {
    case MEMPLAN_OK: return "ok";
    case MEMPLAN_EINPUT: return "input";
    case MEMPLAN_ENOMEM: return "memory";
    case MEMPLAN_ELIMIT: return "limit";
    case MEMPLAN_EUSAGE: return "usage";
    case MEMPLAN_EINTERNAL: return "internal";
    }
    return "unknown";
}
