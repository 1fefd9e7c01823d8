/* Fuzz target: the rdx tool's command lines (tools/cli.c and the parsers of cmd_*.c).
 * Input: one byte that picks the command (sort, gen, check, bench), then its arguments
 * separated by NUL bytes. The commands run with tool_parse_only set, so each stops once
 * its command line is parsed (a good one returns 0, a bad one 2 after one line on stderr).
 * Arguments with a '/' are skipped so that a file the parsers open (bench --csv) stays in
 * the work directory. Each argument also goes through the shared value parsers. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "dist.h"
#include "fuzz_input.h"
#include "fuzz_workdir.h"
#include "report.h"
#include "types.h"

#define FUZZ_MAX_ARGS 24

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_enter_workdir();
    return 0;
}

static void parse_values(const char *s)
{
    uint64_t count;
    long v;
    rdx_backend b;
    rdx_type t;
    tool_dist d;
    if (tool_parse_count(s, &count) == 0)
        FUZZ_CHECK(s[0] >= '0' && s[0] <= '9');
    if (tool_parse_int(s, -1000, 1000, &v) == 0)
        FUZZ_CHECK(v >= -1000 && v <= 1000);
    if (tool_parse_backend(s, &b) == 0)
        FUZZ_CHECK(strcmp(tool_backend_name(b), s) == 0);
    if (tool_parse_type(s, &t) == 0)
        FUZZ_CHECK(strcmp(tool_type_name(t), s) == 0);
    (void)tool_parse_dist(s, &d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {{"sort", cmd_sort}, {"gen", cmd_gen}, {"check", cmd_check}, {"bench", cmd_bench}};
    fuzz_input in = {data, size};
    const unsigned which = take_u8(&in) % 4;

    /* Copy the rest, NUL-terminated, and cut it into arguments at each NUL. */
    char *buf = malloc(in.left + 1);
    if (!buf)
        return 0;
    memcpy(buf, in.p, in.left);
    buf[in.left] = '\0';
    char *argv[FUZZ_MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)commands[which].name;
    for (char *s = buf; s <= buf + in.left && argc <= FUZZ_MAX_ARGS; s += strlen(s) + 1) {
        if (strchr(s, '/'))
            continue;
        parse_values(s);
        argv[argc++] = s;
    }
    argv[argc] = NULL;

    tool_parse_only = 1;
    tool_set_command(commands[which].name);
    optind = 0; /* glibc: a full restart of getopt's scan */
    const int status = commands[which].run(argc, argv);
    FUZZ_CHECK(status == TOOL_EXIT_OK || status == TOOL_EXIT_USAGE ||
               (status == TOOL_EXIT_FAIL && which == 3)); /* bench: --backend cuda, no GPU */
    free(buf);
    return 0;
}
