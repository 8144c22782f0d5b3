/*
 * pack.c -- memplan_pack(): run the heuristics, keep the best, improve it.
 *
 * Orders fed to the decoders (ties always broken by buffer index):
 *   greedy-size  size descending, then longer lifetime, then start (best
 *                fit; first fit through pack_firstfit.c's index above
 *                MP_PACK_MANY buffers);
 *   time-fit     start ascending, then size descending;
 *   skyline      three rank orders: size descending, lifetime length
 *                descending, area (size x length) descending; the best;
 *   search       annealing from the best skyline order.
 * The kept plan is re-checked by memplan_validate_arena before returning:
 * a failure there is a bug and is reported as EINTERNAL.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/pack_internal.h"
#include "util/heap.h"

void memplan_pack_options_init(memplan_pack_options *opt) {
    opt->align = MEMPLAN_PACK_DEFAULT_ALIGN;
    opt->budget_ms = MEMPLAN_PACK_DEFAULT_BUDGET_MS;
    opt->heuristics = MEMPLAN_HEUR_ALL;
    opt->seed = 1;
    opt->wall_cap_ms = 0;
}

const char *memplan_heuristic_name(memplan_heuristic h) {
    switch (h) {
    case MEMPLAN_HEUR_GREEDY_SIZE: return "greedy-size";
    case MEMPLAN_HEUR_TIME_FIT: return "time-fit";
    case MEMPLAN_HEUR_SKYLINE: return "skyline";
    case MEMPLAN_HEUR_SEARCH: return "search";
    case MEMPLAN_HEUR_SLOT_LAYOUT: return "slot-layout";
    case MEMPLAN_HEUR_EXACT: return "exact";
    }
    return "unknown";
}

void memplan_arena_plan_free(memplan_arena_plan *plan) {
    if (!plan) return;
    free(plan->offset);
    memset(plan, 0, sizeof *plan);
}

/* ----------------------------------------------------------- orders */

static int cmp_size_desc(const void *ctx, size_t a, size_t b) {
    const mp_pack_input *in = ctx;
    const memplan_buffer *x = &in->bufs[a], *y = &in->bufs[b];
    if (in->size[a] != in->size[b]) return in->size[a] > in->size[b] ? -1 : 1;
    int64_t lx = x->end - x->start, ly = y->end - y->start;
    if (lx != ly) return lx > ly ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return 0;
}

static int cmp_length_desc(const void *ctx, size_t a, size_t b) {
    const mp_pack_input *in = ctx;
    const memplan_buffer *x = &in->bufs[a], *y = &in->bufs[b];
    int64_t lx = x->end - x->start, ly = y->end - y->start;
    if (lx != ly) return lx > ly ? -1 : 1;
    if (in->size[a] != in->size[b]) return in->size[a] > in->size[b] ? -1 : 1;
    return 0;
}

static int cmp_area_desc(const void *ctx, size_t a, size_t b) {
    const mp_pack_input *in = ctx;
    const memplan_buffer *x = &in->bufs[a], *y = &in->bufs[b];
    double ax = (double)in->size[a] * (double)(x->end - x->start);
    double ay = (double)in->size[b] * (double)(y->end - y->start);
    if (ax != ay) return ax > ay ? -1 : 1;
    return cmp_size_desc(ctx, a, b);
}

static int cmp_start_size(const void *ctx, size_t a, size_t b) {
    const mp_pack_input *in = ctx;
    if (in->bufs[a].start != in->bufs[b].start) return in->bufs[a].start < in->bufs[b].start ? -1 : 1;
    if (in->size[a] != in->size[b]) return in->size[a] > in->size[b] ? -1 : 1;
    return 0;
}

/* The pressure orders (first fit above MP_PACK_MANY buffers): size
 * descending, each size weighted by how close the load along the buffer's
 * lifetime comes to the peak load, key = size x (its highest load / the
 * peak)^p. A first fit's height is made where the load is highest; a
 * buffer live there goes before a larger one that only crosses quieter
 * times, so the peak's buffers stack tightly and the others fill around
 * them. p = 8, and p = 4 too up to MP_PACK_HUGE buffers (the better of
 * the two is kept). Exponents 16 and up lose on some seeds; the mean load
 * along the lifetime instead of the highest loses everywhere. Multiplications
 * only (no libm): the same keys in WASM.
 *
 * The keys are compared in bands, not exactly: a band is a key's exponent
 * and its two leading mantissa bits (keys within ~19% of each other share
 * one), and within a band the earlier start goes first. A band is then
 * placed in one sweep along time: each buffer meets its neighbours of the
 * same size class just placed beside it, so they stack on one another
 * instead of leaving holes of a class's width between scattered ones, and
 * the index's memory is walked in order (the lists and sets of
 * neighbouring blocks stay in cache) instead of at random. Measured with
 * bench_pack --random (bench/README.md "At scale"), arena / bound, exact
 * keys -> bands: random lifetimes 100k, seeds 1-6, 1.0269 1.0232 1.0371
 * 1.0383 1.0262 1.0080 -> 1.0152 1.0105 1.0257 1.0234 1.0130 1.0070; 1M
 * 1.0192 -> 1.0110 with the whole pack 7.5 -> 4.5 s; model-like 10k / 30k
 * / 100k / 1M 1.0438 / 1.0258 / 1.0447 / 1.0222 -> 1.0397 / 1.0200 /
 * 1.0322 / 1.0081 (1M 3.0 -> 1.9 s). One mantissa bit or three, the
 * exponent alone, or the later end first within a band: higher on most
 * seeds. */
