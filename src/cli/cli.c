/* cli.c -- helpers shared by the memplan commands. */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "memplan %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'memplan --help')\n");
    return CLI_USAGE;
}

bool cli_read_file(const char *path, unsigned char **data, size_t *len) {
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "memplan: %s: %s\n", path, strerror(errno));
        return false;
    }
    /* Size the buffer from the file length when it is known (regular files),
     * so a model costs its size once, not up to twice through doubling. */
    size_t cap = 1 << 16, n = 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        long end = ftell(f);
        /* Directories and devices report nonsense (LONG_MAX): only trust sane sizes. */
        if (end >= 0 && (unsigned long long)end < (1ull << 40) && (unsigned long long)end < SIZE_MAX / 2)
            cap = (size_t)end + 1;
        rewind(f);
    }
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        unsigned char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int read_errno = ferror(f) ? errno : 0;
    bool err = ferror(f) != 0;
    fclose(f);
    if (!buf || err) {
        fprintf(stderr, "memplan: %s: %s\n", path,
                !buf ? "out of memory" : read_errno ? strerror(read_errno) : "read error");
        free(buf);
        return false;
    }
    *data = buf;
    *len = n;
    return true;
}

memplan_model *cli_load_model(const char *path) {
    unsigned char *data;
    size_t len;
    if (!cli_read_file(path, &data, &len)) return NULL;
    memplan_model *m = NULL;
    memplan_error err = {0};
    memplan_status st = memplan_model_load(data, len, NULL, &m, &err);
    free(data);
    if (st) {
        fprintf(stderr, "memplan: %s: %s\n", path, err.message);
        return NULL;
    }
    return m;
}

bool cli_write_stdout(const char *data, size_t len) {
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
        fprintf(stderr, "memplan: cannot write to standard output\n");
        return false;
    }
    return true;
}
