/*
 * infer.c -- the shape inference driver and the rule context.
 *
 * For each graph (main graph first; subgraphs when their owner's rule asks):
 * inputs, initializers and captures get their shapes; then nodes run in
 * order, each through its op rule (registry below), and outputs a rule left
 * alone fall back to their declared types. Hints refine and are checked.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes/dims.h"
#include "shapes/rules.h"
#include "shapes/scratch.h"
#include "util/arena.h"
#include "util/strmap.h"

struct memplan_shapes {
    mp_arena arena;
    mp_scratch scratch; /* the rules' temporary arrays (scratch.h) */
    memplan_expr_pool *pool;
    const memplan_model *model;
    int32_t n_graphs;
    memplan_vshape **per_graph; /* [graph id] -> one shape per value, or NULL */
    char **notes;
    size_t n_notes, cap_notes;
    struct conflict *conflicts; /* notes of dims that cannot agree (mp_conflict) */
    size_t n_conflicts, cap_conflicts;
    mp_dims dims;                   /* bindable input dims, fresh dims (dims.h) */
    mp_strmap no_rule;              /* "domain:op" -> index in no_rule_ops */
    struct no_rule_op *no_rule_ops; /* ops without a rule, first seen first, with node counts */
    size_t n_no_rule, cap_no_rule;
    int32_t cur_graph, cur_node; /* where a fresh dim is born now */
    mp_strmap rules;             /* "domain\x1Fop" -> index into ops */
    mp_strmap functions;         /* "domain\x1Fname\x1Foverload" -> index into model->functions (the first) */
    struct op_entry *ops;        /* the op's rule and evaluation, either may be NULL */
    size_t n_ops;
    int depth;                 /* subgraph recursion */
    const char *duplicate;     /* an op registered twice */
    memplan_binding *bindings; /* dim names bound from the start: a copy, names in the arena */
    size_t n_bindings;
    bool *binding_used;                /* per binding: some dim of the model took its value */
    const memplan_input_value *values; /* main-graph input values given by the user */
    size_t n_values;
    bool oom;
};

struct mp_sctx {
    memplan_shapes *S;
    const memplan_graph *g;
    const memplan_node *node;
    memplan_vshape *vals;   /* of g */
    bool *set;              /* outputs set by the rule */
    const char *first_note; /* the rule's first note (its message), or NULL */
};

/* An op without a rule and how many nodes have it. */
typedef struct no_rule_op {
    const char *op; /* "Op", or "domain:Op" outside the default domain */
    int64_t nodes;
} no_rule_op;

/* A conflict at node `node` of graph `graph`: notes[note]. */
typedef struct conflict {
    int32_t graph, node;
    size_t note;
} conflict;

/* ---- registry ---------------------------------------------------------- */

typedef struct op_entry {
    const mp_rule *rule;
    const mp_eval *eval;
} op_entry;

static const mp_rule *const FAMILIES[] = {
    mp_rules_elementwise, mp_rules_shape, mp_rules_control, mp_rules_reduce,
    mp_rules_nn,          mp_rules_quant, mp_rules_contrib, mp_rules_misc,
};

static const char *canonical_domain(const char *d) { return (!d || !d[0] || strcmp(d, "ai.onnx") == 0) ? "" : d; }

static char *rule_key(memplan_shapes *S, const char *domain, const char *op) {
    domain = canonical_domain(domain);
    size_t dl = strlen(domain), ol = strlen(op);
    char *k = mp_arena_alloc(&S->arena, dl + ol + 2);
    if (!k) return NULL;
    memcpy(k, domain, dl);
    k[dl] = '\x1f';
    memcpy(k + dl + 1, op, ol + 1);
    return k;
}

/* The entry of (domain, op), made when absent; NULL when memory runs out. */
static op_entry *entry_for(memplan_shapes *S, const char *domain, const char *op) {
    char *k = rule_key(S, domain, op);
    if (!k) return NULL;
    int32_t i = mp_strmap_get(&S->rules, k);
    if (i >= 0) return &S->ops[i];
    if (!mp_strmap_put(&S->rules, k, (int32_t)S->n_ops)) return NULL;
    S->ops[S->n_ops].rule = NULL;
    S->ops[S->n_ops].eval = NULL;
    return &S->ops[S->n_ops++];
}

static bool build_registry(memplan_shapes *S) {
    size_t n = 0;
    for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++)
        for (const mp_rule *r = FAMILIES[f]; r->op; r++) n++;
    for (const mp_eval *e = mp_evals; e->op; e++) n++;
    S->ops = mp_arena_array(&S->arena, n ? n : 1, sizeof *S->ops);
    if (!S->ops) return false;
    for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++)
        for (const mp_rule *r = FAMILIES[f]; r->op; r++) {
            op_entry *o = entry_for(S, r->domain, r->op);
            if (!o) return false;
            if (o->rule) { /* two families claim one op: a bug */
                S->duplicate = r->op;
                return false;
            }
            o->rule = r;
        }
    for (const mp_eval *e = mp_evals; e->op; e++) {
        op_entry *o = entry_for(S, e->domain, e->op);
        if (!o) return false;
        if (o->eval || !o->rule) { /* listed twice, or an evaluation without a rule: a bug */
            S->duplicate = e->op;
            return false;
        }
        o->eval = e;
    }
    return true;
}

/* "domain\x1Fop" in scratch memory (not on the stack: run_node recurses
 * once per subgraph level); NULL when out of memory. */
static char *op_key(memplan_shapes *S, const char *domain, const char *op) {
    const char *d = canonical_domain(domain);
    size_t dl = strlen(d), ol = strlen(op);
    char *key = mp_scratch_alloc(&S->scratch, dl + ol + 2, 1);
    if (!key) {
        S->oom = true;
        return NULL;
    }
    memcpy(key, d, dl);
    key[dl] = '\x1f';
    memcpy(key + dl + 1, op, ol + 1);
    return key;
}

static const op_entry *find_op(memplan_shapes *S, const memplan_node *n) {
    if (strlen(n->domain) + strlen(n->op_type) + 2 > 512) return NULL; /* longer than any registered op */
    mp_scratch_mark mark = mp_scratch_top(&S->scratch);
    char *key = op_key(S, n->domain, n->op_type);
    int32_t i = key ? mp_strmap_get(&S->rules, key) : -1;
    mp_scratch_release(&S->scratch, mark);
    return i >= 0 ? &S->ops[i] : NULL;
}

/* The key of a model-local function, "domain\x1Fname\x1Foverload" (the
 * loader's: a call is linked to the function of its domain, name and
 * overload), in the arena to keep (`keep`) or in scratch to look up; NULL
 * when memory ran out. */
static char *function_key(memplan_shapes *S, const char *domain, const char *name, const char *overload, bool keep) {
    domain = canonical_domain(domain);
    size_t len = mp_strmap_key3(NULL, domain, name, overload);
    char *k = keep ? mp_arena_alloc(&S->arena, len) : mp_scratch_alloc(&S->scratch, len, 1);
    if (!k) {
        S->oom = true;
        return NULL;
    }
    mp_strmap_key3(k, domain, name, overload);
    return k;
}

/* S->functions: each model-local function by its key (the first of a key
 * wins, as the loader's link). */
static bool index_functions(memplan_shapes *S) {
    for (int32_t f = 0; f < S->model->n_functions; f++) {
        const memplan_function *fn = &S->model->functions[f];
        char *key = function_key(S, fn->domain, fn->name, fn->overload, true); /* the map keeps it */
        if (!key) return false;
        if (mp_strmap_get(&S->functions, key) < 0 && !mp_strmap_put(&S->functions, key, f)) return false;
    }
    return true;
}

/* ---- notes ------------------------------------------------------------- */

static void add_note(memplan_shapes *S, const char *text) {
    if (S->n_notes == S->cap_notes) {
        size_t cap = S->cap_notes ? S->cap_notes * 2 : 16;
        char **p = realloc(S->notes, cap * sizeof *p);
        if (!p) {
            S->oom = true;
            return;
        }
        S->notes = p;
        S->cap_notes = cap;
    }
    char *copy = mp_arena_strdup(&S->arena, text);
    if (!copy) {
        S->oom = true;
        return;
    }
    S->notes[S->n_notes++] = copy;
}

/* ---- shapes ------------------------------------------------------------ */

/* dims of scalars and unranked values: never NULL, so rules may copy 0 dims. */
static const memplan_expr NO_DIMS[1] = {MEMPLAN_EXPR_NONE};

