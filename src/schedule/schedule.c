/*
 * schedule.c -- memplan_schedule_run: compile the problem, run the
 * scheduler asked for (or all of them for best) and measure each order.
 *
 * best: the six heuristics, then the beam search on 2/5 of the work, then
 * the exact search on the rest with every order so far as its candidates.
 * The lowest peak wins; on a tie the earlier in that list, so an order that
 * does not lower the peak never replaces the file's.
 */
#include <stdlib.h>
#include <string.h>

#include "schedule/sched_internal.h"

static const char *const NAMES[MEMPLAN_ORDER_COUNT] = {"file",        "greedy", "dfs",   "postorder", "forward",
                                                       "onnxruntime", "beam",   "exact", "best"};

const char *memplan_order_name(memplan_order_kind k) {
    return (unsigned)k < MEMPLAN_ORDER_COUNT ? NAMES[k] : "unknown";
}

bool memplan_order_parse(const char *name, memplan_order_kind *k) {
    for (int i = 0; i < MEMPLAN_ORDER_COUNT; i++)
        if (strcmp(name, NAMES[i]) == 0) {
            *k = (memplan_order_kind)i;
            return true;
        }
    return false;
}

void memplan_schedule_free(memplan_schedule *s) {
    free(s->order);
    memset(s, 0, sizeof *s);
}

/* One heuristic's order. */
static memplan_status heuristic(const mp_sched *s, memplan_order_kind k, int32_t *order, memplan_error *err) {
    switch (k) {
    case MEMPLAN_ORDER_GREEDY: return mp_sched_greedy(s, order, err);
    case MEMPLAN_ORDER_DFS: return mp_sched_dfs(s, true, order, err);
    case MEMPLAN_ORDER_POSTORDER: return mp_sched_dfs(s, false, order, err);
    case MEMPLAN_ORDER_FORWARD: return mp_sched_forward(s, order, err);
    case MEMPLAN_ORDER_ONNXRUNTIME: return mp_sched_onnxruntime(s, order, err);
    default:
        for (int32_t i = 0; i < s->n; i++) order[i] = i;
        return MEMPLAN_OK;
    }
}

/* The orders of every scheduler up to `last` (kinds FILE..last), each measured;
 * the lowest (first on a tie) to out. */
static memplan_status run_all(const mp_sched *s, memplan_order_kind last, uint64_t work, memplan_schedule *out,
                              memplan_error *err) {
    int32_t n = s->n;
    size_t nn = (size_t)n + 1;
    int32_t *ord[MEMPLAN_ORDER_COUNT] = {0};
    uint64_t peak[MEMPLAN_ORDER_COUNT] = {0};
    bool have[MEMPLAN_ORDER_COUNT] = {0};
    int32_t *pos = malloc(nn * sizeof *pos);
    uint64_t *delta = malloc(2 * nn * sizeof *delta);
    memplan_status st = pos && delta ? MEMPLAN_OK : memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    const int32_t *cand[MEMPLAN_ORDER_COUNT];
    size_t n_cand = 0;
    bool exact = false;
    for (int k = MEMPLAN_ORDER_FILE; !st && k <= (int)last; k++) {
        if (!(ord[k] = malloc(nn * sizeof *ord[k]))) {
            st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
            break;
        }
        if (k == MEMPLAN_ORDER_BEAM) {
            st = mp_sched_beam(s, last == MEMPLAN_ORDER_BEAM ? work : work / 5 * 2, ord[k], &have[k], err);
            if (have[k] && last != MEMPLAN_ORDER_BEAM) work -= work / 5 * 2;
        } else if (k == MEMPLAN_ORDER_EXACT) {
            st = mp_sched_exact(s, cand, n_cand, work, ord[k], &exact, err);
            have[k] = true;
        } else {
            st = heuristic(s, (memplan_order_kind)k, ord[k], err);
            have[k] = true;
        }
        if (st || !have[k]) continue;
        peak[k] = mp_sched_eval(s, ord[k], pos, delta);
        cand[n_cand++] = ord[k];
    }
    int best = -1;
    for (int k = MEMPLAN_ORDER_FILE; !st && k <= (int)last; k++)
        if (have[k] && (best < 0 || peak[k] < peak[best])) best = k;
    if (!st) {
        out->kind = (memplan_order_kind)best;
        out->order = ord[best];
        ord[best] = NULL;
        out->peak = peak[best];
        out->exact = exact && have[MEMPLAN_ORDER_EXACT] && peak[best] == peak[MEMPLAN_ORDER_EXACT];
    }
    for (int k = 0; k < MEMPLAN_ORDER_COUNT; k++) free(ord[k]);
    free(pos), free(delta);
    return st;
}

