/*
 * wire.h -- reading protobuf wire bytes from memory or through a reader,
 * a window at a time (shared by prune.c and out/annotate.c).
 *
 * A source is either the whole input in memory or a memplan_reader seen
 * through a window of win_cap bytes: bytes that are skipped (tensor data)
 * are never read. Every function checks its bounds; a reader failure is
 * reported as false with io_failed_at set.
 */
#ifndef MEMPLAN_ONNX_WIRE_H
#define MEMPLAN_ONNX_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memplan/error.h"
#include "memplan/model.h"
#include "onnx.pb-c.h"
#include "util/buf.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

typedef struct mp_wire_src {
    const uint8_t *mem;       /* whole input (NULL when empty) when rd is NULL */
    const memplan_reader *rd; /* else read through this */
    uint64_t size;
    uint8_t *win; /* up to win_cap bytes of the input from win_pos */
    size_t win_cap;
    uint64_t win_pos;
    size_t win_len;
    uint64_t io_failed_at; /* where the reader failed */
} mp_wire_src;

/* A source over memory (never fails). */
void mp_wire_open_mem(mp_wire_src *s, const void *bytes, size_t len);
/* A source over a reader with a window of `window` bytes (at least 16, so
 * any varint fits); false when out of memory. mp_wire_close frees it. */
bool mp_wire_open_reader(mp_wire_src *s, const memplan_reader *rd, size_t window);
void mp_wire_close(mp_wire_src *s);

/* The n bytes at pos (n <= win_cap for a reader, pos + n <= size), or NULL
 * when the reader fails. */
const uint8_t *mp_wire_at(mp_wire_src *s, uint64_t pos, size_t n);

/* Append the input's bytes [pos, pos + n) to out; false when the reader fails. */
bool mp_wire_copy(mp_wire_src *s, uint64_t pos, uint64_t n, mp_buf *out);

/* A varint at *pos, before end; false when truncated or over 10 bytes.
 * *io is set when the reader failed instead. */
bool mp_wire_varint(mp_wire_src *s, uint64_t *pos, uint64_t end, uint64_t *v, bool *io);

/* v as a varint into tmp (10 bytes); returns its length. */
size_t mp_wire_encode_varint(uint8_t tmp[10], uint64_t v);

/* The wire type a field is written with (packed repeated scalars: LEN too). */
int mp_wire_expected_type(const ProtobufCFieldDescriptor *f);

/* The errors: "malformed protobuf at byte N: what", "could not read ... at N". */
memplan_status mp_wire_error(memplan_error *err, uint64_t at, const char *what);
memplan_status mp_wire_io_error(const mp_wire_src *s, memplan_error *err);

#endif