static memplan_expr fresh_dim(memplan_shapes *S) {
    memplan_expr e = mp_dims_fresh(&S->dims, S->cur_graph, S->cur_node);
    if (e == MEMPLAN_EXPR_NONE) S->oom = true;
    return e;
}

/* A named dim: its bound value (a binding names it raw or escaped as amounts
 * print it), or the name itself. */
static memplan_expr param_dim(memplan_shapes *S, const char *name) {
    for (size_t i = S->n_bindings; i-- > 0;) /* the last binding of a name wins */
        if (memplan_expr_name_is(name, S->bindings[i].name)) {
            S->binding_used[i] = true;
            return memplan_expr_const(S->pool, S->bindings[i].value);
        }
    return memplan_expr_sym(S->pool, name);
}

/* Whether binding i binds nothing: no dim of the model took the value of
 * any binding of its name. Only the first binding of a name is asked for
 * (a name bound twice is said once). */
static bool binding_unused(const memplan_shapes *S, size_t i) {
    for (size_t j = 0; j < S->n_bindings; j++)
        if (strcmp(S->bindings[j].name, S->bindings[i].name) == 0 && (S->binding_used[j] || j < i)) return false;
    return true;
}

/* The caller's bindings, copied into S's arena: memplan_shapes_binding_taken
 * reads them after inference, when the caller's array may be gone (a plan
 * with --upper-bounds replaces it). false when memory runs out. */
static bool own_bindings(memplan_shapes *S, const memplan_binding *b, size_t n) {
    S->bindings = mp_arena_array(&S->arena, n ? n : 1, sizeof *S->bindings);
    S->binding_used = mp_arena_array(&S->arena, n ? n : 1, sizeof *S->binding_used);
    if (!S->bindings || !S->binding_used) return false;
    for (size_t i = 0; i < n; i++) {
        S->bindings[i] = (memplan_binding){mp_arena_strdup(&S->arena, b[i].name), b[i].value};
        S->binding_used[i] = false;
        if (!S->bindings[i].name) return false;
    }
    S->n_bindings = n;
    return true;
}

/* bytes = ceil(elems * bits / 8), or NONE */
static memplan_expr bytes_of(memplan_shapes *S, const memplan_vshape *v) {
    if (v->kind != MEMPLAN_TYPE_TENSOR || v->rank < 0) return MEMPLAN_EXPR_NONE;
    unsigned bits = memplan_dtype_bits(v->elem_type);
    if (!bits) return MEMPLAN_EXPR_NONE;
    memplan_expr e = memplan_expr_const(S->pool, 1);
    for (int32_t i = 0; i < v->rank; i++) e = memplan_expr_mul(S->pool, e, v->dims[i]);
    if (bits % 8 == 0) return memplan_expr_mul(S->pool, e, memplan_expr_const(S->pool, bits / 8));
    e = memplan_expr_mul(S->pool, e, memplan_expr_const(S->pool, bits));
    return memplan_expr_ceildiv(S->pool, e, memplan_expr_const(S->pool, 8));
}

static void finish_shape(memplan_shapes *S, memplan_vshape *v) {
    v->bytes = bytes_of(S, v);
    if (v->bytes == MEMPLAN_EXPR_NONE && !v->reason) { /* generic: run_node names the node when it can */
        if (v->kind != MEMPLAN_TYPE_TENSOR) v->reason = v->kind == MEMPLAN_TYPE_NONE ? "no type known" : "not a tensor";
        else if (v->rank < 0)
            v->reason = "rank unknown";
        else if (!memplan_dtype_bits(v->elem_type))
            v->reason = v->elem_type == MEMPLAN_DTYPE_STRING ? "string tensor" : "element type unknown";
        else
            v->reason = "size overflows";
    }
}

/* The name of an input's dim without value or name: "input:axis". */
static memplan_expr input_dim(memplan_shapes *S, const char *input, int32_t axis) {
    size_t len = strlen(input) + 16;
    char *name = mp_arena_alloc(&S->arena, len);
    if (!name) {
        S->oom = true;
        return MEMPLAN_EXPR_NONE;
    }
    snprintf(name, len, "%s:%d", input, (int)axis);
    if (!mp_dims_add_input(&S->dims, name, input, axis)) S->oom = true;
    return param_dim(S, name);
}

/* The shape of a declared type. input: the main graph input it types (its
 * dims are the ones a user binds), or NULL. */
static void from_type(memplan_shapes *S, memplan_vshape *v, const memplan_type *t, memplan_origin origin,
                      const char *input) {
    memset(v, 0, sizeof *v);
    v->kind = t->kind;
    v->elem_type = t->elem_type;
    v->rank = t->rank;
    v->n_elems = -1;
    v->bytes = MEMPLAN_EXPR_NONE;
    v->dims = NO_DIMS;
    v->origin = t->kind == MEMPLAN_TYPE_NONE ? MEMPLAN_ORIGIN_NONE : origin;
    if (t->kind == MEMPLAN_TYPE_TENSOR || t->kind == MEMPLAN_TYPE_SPARSE_TENSOR) {
        if (t->rank > 0) {
            memplan_expr *dims = mp_arena_array(&S->arena, (size_t)t->rank, sizeof *dims);
            if (!dims) {
                S->oom = true;
                v->rank = -1;
                return;
            }
            for (int32_t i = 0; i < t->rank; i++) {
                const memplan_dim *d = &t->dims[i];
                if (input && d->kind == MEMPLAN_DIM_PARAM && !mp_dims_add_input(&S->dims, d->param, input, i))
                    S->oom = true;
                dims[i] = d->kind == MEMPLAN_DIM_VALUE   ? memplan_expr_const(S->pool, d->value)
                          : d->kind == MEMPLAN_DIM_PARAM ? param_dim(S, d->param)
                          : input                        ? input_dim(S, input, i)
                                                         : fresh_dim(S);
            }
            v->dims = dims;
        }
    } else {
        v->rank = -1;
    }
    finish_shape(S, v);
}

/* Element values of a small integer tensor, for partial evaluation. */
static void tensor_elems(memplan_shapes *S, memplan_vshape *v, const memplan_tensor *t) {
    if (!t || !t->data) return;
    unsigned bits = memplan_dtype_bits(t->elem_type);
    bool is_int = t->elem_type == MEMPLAN_DTYPE_INT64 || t->elem_type == MEMPLAN_DTYPE_INT32 ||
                  t->elem_type == MEMPLAN_DTYPE_INT16 || t->elem_type == MEMPLAN_DTYPE_INT8 ||
                  t->elem_type == MEMPLAN_DTYPE_UINT8 || t->elem_type == MEMPLAN_DTYPE_UINT16 ||
                  t->elem_type == MEMPLAN_DTYPE_UINT32 || t->elem_type == MEMPLAN_DTYPE_BOOL;
    if (!is_int) return;
    size_t n = t->data_len / (bits / 8);
    if (n > MEMPLAN_MAX_TRACKED_ELEMS) return;
    memplan_expr *e = mp_arena_array(&S->arena, n ? n : 1, sizeof *e);
    if (!e) {
        S->oom = true;
        return;
    }
    const unsigned char *p = t->data;
    for (size_t i = 0; i < n; i++) {
        int64_t x = 0;
        switch (t->elem_type) {
        case MEMPLAN_DTYPE_INT64: memcpy(&x, p + 8 * i, 8); break;
        case MEMPLAN_DTYPE_INT32: {
            int32_t y;
            memcpy(&y, p + 4 * i, 4);
            x = y;
            break;
        }
        case MEMPLAN_DTYPE_UINT32: {
            uint32_t y;
            memcpy(&y, p + 4 * i, 4);
            x = y;
            break;
        }
        case MEMPLAN_DTYPE_INT16: {
            int16_t y;
            memcpy(&y, p + 2 * i, 2);
            x = y;
            break;
        }
        case MEMPLAN_DTYPE_UINT16: {
            uint16_t y;
            memcpy(&y, p + 2 * i, 2);
            x = y;
            break;
        }
        case MEMPLAN_DTYPE_INT8: x = (int8_t)p[i]; break;
        default: x = p[i]; break;
        }
        e[i] = memplan_expr_const(S->pool, x);
    }
    v->n_elems = (int32_t)n;
    v->elems = e;
}

static void shape_of_tensor(memplan_shapes *S, memplan_vshape *v, const memplan_tensor *t) {
    memset(v, 0, sizeof *v);
    v->kind = MEMPLAN_TYPE_TENSOR;
    v->elem_type = t->elem_type;
    v->rank = t->rank;
    v->n_elems = -1;
    v->origin = MEMPLAN_ORIGIN_DECLARED;
    memplan_expr *dims = mp_arena_array(&S->arena, (size_t)(t->rank ? t->rank : 1), sizeof *dims);
    if (!dims) {
        S->oom = true;
        v->rank = -1;
        return;
    }
    for (int32_t i = 0; i < t->rank; i++) dims[i] = memplan_expr_const(S->pool, t->dims[i]);
    v->dims = dims;
    finish_shape(S, v);
    tensor_elems(S, v, t);
}

