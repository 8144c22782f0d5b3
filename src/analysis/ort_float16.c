/*
 * ort_float16.c -- the graph ONNX Runtime's CPU execution provider runs for
 * a model with float16 tensors (memplan/ort_float16.h).
 *
 * Per graph (the main graph, then each body as the copy reaches it), on a
 * working copy of the graph whose values and nodes can be added to:
 *   1. need[]: the nodes without a float16 kernel that read a float16 tensor
 *      (ONNX Runtime leaves them without an execution provider);
 *   2. isolated nodes, in the file's order (ForceSingleNodeCPUFloat16ToFloat32):
 *      a node with a float16 kernel, fed by another node, writing no graph
 *      output, whose float16 inputs all come from nodes of need[] and whose
 *      float16 outputs are read only by such nodes, joins need[];
 *   3. the Casts, in topological order (InsertCastTransformer): each float16
 *      input of a node of need[] read through one Cast to float per value,
 *      each float16 output written as a new float32 value and cast back;
 *   4. the Casts that cancel, each Cast in ONNX Runtime's node order (the
 *      file's nodes, then the inserted ones) once (RemoveDuplicateCastTransformer):
 *      a child Cast back to the parent's input type is dropped and its
 *      readers read the parent's input; a Cast all of whose readers are Casts
 *      is dropped and they read its input.
 * Then the working copy is written as pgraph records (src/ir/build.h) and the
 * model resolved like a loaded one.
 *
 * Element types come from memplan's own inference (memplan_shapes_infer,
 * no dims bound: types do not depend on them).
 */
#include "memplan/ort_float16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/build.h"
#include "memplan/schedule.h"
#include "memplan/shapes.h"
#include "memplan/workspace.h"
#include "util/strmap.h"

#define PREFIX "InsertedPrecisionFreeCast_"

typedef struct fx_use {
    int32_t node, slot; /* slot < 0: the node's bodies capture the value */
} fx_use;

typedef struct fx_uses {
    fx_use *u;
    int32_t n, cap;
} fx_uses;

typedef struct fx_node {
    int32_t pos; /* position in the graph, -1 for an inserted Cast */
    int32_t to;  /* an inserted Cast: the element type it casts to */
    int32_t ort; /* index in ONNX Runtime's graph: the file index, then the inserted Casts in order */
    bool alive, cast;
    int32_t n_in, n_out;
    int32_t *in, *out; /* value ids, -1 for an empty slot */
    int32_t *cap;      /* the outer values its bodies read, now (a file node's captures) */
} fx_node;

/* A graph written, and ONNX Runtime's index of each node in the order written. */
typedef struct fx_ranks {
    const memplan_graph *g;
    int32_t *rank;
} fx_ranks;

/* An outer value a node's bodies read, read as another one instead. */
typedef struct fx_rename {
    int32_t node, capture; /* the node holding the bodies, in its graph; which of its captures */
    const char *from, *to; /* the name the bodies read, the name they read instead */
} fx_rename;

/* What every graph's copy shares. */
typedef struct fx_env {
    const memplan_model *m;
    const memplan_shapes *shapes;
    mp_arena *arena; /* the new model's */
    memplan_error *err;
    memplan_ort_float16_stats st;
    fx_ranks *ranks;
    size_t n_ranks, cap_ranks;
    /* The renames in force while a body is copied: those of the nodes that
     * hold it and of their graphs' holders (a stack). */
    const fx_rename **active;
    size_t n_active, cap_active;
} fx_env;

/* The working copy of one graph. */
typedef struct fx {
    fx_env *env;
    const memplan_graph *g;
    int32_t nv, nn, ne;
    int32_t capn;   /* room for nodes */
    int32_t *dtype; /* per value; 0: not a tensor, or not known */
    const char **name;
    fx_uses *uses;
    fx_node *nodes;
    int32_t *emit; /* node ids in the new graph's order */
    int32_t *pool; /* the nodes' in/out arrays */
    size_t pool_used;
    uint8_t *need;      /* per node id */
    int32_t *cast_in;   /* per value of g: its Cast to float, or -1 */
    mp_strmap taken;    /* the new names */
    fx_rename *renames; /* rewired reads of this graph's bodies */
    int32_t n_renames, cap_renames;
} fx;

static memplan_status oom(fx_env *e) { return memplan_error_set(e->err, MEMPLAN_ENOMEM, "out of memory"); }

static bool is_f16(const fx *x, int32_t v) { return v >= 0 && x->dtype[v] == MEMPLAN_DTYPE_FLOAT16; }

static bool is_graph_output(const fx *x, int32_t v) {
    return v >= 0 && v < x->g->n_values && (x->g->values[v].flags & MEMPLAN_VALUE_OUTPUT);
}

static bool add_use(fx *x, int32_t v, int32_t node, int32_t slot) {
    fx_uses *u = &x->uses[v];
    if (u->n == u->cap) {
        int32_t cap = u->cap ? 2 * u->cap : 2;
        fx_use *a = realloc(u->u, (size_t)cap * sizeof *a);
        if (!a) return false;
        u->u = a, u->cap = cap;
    }
    u->u[u->n++] = (fx_use){node, slot};
    return true;
}

