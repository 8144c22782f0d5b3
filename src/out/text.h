/*
 * text.h -- the one writer of the text reports. A model's names (values,
 * nodes, ops, attributes, domains, dims) and the reasons and notes that
 * quote them are printed through it, escaped, so no name can break a
 * report's lines and columns or send terminal escapes, and every name
 * reads back exactly:
 *   - a control character (below U+0020, and DEL) is written \xNN -- '\n'
 *     and '\t' included;
 *   - a C1 control (U+0080-U+009F, 0xC2 0x80-0x9F in UTF-8) is \u00NN;
 *   - a backslash is doubled.
 * Everything else is written as it is. The report's own line breaks and
 * columns come from the format text, never from an argument.
 *
 *   mp_text_printf(b, "  %s: %s\n", v->name, reason);   // both escaped
 */
#ifndef MEMPLAN_OUT_TEXT_H
#define MEMPLAN_OUT_TEXT_H

#include <stdarg.h>

#include "util/buf.h"

/* s, escaped (NULL writes nothing). */
void mp_text_put(mp_buf *b, const char *s);

/* An amount or dim expression as memplan_expr_str prints it (memplan/expr.h),
 * with each escaped name ("_0x" + hex) written back as the name the model
 * gives: as it is when it reads unambiguously there (letters, digits, '_',
 * '.', ':': "12*p2o.Dim.0"), else in double quotes ("seq len"*8). For
 * people: JSON keeps the escaped form, which parses back. */
void mp_text_expr(mp_buf *b, const char *e);

/* printf into b with every %s argument escaped (width, '-' and precision
 * apply to the escaped text; precision cuts the argument first). Other
 * conversions are printf's: d i u x X o c e f g E G p with hh h l ll z j t L,
 * '*' widths, and %%. */
void mp_text_printf(mp_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
