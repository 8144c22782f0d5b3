/*
 * bench_control.c -- planning models whose nodes sit inside control flow:
 * the transformer-like blocks of bench_shapes (10 nodes each, symbolic
 * batch/seq, shape computations) as the main graph, inside an If's
 * then_branch (the else_branch one Identity; the condition a graph input),
 * and inside a Loop's body (3 iterations, the activation carried). For each:
 * the one-shot plan (memplan_plan_model) and what the web page does when a
 * dim changes (a session: the arena plan under a new seq, median of 7).
 * Usage: bench_control [BLOCKS]   (default 1000 = 10,000 nodes)
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

/* `blocks` blocks from value `in` to value `out` in graph g. */
static void add_blocks(mb_graph *g, int blocks, const char *in, const char *out) {
    char a[64], b[64], c[64], d[64], e[64], f[64], h[64], k[64], m[64], n[64], prev[64], ins[256];
    snprintf(prev, sizeof prev, "%s", in);
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
        snprintf(n, sizeof n, "%s", i + 1 == blocks ? out : "");
        if (i + 1 < blocks) snprintf(n, sizeof n, "x%d", i + 1);
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
        mb_node(g, "Mul", k, m);
        snprintf(ins, sizeof ins, "%s,%s", m, c);
        mb_node(g, "Reshape", ins, n);
        snprintf(prev, sizeof prev, "%s", n);
    }
}

typedef enum { FLAT, IN_IF, IN_LOOP } shape_kind;

static uint8_t *model(int blocks, shape_kind kind, size_t *len) {
    mb_graph *g = mb_new_graph("synthetic");
    mb_input(g, "x0", 1, "batch,seq,256");
    mb_input(g, "cond", 9, "");
    mb_initializer(g, "bias", 1, "256");
    const int64_t zero = 0, three = 3, heads[3] = {-1, 8, 32};
    mb_initializer_ints(g, "idx0", "", &zero, 1);
    mb_initializer_ints(g, "ax0", "1", &zero, 1);
    mb_initializer_ints(g, "heads", "3", heads, 3);
    mb_initializer_ints(g, "trips", "", &three, 1);
    if (kind == FLAT) {
        add_blocks(g, blocks, "x0", "y");
    } else if (kind == IN_IF) {
        mb_graph *t = mb_new_graph("then"), *e = mb_new_graph("else");
        add_blocks(t, blocks, "x0", "yt");
        mb_output(t, "yt", 1, NULL);
        mb_node(e, "Identity", "x0", "ye");
        mb_output(e, "ye", 1, NULL);
        Onnx__NodeProto *n = mb_node(g, "If", "cond", "y");
        mb_graph_attr(n, "then_branch", t);
        mb_graph_attr(n, "else_branch", e);
    } else {
        mb_graph *b = mb_new_graph("body");
        mb_input(b, "i", 7, "");
        mb_input(b, "c_in", 9, "");
        mb_input(b, "x_in", 1, NULL);
        add_blocks(b, blocks, "x_in", "x_out");
        mb_node(b, "Identity", "c_in", "c_out");
        mb_output(b, "c_out", 9, "");
        mb_output(b, "x_out", 1, NULL);
        mb_graph_attr(mb_node(g, "Loop", "trips,,x0", "y"), "body", b);
    }
    mb_output(g, "y", 1, NULL);
    return mb_pack(g, len);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void run(const char *label, const uint8_t *bytes, size_t len) {
    memplan_model *m;
    memplan_error err = {0};
    if (memplan_model_load(bytes, len, NULL, &m, &err)) {
        printf("%s: %s\n", label, err.message);
        return;
    }
    memplan_binding dims[] = {{"batch", 1}, {"seq", 128}};
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.bindings = dims;
    o.n_bindings = 2;
    memplan_model_plan *p = NULL;
    double t0 = now_ms();
    memplan_status st = memplan_plan_model(m, &o, &p, &err);
    double t1 = now_ms();
    if (st) printf("%s: %s\n", label, err.message);
    uint64_t peak = p && !p->deferred ? p->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes : 0;
    memplan_model_plan_free(p);
    memplan_model_free(m);

    memplan_session *s;
    if (memplan_session_open(bytes, len, &s, &err)) return;
    enum { N = 7 };
    double t[N];
    for (int k = -1; k < N; k++) {
        char seq[32];
        snprintf(seq, sizeof seq, "seq=%d", 128 + k);
        const char *argv[] = {"--dim", "batch=1", "--dim", seq, "--no-nodes"};
        memplan_request r;
        cli_request_parse(&r, 5, argv, &err);
        char *out = NULL;
        size_t olen;
        double a = now_ms();
        memplan_session_report(s, "plan", &r, true, &out, &olen, &err);
        double b = now_ms();
        free(out);
        memplan_request_free(&r);
        if (k >= 0) t[k] = b - a;
    }
    qsort(t, N, sizeof *t, cmp_double);
    memplan_session_close(s);
    printf("%-34s plan %7.1f ms (peak %llu)   re-plan after a dim change (session, JSON) %7.1f ms\n", label, t1 - t0,
           (unsigned long long)peak, t[N / 2]);
}

int main(int argc, char **argv) {
    int blocks = argc > 1 ? atoi(argv[1]) : 1000;
    static const char *const names[] = {"main graph", "inside an If (then_branch)", "inside a Loop body"};
    for (int kind = FLAT; kind <= IN_LOOP; kind++) {
        size_t len;
        uint8_t *bytes = model(blocks, (shape_kind)kind, &len);
        char label[96];
        snprintf(label, sizeof label, "%d nodes, %s", blocks * 10, names[kind]);
        run(label, bytes, len);
        free(bytes);
    }
    return 0;
}
