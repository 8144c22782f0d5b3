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
 * are all past ve or whose best rank cannot win -- or, when at most SCAN_MAX
 * buffers start there, a scan of their leaves. Each segment carries the
 * start-order positions of its time span, so no query searches for them.
 *
 * Trials (mp_skyline_try) also keep, per interval between event times,
 * acc = skyline height + sizes of the unplaced buffers live there. Placing a
 * buffer moves its size from the second term to the first; raising a valley
 * adds to both over the valley. Every unplaced buffer ends up above the
 * skyline over its lifetime, so max(acc) bounds the final height from below
 * and lets a hopeless trial stop at the raise that dooms it, long before its
 * height shows it (on dsa D: 27% more trials for the same work).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/pack_internal.h"

#define NIL SIZE_MAX

typedef struct cand_node { /* over the unplaced buffers of a subtree */
    int64_t min_end;
    int64_t max_end;
    size_t min_rank; /* SIZE_MAX when none */
    size_t arg;      /* buffer holding min_rank */
} cand_node;

typedef struct tpos { /* where a time t falls in the sorted orders */
    size_t lo;        /* first start-order position starting at or after t */
    size_t edge;      /* first start-order position starting after t */
    size_t ti;        /* index of t in s->times */
} tpos;

typedef struct valley { /* heap entry */
    uint64_t height;
    int64_t ts;
    size_t seg;
    uint64_t stamp;
} valley;

struct mp_skyline {
    const mp_pack_input *in;
    size_t *pos_of;
    int64_t *start_at; /* start of the buffer at each start-order position */
    /* candidate tree */
    size_t leaves;
    cand_node *tree;
    /* segments */
    size_t nseg, seg_cap;
    int64_t *ts;
    uint64_t *h;
    tpos *pos; /* where each segment's ts falls */
    size_t *prev, *next;
    bool *alive;
    uint64_t *stamp;
    int64_t t_end;
    tpos end_pos;            /* where t_end falls */
    tpos *at_start, *at_end; /* per buffer: where its start and end fall */
    /* valley heap */
    valley *heap;
    size_t heap_len, heap_cap;
    uint64_t work;
    double waste; /* area of the holes left by raised valleys */
    /* incremental decoding (mp_skyline_trace_init) */
    bool traced, oom;
    size_t every;      /* checkpoint interval, in placements */
    size_t ncp;        /* checkpoint slots */
    size_t try_from;   /* first step the candidate trace rewrote */
    mp_sky_trace cur;  /* the accepted decode */
    mp_sky_trace cand; /* the one being tried */
    size_t conv_at;    /* where the trial converged to cur (n: never) */
    size_t chg_x, chg_y, left, common;
    uint64_t *mark, try_id;
    /* the load bound of trials: over the elementary time intervals,
     * skyline + load of the unplaced buffers */
    size_t nt;      /* distinct times */
    int64_t *times; /* the distinct starts and ends, ascending */
    uint64_t *acc;  /* nt - 1 entries */
    uint64_t accmax;
    bool bound_on;
};

/* Take a checkpoint every `every` placements. */
static size_t checkpoint_every(size_t n) {
    size_t k = 4;
    size_t target = n <= 4096 ? n / 4 : n;
    while (k * k < target) k *= 2;
    return k;
}

static void trace_free(mp_sky_trace *t);

/* First position in start order whose buffer starts at or after t. */
static size_t first_start_at(const mp_skyline *s, int64_t t) { return mp_first_at_least(s->start_at, s->in->n, t); }

/* First position in start order whose buffer starts after t. */
static size_t after_time(const mp_skyline *s, int64_t t) {
    return t == INT64_MAX ? s->in->n : first_start_at(s, t + 1);
}

