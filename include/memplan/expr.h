/*
 * memplan/expr.h -- symbolic integer amounts (dims, element counts, bytes).
 *
 * One type everywhere: shapes, sizes and the profile all hold memplan_expr
 * handles into a pool. The pool hash-conses canonical forms, so two amounts
 * with the same canonical form have the same handle (and print the same).
 * The canonical form is not a decision procedure: two amounts can be equal for
 * every binding and still differ in form (e.g. N//2*2+N%2 and N).
 *
 * CANONICAL FORM
 *   An integer polynomial over atoms: a sum of terms coefficient x monomial,
 *   a monomial a product of atoms with exponents. An atom is a dim name or one
 *   of floordiv(a,b), mod(a,b), max(a,b), min(a,b) whose operands are
 *   canonical amounts and which could not be folded. Rules applied:
 *   - constants fold everywhere; // and % follow Python: a//b rounds toward
 *     -infinity, a%b has the sign of b (so -7//2 = -4, -7%2 = 1, 7%-2 = -1);
 *   - products expand (a*(b+c) = a*b+a*c), like terms combine, zero terms go
 *     (x-x = 0);
 *   - x//1 = x, x%1 = 0, 0//x = 0, 0%x = 0;
 *   - division by a constant c: a negative c flips signs first (a//c =
 *     (-a)//(-c), a%c = -((-a)%(-c))); then each coefficient k = c*q + r with
 *     0 <= r < c moves its multiple of c out: (c*Q + R)//c = Q + R//c and
 *     (c*Q + R)%c = R%c; a constant R folds (R//c = 0, R%c = R); a common
 *     factor g of c and R cancels (R//c = (R/g)//(c/g), R%c = g*((R/g)%(c/g)));
 *     nested divisions merge: (x//c1)//c2 = x//(c1*c2), (x%c1)%c2 = x%c2 when
 *     c2 divides c1 and = x%c1 when c2 >= c1. So (N+3)//2 = (N+1)//2+1,
 *     (8*N+4)//4 = 2*N+1, (2*N)//4 = N//2, (H-1)//2+1 = (H+1)//2.
 *   - max/min: when one argument is <= the other for every integer value
 *     of the names, the answer is that one: a constant difference
 *     (max(a,a) = a, max(N+1,N) = N+1, constants fold), and the lattice
 *     laws on a max or min atom plus a constant: min(x,y)+k <= b when
 *     x+k <= b or y+k <= b, max(x,y)+k <= b when both are, and the duals,
 *     so max(min(a,b),a) = a (absorption), min(min(a,8),16) = min(a,8),
 *     max(min(a,8),10) = 10, max(max(a,b),a) = max(a,b); otherwise the
 *     arguments are ordered: a non-constant before a constant, else by
 *     printed text (byte order).
 *   No rule assumes a sign for a dim; every rule is exact for all integers
 *   (where the input itself is defined).
 *
 * ORDER (deterministic, independent of pool history and platform)
 *   Atoms order by their printed text (strcmp, bytes). Factors in a monomial
 *   are in atom order. Terms: higher total degree first; at equal degree, the
 *   factor sequences (each atom repeated by its exponent) compared atom by
 *   atom; the constant term last. E.g. "M*N+N*N+M+N+1", "64*batch*seq".
 *
 * PRINTING (memplan_expr_str)
 *   - terms joined by '+'/'-': "8*N+8", "N-1", "2*N-3", "-2*N+1"; a first
 *     negative term starts with '-'; zero prints "0";
 *   - a term: [coefficient '*'] factor ('*' factor)*, the coefficient left out
 *     when it is 1 or -1; powers as repeated factors: "N*N" (no "**");
 *   - max(a,b) and min(a,b) with no spaces;
 *   - a//b and a%b: the left operand in parentheses when it has several terms
 *     or starts with '-', the right one unless it is a non-negative constant or
 *     a lone name/max/min: "N//2", "2*N//M", "(N+1)//2", "(-N)//M",
 *     "N//(2*M)", "N%(M//2)";
 *   - a floordiv/mod atom inside a term is parenthesized unless it is the
 *     term's first token (not after a coefficient, a factor or a unary '-'),
 *     because '*', '//' and '%' share one left-associative precedence level:
 *     "N//2*M", "2*(N//2)", "M*(N//2)", "-(N//2)", "N-N//2";
 *   - the one coefficient with no positive literal, -2^63, prints as "+-"
 *     followed by 9223372036854775808 when it is not the first term; no other
 *     text has two signs in a row (never "--", which JavaScript reads as a
 *     decrement).
 *   Printing uses no locale, floating point or platform-dependent formatting:
 *   native and WebAssembly builds print byte-identical text.
 *
 * NAMES
 *   A dim name prints as itself when it is an ASCII identifier
 *   [A-Za-z_][A-Za-z0-9_]*, does not start with "_0x", and is not a reserved
 *   word: max, min, a Python keyword (if, None, True, lambda, ...), a
 *   JavaScript reserved word or literal (new, class, null, true, ...) or one of
 *   arguments, eval, undefined, NaN, Infinity, Math, BigInt, Number. Any other
 *   name is escaped as "_0x" followed by the lowercase hex of its UTF-8 bytes:
 *   "batch size" -> _0x62617463682073697a65, "N-1" -> _0x4e2d31,
 *   "2x" -> _0x3278, "max" -> _0x6d6178, "_0xab" -> _0x5f30786162. An escaped
 *   name is still an identifier, so a consumer binds the escaped spelling. No
 *   plain name starts with "_0x", so escaping is reversible and cannot collide.
 *   Names are non-empty, at most 1024 bytes, without NUL.
 *
 * GRAMMAR (what memplan_expr_parse reads; spaces, tabs and newlines may
 * separate tokens)
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '//' | '%') unary)*        left to right
 *   unary   := '-' unary | primary                      binds tighter than * // %
 *   primary := INT | NAME | 'max' '(' expr ',' expr ')' | 'min' '(' expr ',' expr ')'
 *            | '(' expr ')'
 *   INT     := [0-9]+  (an int64; directly after a unary '-' it may be 2^63)
 *   NAME    := [A-Za-z_][A-Za-z0-9_]*, other than max/min; "_0x" + hex pairs
 *              is decoded (see NAMES)
 *   These precedences and associativities are exactly Python's and
 *   JavaScript's for these operators (in both, unary minus binds tighter than
 *   '*' and '%'). Python evaluates a printed amount as is:
 *     eval(text, {"__builtins__": {}, "max": max, "min": min}, {"N": 4, ...})
 *
 * EVALUATING IN JAVASCRIPT (the web/ wrapper)
 *   '//' is not a JavaScript operator, and a textual rewrite of "a//b" into
 *   Math.floor(a/b) needs the operands' extent anyway, so web/ evaluates the
 *   grammar above with a ~40-line recursive-descent evaluator (one function
 *   per rule: expr, term, unary, primary), with BigInt arithmetic so values
 *   above 2^53 stay exact:
 *     floordiv(a,b): q = a / b; if (a % b !== 0n && (a < 0n) !== (b < 0n)) q -= 1n;
 *     mod(a,b):      r = a % b; if (r !== 0n && (r < 0n) !== (b < 0n)) r += b;
 *   b === 0n is an error; names are looked up (escaped spelling) in the
 *   bindings object; an unknown name is an error naming it. With Number
 *   instead of BigInt, a//b is Math.floor(a/b) and a%b is ((a%b)+b)%b, exact
 *   while every intermediate value stays within 2^53.
 *
 * LIMITS AND UNKNOWNS
 *   Every operation checks for int64 overflow; an overflow, or any operand
 *   that is MEMPLAN_EXPR_NONE, gives MEMPLAN_EXPR_NONE ("unknown"). Division
 *   or mod by a constant zero gives MEMPLAN_EXPR_NONE too. To bound the work
 *   on adversarial input, a result with more than 64 terms, a monomial of total
 *   degree above 16, atoms nested more than 64 deep, or a printed form longer
 *   than 16 KiB is MEMPLAN_EXPR_NONE as well. Running out of memory gives
 *   MEMPLAN_EXPR_NONE. A handle outside the pool's range is treated as NONE
 *   (handles of another pool are not detected otherwise).
 *
 * COST
 *   const, sym, is_const and str are O(1) hash look-ups (plus printing the
 *   text once when a new amount is made); add/sub/neg are O(terms) merges;
 *   mul is O(terms_a x terms_b x log); bind, eval and names visit each shared
 *   sub-amount once. Nothing in the pool is freed before the pool. A pool is
 *   not thread-safe; use one per thread (handles differ between pools, texts
 *   of equal amounts do not).
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

/* A new empty pool, or NULL when memory runs out. */
memplan_expr_pool *memplan_expr_pool_new(void);
/* Free the pool, every amount in it and every string it handed out. NULL is fine. */
void memplan_expr_pool_free(memplan_expr_pool *pool);
/* How many distinct amounts the pool holds (it only grows: binding or
 * combining amounts interns the results). 0 for NULL. */
