/* Fuzz target: the rdx tool's text reader (tools/text.c) for every key type.
 * Input: one byte that picks the type, then the file's text. Whatever the text, the reader
 * must answer without a crash or a leak; every key it accepts must print and read back to
 * the same bits (a NaN to a NaN of the same sign). */
#include <string.h>

#include "fuzz_input.h"
#include "text.h"
#include "types.h"

static int is_nan_bits(rdx_type t, uint64_t bits)
{
    const uint64_t mask = tool_width_mask(t) & ~tool_sign_bit(t);
    uint64_t inf;
    switch (t) {
    case RDX_F16: inf = 0x7c00u; break;
    case RDX_BF16: inf = 0x7f80u; break;
    case RDX_F32: inf = 0x7f800000u; break;
    default: inf = 0x7ff0000000000000ull; break;
    }
    return tool_type_is_float(t) && (bits & mask) > inf;
}

static void check_round_trip(rdx_type t, uint64_t bits)
{
    char buf[TOOL_KEY_TEXT_MAX];
    uint64_t back = 0;
    tool_format_key(t, bits, buf);
    FUZZ_CHECK(tool_parse_key(t, buf, &back) == TOOL_PARSE_OK);
    if (is_nan_bits(t, bits))
        FUZZ_CHECK(is_nan_bits(t, back) && (back & tool_sign_bit(t)) == (bits & tool_sign_bit(t)));
    else
        FUZZ_CHECK(back == bits);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    const rdx_type t = (rdx_type)(RDX_U8 + take_u8(&in) % 12);
    size_t len;
    const char *text = (const char *)take_bytes(&in, size, &len);

    void *keys = NULL;
    size_t n = 0;
    if (tool_parse_text_keys("fuzz", text, len, t, &keys, &n) == 0) {
        FUZZ_CHECK(keys != NULL);
        for (size_t i = 0; i < n; i++)
            check_round_trip(t, tool_load_bits(keys, i, tool_type_bytes(t)));
        free(keys);
    }

    /* The same bytes as one key (a NUL ends the string, as it would in argv). */
    char *line = malloc(len + 1);
    if (!line)
        return 0;
    memcpy(line, text, len);
    line[len] = '\0';
    uint64_t bits = 0;
    if (tool_parse_key(t, line, &bits) == TOOL_PARSE_OK) {
        FUZZ_CHECK((bits & ~tool_width_mask(t)) == 0);
        check_round_trip(t, bits);
    }
    free(line);
    return 0;
}
