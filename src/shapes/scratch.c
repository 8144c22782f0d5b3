/* scratch.c -- a stack allocator in a list of reusable blocks (scratch.h). */
#include "shapes/scratch.h"

#include <stdint.h>
#include <stdlib.h>

#define SCRATCH_BLOCK_MIN (64u * 1024u)
#define SCRATCH_ALIGN 16u

struct mp_scratch_block {
    mp_scratch_block *next;
    size_t cap;
    size_t used;
    /* payload follows, aligned */
};

static size_t header_size(void) {
    return (sizeof(mp_scratch_block) + SCRATCH_ALIGN - 1) & ~(size_t)(SCRATCH_ALIGN - 1);
}

void mp_scratch_init(mp_scratch *s) {
    s->first = NULL;
    s->top = NULL;
}

void mp_scratch_free(mp_scratch *s) {
    mp_scratch_block *b = s->first;
    while (b) {
        mp_scratch_block *next = b->next;
        free(b);
        b = next;
    }
    s->first = s->top = NULL;
}

/* A new empty block of at least size bytes, linked in after `after` (first
 * when NULL), so the blocks after it stay in order for reuse. */
static mp_scratch_block *insert_block(mp_scratch *s, mp_scratch_block *after, size_t size) {
    size_t cap = size > SCRATCH_BLOCK_MIN ? size : SCRATCH_BLOCK_MIN;
    mp_scratch_block *b = malloc(header_size() + cap);
    if (!b) return NULL;
    b->cap = cap;
    b->used = 0;
    if (after) {
        b->next = after->next;
        after->next = b;
    } else {
        b->next = s->first;
        s->first = b;
    }
    return b;
}

void *mp_scratch_alloc(mp_scratch *s, size_t count, size_t size) {
    if (size && count > SIZE_MAX / 4 / size) return NULL;
    size_t n = count * size;
    n = n ? (n + SCRATCH_ALIGN - 1) & ~(size_t)(SCRATCH_ALIGN - 1) : SCRATCH_ALIGN;
    mp_scratch_block *b = s->top;
    if (!b || b->cap - b->used < n) {
        /* the next block (empty: everything above the top was released) if it is big enough */
        mp_scratch_block *next = b ? b->next : s->first;
        b = next && next->cap >= n ? next : insert_block(s, b, n);
        if (!b) return NULL;
        b->used = 0;
        s->top = b;
    }
    unsigned char *p = (unsigned char *)b + header_size() + b->used;
    b->used += n;
    return p;
}

mp_scratch_mark mp_scratch_top(const mp_scratch *s) {
    mp_scratch_mark m = {s->top, s->top ? s->top->used : 0};
    return m;
}

void mp_scratch_release(mp_scratch *s, mp_scratch_mark m) {
    /* Blocks above the mark's are left as they are: an allocation that
     * moves on to one resets it first. */
    s->top = m.block;
    if (m.block) m.block->used = m.used;
}
