/* heap.c -- the process heap set up for large plans (see heap.h). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* sbrk, madvise */
#endif
#include "util/heap.h"

#include <stdlib.h> /* before the test: defines __GLIBC__ */

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
#else
void mp_heap_setup(void) {}
#endif
