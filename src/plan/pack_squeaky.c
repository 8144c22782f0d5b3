/*
 * pack_squeaky.c -- squeaky-wheel rounds of the first fit where the arena
 * is highest: the improvement search above MP_PACK_MANY buffers.
 *
 * Squeaky wheel optimization (Joslin and Clements, 1999): build a
 * solution with a greedy rule, find the elements that did badly, move
 * them forward in the greedy's priority order, build again. Here the
 * greedy is the first fit on the pressure order (pack.c: size x r^8, r
 * the highest load along the buffer's lifetime over the peak load,
 * compared in bands, earlier start first within a band), and the
 * buffers that did badly are those whose top is within SQUEAK_TOP of the
 * arena's height (and above the lower bound): each round doubles their
 * keys, which lifts them a few bands, so the next first fit places them
 * before the buffers that pushed them up.
 *
 * A round rebuilds only near them: the buffers live within a margin
 * (twice the mean lifetime, in time ranks) of a squeaky buffer's lifetime
 * are placed again, in the boosted order, around every other buffer live
 * with them, kept where it is (mp_first_fit_around on that sub-problem);
 * the rest of the arena does not move. So a round costs a few thousand
 * placements at 100k buffers, not 100k. Where those would cost more than
 * the work left (long-lived squeaky buffers: a margin of a million-buffer
 * model-like set's mean lifetime held half of it), the margin is halved
 * until they fit, and the rounds end when even none does. Each round goes
 * on from the previous one's plan (a worse round is not undone: the boosts
 * need the packing they were earned in), and the lowest plan seen is kept.
 *
 * Measured on the random-lifetime sets of bench_pack --random 100000,
 * seeds 1-24 (bench/README.md "Squeaky-wheel rounds at scale"): the first
 * fit's 1.0070-1.0436 x the bound, 15 seeds within 1.02x, became
 * 1.0003-1.0259 at 1000 ms (~50 rounds), 19 within. Deterministic: no
 * randomness, the rounds stop on counted work (first-fit steps and the
 * scans here).
 */
#include <stdlib.h>
#include <string.h>

#include "plan/pack_internal.h"
#include "util/heap.h"

/* A buffer squeaks when its top is above this fraction of the height. */
#define SQUEAK_TOP 0.98
/* The margin around a squeaky buffer's lifetime, in mean lifetimes. */
#define SQUEAK_MARGIN 2

typedef struct squeaky {
    const mp_pack_input *in;
    const mp_times *times;
    const double *key;  /* pressure keys, boosted by doubling */
    double *boost;      /* per buffer: key x boost orders the rounds */
    uint64_t *cur;      /* the plan the rounds go on from */
    int32_t *mark;      /* per time rank: a difference array, then coverage */
    size_t *pre;        /* prefix counts of covered ranks */
    unsigned char *sel; /* per buffer: 4 squeaky; then 1 free, 2 kept around them, 0 neither */
    /* the sub-problem of one round */
    memplan_buffer *sb;
    uint64_t *ssize, *soff;
    size_t *sidx, *sorder;
    size_t margin;
} squeaky;

static void squeaky_free(squeaky *q) {
    free(q->boost);
    free(q->cur);
    free(q->mark);
    free(q->pre);
    free(q->sel);
    free(q->sb);
    free(q->ssize);
    free(q->soff);
    free(q->sidx);
    free(q->sorder);
}

