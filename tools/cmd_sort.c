/* rdx sort: sorts a key file (and a values file with it) through the library. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io.h"
#include "keyfile.h"
#include "progress.h"
#include "report.h"
#include "types.h"

static const char usage[] =
    "usage: rdx sort -t TYPE [options] IN [-o OUT]\n"
    "\n"
    "Sorts the keys in IN, stably, into OUT, or in place (through a temporary file that\n"
    "replaces IN only once complete: a failure never leaves a half-written file).\n"
    "IN holds raw little-endian keys back to back, or with --text one number per line.\n"
    "\n"
    "  -t, --type TYPE        key type: " TOOL_TYPE_NAMES "\n"
    "  -o, --output OUT       write the sorted keys to OUT instead of IN\n"
    "  -r, --reverse          descending order (equal keys still keep their order)\n"
    "      --text             IN and OUT hold one number per line (floats may be nan,\n"
    "                         -nan, inf, -inf; written back with enough digits to\n"
    "                         read back to the same bits)\n"
    "      --values FILE      also sort the values in FILE (raw records, also with\n"
    "                         --text), moving each with its key; FILE is rewritten\n"
    "      --value-size N     bytes per value (needed with --values)\n"
    "      --values-out FILE  write the moved values to FILE instead of --values FILE\n"
    "      --backend B        auto (CUDA when a GPU is usable), cpu or cuda; default auto\n"
    "      --begin-bit B      sort on bits [B, E) of the key mapped to its order\n"
    "      --end-bit E        (default: all bits)\n"
    "      --radix-bits R     digit width 1..8 (default: the backend's choice)\n"
    "  -h, --help             this help\n"
    "\n"
    "Exit status: 0 sorted, 1 a file or the library failed, 2 a bad command line.\n"
    "example: rdx sort -t f32 data.f32 -o sorted.f32\n";

typedef struct sort_args {
    const char *in, *out, *values, *values_out;
    rdx_type type;
    int have_type, text, reverse;
    size_t value_size;
    rdx_backend backend;
    rdx_opts opts;
} sort_args;

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, sort_args *a)
{
    enum { OPT_TEXT = 256, OPT_VALUES, OPT_VALUE_SIZE, OPT_VALUES_OUT, OPT_BACKEND,
           OPT_BEGIN, OPT_END, OPT_RADIX };
    static const struct option longopts[] = {
        {"type", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'},
        {"reverse", no_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {"text", no_argument, NULL, OPT_TEXT},
        {"values", required_argument, NULL, OPT_VALUES},
        {"value-size", required_argument, NULL, OPT_VALUE_SIZE},
        {"values-out", required_argument, NULL, OPT_VALUES_OUT},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"begin-bit", required_argument, NULL, OPT_BEGIN},
        {"end-bit", required_argument, NULL, OPT_END},
        {"radix-bits", required_argument, NULL, OPT_RADIX},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->backend = RDX_BACKEND_AUTO;
    long v;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:o:rh", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (tool_parse_type(optarg, &a->type) != 0) {
                tool_error("unknown type '%s' (types: %s)", optarg, TOOL_TYPE_NAMES);
                return TOOL_EXIT_USAGE;
            }
            a->have_type = 1;
            break;
        case 'o': a->out = optarg; break;
        case 'r': a->reverse = 1; break;
        case 'h': fputs(usage, stdout); return TOOL_EXIT_OK;
        case OPT_TEXT: a->text = 1; break;
        case OPT_VALUES: a->values = optarg; break;
        case OPT_VALUES_OUT: a->values_out = optarg; break;
        case OPT_VALUE_SIZE:
            if (tool_parse_int(optarg, 1, 1L << 20, &v) != 0) {
                tool_error("--value-size '%s' is not a size from 1 to 1048576 bytes", optarg);
                return TOOL_EXIT_USAGE;
            }
            a->value_size = (size_t)v;
            break;
        case OPT_BACKEND:
            if (tool_parse_backend(optarg, &a->backend) != 0) {
                tool_error("unknown backend '%s' (auto, cpu or cuda)", optarg);
                return TOOL_EXIT_USAGE;
            }
            break;
        case OPT_BEGIN:
        case OPT_END:
        case OPT_RADIX:
            /* range checks are the library's: it names the bad value */
            if (tool_parse_int(optarg, -1000000, 1000000, &v) != 0) {
                tool_error("%s '%s' is not a number",
                           c == OPT_BEGIN ? "--begin-bit" : c == OPT_END ? "--end-bit" : "--radix-bits",
                           optarg);
                return TOOL_EXIT_USAGE;
            }
            if (c == OPT_BEGIN)
                a->opts.begin_bit = (int)v;
            else if (c == OPT_END)
                a->opts.end_bit = (int)v;
            else
                a->opts.radix_bits = (int)v;
            break;
        default:
            return tool_bad_option(c, argv);
        }
    }
    if (!a->have_type) {
        tool_error("no key type: give -t TYPE (%s)", TOOL_TYPE_NAMES);
        return TOOL_EXIT_USAGE;
    }
    if (optind != argc - 1) {
        tool_error(optind == argc ? "no input file" : "more than one input file (use -o OUT for the output)");
        return TOOL_EXIT_USAGE;
    }
    a->in = argv[optind];
    if (a->values && !a->value_size) {
        tool_error("--values needs --value-size N (bytes per value)");
        return TOOL_EXIT_USAGE;
    }
    if (!a->values && (a->value_size || a->values_out)) {
        tool_error("%s without --values FILE", a->value_size ? "--value-size" : "--values-out");
        return TOOL_EXIT_USAGE;
    }
    if (a->reverse)
        a->opts.flags |= RDX_DESCENDING;
    return -1;
}

