/*
 * pack_firstfit.c -- first fit (and best fit) through an interval index,
 * for large plans.
 *
 * Buffers are placed one at a time in a given order (size descending for
 * greedy-by-size, as TFLite Micro's planner does): each goes to the lowest
 * offset where it overlaps no placed buffer live with it. The plain way
 * walks every placed buffer live with it, which costs O(n k) for k buffers
 * live at a time and is quadratic on long random lifetimes; here a
 * placement costs O(log n) set look-ups plus a scan of a few buffers.
 *
 * The index. Time is cut into elementary intervals (between consecutive
 * distinct start/end times), grouped B at a time into leaf blocks, and a
 * segment tree is built over the blocks. A buffer covers some blocks
 * completely and at most two partially (its end blocks). Each tree node v
 * keeps two sets of address ranges, merged into maximal runs (only the
 * union matters: where something is, not what):
 *   C(v)  the buffers whose full blocks' canonical decomposition holds v
 *         (they are live over all of v's time);
 *   D(v)  every buffer stored at v or below: in C of v or a descendant, or
 *         partial in a leaf block below v.
 * A buffer X conflicts exactly with the placed buffers that are (a) in D(v)
 * for a canonical node v of X's full blocks, (b) in C(u) for a strict
 * ancestor u of such a node, or for a partial block p of X or an ancestor
 * of p, or (c) partial in one of X's partial blocks and live with X -- (c)
 * is checked buffer by buffer from a per-block list. Two nodes whose time
 * ranges meet are one the other's ancestor, so (a)-(c) find every conflict
 * and nothing else; the result is the exact first fit.
 *
 * The search. y starts at 0; any run of a set (the partial buffers of (c)
 * are merged into one scratch set first, from per-block lists kept in
 * offset order) that overlaps [y, y + size) forces every feasible offset
 * to its top, so y jumps there; the sets are asked in turn, each from a
 * cursor that only moves up, until every set has agreed since the last
 * jump. A set that moved y goes first in the order: the next blocker is
 * most often one of the last few (two sets ping-pong y between their
 * runs), which cut the calls per placement from ~182 to well under that
 * at 100k random buffers and the first fit's CPU by ~20%. A set whose
 * next run starts at or above y + size is known clear from its key
 * without touching its runs. D is kept only at nodes that some buffer's
 * decomposition uses (case (a) reads it nowhere else). Nothing here counts
 * time: the result is a function of the input and the order only.
 *
 * Best fit (mp_best_fit) uses the same index and search: the union of the
 * queued sets is the union of the address ranges of the placed buffers
 * live with X, so its holes are exactly the gaps of the plain best-fit rule
 * (TFLite GPU's greedy by size: the live placed buffers in address order,
 * the gap from the running highest end to the next one's offset). The walk
 * settles at the lowest hole that holds X, reads the hole's end off the
 * cursors (each set's next run), then settles again from there, up to the
 * top; the smallest hole wins (the lowest of equal ones, an exact fit at
 * once), none: the top. It costs more than first fit, which stops at the
 * first hole: 21 s against 15 s of CPU at 1M random buffers, load ~2 (the
 * plain rule, pack_greedy.c's conflict walk: 91 s), and it packs worse on
 * size order: 1.135x against 1.043x the bound at 100k random, 1.159x
 * against 1.051x on model-like sets (bench/README.md "At scale"), so
 * greedy-size keeps first fit.
 *
 * Cost (bench_pack --random --fit first, ~290 buffers live at a time,
 * the decoder alone; 2026-12-03, 2-core machine, quiet, best of 3-5):
 * 0.38 s at 100k buffers (before the ordering above 0.47 s), 6.4 s at 1M
 * (7.4 s) -- O(n log n) in the index, but the jumps grow with how many
 * small holes lie below a buffer's final offset, which is what
 * time-ordered fits avoid and why time-fit still runs first on models.
 * At 100k random buffers a placement queues ~11 sets and settles in ~49
 * jumps, ~60 set look-ups (the blocker-first order makes a ping-pong cost
 * two key checks a jump). A min-heap on the keys instead (O(log sets) a
 * look-up, no re-checks) ran 1.4x slower: the heap's sift costs more than
 * those checks.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/pack_internal.h"
#include "util/heap.h"

/* Elementary intervals per leaf block: the per-block lists scanned in (c)
 * hold about 2B buffers, the tree has 2n/B leaves. 64: since the scan reads
 * one mask word per entry (ff_mask), a longer list costs little and each
 * doubling of B takes a level off the tree, i.e. ~2 sets off a query and
 * ~2 set insertions off a placement. Measured on the first fit alone
 * (bench_pack --random --fit first, alternating runs): 1M random buffers
 * 12.8 s (B = 16 with the spans read in the scan) -> 11.9 s (16, masks)
 * -> 9.3 s (64) on a machine ~1.8x slower than the figures below; 100k
 * 0.85 -> 0.55 s; 128 (two words) no faster. */
