/* alloc.c -- see alloc.h. */
#include "util/alloc.h"

#include <stdlib.h>

#ifdef __EMSCRIPTEN__
/* Emscripten's dlmalloc grows its heap (sbrk) by less than 2^31 bytes at a
 * time: a request of 2 GiB or more fails when the free space at the top of
 * the heap is smaller, as on a fresh module, however much the 4 GB memory
 * could still grow. Such a heap is grown first by steps below that limit:
 * blocks taken at the top and freed at once join the top chunk (dlmalloc is
 * built without trimming there, so the space stays), from which the large
 * block is then cut. PIECE leaves room for dlmalloc's padding. */
#define PIECE ((size_t)1 << 30)
#define MAX_PIECES 4 /* 4 GiB: all a 32-bit address space holds */

static void *alloc_grown(size_t n) {
    void *piece[MAX_PIECES];
    size_t k = 0, got = 0;
    while (got < n && k < MAX_PIECES) {
        size_t want = n - got < PIECE ? n - got : PIECE;
        if (!(piece[k] = malloc(want))) break;
        got += want;
        k++;
    }
    while (k) free(piece[--k]); /* the last first: each joins the top chunk */
    return malloc(n);
}
#endif

void *mp_alloc_large(size_t n) {
    void *p = malloc(n ? n : 1);
#ifdef __EMSCRIPTEN__
    if (!p && n > PIECE) p = alloc_grown(n);
#endif
    return p;
}
