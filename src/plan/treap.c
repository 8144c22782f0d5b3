/*
 * treap.c -- ordered id set keyed by (key[id], id); see treap.h.
 *
 * A treap is a binary search tree on the keys that is also a heap on random
 * priorities; here the priority of a node is a hash of its id. Insert and
 * erase are expressed with split and merge.
 */
#include "plan/treap.h"

#include <stdlib.h>

/* Heap priority of an id: a fixed bijective hash (splitmix64 finalizer). */
static uint64_t prio(size_t id) {
    uint64_t z = (uint64_t)id + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* (key[a], a) < (k, id) */
static bool less(const mp_treap *t, size_t a, uint64_t k, size_t id) {
    return t->key[a] < k || (t->key[a] == k && a < id);
}

bool mp_treap_init(mp_treap *t, size_t cap, const uint64_t *key) {
    t->cap = cap;
    t->key = key;
    t->root = MP_TREAP_NIL;
    t->left = malloc((cap ? cap : 1) * sizeof *t->left);
    t->right = malloc((cap ? cap : 1) * sizeof *t->right);
    if (!t->left || !t->right) {
        mp_treap_free(t);
        return false;
    }
    return true;
}

void mp_treap_free(mp_treap *t) {
    free(t->left);
    free(t->right);
    t->left = t->right = NULL;
    t->root = MP_TREAP_NIL;
    t->cap = 0;
}

/* Split tree n into nodes below (k, id) -> *lo and the rest -> *hi. */
static void split(mp_treap *t, size_t n, uint64_t k, size_t id, size_t *lo, size_t *hi) {
    if (n == MP_TREAP_NIL) {
        *lo = *hi = MP_TREAP_NIL;
    } else if (less(t, n, k, id)) {
        split(t, t->right[n], k, id, &t->right[n], hi);
        *lo = n;
    } else {
        split(t, t->left[n], k, id, lo, &t->left[n]);
        *hi = n;
    }
}

/* Join two trees where every node of a orders before every node of b. */
static size_t merge(mp_treap *t, size_t a, size_t b) {
    if (a == MP_TREAP_NIL) return b;
    if (b == MP_TREAP_NIL) return a;
    if (prio(a) > prio(b)) {
        t->right[a] = merge(t, t->right[a], b);
        return a;
    }
    t->left[b] = merge(t, a, t->left[b]);
    return b;
}

void mp_treap_insert(mp_treap *t, size_t id) {
    size_t lo, hi;
    t->left[id] = t->right[id] = MP_TREAP_NIL;
    split(t, t->root, t->key[id], id, &lo, &hi);
    t->root = merge(t, merge(t, lo, id), hi);
}

void mp_treap_erase(mp_treap *t, size_t id) {
    size_t *link = &t->root;
    while (*link != MP_TREAP_NIL && *link != id)
        link = less(t, *link, t->key[id], id) ? &t->right[*link] : &t->left[*link];
    if (*link == id) *link = merge(t, t->left[id], t->right[id]);
}

size_t mp_treap_next(const mp_treap *t, uint64_t k, size_t id) {
    size_t best = MP_TREAP_NIL;
    size_t n = t->root;
    while (n != MP_TREAP_NIL) {
        if (less(t, n, k, id) || (t->key[n] == k && n == id)) {
            n = t->right[n];
        } else {
            best = n;
            n = t->left[n];
        }
    }
    return best;
}

size_t mp_treap_prev(const mp_treap *t, uint64_t k, size_t id) {
    size_t best = MP_TREAP_NIL;
    size_t n = t->root;
    while (n != MP_TREAP_NIL) {
        if (less(t, n, k, id)) {
            best = n;
            n = t->right[n];
        } else {
            n = t->left[n];
        }
    }
    return best;
}

size_t mp_treap_ceil(const mp_treap *t, uint64_t k) {
    size_t best = MP_TREAP_NIL;
    size_t n = t->root;
    while (n != MP_TREAP_NIL) {
        if (t->key[n] < k) {
            n = t->right[n];
        } else {
            best = n;
            n = t->left[n];
        }
    }
    return best;
}
