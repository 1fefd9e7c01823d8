/* The linear steps around the passes: copying mapped keys back, writing the identity
 * permutation (no pass moved anything), and gathering odd-sized values by index. */
#include "cpu.h"

#define RDX_DEFINE_UNMAP(W)                                                                   \
    static void unmap_u##W(const unsigned char *src, unsigned char *dst, size_t b, size_t e,   \
                           int cls, int desc)                                                  \
    {                                                                                          \
        for (size_t i = b; i < e; i++)                                                         \
            rdx_st##W(dst + i * (W / 8), rdx_decode_u##W(rdx_ld##W(src + i * (W / 8)), cls, desc)); \
    }
RDX_DEFINE_UNMAP(8)
RDX_DEFINE_UNMAP(16)
RDX_DEFINE_UNMAP(32)
RDX_DEFINE_UNMAP(64)
#undef RDX_DEFINE_UNMAP

void rdx_cpu_copy_unmapped(const rdx_cpu_plan *plan, const void *src, void *dst, size_t begin,
                           size_t end)
{
    const unsigned char *s = (const unsigned char *)src;
    unsigned char *d = (unsigned char *)dst;
    switch (plan->key_bytes) {
    case 1: unmap_u8(s, d, begin, end, plan->cls, plan->desc); break;
    case 2: unmap_u16(s, d, begin, end, plan->cls, plan->desc); break;
    case 4: unmap_u32(s, d, begin, end, plan->cls, plan->desc); break;
    default: unmap_u64(s, d, begin, end, plan->cls, plan->desc); break;
    }
}

void rdx_cpu_identity(void *idx, unsigned index_bytes, size_t begin, size_t end)
{
    unsigned char *d = (unsigned char *)idx;
    if (index_bytes == 4)
        for (size_t i = begin; i < end; i++)
            rdx_st32(d + i * 4, (uint32_t)i);
    else
        for (size_t i = begin; i < end; i++)
            rdx_st64(d + i * 8, (uint64_t)i);
}

void rdx_cpu_gather(const void *src, void *dst, size_t value_size, const void *idx,
                    unsigned index_bytes, size_t begin, size_t end)
{
    const unsigned char *s = (const unsigned char *)src, *x = (const unsigned char *)idx;
    unsigned char *d = (unsigned char *)dst;
    for (size_t i = begin; i < end; i++) {
        const size_t j = index_bytes == 4 ? (size_t)rdx_ld32(x + i * 4) : (size_t)rdx_ld64(x + i * 8);
        memcpy(d + i * value_size, s + j * value_size, value_size);
    }
}
