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
    rest[sizeof rest - 1] = '\0';
    /* Assemble by hand: "%s: %s" into a same-sized buffer trips
     * -Wformat-truncation at -O2, and truncation is what we want. */
    size_t cap = sizeof err->message - 1, len = strlen(prefix);
    if (len > cap) len = cap;
    memmove(err->message, prefix, len);
    const char *sep = ": ";
    for (size_t i = 0; sep[i] && len < cap; i++) err->message[len++] = sep[i];
    size_t rlen = strlen(rest);
    if (rlen > cap - len) rlen = cap - len;
    memcpy(err->message + len, rest, rlen);
    err->message[len + rlen] = '\0';
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
