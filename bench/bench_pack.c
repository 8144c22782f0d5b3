/*
 * bench_pack.c -- benchmark of the planning core.
 *
 *   bench_pack [DIR] [--synthetic-csv OUTDIR]   DIR defaults to /work/shared/dsa-bench
 *
 * 1. Every .csv file in DIR (id,lower,upper,size) packed with align 1 at search
 *    budgets 0, 100 and 1000 ms: lower bound, arena, gap to the bound,
 *    search iterations, time (median of 3 runs) and an FNV-1a hash of the
 *    offsets ("o1,o2,...", as bench/wasm_bench.mjs prints it for WASM).
 * 2. Synthetic model-like interval sets of 1k..1M buffers: time of the slot
 *    plan, the lower bound and the arena packing with the default budget
 *    (medians of 3 runs).
 * With --table MS[,MS...]: instead of 1 and 2, one row per .csv in DIR with
 *    the lower bound and, at each budget (one run, align 1), the arena, its
 *    gap to the bound, "optimal" when proven or the proven lower bound when
 *    the exact mode raised it, and the time. For bench/gen_dsa.py's
 *    instances: `bench_pack /tmp/gen --table 1000,30000`.
 * With --table MS[,MS...] --reach H: per .csv the first budget of the list
 *    whose arena is at most H (0: the lower bound) and that run's wall time.
 * With --exact STEPS[,SEEDS] [--height H]: one row per .csv in DIR: the exact
 *    mode alone (pack_exact.c, align 1) deciding the lower bound (or H) on a
 *    quota of STEPS, under seeds 1..SEEDS (default 1): per seed the answer
 *    and its steps, then the CPU time of all.
 * With --random N[,N...] [--seed S] [--max-life L] [--model-like] [--fit first|best]: see
 *    bench/README.md "At scale"; --fit times pack_firstfit.c's first or best
 *    fit alone on the greedy-size order.
 * --dump FILE (with --random): the last set and its offsets as CSV
 *    (id,lower,upper,size,offset).
 * The process heap is set up as the memplan command's (util/heap.h: fewer
 * page faults on large sets); --plain-heap keeps malloc's defaults, as a
 * host application that calls memplan_pack may have them.
 * 3. With --synthetic-csv OUTDIR: the 1k..1M sets written there as
 *    synthetic-N.csv, and CSV parse + pack (default options, what `memplan
 *    pack` and mp_pack_csv do) timed on that text; `node bench/wasm_bench.mjs
 *    build/wasm DSA OUTDIR` times the same in WebAssembly.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memplan/plan.h"
#include "plan/pack_internal.h"
#include "util/heap.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) free(buf);
            buf = b;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median3(double *t) {
    qsort(t, 3, sizeof *t, cmp_double);
    return t[1];
}

static uint64_t offsets_hash(const uint64_t *off, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    char num[32];
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(num, sizeof num, i ? ",%llu" : "%llu", (unsigned long long)off[i]);
        for (int k = 0; k < len; k++) h = (h ^ (unsigned char)num[k]) * 0x100000001b3ull;
    }
    return h;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Read DIR/NAME into l and start its table row; false (after printing an
 * error row) when it cannot be read or parsed. */
static bool open_row(const char *dir, const char *name, memplan_buffer_list *l) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *text = read_all(path, &len);
    memplan_error err = {0};
    bool ok = text && memplan_csv_read(text, len, l, &err) == MEMPLAN_OK;
    if (ok) printf("| %s | %zu |", name, l->count);
    else
        printf("| %s | error: %s |\n", name, text ? err.message : "cannot read");
    free(text);
    return ok;
}

