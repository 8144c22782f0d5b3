/* strmap.c -- open-addressing string map with linear probing. */
#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

void mp_strmap_init(mp_strmap *m) { memset(m, 0, sizeof *m); }

void mp_strmap_free(mp_strmap *m) {
    free(m->keys);
    free(m->vals);
    mp_strmap_init(m);
}

int32_t mp_strmap_get(const mp_strmap *m, const char *key) {
    if (m->cap == 0) return -1;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)hash_str(key) & mask;; i = (i + 1) & mask) {
        if (!m->keys[i]) return -1;
        if (strcmp(m->keys[i], key) == 0) return m->vals[i];
    }
}

static bool grow(mp_strmap *m) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    const char **keys = calloc(cap, sizeof *keys);
    int32_t *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t j = (size_t)hash_str(m->keys[i]) & (cap - 1);
        while (keys[j]) j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return true;
}

bool mp_strmap_put(mp_strmap *m, const char *key, int32_t val) {
    if ((m->count + 1) * 2 > m->cap && !grow(m)) return false;
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash_str(key) & mask;
    while (m->keys[i]) {
        if (strcmp(m->keys[i], key) == 0) {
            m->vals[i] = val;
            return true;
        }
        i = (i + 1) & mask;
    }
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
    return true;
}
