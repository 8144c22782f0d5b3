/* write_file.c -- atomic file output for the CLI (memplan annotate).
 *
 * OUT is never seen half written, and an interrupted run leaves nothing:
 *   - where the filesystem has O_TMPFILE (Linux: ext4, xfs, btrfs, tmpfs, ...)
 *     the bytes go to an unnamed file in OUT's folder, which only gets a name
 *     (linkat, then rename over OUT) once complete: Ctrl-C, SIGTERM and even
 *     kill -9 or a crash mid-write leave no file, the kernel frees it;
 *   - elsewhere, OUT.tmp-XXXXXX (mkstemp) is written, and SIGINT, SIGTERM
 *     and SIGHUP unlink it before the process dies of the signal. kill -9
 *     cannot be caught: there it leaves OUT.tmp-XXXXXX behind.
 * Signals are blocked from the moment a named temporary file exists until
 * it is registered for the handler, and around the final rename, so no
 * window leaves a name unregistered. MEMPLAN_NO_TMPFILE=1 in the environment
 * forces the second way (native-tests/annotate_cli_check.py tests both).
 */
#define _GNU_SOURCE /* O_TMPFILE; realpath, mkstemp, fchmod, linkat, sigaction */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
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
    cli_error("memplan: %s: cannot write: %s", shown, strerror(error ? error : EIO));
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

/* ---- the temporary file and signals -------------------------------------- */

/* The one named temporary file the handler removes (set while armed). */
static const char *volatile pending_tmp;
static volatile sig_atomic_t pending_armed;

static const int CAUGHT[] = {SIGINT, SIGTERM, SIGHUP};
#define N_CAUGHT (sizeof CAUGHT / sizeof CAUGHT[0])

/* unlink and raise are async-signal-safe; SA_RESETHAND has restored the
 * default action, so the process then dies of the signal as it would have. */
static void remove_pending_and_die(int sig) {
    if (pending_armed) unlink(pending_tmp);
    raise(sig);
}

typedef struct signal_guard {
    struct sigaction old[N_CAUGHT];
    bool installed[N_CAUGHT];
    struct sigaction old_xfsz;
    sigset_t set;
} signal_guard;

/* Catch the signals that end a run (unless ignored, as under nohup), and
 * ignore SIGXFSZ so a file-size limit is a write error, not a kill. */
static void guard_install(signal_guard *g) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_pending_and_die;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&g->set);
    for (size_t i = 0; i < N_CAUGHT; i++) {
        sigaddset(&sa.sa_mask, CAUGHT[i]);
        sigaddset(&g->set, CAUGHT[i]);
    }
    for (size_t i = 0; i < N_CAUGHT; i++) {
        g->installed[i] = sigaction(CAUGHT[i], NULL, &g->old[i]) == 0 && g->old[i].sa_handler != SIG_IGN &&
                          sigaction(CAUGHT[i], &sa, NULL) == 0;
    }
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, &g->old_xfsz);
}

static void guard_remove(signal_guard *g) {
    for (size_t i = 0; i < N_CAUGHT; i++)
        if (g->installed[i]) sigaction(CAUGHT[i], &g->old[i], NULL);
    sigaction(SIGXFSZ, &g->old_xfsz, NULL);
}

static void guard_block(signal_guard *g, sigset_t *old) { sigprocmask(SIG_BLOCK, &g->set, old); }
static void guard_unblock(const sigset_t *old) { sigprocmask(SIG_SETMASK, old, NULL); }

static void arm(const char *tmp) {
    pending_tmp = tmp;
    pending_armed = 1;
}

static void disarm(void) { pending_armed = 0; }

/* ---- writing beside the target and renaming over it ---------------------- */

/* Mode, bytes, fsync; false with *saved set on failure (fd stays open). */
static bool fill(int fd, const char *file, const void *data, size_t len, int *saved) {
    if (fchmod(fd, output_mode(file)) == 0 && write_all(fd, data, len) && fsync(fd) == 0) return true;
    *saved = errno;
    return false;
}

/* The folder of `file` ("." for a bare name), malloc'ed. */
static char *folder_of(const char *file) {
    const char *slash = strrchr(file, '/');
    size_t n = !slash ? 1 : slash == file ? 1 : (size_t)(slash - file);
    char *dir = malloc(n + 1);
    if (!dir) return NULL;
    memcpy(dir, slash ? file : ".", n);
    dir[n] = '\0';
    return dir;
}

/* Give the unnamed file fd the name tmp (FILE + ".tmp-" + 6 hex digits, new
 * digits while a name is taken). False when it cannot be linked. */
static bool link_unnamed(int fd, char *tmp, size_t n) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    uint32_t x = (uint32_t)getpid() * 2654435761u;
    for (int attempt = 0; attempt < 100; attempt++) {
        x = x * 1664525u + 1013904223u;
        snprintf(tmp + n, sizeof ".tmp-XXXXXX", ".tmp-%06x", (unsigned)(x >> 8) & 0xffffffu);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) return true;
#ifdef AT_EMPTY_PATH
        if (errno == ENOENT && linkat(fd, "", AT_FDCWD, tmp, AT_EMPTY_PATH) == 0) return true; /* no /proc */
