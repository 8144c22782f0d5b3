/* heap.h -- process-wide malloc settings for the command-line tools.
 *
 * mp_heap_setup() is for a program's main(), before anything is allocated;
 * the library never calls it (a host application owns its heap). On Linux
 * with glibc it makes the heap grow in large, huge-page-advised steps and
 * keeps freed blocks for reuse; elsewhere it does nothing. Advice only: the
 * results are the same without it, only page faults fewer. */
#ifndef MEMPLAN_UTIL_HEAP_H
#define MEMPLAN_UTIL_HEAP_H

#include <stddef.h>

void mp_heap_setup(void);

/* malloc and calloc for one large array of the library's own (a plan's
 * scratch at scale): on Linux with glibc a block of 4 MiB or more is
 * advised for transparent huge pages (its 2 MiB-aligned interior), so a
 * host application's default heap does not fault it in 4 KiB at a time
 * (1M random buffers: 96,600 faults, a sixth of the pack's time). Freed
 * with free(); elsewhere plain malloc and calloc. */
void *mp_malloc_big(size_t bytes);
void *mp_calloc_big(size_t count, size_t size);

#endif
