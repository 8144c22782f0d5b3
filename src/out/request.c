/* request.c -- the options shared by the CLI and the WASM exports. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/plan.h"
#include "memplan/report.h"

void memplan_request_init(memplan_request *r) {
    memset(r, 0, sizeof *r);
    r->strategy = MEMPLAN_STRATEGY_ARENA;
    r->align = MEMPLAN_PACK_DEFAULT_ALIGN;
    r->budget_ms = MEMPLAN_PACK_DEFAULT_BUDGET_MS;
    r->order = MEMPLAN_ORDER_FILE;
    r->order_budget_ms = MEMPLAN_ORDER_DEFAULT_BUDGET_MS;
}

/* One bit per option, in memplan_request.given. */
enum {
    OPT_INCLUDE_INPUTS = 1u << 0, OPT_ALLOW = 1u << 1, OPT_EVENTS = 1u << 2, OPT_INPLACE = 1u << 3,
    OPT_NO_NODES = 1u << 4, OPT_OUTPUT = 1u << 5, OPT_STRATEGY = 1u << 6, OPT_ALIGN = 1u << 7,
    OPT_BUDGET = 1u << 8, OPT_DIM = 1u << 9, OPT_VALUE = 1u << 10, OPT_CONSTANTS = 1u << 11,
    OPT_UPPER = 1u << 12, OPT_RANGE = 1u << 13, OPT_ORDER = 1u << 14, OPT_ORDER_BUDGET = 1u << 15
};

static const char *const OPT_NAMES[] = {"--include-inputs", "--allow-input-overwrite", "--events", "--inplace",
                                        "--no-nodes", "-o", "--strategy", "--align", "--budget-ms", "--dim",
                                        "--value", "--constants-as-activations",
                                        "--upper-bounds", "--dim NAME=LO..HI", "--order", "--order-budget-ms"};

/* The options each command takes (besides --json), as in README's synopsis. */
static const struct {
    const char *command;
    uint32_t takes;
} COMMAND_OPTS[] = {
    {"info", 0},
    {"shapes", OPT_DIM | OPT_VALUE},
    {"plan", OPT_DIM | OPT_VALUE | OPT_STRATEGY | OPT_ALIGN | OPT_BUDGET | OPT_INCLUDE_INPUTS | OPT_NO_NODES |
                 OPT_INPLACE | OPT_ALLOW | OPT_CONSTANTS | OPT_UPPER | OPT_RANGE | OPT_ORDER | OPT_ORDER_BUDGET},
    {"reorder", OPT_DIM | OPT_VALUE | OPT_ALIGN | OPT_INCLUDE_INPUTS | OPT_CONSTANTS | OPT_UPPER | OPT_RANGE |
                    OPT_ORDER | OPT_ORDER_BUDGET | OPT_OUTPUT},
    {"inplace", OPT_ALLOW | OPT_EVENTS},
    {"profile", OPT_DIM | OPT_ALLOW},
    {"tags", 0},
    {"annotate", OPT_ALLOW | OPT_OUTPUT},
};

memplan_status memplan_request_check(const memplan_request *r, const char *command, memplan_error *err) {
    for (size_t i = 0; i < sizeof COMMAND_OPTS / sizeof COMMAND_OPTS[0]; i++) {
        if (strcmp(COMMAND_OPTS[i].command, command) != 0) continue;
        uint32_t extra = r->given & ~COMMAND_OPTS[i].takes;
        for (size_t b = 0; extra && b < sizeof OPT_NAMES / sizeof OPT_NAMES[0]; b++)
            if (extra & (1u << b))
                return memplan_error_set(err, MEMPLAN_EUSAGE, "%s does not apply to %s", OPT_NAMES[b], command);
        return MEMPLAN_OK;
    }
    return MEMPLAN_OK;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return false;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v > max) return false;
    *out = v;
    return true;
}

/* A budget option's milliseconds (0 to 600000); false with the usage error set. */
static bool parse_ms(const char *opt, const char *val, uint32_t *out, memplan_error *err) {
    uint64_t u;
    if (!parse_u64(val, 600000, &u)) {
        memplan_error_set(err, MEMPLAN_EUSAGE, "%s takes milliseconds (0 to 600000)", opt);
        return false;
    }
    *out = (uint32_t)u;
    return true;
}

/* "NAME=V[,V...]": integers, or true/false. A later value of the same name
 * replaces the earlier one. */
