/*
 * test_session.c -- a session's reports equal one-shot reports, and the stage
 * cache behind them is really reused (and stays bounded).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "cli/args.h"
#include "model_builder.h"
#include "out/cache.h"

/* x[batch, seq, 8] through unary ops, a residual Add, a Reshape (a view) and
 * a Concat; an initializer feeds a Mul. */
static uint8_t *model_bytes(size_t *len) {
    mb_graph *g = mb_new_graph("session");
    mb_input(g, "x", 1, "batch,seq,8");
    mb_meta(&g->input[0]->metadata_props, &g->input[0]->n_metadata_props, "onnx_light.value_tag", "shape");
    mb_initializer(g, "w", 1, "8");
    static const int64_t flat[] = {-1, 8};
    mb_initializer_ints(g, "flat", "2", flat, 2);
    mb_node(g, "Abs", "x", "a");
    mb_node(g, "Relu", "a", "b");
    mb_node(g, "Mul", "b,w", "c");
    mb_node(g, "Add", "a,c", "d");
    mb_node(g, "Reshape", "d,flat", "e");
    mb_node(g, "Sigmoid", "e", "f");
    mb_int_attr(mb_node(g, "Concat", "e,f", "y"), "axis", 0);
    mb_output(g, "y", 1, "?,8");
    return mb_pack(g, len);
}

typedef struct step {
    const char *command;
    bool json;
    const char *args[8];
} step;

static int count_args(const step *s) {
    int n = 0;
    while (n < 8 && s->args[n]) n++;
    return n;
}

/* One request, through the session and one-shot; the two outputs must be
 * byte-identical (errors too: same status and message). */
static void check_step(memplan_session *s, const memplan_model *m, const uint8_t *bytes, size_t len, const step *st) {
    memplan_request req, *r = &req;
    memplan_error err = {0};
    assert_int_equal(cli_request_parse(r, count_args(st), st->args, &err), MEMPLAN_OK);
    r->model_bytes = bytes;
    r->model_len = len;
    char *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    memplan_error ea = {0}, eb = {0};
    memplan_status sa = memplan_session_report(s, st->command, r, st->json, &a, &alen, &ea);
    memplan_status sb = st->json ? memplan_report_json(m, st->command, r, &b, &blen, &eb)
                                 : memplan_report_text(m, st->command, r, &b, &blen, &eb);
    assert_int_equal(sa, sb);
    if (sa) {
        assert_string_equal(ea.message, eb.message);
    } else {
        if (alen != blen || memcmp(a, b, alen) != 0)
            fail_msg("%s %s: the session's report differs from the one-shot report", st->command,
                     st->args[0] ? st->args[0] : "");
    }
    free(a);
    free(b);
    memplan_request_free(r);
}

/* Model bytes from `make` (model_bytes unless given; the caller frees them),
 * opened as a session and loaded one-shot. */
static uint8_t *open_made(uint8_t *(*make)(size_t *), size_t *len, memplan_session **s, memplan_model **m) {
    uint8_t *bytes = make(len);
    memplan_error err = {0};
    *s = NULL;
    *m = NULL;
    assert_int_equal(memplan_session_open(bytes, *len, s, &err), MEMPLAN_OK);
    assert_int_equal(memplan_model_load(bytes, *len, NULL, m, &err), MEMPLAN_OK);
    return bytes;
}

static uint8_t *open_both(size_t *len, memplan_session **s, memplan_model **m) {
    return open_made(model_bytes, len, s, m);
}

