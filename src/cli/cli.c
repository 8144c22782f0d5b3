/* cli.c -- helpers shared by the memplan commands. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, fseeko */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* printf into a malloc'ed string; NULL when out of memory. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 0)))
#endif
static char *
vformat(const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

static void put_terminal_safe(FILE *f, const char *data, size_t len, bool keep_layout);

/* A message line: every control character escaped (paths and names may hold
 * '\n', '\t' or ESC; a message is one line whatever they contain). */
static void put_message(const char *msg) {
    if (!msg) msg = "out of memory while printing a message";
    put_terminal_safe(stderr, msg, strlen(msg), false);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    fputs("memplan ", stderr);
    put_message(cmd);
    fputs(": ", stderr);
    put_message(msg);
    fputs("\n(see 'memplan --help')\n", stderr);
    free(msg);
    return CLI_USAGE;
}

size_t cli_stream_limit_mb(void) {
    const char *env = getenv("MEMPLAN_STREAM_LIMIT_MB");
    if (!env || *env < '0' || *env > '9') return CLI_STREAM_LIMIT_MB;
    char *end = NULL;
    errno = 0;
    unsigned long long mb = strtoull(env, &end, 10);
    if (errno || *end || mb < 1 || mb > (SIZE_MAX >> 21)) return CLI_STREAM_LIMIT_MB; /* not a size: the default */
    return (size_t)mb;
}

bool cli_read_stream(FILE *f, const char *path, const char *who, const char *what, const char *hint,
                     unsigned char **data, size_t *len) {
    const size_t limit_mb = cli_stream_limit_mb(), limit = limit_mb << 20;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    bool too_big = false;
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        if (n > limit) { /* one byte past the limit was asked for and read */
            too_big = true;
            break;
        }
        size_t bigger_cap = cap < limit / 2 ? cap * 2 : limit + 1;
        unsigned char *bigger = realloc(buf, bigger_cap);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap = bigger_cap;
    }
    int read_errno = ferror(f) ? errno : 0;
    bool err = ferror(f) != 0;
    fclose(f);
    if (!buf || err || too_big) {
        if (too_big) cli_error("%s: %s: the %s is larger than %zu MB%s", who, path, what, limit_mb, hint);
        else
            cli_error("%s: %s: %s", who, path,
                      !buf         ? "out of memory"
                      : read_errno ? strerror(read_errno)
                                   : "read error");
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
        cli_error("memplan: %s: %s", path, strerror(errno));
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
    if (!cli_read_stream(f, path, "memplan", "model", " (a pipe or device is read into memory: save it to a file)",
                         &mf->data, &n))
        return false;
    mf->rd = (memplan_reader){mem_read, mf->data, n};
    return true;
}

void cli_close_model(cli_model_file *mf) {
    if (mf->f) fclose(mf->f);
    free(mf->data);
    memset(mf, 0, sizeof *mf);
}

/* Terminal control bytes from a model's names (ESC sequences can move the
 * cursor, retitle the window, ...) are written as \xNN; '\n' and '\t' stay
 * when keep_layout (a report's own lines and columns). C1 controls
 * (U+0080-U+009F, 0xC2 0x80-0x9F in UTF-8) are written \u00NN. */
static void put_terminal_safe(FILE *f, const char *data, size_t len, bool keep_layout) {
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = p[i];
        if ((c < 0x20 && !(keep_layout && (c == '\n' || c == '\t'))) || c == 0x7f) {
            fprintf(f, "\\x%02x", c);
        } else if (c == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
            fprintf(f, "\\u%04x", p[++i]);
        } else {
            putc(c, f);
        }
    }
}

bool cli_write_text(const char *data, size_t len) {
    put_terminal_safe(stdout, data, len, true);
    if (ferror(stdout) || fflush(stdout) != 0) {
        fprintf(stderr, "memplan: cannot write to standard output\n");
        return false;
    }
    return true;
}

void cli_verror(const char *fmt, va_list ap) {
    char *msg = vformat(fmt, ap);
    put_message(msg);
    putc('\n', stderr);
    free(msg);
}

void cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_verror(fmt, ap);
    va_end(ap);
}

bool cli_write_stdout(const char *data, size_t len) {
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "memplan: cannot write to standard output\n");
        return false;
    }
    return true;
}
