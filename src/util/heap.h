/* heap.h -- process-wide malloc settings for the command-line tools.
 *
 * mp_heap_setup() is for a program's main(), before anything is allocated;
 * the library never calls it (a host application owns its heap). On Linux
 * with glibc it makes the heap grow in large, huge-page-advised steps and
 * keeps freed blocks for reuse; elsewhere it does nothing. Advice only: the
 * results are the same without it, only page faults fewer. */
#ifndef MEMPLAN_UTIL_HEAP_H
#define MEMPLAN_UTIL_HEAP_H

void mp_heap_setup(void);

#endif
