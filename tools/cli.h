/* The commands of the rdx tool, and the option handling they share. */
#ifndef RDX_TOOL_CLI_H
#define RDX_TOOL_CLI_H

#include <stdint.h>
#include "rdx.h"

/* Exit statuses. `rdx check` also exits 1 for "not sorted" and 2 for any bad input. */
#define TOOL_EXIT_OK 0
#define TOOL_EXIT_FAIL 1    /* a file could not be read or written, a sort failed, ... */
#define TOOL_EXIT_USAGE 2   /* a bad command line */

/* Test hook for the command-line fuzzer (tests/fuzz/fuzz_cli.c): when set, each command
 * returns TOOL_EXIT_OK right after its command line parsed, before it reads, writes,
 * allocates or measures anything. 0 in the tool. */
extern int tool_parse_only;

/* Each command gets argv[0] = its own name; returns the exit status. */
int cmd_sort(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* After getopt_long returned '?' or ':' (with ':' leading the short options): prints one
 * line naming the option and the way to help; returns TOOL_EXIT_USAGE. */
int tool_bad_option(int c, char **argv);

/* A count such as 1000000 or 2^20. Returns 0, or -1 (nothing printed). */
int tool_parse_count(const char *s, uint64_t *out);
/* A decimal integer in [min, max]. Returns 0, or -1 (nothing printed). */
int tool_parse_int(const char *s, long min, long max, long *out);
/* auto, cpu or cuda. Returns 0, or -1 (nothing printed). */
int tool_parse_backend(const char *s, rdx_backend *b);
const char *tool_backend_name(rdx_backend b);

/* Creates a context on the backend, or prints why not and returns NULL. */
rdx_ctx *tool_open_context(rdx_backend b);

#endif
