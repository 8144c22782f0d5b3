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
 * are gathered into a scratch set first) that overlaps [y, y + size)
 * forces every feasible offset to its top, so y jumps there; the sets are
 * visited round-robin, each from a cursor that only moves up, until a whole
 * round has no jump. On a well packed arena the sets are nearly solid (few
 * holes), so runs are few. Nothing here counts time: the result is a
 * function of the input and the order only.
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
 * Cost (bench_pack --random, ~290 buffers live at a time; measured
 * 2026-12-02 at load ~1 on the 2-core machine, CPU time of the whole bench
 * row: set made, bound, time-fit and this first fit): 0.78 s at 100k
 * buffers (7.8 us per buffer), 9.7 s at 1M (9.7 us), nearly flat in n
 * (wall time at load ~4: 1.7 s and 16 s) -- O(n log n) in the index, but
 * the round-robin's jumps grow with how many small holes lie below a
 * buffer's final offset, which is what time-ordered fits avoid and why
 * time-fit still runs first on models.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/pack_internal.h"

/* Elementary intervals per leaf block: the per-block lists scanned in (c)
 * hold about 2B buffers, the tree has 2n/B leaves. 16: since the lists
 * hold their entries inline, 16 and 32 cost about the same instructions as
 * 8 at 30k buffers (callgrind) with half and a fifth of its cache misses;
 * 32 scans more. */
#define FF_BLOCK 16u

typedef struct iset { /* disjoint, non-adjacent runs [r[2k], r[2k+1]), ascending */
    uint64_t *r;
    uint32_t len, cap;
} iset;

/* A buffer partial in a leaf block, as that block's list holds it: its
 * span and, once placed, its address range (top 0 before, or when its size
 * is 0). Kept inline so a query's scan of the list reads it in order
 * instead of four per-buffer arrays at random. */
typedef struct ff_part {
    size_t lo, hi;     /* first and last elementary interval */
    uint64_t off, top; /* [off, top) once placed */
} ff_part;

