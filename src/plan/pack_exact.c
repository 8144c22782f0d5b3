/*
 * pack_exact.c -- the exact mode: does an arena of height H exist?
 *
 * A complete depth-first search in the manner of MiniMalloc (Moffitt, ASPLOS
 * 2023), written from the paper's description:
 *
 *   Canonical solutions. Drop every buffer of an optimal packing as low as
 *   it goes ("gravity"): each then sits at 0 or on the top of a buffer live
 *   with it, and the packing is no higher. List the buffers by (offset,
 *   preorder rank): each one's offset is the highest top among the buffers
 *   before it that are live with it. So the search only needs to place
 *   buffers one at a time, each at its "minimum offset" (the highest top of
 *   the placed buffers live with it), in non-decreasing (offset, rank) order.
 *   Every height that has a packing has one of these.
 *
 *   Dominance. Let min_height be the lowest (minimum offset + size) of the
 *   unplaced buffers. A buffer whose minimum offset is at or above it would
 *   leave room below itself for that other buffer, which canonical order
 *   would then have to place higher than its gravity position: skip it.
 *
 *   Section inference. Time is cut into sections at every start and end.
 *   Each section keeps a floor (nothing unplaced there goes below it: at
 *   least the top of the last buffer placed there) and the total size of its
 *   unplaced buffers. floor + total > H anywhere proves the branch
 *   infeasible (the remaining-area bound); so does a minimum offset + size
 *   above H. The same bound caps the next offset: a candidate above H less
 *   some section's unplaced total is not tried. And the lowest offset a
 *   section's unplaced buffers can still take (each one's minimum offset,
 *   or above the current one where canonical order rules it out) must leave
 *   room for their total under H (this replaced a stronger "gap rule",
 *   which stacked them by those offsets: it pruned in 0.01-0.3% of its
 *   calls and cost a third of the time; bench/README.md "Without the gap
 *   rule").
 *
 *   Heights. A canonical packing's offsets are sums of sizes, so its height
 *   is a multiple of the gcd of the sizes: H is rounded down to one.
 *
 * Independent time ranges (no buffer crosses the cut) are decided apart,
 * and so are those the search itself separates (dynamic decomposition, as
 * MiniMalloc's): once no unplaced buffer lives across a section boundary,
 * each side is searched on its own from scratch, its buffers ranked anew
 * by the order's keys over the unplaced totals, and the placement stands
 * only if every side has a packing. Without it the search thrashes between
 * regions that no longer interact (dsa K, 454 buffers: undecided after
 * 30 G steps, decided in 6.8 M with it; I in 76 M).
 * Each range is searched by streams that take turns (decide_part): one
 * depth-first search per static rank order, each going on where its last
 * turn stopped, and restarts under node limits 4 x its buffers x the Luby
 * sequence (1 1 2 1 1 2 4 ...) -- the six static orders, then the same in
 * turn each with a seeded perturbation (swaps of near neighbours) -- with
 * half the work. One order often finds a packing another takes long to
 * reach, and the search's time is heavy-tailed; an exhausted search under
 * any order proves infeasibility. A hint (mp_exact_set_hint: a packing
 * already known, in pack.c the best so far) adds its canonical order -- by
 * offset, then start -- tried first by the restarts, which then run alone:
 * below a packing's height the search starts along it and tries its
 * neighbours first. The search is iterative (explicit level arrays, an
 * undo log and a stack of frames for the splits' sides), so deep searches
 * need no C stack and a search can stop after any placement and go on
 * later; it counts its work in elementary steps: the result depends only
 * on input, quota and seed.
 *
 * Zero-size buffers occupy no address: they are left out and put at 0.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/pack_internal.h"

#define NONE SIZE_MAX
/* Splits nested deeper are not made (the search goes on as one): a stream
 * keeps MAX_SPLITS + 1 frames. */
#define MAX_SPLITS 256
#define NORDERS 6         /* the static orders, slots 0..5 */
#define HINT_SLOT NORDERS /* the hint's order (mp_exact_set_hint) */
#define PERTURB_SLOT (NORDERS + 1)
#define NSLOTS (NORDERS + 2)

/* Above this many section entries (sum over buffers of the sections each
 * spans) or overlap pairs the tables would be too large to be worth it
 * (4 M entries: 32 MB of a 64-bit index, what a browser tab can spare). */
#define EXACT_TABLE_MAX 4000000u

/* Steps per buffer of a stream's turn (see decide_part): some hundreds of
 * placements (one costs 1,000-2,000 steps on the dsa instances), so a
 * switch costs nothing beside a turn, and a turn is short beside a hard
 * decision's hundreds of millions of steps. */
#define TURN_STEPS 8192

/* A candidate of a level: its minimum offset and rank (the buffer is
 * order[rank]); lists are sorted by (offset, rank). */
typedef struct cand {
    uint64_t off;
    size_t rank, b;
} cand;

/* What one depth-first search works on: buffers in rank order (rank[b] is
 * b's index in list) whose lifetimes lie in sections [slo, shi), its levels
 * from `base` on, `d` of them placed. A part is the first frame of the
 * stack; a split (see open_side) pushes smaller ones, its sides, one at a
 * time: a side owns its list and the ranks its buffers had (`old`), and
 * keeps where its split's next side starts (`next`). */
typedef struct frame {
    size_t *list, *old;
    size_t len, slo, shi, base, d, next;
    bool fresh; /* level d's candidate list is still to make */
    bool done;  /* the rest placed by a split's sides */
} frame;

typedef struct undo_entry {
    uint64_t *at; /* a minimum offset, floor or ceiling of the stream's arrays */
    uint64_t old;
} undo_entry;

/* A time range no buffer crosses: by_start[lo, hi), sections [slo, shi). */
typedef struct part {
    size_t lo, hi, slo, shi;
} part;

/* One search's state, a stream of decide_part's schedule. The fields of
 * mp_exact of the same names are those of the stream being run (load and
 * store move them), so the search reads them directly. */
/* clang-format off */
#define SEARCH_FIELDS(X)                                                  \
    X(minoff) X(off) X(floor) X(ceil) X(total) X(sol) X(placed) X(rank)   \
    X(order) X(chosen) X(mark) X(lv_end) X(lv_pos) X(cuts) X(cs) X(cs_cap) \
    X(log) X(log_len) X(log_cap) X(nodes) X(kind) X(splits) X(fr) X(nfr)