/* Where time t (a start or end of some buffer) falls. */
static tpos pos_of_time(const mp_skyline *s, int64_t t) {
    return (tpos){first_start_at(s, t), after_time(s, t), mp_first_at_least(s->times, s->nt, t)};
}

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
    s->start_at = malloc(n * sizeof *s->start_at);
    s->tree = malloc(2 * s->leaves * sizeof *s->tree);
    s->ts = malloc(s->seg_cap * sizeof *s->ts);
    s->pos = malloc(s->seg_cap * sizeof *s->pos);
    s->at_start = malloc(n * sizeof *s->at_start);
    s->at_end = malloc(n * sizeof *s->at_end);
    s->times = malloc(2 * n * sizeof *s->times);
    s->acc = malloc(2 * n * sizeof *s->acc);
    s->h = malloc(s->seg_cap * sizeof *s->h);
    s->prev = malloc(s->seg_cap * sizeof *s->prev);
    s->next = malloc(s->seg_cap * sizeof *s->next);
    s->alive = malloc(s->seg_cap * sizeof *s->alive);
    s->stamp = malloc(s->seg_cap * sizeof *s->stamp);
    s->heap = malloc(s->heap_cap * sizeof *s->heap);
    if (!s->pos_of || !s->start_at || !s->tree || !s->ts || !s->pos || !s->at_start || !s->at_end || !s->times ||
        !s->acc || !s->h || !s->prev || !s->next || !s->alive || !s->stamp || !s->heap) {
        mp_skyline_free(s);
        return NULL;
    }
    for (size_t p = 0; p < in->n; p++) {
        s->pos_of[in->by_start[p]] = p;
        s->start_at[p] = in->bufs[in->by_start[p]].start;
    }
    s->every = checkpoint_every(n);
    /* The distinct event times, ascending: the load bound's intervals. */
    size_t k = 0;
    for (size_t i = 0; i < in->n; i++) {
        s->times[k++] = in->bufs[i].start;
        s->times[k++] = in->bufs[i].end;
    }
    /* times are >= 0, so their uint64_t view (an allowed alias) sorts alike */
    if (!mp_radix_sort((uint64_t *)s->times, NULL, k)) {
        mp_skyline_free(s);
        return NULL;
    }
    s->nt = 0;
    for (size_t i = 0; i < k; i++)
        if (s->nt == 0 || s->times[s->nt - 1] != s->times[i]) s->times[s->nt++] = s->times[i];
    s->t_end = INT64_MIN;
    for (size_t i = 0; i < in->n; i++) {
        s->t_end = MP_MAX(s->t_end, in->bufs[i].end);
        s->at_start[i] = pos_of_time(s, in->bufs[i].start);
        s->at_end[i] = pos_of_time(s, in->bufs[i].end);
    }
    if (in->n > 0) s->end_pos = pos_of_time(s, s->t_end);
    return s;
}

void mp_skyline_free(mp_skyline *s) {
    if (!s) return;
    free(s->pos_of);
    free(s->start_at);
    free(s->tree);
    free(s->ts);
    free(s->pos);
    free(s->at_start);
    free(s->at_end);
    free(s->times);
    free(s->acc);
    free(s->h);
    free(s->prev);
    free(s->next);
    free(s->alive);
    free(s->stamp);
    free(s->heap);
    trace_free(&s->cur);
    free(s->mark);
    trace_free(&s->cand);
    free(s);
}

/* ------------------------------------------------------ candidate tree */

static const cand_node EMPTY = {INT64_MAX, INT64_MIN, SIZE_MAX, SIZE_MAX};

static cand_node combine(cand_node a, cand_node b) {
    cand_node c;
    c.min_end = MP_MIN(a.min_end, b.min_end);
    c.max_end = MP_MAX(a.max_end, b.max_end);
    if (a.min_rank <= b.min_rank) c.min_rank = a.min_rank, c.arg = a.arg;
    else
        c.min_rank = b.min_rank, c.arg = b.arg;
    return c;
}

/* Leaves of the buffers still unplaced: all, or (step_of given) those
 * placed at step `placed` or later. */
