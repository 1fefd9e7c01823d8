/* Reading a fuzzer's input as a stream of choices: each take_* consumes bytes from the
 * front and gives 0 once the input has run out, so that every input is a valid program. */
#ifndef RDX_FUZZ_INPUT_H
#define RDX_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct fuzz_input {
    const uint8_t *p;
    size_t left;
} fuzz_input;

static inline uint8_t take_u8(fuzz_input *in)
{
    if (!in->left)
        return 0;
    in->left--;
    return *in->p++;
}

static inline uint16_t take_u16(fuzz_input *in)
{
    uint16_t lo = take_u8(in);
    return (uint16_t)(lo | (uint16_t)take_u8(in) << 8);
}

/* Up to `want` bytes; *got says how many. */
static inline const uint8_t *take_bytes(fuzz_input *in, size_t want, size_t *got)
{
    const uint8_t *p = in->p;
    *got = want < in->left ? want : in->left;
    in->p += *got;
    in->left -= *got;
    return p;
}

/* A broken promise of the code under test: libFuzzer records the input as a crash. */
#define FUZZ_CHECK(cond)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
            abort();                                                                  \
        }                                                                             \
    } while (0)

#endif
