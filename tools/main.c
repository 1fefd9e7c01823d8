/* rdx: the command-line tool of rdxsort. Dispatches to one command per file (cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "types.h"

#ifndef RDX_TOOL_VERSION
#define RDX_TOOL_VERSION "unknown" /* set by tools/CMakeLists.txt */
#endif

static const char usage[] =
    "usage: rdx COMMAND [options]   (rdx COMMAND --help for each)\n"
    "\n"
    "rdxsort's command-line tool: stable radix sort of files of keys, on a GPU (CUDA)\n"
    "or on every CPU core.\n"
    "\n"
    "commands:\n"
    "  sort    sort a file of keys (and a file of values with them)\n"
    "  gen     write a file of random keys of a chosen distribution\n"
    "  check   tell whether a file of keys is sorted\n"
    "  bench   measure rdxsort and other sorts on fresh random data\n"
    "\n"
    "key types: " TOOL_TYPE_NAMES "\n"
    "files are raw little-endian keys back to back, or with --text one number per line\n"
    "\n"
    "  -h, --help      this help\n"
    "  -V, --version   the tool's and the library's version and backends\n";

/* Which backends this build has and this machine can use. */
static void print_version(void)
{
    rdx_ctx *ctx = NULL;
    rdx_status s = rdx_ctx_create(&ctx, RDX_BACKEND_CUDA);
    rdx_ctx_destroy(ctx);
    const char *cuda = s == RDX_OK ? "usable"
                       : s == RDX_ERR_UNSUPPORTED ? "not built"
                                                  : "built, no usable GPU";
    printf("rdx %s (librdx %s; backends: cpu, cuda %s)\n", RDX_TOOL_VERSION,
           rdx_version_string(), cuda);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return TOOL_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return TOOL_EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        print_version();
        return TOOL_EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {
        {"sort", cmd_sort}, {"gen", cmd_gen}, {"check", cmd_check}, {"bench", cmd_bench},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(cmd, commands[i].name) == 0) {
            tool_set_command(commands[i].name);
            return commands[i].run(argc - 1, argv + 1);
        }
    }
    tool_error("unknown command '%s' (commands: sort gen check bench; see rdx --help)", cmd);
    return TOOL_EXIT_USAGE;
}