/* e is a lone fresh dim (unk__N) of this inference. */
static bool is_fresh(memplan_shapes *S, memplan_expr e) {
    const char *name;
    if (memplan_expr_is_const(S->pool, e, NULL) || memplan_expr_names(S->pool, e, &name, 1) != 1) return false;
    return memplan_expr_sym(S->pool, name) == e && mp_dims_birth(&S->dims, name);
}

/* Refine an inferred shape with the declared type; note conflicts. */
static void apply_hint(mp_sctx *c, memplan_vshape *v, const memplan_value *val) {
    if (!(val->flags & MEMPLAN_VALUE_DECLARED) || val->type.kind != MEMPLAN_TYPE_TENSOR) return;
    const memplan_type *t = &val->type;
    if (t->elem_type && v->elem_type && t->elem_type != v->elem_type)
        mp_note(c, "'%s': declared element type %s, inferred %s", val->name,
                memplan_dtype_name(t->elem_type) ? memplan_dtype_name(t->elem_type) : "?",
                memplan_dtype_name(v->elem_type) ? memplan_dtype_name(v->elem_type) : "?");
    if (!v->elem_type) v->elem_type = t->elem_type;
    if (t->rank < 0) return;
    if (v->rank < 0) {
        memplan_vshape d;
        from_type(c->S, &d, t, MEMPLAN_ORIGIN_DECLARED, NULL);
        v->rank = d.rank;
        v->dims = d.dims;
        return;
    }
    if (v->rank != t->rank) {
        mp_note(c, "'%s': declared rank %d, inferred rank %d", val->name, (int)t->rank, (int)v->rank);
        return;
    }
    memplan_expr *dims = NULL;
    for (int32_t i = 0; i < v->rank; i++) {
        memplan_expr to;
        if (t->dims[i].kind == MEMPLAN_DIM_VALUE) {
            int64_t k;
            if (memplan_expr_is_const(c->S->pool, v->dims[i], &k)) {
                if (k != t->dims[i].value)
                    mp_note(c, "'%s': declared dim %d is %lld, inferred %lld", val->name, (int)i,
                            (long long)t->dims[i].value, (long long)k);
                continue;
            }
            to = memplan_expr_const(c->S->pool, t->dims[i].value);
        } else if (t->dims[i].kind == MEMPLAN_DIM_PARAM && is_fresh(c->S, v->dims[i])) {
            to = param_dim(c->S, t->dims[i].param); /* a declared name refines a made-up one */
        } else {
            continue;
        }
        if (!dims) {
            dims = mp_arena_array(&c->S->arena, (size_t)v->rank, sizeof *dims);
            if (!dims) return;
            memcpy(dims, v->dims, (size_t)v->rank * sizeof *dims);
        }
        dims[i] = to;
    }
    if (dims) v->dims = dims;
}

/* The graph input a user value names, or -1. */
static int32_t input_named(const memplan_graph *g, const char *name) {
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (strcmp(g->values[g->inputs[i]].name, name) == 0 && !g->values[g->inputs[i]].initializer)
            return g->inputs[i];
    return -1;
}

/* Whether x fits an integer or bool element type. */
static bool value_fits(int32_t elem_type, int64_t x) {
    switch (elem_type) {
    case MEMPLAN_DTYPE_BOOL: return x == 0 || x == 1;
    case MEMPLAN_DTYPE_INT8: return x >= INT8_MIN && x <= INT8_MAX;
    case MEMPLAN_DTYPE_UINT8: return x >= 0 && x <= UINT8_MAX;
    case MEMPLAN_DTYPE_INT16: return x >= INT16_MIN && x <= INT16_MAX;
    case MEMPLAN_DTYPE_UINT16: return x >= 0 && x <= UINT16_MAX;
    case MEMPLAN_DTYPE_INT32: return x >= INT32_MIN && x <= INT32_MAX;
    case MEMPLAN_DTYPE_UINT32: return x >= 0 && x <= (int64_t)UINT32_MAX;
    case MEMPLAN_DTYPE_INT64:
    case MEMPLAN_DTYPE_UINT64: return true;
    default: return false;
    }
}

/* Check every user value against its input's declared type and shape;
 * NULL when all fit, else the message (in the shapes' arena). */
static const char *check_values(memplan_shapes *S, const memplan_graph *g) {
    char buf[400];
    for (size_t i = 0; i < S->n_values; i++) {
        const memplan_input_value *iv = &S->values[i];
        int32_t v = input_named(g, iv->name);
        const memplan_type *t = v >= 0 ? &g->values[v].type : NULL;
        if (v < 0) snprintf(buf, sizeof buf, "the model has no graph input named '%.200s'", iv->name);
        else if (t->kind != MEMPLAN_TYPE_TENSOR || !value_fits(t->elem_type, 0))
            snprintf(buf, sizeof buf, "input '%.200s' is %s: only integer and bool inputs take a value", iv->name,
                     t->kind != MEMPLAN_TYPE_TENSOR     ? "not a tensor"
                     : memplan_dtype_name(t->elem_type) ? memplan_dtype_name(t->elem_type)
                                                        : "of unknown type");
        else if (iv->n < 1 || iv->n > MEMPLAN_MAX_TRACKED_ELEMS)
            snprintf(buf, sizeof buf, "a value for input '%.200s' has %d elements (1 to %d)", iv->name, (int)iv->n,
                     MEMPLAN_MAX_TRACKED_ELEMS);
        else
            buf[0] = 0;
        for (int32_t k = 0; !buf[0] && k < iv->n; k++)
            if (!value_fits(t->elem_type, iv->elems[k]))
                snprintf(buf, sizeof buf, "%lld does not fit input '%.200s' (%s)", (long long)iv->elems[k], iv->name,
                         memplan_dtype_name(t->elem_type));
        if (buf[0]) {
            const char *msg = mp_arena_strdup(&S->arena, buf);
            return msg ? msg : "out of memory";
        }
    }
    return NULL;
}

/* Give the main graph's inputs the values the user bound: the element count
 * must be the input's (once its dims are bound); an input of unknown rank
 * takes a scalar (one element) or a vector. False when memory runs out. */
static bool set_input_values(memplan_shapes *S, const memplan_graph *g, memplan_vshape *vals) {
    for (size_t i = 0; i < S->n_values; i++) {
        const memplan_input_value *iv = &S->values[i];
        int32_t v = input_named(g, iv->name);
        if (v < 0) continue; /* checked before inference */
        memplan_vshape *x = &vals[v];
        if (x->rank < 0) {
            memplan_expr *d = mp_arena_array(&S->arena, 1, sizeof *d);
            if (!d) return false;
            d[0] = memplan_expr_const(S->pool, iv->n);
            x->kind = MEMPLAN_TYPE_TENSOR;
            x->rank = iv->n == 1 ? 0 : 1;
            x->dims = iv->n == 1 ? NO_DIMS : d;
            x->reason = NULL;
            finish_shape(S, x);
        }
        memplan_expr *e = mp_arena_array(&S->arena, (size_t)iv->n, sizeof *e);
        if (!e) return false;
        for (int32_t k = 0; k < iv->n; k++) e[k] = memplan_expr_const(S->pool, iv->elems[k]);
        x->n_elems = iv->n;
        x->elems = e;
    }
    return true;
}

/* The element count a user value must have for its input, checked once the
 * dims are bound; NULL when it fits. */
static const char *check_value_counts(memplan_shapes *S, const memplan_graph *g) {
    char buf[400];
    for (size_t i = 0; i < S->n_values; i++) {
        const memplan_input_value *iv = &S->values[i];
        int32_t v = input_named(g, iv->name);
        const memplan_vshape *x = memplan_shapes_value(S, g, v);
        if (!x || x->rank < 0) continue;
        int64_t count = 1;
        bool known = true;
        for (int32_t k = 0; k < x->rank && known; k++) {
            int64_t d;
            known = memplan_expr_is_const(S->pool, x->dims[k], &d);
            if (known) count = d > 0 && count > INT64_MAX / d ? INT64_MAX : count * d;
        }
        if (known && count == iv->n) continue;
        if (known)
            snprintf(buf, sizeof buf, "input '%.200s' holds %lld elements, the value gives %d", iv->name,
                     (long long)count, (int)iv->n);
        else
            snprintf(buf, sizeof buf, "input '%.200s' has symbolic dims: bind them (--dim) before its value", iv->name);
        const char *msg = mp_arena_strdup(&S->arena, buf);
        return msg ? msg : "out of memory";
    }
    return NULL;
}