static bool squeaky_init(squeaky *q, const mp_pack_input *in, const mp_times *t, const double *key,
                         const uint64_t *off) {
    size_t n = in->n, u = t->distinct;
    memset(q, 0, sizeof *q);
    q->in = in, q->times = t, q->key = key;
    q->boost = mp_malloc_big(n * sizeof *q->boost);
    q->cur = mp_malloc_big(n * sizeof *q->cur);
    q->mark = mp_malloc_big((u + 1) * sizeof *q->mark);
    q->pre = mp_malloc_big((u + 2) * sizeof *q->pre);
    q->sel = mp_malloc_big(n);
    q->sb = mp_malloc_big(n * sizeof *q->sb);
    q->ssize = mp_malloc_big(n * sizeof *q->ssize);
    q->soff = mp_malloc_big(n * sizeof *q->soff);
    q->sidx = mp_malloc_big(n * sizeof *q->sidx);
    q->sorder = mp_malloc_big(n * sizeof *q->sorder);
    if (!q->boost || !q->cur || !q->mark || !q->pre || !q->sel || !q->sb || !q->ssize || !q->soff || !q->sidx ||
        !q->sorder)
        return false;
    uint64_t span = 0;
    for (size_t i = 0; i < n; i++) {
        q->boost[i] = 1.0;
        span += t->hi[i] - t->lo[i];
    }
    memcpy(q->cur, off, n * sizeof *off);
    q->margin = SQUEAK_MARGIN * (size_t)(span / n);
    return true;
}

/* Mark the time ranks covered by [lo - m, hi + m) of each buffer with
 * sel[i] == want, then pre[] counts the covered ranks before each rank. */
static void cover(squeaky *q, unsigned char want, size_t m, uint64_t *work) {
    size_t n = q->in->n, u = q->times->distinct;
    memset(q->mark, 0, (u + 1) * sizeof *q->mark);
    for (size_t i = 0; i < n; i++) {
        if (q->sel[i] != want) continue;
        size_t lo = q->times->lo[i], hi = q->times->hi[i];
        q->mark[lo > m ? lo - m : 0]++;
        q->mark[hi + m < u ? hi + m : u]--;
    }
    int32_t c = 0;
    q->pre[0] = 0;
    for (size_t r = 0; r < u; r++) {
        c += q->mark[r];
        q->pre[r + 1] = q->pre[r] + (c > 0);
    }
    *work += n + u;
}

/* Does buffer i's lifetime meet a covered rank? */
static bool covered(const squeaky *q, size_t i) { return q->pre[q->times->hi[i]] > q->pre[q->times->lo[i]]; }

/* The boosted pressure order of the free buffers: band of key x boost
 * descending (mp_pressure_band), then the earlier start, the larger size,
 * the longer lifetime, index. */
static int cmp_boosted(const void *ctx, size_t a, size_t b) {
    const squeaky *q = ctx;
    size_t i = q->sidx[a], j = q->sidx[b];
    uint64_t ba = mp_pressure_band(q->key[i] * q->boost[i]), bb = mp_pressure_band(q->key[j] * q->boost[j]);
    if (ba != bb) return ba > bb ? -1 : 1;
    size_t la = q->times->lo[i], lb = q->times->lo[j];
    if (la != lb) return la < lb ? -1 : 1;
    uint64_t sa = q->in->size[i], sb = q->in->size[j];
    if (sa != sb) return sa > sb ? -1 : 1;
    size_t wa = q->times->hi[i] - la, wb = q->times->hi[j] - lb;
    if (wa != wb) return wa > wb ? -1 : 1;
    return (i > j) - (i < j);
}

/* Steps a round is expected to cost per buffer it places again (about 400
 * at 100k random buffers, the pinned ones' insertions included): a round
 * that would take more than the work left is made smaller, then not run. */
#define SQUEAK_STEPS_PER_FREE 300

typedef enum { ROUND_DONE, ROUND_TOO_BIG, ROUND_NOMEM } round_result;

/* Choose the buffers to place again: those live within a margin of a
 * squeaky one (sel 4), the margin halved down to 0 until they are few
 * enough for `left` steps; then sel 1 for them, 0 for the rest. false:
 * too many even without a margin. */