static void tree_build(mp_skyline *s, const size_t *rank, const size_t *step_of, size_t placed) {
    const mp_pack_input *in = s->in;
    for (size_t p = 0; p < s->leaves; p++) {
        cand_node c = EMPTY;
        if (p < in->n && (!step_of || step_of[in->by_start[p]] >= placed)) {
            size_t i = in->by_start[p];
            c = (cand_node){in->bufs[i].end, in->bufs[i].end, rank[i], i};
        }
        s->tree[s->leaves + p] = c;
    }
    for (size_t k = s->leaves - 1; k >= 1; k--) s->tree[k] = combine(s->tree[2 * k], s->tree[2 * k + 1]);
}

static bool same_node(const cand_node *a, const cand_node *b) {
    return a->min_end == b->min_end && a->max_end == b->max_end && a->min_rank == b->min_rank && a->arg == b->arg;
}

/* Empty the leaf at pos and update its ancestors, stopping at the first
 * one the removal leaves unchanged (then all above it are unchanged too). */
static void tree_remove(mp_skyline *s, size_t pos) {
    size_t k = s->leaves + pos;
    s->tree[k] = EMPTY;
    for (k /= 2; k >= 1; k /= 2) {
        cand_node c = combine(s->tree[2 * k], s->tree[2 * k + 1]);
        if (same_node(&c, &s->tree[k])) break;
        s->tree[k] = c;
    }
}

typedef struct query {
    size_t lo, hi; /* positions of buffers starting inside the valley */
    int64_t te;    /* valley end */
    size_t best_rank, best;
} query;

typedef struct walk { /* a subtree to visit: node k over positions [lo, hi) */
    size_t k, lo, hi;
} walk;

/* Depth-first walk from the root with an explicit stack (64 levels cover
 * any size_t tree; two entries per level at most). A subtree is skipped
 * when it lies outside [q->lo, q->hi), all its buffers end after q->te, or
 * its best rank cannot beat the best found; it is taken whole when it lies
 * inside the range and all its buffers fit. */
static void tree_find(mp_skyline *s, query *q) {
    walk st[2 * 64];
    size_t sp = 0;
    st[sp++] = (walk){1, 0, s->leaves};
    while (sp > 0) {
        size_t k = st[--sp].k, lo = st[sp].lo, hi = st[sp].hi;
        const cand_node *c = &s->tree[k];
        s->work++;
        if (c->min_end > q->te || c->min_rank >= q->best_rank) continue;
        if ((q->lo <= lo && hi <= q->hi && c->max_end <= q->te) || hi - lo == 1) {
            q->best_rank = c->min_rank; /* all of this subtree fits */
            q->best = c->arg;
            continue;
        }
        size_t mid = lo + (hi - lo) / 2;
        bool left = q->lo<mid, right = q->hi> mid;
        /* push the likelier winner last, so it is walked first */
        if (s->tree[2 * k + 1].min_rank < s->tree[2 * k].min_rank) {
            if (left) st[sp++] = (walk){2 * k, lo, mid};
            if (right) st[sp++] = (walk){2 * k + 1, mid, hi};
        } else {
            if (right) st[sp++] = (walk){2 * k + 1, mid, hi};
            if (left) st[sp++] = (walk){2 * k, lo, mid};
        }
    }
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

static int64_t seg_end(const mp_skyline *s, size_t seg) { return s->next[seg] == NIL ? s->t_end : s->ts[s->next[seg]]; }

/* A new segment [ts, ...) at height h, linked after `after`. */
static size_t new_segment(mp_skyline *s, size_t after, int64_t ts, tpos pos, uint64_t h) {
    size_t g = s->nseg++;
    s->ts[g] = ts;
    s->pos[g] = pos;
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
        mid = new_segment(s, v, buf->start, s->at_start[b], floor);
        push_segment(s, v); /* the left part is still the lowest valley */
    }
    if (buf->end < te) push_segment(s, new_segment(s, mid, buf->end, s->at_end[b], floor));
    s->h[mid] = floor + s->in->size[b];
    push_segment(s, merge_equal(s, mid));
}