typedef struct pressure {
    const mp_pack_input *in;
    const mp_times *times; /* per buffer its start's and end's rank among the distinct times */
    double *key;           /* per buffer: size x r^p */
    double *peak;          /* per buffer: r, its highest load / the peak load */
} pressure;

/* The pressure order into order[]: by band descending, then start, by one
 * radix sort of (band, start rank) packed in 64 bits (a rank is below
 * 2 n < 2^50), then each run of equal pairs by cmp_size_desc (size
 * descending, longer lifetime, then index: both sorts are stable). A
 * comparison sort on the same order took ~7% of a 1M-buffer pack. */
static bool pressure_order(const pressure *pr, size_t *order) {
    size_t n = pr->in->n;
    uint64_t *k = mp_malloc_big((n ? n : 1) * sizeof *k);
    size_t *tmp = mp_malloc_big((n ? n : 1) * sizeof *tmp);
    bool ok = k && tmp;
    for (size_t i = 0; ok && i < n; i++) {
        k[i] = (0x1fffu - mp_pressure_band(pr->key[i])) << 50 | (uint64_t)pr->times->lo[i];
        order[i] = i;
    }
    ok = ok && mp_radix_sort(k, order, n);
    for (size_t a = 0, b; ok && a < n; a = b) {
        for (b = a + 1; b < n && k[b] == k[a];) b++;
        if (b - a > 1) mp_sort_idx_tmp(order + a, b - a, cmp_size_desc, pr->in, tmp);
    }
    free(k);
    free(tmp);
    return ok;
}

/* Highest of load[lo..hi) in the max tree t over `leaves` leaves. */
static uint64_t tree_max(const uint64_t *t, size_t leaves, size_t lo, size_t hi) {
    uint64_t m = 0;
    for (lo += leaves, hi += leaves; lo < hi; lo /= 2, hi /= 2) {
        if (lo & 1) m = MP_MAX(m, t[lo]), lo++; /* MP_MAX evaluates twice */
        if (hi & 1) hi--, m = MP_MAX(m, t[hi]);
    }
    return m;
}

/* pr->peak for every buffer; false when memory runs out. */
static bool pressure_peaks(pressure *pr) {
    const mp_pack_input *in = pr->in;
    size_t n = in->n, u = pr->times->distinct, leaves = 1;
    const size_t *lo = pr->times->lo, *hi = pr->times->hi;
    pr->key = mp_malloc_big(n * sizeof *pr->key);
    pr->peak = mp_malloc_big(n * sizeof *pr->peak);
    bool ok = pr->key && pr->peak;
    while (leaves < u) leaves *= 2;
    uint64_t *tree = ok ? mp_calloc_big(2 * leaves, sizeof *tree) : NULL;
    ok = ok && tree;
    /* load of elementary interval e: the sum of the sizes live there, from
     * differences at the leaves (the total fits in 64 bits, mp_aligned_sizes
     * checked it; a partial sum may wrap and unwraps again) */
    for (size_t i = 0; ok && i < n; i++) {
        tree[leaves + lo[i]] += in->size[i];
        tree[leaves + hi[i]] -= in->size[i];
    }
    uint64_t load = 0, peak = 0;
    for (size_t e = 0; ok && e < u; e++) {
        load += tree[leaves + e];
        tree[leaves + e] = load;
        peak = MP_MAX(peak, load);
    }
    for (size_t v = leaves - 1; ok && v >= 1; v--) tree[v] = MP_MAX(tree[2 * v], tree[2 * v + 1]);
    for (size_t i = 0; ok && i < n; i++)
        pr->peak[i] = peak ? (double)tree_max(tree, leaves, lo[i], hi[i]) / (double)peak : 0.0;
    free(tree);
    return ok;
}

/* The keys for exponent 4 or 8. */
static void pressure_keys(pressure *pr, int p) {
    for (size_t i = 0; i < pr->in->n; i++) {
        double r = pr->peak[i] * pr->peak[i]; /* r^2 */
        r *= r;                               /* r^4 */
        if (p == 8) r *= r;
        pr->key[i] = (double)pr->in->size[i] * r;
    }
}

/* ------------------------------------------------------------ driver */

/* Size limits that keep large plans fast (measured on model-like and
 * random-lifetime sets, see bench/): above MP_PACK_MANY buffers the skyline
 * tries one order only, time-fit runs first, greedy-size places by first
 * fit through an interval index (pack_firstfit.c) instead of best fit over
 * a conflict walk, and the search is squeaky-wheel rounds of that first
 * fit (run_squeaky) instead of the annealing; above MP_PACK_HUGE the
 * skyline does not run either (it costs several times more there). Best fit through the same index
 * (mp_best_fit, the rule of the smaller sets) loses to that first fit on
 * every large set measured (random lifetimes 1.10-1.14x the bound against
 * 1.04x, model-like 1.08-1.16x against 1.02-1.05x, at 10k-1M) and costs
 * 1.4-1.7x more: it is not run there. */
#define MP_PACK_MANY 4096u
#define MP_PACK_HUGE 50000u

/* Under heavy overlap the slot layout (O(n log n), always valid) runs
 * before first fit only when first fit's per-block lists pass this length
 * (mp_first_fit_lists), i.e. when thousands of buffers share their times
 * (the complexity guard's fan_in, split_outputs, peak_sizes and pack_ties:
 * the lists hold every buffer, first fit is quadratic, and the slot layout
 * meets the bound there). On random and model-like sets the lists hold
 * 150-250 buffers at 10k-1M and the slot layout never won (1M random:
 * 1.28x the bound against first fit's 1.011x, ~0.5 s of a 4.5 s pack). */
#define MP_FF_LISTS_MAX 4096u

