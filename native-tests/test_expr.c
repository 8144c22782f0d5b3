/* test_expr.c -- symbolic amounts: canonical form, printing, parsing, bind, eval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "memplan/expr.h"

#define N_(a) (sizeof(a) / sizeof((a)[0]))

static memplan_expr_pool *P;

static int setup(void **state) {
    (void)state;
    P = memplan_expr_pool_new();
    return P ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    memplan_expr_pool_free(P);
    P = NULL;
    return 0;
}

/* Shorthands over the shared pool. */
static memplan_expr C(int64_t v) { return memplan_expr_const(P, v); }
static memplan_expr S(const char *n) { return memplan_expr_sym(P, n); }
static memplan_expr add(memplan_expr a, memplan_expr b) { return memplan_expr_add(P, a, b); }
static memplan_expr sub(memplan_expr a, memplan_expr b) { return memplan_expr_sub(P, a, b); }
static memplan_expr mul(memplan_expr a, memplan_expr b) { return memplan_expr_mul(P, a, b); }
static memplan_expr fdiv(memplan_expr a, memplan_expr b) { return memplan_expr_floordiv(P, a, b); }
static memplan_expr mod(memplan_expr a, memplan_expr b) { return memplan_expr_mod(P, a, b); }
static memplan_expr mx(memplan_expr a, memplan_expr b) { return memplan_expr_max(P, a, b); }
static memplan_expr mn(memplan_expr a, memplan_expr b) { return memplan_expr_min(P, a, b); }
static const char *str(memplan_expr e) { return memplan_expr_str(P, e); }

/* Parse text (must succeed) and return the handle. */
static memplan_expr parse(const char *text) {
    memplan_error err = {0};
    memplan_expr e = memplan_expr_parse(P, text, &err);
    if (e == MEMPLAN_EXPR_NONE) fail_msg("parse(\"%s\"): %s", text, err.message);
    return e;
}

/* e prints as want, and parsing that text gives e back. */
static void expect_str(memplan_expr e, const char *want) {
    assert_string_equal(str(e), want);
    assert_int_equal(parse(want), e);
}

static void expect_const(memplan_expr e, int64_t want) {
    int64_t v = 0;
    assert_true(memplan_expr_is_const(P, e, &v));
    assert_true(v == want);
}

/* ------------------------------------------------------------- printing */

static void test_print_canonical(void **state) {
    (void)state;
    memplan_expr n = S("N"), m = S("M"), batch = S("batch"), seq = S("seq");
    expect_str(mul(C(602112), batch), "602112*batch");
    expect_str(mul(C(8), add(n, C(1))), "8*N+8");
    expect_str(mul(mul(seq, C(64)), batch), "64*batch*seq");
    expect_str(sub(n, C(1)), "N-1");
    expect_str(sub(mul(C(2), n), C(3)), "2*N-3");
    expect_str(sub(C(1), mul(C(2), n)), "-2*N+1");
    expect_str(mul(n, n), "N*N");
    expect_str(mul(add(add(n, m), C(1)), n), "M*N+N*N+N");
    expect_str(add(mul(add(n, C(1)), add(m, C(1))), mul(n, n)), "M*N+N*N+M+N+1");
    expect_str(mul(mul(n, n), mul(m, C(-3))), "-3*M*N*N");
    expect_str(C(0), "0");
    expect_str(C(-5), "-5");
    expect_str(sub(C(0), n), "-N");
    expect_str(add(mx(n, C(4)), C(1)), "max(N,4)+1");
    expect_str(fdiv(add(n, C(1)), C(2)), "(N+1)//2");
    expect_str(mul(fdiv(n, C(2)), S("Z")), "N//2*Z");
    expect_str(mul(fdiv(n, C(2)), m), "M*(N//2)");
    expect_str(mul(fdiv(n, C(2)), C(2)), "2*(N//2)");
    expect_str(sub(C(0), fdiv(n, C(2))), "-(N//2)");
    expect_str(sub(n, fdiv(n, C(2))), "N-N//2");
    expect_str(fdiv(n, mul(C(2), m)), "N//(2*M)");
    expect_str(mod(n, fdiv(m, C(2))), "N%(M//2)");
    expect_str(fdiv(mul(C(2), n), m), "2*N//M");
    expect_str(fdiv(sub(C(0), n), m), "(-N)//M");
    expect_str(sub(mul(m, m), fdiv(sub(C(0), n), m)), "M*M-(-N)//M");
    expect_str(fdiv(sub(C(0), mul(C(2), n)), m), "(-2*N)//M");
    expect_str(mul(mod(n, m), mod(n, m)), "N%M*(N%M)");
    expect_str(mul(C(INT64_MIN), n), "-9223372036854775808*N");
    expect_str(add(mul(n, n), mul(C(INT64_MIN), n)), "N*N+-9223372036854775808*N");
    expect_str(add(n, C(INT64_MIN)), "N+-9223372036854775808");
    assert_string_equal(str(MEMPLAN_EXPR_NONE), "?");
    assert_string_equal(str(12345), "?"); /* not a handle of this pool */
}

