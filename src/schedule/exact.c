/*
 * exact.c -- the least peak, segment by segment.
 *
 * Cut steps. A step c that every other step either precedes or follows
 * splits every order the same way: its ancestors, c, its descendants. In step
 * numbering (topological) that is a step no edge jumps over, with every step
 * before it having a successor and every step after it a predecessor; and
 * since a reader depends on its definer, the only buffers live across a cut
 * are c's own, graph outputs and graph inputs. So the steps between two cuts
 * form a segment that can be ordered on its own: its buffers are those it
 * defines (living to its end when read later), those defined before and
 * read in it (live from its start), and a background of bytes live all
 * through it whatever the order. The peak of the whole is the largest of
 * background + segment peak, and the segments' best orders concatenated are
 * the best order.
 *
 * In each segment: the best of the candidate orders (the heuristics',
 * restricted to it), then, for a segment of at most 64 steps, a dynamic
 * program over downsets: a state is the set of steps run (the live bytes
 * follow from it), levels by size, each state kept with the least peak that
 * reaches it; children whose peak is not below the best candidate's are
 * pruned. When the program ends with no state, the candidate is optimal;
 * when its work runs out, the candidate stays (not proven).
 */
#include <stdlib.h>
#include <string.h>

#include "schedule/sched_internal.h"

#define DP_MAX_STEPS 64
#define DP_MAX_STATES ((size_t)1 << 22) /* all levels: 128 MiB of states at most */