static void test_session_equals_one_shot(void **state) {
    (void)state;
    size_t len;
    memplan_session *s;
    memplan_model *m;
    uint8_t *bytes = open_both(&len, &s, &m);
    assert_int_equal(memplan_session_model(s)->graph->n_nodes, 7);
    /* Orders that hit and miss every cache entry: dims A, B, A again (by then
     * evicted), strategies, in-place with and without, options the cores key on. */
    static const step steps[] = {
        {"plan", true, {0}},
        {"plan", true, {"--dim", "batch=2", "--dim", "seq=3"}},
        {"plan", true, {"--dim", "batch=2", "--dim", "seq=3", "--strategy", "slots"}},
        {"plan", false, {"--dim", "batch=2", "--dim", "seq=3", "--strategy", "slots"}},
        {"profile", true, {"--dim", "batch=2", "--dim", "seq=3"}},
        {"plan", true, {"--dim", "batch=4", "--dim", "seq=3", "--align", "1"}},
        {"profile", true, {"--dim", "batch=4", "--dim", "seq=3"}},
        {"profile", false, {"--dim", "batch=4"}},
        {"plan", true, {"--dim", "batch=4", "--dim", "seq=3", "--inplace"}},
        {"plan", true, {"--dim", "batch=4", "--dim", "seq=3", "--inplace", "--strategy", "slots"}},
        {"plan", true, {"--dim", "batch=4", "--dim", "seq=3", "--inplace", "--allow-input-overwrite"}},
        {"plan", true, {"--dim", "batch=2", "--dim", "seq=3"}},
        {"plan", true, {"--dim", "seq=3", "--dim", "batch=2", "--include-inputs"}},
        {"plan", true, {"--dim", "batch=2", "--dim", "seq=3", "--budget-ms", "0"}},
        {"plan", true, {"--dim", "batch=2", "--dim", "seq=3", "--no-nodes"}},
        {"inplace", true, {"--events"}},
        {"tags", false, {0}},
        {"inplace", true, {"--allow-input-overwrite"}},
        {"profile", true, {0}},
        {"shapes", true, {"--dim", "batch=7"}},
        {"info", true, {0}},
        {"annotate", true, {0}},
        {"annotate", true, {"--allow-input-overwrite"}},
        {"plan", true, {"--dim", "batch=0"}},
        {"nonsense", true, {0}},
        {"plan", true, {"--dim", "batch=2", "--dim", "seq=3"}},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) check_step(s, m, bytes, len, &steps[i]);
    memplan_session_forget(s);
    check_step(s, m, bytes, len, &steps[1]);
    memplan_session_close(s);
    memplan_model_free(m);
    free(bytes);
}

static bool mem_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    memcpy(buf, (const uint8_t *)ctx + offset, len);
    return true;
}

/* A session opened through a reader keeps only the stripped bytes, yet every
 * report but annotate equals the one-shot report on the whole bytes (value-tag
 * hints included: x's "shape" tag shows in tags). */
static void test_session_from_reader(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = model_bytes(&len);
    memplan_session *s = NULL;
    memplan_model *m = NULL;
    memplan_error err = {0};
    memplan_reader rd = {mem_read, bytes, len};
    assert_int_equal(memplan_session_open_reader(&rd, &s, &err), MEMPLAN_OK);
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    static const step steps[] = {
        {"plan", true, {"--dim", "batch=2", "--dim", "seq=3"}},
        {"plan", false, {"--dim", "batch=2", "--dim", "seq=3", "--inplace"}},
        {"profile", true, {"--dim", "batch=4"}},
        {"inplace", true, {"--events"}},
        {"tags", true, {0}},
        {"tags", false, {0}},
        {"shapes", true, {0}},
        {"info", true, {0}},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) check_step(s, m, bytes, len, &steps[i]);
    memplan_request r;
    memplan_request_init(&r);
    char *out = NULL;
    size_t out_len = 0;
    assert_int_equal(memplan_session_report(s, "tags", &r, true, &out, &out_len, &err), MEMPLAN_OK);
    assert_non_null(strstr(out, "\"name\":\"x\",\"tag\":\"shape\""));
    free(out);
    out = NULL;
    assert_int_equal(memplan_session_report(s, "annotate", &r, true, &out, &out_len, &err), MEMPLAN_EUSAGE);
    assert_null(out);
    assert_string_equal(err.message,
                        "annotate needs the whole model, and this session was opened through a reader that "
                        "skipped its tensor data: pass the reader with the request (model_reader)");
    /* With the reader passed again, annotate equals the one-shot annotate of the bytes. */
    static const step annotate_steps[] = {{"annotate", true, {0}}, {"annotate", true, {"--allow-input-overwrite"}}};
    for (size_t i = 0; i < 2; i++) {
        memplan_request req, *q = &req;
        assert_int_equal(cli_request_parse(q, count_args(&annotate_steps[i]), annotate_steps[i].args, &err),
                         MEMPLAN_OK);
        q->model_reader = &rd;
        char *a = NULL, *b = NULL;
        size_t alen = 0, blen = 0;
        assert_int_equal(memplan_session_report(s, "annotate", q, true, &a, &alen, &err), MEMPLAN_OK);
        q->model_reader = NULL;
        q->model_bytes = bytes;
        q->model_len = len;
        assert_int_equal(memplan_report_json(m, "annotate", q, &b, &blen, &err), MEMPLAN_OK);
        assert_int_equal(alen, blen);
        assert_memory_equal(a, b, alen);
        assert_true(alen > len); /* the entries were added */
        free(a);
        free(b);
        memplan_request_free(q);
    }
    memplan_session_close(s);
    memplan_model_free(m);
    free(bytes);
}