typedef struct packer {
    mp_pack_input in;
    mp_times times; /* made once for first fit's users above MP_PACK_MANY (packer_times) */
    memplan_arena_plan *out;
    uint64_t *trial; /* offsets of the heuristic being tried */
    size_t *order;   /* scratch order */
    size_t *rank;    /* scratch rank (inverse of order) */
    uint64_t work;
    uint64_t proven; /* no arena lower than this exists */
    uint64_t unit;   /* gcd of the aligned sizes: the lowest height is a multiple */
    double *key8;    /* the p = 8 pressure keys, kept by run_first_fit for run_squeaky */
} packer;

/* The height of the trial offsets: the highest top. */
static uint64_t trial_height(const packer *p) {
    uint64_t h = 0;
    for (size_t i = 0; i < p->in.n; i++)
        if (p->in.size[i] > 0) h = MP_MAX(h, p->trial[i] + p->in.size[i]);
    return h;
}

/* Keep the trial offsets when they beat the best so far. */
static void keep_if_better(packer *p, uint64_t height, memplan_heuristic h) {
    if (height >= p->out->arena_bytes && p->out->heuristic != 0) return;
    memcpy(p->out->offset, p->trial, p->in.n * sizeof *p->trial);
    p->out->arena_bytes = height;
    p->out->heuristic = h;
}

/* The time ranks of p's buffers, made on first use: the slot-layout test,
 * the pressure orders and each first fit read them (a radix sort of 2n
 * times, ~60 ms at 1M buffers each time when each made its own). NULL:
 * out of memory. */
static const mp_times *packer_times(packer *p) {
    if (!p->times.lo && !mp_times_init(&p->times, p->in.bufs, p->in.n)) return NULL;
    return &p->times;
}

/* Greedy-size above MP_PACK_MANY buffers: first fit through the interval
 * index on the pressure orders, the better kept. */
static bool run_first_fit(packer *p) {
    pressure pr = {&p->in, packer_times(p), NULL, NULL};
    bool ok = pr.times && pressure_peaks(&pr);
    for (int e = 8; ok && e >= 4; e -= 4) {
        if (e == 4 && p->in.n > MP_PACK_HUGE) break;
        pressure_keys(&pr, e);
        uint64_t height = 0;
        ok = pressure_order(&pr, p->order) && mp_first_fit(&p->in, pr.times, p->order, p->trial, &height, &p->work);
        if (ok) keep_if_better(p, height, MEMPLAN_HEUR_GREEDY_SIZE);
        if (ok && e == 8 && !p->key8) { /* for run_squeaky: the keys themselves above MP_PACK_HUGE, else a copy */
            p->key8 = p->in.n > MP_PACK_HUGE ? pr.key : mp_malloc_big(p->in.n * sizeof *p->key8);
            if (p->key8 == pr.key) pr.key = NULL;
            else if (p->key8)
                memcpy(p->key8, pr.key, p->in.n * sizeof *p->key8);
        }
    }
    free(pr.key);
    free(pr.peak);
    return ok;
}

/* Greedy-size: best fit over a conflict walk on the size order, or above
 * MP_PACK_MANY buffers first fit through the interval index on the
 * pressure orders instead. */
static bool run_greedy_size(packer *p) {
    if (p->in.n > MP_PACK_MANY) return run_first_fit(p);
    for (size_t k = 0; k < p->in.n; k++) p->order[k] = k;
    if (!mp_sort_idx(p->order, p->in.n, cmp_size_desc, &p->in)) return false;
    mp_greedy *g = mp_greedy_new(&p->in, true);
    if (!g) return false;
    uint64_t height = mp_greedy_decode(g, p->order, p->trial, &p->work);
    mp_greedy_free(g);
    keep_if_better(p, height, MEMPLAN_HEUR_GREEDY_SIZE);
    return true;
}

/* A plan at the proven bound is optimal: nothing after it can do better. */
static bool at_bound(const packer *p) { return p->out->heuristic != 0 && p->out->arena_bytes <= p->proven; }

/* Time-fit, the time-ordered best fit (mp_greedy_decode_by_start), run in
 * legs: each goes on only while its height stays at or below a limit, and
 * a plan is kept only when the run finishes there. Above MP_PACK_MANY
 * buffers it runs first up to the proven bound (most models end there:
 * optimal, nothing else runs); once it passes the bound greedy-size's
 * first fit runs, and time-fit then goes on only while it stays below
 * greedy-size's height, where it can still win. On random lifetimes it
 * passes both early (100k buffers: it stopped at 6k-44k of them; the whole
 * pack 470-545 -> 460-490 ms, the same arenas; bench/README.md "Time-fit in
 * legs"); a run that finishes costs what one run cost. It has its own order
 * and offsets (first fit uses p->order and p->trial between the legs),
 * made on its first leg. */
typedef struct time_fit {
    mp_greedy *g;
    size_t *order;
    uint64_t *off;
} time_fit;

static void time_fit_free(time_fit *t) {
    mp_greedy_free(t->g);
    free(t->order);
    free(t->off);
}

static bool time_fit_init(time_fit *t, packer *p) {
    size_t n = p->in.n ? p->in.n : 1;
    t->g = mp_greedy_new(&p->in, false);
    t->order = mp_malloc_big(n * sizeof *t->order);
    t->off = mp_malloc_big(n * sizeof *t->off);
    if (!t->g || !t->order || !t->off) return false;
    for (size_t k = 0; k < p->in.n; k++) t->order[k] = k;
    return mp_sort_idx(t->order, p->in.n, cmp_start_size, &p->in);
}

/* One leg up to `limit` (UINT64_MAX: to the end); the plan kept if it
 * finished and is better. false: out of memory. */
