/*
 * problem.c -- a scheduling problem checked and compiled into mp_sched, the
 * lower bound under an order, and the one-step simulation every scheduler
 * shares (see sched_internal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "schedule/sched_internal.h"

static memplan_status oom(memplan_error *err) { return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory"); }

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Rows of (key, val) pairs as CSR, each row sorted and without duplicates.
 * *start gets nkeys + 1 entries. */
static bool csr(int32_t nkeys, size_t npairs, const int32_t *keys, const int32_t *vals, int32_t **start,
                int32_t **out) {
    int32_t *st = calloc((size_t)nkeys + 1, sizeof *st);
    int32_t *o = malloc((npairs ? npairs : 1) * sizeof *o);
    int32_t *fill = malloc(((size_t)nkeys + 1) * sizeof *fill);
    if (!st || !o || !fill) {
        free(st), free(o), free(fill);
        return false;
    }
    for (size_t i = 0; i < npairs; i++) st[keys[i] + 1]++;
    for (int32_t k = 0; k < nkeys; k++) st[k + 1] += st[k];
    memcpy(fill, st, ((size_t)nkeys + 1) * sizeof *fill);
    for (size_t i = 0; i < npairs; i++) o[fill[keys[i]]++] = vals[i];
    /* sort and compact each row */
    int32_t w = 0;
    for (int32_t k = 0; k < nkeys; k++) {
        int32_t a = st[k], b = st[k + 1];
        qsort(o + a, (size_t)(b - a), sizeof *o, cmp_i32);
        st[k] = w;
        for (int32_t i = a; i < b; i++)
            if (i == a || o[i] != o[i - 1]) o[w++] = o[i];
    }
    st[nkeys] = w;
    free(fill);
    *start = st;
    *out = o;
    return true;
}

/* One list of predecessors: each step's numbered before it. */
static memplan_status check_preds(int32_t n, const int32_t *start, const int32_t *pred, memplan_error *err) {
    if (start[0] != 0) return memplan_error_set(err, MEMPLAN_EINPUT, "scheduling problem: a list does not start at 0");
    for (int32_t s = 0; s < n; s++) {
        if (start[s + 1] < start[s])
            return memplan_error_set(err, MEMPLAN_EINPUT, "scheduling problem: step %d has a negative list", (int)s);
        for (int32_t i = start[s]; i < start[s + 1]; i++)
            if (pred[i] < 0 || pred[i] >= s)
                return memplan_error_set(err, MEMPLAN_EINPUT,
                                         "scheduling problem: step %d follows step %d, which is not numbered before it",
                                         (int)s, (int)pred[i]);
    }
    return MEMPLAN_OK;
}

/* The caller's lists are well formed: counts, ranges, numbering. */
static memplan_status check(const memplan_sched_problem *p, memplan_error *err) {
    if (p->n_steps < 0 || p->n_buffers < 0 || !p->pred_start || (p->n_buffers && (!p->bytes || !p->def)) ||
        !p->use_start)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "scheduling problem: missing or negative lists");
    if (p->pred_start[0] != 0 || p->use_start[0] != 0)
        return memplan_error_set(err, MEMPLAN_EINPUT, "scheduling problem: a list does not start at 0");
    memplan_status st = check_preds(p->n_steps, p->pred_start, p->pred, err);
    if (!st && p->edge_start) st = check_preds(p->n_steps, p->edge_start, p->edge, err);
    if (st) return st;
    if (p->rank) { /* a permutation of the steps */
        uint8_t *seen = calloc((size_t)p->n_steps + 1, 1);
        if (!seen) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        for (int32_t s = 0; !st && s < p->n_steps; s++) {
            int32_t r = p->rank[s];
            if (r < 0 || r >= p->n_steps || seen[r])
                st =
                    memplan_error_set(err, MEMPLAN_EINPUT,
                                      "scheduling problem: step %d has rank %d, out of range or taken", (int)s, (int)r);
            else
                seen[r] = 1;
        }
        free(seen);
        if (st) return st;
    }
    for (int32_t b = 0; b < p->n_buffers; b++) {
        if (p->use_start[b + 1] < p->use_start[b])
            return memplan_error_set(err, MEMPLAN_EINPUT, "scheduling problem: buffer %d has a negative list", (int)b);
        if (p->def[b] < -1 || p->def[b] >= p->n_steps)
            return memplan_error_set(err, MEMPLAN_EINPUT, "scheduling problem: buffer %d is defined by no step %d",
                                     (int)b, (int)p->def[b]);
        for (int32_t i = p->use_start[b]; i < p->use_start[b + 1]; i++)
            if (p->use[i] <= p->def[b] || p->use[i] >= p->n_steps)
                return memplan_error_set(err, MEMPLAN_EINPUT,
                                         "scheduling problem: buffer %d (defined by step %d) is read by step %d",
                                         (int)b, (int)p->def[b], (int)p->use[i]);
    }
    return MEMPLAN_OK;
}

