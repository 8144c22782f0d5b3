/*
 * expr.c -- symbolic integer amounts: a pool that hash-conses canonical
 * polynomials (see memplan/expr.h for the contract and the printed grammar).
 *
 * Three interned tables, each entry immutable once made:
 *
 *   atom   a dim name, or floordiv/mod/max/min of two polynomial handles;
 *          carries its printed text, which orders atoms (strcmp).
 *   mono   a sorted list of (atom, exponent) factors; mono 0 is the empty
 *          monomial (the constant 1).
 *   poly   a sorted list of (coefficient, mono) terms, coefficients non-zero;
 *          a poly id IS the public handle (memplan_expr).
 *
 * Equal term lists intern to the same id, so equal canonical forms get equal
 * handles. Orders depend only on printed texts, never on ids, pointers or
 * hashes, so the canonical form (and its text) of an amount is the same in
 * every pool and on every platform.
 *
 * Variable-length data (term lists, factor lists, texts, names) lives in the
 * pool's arena; the record arrays grow with realloc, so code that calls an
 * interning function re-reads records afterwards instead of keeping pointers
 * into those arrays.
 */
#include "memplan/expr.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"

/* ---------------------------------------------------------------- limits */

#define MAX_TERMS 64      /* terms in one polynomial */
#define MAX_DEGREE 16     /* total degree of one monomial */
#define MAX_DEPTH 64      /* nesting of floordiv/mod/max/min atoms */
#define MAX_TEXT 16384    /* bytes of one printed polynomial */
#define MAX_NAME 1024     /* bytes of one dim name */
#define MAX_IDS (1 << 28) /* entries in one table */
#define MAX_NEST 200      /* parser recursion (parentheses, unary minus) */

/* ----------------------------------------------------------------- types */

typedef enum atom_kind { A_SYM, A_FLOORDIV, A_MOD, A_MAX, A_MIN } atom_kind;

typedef struct factor {
    int32_t atom, exp;
} factor;
typedef struct term {
    int64_t coef;
    int32_t mono;
} term;

typedef struct atom {
    atom_kind kind;
    memplan_expr a, b; /* operands (not A_SYM) */
    const char *name;  /* A_SYM: the raw name */
    const char *text;  /* printed form, without outer parentheses */
    uint64_t hash;
    int32_t depth;     /* 0 for a name, else 1 + deepest operand */
    memplan_expr self; /* the polynomial "1*atom", or NONE until made */
} atom;

typedef struct mono {
    const factor *f;
    int32_t n, degree;
    uint64_t hash;
} mono;

typedef struct poly {
    const term *t;
    int32_t n, depth;
    uint64_t hash;
    const char *text;
} poly;

/* Open-addressing table of ids; the records hold the hashes and the keys. */
typedef struct idslot {
    uint64_t hash;
    int32_t id_plus1;
} idslot;
typedef struct idtab {
    idslot *slot;
    uint32_t cap, count;
} idtab;

struct memplan_expr_pool {
    mp_arena arena;
    atom *atoms;
    int32_t n_atoms, cap_atoms;
    mono *monos;
    int32_t n_monos, cap_monos;
    poly *polys;
    int32_t n_polys, cap_polys;
    idtab atom_tab, mono_tab, poly_tab;
    term *mulbuf; /* scratch for products: 2 * MAX_TERMS^2 terms */
    mp_buf text;  /* scratch for printing */
};

/* ---------------------------------------------------------------- hashing */

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

typedef bool (*id_eq_fn)(const memplan_expr_pool *p, int32_t id, const void *key);

/* The id whose record equals key, or -1. */
static int32_t idtab_find(const idtab *t, uint64_t h, id_eq_fn eq, const memplan_expr_pool *p, const void *key) {
    if (t->cap == 0) return -1;
    uint32_t mask = t->cap - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        const idslot *s = &t->slot[i];
        if (s->id_plus1 == 0) return -1;
        if (s->hash == h && eq(p, s->id_plus1 - 1, key)) return s->id_plus1 - 1;
    }
}

/* Add id (known to be absent). False when memory runs out. */
static bool idtab_insert(idtab *t, uint64_t h, int32_t id) {
    if ((t->count + 1) * 2 > t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        idslot *s = calloc(cap, sizeof *s);
        if (!s) return false;
        for (uint32_t i = 0; i < t->cap; i++) {
            if (t->slot[i].id_plus1 == 0) continue;
            uint32_t j = (uint32_t)t->slot[i].hash & (cap - 1);
            while (s[j].id_plus1) j = (j + 1) & (cap - 1);
            s[j] = t->slot[i];
        }
        free(t->slot);
        t->slot = s;
        t->cap = cap;
    }
    uint32_t j = (uint32_t)h & (t->cap - 1);
    while (t->slot[j].id_plus1) j = (j + 1) & (t->cap - 1);
    t->slot[j].hash = h;
    t->slot[j].id_plus1 = id + 1;
    t->count++;
    return true;
}

/* Make room for one more record in *arr (count n, capacity *cap). */
static bool grow(void **arr, int32_t n, int32_t *cap, size_t elem) {
    if (n < *cap) return true;
    if (n >= MAX_IDS) return false;
    int32_t c = *cap ? *cap * 2 : 256;
    void *q = realloc(*arr, (size_t)c * elem);
    if (!q) return false;
    *arr = q;
    *cap = c;
    return true;
}

/* ------------------------------------------------------- integer helpers */

/* Python floor division: rounds toward -infinity. False on b == 0 or overflow. */
static bool floordiv_i64(int64_t a, int64_t b, int64_t *q) {
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    int64_t r = a % b;
    *q = a / b - ((r != 0 && ((r < 0) != (b < 0))) ? 1 : 0);
    return true;
}

/* Python modulo: the result takes the divisor's sign. False on b == 0. */
static bool mod_i64(int64_t a, int64_t b, int64_t *m) {
    if (b == 0) return false;
    if (b == -1) {
        *m = 0;
        return true;
    }
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    *m = r;
    return true;
}

static int64_t gcd_i64(int64_t a, int64_t b) { /* both >= 0 */
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ---------------------------------------------------------- dim names */

/* Words a plain name may not be: the grammar's functions, Python keywords,
 * JavaScript reserved words and literals, and a few JS globals an evaluator
 * might rely on. Such names print escaped. */
static const char *const RESERVED[] = {
    "max",      "min",     "False",   "None",      "True",       "and",        "as",        "assert",    "async",
    "await",    "break",   "class",   "continue",  "def",        "del",        "elif",      "else",      "except",
    "finally",  "for",     "from",    "global",    "if",         "import",     "in",        "is",        "lambda",
    "nonlocal", "not",     "or",      "pass",      "raise",      "return",     "try",       "while",     "with",
    "yield",    "case",    "catch",   "const",     "debugger",   "default",    "delete",    "do",        "enum",
    "export",   "extends", "false",   "function",  "implements", "instanceof", "interface", "let",       "new",
    "null",     "package", "private", "protected", "public",     "static",     "super",     "switch",    "this",
    "throw",    "true",    "typeof",  "var",       "void",       "arguments",  "eval",      "undefined", "NaN",
    "Infinity", "Math",    "BigInt",  "Number",
};

static bool is_alpha_(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_alnum_(int c) { return is_alpha_(c) || is_digit(c); }

#define ESCAPE_PREFIX "_0x"

/* True when name prints as itself (see "Names" in expr.h). */
static bool name_is_plain(const char *s) {
    if (!is_alpha_((unsigned char)s[0])) return false;
    for (const char *c = s; *c; c++)
        if (!is_alnum_((unsigned char)*c)) return false;
    if (strncmp(s, ESCAPE_PREFIX, 3) == 0) return false;
    for (size_t i = 0; i < sizeof RESERVED / sizeof RESERVED[0]; i++)
        if (strcmp(s, RESERVED[i]) == 0) return false;
    return true;
}

static void put_name(mp_buf *b, const char *name) {
    if (name_is_plain(name)) {
        mp_buf_puts(b, name);
        return;
    }
    static const char hex[] = "0123456789abcdef";
    mp_buf_puts(b, ESCAPE_PREFIX);
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        mp_buf_putc(b, hex[*c >> 4]);
        mp_buf_putc(b, hex[*c & 15]);
    }
}

bool memplan_expr_name_is(const char *name, const char *text) {
    if (strcmp(name, text) == 0) return true;
    if (strncmp(text, ESCAPE_PREFIX, 3) != 0) return false;
    static const char hex[] = "0123456789abcdef";
    const char *t = text + 3;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++, t += 2) {
        if (!t[0] || !t[1]) return false;
        char hi = (char)(t[0] >= 'A' && t[0] <= 'F' ? t[0] + 32 : t[0]);
        char lo = (char)(t[1] >= 'A' && t[1] <= 'F' ? t[1] + 32 : t[1]);
        if (hi != hex[*c >> 4] || lo != hex[*c & 15]) return false;
    }
    return *t == '\0';
}

