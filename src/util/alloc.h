/*
 * alloc.h -- one block of any size, even where a single malloc of 2 GiB or
 * more fails while smaller ones succeed (WebAssembly, below).
 */
#ifndef MEMPLAN_UTIL_ALLOC_H
#define MEMPLAN_UTIL_ALLOC_H

#include <stddef.h>

/* malloc(n) (n 0 gives a 1-byte block); NULL when out of memory. free() it. */
void *mp_alloc_large(size_t n);

/* What an out-of-memory message adds about the platform's limit. */
#ifdef __EMSCRIPTEN__
#define MP_ALLOC_LIMIT_NOTE " (WebAssembly's memory holds at most 4 GB, the module's own data included)"
#else
#define MP_ALLOC_LIMIT_NOTE ""
#endif

#endif
