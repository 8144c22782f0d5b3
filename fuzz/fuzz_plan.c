/*
 * fuzz_plan.c -- libFuzzer target: model bytes -> load -> shapes -> plan ->
 * inplace -> profile -> annotate -> reload; plan --order best -> reorder -> reload.
 *
 * For every model that loads:
 *   1. the plan report JSON (memplan_report_json "plan") with the arena
 *      strategy without bindings, with every dim name bound, with graph
 *      inputs included, and with the slots strategy: each gives a document
 *      or an error with a message;
 *   2. the typed plan API (memplan_plan_model) with every dim bound, with and
 *      without graph inputs and in-place reuse (and, where the model has a
 *      KV-cache pair, with --share-kv): when every size is known, the
 *      slot plans (best fit and exact reuse) and the arena plan are each
 *      re-checked by their validator and against the plan's figures and value
 *      records; the lower bound never exceeds the arena or a slot plan;
 *   3. reports through a session are fuzz_session's (random request
 *      sequences against the one-shot reports): here they would double the
 *      time of every input, and big seeds (Silero VAD's 689 nodes with If
 *      bodies: 4.2 s in the fuzz build) came near the 10 s timeout.
 * Bindings come from the input bytes so the fuzzer can steer them.
 */
#include "cli/args.h"
#include "fuzz_common.h"
#include "memplan/ort_float16.h"

#define MAX_BINDS 16

/* Bind each distinct dim name of the main graph's values (up to MAX_BINDS). */
static size_t collect_bindings(const memplan_graph *g, uint64_t seed, memplan_binding *b) {
    const char *names[MAX_BINDS];
    size_t n = fuzz_dim_names(g, names, MAX_BINDS);
    for (size_t i = 0; i < n; i++) {
        b[i].name = names[i];
        b[i].value = (int64_t)((seed >> (i % 8 * 8)) & 0xFF); /* 0..255, 0 included */
    }
    return n;
}

static void run_command(const memplan_model *m, const char *command, const char *const *argv, int argc,
                        const memplan_binding *binds, size_t n_binds);

static const uint8_t *g_data; /* the model's bytes (value-tag hints) */
static size_t g_size;

static void run_report(const memplan_model *m, const char *const *argv, int argc, const memplan_binding *binds,
                       size_t n_binds) {
    run_command(m, "plan", argv, argc, binds, n_binds);
}

static void run_command(const memplan_model *m, const char *command, const char *const *argv, int argc,
                        const memplan_binding *binds, size_t n_binds) {
    memplan_request r;
    memplan_error err = {0};
    memplan_status st = cli_request_parse(&r, argc, argv, &err);
    FUZZ_CHECK(st == MEMPLAN_OK, "request: %s", err.message);
    for (size_t i = 0; i < n_binds; i++) /* names of any length, as the CLI binds them */
        FUZZ_CHECK(!memplan_request_bind_dim(&r, binds[i].name, strlen(binds[i].name), binds[i].value, &err),
                   "bind: %s", err.message);
    r.model_bytes = g_data;
    r.model_len = g_size;
    char *json = NULL;
    size_t len = 0;
    st = memplan_report_json(m, command, &r, &json, &len, &err);
    if (st == MEMPLAN_OK) {
        fuzz_check_text(json, len);
        FUZZ_CHECK(len >= 2 && json[0] == '{' && json[len - 1] == '\n', "%s JSON framing", command);
    } else {
        fuzz_check_error(st, &err);
    }
    free(json);
    char *text = NULL;
    st = memplan_report_text(m, command, &r, &text, &len, &err);
    if (st == MEMPLAN_OK) {
        fuzz_check_text(text, len);
        free(text);
    } else {
        fuzz_check_error(st, &err);
    }
    memplan_request_free(&r);
}

static size_t n_unknown_transients(const memplan_model_plan *p) {
    size_t n = 0;
    for (size_t i = 0; i < p->n_transients; i++) n += !p->transients[i].known;
    return n;
}