#define FF_BLOCK 64u

typedef struct iset { /* disjoint, non-adjacent runs [r[2k], r[2k+1]), ascending */
    uint64_t *r;
    uint32_t len, cap;
} iset;

/* Which of a leaf block's elementary intervals a buffer covers, bit k for
 * the block's k-th: two buffers partial in one block are live together
 * exactly when their masks meet (two intervals that meet each other and a
 * third, the block, meet all three at a point), so a query's scan of a
 * block's list reads one word per buffer, not its span. */
typedef uint64_t ff_mask;
_Static_assert(FF_BLOCK <= 8 * sizeof(ff_mask), "a block's intervals fit a mask");

/* A placed buffer's address range in a block's list: [off, top). */
typedef struct ff_span {
    uint64_t off, top;
} ff_span;

typedef struct ff {
    const mp_pack_input *in;
    size_t leaves;    /* power of two >= number of blocks */
    iset *c, *d;      /* per node, 1-based (node 1 is the root) */
    uint64_t *stamp;  /* per node: last operation that visited it */
    uint64_t op;      /* operation counter for stamp */
    size_t *lo, *hi;  /* per buffer: first and last elementary interval */
    size_t *part_at;  /* CSR: buffers partial in block p are the entries */
    ff_mask *pmask;   /*   part_at[p] .. part_at[p + 1] - 1: their masks, */
    ff_span *pspan;   /*   address ranges once placed, */
    size_t *pid;      /*   and buffers; the first placed[p] placed, */
    size_t *placed;   /*   by offset (the rest in no order) */
    size_t *part_pos; /* per buffer: its two entries (SIZE_MAX: none) */
    uint8_t *need_d;  /* per node: canonical for some buffer, so D is read */
    iset **sets;      /* the query's sets */
    uint32_t *cursor; /* per queued set: its first run whose top is above y */
    uint64_t *key;    /*   and that run's start (see ff_settle) */
    uint32_t *ord;    /* the queued sets in the order ff_settle asks them */
    size_t nsets, sets_cap;
    iset scratch;     /* the partial buffers of the query's end blocks */
    ff_span *live[2]; /* scratch of ff_queue_partials: each end block's live spans */
    uint64_t work;
    bool oom;
} ff;

/* ---------------------------------------------------------- run sets */

/* First run whose top is >= v (len when none). */
static uint32_t iset_first_top_at_least(const iset *s, uint64_t v) {
    uint32_t lo = 0, hi = s->len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->r[2 * mid + 1] < v) lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Add [a, b) to the union; runs it overlaps or touches merge into one. */
static bool iset_add(iset *s, uint64_t a, uint64_t b) {
    uint32_t k = iset_first_top_at_least(s, a), e = k;
    while (e < s->len && s->r[2 * e] <= b) {
        a = MP_MIN(a, s->r[2 * e]);
        b = MP_MAX(b, s->r[2 * e + 1]);
        e++;
    }
    if (e == k) { /* a new run at k */
        if (s->len == s->cap) {
            if (s->cap > UINT32_MAX / 4) return false; /* beyond any real arena: as ENOMEM */
            uint32_t cap = s->cap ? 2 * s->cap : 2;
            uint64_t *r = realloc(s->r, (size_t)cap * 2 * sizeof *r);
            if (!r) return false;
            s->r = r;
            s->cap = cap;
        }
        memmove(&s->r[2 * k + 2], &s->r[2 * k], (size_t)(s->len - k) * 2 * sizeof *s->r);
        s->len++;
    } else if (e > k + 1) { /* runs k .. e-1 become one */
        memmove(&s->r[2 * k + 2], &s->r[2 * e], (size_t)(s->len - e) * 2 * sizeof *s->r);
        s->len -= e - k - 1;
    }
    s->r[2 * k] = a;
    s->r[2 * k + 1] = b;
    return true;
}