static void del_use(fx *x, int32_t v, int32_t node, int32_t slot) {
    fx_uses *u = &x->uses[v];
    for (int32_t i = 0; i < u->n; i++)
        if (u->u[i].node == node && u->u[i].slot == slot) {
            memmove(&u->u[i], &u->u[i + 1], (size_t)(u->n - i - 1) * sizeof *u->u);
            u->n--;
            return;
        }
}

/* Node `node` reads `to` in input slot `slot` instead of what it read; a
 * slot < 0 is a read of its bodies (capture -1 - slot): they read `to`'s
 * name instead (ONNX Runtime renames the implicit input in the bodies). */
static bool set_input(fx *x, int32_t node, int32_t slot, int32_t to) {
    fx_node *n = &x->nodes[node];
    if (slot < 0) {
        int32_t k = -1 - slot, i = 0;
        del_use(x, n->cap[k], node, slot);
        n->cap[k] = to;
        while (i < x->n_renames && !(x->renames[i].node == node && x->renames[i].capture == k)) i++;
        if (i == x->n_renames) {
            if (x->n_renames == x->cap_renames) {
                int32_t cap = x->cap_renames ? 2 * x->cap_renames : 4;
                fx_rename *r = realloc(x->renames, (size_t)cap * sizeof *r);
                if (!r) return false;
                x->renames = r, x->cap_renames = cap;
            }
            x->renames[x->n_renames++] = (fx_rename){node, k, x->g->values[x->g->nodes[n->pos].captures[k]].name, NULL};
        }
        x->renames[i].to = x->name[to];
        return add_use(x, to, node, slot);
    }
    del_use(x, n->in[slot], node, slot);
    n->in[slot] = to;
    return add_use(x, to, node, slot);
}

/* ---- the working copy --------------------------------------------------- */

static memplan_status fx_init(fx *x, fx_env *env, const memplan_graph *g) {
    memset(x, 0, sizeof *x);
    x->env = env;
    x->g = g;
    mp_strmap_init(&x->taken);
    size_t slots = 0, caps = 0;
    for (int32_t p = 0; p < g->n_nodes; p++) {
        slots += (size_t)g->nodes[p].n_inputs + (size_t)g->nodes[p].n_outputs;
        caps += (size_t)g->nodes[p].n_captures;
    }
    /* At most one new value and one Cast per input and output slot. */
    size_t vcap = (size_t)g->n_values + slots, ncap = (size_t)g->n_nodes + slots;
    if (vcap > INT32_MAX || ncap > INT32_MAX)
        return memplan_error_set(env->err, MEMPLAN_ELIMIT, "graph '%s' is too large to rewrite", g->name);
    x->dtype = calloc(vcap ? vcap : 1, sizeof *x->dtype);
    x->name = calloc(vcap ? vcap : 1, sizeof *x->name);
    x->uses = calloc(vcap ? vcap : 1, sizeof *x->uses);
    x->nodes = calloc(ncap ? ncap : 1, sizeof *x->nodes);
    x->emit = malloc((ncap ? ncap : 1) * sizeof *x->emit);
    x->pool = malloc((3 * slots + caps + 1) * sizeof *x->pool);
    x->need = calloc(ncap ? ncap : 1, 1);
    x->cast_in = malloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *x->cast_in);
    if (!x->dtype || !x->name || !x->uses || !x->nodes || !x->emit || !x->pool || !x->need || !x->cast_in)
        return oom(env);
    x->nv = g->n_values;
    for (int32_t v = 0; v < g->n_values; v++) {
        const memplan_vshape *s = memplan_shapes_value(env->shapes, g, v);
        x->dtype[v] = s && s->kind == MEMPLAN_TYPE_TENSOR ? s->elem_type : 0;
        x->name[v] = g->values[v].name;
        x->cast_in[v] = -1;
        /* An outer value the holder's copy reads as another: read that one. */
        for (size_t i = env->n_active; (g->values[v].flags & MEMPLAN_VALUE_CAPTURE) && i-- > 0;)
            if (!strcmp(env->active[i]->from, x->name[v])) x->name[v] = env->active[i]->to;
    }
    x->nn = g->n_nodes;
    x->capn = (int32_t)ncap;
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *n = &g->nodes[p];
        fx_node *f = &x->nodes[p];
        *f = (fx_node){.pos = p, .ort = n->file_index, .alive = true, .n_in = n->n_inputs, .n_out = n->n_outputs};
        f->cast = strcmp(n->op_type, "Cast") == 0 && !n->domain[0];
        f->in = x->pool + x->pool_used;
        x->pool_used += (size_t)n->n_inputs;
        f->out = x->pool + x->pool_used;
        x->pool_used += (size_t)n->n_outputs;
        f->cap = x->pool + x->pool_used;
        x->pool_used += (size_t)n->n_captures;
        if (n->n_captures) memcpy(f->cap, n->captures, (size_t)n->n_captures * sizeof *f->cap);
        if (n->n_inputs) memcpy(f->in, n->inputs, (size_t)n->n_inputs * sizeof *f->in);
        if (n->n_outputs) memcpy(f->out, n->outputs, (size_t)n->n_outputs * sizeof *f->out);
        for (int32_t i = 0; i < n->n_inputs; i++)
            if (n->inputs[i] >= 0 && !add_use(x, n->inputs[i], p, i)) return oom(env);
        for (int32_t c = 0; c < n->n_captures; c++)
            if (!add_use(x, n->captures[c], p, -1 - c)) return oom(env);
    }
    return MEMPLAN_OK;
}