static void bench_file(const char *dir, const char *name) {
    static const uint32_t budgets[] = {0, 100, 1000};
    memplan_buffer_list l;
    memplan_error err = {0};
    if (!open_row(dir, name, &l)) return;
    for (size_t k = 0; k < 3; k++) {
        memplan_pack_options o;
        memplan_pack_options_init(&o);
        o.align = 1;
        o.budget_ms = budgets[k];
        memplan_arena_plan p;
        double t[3];
        bool failed = false;
        for (int r = 0; r < 3 && !failed; r++) {
            double t0 = now_ms();
            if (memplan_pack(l.buffers, l.count, &o, &p, &err) != MEMPLAN_OK) failed = true;
            t[r] = now_ms() - t0;
            if (!failed && r < 2) memplan_arena_plan_free(&p);
        }
        if (failed) {
            printf(" error: %s |", err.message);
            continue;
        }
        if (k == 0) printf(" %llu |", (unsigned long long)p.lower_bound_bytes);
        printf(" %llu (+%.2f%%, %s, %llu it, %.0f ms, %016llx) |", (unsigned long long)p.arena_bytes,
               100.0 * (p.gap_ratio - 1.0), memplan_heuristic_name(p.heuristic), (unsigned long long)p.iterations,
               median3(t), (unsigned long long)offsets_hash(p.offset, p.count));
        memplan_arena_plan_free(&p);
    }
    printf("\n");
    memplan_buffer_list_free(&l);
}

/* Budgets of --table, in ms. */
static uint32_t table_budgets[8];
static size_t table_count;

/* memplan_pack at align 1 and `budget` ms, its wall time in *t; on an
 * error the message is printed as a cell and false returned. */
static bool pack_timed(const memplan_buffer_list *l, uint32_t budget, memplan_arena_plan *p, double *t) {
    memplan_pack_options o;
    memplan_pack_options_init(&o);
    o.align = 1;
    o.budget_ms = budget;
    memplan_error err = {0};
    double t0 = now_ms();
    if (memplan_pack(l->buffers, l->count, &o, p, &err) != MEMPLAN_OK) {
        printf(" error: %s |", err.message);
        return false;
    }
    *t = now_ms() - t0;
    return true;
}

/* One --table row: bound, then per budget arena (+gap, proof, time). */
static void table_file(const char *dir, const char *name) {
    memplan_buffer_list l;
    if (!open_row(dir, name, &l)) return;
    for (size_t k = 0; k < table_count; k++) {
        memplan_arena_plan p;
        double t;
        if (!pack_timed(&l, table_budgets[k], &p, &t)) continue;
        if (k == 0) printf(" %llu |", (unsigned long long)p.lower_bound_bytes);
        char proof[64] = "";
        if (p.optimal) snprintf(proof, sizeof proof, ", optimal");
        else if (p.proven_lower_bound_bytes > p.lower_bound_bytes)
            snprintf(proof, sizeof proof, ", >= %llu", (unsigned long long)p.proven_lower_bound_bytes);
        printf(" %llu (+%.2f%%%s, %s, %.0f ms) |", (unsigned long long)p.arena_bytes, 100.0 * (p.gap_ratio - 1.0),
               proof, memplan_heuristic_name(p.heuristic), t);
        fflush(stdout);
        memplan_arena_plan_free(&p);
    }
    printf("\n");
    memplan_buffer_list_free(&l);
}

/* --reach H with --table MS,...: per file, the first budget of the list
 * whose arena is at most H (0: the lower bound), and that run's wall time:
 * the time to a target height, e.g. an exact solver's (MiniMalloc decides
 * capacity 1048576). */
static uint64_t reach_height;
static bool reach_set;

static void reach_file(const char *dir, const char *name) {
    memplan_buffer_list l;
    if (!open_row(dir, name, &l)) return;
    bool met = false;
    for (size_t k = 0; k < table_count && !met; k++) {
        memplan_arena_plan p;
        double t;
        if (!pack_timed(&l, table_budgets[k], &p, &t)) break;
        uint64_t target = reach_height ? reach_height : p.lower_bound_bytes;
        if (k == 0) printf(" %llu | %llu |", (unsigned long long)p.lower_bound_bytes, (unsigned long long)target);
        if (p.arena_bytes <= target) {
            printf(" %u ms | %llu (%s) | %.1f ms |", table_budgets[k], (unsigned long long)p.arena_bytes,
                   memplan_heuristic_name(p.heuristic), t);
            met = true;
        }
        memplan_arena_plan_free(&p);
    }
    if (!met) printf(" not within %u ms | | |", table_count ? table_budgets[table_count - 1] : 0);
    printf("\n");
    fflush(stdout);
    memplan_buffer_list_free(&l);
}