static memplan_status infer_graph(memplan_shapes *S, const memplan_graph *g, const memplan_vshape *parent_vals,
                                  int32_t n_given, const memplan_vshape *const *given);

static memplan_vshape *graph_vals(memplan_shapes *S, const memplan_graph *g) {
    if (g->id < 0 || g->id >= S->n_graphs) return NULL;
    if (!S->per_graph[g->id]) {
        S->per_graph[g->id] =
            mp_arena_array(&S->arena, (size_t)(g->n_values ? g->n_values : 1), sizeof(memplan_vshape));
        if (!S->per_graph[g->id]) S->oom = true;
    }
    return S->per_graph[g->id];
}

/* ---- root causes ----------------------------------------------------- */

/* The op as a message names it: "Op", or "domain:Op" outside the default domain. */
static const char *op_name(memplan_shapes *S, const memplan_node *n) {
    const char *d = canonical_domain(n->domain);
    if (!d[0]) return n->op_type;
    size_t len = strlen(d) + strlen(n->op_type) + 2;
    char *s = mp_arena_alloc(&S->arena, len);
    if (!s) return n->op_type;
    snprintf(s, len, "%s:%s", d, n->op_type);
    return s;
}

/* "<what> <op> (node 'name')" (or "(node #index)" when unnamed), in the
 * arena; what ends with the word that leads to the op ("no rule for",
 * "... in"). Names are cut at 200 bytes. */
static const char *at_node2(memplan_shapes *S, const char *what, const char *what2, const memplan_node *n) {
    const char *op = op_name(S, n);
    size_t len = strlen(op) + 700;
    char *s = mp_arena_alloc(&S->arena, len);
    if (!s) return what;
    if (n->name[0]) snprintf(s, len, "%.400s%s %s (node '%.200s')", what, what2, op, n->name);
    else
        snprintf(s, len, "%.400s%s %s (node #%d)", what, what2, op, (int)n->file_index);
    return s;
}

static const char *at_node(memplan_shapes *S, const char *what, const memplan_node *n) {
    return at_node2(S, what, "", n);
}

/* An input whose size is unknown for a reason of its own (an unknown that
 * began upstream), or NULL. Strings, sequences and maps are not unknown. */
static const char *upstream_reason(const memplan_vshape *vals, const memplan_node *n) {
    for (int32_t k = 0; k < n->n_inputs; k++) {
        int32_t id = n->inputs[k];
        if (id < 0) continue;
        const memplan_vshape *v = &vals[id];
        if (v->bytes != MEMPLAN_EXPR_NONE || !v->reason) continue;
        if (v->kind == MEMPLAN_TYPE_TENSOR && v->elem_type != MEMPLAN_DTYPE_STRING) return v->reason;
        if (v->kind == MEMPLAN_TYPE_NONE) return v->reason;
    }
    return NULL;
}

/* Why output v of node n has no size: where the unknown began. */
static const char *root_reason(memplan_shapes *S, const memplan_graph *g, const memplan_vshape *vals,
                               const memplan_node *n, const mp_sctx *c, const memplan_vshape *v, bool has_rule,
                               const char *why) {
    if (v->kind != MEMPLAN_TYPE_NONE && v->kind != MEMPLAN_TYPE_TENSOR) return NULL; /* not a tensor: finish_shape */
    if (v->kind == MEMPLAN_TYPE_TENSOR && v->elem_type == MEMPLAN_DTYPE_STRING) return NULL;
    if (v->kind == MEMPLAN_TYPE_TENSOR && v->rank >= 0 && memplan_dtype_bits(v->elem_type)) return NULL; /* overflow */
    const char *up = upstream_reason(vals, n);
    if (up) return up;
    if (!has_rule) return at_node(S, "no rule for", n);
    /* no local text buffers: run_node, which calls this, recurses */
    if (why && strstr(why, " (node ")) return why; /* a root cause already (passed on by the rule) */
    if (why) return at_node2(S, why, " in", n);
    if (c->first_note) return at_node2(S, c->first_note, " in", n);
    for (int32_t k = 0; k < n->n_inputs; k++) { /* a graph input without a shape */
        int32_t id = n->inputs[k];
        if (id >= 0 && vals[id].kind == MEMPLAN_TYPE_TENSOR && vals[id].rank < 0) {
            size_t len = strlen(g->values[id].name) + 48;
            char *pre = mp_arena_alloc(&S->arena, len);
            if (!pre) return "an input has no known shape";
            snprintf(pre, len, "input '%.200s' has no known shape, at", g->values[id].name);
            return at_node(S, pre, n);
        }
    }
    if (v->kind == MEMPLAN_TYPE_TENSOR && v->rank >= 0 && !v->elem_type)
        return at_node(S, "element type unknown in", n);
    return at_node(S, "the rule could not tell the size of", n);
}

/* The model-local function a node calls, or NULL: a look-up in
 * S->functions (a model of many functions and calls stays linear). */
static const memplan_function *find_function(memplan_shapes *S, const memplan_node *n) {
    if (!S->model->n_functions) return NULL;
    mp_scratch_mark mark = mp_scratch_top(&S->scratch);
    char *key = function_key(S, n->domain, n->op_type, n->overload, false);
    int32_t i = key ? mp_strmap_get(&S->functions, key) : -1;
    mp_scratch_release(&S->scratch, mark);
    return i >= 0 ? &S->model->functions[i] : NULL;
}

/* A call of a model-local function: its body (the call's own copy,
 * memplan_node.call) inferred with the node's inputs, its outputs the
 * node's. (Attributes the body refers to are not substituted: rules
 * reading them see none.) */
static void call_function(mp_sctx *c, const memplan_function *fn) {
    const memplan_node *n = c->node;
    const memplan_graph *body = n->call ? n->call : fn->body;
    const memplan_vshape **given = mp_tmp(c, (size_t)n->n_inputs, sizeof *given);
    if (!given) return;
    for (int32_t k = 0; k < n->n_inputs; k++) given[k] = mp_in(c, k);
    mp_infer_sub(c, body, n->n_inputs, given);
    for (int32_t k = 0; k < n->n_outputs && k < body->n_outputs; k++) {
        const memplan_vshape *o = mp_sub_out(c, body, k);
        mp_out_like(c, k, o);
        if (o && o->kind == MEMPLAN_TYPE_TENSOR && o->n_elems >= 0)
            mp_out_vals(c, k, o->n_elems, o->elems, o->elem_shift);
    }
}

/* Count a node whose op has no rule (listed in the notes at the end). */
static void count_no_rule(memplan_shapes *S, const memplan_node *n) {
    const char *op = op_name(S, n);
    int32_t i = mp_strmap_get(&S->no_rule, op);
    if (i >= 0) {
        S->no_rule_ops[i].nodes++;
        return;
    }
    if (S->n_no_rule == S->cap_no_rule) {
        size_t cap = S->cap_no_rule ? S->cap_no_rule * 2 : 8;
        no_rule_op *p = realloc(S->no_rule_ops, cap * sizeof *p);
        if (!p) {
            S->oom = true;
            return;
        }
        S->no_rule_ops = p;
        S->cap_no_rule = cap;
    }
    if (op == n->op_type && !(op = mp_arena_strdup(&S->arena, op))) {
        S->oom = true;
        return;
    }
    if (!mp_strmap_put(&S->no_rule, op, (int32_t)S->n_no_rule)) {
        S->oom = true;
        return;
    }
    S->no_rule_ops[S->n_no_rule++] = (no_rule_op){op, 1};
}

