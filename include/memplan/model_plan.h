/*
 * memplan/model_plan.h -- plan a model's activation memory in one call.
 *
 * The whole pipeline behind `memplan plan`: shape inference under the dim
 * bindings, the view map (the default policy, plus in-place reuse pairs when
 * asked), liveness, byte sizes, and then -- when every buffer's size is
 * known -- the best-fit slot plan, the exact-reuse slot plan and the arena.
 * The result is a plain struct: read its fields, free it with
 * memplan_model_plan_free().
 *
 *   memplan_plan_options o;
 *   memplan_plan_options_init(&o);
 *   memplan_binding dims[] = {{"batch", 1}, {"seq", 128}};
 *   o.bindings = dims;  o.n_bindings = 2;
 *   memplan_model_plan *p;
 *   if (memplan_plan_model(model, &o, &p, &err)) { ...err.message... }
 *   if (!p->deferred) {
 *       void *arena = aligned_alloc(p->align, p->arena.arena_bytes);
 *       for (size_t i = 0; i < p->n_values; i++)    // views share their owner's offset
 *           if (p->values[i].placed)
 *               ptr[p->values[i].value] = (char *)arena + p->values[i].arena_offset;
 *   }
 *   memplan_model_plan_free(p);
 *
 * examples/allocate.c is that program in full.
 *
 * One plan holds both layouts a runtime may use: the arena (one buffer,
 * byte offsets, `arena`) and the slot plan (reusable slots, `slots`; laid
 * out one after another at aligned offsets, `slot_offset`). `figures[]`
 * gives the headline numbers of each (index with memplan_strategy).
 *
 * Positions are node indices in the graph's topological order (node i of
 * plan->graph runs at position i); intervals are inclusive [start, end].
 * A plan is a tree: each control-flow body has a plan of its own
 * (subgraphs[]), and the node that runs it holds the body's memory as one
 * transient buffer at its position (transients[]), so the parent's arena,
 * peak and lower bound include it. Weights -- initializers and what a runtime
 * folds at load (memplan/constants.h) -- are never activations.
 */
#ifndef MEMPLAN_MODEL_PLAN_H
#define MEMPLAN_MODEL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/constants.h"
#include "memplan/error.h"
#include "memplan/liveness.h"
#include "memplan/model.h"
#include "memplan/plan.h"
#include "memplan/schedule.h"
#include "memplan/shapes.h"
#include "memplan/sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which layout the headline figures describe. */
typedef enum memplan_strategy { MEMPLAN_STRATEGY_ARENA = 0, MEMPLAN_STRATEGY_SLOTS = 1 } memplan_strategy;
#define MEMPLAN_STRATEGY_COUNT 2

/* A dim the user gives a range for ("seq=1..2048"): planned at hi when
 * options.upper_bounds is set, otherwise left unbound (the plan defers and
 * names it). */
typedef struct memplan_dim_range {
    const char *name;
    int64_t lo, hi;  /* 0 <= lo <= hi */
    uint32_t points; /* `memplan sweep`: how many values lo..hi to plan (0: not
                        given); plans ignore it */
} memplan_dim_range;