/* ------------------------------------------------------------ ordering */

/* Atoms order by printed text (distinct atoms print differently). */
static int atom_cmp(const memplan_expr_pool *p, int32_t x, int32_t y) {
    if (x == y) return 0;
    int c = strcmp(p->atoms[x].text, p->atoms[y].text);
    return c ? c : (x < y ? -1 : 1);
}

/* Monomials: higher total degree first; at equal degree, compare the factor
 * sequences (each atom repeated exponent times, ascending) atom by atom. The
 * empty monomial (degree 0) thus comes last. */
static int mono_cmp(const memplan_expr_pool *p, int32_t x, int32_t y) {
    if (x == y) return 0;
    const mono *a = &p->monos[x], *b = &p->monos[y];
    if (a->degree != b->degree) return a->degree > b->degree ? -1 : 1;
    int32_t i = 0, j = 0, ei = a->n ? a->f[0].exp : 0, ej = b->n ? b->f[0].exp : 0;
    while (i < a->n && j < b->n) {
        int c = atom_cmp(p, a->f[i].atom, b->f[j].atom);
        if (c) return c;
        int32_t k = ei < ej ? ei : ej;
        ei -= k;
        ej -= k;
        if (ei == 0 && ++i < a->n) ei = a->f[i].exp;
        if (ej == 0 && ++j < b->n) ej = b->f[j].exp;
    }
    return x < y ? -1 : 1; /* unreachable for distinct monomials */
}

/* --------------------------------------------------------------- monos */

typedef struct mono_key {
    const factor *f;
    int32_t n;
} mono_key;

static bool mono_eq(const memplan_expr_pool *p, int32_t id, const void *key) {
    const mono_key *k = key;
    const mono *m = &p->monos[id];
    return m->n == k->n && memcmp(m->f, k->f, (size_t)k->n * sizeof *k->f) == 0;
}

/* Intern a sorted factor list; -1 on a limit or no memory. */
static int32_t intern_mono(memplan_expr_pool *p, const factor *f, int32_t n) {
    uint64_t h = 0x6d6f6e6full;
    int32_t degree = 0;
    for (int32_t i = 0; i < n; i++) {
        h = mix(mix(h, (uint64_t)f[i].atom), (uint64_t)f[i].exp);
        degree += f[i].exp;
        if (degree > MAX_DEGREE) return -1;
    }
    mono_key key = {f, n};
    int32_t id = idtab_find(&p->mono_tab, h, mono_eq, p, &key);
    if (id >= 0) return id;
    if (!grow((void **)&p->monos, p->n_monos, &p->cap_monos, sizeof *p->monos)) return -1;
    factor *copy = n ? mp_arena_array(&p->arena, (size_t)n, sizeof *copy) : NULL;
    if (n && !copy) return -1;
    if (n) memcpy(copy, f, (size_t)n * sizeof *f);
    id = p->n_monos;
    if (!idtab_insert(&p->mono_tab, h, id)) return -1;
    p->monos[id] = (mono){copy, n, degree, h};
    p->n_monos++;
    return id;
}

/* Product of two monomials (merge the factor lists); -1 beyond the limits. */
static int32_t mono_mul(memplan_expr_pool *p, int32_t x, int32_t y) {
    if (x == 0) return y;
    if (y == 0) return x;
    factor f[2 * MAX_DEGREE];
    const mono *a = &p->monos[x], *b = &p->monos[y];
    if (a->degree + b->degree > MAX_DEGREE) return -1;
    int32_t i = 0, j = 0, n = 0;
    while (i < a->n || j < b->n) {
        int c = i == a->n ? 1 : j == b->n ? -1 : atom_cmp(p, a->f[i].atom, b->f[j].atom);
        if (c < 0) f[n++] = a->f[i++];
        else if (c > 0)
            f[n++] = b->f[j++];
        else {
            f[n] = a->f[i++];
            f[n++].exp += b->f[j++].exp;
        }
    }
    return intern_mono(p, f, n);
}

/* --------------------------------------------------------------- polys */

typedef struct poly_key {
    const term *t;
    int32_t n;
} poly_key;

static bool poly_eq(const memplan_expr_pool *p, int32_t id, const void *key) {
    const poly_key *k = key;
    const poly *q = &p->polys[id];
    if (q->n != k->n) return false;
    for (int32_t i = 0; i < k->n; i++)
        if (q->t[i].coef != k->t[i].coef || q->t[i].mono != k->t[i].mono) return false;
    return true;
}

static void text_reset(mp_buf *b) {
    if (b->failed) mp_buf_free(b);
    b->len = 0;
    if (b->data) b->data[0] = '\0';
}

static bool is_divmod(const memplan_expr_pool *p, int32_t a) {
    return p->atoms[a].kind == A_FLOORDIV || p->atoms[a].kind == A_MOD;
}

/* Print a term list (see "Printing" in expr.h). A floordiv/mod atom is
 * wrapped in parentheses unless it is the first token of its term, because
 * `*`, `//` and `%` share one precedence level and unary minus binds tighter
 * than all three. */
static void put_terms(const memplan_expr_pool *p, mp_buf *b, const term *t, int32_t n) {
    if (n == 0) mp_buf_putc(b, '0');
    for (int32_t i = 0; i < n; i++) {
        int64_t c = t[i].coef;
        uint64_t mag = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
        bool first_token = true;
        if (i == 0) {
            if (c < 0) {
                mp_buf_putc(b, '-');
                first_token = false;
            }
        } else if (c == INT64_MIN) {
            mp_buf_puts(b, "+-"); /* 2^63 has no positive literal */
            first_token = false;
        } else {
            mp_buf_putc(b, c < 0 ? '-' : '+');
        }
        const mono *m = &p->monos[t[i].mono];
        if (m->n == 0 || mag != 1) {
            mp_buf_printf(b, "%" PRIu64, mag);
            if (m->n == 0) continue;
            mp_buf_putc(b, '*');
            first_token = false;
        }
        for (int32_t k = 0; k < m->n; k++) {
            for (int32_t e = 0; e < m->f[k].exp; e++) {
                if (k || e) mp_buf_putc(b, '*');
                bool paren = is_divmod(p, m->f[k].atom) && !(first_token && k == 0 && e == 0);
                if (paren) mp_buf_putc(b, '(');
                mp_buf_puts(b, p->atoms[m->f[k].atom].text);
                if (paren) mp_buf_putc(b, ')');
            }
        }
    }
}

