/*
 * report_sweep.c -- `memplan sweep`: the plan's headline figures as one dim
 * takes N values from LO to HI (memplan_plan_sweep), for "memory against
 * sequence length" (the page draws the same points).
 *
 * JSON: {dim, lo, hi, points: [{value, status: "planned"|"deferred"|
 * "does not fit", naive_bytes, peak_bytes, lower_bound_bytes, slots_bytes,
 * total_bytes}]} (figures of the arena plan, slots_bytes the slot plan's sum
 * of capacities, total_bytes the memory to run the model at that value:
 * weights + inputs outside the arena + the arena's peak, as the plan's
 * total_bytes; null unless planned, total_bytes also when some weight or
 * input has no known size). Text: one line per value.
 */
#include <stdlib.h>
#include <string.h>

#include "memplan/model_plan.h"
#include "out/json.h"
#include "out/reports.h"
#include "out/text.h"

#define DEFAULT_POINTS 32

/* The N values, evenly spaced from lo to hi with both ends, each once (a
 * range narrower than N gives each integer in it); how many in *n. */
static int64_t *sweep_values(const memplan_dim_range *d, size_t *n) {
    uint64_t span = (uint64_t)(d->hi - d->lo), want = d->points ? d->points : DEFAULT_POINTS;
    if (want > span + 1) want = span + 1;
    int64_t *v = malloc((size_t)want * sizeof *v);
    if (!v) return NULL;
    *n = 0;
    for (uint64_t i = 0; i < want; i++) {
        /* lo + round(i * span / (want - 1)), in 128 bits' worth of care: span <= 2^53 */
        uint64_t step = want > 1 ? (uint64_t)((long double)i * (long double)span / (long double)(want - 1) + 0.5L) : 0;
        int64_t x = d->lo + (int64_t)step;
        if (!*n || v[*n - 1] != x) v[(*n)++] = x;
    }
    return v;
}

static const char *point_status(const memplan_sweep_point *p) {
    return !p->fits ? "does not fit" : p->deferred ? "deferred" : "planned";
}

static void json_points(mp_json *j, const memplan_dim_range *d, const memplan_sweep_point *pts, size_t n) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "dim");
    mp_json_str(j, d->name);
    MP_JSON_KEY(j, "lo");
    mp_json_int(j, d->lo);
    MP_JSON_KEY(j, "hi");
    mp_json_int(j, d->hi);
    MP_JSON_KEY(j, "points");
    mp_json_arr(j);
    for (size_t i = 0; i < n; i++) {
        const memplan_sweep_point *p = &pts[i];
        bool planned = p->fits && !p->deferred;
        mp_json_obj(j);
        MP_JSON_KEY(j, "value");
        mp_json_int(j, p->value);
        MP_JSON_KEY(j, "status");
        mp_json_str(j, point_status(p));
        const char *keys[] = {"naive_bytes", "peak_bytes", "lower_bound_bytes", "slots_bytes"};
        uint64_t vals[] = {p->naive_bytes, p->peak_bytes, p->lower_bound_bytes, p->slots_bytes};
        for (int k = 0; k < 4; k++) {
            mp_json_key(j, keys[k]);
            if (planned) mp_json_uint(j, vals[k]);
            else
                mp_json_null(j);
        }
        MP_JSON_KEY(j, "total_bytes");
        if (planned && p->total_known) mp_json_uint(j, p->total_bytes);
        else
            mp_json_null(j);
        mp_json_end(j);
    }
    mp_json_end(j);
    mp_json_end(j);
}

static void text_points(mp_buf *b, const memplan_dim_range *d, const memplan_sweep_point *pts, size_t n) {
    mp_text_printf(b, "sweep of %s from %lld to %lld, %zu values (arena figures; slots = sum of slot capacities)\n",
                   d->name, (long long)d->lo, (long long)d->hi, n);
    mp_text_printf(b, "%16s %18s %18s %18s %18s %18s\n", "value", "peak", "lower bound", "naive", "slots",
                   "total to fit");
    for (size_t i = 0; i < n; i++) {
        const memplan_sweep_point *p = &pts[i];
        if (!p->fits || p->deferred) {
            mp_text_printf(b, "%16lld %s\n", (long long)p->value, point_status(p));
            continue;
        }
        mp_text_printf(b, "%16lld %18llu %18llu %18llu %18llu", (long long)p->value, (unsigned long long)p->peak_bytes,
                       (unsigned long long)p->lower_bound_bytes, (unsigned long long)p->naive_bytes,
                       (unsigned long long)p->slots_bytes);
        if (p->total_known) mp_text_printf(b, " %18llu\n", (unsigned long long)p->total_bytes);
        else
            mp_text_printf(b, " %18s\n", "unknown");
    }
}

memplan_status mp_run_sweep(MP_REPORT_ARGS) {
    (void)cache;
    memplan_plan_options o;
    memplan_request_plan_options(r, &o);
    if (o.n_ranges != 1)
        return memplan_error_set(err, MEMPLAN_EUSAGE,
                                 "sweep takes one --dim NAME=LO..HI[:N] (the dim to vary), got %zu", o.n_ranges);
    const memplan_dim_range *d = &o.ranges[0];
    o.ranges = NULL; /* the swept dim is bound at each value instead */
    o.n_ranges = 0;
    size_t n = 0;
    int64_t *values = sweep_values(d, &n);
    memplan_sweep_point *pts = values ? calloc(n, sizeof *pts) : NULL;
    memplan_status st = pts ? memplan_plan_sweep(m, &o, d->name, values, n, pts, err)
                            : memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    mp_buf b;
    mp_buf_init(&b);
    if (!st && json) {
        mp_json j;
        mp_json_init(&j, &b);
        json_points(&j, d, pts, n);
        mp_buf_putc(&b, '\n');
    } else if (!st) {
        text_points(&b, d, pts, n);
    }
    free(values);
    free(pts);
    if (!st && b.failed) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory while writing the report");
    if (st) mp_buf_free(&b);
    else
        *out = mp_buf_take(&b, len);
    return st;
}