static void run_node(memplan_shapes *S, const memplan_graph *g, memplan_vshape *vals, int32_t pos) {
    const memplan_node *n = &g->nodes[pos];
    bool set_small[16];
    bool *set = n->n_outputs <= 16 ? set_small : calloc((size_t)n->n_outputs, sizeof *set);
    if (!set) {
        S->oom = true;
        return;
    }
    int32_t outer_graph = S->cur_graph, outer_node = S->cur_node;
    S->cur_graph = g->id;
    S->cur_node = pos;
    memset(set, 0, (size_t)(n->n_outputs <= 16 ? 16 : n->n_outputs) * sizeof *set);
    mp_sctx c = {S, g, n, vals, set, NULL};
    for (int32_t k = 0; k < n->n_outputs; k++)
        if (n->outputs[k] >= 0) {
            memplan_vshape *v = &vals[n->outputs[k]];
            memset(v, 0, sizeof *v);
            v->rank = -1;
            v->n_elems = -1;
            v->bytes = MEMPLAN_EXPR_NONE;
            v->dims = NO_DIMS;
        }
    const op_entry *op = find_op(S, n);
    const mp_rule *r = op ? op->rule : NULL;
    const memplan_function *fn = r ? NULL : find_function(S, n);
    if (!r && !fn) count_no_rule(S, n);
    mp_scratch_mark mark = mp_scratch_top(&S->scratch);
    if (r) r->fn(&c);
    else if (fn)
        call_function(&c, fn);
    if (op && op->eval && !S->oom) mp_eval_node(&c, op->eval);
    mp_scratch_release(&S->scratch, mark); /* outputs hold copies, never scratch */
    /* Subgraphs the rule did not visit (unknown ops) still get their shapes. */
    for (int32_t k = 0; k < n->n_subgraphs; k++)
        if (!S->per_graph[n->subgraphs[k]->id]) mp_infer_sub(&c, n->subgraphs[k], 0, NULL);
    S->cur_graph = g->id; /* the subgraphs moved it */
    S->cur_node = pos;
    for (int32_t k = 0; k < n->n_outputs; k++) {
        int32_t id = n->outputs[k];
        if (id < 0) continue;
        memplan_vshape *v = &vals[id];
        const memplan_value *val = &g->values[id];
        const char *why = v->reason;
        if (set[k] && v->kind != MEMPLAN_TYPE_NONE) {
            apply_hint(&c, v, val);
            v->origin = MEMPLAN_ORIGIN_INFERRED;
            v->reason = NULL;
        } else if ((val->flags & MEMPLAN_VALUE_DECLARED) && val->type.kind != MEMPLAN_TYPE_NONE) {
            from_type(S, v, &val->type, MEMPLAN_ORIGIN_DECLARED, NULL);
        } else {
            from_type(S, v, &val->type, MEMPLAN_ORIGIN_NONE, NULL);
        }
        v->bytes = bytes_of(S, v);
        if (v->bytes == MEMPLAN_EXPR_NONE) v->reason = root_reason(S, g, vals, n, &c, v, r || fn, why);
        finish_shape(S, v);
    }
    if (set != set_small) free(set);
    S->cur_graph = outer_graph;
    S->cur_node = outer_node;
}

static memplan_status infer_graph(memplan_shapes *S, const memplan_graph *g, const memplan_vshape *parent_vals,
                                  int32_t n_given, const memplan_vshape *const *given) {
    memplan_vshape *vals = graph_vals(S, g);
    if (!vals) return MEMPLAN_ENOMEM;
    int32_t outer_graph = S->cur_graph, outer_node = S->cur_node;
    S->cur_graph = g->id;
    S->cur_node = -1; /* declared types without a size */
    bool main = g == S->model->graph;
    for (int32_t v = 0; v < g->n_values; v++) {
        const memplan_value *val = &g->values[v];
        const char *input = main && (val->flags & MEMPLAN_VALUE_INPUT) ? val->name : NULL;
        if ((val->flags & MEMPLAN_VALUE_CAPTURE) && parent_vals) vals[v] = parent_vals[val->outer];
        else if (val->initializer)
            shape_of_tensor(S, &vals[v], val->initializer);
        else
            from_type(S, &vals[v], &val->type, MEMPLAN_ORIGIN_DECLARED, input);
    }
    if (g == S->model->graph && S->n_values && !set_input_values(S, g, vals)) return MEMPLAN_ENOMEM;
    for (int32_t i = 0; i < g->n_inputs && i < n_given; i++)
        if (given[i] && given[i]->kind != MEMPLAN_TYPE_NONE) {
            memplan_vshape *dst = &vals[g->inputs[i]];
            const memplan_value *val = &g->values[g->inputs[i]];
            *dst = *given[i];
            if (dst->rank > 0) { /* own copies: the caller's arrays may be temporary */
                memplan_expr *d = mp_arena_array(&S->arena, (size_t)dst->rank, sizeof *d);
                if (!d) return MEMPLAN_ENOMEM;
                memcpy(d, given[i]->dims, (size_t)dst->rank * sizeof *d);
                dst->dims = d;
            }
            if (dst->rank <= 0) dst->dims = NO_DIMS;
            dst->n_elems = -1;
            dst->elems = NULL;
            /* A subgraph input's declared dims refine what the owner passes. */
            mp_sctx c = {S, g, NULL, vals, NULL, NULL};
            apply_hint(&c, dst, val);
            finish_shape(S, dst);
        }
    for (int32_t p = 0; p < g->n_nodes && !S->oom; p++) run_node(S, g, vals, p);
    S->cur_graph = outer_graph;
    S->cur_node = outer_node;
    return S->oom ? MEMPLAN_ENOMEM : MEMPLAN_OK;
}

static bool has_conflict(const memplan_shapes *S, int32_t graph, int32_t node) {
    for (size_t i = 0; i < S->n_conflicts; i++)
        if (S->conflicts[i].graph == graph && S->conflicts[i].node == node) return true;
    return false;
}

/* Inference under bindings met conflicts: the first one that inference
 * without them does not meet is the bindings' (the model's own conflicts,
 * a broken model, stay notes). Only run when there are conflicts. */
static memplan_status check_fit(const memplan_shapes *S, const memplan_model *m, memplan_error *err) {
    memplan_shapes *free_of_bindings;
    memplan_status st = memplan_shapes_infer_bound(m, NULL, 0, &free_of_bindings, err);
    if (st) return st;
    for (size_t i = 0; i < S->n_conflicts && !st; i++)
        if (!has_conflict(free_of_bindings, S->conflicts[i].graph, S->conflicts[i].node))
            st = memplan_error_set(err, MEMPLAN_EINPUT, "the dims bound do not fit the model: %s",
                                   S->notes[S->conflicts[i].note]);
    memplan_shapes_free(free_of_bindings);
    return st;
}

memplan_status memplan_shapes_infer(const memplan_model *m, memplan_shapes **out, memplan_error *err) {
    return memplan_shapes_infer_bound(m, NULL, 0, out, err);
}

memplan_status memplan_shapes_infer_bound(const memplan_model *m, const memplan_binding *b, size_t nb,
                                          memplan_shapes **out, memplan_error *err) {
    memplan_shapes_options o = {b, nb, NULL, 0};
    return memplan_shapes_infer_opts(m, &o, out, err);
}

memplan_status memplan_shapes_infer_opts(const memplan_model *m, const memplan_shapes_options *o, memplan_shapes **out,
                                         memplan_error *err) {
    *out = NULL;
    memplan_shapes *S = calloc(1, sizeof *S);
    if (!S) return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
    S->values = o->values;
    S->n_values = o->n_values;
    mp_arena_init(&S->arena);
    mp_scratch_init(&S->scratch);
    mp_strmap_init(&S->rules);
    mp_strmap_init(&S->no_rule);
    mp_strmap_init(&S->functions);
    S->model = m;
    S->pool = memplan_expr_pool_new();
    S->n_graphs = m->n_graphs;
    S->per_graph = calloc((size_t)(m->n_graphs ? m->n_graphs : 1), sizeof *S->per_graph);
    if (!S->pool || !S->per_graph || !own_bindings(S, o->bindings, o->n_bindings) ||
        !mp_dims_init(&S->dims, &S->arena, S->pool, m) || !build_registry(S) || !index_functions(S)) {
        memplan_status st =
            S->duplicate ? memplan_error_set(err, MEMPLAN_EINTERNAL,
                                             "shape rule or evaluation for '%s' registered twice (or without a rule)",
                                             S->duplicate)
                         : memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory");
        memplan_shapes_free(S);
        return st;
    }
    const char *bad = check_values(S, m->graph);
    if (bad) {
        memplan_status st = memplan_error_set(err, MEMPLAN_EUSAGE, "%s", bad);
        memplan_shapes_free(S);
        return st;
    }
    memplan_status st = infer_graph(S, m->graph, NULL, 0, NULL);
    for (int32_t f = 0; !st && f < m->n_functions; f++) st = infer_graph(S, m->functions[f].body, NULL, 0, NULL);
    if (st) {
        memplan_shapes_free(S);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory during shape inference");
    }
    for (size_t i = 0; i < S->n_bindings; i++) /* a misspelt --dim binds nothing (a name bound twice: once) */
        if (binding_unused(S, i)) {
            char line[300];
            snprintf(line, sizeof line, "no dim of the model is named '%.200s': that binding changes nothing",
                     S->bindings[i].name);
            add_note(S, line);
        }
    for (size_t i = 0; i < S->n_no_rule; i++) { /* each op without a rule, once */
        char line[300];
        snprintf(line, sizeof line, "no rule for %.200s (%lld node%s)", S->no_rule_ops[i].op,
                 (long long)S->no_rule_ops[i].nodes, S->no_rule_ops[i].nodes == 1 ? "" : "s");
        add_note(S, line);
    }
    if (S->oom) st = memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory during shape inference");
    if (st) {
        memplan_shapes_free(S);
        return st;
    }
    if (o->n_bindings && S->n_conflicts && (st = check_fit(S, m, err))) {
        memplan_shapes_free(S);
        return st;
    }
    if ((bad = check_value_counts(S, m->graph))) {
        st = memplan_error_set(err, MEMPLAN_EUSAGE, "%s", bad);
        memplan_shapes_free(S);
        return st;
    }
    *out = S;
    return MEMPLAN_OK;
}

