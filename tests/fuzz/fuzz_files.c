/* Fuzz target: key files and values files as `rdx sort` and `rdx check` read and write
 * them (tools/io.c, tools/keyfile.c, the values handling of cmd_sort.c), on the CPU
 * backend. Input: a type byte, an options byte, a bit-range byte, the key file's length
 * (2 bytes), the key file's bytes, then the values file's bytes.
 * A sort that succeeds must leave an output in order, holding the input's keys (and each
 * value with its key); one that fails must leave every file as it was. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "fuzz_input.h"
#include "fuzz_workdir.h"
#include "io.h"
#include "keyfile.h"
#include "report.h"
#include "types.h"
#include "verify.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_enter_workdir();
    return 0;
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
}

/* 1 when the file holds exactly data[0..size). */
static int file_is(const char *path, const void *data, size_t size)
{
    unsigned char *got;
    size_t got_size;
    if (tool_read_file(path, &got, &got_size) != 0)
        return 0;
    int same = got_size == size && memcmp(got, data, size) == 0;
    free(got);
    return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    const rdx_type t = (rdx_type)(RDX_U8 + take_u8(&in) % 12);
    const uint8_t opt = take_u8(&in);
    const uint8_t range = take_u8(&in);
    const int text = opt & 1, reverse = opt & 2, with_values = opt & 4, to_out = opt & 8,
              values_out = opt & 16, bit_range = opt & 32;
    const size_t value_size = 1 + (opt >> 6) * 3; /* 1, 4, 7 or 10 bytes */
    size_t key_len, val_len;
    const uint8_t *key_file = take_bytes(&in, take_u16(&in), &key_len);
    const uint8_t *val_file = take_bytes(&in, in.left, &val_len);

    write_file("keys", key_file, key_len);
    write_file("vals", val_file, val_len);
    remove("out");
    remove("vout");

    char vs[16], bb[16], eb[16];
    snprintf(vs, sizeof vs, "%zu", value_size);
    snprintf(bb, sizeof bb, "%d", range % 72 - 4);
    snprintf(eb, sizeof eb, "%d", range / 72 * 16);
    char *argv[24];
    int argc = 0;
    argv[argc++] = "sort";
    argv[argc++] = "-t";
    argv[argc++] = (char *)tool_type_name(t);
    argv[argc++] = "--backend";
    argv[argc++] = "cpu";
    argv[argc++] = "keys";
    if (text)
        argv[argc++] = "--text";
    if (reverse)
        argv[argc++] = "-r";
    if (to_out) {
        argv[argc++] = "-o";
        argv[argc++] = "out";
    }
    if (with_values) {
        argv[argc++] = "--values";
        argv[argc++] = "vals";
        argv[argc++] = "--value-size";
        argv[argc++] = vs;
        if (values_out) {
            argv[argc++] = "--values-out";
            argv[argc++] = "vout";
        }
    }
    if (bit_range) {
        argv[argc++] = "--begin-bit";
        argv[argc++] = bb;
        argv[argc++] = "--end-bit";
        argv[argc++] = eb;
    }
    argv[argc] = NULL;

    /* What the input holds, as the tool reads it (NULL when it cannot). */
    void *in_keys = NULL;
    size_t n = 0;
    if (tool_load_keys("keys", t, text, &in_keys, &n) != 0)
        in_keys = NULL;

    tool_parse_only = 0;
    tool_set_command("sort");
    optind = 0;
    const int status = cmd_sort(argc, argv);
    const char *kout = to_out ? "out" : "keys";
    const char *vout = values_out ? "vout" : "vals";
    if (status != TOOL_EXIT_OK) {
        FUZZ_CHECK(status == TOOL_EXIT_FAIL || status == TOOL_EXIT_USAGE);
        FUZZ_CHECK(file_is("keys", key_file, key_len));
        FUZZ_CHECK(file_is("vals", val_file, val_len));
        FUZZ_CHECK(access("out", F_OK) != 0 && access("vout", F_OK) != 0);
    } else {
        FUZZ_CHECK(in_keys != NULL);
        void *out_keys;
        size_t out_n;
        FUZZ_CHECK(tool_load_keys(kout, t, text, &out_keys, &out_n) == 0);
        FUZZ_CHECK(out_n == n);
        const size_t ks = tool_type_bytes(t);
        FUZZ_CHECK(tool_checksum_keys(out_keys, n, ks) == tool_checksum_keys(in_keys, n, ks));
        if (!bit_range)
            FUZZ_CHECK(tool_first_unsorted(out_keys, n, t, reverse != 0) == n);
        if (with_values) {
            unsigned char *out_vals;
            size_t out_vsize;
            FUZZ_CHECK(tool_read_file(vout, &out_vals, &out_vsize) == 0);
            FUZZ_CHECK(out_vsize == n * value_size && val_len == n * value_size);
            FUZZ_CHECK(tool_checksum_pairs(out_keys, ks, out_vals, value_size, n) ==
                       tool_checksum_pairs(in_keys, ks, val_file, value_size, n));
            free(out_vals);
        }
        /* rdx check agrees that the output is sorted. */
        if (!bit_range) {
            char *cargv[8];
            int cargc = 0;
            cargv[cargc++] = "check";
            cargv[cargc++] = "-t";
            cargv[cargc++] = (char *)tool_type_name(t);
            if (reverse)
                cargv[cargc++] = "-r";
            if (text)
                cargv[cargc++] = "--text";
            cargv[cargc++] = (char *)kout;
            cargv[cargc] = NULL;
            optind = 0;
            tool_set_command("check");
            FUZZ_CHECK(cmd_check(cargc, cargv) == TOOL_EXIT_OK);
        }
        free(out_keys);
    }
    free(in_keys);
    return 0;
}