#endif
        if (errno != EEXIST) return false;
    }
    return false;
}

/* Through O_TMPFILE: 1 written, 0 failed (message printed), -1 not possible
 * here, nothing left behind (the named way follows). */
static int write_unnamed(const char *file, const char *shown, const void *data, size_t len, char *tmp, size_t n,
                         signal_guard *g) {
#ifdef O_TMPFILE
    const char *off = getenv("MEMPLAN_NO_TMPFILE");
    if (off && strcmp(off, "1") == 0) return -1;
    char *dir = folder_of(file);
    int fd = dir ? open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600) : -1;
    free(dir);
    if (fd < 0) return -1; /* EOPNOTSUPP, EISDIR (an older kernel), ...: mkstemp says what is wrong */
    int saved = 0;
    if (!fill(fd, file, data, len, &saved)) {
        close(fd); /* the kernel frees an unnamed file */
        return write_failed(shown, saved), 0;
    }
    sigset_t old;
    guard_block(g, &old);
    if (!link_unnamed(fd, tmp, n)) {
        guard_unblock(&old);
        close(fd);
        return -1;
    }
    bool ok = rename(tmp, file) == 0;
    saved = errno;
    if (!ok) unlink(tmp);
    guard_unblock(&old);
    close(fd);
    return ok ? 1 : (write_failed(shown, saved), 0);
#else
    (void)file, (void)shown, (void)data, (void)len, (void)tmp, (void)n, (void)g;
    return -1;
#endif
}

/* Through mkstemp: FILE.tmp-XXXXXX, removed on failure and by the signal handler. */
static bool write_named(const char *file, const char *shown, const void *data, size_t len, char *tmp, size_t n,
                        signal_guard *g) {
    memcpy(tmp + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
    sigset_t old;
    guard_block(g, &old);
    int fd = mkstemp(tmp); /* same directory as file, so rename() is atomic */
    int saved = errno;
    if (fd >= 0) arm(tmp);
    guard_unblock(&old);
    if (fd < 0) return write_failed(shown, saved);
    bool ok = fill(fd, file, data, len, &saved);
    if (close(fd) != 0 && ok) {
        saved = errno;
        ok = false;
    }
    guard_block(g, &old);
    if (ok && rename(tmp, file) != 0) {
        saved = errno;
        ok = false;
    }
    if (!ok) unlink(tmp);
    disarm();
    guard_unblock(&old);
    return ok || write_failed(shown, saved);
}

/* Write beside the regular file (or new name) `file`, then rename over it. */
static bool write_replacing(const char *file, const char *shown, const void *data, size_t len) {
    size_t n = strlen(file);
    char *tmp = malloc(n + sizeof ".tmp-XXXXXX");
    if (!tmp) {
        cli_error("memplan: %s: out of memory", shown);
        return false;
    }
    memcpy(tmp, file, n + 1);
    signal_guard g;
    guard_install(&g);
    int done = write_unnamed(file, shown, data, len, tmp, n, &g);
    bool ok = done >= 0 ? done == 1 : write_named(file, shown, data, len, tmp, n, &g);
    guard_remove(&g);
    free(tmp);
    return ok;
}

/* ---- where OUT really is ---------------------------------------------------- */

/* The file a path names once every symbolic link is followed, malloc'ed:
 * realpath for an existing file; for a link to nothing yet (a dangling link,
 * the README's promise: links are kept) the name it leads to, followed by
 * hand, so the link stays and its target is created. NULL with errno set
 * (ELOOP after 40 links). */
static char *output_target(const char *path) {
    char *real = realpath(path, NULL);
    if (real) return real;
    size_t len = strlen(path);
    char *cur = malloc(len + 1);
    if (!cur) return NULL;
    memcpy(cur, path, len + 1);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur; /* a new name, or let open() say why not */
        size_t cap = (size_t)st.st_size + 1 > 256 ? (size_t)st.st_size + 1 : 256;
        char *to = malloc(cap);
        ssize_t got = to ? readlink(cur, to, cap) : -1;
        if (got < 0 || (size_t)got >= cap) {
            free(to);
            return cur; /* changed under us: the write will report */
        }
        to[got] = '\0';
        char *next = to;
        const char *slash = strrchr(cur, '/');
        if (to[0] != '/' && slash) { /* relative to the link's own folder */
            size_t d = (size_t)(slash - cur) + 1;
            next = malloc(d + (size_t)got + 1);
            if (next) {
                memcpy(next, cur, d);
                memcpy(next + d, to, (size_t)got + 1);
            }
            free(to);
        }
        free(cur);
        if (!next) return NULL;
        cur = next;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

bool cli_write_file_atomic(const char *path, const void *data, size_t len) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return S_ISDIR(st.st_mode) ? write_failed(path, EISDIR) : write_in_place(path, data, len);
    /* Through symbolic links (/dev/stdout -> /proc/self/fd/1 -> a file, or
     * a link to a file not made yet): write the file they lead to, never
     * replace the link. */
    char *target = output_target(path);
    if (!target) return write_failed(path, errno);
    bool ok = write_replacing(target, path, data, len);
    free(target);
    return ok;
}
