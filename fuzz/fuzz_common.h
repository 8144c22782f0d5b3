/*
 * fuzz_common.h -- shared by the libFuzzer targets in fuzz/.
 *
 * The library must never crash, hang or abort on any input. The harness, on
 * the other hand, aborts (FUZZ_CHECK) when a result breaks an invariant the
 * library promises: an error without a message, a JSON length that does not
 * match, an IR id out of range, a plan its own validator rejects. libFuzzer
 * (and the replay driver, fuzz/replay.c) report that abort as a crash.
 */
#ifndef MEMPLAN_FUZZ_COMMON_H
#define MEMPLAN_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/memplan.h"
#include "memplan/report.h"

#define FUZZ_CHECK(cond, ...)                                                                                          \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz invariant failed at %s:%d: %s: ", __FILE__, __LINE__, #cond);                        \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FNV-1a of the input: the seed of a target's choices (bindings, windows,
 * request sequences), so one input always runs the same way. */
static inline uint64_t fuzz_fnv(const uint8_t *d, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 1099511628211ull;
    return h;
}

/* splitmix64: the next pseudo-random number from *state. */
static inline uint64_t fuzz_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The distinct dim names (MEMPLAN_DIM_PARAM) of g's values, in first-seen
 * order, up to max of them; returns how many. The names are g's. */
static inline size_t fuzz_dim_names(const memplan_graph *g, const char **names, size_t max) {
    size_t n = 0;
    for (int32_t v = 0; v < g->n_values && n < max; v++) {
        const memplan_type *t = &g->values[v].type;
        for (int32_t k = 0; k < t->rank && n < max; k++) {
            if (t->dims[k].kind != MEMPLAN_DIM_PARAM) continue;
            bool dup = false;
            for (size_t j = 0; j < n && !dup; j++) dup = strcmp(names[j], t->dims[k].param) == 0;
            if (!dup) names[n++] = t->dims[k].param;
        }
    }
    return n;
}

/* A failed call left a non-empty, NUL-terminated message of the right status. */
static inline void fuzz_check_error(memplan_status st, const memplan_error *err) {
    FUZZ_CHECK(st > MEMPLAN_OK, "status %d", (int)st);
    FUZZ_CHECK(err->status == st, "err.status %d, returned %d", (int)err->status, (int)st);
    FUZZ_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL, "unterminated message");
    FUZZ_CHECK(err->message[0] != '\0', "empty message for status %d", (int)st);
}

/* Two runs of the same work (a reader against memory, a session against a
 * one-shot report) had one outcome: the same status and then the same
 * bytes, or the same error message. what names the comparison. */
static inline void fuzz_check_same(const char *what, memplan_status sa, const void *a, size_t na,
                                   const memplan_error *ea, memplan_status sb, const void *b, size_t nb,
                                   const memplan_error *eb) {
    FUZZ_CHECK(sa == sb, "%s: status %d, expected %d (%s)", what, (int)sb, (int)sa, sa ? ea->message : eb->message);
    if (sa == MEMPLAN_OK)
        FUZZ_CHECK(na == nb && (na == 0 || memcmp(a, b, na) == 0), "%s: %zu bytes differ from the expected %zu", what,
                   nb, na);
    else
        FUZZ_CHECK(strcmp(ea->message, eb->message) == 0, "%s: error '%s', expected '%s'", what, eb->message,
                   ea->message);
}

/* A document: exactly len bytes, no NUL inside, NUL after. */
static inline void fuzz_check_text(const char *text, size_t len) {
    FUZZ_CHECK(text != NULL, "NULL document");
    FUZZ_CHECK(strlen(text) == len, "length %zu, strlen %zu", len, strlen(text));
}

/* IR invariants of one graph and, recursively, its subgraphs (depth is
 * bounded by MEMPLAN_MAX_GRAPH_DEPTH). Nodes are in topological order: every
 * input, capture and output id is in range, and a value read at position p is
 * produced before p. */
