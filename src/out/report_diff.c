/*
 * report_diff.c -- `memplan diff A.onnx B.onnx`: two models planned with
 * the same options, side by side (fp16 against int8, before and after an
 * export change).
 *
 * JSON: {a: FIG, b: FIG, delta: {peak_bytes, lower_bound_bytes, naive_bytes,
 * slots_bytes, weight_bytes, input_bytes, total_bytes} (the first four null
 * when either is deferred, the others when either side's is null),
 * values: {in_both, changed: [{name, a: VAL, b: VAL}], only_a: [names],
 * only_b: [names]}} where FIG = {status, positions, buffers, peak_bytes,
 * lower_bound_bytes, naive_bytes, slots_bytes, weight_bytes, input_bytes,
 * total_bytes} (the figures of the request's strategy, which is the arena for
 * the CLI; null while deferred; the weights, the graph inputs and the total
 * to fit as the plan JSON's weights.bytes, inputs.bytes and total_bytes, each
 * null when some part of it has no known size) and VAL = {size, start, end, offset}
 * (size and offset null when not known or not placed). A value of the main graph is "changed" when its size, live
 * interval or arena offset differs; changed values are listed by the size change, largest first, then by name.
 * memplan_diff_requests plans each side with its own request (the page's
 * compare of one model under two option sets); the CLI gives both one.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/model_plan.h"
#include "memplan/report.h"
#include "out/json.h"
#include "out/text.h"
#include "util/strmap.h"

typedef struct side {
    memplan_model_plan *p;
    memplan_strategy strategy; /* whose figures are peak, bound and naive (the CLI's: arena) */
    mp_strmap by_name;         /* value name -> index in p->values */
} side;

typedef struct change {
    int32_t a, b;     /* indices in each side's values */
    int64_t delta;    /* size change, bytes (0 when a size is not known) */
    const char *name; /* the value's name, the tie-break of the order */
} change;

static uint64_t fig(const side *s, int k) {
    const memplan_plan_figures *f = &s->p->figures[s->strategy];
    uint64_t v[] = {f->peak_bytes, f->lower_bound_bytes, f->naive_bytes,
                    s->p->figures[MEMPLAN_STRATEGY_SLOTS].peak_bytes};
    return v[k];
}

static const char *const FIG_KEYS[] = {"peak_bytes", "lower_bound_bytes", "naive_bytes", "slots_bytes"};
#define N_FIGS 4

/* The memory beside the arena: 0 weights, 1 graph inputs, 2 the total to
 * fit (memplan_plan_total); false when not known (some weight or input has
 * no known size: a partial sum would read as the whole). */
static bool beside(const side *s, int k, uint64_t *out) {
    const memplan_model_plan *p = s->p;
    if (k == 2) return memplan_plan_total(p, s->strategy, out) == NULL;
    *out = k ? p->input_bytes : p->weight_bytes;
    return (k ? p->n_inputs_unknown : p->n_weights_unknown) == 0;
}

static const char *const BESIDE_KEYS[] = {"weight_bytes", "input_bytes", "total_bytes"};
static const char *const BESIDE_LABELS[] = {"weights", "inputs", "total to fit"};

static void json_side(mp_json *j, const side *s) {
    const memplan_model_plan *p = s->p;
    mp_json_obj(j);
    MP_JSON_KEY(j, "status");
    mp_json_str(j, p->deferred ? "deferred" : "planned");
    MP_JSON_KEY(j, "positions");
    mp_json_int(j, p->positions);
    MP_JSON_KEY(j, "buffers");
    mp_json_uint(j, p->n_buffers);
    for (int k = 0; k < N_FIGS; k++) {
        mp_json_key(j, FIG_KEYS[k]);
        if (p->deferred) mp_json_null(j);
        else
            mp_json_uint(j, fig(s, k));
    }
    for (int k = 0; k < 3; k++) {
        uint64_t v;
        mp_json_key(j, BESIDE_KEYS[k]);
        if (beside(s, k, &v)) mp_json_uint(j, v);
        else
            mp_json_null(j);
    }
    mp_json_end(j);
}

static bool known_size(const memplan_value_plan *v) { return v->size.kind == MEMPLAN_SIZE_KNOWN; }

static bool differs(const memplan_value_plan *x, const memplan_value_plan *y) {
    if (known_size(x) != known_size(y) || (known_size(x) && x->size.bytes != y->size.bytes)) return true;
    if (x->start != y->start || x->end != y->end || x->placed != y->placed) return true;
    return x->placed && x->arena_offset != y->arena_offset;
}

/* Largest size change first, then by name. */
static int by_delta(const void *pa, const void *pb) {
    const change *a = pa, *b = pb;
    int64_t da = a->delta < 0 ? -a->delta : a->delta, db = b->delta < 0 ? -b->delta : b->delta;
    if (da != db) return da > db ? -1 : 1;
    return strcmp(a->name, b->name);
}

