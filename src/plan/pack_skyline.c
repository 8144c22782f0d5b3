/*
 * pack_skyline.c -- the bottom-up skyline decoder.
 *
 * Picture time on the x axis and addresses on the y axis: every buffer is a
 * rectangle whose x extent (its lifetime) is fixed; we only choose its y.
 * The skyline is the height profile of what is placed so far, a list of
 * segments [ts, te) at some height. Repeatedly:
 *   1. take the lowest segment (leftmost on ties): a valley, since both
 *      neighbours are higher;
 *   2. among the unplaced buffers whose lifetime lies inside the valley's
 *      time span, take the best ranked one -- preferring those that start
 *      at the valley's left edge -- and set it on the valley floor; the
 *      valley splits into up to three segments;
 *   3. if none fits, the valley can never be filled: raise it to its lower
 *      neighbour and merge them.
 * Every buffer sits on the floor of a valley, so nothing below it is live
 * with it, and a buffer straddling a valley edge waits until the edge is
 * gone -- which is why the result is always a valid packing.
 *
 * If an optimal packing exists with no hole, some rank order reproduces it
 * exactly; the search (pack_search.c) looks for such orders.
 *
 * Data structures: segments in a doubly linked list, a lazy min-heap of
 * (height, ts) to find the valley, and a segment tree over the buffers in
 * start order holding (min end, max end, min rank) of the unplaced ones. The
 * "best ranked buffer inside [vs, ve)" is a branch-and-bound walk of that
 * tree over the positions starting in [vs, ve), pruning subtrees whose ends
 * are all past ve or whose best rank cannot win.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/pack_internal.h"

#define NIL SIZE_MAX

typedef struct cand_node { /* over the unplaced buffers of a subtree */
    int64_t min_end;
    int64_t max_end;
    size_t min_rank;       /* SIZE_MAX when none */
    size_t arg;            /* buffer holding min_rank */
} cand_node;

typedef struct valley { /* heap entry */
    uint64_t height;
    int64_t ts;
    size_t seg;
    uint64_t stamp;
} valley;

struct mp_skyline {
    const mp_pack_input *in;
    size_t *pos_of;
    /* candidate tree */
    size_t leaves;
    cand_node *tree;
    /* segments */
    size_t nseg, seg_cap;
    int64_t *ts;
    uint64_t *h;
    size_t *prev, *next;
    bool *alive;
    uint64_t *stamp;
    int64_t t_end;
    /* valley heap */
    valley *heap;
    size_t heap_len, heap_cap;
    uint64_t work;
    double waste;      /* area of the holes left by raised valleys */
};

mp_skyline *mp_skyline_new(const mp_pack_input *in) {
    mp_skyline *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t n = in->n ? in->n : 1;
    s->in = in;
    s->leaves = 1;
    while (s->leaves < n) s->leaves *= 2;
    s->seg_cap = 2 * n + 1;
    s->heap_cap = 6 * n + 4;
    s->pos_of = malloc(n * sizeof *s->pos_of);
    s->tree = malloc(2 * s->leaves * sizeof *s->tree);
    s->ts = malloc(s->seg_cap * sizeof *s->ts);
    s->h = malloc(s->seg_cap * sizeof *s->h);
    s->prev = malloc(s->seg_cap * sizeof *s->prev);
    s->next = malloc(s->seg_cap * sizeof *s->next);
    s->alive = malloc(s->seg_cap * sizeof *s->alive);
    s->stamp = malloc(s->seg_cap * sizeof *s->stamp);
    s->heap = malloc(s->heap_cap * sizeof *s->heap);
    if (!s->pos_of || !s->tree || !s->ts || !s->h || !s->prev || !s->next ||
        !s->alive || !s->stamp || !s->heap) {
        mp_skyline_free(s);
        return NULL;
    }
    for (size_t p = 0; p < in->n; p++) s->pos_of[in->by_start[p]] = p;
    return s;
}

void mp_skyline_free(mp_skyline *s) {
    if (!s) return;
    free(s->pos_of);
    free(s->tree);
    free(s->ts);
    free(s->h);
    free(s->prev);
    free(s->next);
    free(s->alive);
    free(s->stamp);
    free(s->heap);
    free(s);
}

/* ------------------------------------------------------ candidate tree */

static const cand_node EMPTY = {INT64_MAX, INT64_MIN, SIZE_MAX, SIZE_MAX};

