/* strmap.c -- open-addressing string map with linear probing. */
#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return (uint32_t)(h ^ (h >> 32));
}

void mp_strmap_init(mp_strmap *m) { memset(m, 0, sizeof *m); }

void mp_strmap_free(mp_strmap *m) {
    free(m->slots);
    mp_strmap_init(m);
}

/* The slot of key (hash h): where it is, or the empty slot that ends its probe. */
static mp_strmap_slot *find(const mp_strmap *m, const char *key, uint32_t h) {
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        mp_strmap_slot *sl = &m->slots[i];
        if (!sl->key || (sl->hash == h && strcmp(sl->key, key) == 0)) return sl;
    }
}

int32_t mp_strmap_get(const mp_strmap *m, const char *key) {
    if (m->cap == 0) return -1;
    const mp_strmap_slot *sl = find(m, key, hash_str(key));
    return sl->key ? sl->val : -1;
}

/* The table at cap slots (a power of two above twice the count). */
static bool rehash(mp_strmap *m, size_t cap) {
    mp_strmap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < m->cap; i++) {
        const mp_strmap_slot *sl = &m->slots[i];
        if (!sl->key) continue;
        size_t j = sl->hash & (cap - 1);
        while (slots[j].key) j = (j + 1) & (cap - 1);
        slots[j] = *sl;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return true;
}

bool mp_strmap_reserve(mp_strmap *m, size_t n) {
    if (n > SIZE_MAX / 4 / sizeof(mp_strmap_slot)) return false;
    size_t cap = m->cap ? m->cap : 16;
    while ((n + 1) * 2 > cap) cap *= 2;
    return cap == m->cap || rehash(m, cap);
}

bool mp_strmap_put(mp_strmap *m, const char *key, int32_t val) {
    if ((m->count + 1) * 2 > m->cap && !rehash(m, m->cap ? m->cap * 2 : 16)) return false;
    uint32_t h = hash_str(key);
    mp_strmap_slot *sl = find(m, key, h);
    if (!sl->key) {
        sl->key = key;
        sl->hash = h;
        m->count++;
    }
    sl->val = val;
    return true;
}

size_t mp_strmap_key3(char *out, const char *a, const char *b, const char *c) {
    const char *part[3] = {a ? a : "", b ? b : "", c ? c : ""};
    size_t len[3], total = 0;
    for (int i = 0; i < 3; i++) total += (len[i] = strlen(part[i])) + 1;
    for (int i = 0; out && i < 3; i++) {
        memcpy(out, part[i], len[i]);
        out += len[i];
        *out++ = i < 2 ? '\x1f' : '\0';
    }
    return total;
}