void memplan_shapes_free(memplan_shapes *S) {
    if (!S) return;
    memplan_expr_pool_free(S->pool);
    mp_strmap_free(&S->rules);
    mp_strmap_free(&S->functions);
    free(S->per_graph);
    free(S->notes);
    free(S->conflicts);
    free(S->no_rule_ops);
    mp_strmap_free(&S->no_rule);
    mp_dims_free(&S->dims);
    mp_scratch_free(&S->scratch);
    mp_arena_free(&S->arena);
    free(S);
}

memplan_expr_pool *memplan_shapes_pool(const memplan_shapes *S) { return S->pool; }

bool memplan_shapes_graph_inferred(const memplan_shapes *S, const memplan_graph *g) {
    return g && g->id >= 0 && g->id < S->n_graphs && S->per_graph[g->id];
}

bool memplan_shapes_binding_taken(const memplan_shapes *S, const char *name) {
    for (size_t i = 0; name && i < S->n_bindings; i++)
        if (S->binding_used[i] && strcmp(S->bindings[i].name, name) == 0) return true;
    return false;
}

const memplan_vshape *memplan_shapes_value(const memplan_shapes *S, const memplan_graph *g, int32_t value) {
    if (!g || g->id < 0 || g->id >= S->n_graphs || !S->per_graph[g->id] || value < 0 || value >= g->n_values)
        return NULL;
    return &S->per_graph[g->id][value];
}

size_t memplan_shapes_input_dim_count(const memplan_shapes *S) { return S->dims.n_inputs; }

const memplan_input_dim *memplan_shapes_input_dim(const memplan_shapes *S, size_t i) {
    return i < S->dims.n_inputs ? &S->dims.inputs[i] : NULL;
}

bool memplan_shapes_internal_dim(const memplan_shapes *S, const char *name, memplan_dim_origin *origin) {
    const mp_dim_birth *b = name ? mp_dims_birth(&S->dims, name) : NULL;
    if (!b) return false;
    if (origin) {
        origin->graph = b->graph >= 0 && b->graph < S->dims.n_graphs ? S->dims.graphs[b->graph] : NULL;
        origin->node = origin->graph && b->node >= 0 ? &origin->graph->nodes[b->node] : NULL;
    }
    return true;
}

size_t memplan_shapes_data_dim_count(const memplan_shapes *S) { return S->dims.n_data; }

const char *memplan_shapes_data_dim(const memplan_shapes *S, size_t i, memplan_expr *bound) {
    if (i >= S->dims.n_data) return NULL;
    const mp_dim_birth *b = &S->dims.births[S->dims.data[i]];
    if (bound) *bound = b->bound;
    return b->name;
}

bool memplan_shapes_data_bound(const memplan_shapes *S, const char *name, memplan_expr *bound) {
    const mp_dim_birth *b = name ? mp_dims_birth(&S->dims, name) : NULL;
    if (!b || !b->data) return false;
    if (bound) *bound = b->bound;
    return true;
}