/* One plan of the tree (the main graph's or a body's), then its bodies'. */
static void check_plan(const memplan_model_plan *p) {
    const memplan_graph *g = p->graph;
    memplan_error err = {0};
    memplan_status st;
    const memplan_liveness *lv = &p->liveness;
    for (int32_t i = 0; i < lv->n_owners; i++) {
        int32_t v = lv->owners[i];
        FUZZ_CHECK(v >= 0 && v < g->n_values, "owner id %d", (int)v);
        FUZZ_CHECK(lv->root[v] == v, "owner '%s' is not its own root", g->values[v].name);
        FUZZ_CHECK(lv->start[v] >= 0 && lv->start[v] <= lv->end[v] && lv->end[v] < (g->n_nodes ? g->n_nodes : 1),
                   "owner '%s': interval [%d, %d] with %d positions", g->values[v].name, (int)lv->start[v],
                   (int)lv->end[v], (int)g->n_nodes);
    }
    for (int32_t v = 0; v < g->n_values; v++)
        FUZZ_CHECK(lv->root[v] >= -1 && lv->root[v] < g->n_values, "root of '%s': %d", g->values[v].name,
                   (int)lv->root[v]);
    FUZZ_CHECK(p->n_buffers + p->n_unplanned + p->n_unknown ==
                   (size_t)lv->n_owners + p->n_transients - n_unknown_transients(p),
               "%zu buffers + %zu unplanned + %zu unknown != %d owners", p->n_buffers, p->n_unplanned, p->n_unknown,
               (int)lv->n_owners);
    FUZZ_CHECK(p->deferred == (p->n_unknown > 0 || n_unknown_transients(p) > 0), "deferred %d with %zu unknown",
               (int)p->deferred, p->n_unknown);
    if (!p->deferred) {
        const memplan_buffer *bufs = p->buffers;
        size_t n = p->n_buffers;
        uint64_t lb1 = 0;
        st = memplan_lower_bound(bufs, n, 1, &lb1, &err);
        if (st) fuzz_check_error(st, &err);
        memplan_violation viol;
        st = memplan_validate_slots(bufs, n, &p->slots, &viol, &err);
        FUZZ_CHECK(st == MEMPLAN_OK, "best-fit slot plan invalid: %s", err.message);
        FUZZ_CHECK(p->slots.peak_bytes >= lb1, "slots %llu below the lower bound %llu",
                   (unsigned long long)p->slots.peak_bytes, (unsigned long long)lb1);
        st = memplan_validate_slots(bufs, n, &p->exact, NULL, &err);
        FUZZ_CHECK(st == MEMPLAN_OK, "exact slot plan invalid: %s", err.message);
        const memplan_arena_plan *ap = &p->arena;
        FUZZ_CHECK(ap->count == n, "arena plan count %zu of %zu", ap->count, n);
        st = memplan_validate_arena(bufs, n, ap->offset, ap->align, ap->arena_bytes, NULL, &err);
        FUZZ_CHECK(st == MEMPLAN_OK, "arena plan invalid: %s", err.message);
        FUZZ_CHECK(ap->lower_bound_bytes <= ap->arena_bytes, "lower bound %llu above the arena %llu",
                   (unsigned long long)ap->lower_bound_bytes, (unsigned long long)ap->arena_bytes);
        FUZZ_CHECK(p->figures[MEMPLAN_STRATEGY_ARENA].peak_bytes == ap->arena_bytes, "arena figure");
        FUZZ_CHECK(p->figures[MEMPLAN_STRATEGY_SLOTS].lower_bound_bytes == lb1, "slots lower bound figure");
        for (size_t i = 0; i < p->n_values; i++) {
            const memplan_value_plan *vp = &p->values[i];
            if (!vp->placed) continue;
            FUZZ_CHECK(vp->buffer >= 0 && (size_t)vp->buffer < n && p->buffer_value[vp->buffer] == vp->owner,
                       "value '%s': buffer %lld", g->values[vp->value].name, (long long)vp->buffer);
            FUZZ_CHECK(vp->arena_offset == ap->offset[vp->buffer], "value '%s': arena offset",
                       g->values[vp->value].name);
        }
    }
    for (size_t i = 0; i < p->n_transients; i++) {
        const memplan_transient *t = &p->transients[i];
        FUZZ_CHECK(t->node >= 0 && t->node < g->n_nodes, "transient at %d", (int)t->node);
        FUZZ_CHECK(!t->known || (t->buffer >= 0 && (size_t)t->buffer < p->n_buffers &&
                                 p->buffers[t->buffer].size == t->bytes && p->buffer_value[t->buffer] == -1),
                   "transient of node %d: buffer %lld", (int)t->node, (long long)t->buffer);
    }
    if (p->workspace.known) { /* the bound with the kernels' workspace: the plan's own when it holds it */
        uint64_t lb = p->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes;
        FUZZ_CHECK(p->workspace.included ? p->workspace.lower_bound == lb : p->workspace.lower_bound >= lb,
                   "workspace lower bound %llu against %llu", (unsigned long long)p->workspace.lower_bound,
                   (unsigned long long)lb);
        FUZZ_CHECK((p->workspace.largest_node != NULL) == (p->workspace.nodes > 0), "largest workspace node");
    }
    for (size_t i = 0; i < p->n_subgraphs; i++) {
        FUZZ_CHECK(p->subgraphs[i].plan->parent == p, "body %zu: parent", i);
        check_plan(p->subgraphs[i].plan);
    }
}