/* clang-format on */
typedef struct search {
    uint64_t *minoff, *off, *floor, *ceil, *total, *sol;
    unsigned char *placed;
    size_t *rank, *order, *chosen, *mark, *lv_end, *lv_pos, *cuts;
    cand *cs;
    size_t cs_cap;
    undo_entry *log;
    size_t log_len, log_cap;
    uint64_t nodes;
    int kind;
    size_t splits;
    frame *fr;
    size_t nfr;
    bool ready;        /* its arrays allocated */
    uint64_t left;     /* the restart stream: placements its restart may still try */
    uint64_t restarts; /* the restart stream: restarts begun in this part */
} search;

struct mp_exact {
    size_t n, m;          /* buffers in, non-zero buffers searched */
    const uint64_t *size; /* aligned sizes, by input index */
    const memplan_buffer *bufs;
    size_t *idx;       /* searched buffer -> input index, by start */
    uint64_t *sz;      /* size of each searched buffer */
    size_t *slo, *shi; /* sections each spans: [slo, shi) */
    size_t nsec;
    size_t *sec_at, *sec_buf; /* CSR: buffers live in each section */
    size_t *ov_at, *ov_buf;   /* CSR: buffers live with each buffer */
    part *parts;
    size_t nparts;
    /* the state of the stream being run (see search) */
    uint64_t *minoff; /* per buffer, the lowest offset it can take; UINT64_MAX once placed */
    uint64_t *off, *floor, *total;
    uint64_t *ceil; /* per section: at least the highest minimum offset of its unplaced buffers */
    unsigned char *placed;
    size_t *rank;          /* rank of each buffer in the current order */
    size_t *order;         /* the current order of a part's buffers */
    size_t *chosen, *mark; /* per level: buffer placed, undo log length */
    struct cand *cs;       /* the levels' candidate lists, one stack */
    size_t cs_cap;
    size_t *lv_end, *lv_pos; /* per level: end of its list in cs, next to try */
    undo_entry *log;
    size_t log_len, log_cap;
    size_t *cuts;   /* per section boundary s|s+1: unplaced buffers live across it */
    uint64_t *sol;  /* the offsets of a packing found, per searched buffer */
    uint64_t nodes; /* placements the search may still try */
    int kind;       /* the current order's slot */
    size_t splits;  /* splits in progress (nested) */
    frame *fr;      /* the search's frame stack: the part, then open sides */
    size_t nfr;
    /* shared by the streams */
    search st[NSLOTS];         /* the streams, by the slot of their order */
    int cur;                   /* the stream loaded, -1: none */
    size_t *stamp, stamp_now;  /* sections touched by the current placement */
    size_t *ranks, *orders;    /* the NSLOTS orders' (rank, order) side by side */
    size_t *touched, ntouched; /* the sections stamped, listed */
    bool oom;
    double deadline; /* wall-clock safety stop (mp_now_ms), 0: none */
    uint64_t unit;   /* gcd of the sizes: heights that matter are multiples */
    uint64_t seed;   /* of the restarts' perturbations */
    uint64_t *hint;  /* per searched buffer: its offset in a known packing, or NULL */
    uint64_t *found; /* the packing found, per searched buffer */
    uint64_t *tkey;  /* scratch of sort_static: per buffer, its largest section total */
    uint64_t turn;   /* steps per buffer of a stream's turn (decide_part) */
    unsigned mask;   /* the streams run, by slot bit; 0: all */
};

void mp_exact_set_deadline(mp_exact *x, double deadline) { x->deadline = deadline; }

void mp_exact_set_seed(mp_exact *x, uint64_t seed) { x->seed = seed; }

void mp_exact_set_turn(mp_exact *x, uint64_t steps_per_buffer) {
    x->turn = steps_per_buffer ? steps_per_buffer : TURN_STEPS;
}

void mp_exact_set_streams(mp_exact *x, unsigned mask) { x->mask = mask; }

bool mp_exact_set_hint(mp_exact *x, const uint64_t *off) {
    if (!off) {
        free(x->hint);
        x->hint = NULL;
        return true;
    }
    if (!x->hint && !(x->hint = malloc((x->m ? x->m : 1) * sizeof *x->hint))) return false;
    for (size_t b = 0; b < x->m; b++) x->hint[b] = off[x->idx[b]];
    return true;
}

static void load(mp_exact *x, int i) {
#define LOAD(f) x->f = x->st[i].f;
    SEARCH_FIELDS(LOAD)
#undef LOAD
    x->cur = i;
}

static void store(mp_exact *x) {
#define STORE(f) x->st[x->cur].f = x->f;
    SEARCH_FIELDS(STORE)
#undef STORE
}

static void search_free(search *t) {
    for (size_t k = 1; k < t->nfr; k++) {
        free(t->fr[k].list);
        free(t->fr[k].old);
    }
    free(t->minoff);
    free(t->off);
    free(t->sol);
    free(t->floor);
    free(t->ceil);
    free(t->total);
    free(t->cuts);
    free(t->placed);
    free(t->chosen);
    free(t->mark);
    free(t->lv_end);
    free(t->lv_pos);
    free(t->cs);
    free(t->log);
    free(t->fr);
}

/* Allocate stream i's arrays; false: out of memory (the stream is left
 * empty, not ready). */
static bool search_alloc(mp_exact *x, int i) {
    search *t = &x->st[i];
    size_t cap = x->m ? x->m : 1, scap = x->nsec ? x->nsec : 1;
    t->ready = true; /* reset below when an array is missing */
    t->minoff = malloc(cap * sizeof *t->minoff);
    t->off = malloc(cap * sizeof *t->off);
    t->sol = malloc(cap * sizeof *t->sol);
    t->floor = malloc(scap * sizeof *t->floor);
    t->ceil = malloc(scap * sizeof *t->ceil);
    t->total = malloc(scap * sizeof *t->total);
    t->cuts = malloc(scap * sizeof *t->cuts);
    t->placed = malloc(cap);
    t->chosen = malloc((cap + 1) * sizeof *t->chosen);
    t->mark = malloc((cap + 1) * sizeof *t->mark);
    t->lv_end = malloc((cap + 1) * sizeof *t->lv_end);
    t->lv_pos = malloc((cap + 1) * sizeof *t->lv_pos);
    t->cs_cap = 4 * cap;
    t->cs = malloc(t->cs_cap * sizeof *t->cs);
    t->log_cap = 4 * cap;
    t->log = malloc(t->log_cap * sizeof *t->log);
    t->fr = malloc((MAX_SPLITS + 1) * sizeof *t->fr);
    t->nfr = 0;
    if (t->minoff && t->off && t->sol && t->floor && t->ceil && t->total && t->cuts && t->placed && t->chosen &&
        t->mark && t->lv_end && t->lv_pos && t->cs && t->log && t->fr)
        return true;
    search_free(t);
    *t = (search){0};
    return false;
}