static cand_node combine(cand_node a, cand_node b) {
    cand_node c;
    c.min_end = MP_MIN(a.min_end, b.min_end);
    c.max_end = MP_MAX(a.max_end, b.max_end);
    if (a.min_rank <= b.min_rank) c.min_rank = a.min_rank, c.arg = a.arg;
    else c.min_rank = b.min_rank, c.arg = b.arg;
    return c;
}

static void tree_build(mp_skyline *s, const size_t *rank) {
    const mp_pack_input *in = s->in;
    for (size_t p = 0; p < s->leaves; p++) {
        cand_node c = EMPTY;
        if (p < in->n) {
            size_t i = in->by_start[p];
            c = (cand_node){in->bufs[i].end, in->bufs[i].end, rank[i], i};
        }
        s->tree[s->leaves + p] = c;
    }
    for (size_t k = s->leaves - 1; k >= 1; k--)
        s->tree[k] = combine(s->tree[2 * k], s->tree[2 * k + 1]);
}

static void tree_remove(mp_skyline *s, size_t pos) {
    size_t k = s->leaves + pos;
    s->tree[k] = EMPTY;
    for (k /= 2; k >= 1; k /= 2) s->tree[k] = combine(s->tree[2 * k], s->tree[2 * k + 1]);
}

typedef struct query {
    size_t lo, hi;  /* positions of buffers starting inside the valley */
    int64_t te;     /* valley end */
    size_t best_rank, best;
} query;

static void tree_find(mp_skyline *s, size_t k, size_t lo, size_t hi, query *q) {
    const cand_node *c = &s->tree[k];
    s->work++;
    if (hi <= q->lo || lo >= q->hi || c->min_end > q->te || c->min_rank >= q->best_rank) return;
    if ((q->lo <= lo && hi <= q->hi && c->max_end <= q->te) || hi - lo == 1) {
        q->best_rank = c->min_rank; /* all of this subtree fits */
        q->best = c->arg;
        return;
    }
    size_t mid = lo + (hi - lo) / 2;
    size_t a = 2 * k, b = 2 * k + 1;
    if (s->tree[b].min_rank < s->tree[a].min_rank) { /* likelier winner first */
        tree_find(s, b, mid, hi, q);
        tree_find(s, a, lo, mid, q);
    } else {
        tree_find(s, a, lo, mid, q);
        tree_find(s, b, mid, hi, q);
    }
}