/* The first run at or after run k whose top is > y (len when none): a
 * gallop, then halving. Called with y only growing during a placement, so
 * a set is walked once per placement, not searched. */
static uint32_t iset_skip(const iset *s, uint32_t k, uint64_t y) {
    if (k >= s->len || s->r[2 * k + 1] > y) return k;
    uint32_t step = 1, lo = k + 1, hi;
    while (lo + step < s->len && s->r[2 * (lo + step) + 1] <= y) {
        lo += step;
        step *= 2;
    }
    hi = MP_MIN(s->len, lo + step);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->r[2 * mid + 1] <= y) lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The start of run k (UINT64_MAX past the last). */
static uint64_t iset_start(const iset *s, uint32_t k) { return k < s->len ? s->r[2 * k] : UINT64_MAX; }

/* -------------------------------------------------------------- index */

static void ff_free(ff *f) {
    for (size_t v = 0; f->c && v < 2 * f->leaves; v++) free(f->c[v].r);
    for (size_t v = 0; f->d && v < 2 * f->leaves; v++) free(f->d[v].r);
    free(f->c), free(f->d), free(f->stamp), free(f->lo), free(f->hi);
    free(f->part_at), free(f->pmask), free(f->pspan), free(f->pid), free(f->placed), free(f->part_pos), free(f->need_d);
    free(f->sets), free(f->cursor), free(f->key), free(f->ord), free(f->scratch.r);
    free(f->live[0]), free(f->live[1]);
}

bool mp_times_init(mp_times *t, const memplan_buffer *bufs, size_t n) {
    t->lo = mp_malloc_big((n ? n : 1) * sizeof *t->lo);
    t->hi = mp_malloc_big((n ? n : 1) * sizeof *t->hi);
    if (t->lo && t->hi && mp_time_ranks(bufs, n, t->lo, t->hi, &t->distinct)) return true;
    mp_times_free(t);
    return false;
}

void mp_times_free(mp_times *t) {
    free(t->lo), free(t->hi);
    t->lo = t->hi = NULL;
}

/* Elementary intervals of every buffer: [lo, hi], from the distinct times
 * (`times`, or made here when NULL). */
static bool ff_times(ff *f, const mp_times *times) {
    size_t u, n = f->in->n;
    if (times) {
        memcpy(f->lo, times->lo, n * sizeof *f->lo);
        memcpy(f->hi, times->hi, n * sizeof *f->hi);
    } else if (!mp_time_ranks(f->in->bufs, n, f->lo, f->hi, &u))
        return false;
    for (size_t i = 0; i < n; i++) f->hi[i]--; /* end > start: the last interval it covers */
    return true;
}

/* Leaf blocks of buffer i: [*la, *lb], full ones [*fa, *fb). */
static void ff_blocks(const ff *f, size_t i, size_t *la, size_t *lb, size_t *fa, size_t *fb) {
    *la = f->lo[i] / FF_BLOCK;
    *lb = f->hi[i] / FF_BLOCK;
    *fa = (f->lo[i] + FF_BLOCK - 1) / FF_BLOCK;
    *fb = (f->hi[i] + 1) / FF_BLOCK;
    if (*fb < *fa) *fb = *fa; /* inside one block, touching neither edge */
}

/* Whether buffer i is partial in its first block (*pa) and, when that is
 * another block, in its last (*pb): an entry in those blocks' lists. */
static void ff_partial_ends(const ff *f, size_t i, size_t *la, size_t *lb, bool *pa, bool *pb) {
    size_t fa, fb;
    ff_blocks(f, i, la, lb, &fa, &fb);
    *pa = *la < fa || *la >= fb;
    *pb = *lb != *la && (*lb < fa || *lb >= fb);
}

/* Buffer i's mask in leaf block p (see ff_mask). */
static ff_mask ff_block_mask(const ff *f, size_t i, size_t p) {
    size_t a = MP_MAX(f->lo[i], p * FF_BLOCK) - p * FF_BLOCK,
           b = MP_MIN(f->hi[i], p * FF_BLOCK + FF_BLOCK - 1) - p * FF_BLOCK;
    return (ff_mask)((((uint64_t)2 << (b - a)) - 1) << a); /* bits a..b (b - a < 64) */
}