typedef struct ff {
    const mp_pack_input *in;
    size_t leaves;    /* power of two >= number of blocks */
    iset *c, *d;      /* per node, 1-based (node 1 is the root) */
    uint64_t *stamp;  /* per node: last operation that visited it */
    uint64_t op;      /* operation counter for stamp */
    size_t *lo, *hi;  /* per buffer: first and last elementary interval */
    size_t *part_at;  /* CSR: buffers partial in block p are */
    ff_part *part;    /*   part[part_at[p] .. part_at[p + 1]) */
    size_t *part_pos; /* per buffer: its two entries in part (SIZE_MAX: none) */
    iset **sets;      /* the query's sets */
    uint32_t *cursor; /* per queued set: see iset_clear */
    size_t nsets, sets_cap;
    iset scratch[2]; /* the partial buffers of the query's end blocks */
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

/* The lowest y' >= y with [y', y' + h) clear of every run. *at is a
 * cursor, a run index below which every top is <= y: y only grows during
 * a placement, so each set is walked once per placement, not searched. */
static uint64_t iset_clear(const iset *s, uint32_t *at, uint64_t y, uint64_t h) {
    uint32_t k = *at;
    if (k < s->len && s->r[2 * k + 1] <= y) { /* gallop, then halve: the first top > y */
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
        k = lo;
    }
    for (; k < s->len && s->r[2 * k] < y + h; k++) y = s->r[2 * k + 1]; /* the next run may overlap too */
    *at = k;
    return y;
}

/* -------------------------------------------------------------- index */

static void ff_free(ff *f) {
    for (size_t v = 0; f->c && v < 2 * f->leaves; v++) free(f->c[v].r);
    for (size_t v = 0; f->d && v < 2 * f->leaves; v++) free(f->d[v].r);
    free(f->c), free(f->d), free(f->stamp), free(f->lo), free(f->hi);
    free(f->part_at), free(f->part), free(f->part_pos), free(f->sets), free(f->cursor);
    free(f->scratch[0].r), free(f->scratch[1].r);
}

/* Elementary intervals of every buffer, from the distinct times. */
static bool ff_times(ff *f) {
    const mp_pack_input *in = f->in;
    size_t n = in->n, nt = 0;
    int64_t *t = malloc(2 * n * sizeof *t);
    if (!t) return false;
    for (size_t i = 0; i < n; i++) {
        t[nt++] = in->bufs[i].start;
        t[nt++] = in->bufs[i].end;
    }
    /* times are >= 0, so their uint64_t view (an allowed alias) sorts alike */
    bool ok = mp_radix_sort((uint64_t *)t, NULL, nt);
    size_t u = 0;
    for (size_t k = 0; ok && k < nt; k++)
        if (u == 0 || t[u - 1] != t[k]) t[u++] = t[k];
    for (size_t i = 0; ok && i < n; i++) {
        f->lo[i] = mp_first_at_least(t, u, in->bufs[i].start);
        f->hi[i] = mp_first_at_least(t, u, in->bufs[i].end) - 1; /* end > start */
    }
    free(t);
    return ok;
}

/* Leaf blocks of buffer i: [*la, *lb], full ones [*fa, *fb). */
static void ff_blocks(const ff *f, size_t i, size_t *la, size_t *lb, size_t *fa, size_t *fb) {
    *la = f->lo[i] / FF_BLOCK;
    *lb = f->hi[i] / FF_BLOCK;
    *fa = (f->lo[i] + FF_BLOCK - 1) / FF_BLOCK;
    *fb = (f->hi[i] + 1) / FF_BLOCK;
    if (*fb < *fa) *fb = *fa; /* inside one block, touching neither edge */
}

/* The per-block lists of partial buffers (CSR, two passes). */
static bool ff_partials(ff *f) {
    size_t n = f->in->n, nb = f->leaves;
    f->part_at = calloc(nb + 1, sizeof *f->part_at);
    f->part = malloc(2 * n * sizeof *f->part);
    f->part_pos = malloc(2 * n * sizeof *f->part_pos);
    if (!f->part_at || !f->part || !f->part_pos) return false;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            size_t la, lb, fa, fb;
            ff_blocks(f, i, &la, &lb, &fa, &fb);
            bool pa = la < fa || la >= fb, pb = lb != la && (lb < fa || lb >= fb);
            if (pass == 0) {
                f->part_at[la + 1] += pa;
                f->part_at[lb + 1] += pb;
            } else {
                f->part_pos[2 * i] = f->part_pos[2 * i + 1] = SIZE_MAX;
                if (pa) f->part_pos[2 * i] = f->part_at[la]++;
                if (pb) f->part_pos[2 * i + 1] = f->part_at[lb]++;
                for (int e = 0; e < 2; e++)
                    if (f->part_pos[2 * i + e] != SIZE_MAX)
                        f->part[f->part_pos[2 * i + e]] = (ff_part){f->lo[i], f->hi[i], 0, 0};
            }
        }
        if (pass == 0)
            for (size_t p = 0; p < nb; p++) f->part_at[p + 1] += f->part_at[p];
        else /* the fill moved each start to the next block's: shift back */
            for (size_t p = nb; p > 0; p--) f->part_at[p] = f->part_at[p - 1];
    }
    f->part_at[0] = 0;
    return true;
}