static memplan_status oom(memplan_error *err) { return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory"); }

/* ---- segments ------------------------------------------------------------ */

/* seg_end[k]: the last step of segment k; returns the number of segments. */
static int32_t find_segments(const mp_sched *s, int32_t *seg_end, int32_t *cross) {
    int32_t n = s->n, nseg = 0;
    memset(cross, 0, ((size_t)n + 1) * sizeof *cross);
    for (int32_t v = 0; v < n; v++)
        for (int32_t i = s->succ_start[v]; i < s->succ_start[v + 1]; i++)
            if (s->succ[i] > v + 1) cross[v + 1]++, cross[s->succ[i]]--;
    /* after[c]: every step after c has a predecessor */
    bool before_ok = true;           /* every step before c has a successor */
    int32_t first_orphan_after = -1; /* the last step > 0 without a predecessor */
    for (int32_t v = n - 1; v > 0 && first_orphan_after < 0; v--)
        if (s->pred_start[v + 1] == s->pred_start[v]) first_orphan_after = v;
    int32_t run = 0;
    for (int32_t c = 0; c < n; c++) {
        run += cross[c];
        bool after_ok = first_orphan_after <= c;
        if (run == 0 && before_ok && after_ok) seg_end[nseg++] = c;
        if (s->succ_start[c + 1] == s->succ_start[c]) before_ok = false;
    }
    if (nseg == 0 || seg_end[nseg - 1] != n - 1) seg_end[nseg++] = n - 1;
    return nseg;
}

/* The problem of one segment [a, b], in local step numbers. */
typedef struct segprob {
    memplan_sched_problem p;
    int32_t *pred_start, *pred, *use_start, *use, *def;
    uint64_t *bytes;
    uint8_t *to_end;
    uint64_t background;
} segprob;

static void segprob_free(segprob *q) {
    free(q->pred_start), free(q->pred), free(q->use_start), free(q->use), free(q->def);
    free(q->bytes), free(q->to_end);
    memset(q, 0, sizeof *q);
}

/* Which segments each buffer touches. */
typedef struct segmap {
    int32_t nseg;
    const int32_t *seg_end;
    int32_t *seg_of;        /* per step */
    int32_t *first, *last;  /* per buffer: defining segment, last segment it is live in */
    int32_t *bk_start, *bk; /* per segment: buffers defined or last live in it */
    uint64_t *background;   /* per segment */
} segmap;

static int32_t seg_start(const segmap *m, int32_t k) { return k ? m->seg_end[k - 1] + 1 : 0; }

static bool segmap_build(const mp_sched *s, segmap *m) {
    int32_t n = s->n, nb = s->nb, K = m->nseg;
    m->seg_of = malloc(((size_t)n + 1) * sizeof *m->seg_of);
    m->first = malloc(((size_t)nb + 1) * sizeof *m->first);
    m->last = malloc(((size_t)nb + 1) * sizeof *m->last);
    m->bk_start = calloc((size_t)K + 1, sizeof *m->bk_start);
    m->bk = malloc((2 * (size_t)nb + 1) * sizeof *m->bk);
    m->background = calloc((size_t)K + 1, sizeof *m->background);
    if (!m->seg_of || !m->first || !m->last || !m->bk_start || !m->bk || !m->background) return false;
    for (int32_t k = 0, v = 0; k < K; k++)
        for (; v <= m->seg_end[k]; v++) m->seg_of[v] = k;
    for (int32_t b = 0; b < nb; b++) {
        int32_t f = s->def[b] >= 0 ? m->seg_of[s->def[b]] : 0, l = f;
        if (s->nuse[b]) { /* readers ascending: the last is in the last segment */
            int32_t r = m->seg_of[s->use[s->use_start[b + 1] - 1]];
            if (r > l) l = r;
        }
        if (s->to_end[b]) l = K - 1;
        m->first[b] = f;
        m->last[b] = l;
        m->bk_start[f + 1]++;
        if (l != f) m->bk_start[l + 1]++;
        if (l > f + 1) { /* live all through f+1 .. l-1: a difference array (wrapping adds cancel) */
            m->background[f + 1] += s->bytes[b];
            m->background[l] -= s->bytes[b];
        }
    }
    for (int32_t k = 0; k < K; k++) m->bk_start[k + 1] += m->bk_start[k];
    for (int32_t k = 1; k < K; k++) m->background[k] += m->background[k - 1];
    int32_t *fill = malloc(((size_t)K + 1) * sizeof *fill);
    if (!fill) return false;
    memcpy(fill, m->bk_start, ((size_t)K + 1) * sizeof *fill);
    for (int32_t b = 0; b < nb; b++) {
        m->bk[fill[m->first[b]]++] = b;
        if (m->last[b] != m->first[b]) m->bk[fill[m->last[b]]++] = b;
    }
    free(fill);
    return true;
}

static void segmap_free(segmap *m) {
    free(m->seg_of), free(m->first), free(m->last), free(m->bk_start), free(m->bk), free(m->background);
}

static bool segprob_build(const mp_sched *s, const segmap *m, int32_t k, segprob *q) {
    memset(q, 0, sizeof *q);
    int32_t a = seg_start(m, k), b = m->seg_end[k], len = b - a + 1;
    int32_t nbk = m->bk_start[k + 1] - m->bk_start[k];
    size_t np = (size_t)(s->pred_start[b + 1] - s->pred_start[a]), nu = 0;
    for (int32_t i = m->bk_start[k]; i < m->bk_start[k + 1]; i++) nu += (size_t)s->nuse[m->bk[i]];
    q->pred_start = malloc(((size_t)len + 1) * sizeof *q->pred_start);
    q->pred = malloc((np + 1) * sizeof *q->pred);
    q->use_start = malloc(((size_t)nbk + 1) * sizeof *q->use_start);
    q->use = malloc((nu + 1) * sizeof *q->use);
    q->def = malloc(((size_t)nbk + 1) * sizeof *q->def);
    q->bytes = malloc(((size_t)nbk + 1) * sizeof *q->bytes);
    q->to_end = malloc((size_t)nbk + 1);
    if (!q->pred_start || !q->pred || !q->use_start || !q->use || !q->def || !q->bytes || !q->to_end) return false;
    int32_t e = 0;
    for (int32_t v = a; v <= b; v++) {
        q->pred_start[v - a] = e;
        for (int32_t i = s->pred_start[v]; i < s->pred_start[v + 1]; i++)
            if (s->pred[i] >= a) q->pred[e++] = s->pred[i] - a;
    }
    q->pred_start[len] = e;
    int32_t u = 0;
    for (int32_t j = 0; j < nbk; j++) {
        int32_t g = m->bk[m->bk_start[k] + j];
        bool defined_here = m->first[g] == k;
        q->bytes[j] = s->bytes[g];
        q->def[j] = defined_here && s->def[g] >= 0 ? s->def[g] - a : -1;
        q->to_end[j] = (defined_here && m->last[g] > k) || (s->to_end[g] && k == m->nseg - 1);
        q->use_start[j] = u;
        for (int32_t i = s->use_start[g]; i < s->use_start[g + 1]; i++)
            if (s->use[i] >= a && s->use[i] <= b) q->use[u++] = s->use[i] - a;
    }
    q->use_start[nbk] = u;
    q->background = m->background[k];
    q->p = (memplan_sched_problem){.n_steps = len,
                                   .pred_start = q->pred_start,
                                   .pred = q->pred,
                                   .n_buffers = nbk,
                                   .bytes = q->bytes,
                                   .def = q->def,
                                   .to_end = q->to_end,
                                   .use_start = q->use_start,
                                   .use = q->use,
                                   .transient = s->trans + a};
    return true;
}

/* ---- the dynamic program ------------------------------------------------- */

typedef struct dstate {
    uint64_t mask, live, peak;
    int32_t parent; /* index in the previous level */
    int32_t step;
} dstate;

static int cmp_dstate(const void *x, const void *y) {
    const dstate *a = x, *b = y;
    if (a->mask != b->mask) return a->mask < b->mask ? -1 : 1;
    if (a->peak != b->peak) return a->peak < b->peak ? -1 : 1;
    if (a->parent != b->parent) return a->parent < b->parent ? -1 : 1;
    return (a->step > b->step) - (a->step < b->step);
}

static int ilog2(size_t c) {
    int k = 0;
    while (c >>= 1) k++;
    return k;
}

/* Live bytes after step v joins the set `mask`. */
static uint64_t dp_live_after(const mp_sched *s, const uint64_t *usemask, const dstate *st, int32_t v) {
    uint64_t after = st->mask | (UINT64_C(1) << v), freed = st->mask ? 0 : s->base_dead;
    for (int32_t i = s->rd_start[v]; i < s->rd_start[v + 1]; i++) {
        int32_t b = s->rd[i];
        if (!s->to_end[b] && !(usemask[b] & ~after)) freed += s->bytes[b];
    }
    for (int32_t i = s->def_start[v]; i < s->def_start[v + 1]; i++) {
        int32_t b = s->defs[i];
        if (!s->nuse[b] && !s->to_end[b]) freed += s->bytes[b];
    }
    return st->live + s->alloc[v] - freed;
}

typedef struct dp {
    dstate **lvl;
    size_t *cnt;
    uint64_t *predmask, *usemask;
} dp;

static void dp_free(dp *d, int32_t n) {
    for (int32_t i = 0; d->lvl && i <= n; i++) free(d->lvl[i]);
    free(d->lvl), free(d->cnt), free(d->predmask), free(d->usemask);
}

/* Levels 1..n from level 0; false when the work runs out or memory does
 * (*nomem). A level left empty means nothing beats ub. */
static bool dp_levels(const mp_sched *s, dp *d, uint64_t ub, uint64_t *work, bool *nomem) {
    int32_t n = s->n;
    size_t total = 1;
    for (int32_t L = 0; L < n; L++) {
        size_t cap = d->cnt[L] * (size_t)n, c = 0;
        uint64_t need = 2 * (uint64_t)cap;
        if (*work < need || total + cap > DP_MAX_STATES) return false;
        *work -= need;
        dstate *next = malloc((cap ? cap : 1) * sizeof *next);
        if (!next) return !(*nomem = true);
        for (size_t i = 0; i < d->cnt[L]; i++) {
            const dstate *st = &d->lvl[L][i];
            for (int32_t v = 0; v < n; v++) {
                uint64_t bit = UINT64_C(1) << v;
                if ((st->mask & bit) || (d->predmask[v] & ~st->mask)) continue;
                uint64_t at = st->live + s->alloc[v] + s->trans[v], peak = at > st->peak ? at : st->peak;
                if (peak >= ub) continue;
                next[c++] = (dstate){st->mask | bit, dp_live_after(s, d->usemask, st, v), peak, (int32_t)i, v};
            }
        }
        qsort(next, c, sizeof *next, cmp_dstate);
        uint64_t sort = (uint64_t)c * (uint64_t)(ilog2(c) + 1) * 4; /* comparisons and moves */
        *work -= sort < *work ? sort : *work;
        size_t w = 0; /* one state per set: the first after sorting has the least peak */
        for (size_t i = 0; i < c; i++)
            if (!w || next[w - 1].mask != next[i].mask) next[w++] = next[i];
        d->lvl[L + 1] = next;
        d->cnt[L + 1] = w;
        total += w;
        if (!w) return true;
    }
    return true;
}

/* An order of s's steps with a peak below ub in order (*found), or proof
 * there is none; false when the work ran out. */
static memplan_status dp_solve(const mp_sched *s, uint64_t ub, uint64_t *work, int32_t *order, bool *found, bool *done,
                               memplan_error *err) {
    int32_t n = s->n;
    *found = *done = false;
    dp d = {calloc((size_t)n + 1, sizeof *d.lvl), calloc((size_t)n + 1, sizeof *d.cnt),
            calloc((size_t)n + 1, sizeof *d.predmask), calloc((size_t)s->nb + 1, sizeof *d.usemask)};
    if (!d.lvl || !d.cnt || !d.predmask || !d.usemask || !(d.lvl[0] = malloc(sizeof **d.lvl))) {
        dp_free(&d, n);
        return oom(err);
    }
    for (int32_t v = 0; v < n; v++)
        for (int32_t i = s->pred_start[v]; i < s->pred_start[v + 1]; i++) d.predmask[v] |= UINT64_C(1) << s->pred[i];
    for (int32_t b = 0; b < s->nb; b++)
        for (int32_t i = s->use_start[b]; i < s->use_start[b + 1]; i++) d.usemask[b] |= UINT64_C(1) << s->use[i];
    d.lvl[0][0] = (dstate){0, s->base, 0, -1, -1};
    d.cnt[0] = 1;
    bool nomem = false;
    *done = dp_levels(s, &d, ub, work, &nomem);
    if (nomem) {
        dp_free(&d, n);
        return oom(err);
    }
    if (*done && d.cnt[n]) { /* one state: every step run */
        *found = true;
        int32_t i = 0;
        for (int32_t L = n; L > 0; L--) {
            order[L - 1] = d.lvl[L][i].step;
            i = d.lvl[L][i].parent;
        }
    }
    dp_free(&d, n);
    return MEMPLAN_OK;
}

/* ---- the whole -------------------------------------------------------------- */

/* Segment k: the best candidate (restricted), then the program; the chosen
 * local order into out[a..b] as global steps. */
static memplan_status solve_segment(const mp_sched *s, const segmap *m, int32_t k, int32_t *const *grouped,
                                    size_t n_cand, uint64_t *work, int32_t *out, bool *exact, memplan_error *err) {
    int32_t a = seg_start(m, k), len = m->seg_end[k] - a + 1;
    if (len == 1) {
        out[a] = a;
        return MEMPLAN_OK;
    }
    segprob q;
    mp_sched ls;
    bool ok = segprob_build(s, m, k, &q);
    memplan_status st = ok ? mp_sched_compile(&q.p, &ls, err) : oom(err);
    if (st) {
        segprob_free(&q);
        return st;
    }
    int32_t *loc = malloc((size_t)len * sizeof *loc), *pos = malloc((size_t)len * sizeof *pos);
    uint64_t *delta = malloc(2 * ((size_t)len + 1) * sizeof *delta);
    if (!loc || !pos || !delta) st = oom(err);
    uint64_t best = UINT64_MAX;
    size_t pick = 0;
    for (size_t c = 0; !st && c < n_cand; c++) {
        for (int32_t j = 0; j < len; j++) loc[j] = grouped[c][a + j] - a;
        uint64_t pk = mp_sched_eval(&ls, loc, pos, delta);
        if (pk < best) best = pk, pick = c;
    }
    for (int32_t j = 0; !st && j < len; j++) out[a + j] = grouped[pick][a + j];
    if (!st && len <= DP_MAX_STEPS) {
        bool found, done;
        st = dp_solve(&ls, best, work, loc, &found, &done, err);
        for (int32_t j = 0; !st && found && j < len; j++) out[a + j] = loc[j] + a;
        if (!done) *exact = false;
    } else if (!st) {
        *exact = false;
    }
    free(loc), free(pos), free(delta);
    mp_sched_free(&ls);
    segprob_free(&q);
    return st;
}

memplan_status mp_sched_exact(const mp_sched *s, const int32_t *const *cand, size_t n_cand, uint64_t work,
                              int32_t *order, bool *exact, memplan_error *err) {
    int32_t n = s->n;
    *exact = true;
    if (n == 0) return MEMPLAN_OK;
    segmap m = {0};
    int32_t *seg_end = malloc(((size_t)n + 1) * sizeof *seg_end), *cross = malloc(((size_t)n + 1) * sizeof *cross);
    int32_t **grouped = calloc(n_cand ? n_cand : 1, sizeof *grouped);
    memplan_status st = seg_end && cross && grouped ? MEMPLAN_OK : oom(err);
    if (!st) {
        m.nseg = find_segments(s, seg_end, cross);
        m.seg_end = seg_end;
        if (!segmap_build(s, &m)) st = oom(err);
    }
    /* each candidate's steps grouped by segment, in the candidate's order */
    for (size_t c = 0; !st && c < n_cand; c++) {
        if (!(grouped[c] = malloc((size_t)n * sizeof **grouped))) {
            st = oom(err);
            break;
        }
        for (int32_t k = 0; k < m.nseg; k++) cross[k] = seg_start(&m, k);
        for (int32_t i = 0; i < n; i++) grouped[c][cross[m.seg_of[cand[c][i]]]++] = cand[c][i];
    }
    /* the work left is shared by the segments the program can take */
    int32_t small = 0;
    for (int32_t k = 0; !st && k < m.nseg; k++) {
        int32_t len = seg_end[k] - seg_start(&m, k) + 1;
        small += len > 1 && len <= DP_MAX_STEPS;
    }
    for (int32_t k = 0; !st && k < m.nseg; k++) {
        int32_t len = seg_end[k] - seg_start(&m, k) + 1;
        bool eligible = len > 1 && len <= DP_MAX_STEPS;
        uint64_t share = eligible ? work / (uint64_t)(small ? small : 1) : 0, left = share;
        st = solve_segment(s, &m, k, grouped, n_cand, &left, order, exact, err);
        if (eligible) {
            work -= share - left;
            small--;
        }
    }
    for (size_t c = 0; grouped && c < n_cand; c++) free(grouped[c]);
    free(grouped), free(seg_end), free(cross);
    segmap_free(&m);
    return st;
}