/* The per-block lists of partial buffers (CSR, two passes). */
static bool ff_partials(ff *f) {
    size_t n = f->in->n, nb = f->leaves;
    f->part_at = calloc(nb + 1, sizeof *f->part_at);
    f->placed = calloc(nb, sizeof *f->placed);
    f->pmask = mp_malloc_big(2 * n * sizeof *f->pmask);
    f->pspan = mp_malloc_big(2 * n * sizeof *f->pspan);
    f->pid = mp_malloc_big(2 * n * sizeof *f->pid);
    f->part_pos = mp_malloc_big(2 * n * sizeof *f->part_pos);
    if (!f->part_at || !f->placed || !f->pmask || !f->pspan || !f->pid || !f->part_pos) return false;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            size_t la, lb;
            bool pa, pb;
            ff_partial_ends(f, i, &la, &lb, &pa, &pb);
            if (pass == 0) {
                f->part_at[la + 1] += pa;
                f->part_at[lb + 1] += pb;
            } else {
                f->part_pos[2 * i] = f->part_pos[2 * i + 1] = SIZE_MAX;
                if (pa) f->part_pos[2 * i] = f->part_at[la]++;
                if (pb) f->part_pos[2 * i + 1] = f->part_at[lb]++;
                for (int e = 0; e < 2; e++) {
                    size_t q = f->part_pos[2 * i + e];
                    if (q == SIZE_MAX) continue;
                    f->pmask[q] = ff_block_mask(f, i, e ? lb : la);
                    f->pid[q] = i;
                }
            }
        }
        if (pass == 0)
            for (size_t p = 0; p < nb; p++) f->part_at[p + 1] += f->part_at[p];
        else /* the fill moved each start to the next block's: shift back */
            for (size_t p = nb; p > 0; p--) f->part_at[p] = f->part_at[p - 1];
    }
    f->part_at[0] = 0;
    size_t most = 1; /* the scratch set holds the runs of two lists at most */
    for (size_t p = 0; p < nb; p++) most = MP_MAX(most, f->part_at[p + 1] - f->part_at[p]);
    if (most > UINT32_MAX / 2) return false; /* as iset_add's cap: beyond any real arena */
    f->scratch.cap = (uint32_t)(2 * most);
    f->scratch.r = malloc((size_t)f->scratch.cap * 2 * sizeof *f->scratch.r);
    f->live[0] = malloc((most + 1) * sizeof *f->live[0]); /* and a sentinel */
    f->live[1] = malloc((most + 1) * sizeof *f->live[1]);
    return f->scratch.r && f->live[0] && f->live[1];
}

bool mp_first_fit_lists(const mp_pack_input *in, const mp_times *times, size_t *most) {
    size_t n = in->n, cap = n ? n : 1;
    ff f = {.in = in};
    f.lo = mp_malloc_big(cap * sizeof *f.lo);
    f.hi = mp_malloc_big(cap * sizeof *f.hi);
    size_t *count = NULL, nb = 1;
    bool ok = f.lo && f.hi && ff_times(&f, times);
    for (size_t i = 0; ok && i < n; i++) nb = MP_MAX(nb, f.hi[i] / FF_BLOCK + 1);
    ok = ok && (count = calloc(nb, sizeof *count)) != NULL;
    *most = 0;
    for (size_t i = 0; ok && i < n; i++) {
        size_t la, lb;
        bool pa, pb;
        ff_partial_ends(&f, i, &la, &lb, &pa, &pb);
        if (pa) *most = MP_MAX(*most, ++count[la]);
        if (pb) *most = MP_MAX(*most, ++count[lb]);
    }
    free(count);
    free(f.lo);
    free(f.hi);
    return ok;
}

/* Mark the nodes of buffer i's canonical decomposition (its full blocks):
 * D is read only there (case (a)), so only there is it kept. */
static void ff_mark_canonical(ff *f, size_t i) {
    size_t la, lb, fa, fb;
    ff_blocks(f, i, &la, &lb, &fa, &fb);
    for (size_t l = fa + f->leaves, r = fb + f->leaves; l < r; l /= 2, r /= 2) {
        if (l & 1) f->need_d[l++] = 1;
        if (r & 1) f->need_d[--r] = 1;
    }
}