typedef struct memplan_plan_options {
    uint64_t align;                  /* arena alignment: a power of two (default 64) */
    uint32_t budget_ms;              /* the arena's improvement search (default 20); it counts
                                        work, not time, so a budget gives the same plan anywhere */
    bool include_inputs;             /* graph inputs own buffers too, live from position 0 */
    bool inplace;                    /* an output shares the buffer of the input it may reuse in
                                        place (memplan/inplace.h), unless that buffer is read later
                                        or belongs to a protected value (in every graph) */
    bool allow_input_overwrite;      /* with inplace: graph inputs may be reused */
    bool constants_as_activations;   /* plan Constant outputs and constant-foldable values as
                                        activations (for runtimes that do not fold them at load) */
    const memplan_binding *bindings; /* dim name -> value; read during the call only */
    size_t n_bindings;
    const memplan_input_value *values; /* graph input values (memplan/shapes.h); read during the call */
    size_t n_values;
    memplan_order_kind order;        /* the execution order of the main graph and every body
                                        (memplan/schedule.h; default MEMPLAN_ORDER_FILE: the model's) */
    uint32_t order_budget_ms;        /* work budget of the beam and exact schedulers (default 20) */
    bool upper_bounds;               /* plan every data-dependent dim (memplan/shapes.h) at its
                                        bound and every ranged dim at its hi: one arena valid for
                                        every size in range (see bounded[] in the plan) */
    const memplan_dim_range *ranges; /* read during the call; a name also in bindings is an error */
    size_t n_ranges;
    bool share_kv;         /* each main-graph output named present* is written into the
                              buffer of the graph input named past_key_values* or past*
                              with the same rest of its name (a runtime that binds a KV
                              cache's past and present to one buffer, as ONNX Runtime
                              GenAI does with past_present_share_buffer): the output is
                              a view of the input. No such pair, or an output larger
                              than its input, is an error (EUSAGE). */
    bool fuse_qdq;         /* plan each QDQ node unit (memplan/qdq.h) fused, as ONNX
                              Runtime's CPU execution provider runs it: the op reads
                              the quantized inputs and writes the quantized output, so
                              the float values between DequantizeLinear and
                              QuantizeLinear take no memory (in every graph). Default:
                              the graph as written. */
    bool qdq_int8;         /* the QDQ units (memplan_qdq_unit_list) as ONNX Runtime
                              finds them where int8 QDQ is allowed (ARM64, or the
                              session option session.qdqisint8allowed): int8 Conv and
                              MatMul units fuse. Default: as on x86-64, where they do
                              not, and int8 pairs made uint8 first fuse. */
    bool kernel_workspace; /* each node's kernel workspace as ONNX Runtime's CPU
                              kernels allocate it (memplan/workspace.h) is a
                              buffer live at the node's position (in every
                              graph): the figures include it. Default: the
                              plan holds tensors only, and says what the
                              kernels would add (memplan_model_plan.workspace). */
} memplan_plan_options;

/* The defaults above, no bindings. */
void memplan_plan_options_init(memplan_plan_options *o);

/* One value of the plan: a buffer owner, or a view of one. */
typedef struct memplan_value_plan {
    int32_t value;         /* value id in plan->graph */
    int32_t owner;         /* the value owning the buffer: `value` itself, or a view's root */
    bool view;             /* owner != value */
    memplan_size size;     /* the value's own byte size under the bindings */
    int32_t start, end;    /* the owner's live interval, inclusive positions */
    int64_t buffer;        /* the owner's index in buffers[], -1 when its size is not known */
    bool placed;           /* the plan is planned and the owner has a buffer; then: */
    size_t slot;           /* best-fit slot id */
    uint64_t slot_offset;  /* that slot's offset in the slot layout */
    uint64_t arena_offset; /* the owner's offset in the arena */
} memplan_value_plan;

/* The headline numbers of one strategy; all zero while deferred. */
typedef struct memplan_plan_figures {
    uint64_t naive_bytes;        /* one buffer per owner: arena sizes rounded up to align, slot sizes raw */
    uint64_t peak_bytes;         /* arena: the arena size; slots: the sum of slot capacities */
    uint64_t layout_bytes;       /* the memory laid out at aligned offsets: the arena size;
                                    slots: the end of the slot layout (slot_offset), padding included */
    uint64_t lower_bound_bytes;  /* most bytes live at one position, on the same basis as naive */
    double savings_ratio;        /* 1 - peak/naive, 0 when naive is 0 */
    int32_t peak_position;       /* first position where lower_bound_bytes are live (-1: no buffers) */
    bool inplace_saved_known;    /* options.inplace and both plans planned: */
    int64_t inplace_saved_bytes; /* peak without in-place reuse minus peak with it */
} memplan_plan_figures;

/* An in-place reuse pair applied as a view link: `value` shares `source`'s buffer. */
typedef struct memplan_plan_link {
    int32_t value;
    int32_t source;
} memplan_plan_link;

typedef struct memplan_model_plan memplan_model_plan;