size_t memplan_shapes_dim_reason(const memplan_shapes *S, const char *name, char *buf, size_t cap) {
    memplan_dim_origin o;
    const mp_dim_birth *b = name ? mp_dims_birth(&S->dims, name) : NULL;
    if (!b || !memplan_shapes_internal_dim(S, name, &o)) return 0;
    int len;
    if (!o.node) {
        len = snprintf(buf, cap, "declared without a size in graph '%.200s'", o.graph ? o.graph->name : "?");
    } else {
        const char *d = canonical_domain(o.node->domain);
        char op[300];
        snprintf(op, sizeof op, "%.100s%s%.150s", d, d[0] ? ":" : "", o.node->op_type);
        const char *what = b->data ? "data-dependent:" : "size unknown after";
        if (o.node->name[0]) len = snprintf(buf, cap, "%s %s (node '%.200s')", what, op, o.node->name);
        else
            len = snprintf(buf, cap, "%s %s (node #%d)", what, op, (int)o.node->file_index);
    }
    return len > 0 ? (size_t)len : 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

size_t memplan_shapes_bind_instead(const memplan_shapes *S, const char *name, const char **names, size_t max) {
    memplan_dim_origin o;
    if (!memplan_shapes_internal_dim(S, name, &o) || !o.node) return 0;
    const memplan_vshape *vals = S->per_graph[o.graph->id];
    size_t n = 0;
    for (int32_t k = 0; k < o.node->n_inputs; k++) {
        int32_t id = o.node->inputs[k];
        if (id < 0 || vals[id].rank < 0) continue;
        for (int32_t i = 0; i < vals[id].rank; i++) {
            const char *in_dim[8];
            size_t m = memplan_expr_names(S->pool, vals[id].dims[i], in_dim, 8);
            for (size_t j = 0; j < m && j < 8; j++) {
                const memplan_input_dim *d = mp_dims_input(&S->dims, in_dim[j]);
                if (!d) continue;
                bool seen = false;
                for (size_t q = 0; q < n && q < max && !seen; q++) seen = strcmp(names[q], d->name) == 0;
                if (seen) continue;
                if (n < max) names[n] = d->name;
                n++;
            }
        }
    }
    qsort(names, n < max ? n : max, sizeof *names, cmp_str);
    return n;
}

size_t memplan_shapes_note_count(const memplan_shapes *S) { return S->n_notes; }
const char *memplan_shapes_note(const memplan_shapes *S, size_t i) { return i < S->n_notes ? S->notes[i] : NULL; }

memplan_size memplan_shapes_size(const memplan_shapes *S, const memplan_vshape *v, const memplan_binding *b,
                                 size_t nb) {
    memplan_size s = {MEMPLAN_SIZE_UNKNOWN, 0, NULL, -1};
    if (v->kind != MEMPLAN_TYPE_TENSOR && v->kind != MEMPLAN_TYPE_NONE) {
        s.kind = MEMPLAN_SIZE_UNPLANNABLE;
        s.reason = v->kind == MEMPLAN_TYPE_SPARSE_TENSOR ? "sparse tensor"
                   : v->kind == MEMPLAN_TYPE_SEQUENCE    ? "sequence"
                   : v->kind == MEMPLAN_TYPE_MAP         ? "map"
                   : v->kind == MEMPLAN_TYPE_OPTIONAL    ? "optional"
                                                         : "opaque";
        return s;
    }
    if (v->kind == MEMPLAN_TYPE_TENSOR && v->elem_type == MEMPLAN_DTYPE_STRING) {
        s.kind = MEMPLAN_SIZE_UNPLANNABLE;
        s.reason = "string tensor";
        return s;
    }
    if (v->bytes == MEMPLAN_EXPR_NONE) {
        s.reason = v->reason ? v->reason : "size unknown";
        return s;
    }
    memplan_expr e = nb ? memplan_expr_bind(S->pool, v->bytes, b, nb) : v->bytes;
    int64_t k;
    if (e != MEMPLAN_EXPR_NONE && memplan_expr_is_const(S->pool, e, &k)) {
        if (k >= 0) {
            s.kind = MEMPLAN_SIZE_KNOWN;
            s.bytes = (uint64_t)k;
        } else {
            s.reason = "the size is negative under these dim values (too small for the model)";
        }
    } else if (e == MEMPLAN_EXPR_NONE) {
        s.reason = "size overflows";
    } else {
        s.kind = MEMPLAN_SIZE_SYMBOLIC;
        s.expr = e;
    }
    return s;
}

/* ---- the rule context -------------------------------------------------- */

const memplan_node *mp_node(const mp_sctx *c) { return c->node; }
memplan_expr_pool *mp_pool(const mp_sctx *c) { return c->S->pool; }

int64_t mp_opset(const mp_sctx *c) {
    int64_t v = memplan_model_opset(c->S->model, c->node->domain);
    if (v < 0 && canonical_domain(c->node->domain)[0] == '\0') v = 21;
    return v;
}

int32_t mp_n_in(const mp_sctx *c) { return c->node->n_inputs; }
int32_t mp_n_out(const mp_sctx *c) { return c->node->n_outputs; }

const memplan_vshape *mp_in(const mp_sctx *c, int32_t k) {
    if (k < 0 || k >= c->node->n_inputs || c->node->inputs[k] < 0) return NULL;
    return &c->vals[c->node->inputs[k]];
}

bool mp_in_ranked(const mp_sctx *c, int32_t k) {
    const memplan_vshape *v = mp_in(c, k);
    return v && v->kind == MEMPLAN_TYPE_TENSOR && v->rank >= 0;
}

bool mp_has_out(const mp_sctx *c, int32_t k) { return k >= 0 && k < c->node->n_outputs && c->node->outputs[k] >= 0; }

const memplan_attr *mp_attr(const mp_sctx *c, const char *name) {
    for (int32_t i = 0; i < c->node->n_attrs; i++)
        if (strcmp(c->node->attrs[i].name, name) == 0) return &c->node->attrs[i];
    return NULL;
}

int64_t mp_attr_int(const mp_sctx *c, const char *name, int64_t dflt) {
    const memplan_attr *a = mp_attr(c, name);
    return a && a->type == MEMPLAN_ATTR_INT ? a->i : dflt;
}

float mp_attr_float(const mp_sctx *c, const char *name, float dflt) {
    const memplan_attr *a = mp_attr(c, name);
    return a && a->type == MEMPLAN_ATTR_FLOAT ? a->f : dflt;
}

const char *mp_attr_str(const mp_sctx *c, const char *name, const char *dflt) {
    const memplan_attr *a = mp_attr(c, name);
    return a && a->type == MEMPLAN_ATTR_STRING ? a->s : dflt;
}

int64_t mp_attr_ints(const mp_sctx *c, const char *name, const int64_t **v) {
    const memplan_attr *a = mp_attr(c, name);
    if (!a || a->type != MEMPLAN_ATTR_INTS) {
        *v = NULL;
        return -1;
    }
    *v = a->ints;
    return (int64_t)a->n;
}

const memplan_expr *mp_in_elems(const mp_sctx *c, int32_t k, int32_t *n) {
    const memplan_vshape *v = mp_in(c, k);
    if (!v || v->n_elems < 0 || v->elem_shift != 0) return NULL;
    *n = v->n_elems;
    return v->elems;
}

static const memplan_tensor *const_tensor(const mp_sctx *c, int32_t k);

bool mp_in_has_vals(const mp_sctx *c, int32_t k) {
    const memplan_vshape *v = mp_in(c, k);
    if (!v || v->kind != MEMPLAN_TYPE_TENSOR) return false;
    if (v->n_elems >= 0) return true;
    if (v->elem_type != MEMPLAN_DTYPE_FLOAT && v->elem_type != MEMPLAN_DTYPE_DOUBLE) return false;
    const memplan_tensor *t = const_tensor(c, k);
    return t && t->data;
}

const memplan_expr *mp_in_vals(mp_sctx *c, int32_t k, int32_t *n, int32_t *shift) {
    const memplan_vshape *v = mp_in(c, k);
    if (!v || v->kind != MEMPLAN_TYPE_TENSOR) return NULL;
    if (v->n_elems >= 0) {
        *n = v->n_elems;
        *shift = v->elem_shift;
        return v->elems;
    }
    /* float constants are not kept as amounts up front (most are weights
     * no shape computation reads): read them when asked */
    const memplan_tensor *t = const_tensor(c, k);
    size_t width = !t || !t->data                         ? 0
                   : t->elem_type == MEMPLAN_DTYPE_FLOAT  ? 4
                   : t->elem_type == MEMPLAN_DTYPE_DOUBLE ? 8
                                                          : 0;
    if (!width || t->data_len / width > MEMPLAN_MAX_TRACKED_ELEMS) return NULL;
    int32_t cnt = (int32_t)(t->data_len / width);
    double *f = mp_tmp(c, (size_t)cnt, sizeof *f);
    memplan_expr *out = mp_tmp_exprs(c, (size_t)cnt);
    if (!f || !out) return NULL;
    for (int32_t i = 0; i < cnt; i++) {
        if (width == 4) {
            float x;
            memcpy(&x, (const unsigned char *)t->data + 4 * (size_t)i, 4);
            f[i] = x;
        } else {
            memcpy(&f[i], (const unsigned char *)t->data + 8 * (size_t)i, 8);
        }
    }
    if (!mp_reals_to_vals(c, f, cnt, out, shift)) return NULL;
    *n = cnt;
    return out;
}

bool mp_in_ints(const mp_sctx *c, int32_t k, int64_t *out, int32_t max, int32_t *n) {
    int32_t cnt;
    const memplan_expr *e = mp_in_elems(c, k, &cnt);
    if (!e || cnt > max) return false;
    for (int32_t i = 0; i < cnt; i++)
        if (!memplan_expr_is_const(c->S->pool, e[i], &out[i])) return false;
    *n = cnt;
    return true;
}

static memplan_vshape *out_slot(mp_sctx *c, int32_t k) {
    if (!mp_has_out(c, k)) return NULL;
    c->set[k] = true;
    return &c->vals[c->node->outputs[k]];
}

void mp_out(mp_sctx *c, int32_t k, int32_t elem_type, int32_t rank, const memplan_expr *dims) {
    memplan_vshape *v = out_slot(c, k);
    if (!v) return;
    memset(v, 0, sizeof *v);
    v->kind = MEMPLAN_TYPE_TENSOR;
    v->elem_type = elem_type;
    v->rank = rank;
    v->n_elems = -1;
    v->bytes = MEMPLAN_EXPR_NONE;
    v->dims = NO_DIMS;
    if (rank > 0) {
        for (int32_t i = 0; i < rank; i++)
            if (dims[i] == MEMPLAN_EXPR_NONE) { /* an unknown dim is a fresh name */
                memplan_expr *d = mp_arena_array(&c->S->arena, (size_t)rank, sizeof *d);
                if (!d) break;
                for (int32_t j = 0; j < rank; j++) d[j] = dims[j] == MEMPLAN_EXPR_NONE ? fresh_dim(c->S) : dims[j];
                v->dims = d;
                return;
            }
        memplan_expr *d = mp_arena_array(&c->S->arena, (size_t)rank, sizeof *d);
        if (!d) {
            c->S->oom = true;
            v->rank = -1;
            return;
        }
        memcpy(d, dims, (size_t)rank * sizeof *d);
        v->dims = d;
    }
}

memplan_expr mp_data_dim(mp_sctx *c, memplan_expr bound) {
    memplan_expr e = fresh_dim(c->S);
    if (e != MEMPLAN_EXPR_NONE && !mp_dims_mark_data(&c->S->dims, bound)) c->S->oom = true;
    return e;
}

void mp_out_fresh(mp_sctx *c, int32_t k, int32_t elem_type, int32_t rank) {
    memplan_expr *dims = mp_tmp_exprs(c, (size_t)(rank > 0 ? rank : 0));
    if (!dims) return;
    for (int32_t i = 0; i < rank; i++) dims[i] = MEMPLAN_EXPR_NONE;
    mp_out(c, k, elem_type, rank, dims);
}

void mp_out_unranked(mp_sctx *c, int32_t k, int32_t elem_type, const char *reason) {
    memplan_vshape *v = out_slot(c, k);
    if (!v) return;
    memset(v, 0, sizeof *v);
    v->kind = MEMPLAN_TYPE_TENSOR;
    v->elem_type = elem_type;
    v->rank = -1;
    v->n_elems = -1;
    v->bytes = MEMPLAN_EXPR_NONE;
    v->dims = NO_DIMS;
    v->reason = reason;
}

void mp_out_like(mp_sctx *c, int32_t k, const memplan_vshape *src) {
    if (!src || src->kind == MEMPLAN_TYPE_NONE) return;
    if (src->kind != MEMPLAN_TYPE_TENSOR) {
        mp_out_kind(c, k, src->kind, src->elem_type);
        return;
    }
    if (src->rank < 0) mp_out_unranked(c, k, src->elem_type, src->reason);
    else
        mp_out(c, k, src->elem_type, src->rank, src->dims);
}

void mp_out_kind(mp_sctx *c, int32_t k, memplan_type_kind kind, int32_t elem_type) {
    memplan_vshape *v = out_slot(c, k);
    if (!v) return;
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->elem_type = elem_type;
    v->rank = -1;
    v->n_elems = -1;
    v->bytes = MEMPLAN_EXPR_NONE;
    v->dims = NO_DIMS;
}

void mp_out_elems(mp_sctx *c, int32_t k, int32_t n, const memplan_expr *elems) { mp_out_vals(c, k, n, elems, 0); }

const memplan_vshape *mp_out_get(const mp_sctx *c, int32_t k) {
    return mp_has_out(c, k) ? &c->vals[c->node->outputs[k]] : NULL;
}

void mp_out_vals(mp_sctx *c, int32_t k, int32_t n, const memplan_expr *elems, int32_t shift) {
    if (!mp_has_out(c, k) || n < 0 || n > MEMPLAN_MAX_TRACKED_ELEMS || shift < 0 || shift > 62) return;
    memplan_vshape *v = &c->vals[c->node->outputs[k]];
    memplan_expr *e = mp_arena_array(&c->S->arena, (size_t)(n ? n : 1), sizeof *e);
    if (!e) {
        c->S->oom = true;
        return;
    }
    for (int32_t i = 0; i < n; i++) {
        if (elems[i] == MEMPLAN_EXPR_NONE) return; /* all or nothing */
        e[i] = elems[i];
    }
    v->n_elems = n;
    v->elems = e;
    v->elem_shift = shift;
}

void mp_out_unknown(mp_sctx *c, int32_t k, const char *reason) {
    if (!mp_has_out(c, k)) return;
    memplan_vshape *v = &c->vals[c->node->outputs[k]];
    v->reason = reason;
}

void mp_note(mp_sctx *c, const char *fmt, ...) {
    char msg[400], line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->node && !c->first_note) c->first_note = mp_arena_strdup(&c->S->arena, msg);
    if (c->node) {
        if (c->node->name[0]) snprintf(line, sizeof line, "node '%s' (%s): %s", c->node->name, c->node->op_type, msg);
        else
            snprintf(line, sizeof line, "node #%d (%s): %s", (int)c->node->file_index, c->node->op_type, msg);
    } else {
        snprintf(line, sizeof line, "graph '%s': %s", c->g->name, msg);
    }
    add_note(c->S, line);
}