/* ------------------------------------------------------------- equality */

static void test_equal_handles(void **state) {
    (void)state;
    memplan_expr a = S("a"), b = S("b"), c = S("c"), n = S("N");
    assert_int_equal(mul(add(n, C(1)), sub(n, C(1))), sub(mul(n, n), C(1)));
    assert_int_equal(mul(a, add(b, c)), add(mul(a, b), mul(a, c)));
    assert_int_equal(mul(add(b, c), a), add(mul(c, a), mul(b, a)));
    assert_int_equal(sub(add(a, b), b), a);
    assert_int_equal(sub(n, n), C(0));
    assert_int_equal(sub(mul(a, b), mul(b, a)), C(0));
    assert_int_equal(add(add(a, b), c), add(a, add(c, b)));
    assert_int_equal(S("N"), n);
    assert_int_equal(parse("8 * ( N + 1 )"), parse("8*N+8"));
    assert_int_equal(parse("N*(M+1) - M*N"), n);
    assert_int_equal(mx(a, b), mx(b, a));
    assert_int_equal(mn(add(a, C(1)), b), mn(b, add(C(1), a)));
    /* A fresh pool builds the same amounts in another order, same texts. */
    memplan_expr_pool *q = memplan_expr_pool_new();
    assert_non_null(q);
    memplan_expr qz = memplan_expr_sym(q, "z"), qa = memplan_expr_sym(q, "a");
    memplan_expr qe = memplan_expr_add(q, memplan_expr_mul(q, qz, qz), memplan_expr_max(q, qz, qa));
    memplan_expr pe = add(mx(a, S("z")), mul(S("z"), S("z")));
    assert_string_equal(memplan_expr_str(q, qe), str(pe));
    assert_string_equal(str(pe), "z*z+max(a,z)");
    memplan_expr_pool_free(q);
}

/* --------------------------------------------------------------- folding */

static void test_folding(void **state) {
    (void)state;
    expect_const(add(C(2), C(3)), 5);
    expect_const(mul(C(-4), C(3)), -12);
    expect_const(sub(C(2), C(30)), -28);
    expect_const(mul(S("N"), C(0)), 0);
    expect_const(add(mul(S("N"), C(3)), mul(C(-3), S("N"))), 3 - 3);
    expect_const(mx(C(3), C(5)), 5);
    expect_const(mn(C(3), C(5)), 3);
    expect_const(memplan_expr_ceildiv(P, C(7), C(2)), 4);
    expect_const(memplan_expr_ceildiv(P, C(-7), C(2)), -3);
    expect_const(memplan_expr_ceildiv(P, C(7), C(-2)), -3);
    expect_const(parse("max(2, 3) * min(4, 5) - 7 // 2 + 7 % 3"), 6 * 2 - 3 + 1 + 8 - 8);
    assert_false(memplan_expr_is_const(P, S("N"), NULL));
    assert_false(memplan_expr_is_const(P, MEMPLAN_EXPR_NONE, NULL));
    int64_t v = 99;
    assert_true(memplan_expr_is_const(P, C(0), &v));
    assert_true(v == 0);
}

static void test_overflow_is_none(void **state) {
    (void)state;
    memplan_expr n = S("N");
    assert_int_equal(add(C(INT64_MAX), C(1)), MEMPLAN_EXPR_NONE);
    assert_int_equal(sub(C(INT64_MIN), C(1)), MEMPLAN_EXPR_NONE);
    assert_int_equal(mul(C(INT64_MAX), C(2)), MEMPLAN_EXPR_NONE);
    assert_int_equal(memplan_expr_neg(P, C(INT64_MIN)), MEMPLAN_EXPR_NONE);
    assert_int_equal(fdiv(C(INT64_MIN), C(-1)), MEMPLAN_EXPR_NONE);
    expect_const(mod(C(INT64_MIN), C(-1)), 0);
    assert_int_equal(add(mul(C(INT64_MAX), n), n), MEMPLAN_EXPR_NONE);
    assert_int_equal(mul(mul(C(INT64_MAX / 2 + 1), n), mul(C(2), n)), MEMPLAN_EXPR_NONE);
    assert_int_equal(fdiv(n, C(0)), MEMPLAN_EXPR_NONE);
    assert_int_equal(mod(n, C(0)), MEMPLAN_EXPR_NONE);
    /* NONE propagates through everything. */
    memplan_expr X = MEMPLAN_EXPR_NONE;
    assert_int_equal(add(X, n), X);
    assert_int_equal(sub(n, X), X);
    assert_int_equal(mul(C(0), X), X);
    assert_int_equal(fdiv(X, C(1)), X);
    assert_int_equal(mod(n, X), X);
    assert_int_equal(mx(X, n), X);
    assert_int_equal(mn(n, X), X);
    assert_int_equal(memplan_expr_ceildiv(P, n, X), X);
    assert_int_equal(memplan_expr_bind(P, X, NULL, 0), X);
}