/* The execution order a plan is made under (options.order other than file).
 * The main graph's nodes run in another topological order: the plan's graph
 * is the model's graph with its nodes in that order (node i of plan->graph
 * runs at position i), and `node` maps back. The order is chosen on the
 * arena's lower bound (aligned sizes, without in-place reuse); with best, a
 * plan whose lower bound would be above the file order's keeps the file
 * order. Every body is ordered the same way, before its parent (its chosen
 * order lowers its arena, hence the parent's transient): its plan's graph
 * is the body with its nodes in its order, and its `order` says which; with
 * best, a body whose arena would be above the file order's keeps the file
 * order (in it and below it). `file` is always the plan with every graph
 * below it in the file order. */
typedef struct memplan_plan_order {
    memplan_order_kind asked;                          /* options.order */
    memplan_order_kind kind;                           /* the scheduler whose order this is (file when none lowers
                                                          the lower bound, or the plan is deferred) */
    bool exact;                                        /* no order has a lower bound below it */
    const int32_t *node;                               /* per position: the node's index in the model's graph;
                                                          NULL when the order is the model's */
    memplan_plan_figures file[MEMPLAN_STRATEGY_COUNT]; /* the figures under the model's order */
} memplan_plan_order;

/* A dim an upper-bound plan fixed at its maximum. */
typedef struct memplan_bounded_dim {
    const char *name; /* raw; plan-owned */
    int64_t value;    /* the value planned */
    bool data;        /* a data-dependent dim at its bound, else a user's range */
    int64_t lo;       /* a range's lo (0 for a data dim) */
} memplan_bounded_dim;

/* Which branch of an If a body is. */
typedef enum memplan_branch {
    MEMPLAN_BRANCH_NONE = 0,  /* not an If branch */
    MEMPLAN_BRANCH_TAKEN,     /* the condition is known and selects it */
    MEMPLAN_BRANCH_NOT_TAKEN, /* the condition is known and selects the other */
    MEMPLAN_BRANCH_UNKNOWN    /* the condition is not known */
} memplan_branch;

/* A control-flow node's body (If then_branch/else_branch, Loop and Scan body,
 * com.microsoft BeamSearch/GreedySearch/WhisperBeamSearch encoder/decoder...),
 * planned on its own: liveness, slots and arena over the body's nodes. Its
 * inputs and captured outer values are the parent's buffers; an If branch's
 * outputs are the If's outputs (the parent's buffers, written in place). */
typedef struct memplan_subgraph_plan {
    int32_t node;          /* position of the node in the parent graph */
    const char *attribute; /* then_branch, else_branch, body, decoder, ... */
    memplan_branch branch;
    bool counted;             /* its memory is in the node's transient buffer */
    bool known;               /* the body planned and its state sizes are known */
    uint64_t state_bytes;     /* body inputs the node holds while it runs: one
                                 iteration's loop-carried state (aligned sizes) */
    uint64_t transient_bytes; /* the body's arena + state_bytes */
    const memplan_model_plan *plan;
} memplan_subgraph_plan;

/* The memory a node needs while it runs beside its tensors: one buffer of
 * the parent, live at the node's position only.
 *
 * A control-flow node's bodies: If, the branch the condition selects, or
 * the larger when it is not known; Loop, Scan and the rest, the largest
 * body's arena plus its state, reused by every iteration.
 *
 * With options.kernel_workspace, another node's kernel workspace
 * (workspace = true; memplan/workspace.h): `assumption` says what the
 * kernel allocates, and the naive figures count it once. */
typedef struct memplan_transient {
    int32_t node;   /* position */
    bool workspace; /* a kernel's workspace, not a body's memory */
    bool known;     /* every counted body is known (a workspace: its size is) */
    uint64_t bytes;
    /* What the node's share of the naive figure is: the counted body's own
     * naive total (every buffer of it allocated apart) + its state, the
     * largest of the counted bodies; [0] the arena's (aligned sizes), [1] the
     * slot plan's (raw). 0 when not known. */
    uint64_t naive_bytes[2];
    const char *assumption; /* NULL, or why a branch was chosen without knowing (static text) */
    int64_t buffer;         /* index in buffers[], -1 when not known */
    bool placed;
    size_t slot;
    uint64_t slot_offset, arena_offset;
} memplan_transient;