/* No buffer fits in valley v: lift it to its lower neighbour. */
static void raise_valley(mp_skyline *s, size_t v) {
    uint64_t h = UINT64_MAX;
    if (s->prev[v] != NIL) h = s->h[s->prev[v]];
    if (s->next[v] != NIL) h = MP_MIN(h, s->h[s->next[v]]);
    s->waste += (double)(h - s->h[v]) * (double)(seg_end(s, v) - s->ts[v]);
    if (s->bound_on) {
        size_t i0 = s->pos[v].ti, i1 = s->next[v] == NIL ? s->end_pos.ti : s->pos[s->next[v]].ti;
        uint64_t d = h - s->h[v];
        for (size_t i = i0; i < i1; i++) {
            s->acc[i] += d;
            if (s->acc[i] > s->accmax) s->accmax = s->acc[i];
        }
        s->work += i1 - i0;
    }
    s->h[v] = h;
    push_segment(s, merge_equal(s, v));
}

/* The best ranked unplaced buffer at positions [q->lo, q->hi) that ends by
 * q->te: a scan of the leaves when the range is short, else the tree walk. */
#define SCAN_MAX 16
static void find(mp_skyline *s, query *q) {
    if (q->hi - q->lo > SCAN_MAX) {
        tree_find(s, q);
        return;
    }
    for (size_t p = q->lo; p < q->hi; p++) {
        const cand_node *c = &s->tree[s->leaves + p];
        if (c->min_end <= q->te && c->min_rank < q->best_rank) q->best_rank = c->min_rank, q->best = c->arg;
    }
    s->work += q->hi - q->lo;
}

/* The buffer to set on the floor of valley v, or NIL. Buffers starting
 * exactly at the valley's left edge come first (best rank among them): they
 * leave no hole in the valley's corner, and in a packing without holes the
 * corner is always covered by such a buffer. Otherwise the best ranked
 * buffer anywhere inside the valley. */
static size_t best_fit(mp_skyline *s, size_t v) {
    query q = {s->pos[v].lo, s->pos[v].edge, seg_end(s, v), SIZE_MAX, NIL};
    find(s, &q);
    if (q.best != NIL) return q.best;
    q.lo = q.hi;
    q.hi = s->next[v] == NIL ? s->end_pos.lo : s->pos[s->next[v]].lo;
    find(s, &q);
    return q.best;
}

/* ------------------------------------------------- incremental traces */

static void trace_free(mp_sky_trace *t) {
    free(t->seq);
    free(t->vts);
    free(t->vte);
    free(t->step_of);
    free(t->off);
    for (size_t k = 0; t->cp && k < t->ncp; k++) {
        free(t->cp[k].ts);
        free(t->cp[k].h);
    }
    free(t->cp);
    memset(t, 0, sizeof *t);
}

static bool trace_alloc(mp_sky_trace *t, size_t n, size_t ncp) {
    memset(t, 0, sizeof *t);
    t->seq = malloc(n * sizeof *t->seq);
    t->vts = malloc(n * sizeof *t->vts);
    t->vte = malloc(n * sizeof *t->vte);
    t->step_of = malloc(n * sizeof *t->step_of);
    t->off = malloc(n * sizeof *t->off);
    t->cp = calloc(ncp, sizeof *t->cp);
    if (t->cp) t->ncp = ncp;
    return t->seq && t->vts && t->vte && t->step_of && t->off && t->cp;
}

bool mp_skyline_trace_init(mp_skyline *s) {
    if (s->traced) return true; /* a later search round reuses the traces */
    trace_free(&s->cur);        /* what a failed earlier call left */
    trace_free(&s->cand);
    size_t n = s->in->n ? s->in->n : 1;
    s->ncp = n / s->every + 2;
    free(s->mark);
    s->mark = calloc(n, sizeof *s->mark);
    s->traced = s->mark && trace_alloc(&s->cur, n, s->ncp) && trace_alloc(&s->cand, n, s->ncp);
    return s->traced;
}