static void test_limits(void **state) {
    (void)state;
    memplan_expr n = S("N"), e = n;
    for (int i = 1; i < 16; i++) e = mul(e, n);
    assert_int_not_equal(e, MEMPLAN_EXPR_NONE); /* degree 16 */
    assert_int_equal(mul(e, n), MEMPLAN_EXPR_NONE);
    /* (x0+...+x7)^2 has 36 terms; times (y0+...+y3) has 144 > 64. */
    memplan_expr s = C(0), t = C(0);
    char name[16];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "x%d", i);
        s = add(s, S(name));
    }
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "y%d", i);
        t = add(t, S(name));
    }
    memplan_expr sq = mul(s, s);
    assert_int_not_equal(sq, MEMPLAN_EXPR_NONE);
    assert_int_equal(mul(sq, t), MEMPLAN_EXPR_NONE);
    /* Atoms nest at most 64 deep. */
    e = n;
    int i = 0;
    for (; i < 100 && e != MEMPLAN_EXPR_NONE; i++) { /* a name per level: max(M,max(M,N)+1) would fold */
        snprintf(name, sizeof name, "M%d", i);
        e = mx(S(name), add(e, C(1)));
    }
    assert_int_equal(i, 65);
    /* Names: non-empty, at most 1024 bytes. */
    char big[1100];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(S(big), MEMPLAN_EXPR_NONE);
    big[1024] = '\0';
    assert_int_not_equal(S(big), MEMPLAN_EXPR_NONE);
    assert_int_equal(S(""), MEMPLAN_EXPR_NONE);
    assert_int_equal(S(NULL), MEMPLAN_EXPR_NONE);
}

/* --------------------------------------------------- floordiv and mod */

static void test_divmod_constants(void **state) {
    (void)state;
    static const struct {
        int64_t a, b, q, r;
    } cases[] = {
        {7, 2, 3, 1},
        {-7, 2, -4, 1},
        {7, -2, -4, -1},
        {-7, -2, 3, -1},
        {6, 3, 2, 0},
        {-6, 3, -2, 0},
        {0, 5, 0, 0},
        {1, 5, 0, 1},
        {-1, 5, -1, 4},
        {INT64_MAX, 2, INT64_MAX / 2, 1},
        {INT64_MIN, 2, INT64_MIN / 2, 0},
        {INT64_MIN, 3, -3074457345618258603, 1},
    };
    for (size_t i = 0; i < N_(cases); i++) {
        expect_const(fdiv(C(cases[i].a), C(cases[i].b)), cases[i].q);
        expect_const(mod(C(cases[i].a), C(cases[i].b)), cases[i].r);
    }
}

static void test_divmod_rules(void **state) {
    (void)state;
    memplan_expr n = S("N"), m = S("M"), h = S("H");
    assert_int_equal(fdiv(n, C(1)), n);
    expect_const(mod(n, C(1)), 0);
    expect_const(mod(n, C(-1)), 0);
    assert_int_equal(fdiv(n, C(-1)), memplan_expr_neg(P, n));
    expect_const(fdiv(C(0), n), 0);
    expect_const(mod(C(0), n), 0);
    expect_str(fdiv(add(mul(C(8), n), C(4)), C(4)), "2*N+1");
    expect_str(fdiv(add(n, C(3)), C(2)), "(N+1)//2+1");
    expect_str(fdiv(mul(C(2), n), C(4)), "N//2");
    expect_str(fdiv(add(mul(C(3), n), C(1)), C(2)), "(N+1)//2+N");
    expect_str(add(fdiv(sub(h, C(1)), C(2)), C(1)), "(H+1)//2");
    expect_str(fdiv(fdiv(n, C(2)), C(3)), "N//6");
    expect_str(mod(mod(n, C(6)), C(3)), "N%3");
    expect_str(mod(mod(n, C(3)), C(6)), "N%3");
    expect_str(mod(mod(n, C(4)), C(6)), "N%4");
    expect_str(mod(mod(n, C(4)), C(3)), "N%4%3");
    expect_str(mod(add(mul(C(2), n), C(6)), C(4)), "2*((N+1)%2)");
    expect_str(mod(add(mul(C(5), n), C(7)), C(5)), "2");
    expect_str(fdiv(n, C(-2)), "-N+N//2");
    expect_str(mod(n, C(-2)), "-(N%2)");
    expect_str(memplan_expr_ceildiv(P, n, C(2)), "(N+1)//2");
    expect_str(memplan_expr_ceildiv(P, n, m), "-((-N)//M)");
    expect_str(fdiv(n, m), "N//M");
    expect_str(mod(mul(n, m), add(m, C(1))), "M*N%(M+1)");
    /* Conv output: (H + 2*1 - 3)//2 + 1 equals ceildiv(H, 2). */
    assert_int_equal(add(fdiv(add(h, C(2 * 1 - 3)), C(2)), C(1)), memplan_expr_ceildiv(P, h, C(2)));
}