static void fx_free(fx *x) {
    for (int32_t v = 0; x->uses && v < x->nv; v++) free(x->uses[v].u);
    free(x->dtype), free(x->name), free(x->uses), free(x->nodes), free(x->emit), free(x->pool);
    free(x->need), free(x->cast_in), free(x->renames);
    mp_strmap_free(&x->taken);
}

/* A new float32 value copying v, named as ONNX Runtime names it: after the
 * name v had when the Casts were made (an outer value a body reads may be
 * renamed after that, when the Cast it came through goes). */
static int32_t new_value(fx *x, int32_t v) {
    const char *base = x->g->values[v].name;
    size_t len = strlen(PREFIX) + strlen(base) + 24;
    char *name = mp_arena_alloc(x->env->arena, len);
    if (!name) return -1;
    snprintf(name, len, PREFIX "%s", base);
    for (int k = 1; memplan_graph_find(x->g, name) >= 0 || mp_strmap_get(&x->taken, name) >= 0; k++)
        snprintf(name, len, PREFIX "%s_%d", base, k);
    int32_t id = x->nv++;
    if (!mp_strmap_put(&x->taken, name, id)) return -1;
    x->dtype[id] = MEMPLAN_DTYPE_FLOAT;
    x->name[id] = name;
    return id;
}

/* A new Cast from -> to (element type `type`), ONNX Runtime's next node. */
static int32_t new_cast(fx *x, int32_t from, int32_t to, int32_t type, int32_t *next_ort) {
    int32_t id = x->nn++;
    fx_node *f = &x->nodes[id];
    *f = (fx_node){.pos = -1, .to = type, .ort = (*next_ort)++, .alive = true, .cast = true, .n_in = 1, .n_out = 1};
    f->in = x->pool + x->pool_used++;
    f->out = x->pool + x->pool_used++;
    f->in[0] = from;
    f->out[0] = to;
    return add_use(x, from, id, 0) ? id : -1;
}

/* ---- 1, 2: the nodes run in float32 ------------------------------------- */

static bool has_bodies(const memplan_node *n) { return n->n_subgraphs > 0; }

/* ONNX Runtime reads one tensor per formal parameter: of a variadic input
 * (or output) list only the first. */
static bool variadic_inputs(const memplan_node *n) {
    static const char *const ops[] = {"Concat", "Max", "Min", "Sum", "Mean"};
    for (size_t i = 0; !n->domain[0] && i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(n->op_type, ops[i]) == 0) return true;
    return false;
}

static bool variadic_outputs(const memplan_node *n) { return !n->domain[0] && strcmp(n->op_type, "Split") == 0; }

static bool reads_f16(const fx *x, const fx_node *f) {
    for (int32_t i = 0; i < f->n_in; i++)
        if (is_f16(x, f->in[i])) return true;
    return false;
}

/* ForceSingleNodeCPUFloat16ToFloat32's test of node p (step 2 above): a node
 * with a float16 kernel, fed by a node of its graph, writing no graph output,
 * between nodes that need a cast on every float16 side. */
static bool isolated(const fx *x, int32_t p) {
    const memplan_node *n = &x->g->nodes[p];
    const fx_node *f = &x->nodes[p];
    bool fed = false;
    for (int32_t i = 0; i < f->n_in; i++) fed |= f->in[i] >= 0 && x->g->values[f->in[i]].producer >= 0;
    if (!fed || has_bodies(n)) return false;
    for (int32_t o = 0; o < f->n_out; o++)
        if (is_graph_output(x, f->out[o])) return false;
    bool any = false;
    int32_t n_in = variadic_inputs(n) ? (f->n_in ? 1 : 0) : f->n_in;
    for (int32_t i = 0; i < n_in; i++) {
        if (!is_f16(x, f->in[i])) continue;
        any = true;
        int32_t prod = x->g->values[f->in[i]].producer;
        if (prod >= 0 && !x->need[prod]) return false; /* NodeNeedsInputCastToFp32 */
    }
    if (!any) return false;
    any = false;
    int32_t n_out = variadic_outputs(n) ? (f->n_out ? 1 : 0) : f->n_out;
    for (int32_t o = 0; o < n_out; o++) {
        if (!is_f16(x, f->out[o])) continue;
        any = true;
        const fx_uses *u = &x->uses[f->out[o]];
        for (int32_t k = 0; k < u->n; k++)
            if (!x->need[u->u[k].node]) return false;
    }
    return any;
}

