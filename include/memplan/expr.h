/*
 * memplan/expr.h -- symbolic integer amounts (dims, element counts, bytes).
 *
 * One type everywhere: shapes, sizes and the profile all hold memplan_expr
 * handles into a pool. The pool hash-conses canonical forms, so two amounts
 * are equal exactly when their handles are equal.
 *
 * Canonical form: an integer polynomial over atoms. An atom is a dim name or
 * one of floordiv(a,b), mod(a,b), max(a,b), min(a,b) whose arguments are
 * themselves canonical and which could not be folded. Terms print with the
 * constant last, e.g. "602112*batch", "8*N+8", "64*batch*seq",
 * "max(N,4)+1", "(N+1)//2". The grammar (which JavaScript and Python can
 * evaluate once names are bound; see memplan_expr_str for the exact rules):
 *   expr := term (('+'|'-') term)* ; term := factor ('*' factor | '//' factor | '%' factor)*
 *   factor := INT | NAME | 'max(' expr ',' expr ')' | 'min(' expr ',' expr ')' | '(' expr ')' | '-' factor
 *
 * Every operation checks for int64 overflow; an overflow, or any operand that
 * is MEMPLAN_EXPR_NONE, gives MEMPLAN_EXPR_NONE ("unknown"). Division or mod
 * by a constant zero gives MEMPLAN_EXPR_NONE too.
 */
#ifndef MEMPLAN_EXPR_H
#define MEMPLAN_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct memplan_expr_pool memplan_expr_pool;
typedef int32_t memplan_expr;
#define MEMPLAN_EXPR_NONE ((memplan_expr)-1)

memplan_expr_pool *memplan_expr_pool_new(void);
void memplan_expr_pool_free(memplan_expr_pool *pool);

memplan_expr memplan_expr_const(memplan_expr_pool *p, int64_t v);
memplan_expr memplan_expr_sym(memplan_expr_pool *p, const char *name);
memplan_expr memplan_expr_add(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_sub(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_mul(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_floordiv(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_mod(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_max(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_min(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
/* ceil(a/b) = -((-a)//b) */
memplan_expr memplan_expr_ceildiv(memplan_expr_pool *p, memplan_expr a, memplan_expr b);

/* True (and *v) when e is a constant. */
bool memplan_expr_is_const(const memplan_expr_pool *p, memplan_expr e, int64_t *v);

/* Canonical text, owned by the pool (valid until the pool is freed). "?" for NONE. */
const char *memplan_expr_str(memplan_expr_pool *p, memplan_expr e);

/* Parse the printed grammar back. Returns NONE and fills err on a syntax error. */
memplan_expr memplan_expr_parse(memplan_expr_pool *p, const char *text, memplan_error *err);

/* Replace bound names by their values and simplify. */
memplan_expr memplan_expr_bind(memplan_expr_pool *p, memplan_expr e, const memplan_binding *b, size_t n);

/* Evaluate under bindings. Errors: an unbound name (named in the message), overflow,
 * division by zero, NONE. */
memplan_status memplan_expr_eval(memplan_expr_pool *p, memplan_expr e, const memplan_binding *b, size_t n,
                                 int64_t *out, memplan_error *err);

/* Distinct dim names in e, in canonical order; returns how many there are (writes at most max). */
size_t memplan_expr_names(memplan_expr_pool *p, memplan_expr e, const char **names, size_t max);

#ifdef __cplusplus
}
#endif
#endif
