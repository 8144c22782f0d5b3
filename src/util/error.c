/* error.c -- the memplan_error record. */
#include "memplan/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

memplan_status memplan_error_set(memplan_error *err, memplan_status status, const char *fmt, ...) {
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
    size_t n = strlen(prefix);
    if (n > sizeof err->message - 3) n = sizeof err->message - 3;
    memcpy(err->message, prefix, n);
    memcpy(err->message + n, ": ", 2);
    size_t room = sizeof err->message - n - 2;
    rest[sizeof rest - 1] = '\0';
    size_t r = strlen(rest);
    if (r >= room) r = room - 1;
    memcpy(err->message + n + 2, rest, r);
    err->message[n + 2 + r] = '\0';
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
