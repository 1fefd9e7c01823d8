/* Keys as text (see text.h). */
#include "text.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "half.h"
#include "report.h"
#include "types.h"

/* Integer limits by key width, for the range check. */
static int64_t signed_min(size_t size)
{
    return size == 8 ? INT64_MIN : -((int64_t)1 << (size * 8 - 1));
}
static int64_t signed_max(size_t size)
{
    return size == 8 ? INT64_MAX : ((int64_t)1 << (size * 8 - 1)) - 1;
}
static uint64_t unsigned_max(size_t size)
{
    return size == 8 ? UINT64_MAX : ((uint64_t)1 << (size * 8)) - 1;
}

static tool_parse_result parse_integer(rdx_type t, const char *s, uint64_t *bits)
{
    const size_t size = rdx_type_size(t);
    char *end;
    errno = 0;
    if (tool_type_is_signed(t)) {
        long long v = strtoll(s, &end, 10);
        if (end == s || *end)
            return TOOL_PARSE_NOT_A_NUMBER;
        if (errno == ERANGE || v < signed_min(size) || v > signed_max(size))
            return TOOL_PARSE_OUT_OF_RANGE;
        *bits = (uint64_t)v & unsigned_max(size);
        return TOOL_PARSE_OK;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end)
        return TOOL_PARSE_NOT_A_NUMBER;
    if (s[0] == '-' && v != 0)   /* strtoull would wrap "-1" around to the maximum */
        return TOOL_PARSE_OUT_OF_RANGE;
    if (errno == ERANGE || v > unsigned_max(size))
        return TOOL_PARSE_OUT_OF_RANGE;
    *bits = v;
    return TOOL_PARSE_OK;
}

/* nan, inf, infinity with an optional sign, in any case: 1 and the value, else 0.
 * (Read by hand so that "-nan" reliably gives a NaN with the sign bit set.) */
static int parse_special(const char *s, double *out)
{
    double sign = 1.0;
    if (*s == '-' || *s == '+')
        sign = *s++ == '-' ? -1.0 : 1.0;
    if (strcasecmp(s, "nan") == 0)
        *out = copysign(NAN, sign);
    else if (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0)
        *out = copysign(INFINITY, sign);
    else
        return 0;
    return 1;
}

/* Quiet NaN bits of a float type, with the sign bit set when neg. */
static uint64_t nan_bits(rdx_type t, int neg)
{
    switch (t) {
    case RDX_F16: return neg ? 0xfe00u : 0x7e00u;
    case RDX_BF16: return neg ? 0xffc0u : 0x7fc0u;
    case RDX_F32: return neg ? 0xffc00000u : 0x7fc00000u;
    default: return neg ? 0xfff8000000000000ull : 0x7ff8000000000000ull;
    }
}

/* Floats: strtof for f32 and strtod for f64 round the decimal once; f16 and bf16 round
 * the (correctly rounded) double, which is safe for the printed forms this tool writes,
 * as they lie far from any halfway point between two f16/bf16 values. A finite number
 * that rounds to infinity is out of range. */
static tool_parse_result parse_float(rdx_type t, const char *s, uint64_t *bits)
{
    double special;
    if (parse_special(s, &special)) {
        if (isnan(special)) {
            *bits = nan_bits(t, signbit(special) != 0);
        } else if (t == RDX_F32) {
            float f = (float)special;
            uint32_t b;
            memcpy(&b, &f, 4);
            *bits = b;
        } else if (t == RDX_F64) {
            memcpy(bits, &special, 8);
        } else {
            *bits = t == RDX_F16 ? tool_double_to_f16(special) : tool_double_to_bf16(special);
        }
        return TOOL_PARSE_OK;
    }
    char *end;
    uint64_t b;
    if (t == RDX_F32) {
        float f = strtof(s, &end);
        if (end == s || *end)
            return TOOL_PARSE_NOT_A_NUMBER;
        uint32_t b32;
        memcpy(&b32, &f, 4);
        b = b32;
    } else {
        double d = strtod(s, &end);
        if (end == s || *end)
            return TOOL_PARSE_NOT_A_NUMBER;
        if (t == RDX_F64)
            memcpy(&b, &d, 8);
        else
            b = t == RDX_F16 ? tool_double_to_f16(d) : tool_double_to_bf16(d);
    }
    /* A finite number that rounded to infinity is out of range; "nan(...)", which strtod
     * reads as a NaN, is a NaN. */
    if (!tool_bits_finite(t, b) && !isnan(strtod(s, NULL)))
        return TOOL_PARSE_OUT_OF_RANGE;
    *bits = b;
    return TOOL_PARSE_OK;
}

