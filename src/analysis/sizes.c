/* sizes.c -- byte sizes from declared types and dim bindings. */
#include <stdlib.h>
#include <string.h>

#include "memplan/sizes.h"

static const memplan_binding *find_binding(const memplan_binding *b, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(b[i].name, name) == 0) return &b[i];
    return NULL;
}

memplan_size memplan_type_size(const memplan_type *t, const memplan_binding *b, size_t nb) {
    memplan_size s = {MEMPLAN_SIZE_UNKNOWN, 0, NULL, 0, NULL, -1};
    switch (t->kind) {
    case MEMPLAN_TYPE_NONE: s.reason = "no shape known"; return s;
    case MEMPLAN_TYPE_TENSOR: break;
    case MEMPLAN_TYPE_SPARSE_TENSOR: s.kind = MEMPLAN_SIZE_UNPLANNABLE; s.reason = "sparse tensor"; return s;
    case MEMPLAN_TYPE_SEQUENCE: s.kind = MEMPLAN_SIZE_UNPLANNABLE; s.reason = "sequence"; return s;
    case MEMPLAN_TYPE_MAP: s.kind = MEMPLAN_SIZE_UNPLANNABLE; s.reason = "map"; return s;
    case MEMPLAN_TYPE_OPTIONAL: s.kind = MEMPLAN_SIZE_UNPLANNABLE; s.reason = "optional"; return s;
    case MEMPLAN_TYPE_OPAQUE: s.kind = MEMPLAN_SIZE_UNPLANNABLE; s.reason = "opaque"; return s;
    }
    if (t->elem_type == MEMPLAN_DTYPE_STRING) {
        s.kind = MEMPLAN_SIZE_UNPLANNABLE;
        s.reason = "string tensor";
        return s;
    }
    unsigned bits = memplan_dtype_bits(t->elem_type);
    if (!bits) {
        s.reason = "element type unknown";
        return s;
    }
    if (t->rank < 0) {
        s.reason = "rank unknown";
        return s;
    }
    uint64_t elems = 1;
    bool zero = false, overflow = false, symbolic = false;
    for (int32_t i = 0; i < t->rank; i++) {
        const memplan_dim *d = &t->dims[i];
        int64_t v;
        if (d->kind == MEMPLAN_DIM_UNKNOWN) {
            s.reason = "a dim is unknown";
            return s;
        }
        if (d->kind == MEMPLAN_DIM_PARAM) {
            const memplan_binding *bd = find_binding(b, nb, d->param);
            if (!bd) {
                symbolic = true;
                continue;
            }
            v = bd->value;
        } else {
            v = d->value;
        }
        if (v == 0) zero = true;
        else if (elems > UINT64_MAX / (uint64_t)v) overflow = true;
        else elems *= (uint64_t)v;
    }
    if (symbolic) {
        s.kind = MEMPLAN_SIZE_SYMBOLIC;
        s.rank = t->rank;
        s.dims = t->dims;
        return s;
    }
    if (zero) elems = 0;
    if (!zero && (overflow || elems > (UINT64_MAX - 7) / bits)) {
        s.reason = "size overflows 64 bits";
        return s;
    }
    s.kind = MEMPLAN_SIZE_KNOWN;
    s.bytes = (elems * bits + 7) / 8;
    return s;
}

bool memplan_binding_parse(const char *text, memplan_binding *out, char *name_buf, size_t name_cap) {
    const char *eq = strchr(text, '=');
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