static bool ff_init(ff *f, const mp_pack_input *in) {
    size_t n = in->n;
    memset(f, 0, sizeof *f);
    f->in = in;
    f->lo = malloc(n * sizeof *f->lo);
    f->hi = malloc(n * sizeof *f->hi);
    if (!f->lo || !f->hi || !ff_times(f)) return false;
    size_t blocks = 1;
    for (size_t i = 0; i < n; i++) blocks = MP_MAX(blocks, f->hi[i] / FF_BLOCK + 1);
    f->leaves = 1;
    while (f->leaves < blocks) f->leaves *= 2;
    f->c = calloc(2 * f->leaves, sizeof *f->c);
    f->d = calloc(2 * f->leaves, sizeof *f->d);
    f->stamp = calloc(2 * f->leaves, sizeof *f->stamp);
    f->sets_cap = 8;
    for (size_t l = f->leaves; l > 0; l /= 2) f->sets_cap += 8; /* ample: <= 6 per level */
    f->sets = malloc(f->sets_cap * sizeof *f->sets);
    f->cursor = malloc(f->sets_cap * sizeof *f->cursor);
    return f->c && f->d && f->stamp && f->sets && f->cursor && ff_partials(f);
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

/* Case (c): the placed buffers partial in block p and live with i, as the
 * runs of the scratch set *out (few: about 2 x FF_BLOCK are listed). */
static bool ff_partials_set(ff *f, size_t i, size_t p, iset *out) {
    size_t lo = f->lo[i], hi = f->hi[i];
    out->len = 0;
    for (const ff_part *e = &f->part[f->part_at[p]], *end = &f->part[f->part_at[p + 1]]; e < end; e++) {
        f->work++;
        if (e->top && e->lo <= hi && e->hi >= lo && !iset_add(out, e->off, e->top)) return false;
    }
    return true;
}

/* Queue the scratch sets of case (c): the placed buffers partial in buffer
 * i's (one or two) partial blocks and live with it. */
static void ff_queue_partials(ff *f, size_t i) {
    size_t la, lb, fa, fb;
    ff_blocks(f, i, &la, &lb, &fa, &fb);
    for (size_t p = la, q = 0; p <= lb; p += lb > la ? lb - la : 1, q++) /* la, then lb if other */
        if (p < fa || p >= fb) {
            if (!ff_partials_set(f, i, p, &f->scratch[q])) f->oom = true;
            ff_push(f, &f->scratch[q]);
        }
    memset(f->cursor, 0, f->nsets * sizeof *f->cursor);
}

/* The lowest y' >= y with [y', y' + h) clear of every queued set: the
 * round-robin of the header. Each set returns the lowest position at or
 * above y that it leaves clear; after a move the others must be asked
 * again, until a whole round agrees. The cursors only move up, so a
 * placement may settle at a y, then again from a higher one. */
static uint64_t ff_settle(ff *f, uint64_t y, uint64_t h) {
    size_t items = f->nsets;
    for (size_t k = 0, calm = 0; calm < items; k = k + 1 < items ? k + 1 : 0) {
        f->work++;
        uint64_t ny = iset_clear(f->sets[k], &f->cursor[k], y, h);
        calm = ny == y ? calm + 1 : 1;
        y = ny;
    }
    return y;
}

/* After ff_settle returned y, the end of the free hole that starts at y:
 * every set's cursor is at its first run above y (iset_clear), so the
 * lowest of those runs' starts. UINT64_MAX when no run lies above y: y is
 * the top of everything live with the buffer. */
static uint64_t ff_hole_end(ff *f) {
    uint64_t end = UINT64_MAX;
    for (size_t k = 0; k < f->nsets; k++) {
        const iset *s = f->sets[k];
        if (f->cursor[k] < s->len) end = MP_MIN(end, s->r[2 * f->cursor[k]]);
    }
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
        if (!iset_add(&f->d[v], y, y + h)) f->oom = true;
    }
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
    for (int e = 0; e < 2; e++)
        if (f->part_pos[2 * i + e] != SIZE_MAX) {
            f->part[f->part_pos[2 * i + e]].off = y;
            f->part[f->part_pos[2 * i + e]].top = y + h;
        }
    f->work += f->nsets + 1;
}

/* Place the buffers in order, each at its first fit or its best fit. */
static bool ff_place(const mp_pack_input *in, const size_t *order, bool best, uint64_t *off, uint64_t *height,
                     uint64_t *work) {
    *height = 0;
    if (in->n == 0) return true;
    ff f;
    bool ok = ff_init(&f, in);
    for (size_t k = 0; ok && k < in->n; k++) {
        size_t i = order[k];
        uint64_t h = in->size[i];
        off[i] = 0;
        if (h == 0) continue; /* conflicts with nothing */
        ff_queue(&f, i);
        ff_queue_partials(&f, i);
        off[i] = best ? ff_best(&f, h) : ff_settle(&f, 0, h);
        if (!f.oom) ff_insert(&f, i, off[i], h);
        ok = !f.oom;
        *height = MP_MAX(*height, off[i] + h);
    }
    *work += f.work;
    ff_free(&f);
    return ok;
}

bool mp_first_fit(const mp_pack_input *in, const size_t *order, uint64_t *off, uint64_t *height, uint64_t *work) {
    return ff_place(in, order, false, off, height, work);
}

bool mp_best_fit(const mp_pack_input *in, const size_t *order, uint64_t *off, uint64_t *height, uint64_t *work) {
    return ff_place(in, order, true, off, height, work);
}