/* --------------------------------------------------------------- max/min */

static void test_minmax(void **state) {
    (void)state;
    memplan_expr n = S("N"), m = S("M");
    assert_int_equal(mx(n, n), n);
    assert_int_equal(mn(n, n), n);
    assert_int_equal(mx(add(n, C(1)), n), add(n, C(1)));
    assert_int_equal(mn(add(n, C(1)), n), n);
    assert_int_equal(mx(sub(n, C(2)), add(n, C(2))), add(n, C(2)));
    expect_str(mx(C(4), n), "max(N,4)");
    expect_str(mx(n, C(4)), "max(N,4)");
    expect_str(mn(C(4), n), "min(N,4)");
    expect_str(mx(n, m), "max(M,N)");
    expect_str(mn(n, m), "min(M,N)");
    expect_str(mul(C(2), mx(n, m)), "2*max(M,N)");
    expect_str(mx(mn(n, C(3)), C(1)), "max(min(N,3),1)");
    expect_str(sub(C(0), mx(n, m)), "-max(M,N)");
    assert_int_not_equal(mx(n, m), mn(n, m));
}

/* The lattice laws: exact for every integer, so no sign is assumed. */
static void test_minmax_lattice(void **state) {
    (void)state;
    memplan_expr n = S("N"), m = S("M"), seq = S("seq");
    /* absorption: GPT-2's max(min(seq, 8), seq) is seq, not a growing nest */
    assert_int_equal(mx(mn(seq, C(8)), seq), seq);
    assert_int_equal(mx(seq, mn(seq, C(8))), seq);
    assert_int_equal(mn(mx(n, m), n), n);
    assert_int_equal(mn(n, mx(m, n)), n);
    /* idempotence through a nest */
    assert_int_equal(mx(mx(n, m), n), mx(n, m));
    assert_int_equal(mn(mn(n, C(8)), C(8)), mn(n, C(8)));
    /* bounds from a min or max with a constant */
    assert_int_equal(mn(mn(n, C(8)), C(16)), mn(n, C(8)));
    assert_int_equal(mx(mn(n, C(8)), C(10)), C(10));
    assert_int_equal(mx(mx(n, C(8)), C(4)), mx(n, C(8)));
    assert_int_equal(mn(mx(n, C(8)), C(4)), C(4));
    /* with constant offsets on either side */
    assert_int_equal(mx(add(mn(seq, C(8)), C(2)), add(seq, C(2))), add(seq, C(2)));
    assert_int_equal(mx(add(mn(seq, C(8)), C(1)), add(seq, C(3))), add(seq, C(3)));
    expect_str(mx(add(mn(seq, C(8)), C(3)), add(seq, C(1))), "max(min(seq,8)+3,seq+1)");
    /* nothing to conclude: kept */
    expect_str(mx(mn(n, C(8)), m), "max(M,min(N,8))");
    expect_str(mx(mn(n, C(8)), C(5)), "max(min(N,8),5)");
    /* binding re-simplifies */
    memplan_binding b = {"seq", 128};
    assert_int_equal(memplan_expr_bind(P, mx(add(mn(seq, C(8)), C(3)), add(seq, C(1))), &b, 1), C(129));
}

/* ------------------------------------------------------------ odd names */

