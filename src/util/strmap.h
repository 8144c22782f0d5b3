/*
 * strmap.h -- string -> int32 hash map (open addressing, FNV-1a). Keys are
 * borrowed: they must outlive the map (they live in the model's arena).
 */
#ifndef MEMPLAN_UTIL_STRMAP_H
#define MEMPLAN_UTIL_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mp_strmap {
    const char **keys;
    int32_t *vals;
    size_t cap; /* power of two, 0 when empty */
    size_t count;
} mp_strmap;

void mp_strmap_init(mp_strmap *m);
void mp_strmap_free(mp_strmap *m);
/* Returns the value or -1. */
int32_t mp_strmap_get(const mp_strmap *m, const char *key);
/* Insert or overwrite. False when memory runs out. */
bool mp_strmap_put(mp_strmap *m, const char *key, int32_t val);

#endif