/* Intern a canonical term list (sorted, combined, no zero coefficient). */
static memplan_expr intern_poly(memplan_expr_pool *p, const term *t, int32_t n) {
    if (n > MAX_TERMS) return MEMPLAN_EXPR_NONE;
    uint64_t h = 0x706f6c79ull;
    for (int32_t i = 0; i < n; i++) h = mix(mix(h, (uint64_t)t[i].coef), (uint64_t)t[i].mono);
    poly_key key = {t, n};
    int32_t id = idtab_find(&p->poly_tab, h, poly_eq, p, &key);
    if (id >= 0) return id;
    int32_t depth = 0;
    for (int32_t i = 0; i < n; i++) {
        const mono *m = &p->monos[t[i].mono];
        for (int32_t k = 0; k < m->n; k++)
            if (p->atoms[m->f[k].atom].depth > depth) depth = p->atoms[m->f[k].atom].depth;
    }
    text_reset(&p->text);
    put_terms(p, &p->text, t, n);
    if (p->text.failed || p->text.len > MAX_TEXT) return MEMPLAN_EXPR_NONE;
    if (!grow((void **)&p->polys, p->n_polys, &p->cap_polys, sizeof *p->polys)) return MEMPLAN_EXPR_NONE;
    term *copy = n ? mp_arena_array(&p->arena, (size_t)n, sizeof *copy) : NULL;
    char *text = mp_arena_strndup(&p->arena, p->text.data, p->text.len);
    if ((n && !copy) || !text) return MEMPLAN_EXPR_NONE;
    if (n) memcpy(copy, t, (size_t)n * sizeof *t);
    id = p->n_polys;
    if (!idtab_insert(&p->poly_tab, h, id)) return MEMPLAN_EXPR_NONE;
    p->polys[id] = (poly){copy, n, depth, h, text};
    p->n_polys++;
    return id;
}

static bool valid(const memplan_expr_pool *p, memplan_expr e) { return p && e >= 0 && e < p->n_polys; }

/* --------------------------------------------------------------- atoms */

typedef struct atom_key {
    atom_kind kind;
    memplan_expr a, b;
    const char *name;
} atom_key;

static bool atom_eq(const memplan_expr_pool *p, int32_t id, const void *key) {
    const atom_key *k = key;
    const atom *x = &p->atoms[id];
    if (x->kind != k->kind) return false;
    if (k->kind == A_SYM) return strcmp(x->name, k->name) == 0;
    return x->a == k->a && x->b == k->b;
}

/* True when polynomial e prints as one primary: a non-negative constant or
 * a lone name/max/min (so it needs no parentheses after `//` or `%`). */
static bool is_primary(const memplan_expr_pool *p, memplan_expr e) {
    const poly *q = &p->polys[e];
    if (q->n == 0) return true;
    if (q->n != 1) return false;
    const mono *m = &p->monos[q->t[0].mono];
    if (m->n == 0) return q->t[0].coef >= 0;
    return q->t[0].coef == 1 && m->n == 1 && m->f[0].exp == 1 && !is_divmod(p, m->f[0].atom);
}

/* The atom's text: name escaped; max(a,b); a//b and a%b with the left operand
 * parenthesized when it has several terms or starts with '-' (clearer, and no
 * "--" can appear in "X-(-N)//M"), the right one unless it is primary. */
static void put_atom_text(const memplan_expr_pool *p, mp_buf *b, const atom_key *k) {
    if (k->kind == A_SYM) {
        put_name(b, k->name);
        return;
    }
    if (k->kind == A_MAX || k->kind == A_MIN) {
        mp_buf_puts(b, k->kind == A_MAX ? "max(" : "min(");
        mp_buf_puts(b, p->polys[k->a].text);
        mp_buf_putc(b, ',');
        mp_buf_puts(b, p->polys[k->b].text);
        mp_buf_putc(b, ')');
        return;
    }
    const poly *l = &p->polys[k->a];
    bool pl = l->n > 1 || (l->n == 1 && l->t[0].coef < 0), pr = !is_primary(p, k->b);
    if (pl) mp_buf_putc(b, '(');
    mp_buf_puts(b, p->polys[k->a].text);
    if (pl) mp_buf_putc(b, ')');
    mp_buf_puts(b, k->kind == A_FLOORDIV ? "//" : "%");
    if (pr) mp_buf_putc(b, '(');
    mp_buf_puts(b, p->polys[k->b].text);
    if (pr) mp_buf_putc(b, ')');
}

/* Intern an atom and return the polynomial "1*atom". */
static memplan_expr atom_poly(memplan_expr_pool *p, const atom_key *k) {
    uint64_t h = k->kind == A_SYM ? hash_str(k->name)
                                  : mix(mix(mix(0x61746f6dull, (uint64_t)k->kind), (uint64_t)k->a), (uint64_t)k->b);
    int32_t id = idtab_find(&p->atom_tab, h, atom_eq, p, k);
    if (id < 0) {
        int32_t depth = 0;
        if (k->kind != A_SYM) {
            depth = 1 + (p->polys[k->a].depth > p->polys[k->b].depth ? p->polys[k->a].depth : p->polys[k->b].depth);
            if (depth > MAX_DEPTH) return MEMPLAN_EXPR_NONE;
        }
        text_reset(&p->text);
        put_atom_text(p, &p->text, k);
        if (p->text.failed || p->text.len > MAX_TEXT) return MEMPLAN_EXPR_NONE;
        if (!grow((void **)&p->atoms, p->n_atoms, &p->cap_atoms, sizeof *p->atoms)) return MEMPLAN_EXPR_NONE;
        char *text = mp_arena_strndup(&p->arena, p->text.data, p->text.len);
        char *name = k->kind == A_SYM ? mp_arena_strdup(&p->arena, k->name) : NULL;
        if (!text || (k->kind == A_SYM && !name)) return MEMPLAN_EXPR_NONE;
        id = p->n_atoms;
        if (!idtab_insert(&p->atom_tab, h, id)) return MEMPLAN_EXPR_NONE;
        p->atoms[id] = (atom){k->kind, k->a, k->b, name, text, h, depth, MEMPLAN_EXPR_NONE};
        p->n_atoms++;
    }
    if (p->atoms[id].self != MEMPLAN_EXPR_NONE) return p->atoms[id].self;
    factor f = {id, 1};
    int32_t m = intern_mono(p, &f, 1);
    if (m < 0) return MEMPLAN_EXPR_NONE;
    term t = {1, m};
    memplan_expr e = intern_poly(p, &t, 1);
    p->atoms[id].self = e;
    return e;
}

/* ------------------------------------------------------------ the pool */

memplan_expr_pool *memplan_expr_pool_new(void) {
    memplan_expr_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    mp_arena_init(&p->arena);
    mp_buf_init(&p->text);
    if (intern_mono(p, NULL, 0) != 0) { /* mono 0: the constant monomial */
        memplan_expr_pool_free(p);
        return NULL;
    }
    return p;
}

size_t memplan_expr_pool_count(const memplan_expr_pool *pool) { return pool ? (size_t)pool->n_polys : 0; }

void memplan_expr_pool_free(memplan_expr_pool *pool) {
    if (!pool) return;
    mp_arena_free(&pool->arena);
    free(pool->atoms);
    free(pool->monos);
    free(pool->polys);
    free(pool->atom_tab.slot);
    free(pool->mono_tab.slot);
    free(pool->poly_tab.slot);
    free(pool->mulbuf);
    mp_buf_free(&pool->text);
    free(pool);
}

/* ------------------------------------------------ polynomial arithmetic */

memplan_expr memplan_expr_const(memplan_expr_pool *p, int64_t v) {
    if (!p) return MEMPLAN_EXPR_NONE;
    term t = {v, 0};
    return intern_poly(p, &t, v != 0);
}

memplan_expr memplan_expr_sym(memplan_expr_pool *p, const char *name) {
    if (!p || !name || !name[0] || strlen(name) > MAX_NAME) return MEMPLAN_EXPR_NONE;
    atom_key k = {A_SYM, MEMPLAN_EXPR_NONE, MEMPLAN_EXPR_NONE, name};
    return atom_poly(p, &k);
}

