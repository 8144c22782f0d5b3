/*
 * bench_shapes.c -- shape inference and the whole plan on synthetic
 * transformer-like graphs (symbolic batch/seq, shape computations, MatMul-free
 * so only rules that exist are timed) of 1k, 10k and 100k nodes, and on any
 * model files given as arguments. Target: < 10 ms per 10,000 nodes natively.
 * Then what the web page does when a dim changes, through a session (its
 * stage cache, memplan/session.h): the arena plan under new dims, the slot
 * plan (same dims: cached), the profile (its analyses cached per model), as
 * medians over 7 new bindings.
 * Usage: bench_shapes [MODEL.onnx ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "memplan/session.h"
#include "cli/args.h"
#include "model_builder.h"

static double now_ms(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Blocks of: Relu -> Add(residual) -> Shape -> Gather -> Unsqueeze -> Concat
 * -> Reshape -> Transpose -> Reshape back, 10 nodes per block. */
static uint8_t *synthetic(int blocks, size_t *len) {
    mb_graph *g = mb_new_graph("synthetic");
    mb_input(g, "x0", 1, "batch,seq,256");
    mb_initializer(g, "bias", 1, "256");
    const int64_t zero = 0, heads[3] = {-1, 8, 32};
    mb_initializer_ints(g, "idx0", "", &zero, 1);
    mb_initializer_ints(g, "ax0", "1", &zero, 1);
    mb_initializer_ints(g, "heads", "3", heads, 3);
    char a[64], b[64], c[64], d[64], e[64], f[64], h[64], k[64], m[64], n[64], ins[256];
    for (int i = 0; i < blocks; i++) {
        snprintf(a, sizeof a, "r%d", i);
        snprintf(b, sizeof b, "s%d", i);
        snprintf(c, sizeof c, "sh%d", i);
        snprintf(d, sizeof d, "b%d", i);
        snprintf(e, sizeof e, "bu%d", i);
        snprintf(f, sizeof f, "t%d", i);
        snprintf(h, sizeof h, "v%d", i);
        snprintf(k, sizeof k, "p%d", i);
        snprintf(m, sizeof m, "q%d", i);
        snprintf(n, sizeof n, "x%d", i + 1);
        char prev[64];
        snprintf(prev, sizeof prev, "x%d", i);
        mb_node(g, "Relu", prev, a);
        snprintf(ins, sizeof ins, "%s,bias", a);
        mb_node(g, "Add", ins, b);
        mb_node(g, "Shape", b, c);
        snprintf(ins, sizeof ins, "%s,idx0", c);
        mb_node(g, "Gather", ins, d);
        snprintf(ins, sizeof ins, "%s,ax0", d);
        mb_node(g, "Unsqueeze", ins, e);
        snprintf(ins, sizeof ins, "%s,heads", e);
        mb_node(g, "Concat", ins, f);
        snprintf(ins, sizeof ins, "%s,%s", b, f);
        mb_node(g, "Reshape", ins, h);
        mb_node(g, "Sigmoid", h, k);
        mb_node(g, "Mul", ins[0] ? k : k, m);
        snprintf(ins, sizeof ins, "%s,%s", m, c);
        mb_node(g, "Reshape", ins, n);
    }
    char last[64];
    snprintf(last, sizeof last, "x%d", blocks);
    mb_output(g, last, 1, NULL);
    return mb_pack(g, len);
}