size_t memplan_expr_pool_count(const memplan_expr_pool *pool);

/* The constant v. */
memplan_expr memplan_expr_const(memplan_expr_pool *p, int64_t v);
/* The dim called name (any non-empty UTF-8 string up to 1024 bytes; the pool
 * copies it). NONE for NULL, "" or a longer name. */
memplan_expr memplan_expr_sym(memplan_expr_pool *p, const char *name);
/* a + b, a - b, a * b (products expand), -a. */
memplan_expr memplan_expr_add(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_sub(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_mul(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_neg(memplan_expr_pool *p, memplan_expr a);
/* Python's a // b (floor) and a % b (sign of b). NONE when b is the constant 0. */
memplan_expr memplan_expr_floordiv(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_mod(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
/* max(a, b), min(a, b). */
memplan_expr memplan_expr_max(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
memplan_expr memplan_expr_min(memplan_expr_pool *p, memplan_expr a, memplan_expr b);
/* ceil(a/b): (a+c-1)//c when b is a constant c > 0 (so ceildiv(N,2) is
 * "(N+1)//2"), else -((-a)//b). */
memplan_expr memplan_expr_ceildiv(memplan_expr_pool *p, memplan_expr a, memplan_expr b);

/* True (and *v, if v is not NULL) when e is a constant. False for NONE. */
bool memplan_expr_is_const(const memplan_expr_pool *p, memplan_expr e, int64_t *v);

/* True when e >= 0 for every binding of its names to non-negative integers
 * (as dims are) under which e is defined. A sufficient test, not a decision
 * procedure: every coefficient non-negative, and every factor with an odd
 * exponent a name, a max with one such operand, a min with two, a floordiv of
 * two, or a mod by one. So N-1, max(N-1,-1) and N*N-2*M*N+M*M (products
 * expand) are not known to be; N*M+1, max(N-1,0), (N+1)//2 and
 * max(N-2,-1)*max(N-2,-1) are. False for NONE. */
bool memplan_expr_nonneg(const memplan_expr_pool *p, memplan_expr e);

/* Canonical text (PRINTING above), owned by the pool and valid until the pool
 * is freed. "?" for NONE. Equal handles give the same text, in every pool. */
const char *memplan_expr_str(memplan_expr_pool *p, memplan_expr e);

/* Parse the GRAMMAR above into its canonical handle, so that
 * parse(str(e)) == e. On failure returns NONE and fills err (if not NULL)
 * with a message that starts "offset N: " (N a byte offset into text):
 * EINPUT for a syntax error, a bad escape, or an amount that is unknown
 * (overflow, division by a constant zero, a size limit); ELIMIT for nesting
 * deeper than 200 or a name longer than 1024 bytes; EUSAGE for NULL p/text. */
memplan_expr memplan_expr_parse(memplan_expr_pool *p, const char *text, memplan_error *err);

/* Replace the bound names by their values and simplify again (so binding
 * every name gives a constant, or NONE on overflow / division by zero).
 * Names not bound stay. When a name is bound twice, the last binding wins;
 * bindings with a NULL name are ignored. */
memplan_expr memplan_expr_bind(memplan_expr_pool *p, memplan_expr e, const memplan_binding *b, size_t n);

/* Evaluate under bindings (last binding of a name wins), with Python // and %.
 * Errors (status returned, err filled if not NULL, *out untouched):
 *   EINPUT "unbound dimension 'X'" (or "... (and K more)"): X is the first
 *          unbound name in memplan_expr_names order; checked before anything
 *          is evaluated;
 *   EINPUT "division by zero in '<atom>'";  ELIMIT "integer overflow in '<amount>'";
 *   EINPUT "the amount is unknown" for NONE; EUSAGE for NULL p/out; ENOMEM. */
memplan_status memplan_expr_eval(memplan_expr_pool *p, memplan_expr e, const memplan_binding *b, size_t n, int64_t *out,
                                 memplan_error *err);

/* True when text names the dim `name`: the name itself, or the escaped form
 * amounts print it in ("_0x" + hex of its bytes, either case), so a name
 * copied from a printed amount binds (--dim _0x702e30=1 binds "p.0"). */
bool memplan_expr_name_is(const char *name, const char *text);

/* The distinct dim names in e (raw, unescaped; pool-owned strings), sorted by
 * strcmp. Writes at most max of them and returns how many there are (0 for a
 * constant or NONE). */
size_t memplan_expr_names(memplan_expr_pool *p, memplan_expr e, const char **names, size_t max);

#ifdef __cplusplus
}
#endif
#endif
