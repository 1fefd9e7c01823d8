/* Files for the rdx tool: whole-file reads, and outputs written to a temporary file in
 * the destination's directory and renamed over it only when complete, so that a failure
 * never leaves a half-written file (nor touches an input sorted in place). */
#ifndef RDX_TOOL_IO_H
#define RDX_TOOL_IO_H

#include <stddef.h>
#include <stdio.h>

/* Reads the whole file into *data (malloc'd, caller frees; never NULL on success) and
 * *size. On failure prints one line naming the file and the reason, returns -1. */
int tool_read_file(const char *path, unsigned char **data, size_t *size);

/* An output file in the making. */
typedef struct tool_output {
    char *path;       /* where it goes (symbolic links followed) */
    char *tmp_path;   /* the temporary file beside it */
    FILE *f;          /* open for writing while not closed */
} tool_output;

/* Creates the temporary file for path. Returns 0, or -1 after printing why. */
int tool_output_open(tool_output *o, const char *path);
/* Writes size bytes. Returns 0, or -1 after printing why (the output is then aborted). */
int tool_output_write(tool_output *o, const void *data, size_t size);
/* Flushes and closes the temporary file (after writing through o->f directly).
 * Returns 0, or -1 after printing why (the output is then aborted). */
int tool_output_close(tool_output *o);
/* Renames the closed temporary file over path. Returns 0, or -1 after printing why. */
int tool_output_commit(tool_output *o);
/* Removes the temporary file, if any; path is not touched. Safe to call twice. */
void tool_output_abort(tool_output *o);

#endif
