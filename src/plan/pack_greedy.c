/*
 * pack_greedy.c -- the greedy best-fit decoder (TFLite-Micro style).
 *
 * Buffers are placed one at a time in a given order. For each one we gather
 * the already placed buffers whose lifetimes meet its own, walk them in
 * address order and look at the gaps between them: the buffer goes into the
 * smallest gap it fits (lowest address on ties), or on top of them all.
 *
 * Fed with "size descending" this is the classic greedy-by-size heuristic;
 * fed with "start, then size descending" it is a time-ordered best fit.
 *
 * Finding the live-together placed buffers is the costly part. A max
 * segment tree over the buffers in start order holds the end time of each
 * placed buffer: the conflicts of [s, e) are the placed buffers among those
 * starting before e whose end exceeds s, and the tree enumerates exactly
 * those by skipping every subtree whose largest end is <= s. With k
 * conflicts a placement costs O((k + 1) log n + k log k), instead of the
 * O(n) scan of a plain list.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/pack_internal.h"

/* A placed buffer in the time-ordered decoder's active list: its address
 * range and end read in one stream, without a look-up per buffer. */
typedef struct active {
    uint64_t off, top;
    int64_t end;
    size_t id;
} active;

struct mp_greedy {
    const mp_pack_input *in;
    active *act;     /* the active list of mp_greedy_decode_by_start */
    size_t na;       /* its length */
    size_t next;     /* mp_greedy_by_start_until: the next position in the order */
    uint64_t height; /* and the highest top so far */
    size_t leaves;   /* power of two >= n */
    int64_t *tree;   /* tree[1] is the root; leaf p at leaves + p */
    size_t *hits;    /* conflicts of the buffer being placed */
    size_t *tmp;     /* sort scratch */
    size_t *pos_of;  /* position of each buffer in start order */
    size_t nhits;
    const uint64_t *off;
    uint64_t work;
};

mp_greedy *mp_greedy_new(const mp_pack_input *in, bool tree) {
    mp_greedy *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->in = in;
    g->leaves = 1;
    while (g->leaves < in->n) g->leaves *= 2;
    if (tree) {
        g->tree = malloc(2 * g->leaves * sizeof *g->tree);
        g->hits = malloc((in->n ? in->n : 1) * sizeof *g->hits);
        g->tmp = malloc((in->n ? in->n : 1) * sizeof *g->tmp);
    }
    g->pos_of = malloc((in->n ? in->n : 1) * sizeof *g->pos_of);
    g->act = malloc((in->n ? in->n : 1) * sizeof *g->act);
    if ((tree && (!g->tree || !g->hits || !g->tmp)) || !g->pos_of || !g->act) {
        mp_greedy_free(g);
        return NULL;
    }
    for (size_t p = 0; p < in->n; p++) g->pos_of[in->by_start[p]] = p;
    return g;
}

void mp_greedy_free(mp_greedy *g) {
    if (!g) return;
    free(g->tree);
    free(g->hits);
    free(g->tmp);
    free(g->pos_of);
    free(g->act);
    free(g);
}