bool memplan_expr_is_const(const memplan_expr_pool *p, memplan_expr e, int64_t *v) {
    if (!valid(p, e)) return false;
    const poly *q = &p->polys[e];
    if (q->n > 1 || (q->n == 1 && q->t[0].mono != 0)) return false;
    if (v) *v = q->n ? q->t[0].coef : 0;
    return true;
}

/* a + s*b (s = 1 or -1) by merging the sorted lists; NONE on overflow. */
static memplan_expr add_scaled(memplan_expr_pool *p, memplan_expr a, memplan_expr b, int64_t s) {
    if (!valid(p, a) || !valid(p, b)) return MEMPLAN_EXPR_NONE;
    const term *ta = p->polys[a].t, *tb = p->polys[b].t;
    int32_t na = p->polys[a].n, nb = p->polys[b].n, i = 0, j = 0, n = 0;
    if (nb == 0) return a;
    if (na == 0 && s == 1) return b;
    term out[2 * MAX_TERMS];
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : mono_cmp(p, ta[i].mono, tb[j].mono);
        int64_t cb = 0;
        if (c >= 0 && __builtin_mul_overflow(tb[j].coef, s, &cb)) return MEMPLAN_EXPR_NONE;
        if (c < 0) {
            out[n++] = ta[i++];
            continue;
        }
        if (c > 0) {
            out[n++] = (term){cb, tb[j++].mono};
            continue;
        }
        int64_t sum;
        if (__builtin_add_overflow(ta[i].coef, cb, &sum)) return MEMPLAN_EXPR_NONE;
        if (sum) out[n++] = (term){sum, ta[i].mono};
        i++, j++;
    }
    return intern_poly(p, out, n);
}

memplan_expr memplan_expr_add(memplan_expr_pool *p, memplan_expr a, memplan_expr b) { return add_scaled(p, a, b, 1); }

memplan_expr memplan_expr_sub(memplan_expr_pool *p, memplan_expr a, memplan_expr b) {
    if (a == b && valid(p, a)) return memplan_expr_const(p, 0);
    return add_scaled(p, a, b, -1);
}

/* k * a; NONE on overflow. */
static memplan_expr scale(memplan_expr_pool *p, memplan_expr a, int64_t k) {
    if (!valid(p, a)) return MEMPLAN_EXPR_NONE;
    if (k == 1) return a;
    if (k == 0) return memplan_expr_const(p, 0);
    const term *t = p->polys[a].t;
    int32_t n = p->polys[a].n;
    term out[MAX_TERMS];
    for (int32_t i = 0; i < n; i++) {
        out[i].mono = t[i].mono;
        if (__builtin_mul_overflow(t[i].coef, k, &out[i].coef)) return MEMPLAN_EXPR_NONE;
    }
    return intern_poly(p, out, n);
}

memplan_expr memplan_expr_neg(memplan_expr_pool *p, memplan_expr a) { return scale(p, a, -1); }

/* Stable bottom-up merge sort of terms by monomial, using tmp (same size). */
static void sort_terms(const memplan_expr_pool *p, term *t, term *tmp, size_t n) {
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = mono_cmp(p, t[j].mono, t[i].mono) < 0 ? t[j++] : t[i++];
            while (i < mid) tmp[k++] = t[i++];
            while (j < hi) tmp[k++] = t[j++];
        }
        memcpy(t, tmp, n * sizeof *t);
    }
}

memplan_expr memplan_expr_mul(memplan_expr_pool *p, memplan_expr a, memplan_expr b) {
    int64_t k;
    if (!valid(p, a) || !valid(p, b)) return MEMPLAN_EXPR_NONE;
    if (memplan_expr_is_const(p, a, &k)) return scale(p, b, k);
    if (memplan_expr_is_const(p, b, &k)) return scale(p, a, k);
    if (!p->mulbuf) {
        p->mulbuf = malloc(2 * (size_t)MAX_TERMS * MAX_TERMS * sizeof *p->mulbuf);
        if (!p->mulbuf) return MEMPLAN_EXPR_NONE;
    }
    const term *ta = p->polys[a].t, *tb = p->polys[b].t;
    int32_t na = p->polys[a].n, nb = p->polys[b].n;
    term *prod = p->mulbuf, *tmp = p->mulbuf + (size_t)MAX_TERMS * MAX_TERMS;
    size_t n = 0;
    for (int32_t i = 0; i < na; i++) {
        for (int32_t j = 0; j < nb; j++) {
            int32_t m = mono_mul(p, ta[i].mono, tb[j].mono);
            if (m < 0 || __builtin_mul_overflow(ta[i].coef, tb[j].coef, &prod[n].coef)) return MEMPLAN_EXPR_NONE;
            prod[n++].mono = m;
        }
    }
    sort_terms(p, prod, tmp, n);
    size_t out = 0; /* combine equal monomials, drop zeros */
    for (size_t i = 0; i < n;) {
        term acc = prod[i++];
        while (i < n && prod[i].mono == acc.mono)
            if (__builtin_add_overflow(acc.coef, prod[i++].coef, &acc.coef)) return MEMPLAN_EXPR_NONE;
        if (acc.coef) prod[out++] = acc;
    }
    if (out > MAX_TERMS) return MEMPLAN_EXPR_NONE;
    return intern_poly(p, prod, (int32_t)out);
}

/* ------------------------------------------------------ floordiv and mod */

/* a // c or a % c for a constant c > 0, in canonical form. Split every
 * coefficient k = c*q + r (0 <= r < c): a = c*Q + R, so a//c = Q + R//c and
 * a%c = R%c. A constant R (0 <= R < c) folds. Then g = gcd(c, R's
 * coefficients) cancels: R//c = (R/g)//(c/g), R%c = g*((R/g)%(c/g)). Nested
 * constant divisions merge: (x//c1)//c2 = x//(c1*c2); (x%c1)%c2 = x%c2 when
 * c2 divides c1, and = x%c1 when c2 >= c1. */
static memplan_expr divmod_const(memplan_expr_pool *p, memplan_expr a, int64_t c, bool is_mod) {
    if (!valid(p, a)) return MEMPLAN_EXPR_NONE;
    const term *t = p->polys[a].t;
    int32_t n = p->polys[a].n, nq = 0, nr = 0;
    term q[MAX_TERMS] = {{0}}, r[MAX_TERMS]; /* q zeroed: -fno-inline builds warn when nq is 0 */
    int64_t g = c;
    for (int32_t i = 0; i < n; i++) {
        int64_t fq = 0, fr = 0;
        floordiv_i64(t[i].coef, c, &fq);
        mod_i64(t[i].coef, c, &fr);
        if (fq) q[nq++] = (term){fq, t[i].mono};
        if (fr) {
            r[nr++] = (term){fr, t[i].mono};
            g = gcd_i64(g, fr);
        }
    }
    bool r_const = nr == 0 || (nr == 1 && r[0].mono == 0);
    if (is_mod && r_const) return memplan_expr_const(p, nr ? r[0].coef : 0);
    memplan_expr qe = is_mod ? MEMPLAN_EXPR_NONE : intern_poly(p, q, nq);
    if (!is_mod && r_const) return qe;
    for (int32_t i = 0; i < nr; i++) r[i].coef /= g;
    int64_t d = c / g;
    memplan_expr re = intern_poly(p, r, nr), inner;
    if (re == MEMPLAN_EXPR_NONE) return MEMPLAN_EXPR_NONE;
    /* A lone inner division by a positive constant? */
    const mono *m = &p->monos[r[0].mono];
    const atom *in = nr == 1 && r[0].coef == 1 && m->n == 1 && m->f[0].exp == 1 ? &p->atoms[m->f[0].atom] : NULL;
    int64_t c1 = 0, cc;
    bool nested = in && in->kind == (is_mod ? A_MOD : A_FLOORDIV) && memplan_expr_is_const(p, in->b, &c1) && c1 > 0;
    if (nested && !is_mod && !__builtin_mul_overflow(c1, d, &cc)) {
        inner = divmod_const(p, in->a, cc, false);
    } else if (nested && is_mod && c1 % d == 0) {
        inner = divmod_const(p, in->a, d, true);
    } else if (nested && is_mod && d >= c1) {
        inner = re;
    } else {
        atom_key k = {is_mod ? A_MOD : A_FLOORDIV, re, memplan_expr_const(p, d), NULL};
        if (k.b == MEMPLAN_EXPR_NONE) return MEMPLAN_EXPR_NONE;
        inner = atom_poly(p, &k);
    }
    return is_mod ? scale(p, inner, g) : memplan_expr_add(p, qe, inner);
}