/* A plan from the typed API (memplan_plan_model, the path every shell
 * takes), re-checked by the validators and against its own figures; NULL
 * after an error (checked for a message). */
static memplan_model_plan *plan_checked(const memplan_model *m, const memplan_plan_options *o) {
    memplan_error err = {0};
    memplan_model_plan *p = NULL;
    memplan_status st = memplan_plan_model(m, o, &p, &err);
    if (st) {
        fuzz_check_error(st, &err);
        return NULL;
    }
    check_plan(p);
    return p;
}

static void run_validated(const memplan_model *m, const memplan_binding *binds, size_t n_binds, bool include_inputs,
                          uint32_t budget_ms, bool inplace, bool share_kv, bool fuse_qdq, bool workspace) {
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.bindings = binds;
    o.n_bindings = n_binds;
    o.include_inputs = include_inputs;
    o.budget_ms = budget_ms;
    o.inplace = inplace;
    o.allow_input_overwrite = inplace;
    o.share_kv = share_kv;
    o.fuse_qdq = fuse_qdq;
    o.kernel_workspace = workspace;
    memplan_model_plan_free(plan_checked(m, &o));
}

/* The plan under --order best: a valid plan, its order a topological order
 * of the model's graph with a lower bound no higher than the file order's;
 * the reordered model loads with the nodes in that order. */