static bool time_fit_run(packer *p, time_fit *t, uint64_t limit) {
    uint64_t height;
    if (!t->g && !time_fit_init(t, p)) return false;
    if (!mp_greedy_by_start_until(t->g, t->order, t->off, limit, &height, &p->work)) return true;
    memcpy(p->trial, t->off, p->in.n * sizeof *t->off);
    keep_if_better(p, height, MEMPLAN_HEUR_TIME_FIT);
    return true;
}

/* Greedy-size and time-fit as above: time-fit first above MP_PACK_MANY
 * buffers, after greedy-size (and only while below its height) up to it.
 * Either runs alone when it is the only one asked for. */
static bool run_greedy(packer *p, unsigned which) {
    bool tf = which & MEMPLAN_HEUR_TIME_FIT, gs = which & MEMPLAN_HEUR_GREEDY_SIZE, ok = true;
    time_fit t = {0};
    if (tf && p->in.n > MP_PACK_MANY) ok = time_fit_run(p, &t, gs ? p->proven : UINT64_MAX);
    if (ok && gs && !at_bound(p)) ok = run_greedy_size(p);
    if (ok && tf && !at_bound(p)) ok = time_fit_run(p, &t, p->out->heuristic ? p->out->arena_bytes - 1 : UINT64_MAX);
    time_fit_free(&t);
    return ok;
}

/* The search budget: each millisecond buys WORK_PER_MS decoder steps (see
 * pack_search.c), calibrated so that a 2020s x86 core spends about 80% of
 * the search's share of the budget; the wall clock is only a safety cap at
 * SAFETY_FACTOR x budget + 100 ms. 75,000 when set (dsa D, 1000 ms: 0.79 s
 * wall on the 2-core CI machine); the decoder has since become faster, and
 * on 2026-12-06 that bought 55-60% of the share in wall time (`pack` at
 * 1000 ms returned in 0.6-0.75 s on the tight generated sets): 112,500
 * since, 0.8-0.93 s (bench/README.md "The search's calibration"). */
#define WORK_PER_MS 112500u
#define SAFETY_FACTOR 8.0

/* The wall-clock safety cap of the search's parts, in ms from their start. */
static double wall_cap_ms(const memplan_pack_options *opt) {
    return opt->wall_cap_ms ? (double)opt->wall_cap_ms : SAFETY_FACTOR * (double)opt->budget_ms + 100.0;
}

/* Decoder steps for a budget. Above MP_PACK_SLOW buffers a millisecond buys
 * proportionally fewer: a step cost ~5x more at 10,000 buffers when this was
 * set; since the fourth session's decoder changes it costs ~1.3x (10,000
 * model-like buffers at 1000 ms: 0.22 s instead of ~1 s without the
 * division), but the division stays: it keeps the default 20 ms budget
 * from starting a search on 10,000 buffers (30 ms instead of 80 ms for the
 * re-plan; the search there gains 1.107x -> 1.091x). A quota that cannot
 * pay for a few full decodes (48 steps per buffer: 32 at 75,000 steps per
 * ms, the same budgets start a search) is not worth starting: 0 (a full
 * decode may still cost more; see search_round). */
#define MP_PACK_SLOW 2048u
static uint64_t search_quota(uint32_t budget_ms, size_t n) {
    uint64_t q = (uint64_t)budget_ms * WORK_PER_MS;
    if (n > MP_PACK_SLOW) q = q / ((uint64_t)n / MP_PACK_SLOW + 1);
    return q < 48 * (uint64_t)n ? 0 : q;
}

/* The buffers with time reversed ([s, e) -> [T - e, T - s)): the same
 * conflicts, so the same valid offsets, but the skyline builds the other
 * way round and reaches other packings. */
typedef struct mirror {
    memplan_buffer *bufs;
    mp_pack_input in;
} mirror;

static bool mirror_init(mirror *m, const mp_pack_input *in) {
    int64_t t = 0;
    for (size_t i = 0; i < in->n; i++) t = MP_MAX(t, in->bufs[i].end);
    m->bufs = mp_malloc_big(in->n * sizeof *m->bufs);
    if (!m->bufs) return false;
    for (size_t i = 0; i < in->n; i++)
        m->bufs[i] = (memplan_buffer){in->bufs[i].size, t - in->bufs[i].end, t - in->bufs[i].start};
    m->in = *in;
    m->in.bufs = m->bufs;
    m->in.by_start = mp_order_by_start(m->bufs, in->n);
    return m->in.by_start != NULL;
}

static void mirror_free(mirror *m) {
    free(m->bufs);
    free((void *)m->in.by_start);
}

/* One annealing run from `order` on `quota` steps: half the work forward in
 * time, then (unless the lower bound was met) the rest on the time-reversed
 * buffers. Seeds `seed` and `seed + 1`. */
static bool search_round(packer *p, mp_skyline *s, uint64_t quota, double deadline, uint64_t seed) {
    mp_search_result r;
    if (!mp_search(&p->in, s, p->order, quota / 2, deadline, seed, p->out->arena_bytes, p->trial, &r)) return false;
    p->out->iterations += r.iterations;
    if (r.height != UINT64_MAX) keep_if_better(p, r.height, MEMPLAN_HEUR_SEARCH);
    /* The first full decode may overrun the forward half, even the quota. */
    uint64_t rest = quota > r.work ? quota - r.work : 0;
    if (p->out->arena_bytes <= p->in.lower_bound || p->in.n < 2 || rest == 0) return true;
    mirror m = {0};
    mp_skyline *ms = NULL;
    bool ok = mirror_init(&m, &p->in) && (ms = mp_skyline_new(&m.in)) != NULL &&
              mp_search(&m.in, ms, p->order, rest, deadline, seed + 1, p->out->arena_bytes, p->trial, &r);
    if (ok) {
        p->out->iterations += r.iterations;
        if (r.height != UINT64_MAX) keep_if_better(p, r.height, MEMPLAN_HEUR_SEARCH);
    }
    mp_skyline_free(ms);
    mirror_free(&m);
    return ok;
}