void mp_conflict(mp_sctx *c, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mp_note(c, "%s", msg);
    memplan_shapes *S = c->S;
    if (!c->node || !S->n_notes) return;
    if (S->n_conflicts == S->cap_conflicts) {
        size_t cap = S->cap_conflicts ? S->cap_conflicts * 2 : 8;
        conflict *p = realloc(S->conflicts, cap * sizeof *p);
        if (!p) {
            S->oom = true;
            return;
        }
        S->conflicts = p;
        S->cap_conflicts = cap;
    }
    S->conflicts[S->n_conflicts++] = (conflict){c->g->id, (int32_t)(c->node - c->g->nodes), S->n_notes - 1};
}

void mp_infer_sub(mp_sctx *c, const memplan_graph *g, int32_t n, const memplan_vshape *const *inputs) {
    if (c->S->depth >= MEMPLAN_MAX_GRAPH_DEPTH + 1) return;
    c->S->depth++;
    infer_graph(c->S, g, c->vals, n, inputs);
    c->S->depth--;
}

const memplan_vshape *mp_sub_out(const mp_sctx *c, const memplan_graph *g, int32_t k) {
    if (k < 0 || k >= g->n_outputs) return NULL;
    return memplan_shapes_value(c->S, g, g->outputs[k]);
}

/* ---- helpers ----------------------------------------------------------- */

memplan_expr mp_const(mp_sctx *c, int64_t v) { return memplan_expr_const(c->S->pool, v); }

void *mp_tmp(mp_sctx *c, size_t count, size_t size) {
    void *p = mp_scratch_alloc(&c->S->scratch, count, size);
    if (!p) c->S->oom = true;
    return p;
}

memplan_expr *mp_tmp_exprs(mp_sctx *c, size_t count) { return mp_tmp(c, count, sizeof(memplan_expr)); }
int64_t *mp_tmp_ints(mp_sctx *c, size_t count) { return mp_tmp(c, count, sizeof(int64_t)); }

int32_t mp_axis(int64_t axis, int32_t rank) {
    if (axis < -(int64_t)rank || axis >= rank) return -1;
    return (int32_t)(axis < 0 ? axis + rank : axis);
}

int32_t mp_broadcast(mp_sctx *c, const memplan_vshape *a, const memplan_vshape *b, memplan_expr *dims) {
    if (!a || !b || a->rank < 0 || b->rank < 0) return -1;
    int32_t r = a->rank > b->rank ? a->rank : b->rank;
    if (r > MEMPLAN_MAX_RANK) return -1;
    memplan_expr one = mp_const(c, 1);
    for (int32_t i = 0; i < r; i++) {
        int32_t ia = i - (r - a->rank), ib = i - (r - b->rank);
        memplan_expr da = ia >= 0 ? a->dims[ia] : one, db = ib >= 0 ? b->dims[ib] : one;
        if (da == db || db == one) dims[i] = da;
        else if (da == one)
            dims[i] = db;
        else {
            int64_t ka, kb;
            bool ca = memplan_expr_is_const(c->S->pool, da, &ka), cb = memplan_expr_is_const(c->S->pool, db, &kb);
            if (ca && cb) {
                mp_conflict(c, "cannot broadcast dims %lld and %lld", (long long)ka, (long long)kb);
                return -1;
            }
            /* One symbolic: the other (non-1) side wins; both symbolic: max. */
            dims[i] = ca ? da : cb ? db : memplan_expr_max(c->S->pool, da, db);
        }
    }
    return r;
}

bool mp_le(mp_sctx *c, memplan_expr a, memplan_expr b) {
    return memplan_expr_nonneg(c->S->pool, memplan_expr_sub(c->S->pool, b, a));
}

bool mp_double_to_int(double f, int64_t *out) {
    if (!(f >= -9007199254740992.0 && f <= 9007199254740992.0)) return false; /* also NaN */
    *out = (int64_t)f;
    return true;
}

int32_t mp_static_count(mp_sctx *c, int32_t rank, const memplan_expr *dims) {
    int64_t n = 1, k;
    for (int32_t i = 0; i < rank; i++) {
        if (!memplan_expr_is_const(c->S->pool, dims[i], &k) || k < 0) return -1;
        if (__builtin_mul_overflow(n, k, &n) || n > MEMPLAN_MAX_TRACKED_ELEMS) return -1;
    }
    return (int32_t)n;
}

memplan_expr mp_product(mp_sctx *c, int32_t rank, const memplan_expr *dims) {
    memplan_expr e = mp_const(c, 1);
    for (int32_t i = 0; i < rank; i++) e = memplan_expr_mul(c->S->pool, e, dims[i]);
    return e;
}

/* The tensor behind input k when it is an initializer or a Constant's output. */
static const memplan_tensor *const_tensor(const mp_sctx *c, int32_t k) {
    if (k < 0 || k >= c->node->n_inputs || c->node->inputs[k] < 0) return NULL;
    const memplan_graph *g = c->g;
    int32_t id = c->node->inputs[k];
    while (g && g->values[id].flags & MEMPLAN_VALUE_CAPTURE) { /* follow captures outward */
        id = g->values[id].outer;
        g = g->parent;
    }
    if (!g) return NULL;
    const memplan_value *v = &g->values[id];
    if (v->initializer) return v->initializer;
    if (v->producer < 0) return NULL;
    const memplan_node *p = &g->nodes[v->producer];
    if (strcmp(p->op_type, "Constant") != 0 || canonical_domain(p->domain)[0]) return NULL;
    for (int32_t i = 0; i < p->n_attrs; i++)
        if (p->attrs[i].type == MEMPLAN_ATTR_TENSOR && p->attrs[i].t) return p->attrs[i].t;
    return NULL;
}

bool mp_in_floats(mp_sctx *c, int32_t k, double *out, int32_t max, int32_t *n) {
    int32_t cnt, shift;
    const memplan_expr *e = mp_in_vals(c, k, &cnt, &shift);
    if (!e || cnt > max) return false;
    for (int32_t i = 0; i < cnt; i++) {
        int64_t x;
        if (!memplan_expr_is_const(c->S->pool, e[i], &x)) return false;
        out[i] = ldexp((double)x, -shift);
    }
    *n = cnt;
    return true;
}
