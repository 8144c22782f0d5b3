/* arena.c -- bump allocator in a list of blocks.
 *
 * Blocks grow with the arena (each as large as everything before it, from
 * 64 KiB up to 4 MiB), so a large model takes few blocks. Each block is
 * zeroed once when it is made (calloc, or fresh pages), not each allocation.
 * On Linux a block of 2 MiB or more is mapped on a 2 MiB boundary and asked
 * for transparent huge pages: a model whose graph fills 150 MB then takes
 * about 75 page faults instead of 38,000 (on a virtual machine each fault
 * costs microseconds, and they were a third of a load's time). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include <sys/mman.h>
#endif
#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_MIN (64u * 1024u)
#define ARENA_BLOCK_MAX (4u * 1024u * 1024u)
#define ARENA_ALIGN 16u

#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
#define ARENA_HUGE (2u * 1024u * 1024u) /* blocks this large (whole) are mapped */
#endif

struct mp_arena_block {
    mp_arena_block *next;
    size_t cap;
    size_t used;
    size_t mapped; /* bytes mapped (munmap on free), 0 if calloc'ed */
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
#ifdef ARENA_HUGE
        if (b->mapped) munmap(b, b->mapped);
        else
#endif
            free(b);
        b = next;
    }
    a->head = NULL;
    a->used_total = 0;
}

#ifdef ARENA_HUGE
/* A zeroed block of len bytes (a multiple of ARENA_HUGE) on an ARENA_HUGE
 * boundary, with huge pages asked for; NULL if mapping fails. */
static mp_arena_block *map_block(size_t len) {
    if (len > SIZE_MAX - ARENA_HUGE) return NULL;
    size_t span = len + ARENA_HUGE;
    unsigned char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    uintptr_t start = ((uintptr_t)raw + ARENA_HUGE - 1) & ~(uintptr_t)(ARENA_HUGE - 1);
    size_t head = start - (uintptr_t)raw;
    if (head) munmap(raw, head);
    if (span - head > len) munmap((unsigned char *)start + len, span - head - len);
    (void)madvise((void *)start, len, MADV_HUGEPAGE); /* advice only: small pages if refused */
    mp_arena_block *b = (mp_arena_block *)start;
    b->mapped = len;
    return b;
}
#endif

void *mp_arena_alloc(mp_arena *a, size_t size) {
    if (size > SIZE_MAX / 2) return NULL;
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size == 0) size = ARENA_ALIGN;
    mp_arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t grow = a->used_total < ARENA_BLOCK_MIN   ? ARENA_BLOCK_MIN
                      : a->used_total > ARENA_BLOCK_MAX ? ARENA_BLOCK_MAX
                                                        : a->used_total;
        size_t cap = size > grow ? size : grow;
        if (cap > SIZE_MAX - header_size()) return NULL;
        size_t len = header_size() + cap;
        b = NULL;
#ifdef ARENA_HUGE
        if (len >= ARENA_HUGE) {
            len = (len + ARENA_HUGE - 1) & ~(size_t)(ARENA_HUGE - 1);
            b = map_block(len);
            if (b) cap = len - header_size();
            else
                len = header_size() + cap;
        }
#endif
        if (!b) {
            b = calloc(1, len);
            if (!b) return NULL;
            b->mapped = 0;
        }
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    unsigned char *p = (unsigned char *)b + header_size() + b->used;
    b->used += size;
    a->used_total += size;
    return p; /* zero: the block was zeroed when made and is never reused */
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