/* Reads the values file: exactly n records of value_size bytes. */
static int load_values(const sort_args *a, size_t n, unsigned char **values)
{
    size_t size;
    if (tool_read_file(a->values, values, &size) != 0)
        return -1;
    if (size % a->value_size != 0)
        tool_error("%s: size %zu is not a multiple of the %zu-byte value size", a->values, size,
                   a->value_size);
    else if (size / a->value_size != n)
        tool_error("%s: holds %zu values but %s holds %zu keys", a->values, size / a->value_size,
                   a->in, n);
    else
        return 0;
    free(*values);
    *values = NULL;
    return -1;
}

/* Writes keys (and values) to complete temporary files first, then renames them over
 * their destinations: a failure before the renames changes no file. (The two renames
 * themselves are not one atomic step; a rename in one directory practically never fails.) */
static int save_results(const sort_args *a, const void *keys, size_t n, const void *values)
{
    tool_output ko, vo;
    const char *kpath = a->out ? a->out : a->in;
    tool_progress_start("writing %s", kpath);
    if (tool_output_open(&ko, kpath) != 0)
        return -1;
    if (tool_write_keys(&ko, keys, n, a->type, a->text) != 0)
        return -1;
    if (values) {
        const char *vpath = a->values_out ? a->values_out : a->values;
        if (tool_output_open(&vo, vpath) != 0) {
            tool_output_abort(&ko);
            return -1;
        }
        if (tool_output_write(&vo, values, n * a->value_size) != 0 || tool_output_close(&vo) != 0) {
            tool_output_abort(&ko);
            return -1;
        }
        if (tool_output_commit(&vo) != 0) {
            tool_output_abort(&ko);
            return -1;
        }
    }
    int r = tool_output_commit(&ko);
    tool_progress_stop();
    return r;
}

int cmd_sort(int argc, char **argv)
{
    sort_args a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    if (tool_parse_only)
        return TOOL_EXIT_OK;

    void *keys = NULL;
    unsigned char *values = NULL;
    size_t n = 0;
    rdx_ctx *ctx = NULL;
    status = TOOL_EXIT_FAIL;
    tool_progress_start("reading %s", a.in);
    if (tool_load_keys(a.in, a.type, a.text, &keys, &n) != 0)
        goto done;
    if (a.values) {
        tool_progress_start("reading %s", a.values);
        if (load_values(&a, n, &values) != 0)
            goto done;
    }
    tool_progress_stop();
    if (!(ctx = tool_open_context(a.backend)))
        goto done;

    tool_progress_start("sorting %zu %s keys on the %s backend", n, tool_type_name(a.type),
                        tool_backend_name(rdx_ctx_backend(ctx)));
    rdx_status s = a.values ? rdx_sort_pairs(ctx, keys, values, a.value_size, n, a.type, &a.opts)
                            : rdx_sort_keys(ctx, keys, n, a.type, &a.opts);
    tool_progress_stop();
    if (s != RDX_OK) {
        const char *detail = rdx_ctx_error(ctx);
        tool_error("%s", detail[0] ? detail : rdx_status_string(s));
        goto done;
    }
    if (save_results(&a, keys, n, values) == 0)
        status = TOOL_EXIT_OK;
done:
    tool_progress_stop();
    rdx_ctx_destroy(ctx);
    free(keys);
    free(values);
    return status;
}