/* Shared by floordiv and mod: constants fold with Python semantics, a
 * negative constant divisor flips signs, x//1 = x, x%1 = 0, 0//x = 0%x = 0. */
static memplan_expr divmod(memplan_expr_pool *p, memplan_expr a, memplan_expr b, bool is_mod) {
    int64_t x = 0, y = 0, v = 0;
    if (!valid(p, a) || !valid(p, b)) return MEMPLAN_EXPR_NONE;
    bool ca = memplan_expr_is_const(p, a, &x), cb = memplan_expr_is_const(p, b, &y);
    if (cb && y == 0) return MEMPLAN_EXPR_NONE;
    if (ca && cb) {
        if (!(is_mod ? mod_i64(x, y, &v) : floordiv_i64(x, y, &v))) return MEMPLAN_EXPR_NONE;
        return memplan_expr_const(p, v);
    }
    if (ca && x == 0) return a;
    if (cb && y < 0) { /* a//c = (-a)//(-c);  a%c = -((-a)%(-c)) */
        if (y == INT64_MIN) return MEMPLAN_EXPR_NONE;
        memplan_expr r = divmod_const(p, memplan_expr_neg(p, a), -y, is_mod);
        return is_mod ? memplan_expr_neg(p, r) : r;
    }
    if (cb) return divmod_const(p, a, y, is_mod);
    atom_key k = {is_mod ? A_MOD : A_FLOORDIV, a, b, NULL};
    return atom_poly(p, &k);
}

memplan_expr memplan_expr_floordiv(memplan_expr_pool *p, memplan_expr a, memplan_expr b) {
    return divmod(p, a, b, false);
}

memplan_expr memplan_expr_mod(memplan_expr_pool *p, memplan_expr a, memplan_expr b) { return divmod(p, a, b, true); }

memplan_expr memplan_expr_ceildiv(memplan_expr_pool *p, memplan_expr a, memplan_expr b) {
    int64_t c;
    if (!valid(p, a) || !valid(p, b)) return MEMPLAN_EXPR_NONE;
    if (memplan_expr_is_const(p, b, &c) && c > 0) { /* (a + c - 1) // c */
        memplan_expr r = memplan_expr_floordiv(p, memplan_expr_add(p, a, memplan_expr_const(p, c - 1)), b);
        if (r != MEMPLAN_EXPR_NONE) return r;
    }
    return memplan_expr_neg(p, memplan_expr_floordiv(p, memplan_expr_neg(p, a), b));
}

/* ------------------------------------------------------------- max, min */

/* True (and *k = a - b) when a - b is a constant. */
static bool diff_const(const memplan_expr_pool *p, memplan_expr a, memplan_expr b, int64_t *k) {
    const poly *x = &p->polys[a], *y = &p->polys[b];
    int32_t nx = x->n, ny = y->n;
    int64_t cx = 0, cy = 0;
    if (nx && x->t[nx - 1].mono == 0) cx = x->t[--nx].coef;
    if (ny && y->t[ny - 1].mono == 0) cy = y->t[--ny].coef;
    if (nx != ny) return false;
    for (int32_t i = 0; i < nx; i++)
        if (x->t[i].coef != y->t[i].coef || x->t[i].mono != y->t[i].mono) return false;
    return !__builtin_sub_overflow(cx, cy, k);
}

/* True (with the atom's kind and operands, and *k) when e is one max or min
 * atom plus a constant: max(x,y)+k. */
static bool minmax_plus(const memplan_expr_pool *p, memplan_expr e, atom_kind *kind, memplan_expr *x, memplan_expr *y,
                        int64_t *k) {
    const poly *q = &p->polys[e];
    int32_t n = q->n;
    *k = 0;
    if (n && q->t[n - 1].mono == 0) *k = q->t[--n].coef;
    if (n != 1 || q->t[0].coef != 1) return false;
    const mono *m = &p->monos[q->t[0].mono];
    if (m->n != 1 || m->f[0].exp != 1) return false;
    const atom *a = &p->atoms[m->f[0].atom];
    if (a->kind != A_MAX && a->kind != A_MIN) return false;
    *kind = a->kind;
    *x = a->a;
    *y = a->b;
    return true;
}

/* a <= b for every integer value of the names, shown by the lattice laws:
 * a constant difference, then min(x,y)+k <= b when x+k <= b or y+k <= b,
 * max(x,y)+k <= b when both are, and the duals on b's side. So
 * min(a,b) <= a (absorption: max(min(a,b),a) = a) and min(x,8) <= 10.
 * budget bounds the work on deep nestings; false when it cannot tell. */
static bool le_all(memplan_expr_pool *p, memplan_expr a, memplan_expr b, int *budget) {
    int64_t k;
    if (!valid(p, a) || !valid(p, b)) return false;
    if (diff_const(p, a, b, &k)) return k <= 0;
    if (--*budget < 0) return false;
    atom_kind kind;
    memplan_expr x, y;
    if (minmax_plus(p, a, &kind, &x, &y, &k)) {
        memplan_expr kc = memplan_expr_const(p, k);
        memplan_expr xk = memplan_expr_add(p, x, kc), yk = memplan_expr_add(p, y, kc);
        if (kind == A_MIN && (le_all(p, xk, b, budget) || le_all(p, yk, b, budget))) return true;
        if (kind == A_MAX && le_all(p, xk, b, budget) && le_all(p, yk, b, budget)) return true;
    }
    if (minmax_plus(p, b, &kind, &x, &y, &k)) {
        memplan_expr kc = memplan_expr_const(p, k);
        memplan_expr xk = memplan_expr_add(p, x, kc), yk = memplan_expr_add(p, y, kc);
        if (kind == A_MAX && (le_all(p, a, xk, budget) || le_all(p, a, yk, budget))) return true;
        if (kind == A_MIN && le_all(p, a, xk, budget) && le_all(p, a, yk, budget)) return true;
    }
    return false;
}

/* max/min: when one argument is <= the other for every value (le_all: a
 * constant difference, so max(a,a) = a and constants fold; absorption; a
 * bound from a min or max with a constant) the answer is that one;
 * otherwise the arguments are ordered non-constant first, then by printed
 * text. */
static memplan_expr minmax(memplan_expr_pool *p, memplan_expr a, memplan_expr b, bool is_max) {
    int64_t k;
    if (!valid(p, a) || !valid(p, b)) return MEMPLAN_EXPR_NONE;
    if (diff_const(p, a, b, &k)) return (is_max ? k >= 0 : k <= 0) ? a : b;
    int budget = 16;
    if (le_all(p, a, b, &budget)) return is_max ? b : a;
    budget = 16;
    if (le_all(p, b, a, &budget)) return is_max ? a : b;
    if (!valid(p, a) || !valid(p, b)) return MEMPLAN_EXPR_NONE;
    bool ca = memplan_expr_is_const(p, a, NULL), cb = memplan_expr_is_const(p, b, NULL);
    if (ca > cb || (ca == cb && strcmp(p->polys[a].text, p->polys[b].text) > 0)) {
        memplan_expr t = a;
        a = b;
        b = t;
    }
    atom_key key = {is_max ? A_MAX : A_MIN, a, b, NULL};
    return atom_poly(p, &key);
}

