/* sizes.c -- dim bindings from "NAME=VALUE" text. */
#include <stdlib.h>
#include <string.h>

#include "memplan/sizes.h"

bool memplan_binding_parse(const char *text, memplan_binding *out, char *name_buf, size_t name_cap) {
    const char *eq = strrchr(text, '='); /* a name may hold '=', the value does not */
    if (!eq || eq == text || (size_t)(eq - text) >= name_cap) return false;
    const char *num = eq + 1;
    if (*num < '0' || *num > '9') return false;
    char *end;
    unsigned long long v = strtoull(num, &end, 10);
    if (*end || v > (1ull << 53)) return false;
    memcpy(name_buf, text, (size_t)(eq - text));
    name_buf[eq - text] = '\0';
    out->name = name_buf;
    out->value = (int64_t)v;
    return true;
}