const mp_sky_trace *mp_skyline_current(const mp_skyline *s) { return &s->cur; }

/* Record the skyline after `placed` placements as checkpoint placed/every. */
static bool snapshot(mp_skyline *s, mp_sky_trace *t, size_t placed, uint64_t height) {
    mp_sky_ckpt *c = &t->cp[placed / s->every];
    size_t m = 0;
    for (size_t g = 0; g != NIL; g = s->next[g]) m++;
    if (m > c->cap) {
        size_t cap = MP_MAX(m, 2 * c->cap);
        int64_t *ts = realloc(c->ts, cap * sizeof *ts);
        if (ts) c->ts = ts;
        uint64_t *h = realloc(c->h, cap * sizeof *h);
        if (h) c->h = h;
        if (!ts || !h) return false;
        c->cap = cap;
    }
    c->len = m;
    c->height = height;
    c->waste = s->waste;
    m = 0;
    for (size_t g = 0; g != NIL; g = s->next[g], m++) {
        c->ts[m] = s->ts[g];
        c->h[m] = s->h[g];
    }
    s->work += m;
    return true;
}

/* top_after of the current trace's checkpoints below `upto` placements,
 * from the offsets of steps [0, upto) and the checkpoint at `upto`. */
static void suffix_tops(mp_skyline *s, size_t upto) {
    mp_sky_trace *t = &s->cur;
    size_t k = upto / s->every;
    uint64_t top = upto < s->in->n ? t->cp[k].top_after : 0;
    for (size_t j = upto; j-- > 0;) {
        size_t b = t->seq[j];
        top = MP_MAX(top, t->off[b] + s->in->size[b]);
        if (j % s->every == 0) t->cp[j / s->every].top_after = top;
    }
}

/* ---------------------------------------------------------- decoding */

/* Segment list, heap and tree as they are after `placed` placements of the
 * current trace (placed = 0: the empty skyline; all buffers unplaced). */
static void restore(mp_skyline *s, const size_t *rank, size_t placed, uint64_t *height) {
    const mp_pack_input *in = s->in;
    const mp_sky_trace *t = &s->cur;
    s->heap_len = 0;
    if (placed == 0) {
        s->nseg = 1;
        s->ts[0] = in->bufs[in->by_start[0]].start;
        s->pos[0] = pos_of_time(s, s->ts[0]);
        s->h[0] = 0;
        s->prev[0] = s->next[0] = NIL;
        s->alive[0] = true;
        s->stamp[0] = 0;
        push_segment(s, 0);
        s->waste = 0.0;
        *height = 0;
        tree_build(s, rank, NULL, 0);
        return;
    }
    const mp_sky_ckpt *c = &t->cp[placed / s->every];
    size_t m = c->len;
    for (size_t g = 0; g < m; g++) {
        s->ts[g] = c->ts[g];
        s->pos[g] = pos_of_time(s, c->ts[g]);
        s->h[g] = c->h[g];
        s->prev[g] = g == 0 ? NIL : g - 1;
        s->next[g] = g + 1 == m ? NIL : g + 1;
        s->alive[g] = true;
        s->stamp[g] = 0;
        push_segment(s, g);
    }
    s->nseg = m;
    s->waste = c->waste;
    *height = c->height;
    tree_build(s, rank, t->step_of, placed);
}

/* Has the trial, at checkpoint k, reached the very state the current trace
 * had there (same buffers placed, same skyline) with the changed buffers
 * placed? Then the rest of the decode would be the same too. */
static bool converged(const mp_skyline *s, size_t placed) {
    if (s->left > 0 || s->common != placed - s->try_from) return false;
    const mp_sky_ckpt *a = &s->cur.cp[placed / s->every], *b = &s->cand.cp[placed / s->every];
    if (a->len != b->len) return false;
    for (size_t g = 0; g < a->len; g++)
        if (a->ts[g] != b->ts[g] || a->h[g] != b->h[g]) return false;
    return true;
}