static void test_escaping(void **state) {
    (void)state;
    static const struct {
        const char *name, *printed;
    } cases[] = {
        {"batch", "batch"},
        {"_x9", "_x9"},
        {"batch size", "_0x62617463682073697a65"},
        {"N-1", "_0x4e2d31"},
        {"2x", "_0x3278"},
        {"max", "_0x6d6178"},
        {"min", "_0x6d696e"},
        {"if", "_0x6966"},
        {"None", "_0x4e6f6e65"},
        {"new", "_0x6e6577"},
        {"Math", "_0x4d617468"},
        {"_0xab", "_0x5f30786162"},
        {"_0x", "_0x5f3078"},
        {"a.b", "_0x612e62"},
        {"\xc3\xa9t\xc3\xa9", "_0xc3a974c3a9"},
        {"x'y\"", "_0x782779"
                  "22"},
        {"unk__1", "unk__1"},
    };
    for (size_t i = 0; i < N_(cases); i++) {
        memplan_expr e = S(cases[i].name);
        expect_str(e, cases[i].printed);
        const char *names[2] = {0};
        assert_int_equal(memplan_expr_names(P, e, names, 2), 1);
        assert_string_equal(names[0], cases[i].name);
        memplan_binding b = {cases[i].name, 41};
        int64_t v = 0;
        assert_int_equal(memplan_expr_eval(P, add(e, C(1)), &b, 1, &v, NULL), MEMPLAN_OK);
        assert_true(v == 42);
    }
    expect_str(mul(S("batch size"), C(4)), "4*_0x62617463682073697a65");
    /* Escapes parse case-insensitively; an escape of a plain name is that name. */
    assert_int_equal(parse("_0x4E2D31"), S("N-1"));
    assert_int_equal(parse("_0x4e"), S("N"));
    /* A binding may name a dim as amounts print it: raw or escaped. */
    assert_true(memplan_expr_name_is("p.0", "p.0"));
    assert_true(memplan_expr_name_is("p.0", "_0x702e30"));
    assert_true(memplan_expr_name_is("N-1", "_0x4E2D31"));
    assert_true(memplan_expr_name_is("_0xab", "_0xab"));
    assert_true(memplan_expr_name_is("_0xab", "_0x5f30786162"));
    assert_false(memplan_expr_name_is("_0xab", "_0xAB"));
    assert_false(memplan_expr_name_is("p.0", "_0x702e"));
    assert_false(memplan_expr_name_is("p.0", "_0x702e3030"));
    assert_false(memplan_expr_name_is("p.0", "_0x702e3"));
    assert_false(memplan_expr_name_is("p.0", "p.1"));
    memplan_binding esc[] = {{"_0x62617463682073697a65", 3}, {"_0x4e2d31", 5}};
    expect_const(memplan_expr_bind(P, mul(S("batch size"), S("N-1")), esc, 2), 15);
    memplan_binding both[] = {{"batch size", 2}, {"_0x62617463682073697a65", 3}}; /* the last wins */
    expect_const(memplan_expr_bind(P, S("batch size"), both, 2), 3);
}

/* -------------------------------------------------------------- parsing */

static void expect_parse_error(const char *text, memplan_status st, const char *msg) {
    memplan_error err = {0};
    assert_int_equal(memplan_expr_parse(P, text, &err), MEMPLAN_EXPR_NONE);
    assert_int_equal(err.status, st);
    assert_string_equal(err.message, msg);
}

static void test_parse_errors(void **state) {
    (void)state;
    expect_parse_error("", MEMPLAN_EINPUT, "offset 0: expected a number, a name or '(' but found end of input");
    expect_parse_error("N+", MEMPLAN_EINPUT, "offset 2: expected a number, a name or '(' but found end of input");
    expect_parse_error("(N+1", MEMPLAN_EINPUT, "offset 4: expected ')' but found end of input");
    expect_parse_error("N # 2", MEMPLAN_EINPUT, "offset 2: expected an operator or the end but found '#'");
    expect_parse_error("N)", MEMPLAN_EINPUT, "offset 1: expected an operator or the end but found ')'");
    expect_parse_error("2x", MEMPLAN_EINPUT, "offset 1: expected an operator or the end but found 'x'");
    expect_parse_error("N/2", MEMPLAN_EINPUT, "offset 1: '/' is not in the grammar (floor division is '//')");
    expect_parse_error("N**2", MEMPLAN_EINPUT, "offset 1: '**' is not in the grammar (write repeated factors)");
    expect_parse_error("max(N)", MEMPLAN_EINPUT, "offset 5: expected ',' but found ')'");
    expect_parse_error("max + 1", MEMPLAN_EINPUT, "offset 4: expected '(' but found '+'");
    expect_parse_error("min(1,2", MEMPLAN_EINPUT, "offset 7: expected ')' but found end of input");
    expect_parse_error("N + \xc3\xa9", MEMPLAN_EINPUT,
                       "offset 4: expected a number, a name or '(' but found byte 0xc3");
    expect_parse_error("1 + ?", MEMPLAN_EINPUT, "offset 4: expected a number, a name or '(' but found '?'");
    expect_parse_error("_0x4", MEMPLAN_EINPUT,
                       "offset 0: bad escaped name: '_0x' must be followed by an even number of hex digits");
    expect_parse_error("_0x", MEMPLAN_EINPUT,
                       "offset 0: bad escaped name: '_0x' must be followed by an even number of hex digits");
    expect_parse_error("1+_0x4g", MEMPLAN_EINPUT,
                       "offset 5: bad escaped name: expected two hex digits of a non-zero byte");
    expect_parse_error("_0x0041", MEMPLAN_EINPUT,
                       "offset 3: bad escaped name: expected two hex digits of a non-zero byte");
    expect_parse_error("9223372036854775808", MEMPLAN_EINPUT, "offset 0: integer literal out of the 64-bit range");
    expect_parse_error("N - 99999999999999999999", MEMPLAN_EINPUT, "offset 4: integer literal out of the 64-bit range");
    expect_parse_error("N + 1//0", MEMPLAN_EINPUT,
                       "offset 5: the amount is unknown (overflow, division by zero or a size limit)");
    expect_parse_error("9223372036854775807 + 1", MEMPLAN_EINPUT,
                       "offset 20: the amount is unknown (overflow, division by zero or a size limit)");
    char deep[600];
    memset(deep, '(', 300);
    strcpy(deep + 300, "N");
    expect_parse_error(deep, MEMPLAN_ELIMIT, "offset 200: expression nested too deeply");
    memset(deep, '-', 300);
    expect_parse_error(deep, MEMPLAN_ELIMIT, "offset 199: expression nested too deeply");
    memplan_error err = {0};
    assert_int_equal(memplan_expr_parse(P, NULL, &err), MEMPLAN_EXPR_NONE);
    assert_int_equal(err.status, MEMPLAN_EUSAGE);
    assert_int_equal(memplan_expr_parse(NULL, "1", NULL), MEMPLAN_EXPR_NONE);
}

