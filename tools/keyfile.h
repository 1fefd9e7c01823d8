/* Key files: raw (little-endian keys back to back) or text (one number per line). */
#ifndef RDX_TOOL_KEYFILE_H
#define RDX_TOOL_KEYFILE_H

#include <stddef.h>
#include "io.h"
#include "rdx.h"

/* Reads a key file into *keys (malloc'd, caller frees) and *n. On failure (unreadable,
 * a raw size that is no multiple of the key size, a bad text line) prints one line and
 * returns -1. */
int tool_load_keys(const char *path, rdx_type t, int text, void **keys, size_t *n);

/* Writes keys into an open output and closes it (not yet committed). Returns 0, or -1
 * after printing why (the output is then aborted). */
int tool_write_keys(tool_output *o, const void *keys, size_t n, rdx_type t, int text);

/* Opens, writes and commits path in one go. Returns 0, or -1 after printing why. */
int tool_save_keys(const char *path, const void *keys, size_t n, rdx_type t, int text);

#endif
