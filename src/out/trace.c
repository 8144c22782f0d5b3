/*
 * trace.c -- a plan as a Chrome/Perfetto trace-event JSON file
 * (memplan/trace.h): counters of memory over positions, one slice per
 * buffer on a track per slot. Printed from the typed plan only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/trace.h"
#include "out/json.h"
#include "util/buf.h"

#define TRACE_PID 1
#define COUNTER_TID 0 /* the counters' track; slot s is tid s + 1 */

/* One placed buffer of the plan: an owner's, or a control-flow node's transient. */
typedef struct trace_buf {
    int64_t start, end;      /* half-open positions [start, end) */
    uint64_t bytes, aligned; /* raw size, and rounded up to the arena's align */
    uint64_t offset;         /* in the arena */
    size_t slot;             /* best-fit slot */
    int32_t value;           /* owner value id, or -1 for a transient */
    int32_t node;            /* a transient's node position */
} trace_buf;

/* size rounded up to align (a power of two); saturates instead of wrapping. */
static uint64_t align_up(uint64_t size, uint64_t align) {
    uint64_t a = align ? align : 1;
    return size > UINT64_MAX - (a - 1) ? UINT64_MAX : (size + a - 1) & ~(a - 1);
}

/* The placed buffers, owners first then transients; NULL when out of memory
 * (*n is 0 with no buffers, and then NULL too). */
static trace_buf *collect(const memplan_model_plan *p, size_t *n) {
    *n = 0;
    trace_buf *out = calloc(p->n_buffers ? p->n_buffers : 1, sizeof *out);
    if (!out) return NULL;
    uint64_t align = p->arena.align;
    for (size_t i = 0; i < p->n_values; i++) {
        const memplan_value_plan *v = &p->values[i];
        if (v->view || !v->placed || v->buffer < 0 || (size_t)v->buffer >= p->n_buffers) continue;
        const memplan_buffer *b = &p->buffers[v->buffer];
        out[(*n)++] =
            (trace_buf){b->start, b->end, b->size, align_up(b->size, align), v->arena_offset, v->slot, v->value, -1};
    }
    for (size_t i = 0; i < p->n_transients && *n < p->n_buffers; i++) {
        const memplan_transient *t = &p->transients[i];
        if (!t->placed || t->buffer < 0 || (size_t)t->buffer >= p->n_buffers) continue;
        const memplan_buffer *b = &p->buffers[t->buffer];
        out[(*n)++] =
            (trace_buf){b->start, b->end, b->size, align_up(b->size, align), t->arena_offset, t->slot, -1, t->node};
    }
    return out;
}

/* Slices by track, then time: each track's ts rise (the format's rule). */
static int by_slot_then_start(const void *a, const void *b) {
    const trace_buf *x = a, *y = b;
    if (x->slot != y->slot) return x->slot < y->slot ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

static int by_top_descending(const void *a, const void *b) {
    const trace_buf *x = *(const trace_buf *const *)a, *y = *(const trace_buf *const *)b;
    uint64_t tx = x->offset + x->aligned, ty = y->offset + y->aligned;
    return (tx < ty) - (tx > ty);
}

/* The next position >= p whose top is not set yet (path-halving union-find). */
static int64_t next_free(int64_t *next, int64_t p) {
    while (next[p] != p) {
        next[p] = next[next[p]];
        p = next[p];
    }
    return p;
}

/* live[p] and top[p] for positions 0..n_pos-1. live: a difference array
 * (uint64 arithmetic wraps, but every true partial sum fits). top: buffers
 * by descending offset + aligned size, each filling the positions no higher
 * buffer took, so every position is written once: O(b log b + positions). */
static bool counters(const trace_buf *bufs, size_t n, int64_t n_pos, uint64_t *live, uint64_t *top) {
    int64_t *next = malloc(((size_t)n_pos + 1) * sizeof *next);
    const trace_buf **order = malloc((n ? n : 1) * sizeof *order);
    if (!next || !order) {
        free(next);
        free(order);
        return false;
    }
    memset(live, 0, ((size_t)n_pos + 1) * sizeof *live);
    memset(top, 0, ((size_t)n_pos + 1) * sizeof *top);
    for (size_t i = 0; i < n; i++) {
        live[bufs[i].start] += bufs[i].aligned;
        live[bufs[i].end] -= bufs[i].aligned;
        order[i] = &bufs[i];
    }
    for (int64_t p = 1; p <= n_pos; p++) live[p] += live[p - 1];
    for (int64_t p = 0; p <= n_pos; p++) next[p] = p;
    if (n) qsort(order, n, sizeof *order, by_top_descending);
    for (size_t i = 0; i < n; i++)
        for (int64_t p = next_free(next, order[i]->start); p < order[i]->end; p = next_free(next, p)) {
            top[p] = order[i]->offset + order[i]->aligned;
            next[p] = p + 1;
        }
    free(next);
    free(order);
    return true;
}

/* {"name":NAME,"ph":PH,"ts":TS,"pid":1,"tid":TID, -- the fields every event has;
 * the caller writes the rest and closes the object. */
static void event_head(mp_json *j, const char *name, const char *ph, int64_t ts, uint64_t tid) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "name");
    mp_json_str(j, name);
    MP_JSON_KEY(j, "ph");
    mp_json_str(j, ph);
    MP_JSON_KEY(j, "ts");
    mp_json_int(j, ts);
    MP_JSON_KEY(j, "pid");
    mp_json_int(j, TRACE_PID);
    MP_JSON_KEY(j, "tid");
    mp_json_uint(j, tid);
}