/* Place buffers from the restored state until all are placed. With a trace,
 * record every step and a checkpoint every s->every placements; give up
 * (false) as soon as the cost height + waste / span exceeds `limit`. A trial
 * (t == &s->cand) also stops early when it converges to the current trace. */
static bool run(mp_skyline *s, size_t placed, uint64_t height, mp_sky_trace *t, uint64_t *off, double limit,
                double span, uint64_t *height_out) {
    const mp_pack_input *in = s->in;
    bool trial = t == &s->cand;
    bool ok = true;
    while (placed < in->n) {
        size_t v = lowest_segment(s);
        if (v == NIL) break; /* cannot happen: the whole span is one segment by then */
        size_t b = best_fit(s, v);
        if (b == NIL) {
            raise_valley(s, v);
            if (mp_sky_cost(s->bound_on ? s->accmax : height, s->waste, span) > limit) {
                ok = false;
                break;
            }
            continue;
        }
        off[b] = s->h[v];
        if (t) {
            t->seq[placed] = b;
            t->vts[placed] = s->ts[v];
            t->vte[placed] = seg_end(s, v);
            t->step_of[b] = placed;
        }
        height = MP_MAX(height, off[b] + in->size[b]);
        tree_remove(s, s->pos_of[b]);
        if (trial) {
            /* common = |placed here ∩ placed by the current trace| over the
             * steps since try_from. */
            s->mark[b] = s->try_id;
            if (s->cur.step_of[b] < placed) s->common++;
            if (s->mark[s->cur.seq[placed]] == s->try_id) s->common++;
            if (b == s->chg_x || b == s->chg_y) s->left--;
        }
        placed++;
        if (in->size[b] == 0) push_segment(s, v); /* nothing changes */
        else
            place(s, v, b);
        if (t) {
            if (mp_sky_cost(height, s->waste, span) > limit) {
                ok = false;
                break;
            }
            if (placed % s->every == 0 && placed < in->n) {
                if (!snapshot(s, t, placed, height)) {
                    s->oom = true;
                    ok = false;
                    break;
                }
                if (trial && converged(s, placed)) {
                    const mp_sky_ckpt *c = &s->cur.cp[placed / s->every];
                    s->conv_at = placed;
                    height = MP_MAX(height, c->top_after);
                    s->waste += s->cur.waste - c->waste;
                    ok = mp_sky_cost(height, s->waste, span) <= limit;
                    break;
                }
            }
        }
    }
    *height_out = height;
    return ok;
}

uint64_t mp_skyline_decode(mp_skyline *s, const size_t *rank, uint64_t *off, uint64_t *work, double *waste) {
    const mp_pack_input *in = s->in;
    if (waste) *waste = 0.0;
    if (in->n == 0) return 0;
    s->work = in->n;
    uint64_t height;
    restore(s, rank, 0, &height);
    run(s, 0, height, NULL, off, INFINITY, 1.0, &height);
    *work += s->work;
    if (waste) *waste = s->waste;
    return height;
}

bool mp_skyline_trace_full(mp_skyline *s, const size_t *rank, double span, uint64_t *work, uint64_t *height,
                           double *waste) {
    const mp_pack_input *in = s->in;
    *height = 0;
    *waste = 0.0;
    if (in->n == 0) return true;
    s->work = in->n;
    s->oom = false;
    mp_sky_trace *t = &s->cur;
    uint64_t h;
    restore(s, rank, 0, &h);
    run(s, 0, h, t, t->off, INFINITY, span, height);
    t->height = *height;
    t->waste = *waste = s->waste;
    suffix_tops(s, in->n);
    *work += s->work;
    return !s->oom;
}

/* Can buffer x compete with the winner of step j for its valley? Buffers
 * starting at the valley's left edge are preferred; a winner that starts
 * there can only be beaten by another that does. */
static bool competes(const mp_skyline *s, size_t j, size_t x) {
    const mp_sky_trace *t = &s->cur;
    const memplan_buffer *bx = &s->in->bufs[x];
    if (bx->start < t->vts[j] || bx->end > t->vte[j]) return false;
    return s->in->bufs[t->seq[j]].start != t->vts[j] || bx->start == t->vts[j];
}

