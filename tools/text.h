/* Keys as text: one decimal number per line. Integers in decimal; floats in any form
 * strtod reads, plus nan, -nan, inf, -inf; floats are printed with enough digits
 * (f16 5, bf16 4, f32 9, f64 17 significant) to read back to the same bits. */
#ifndef RDX_TOOL_TEXT_H
#define RDX_TOOL_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "rdx.h"

typedef enum tool_parse_result {
    TOOL_PARSE_OK = 0,
    TOOL_PARSE_NOT_A_NUMBER,   /* not a number of that type (an integer type given 1.5, "x") */
    TOOL_PARSE_OUT_OF_RANGE    /* a number, but outside the type's range */
} tool_parse_result;

/* Parses s (one line, surrounding blanks allowed) as a key of type t into *bits. */
tool_parse_result tool_parse_key(rdx_type t, const char *s, uint64_t *bits);

/* Writes the key's text to buf (at least TOOL_KEY_TEXT_MAX bytes). */
#define TOOL_KEY_TEXT_MAX 48
void tool_format_key(rdx_type t, uint64_t bits, char *buf);

/* Parses a whole text file held in memory (text[0..size)) into a new array of keys:
 * *keys (malloc'd, caller frees) and *n. A last line without a newline counts; empty
 * lines do not. On failure prints one line naming path and the line number, returns -1. */
int tool_parse_text_keys(const char *path, const char *text, size_t size, rdx_type t,
                         void **keys, size_t *n);

/* Writes n keys to f, one per line. Returns 0, or -1 on a write error (errno set). */
int tool_write_text_keys(FILE *f, const void *keys, size_t n, rdx_type t);

#endif