/* A metadata event naming the process or a thread (track). */
static void name_event(mp_json *j, const char *kind, uint64_t tid, const char *name) {
    event_head(j, kind, "M", 0, tid);
    MP_JSON_KEY(j, "args");
    mp_json_obj(j);
    MP_JSON_KEY(j, "name");
    mp_json_str(j, name);
    mp_json_end(j);
    mp_json_end(j);
}

static void counter_event(mp_json *j, const char *name, int64_t ts, uint64_t bytes) {
    event_head(j, name, "C", ts, COUNTER_TID);
    MP_JSON_KEY(j, "args");
    mp_json_obj(j);
    MP_JSON_KEY(j, "bytes");
    mp_json_uint(j, bytes);
    mp_json_end(j);
    mp_json_end(j);
}

/* The counters: a sample at position 0, one where a value changes, and the
 * end (ts n_pos, nothing live) so the last step has a width. */
static void counter_events(mp_json *j, const uint64_t *live, const uint64_t *top, int64_t n_pos, uint64_t bound) {
    for (int64_t p = 0; p < n_pos; p++) {
        if (p == 0) counter_event(j, "lower bound", 0, bound);
        if (p == 0 || live[p] != live[p - 1]) counter_event(j, "live bytes", p, live[p]);
        if (p == 0 || top[p] != top[p - 1]) counter_event(j, "arena top", p, top[p]);
    }
    counter_event(j, "live bytes", n_pos, 0);
    counter_event(j, "arena top", n_pos, 0);
    counter_event(j, "lower bound", n_pos, bound);
}

/* One buffer's slice: the value's name (or "NODE body"), args as in memplan/trace.h. */
static void slice_event(mp_json *j, mp_buf *scratch, const memplan_model_plan *p, const trace_buf *b) {
    const memplan_graph *g = p->graph;
    int32_t node = b->value >= 0 ? g->values[b->value].producer : b->node;
    const memplan_node *nd = node >= 0 && node < g->n_nodes ? &g->nodes[node] : NULL;
    const char *name = b->value >= 0 ? g->values[b->value].name : NULL;
    if (!name) { /* a transient: named after its node */
        scratch->len = 0;
        mp_buf_puts(scratch, nd && nd->name && *nd->name ? nd->name : nd ? nd->op_type : "node");
        mp_buf_puts(scratch, " body");
        name = scratch->failed ? "body" : scratch->data;
    }
    event_head(j, name, "X", b->start, (uint64_t)b->slot + 1);
    MP_JSON_KEY(j, "dur");
    mp_json_int(j, b->end - b->start);
    MP_JSON_KEY(j, "args");
    mp_json_obj(j);
    MP_JSON_KEY(j, "size");
    mp_json_uint(j, b->bytes);
    MP_JSON_KEY(j, "offset");
    mp_json_uint(j, b->offset);
    MP_JSON_KEY(j, "slot");
    mp_json_uint(j, b->slot);
    MP_JSON_KEY(j, "first");
    mp_json_int(j, b->start);
    MP_JSON_KEY(j, "last");
    mp_json_int(j, b->end - 1);
    MP_JSON_KEY(j, "op");
    mp_json_str(j, nd ? nd->op_type : NULL); /* null: a graph input */
    MP_JSON_KEY(j, "node");
    mp_json_str(j, nd ? nd->name : NULL);
    MP_JSON_KEY(j, "transient");
    mp_json_bool(j, b->value < 0);
    mp_json_end(j);
    mp_json_end(j);
}