/* First position in start order whose buffer starts at or after t. */
static size_t first_start_at(const mp_pack_input *in, int64_t t) {
    size_t lo = 0, hi = in->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (in->bufs[in->by_start[mid]].start < t) lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Collect placed buffers at positions [lo, hi) ∩ [0, limit) ending after t. */
static void collect(mp_greedy *g, size_t node, size_t lo, size_t hi, size_t limit, int64_t t) {
    g->work++;
    if (lo >= limit || g->tree[node] <= t) return;
    if (hi - lo == 1) {
        g->hits[g->nhits++] = g->in->by_start[lo];
        return;
    }
    size_t mid = lo + (hi - lo) / 2;
    collect(g, 2 * node, lo, mid, limit, t);
    collect(g, 2 * node + 1, mid, hi, limit, t);
}

static void mark_placed(mp_greedy *g, size_t pos, int64_t end) {
    size_t node = g->leaves + pos;
    g->tree[node] = end;
    for (node /= 2; node >= 1; node /= 2) {
        int64_t m = MP_MAX(g->tree[2 * node], g->tree[2 * node + 1]);
        if (g->tree[node] == m) break;
        g->tree[node] = m;
    }
}

static int cmp_offset(const void *ctx, size_t a, size_t b) {
    const uint64_t *off = ctx;
    if (off[a] != off[b]) return off[a] < off[b] ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* The best-fit rule, fed the conflicts in address order: the smallest gap
 * of `need` bytes or more between the running highest top and the next
 * conflict's offset (the lowest of equal gaps), else the top of them all. */
typedef struct gap_walk {
    uint64_t need, top, best, gap;
} gap_walk;

static gap_walk gap_walk_start(uint64_t need) { return (gap_walk){need, 0, UINT64_MAX, UINT64_MAX}; }

static void gap_walk_next(gap_walk *w, uint64_t off, uint64_t top) {
    if (off >= w->top && off - w->top >= w->need && off - w->top < w->gap) {
        w->gap = off - w->top;
        w->best = w->top;
    }
    w->top = MP_MAX(w->top, top);
}

static uint64_t gap_walk_offset(const gap_walk *w) { return w->best != UINT64_MAX ? w->best : w->top; }

/* Best-fit offset for `need` bytes among the conflicts, sorted by address. */
static uint64_t best_gap(const mp_greedy *g, uint64_t need) {
    gap_walk w = gap_walk_start(need);
    for (size_t k = 0; k < g->nhits; k++) {
        size_t j = g->hits[k];
        gap_walk_next(&w, g->off[j], g->off[j] + g->in->size[j]);
    }
    return gap_walk_offset(&w);
}

uint64_t mp_greedy_decode(mp_greedy *g, const size_t *order, uint64_t *off, uint64_t *work) {
    const mp_pack_input *in = g->in;
    for (size_t k = 0; k < 2 * g->leaves; k++) g->tree[k] = INT64_MIN;
    g->off = off;
    g->work = in->n;
    uint64_t height = 0;
    for (size_t k = 0; k < in->n; k++) {
        size_t i = order[k];
        const memplan_buffer *b = &in->bufs[i];
        g->nhits = 0;
        collect(g, 1, 0, g->leaves, first_start_at(in, b->end), b->start);
        mp_sort_idx_tmp(g->hits, g->nhits, cmp_offset, off, g->tmp);
        g->work += g->nhits;
        off[i] = best_gap(g, in->size[i]);
        height = MP_MAX(height, off[i] + in->size[i]);
        mark_placed(g, g->pos_of[i], b->end);
    }
    *work += g->work;
    return height;
}

/* Where a buffer at offset o with index i goes in the active list, sorted
 * by (offset, index). */
static size_t active_slot(const active *act, size_t n, uint64_t o, size_t i) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (act[mid].off < o || (act[mid].off == o && act[mid].id < i)) lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * Buffers in start order: every placed buffer started at or before the
 * current start, so its conflicts are simply the placed buffers not yet
 * ended -- an active list, kept in best_gap's (offset, index) order by
 * dropping the ended ones and inserting each new buffer in place. No tree
 * walk and no sort: this is most of the time of a big time-ordered pack,
 * and far more in WebAssembly, where the tree walk's recursion is slow.
 * One pass over the list both drops the ended buffers and finds the best
 * gap (best_gap's rule over what stays), reading each entry's offset, top
 * and end from the entry itself.
 */
bool mp_greedy_by_start_until(mp_greedy *g, const size_t *order, uint64_t *off, uint64_t limit, uint64_t *height,
                              uint64_t *work) {
    const mp_pack_input *in = g->in;
    active *act = g->act;
    size_t na = g->na, k = g->next;
    uint64_t top = g->height, steps = 0;
    while (k < in->n && top <= limit) {
        size_t i = order[k++], kept = 0;
        int64_t s = in->bufs[i].start;
        uint64_t need = in->size[i];
        gap_walk w = gap_walk_start(need);
        for (size_t a = 0; a < na; a++) {
            active r = act[a];
            if (r.end <= s) continue; /* ended: dropped */
            act[kept++] = r;
            gap_walk_next(&w, r.off, r.top);
        }
        na = kept;
        steps += na + 1;
        off[i] = gap_walk_offset(&w);
        top = MP_MAX(top, off[i] + need);
        size_t at = active_slot(act, na, off[i], i);
        memmove(&act[at + 1], &act[at], (na - at) * sizeof *act);
        act[at] = (active){off[i], off[i] + need, in->bufs[i].end, i};
        na++;
    }
    g->na = na;
    g->next = k;
    g->height = top;
    *height = top;
    *work += steps;
    return k == in->n && top <= limit;
}

uint64_t mp_greedy_decode_by_start(mp_greedy *g, const size_t *order, uint64_t *off, uint64_t *work) {
    uint64_t height;
    g->na = g->next = 0;
    g->height = 0;
    mp_greedy_by_start_until(g, order, off, UINT64_MAX, &height, work);
    return height;
}
