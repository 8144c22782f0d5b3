/*
 * treap.h -- an ordered set of small integer ids, keyed by (key[id], id).
 *
 * Nodes are the ids 0..cap-1 themselves, so inserting and erasing never
 * allocates. Priorities come from a hash of the id: the shape of the tree,
 * and so every result, is deterministic. Expected O(log n) per operation.
 * Used for retired slots (key = capacity) and for live address ranges in the
 * validator (key = offset).
 */
#ifndef MEMPLAN_PLAN_TREAP_H
#define MEMPLAN_PLAN_TREAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MP_TREAP_NIL SIZE_MAX

typedef struct mp_treap {
    size_t *left;
    size_t *right;
    const uint64_t *key; /* owned by the caller, must not change while in */
    size_t root;
    size_t cap;
} mp_treap;

/* Room for ids 0..cap-1. false when memory runs out. */
bool mp_treap_init(mp_treap *t, size_t cap, const uint64_t *key);
void mp_treap_free(mp_treap *t);

/* id must not be in the set already / must be in the set. */
void mp_treap_insert(mp_treap *t, size_t id);
void mp_treap_erase(mp_treap *t, size_t id);

/* Smallest id with (key, id) >= (k, 0), or MP_TREAP_NIL. */
size_t mp_treap_ceil(const mp_treap *t, uint64_t k);

/* Neighbours of a (key, id) pair in the order: the largest element below it
 * and the smallest above it (the pair itself need not be in the set). */
size_t mp_treap_prev(const mp_treap *t, uint64_t k, size_t id);
size_t mp_treap_next(const mp_treap *t, uint64_t k, size_t id);

#endif