/* The model loaded once, and a request to fill, for the cache tests. */
typedef struct fixture {
    memplan_model *m;
    memplan_request *r;
} fixture;

static int fixture_setup(void **state) {
    size_t len;
    uint8_t *bytes = model_bytes(&len);
    fixture *f = calloc(1, sizeof *f);
    memplan_error err = {0};
    memplan_status st = memplan_model_load(bytes, len, NULL, &f->m, &err);
    free(bytes);
    f->r = malloc(sizeof *f->r);
    if (f->r) memplan_request_init(f->r);
    *state = f;
    return st || !f->r ? -1 : 0;
}

static int fixture_teardown(void **state) {
    fixture *f = *state;
    memplan_model_free(f->m);
    if (f->r) memplan_request_free(f->r);
    free(f->r);
    free(f);
    return 0;
}

static void parse(memplan_request *r, int argc, const char *const *argv) {
    memplan_error err = {0};
    memplan_request_free(r);
    assert_int_equal(cli_request_parse(r, argc, argv, &err), MEMPLAN_OK);
}

static void report(mp_cache *c, const memplan_model *m, const char *command, const memplan_request *r) {
    char *out = NULL;
    size_t len;
    memplan_error err = {0};
    if (mp_report(c, m, command, r, &out, &len, &err, true)) fail_msg("%s", err.message);
    free(out);
}

/* The cache keeps what it promises: the slot strategy reuses the arena's core,
 * new dims build a new one, the third evicts the least recent, and the
 * in-place analyses are built once per dims, values and options. */
static void test_cache_reuse(void **state) {
    fixture *f = *state;
    const memplan_model *m = f->m;
    mp_cache c;
    mp_cache_init(&c);
    memplan_request *r = f->r;
    static const char *const a_arena[] = {"--dim", "batch=2", "--dim", "seq=3"};
    static const char *const a_slots[] = {"--dim", "batch=2", "--dim", "seq=3", "--strategy", "slots"};
    static const char *const b_arena[] = {"--dim", "batch=5", "--dim", "seq=3"};
    static const char *const c_arena[] = {"--dim", "batch=6", "--dim", "seq=3"};
    static const char *const a_inplace[] = {"--dim", "batch=2", "--dim", "seq=3", "--inplace"};

    parse(r, 4, a_arena);
    report(&c, m, "plan", r);
    assert_int_equal(c.plan_builds, 1);
    const memplan_model_plan *a = c.plans[0].plan;
    assert_non_null(a);
    assert_null(c.plans[1].plan);
    parse(r, 6, a_slots); /* same core */
    report(&c, m, "plan", r);
    assert_int_equal(c.plan_builds, 1);
    assert_ptr_equal(c.plans[0].plan, a);
    parse(r, 4, b_arena);
    report(&c, m, "plan", r);
    assert_int_equal(c.plan_builds, 2);
    assert_ptr_equal(c.plans[1].plan, a);
    const memplan_model_plan *b = c.plans[0].plan;
    parse(r, 4, a_arena); /* a again: now the most recent */
    report(&c, m, "plan", r);
    assert_int_equal(c.plan_builds, 2);
    assert_ptr_equal(c.plans[0].plan, a);
    assert_ptr_equal(c.plans[1].plan, b);
    parse(r, 4, c_arena); /* evicts b */
    report(&c, m, "plan", r);
    assert_int_equal(c.plan_builds, 3);
    assert_ptr_equal(c.plans[1].plan, a);
    parse(r, 4, b_arena); /* b is gone: built again */
    report(&c, m, "plan", r);
    assert_int_equal(c.plan_builds, 4);
    parse(r, 5, a_inplace); /* a without in-place is evicted; both halves built */
    report(&c, m, "plan", r);
    assert_int_equal(c.plan_builds, 6);
    report(&c, m, "plan", r); /* both kept */
    assert_int_equal(c.plan_builds, 6);

    parse(r, 4, a_arena);
    report(&c, m, "profile", r);
    assert_int_equal(c.inplace_builds, 1);
    report(&c, m, "profile", r); /* the same dims */
    assert_int_equal(c.inplace_builds, 1);
    parse(r, 4, b_arena); /* new dims: new shapes */
    report(&c, m, "profile", r);
    report(&c, m, "tags", r);
    report(&c, m, "inplace", r);
    assert_int_equal(c.inplace_builds, 2);
    static const char *const events[] = {"--events"};
    parse(r, 1, events);
    report(&c, m, "inplace", r);
    assert_int_equal(c.inplace_builds, 3);
    assert_true(c.inplace.events);
    mp_cache_clear(&c);
    assert_null(c.plans[0].plan);
    assert_false(c.inplace.valid);
}

