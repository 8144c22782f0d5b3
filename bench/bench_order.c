/*
 * bench_order.c -- the schedulers on random branchy models (gen_branchy.h:
 * U-Nets, feature pyramids, both): for each model the arena lower bound
 * under every scheduler's order, what best keeps and whether it is proven,
 * the time best takes (memplan_schedule_run, default budget), and the time
 * of the whole `plan --order best` (memplan_plan_model) beside `plan`.
 * Exits 1 when best is above the lowest of greedy, dfs and postorder.
 * Usage: bench_order [SEEDS]   (default 5 per size and kind)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen_branchy.h"
#include "memplan/memplan.h"
#include "plan/model_order.h"

static double now_ms(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static memplan_model_plan *plan(const memplan_model *m, memplan_order_kind k, double *ms) {
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.order = k;
    memplan_model_plan *p = NULL;
    memplan_error err = {0};
    double t0 = now_ms();
    if (memplan_plan_model(m, &o, &p, &err)) {
        fprintf(stderr, "plan: %s\n", err.message);
        exit(2);
    }
    *ms = now_ms() - t0;
    return p;
}

/* One model: a row of the table; false when best loses to a heuristic. */
static bool row(const char *kind_name, uint64_t seed, int want_nodes, int kind) {
    size_t len;
    int n_nodes;
    uint8_t *bytes = gen_model(seed, want_nodes, kind, &len, &n_nodes);
    memplan_model *m = NULL;
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &m, &err)) {
        fprintf(stderr, "load: %s\n", err.message);
        exit(2);
    }
    free(bytes);
    double t_file, t_best;
    memplan_model_plan *f = plan(m, MEMPLAN_ORDER_FILE, &t_file);
    mp_order_problem q;
    if (f->deferred || mp_order_problem_build(f, &q, &err)) {
        fprintf(stderr, "problem: %s\n", f->deferred ? "deferred" : err.message);
        exit(2);
    }
    uint64_t peak[MEMPLAN_ORDER_COUNT];
    bool exact = false;
    double t_sched = 0;
    for (int k = 0; k < MEMPLAN_ORDER_COUNT; k++) {
        memplan_schedule s;
        double t0 = now_ms();
        if (memplan_schedule_run(&q.p, (memplan_order_kind)k, MEMPLAN_ORDER_DEFAULT_BUDGET_MS, &s, &err)) {
            fprintf(stderr, "schedule: %s\n", err.message);
            exit(2);
        }
        if (k == MEMPLAN_ORDER_BEST) t_sched = now_ms() - t0, exact = s.exact;
        peak[k] = s.peak;
        memplan_schedule_free(&s);
    }
    mp_order_problem_free(&q);
    memplan_model_plan *b = plan(m, MEMPLAN_ORDER_BEST, &t_best);
    uint64_t fl = f->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes;
    uint64_t bl = b->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes;
    uint64_t heur = peak[MEMPLAN_ORDER_GREEDY];
    if (peak[MEMPLAN_ORDER_DFS] < heur) heur = peak[MEMPLAN_ORDER_DFS];
    if (peak[MEMPLAN_ORDER_POSTORDER] < heur) heur = peak[MEMPLAN_ORDER_POSTORDER];
    printf("%-6s %6d %10llu %10llu %10llu %10llu %10llu %10llu %10llu %10llu %-5s %5.1f%% %5.1f%% %8.1f %8.1f %8.1f\n",
           kind_name, n_nodes, (unsigned long long)fl, (unsigned long long)peak[MEMPLAN_ORDER_GREEDY],
           (unsigned long long)peak[MEMPLAN_ORDER_DFS], (unsigned long long)peak[MEMPLAN_ORDER_POSTORDER],
           (unsigned long long)peak[MEMPLAN_ORDER_FORWARD], (unsigned long long)peak[MEMPLAN_ORDER_BEAM],
           (unsigned long long)peak[MEMPLAN_ORDER_EXACT], (unsigned long long)bl, exact ? "yes" : "no",
           fl ? 100.0 * (double)(fl - bl) / (double)fl : 0.0,
           f->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes ? 100.0 *
                                                               ((double)f->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes -
                                                                (double)b->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes) /
                                                               (double)f->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes
                                                         : 0.0,
           t_sched, t_file, t_best);
    bool ok = peak[MEMPLAN_ORDER_BEST] <= heur && bl == peak[MEMPLAN_ORDER_BEST] && bl <= fl;
    if (!ok)
        printf("  ^ best %llu above a heuristic (%llu) or the plan's bound\n",
               (unsigned long long)peak[MEMPLAN_ORDER_BEST], (unsigned long long)heur);
    memplan_model_plan_free(b);
    memplan_model_plan_free(f);
    memplan_model_free(m);
    return ok;
}

int main(int argc, char **argv) {
    int seeds = argc > 1 ? atoi(argv[1]) : 5;
    static const char *const KINDS[] = {"unet", "fpn", "mixed"};
    static const int SIZES[] = {60, 1000, 10000};
    printf("lower bounds (bytes, arena, align 64) under each scheduler's order; saving = file -> best;\n"
           "sched = memplan_schedule_run(best) ms; file/best = the whole plan ms\n");
    printf("%-6s %6s %10s %10s %10s %10s %10s %10s %10s %10s %-5s %6s %6s %8s %8s %8s\n", "model", "nodes", "file",
           "greedy", "dfs", "postorder", "forward", "beam", "exact", "best", "exact", "lb", "peak", "sched", "file",
           "best");
    bool ok = true;
    for (size_t z = 0; z < sizeof SIZES / sizeof SIZES[0]; z++)
        for (int k = 0; k < 3; k++)
            for (int s = 0; s < (SIZES[z] >= 10000 ? 1 : seeds); s++) ok &= row(KINDS[k], (uint64_t)s + 1, SIZES[z], k);
    return ok ? 0 : 1;
}