static memplan_status parse_value(memplan_request *r, const char *text, memplan_error *err) {
    const char *eq = text ? strchr(text, '=') : NULL;
    size_t k = r->n_values;
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof r->value_names[0])
        return memplan_error_set(err, MEMPLAN_EUSAGE, "--value takes NAME=V or NAME=V,V,... (integers or true/false), got '%s'",
                                 text ? text : "");
    size_t j = 0;
    while (j < k && (strncmp(r->value_names[j], text, (size_t)(eq - text)) != 0 ||
                     r->value_names[j][eq - text] != 0))
        j++;
    if (j == k && k == MEMPLAN_MAX_VALUE_BINDINGS)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "more than %d --value bindings", MEMPLAN_MAX_VALUE_BINDINGS);
    int32_t n = 0;
    for (const char *p = eq + 1;; n++) {
        if (n == MEMPLAN_MAX_VALUE_ELEMS)
            return memplan_error_set(err, MEMPLAN_EUSAGE, "--value %.*s: more than %d elements", (int)(eq - text), text,
                                     MEMPLAN_MAX_VALUE_ELEMS);
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int64_t x;
        char *end = NULL;
        if (len == 4 && strncmp(p, "true", 4) == 0) x = 1;
        else if (len == 5 && strncmp(p, "false", 5) == 0) x = 0;
        else {
            errno = 0;
            long long v = len ? strtoll(p, &end, 10) : 0;
            if (!len || end != p + len || ((v == LLONG_MAX || v == LLONG_MIN) && errno == ERANGE))
                return memplan_error_set(err, MEMPLAN_EUSAGE,
                                         "--value takes NAME=V or NAME=V,V,... (integers or true/false), got '%s'", text);
            x = v;
        }
        r->value_elems[j][n] = x;
        if (!comma) break;
        p = comma + 1;
    }
    memcpy(r->value_names[j], text, (size_t)(eq - text));
    r->value_names[j][eq - text] = 0;
    r->values[j] = (memplan_input_value){r->value_names[j], n + 1, r->value_elems[j]};
    if (j == k) r->n_values++;
    return MEMPLAN_OK;
}

/* "NAME=VALUE". A later binding of the same name replaces the earlier one. */
static memplan_status parse_dim(memplan_request *r, const char *val, memplan_error *err) {
    if (r->n_bindings == MEMPLAN_MAX_BINDINGS)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "more than %d --dim bindings", MEMPLAN_MAX_BINDINGS);
    size_t k = r->n_bindings;
    if (!val || !memplan_binding_parse(val, &r->bindings[k], r->binding_names[k], sizeof r->binding_names[k]))
        return memplan_error_set(err, MEMPLAN_EUSAGE,
                                 "--dim takes NAME=VALUE with VALUE an integer in [0, 2^53], or NAME=LO..HI, got '%s'",
                                 val ? val : "");
    r->given |= OPT_DIM;
    size_t j = 0;
    while (j < k && strcmp(r->binding_names[j], r->binding_names[k]) != 0) j++;
    if (j < k) r->bindings[j].value = r->bindings[k].value;
    else r->n_bindings++;
    return MEMPLAN_OK;
}

/* "NAME=LO..HI": a range, planned at HI by --upper-bounds. Parsed as two
 * bindings ("NAME=LO", "NAME=HI") so both ends obey the same rules. A later
 * range of the same name replaces the earlier one. */
static memplan_status parse_range(memplan_request *r, const char *val, memplan_error *err) {
    const char *dots = strstr(val, ".."), *eq = strchr(val, '=');
    memplan_binding lo, hi;
    char name[128], text[160];
    bool ok = eq && eq < dots && (size_t)(dots - val) < sizeof text &&
              (size_t)(eq - val) + strlen(dots + 2) + 2 < sizeof text;
    if (ok) {
        memcpy(text, val, (size_t)(dots - val));
        text[dots - val] = 0;
        ok = memplan_binding_parse(text, &lo, name, sizeof name);
    }
    if (ok) {
        snprintf(text, sizeof text, "%.*s%s", (int)(eq - val + 1), val, dots + 2);
        ok = memplan_binding_parse(text, &hi, name, sizeof name) && lo.value <= hi.value;
    }
    if (!ok)
        return memplan_error_set(err, MEMPLAN_EUSAGE,
                                 "--dim NAME=LO..HI takes integers with 0 <= LO <= HI <= 2^53, got '%s'", val);
    size_t j = 0;
    while (j < r->n_ranges && strcmp(r->range_names[j], name) != 0) j++;
    if (j == MEMPLAN_MAX_RANGES)
        return memplan_error_set(err, MEMPLAN_EUSAGE, "more than %d dim ranges", MEMPLAN_MAX_RANGES);
    memcpy(r->range_names[j], name, strlen(name) + 1);
    r->ranges[j] = (memplan_dim_range){r->range_names[j], lo.value, hi.value};
    if (j == r->n_ranges) r->n_ranges++;
    r->given |= OPT_RANGE;
    return MEMPLAN_OK;
}