struct memplan_model_plan {
    const memplan_graph *graph;       /* borrowed from the model */
    memplan_shapes *shapes;           /* shapes under the bindings (dtype, dims, pool); owned
                                         by the main graph's plan, shared by the bodies' */
    const memplan_model_plan *parent; /* NULL for the main graph */
    memplan_plan_options options;     /* as given; bindings copied (values and ranges dropped),
                                         followed by the bounded dims of an upper-bound plan */
    bool deferred;                    /* some size is not known: no placement */
    int32_t positions;                /* nodes of the graph */

    const memplan_size *size;  /* per value id (every value of the graph) */
    const uint8_t *constant;   /* per value id: MEMPLAN_CONST_* (memplan/constants.h) */
    memplan_liveness liveness; /* owners, roots and intervals */

    /* Buffers: owners with a known size in placement order (liveness order),
     * then the known transient buffers of control-flow nodes. */
    size_t n_buffers;
    const memplan_buffer *buffers; /* half-open [start, end + 1) and bytes */
    const int32_t *buffer_value;   /* value id of each buffer, -1 for a transient */

    /* Every owner and view whose size can be planned (not strings, sequences,
     * ...): owners first in placement order, then views by value id. */
    size_t n_values;
    const memplan_value_plan *values;

    size_t n_unplanned;                 /* owners with no static byte size (strings, sequences, */
    const int32_t *unplanned;           /* maps, optionals, ...): reason in size[v].reason */
    size_t n_unknown;                   /* owners whose size is symbolic or unknown; the plan is */
    const int32_t *unknown;             /* deferred when there is one */
    size_t n_bounded;                   /* options.upper_bounds: the dims planned at their maximum, */
    const memplan_bounded_dim *bounded; /* ranges first, then data-dependent dims (main graph's plan) */
    size_t n_unbound_dims;              /* dim names the unknown sizes (here and in the counted */
    const char *const *unbound_dims;    /* bodies) still need that a user can bind: the model's own
                                           input dims and declared names; first-seen order (pool-owned) */
    size_t n_internal_dims;             /* internal symbols they rest on (memplan/shapes.h: "unk__N",
                                           data-dependent counts): not the user's to bind; bind the */
    const char *const *internal_dims;   /* input dims memplan_shapes_bind_instead names, or a --value */
    size_t n_value_inputs;              /* main graph, deferred: inputs without a --value that could */
    const int32_t *value_inputs;        /* take one (integer/bool scalars and vectors of <= 64
                                           elements): a value may resolve what the dims cannot */

    /* Weights: the initializers and values folded at load that a runtime
     * keeps once loaded (read by an unfolded node, a graph output or input,
     * or kept by a body), this graph and every body below it (never in the
     * arena). */
    uint64_t weight_bytes;
    size_t n_weights;         /* values counted in weight_bytes */
    size_t n_weights_unknown; /* kept weights whose size is not known */
    /* Load-only: the other constant values, computed or read while loading
     * and then dropped (a folded chain's intermediates, an initializer only
     * folding reads, one nothing reads); not in weight_bytes nor the total.
     * Known sizes summed (a sum past 2^64 - 1 stops there), all counted. */
    uint64_t load_only_bytes;
    size_t n_load_only;

    /* Graph inputs: the main graph's inputs that are not initializers (what a
     * runtime is handed to run the model). Outside the arena unless
     * options.include_inputs made them buffers; all zero in a body's plan
     * (a body's inputs are its parent's buffers). */
    uint64_t input_bytes;    /* the known sizes summed */
    size_t n_inputs_known;   /* inputs counted in input_bytes */
    size_t n_inputs_unknown; /* inputs without a known size (symbolic, unknown, no static size) */

