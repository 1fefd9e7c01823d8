/* rdx gen: writes a key file of a chosen distribution. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dist.h"
#include "keyfile.h"
#include "progress.h"
#include "report.h"
#include "rng.h"
#include "types.h"

static const char usage[] =
    "usage: rdx gen -t TYPE -n N [--dist D] [--seed S] [--text] OUT\n"
    "\n"
    "Writes N keys of TYPE to OUT, raw little-endian (or with --text one per line).\n"
    "\n"
    "  -t, --type TYPE   key type: " TOOL_TYPE_NAMES "\n"
    "  -n, --count N     how many keys (a number, or 2^K)\n"
    "      --dist D      uniform (default; floats: every finite value alike), sorted,\n"
    "                    reverse, equal, few (16 values), lowentropy (AND of three\n"
    "                    random words), zipf (65536 values, the k-th with weight 1/k),\n"
    "                    repeat (n/256 + 1 values, each about 256 times)\n"
    "      --seed S      seed of the random data (default: from the clock; printed on\n"
    "                    stderr); the same seed gives the same file\n"
    "      --text        write one number per line\n"
    "  -h, --help        this help\n"
    "\n"
    "Float keys are never NaN or infinite. Exit status: 0 written, 1 failed, 2 bad usage.\n"
    "example: rdx gen -t u32 -n 2^20 --dist zipf keys.u32\n";

int cmd_gen(int argc, char **argv)
{
    enum { OPT_DIST = 256, OPT_SEED, OPT_TEXT };
    static const struct option longopts[] = {
        {"type", required_argument, NULL, 't'},
        {"count", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {"dist", required_argument, NULL, OPT_DIST},
        {"seed", required_argument, NULL, OPT_SEED},
        {"text", no_argument, NULL, OPT_TEXT},
        {NULL, 0, NULL, 0},
    };
    rdx_type type = RDX_U32;
    int have_type = 0, have_n = 0, have_seed = 0, text = 0;
    uint64_t n = 0, seed = 0;
    tool_dist dist = TOOL_DIST_UNIFORM;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (tool_parse_type(optarg, &type) != 0) {
                tool_error("unknown type '%s' (types: %s)", optarg, TOOL_TYPE_NAMES);
                return TOOL_EXIT_USAGE;
            }
            have_type = 1;
            break;
        case 'n':
            if (tool_parse_count(optarg, &n) != 0) {
                tool_error("-n '%s' is not a count (a number, or 2^K)", optarg);
                return TOOL_EXIT_USAGE;
            }
            have_n = 1;
            break;
        case 'h': fputs(usage, stdout); return TOOL_EXIT_OK;
        case OPT_DIST:
            if (tool_parse_dist(optarg, &dist) != 0) {
                tool_error("unknown distribution '%s' (%s)", optarg, TOOL_DIST_NAMES);
                return TOOL_EXIT_USAGE;
            }
            break;
        case OPT_SEED:
            if (tool_parse_count(optarg, &seed) != 0) {
                tool_error("--seed '%s' is not a number", optarg);
                return TOOL_EXIT_USAGE;
            }
            have_seed = 1;
            break;
        case OPT_TEXT: text = 1; break;
        default: return tool_bad_option(c, argv);
        }
    }
    if (!have_type || !have_n) {
        tool_error("give %s", !have_type ? "the key type with -t TYPE" : "the count with -n N");
        return TOOL_EXIT_USAGE;
    }
    if (optind != argc - 1) {
        tool_error(optind == argc ? "no output file" : "more than one output file");
        return TOOL_EXIT_USAGE;
    }
    const char *out = argv[optind];
    const size_t ksize = rdx_type_size(type);
    if (n > SIZE_MAX / ksize) {
        tool_error("-n %llu keys do not fit in memory", (unsigned long long)n);
        return TOOL_EXIT_USAGE;
    }
    if (tool_parse_only)
        return TOOL_EXIT_OK;
    if (!have_seed) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = tool_mix64((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^ (uint64_t)getpid();
        fprintf(stderr, "rdx gen: seed %llu\n", (unsigned long long)seed);
    }

    void *keys = malloc(n ? (size_t)n * ksize : 1);
    if (!keys) {
        tool_error("out of memory for %llu keys", (unsigned long long)n);
        return TOOL_EXIT_FAIL;
    }
    tool_progress_start("generating %llu %s keys", (unsigned long long)n, tool_type_name(type));
    int r = tool_generate(keys, (size_t)n, type, dist, seed);
    tool_progress_start("writing %s", out);
    if (r == 0)
        r = tool_save_keys(out, keys, (size_t)n, type, text);
    tool_progress_stop();
    free(keys);
    return r == 0 ? TOOL_EXIT_OK : TOOL_EXIT_FAIL;
}