void mp_exact_free(mp_exact *x) {
    if (!x) return;
    if (x->cur >= 0) store(x);
    for (int i = 0; i < NSLOTS; i++) search_free(&x->st[i]);
    free(x->idx);
    free(x->sz);
    free(x->slo);
    free(x->shi);
    free(x->sec_at);
    free(x->sec_buf);
    free(x->ov_at);
    free(x->ov_buf);
    free(x->parts);
    free(x->stamp);
    free(x->ranks);
    free(x->orders);
    free(x->touched);
    free(x->hint);
    free(x->found);
    free(x->tkey);
    free(x);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sections: the distinct times cut [first start, last end) into nsec
 * pieces; each buffer spans [slo, shi). Also the CSR of section members. */
static bool build_sections(mp_exact *x, const memplan_buffer *bufs) {
    size_t m = x->m;
    int64_t *tv = malloc(2 * m * sizeof *tv);
    if (!tv) return false;
    for (size_t b = 0; b < m; b++) {
        tv[2 * b] = bufs[x->idx[b]].start;
        tv[2 * b + 1] = bufs[x->idx[b]].end;
    }
    qsort(tv, 2 * m, sizeof *tv, cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < 2 * m; i++)
        if (k == 0 || tv[i] != tv[k - 1]) tv[k++] = tv[i];
    x->nsec = k - 1;
    uint64_t entries = 0;
    for (size_t b = 0; b < m; b++) {
        x->slo[b] = mp_first_at_least(tv, k, bufs[x->idx[b]].start);
        x->shi[b] = mp_first_at_least(tv, k, bufs[x->idx[b]].end);
        entries += x->shi[b] - x->slo[b];
    }
    free(tv);
    if (entries > EXACT_TABLE_MAX) return false;
    x->sec_at = calloc(x->nsec + 1, sizeof *x->sec_at);
    x->sec_buf = malloc((entries ? entries : 1) * sizeof *x->sec_buf);
    if (!x->sec_at || !x->sec_buf) return false;
    for (size_t b = 0; b < m; b++)
        for (size_t s = x->slo[b]; s < x->shi[b]; s++) x->sec_at[s + 1]++;
    for (size_t s = 0; s < x->nsec; s++) x->sec_at[s + 1] += x->sec_at[s];
    size_t *fill = malloc((x->nsec ? x->nsec : 1) * sizeof *fill);
    if (!fill) return false;
    memcpy(fill, x->sec_at, x->nsec * sizeof *fill);
    for (size_t b = 0; b < m; b++)
        for (size_t s = x->slo[b]; s < x->shi[b]; s++) x->sec_buf[fill[s]++] = b;
    free(fill);
    return true;
}

/* Overlaps (CSR, both directions) and parts. Searched buffers are by start,
 * so the buffers live with b that start later follow it directly. */
static bool build_overlaps(mp_exact *x, const memplan_buffer *bufs) {
    size_t m = x->m;
    x->ov_at = calloc(m + 1, sizeof *x->ov_at);
    x->parts = malloc((m ? m : 1) * sizeof *x->parts);
    if (!x->ov_at || !x->parts) return false;
    uint64_t pairs = 0;
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m && bufs[x->idx[b]].start < bufs[x->idx[a]].end; b++) {
            x->ov_at[a + 1]++, x->ov_at[b + 1]++;
            if (++pairs > EXACT_TABLE_MAX) return false;
        }
    for (size_t a = 0; a < m; a++) x->ov_at[a + 1] += x->ov_at[a];
    x->ov_buf = malloc((pairs ? 2 * pairs : 1) * sizeof *x->ov_buf);
    size_t *fill = malloc((m ? m : 1) * sizeof *fill);
    if (!x->ov_buf || !fill) {
        free(fill);
        return false;
    }
    memcpy(fill, x->ov_at, m * sizeof *fill);
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m && bufs[x->idx[b]].start < bufs[x->idx[a]].end; b++) {
            x->ov_buf[fill[a]++] = b;
            x->ov_buf[fill[b]++] = a;
        }
    free(fill);
    /* Parts: cut before b when no earlier buffer is still live at its start. */
    int64_t reach = 0;
    for (size_t b = 0; b < m; b++) {
        const memplan_buffer *u = &bufs[x->idx[b]];
        if (b == 0 || u->start >= reach) {
            if (b > 0) x->parts[x->nparts - 1].hi = b, x->parts[x->nparts - 1].shi = x->slo[b];
            x->parts[x->nparts++] = (part){b, b, x->slo[b], 0};
        }
        reach = MP_MAX(reach, u->end);
    }
    if (m > 0) x->parts[x->nparts - 1].hi = m, x->parts[x->nparts - 1].shi = x->nsec;
    return true;
}

mp_exact *mp_exact_new(const mp_pack_input *in) {
    mp_exact *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->cur = -1;
    x->n = in->n;
    x->size = in->size;
    x->bufs = in->bufs;
    size_t cap = in->n ? in->n : 1;
    x->idx = malloc(cap * sizeof *x->idx);
    if (!x->idx) goto fail;
    for (size_t k = 0; k < in->n; k++)
        if (in->size[in->by_start[k]] > 0) x->idx[x->m++] = in->by_start[k];
    x->sz = malloc(cap * sizeof *x->sz);
    x->slo = malloc(cap * sizeof *x->slo);
    x->shi = malloc(cap * sizeof *x->shi);
    if (!x->sz || !x->slo || !x->shi) goto fail;
    for (size_t b = 0; b < x->m; b++) x->sz[b] = in->size[x->idx[b]];
    x->unit = mp_size_gcd(in->size, in->n, 1); /* zero sizes add nothing: the searched ones' gcd */
    x->seed = 1;
    x->turn = TURN_STEPS;
    if (x->m > 0 && (!build_sections(x, in->bufs) || !build_overlaps(x, in->bufs))) goto fail;
    size_t scap = x->nsec ? x->nsec : 1;
    x->stamp = calloc(scap, sizeof *x->stamp);
    x->ranks = malloc(NSLOTS * cap * sizeof *x->ranks);
    x->orders = malloc(NSLOTS * cap * sizeof *x->orders);
    x->touched = malloc(scap * sizeof *x->touched);
    x->found = malloc(cap * sizeof *x->found);
    x->tkey = malloc(cap * sizeof *x->tkey);
    if (!x->stamp || !x->ranks || !x->orders || !x->touched || !x->found || !x->tkey || !search_alloc(x, 0)) goto fail;
    load(x, 0);
    return x;
fail:
    mp_exact_free(x);
    return NULL;
}

/* ------------------------------------------------------------ orders */