    /* Placement (planned plans only). */
    memplan_slot_plan slots;     /* best-fit slots (docs/semantics.md, "Slot plan") */
    const uint64_t *slot_offset; /* each slot's offset: aligned prefix sums of capacities */
    memplan_slot_plan exact; /* exact-size reuse only (the pairing ONNX Runtime's allocator makes; not its footprint) */
    memplan_arena_plan arena;                             /* byte offsets in one aligned arena */
    memplan_plan_figures figures[MEMPLAN_STRATEGY_COUNT]; /* [MEMPLAN_STRATEGY_ARENA], [..._SLOTS] */

    size_t n_links; /* options.inplace: the reuse pairs applied */
    const memplan_plan_link *links;
    size_t n_shares; /* options.share_kv (main graph): each present* output (value) and the past* input (source) */
    const memplan_plan_link *shares;
    size_t n_qdq_units;          /* this graph's QDQ node units (memplan/qdq.h), which ONNX Runtime fuses */
    size_t n_qdq_units_other;    /* the units under the other options.qdq_int8 (x86-64 or int8 allowed) */
    size_t n_qdq_fused;          /* options.fuse_qdq: of those, the units planned fused (the others, and
                                    every unit without the option, are planned as written) */
    const int32_t *quantized_as; /* per value when n_qdq_fused > 0 (else NULL): what a fused unit
                                    holds quantized -- its op's output (and a Relu's or Clip's
                                    after it) as its QuantizeLinear's output, a DequantizeLinear
                                    output as that DequantizeLinear's input -- has that value's
                                    element type and size; -1 for every other value */

    size_t n_transients; /* one per node with a body or a workspace, by position */
    const memplan_transient *transients;
    size_t n_subgraphs; /* one per body, by node position then attribute */
    const memplan_subgraph_plan *subgraphs;

    memplan_plan_order order; /* this graph's; asked == kind == FILE by default */

    /* Kernel workspace (memplan/workspace.h) of the main graph's nodes and
     * of every counted body's, known for the main graph's plan when it is
     * not deferred. With options.kernel_workspace (included) each is a
     * transient buffer, in the figures; without, what the plan leaves out:
     * lower_bound is then the arena's lower bound of the same plan with
     * them (figures[ARENA].lower_bound_bytes when included), to set beside
     * this one's. nodes: how many have one; unknown: how many could not be
     * sized (a shape not known). */
    struct {
        bool known;
        bool included;
        size_t nodes, unknown;
        const memplan_node *largest_node; /* the largest's node (of the main graph or a body), NULL when
                                             nodes == 0; plan-owned */
        uint64_t largest_bytes;
        const char *what; /* the largest's kernel: what it allocates (static text) */
        uint64_t lower_bound;
    } workspace;

    /* float16 on ONNX Runtime's CPU execution provider (main graph's plan):
     * the nodes of the main graph and every counted body, not folded at
     * load, with a float16 input or output that it runs in float32
     * (memplan_onnxruntime_cpu_float16 false), casting around them: the
     * plan holds their tensors in float16 as written, without those float32
     * copies. ops: their op types, most nodes first (ties: first seen), at
     * most 8 (graph-owned strings). weight_bytes: the weights it keeps (with
     * weights_known, every weight's size known): weight_bytes above, with a
     * float32 copy of each float16 weight such a node reads (its Casts of
     * initializers are folded at load from its optimisation level basic on)
     * and without the float16 one where only such nodes read it. */
    struct {
        size_t nodes;
        size_t n_ops;
        const char *ops[8];
        bool weights_known;
        uint64_t weight_bytes;
    } float16_cpu;

