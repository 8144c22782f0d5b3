/* expr_tool.c -- prints random canonical amounts for expr_check.py: one line
 * per case, tab-separated: text, "name=value,..." (escaped names), then our
 * value or "div0" / "overflow". Deterministic (fixed xorshift seed). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/expr.h"

static uint64_t state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(uint32_t n) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (uint32_t)((state * 2685821657736338717ull) >> 33) % n;
}

static const char *const NAMES[] = {"N", "M", "batch size", "if", "x"};

static memplan_expr gen(memplan_expr_pool *p, int depth) {
    int kind = depth == 0 ? (int)rnd(2) : (int)rnd(10);
    if (kind == 0) return memplan_expr_const(p, (int64_t)rnd(21) - 7);
    if (kind == 1) return memplan_expr_sym(p, NAMES[rnd(5)]);
    memplan_expr a = gen(p, depth - 1), b = gen(p, depth - 1);
    switch (kind) {
    case 2: return memplan_expr_add(p, a, b);
    case 3: return memplan_expr_sub(p, a, b);
    case 4: return memplan_expr_mul(p, a, b);
    case 5: return memplan_expr_floordiv(p, a, b);
    case 6: return memplan_expr_mod(p, a, b);
    case 7: return memplan_expr_max(p, a, b);
    case 8: return memplan_expr_min(p, a, b);
    default: return memplan_expr_ceildiv(p, a, b);
    }
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 2000;
    memplan_expr_pool *p = memplan_expr_pool_new();
    if (!p) return 1;
    for (int i = 0; i < count; i++) {
        memplan_expr e = gen(p, 1 + (int)rnd(4));
        if (e == MEMPLAN_EXPR_NONE) continue;
        memplan_binding b[5];
        printf("%s\t", memplan_expr_str(p, e));
        for (int k = 0; k < 5; k++) {
            b[k] = (memplan_binding){NAMES[k], (int64_t)rnd(41) - 20};
            printf("%s%s=%lld", k ? "," : "", memplan_expr_str(p, memplan_expr_sym(p, NAMES[k])),
                   (long long)b[k].value);
        }
        int64_t v = 0;
        memplan_error err = {0};
        memplan_status st = memplan_expr_eval(p, e, b, 5, &v, &err);
        if (st == MEMPLAN_OK) printf("\t%lld\n", (long long)v);
        else
            printf("\t%s\n", strstr(err.message, "division by zero") ? "div0" : "overflow");
    }
    memplan_expr_pool_free(p);
    return 0;
}