/* --exact STEPS[,SEEDS]: the exact mode alone at the lower bound, or at
 * --height H when given (e.g. the capacity 1048576 that MiniMalloc's
 * tables decide). */
static uint64_t exact_steps, exact_height;
static unsigned exact_seeds = 1;

static void exact_file(const char *dir, const char *name) {
    memplan_buffer_list l;
    if (!open_row(dir, name, &l)) return;
    size_t n = l.count, cap = n ? n : 1;
    uint64_t *size = malloc(cap * sizeof *size), *off = malloc(cap * sizeof *off), lb = 0;
    size_t *by_start = mp_order_by_start(l.buffers, n);
    for (size_t i = 0; size && i < n; i++) size[i] = l.buffers[i].size;
    mp_exact *x = NULL;
    if (size && off && by_start && memplan_lower_bound(l.buffers, n, 1, &lb, NULL) == MEMPLAN_OK) {
        mp_pack_input in = {l.buffers, n, size, by_start, lb};
        x = mp_exact_new(&in);
    }
    if (!x) printf(" error: no tables |");
    else {
        printf(" %llu |", (unsigned long long)lb);
        uint64_t h = exact_height ? exact_height : lb;
        clock_t c0 = clock();
        for (unsigned seed = 1; seed <= exact_seeds; seed++) {
            mp_exact_set_seed(x, seed);
            uint64_t work = 0;
            mp_exact_status st = mp_exact_decide(x, h, exact_steps, &work, off);
            static const char *names[] = {"feasible", "infeasible", "unknown", "out of memory"};
            printf(" %s %.1f M |", names[st], (double)work / 1e6);
            if (st == MP_EXACT_FEASIBLE && memplan_validate_arena(l.buffers, n, off, 1, h, NULL, NULL) != MEMPLAN_OK)
                printf(" INVALID |");
            fflush(stdout);
        }
        printf(" %.0f ms CPU |", 1e3 * (double)(clock() - c0) / CLOCKS_PER_SEC);
    }
    printf("\n");
    mp_exact_free(x);
    free(size);
    free(off);
    free(by_start);
    memplan_buffer_list_free(&l);
}

static void bench_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        printf("cannot open %s\n", dir);
        return;
    }
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".csv") == 0) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    if (exact_steps) {
        printf("| instance | buffers | lower bound |");
        for (unsigned k = 1; k <= exact_seeds; k++) printf(" seed %u |", k);
        printf(" time |\n|---|---|---|");
        for (unsigned k = 0; k <= exact_seeds; k++) printf("---|");
        printf("\n");
    } else if (reach_set && table_count) {
        printf("| instance | buffers | lower bound | target | first budget | arena | wall "
               "|\n|---|---|---|---|---|---|---|\n");
    } else if (table_count) {
        printf("| instance | buffers | lower bound |");
        for (size_t k = 0; k < table_count; k++) printf(" arena @%u ms |", (unsigned)table_budgets[k]);
        printf("\n|---|---|---|");
        for (size_t k = 0; k < table_count; k++) printf("---|");
        printf("\n");
    } else {
        printf("| instance | buffers | lower bound | arena @0 ms | arena @100 ms | arena @1000 ms |\n");
        printf("|---|---|---|---|---|---|\n");
    }
    for (size_t i = 0; i < n; i++) {
        if (exact_steps) exact_file(dir, names[i]);
        else if (reach_set && table_count)
            reach_file(dir, names[i]);
        else if (table_count)
            table_file(dir, names[i]);
        else
            bench_file(dir, names[i]);
        free(names[i]);
    }
}

/* ------------------------------------------------------------ synthetic */

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A model-like set: about two outputs per step, most read by the next few
 * steps, some by a skip connection tens of steps later, rare ones hundreds
 * of steps later, and 8 graph outputs alive to the end. */
