/*
 * strmap.h -- string -> int32 hash map (open addressing, FNV-1a). Keys are
 * borrowed: they must outlive the map (they live in the model's arena).
 */
#ifndef MEMPLAN_UTIL_STRMAP_H
#define MEMPLAN_UTIL_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One slot: its key's hash is kept beside it, so a probe compares strings
 * only when the hashes agree (and a grow never hashes a key again). */
typedef struct mp_strmap_slot {
    const char *key; /* NULL: empty */
    uint32_t hash;
    int32_t val;
} mp_strmap_slot;

typedef struct mp_strmap {
    mp_strmap_slot *slots;
    size_t cap; /* power of two, 0 when empty */
    size_t count;
} mp_strmap;

void mp_strmap_init(mp_strmap *m);
void mp_strmap_free(mp_strmap *m);
/* Returns the value or -1. */
int32_t mp_strmap_get(const mp_strmap *m, const char *key);
/* Insert or overwrite. False when memory runs out. */
bool mp_strmap_put(mp_strmap *m, const char *key, int32_t val);
/* Room for n keys in all without growing (a hint: false only when memory
 * runs out). */
bool mp_strmap_reserve(mp_strmap *m, size_t n);
/* A key of three parts, "a\x1Fb\x1Fc" (NULL parts read as ""), written to
 * out unless NULL; returns its size with the NUL. */
size_t mp_strmap_key3(char *out, const char *a, const char *b, const char *c);

#endif