memplan_status memplan_request_parse(memplan_request *r, int argc, const char *const *argv,
                                     memplan_error *err) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t u;
        if (strcmp(a, "--json") == 0) {
            r->json = true;
        } else if (strcmp(a, "--include-inputs") == 0) {
            r->include_inputs = true;
            r->given |= OPT_INCLUDE_INPUTS;
        } else if (strcmp(a, "--allow-input-overwrite") == 0) {
            r->allow_input_overwrite = true;
            r->given |= OPT_ALLOW;
        } else if (strcmp(a, "--events") == 0) {
            r->events = true;
            r->given |= OPT_EVENTS;
        } else if (strcmp(a, "--inplace") == 0) {
            r->inplace = true;
            r->given |= OPT_INPLACE;
        } else if (strcmp(a, "--no-nodes") == 0) {
            r->no_nodes = true;
            r->given |= OPT_NO_NODES;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!val || !*val) return memplan_error_set(err, MEMPLAN_EUSAGE, "%s takes a file path", a);
            r->output_path = val;
            r->given |= OPT_OUTPUT;
            i++;
        } else if (strcmp(a, "--strategy") == 0) {
            if (val && strcmp(val, "arena") == 0) r->strategy = MEMPLAN_STRATEGY_ARENA;
            else if (val && strcmp(val, "slots") == 0) r->strategy = MEMPLAN_STRATEGY_SLOTS;
            else return memplan_error_set(err, MEMPLAN_EUSAGE, "--strategy takes 'arena' or 'slots'");
            r->given |= OPT_STRATEGY;
            i++;
        } else if (strcmp(a, "--align") == 0) {
            if (!parse_u64(val, 1u << 30, &u) || u == 0 || (u & (u - 1)))
                return memplan_error_set(err, MEMPLAN_EUSAGE, "--align takes a power of two between 1 and 2^30");
            r->align = u;
            r->given |= OPT_ALIGN;
            i++;
        } else if (strcmp(a, "--budget-ms") == 0) {
            if (!parse_ms(a, val, &r->budget_ms, err)) return MEMPLAN_EUSAGE;
            r->given |= OPT_BUDGET;
            i++;
        } else if (strcmp(a, "--dim") == 0) {
            memplan_status st = val && strstr(val, "..") ? parse_range(r, val, err) : parse_dim(r, val, err);
            if (st) return st;
            i++;
        } else if (strcmp(a, "--order") == 0) {
            if (!val || !memplan_order_parse(val, &r->order))
                return memplan_error_set(err, MEMPLAN_EUSAGE,
                                         "--order takes best, file, greedy, dfs, postorder, forward, beam or exact");
            r->given |= OPT_ORDER;
            r->order_set = true;
            i++;
        } else if (strcmp(a, "--order-budget-ms") == 0) {
            if (!parse_ms(a, val, &r->order_budget_ms, err)) return MEMPLAN_EUSAGE;
            r->given |= OPT_ORDER_BUDGET;
            i++;
        } else if (strcmp(a, "--upper-bounds") == 0) {
            r->upper_bounds = true;
            r->given |= OPT_UPPER;
        } else if (strcmp(a, "--constants-as-activations") == 0) {
            r->constants_as_activations = true;
            r->given |= OPT_CONSTANTS;
        } else if (strcmp(a, "--value") == 0) {
            memplan_status st = parse_value(r, val, err);
            if (st) return st;
            r->given |= OPT_VALUE;
            i++;
        } else if (a[0] == '-' && a[1]) {
            return memplan_error_set(err, MEMPLAN_EUSAGE, "unknown option '%s'", a);
        } else {
            if (r->n_positional == MEMPLAN_MAX_POSITIONAL)
                return memplan_error_set(err, MEMPLAN_EUSAGE, "too many arguments");
            r->positional[r->n_positional++] = a;
        }
    }
    return MEMPLAN_OK;
}