typedef struct order_ctx {
    const mp_exact *x;
    const memplan_buffer *bufs;
    const uint64_t *tmax; /* largest section total over each buffer's span */
    int kind;             /* 0: W A T, 1: T A W, 2: T W A; 3-5 the same in sections */
} order_ctx;

static int cmp_key(uint64_t a, uint64_t b) { return a > b ? -1 : a < b; }

/* The static rank orders, as MiniMalloc's preorderings: by the largest
 * section total the buffer spans ("T"), by lifetime length ("W") and by
 * area, size x length ("A"), each descending, in three priority orders;
 * ties by start. Orders 3-5 are the same with lengths counted in sections:
 * on dsa B the time-length orders alone need 2.1 G steps at the bound, the
 * section-length ones 25 M, and C the other way round. */
static int cmp_order(const void *ctx, size_t a, size_t b) {
    const order_ctx *c = ctx;
    const mp_exact *x = c->x;
    if (c->kind == HINT_SLOT) /* the known packing's canonical order: by offset, then start */
        return x->hint[a] < x->hint[b] ? -1 : x->hint[a] > x->hint[b];
    const memplan_buffer *u = &c->bufs[x->idx[a]], *v = &c->bufs[x->idx[b]];
    uint64_t w[2] = {(uint64_t)(u->end - u->start), (uint64_t)(v->end - v->start)};
    if (c->kind >= 3) /* lengths in sections */
        w[0] = x->shi[a] - x->slo[a], w[1] = x->shi[b] - x->slo[b];
    /* The area is compared in double: the product may not fit 64 bits. */
    double ar[2] = {(double)x->sz[a] * (double)w[0], (double)x->sz[b] * (double)w[1]};
    int ca = ar[0] > ar[1] ? -1 : ar[0] < ar[1];
    int cw = cmp_key(w[0], w[1]), ct = cmp_key(c->tmax[a], c->tmax[b]);
    int keys[3][3] = {{cw, ca, ct}, {ct, ca, cw}, {ct, cw, ca}};
    for (int k = 0; k < 3; k++)
        if (keys[c->kind % 3][k]) return keys[c->kind % 3][k];
    return 0;
}

/* Sort list[0, len) by static order `kind`, the "T" key being each
 * buffer's largest section total now (in x->tkey). Its steps go to *work
 * unless work is NULL (the orders made once per decision are not counted).
 * false: out of memory. */
static bool sort_static(mp_exact *x, size_t *list, size_t len, int kind, uint64_t *work) {
    uint64_t steps = 4 * len;
    for (size_t r = 0; r < len; r++) {
        size_t b = list[r];
        x->tkey[b] = 0;
        for (size_t s = x->slo[b]; s < x->shi[b]; s++) x->tkey[b] = MP_MAX(x->tkey[b], x->total[s]);
        steps += 1 + x->shi[b] - x->slo[b];
    }
    if (work) *work += steps;
    order_ctx c = {x, x->bufs, x->tkey, kind};
    return mp_sort_idx(list, len, cmp_order, &c);
}

/* Fill x->order[p->lo, p->hi) with the part's buffers in order `kind` and
 * x->rank with their positions. Uses total[] as the initial totals. */
static bool make_order(mp_exact *x, const part *p, int kind) {
    for (size_t b = p->lo; b < p->hi; b++) x->order[b] = b;
    bool ok = sort_static(x, x->order + p->lo, p->hi - p->lo, kind, NULL);
    for (size_t r = p->lo; ok && r < p->hi; r++) x->rank[x->order[r]] = r - p->lo;
    return ok;
}

/* ------------------------------------------------------------ search */

/* Room in the undo log for n more entries; false (x->oom) when memory ran
 * out. */
static bool log_reserve(mp_exact *x, size_t n) {
    if (x->log_cap - x->log_len >= n) return true;
    size_t cap = MP_MAX(2 * x->log_cap, x->log_len + n);
    undo_entry *l = realloc(x->log, cap * sizeof *l);
    if (!l) {
        x->oom = true;
        return false;
    }
    x->log = l;
    x->log_cap = cap;
    return true;
}

static bool log_push(mp_exact *x, uint64_t *at, uint64_t old) {
    if (!log_reserve(x, 1)) return false;
    x->log[x->log_len++] = (undo_entry){at, old};
    return true;
}

/* Undo the placement of b: restore logged values down to `mark`, give the
 * sections b spans their totals back. */
static void unplace(mp_exact *x, size_t b, size_t mark, uint64_t *work) {
    *work += x->log_len - mark + (x->shi[b] - x->slo[b]);
    while (x->log_len > mark) {
        const undo_entry *e = &x->log[--x->log_len];
        *e->at = e->old;
    }
    for (size_t s = x->slo[b]; s < x->shi[b]; s++) x->total[s] += x->sz[b];
    x->placed[b] = 0;
    x->minoff[b] = x->off[b];
}

/* The first of section entries [q, end) whose buffer is unplaced and can
 * still go at `room` or lower; end if none. The lowest offset unplaced
 * buffer u can still take, b having just gone at o (at most room) with
 * rank rb, is its minimum offset, unless canonical order rules that out --
 * below o, or at o with a rank before rb. Then its minimum offset must rise
 * first, to the top of a buffer placed later live with it (at o or above,
 * a multiple of the unit high): o + unit at the lowest. So when o + unit
 * fits under room, u can go low enough just when its minimum offset is at
 * most room (one at or below o rises to o + unit at the most). The hottest
 * loop of a decision, so the arrays are read through locals; a placed
 * buffer's minimum offset is UINT64_MAX, above any room. `minoff` is
 * x->minoff, passed as place() reads it (a restrict pointer there). */
static size_t room_scan(const mp_exact *x, const uint64_t *minoff, size_t q, size_t end, uint64_t o, size_t rb,
                        uint64_t room) {
    const size_t *restrict sec_buf = x->sec_buf, *restrict rank = x->rank;
    if (o + x->unit <= room) {
        while (q < end && minoff[sec_buf[q]] > room) q++;
        return q;
    }
    for (; q < end; q++) {
        size_t u = sec_buf[q];
        uint64_t mo = minoff[u];
        if ((mo > o && mo <= room) || (mo == o && rank[u] > rb)) break;
    }
    return q;
}

/* Place b at its minimum offset and propagate; false when the result is
 * proven infeasible at height h (or memory ran out: x->oom). The caller
 * undoes the placement either way. */