size_t mp_skyline_first_change(const mp_skyline *s, const size_t *rank, size_t x, size_t y) {
    const mp_sky_trace *t = &s->cur;
    size_t stop = MP_MIN(t->step_of[x], t->step_of[y]);
    for (size_t j = 0; j < stop; j++) {
        size_t r = rank[t->seq[j]];
        if ((rank[x] < r && competes(s, j, x)) || (rank[y] < r && competes(s, j, y))) return j;
    }
    return stop;
}

/* acc = skyline + load of the buffers unplaced after `placed` steps of the
 * current trace; accmax, its maximum, bounds the final height. */
static void bound_start(mp_skyline *s, size_t placed) {
    const mp_pack_input *in = s->in;
    const size_t *step_of = s->cur.step_of;
    s->bound_on = s->nt >= 2;
    if (!s->bound_on) return;
    size_t m = s->nt - 1;
    memset(s->acc, 0, (m + 1) * sizeof *s->acc);
    for (size_t i = 0; i < in->n; i++) {
        if (step_of[i] < placed) continue;
        s->acc[s->at_start[i].ti] += in->size[i];
        s->acc[s->at_end[i].ti] -= in->size[i];
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < m; i++) s->acc[i] = sum += s->acc[i];
    for (size_t g = 0; g != NIL; g = s->next[g]) {
        size_t i1 = s->next[g] == NIL ? m : s->pos[s->next[g]].ti;
        for (size_t i = s->pos[g].ti; i < i1; i++) s->acc[i] += s->h[g];
    }
    s->accmax = 0;
    for (size_t i = 0; i < m; i++) s->accmax = MP_MAX(s->accmax, s->acc[i]);
    s->work += in->n + 2 * m;
}

bool mp_skyline_try(mp_skyline *s, const size_t *rank, size_t x, size_t y, size_t step, double limit, double span,
                    uint64_t *work, uint64_t *height, double *waste) {
    mp_sky_trace *c = &s->cand;
    size_t placed = step / s->every * s->every;
    s->work = s->leaves;
    s->oom = false;
    s->try_from = placed;
    s->conv_at = s->in->n;
    s->chg_x = x;
    s->chg_y = y;
    s->left = x == y ? 1 : 2;
    s->common = 0;
    if (++s->try_id == 0) { /* wrapped: clear the marks */
        memset(s->mark, 0, s->in->n * sizeof *s->mark);
        s->try_id = 1;
    }
    uint64_t h;
    restore(s, rank, placed, &h);
    bound_start(s, placed);
    bool ok = run(s, placed, h, c, c->off, limit, span, height);
    s->bound_on = false;
    *waste = s->waste;
    *work += s->work;
    return ok && !s->oom;
}

void mp_skyline_accept(mp_skyline *s, uint64_t height, double waste) {
    mp_sky_trace *t = &s->cur, *c = &s->cand;
    size_t from = s->try_from, to = s->conv_at;
    memcpy(t->seq + from, c->seq + from, (to - from) * sizeof *t->seq);
    memcpy(t->vts + from, c->vts + from, (to - from) * sizeof *t->vts);
    memcpy(t->vte + from, c->vte + from, (to - from) * sizeof *t->vte);
    for (size_t j = from; j < to; j++) {
        size_t b = c->seq[j];
        t->step_of[b] = j;
        t->off[b] = c->off[b];
    }
    /* Checkpoints strictly between from and to were rewritten: swap them in. */
    for (size_t k = from / s->every + 1; k * s->every < to; k++) {
        mp_sky_ckpt tmp = t->cp[k];
        t->cp[k] = c->cp[k];
        c->cp[k] = tmp;
    }
    t->height = height;
    t->waste = waste;
    suffix_tops(s, to);
}
bool mp_skyline_oom(const mp_skyline *s) { return s->oom; }