static void run(const char *label, const uint8_t *bytes, size_t len) {
    memplan_model *m;
    memplan_error err = {0};
    double t0 = now_ms();
    if (memplan_model_load(bytes, len, NULL, &m, &err)) {
        printf("%-40s load failed: %s\n", label, err.message);
        return;
    }
    double t1 = now_ms();
    memplan_shapes *s = NULL;
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        double a = now_ms();
        if (memplan_shapes_infer(m, &s, &err)) {
            printf("%s: %s\n", label, err.message);
            break;
        }
        double b = now_ms();
        if (b - a < best) best = b - a;
        if (rep < 2) memplan_shapes_free(s);
    }
    int64_t known = 0;
    for (int32_t v = 0; v < m->graph->n_values; v++) {
        const memplan_vshape *vs = memplan_shapes_value(s, m->graph, v);
        known += vs && vs->bytes != MEMPLAN_EXPR_NONE;
    }
    memplan_shapes_free(s);
    memplan_request r;
    const char *argv[] = {"--dim", "batch=1", "--dim", "seq=128"};
    cli_request_parse(&r, 4, argv, &err);
    char *json;
    size_t jl;
    double t2 = now_ms();
    memplan_status st = memplan_report_json(m, "plan", &r, &json, &jl, &err);
    double t3 = now_ms();
    if (!st) free(json);
    memplan_request_free(&r);
    printf("%-40s %8d nodes %8d values  load %7.1f ms  shapes %7.1f ms (%5.1f ms/10k nodes)  plan %7.1f ms  known "
           "%.1f%%\n",
           label, (int)m->graph->n_nodes, (int)m->graph->n_values, t1 - t0, best,
           m->graph->n_nodes ? best * 10000.0 / m->graph->n_nodes : 0.0, t3 - t2,
           100.0 * (double)known / (double)(m->graph->n_values ? m->graph->n_values : 1));
    memplan_model_free(m);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One session call; its time in ms (negative on failure). */
static double timed_report(memplan_session *s, const char *command, int argc, const char *const *argv) {
    memplan_request r;
    memplan_error err = {0};
    char *out = NULL;
    size_t len;
    memplan_status st = cli_request_parse(&r, argc, argv, &err);
    double t0 = now_ms();
    if (!st) st = memplan_session_report(s, command, &r, true, &out, &len, &err);
    double t = now_ms() - t0;
    free(out);
    memplan_request_free(&r);
    return st ? -1.0 : t;
}

static void replan(const char *label, const uint8_t *bytes, size_t len) {
    memplan_session *s;
    memplan_error err = {0};
    if (memplan_session_open(bytes, len, &s, &err)) return;
    enum { N = 7 };
    double arena[N], slots[N], profile[N];
    for (int k = -1; k < N; k++) { /* k = -1 warms the caches up */
        char seq[32];
        snprintf(seq, sizeof seq, "seq=%d", 128 + k);
        const char *a[] = {"--dim", "batch=1", "--dim", seq, "--no-nodes"};
        const char *b[] = {"--dim", "batch=1", "--dim", seq, "--no-nodes", "--strategy", "slots"};
        double ta = timed_report(s, "plan", 5, a), tb = timed_report(s, "plan", 7, b);
        double tc = timed_report(s, "profile", 4, a);
        if (k >= 0) arena[k] = ta, slots[k] = tb, profile[k] = tc;
    }
    qsort(arena, N, sizeof *arena, cmp_double);
    qsort(slots, N, sizeof *slots, cmp_double);
    qsort(profile, N, sizeof *profile, cmp_double);
    printf("%-40s re-plan after a dim change (session): arena plan %6.1f ms, slot plan %6.1f ms, profile %6.1f ms\n",
           label, arena[N / 2], slots[N / 2], profile[N / 2]);
    memplan_session_close(s);
}

int main(int argc, char **argv) {
    const int sizes[] = {100, 1000, 10000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t len;
        uint8_t *bytes = synthetic(sizes[i], &len);
        char label[64];
        snprintf(label, sizeof label, "synthetic %d blocks", sizes[i]);
        run(label, bytes, len);
        replan(label, bytes, len);
        free(bytes);
    }
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        uint8_t *buf = malloc((size_t)n);
        if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
            const char *base = strrchr(argv[i], '/');
            run(base ? base + 1 : argv[i], buf, (size_t)n);
        }
        free(buf);
        fclose(f);
    }
    return 0;
}
