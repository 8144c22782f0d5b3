/*
 * request.c -- a report's request (memplan/report.h) and the options that
 * fill it (the OPTIONS table of memplan/command.h).
 *
 * The shells split their arguments into options and values (src/cli/args.c);
 * this file turns one option's value text into its typed field, so the CLI
 * and the WASM exports accept the same values with the same messages.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/command.h"
#include "memplan/plan.h"
#include "memplan/report.h"

void memplan_request_init(memplan_request *r) {
    memset(r, 0, sizeof *r);
    memplan_plan_options_init(&r->plan);
    memplan_inplace_options none = {0};
    r->inplace = none;
    r->strategy = MEMPLAN_STRATEGY_ARENA;
}

void memplan_request_free(memplan_request *r) {
    memplan_binding *dims = (memplan_binding *)r->shapes.bindings; /* ours: allocated below */
    memplan_input_value *values = (memplan_input_value *)r->shapes.values;
    for (size_t i = 0; i < r->shapes.n_bindings; i++) free((char *)dims[i].name);
    for (size_t i = 0; i < r->shapes.n_values; i++) {
        free((char *)values[i].name);
        free((int64_t *)values[i].elems);
    }
    memplan_dim_range *ranges = (memplan_dim_range *)r->plan.ranges;
    for (size_t i = 0; i < r->plan.n_ranges; i++) free((char *)ranges[i].name);
    free(dims);
    free(values);
    free(ranges);
    memplan_request_init(r);
}

/* A NUL-terminated copy of name[0..len); NULL when out of memory. */
static char *copy_name(const char *name, size_t len) {
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, name, len);
        s[len] = '\0';
    }
    return s;
}

/* Room for one more item in a list of *cap (doubling); false when out of memory. */
static bool grow(void **items, size_t n, size_t *cap, size_t size) {
    if (n < *cap) return true;
    size_t ncap = *cap ? 2 * *cap : 8;
    void *p = realloc(*items, ncap * size);
    if (!p) return false;
    *items = p;
    *cap = ncap;
    return true;
}

/* True when NUL-terminated a equals b[0..len). */
static bool same_name(const char *a, const char *b, size_t len) { return strncmp(a, b, len) == 0 && a[len] == '\0'; }

memplan_status memplan_request_bind_dim(memplan_request *r, const char *name, size_t name_len, int64_t value,
                                        memplan_error *err) {
    memplan_binding *dims = (memplan_binding *)r->shapes.bindings;
    size_t n = r->shapes.n_bindings;
    for (size_t j = 0; j < n; j++)
        if (same_name(dims[j].name, name, name_len)) { /* a later binding replaces, in its place */
            dims[j].value = value;
            return MEMPLAN_OK;
        }
    void *items = dims;
    char *copy = copy_name(name, name_len);
    if (!copy || !grow(&items, n, &r->dims_cap, sizeof *dims)) {
        free(copy);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    dims = items;
    dims[n] = (memplan_binding){copy, value};
    r->shapes.bindings = dims;
    r->shapes.n_bindings = n + 1;
    return MEMPLAN_OK;
}

memplan_status memplan_request_bind_value(memplan_request *r, const char *name, size_t name_len, const int64_t *elems,
                                          int32_t n_elems, memplan_error *err) {
    if (n_elems < 1 || n_elems > MEMPLAN_MAX_VALUE_ELEMS)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "--value %.*s: %d elements (1 to %d)", (int)name_len, name,
                                 (int)n_elems, MEMPLAN_MAX_VALUE_ELEMS);
    memplan_input_value *values = (memplan_input_value *)r->shapes.values;
    size_t n = r->shapes.n_values, j = 0;
    while (j < n && !same_name(values[j].name, name, name_len)) j++;
    int64_t *copy = malloc((size_t)n_elems * sizeof *copy);
    char *name_copy = j == n ? copy_name(name, name_len) : NULL;
    void *items = values;
    if (!copy || (j == n && (!name_copy || !grow(&items, n, &r->values_cap, sizeof *values)))) {
        free(copy);
        free(name_copy);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    memcpy(copy, elems, (size_t)n_elems * sizeof *copy);
    values = items;
    if (j < n) { /* a later value of the same input replaces the earlier one */
        free((int64_t *)values[j].elems);
        name_copy = (char *)values[j].name;
    }
    values[j] = (memplan_input_value){name_copy, n_elems, copy};
    r->shapes.values = values;
    if (j == n) r->shapes.n_values = n + 1;
    return MEMPLAN_OK;
}

memplan_status memplan_request_bind_range(memplan_request *r, const char *name, size_t name_len, int64_t lo, int64_t hi,
                                          memplan_error *err) {
    if (lo < 0 || lo > hi)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "the range of dim '%.*s' is empty", (int)name_len, name);
    memplan_dim_range *ranges = (memplan_dim_range *)r->plan.ranges;
    size_t n = r->plan.n_ranges;
    for (size_t j = 0; j < n; j++)
        if (same_name(ranges[j].name, name, name_len)) { /* a later range replaces, in its place */
            ranges[j].lo = lo;
            ranges[j].hi = hi;
            return MEMPLAN_OK;
        }
    void *items = ranges;
    char *copy = copy_name(name, name_len);
    if (!copy || !grow(&items, n, &r->ranges_cap, sizeof *ranges)) {
        free(copy);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    }
    ranges = items;
    ranges[n] = (memplan_dim_range){copy, lo, hi, 0};
    r->plan.ranges = ranges;
    r->plan.n_ranges = n + 1;
    return MEMPLAN_OK;
}