/* The search, in rounds of at most ROUND_STEPS of work. One annealing
 * run is basin-limited: it soon stops improving (on dsa D, seed 1 at 10 s
 * ended worse than at 1 s), while independent runs under other seeds land
 * in other basins. So a larger budget buys more rounds, each from the same
 * start order under the next seeds, and the best plan is kept: round 0 is
 * exactly the run of a budget of one round, so more budget never gives a
 * worse plan. A last partial round shorter than a quarter round is not
 * started. 18.75 M steps, what 250 ms bought at the first calibration (75,000
 * steps per ms): on dsa B-E at 1000 ms (16 seeds each), four rounds of that
 * keep B, C and E where one run gets them (means within 1 KiB) and lower
 * D's mean from 1032 to 1025 KiB (1021 over 48 seeds); rounds of half that
 * lose on B (see bench/README.md). When the calibration rose to 112,500 the
 * round kept its work, so a budget buys more rounds: at 1000 ms on dsa A-K
 * and 36 generated tight instances 3 lower, 2 higher, the rest the same;
 * rounds of 250 ms at the new rate (28 M steps) 8 lower, 8 higher. Above
 * MP_PACK_SLOW buffers one run is still improving after a round's work
 * (10,000 model-like buffers at 4 s: 1.068x the bound in one run, 1.070x in
 * rounds of 1 s), so it gets the whole budget. */
#define ROUND_STEPS 18750000u
static bool run_search(packer *p, const memplan_pack_options *opt, mp_skyline *s) {
    uint64_t quota = search_quota(opt->budget_ms, p->in.n);
    if (quota == 0) return true;
    uint64_t round = quota > ROUND_STEPS && p->in.n <= MP_PACK_SLOW ? ROUND_STEPS : quota;
    double cap = wall_cap_ms(opt);
    double deadline = mp_now_ms() + cap;
    p->out->iterations = 0;
    bool ok = true;
    for (uint64_t k = 0; ok && quota > 0 && !at_bound(p) && mp_now_ms() < deadline; k++) {
        uint64_t q = MP_MIN(round, quota);
        if (k > 0 && q < round / 4) break;
        ok = search_round(p, s, q, deadline, opt->seed + 2 * k);
        quota -= q;
    }
    return ok;
}

/* The improvement search above MP_PACK_MANY buffers: squeaky-wheel rounds
 * of the first fit near the arena's top (pack_squeaky.c), from the best
 * plan so far, on SQUEAKY_WORK_PER_MS steps per budget millisecond (a
 * round at 100k random buffers: ~3 M steps, ~17 ms). The annealing over the
 * skyline's order, which it replaced there, never beat greedy-size's first
 * fit on the random or model-like sets of 10k and 30k buffers at 20 or 300
 * ms; these rounds lower both (bench/README.md "Squeaky-wheel rounds"). */
#define SQUEAKY_WORK_PER_MS 150000u
static bool run_squeaky(packer *p, const memplan_pack_options *opt) {
    pressure pr = {&p->in, packer_times(p), NULL, NULL};
    bool ok = pr.times && (p->key8 || pressure_peaks(&pr)); /* greedy-size's keys, or made here */
    if (ok) {
        if (!p->key8) pressure_keys(&pr, 8);
        double cap = wall_cap_ms(opt);
        uint64_t height = p->out->arena_bytes, before = height;
        memcpy(p->trial, p->out->offset, p->in.n * sizeof *p->trial);
        ok = mp_squeaky(&p->in, pr.times, p->key8 ? p->key8 : pr.key, p->trial, &height,
                        (uint64_t)opt->budget_ms * SQUEAKY_WORK_PER_MS, mp_now_ms() + cap, &p->out->iterations,
                        &p->work);
        if (height < before) keep_if_better(p, height, MEMPLAN_HEUR_SEARCH);
    }
    free(pr.key);
    free(pr.peak);
    return ok;
}

/* The exact mode's steps per budget millisecond (pack_exact.c counts a
 * step per buffer scanned, overlap followed or section checked). Set at
 * 0.5-1.1 M steps per ms measured on dsa A-E; by 2026-12-07 a step had
 * slowed to 0.7-0.95 M per ms (`pack` at 1000 ms ran up to 1.3-1.7 s on
 * generated instances), then became 1.25-1.4 M per ms (A, D, E) when the
 * search's loops were made lean: at 1000 ms the slowest of 240 generated
 * instances returns in 0.99 s natively and 1.05 s in WebAssembly. 1.4 M
 * would buy 17 of them 0.03-2% lower arenas (none newly at the bound) at
 * up to 1.19 s (bench/README.md "Lean exact steps"). It runs up to
 * MP_PACK_SLOW non-zero buffers; above, a node of its search costs too
 * much to get anywhere. */
#define EXACT_WORK_PER_MS 1100000u

/* One decision at h on `quota` steps: a packing found is kept if it is
 * better, a proof of infeasibility raises the proven bound past h. */