static bool ff_init(ff *f, const mp_pack_input *in, const mp_times *times) {
    size_t n = in->n;
    memset(f, 0, sizeof *f);
    f->in = in;
    f->lo = mp_malloc_big(n * sizeof *f->lo);
    f->hi = mp_malloc_big(n * sizeof *f->hi);
    if (!f->lo || !f->hi || !ff_times(f, times)) return false;
    size_t blocks = 1;
    for (size_t i = 0; i < n; i++) blocks = MP_MAX(blocks, f->hi[i] / FF_BLOCK + 1);
    f->leaves = 1;
    while (f->leaves < blocks) f->leaves *= 2;
    f->c = mp_calloc_big(2 * f->leaves, sizeof *f->c);
    f->d = mp_calloc_big(2 * f->leaves, sizeof *f->d);
    f->stamp = mp_calloc_big(2 * f->leaves, sizeof *f->stamp);
    f->need_d = mp_calloc_big(2 * f->leaves, sizeof *f->need_d);
    if (!f->need_d) return false;
    for (size_t i = 0; i < n; i++) ff_mark_canonical(f, i);
    f->sets_cap = 8;
    for (size_t l = f->leaves; l > 0; l /= 2) f->sets_cap += 8; /* ample: <= 6 per level */
    f->sets = malloc(f->sets_cap * sizeof *f->sets);
    f->cursor = malloc(f->sets_cap * sizeof *f->cursor);
    f->key = malloc(f->sets_cap * sizeof *f->key);
    f->ord = malloc(f->sets_cap * sizeof *f->ord);
    return f->c && f->d && f->stamp && f->sets && f->cursor && f->key && f->ord && ff_partials(f);
}

/* ------------------------------------------------------------ queries */

/* Queue a non-empty set (at most 2 per tree level per kind: sets_cap). */
static void ff_push(ff *f, iset *s) {
    if (s->len && f->nsets < f->sets_cap) f->sets[f->nsets++] = s;
}

/* Queue C(u) for node v's strict ancestors not yet visited by this op. */
static void ff_queue_ancestors(ff *f, size_t v) {
    for (v /= 2; v >= 1 && f->stamp[v] != f->op; v /= 2) {
        f->stamp[v] = f->op;
        ff_push(f, &f->c[v]);
    }
}

/* Queue the sets of cases (a) and (b) for buffer i (see the header). */
static void ff_queue(ff *f, size_t i) {
    size_t la, lb, fa, fb;
    ff_blocks(f, i, &la, &lb, &fa, &fb);
    f->op++;
    f->nsets = 0;
    for (size_t l = fa + f->leaves, r = fb + f->leaves; l < r; l /= 2, r /= 2) {
        if (l & 1) {
            ff_push(f, &f->d[l]);
            ff_queue_ancestors(f, l++);
        }
        if (r & 1) {
            ff_push(f, &f->d[--r]);
            ff_queue_ancestors(f, r);
        }
    }
    for (size_t p = la; p <= lb; p += lb > la ? lb - la : 1) /* la, then lb if other */
        if (p < fa || p >= fb) {
            ff_push(f, &f->c[p + f->leaves]);
            ff_queue_ancestors(f, p + f->leaves);
        }
}

/* The address ranges of the placed entries of block p's list whose masks
 * meet m, in offset order, to out; returns how many. The scan reads every
 * placed entry (one step of work an entry, and one more), without a branch on
 * the masks. */
static size_t ff_live_spans(ff *f, size_t p, ff_mask m, ff_span *restrict out) {
    const ff_mask *restrict pm = f->pmask;
    const ff_span *restrict sp = f->pspan;
    size_t first = f->part_at[p], end = first + f->placed[p], n = 0;
    for (size_t e = first; e < end; e++) {
        out[n] = sp[e];
        n += (pm[e] & m) != 0;
    }
    f->work += end - first + 1;
    return n;
}

/* Case (c): the placed buffers partial in buffer i's (one or two) partial
 * blocks and live with it, as the runs of the scratch set, queued. Each
 * block lists its placed buffers by offset (ff_insert), so the two lists
 * merge in one pass. */