    /* The main graph's nodes in the order ONNX Runtime runs them (its default
     * order, MEMPLAN_ORDER_ONNXRUNTIME), beside a plan in the file order:
     * known only for the main graph planned in the file order, not deferred
     * and without in-place reuse (whose pairs hold for the file order); with
     * control-flow bodies, which ONNX Runtime orders too, from the plan made
     * under MEMPLAN_ORDER_ONNXRUNTIME. moved:
     * how many positions hold another node there (0: ONNX Runtime runs the
     * file's order); lower_bound: the most bytes (aligned) live at one
     * position under it, bodies' transients (in its order) included, to set beside
     * figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes. */
    struct {
        bool known;
        int32_t moved;
        uint64_t lower_bound;
        /* Under MEMPLAN_ORDER_ONNXRUNTIME, the main graph's plan, not
         * deferred: the file to write for ONNX Runtime (memplan reorder
         * --order onnxruntime), from the graph with its main nodes in the
         * file order and its bodies in ONNX Runtime's: written[i], the file
         * index of the node to write at position i (plan-owned; NULL
         * otherwise), and ONNX Runtime's lower bound for that file
         * (memplan_schedule_onnxruntime_numbering; never above this plan's). */
        const int32_t *written;
        uint64_t written_lower_bound;
    } ort_order;
};

/* The KV-cache pairs of g that options.share_kv shares: each graph output
 * named "present" + REST that a node writes (value) with the graph input,
 * not an initializer, named "past_key_values" + REST, else "past" + REST
 * (source); in output order, an output listed twice once. `out` has room
 * for g->n_outputs; returns how many. */
size_t memplan_share_kv_pairs(const memplan_graph *g, memplan_plan_link *out);

/* Plan the model's main graph. Errors: EINPUT for a model the pipeline
 * cannot plan (a cycle of views...), ENOMEM; EINTERNAL if a plan fails its
 * validators (a bug). *out is NULL on failure. */
memplan_status memplan_plan_model(const memplan_model *m, const memplan_plan_options *o, memplan_model_plan **out,
                                  memplan_error *err);

/* Free a plan from memplan_plan_model (NULL is fine). */
void memplan_model_plan_free(memplan_model_plan *p);

/* Whether the node at position pos (0 <= pos < p->positions) is folded at
 * load: it has outputs and every one is a value folded at load
 * (memplan/constants.h), so a runtime computes it while loading and never
 * runs it. Such a node's position holds no activation of its own. */
bool memplan_plan_node_folded(const memplan_model_plan *p, int32_t pos);

/* ---- memory against a dim ------------------------------------------------
 * The figures of plans made with one dim bound to each of n values (the
 * options' other bindings kept; a binding of the same name in the options is
 * replaced). A value whose plan is deferred gets deferred = true and zero
 * figures (total_known false); one the model cannot hold (too small for a window, a Reshape
 * that cannot hold) fits = false, and the sweep goes on. A dim no dim of the
 * model is named is EUSAGE ("no dim of the model is named 'N'"), found at the
 * first value that fits. */
#define MEMPLAN_SWEEP_MAX_POINTS 4096 /* values one `memplan sweep` plans */

typedef struct memplan_sweep_point {
    int64_t value;
    bool fits; /* false: the value does not fit the model
                  (the plan is an EINPUT error); figures 0 */
    bool deferred;
    uint64_t naive_bytes, peak_bytes, lower_bound_bytes; /* the arena's */
    uint64_t slots_bytes;                                /* the slot plan's sum of capacities */
    bool total_known;                                    /* memplan_plan_total of the arena knew the total */
    uint64_t total_bytes;                                /* then the memory to run the model: weights,
                                                            inputs outside the arena, the arena's peak */
} memplan_sweep_point;

memplan_status memplan_plan_sweep(const memplan_model *m, const memplan_plan_options *o, const char *dim,
                                  const int64_t *values, size_t n, memplan_sweep_point *out, memplan_error *err);

/* The memory a runtime needs to run the model under strategy s: the weights,
 * the graph inputs outside the arena and the planned peak (weight_bytes +
 * input_bytes unless options.include_inputs + figures[s].peak_bytes). NULL
 * and *out set when it is known; otherwise *out = 0 and the reason (static
 * text): the plan is deferred, a weight or a graph input has no known size,
 * the sum is beyond 64 bits, or p is a body's plan. Values without a static
 * size (memplan_model_plan.unplanned) are not in it, as they are not in the
 * peak. */
const char *memplan_plan_total(const memplan_model_plan *p, memplan_strategy s, uint64_t *out);

/* "arena" / "slots". */
const char *memplan_strategy_name(memplan_strategy s);

#ifdef __cplusplus
}
#endif
#endif