static bool place(mp_exact *x, size_t b, const cand *skip, size_t nskip, uint64_t h, uint64_t *work) {
    /* The log takes at most b's floors, one minimum offset per buffer live
     * with it and one ceiling per section: reserved at once, the loops
     * below (the search's hottest with room_scan) read the arrays through
     * locals. */
    if (!log_reserve(x, (x->shi[b] - x->slo[b]) + (x->ov_at[b + 1] - x->ov_at[b]) + x->nsec)) return false;
    uint64_t *restrict minoff = x->minoff, *restrict floor = x->floor, *restrict ceil = x->ceil;
    uint64_t *restrict total = x->total;
    const uint64_t *restrict sz = x->sz;
    const size_t *restrict slo = x->slo, *restrict shi = x->shi, *restrict ov_buf = x->ov_buf;
    size_t *restrict stamp = x->stamp, *restrict touched = x->touched;
    undo_entry *restrict log = x->log;
    size_t nlog = x->log_len, nt = 0, now = ++x->stamp_now;
    uint64_t o = minoff[b], top = o + sz[b], steps = 0;
    x->placed[b] = 1;
    x->off[b] = o;
    minoff[b] = UINT64_MAX; /* placed: no longer raised, nor found by room_scan */
    for (size_t s = slo[b]; s < shi[b]; s++) {
        log[nlog++] = (undo_entry){&floor[s], floor[s]};
        floor[s] = top;
        total[s] -= sz[b];
        stamp[s] = now, touched[nt++] = s;
    }
    /* Buffers live with b now start at its top at the lowest. */
    bool ok = true;
    for (size_t k = x->ov_at[b]; k < x->ov_at[b + 1]; k++) {
        size_t u = ov_buf[k];
        if (minoff[u] >= top) continue; /* placed, or already as high */
        log[nlog++] = (undo_entry){&minoff[u], minoff[u]};
        minoff[u] = top;
        if (top + sz[u] > h) ok = false;
        for (size_t s = slo[u]; s < shi[u]; s++) {
            if (stamp[s] != now) stamp[s] = now, touched[nt++] = s;
            if (ceil[s] < top) {
                log[nlog++] = (undo_entry){&ceil[s], ceil[s]};
                ceil[s] = top;
            }
        }
        steps += shi[u] - slo[u];
    }
    /* The candidates passed over for b can no longer go at o (see room_scan):
     * their sections are checked too. */
    for (size_t k = 0; k < nskip; k++) {
        size_t u = skip[k].b;
        for (size_t s = slo[u]; s < shi[u]; s++)
            if (stamp[s] != now) stamp[s] = now, touched[nt++] = s;
        steps += shi[u] - slo[u];
    }
    x->log_len = nlog;
    x->ntouched = nt;
    steps += x->ov_at[b + 1] - x->ov_at[b] + 2 * (shi[b] - slo[b]);
    *work += steps;
    if (!ok) return false;
    /* In each section this placement changed: the remaining area (every
     * later buffer goes at o or above), and room for it above the lowest
     * offset an unplaced buffer there can still take (see room_scan). The
     * sections left alone pass the area check: o is at most h less their
     * unplaced total (candidates are capped so, see level_candidates); the
     * room there is checked when a placement touches them. */
    steps = nt;
    bool fits = true;
    for (size_t t = 0; t < nt && fits; t++) {
        size_t s = touched[t];
        if (total[s] == 0) continue; /* nothing left to place there */
        if (MP_MAX(floor[s], o) + total[s] > h) {
            fits = false;
            break;
        }
        /* Every release offset there is at most ceil or o + unit: when even
         * the highest leaves room, there is no need to look. */
        uint64_t room = h - total[s];
        if (MP_MAX(o + x->unit, ceil[s]) <= room) continue;
        size_t q0 = x->sec_at[s], q = room_scan(x, minoff, q0, x->sec_at[s + 1], o, x->rank[b], room);
        steps += q - q0 + 1;
        fits = q < x->sec_at[s + 1]; /* else none can go low enough */
    }
    *work += steps;
    return fits;
}

static int cmp_cand(const void *a, const void *b) {
    const cand *u = a, *v = b;
    if (u->off != v->off) return u->off < v->off ? -1 : 1;
    return (u->rank > v->rank) - (u->rank < v->rank);
}

/* Sort a level's candidates by (offset, rank). They come in rank order and
 * most often few, with few offsets: insertion sort (a stable sort by
 * offset), qsort above a few dozen. */
static void sort_cands(cand *c, size_t n) {
    if (n > 32) {
        qsort(c, n, sizeof *c, cmp_cand);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        cand v = c[i];
        size_t j = i;
        for (; j > 0 && c[j - 1].off > v.off; j--) c[j] = c[j - 1];
        c[j] = v;
    }
}

/* Double the candidates' stack; false (x->oom) when memory ran out. */
static bool grow_cands(mp_exact *x) {
    size_t c2 = 2 * x->cs_cap;
    cand *n = realloc(x->cs, c2 * sizeof *n);
    if (!n) {
        x->oom = true;
        return false;
    }
    x->cs = n;
    x->cs_cap = c2;
    return true;
}

/* The candidates of level d of frame f, after the parent's key (ko, kr)
 * (any when kr is NONE), listed in cs[start, lv_end[d]) by (minimum offset,
 * rank): the unplaced buffers of the frame that pass dominance (their
 * minimum offset below the lowest top an unplaced buffer can reach), fit
 * under h, and sit no higher than h less any section's unplaced total
 * (every later buffer goes at the offset or above, so such a placement
 * would fail the area check of place()). The state is the same for every
 * sibling of a level, so the list is made once. false: out of memory. */
static bool level_candidates(mp_exact *x, const frame *f, size_t d, uint64_t ko, size_t kr, uint64_t h,
                             uint64_t *work) {
    size_t start = d ? x->lv_end[d - 1] : 0, k = start;
    uint64_t min_height = UINT64_MAX, most = 0; /* the largest unplaced total */
    for (size_t s = f->slo; s < f->shi; s++) most = MP_MAX(most, x->total[s]);
    uint64_t cap = h - MP_MIN(most, h); /* a part whose total passes h is infeasible from the start */
    /* One pass: min_height, and the buffers that pass every test but
     * dominance (min_height is known only at the end), filtered after.
     * The buffers above cap (placed ones among them: UINT64_MAX) are left
     * out of min_height too: each one's top is above cap, so above every
     * candidate's offset, and would filter none. */
    const size_t *restrict list = f->list;
    const uint64_t *restrict minoff = x->minoff, *restrict sz = x->sz;
    for (size_t r = 0; r < f->len; r++) {
        size_t b = list[r];
        uint64_t o = minoff[b]; /* UINT64_MAX when placed: above cap */
        if (o > cap) continue;
        min_height = MP_MIN(min_height, o + sz[b]);
        if (o + sz[b] > h || (kr != NONE && !(o > ko || (o == ko && r > kr)))) continue;
        if (k == x->cs_cap && !grow_cands(x)) return false;
        x->cs[k++] = (cand){o, r, b};
    }
    size_t kept = start;
    for (size_t q = start; q < k; q++)
        if (x->cs[q].off < min_height) x->cs[kept++] = x->cs[q];
    k = kept;
    sort_cands(x->cs + start, k - start);
    x->lv_end[d] = k;
    x->lv_pos[d] = start;
    *work += 2 * f->len + (f->shi - f->slo) + 2 * (k - start);
    return true;
}