/* Per-buffer facts and per-step sums. */
static void sums(const memplan_sched_problem *p, mp_sched *s) {
    for (int32_t b = 0; b < s->nb; b++) {
        s->bytes[b] = p->bytes[b];
        s->def[b] = p->def[b];
        s->to_end[b] = p->to_end && p->to_end[b];
        s->nuse[b] = s->use_start[b + 1] - s->use_start[b];
        if (p->def[b] >= 0) {
            uint64_t a = s->alloc[p->def[b]] + p->bytes[b];
            s->alloc[p->def[b]] = a < p->bytes[b] ? UINT64_MAX : a; /* saturate */
        } else {
            s->base += p->bytes[b];
            if (!s->nuse[b] && !s->to_end[b]) s->base_dead += p->bytes[b];
        }
    }
    for (int32_t v = 0; v < s->n; v++) s->trans[v] = p->transient ? p->transient[v] : 0;
}

/* s->epred and s->esucc: the problem's graph edges, else its predecessors. */
static bool graph_edges(const memplan_sched_problem *p, mp_sched *s) {
    int32_t n = s->n;
    const int32_t *start = p->edge_start ? p->edge_start : s->pred_start, *pred = p->edge_start ? p->edge : s->pred;
    size_t ne = (size_t)start[n];
    int32_t *ka = malloc((ne ? ne : 1) * sizeof *ka), *va = malloc((ne ? ne : 1) * sizeof *va);
    bool ok = ka && va;
    for (int32_t v = 0, k = 0; ok && v < n; v++)
        for (int32_t i = start[v]; i < start[v + 1]; i++, k++) ka[k] = v, va[k] = pred[i];
    ok = ok && csr(n, ne, ka, va, &s->epred_start, &s->epred);
    ok = ok && csr(n, ne, va, ka, &s->esucc_start, &s->esucc);
    free(ka), free(va);
    return ok;
}

memplan_status mp_sched_compile(const memplan_sched_problem *p, mp_sched *s, memplan_error *err) {
    memset(s, 0, sizeof *s);
    memplan_status st = check(p, err);
    if (st) return st;
    int32_t n = p->n_steps, nb = p->n_buffers;
    s->n = n;
    s->nb = nb;
    s->rank = p->rank;
    size_t ne = (size_t)p->pred_start[n], nu = (size_t)p->use_start[nb], nn = (size_t)n + 1, nbb = (size_t)nb + 1;
    size_t npairs = ne + nu + (size_t)nb + 1; /* the most pairs any list below needs */
    int32_t *ka = malloc(npairs * sizeof *ka), *va = malloc(npairs * sizeof *va);
    int32_t *bk = malloc((nu + nbb) * sizeof *bk);
    s->bytes = calloc(nbb, sizeof *s->bytes);
    s->to_end = calloc(nbb, 1);
    s->def = calloc(nbb, sizeof *s->def);
    s->nuse = calloc(nbb, sizeof *s->nuse);
    s->alloc = calloc(nn, sizeof *s->alloc);
    s->trans = calloc(nn, sizeof *s->trans);
    bool ok = ka && va && bk && s->bytes && s->to_end && s->def && s->nuse && s->alloc && s->trans;
    /* readers of each buffer */
    for (size_t i = 0; ok && i < nu; i++) va[i] = p->use[i];
    for (int32_t b = 0; ok && b < nb; b++)
        for (int32_t i = p->use_start[b]; i < p->use_start[b + 1]; i++) bk[i] = b;
    ok = ok && csr(nb, nu, bk, va, &s->use_start, &s->use);
    /* buffers each step reads */
    ok = ok && csr(n, nu, va, bk, &s->rd_start, &s->rd);
    /* buffers each step defines */
    size_t nd = 0;
    for (int32_t b = 0; ok && b < nb; b++)
        if (p->def[b] >= 0) ka[nd] = p->def[b], va[nd++] = b;
    ok = ok && csr(n, nd, ka, va, &s->def_start, &s->defs);
    /* predecessors: the given ones and the definers of what a step reads */
    size_t np = 0;
    for (int32_t v = 0; ok && v < n; v++)
        for (int32_t i = p->pred_start[v]; i < p->pred_start[v + 1]; i++) ka[np] = v, va[np++] = p->pred[i];
    for (int32_t b = 0; ok && b < nb; b++)
        for (int32_t i = p->use_start[b]; p->def[b] >= 0 && i < p->use_start[b + 1]; i++)
            ka[np] = p->use[i], va[np++] = p->def[b];
    ok = ok && csr(n, np, ka, va, &s->pred_start, &s->pred);
    if (ok) { /* successors, from the predecessor lists */
        np = 0;
        for (int32_t v = 0; v < n; v++)
            for (int32_t i = s->pred_start[v]; i < s->pred_start[v + 1]; i++) ka[np] = s->pred[i], va[np++] = v;
        ok = csr(n, np, ka, va, &s->succ_start, &s->succ);
    }
    ok = ok && graph_edges(p, s);
    free(ka);
    free(va);
    free(bk);
    if (!ok) {
        mp_sched_free(s);
        return oom(err);
    }
    sums(p, s);
    return MEMPLAN_OK;
}