/* First position in start order whose buffer starts at or after t. */
static size_t first_start_at(const mp_pack_input *in, int64_t t) {
    size_t lo = 0, hi = in->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (in->bufs[in->by_start[mid]].start < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* ------------------------------------------------------- valley heap */

static bool valley_before(const valley *a, const valley *b) {
    if (a->height != b->height) return a->height < b->height;
    return a->ts < b->ts;
}

static void push_segment(mp_skyline *s, size_t seg) {
    valley x = {s->h[seg], s->ts[seg], seg, ++s->stamp[seg]};
    size_t i = s->heap_len++;
    while (i > 0 && valley_before(&x, &s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
        s->work++;
    }
    s->heap[i] = x;
}

static valley pop_valley(mp_skyline *s) {
    valley top = s->heap[0];
    valley last = s->heap[--s->heap_len];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->heap_len) break;
        if (c + 1 < s->heap_len && valley_before(&s->heap[c + 1], &s->heap[c])) c++;
        if (!valley_before(&s->heap[c], &last)) break;
        s->heap[i] = s->heap[c];
        i = c;
        s->work++;
    }
    if (s->heap_len > 0) s->heap[i] = last;
    return top;
}

/* The lowest, then leftmost, live segment (entries with an old stamp are
 * stale: their segment changed or died since they were pushed). */
static size_t lowest_segment(mp_skyline *s) {
    while (s->heap_len > 0) {
        valley v = pop_valley(s);
        if (s->alive[v.seg] && s->stamp[v.seg] == v.stamp) return v.seg;
    }
    return NIL;
}

/* ---------------------------------------------------------- segments */

static int64_t seg_end(const mp_skyline *s, size_t seg) {
    return s->next[seg] == NIL ? s->t_end : s->ts[s->next[seg]];
}

/* A new segment [ts, ...) at height h, linked after `after`. */
static size_t new_segment(mp_skyline *s, size_t after, int64_t ts, uint64_t h) {
    size_t g = s->nseg++;
    s->ts[g] = ts;
    s->h[g] = h;
    s->alive[g] = true;
    s->stamp[g] = 0;
    s->prev[g] = after;
    s->next[g] = s->next[after];
    if (s->next[after] != NIL) s->prev[s->next[after]] = g;
    s->next[after] = g;
    return g;
}

/* Absorb the right neighbour of a when it has the same height. */
static void merge_right(mp_skyline *s, size_t a) {
    size_t b = s->next[a];
    if (b == NIL || s->h[b] != s->h[a]) return;
    s->next[a] = s->next[b];
    if (s->next[b] != NIL) s->prev[s->next[b]] = a;
    s->alive[b] = false;
}

/* Merge seg with equal-height neighbours; returns the surviving segment. */
static size_t merge_equal(mp_skyline *s, size_t seg) {
    merge_right(s, seg);
    size_t p = s->prev[seg];
    if (p != NIL && s->h[p] == s->h[seg]) {
        merge_right(s, p);
        return p;
    }
    return seg;
}

/* Set buffer b on the floor of valley v: split v around b's lifetime. */
static void place(mp_skyline *s, size_t v, size_t b) {
    const memplan_buffer *buf = &s->in->bufs[b];
    uint64_t floor = s->h[v];
    int64_t te = seg_end(s, v);
    size_t mid = v;
    if (buf->start > s->ts[v]) {
        mid = new_segment(s, v, buf->start, floor);
        push_segment(s, v); /* the left part is still the lowest valley */
    }
    if (buf->end < te) push_segment(s, new_segment(s, mid, buf->end, floor));
    s->h[mid] = floor + s->in->size[b];
    push_segment(s, merge_equal(s, mid));
}

/* No buffer fits in valley v: lift it to its lower neighbour. */
static void raise_valley(mp_skyline *s, size_t v) {
    uint64_t h = UINT64_MAX;
    if (s->prev[v] != NIL) h = s->h[s->prev[v]];
    if (s->next[v] != NIL) h = MP_MIN(h, s->h[s->next[v]]);
    s->waste += (double)(h - s->h[v]) * (double)(seg_end(s, v) - s->ts[v]);
    s->h[v] = h;
    push_segment(s, merge_equal(s, v));
}

/* The buffer to set on the floor of valley v, or NIL. Buffers starting
 * exactly at the valley's left edge come first (best rank among them): they
 * leave no hole in the valley's corner, and in a packing without holes the
 * corner is always covered by such a buffer. Otherwise the best ranked
 * buffer anywhere inside the valley. */
static size_t best_fit(mp_skyline *s, size_t v) {
    const mp_pack_input *in = s->in;
    int64_t ts = s->ts[v], te = seg_end(s, v);
    size_t lo = first_start_at(in, ts);
    query q = {lo, first_start_at(in, ts + 1), te, SIZE_MAX, NIL};
    tree_find(s, 1, 0, s->leaves, &q);
    if (q.best != NIL) return q.best;
    q.hi = first_start_at(in, te);
    tree_find(s, 1, 0, s->leaves, &q);
    return q.best;
}

uint64_t mp_skyline_decode(mp_skyline *s, const size_t *rank, uint64_t *off,
                           uint64_t *work, double *waste) {
    const mp_pack_input *in = s->in;
    if (waste) *waste = 0.0;
    if (in->n == 0) return 0;
    s->work = in->n;
    s->waste = 0.0;
    tree_build(s, rank);
    s->nseg = 0;
    s->heap_len = 0;
    s->t_end = INT64_MIN;
    for (size_t i = 0; i < in->n; i++) s->t_end = MP_MAX(s->t_end, in->bufs[i].end);
    size_t first = s->nseg++;
    s->ts[first] = in->bufs[in->by_start[0]].start;
    s->h[first] = 0;
    s->prev[first] = s->next[first] = NIL;
    s->alive[first] = true;
    s->stamp[first] = 0;
    push_segment(s, first);

    uint64_t height = 0;
    for (size_t placed = 0; placed < in->n;) {
        size_t v = lowest_segment(s);
        if (v == NIL) break; /* cannot happen: the whole span is one segment by then */
        size_t b = best_fit(s, v);
        if (b == NIL) {
            raise_valley(s, v);
            continue;
        }
        off[b] = s->h[v];
        height = MP_MAX(height, off[b] + in->size[b]);
        tree_remove(s, s->pos_of[b]);
        placed++;
        if (in->size[b] == 0) push_segment(s, v); /* nothing changes */
        else place(s, v, b);
    }
    *work += s->work;
    if (waste) *waste = s->waste;
    return height;
}
