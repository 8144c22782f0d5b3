/*
 * heuristics.c -- the fast schedulers: greedy list scheduling, three
 * depth-first orders and ONNX Runtime's. Each is O((steps + edges) log steps)
 * and deterministic (ties go to the lower step number).
 */
#include <stdlib.h>
#include <string.h>

#include "schedule/sched_internal.h"

static memplan_status oom(memplan_error *err) { return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory"); }

/* ---- greedy list scheduling ------------------------------------------------
 * Among the ready steps, run the one whose net effect on the live bytes is
 * best: bytes it frees minus bytes it allocates. A step's score only grows
 * while it waits (a buffer it reads losing its other readers), so a max-heap
 * with lazy entries suffices: a popped entry whose key is stale is dropped. */

typedef struct hent {
    int64_t key;
    int32_t step;
} hent;

static bool hent_before(hent a, hent b) { return a.key > b.key || (a.key == b.key && a.step < b.step); }

static void heap_push(hent *h, size_t *n, hent e) {
    size_t i = (*n)++;
    while (i > 0 && hent_before(e, h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static hent heap_pop(hent *h, size_t *n) {
    hent top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && hent_before(h[c + 1], h[c])) c++;
        if (!hent_before(h[c], last)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n) h[i] = last;
    return top;
}

/* Bytes as a signed score, clamped (sizes near 2^63 only compare as equal). */
static int64_t clamp_bytes(uint64_t b) { return b > (UINT64_C(1) << 62) ? INT64_C(1) << 62 : (int64_t)b; }

/* base_dead (freed by whichever step runs first) is left out: it is the
 * same for every step, and keys made before and after the first step compare. */
static int64_t greedy_key(const mp_sched *s, const mp_sim *m, int32_t v) {
    uint64_t f = mp_sim_freed(s, m, v) - (m->done == 0 ? s->base_dead : 0);
    return clamp_bytes(f) - clamp_bytes(s->alloc[v]);
}

memplan_status mp_sched_greedy(const mp_sched *s, int32_t *order, memplan_error *err) {
    int32_t n = s->n;
    size_t nn = (size_t)n + 1, hn = 0;
    /* entries: one per step made ready plus one per score change (at most one per read) */
    size_t cap = nn + (size_t)s->rd_start[n] + 1;
    hent *h = malloc(cap * sizeof *h);
    int32_t *indeg = malloc(nn * sizeof *indeg);
    int64_t *key = malloc(nn * sizeof *key);
    mp_sim m = {0, 0, malloc(((size_t)s->nb + 1) * sizeof *m.rem), 0};
    if (!h || !indeg || !key || !m.rem) {
        free(h), free(indeg), free(key), free(m.rem);
        return oom(err);
    }
    mp_sim_start(s, &m);
    for (int32_t v = 0; v < n; v++) {
        indeg[v] = s->pred_start[v + 1] - s->pred_start[v];
        if (!indeg[v]) heap_push(h, &hn, (hent){key[v] = greedy_key(s, &m, v), v});
    }
    while (hn) {
        hent e = heap_pop(h, &hn);
        int32_t v = e.step;
        if (indeg[v] < 0 || e.key != key[v]) continue; /* run already, or stale */
        order[m.done] = v;
        mp_sim_run(s, &m, v);
        indeg[v] = -1;
        /* a buffer down to one reader raises that reader's score */
        for (int32_t i = s->rd_start[v]; i < s->rd_start[v + 1]; i++) {
            int32_t b = s->rd[i];
            if (m.rem[b] != 1) continue;
            for (int32_t j = s->use_start[b]; j < s->use_start[b + 1]; j++) {
                int32_t r = s->use[j];
                if (indeg[r] == 0 && greedy_key(s, &m, r) != key[r])
                    heap_push(h, &hn, (hent){key[r] = greedy_key(s, &m, r), r});
            }
        }
        for (int32_t i = s->succ_start[v]; i < s->succ_start[v + 1]; i++) {
            int32_t w = s->succ[i];
            if (--indeg[w] == 0) heap_push(h, &hn, (hent){key[w] = greedy_key(s, &m, w), w});
        }
    }
    free(h), free(indeg), free(key), free(m.rem);
    return MEMPLAN_OK;
}

/* ---- depth-first from the sinks --------------------------------------------
 * Post-order DFS over predecessors, from each sink in step order: a step runs
 * once everything it needs has. heavy_first visits the predecessor whose cone
 * weighs most first (weight: the most bytes allocated along one path into
 * the step, transients included), so the big branch is done and freed before
 * the small ones are held (Sethi-Ullman's rule); otherwise the listed order. */

static int32_t *heavy_pred_lists(const mp_sched *s) {
    int32_t n = s->n, ne = s->pred_start[n];
    uint64_t *w = malloc(((size_t)n + 1) * sizeof *w);
    int32_t *lst = malloc(((size_t)ne + 1) * sizeof *lst);
    if (!w || !lst) {
        free(w), free(lst);
        return NULL;
    }
    for (int32_t v = 0; v < n; v++) { /* steps are numbered topologically */
        uint64_t best = 0;
        for (int32_t i = s->pred_start[v]; i < s->pred_start[v + 1]; i++)
            if (w[s->pred[i]] > best) best = w[s->pred[i]];
        uint64_t own = s->alloc[v] + s->trans[v];
        own = own < s->alloc[v] ? UINT64_MAX : own;
        w[v] = best + own < best ? UINT64_MAX : best + own;
    }
    memcpy(lst, s->pred, (size_t)ne * sizeof *lst);
    for (int32_t v = 0; v < n; v++) { /* insertion sort by weight, descending; stable */
        int32_t a = s->pred_start[v], b = s->pred_start[v + 1];
        for (int32_t i = a + 1; i < b; i++) {
            int32_t x = lst[i], j = i;
            while (j > a && w[lst[j - 1]] < w[x]) {
                lst[j] = lst[j - 1];
                j--;
            }
            lst[j] = x;
        }
    }
    free(w);
    return lst;
}

memplan_status mp_sched_dfs(const mp_sched *s, bool heavy_first, int32_t *order, memplan_error *err) {
    int32_t n = s->n;
    const int32_t *pl = s->pred;
    int32_t *heavy = NULL;
    if (heavy_first && !(heavy = heavy_pred_lists(s))) return oom(err);
    if (heavy) pl = heavy;
    /* stack of (step, next predecessor index) */
    int32_t *stk = malloc(((size_t)n + 1) * sizeof *stk), *nxt = malloc(((size_t)n + 1) * sizeof *nxt);
    uint8_t *seen = calloc((size_t)n + 1, 1);
    if (!stk || !nxt || !seen) {
        free(heavy), free(stk), free(nxt), free(seen);
        return oom(err);
    }
    int32_t k = 0;
    for (int32_t root = 0; root < n; root++) {
        if (s->succ_start[root + 1] != s->succ_start[root] || seen[root]) continue; /* sinks only */
        int32_t sp = 0;
        stk[sp] = root;
        nxt[sp++] = s->pred_start[root];
        seen[root] = 1;
        while (sp) {
            int32_t v = stk[sp - 1];
            if (nxt[sp - 1] < s->pred_start[v + 1]) {
                int32_t u = pl[nxt[sp - 1]++];
                if (seen[u]) continue;
                seen[u] = 1;
                stk[sp] = u;
                nxt[sp++] = s->pred_start[u];
            } else {
                order[k++] = v;
                sp--;
            }
        }
    }
    free(heavy), free(stk), free(nxt), free(seen);
    return MEMPLAN_OK;
}

/* ---- depth-first forward ---------------------------------------------------
 * The ready steps on a stack: a step's successors made ready by it are
 * pushed last, so a chain is followed to its end before a sibling starts. */
memplan_status mp_sched_forward(const mp_sched *s, int32_t *order, memplan_error *err) {
    int32_t n = s->n;
    int32_t *indeg = malloc(((size_t)n + 1) * sizeof *indeg), *stk = malloc(((size_t)n + 1) * sizeof *stk);
    if (!indeg || !stk) {
        free(indeg), free(stk);
        return oom(err);
    }
    int32_t sp = 0, k = 0;
    for (int32_t v = n - 1; v >= 0; v--)
        if (!(indeg[v] = s->pred_start[v + 1] - s->pred_start[v])) stk[sp++] = v;
    while (sp) {
        int32_t v = stk[--sp];
        order[k++] = v;
        for (int32_t i = s->succ_start[v + 1] - 1; i >= s->succ_start[v]; i--)
            if (--indeg[s->succ[i]] == 0) stk[sp++] = s->succ[i];
    }
    free(indeg), free(stk);
    return MEMPLAN_OK;
}

/* ---- ONNX Runtime's order --------------------------------------------------
 * The order ONNX Runtime runs a graph's nodes in by default (its GraphViewer:
 * Graph::ReverseDFSFrom the leaves, NodeCompare by node index), rank[v] being
 * step v's node index (NULL: the step numbers, the file's positions). One
 * stack of entries (step, leave): first every sink by rank, so the sink of
 * the highest rank is expanded first; a step popped unvisited is marked,
 * pushed again to be left, and its unvisited predecessors pushed by
 * ascending rank (the highest is expanded first); a step is placed when it
 * is left. A step pushed twice is expanded where it is popped first. The
 * walk follows the graph's edges only (epred), not the definers of the
 * buffers a step reads through a view, which ONNX Runtime's walk does not
 * see. Checked against ONNX Runtime 1.30's execution order
 * (wasm-tests/ort-order.test.js, wasm-tests/ort-float16.test.js). */
static memplan_status ort_dfs(const mp_sched *s, const int32_t *rank, int32_t *order, memplan_error *err) {
    int32_t n = s->n;
    size_t e = (size_t)s->epred_start[n];
    /* each step is pushed at most once per predecessor list it is in, once as
     * a sink and once to be left */
    int32_t *stk = malloc((2 * (size_t)n + e + 1) * sizeof *stk);
    uint8_t *seen = calloc((size_t)n + 1, 1);
    int32_t *by_rank = rank ? malloc(((size_t)n + 1) * sizeof *by_rank) : NULL;
    int32_t *pl = rank ? malloc((e + 1) * sizeof *pl) : NULL,
            *fill = rank ? malloc(((size_t)n + 1) * sizeof *fill) : NULL;
    if (!stk || !seen || (rank && (!by_rank || !pl || !fill))) {
        free(stk), free(seen), free(by_rank), free(pl), free(fill);
        return oom(err);
    }
    const int32_t *preds = s->epred;
    if (rank) { /* the predecessor lists by ascending rank: steps in rank order, each appended to its successors' */
        for (int32_t v = 0; v < n; v++) by_rank[rank[v]] = v, fill[v] = s->epred_start[v];
        for (int32_t r = 0; r < n; r++) {
            int32_t u = by_rank[r];
            for (int32_t i = s->esucc_start[u]; i < s->esucc_start[u + 1]; i++) pl[fill[s->esucc[i]]++] = u;
        }
        preds = pl;
    }
    size_t sp = 0;
    int32_t k = 0;
    for (int32_t r = 0; r < n; r++) {
        int32_t v = rank ? by_rank[r] : r;
        if (s->esucc_start[v + 1] == s->esucc_start[v]) stk[sp++] = v; /* a sink */
    }
    while (sp) {
        int32_t x = stk[--sp];
        if (x < 0) { /* leave */
            order[k++] = -x - 1;
            continue;
        }
        if (seen[x]) continue;
        seen[x] = 1;
        stk[sp++] = -x - 1;
        for (int32_t i = s->epred_start[x]; i < s->epred_start[x + 1]; i++)
            if (!seen[preds[i]]) stk[sp++] = preds[i];
    }
    free(stk), free(seen), free(by_rank), free(pl), free(fill);
    return MEMPLAN_OK;
}

memplan_status mp_sched_onnxruntime(const mp_sched *s, int32_t *order, memplan_error *err) {
    return ort_dfs(s, s->rank, order, err);
}

/* A topological numbering by Kahn's algorithm: of the ready steps, the one
 * another order runs last comes first (pos[v]: v's position there; the
 * largest is popped first). ONNX Runtime expands the highest-numbered of a
 * step's predecessors first, so under this numbering it tends to expand them
 * as that order runs them. numbering[i]: the step at position i. */
static memplan_status kahn_by_last(const mp_sched *s, const int32_t *pos, int32_t *numbering, memplan_error *err) {
    int32_t n = s->n;
    int32_t *indeg = malloc(((size_t)n + 1) * sizeof *indeg);
    hent *h = malloc(((size_t)n + 1) * sizeof *h);
    if (!indeg || !h) {
        free(indeg), free(h);
        return oom(err);
    }
    size_t hn = 0;
    for (int32_t v = 0; v < n; v++)
        if (!(indeg[v] = s->pred_start[v + 1] - s->pred_start[v])) heap_push(h, &hn, (hent){pos[v], v});
    int32_t k = 0;
    while (hn) {
        int32_t v = heap_pop(h, &hn).step;
        numbering[k++] = v;
        for (int32_t i = s->succ_start[v]; i < s->succ_start[v + 1]; i++)
            if (--indeg[s->succ[i]] == 0) heap_push(h, &hn, (hent){pos[s->succ[i]], s->succ[i]});
    }
    free(indeg), free(h);
    return MEMPLAN_OK;
}

memplan_status mp_sched_onnxruntime_numbering(const mp_sched *s, int32_t *numbering, int32_t *order, uint64_t *peak,
                                              memplan_error *err) {
    int32_t n = s->n;
    size_t nn = (size_t)n + 1;
    int32_t *cand = malloc(nn * sizeof *cand), *run = malloc(nn * sizeof *run), *rank = malloc(nn * sizeof *rank);
    int32_t *other = malloc(nn * sizeof *other), *pos = malloc(nn * sizeof *pos);
    uint64_t *delta = malloc(2 * nn * sizeof *delta);
    memplan_status st = cand && run && rank && other && pos && delta ? MEMPLAN_OK : oom(err);
    /* the candidates: -1 the steps' own numbering; then Kahn's after each of
     * these orders; -2 Kahn's taking the highest-numbered ready step first */
    static const int SOURCES[] = {
        -1, MEMPLAN_ORDER_GREEDY, MEMPLAN_ORDER_DFS, MEMPLAN_ORDER_POSTORDER, MEMPLAN_ORDER_FORWARD, -2};
    bool have = false;
    for (size_t c = 0; !st && c < sizeof SOURCES / sizeof SOURCES[0]; c++) {
        if (SOURCES[c] == -1) {
            for (int32_t i = 0; i < n; i++) cand[i] = i;
        } else {
            if (SOURCES[c] == -2)
                for (int32_t i = 0; i < n; i++) other[i] = i;
            else if (SOURCES[c] == MEMPLAN_ORDER_GREEDY)
                st = mp_sched_greedy(s, other, err);
            else if (SOURCES[c] == MEMPLAN_ORDER_FORWARD)
                st = mp_sched_forward(s, other, err);
            else
                st = mp_sched_dfs(s, SOURCES[c] == MEMPLAN_ORDER_DFS, other, err);
            /* the heap pops the largest key first: the step that order runs last */
            for (int32_t i = 0; !st && i < n; i++) pos[other[i]] = i;
            if (!st) st = kahn_by_last(s, pos, cand, err);
        }
        for (int32_t i = 0; !st && i < n; i++) rank[cand[i]] = i;
        if (!st) st = ort_dfs(s, rank, run, err);
        if (st) break;
        uint64_t pk = mp_sched_eval(s, run, pos, delta);
        if (!have || pk < *peak) {
            have = true;
            *peak = pk;
            memcpy(numbering, cand, (size_t)n * sizeof *numbering);
            memcpy(order, run, (size_t)n * sizeof *order);
        }
    }
    free(cand), free(run), free(rank), free(other), free(pos), free(delta);
    return st;
}
