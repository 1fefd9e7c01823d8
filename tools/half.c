/* double <-> f16 / bf16 (see half.h). One routine serves both formats: they differ only
 * in their numbers of exponent and mantissa bits. */
#include "half.h"

#include <math.h>

/* Rounds x to the format with ebits exponent bits and mbits mantissa bits (1 + ebits +
 * mbits = 16 here). Scaling by a power of two is exact in double, and rint rounds to
 * nearest even in the default rounding mode, so this is one correct rounding of x. */
static uint16_t narrow(double x, int ebits, int mbits)
{
    const int bias = (1 << (ebits - 1)) - 1;
    const uint32_t exp_all = (1u << ebits) - 1;
    const uint32_t sign = signbit(x) ? 1u << (ebits + mbits) : 0;
    if (isnan(x))
        return (uint16_t)(sign | exp_all << mbits | 1u << (mbits - 1));
    if (isinf(x))
        return (uint16_t)(sign | exp_all << mbits);
    const double a = fabs(x);
    if (a == 0.0)
        return (uint16_t)sign;
    int e;
    frexp(a, &e);                  /* a = m * 2^e, m in [0.5, 1): unbiased exponent e - 1 */
    int ue = e - 1;
    if (ue < 1 - bias) {           /* subnormal: units of 2^(1 - bias - mbits) */
        uint32_t sig = (uint32_t)rint(ldexp(a, mbits - (1 - bias)));
        return (uint16_t)(sign | sig); /* sig == 2^mbits is the smallest normal, as it should be */
    }
    uint32_t sig = (uint32_t)rint(ldexp(a, mbits - ue)); /* in [2^mbits, 2^(mbits+1)] */
    if (sig == 1u << (mbits + 1)) {
        sig >>= 1;
        ue++;
    }
    if (ue > bias)
        return (uint16_t)(sign | exp_all << mbits);
    return (uint16_t)(sign | (uint32_t)(ue + bias) << mbits | (sig - (1u << mbits)));
}

static double widen(uint16_t bits, int ebits, int mbits)
{
    const int bias = (1 << (ebits - 1)) - 1;
    const uint32_t exp_all = (1u << ebits) - 1;
    const uint32_t exp = (bits >> mbits) & exp_all, mant = bits & ((1u << mbits) - 1);
    const double s = (bits >> (ebits + mbits)) ? -1.0 : 1.0;
    if (exp == exp_all)
        return mant ? copysign(NAN, s) : copysign(INFINITY, s);
    if (exp == 0)
        return s * ldexp((double)mant, 1 - bias - mbits);
    return s * ldexp((double)((1u << mbits) | mant), (int)exp - bias - mbits);
}

uint16_t tool_double_to_f16(double x) { return narrow(x, 5, 10); }
uint16_t tool_double_to_bf16(double x) { return narrow(x, 8, 7); }
double tool_f16_to_double(uint16_t bits) { return widen(bits, 5, 10); }
double tool_bf16_to_double(uint16_t bits) { return widen(bits, 8, 7); }