static mp_exact_status decide_at(packer *p, mp_exact *x, uint64_t h, uint64_t quota, uint64_t *used, bool *ok) {
    mp_exact_status st = mp_exact_decide(x, h, quota, used, p->trial);
    if (st == MP_EXACT_NOMEM) *ok = false;
    if (st == MP_EXACT_FEASIBLE) keep_if_better(p, trial_height(p), MEMPLAN_HEUR_EXACT);
    if (st == MP_EXACT_INFEASIBLE) p->proven = h + p->unit;
    return st;
}

/* Decide heights with the exact mode on `ms` milliseconds of work. At the
 * proven bound (`descend` false): one decision, on the static orders alone
 * (a packing there is optimal; a proof of infeasibility raises the bound by
 * one unit, the gcd of the sizes, since the lowest height is a multiple of
 * it). Hinting it with the heuristics' packing cost more than it gained:
 * at 1000 ms dsa I (374 buffers) stayed at +1.37% hinted and is met at the
 * bound unhinted, and two generated instances more meet it (B is met
 * either way). Below the best arena (`descend`): decisions hinted with the
 * best packing so far (mp_exact_set_hint: its canonical order is the first
 * the restarts try, a descent that follows the packing down to where it
 * fails and tries its neighbours first), each aimed a quarter of the way
 * from the best down to the proven bound: a decision costs about one dive
 * of the search whatever the step (dsa J, 409 buffers: 8-20 M steps from
 * +7.8% to +6%), so one unit at a time spent the quarter budget 17 units
 * above the capacity MiniMalloc decides (1048576); one that fails to
 * decide (on at most a quarter of the work left) halves the fraction, down
 * to one unit, which may use all that is left. Measured at 1000 ms on dsa
 * A-K and eight generated sets: J 1052672 -> 1044480, D the same, four
 * instances 0.1-0.2% higher, the rest the same or lower (bench/README.md
 * "Decomposition"). A packing found is
 * kept at its own height (its highest top), which may lie below the
 * height asked. Returns the milliseconds of work spent; false in *ok when
 * memory ran out. */
static uint64_t run_exact(packer *p, mp_exact *x, uint64_t ms, bool descend, bool *ok) {
    uint64_t quota = ms * EXACT_WORK_PER_MS, used = 0, unit = p->unit, frac = 4;
    if (!descend) decide_at(p, x, p->proven, quota, &used, ok);
    while (descend && !at_bound(p) && used < quota) {
        uint64_t top = (p->out->arena_bytes - 1) / unit * unit; /* the highest height below the best */
        if (top < p->proven) break;                             /* cannot happen: the arena is above the proven bound */
        uint64_t step = MP_MAX(1, (top - p->proven) / unit / frac), h = top - (step - 1) * unit;
        uint64_t cap = step > 1 ? (quota - used) / 4 : quota - used;
        if (!mp_exact_set_hint(x, p->out->offset)) {
            *ok = false;
            break;
        }
        mp_exact_status st = decide_at(p, x, h, cap, &used, ok);
        if (st == MP_EXACT_NOMEM || (st == MP_EXACT_UNKNOWN && step == 1)) break;
        if (st == MP_EXACT_UNKNOWN) frac *= 2;
    }
    return (used + EXACT_WORK_PER_MS - 1) / EXACT_WORK_PER_MS;
}

/* Improve the heuristics' best: a quarter of the budget to the exact mode
 * at the lower bound (it either finds a packing there, or proves a
 * stronger bound, or gives up), the rest less a quarter to the annealing
 * search, then a quarter to the exact mode below the best arena found.
 * Each part spends counted work, so the split is deterministic; what the
 * first part leaves goes to the search. A quarter at the bound since its
 * static orders go on from turn to turn (pack_exact.c, decide_part): half
 * of the decision's work is the restarts that had an eighth before, the
 * other half the six orders' searches, which decide what restarts from
 * scratch seldom do (tight-0430-3 at 1000 ms: +10.74% -> the bound; dsa
 * A-K and 120 generated instances: 1 more at the bound, geomean 1.0421 ->
 * 1.0400 on the tuned set, 1.0385 -> 1.0386 on the held-out one;
 * bench/README.md "Static orders that go on"). At smaller budgets it
 * costs a little: at 100 ms on dsa A-K and 24 tight instances the same 15
 * at the bound, geomean 1.0666 -> 1.0693 (B +2.44% -> +4.10%); at 250 ms
 * even (1.0585 -> 1.0581). The final part a quarter rather than an eighth since it is hinted
 * (run_exact): at 1000 ms on the four tight sets 7 of 24 lower, 1 higher
 * (tight-0430-1 +14.94% -> +16.31%), dsa D +2.80% -> +2.70%; half the
 * budget there: 4 of 12 higher on the first two sets, D +7.58%. */
static bool run_improve(packer *p, unsigned which, const memplan_pack_options *opt, mp_skyline *s) {
    mp_exact *x = NULL;
    size_t m = 0;
    for (size_t i = 0; i < p->in.n; i++) m += p->in.size[i] > 0;
    if ((which & MEMPLAN_HEUR_EXACT) && m <= MP_PACK_SLOW)
        x = mp_exact_new(&p->in); /* NULL: too large, or out of memory */
    double cap = wall_cap_ms(opt);
    if (x) mp_exact_set_deadline(x, mp_now_ms() + cap);
    if (x) mp_exact_set_seed(x, opt->seed);
    bool ok = true;
    uint64_t budget = opt->budget_ms;
    uint64_t eighth = x ? budget / 8 : 0;
    uint64_t spent = x ? run_exact(p, x, 2 * eighth, false, &ok) : 0;
    memplan_pack_options sopt = *opt;
    sopt.budget_ms = (uint32_t)(budget - MP_MIN(budget, spent + 2 * eighth));
    if (ok && !at_bound(p)) ok = run_search(p, &sopt, s);
    if (ok && x && !at_bound(p)) run_exact(p, x, 2 * eighth, true, &ok);
    mp_exact_free(x);
    return ok;
}