/* Profiles under ever new dims: each rebuilds the in-place entry (its
 * shapes are inferred under the dims) and frees the last, so the cache holds
 * one entry and its pool stays the size of one inference. */
static void test_cache_profile_dims(void **state) {
    fixture *f = *state;
    const memplan_model *m = f->m;
    mp_cache c;
    mp_cache_init(&c);
    memplan_request *r = f->r;
    size_t first = 0;
    for (int i = 1; i <= 300; i++) {
        char dim[32];
        snprintf(dim, sizeof dim, "batch=%d", i);
        const char *argv[] = {"--dim", dim, "--dim", "seq=7"};
        parse(r, 4, argv);
        report(&c, m, "profile", r);
        report(&c, m, "profile", r); /* the same dims: reused */
        size_t pool = memplan_expr_pool_count(memplan_shapes_pool(c.inplace.shapes));
        if (i == 1) first = pool;
        assert_true(pool <= 2 * first);
    }
    assert_int_equal(c.inplace_builds, 300);
    mp_cache_clear(&c);
}

/* x[1] expanded to the shape an int64 input s gives: only `--value s=...`
 * sizes e and y. */
static uint8_t *values_model_bytes(size_t *len) {
    mb_graph *g = mb_new_graph("values");
    mb_input(g, "x", 1, "1");
    mb_input(g, "s", 7, "2");
    mb_node(g, "Expand", "x,s", "e");
    mb_node(g, "Relu", "e", "y");
    mb_output(g, "y", 1, "?,?");
    return mb_pack(g, len);
}

/* The analyses (profile, in-place, tags) take input values: the amounts
 * follow them, and the cache keys its entry on them. */
static void test_analyses_take_values(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = values_model_bytes(&len);
    memplan_model *m = NULL;
    memplan_error err = {0};
    assert_int_equal(memplan_model_load(bytes, len, NULL, &m, &err), MEMPLAN_OK);
    memplan_request r;
    memplan_request_init(&r);
    static const char *const v23[] = {"--value", "s=2,3"}, *const v44[] = {"--value", "s=4,4"};
    char *out = NULL;
    size_t n = 0;
    parse(&r, 2, v23);
    assert_int_equal(memplan_report_json(m, "profile", &r, &out, &n, &err), MEMPLAN_OK);
    /* Expand's output e: 2 x 3 floats */
    assert_non_null(strstr(out, "\"output_allocation_bytes\":24,"));
    free(out);
    parse(&r, 2, v44);
    assert_int_equal(memplan_report_json(m, "profile", &r, &out, &n, &err), MEMPLAN_OK);
    assert_non_null(strstr(out, "\"output_allocation_bytes\":64,"));
    assert_null(strstr(out, "\"output_allocation_bytes\":24,"));
    free(out);

    mp_cache c;
    mp_cache_init(&c);
    parse(&r, 2, v23);
    report(&c, m, "profile", &r);
    report(&c, m, "inplace", &r);
    assert_int_equal(c.inplace_builds, 1);
    parse(&r, 2, v44);
    report(&c, m, "tags", &r);
    assert_int_equal(c.inplace_builds, 2);
    parse(&r, 0, NULL);
    report(&c, m, "profile", &r);
    assert_int_equal(c.inplace_builds, 3);
    report(&c, m, "profile", &r);
    assert_int_equal(c.inplace_builds, 3);
    mp_cache_clear(&c);

    memplan_session *s = NULL;
    assert_int_equal(memplan_session_open(bytes, len, &s, &err), MEMPLAN_OK);
    static const step steps[] = {
        {"profile", true, {"--value", "s=2,3"}},
        {"profile", true, {"--value", "s=4,4"}},
        {"profile", false, {"--value", "s=2,3"}},
        {"inplace", true, {"--value", "s=4,4"}},
        {"profile", true, {0}},
        {"tags", true, {"--value", "t=1"}},
        {"annotate", true, {"--value", "s=2,3"}},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) check_step(s, m, bytes, len, &steps[i]);
    memplan_session_close(s);
    memplan_request_free(&r);
    memplan_model_free(m);
    free(bytes);
}