static memplan_status mark_float32(fx *x) {
    const memplan_graph *g = x->g;
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *n = &g->nodes[p];
        x->need[p] =
            !has_bodies(n) && !memplan_onnxruntime_cpu_float16(n->domain, n->op_type) && reads_f16(x, &x->nodes[p]);
    }
    int32_t *by_file = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *by_file);
    if (!by_file) return oom(x->env);
    for (int32_t p = 0; p < g->n_nodes; p++) by_file[g->nodes[p].file_index] = p;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        int32_t p = by_file[i];
        if (x->need[p] || !reads_f16(x, &x->nodes[p]) || !isolated(x, p)) continue;
        x->need[p] = 1;
        x->env->st.forced++;
    }
    free(by_file);
    for (int32_t p = 0; p < g->n_nodes; p++) x->env->st.float32_nodes += x->need[p];
    return MEMPLAN_OK;
}

/* ---- 3: the Casts -------------------------------------------------------- */

/* ONNX Runtime's default topological order of g: the order its
 * InsertCastTransformer visits the nodes in, which numbers the Casts. It is
 * MEMPLAN_ORDER_ONNXRUNTIME's walk (memplan/schedule.h) over the graph's links
 * (each node's inputs and the outer values its bodies read) with the file
 * indices as ranks; no buffers. */
static memplan_status ort_topo(const fx *x, int32_t *order) {
    const memplan_graph *g = x->g;
    int32_t n = g->n_nodes;
    size_t reads = 0;
    for (int32_t p = 0; p < n; p++) reads += (size_t)g->nodes[p].n_inputs + (size_t)g->nodes[p].n_captures;
    int32_t *start = malloc(((size_t)n + 1) * sizeof *start), *pred = malloc((reads ? reads : 1) * sizeof *pred);
    int32_t *rank = malloc(((size_t)n + 1) * sizeof *rank), no_use = 0;
    memplan_status st = start && pred && rank ? MEMPLAN_OK : oom(x->env);
    int32_t e = 0;
    for (int32_t p = 0; !st && p < n; p++) {
        const memplan_node *nd = &g->nodes[p];
        start[p] = e;
        rank[p] = nd->file_index;
        for (int32_t k = 0; k < nd->n_inputs + nd->n_captures; k++) {
            int32_t v = k < nd->n_inputs ? nd->inputs[k] : nd->captures[k - nd->n_inputs];
            if (v >= 0 && g->values[v].producer >= 0) pred[e++] = g->values[v].producer;
        }
    }
    if (!st) {
        start[n] = e;
        memplan_sched_problem q = {.n_steps = n,
                                   .pred_start = start,
                                   .pred = pred,
                                   .use_start = &no_use,
                                   .rank = rank,
                                   .edge_start = start,
                                   .edge = pred};
        memplan_schedule sc;
        st = memplan_schedule_run(&q, MEMPLAN_ORDER_ONNXRUNTIME, 0, &sc, x->env->err);
        if (!st) memcpy(order, sc.order, (size_t)n * sizeof *order);
        memplan_schedule_free(&sc);
    }
    free(start), free(pred), free(rank);
    return st;
}

/* The Casts, made in ONNX Runtime's order (which numbers them); each written
 * where it runs in the file's order: a Cast to float right before the first
 * node that reads it, a Cast back right after the node that writes its input. */
static memplan_status insert_casts(fx *x) {
    const memplan_graph *g = x->g;
    int32_t n = g->n_nodes, next_ort = n;
    int32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    int32_t *anchor = malloc(((size_t)x->capn + 1) * sizeof *anchor); /* per Cast: 2 x its node, + 1 after it */
    memplan_status st = order && anchor ? ort_topo(x, order) : oom(x->env);
    for (int32_t i = 0; !st && i < n; i++) {
        int32_t p = order[i];
        fx_node *f = &x->nodes[p];
        if (!x->need[p]) continue;
        for (int32_t k = 0; !st && k < f->n_in; k++) {
            int32_t v = f->in[k];
            if (!is_f16(x, v)) continue;
            if (x->cast_in[v] < 0) {
                int32_t c = new_value(x, v), cast = c >= 0 ? new_cast(x, v, c, MEMPLAN_DTYPE_FLOAT, &next_ort) : -1;
                if (cast < 0) {
                    st = oom(x->env);
                    break;
                }
                x->cast_in[v] = c;
                anchor[cast] = 2 * p;
            }
            if (!set_input(x, p, k, x->cast_in[v])) st = oom(x->env);
        }
        for (int32_t o = 0; !st && o < f->n_out; o++) {
            int32_t v = f->out[o];
            if (!is_f16(x, v)) continue;
            int32_t c = new_value(x, v), cast = c >= 0 ? new_cast(x, c, v, MEMPLAN_DTYPE_FLOAT16, &next_ort) : -1;
            if (cast < 0) {
                st = oom(x->env);
                break;
            }
            f->out[o] = c;
            anchor[cast] = 2 * p + 1;
        }
    }
    /* A Cast to float goes before the first of its readers in the file's order. */
    for (int32_t c = n; !st && c < x->nn; c++) {
        if (anchor[c] & 1) continue;
        const fx_uses *u = &x->uses[x->nodes[c].out[0]];
        for (int32_t k = 0; k < u->n; k++)
            if (2 * u->u[k].node < anchor[c]) anchor[c] = 2 * u->u[k].node;
    }
    /* Written: each node with its Casts around it, the Casts in the order made. */
    int32_t *at = st ? NULL : calloc(2 * (size_t)n + 2, sizeof *at);
    if (!st && !at) st = oom(x->env);
    for (int32_t c = n; !st && c < x->nn; c++) at[anchor[c] + 1]++;
    for (int32_t i = 0; !st && i < 2 * n; i++) at[i + 1] += at[i];
    int32_t *slot = st ? NULL : malloc(((size_t)x->nn - (size_t)n + 1) * sizeof *slot);
    if (!st && !slot) st = oom(x->env);
    for (int32_t c = n; !st && c < x->nn; c++) slot[at[anchor[c]]++] = c;
    for (int32_t p = 0, j = 0; !st && p < n; p++) {
        for (; j < x->nn - n && anchor[slot[j]] == 2 * p; j++) x->emit[x->ne++] = slot[j];
        x->emit[x->ne++] = p;
        for (; j < x->nn - n && anchor[slot[j]] == 2 * p + 1; j++) x->emit[x->ne++] = slot[j];
    }
    free(order), free(anchor), free(at), free(slot);
    return st;
}

