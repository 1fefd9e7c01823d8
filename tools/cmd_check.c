/* rdx check: tells whether a key file is sorted in the key order of rdx.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "keyfile.h"
#include "progress.h"
#include "report.h"
#include "text.h"
#include "types.h"
#include "verify.h"

/* Every failure of check, bad usage included, exits with this (1 means "not sorted"). */
#define CHECK_EXIT_BAD_INPUT 2

static const char usage[] =
    "usage: rdx check -t TYPE [-r] [--text] FILE\n"
    "\n"
    "Checks that the keys in FILE are in the key order of rdxsort (integers by value;\n"
    "floats in IEEE 754 totalOrder: -nan < -inf < ... < -0 < +0 < ... < inf < nan),\n"
    "ascending, or descending with -r. Prints the first position out of order\n"
    "(positions count from 0).\n"
    "\n"
    "  -t, --type TYPE   key type: " TOOL_TYPE_NAMES "\n"
    "  -r, --reverse     check for descending order\n"
    "      --text        FILE holds one number per line\n"
    "  -h, --help        this help\n"
    "\n"
    "Exit status: 0 sorted, 1 not sorted, 2 bad input (unreadable file, bad size or text).\n"
    "example: rdx check -t i64 sorted.i64\n";

int cmd_check(int argc, char **argv)
{
    enum { OPT_TEXT = 256 };
    static const struct option longopts[] = {
        {"type", required_argument, NULL, 't'},
        {"reverse", no_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {"text", no_argument, NULL, OPT_TEXT},
        {NULL, 0, NULL, 0},
    };
    rdx_type type = RDX_U32;
    int have_type = 0, reverse = 0, text = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:rh", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (tool_parse_type(optarg, &type) != 0) {
                tool_error("unknown type '%s' (types: %s)", optarg, TOOL_TYPE_NAMES);
                return CHECK_EXIT_BAD_INPUT;
            }
            have_type = 1;
            break;
        case 'r': reverse = 1; break;
        case 'h': fputs(usage, stdout); return TOOL_EXIT_OK;
        case OPT_TEXT: text = 1; break;
        default: tool_bad_option(c, argv); return CHECK_EXIT_BAD_INPUT;
        }
    }
    if (!have_type) {
        tool_error("no key type: give -t TYPE (%s)", TOOL_TYPE_NAMES);
        return CHECK_EXIT_BAD_INPUT;
    }
    if (optind != argc - 1) {
        tool_error(optind == argc ? "no file to check" : "more than one file");
        return CHECK_EXIT_BAD_INPUT;
    }
    if (tool_parse_only)
        return TOOL_EXIT_OK;
    const char *path = argv[optind];
    void *keys;
    size_t n;
    tool_progress_start("reading %s", path);
    if (tool_load_keys(path, type, text, &keys, &n) != 0) {
        tool_progress_stop();
        return CHECK_EXIT_BAD_INPUT;
    }
    tool_progress_start("checking %zu keys", n);
    size_t bad = tool_first_unsorted(keys, n, type, reverse);
    tool_progress_stop();
    const char *order = reverse ? "descending" : "ascending";
    if (bad == n) {
        printf("%s: sorted (%zu %s keys, %s)\n", path, n, tool_type_name(type), order);
        free(keys);
        return TOOL_EXIT_OK;
    }
    const size_t ksize = rdx_type_size(type);
    char prev[TOOL_KEY_TEXT_MAX], cur[TOOL_KEY_TEXT_MAX];
    tool_format_key(type, tool_load_bits(keys, bad - 1, ksize), prev);
    tool_format_key(type, tool_load_bits(keys, bad, ksize), cur);
    printf("%s: not sorted (%s): position %zu holds %s, after %s at position %zu\n", path, order,
           bad, cur, prev, bad - 1);
    free(keys);
    return TOOL_EXIT_FAIL;
}
