/* cli.h -- shared helpers of the memplan command-line shell. Each command
 * lives in cmd_<name>.c and returns the process exit code:
 * 0 ok, 1 usage error, 2 bad input (or any other failure). */
#ifndef MEMPLAN_CLI_H
#define MEMPLAN_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "memplan/memplan.h"

enum { CLI_OK = 0, CLI_USAGE = 1, CLI_BAD_INPUT = 2 };

/* Print "memplan <cmd>: <message>" to stderr (escaped like cli_error) and
 * return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* What a pipe or a device is read into memory up to (a regular file is read
 * in place, of any size). 2 GiB is protobuf's own limit on one serialized
 * message, so no ONNX tool writes a larger single-file model; beyond it the
 * read stops with "the model is larger than 2048 MB" instead of taking all
 * memory (`memplan info /dev/zero`). MEMPLAN_STREAM_LIMIT_MB=N in the
 * environment sets another limit (N >= 1); cli_stream_limit_mb() is the one
 * in force. */
#define CLI_STREAM_LIMIT_MB 2048
size_t cli_stream_limit_mb(void);

/* Read all of f (opened on path: a pipe, a device, a file) into a malloc'ed
 * buffer and close f. At most cli_stream_limit_mb(): beyond it prints "WHO:
 * PATH: the WHAT is larger than N MB" and HINT, on a read error "WHO: PATH:
 * the error", and returns false. */
bool cli_read_stream(FILE *f, const char *path, const char *who, const char *what, const char *hint,
                     unsigned char **data, size_t *len);

/* A model file opened for reading through rd: a regular file is read in
 * place (f), a pipe or device whole into data first (cli_read_stream).
 * cli_open_model prints "memplan: FILE: reason" on failure; cli_close_model
 * closes and frees. */
typedef struct cli_model_file {
    FILE *f;
    unsigned char *data;
    memplan_reader rd;
} cli_model_file;
bool cli_open_model(const char *path, cli_model_file *mf);
void cli_close_model(cli_model_file *mf);

/* Write len bytes to stdout; false (with a message) on failure. */
bool cli_write_stdout(const char *data, size_t len);

/* The same for text meant for a terminal: control bytes (from model names)
 * are escaped as \xNN, so a name cannot inject terminal sequences. */
bool cli_write_text(const char *data, size_t len);

/* An error line on stderr, '\n' added. Every control character in it is
 * escaped (\xNN, '\n' and '\t' included: paths and names cannot break the
 * line or drive the terminal). Every message naming a path goes through it. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void cli_error(const char *fmt, ...);
#if defined(__GNUC__)
__attribute__((format(printf, 1, 0)))
#endif
void cli_verror(const char *fmt, va_list ap);

/* True when both paths name the same file (same string, or same device and inode). */
bool cli_same_file(const char *a, const char *b);

/* Write a file atomically: PATH.tmp-XXXXXX in the same directory, fsync,
 * rename over PATH (over the file a symbolic link PATH leads to; an existing
 * file's mode is kept, a new one gets 0666 minus the umask). A device or a
 * pipe (/dev/null, /dev/stdout) is written in place, never replaced. On
 * failure the temporary file is removed, PATH is untouched, a message is
 * printed and false returned. */
bool cli_write_file_atomic(const char *path, const void *data, size_t len);

/* Run a command over a model (memplan/command.h): argv[0] is the command's
 * name, then its arguments. Returns the exit code. */
int cli_run_model_command(const memplan_command *c, int argc, char **argv);
int cli_run_diff_command(const memplan_command *c, int argc, char **argv);
int cmd_pack(int argc, char **argv);

#endif