memplan_status memplan_schedule_run(const memplan_sched_problem *p, memplan_order_kind kind, uint32_t budget_ms,
                                    memplan_schedule *out, memplan_error *err) {
    memset(out, 0, sizeof *out);
    if ((unsigned)kind >= MEMPLAN_ORDER_COUNT)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "no scheduler %d", (int)kind);
    mp_sched s;
    memplan_status st = mp_sched_compile(p, &s, err);
    if (st) return st;
    uint64_t work = (uint64_t)budget_ms * MP_SCHED_WORK_PER_MS;
    memplan_schedule r = {0};
    r.n_steps = s.n;
    if (kind == MEMPLAN_ORDER_BEST || kind == MEMPLAN_ORDER_EXACT) {
        /* exact takes every heuristic's order as a candidate; best keeps the lowest of all */
        st = run_all(&s, MEMPLAN_ORDER_EXACT, work, &r, err);
        if (!st && kind == MEMPLAN_ORDER_EXACT && r.kind != MEMPLAN_ORDER_EXACT) r.kind = MEMPLAN_ORDER_EXACT;
    } else if (kind == MEMPLAN_ORDER_BEAM) {
        int32_t *o = malloc(((size_t)s.n + 1) * sizeof *o);
        bool ran = false;
        st = o ? mp_sched_beam(&s, work, o, &ran, err) : memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        if (!st && !ran) st = mp_sched_greedy(&s, o, err); /* too narrow a beam: greedy */
        r.kind = ran ? MEMPLAN_ORDER_BEAM : MEMPLAN_ORDER_GREEDY;
        r.order = o;
    } else {
        r.kind = kind;
        if (!(r.order = malloc(((size_t)s.n + 1) * sizeof *r.order)))
            st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        if (!st) st = heuristic(&s, kind, r.order, err);
    }
    if (!st && kind != MEMPLAN_ORDER_BEST && kind != MEMPLAN_ORDER_EXACT) { /* run_all measured its own */
        int32_t *pos = malloc(((size_t)s.n + 1) * sizeof *pos);
        uint64_t *delta = malloc(2 * ((size_t)s.n + 1) * sizeof *delta);
        if (pos && delta) r.peak = mp_sched_eval(&s, r.order, pos, delta);
        else
            st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        free(pos), free(delta);
    }
    mp_sched_free(&s);
    if (st) {
        free(r.order);
        return st;
    }
    *out = r;
    return MEMPLAN_OK;
}

memplan_status memplan_schedule_onnxruntime_numbering(const memplan_sched_problem *p, int32_t **numbering,
                                                      memplan_schedule *out, memplan_error *err) {
    memset(out, 0, sizeof *out);
    *numbering = NULL;
    mp_sched s;
    memplan_status st = mp_sched_compile(p, &s, err);
    if (st) return st;
    size_t nn = (size_t)s.n + 1;
    int32_t *num = malloc(nn * sizeof *num), *order = malloc(nn * sizeof *order);
    uint64_t peak = 0;
    st = num && order ? mp_sched_onnxruntime_numbering(&s, num, order, &peak, err)
                      : memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    mp_sched_free(&s);
    if (st) {
        free(num), free(order);
        return st;
    }
    *numbering = num;
    *out = (memplan_schedule){MEMPLAN_ORDER_ONNXRUNTIME, p->n_steps, order, peak, false};
    return MEMPLAN_OK;
}

memplan_status memplan_schedule_peak(const memplan_sched_problem *p, const int32_t *order, uint64_t *peak,
                                     memplan_error *err) {
    mp_sched s;
    memplan_status st = mp_sched_compile(p, &s, err);
    if (st) return st;
    size_t nn = (size_t)s.n + 1;
    int32_t *pos = malloc(nn * sizeof *pos);
    uint64_t *delta = malloc(2 * nn * sizeof *delta);
    if (!pos || !delta) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    for (int32_t i = 0; !st && i < s.n; i++) pos[i] = -1;
    for (int32_t i = 0; !st && i < s.n; i++) {
        int32_t v = order[i];
        if (v < 0 || v >= s.n || pos[v] >= 0)
            st = memplan_error_set(err, MEMPLAN_EINPUT, "the order's entry %d is not a step or repeats one: %d", (int)i,
                                   (int)v);
        else
            pos[v] = i;
    }
    for (int32_t v = 0; !st && v < s.n; v++)
        for (int32_t i = s.pred_start[v]; i < s.pred_start[v + 1] && !st; i++)
            if (pos[s.pred[i]] > pos[v])
                st = memplan_error_set(err, MEMPLAN_EINPUT, "step %d runs at position %d, before step %d it follows",
                                       (int)v, (int)pos[v], (int)s.pred[i]);
    if (!st) *peak = mp_sched_eval(&s, order, pos, delta);
    free(pos), free(delta);
    mp_sched_free(&s);
    return st;
}