void memplan_request_plan_options(const memplan_request *r, memplan_plan_options *o) {
    *o = r->plan;
    o->allow_input_overwrite = r->inplace.allow_input_overwrite;
    o->bindings = r->shapes.bindings;
    o->n_bindings = r->shapes.n_bindings;
    o->values = r->shapes.values;
    o->n_values = r->shapes.n_values;
}

/* ---- option values ------------------------------------------------------ */

static bool parse_u64(const char *s, uint64_t max, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return false;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v > max) return false;
    *out = v;
    return true;
}

static memplan_status set_strategy(memplan_request *r, const char *v, memplan_error *err) {
    if (v && strcmp(v, "arena") == 0) r->strategy = MEMPLAN_STRATEGY_ARENA;
    else if (v && strcmp(v, "slots") == 0)
        r->strategy = MEMPLAN_STRATEGY_SLOTS;
    else
        return memplan_error_set(err, MEMPLAN_EUSAGE, "--strategy takes 'arena' or 'slots'");
    return MEMPLAN_OK;
}

static memplan_status set_align(memplan_request *r, const char *v, memplan_error *err) {
    uint64_t u;
    if (!parse_u64(v, 1u << 30, &u) || u == 0 || (u & (u - 1)))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "--align takes a power of two between 1 and 2^30");
    r->plan.align = u;
    return MEMPLAN_OK;
}

/* A budget option's milliseconds (0 to 600000) into *out. */
static memplan_status set_ms(const char *opt, const char *v, uint32_t *out, memplan_error *err) {
    uint64_t u;
    if (!parse_u64(v, 600000, &u))
        return memplan_error_set(err, MEMPLAN_EUSAGE, "%s takes milliseconds (0 to 600000)", opt);
    *out = (uint32_t)u;
    return MEMPLAN_OK;
}

static memplan_status set_budget(memplan_request *r, const char *v, memplan_error *err) {
    return set_ms("--budget-ms", v, &r->plan.budget_ms, err);
}

static memplan_status set_order_budget(memplan_request *r, const char *v, memplan_error *err) {
    return set_ms("--order-budget-ms", v, &r->plan.order_budget_ms, err);
}

static memplan_status set_order(memplan_request *r, const char *v, memplan_error *err) {
    if (!v || !memplan_order_parse(v, &r->plan.order))
        return memplan_error_set(
            err, MEMPLAN_EUSAGE,
            "--order takes best, file, greedy, dfs, postorder, forward, onnxruntime, beam or exact");
    r->order_given = true;
    return MEMPLAN_OK;
}

/* The integer at s[0..n) into *out (<= max); false when it is not one. */
static bool parse_u64n(const char *s, size_t n, uint64_t max, uint64_t *out) {
    char text[32];
    if (n == 0 || n >= sizeof text) return false;
    memcpy(text, s, n);
    text[n] = 0;
    return parse_u64(text, max, out);
}

/* "NAME=LO..HI" or "NAME=LO..HI:N": a range, planned at HI by --upper-bounds
 * (the plan's, not the shapes': a range binds nothing by itself); N is the
 * number of values `memplan sweep` plans from LO to HI. */