static const char *name_of(const side *s, int32_t i) { return s->p->graph->values[s->p->values[i].value].name; }

static void json_val(mp_json *j, const memplan_value_plan *v) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "size");
    if (known_size(v)) mp_json_uint(j, v->size.bytes);
    else
        mp_json_null(j);
    MP_JSON_KEY(j, "start");
    mp_json_int(j, v->start);
    MP_JSON_KEY(j, "end");
    mp_json_int(j, v->end);
    MP_JSON_KEY(j, "offset");
    if (v->placed) mp_json_uint(j, v->arena_offset);
    else
        mp_json_null(j);
    mp_json_end(j);
}

static bool index_side(side *s) {
    for (size_t i = 0; i < s->p->n_values; i++)
        if (!mp_strmap_put(&s->by_name, s->p->graph->values[s->p->values[i].value].name, (int32_t)i)) return false;
    return true;
}

/* The values of both, changed ones sorted; false when out of memory. */
static bool compare(side *a, side *b, change **out, size_t *n) {
    *n = 0;
    *out = malloc((a->p->n_values ? a->p->n_values : 1) * sizeof **out);
    if (!*out) return false;
    for (size_t i = 0; i < a->p->n_values; i++) {
        int32_t k = mp_strmap_get(&b->by_name, name_of(a, (int32_t)i));
        if (k < 0 || !differs(&a->p->values[i], &b->p->values[k])) continue;
        const memplan_value_plan *x = &a->p->values[i], *y = &b->p->values[k];
        int64_t d = known_size(x) && known_size(y) ? (int64_t)y->size.bytes - (int64_t)x->size.bytes : 0;
        (*out)[(*n)++] = (change){(int32_t)i, k, d, name_of(a, (int32_t)i)};
    }
    qsort(*out, *n, sizeof **out, by_delta);
    return true;
}

static void json_diff(mp_json *j, const side *a, const side *b, const change *ch, size_t n) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "a");
    json_side(j, a);
    MP_JSON_KEY(j, "b");
    json_side(j, b);
    MP_JSON_KEY(j, "delta");
    mp_json_obj(j);
    for (int k = 0; k < N_FIGS; k++) {
        mp_json_key(j, FIG_KEYS[k]);
        if (a->p->deferred || b->p->deferred) mp_json_null(j);
        else
            mp_json_int(j, (int64_t)fig(b, k) - (int64_t)fig(a, k));
    }
    for (int k = 0; k < 3; k++) {
        uint64_t x, y;
        mp_json_key(j, BESIDE_KEYS[k]);
        if (beside(a, k, &x) && beside(b, k, &y)) mp_json_int(j, (int64_t)y - (int64_t)x);
        else
            mp_json_null(j);
    }
    mp_json_end(j);
    MP_JSON_KEY(j, "values");
    mp_json_obj(j);
    size_t both = 0;
    for (size_t i = 0; i < a->p->n_values; i++) both += mp_strmap_get(&b->by_name, name_of(a, (int32_t)i)) >= 0;
    MP_JSON_KEY(j, "in_both");
    mp_json_uint(j, both);
    MP_JSON_KEY(j, "changed");
    mp_json_arr(j);
    for (size_t i = 0; i < n; i++) {
        mp_json_obj(j);
        MP_JSON_KEY(j, "name");
        mp_json_str(j, name_of(a, ch[i].a));
        MP_JSON_KEY(j, "a");
        json_val(j, &a->p->values[ch[i].a]);
        MP_JSON_KEY(j, "b");
        json_val(j, &b->p->values[ch[i].b]);
        mp_json_end(j);
    }
    mp_json_end(j);
    for (int which = 0; which < 2; which++) {
        const side *s = which ? b : a, *o = which ? a : b;
        mp_json_key(j, which ? "only_b" : "only_a");
        mp_json_arr(j);
        for (size_t i = 0; i < s->p->n_values; i++)
            if (mp_strmap_get(&o->by_name, name_of(s, (int32_t)i)) < 0) mp_json_str(j, name_of(s, (int32_t)i));
        mp_json_end(j);
    }
    mp_json_end(j);
    mp_json_end(j);
}

/* One figure row: A, B, B - A and its share of A ("unknown" and no delta
 * where a side's figure is not known). */