static void synth(memplan_buffer *b, size_t n) {
    int64_t steps = (int64_t)(n / 2 + 1);
    for (size_t i = 0; i < n; i++) {
        int64_t s = (int64_t)(i / 2);
        uint64_t r = rnd() % 100;
        int64_t len = r < 80   ? 1 + (int64_t)(rnd() % 4)
                      : r < 98 ? 5 + (int64_t)(rnd() % 60)
                               : 100 + (int64_t)(rnd() % 900);
        if (i % (n / 8 + 1) == 7) len = steps - s;
        uint64_t size = 64 * (1 + rnd() % 16384); /* 64 B .. 1 MiB */
        b[i] = (memplan_buffer){size, s, s + len};
    }
}

static void bench_synthetic(void) {
    static const size_t sizes[] = {1000, 10000, 100000, 1000000};
    printf("\n| buffers | slot plan | lower bound | arena (default budget) | arena / lower bound | winner |\n");
    printf("|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < 4; k++) {
        size_t n = sizes[k];
        memplan_buffer *b = malloc(n * sizeof *b);
        if (!b) return;
        synth(b, n);
        memplan_error err = {0};
        memplan_slot_plan sp;
        memplan_arena_plan ap;
        uint64_t lb = 0;
        double t_slot[3], t_lb[3], t_pack[3];
        memplan_status st = MEMPLAN_OK;
        for (int r = 0; r < 3 && st == MEMPLAN_OK; r++) {
            double t0 = now_ms();
            st = memplan_plan_slots(b, n, MEMPLAN_SLOT_BEST_FIT, &sp, &err);
            t_slot[r] = now_ms() - t0;
            t0 = now_ms();
            if (st == MEMPLAN_OK) st = memplan_lower_bound(b, n, 64, &lb, &err);
            t_lb[r] = now_ms() - t0;
            t0 = now_ms();
            if (st == MEMPLAN_OK) st = memplan_pack(b, n, NULL, &ap, &err);
            t_pack[r] = now_ms() - t0;
            if (st == MEMPLAN_OK && r < 2) {
                memplan_slot_plan_free(&sp);
                memplan_arena_plan_free(&ap);
            }
        }
        if (st != MEMPLAN_OK) {
            printf("| %zu | error: %s |\n", n, err.message);
        } else {
            printf("| %zu | %.1f ms (peak %.3g MB) | %.1f ms | %.1f ms (%.3g MB) | %.4f | %s |\n", n, median3(t_slot),
                   (double)sp.peak_bytes / 1e6, median3(t_lb), median3(t_pack), (double)ap.arena_bytes / 1e6,
                   ap.gap_ratio, memplan_heuristic_name(ap.heuristic));
            memplan_slot_plan_free(&sp);
            memplan_arena_plan_free(&ap);
        }
        free(b);
    }
}

/* ------------------------------------------------------- random lifetimes */

/* A random-lifetime set (not model-like: no chain structure to make
 * time-ordered fits look good): n buffers over n/2 time steps, each
 * starting at a uniform step and living a log-uniform 1 .. 1000 steps
 * (about 290 live at a time at any n, as in a long program whose lifetimes
 * do not grow with its length), sized uniformly 64 B .. 1 MiB in 64 B
 * units. Seeded: the same set every run. */
static void random_lifetimes(memplan_buffer *b, size_t n, uint64_t seed, double max_life) {
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    uint64_t steps = n / 2 + 1;
    for (size_t i = 0; i < n; i++) {
        int64_t s = (int64_t)(rnd() % steps);
        double u = (double)(rnd() >> 11) * 0x1.0p-53;
        int64_t len = (int64_t)pow(max_life, u); /* 1 .. max_life */
        if (len < 1) len = 1;
        b[i] = (memplan_buffer){64 * (1 + rnd() % 16384), s, s + len};
    }
}

/* Budgets and heuristic bits of --random (heuristics 0: the default). */
static uint32_t random_budget = MEMPLAN_PACK_DEFAULT_BUDGET_MS;
static unsigned random_heur;
static bool random_model_like; /* --model-like: synth()'s sets instead */

/* --max-life L: lifetimes log-uniform 1 .. L steps (default 1000). */
static double random_max_life = 1000.0;
/* --seed S: the random set's seed (default 1). */
static uint64_t random_seed = 1;