/* ---- 4: the Casts that cancel ------------------------------------------- */

enum { G_UNKNOWN, G_BOOL, G_INT, G_UINT, G_FLOAT };

static int type_group(int32_t t) {
    switch (t) {
    case MEMPLAN_DTYPE_BOOL: return G_BOOL;
    case MEMPLAN_DTYPE_INT8:
    case MEMPLAN_DTYPE_INT16:
    case MEMPLAN_DTYPE_INT32:
    case MEMPLAN_DTYPE_INT64: return G_INT;
    case MEMPLAN_DTYPE_UINT8:
    case MEMPLAN_DTYPE_UINT16:
    case MEMPLAN_DTYPE_UINT32:
    case MEMPLAN_DTYPE_UINT64: return G_UINT;
    case MEMPLAN_DTYPE_BFLOAT16:
    case MEMPLAN_DTYPE_DOUBLE:
    case MEMPLAN_DTYPE_FLOAT:
    case MEMPLAN_DTYPE_FLOAT16: return G_FLOAT;
    default: return G_UNKNOWN;
    }
}

/* RemoveDuplicateCastTransformer's UnsafeCast: whether casting src to dst
 * may lose something (a Cast ONNX Runtime inserted loses nothing it had). */
static bool unsafe_cast(int32_t src, int32_t dst, bool inserted) {
    int gs = type_group(src), gd = type_group(dst);
    if (gs == G_UNKNOWN || gd == G_UNKNOWN) return true;
    if (gs != G_BOOL && gs != G_UINT && gd == G_UINT) return true;
    if (gs == G_FLOAT && gd != G_FLOAT) return true;
    unsigned bs = src == MEMPLAN_DTYPE_BOOL ? 1 : memplan_dtype_bits(src);
    unsigned bd = dst == MEMPLAN_DTYPE_BOOL ? 1 : memplan_dtype_bits(dst);
    if (gs == G_UINT && gd == G_INT) return bd <= bs;
    if ((gs == G_INT || gs == G_UINT) && gd == G_FLOAT) return bd <= bs;
    if ((src == MEMPLAN_DTYPE_FLOAT16 && dst == MEMPLAN_DTYPE_BFLOAT16) ||
        (src == MEMPLAN_DTYPE_BFLOAT16 && dst == MEMPLAN_DTYPE_FLOAT16))
        return true;
    return bs > bd && !inserted;
}

static void kill(fx *x, int32_t node) {
    fx_node *f = &x->nodes[node];
    for (int32_t i = 0; i < f->n_in; i++)
        if (f->in[i] >= 0) del_use(x, f->in[i], node, i);
    f->alive = false;
    if (f->pos >= 0) x->env->st.casts_removed++;
}

/* Every reader of `from` reads `to` (bodies too); false when memory runs out. */
static bool rewire(fx *x, int32_t from, int32_t to) {
    while (x->uses[from].n) {
        fx_use u = x->uses[from].u[0];
        if (!set_input(x, u.node, u.slot, to)) return false;
    }
    return true;
}

static int32_t cast_type(const fx *x, int32_t v) { return v >= 0 ? x->dtype[v] : 0; }

