/* cli.c -- helpers shared by the memplan commands. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, fseeko */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "memplan %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'memplan --help')\n");
    return CLI_USAGE;
}

/* Read the whole of f (opened on path) and close it. */
static bool read_stream(FILE *f, const char *path, unsigned char **data, size_t *len) {
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

/* A memplan_reader over an open regular file. */
static bool file_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    FILE *f = ctx;
    if (offset > (uint64_t)INT64_MAX || fseeko(f, (off_t)offset, SEEK_SET) != 0) return false;
    return fread(buf, 1, len, f) == len;
}

static bool mem_read(void *ctx, uint64_t offset, void *buf, size_t len) {
    memcpy(buf, (const unsigned char *)ctx + offset, len);
    return true;
}

/* The size of a regular file opened as f, or -1 (pipes, devices, directories). */
static long long regular_size(FILE *f) {
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return -1;
    return (long long)st.st_size;
}

bool cli_open_model(const char *path, cli_model_file *mf) {
    memset(mf, 0, sizeof *mf);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "memplan: %s: %s\n", path, strerror(errno));
        return false;
    }
    long long size = regular_size(f);
    if (size > 0) {
        mf->f = f;
        mf->rd = (memplan_reader){file_read, f, (uint64_t)size};
        return true;
    }
    /* Not seekable: read it whole from this stream (opening a named pipe
     * again would lose what its writer sent and wait for another writer). */
    size_t n;
    if (!read_stream(f, path, &mf->data, &n)) return false;
    mf->rd = (memplan_reader){mem_read, mf->data, n};
    return true;
}

void cli_close_model(cli_model_file *mf) {
    if (mf->f) fclose(mf->f);
    free(mf->data);
    memset(mf, 0, sizeof *mf);
}

bool cli_strip_opened(const char *path, cli_model_file *mf, void **bytes, size_t *len) {
    *bytes = NULL;
    *len = 0;
    memplan_error err = {0};
    memplan_status st = memplan_model_strip(&mf->rd, bytes, len, &err);
    if (st) cli_error("memplan: %s: %s", path, err.message);
    return st == MEMPLAN_OK;
}

/* Terminal control bytes from a model's names (ESC sequences can move the
 * cursor, retitle the window, ...) are written as \xNN; '\n' and '\t' stay.
 * C1 controls (U+0080-U+009F, 0xC2 0x80-0x9F in UTF-8) too. */
static void put_terminal_safe(FILE *f, const char *data, size_t len) {
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = p[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            fprintf(f, "\\x%02x", c);
        } else if (c == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
            fprintf(f, "\\u%04x", p[++i]);
        } else {
            putc(c, f);
        }
    }
}

bool cli_write_text(const char *data, size_t len) {
    put_terminal_safe(stdout, data, len);
    if (ferror(stdout) || fflush(stdout) != 0) {
        fprintf(stderr, "memplan: cannot write to standard output\n");
        return false;
    }
    return true;
}

void cli_error(const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    put_terminal_safe(stderr, msg, strlen(msg));
    putc('\n', stderr);
}

bool cli_write_stdout(const char *data, size_t len) {
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "memplan: cannot write to standard output\n");
        return false;
    }
    return true;
}