typedef enum { DFS_FOUND, DFS_NONE, DFS_LIMIT } dfs_result;

/* The boundaries after sections slo..shi-2 of buffer b: count b in again
 * (b unplaced). */
static void cut_add(mp_exact *x, size_t b) {
    for (size_t s = x->slo[b]; s + 1 < x->shi[b]; s++) x->cuts[s]++;
}

/* Count b out of them (b placed); true when one inside frame f is left
 * with no unplaced buffer across it, and a split may still nest. */
static bool cut_remove(mp_exact *x, size_t b, const frame *f, uint64_t *work) {
    bool cut = false;
    for (size_t s = x->slo[b]; s + 1 < x->shi[b]; s++)
        if (--x->cuts[s] == 0 && s >= f->slo && s + 1 < f->shi) cut = true;
    *work += x->shi[b] - x->slo[b];
    return cut && x->splits < MAX_SPLITS;
}

/* Pop the top frame, a side: its buffers get their ranks back. */
static void close_side(mp_exact *x) {
    frame *g = &x->fr[--x->nfr];
    for (size_t r = 0; r < g->len; r++) x->rank[g->list[r]] = g->old[r];
    free(g->list);
    free(g->old);
    x->splits--;
}

/* Pop every frame but the part's. */
static void drop_frames(mp_exact *x) {
    while (x->nfr > 1) close_side(x);
    x->nfr = 0;
}

typedef enum { SIDE_OPEN, SIDE_NONE, SIDE_NOMEM } side_result;

/* Dynamic decomposition (as MiniMalloc's): once no unplaced buffer of
 * frame f (the top) lives across a section boundary, the buffers on either
 * side no longer meet, so each side is searched on its own, and the
 * placement that made the cut stands only if every side has a packing.
 * Push the next side of f's split with buffers, starting at section
 * `from`; SIDE_NONE when none is left. A side is searched from scratch:
 * canonical order begins again there, so its floors are made again without
 * what the frame's order implied (the top of the buffers placed there,
 * raised to the lowest minimum offset of the unplaced ones), and its
 * buffers are ranked anew. The floors it changes are logged at the level
 * of the placement, whose undo restores them. */
static side_result open_side(mp_exact *x, size_t from, uint64_t *work) {
    const frame *f = &x->fr[x->nfr - 1];
    for (size_t cut = from, lo = from; cut < f->shi; cut++) {
        if (cut + 1 < f->shi && x->cuts[cut] != 0) continue;
        size_t slo = lo, shi = cut + 1, len = 0;
        lo = cut + 1;
        for (size_t r = 0; r < f->len; r++) {
            size_t b = f->list[r];
            len += !x->placed[b] && x->slo[b] >= slo && x->slo[b] < shi;
        }
        *work += f->len;
        if (len == 0) continue;
        frame g = {.list = malloc(len * sizeof *g.list),
                   .old = malloc(len * sizeof *g.old),
                   .slo = slo,
                   .shi = shi,
                   .base = f->base + f->d + 1,
                   .next = shi,
                   .fresh = true};
        if (!g.list || !g.old) {
            free(g.list);
            free(g.old);
            return SIDE_NOMEM;
        }
        for (size_t r = 0; r < f->len; r++) {
            size_t b = f->list[r];
            if (!x->placed[b] && x->slo[b] >= slo && x->slo[b] < shi) g.list[g.len++] = b;
        }
        for (size_t s = slo; s < shi; s++) {
            uint64_t top = 0, mo = UINT64_MAX;
            for (size_t q = x->sec_at[s]; q < x->sec_at[s + 1]; q++) {
                size_t u = x->sec_buf[q];
                if (x->placed[u]) top = MP_MAX(top, x->off[u] + x->sz[u]);
                else
                    mo = MP_MIN(mo, x->minoff[u]);
            }
            *work += x->sec_at[s + 1] - x->sec_at[s];
            uint64_t fl = mo == UINT64_MAX ? top : MP_MAX(top, mo);
            if (fl != x->floor[s] && !log_push(x, &x->floor[s], x->floor[s])) {
                free(g.list);
                free(g.old);
                return SIDE_NOMEM;
            }
            x->floor[s] = fl;
        }
        /* Re-ranked on the unplaced totals, as MiniMalloc's SubSolve: on
         * dsa I, keeping the outer ranks left the bound undecided at 2 G
         * steps, re-ranked it is found in 76 M. */
        if (x->kind < NORDERS && !sort_static(x, g.list, g.len, x->kind, work)) {
            free(g.list);
            free(g.old);
            return SIDE_NOMEM;
        }
        for (size_t r = 0; r < g.len; r++) g.old[r] = x->rank[g.list[r]], x->rank[g.list[r]] = r;
        x->splits++;
        x->fr[x->nfr++] = g;
        return SIDE_OPEN;
    }
    return SIDE_NONE;
}

/* Depth-first search on the frame stack under the current order (the
 * part's frame pushed with nothing placed, or a search stopped earlier).
 * Stops when the placements allowed (x->nodes) or *work reach their
 * limits: DFS_LIMIT leaves the state as it is, and a later call goes on
 * from there (or the caller resets it). DFS_FOUND: x->sol holds the part's
 * offsets; DFS_FOUND and DFS_NONE leave the state with nothing placed.
 * The stack is explicit, so a search stopped inside nested splits can go
 * on. */
