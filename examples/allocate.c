/*
 * allocate.c -- what a runtime does with a plan: load a model, plan it with
 * its dims bound, allocate ONE arena, and give every activation its pointer.
 *
 *   allocate MODEL.onnx [NAME=VALUE ...]
 *
 * Prints the arena size, then one line per planned value:
 *   <offset> <bytes> <first position>-<last position> <name> [view of <owner>]
 * Exit status: 0 ok, 1 usage, 2 the model cannot be loaded or planned,
 * 3 the plan is deferred (a dim is missing: the message names it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan/memplan.h"

static void *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) free(buf);
            buf = grown;
        }
    }
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: allocate MODEL.onnx [NAME=VALUE ...]\n");
        return 1;
    }
    /* Dim bindings: NAME=VALUE. */
    memplan_binding *dims = calloc((size_t)argc, sizeof *dims);
    char(*names)[256] = calloc((size_t)argc, sizeof *names);
    size_t n_dims = 0;
    for (int i = 2; i < argc; i++)
        if (!memplan_binding_parse(argv[i], &dims[n_dims], names[n_dims], sizeof names[n_dims])) {
            fprintf(stderr, "allocate: '%s' is not NAME=VALUE\n", argv[i]);
            return 1;
        } else {
            n_dims++;
        }

    size_t len;
    void *bytes = read_file(argv[1], &len);
    if (!bytes) {
        fprintf(stderr, "allocate: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    memplan_error err = {0};
    memplan_model *model;
    if (memplan_model_load(bytes, len, NULL, &model, &err)) {
        fprintf(stderr, "allocate: %s: %s\n", argv[1], err.message);
        return 2;
    }
    free(bytes);

    memplan_plan_options opts;
    memplan_plan_options_init(&opts);
    opts.bindings = dims;
    opts.n_bindings = n_dims;
    memplan_model_plan *plan;
    if (memplan_plan_model(model, &opts, &plan, &err)) {
        fprintf(stderr, "allocate: %s: %s\n", argv[1], err.message);
        return 2;
    }
    int status = 0;
    if (plan->deferred) {
        fprintf(stderr, "allocate: the plan needs every size; bind:");
        for (size_t i = 0; i < plan->n_unbound_dims; i++) fprintf(stderr, " %s=N", plan->unbound_dims[i]);
        fprintf(stderr, "%s\n", plan->n_unbound_dims ? "" : " (some sizes are unknown, not symbolic)");
        status = 3;
    } else {
        /* One allocation for every activation; aligned_alloc wants a
         * multiple of the alignment (the arena size is one). */
        size_t arena_bytes = (size_t)plan->arena.arena_bytes;
        unsigned char *arena = arena_bytes ? aligned_alloc((size_t)plan->options.align, arena_bytes) : NULL;
        void **ptr = calloc((size_t)plan->graph->n_values + 1, sizeof *ptr);
        printf("arena %zu bytes (lower bound %llu, naive %llu), %zu buffers\n", arena_bytes,
               (unsigned long long)plan->figures[MEMPLAN_STRATEGY_ARENA].lower_bound_bytes,
               (unsigned long long)plan->figures[MEMPLAN_STRATEGY_ARENA].naive_bytes, plan->n_buffers);
        for (size_t i = 0; i < plan->n_values; i++) {
            const memplan_value_plan *v = &plan->values[i];
            if (!v->placed) continue;
            ptr[v->value] = arena + v->arena_offset; /* views share their owner's bytes */
            printf("%llu %llu %d-%d %s", (unsigned long long)v->arena_offset, (unsigned long long)v->size.bytes,
                   (int)v->start, (int)v->end, plan->graph->values[v->value].name);
            if (v->view) printf(" view of %s", plan->graph->values[v->owner].name);
            putchar('\n');
        }
        free(ptr);
        free(arena);
    }
    memplan_model_plan_free(plan);
    memplan_model_free(model);
    free(dims);
    free(names);
    return status;
}
