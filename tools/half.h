/* Conversions between double and the 16-bit float formats f16 (IEEE binary16) and bf16
 * (bfloat16), for reading and writing them as text. */
#ifndef RDX_TOOL_HALF_H
#define RDX_TOOL_HALF_H

#include <stdint.h>

/* The bits of x rounded to the nearest f16 / bf16 (ties to even). Finite values too large
 * for the format round to infinity, as IEEE 754 says; NaN becomes a quiet NaN of x's sign. */
uint16_t tool_double_to_f16(double x);
uint16_t tool_double_to_bf16(double x);

/* The exact value of f16 / bf16 bits. */
double tool_f16_to_double(uint16_t bits);
double tool_bf16_to_double(uint16_t bits);

#endif