static memplan_status remove_pairs_at(fx *x, int32_t c, int32_t *kids) {
    fx_node *f = &x->nodes[c];
    if (!f->alive || f->n_in < 1 || f->n_out < 1 || f->in[0] < 0 || f->out[0] < 0) return MEMPLAN_OK;
    int32_t in = f->in[0], out = f->out[0];
    int32_t src = cast_type(x, in), dst = cast_type(x, out);
    bool lossy = unsafe_cast(src, dst, f->pos < 0);
    const fx_uses *u = &x->uses[out];
    int32_t children = u->n, n_remove = 0, n_keep = 0;
    bool keep_to_bool = false;
    for (int32_t k = 0; k < u->n; k++) {
        const fx_node *ch = &x->nodes[u->u[k].node];
        if (!ch->cast || u->u[k].slot != 0) continue;
        int32_t src1 = cast_type(x, ch->in[0]), dst1 = cast_type(x, ch->out[0]);
        if (lossy && unsafe_cast(dst1, src1, ch->pos < 0)) return MEMPLAN_OK;
        if (!is_graph_output(x, ch->out[0]) && src == dst1 && src1 == dst) kids[n_remove++] = u->u[k].node;
        else {
            kids[children + n_keep++] = u->u[k].node;
            keep_to_bool |= type_group(dst1) == G_BOOL;
        }
    }
    for (int32_t k = 0; k < n_remove; k++) {
        int32_t child = kids[k], cout = x->nodes[child].out[0];
        kill(x, child);
        if (!rewire(x, cout, in)) return oom(x->env);
    }
    if (children > 0 && n_remove + n_keep == children && !is_graph_output(x, out) && !(lossy && keep_to_bool)) {
        for (int32_t k = 0; k < n_keep; k++)
            if (!set_input(x, kids[children + k], 0, in)) return oom(x->env);
        kill(x, c);
    }
    return MEMPLAN_OK;
}

static memplan_status remove_pairs(fx *x) {
    /* The Casts in ONNX Runtime's node order. */
    int32_t *order = malloc((size_t)(x->nn ? x->nn : 1) * sizeof *order), *kids = NULL, room = 0;
    if (!order) return oom(x->env);
    for (int32_t i = 0; i < x->nn; i++) order[x->nodes[i].ort] = i; /* ort: a permutation of the nodes */
    memplan_status st = MEMPLAN_OK;
    for (int32_t i = 0; !st && i < x->nn; i++) {
        const fx_node *f = &x->nodes[order[i]];
        if (!f->cast || f->n_out < 1 || f->out[0] < 0) continue;
        int32_t n = x->uses[f->out[0]].n; /* its readers now: the removed and the kept, apart */
        if (n > room) {
            int32_t *k = realloc(kids, (size_t)(2 * n) * sizeof *k);
            if (!k) {
                st = oom(x->env);
                break;
            }
            kids = k, room = n;
        }
        st = remove_pairs_at(x, order[i], kids);
    }
    free(order), free(kids);
    return st;
}

/* ---- the copy as pgraph records ----------------------------------------- */

static memplan_status copy_graph(fx_env *env, const memplan_graph *g, mp_pgraph **out);

static memplan_status copy_attrs(fx_env *env, const memplan_node *n, bool casted, mp_pnode *pn) {
    mp_arena *a = env->arena;
    memplan_attr *attrs = mp_arena_array(a, (size_t)n->n_attrs, sizeof *attrs);
    pn->sub = mp_arena_array(a, (size_t)n->n_subgraphs, sizeof *pn->sub);
    if ((n->n_attrs && !attrs) || (n->n_subgraphs && !pn->sub)) return oom(env);
    if (n->n_attrs) memcpy(attrs, n->attrs, (size_t)n->n_attrs * sizeof *attrs);
    for (int32_t i = 0; i < n->n_attrs; i++) {
        memplan_attr *at = &attrs[i];
        if (casted && at->type == MEMPLAN_ATTR_INT && strcmp(at->name, "dtype") == 0 && at->i == MEMPLAN_DTYPE_FLOAT16)
            at->i = MEMPLAN_DTYPE_FLOAT;
        memplan_status st;
        if (at->type == MEMPLAN_ATTR_GRAPH && at->g) {
            if (pn->n_sub >= n->n_subgraphs) return memplan_error_set(env->err, MEMPLAN_EINTERNAL, "bodies miscounted");
            if ((st = copy_graph(env, at->g, &pn->sub[pn->n_sub]))) return st;
            at->g = pn->sub[pn->n_sub++]->g;
        } else if (at->type == MEMPLAN_ATTR_GRAPHS && at->n) {
            const memplan_graph **gs = mp_arena_array(a, at->n, sizeof *gs);
            if (!gs) return oom(env);
            for (size_t k = 0; k < at->n; k++) {
                if (pn->n_sub >= n->n_subgraphs)
                    return memplan_error_set(env->err, MEMPLAN_EINTERNAL, "bodies miscounted");
                if ((st = copy_graph(env, at->graphs[k], &pn->sub[pn->n_sub]))) return st;
                gs[k] = pn->sub[pn->n_sub++]->g;
            }
            at->graphs = gs;
        }
    }
    pn->attrs = attrs;
    pn->n_attrs = n->n_attrs;
    return MEMPLAN_OK;
}

static memplan_status names_of(fx *x, const int32_t *ids, int32_t n, const char ***out) {
    *out = mp_arena_array(x->env->arena, (size_t)n, sizeof **out);
    if (n && !*out) return oom(x->env);
    for (int32_t i = 0; i < n; i++) (*out)[i] = ids[i] >= 0 ? x->name[ids[i]] : "";
    return MEMPLAN_OK;
}