/* Skyline with three rank orders, then (budget permitting) search from the
 * best of them. When the skyline is not among the requested heuristics its
 * result still stands in if nothing else was kept. */
static bool run_skyline(packer *p, unsigned which, const memplan_pack_options *opt) {
    mp_skyline *s = mp_skyline_new(&p->in);
    if (!s) return false;
    static const mp_idx_cmp orders[] = {cmp_size_desc, cmp_length_desc, cmp_area_desc};
    size_t norders = p->in.n > MP_PACK_MANY ? 1 : sizeof orders / sizeof orders[0];
    bool ok = true;
    uint64_t best = UINT64_MAX;
    size_t *best_order = mp_malloc_big((p->in.n ? p->in.n : 1) * sizeof *best_order);
    if (!best_order) ok = false;
    for (size_t o = 0; ok && o < norders; o++) {
        for (size_t k = 0; k < p->in.n; k++) p->order[k] = k;
        ok = mp_sort_idx(p->order, p->in.n, orders[o], &p->in);
        for (size_t k = 0; ok && k < p->in.n; k++) p->rank[p->order[k]] = k;
        uint64_t h = ok ? mp_skyline_decode(s, p->rank, p->trial, &p->work, NULL) : UINT64_MAX;
        if (h < best) {
            best = h;
            memcpy(best_order, p->order, p->in.n * sizeof *best_order);
        }
        if (ok && ((which & MEMPLAN_HEUR_SKYLINE) || p->out->heuristic == 0))
            keep_if_better(p, h, MEMPLAN_HEUR_SKYLINE);
    }
    if (ok) memcpy(p->order, best_order, p->in.n * sizeof *best_order);
    free(best_order);
    if (ok && (which & MEMPLAN_HEUR_SEARCH) && opt->budget_ms > 0 && p->out->arena_bytes > p->in.lower_bound &&
        p->in.n <= MP_PACK_MANY) /* above, run_squeaky */
        ok = run_improve(p, which, opt, s);
    mp_skyline_free(s);
    return ok;
}

/* Check options and buffers; fill aligned sizes, start order, lower bound. */
static memplan_status prepare(packer *p, const memplan_buffer *bufs, size_t n, const memplan_pack_options *opt,
                              memplan_error *err) {
    if (!mp_align_ok(opt->align))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "align %llu is not a power of two >= 1",
                                 (unsigned long long)opt->align);
    memplan_status st = mp_plan_check_buffers(bufs, n, err);
    if (st != MEMPLAN_OK) return st;
    uint64_t *size, total;
    st = mp_aligned_sizes(bufs, n, opt->align, &size, &total, err);
    if (st != MEMPLAN_OK) return st;
    p->in.bufs = bufs;
    p->in.n = n;
    p->in.size = size;
    st = memplan_lower_bound(bufs, n, opt->align, &p->in.lower_bound, err);
    if (st != MEMPLAN_OK) return st;
    size_t cap = n ? n : 1;
    p->in.by_start = mp_order_by_start(bufs, n);
    p->trial = mp_malloc_big(cap * sizeof *p->trial);
    p->order = mp_malloc_big(cap * sizeof *p->order);
    p->rank = mp_malloc_big(cap * sizeof *p->rank);
    p->out->offset = mp_calloc_big(cap, sizeof *p->out->offset);
    if (!p->in.by_start || !p->trial || !p->order || !p->rank || !p->out->offset)
        return memplan_error_set(err, MEMPLAN_ENOMEM, "pack: out of memory for %zu buffers", n);
    return MEMPLAN_OK;
}

/* Sum over buffers of how many buffers are live at its start: the work of
 * the best-fit decoders. At most n * n (no overflow below 2^32 buffers); 0
 * when memory runs out. */
static uint64_t overlap_mass(const memplan_buffer *bufs, size_t n) {
    uint64_t *starts = mp_malloc_big((n ? n : 1) * sizeof *starts), *ends = mp_malloc_big((n ? n : 1) * sizeof *ends);
    uint64_t mass = 0;
    for (size_t i = 0; starts && ends && i < n; i++) { /* times are >= 0 */
        starts[i] = (uint64_t)bufs[i].start;
        ends[i] = (uint64_t)bufs[i].end;
    }
    if (starts && ends && mp_radix_sort(starts, NULL, n) && mp_radix_sort(ends, NULL, n)) {
        /* s is the end of starts[i]'s group of equal starts, found once per
         * group: rescanning it for each member was quadratic in ties (200,000
         * identical intervals took 5.9 s). */
        size_t e = 0, s = 0;
        for (size_t i = 0; i < n; i++) { /* live at starts[i]: started at or before, not ended */
            while (e < n && ends[e] <= starts[i]) e++;
            if (s <= i)
                for (s = i + 1; s < n && starts[s] == starts[i];) s++;
            mass += (uint64_t)(s - e);
        }
    }
    free(starts);
    free(ends);
    return mass;
}