/* --fit first|best: the decoder alone instead of memplan_pack. */
static const char *random_fit;
static const char *random_dump; /* --dump FILE: the last set and its offsets as CSV */

/* Size descending, longer lifetime, earlier start (then index): the
 * greedy-size order of pack.c. */
static int cmp_size_desc(const void *ctx, size_t a, size_t b) {
    const memplan_buffer *x = &((const memplan_buffer *)ctx)[a], *y = &((const memplan_buffer *)ctx)[b];
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    if (x->end - x->start != y->end - y->start) return x->end - x->start > y->end - y->start ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* One --fit row: first or best fit through pack_firstfit.c's index on the
 * size order (the sizes are multiples of 64 already), CPU time of the
 * decoder alone. */
static void fit_row(const memplan_buffer *b, size_t n) {
    uint64_t *size = malloc(n * sizeof *size), *off = malloc(n * sizeof *off), lb = 0, h = 0, work = 0;
    size_t *order = malloc(n * sizeof *order);
    for (size_t i = 0; size && order && i < n; i++) {
        size[i] = b[i].size;
        order[i] = i;
    }
    bool best = strcmp(random_fit, "best") == 0, ok = size && off && order && mp_sort_idx(order, n, cmp_size_desc, b) &&
                                                      memplan_lower_bound(b, n, 64, &lb, NULL) == MEMPLAN_OK;
    mp_pack_input in = {b, n, size, NULL, lb};
    clock_t c0 = clock();
    ok = ok && (best ? mp_best_fit(&in, order, off, &h, &work) : mp_first_fit(&in, NULL, order, off, &h, &work));
    double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (!ok || memplan_validate_arena(b, n, off, 64, h, NULL, NULL) != MEMPLAN_OK) printf("| %zu | error |\n", n);
    else
        printf("| %zu | %llu | %llu | %.4f | %s fit | %.2f s CPU |\n", n, (unsigned long long)lb, (unsigned long long)h,
               (double)h / (double)lb, best ? "best" : "first", cpu);
    free(size), free(off), free(order);
}

/* --dump: the set and the plan's offsets, one buffer a line. */
static void dump_plan(const char *path, const memplan_buffer *b, size_t n, const memplan_arena_plan *p) {
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("cannot write %s\n", path);
        return;
    }
    fputs("id,lower,upper,size,offset\n", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%zu,%lld,%lld,%llu,%llu\n", i, (long long)b[i].start, (long long)b[i].end,
                (unsigned long long)b[i].size, (unsigned long long)p->offset[i]);
    fclose(f);
}

/* --random N[,N...]: one row per size, one seeded set each. */
static void bench_random(char *sizes) {
    printf("| buffers | lower bound | arena | arena / bound | winner | time |\n|---|---|---|---|---|---|\n");
    for (char *t = strtok(sizes, ","); t; t = strtok(NULL, ",")) {
        size_t n = (size_t)strtoull(t, NULL, 10);
        memplan_buffer *b = malloc((n ? n : 1) * sizeof *b);
        if (!b) return;
        if (random_model_like) {
            rng = 88172645463325252ull;
            synth(b, n);
        } else
            random_lifetimes(b, n, random_seed, random_max_life);
        if (random_fit) {
            fit_row(b, n);
            free(b);
            continue;
        }
        memplan_pack_options o;
        memplan_pack_options_init(&o);
        o.budget_ms = random_budget;
        o.heuristics = random_heur;
        memplan_arena_plan p;
        memplan_error err = {0};
        double t0 = now_ms();
        memplan_status st = memplan_pack(b, n, &o, &p, &err);
        double ms = now_ms() - t0;
        if (st != MEMPLAN_OK) printf("| %zu | error: %s |\n", n, err.message);
        else {
            printf("| %zu | %llu | %llu | %.4f | %s | %.0f ms |\n", n, (unsigned long long)p.lower_bound_bytes,
                   (unsigned long long)p.arena_bytes, p.gap_ratio, memplan_heuristic_name(p.heuristic), ms);
            if (random_dump) dump_plan(random_dump, b, n, &p);
            memplan_arena_plan_free(&p);
        }
        fflush(stdout);
        free(b);
    }
}