void mp_sched_free(mp_sched *s) {
    free(s->pred_start), free(s->pred), free(s->succ_start), free(s->succ);
    free(s->epred_start), free(s->epred), free(s->esucc_start), free(s->esucc);
    free(s->def_start), free(s->defs), free(s->rd_start), free(s->rd);
    free(s->use_start), free(s->use), free(s->nuse), free(s->bytes), free(s->to_end), free(s->def);
    free(s->alloc), free(s->trans);
    memset(s, 0, sizeof *s);
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

uint64_t mp_sched_eval(const mp_sched *s, const int32_t *order, int32_t *pos, uint64_t *delta) {
    int32_t n = s->n;
    if (n == 0) return s->base;
    for (int32_t i = 0; i < n; i++) pos[order[i]] = i;
    /* delta[t]: bytes starting at t; delta[n + 1 + t]: bytes ending after t */
    memset(delta, 0, 2 * ((size_t)n + 1) * sizeof *delta);
    for (int32_t b = 0; b < s->nb; b++) {
        int32_t start = s->def[b] >= 0 ? pos[s->def[b]] : 0, end = start;
        for (int32_t i = s->use_start[b]; i < s->use_start[b + 1]; i++)
            if (pos[s->use[i]] > end) end = pos[s->use[i]];
        if (s->to_end[b]) end = n - 1;
        delta[start] = sat_add(delta[start], s->bytes[b]);
        delta[n + 1 + end] = sat_add(delta[n + 1 + end], s->bytes[b]);
    }
    uint64_t live = 0, peak = 0;
    for (int32_t t = 0; t < n; t++) {
        live = sat_add(live, delta[t]);
        uint64_t at = sat_add(live, s->trans[order[t]]);
        if (at > peak) peak = at;
        live = live == UINT64_MAX ? live : live - delta[n + 1 + t];
    }
    return peak;
}

void mp_sim_start(const mp_sched *s, mp_sim *m) {
    m->live = s->base;
    m->peak = 0;
    m->done = 0;
    for (int32_t b = 0; b < s->nb; b++) m->rem[b] = s->nuse[b];
}

uint64_t mp_sim_freed(const mp_sched *s, const mp_sim *m, int32_t v) {
    uint64_t f = m->done == 0 ? s->base_dead : 0;
    for (int32_t i = s->rd_start[v]; i < s->rd_start[v + 1]; i++) {
        int32_t b = s->rd[i];
        if (m->rem[b] == 1 && !s->to_end[b]) f += s->bytes[b];
    }
    for (int32_t i = s->def_start[v]; i < s->def_start[v + 1]; i++) {
        int32_t b = s->defs[i];
        if (!s->nuse[b] && !s->to_end[b]) f += s->bytes[b];
    }
    return f;
}

void mp_sim_run(const mp_sched *s, mp_sim *m, int32_t v) {
    uint64_t at = sat_add(sat_add(m->live, s->alloc[v]), s->trans[v]);
    if (at > m->peak) m->peak = at;
    uint64_t freed = mp_sim_freed(s, m, v);
    m->live = sat_add(m->live, s->alloc[v]);
    m->live = m->live == UINT64_MAX ? m->live : m->live - freed;
    for (int32_t i = s->rd_start[v]; i < s->rd_start[v + 1]; i++) m->rem[s->rd[i]]--;
    m->done++;
}
