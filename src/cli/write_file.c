/* write_file.c -- atomic file output for the CLI (memplan annotate). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

bool cli_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (strcmp(a, b) == 0) return true;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Write everything to fd, retrying short writes. */
static bool write_all(int fd, const unsigned char *p, size_t len) {
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

bool cli_write_file_atomic(const char *path, const void *data, size_t len) {
    size_t n = strlen(path);
    char *tmp = malloc(n + sizeof ".tmp-XXXXXX");
    if (!tmp) {
        fprintf(stderr, "memplan: %s: out of memory\n", path);
        return false;
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
    int fd = mkstemp(tmp); /* same directory as path, so rename() is atomic */
    bool ok = fd >= 0;
    int saved = errno;
    if (ok) {
        ok = write_all(fd, data, len) && fsync(fd) == 0;
        saved = errno;
        ok = (close(fd) == 0) && ok;
        if (ok && rename(tmp, path) != 0) {
            saved = errno;
            ok = false;
        }
        if (!ok) unlink(tmp);
    }
    if (!ok) fprintf(stderr, "memplan: %s: cannot write: %s\n", path, strerror(saved ? saved : EIO));
    free(tmp);
    return ok;
}
