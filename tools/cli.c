/* Option handling shared by the commands (see cli.h). */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

int tool_parse_only = 0;

int tool_bad_option(int c, char **argv)
{
    char name[64];
    if (optopt) {
        snprintf(name, sizeof name, "-%c", optopt);
    } else {
        /* a long option: its text, without any "=value" */
        const char *arg = argv[optind - 1];
        size_t len = strcspn(arg, "=");
        snprintf(name, sizeof name, "%.*s", (int)(len < 60 ? len : 60), arg);
    }
    if (c == ':')
        tool_error("option '%s' needs a value (see rdx %s --help)", name, tool_command());
    else
        tool_error("unknown option '%s' (see rdx %s --help)", name, tool_command());
    return TOOL_EXIT_USAGE;
}

int tool_parse_count(const char *s, uint64_t *out)
{
    char *end;
    if (s[0] == '2' && s[1] == '^') {
        errno = 0;
        unsigned long e = strtoul(s + 2, &end, 10);
        if (end == s + 2 || *end || errno || e > 63)
            return -1;
        *out = (uint64_t)1 << e;
        return 0;
    }
    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

int tool_parse_int(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int tool_parse_backend(const char *s, rdx_backend *b)
{
    if (strcmp(s, "auto") == 0)
        *b = RDX_BACKEND_AUTO;
    else if (strcmp(s, "cpu") == 0)
        *b = RDX_BACKEND_CPU;
    else if (strcmp(s, "cuda") == 0)
        *b = RDX_BACKEND_CUDA;
    else
        return -1;
    return 0;
}

const char *tool_backend_name(rdx_backend b)
{
    switch (b) {
    case RDX_BACKEND_CPU: return "cpu";
    case RDX_BACKEND_CUDA: return "cuda";
    default: return "auto";
    }
}

rdx_ctx *tool_open_context(rdx_backend b)
{
    rdx_ctx *ctx = NULL;
    rdx_status s = rdx_ctx_create(&ctx, b);
    if (s == RDX_OK)
        return ctx;
    if (s == RDX_ERR_UNSUPPORTED)
        tool_error("backend %s: this build of rdxsort has no CUDA backend", tool_backend_name(b));
    else
        tool_error("backend %s: %s", tool_backend_name(b), rdx_status_string(s));
    return NULL;
}