static memplan_status write_node(fx *x, int32_t id, mp_pnode *pn) {
    const fx_node *f = &x->nodes[id];
    memplan_status st;
    if ((st = names_of(x, f->in, f->n_in, &pn->in)) || (st = names_of(x, f->out, f->n_out, &pn->out))) return st;
    pn->n_in = f->n_in;
    pn->n_out = f->n_out;
    if (f->pos < 0) { /* an inserted Cast */
        memplan_attr *to = mp_arena_alloc(x->env->arena, sizeof *to);
        if (!to) return oom(x->env);
        *to = (memplan_attr){.name = "to", .type = MEMPLAN_ATTR_INT, .i = f->to};
        pn->name = x->name[f->out[0]];
        pn->op_type = "Cast";
        pn->domain = pn->overload = "";
        pn->attrs = to;
        pn->n_attrs = 1;
        x->env->st.casts++;
        return MEMPLAN_OK;
    }
    const memplan_node *n = &x->g->nodes[f->pos];
    pn->name = n->name;
    pn->op_type = n->op_type;
    pn->domain = n->domain;
    pn->overload = n->overload;
    pn->n_meta = n->n_metadata;
    pn->meta = n->metadata;
    /* Its bodies read the outer values rewired as the values they now are. */
    fx_env *e = x->env;
    size_t mark = e->n_active;
    for (int32_t i = 0; i < x->n_renames; i++) {
        if (x->renames[i].node != id) continue;
        if (e->n_active == e->cap_active) {
            size_t cap = e->cap_active ? 2 * e->cap_active : 8;
            const fx_rename **a = realloc(e->active, cap * sizeof *a);
            if (!a) return oom(e);
            e->active = a, e->cap_active = cap;
        }
        e->active[e->n_active++] = &x->renames[i];
    }
    st = copy_attrs(e, n, x->need[f->pos], pn);
    e->n_active = mark;
    return st;
}

/* A declaration of value v of g (its metadata on its first declaration). */
static void declare(const memplan_graph *g, int32_t v, uint8_t *met, mp_decl *d) {
    const memplan_value *val = &g->values[v];
    *d = (mp_decl){val->name, val->type, 0, NULL};
    if (!met[v]) d->n_meta = val->n_metadata, d->meta = val->metadata;
    met[v] = 1;
}

/* Whether value v of g had a value_info entry the new graph keeps: declared,
 * not a graph input, output or initializer, and still made by a node. */
static bool value_info_of(const memplan_graph *g, int32_t v, const uint8_t *defined) {
    uint32_t f = g->values[v].flags;
    return (f & MEMPLAN_VALUE_DECLARED) &&
           !(f & (MEMPLAN_VALUE_INPUT | MEMPLAN_VALUE_OUTPUT | MEMPLAN_VALUE_INITIALIZER)) && defined[v];
}

static memplan_status write_decls(fx *x, const uint8_t *defined, mp_pgraph *pg) {
    const memplan_graph *g = x->g;
    mp_arena *a = x->env->arena;
    uint8_t *met = calloc((size_t)(g->n_values ? g->n_values : 1), 1);
    int32_t n_vinfo = 0;
    for (int32_t v = 0; v < g->n_values; v++) n_vinfo += value_info_of(g, v, defined);
    pg->inputs = mp_arena_array(a, (size_t)g->n_inputs, sizeof *pg->inputs);
    pg->outputs = mp_arena_array(a, (size_t)g->n_outputs, sizeof *pg->outputs);
    pg->vinfo = mp_arena_array(a, (size_t)n_vinfo, sizeof *pg->vinfo);
    pg->inits = mp_arena_array(a, (size_t)g->n_initializers, sizeof *pg->inits);
    if (!met || (g->n_inputs && !pg->inputs) || (g->n_outputs && !pg->outputs) || (n_vinfo && !pg->vinfo) ||
        (g->n_initializers && !pg->inits)) {
        free(met);
        return oom(x->env);
    }
    for (int32_t i = 0; i < g->n_inputs; i++) declare(g, g->inputs[i], met, &pg->inputs[pg->n_inputs++]);
    for (int32_t i = 0; i < g->n_outputs; i++) declare(g, g->outputs[i], met, &pg->outputs[pg->n_outputs++]);
    for (int32_t v = 0; v < g->n_values; v++)
        if (value_info_of(g, v, defined)) declare(g, v, met, &pg->vinfo[pg->n_vinfo++]);
    for (int32_t i = 0; i < g->n_initializers; i++)
        pg->inits[pg->n_inits++] = *g->values[g->initializers[i]].initializer;
    free(met);
    return MEMPLAN_OK;
}

/* ONNX Runtime's index of each node written (the file's nodes, then the
 * inserted Casts, each in order; numbered without the nodes dropped), kept
 * for memplan_onnxruntime_cpu_graph to give the resolved nodes. */
