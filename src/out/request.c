/* request.c -- the options shared by the CLI and the WASM exports. */
#include <stdlib.h>
#include <string.h>

#include "memplan/plan.h"
#include "memplan/report.h"

void memplan_request_init(memplan_request *r) {
    memset(r, 0, sizeof *r);
    r->strategy = MEMPLAN_STRATEGY_ARENA;
    r->align = MEMPLAN_PACK_DEFAULT_ALIGN;
    r->budget_ms = MEMPLAN_PACK_DEFAULT_BUDGET_MS;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return false;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v > max) return false;
    *out = v;
    return true;
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
        } else if (strcmp(a, "--allow-input-overwrite") == 0) {
            r->allow_input_overwrite = true;
        } else if (strcmp(a, "--events") == 0) {
            r->events = true;
        } else if (strcmp(a, "--inplace") == 0) {
            r->inplace = true;
        } else if (strcmp(a, "--no-nodes") == 0) {
            r->no_nodes = true;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!val || !*val) return memplan_error_set(err, MEMPLAN_EUSAGE, "%s takes a file path", a);
            r->output_path = val;
            i++;
        } else if (strcmp(a, "--strategy") == 0) {
            if (val && strcmp(val, "arena") == 0) r->strategy = MEMPLAN_STRATEGY_ARENA;
            else if (val && strcmp(val, "slots") == 0) r->strategy = MEMPLAN_STRATEGY_SLOTS;
            else return memplan_error_set(err, MEMPLAN_EUSAGE, "--strategy takes 'arena' or 'slots'");
            i++;
        } else if (strcmp(a, "--align") == 0) {
            if (!parse_u64(val, 1u << 30, &u) || u == 0 || (u & (u - 1)))
                return memplan_error_set(err, MEMPLAN_EUSAGE, "--align takes a power of two between 1 and 2^30");
            r->align = u;
            i++;
        } else if (strcmp(a, "--budget-ms") == 0) {
            if (!parse_u64(val, 600000, &u))
                return memplan_error_set(err, MEMPLAN_EUSAGE, "--budget-ms takes milliseconds (0 to 600000)");
            r->budget_ms = (uint32_t)u;
            i++;
        } else if (strcmp(a, "--dim") == 0) {
            if (r->n_bindings == MEMPLAN_MAX_BINDINGS)
                return memplan_error_set(err, MEMPLAN_EUSAGE, "more than %d --dim bindings", MEMPLAN_MAX_BINDINGS);
            size_t k = r->n_bindings;
            if (!val || !memplan_binding_parse(val, &r->bindings[k], r->binding_names[k], sizeof r->binding_names[k]))
                return memplan_error_set(err, MEMPLAN_EUSAGE, "--dim takes NAME=VALUE with VALUE an integer in [0, 2^53], got '%s'",
                                         val ? val : "");
            /* A later binding of the same name replaces the earlier one. */
            size_t j = 0;
            while (j < k && strcmp(r->binding_names[j], r->binding_names[k]) != 0) j++;
            if (j < k) {
                r->bindings[j].value = r->bindings[k].value;
            } else {
                r->n_bindings++;
            }
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