tool_parse_result tool_parse_key(rdx_type t, const char *s, uint64_t *bits)
{
    /* Trim blanks (and a '\r' of a CRLF file) on both sides. */
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    char buf[128];
    if (len == 0 || len >= sizeof buf)
        return TOOL_PARSE_NOT_A_NUMBER;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return tool_type_is_float(t) ? parse_float(t, buf, bits) : parse_integer(t, buf, bits);
}

void tool_format_key(rdx_type t, uint64_t bits, char *buf)
{
    const size_t size = rdx_type_size(t);
    if (!tool_type_is_float(t)) {
        if (tool_type_is_signed(t)) {
            /* sign-extend the key's width to 64 bits */
            const uint64_t sign = (uint64_t)1 << (size * 8 - 1);
            int64_t v = (int64_t)((bits ^ sign) - sign);
            if (size == 8)
                memcpy(&v, &bits, 8);
            snprintf(buf, TOOL_KEY_TEXT_MAX, "%" PRId64, v);
        } else {
            snprintf(buf, TOOL_KEY_TEXT_MAX, "%" PRIu64, bits);
        }
        return;
    }
    double d;
    int digits;
    switch (t) {
    case RDX_F16: d = tool_f16_to_double((uint16_t)bits); digits = 5; break;
    case RDX_BF16: d = tool_bf16_to_double((uint16_t)bits); digits = 4; break;
    case RDX_F32: {
        float f;
        uint32_t b = (uint32_t)bits;
        memcpy(&f, &b, 4);
        d = f;
        digits = 9;
        break;
    }
    default: memcpy(&d, &bits, 8); digits = 17; break;
    }
    if (isnan(d))
        snprintf(buf, TOOL_KEY_TEXT_MAX, "%snan", signbit(d) ? "-" : "");
    else if (isinf(d))
        snprintf(buf, TOOL_KEY_TEXT_MAX, "%sinf", d < 0 ? "-" : "");
    else
        snprintf(buf, TOOL_KEY_TEXT_MAX, "%.*g", digits, d);
}

int tool_parse_text_keys(const char *path, const char *text, size_t size, rdx_type t,
                         void **keys, size_t *n)
{
    const size_t ksize = rdx_type_size(t);
    size_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    if (size && text[size - 1] != '\n')
        lines++;
    unsigned char *out = malloc(lines ? lines * ksize : 1);
    if (!out) {
        tool_error("%s: out of memory for %zu keys", path, lines);
        return -1;
    }
    size_t count = 0, line_no = 0, pos = 0;
    char line[128];
    while (pos < size) {
        const char *nl = memchr(text + pos, '\n', size - pos);
        size_t len = nl ? (size_t)(nl - (text + pos)) : size - pos;
        line_no++;
        /* An empty line (or one of blanks) is skipped: files often end with one. */
        size_t k = 0;
        while (k < len && (text[pos + k] == ' ' || text[pos + k] == '\t' || text[pos + k] == '\r'))
            k++;
        if (k < len) {
            if (len >= sizeof line) {
                tool_error("%s: line %zu: too long to be a %s number", path, line_no, tool_type_name(t));
                free(out);
                return -1;
            }
            memcpy(line, text + pos, len);
            line[len] = '\0';
            while (len && line[len - 1] == '\r') /* keep a CRLF's '\r' out of messages */
                line[--len] = '\0';
            if (memchr(line, '\0', len)) {
                tool_error("%s: line %zu: not text (holds a NUL byte)", path, line_no);
                free(out);
                return -1;
            }
            uint64_t bits = 0;
            tool_parse_result r = tool_parse_key(t, line, &bits);
            if (r != TOOL_PARSE_OK) {
                tool_error("%s: line %zu: '%s' %s %s", path, line_no, line,
                           r == TOOL_PARSE_NOT_A_NUMBER ? "is not a number of type" : "is out of the range of",
                           tool_type_name(t));
                free(out);
                return -1;
            }
            tool_store_bits(out, count++, ksize, bits);
        }
        pos += len + 1;
    }
    *keys = out;
    *n = count;
    return 0;
}

int tool_write_text_keys(FILE *f, const void *keys, size_t n, rdx_type t)
{
    const size_t ksize = rdx_type_size(t);
    char buf[TOOL_KEY_TEXT_MAX];
    for (size_t i = 0; i < n; i++) {
        tool_format_key(t, tool_load_bits(keys, i, ksize), buf);
        if (fputs(buf, f) == EOF || putc('\n', f) == EOF)
            return -1;
    }
    return 0;
}