static memplan_status set_range(memplan_request *r, const char *v, const char *eq, memplan_error *err) {
    const char *dots = strstr(eq + 1, ".."), *hi_text = dots + 2, *colon = strchr(hi_text, ':');
    uint64_t lo, hi, points = 0;
    bool ok = eq != v && parse_u64n(eq + 1, (size_t)(dots - (eq + 1)), 1ull << 53, &lo) &&
              parse_u64n(hi_text, colon ? (size_t)(colon - hi_text) : strlen(hi_text), 1ull << 53, &hi) && lo <= hi &&
              (!colon || (parse_u64(colon + 1, MEMPLAN_SWEEP_MAX_POINTS, &points) && points >= 1));
    if (!ok)
        return memplan_error_set(err, MEMPLAN_EUSAGE,
                                 "--dim NAME=LO..HI takes integers with 0 <= LO <= HI <= 2^53 (and :N, 1 <= N <= %d, "
                                 "for sweep), got '%s'",
                                 MEMPLAN_SWEEP_MAX_POINTS, v);
    memplan_status st = memplan_request_bind_range(r, v, (size_t)(eq - v), (int64_t)lo, (int64_t)hi, err);
    if (!st) { /* the range just bound (or replaced) takes the count */
        memplan_dim_range *ranges = (memplan_dim_range *)r->plan.ranges;
        for (size_t j = 0; j < r->plan.n_ranges; j++)
            if (strncmp(ranges[j].name, v, (size_t)(eq - v)) == 0 && ranges[j].name[eq - v] == 0)
                ranges[j].points = (uint32_t)points;
    }
    return st;
}

/* "NAME=VALUE", VALUE an integer in [0, 2^53], or "NAME=LO..HI"; NAME of
 * any length (the loader accepts names up to 64 KiB, and each must be
 * bindable). NAME ends at the last '=': a dim name may hold '=', a value
 * never does. */
static memplan_status set_dim(memplan_request *r, const char *v, memplan_error *err) {
    const char *eq = v ? strrchr(v, '=') : NULL;
    if (eq && strstr(eq + 1, "..")) return set_range(r, v, eq, err);
    uint64_t u;
    if (!eq || eq == v || !parse_u64(eq + 1, 1ull << 53, &u))
        return memplan_error_set(err, MEMPLAN_EUSAGE,
                                 "--dim takes NAME=VALUE with VALUE an integer in [0, 2^53], or NAME=LO..HI, got '%s'",
                                 v ? v : "");
    return memplan_request_bind_dim(r, v, (size_t)(eq - v), (int64_t)u, err);
}

static memplan_status value_usage(const char *v, memplan_error *err) {
    return memplan_error_set(err, MEMPLAN_EUSAGE,
                             "--value takes NAME=V or NAME=V,V,... (integers or true/false), got '%s'", v ? v : "");
}

/* One element of a --value list, p[0..len): an integer, or true/false. */
static bool parse_elem(const char *p, size_t len, int64_t *x) {
    if (len == 4 && strncmp(p, "true", 4) == 0) *x = 1;
    else if (len == 5 && strncmp(p, "false", 5) == 0)
        *x = 0;
    else {
        char *end = NULL;
        errno = 0;
        long long v = len ? strtoll(p, &end, 10) : 0;
        if (!len || end != p + len || ((v == LLONG_MAX || v == LLONG_MIN) && errno == ERANGE)) return false;
        *x = v;
    }
    return true;
}

/* "NAME=V[,V...]": integers, or true/false; NAME ends at the last '=' (as for --dim). */
static memplan_status set_value(memplan_request *r, const char *v, memplan_error *err) {
    const char *eq = v ? strrchr(v, '=') : NULL;
    if (!eq || eq == v) return value_usage(v, err);
    int64_t elems[MEMPLAN_MAX_VALUE_ELEMS];
    int32_t n = 0;
    for (const char *p = eq + 1;; n++) {
        if (n == MEMPLAN_MAX_VALUE_ELEMS)
            return memplan_error_set(err, MEMPLAN_EUSAGE, "--value %.*s: more than %d elements", (int)(eq - v), v,
                                     MEMPLAN_MAX_VALUE_ELEMS);
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!parse_elem(p, len, &elems[n])) return value_usage(v, err);
        if (!comma) break;
        p = comma + 1;
    }
    return memplan_request_bind_value(r, v, (size_t)(eq - v), elems, n + 1, err);
}