memplan_expr memplan_expr_max(memplan_expr_pool *p, memplan_expr a, memplan_expr b) { return minmax(p, a, b, true); }

memplan_expr memplan_expr_min(memplan_expr_pool *p, memplan_expr a, memplan_expr b) { return minmax(p, a, b, false); }

/* ------------------------------------------- sign when dims are >= 0 */

static bool poly_nonneg(const memplan_expr_pool *p, memplan_expr e);

/* Atoms nest at most MAX_DEPTH deep, which bounds the recursion. */
static bool atom_nonneg(const memplan_expr_pool *p, int32_t id) {
    const atom *a = &p->atoms[id];
    switch (a->kind) {
    case A_SYM: return true;
    case A_MAX: return poly_nonneg(p, a->a) || poly_nonneg(p, a->b);
    case A_MIN: return poly_nonneg(p, a->a) && poly_nonneg(p, a->b);
    case A_FLOORDIV: return poly_nonneg(p, a->a) && poly_nonneg(p, a->b); /* b = 0: undefined */
    case A_MOD: return poly_nonneg(p, a->b);                              /* Python: sign of b */
    }
    return false;
}

static bool poly_nonneg(const memplan_expr_pool *p, memplan_expr e) {
    const poly *x = &p->polys[e];
    for (int32_t i = 0; i < x->n; i++) {
        if (x->t[i].coef < 0) return false;
        const mono *m = &p->monos[x->t[i].mono];
        for (int32_t j = 0; j < m->n; j++)
            if (m->f[j].exp % 2 != 0 && !atom_nonneg(p, m->f[j].atom)) return false;
    }
    return true;
}

bool memplan_expr_nonneg(const memplan_expr_pool *p, memplan_expr e) { return valid(p, e) && poly_nonneg(p, e); }

const char *memplan_expr_str(memplan_expr_pool *p, memplan_expr e) { return valid(p, e) ? p->polys[e].text : "?"; }

/* ------------------------------------------------ memo: atom id -> int64 */

/* A small open-addressing map used by one names/bind/eval call so that a
 * shared sub-expression is visited once (work stays linear in the DAG). */
typedef struct memo {
    int32_t *key; /* atom id + 1; 0 = empty */
    int64_t *val;
    uint32_t cap, count;
    bool failed;
} memo;

static bool memo_get(const memo *m, int32_t k, int64_t *v) {
    if (m->cap == 0) return false;
    for (uint32_t i = (uint32_t)mix(0, (uint64_t)k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->key[i] == 0) return false;
        if (m->key[i] == k + 1) {
            *v = m->val[i];
            return true;
        }
    }
}

static void memo_put(memo *m, int32_t k, int64_t v) {
    if ((m->count + 1) * 2 > m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 32;
        int32_t *key = calloc(cap, sizeof *key);
        int64_t *val = calloc(cap, sizeof *val);
        if (!key || !val) {
            free(key);
            free(val);
            m->failed = true;
            return;
        }
        for (uint32_t i = 0; i < m->cap; i++) {
            if (!m->key[i]) continue;
            uint32_t j = (uint32_t)mix(0, (uint64_t)(m->key[i] - 1)) & (cap - 1);
            while (key[j]) j = (j + 1) & (cap - 1);
            key[j] = m->key[i];
            val[j] = m->val[i];
        }
        free(m->key);
        free(m->val);
        m->key = key;
        m->val = val;
        m->cap = cap;
    }
    uint32_t j = (uint32_t)mix(0, (uint64_t)k) & (m->cap - 1);
    while (m->key[j]) j = (j + 1) & (m->cap - 1);
    m->key[j] = k + 1;
    m->val[j] = v;
    m->count++;
}

static void memo_free(memo *m) {
    free(m->key);
    free(m->val);
}

/* The binding of name (raw or escaped), the last one when it is bound
 * twice; NULL if none. */
static const memplan_binding *lookup(const memplan_binding *b, size_t n, const char *name) {
    for (size_t i = n; i-- > 0;)
        if (b[i].name && memplan_expr_name_is(name, b[i].name)) return &b[i];
    return NULL;
}

/* ---------------------------------------------------------------- names */

typedef struct names_ctx {
    const memplan_expr_pool *p;
    memo seen;
    const char **list;
    size_t n, cap;
    bool failed;
} names_ctx;