static void run_ordered(const uint8_t *data, size_t size, const memplan_model *m, const memplan_binding *binds,
                        size_t n_binds) {
    memplan_error err = {0};
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.bindings = binds;
    o.n_bindings = n_binds;
    o.budget_ms = 0;
    o.order = MEMPLAN_ORDER_BEST;
    o.order_budget_ms = 1;
    memplan_model_plan *p = plan_checked(m, &o);
    if (!p) return;
    const memplan_graph *g = m->graph;
    int32_t n = g->n_nodes, *pos = malloc(((size_t)n + 1) * sizeof *pos);
    FUZZ_CHECK(pos != NULL, "out of memory");
    for (int32_t i = 0; i < n; i++) pos[i] = -1;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = p->order.node ? p->order.node[i] : i;
        FUZZ_CHECK(v >= 0 && v < n && pos[v] < 0, "order entry %d is %d", (int)i, (int)v);
        pos[v] = i;
    }
    for (int32_t v = 0; v < g->n_values; v++) /* a producer runs before its readers */
        FUZZ_CHECK(g->values[v].producer < 0 || pos[g->values[v].producer] == p->graph->values[v].producer,
                   "value %d: producer at %d, not %d", (int)v, (int)p->graph->values[v].producer,
                   (int)pos[g->values[v].producer]);
    for (int32_t i = 0; i < n; i++)
        for (int32_t k = 0; k < p->graph->nodes[i].n_inputs; k++) {
            int32_t v = p->graph->nodes[i].inputs[k];
            FUZZ_CHECK(v < 0 || p->graph->values[v].producer < i, "node at %d reads a value made at %d", (int)i,
                       (int)(v < 0 ? -1 : p->graph->values[v].producer));
        }
    free(pos);
    if (!p->deferred)
        FUZZ_CHECK(p->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes <=
                       p->order.file[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes,
                   "best's lower bound %llu is above the file order's %llu",
                   (unsigned long long)p->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes,
                   (unsigned long long)p->order.file[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes);
    unsigned char *out = NULL;
    size_t out_len = 0;
    memplan_status st = memplan_reorder(data, size, p, &out, &out_len, &err);
    if (st == MEMPLAN_OK) {
        memplan_model *again = NULL;
        st = memplan_model_load(out, out_len, NULL, &again, &err);
        FUZZ_CHECK(st == MEMPLAN_OK, "reordered model does not load: %s", err.message);
        FUZZ_CHECK(again->graph->n_nodes == n, "reordered model has %d nodes, not %d", (int)again->graph->n_nodes,
                   (int)n);
        FUZZ_CHECK(!again->graph->reordered, "the reordered model's node order is not topological");
        for (int32_t i = 0; i < n; i++)
            FUZZ_CHECK(strcmp(again->graph->nodes[i].op_type, p->graph->nodes[i].op_type) == 0,
                       "reordered node %d is %s, not %s", (int)i, again->graph->nodes[i].op_type,
                       p->graph->nodes[i].op_type);
        memplan_model_free(again);
        free(out);
    } else {
        fuzz_check_error(st, &err);
    }
    memplan_model_plan_free(p);
}

/* shapes -> inplace -> annotate -> reload: the annotated model loads again
 * with the same node count. */
static void run_annotate(const uint8_t *data, size_t size, const memplan_model *m) {
    memplan_error err = {0};
    memplan_shapes *S = NULL;
    memplan_status st = memplan_shapes_infer(m, &S, &err);
    if (st) {
        fuzz_check_error(st, &err);
        return;
    }
    memplan_inplace *ctx = NULL;
    memplan_inplace_options o = {(size & 1) != 0, true};
    st = memplan_inplace_compute(m, S, &o, &ctx, &err);
    if (st) {
        fuzz_check_error(st, &err);
        memplan_shapes_free(S);
        return;
    }
    unsigned char *out = NULL;
    size_t out_len = 0;
    st = memplan_annotate(data, size, ctx, &out, &out_len, &err);
    if (st == MEMPLAN_OK) {
        memplan_model *again = NULL;
        st = memplan_model_load(out, out_len, NULL, &again, &err);
        FUZZ_CHECK(st == MEMPLAN_OK, "annotated model does not load: %s", err.message);
        FUZZ_CHECK(again->graph->n_nodes == m->graph->n_nodes, "annotated model has %d nodes, not %d",
                   (int)again->graph->n_nodes, (int)m->graph->n_nodes);
        memplan_model_free(again);
        free(out);
    } else {
        fuzz_check_error(st, &err);
    }
    memplan_inplace_free(ctx);
    memplan_shapes_free(S);
}

/* The graph ONNX Runtime's CPU execution provider runs (memplan/ort_float16.h):
 * a model like any loaded one, whose plan validates; and the report on it. */
static void run_float16_cpu(const memplan_model *m, const memplan_binding *binds, size_t n_binds) {
    memplan_error err = {0};
    memplan_model *r = NULL;
    memplan_ort_float16_stats st;
    memplan_status s = memplan_onnxruntime_cpu_graph(m, &r, &st, &err);
    if (s != MEMPLAN_OK) {
        fuzz_check_error(s, &err);
        return;
    }
    FUZZ_CHECK(st.forced <= st.float32_nodes && st.float32_nodes <= m->n_nodes_total, "float16 stats");
    fuzz_check_model(r);
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.bindings = binds;
    o.n_bindings = n_binds;
    o.budget_ms = 0;
    memplan_model_plan_free(plan_checked(r, &o));
    memplan_model_free(r);
    static const char *const F16[] = {"--budget-ms", "0", "--float16-cpu"};
    run_report(m, F16, 3, binds, n_binds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    memplan_model *m = NULL;
    memplan_error err = {0};
    memplan_status st = memplan_model_load(data, size, NULL, &m, &err);
    if (st != MEMPLAN_OK) {
        fuzz_check_error(st, &err);
        return 0;
    }
    fuzz_check_model(m);
    g_data = data;
    g_size = size;
    uint64_t seed = fuzz_fnv(data, size);
    memplan_binding binds[MAX_BINDS];
    size_t n_binds = collect_bindings(m->graph, seed, binds);

    static const char *const ARENA[] = {"--budget-ms", "0"};
    static const char *const ARENA_INPUTS[] = {"--budget-ms", "1", "--include-inputs", "--align", "16"};
    static const char *const SLOTS[] = {"--strategy", "slots", "--budget-ms", "0", "--align", "1"};
    run_report(m, ARENA, 2, NULL, 0);
    run_report(m, ARENA, 2, binds, n_binds);
    run_report(m, ARENA_INPUTS, 5, binds, n_binds);
    run_report(m, SLOTS, 6, binds, n_binds);

    static const char *const NONE[] = {"--budget-ms", "0"};
    static const char *const INPLACE[] = {"--budget-ms", "0", "--inplace", "--allow-input-overwrite"};
    static const char *const EVENTS[] = {"--events"};
    run_command(m, "shapes", NONE, 0, binds, n_binds);
    run_command(m, "plan", INPLACE, 4, binds, n_binds);
    run_command(m, "inplace", EVENTS, 1, NULL, 0);
    run_command(m, "profile", NONE, 0, binds, n_binds);
    run_command(m, "tags", NONE, 0, NULL, 0);
    run_annotate(data, size, m);

    run_validated(m, binds, n_binds, false, 0, false, false, false, false);
    run_validated(m, binds, n_binds, true, (seed & 1) ? 1 : 0, (seed & 2) != 0, false, (seed & 16) != 0,
                  (seed & 32) != 0);
    static const char *const FUSE_QDQ[] = {"--budget-ms", "0", "--fuse-qdq", "--inplace"};
    run_report(m, FUSE_QDQ, 4, binds, n_binds);
    static const char *const QDQ_INT8[] = {"--budget-ms", "0", "--fuse-qdq", "--qdq-int8"};
    run_report(m, QDQ_INT8, 4, binds, n_binds);
    /* --share-kv where the model has a KV-cache pair (elsewhere it is a usage error) */
    memplan_plan_link *pairs = malloc((size_t)(m->graph->n_outputs ? m->graph->n_outputs : 1) * sizeof *pairs);
    FUZZ_CHECK(pairs != NULL, "out of memory");
    size_t kv = memplan_share_kv_pairs(m->graph, pairs);
    free(pairs);
    if (kv) {
        static const char *const SHARE_KV[] = {"--budget-ms", "0", "--share-kv"};
        run_report(m, SHARE_KV, 3, binds, n_binds);
        run_validated(m, binds, n_binds, (seed & 4) != 0, 0, (seed & 8) != 0, true, false, (seed & 64) != 0);
    }
    run_ordered(data, size, m, binds, n_binds);
    run_float16_cpu(m, binds, n_binds);
    memplan_model_free(m);
    return 0;
}