/* A file path (--trace OUT.json): kept as given, for the shell to write. */
static memplan_status set_trace(memplan_request *r, const char *v, memplan_error *err) {
    if (!v || !*v) return memplan_error_set(err, MEMPLAN_EUSAGE, "--trace takes a file path (OUT.json)");
    r->trace_path = v;
    return MEMPLAN_OK;
}

/* ---- the table ---------------------------------------------------------- */

#define SWITCH(name, field)                                                                                            \
    { name, NULL, false, offsetof(memplan_request, field), NULL }
#define VALUED(name, metavar, repeatable, set)                                                                         \
    { name, metavar, repeatable, 0, set }

static const memplan_option OPTIONS[MEMPLAN_OPT_COUNT] = {
    [MEMPLAN_OPT_STRATEGY] = VALUED("--strategy", "arena|slots", false, set_strategy),
    [MEMPLAN_OPT_ALIGN] = VALUED("--align", "N", false, set_align),
    [MEMPLAN_OPT_BUDGET_MS] = VALUED("--budget-ms", "N", false, set_budget),
    [MEMPLAN_OPT_DIM] = VALUED("--dim", "NAME=VALUE", true, set_dim),
    [MEMPLAN_OPT_VALUE] = VALUED("--value", "NAME=V[,V...]", true, set_value),
    [MEMPLAN_OPT_INCLUDE_INPUTS] = SWITCH("--include-inputs", plan.include_inputs),
    [MEMPLAN_OPT_CONSTANTS_AS_ACTIVATIONS] = SWITCH("--constants-as-activations", plan.constants_as_activations),
    [MEMPLAN_OPT_INPLACE] = SWITCH("--inplace", plan.inplace),
    [MEMPLAN_OPT_ALLOW_INPUT_OVERWRITE] = SWITCH("--allow-input-overwrite", inplace.allow_input_overwrite),
    [MEMPLAN_OPT_EVENTS] = SWITCH("--events", inplace.events),
    [MEMPLAN_OPT_NO_NODES] = SWITCH("--no-nodes", no_nodes),
    [MEMPLAN_OPT_NO_AT_PEAK] = SWITCH("--no-at-peak", no_at_peak),
    [MEMPLAN_OPT_COLUMNS] = SWITCH("--columns", columns),
    [MEMPLAN_OPT_UPPER_BOUNDS] = SWITCH("--upper-bounds", plan.upper_bounds),
    [MEMPLAN_OPT_TRACE] = VALUED("--trace", "OUT.json", false, set_trace),
    [MEMPLAN_OPT_ORDER] = VALUED("--order", "NAME", false, set_order),
    [MEMPLAN_OPT_ORDER_BUDGET_MS] = VALUED("--order-budget-ms", "N", false, set_order_budget),
    [MEMPLAN_OPT_SHARE_KV] = SWITCH("--share-kv", plan.share_kv),
    [MEMPLAN_OPT_FUSE_QDQ] = SWITCH("--fuse-qdq", plan.fuse_qdq),
    [MEMPLAN_OPT_QDQ_INT8] = SWITCH("--qdq-int8", plan.qdq_int8),
    [MEMPLAN_OPT_WORKSPACE] = SWITCH("--workspace", plan.kernel_workspace),
    [MEMPLAN_OPT_FLOAT16_CPU] = SWITCH("--float16-cpu", float16_cpu),
};

const memplan_option *memplan_option_get(memplan_option_id id) {
    return (unsigned)id < MEMPLAN_OPT_COUNT ? &OPTIONS[id] : NULL;
}

bool memplan_option_find(const char *name, memplan_option_id *id) {
    for (unsigned i = 0; i < MEMPLAN_OPT_COUNT; i++)
        if (strcmp(OPTIONS[i].name, name) == 0) {
            *id = (memplan_option_id)i;
            return true;
        }
    return false;
}

memplan_status memplan_option_apply(memplan_request *r, memplan_option_id id, const char *value, memplan_error *err) {
    const memplan_option *o = memplan_option_get(id);
    if (!o) return memplan_error_set(err, MEMPLAN_EUSAGE, "no option %d", (int)id);
    if (o->set) return o->set(r, value, err);
    *(bool *)((char *)r + o->flag) = true;
    return MEMPLAN_OK;
}