/* Metadata (process and track names), counters, then slices by slot. */
static void write_trace(mp_json *j, mp_buf *scratch, const memplan_model_plan *p, trace_buf *bufs, size_t n,
                        const uint64_t *live, const uint64_t *top, int64_t n_pos) {
    mp_json_obj(j);
    MP_JSON_KEY(j, "traceEvents");
    mp_json_arr(j);
    scratch->len = 0;
    mp_buf_puts(scratch, "memplan: ");
    mp_buf_puts(scratch, p->graph->name && *p->graph->name ? p->graph->name : "main graph");
    name_event(j, "process_name", COUNTER_TID, scratch->failed ? "memplan" : scratch->data);
    name_event(j, "thread_name", COUNTER_TID, "memory");
    for (size_t s = 0; s < p->slots.slot_count; s++) {
        scratch->len = 0;
        mp_buf_printf(scratch, "slot %zu (%llu bytes)", s, (unsigned long long)p->slots.slot_bytes[s]);
        name_event(j, "thread_name", (uint64_t)s + 1, scratch->failed ? "slot" : scratch->data);
    }
    counter_events(j, live, top, n_pos, p->arena.lower_bound_bytes);
    if (n) qsort(bufs, n, sizeof *bufs, by_slot_then_start);
    for (size_t i = 0; i < n; i++) slice_event(j, scratch, p, &bufs[i]);
    mp_json_end(j);
    MP_JSON_KEY(j, "displayTimeUnit");
    mp_json_str(j, "ms");
    MP_JSON_KEY(j, "otherData");
    mp_json_obj(j);
    MP_JSON_KEY(j, "time");
    mp_json_str(j, "1 us = 1 node position");
    MP_JSON_KEY(j, "arena_bytes");
    mp_json_uint(j, p->arena.arena_bytes);
    MP_JSON_KEY(j, "lower_bound_bytes");
    mp_json_uint(j, p->arena.lower_bound_bytes);
    MP_JSON_KEY(j, "align");
    mp_json_uint(j, p->arena.align);
    mp_json_end(j);
    mp_json_end(j);
    mp_buf_putc(j->out, '\n');
}

/* The positions the trace spans: the graph's nodes, or further if a buffer
 * reaches past them. */
static int64_t span(const memplan_model_plan *p, const trace_buf *bufs, size_t n) {
    int64_t end = p->positions > 0 ? p->positions : 0;
    for (size_t i = 0; i < n; i++)
        if (bufs[i].end > end) end = bufs[i].end;
    return end;
}

memplan_status memplan_plan_trace_json(const memplan_model_plan *p, char **out, size_t *len, memplan_error *err) {
    *out = NULL;
    *len = 0;
    if (!p) return memplan_error_set(err, MEMPLAN_EUSAGE, "no plan to trace");
    if (p->deferred) {
        mp_buf names;
        mp_buf_init(&names);
        for (size_t i = 0; i < p->n_unbound_dims; i++) mp_buf_printf(&names, " --dim %s=N", p->unbound_dims[i]);
        memplan_status st =
            memplan_error_set(err, MEMPLAN_EUSAGE, "the plan is deferred (a size is not known): nothing to trace%s%s",
                              names.len ? "; bind" : "", names.len && !names.failed ? names.data : "");
        mp_buf_free(&names);
        return st;
    }
    size_t n = 0;
    trace_buf *bufs = collect(p, &n);
    for (size_t i = 0; bufs && i < n; i++)
        if (bufs[i].start < 0 || bufs[i].end < bufs[i].start) {
            memplan_status st =
                memplan_error_set(err, MEMPLAN_EINTERNAL, "trace: buffer %zu has the interval [%lld, %lld)", i,
                                  (long long)bufs[i].start, (long long)bufs[i].end);
            free(bufs);
            return st;
        }
    int64_t n_pos = bufs ? span(p, bufs, n) : 0;
    uint64_t *live = bufs ? malloc(((size_t)n_pos + 1) * sizeof *live) : NULL;
    uint64_t *top = bufs ? malloc(((size_t)n_pos + 1) * sizeof *top) : NULL;
    mp_buf b, scratch;
    mp_buf_init(&b);
    mp_buf_init(&scratch);
    bool ok = live && top && counters(bufs, n, n_pos, live, top);
    if (ok) {
        mp_json j;
        mp_json_init(&j, &b);
        write_trace(&j, &scratch, p, bufs, n, live, top, n_pos);
        ok = !b.failed && !scratch.failed;
    }
    free(bufs);
    free(live);
    free(top);
    mp_buf_free(&scratch);
    if (!ok) {
        mp_buf_free(&b);
        return memplan_error_set(err, MEMPLAN_ENOMEM, "out of memory writing the trace");
    }
    *out = mp_buf_take(&b, len);
    return MEMPLAN_OK;
}