static void collect_names(names_ctx *c, memplan_expr e) {
    const poly *q = &c->p->polys[e];
    int64_t unused;
    for (int32_t i = 0; i < q->n; i++) {
        const mono *m = &c->p->monos[q->t[i].mono];
        for (int32_t k = 0; k < m->n; k++) {
            int32_t id = m->f[k].atom;
            if (memo_get(&c->seen, id, &unused)) continue;
            memo_put(&c->seen, id, 1);
            const atom *x = &c->p->atoms[id];
            if (x->kind != A_SYM) {
                collect_names(c, x->a);
                collect_names(c, x->b);
                continue;
            }
            if (c->n == c->cap) {
                size_t cap = c->cap ? c->cap * 2 : 8;
                const char **l = realloc(c->list, cap * sizeof *l);
                if (!l) {
                    c->failed = true;
                    return;
                }
                c->list = l;
                c->cap = cap;
            }
            c->list[c->n++] = x->name;
        }
    }
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Fill c with the names of e, sorted. False when memory ran out. */
static bool names_of(const memplan_expr_pool *p, memplan_expr e, names_ctx *c) {
    memset(c, 0, sizeof *c);
    c->p = p;
    collect_names(c, e);
    if (c->n > 1) qsort(c->list, c->n, sizeof *c->list, cmp_names);
    return !c->failed && !c->seen.failed;
}

static void names_free(names_ctx *c) {
    memo_free(&c->seen);
    free(c->list);
}

size_t memplan_expr_names(memplan_expr_pool *p, memplan_expr e, const char **names, size_t max) {
    if (!valid(p, e)) return 0;
    names_ctx c;
    size_t n = 0;
    if (names_of(p, e, &c)) {
        n = c.n;
        for (size_t i = 0; i < n && i < max; i++) names[i] = c.list[i];
    }
    names_free(&c);
    return n;
}

/* ----------------------------------------------------------------- bind */

typedef struct bind_ctx {
    memplan_expr_pool *p;
    const memplan_binding *b;
    size_t n;
    memo done; /* atom id -> bound polynomial */
} bind_ctx;

static memplan_expr bind_poly(bind_ctx *c, memplan_expr e);

/* The polynomial "1*atom" of an existing atom. */
static memplan_expr atom_self(memplan_expr_pool *p, int32_t id) {
    const atom *x = &p->atoms[id];
    if (x->self != MEMPLAN_EXPR_NONE) return x->self;
    atom_key k = {x->kind, x->a, x->b, x->name};
    return atom_poly(p, &k);
}

static memplan_expr bind_atom(bind_ctx *c, int32_t id) {
    int64_t v;
    if (memo_get(&c->done, id, &v)) return (memplan_expr)v;
    atom x = c->p->atoms[id]; /* a copy: the array may move below */
    memplan_expr r;
    if (x.kind == A_SYM) {
        const memplan_binding *b = lookup(c->b, c->n, x.name);
        r = b ? memplan_expr_const(c->p, b->value) : atom_self(c->p, id);
    } else {
        memplan_expr a = bind_poly(c, x.a), b = bind_poly(c, x.b);
        if (a == x.a && b == x.b) r = atom_self(c->p, id);
        else if (x.kind == A_FLOORDIV)
            r = memplan_expr_floordiv(c->p, a, b);
        else if (x.kind == A_MOD)
            r = memplan_expr_mod(c->p, a, b);
        else if (x.kind == A_MAX)
            r = memplan_expr_max(c->p, a, b);
        else
            r = memplan_expr_min(c->p, a, b);
    }
    memo_put(&c->done, id, r);
    return r;
}

/* Rebuild e with every atom replaced by its bound form; e itself when
 * nothing changed. */
static memplan_expr bind_poly(bind_ctx *c, memplan_expr e) {
    if (!valid(c->p, e)) return MEMPLAN_EXPR_NONE;
    const term *t = c->p->polys[e].t; /* arena memory: stable */
    int32_t n = c->p->polys[e].n;
    bool changed = false;
    for (int32_t i = 0; i < n; i++) {
        const mono *m = &c->p->monos[t[i].mono];
        const factor *f = m->f;
        int32_t nf = m->n;
        for (int32_t k = 0; k < nf; k++)
            if (bind_atom(c, f[k].atom) != atom_self(c->p, f[k].atom)) changed = true;
    }
    if (!changed) return e;
    memplan_expr sum = memplan_expr_const(c->p, 0);
    for (int32_t i = 0; i < n; i++) {
        memplan_expr prod = memplan_expr_const(c->p, t[i].coef);
        const factor *f = c->p->monos[t[i].mono].f;
        int32_t nf = c->p->monos[t[i].mono].n;
        for (int32_t k = 0; k < nf; k++) {
            memplan_expr v = bind_atom(c, f[k].atom);
            for (int32_t x = 0; x < f[k].exp; x++) prod = memplan_expr_mul(c->p, prod, v);
        }
        sum = memplan_expr_add(c->p, sum, prod);
    }
    return sum;
}

memplan_expr memplan_expr_bind(memplan_expr_pool *p, memplan_expr e, const memplan_binding *b, size_t n) {
    if (!valid(p, e)) return MEMPLAN_EXPR_NONE;
    if (n == 0) return e;
    bind_ctx c = {p, b, n, {0}};
    memplan_expr r = bind_poly(&c, e);
    if (c.done.failed) r = MEMPLAN_EXPR_NONE;
    memo_free(&c.done);
    return r;
}

/* ----------------------------------------------------------------- eval */

typedef struct eval_ctx {
    const memplan_expr_pool *p;
    const memplan_binding *b;
    size_t n;
    memo done; /* atom id -> value */
    memplan_error *err;
    memplan_status status;
} eval_ctx;

static bool eval_fail(eval_ctx *c, memplan_status st, const char *what, const char *text) {
    c->status = memplan_error_set(c->err, st, "%s in '%.300s'", what, text);
    return false;
}

static bool eval_poly(eval_ctx *c, memplan_expr e, int64_t *out);

static bool eval_atom(eval_ctx *c, int32_t id, int64_t *out) {
    if (memo_get(&c->done, id, out)) return true;
    const atom *x = &c->p->atoms[id];
    int64_t a, b;
    if (x->kind == A_SYM) {
        const memplan_binding *bd = lookup(c->b, c->n, x->name);
        if (!bd) {
            c->status = memplan_error_set(c->err, MEMPLAN_EINPUT, "unbound dimension '%.300s'", x->name);
            return false;
        }
        *out = bd->value;
    } else {
        if (!eval_poly(c, x->a, &a) || !eval_poly(c, x->b, &b)) return false;
        if ((x->kind == A_FLOORDIV || x->kind == A_MOD) && b == 0)
            return eval_fail(c, MEMPLAN_EINPUT, "division by zero", x->text);
        if (x->kind == A_FLOORDIV && !floordiv_i64(a, b, out))
            return eval_fail(c, MEMPLAN_ELIMIT, "integer overflow", x->text);
        if (x->kind == A_MOD) mod_i64(a, b, out);
        if (x->kind == A_MAX) *out = a > b ? a : b;
        if (x->kind == A_MIN) *out = a < b ? a : b;
    }
    memo_put(&c->done, id, *out);
    return true;
}

static bool eval_poly(eval_ctx *c, memplan_expr e, int64_t *out) {
    const poly *q = &c->p->polys[e];
    int64_t sum = 0;
    for (int32_t i = 0; i < q->n; i++) {
        int64_t prod = q->t[i].coef, v = 0;
        const mono *m = &c->p->monos[q->t[i].mono];
        for (int32_t k = 0; k < m->n; k++) {
            if (!eval_atom(c, m->f[k].atom, &v)) return false;
            for (int32_t x = 0; x < m->f[k].exp; x++)
                if (__builtin_mul_overflow(prod, v, &prod))
                    return eval_fail(c, MEMPLAN_ELIMIT, "integer overflow", q->text);
        }
        if (__builtin_add_overflow(sum, prod, &sum)) return eval_fail(c, MEMPLAN_ELIMIT, "integer overflow", q->text);
    }
    *out = sum;
    return true;
}

memplan_status memplan_expr_eval(memplan_expr_pool *p, memplan_expr e, const memplan_binding *b, size_t n, int64_t *out,
                                 memplan_error *err) {
    if (!p || !out) return memplan_error_set(err, MEMPLAN_EUSAGE, "memplan_expr_eval: no pool or no output");
    if (!valid(p, e)) return memplan_error_set(err, MEMPLAN_EINPUT, "the amount is unknown");
    /* Unbound names first, in names() order, so the message is predictable. */
    names_ctx nc;
    if (!names_of(p, e, &nc)) {
        names_free(&nc);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory evaluating an amount");
    }
    const char *first = NULL;
    size_t unbound = 0;
    for (size_t i = 0; i < nc.n; i++)
        if (!lookup(b, n, nc.list[i]) && unbound++ == 0) first = nc.list[i];
    memplan_status st = MEMPLAN_OK;
    if (unbound == 1) st = memplan_error_set(err, MEMPLAN_EINPUT, "unbound dimension '%.300s'", first);
    else if (unbound > 1)
        st = memplan_error_set(err, MEMPLAN_EINPUT, "unbound dimension '%.300s' (and %zu more)", first, unbound - 1);
    names_free(&nc);
    if (st != MEMPLAN_OK) return st;
    eval_ctx c = {p, b, n, {0}, err, MEMPLAN_OK};
    int64_t v;
    if (eval_poly(&c, e, &v)) *out = v;
    if (c.status == MEMPLAN_OK && c.done.failed)
        c.status = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory evaluating an amount");
    memo_free(&c.done);
    return c.status;
}

/* --------------------------------------------------------------- parser */

/* Recursive descent over the grammar in expr.h. Every combination goes
 * through the public constructors, so the result is canonical. */
typedef struct parser {
    memplan_expr_pool *p;
    const char *s;
    size_t pos;
    int nest;
    memplan_error *err;
    bool failed;
} parser;

/* Record the first error, at byte offset `at`; returns NONE. */
static memplan_expr perr(parser *ps, size_t at, memplan_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static memplan_expr perr(parser *ps, size_t at, memplan_status st, const char *fmt, ...) {
    if (!ps->failed) {
        char msg[MEMPLAN_ERROR_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        memplan_error_set(ps->err, st, "offset %zu: %s", at, msg);
    }
    ps->failed = true;
    return MEMPLAN_EXPR_NONE;
}

/* What is at the cursor, for messages: "'x'", "end of input" or "byte 0xNN". */
static const char *describe(const parser *ps, char *buf, size_t cap) {
    unsigned char c = (unsigned char)ps->s[ps->pos];
    if (c == 0) snprintf(buf, cap, "end of input");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(buf, cap, "'%c'", c);
    else
        snprintf(buf, cap, "byte 0x%02x", c);
    return buf;
}

static void skip_ws(parser *ps) {
    while (ps->s[ps->pos] == ' ' || ps->s[ps->pos] == '\t' || ps->s[ps->pos] == '\n' || ps->s[ps->pos] == '\r')
        ps->pos++;
}

/* An operation's result: NONE without a syntax error means the amount
 * overflowed, divided by zero or went past a size limit. */
static memplan_expr checked(parser *ps, memplan_expr r, size_t at) {
    if (r == MEMPLAN_EXPR_NONE && !ps->failed)
        perr(ps, at, MEMPLAN_EINPUT, "the amount is unknown (overflow, division by zero or a size limit)");
    return ps->failed ? MEMPLAN_EXPR_NONE : r;
}

/* Consume the character c (after spaces) or fail with "expected 'c'". */
static bool expect(parser *ps, char c) {
    char buf[32];
    skip_ws(ps);
    if (ps->s[ps->pos] == c) {
        ps->pos++;
        return true;
    }
    perr(ps, ps->pos, MEMPLAN_EINPUT, "expected '%c' but found %s", c, describe(ps, buf, sizeof buf));
    return false;
}

static memplan_expr parse_expr(parser *ps);

/* A decimal literal; with neg, its negation (which allows -2^63). */
static memplan_expr parse_int(parser *ps, bool neg) {
    size_t at = ps->pos;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (is_digit((unsigned char)ps->s[ps->pos])) {
        uint64_t d = (uint64_t)(ps->s[ps->pos++] - '0');
        if (v > (limit - d) / 10) return perr(ps, at, MEMPLAN_EINPUT, "integer literal out of the 64-bit range");
        v = v * 10 + d;
    }
    int64_t x = neg ? (v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return checked(ps, memplan_expr_const(ps->p, x), at);
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A NAME token [at, end): plain, or the escape "_0x" + hex of the bytes. */
static memplan_expr parse_name(parser *ps, size_t at, size_t end) {
    char name[MAX_NAME + 1];
    size_t len = end - at, n = 0;
    const char *s = ps->s + at;
    if (len >= 3 && strncmp(s, ESCAPE_PREFIX, 3) == 0) {
        if (len == 3 || (len - 3) % 2 || (len - 3) / 2 > MAX_NAME)
            return perr(ps, at, MEMPLAN_EINPUT,
                        "bad escaped name: '_0x' must be followed by an even number of hex digits");
        for (size_t i = 3; i < len; i += 2) {
            int hi = hexval((unsigned char)s[i]), lo = hexval((unsigned char)s[i + 1]);
            if (hi < 0 || lo < 0 || (hi | lo) == 0)
                return perr(ps, at + i, MEMPLAN_EINPUT, "bad escaped name: expected two hex digits of a non-zero byte");
            name[n++] = (char)(hi * 16 + lo);
        }
    } else {
        if (len > MAX_NAME) return perr(ps, at, MEMPLAN_ELIMIT, "name too long");
        memcpy(name, s, len);
        n = len;
    }
    name[n] = '\0';
    return checked(ps, memplan_expr_sym(ps->p, name), at);
}

/* primary := INT | NAME | max(expr,expr) | min(expr,expr) | '(' expr ')' */
static memplan_expr parse_primary(parser *ps) {
    char buf[32];
    skip_ws(ps);
    size_t at = ps->pos;
    unsigned char c = (unsigned char)ps->s[at];
    if (is_digit(c)) return parse_int(ps, false);
    if (c == '(') {
        ps->pos++;
        memplan_expr e = parse_expr(ps);
        return ps->failed || !expect(ps, ')') ? MEMPLAN_EXPR_NONE : e;
    }
    if (!is_alpha_(c))
        return perr(ps, at, MEMPLAN_EINPUT, "expected a number, a name or '(' but found %s",
                    describe(ps, buf, sizeof buf));
    size_t end = at;
    while (is_alnum_((unsigned char)ps->s[end])) end++;
    ps->pos = end;
    bool is_max = end - at == 3 && strncmp(ps->s + at, "max", 3) == 0;
    bool is_min = end - at == 3 && strncmp(ps->s + at, "min", 3) == 0;
    if (!is_max && !is_min) return parse_name(ps, at, end);
    if (!expect(ps, '(')) return MEMPLAN_EXPR_NONE;
    memplan_expr a = parse_expr(ps);
    if (ps->failed || !expect(ps, ',')) return MEMPLAN_EXPR_NONE;
    memplan_expr b = parse_expr(ps);
    if (ps->failed || !expect(ps, ')')) return MEMPLAN_EXPR_NONE;
    return checked(ps, is_max ? memplan_expr_max(ps->p, a, b) : memplan_expr_min(ps->p, a, b), at);
}

/* unary := '-' unary | primary   (unary minus binds tighter than * // %) */
static memplan_expr parse_unary(parser *ps) {
    skip_ws(ps);
    if (ps->s[ps->pos] != '-') return parse_primary(ps);
    size_t at = ps->pos++;
    skip_ws(ps);
    if (is_digit((unsigned char)ps->s[ps->pos])) return parse_int(ps, true);
    if (++ps->nest > MAX_NEST) return perr(ps, at, MEMPLAN_ELIMIT, "expression nested too deeply");
    memplan_expr e = parse_unary(ps);
    ps->nest--;
    return ps->failed ? MEMPLAN_EXPR_NONE : checked(ps, memplan_expr_neg(ps->p, e), at);
}

/* term := unary (('*' | '//' | '%') unary)*   (left to right) */
static memplan_expr parse_term(parser *ps) {
    memplan_expr a = parse_unary(ps);
    while (!ps->failed) {
        skip_ws(ps);
        size_t at = ps->pos;
        const char *s = ps->s + at;
        char op = s[0];
        if (op == '*' && s[1] == '*')
            return perr(ps, at, MEMPLAN_EINPUT, "'**' is not in the grammar (write repeated factors)");
        if (op == '/' && s[1] != '/')
            return perr(ps, at, MEMPLAN_EINPUT, "'/' is not in the grammar (floor division is '//')");
        if (op != '*' && op != '/' && op != '%') break;
        ps->pos += op == '/' ? 2 : 1;
        memplan_expr b = parse_unary(ps);
        if (ps->failed) break;
        a = checked(ps,
                    op == '*'   ? memplan_expr_mul(ps->p, a, b)
                    : op == '/' ? memplan_expr_floordiv(ps->p, a, b)
                                : memplan_expr_mod(ps->p, a, b),
                    at);
    }
    return ps->failed ? MEMPLAN_EXPR_NONE : a;
}

/* expr := term (('+' | '-') term)* */
static memplan_expr parse_expr(parser *ps) {
    if (++ps->nest > MAX_NEST) return perr(ps, ps->pos, MEMPLAN_ELIMIT, "expression nested too deeply");
    memplan_expr a = parse_term(ps);
    while (!ps->failed) {
        skip_ws(ps);
        size_t at = ps->pos;
        char op = ps->s[at];
        if (op != '+' && op != '-') break;
        ps->pos++;
        memplan_expr b = parse_term(ps);
        if (ps->failed) break;
        a = checked(ps, op == '+' ? memplan_expr_add(ps->p, a, b) : memplan_expr_sub(ps->p, a, b), at);
    }
    ps->nest--;
    return ps->failed ? MEMPLAN_EXPR_NONE : a;
}

memplan_expr memplan_expr_parse(memplan_expr_pool *p, const char *text, memplan_error *err) {
    if (!p || !text) {
        memplan_error_set(err, MEMPLAN_EUSAGE, "memplan_expr_parse: no pool or no text");
        return MEMPLAN_EXPR_NONE;
    }
    parser ps = {p, text, 0, 0, err, false};
    char buf[32];
    memplan_expr e = parse_expr(&ps);
    if (ps.failed) return MEMPLAN_EXPR_NONE;
    skip_ws(&ps);
    if (text[ps.pos] != '\0')
        return perr(&ps, ps.pos, MEMPLAN_EINPUT, "expected an operator or the end but found %s",
                    describe(&ps, buf, sizeof buf));
    return e;
}
