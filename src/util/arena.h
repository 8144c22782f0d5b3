/*
 * arena.h -- a bump allocator. Everything a loaded model owns comes from one
 * arena, so freeing the model is one call. Allocations are 16-byte aligned and
 * zeroed. Returns NULL when memory runs out or a size overflows.
 */
#ifndef MEMPLAN_UTIL_ARENA_H
#define MEMPLAN_UTIL_ARENA_H

#include <stddef.h>

typedef struct mp_arena_block mp_arena_block;

typedef struct mp_arena {
    mp_arena_block *head;
    size_t used_total; /* bytes handed out, for reporting */
} mp_arena;

void mp_arena_init(mp_arena *a);
void mp_arena_free(mp_arena *a);
void *mp_arena_alloc(mp_arena *a, size_t size);
/* count * size with overflow check. */
void *mp_arena_array(mp_arena *a, size_t count, size_t size);
/* Copy n bytes and add a NUL. */
char *mp_arena_strndup(mp_arena *a, const char *s, size_t n);
char *mp_arena_strdup(mp_arena *a, const char *s);

#endif
