/*
 * test_text_escape.c -- names in the text reports are escaped (out/text.h):
 * a '\n' or '\t' in a name cannot forge a report line or column, ESC and C1
 * controls cannot reach a terminal, and a backslash is doubled so every
 * name reads back exactly. JSON is escaped the JSON way (not tested here).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "memplan/memplan.h"
#include "memplan/report.h"
#include "model_builder.h"
#include "out/text.h"

/* The forging name: a line break followed by a fake headline. */
#define FORGE "y\npeak:              64 B (planned; all good)"

/* x -> Relu "a\tb" -> Neg FORGE, node names with ESC, C1 and a backslash. */
static memplan_model *model(void) {
    mb_graph *g = mb_new_graph("g");
    mb_input(g, "x", 1, "4");
    mb_node(g, "Relu", "x", "a\tb")->name = mb_strdup("esc\x1b[2J");
    mb_node(g, "Neg", "a\tb", FORGE)->name = mb_strdup("c1\xc2\x85 back\\slash");
    mb_output(g, FORGE, 1, "4");
    memplan_error err = {0};
    memplan_model *m = mb_load(g, &err);
    if (!m) fail_msg("load: %s", err.message);
    return m;
}

static char *text(const memplan_model *m, const char *command) {
    memplan_request r;
    memplan_request_init(&r);
    memplan_error err = {0};
    char *out = NULL;
    size_t len;
    if (memplan_report_text(m, command, &r, &out, &len, &err)) fail_msg("%s", err.message);
    return out;
}

static void expect_contains(const char *doc, const char *fragment) {
    if (!strstr(doc, fragment)) fail_msg("%s\n--- lacks ---\n%s", doc, fragment);
}

/* No byte below 0x20 but the report's own '\n', no C1 control, and only one
 * line starting "peak:". */
static void expect_clean(const char *doc) {
    int peaks = 0;
    for (const char *p = doc; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 && c != '\n') fail_msg("control byte 0x%02x in:\n%s", c, doc);
        if (c == 0xc2 && (unsigned char)p[1] >= 0x80 && (unsigned char)p[1] <= 0x9f)
            fail_msg("C1 control in:\n%s", doc);
        if ((p == doc || p[-1] == '\n') && strncmp(p, "peak:", 5) == 0) peaks++;
    }
    assert_true(peaks <= 1);
}

static void test_plan_text(void **state) {
    (void)state;
    memplan_model *m = model();
    char *t = text(m, "plan");
    expect_clean(t);
    expect_contains(t, "\npeak:              128 B\n");
    expect_contains(t, "\n  16 B  Relu  a\\x09b\n  16 B  Neg  y\\x0apeak:              64 B (planned; all good)\n");
    free(t);
    memplan_model_free(m);
}

static void test_other_reports(void **state) {
    (void)state;
    memplan_model *m = model();
    const char *commands[] = {"inplace", "profile", "tags", "shapes", "info"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char *t = text(m, commands[i]);
        expect_clean(t);
        free(t);
    }
    char *t = text(m, "inplace");
    expect_contains(t, "#0 Relu 'esc\\x1b[2J':  inputs done x\n");
    expect_contains(t, "#1 Neg 'c1\\u0085 back\\\\slash':  reuse out 0 <- in 0 (equal)  release a\\x09b\n");
    free(t);
    t = text(m, "info");
    expect_contains(t, "  y\\x0apeak:              64 B (planned; all good): float[4]\n");
    free(t);
    t = text(m, "shapes");
    expect_contains(t, "a\\x09b: float[4]  16 bytes, inferred\n");
    free(t);
    memplan_model_free(m);
}

/* The writer itself: widths and precision on the escaped text, other
 * conversions as printf's. */
static void test_text_printf(void **state) {
    (void)state;
    mp_buf b;
    mp_buf_init(&b);
    mp_text_printf(&b, "[%-6s|%4s|%.2s|%*s|%d %lld %zu %.1f %x %c %%]", "a\nb", "t", "xyz", 3, "\\", -5, -6LL,
                   (size_t)7, 2.25, 255u, 'q');
    mp_buf_putc(&b, 0);
    assert_string_equal(b.data, "[a\\x0ab|   t|xy| \\\\|-5 -6 7 2.2 ff q %]");
    b.len = 0;
    mp_text_put(&b, "\x7f\xc2\x9f\xc2\xa0");
    mp_buf_putc(&b, 0);
    assert_string_equal(b.data, "\\x7f\\u009f\xc2\xa0"); /* U+00A0 is not a control */
    /* every length modifier with a width (printf's path), '*' widths below 0
     * left-justify, '*' precisions */
    b.len = 0;
    mp_text_printf(&b, "%3ld|%3zd|%3jd|%3td|%3hd|%3lu|%3zu|%3ju|%3tu|%3u|%3i", -1L, (ptrdiff_t)-2, (intmax_t)-3,
                   (ptrdiff_t)-4, (short)-5, 6UL, (size_t)7, (uintmax_t)8, (ptrdiff_t)9, 10u, 11);
    mp_buf_putc(&b, 0);
    assert_string_equal(b.data, " -1| -2| -3| -4| -5|  6|  7|  8|  9| 10| 11");
    b.len = 0;
    mp_text_printf(&b, "[%*s|%.*s|%*d|%lu]", -4, "ab", 2, "wxyz", -3, 7, 12UL);
    mp_buf_putc(&b, 0);
    assert_string_equal(b.data, "[ab  |wx|7  |12]");
    mp_buf_free(&b);
}

/* Expressions for people: escaped names decoded, bare where they read,
 * quoted where they would not; what is not a whole escaped token stays. */
static void test_text_expr(void **state) {
    (void)state;
    static const char *const cases[][2] = {
        {"12*_0x702e30+_0x736571206c656e", "12*p.0+\"seq len\""},
        {"_0x4e2d31//2", "\"N-1\"//2"},                     /* an operator inside: quoted */
        {"max(_0x6d6178,batch)", "max(\"max\",batch)"},     /* a word of the grammar as a name: quoted */
        {"_0x3278*_0x5f30786162", "\"2x\"*\"_0xab\""},      /* a leading digit, an escape look-alike */
        {"_0x22615c", "\"\\\"a\\\\\""},                     /* a quote and a backslash in a name, inside quotes */
        {"a_0x61+_0x6+_0x+_0xzz", "a_0x61+_0x6+_0x+_0xzz"}, /* no whole escape token: as is */
        {"_0x0a", "\"\\x0a\""},                             /* a control character stays escaped */
        {"", ""},
    };
    mp_buf b;
    mp_buf_init(&b);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        b.len = 0;
        mp_text_expr(&b, cases[i][0]);
        mp_buf_putc(&b, 0);
        assert_string_equal(b.data, cases[i][1]);
    }
    mp_buf_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_text),
        cmocka_unit_test(test_other_reports),
        cmocka_unit_test(test_text_printf),
        cmocka_unit_test(test_text_expr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