static void test_parse_accepts(void **state) {
    (void)state;
    memplan_expr n = S("N");
    expect_const(parse("-9223372036854775808"), INT64_MIN);
    expect_const(parse("9223372036854775807"), INT64_MAX);
    expect_const(parse("- 5"), -5);
    expect_const(parse("--5"), 5);
    expect_const(parse("-7//2"), -4); /* unary minus first, as in Python */
    expect_const(parse("-(7//2)"), -3);
    expect_const(parse("2*3%4"), 2); /* (2*3)%4 */
    expect_const(parse("2+3*4-1"), 13);
    expect_const(parse("007"), 7);
    assert_int_equal(parse(" \t N \n"), n);
    assert_int_equal(parse("N // 2 * 2 + N % 2 - N % 2"), mul(fdiv(n, C(2)), C(2)));
    assert_int_equal(parse("max ( N , 4 )"), mx(n, C(4)));
    assert_int_equal(parse("--N"), n);
    assert_int_equal(parse("((N))"), n);
}

/* ------------------------------------------------------- bind and eval */

static void test_bind_eval(void **state) {
    (void)state;
    memplan_expr e = parse("N*M + K + max(N, 4)");
    memplan_binding only_m[] = {{"M", 3}};
    memplan_error err = {0};
    int64_t v = -1;
    assert_int_equal(memplan_expr_eval(P, e, only_m, 1, &v, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "unbound dimension 'K' (and 1 more)");
    assert_true(v == -1);
    memplan_binding all[] = {{"M", 3}, {"N", 2}, {"K", 10}, {"N", 5}}; /* last N wins */
    assert_int_equal(memplan_expr_eval(P, e, all, N_(all), &v, &err), MEMPLAN_OK);
    assert_true(v == 15 + 10 + 5);
    memplan_binding with_n[] = {{"N", 2}};
    assert_int_equal(memplan_expr_eval(P, e, with_n, 1, &v, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "unbound dimension 'K' (and 1 more)");
    memplan_binding nk[] = {{"N", 2}, {"K", 1}};
    assert_int_equal(memplan_expr_eval(P, e, nk, 2, &v, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "unbound dimension 'M'");
    memplan_binding odd[] = {{"batch size", 2}};
    assert_int_equal(memplan_expr_eval(P, parse("_0x62617463682073697a65*seq"), odd, 1, &v, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "unbound dimension 'seq'");

    /* bind: partial, then complete. */
    expect_str(memplan_expr_bind(P, e, with_n, 1), "K+2*M+4");
    expect_str(memplan_expr_bind(P, e, only_m, 1), "K+3*N+max(N,4)");
    expect_const(memplan_expr_bind(P, e, all, N_(all)), 30);
    assert_int_equal(memplan_expr_bind(P, e, NULL, 0), e);
    memplan_binding unrelated[] = {{"Z", 1}, {NULL, 7}};
    assert_int_equal(memplan_expr_bind(P, e, unrelated, 2), e);
    expect_str(memplan_expr_bind(P, parse("(N+M)//(K+1)"), only_m, 1), "(N+3)//(K+1)");
    memplan_binding k1[] = {{"K", 1}};
    expect_str(memplan_expr_bind(P, parse("(N+M)//(K+1)"), k1, 1), "(M+N)//2");
    memplan_binding k0[] = {{"K", 0}};
    assert_int_equal(memplan_expr_bind(P, parse("N//K"), k0, 1), MEMPLAN_EXPR_NONE);
    memplan_binding big[] = {{"N", INT64_MAX}};
    assert_int_equal(memplan_expr_bind(P, parse("N+1"), big, 1), MEMPLAN_EXPR_NONE);

    /* eval errors: division by zero, overflow, NONE. */
    memplan_binding z[] = {{"N", 7}, {"M", 0}};
    assert_int_equal(memplan_expr_eval(P, parse("1 + N//M"), z, 2, &v, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "division by zero in 'N//M'");
    assert_int_equal(memplan_expr_eval(P, parse("N%M"), z, 2, &v, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "division by zero in 'N%M'");
    assert_int_equal(memplan_expr_eval(P, parse("N*N+1"), big, 1, &v, &err), MEMPLAN_ELIMIT);
    assert_string_equal(err.message, "integer overflow in 'N*N+1'");
    assert_int_equal(memplan_expr_eval(P, MEMPLAN_EXPR_NONE, NULL, 0, &v, &err), MEMPLAN_EINPUT);
    assert_string_equal(err.message, "the amount is unknown");
    memplan_binding neg[] = {{"N", -7}, {"M", 2}};
    assert_int_equal(memplan_expr_eval(P, parse("N//M*100 + N%M"), neg, 2, &v, &err), MEMPLAN_OK);
    assert_true(v == -400 + 1);
    assert_int_equal(memplan_expr_eval(P, parse("17"), NULL, 0, &v, NULL), MEMPLAN_OK);
    assert_true(v == 17);
}

static void test_names(void **state) {
    (void)state;
    memplan_expr e = parse("seq*batch + max(zeta, _0x612062) + (alpha//seq)%Beta");
    const char *names[8] = {0};
    assert_int_equal(memplan_expr_names(P, e, names, 8), 6);
    const char *want[] = {"Beta", "a b", "alpha", "batch", "seq", "zeta"};
    for (size_t i = 0; i < N_(want); i++) assert_string_equal(names[i], want[i]);
    const char *two[2] = {0};
    assert_int_equal(memplan_expr_names(P, e, two, 2), 6);
    assert_string_equal(two[1], "a b");
    assert_int_equal(memplan_expr_names(P, C(3), names, 8), 0);
    assert_int_equal(memplan_expr_names(P, MEMPLAN_EXPR_NONE, names, 8), 0);
}

/* -------------------------------------------- random round trip and eval */

/* A random expression tree, evaluated here independently of the pool. */
enum { R_CONST, R_SYM, R_ADD, R_SUB, R_MUL, R_DIV, R_MOD, R_MAX, R_MIN, R_NEG, R_CEIL, R_KINDS };
typedef struct rnode {
    int kind;
    int64_t v;
    int sym;
    int a, b;
} rnode;

static const char *const RSYMS[] = {"N", "M", "batch", "seq len", "if"};
static rnode tree[64];
static int tree_n;
static uint64_t rng_state;

static uint32_t rnd(uint32_t n) { /* xorshift64*, deterministic */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 33) % n;
}

static int gen(int depth) {
    int i = tree_n++;
    rnode *r = &tree[i];
    memset(r, 0, sizeof *r);
    r->kind = depth == 0 || tree_n > 40 ? (int)rnd(2) : (int)rnd(R_KINDS);
    if (r->kind == R_CONST) r->v = (int64_t)rnd(13) - 4;
    else if (r->kind == R_SYM)
        r->sym = (int)rnd(N_(RSYMS));
    else {
        r->a = gen(depth - 1);
        r->b = r->kind == R_NEG ? -1 : gen(depth - 1);
    }
    return i;
}

static memplan_expr build(int i) {
    const rnode *r = &tree[i];
    switch (r->kind) {
    case R_CONST: return C(r->v);
    case R_SYM: return S(RSYMS[r->sym]);
    case R_NEG: return memplan_expr_neg(P, build(r->a));
    default: break;
    }
    memplan_expr a = build(r->a), b = build(r->b);
    switch (r->kind) {
    case R_ADD: return add(a, b);
    case R_SUB: return sub(a, b);
    case R_MUL: return mul(a, b);
    case R_DIV: return fdiv(a, b);
    case R_MOD: return mod(a, b);
    case R_MAX: return mx(a, b);
    case R_MIN: return mn(a, b);
    default: return memplan_expr_ceildiv(P, a, b);
    }
}

/* Python semantics, checked; false on division by zero or overflow. */
static bool ref_eval(int i, const int64_t *vals, int64_t *out) {
    const rnode *r = &tree[i];
    int64_t a, b;
    if (r->kind == R_CONST) {
        *out = r->v;
        return true;
    }
    if (r->kind == R_SYM) {
        *out = vals[r->sym];
        return true;
    }
    if (!ref_eval(r->a, vals, &a)) return false;
    if (r->kind == R_NEG) return !__builtin_sub_overflow((int64_t)0, a, out);
    if (!ref_eval(r->b, vals, &b)) return false;
    switch (r->kind) {
    case R_ADD: return !__builtin_add_overflow(a, b, out);
    case R_SUB: return !__builtin_sub_overflow(a, b, out);
    case R_MUL: return !__builtin_mul_overflow(a, b, out);
    case R_MAX: *out = a > b ? a : b; return true;
    case R_MIN: *out = a < b ? a : b; return true;
    default: break;
    }
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    int64_t q = a / b, m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) {
        q -= 1;
        m += b;
    }
    if (r->kind == R_DIV) *out = q;
    else if (r->kind == R_MOD)
        *out = m;
    else { /* ceil(a/b) = -((-a)//b) */
        int64_t na = -a, q2 = na / b, m2 = na % b;
        if (m2 != 0 && ((m2 < 0) != (b < 0))) q2 -= 1;
        *out = -q2;
    }
    return true;
}

static void test_random_round_trip(void **state) {
    (void)state;
    memplan_expr_pool *other = memplan_expr_pool_new();
    assert_non_null(other);
    rng_state = 0x2545F4914F6CDD1Dull;
    int built = 0, none = 0, evals = 0, undefined = 0;
    for (int iter = 0; iter < 3000; iter++) {
        tree_n = 0;
        int root = gen(1 + (int)rnd(4));
        memplan_expr e = build(root);
        if (e == MEMPLAN_EXPR_NONE) {
            none++;
            continue;
        }
        built++;
        /* parse(print(e)) == e, and another pool prints the same text. */
        const char *text = str(e);
        memplan_error err = {0};
        memplan_expr back = memplan_expr_parse(P, text, &err);
        if (back != e) fail_msg("round trip of \"%s\": got \"%s\" (%s)", text, str(back), err.message);
        memplan_expr o = memplan_expr_parse(other, text, &err);
        assert_int_not_equal(o, MEMPLAN_EXPR_NONE);
        assert_string_equal(memplan_expr_str(other, o), text);
        /* eval == independent evaluation of the tree, under random bindings. */
        for (int k = 0; k < 4; k++) {
            int64_t vals[N_(RSYMS)];
            memplan_binding b[N_(RSYMS)];
            for (size_t s = 0; s < N_(RSYMS); s++) {
                vals[s] = (int64_t)rnd(17) - 6;
                b[s] = (memplan_binding){RSYMS[s], vals[s]};
            }
            int64_t want, got = 0;
            if (!ref_eval(root, vals, &want)) {
                undefined++;
                continue;
            }
            memplan_status st = memplan_expr_eval(P, e, b, N_(b), &got, &err);
            if (st != MEMPLAN_OK || got != want)
                fail_msg("eval of \"%s\" with N=%lld M=%lld batch=%lld seq len=%lld if=%lld: %s, got %lld want %lld",
                         text, (long long)vals[0], (long long)vals[1], (long long)vals[2], (long long)vals[3],
                         (long long)vals[4], st ? err.message : "ok", (long long)got, (long long)want);
            /* bind everything: a constant with the same value. */
            memplan_expr c = memplan_expr_bind(P, e, b, N_(b));
            int64_t cv = 0;
            if (!memplan_expr_is_const(P, c, &cv) || cv != want)
                fail_msg("bind of \"%s\" gave \"%s\", want %lld", text, str(c), (long long)want);
            evals++;
        }
    }
    memplan_expr_pool_free(other);
    print_message("random: %d built, %d none, %d evals checked, %d undefined\n", built, none, evals, undefined);
    assert_true(built >= 2500);
    assert_true(evals >= 5000);
}

/* Random strings over the grammar's alphabet: parse either succeeds (and the
 * result round-trips) or fails with an "offset N: " message, N in range. */
static void test_parse_garbage(void **state) {
    (void)state;
    static const char alpha[] = "NMx_0123456789+-*/%(), maxin\t?\xc3";
    rng_state = 12345;
    int ok = 0, bad = 0;
    for (int iter = 0; iter < 20000; iter++) {
        char text[40];
        size_t len = rnd(sizeof text - 1);
        for (size_t i = 0; i < len; i++) text[i] = alpha[rnd(sizeof alpha - 1)];
        text[len] = '\0';
        memplan_error err = {0};
        memplan_expr e = memplan_expr_parse(P, text, &err);
        if (e != MEMPLAN_EXPR_NONE) {
            ok++;
            assert_int_equal(parse(str(e)), e);
            continue;
        }
        bad++;
        unsigned long off = 0;
        if (sscanf(err.message, "offset %lu: ", &off) != 1 || off > len)
            fail_msg("parse(\"%s\"): message \"%s\"", text, err.message);
    }
    print_message("garbage: %d parsed, %d rejected\n", ok, bad);
    assert_true(ok > 100);
}

/* Many amounts in one pool: the ~100k a large model creates. */
static void test_many(void **state) {
    (void)state;
    memplan_expr batch = S("batch"), acc = C(0);
    char name[32];
    for (int i = 0; i < 100000; i++) {
        snprintf(name, sizeof name, "d%d", i % 997);
        memplan_expr e = mul(mul(batch, S(name)), C(4 * (i % 13 + 1)));
        e = add(e, C(i));
        if (i % 100 == 0) acc = add(acc, mul(batch, C(i)));
        assert_int_not_equal(e, MEMPLAN_EXPR_NONE);
    }
    expect_const(fdiv(acc, batch) == MEMPLAN_EXPR_NONE ? C(0) : C(0), 0);
    expect_str(acc, "49950000*batch");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_print_canonical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_equal_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overflow_is_none, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_divmod_constants, setup, teardown),
        cmocka_unit_test_setup_teardown(test_divmod_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_minmax, setup, teardown),
        cmocka_unit_test_setup_teardown(test_minmax_lattice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_escaping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_accepts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bind_eval, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_garbage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