static void text_row(mp_buf *t, const char *label, uint64_t x, bool kx, uint64_t y, bool ky) {
    mp_text_printf(t, "%-14s", label);
    if (kx) mp_text_printf(t, " %18llu", (unsigned long long)x);
    else
        mp_text_printf(t, " %18s", "unknown");
    if (ky) mp_text_printf(t, " %18llu", (unsigned long long)y);
    else
        mp_text_printf(t, " %18s", "unknown");
    if (kx && ky) {
        mp_text_printf(t, " %+18lld", (long long)((int64_t)y - (int64_t)x));
        if (x) mp_text_printf(t, " (%+.1f%%)", 100.0 * ((double)y - (double)x) / (double)x);
    }
    mp_buf_putc(t, '\n');
}

static void text_diff(mp_buf *t, const side *a, const side *b, const change *ch, size_t n) {
    static const char *const LABELS[] = {"peak", "lower bound", "naive", "slots"};
    mp_text_printf(t, "%-14s %18s %18s %18s\n", "", "A", "B", "B - A");
    mp_text_printf(t, "%-14s %18s %18s\n", "status", a->p->deferred ? "deferred" : "planned",
                   b->p->deferred ? "deferred" : "planned");
    for (int k = 0; k < N_FIGS; k++) {
        if (a->p->deferred || b->p->deferred) break;
        text_row(t, LABELS[k], fig(a, k), true, fig(b, k), true);
    }
    for (int k = 0; k < 3; k++) {
        uint64_t x, y;
        bool kx = beside(a, k, &x), ky = beside(b, k, &y);
        text_row(t, BESIDE_LABELS[k], x, kx, y, ky);
    }
    mp_text_printf(t, "values:        %zu changed (size, interval or offset)\n", n);
    for (size_t i = 0; i < n && i < 20; i++) {
        const memplan_value_plan *x = &a->p->values[ch[i].a], *y = &b->p->values[ch[i].b];
        mp_text_printf(t, "  %s:", name_of(a, ch[i].a));
        if (known_size(x) && known_size(y) && x->size.bytes != y->size.bytes)
            mp_text_printf(t, " %llu -> %llu B (%+lld)", (unsigned long long)x->size.bytes,
                           (unsigned long long)y->size.bytes, (long long)ch[i].delta);
        else if (known_size(x) != known_size(y))
            mp_text_printf(t, " size %s -> %s", known_size(x) ? "known" : "unknown",
                           known_size(y) ? "known" : "unknown");
        if (x->start != y->start || x->end != y->end)
            mp_text_printf(t, " live [%d, %d] -> [%d, %d]", (int)x->start, (int)x->end, (int)y->start, (int)y->end);
        if (x->placed && y->placed && x->arena_offset != y->arena_offset)
            mp_text_printf(t, " offset %llu -> %llu", (unsigned long long)x->arena_offset,
                           (unsigned long long)y->arena_offset);
        mp_buf_putc(t, '\n');
    }
    if (n > 20) mp_text_printf(t, "  ... and %zu more\n", n - 20);
}

memplan_status memplan_diff_report(const memplan_model *ma, const char *name_a, const memplan_model *mb,
                                   const char *name_b, const memplan_request *r, bool json, char **out, size_t *len,
                                   memplan_error *err) {
    return memplan_diff_requests(ma, name_a, r, mb, name_b, r, json, out, len, err);
}

memplan_status memplan_diff_requests(const memplan_model *ma, const char *name_a, const memplan_request *ra,
                                     const memplan_model *mb, const char *name_b, const memplan_request *rb, bool json,
                                     char **out, size_t *len, memplan_error *err) {
    memplan_plan_options oa, ob;
    memplan_request_plan_options(ra, &oa);
    memplan_request_plan_options(rb, &ob);
    side a, b;
    a.p = b.p = NULL;
    a.strategy = ra->strategy;
    b.strategy = rb->strategy;
    mp_strmap_init(&a.by_name);
    mp_strmap_init(&b.by_name);
    memplan_status st = memplan_plan_model(ma, &oa, &a.p, err);
    if (st) memplan_error_prefix(err, "%s", name_a);
    else if ((st = memplan_plan_model(mb, &ob, &b.p, err)))
        memplan_error_prefix(err, "%s", name_b);
    change *ch = NULL;
    size_t n = 0;
    bool ok = !st && index_side(&a) && index_side(&b) && compare(&a, &b, &ch, &n);
    mp_buf t;
    mp_buf_init(&t);
    if (ok && json) {
        mp_json j;
        mp_json_init(&j, &t);
        json_diff(&j, &a, &b, ch, n);
        mp_buf_putc(&t, '\n');
    } else if (ok) {
        text_diff(&t, &a, &b, ch, n);
    }
    if (!st && (!ok || t.failed))
        st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while comparing the plans");
    if (st) mp_buf_free(&t);
    else
        *out = mp_buf_take(&t, len);
    free(ch);
    mp_strmap_free(&a.by_name);
    mp_strmap_free(&b.by_name);
    memplan_model_plan_free(a.p);
    memplan_model_plan_free(b.p);
    return st;
}