/* The fallback: slot plan, slots stacked at aligned offsets. */
static memplan_status slot_layout(packer *p, const memplan_buffer *bufs, size_t n, uint64_t align, memplan_error *err) {
    memplan_slot_plan sp;
    memplan_status st = memplan_plan_slots(bufs, n, MEMPLAN_SLOT_BEST_FIT, &sp, err);
    if (st) return st;
    uint64_t *slot_off = malloc((sp.slot_count ? sp.slot_count : 1) * sizeof *slot_off);
    if (!slot_off) {
        memplan_slot_plan_free(&sp);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "pack: out of memory for %zu buffers", n);
    }
    uint64_t off = 0, top = 0;
    for (size_t s = 0; s < sp.slot_count; s++) {
        slot_off[s] = off;
        uint64_t cap = (sp.slot_bytes[s] + align - 1) / align * align;
        off += cap;
        top = off;
    }
    for (size_t i = 0; i < n; i++) p->trial[i] = slot_off[sp.slot_of[i]];
    keep_if_better(p, top, MEMPLAN_HEUR_SLOT_LAYOUT);
    free(slot_off);
    memplan_slot_plan_free(&sp);
    return MEMPLAN_OK;
}

memplan_status memplan_pack(const memplan_buffer *bufs, size_t n, const memplan_pack_options *opt_in,
                            memplan_arena_plan *out, memplan_error *err) {
    if (!out) return memplan_error_set(err, MEMPLAN_EUSAGE, "pack: NULL result");
    memset(out, 0, sizeof *out);
    memplan_pack_options opt;
    if (opt_in) opt = *opt_in;
    else
        memplan_pack_options_init(&opt);
    unsigned which = opt.heuristics ? opt.heuristics : MEMPLAN_HEUR_ALL;
    /* Above MP_PACK_MANY buffers the search is run_squeaky's. */
    bool squeak = n > MP_PACK_MANY && (which & MEMPLAN_HEUR_SEARCH);
    if (which == MEMPLAN_HEUR_ALL && n > MP_PACK_HUGE) which = MEMPLAN_HEUR_TIME_FIT | MEMPLAN_HEUR_GREEDY_SIZE;
    if (which & ~MEMPLAN_HEUR_ALL)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "pack: unknown heuristic bits 0x%x", which);

    packer p;
    memset(&p, 0, sizeof p);
    p.out = out;
    memplan_status st = prepare(&p, bufs, n, &opt, err);
    bool ok = true;
    if (st == MEMPLAN_OK) {
        out->count = n;
        out->align = opt.align;
        out->lower_bound_bytes = p.in.lower_bound;
        p.unit = mp_size_gcd(p.in.size, n, opt.align);
        p.proven = (p.in.lower_bound + p.unit - 1) / p.unit * p.unit;
        if (n == 0) out->heuristic = MEMPLAN_HEUR_GREEDY_SIZE;
        /* The time-ordered sweep costs O(overlap) with a small constant
         * (mp_greedy_decode_by_start): without the skyline it may take 8x
         * more than the others. */
        uint64_t cap = which & (MEMPLAN_HEUR_SKYLINE | MEMPLAN_HEUR_SEARCH) ? MEMPLAN_PACK_OVERLAP_MAX
                                                                            : 8 * (uint64_t)MEMPLAN_PACK_OVERLAP_MAX;
        if (n > MP_PACK_MANY && overlap_mass(bufs, n) > cap) {
            /* The others would be quadratic here; first fit is not, unless
             * its per-block lists are long (many buffers sharing their
             * times): then the slot layout goes first, which meets the bound
             * on such sets and so skips it (see MP_FF_LISTS_MAX). */
            size_t most = 0;
            const mp_times *t = which & MEMPLAN_HEUR_GREEDY_SIZE ? packer_times(&p) : NULL;
            bool ff_ok = t && mp_first_fit_lists(&p.in, t, &most);
            if (!ff_ok || most > MP_FF_LISTS_MAX) {
                st = slot_layout(&p, bufs, n, opt.align, err);
                squeak = false; /* first fit would be quadratic there */
            }
            which &= MEMPLAN_HEUR_GREEDY_SIZE;
        }
        /* A plan at the lower bound is optimal, and a later heuristic only
         * replaces a strictly lower one: once there, the rest cannot change
         * the result, so they are skipped (most real models end here). Above
         * MP_PACK_MANY time-fit goes first: it meets the bound on most
         * models, and first fit costs more there (run_greedy). */
        if (st == MEMPLAN_OK && n > 0 && !at_bound(&p))
            ok = run_greedy(&p, which & (MEMPLAN_HEUR_TIME_FIT | MEMPLAN_HEUR_GREEDY_SIZE));
        if (ok && n > 0 && (which & (MEMPLAN_HEUR_SKYLINE | MEMPLAN_HEUR_SEARCH)) && !at_bound(&p))
            ok = run_skyline(&p, which, &opt);
        if (ok && squeak && opt.budget_ms > 0 && !at_bound(&p)) ok = run_squeaky(&p, &opt);
        if (!ok) st = memplan_error_set(err, MEMPLAN_ENOMEM, "pack: out of memory for %zu buffers", n);
    }
    if (st == MEMPLAN_OK) {
        out->proven_lower_bound_bytes = MP_MIN(p.proven, out->arena_bytes);
        out->optimal = out->arena_bytes <= p.proven;
        out->gap_ratio = out->lower_bound_bytes == 0 ? 1.0 : (double)out->arena_bytes / (double)out->lower_bound_bytes;
        memplan_error inner;
        if (memplan_validate_arena(bufs, n, out->offset, opt.align, out->arena_bytes, NULL, &inner) != MEMPLAN_OK)
            st = memplan_error_set(err, MEMPLAN_EINTERNAL, "pack (%s): %s", memplan_heuristic_name(out->heuristic),
                                   inner.message);
    }
    free((void *)p.in.size);
    free((void *)p.in.by_start);
    mp_times_free(&p.times);
    free(p.trial);
    free(p.order);
    free(p.rank);
    free(p.key8);
    if (st != MEMPLAN_OK) memplan_arena_plan_free(out);
    return st;
}
