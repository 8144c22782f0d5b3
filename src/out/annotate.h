/* annotate.h -- memplan_annotate_reader with a chosen window (for tests:
 * malformed_tool checks that a 16-byte window gives the same bytes). */
#ifndef MEMPLAN_OUT_ANNOTATE_H
#define MEMPLAN_OUT_ANNOTATE_H

#include "memplan/annotate.h"

memplan_status mp_annotate_reader_window(const memplan_reader *reader, size_t window, const memplan_inplace *ctx,
                                         unsigned char **out, size_t *out_len, memplan_error *err);

#endif
