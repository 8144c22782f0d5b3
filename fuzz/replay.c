/*
 * replay.c -- main() for a fuzz target without libFuzzer: run
 * LLVMFuzzerTestOneInput on every file named (directories: every file in
 * them, sorted). Built in every native build (gcc or clang, with or without
 * sanitizers) so the regression inputs under native-tests/regressions/ are
 * replayed by ctest. Exit 0 when every input ran; a crash or a harness
 * invariant failure aborts. Prints one line per input with -v.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int verbose;

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            fprintf(stderr, "replay: out of memory\n");
            return 1;
        }
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        cap *= 2;
        uint8_t *nb = realloc(buf, cap);
        if (!nb) free(buf);
        buf = nb;
    }
    fclose(f);
    /* An exactly sized copy, so ASan sees reads past the end of the input. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, len);
    free(buf);
    if (verbose) fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_path(const char *path, int *count) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s does not exist\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return run_file(path);
    }
    DIR *d = opendir(path);
    if (!d) return 1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char **nn = realloc(names, (n + 1) * sizeof *names);
        if (!nn) break;
        names = nn;
        size_t l = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(l);
        snprintf(names[n], l, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str); /* names is NULL for an empty folder */
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        rc |= run_path(names[i], count);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    int rc = 0, count = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
            continue;
        }
        rc |= run_path(argv[i], &count);
    }
    printf("replay: %d input(s), %s\n", count, rc ? "errors" : "ok");
    return rc;
}