static dfs_result solve(mp_exact *x, uint64_t h, uint64_t quota, uint64_t *work) {
    for (;;) {
        frame *f = &x->fr[x->nfr - 1];
        size_t D = f->base + f->d;
        if (f->d == f->len || f->done) {
            /* The frame is placed: record its levels and undo them. */
            f->done = false;
            while (f->d > 0) {
                f->d--;
                size_t b = x->chosen[f->base + f->d];
                x->sol[b] = x->off[b];
                cut_add(x, b);
                unplace(x, b, x->mark[f->base + f->d], work);
            }
            if (x->nfr == 1) return DFS_FOUND;
            size_t next = f->next;
            close_side(x);
            side_result r = open_side(x, next, work);
            if (r == SIDE_NOMEM) {
                x->oom = true;
                return DFS_LIMIT;
            }
            if (r == SIDE_NONE) { /* every side placed: the split's placement stands */
                x->fr[x->nfr - 1].d++;
                x->fr[x->nfr - 1].done = true;
            }
            continue;
        }
        if (f->fresh) {
            /* After the parent's key: canonical order. */
            size_t pb = f->d ? x->chosen[D - 1] : 0;
            if (!level_candidates(x, f, D, f->d ? x->off[pb] : 0, f->d ? x->rank[pb] : NONE, h, work)) return DFS_LIMIT;
            f->fresh = false;
        }
        if (x->lv_pos[D] == x->lv_end[D]) {
            if (f->d == 0) {
                if (x->nfr == 1) return DFS_NONE;
                /* A side has no packing: nor has the split's placement. */
                close_side(x);
                f = &x->fr[x->nfr - 1];
                D = f->base + f->d;
                cut_add(x, x->chosen[D]);
            } else {
                f->d--;
                D--;
                cut_add(x, x->chosen[D]);
            }
            unplace(x, x->chosen[D], x->mark[D], work);
            continue;
        }
        if (x->nodes == 0 || *work >= quota) return DFS_LIMIT;
        size_t first = D ? x->lv_end[D - 1] : 0, at = x->lv_pos[D]++;
        size_t c = x->cs[at].b;
        x->nodes--;
        if (x->deadline > 0 && (x->nodes & 1023) == 0 && mp_now_ms() > x->deadline) {
            *work = quota; /* spent: the caller stops */
            return DFS_LIMIT;
        }
        x->chosen[D] = c;
        x->mark[D] = x->log_len;
        if (place(x, c, x->cs + first, at - first, h, work)) {
            if (!cut_remove(x, c, f, work)) {
                f->d++;
                f->fresh = true;
                continue;
            }
            side_result r = open_side(x, f->slo, work);
            if (r == SIDE_NOMEM) x->oom = true;
            if (r == SIDE_OPEN) continue;
            if (r == SIDE_NONE) {
                f->d++; /* nothing left on either side */
                f->done = true;
                continue;
            }
        }
        if (x->oom) return DFS_LIMIT;
        unplace(x, c, x->mark[D], work);
    }
}

/* Nothing of part p placed: minimum offsets and floors 0, totals full, the
 * boundaries' counts. */
static void reset_part(mp_exact *x, const part *p, uint64_t *work) {
    for (size_t b = p->lo; b < p->hi; b++) x->minoff[b] = 0, x->placed[b] = 0;
    for (size_t s = p->slo; s < p->shi; s++) x->floor[s] = 0, x->ceil[s] = 0, x->total[s] = 0, x->cuts[s] = 0;
    for (size_t b = p->lo; b < p->hi; b++) {
        for (size_t s = x->slo[b]; s < x->shi[b]; s++) x->total[s] += x->sz[b];
        cut_add(x, b);
    }
    x->log_len = 0;
    *work += 2 * (p->hi - p->lo) + (p->shi - p->slo) + 2 * (x->sec_at[p->shi] - x->sec_at[p->slo]);
}

/* Use the order in slot `kind` next (see NSLOTS). */
static void use_order(mp_exact *x, int kind) {
    size_t cap = x->m ? x->m : 1;
    x->order = x->orders + (size_t)kind * cap;
    x->rank = x->ranks + (size_t)kind * cap;
    x->kind = kind;
}

/* The Luby sequence, i >= 1: 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... */
static uint64_t luby(uint64_t i) {
    for (;;) {
        uint64_t k = 1;
        while ((k << 1) - 1 < i) k <<= 1; /* 2k - 1 >= i: a block of length 2k - 1 */
        if ((k << 1) - 1 == i) return k;
        i -= k - 1;
    }
}

/* The perturbed order (slot PERTURB_SLOT): static order `kind` with swaps
 * of near neighbours drawn from *rng. Unhinted (a decision at the bound)
 * the restarts shake the order hard: PERTURB_SWAPS swaps per buffer, each
 * of two buffers at most PERTURB_REACH positions apart. Restarts decide such
 * instances with a heavy tail (b4d05-1 tight-0430-1: 2 of 16 seeds within
 * 600 M steps under the light shake below), and the hard shake thins it:
 * the decision at 300 M steps, seeds 1-4, on 119 instances looked at and
 * 120 fresh ones, decides 379 -> 432 runs (fresh: 148 -> 176); one swap
 * per buffer gave 416-426, four 427 (bench/README.md "Restarts that shake
 * harder"). Hinted (the descent below a packing found) the restarts stay
 * near the hint's order: one swap per PERTURB_PER_HINTED buffers, at most
 * PERTURB_REACH_HINTED apart (the hard shake there lost as much as it
 * won). */
#define PERTURB_SWAPS 2
#define PERTURB_REACH 4
#define PERTURB_PER_HINTED 4
#define PERTURB_REACH_HINTED 2
static void perturb_order(mp_exact *x, const part *p, int kind, bool shuffle, uint64_t *rng, uint64_t *work) {
    size_t cap = x->m ? x->m : 1, k = p->hi - p->lo;
    size_t swaps = x->hint ? k / PERTURB_PER_HINTED + 1 : PERTURB_SWAPS * (k + 1);
    size_t reach = x->hint ? PERTURB_REACH_HINTED : PERTURB_REACH;
    const size_t *src = x->orders + (size_t)kind * cap;
    use_order(x, PERTURB_SLOT);
    memcpy(x->order + p->lo, src + p->lo, k * sizeof *x->order);
    if (!shuffle) x->kind = kind; /* a split's sides re-ranked by it, as under the static order */
    for (size_t t = 0; shuffle && k > 1 && t < swaps; t++) {
        size_t i = p->lo + mp_rand_below(rng, k - 1);
        size_t j = i + 1 + mp_rand_below(rng, reach); /* not inside MP_MIN: evaluated twice */
        if (j > p->hi - 1) j = p->hi - 1;
        size_t tmp = x->order[i];
        x->order[i] = x->order[j];
        x->order[j] = tmp;
    }
    for (size_t r = p->lo; r < p->hi; r++) x->rank[x->order[r]] = r - p->lo;
    *work += 2 * k;
}

/* The frame stack of every stream emptied (the side lists freed, the
 * ranks given back), the stream loaded stored. */
static void end_part(mp_exact *x) {
    store(x);
    for (int i = 0; i < NSLOTS; i++)
        if (x->st[i].ready) {
            load(x, i);
            drop_frames(x);
            store(x);
        }
}