/* memplan_session_plan: the one-shot plan's figures, the same plan object
 * again for the same options (from the cache), another for other bindings. */
static void test_session_plan(void **state) {
    (void)state;
    size_t len;
    memplan_session *s;
    memplan_model *m;
    memplan_error err = {0};
    free(open_both(&len, &s, &m));
    memplan_binding dims[2] = {{"batch", 2}, {"seq", 3}};
    memplan_plan_options o;
    memplan_plan_options_init(&o);
    o.bindings = dims;
    o.n_bindings = 2;
    const memplan_model_plan *a = NULL, *again = NULL, *other = NULL;
    assert_int_equal(memplan_session_plan(s, &o, &a, &err), MEMPLAN_OK);
    memplan_model_plan *want = NULL;
    assert_int_equal(memplan_plan_model(m, &o, &want, &err), MEMPLAN_OK);
    assert_false(a->deferred);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(a->figures[k].peak_bytes, want->figures[k].peak_bytes);
        assert_int_equal(a->figures[k].naive_bytes, want->figures[k].naive_bytes);
        assert_int_equal(a->figures[k].lower_bound_bytes, want->figures[k].lower_bound_bytes);
    }
    assert_int_equal(a->weight_bytes, 32 + 16); /* w float[8], flat int64[2] (Reshape reads it) */
    assert_int_equal(memplan_session_plan(s, &o, &again, &err), MEMPLAN_OK);
    assert_ptr_equal(again, a);
    dims[1].value = 30; /* ten times the sequence: ten times every activation */
    assert_int_equal(memplan_session_plan(s, &o, &other, &err), MEMPLAN_OK);
    assert_int_equal(other->figures[MEMPLAN_STRATEGY_ARENA].naive_bytes,
                     10 * want->figures[MEMPLAN_STRATEGY_ARENA].naive_bytes);
    memplan_model_plan_free(want);
    memplan_model_free(m);
    memplan_session_close(s);
}

/* A decoder's KV cache (past_key_values.0.key in, present.0.key out): the
 * session's plans with and without --share-kv, in turn, equal the one-shot
 * ones (the plan cache keys on the option: before, the second step was the
 * first's cached plan). */
static uint8_t *kv_model_bytes(size_t *len) {
    mb_graph *g = mb_new_graph("kv");
    mb_input(g, "x", 1, "1,4");
    mb_input(g, "past_key_values.0.key", 1, "1,2,len,4");
    mb_node(g, "Relu", "x", "y");
    mb_node(g, "Neg", "past_key_values.0.key", "present.0.key");
    mb_output(g, "y", 1, "1,4");
    mb_output(g, "present.0.key", 1, "1,2,len,4");
    return mb_pack(g, len);
}

static void test_session_share_kv(void **state) {
    (void)state;
    size_t len;
    memplan_session *s;
    memplan_model *m;
    uint8_t *bytes = open_made(kv_model_bytes, &len, &s, &m);
    static const step steps[] = {
        {"plan", true, {"--dim", "len=8"}},
        {"plan", true, {"--dim", "len=8", "--share-kv"}},
        {"plan", true, {"--dim", "len=8"}},
        {"plan", false, {"--dim", "len=8", "--share-kv"}},
        {"sweep", true, {"--dim", "len=1..8:3", "--share-kv"}},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) check_step(s, m, bytes, len, &steps[i]);
    memplan_session_close(s);
    memplan_model_free(m);
    free(bytes);
}

static void test_session_errors(void **state) {
    (void)state;
    memplan_session *s = (memplan_session *)&s; /* must be reset to NULL */
    memplan_error err = {0};
    static const uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff};
    assert_int_not_equal(memplan_session_open(junk, sizeof junk, &s, &err), MEMPLAN_OK);
    assert_null(s);
    assert_true(err.message[0] != '\0');
    memplan_session_close(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_equals_one_shot),
        cmocka_unit_test(test_session_from_reader),
        cmocka_unit_test_setup_teardown(test_cache_reuse, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_cache_profile_dims, fixture_setup, fixture_teardown),
        cmocka_unit_test(test_analyses_take_values),
        cmocka_unit_test(test_session_plan),
        cmocka_unit_test(test_session_errors),
        cmocka_unit_test(test_session_share_kv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