/* The synthetic sets as CSV files, and parse + pack timed on their text. */
static void bench_synthetic_csv(const char *outdir) {
    static const size_t sizes[] = {1000, 10000, 100000, 1000000};
    printf("\n| buffers | CSV parse + pack, native (median of 3) | arena |\n|---|---|---|\n");
    rng = 88172645463325252ull; /* the same sets as bench_synthetic */
    for (size_t k = 0; k < 4; k++) {
        size_t n = sizes[k];
        memplan_buffer *b = malloc(n * sizeof *b);
        char path[4096];
        snprintf(path, sizeof path, "%s/synthetic-%zu.csv", outdir, n);
        FILE *f = b ? fopen(path, "w") : NULL;
        if (!f) {
            free(b);
            printf("| %zu | cannot write %s |\n", n, path);
            return;
        }
        synth(b, n);
        fputs("id,lower,upper,size\n", f);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "b%zu,%lld,%lld,%llu\n", i, (long long)b[i].start, (long long)b[i].end,
                    (unsigned long long)b[i].size);
        fclose(f);
        free(b);
        size_t len;
        char *text = read_all(path, &len);
        double t[3];
        uint64_t arena = 0;
        for (int r = 0; r < 3 && text; r++) {
            memplan_error err = {0};
            memplan_buffer_list list = {0};
            memplan_arena_plan plan = {0};
            double t0 = now_ms();
            if (memplan_csv_read(text, len, &list, &err) == MEMPLAN_OK &&
                memplan_pack(list.buffers, list.count, NULL, &plan, &err) == MEMPLAN_OK)
                arena = plan.arena_bytes;
            t[r] = now_ms() - t0;
            memplan_arena_plan_free(&plan);
            memplan_buffer_list_free(&list);
        }
        if (text) printf("| %zu | %.1f ms | %llu |\n", n, median3(t), (unsigned long long)arena);
        free(text);
    }
}

int main(int argc, char **argv) {
    const char *dir = "/work/shared/dsa-bench", *csv_out = NULL;
    char *random_sizes = NULL;
    bool plain_heap = false;
    for (int i = 1; i < argc; i++) plain_heap |= strcmp(argv[i], "--plain-heap") == 0;
    if (!plain_heap) mp_heap_setup(); /* the heap the memplan command runs on */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--synthetic-csv") == 0 && i + 1 < argc) csv_out = argv[++i];
        else if (strcmp(argv[i], "--random") == 0 && i + 1 < argc)
            random_sizes = argv[++i];
        else if (strcmp(argv[i], "--fit") == 0 && i + 1 < argc)
            random_fit = argv[++i];
        else if (strcmp(argv[i], "--plain-heap") == 0)
            continue;
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
            random_dump = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            random_seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--max-life") == 0 && i + 1 < argc)
            random_max_life = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "--model-like") == 0)
            random_model_like = true;
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            random_budget = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--heuristics") == 0 && i + 1 < argc)
            random_heur = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--table") == 0 && i + 1 < argc) {
            for (char *t = strtok(argv[++i], ","); t && table_count < 8; t = strtok(NULL, ","))
                table_budgets[table_count++] = (uint32_t)strtoul(t, NULL, 10);
        } else if (strcmp(argv[i], "--exact") == 0 && i + 1 < argc) {
            char *end;
            exact_steps = strtoull(argv[++i], &end, 10);
            if (*end == ',') exact_seeds = (unsigned)strtoul(end + 1, NULL, 10);
            if (exact_seeds < 1) exact_seeds = 1;
        } else if (strcmp(argv[i], "--reach") == 0 && i + 1 < argc) {
            reach_height = strtoull(argv[++i], NULL, 10);
            reach_set = true;
        } else if (strcmp(argv[i], "--height") == 0 && i + 1 < argc)
            exact_height = strtoull(argv[++i], NULL, 10);
        else
            dir = argv[i];
    }
    if (random_sizes) {
        bench_random(random_sizes);
        return 0;
    }
    bench_dir(dir);
    if (table_count || exact_steps) return 0;
    bench_synthetic();
    if (csv_out) bench_synthetic_csv(csv_out);
    return 0;
}
