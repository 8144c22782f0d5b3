/* arena.c -- bump allocator in a list of blocks. */
#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_MIN (64u * 1024u)
#define ARENA_ALIGN 16u

struct mp_arena_block {
    mp_arena_block *next;
    size_t cap;
    size_t used;
    /* payload follows, aligned */
};

static size_t header_size(void) { return (sizeof(mp_arena_block) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1); }

void mp_arena_init(mp_arena *a) {
    a->head = NULL;
    a->used_total = 0;
}

void mp_arena_free(mp_arena *a) {
    mp_arena_block *b = a->head;
    while (b) {
        mp_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->used_total = 0;
}

void *mp_arena_alloc(mp_arena *a, size_t size) {
    if (size > SIZE_MAX / 2) return NULL;
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size == 0) size = ARENA_ALIGN;
    mp_arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > ARENA_BLOCK_MIN ? size : ARENA_BLOCK_MIN;
        b = malloc(header_size() + cap);
        if (!b) return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    unsigned char *p = (unsigned char *)b + header_size() + b->used;
    b->used += size;
    a->used_total += size;
    memset(p, 0, size);
    return p;
}

void *mp_arena_array(mp_arena *a, size_t count, size_t size) {
    if (size && count > SIZE_MAX / 2 / size) return NULL;
    return mp_arena_alloc(a, count * size);
}

char *mp_arena_strndup(mp_arena *a, const char *s, size_t n) {
    char *p = mp_arena_alloc(a, n + 1);
    if (!p) return NULL;
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *mp_arena_strdup(mp_arena *a, const char *s) { return mp_arena_strndup(a, s ? s : "", s ? strlen(s) : 0); }
