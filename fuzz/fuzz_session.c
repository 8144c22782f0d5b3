/*
 * fuzz_session.c -- libFuzzer target: a random sequence of requests on one
 * session, each compared with the one-shot report of the same request.
 *
 * A session caches stage results between requests (src/out/cache.h): dims
 * bound anew re-run shapes and the planners, the in-place analyses are kept
 * across bindings, a strategy switch reprints the same plan. A stale cache
 * entry shows up as a document that differs from memplan_report_json (or
 * _text) of the same model and request, which this target checks after
 * every request. The sequence (1..8 requests of plan, inplace, profile,
 * tags and shapes, in JSON or text, with dims, ranges and input values
 * bound to values including 0 and large ones, either strategy, an
 * alignment, in-place reuse, graph inputs, an order, upper bounds) comes
 * from a generator seeded by the input's hash; now and then the session
 * forgets its cache in between. The session must load exactly the models
 * memplan_model_load does, with the same error otherwise.
 *
 * Searches with a work budget are deterministic (they count work, not
 * time), so every report is compared byte for byte.
 */
#include "fuzz_common.h"

#define MAX_DIMS 8
#define MAX_REQUESTS 8

static const char *const COMMANDS[] = {"plan", "plan", "plan", "inplace", "profile", "tags", "shapes"};
static const uint64_t ALIGNS[] = {1, 16, 64, 4096};
static const int64_t DIM_VALUES[] = {0, 1, 2, 3, 7, 64, 255, 1 << 20, (int64_t)1 << 40};
static const memplan_order_kind ORDERS[] = {MEMPLAN_ORDER_FILE, MEMPLAN_ORDER_GREEDY, MEMPLAN_ORDER_DFS,
                                            MEMPLAN_ORDER_POSTORDER, MEMPLAN_ORDER_FORWARD};

#define PICK(rng, table) (table[fuzz_next(rng) % (sizeof table / sizeof table[0])])

/* Bind some of the model's dim names (values, or ranges planned at their
 * top) and give some graph inputs small integer values. */
static void bind_random(memplan_request *r, const memplan_graph *g, uint64_t *rng) {
    const char *names[MAX_DIMS];
    size_t n = fuzz_dim_names(g, names, MAX_DIMS);
    memplan_error err = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t how = fuzz_next(rng) % 4;
        int64_t v = fuzz_next(rng) & 1 ? PICK(rng, DIM_VALUES) : (int64_t)(fuzz_next(rng) % 256);
        if (how == 0) continue;
        if (how == 3) {
            FUZZ_CHECK(!memplan_request_bind_range(r, names[i], strlen(names[i]), v / 2, v, &err), "range: %s",
                       err.message);
            r->plan.upper_bounds = true;
        } else {
            FUZZ_CHECK(!memplan_request_bind_dim(r, names[i], strlen(names[i]), v, &err), "bind: %s", err.message);
        }
    }
    for (int32_t i = 0; i < g->n_inputs && i < 4; i++) {
        if (fuzz_next(rng) % 3) continue;
        int64_t elems[4];
        int32_t k = 1 + (int32_t)(fuzz_next(rng) % 4);
        for (int32_t j = 0; j < k; j++) elems[j] = (int64_t)(fuzz_next(rng) % 9) - 1; /* -1 .. 7 */
        const char *name = g->values[g->inputs[i]].name;
        FUZZ_CHECK(!memplan_request_bind_value(r, name, strlen(name), elems, k, &err), "value: %s", err.message);
    }
}

/* One random request: its options and bindings. */
static void random_request(memplan_request *r, const memplan_graph *g, const uint8_t *data, size_t size,
                           uint64_t *rng) {
    memplan_request_init(r);
    uint64_t bits = fuzz_next(rng);
    r->strategy = bits & 1 ? MEMPLAN_STRATEGY_SLOTS : MEMPLAN_STRATEGY_ARENA;
    r->plan.align = PICK(rng, ALIGNS);
    r->plan.budget_ms = (uint32_t)(fuzz_next(rng) % 3); /* 0 .. 2: a work budget */
    r->plan.include_inputs = (bits & 2) != 0;
    r->plan.inplace = (bits & 4) != 0;
    r->inplace.allow_input_overwrite = (bits & 8) != 0;
    r->inplace.events = (bits & 16) != 0;
    r->plan.constants_as_activations = (bits & 32) != 0;
    r->plan.kernel_workspace = (bits & 512) != 0;
    r->float16_cpu = (bits & 1024) != 0;
    r->no_nodes = (bits & 64) != 0;
    if (bits & 128) {
        r->plan.order = PICK(rng, ORDERS);
        r->order_given = true;
    }
    r->model_bytes = data;
    r->model_len = size;
    if (bits & 256) bind_random(r, g, rng);
}

/* The session's document for the request against the one-shot report. */
static void check_request(memplan_session *s, const char *command, const memplan_request *r, bool json) {
    const memplan_model *m = memplan_session_model(s);
    char *ref = NULL, *out = NULL;
    size_t ref_len = 0, len = 0;
    memplan_error e1 = {0}, e2 = {0};
    memplan_status s1 = json ? memplan_report_json(m, command, r, &ref, &ref_len, &e1)
                             : memplan_report_text(m, command, r, &ref, &ref_len, &e1);
    if (s1 == MEMPLAN_OK) fuzz_check_text(ref, ref_len);
    else
        fuzz_check_error(s1, &e1);
    memplan_status s2 = memplan_session_report(s, command, r, json, &out, &len, &e2);
    char what[64];
    snprintf(what, sizeof what, "session %s (%s)", command, json ? "json" : "text");
    fuzz_check_same(what, s1, ref, ref_len, &e1, s2, out, len, &e2);
    free(ref);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    memplan_session *s = NULL;
    memplan_error err = {0}, err2 = {0};
    memplan_status st = memplan_session_open(data, size, &s, &err);
    memplan_model *m = NULL;
    memplan_status st2 = memplan_model_load(data, size, NULL, &m, &err2);
    fuzz_check_same("session open", st2, NULL, 0, &err2, st, NULL, 0, &err);
    memplan_model_free(m);
    if (st) {
        fuzz_check_error(st, &err);
        return 0;
    }
    uint64_t rng = fuzz_fnv(data, size);
    int n = 1 + (int)(fuzz_next(&rng) % MAX_REQUESTS);
    for (int i = 0; i < n; i++) {
        memplan_request r;
        random_request(&r, memplan_session_model(s)->graph, data, size, &rng);
        check_request(s, PICK(&rng, COMMANDS), &r, (fuzz_next(&rng) & 3) != 0);
        memplan_request_free(&r);
        if (fuzz_next(&rng) % 8 == 0) memplan_session_forget(s);
    }
    memplan_session_close(s);
    return 0;
}
