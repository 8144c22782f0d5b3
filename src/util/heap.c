/* heap.c -- the process heap set up for large plans (see heap.h). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* sbrk, madvise */
#endif
#include "util/heap.h"

#include <stdint.h>
#include <stdlib.h> /* before the test: defines __GLIBC__ */
#include <string.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* The heap grows by HEAP_SPAN bytes of address space at once, asked for
 * transparent huge pages; blocks below 32 MiB come from it, and freed ones
 * are kept for reuse rather than unmapped. A hostile model's analysis
 * touches a few hundred MB of fresh memory, and on a virtual machine each
 * 4 KiB page fault costs microseconds (40,000 of them were a quarter of
 * `plan --inplace` on fan_out_100k). Only when the address space is not
 * limited (a limit is left to bite where it did), and advice only: the
 * results are the same without it. */
#define HEAP_SPAN (1 << 30)
#define HUGE_PAGE ((uintptr_t)2 << 20)
void mp_heap_setup(void) {
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur != RLIM_INFINITY) return;
    if (!mallopt(M_MMAP_THRESHOLD, 32 << 20) || !mallopt(M_TRIM_THRESHOLD, INT_MAX) || !mallopt(M_TOP_PAD, HEAP_SPAN))
        return;
    void *first = malloc(1);
    if (!first) {
        (void)mallopt(M_TOP_PAD, 128 << 10);
        return;
    }
    uintptr_t lo = ((uintptr_t)first + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = (uintptr_t)sbrk(0) & ~(HUGE_PAGE - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    free(first);
}

/* The 2 MiB-aligned interior of [p, p + bytes), advised. */
static void advise_huge(void *p, size_t bytes) {
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}
#define BIG_ARRAY ((size_t)4 << 20)
#else
void mp_heap_setup(void) {}
static void advise_huge(void *p, size_t bytes) {
    (void)p;
    (void)bytes;
}
#define BIG_ARRAY SIZE_MAX
#endif

void *mp_malloc_big(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p && bytes >= BIG_ARRAY) advise_huge(p, bytes);
    return p;
}

void *mp_calloc_big(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    size_t bytes = count * size;
    if (bytes < BIG_ARRAY) return calloc(count ? count : 1, size ? size : 1);
    void *p = mp_malloc_big(bytes); /* advised before the zeroing touches it */
    if (p) memset(p, 0, bytes);
    return p;
}