static void ff_queue_partials(ff *f, size_t i) {
    size_t la, lb, fa, fb, n[2] = {0, 0};
    ff_blocks(f, i, &la, &lb, &fa, &fb);
    for (size_t p = la, q = 0; p <= lb; p += lb > la ? lb - la : 1, q++) /* la, then lb if other */
        if (p < fa || p >= fb) n[q] = ff_live_spans(f, p, ff_block_mask(f, i, p), f->live[q]);
    /* Merged by offset into runs, without a branch on the data: each list
     * ends in a sentinel above every offset, and a span either starts a
     * new run or extends the last one (both written the same way). */
    const ff_span *a = f->live[0], *b = f->live[1];
    f->live[0][n[0]] = f->live[1][n[1]] = (ff_span){UINT64_MAX, UINT64_MAX};
    uint64_t *r = f->scratch.r, start = 0, top = 0;
    size_t len = 0;
    for (size_t k = 0; k < n[0] + n[1]; k++) {
        bool take_b = b->off < a->off;
        const ff_span *next = take_b ? b : a;
        b += take_b, a += !take_b;
        bool fresh = len == 0 || next->off > top;
        start = fresh ? next->off : start;
        top = fresh ? next->top : MP_MAX(top, next->top);
        len += fresh;
        r[2 * len - 2] = start;
        r[2 * len - 1] = top;
    }
    f->scratch.len = (uint32_t)len;
    ff_push(f, &f->scratch);
    for (size_t k = 0; k < f->nsets; k++) {
        f->cursor[k] = 0;
        f->key[k] = f->sets[k]->r[0];
        f->ord[k] = (uint32_t)k;
    }
}

/* The lowest y' >= y with [y', y' + h) clear of every queued set. Each
 * set's cursor is at its first run whose top was above y when the set was
 * last looked at, and its key is that run's start. The set of the lowest
 * key is taken: a key at or above y + h means every set is clear; a run
 * wholly below y (stale since y rose) moves the cursor up to y; a run that
 * overlaps [y, y + h) forces every feasible offset to its top, so y goes
 * there. Each step passes a run or ends, and only sets whose next run
 * starts below y + h are touched: the rest keep their place, however many
 * times y moves. The result is the exact lowest fit either way; the
 * cursors only move up, so a placement may settle at a y, then again from
 * a higher one. */
static uint64_t ff_settle(ff *f, uint64_t y, uint64_t h) {
    size_t items = f->nsets;
    uint64_t *key = f->key;
    uint32_t *ord = f->ord;
    for (size_t i = 0, calm = 0; calm < items; i = i + 1 < items ? i + 1 : 0) {
        size_t k = ord[i];
        if (key[k] >= y + h) { /* its next run starts past the fit: clear */
            calm++;
            continue;
        }
        f->work++;
        const iset *s = f->sets[k];
        uint32_t at = iset_skip(s, f->cursor[k], y);
        uint64_t ny = y;
        for (; at < s->len && s->r[2 * at] < ny + h; at++) ny = s->r[2 * at + 1]; /* the next run may overlap too */
        f->cursor[k] = at;
        key[k] = iset_start(s, at);
        if (ny == y) {
            calm++;
            continue;
        }
        y = ny; /* the blocker goes first: the next blocker is likely one of the last few */
        memmove(&ord[1], &ord[0], i * sizeof *ord);
        ord[0] = (uint32_t)k;
        i = 0;
        calm = 1;
    }
    return y;
}

/* After ff_settle returned y, the end of the free hole that starts at y:
 * every key is then above y + h, so each set's cursor is at its first run
 * above y, and the lowest key is the lowest of those runs' starts.
 * UINT64_MAX when no run lies above y: y is the top of everything live
 * with the buffer. */
static uint64_t ff_hole_end(ff *f) {
    uint64_t end = UINT64_MAX;
    for (size_t k = 0; k < f->nsets; k++) end = MP_MIN(end, f->key[k]);
    f->work += f->nsets;
    return end;
}

/* Best fit for h bytes: the smallest hole of the queued sets' union that
 * holds h (the lowest of equal ones), else the union's top. The union of
 * the sets is the union of the live placed buffers' address ranges, so its
 * holes are exactly the gaps the plain rule finds between the running
 * highest end and the next buffer in address order. The holes of h bytes
 * or more are visited bottom up, settling past each; an exact fit ends the
 * walk (nothing smaller, nothing lower of that size). */
static uint64_t ff_best(ff *f, uint64_t h) {
    uint64_t y = ff_settle(f, 0, h), best = UINT64_MAX, at = 0;
    for (uint64_t end; best != h && (end = ff_hole_end(f)) != UINT64_MAX; y = ff_settle(f, end, h))
        if (end - y < best) {
            best = end - y;
            at = y;
        }
    return best == UINT64_MAX ? y : at;
}

/* Add [y, y + h) to D of node v and of its ancestors not yet visited by
 * this operation. */
