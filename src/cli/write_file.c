/* write_file.c -- atomic file output for the CLI (memplan annotate). */
#define _XOPEN_SOURCE 700 /* realpath, mkstemp, fchmod */
#include <errno.h>
#include <fcntl.h>
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

/* The permissions OUT gets: an existing file's own, else what open(2) with
 * 0666 would give under the umask (mkstemp alone makes it 0600). */
static mode_t output_mode(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static bool write_failed(const char *shown, int error) {
    fprintf(stderr, "memplan: %s: cannot write: %s\n", shown, strerror(error ? error : EIO));
    return false;
}

/* A device or a pipe (/dev/null, /dev/stdout on a pipe, a FIFO) is written
 * in place: renaming a file over it would replace the device node. */
static bool write_in_place(const char *path, const void *data, size_t len) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return write_failed(path, errno);
    bool ok = write_all(fd, data, len);
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    return ok || write_failed(path, saved);
}

/* PATH.tmp-XXXXXX beside the regular file `file`, fsync, rename over it. */
static bool write_replacing(const char *file, const char *shown, const void *data, size_t len) {
    size_t n = strlen(file);
    char *tmp = malloc(n + sizeof ".tmp-XXXXXX");
    if (!tmp) {
        fprintf(stderr, "memplan: %s: out of memory\n", shown);
        return false;
    }
    memcpy(tmp, file, n);
    memcpy(tmp + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
    int fd = mkstemp(tmp); /* same directory as file, so rename() is atomic */
    int saved = errno;
    bool ok = fd >= 0;
    if (ok) {
        if (fchmod(fd, output_mode(file)) != 0 || !write_all(fd, data, len) || fsync(fd) != 0) {
            saved = errno;
            ok = false;
        }
        if (close(fd) != 0 && ok) {
            saved = errno;
            ok = false;
        }
        if (ok && rename(tmp, file) != 0) {
            saved = errno;
            ok = false;
        }
        if (!ok) unlink(tmp);
    }
    free(tmp);
    return ok || write_failed(shown, saved);
}

bool cli_write_file_atomic(const char *path, const void *data, size_t len) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return S_ISDIR(st.st_mode) ? write_failed(path, EISDIR) : write_in_place(path, data, len);
    /* Through symbolic links (/dev/stdout -> /proc/self/fd/1 -> a file):
     * replace the file they lead to, never the link. */
    char *real = realpath(path, NULL);
    bool ok = write_replacing(real ? real : path, path, data, len);
    free(real);
    return ok;
}
