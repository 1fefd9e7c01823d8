/* Key types by name, raw key access and the key order (see types.h). */
#include "types.h"

#include <string.h>

static const char *const type_names[] = {
    "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
};

int tool_parse_type(const char *name, rdx_type *t)
{
    for (int i = 0; i < 12; i++) {
        if (strcmp(name, type_names[i]) == 0) {
            *t = (rdx_type)(RDX_U8 + i);
            return 0;
        }
    }
    return -1;
}

const char *tool_type_name(rdx_type t)
{
    if (t < RDX_U8 || t > RDX_F64)
        return "?";
    return type_names[t - RDX_U8];
}

int tool_bits_finite(rdx_type t, uint64_t bits)
{
    switch (t) {
    case RDX_F16: return (bits & 0x7c00u) != 0x7c00u;
    case RDX_BF16: return (bits & 0x7f80u) != 0x7f80u;
    case RDX_F32: return (bits & 0x7f800000u) != 0x7f800000u;
    case RDX_F64: return (bits & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
    default: return 1;
    }
}