/* Push part p's frame, nothing placed, on the loaded stream's stack. */
static void push_part(mp_exact *x, const part *p) {
    x->fr[x->nfr++] =
        (frame){.list = x->order + p->lo, .len = p->hi - p->lo, .slo = p->slo, .shi = p->shi, .fresh = true};
}

/* Decide one part by streams that take turns: one depth-first search per
 * static order, each going on from where its last turn stopped, and one of
 * restarts under node limits LUBY_BASE x buffers x the Luby sequence (1 1
 * 2 1 1 2 4 ...): the static orders in turn, then the same again each
 * perturbed by the seeded rng. A turn is TURN_STEPS steps per buffer; the
 * restarts take as many turns as the static orders together, so half the
 * work. One order often finds a packing another takes long to reach, and
 * restarts from scratch seldom give the order that would find it a long
 * enough run (dsa A: 24 M steps under one order alone, undecided after 1.5
 * G under three others, 1.4 G by restarts alone); restarts catch the heavy
 * tail that no static order reaches soon (tight-0290-1: 45 M by restarts,
 * 210 M under the best static order). So a decision costs at most about
 * twice what either half alone would (bench/README.md "Static orders
 * that go on"). A hinted decision (a descent below a known packing) runs
 * the restarts alone, the hint's order first: they follow the packing
 * down and try its neighbours. An exhausted search under any order proves
 * infeasibility; every stream goes on without bound, so given the work
 * each decision ends. */
#define LUBY_BASE 4
static mp_exact_status decide_part(mp_exact *x, const part *p, uint64_t h, uint64_t quota, uint64_t *work,
                                   uint64_t *rng) {
    reset_part(x, p, work);
    *work += p->shi - p->slo;
    for (size_t s = p->slo; s < p->shi; s++)
        if (x->total[s] > h) return MP_EXACT_INFEASIBLE;
    /* The orders (the hint's in slot NORDERS), on the stream loaded: its
     * totals are full, as make_order needs. */
    int kinds = x->hint ? NORDERS + 1 : NORDERS, streams[NSLOTS], ns = 0;
    for (int kind = 0; kind < kinds; kind++) {
        use_order(x, kind);
        if (!make_order(x, p, kind)) return MP_EXACT_NOMEM;
    }
    /* The streams that run: the static orders unless hinted, the restarts
     * (also when a test's mask leaves none). */
    for (int i = 0; i < NSLOTS; i++) {
        bool restarts = i == PERTURB_SLOT;
        if (!restarts && (i >= NORDERS || x->hint)) continue;
        if (x->mask && !(x->mask >> i & 1) && !(restarts && ns == 0)) continue;
        store(x);
        if (!x->st[i].ready && !search_alloc(x, i)) return MP_EXACT_NOMEM;
        load(x, i);
        drop_frames(x);
        x->st[i].left = 0, x->st[i].restarts = 0;
        if (i < NORDERS) {
            use_order(x, i);
            reset_part(x, p, work);
            push_part(x, p);
        }
        streams[ns++] = i;
    }
    uint64_t len = p->hi - p->lo, base = LUBY_BASE * len;
    uint64_t turn = x->turn > UINT64_MAX / NSLOTS / len ? UINT64_MAX / NSLOTS : x->turn * len;
    mp_exact_status st = MP_EXACT_UNKNOWN;
    for (int j = 0; st == MP_EXACT_UNKNOWN && *work < quota; j = (j + 1) % ns) {
        int i = streams[j];
        store(x);
        load(x, i);
        search *t = &x->st[i];
        uint64_t turns = i == PERTURB_SLOT && ns > 1 ? (uint64_t)(ns - 1) : 1;
        uint64_t end = turns * turn > quota - MP_MIN(quota, *work) ? quota : *work + turns * turn;
        dfs_result res;
        do {
            x->nodes = UINT64_MAX;
            if (i == PERTURB_SLOT) {
                if (t->left == 0) {
                    /* The next restart: the static orders (the hint's
                     * first), then the same perturbed. */
                    int kind = (int)(t->restarts % (uint64_t)kinds);
                    if (x->hint) kind = kind == 0 ? HINT_SLOT : kind - 1;
                    drop_frames(x);
                    perturb_order(x, p, kind, t->restarts >= (uint64_t)kinds, rng, work);
                    reset_part(x, p, work);
                    push_part(x, p);
                    uint64_t l = luby(++t->restarts);
                    t->left = l > UINT64_MAX / base ? UINT64_MAX : base * l;
                }
                x->nodes = t->left;
            }
            uint64_t before = x->nodes;
            res = solve(x, h, end, work);
            if (i == PERTURB_SLOT) t->left -= before - x->nodes;
        } while (res == DFS_LIMIT && i == PERTURB_SLOT && t->left == 0 && *work < end && !x->oom);
        if (x->oom) st = MP_EXACT_NOMEM;
        else if (res == DFS_FOUND) {
            memcpy(x->found + p->lo, x->sol + p->lo, (p->hi - p->lo) * sizeof *x->found);
            st = MP_EXACT_FEASIBLE;
        } else if (res == DFS_NONE)
            st = MP_EXACT_INFEASIBLE;
    }
    end_part(x);
    return st;
}

mp_exact_status mp_exact_decide(mp_exact *x, uint64_t h, uint64_t quota, uint64_t *work, uint64_t *off) {
    h = h / x->unit * x->unit; /* the same decision: the lowest packing's height is a multiple */
    /* The cheap proof first: a part whose live total exceeds h anywhere. */
    for (size_t i = 0; i < x->nparts; i++) {
        const part *p = &x->parts[i];
        reset_part(x, p, work);
        for (size_t s = p->slo; s < p->shi; s++)
            if (x->total[s] > h) return MP_EXACT_INFEASIBLE;
    }
    uint64_t end = *work + MP_MIN(quota, UINT64_MAX - *work);
    for (size_t i = 0; i < x->nparts; i++) {
        /* Each part may spend what the earlier ones left. Its restarts'
         * rng starts from the seed, the height and the part alone, so its
         * luck does not hang on how many restarts the earlier parts took. */
        uint64_t rng = x->seed ^ h, salt = i;
        if (i > 0) rng ^= mp_rand_next(&salt);
        mp_exact_status st = decide_part(x, &x->parts[i], h, end, work, &rng);
        if (st != MP_EXACT_FEASIBLE) return st;
    }
    for (size_t k = 0; k < x->n; k++) off[k] = 0;
    for (size_t b = 0; b < x->m; b++) off[x->idx[b]] = x->found[b];
    return MP_EXACT_FEASIBLE;
}