static void ff_add_up(ff *f, size_t v, uint64_t y, uint64_t h) {
    for (; v >= 1 && f->stamp[v] != f->op; v /= 2) {
        f->stamp[v] = f->op;
        if (f->need_d[v] && !iset_add(&f->d[v], y, y + h)) f->oom = true;
    }
}

/* Buffer i, placed at [y, top), joins the placed prefix of block p's list
 * at its offset's rank. Its entry is at q, past the prefix: the first
 * unplaced entry trades places with it (its owner's part_pos follows), then
 * the entry sinks to its rank (the placed entries' owners no longer need
 * theirs). */
static void ff_list_placed(ff *f, size_t p, size_t q, uint64_t y, uint64_t top) {
    size_t first = f->part_at[p], at = first + f->placed[p]++;
    ff_mask m = f->pmask[q];
    if (q != at) {
        size_t j = f->pid[at];
        f->part_pos[f->part_pos[2 * j] == at ? 2 * j : 2 * j + 1] = q;
        f->pmask[q] = f->pmask[at];
        f->pid[q] = j;
    }
    for (; at > first && f->pspan[at - 1].off > y; at--) {
        f->pmask[at] = f->pmask[at - 1];
        f->pspan[at] = f->pspan[at - 1];
    }
    f->pmask[at] = m;
    f->pspan[at] = (ff_span){y, top};
    f->work += f->placed[p];
}

/* Record buffer i at [y, y + h): C and D of its canonical nodes, D of
 * their ancestors, of its partial blocks and of theirs -- every node whose
 * subtree holds something of i. */
static void ff_insert(ff *f, size_t i, uint64_t y, uint64_t h) {
    size_t la, lb, fa, fb;
    ff_blocks(f, i, &la, &lb, &fa, &fb);
    f->op++;
    for (size_t l = fa + f->leaves, r = fb + f->leaves; l < r; l /= 2, r /= 2) {
        if (l & 1) {
            if (!iset_add(&f->c[l], y, y + h)) f->oom = true;
            ff_add_up(f, l++, y, h);
        }
        if (r & 1) {
            if (!iset_add(&f->c[--r], y, y + h)) f->oom = true;
            ff_add_up(f, r, y, h);
        }
    }
    for (size_t p = la; p <= lb; p += lb > la ? lb - la : 1)
        if (p < fa || p >= fb) ff_add_up(f, p + f->leaves, y, h);
    for (int e = 0; e < 2; e++) /* entry 0 is in block la's list, 1 in lb's */
        if (f->part_pos[2 * i + e] != SIZE_MAX) ff_list_placed(f, e ? lb : la, f->part_pos[2 * i + e], y, y + h);
    f->work += f->nsets + 1;
}

/* Place the buffers in order, each at its first fit or its best fit; the
 * first `pinned` of the order stay at their offsets in off[] (they must not
 * overlap one another). */
static bool ff_place(const mp_pack_input *in, const mp_times *times, const size_t *order, size_t pinned, bool best,
                     uint64_t *off, uint64_t *height, uint64_t *work) {
    *height = 0;
    if (in->n == 0) return true;
    ff f;
    bool ok = ff_init(&f, in, times);
    for (size_t k = 0; ok && k < in->n; k++) {
        size_t i = order[k];
        uint64_t h = in->size[i];
        if (h == 0) { /* conflicts with nothing */
            off[i] = 0;
            continue;
        }
        if (k >= pinned) {
            ff_queue(&f, i);
            ff_queue_partials(&f, i);
            off[i] = best ? ff_best(&f, h) : ff_settle(&f, 0, h);
        }
        if (!f.oom) ff_insert(&f, i, off[i], h);
        ok = !f.oom;
        *height = MP_MAX(*height, off[i] + h);
    }
    *work += f.work;
    ff_free(&f);
    return ok;
}

bool mp_first_fit(const mp_pack_input *in, const mp_times *times, const size_t *order, uint64_t *off, uint64_t *height,
                  uint64_t *work) {
    return ff_place(in, times, order, 0, false, off, height, work);
}

bool mp_first_fit_around(const mp_pack_input *in, const mp_times *times, const size_t *order, size_t pinned,
                         uint64_t *off, uint64_t *height, uint64_t *work) {
    return ff_place(in, times, order, pinned, false, off, height, work);
}

bool mp_best_fit(const mp_pack_input *in, const size_t *order, uint64_t *off, uint64_t *height, uint64_t *work) {
    return ff_place(in, NULL, order, 0, true, off, height, work);
}