static bool choose_free(squeaky *q, uint64_t left, uint64_t *work) {
    size_t n = q->in->n, m = q->margin, free_n;
    for (;;) {
        cover(q, 4, m, work);
        free_n = 0;
        for (size_t i = 0; i < n; i++) free_n += covered(q, i);
        *work += n;
        if ((uint64_t)free_n * SQUEAK_STEPS_PER_FREE <= left) break;
        if (m == 0) return false;
        m /= 2;
    }
    for (size_t i = 0; i < n; i++) q->sel[i] = covered(q, i) ? 1 : 0;
    *work += n;
    return true;
}

/* One round from q->cur at height h, on at most about `left` steps; its
 * new height in *h. On ROUND_NOMEM q->cur is unchanged. */
static round_result round_once(squeaky *q, uint64_t *h, uint64_t left, uint64_t *work) {
    const mp_pack_input *in = q->in;
    size_t n = in->n;
    uint64_t lim = (uint64_t)(SQUEAK_TOP * (double)*h);
    if (lim < in->lower_bound) lim = in->lower_bound;
    /* The squeaky ones (sel 4), and the buffers to place again near them. */
    for (size_t i = 0; i < n; i++) {
        q->sel[i] = in->size[i] > 0 && q->cur[i] + in->size[i] > lim ? 4 : 0;
        if (q->sel[i]) q->boost[i] *= 2.0;
    }
    *work += n;
    if (!choose_free(q, left, work)) return ROUND_TOO_BIG;
    /* Kept around them: every other buffer live with a free one. */
    cover(q, 1, 0, work);
    for (size_t i = 0; i < n; i++)
        if (q->sel[i] == 0 && covered(q, i)) q->sel[i] = 2;
    /* The sub-problem: the kept ones first (pinned), then the free ones. */
    size_t sn = 0, pinned = 0;
    for (int pass = 2; pass >= 1; pass--)
        for (size_t i = 0; i < n; i++)
            if (q->sel[i] == pass) {
                q->sidx[sn] = i;
                q->sb[sn] = in->bufs[i];
                q->ssize[sn] = in->size[i];
                q->soff[sn] = q->cur[i];
                q->sorder[sn] = sn;
                sn++;
                pinned += pass == 2;
            }
    *work += 2 * n + sn;
    if (!mp_sort_idx(q->sorder + pinned, sn - pinned, cmp_boosted, q)) return ROUND_NOMEM;
    mp_times st;
    if (!mp_times_init(&st, q->sb, sn)) return ROUND_NOMEM;
    mp_pack_input sub = {q->sb, sn, q->ssize, NULL, 0};
    uint64_t sh;
    bool ok = mp_first_fit_around(&sub, &st, q->sorder, pinned, q->soff, &sh, work);
    mp_times_free(&st);
    if (!ok) return ROUND_NOMEM;
    *h = 0;
    for (size_t k = pinned; k < sn; k++) q->cur[q->sidx[k]] = q->soff[k];
    for (size_t i = 0; i < n; i++)
        if (in->size[i] > 0) *h = MP_MAX(*h, q->cur[i] + in->size[i]);
    *work += n + 4 * sn;
    return ROUND_DONE;
}

bool mp_squeaky(const mp_pack_input *in, const mp_times *times, const double *key, uint64_t *off, uint64_t *height,
                uint64_t quota, double deadline, uint64_t *rounds, uint64_t *work) {
    if (in->n == 0 || *height <= in->lower_bound) return true;
    squeaky q;
    bool ok = squeaky_init(&q, in, times, key, off);
    uint64_t h = *height, spent = 0;
    while (ok && spent < quota && h > in->lower_bound && (deadline <= 0 || mp_now_ms() < deadline)) {
        round_result r = round_once(&q, &h, quota - spent, &spent);
        ok = r != ROUND_NOMEM;
        if (r == ROUND_TOO_BIG) break;
        *rounds += ok;
        if (ok && h < *height) {
            *height = h;
            memcpy(off, q.cur, in->n * sizeof *off);
        }
    }
    *work += spent;
    squeaky_free(&q);
    return ok;
}