static memplan_status keep_ranks(fx *x, const mp_pgraph *pg) {
    fx_env *e = x->env;
    int32_t *by_ort = malloc((size_t)(x->nn ? x->nn : 1) * sizeof *by_ort);
    int32_t *rank = mp_arena_array(e->arena, (size_t)pg->n_nodes, sizeof *rank);
    if (e->n_ranks == e->cap_ranks) {
        size_t cap = e->cap_ranks ? 2 * e->cap_ranks : 8;
        fx_ranks *r = realloc(e->ranks, cap * sizeof *r);
        if (r) e->ranks = r, e->cap_ranks = cap;
    }
    if (!by_ort || (pg->n_nodes && !rank) || e->n_ranks == e->cap_ranks) {
        free(by_ort);
        return oom(e);
    }
    for (int32_t i = 0; i < x->nn; i++) by_ort[i] = -1;
    for (int32_t k = 0, i = 0; k < x->ne; k++) /* written position of each alive node, by its ONNX Runtime index */
        if (x->nodes[x->emit[k]].alive) by_ort[x->nodes[x->emit[k]].ort] = i++;
    for (int32_t i = 0, r = 0; i < x->nn; i++)
        if (by_ort[i] >= 0) rank[by_ort[i]] = r++;
    free(by_ort);
    e->ranks[e->n_ranks++] = (fx_ranks){pg->g, rank};
    return MEMPLAN_OK;
}

static memplan_status write_graph(fx *x, mp_pgraph **out) {
    const memplan_graph *g = x->g;
    mp_pgraph *pg = mp_pgraph_new(x->env->arena, g->name);
    uint8_t *defined = calloc((size_t)(g->n_values ? g->n_values : 1), 1);
    if (!pg || !defined) {
        free(defined);
        return oom(x->env);
    }
    pg->n_meta = g->n_metadata;
    pg->meta = g->metadata;
    int32_t alive = 0;
    for (int32_t i = 0; i < x->ne; i++) alive += x->nodes[x->emit[i]].alive;
    pg->nodes = mp_arena_array(x->env->arena, (size_t)alive, sizeof *pg->nodes);
    memplan_status st = alive && !pg->nodes ? oom(x->env) : MEMPLAN_OK;
    for (int32_t i = 0; !st && i < x->ne; i++) {
        const fx_node *f = &x->nodes[x->emit[i]];
        if (!f->alive) continue;
        for (int32_t o = 0; o < f->n_out; o++)
            if (f->out[o] >= 0 && f->out[o] < g->n_values) defined[f->out[o]] = 1;
        st = write_node(x, x->emit[i], &pg->nodes[pg->n_nodes++]);
    }
    if (!st) st = write_decls(x, defined, pg);
    if (!st) st = keep_ranks(x, pg);
    free(defined);
    *out = pg;
    return st;
}

static memplan_status copy_graph(fx_env *env, const memplan_graph *g, mp_pgraph **out) {
    fx x;
    memplan_status st = fx_init(&x, env, g);
    if (!st) st = mark_float32(&x);
    if (!st) st = insert_casts(&x);
    if (!st) st = remove_pairs(&x);
    if (!st) st = write_graph(&x, out);
    fx_free(&x);
    return st;
}

static memplan_status build_main(mp_arena *arena, void *ctx, mp_pgraph **main, memplan_error *err) {
    fx_env *env = ctx;
    env->arena = arena;
    env->err = err;
    return copy_graph(env, env->m->graph, main);
}

static bool calls_functions(const memplan_graph *g) {
    for (int32_t p = 0; p < g->n_nodes; p++) {
        if (g->nodes[p].call) return true;
        for (int32_t k = 0; k < g->nodes[p].n_subgraphs; k++)
            if (calls_functions(g->nodes[p].subgraphs[k])) return true;
    }
    return false;
}

memplan_status memplan_onnxruntime_cpu_graph(const memplan_model *m, memplan_model **out,
                                             memplan_ort_float16_stats *stats, memplan_error *err) {
    *out = NULL;
    if (stats) memset(stats, 0, sizeof *stats);
    if (calls_functions(m->graph))
        return memplan_error_set(
            err, MEMPLAN_EUSAGE,
            "the graph ONNX Runtime's CPU execution provider runs is not made for models that call "
            "model-local functions");
    fx_env env = {.m = m};
    memplan_shapes *shapes = NULL;
    memplan_status st = memplan_shapes_infer(m, &shapes, err);
    if (st) return st;
    env.shapes = shapes;
    st = mp_model_build(m, build_main, &env, out, err);
    memplan_shapes_free(shapes);
    /* Resolved, each node's file index is its written position (the order
     * planned); it becomes ONNX Runtime's index, which its order reads. */
    for (size_t i = 0; !st && i < env.n_ranks; i++) {
        memplan_node *nodes = (memplan_node *)env.ranks[i].g->nodes; /* the new model's own */
        for (int32_t p = 0; p < env.ranks[i].g->n_nodes; p++)
            nodes[p].file_index = env.ranks[i].rank[nodes[p].file_index];
    }
    free(env.ranks);
    free(env.active);
    if (!st && stats) *stats = env.st;
    return st;
}