static inline void fuzz_check_graph(const memplan_graph *g, int depth) {
    FUZZ_CHECK(depth <= MEMPLAN_MAX_GRAPH_DEPTH + 1, "graph depth %d", depth);
    FUZZ_CHECK(g->n_values >= 0 && g->n_nodes >= 0, "negative counts");
    for (int32_t v = 0; v < g->n_values; v++) {
        const memplan_value *val = &g->values[v];
        FUZZ_CHECK(val->name != NULL, "value %d has no name", (int)v);
        FUZZ_CHECK(val->producer >= -1 && val->producer < g->n_nodes, "value '%s': producer %d of %d", val->name,
                   (int)val->producer, (int)g->n_nodes);
        FUZZ_CHECK(val->type.rank >= -1 && val->type.rank <= MEMPLAN_MAX_RANK, "value '%s': rank %d", val->name,
                   (int)val->type.rank);
        if (val->flags & MEMPLAN_VALUE_CAPTURE) {
            FUZZ_CHECK(g->parent != NULL, "capture '%s' in a graph without parent", val->name);
            FUZZ_CHECK(val->outer >= 0 && val->outer < g->parent->n_values, "capture '%s': outer %d", val->name,
                       (int)val->outer);
        }
    }
    for (int32_t p = 0; p < g->n_nodes; p++) {
        const memplan_node *nd = &g->nodes[p];
        FUZZ_CHECK(nd->op_type != NULL, "node %d without op_type", (int)p);
        for (int32_t k = 0; k < nd->n_inputs; k++) {
            int32_t v = nd->inputs[k];
            FUZZ_CHECK(v >= -1 && v < g->n_values, "node %d input %d: id %d", (int)p, (int)k, (int)v);
            if (v >= 0)
                FUZZ_CHECK(g->values[v].producer < p, "node %d reads '%s' produced at %d", (int)p, g->values[v].name,
                           (int)g->values[v].producer);
        }
        for (int32_t k = 0; k < nd->n_outputs; k++) {
            int32_t v = nd->outputs[k];
            FUZZ_CHECK(v >= -1 && v < g->n_values, "node %d output %d: id %d", (int)p, (int)k, (int)v);
            if (v >= 0)
                FUZZ_CHECK(g->values[v].producer == p, "node %d output '%s' has producer %d", (int)p, g->values[v].name,
                           (int)g->values[v].producer);
        }
        for (int32_t k = 0; k < nd->n_captures; k++) {
            int32_t v = nd->captures[k];
            FUZZ_CHECK(v >= 0 && v < g->n_values, "node %d capture %d: id %d", (int)p, (int)k, (int)v);
            if (g->values[v].producer >= 0)
                FUZZ_CHECK(g->values[v].producer < p, "node %d captures '%s' produced at %d", (int)p, g->values[v].name,
                           (int)g->values[v].producer);
        }
        for (int32_t k = 0; k < nd->n_subgraphs; k++) {
            FUZZ_CHECK(nd->subgraphs[k]->parent == g, "node %d subgraph %d: wrong parent", (int)p, (int)k);
            fuzz_check_graph(nd->subgraphs[k], depth + 1);
        }
    }
    for (int32_t i = 0; i < g->n_inputs; i++)
        FUZZ_CHECK(g->inputs[i] >= 0 && g->inputs[i] < g->n_values, "input %d: id %d", (int)i, (int)g->inputs[i]);
    for (int32_t i = 0; i < g->n_outputs; i++)
        FUZZ_CHECK(g->outputs[i] >= 0 && g->outputs[i] < g->n_values, "output %d: id %d", (int)i, (int)g->outputs[i]);
    for (int32_t i = 0; i < g->n_captures; i++)
        FUZZ_CHECK(g->captures[i] >= 0 && g->captures[i] < g->n_values, "capture %d: id %d", (int)i,
                   (int)g->captures[i]);
}

static inline void fuzz_check_model(const memplan_model *m) {
    FUZZ_CHECK(m->graph != NULL, "model without graph");
    fuzz_check_graph(m->graph, 0);
    for (int32_t f = 0; f < m->n_functions; f++) fuzz_check_graph(m->functions[f].body, 0);
}

#endif
