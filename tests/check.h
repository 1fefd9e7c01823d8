/* What every test program shares: the seed of its run, a failure count, CHECK, and the
 * random generator. Include it once, from the file that holds main(). */
#ifndef RDX_TEST_CHECK_H
#define RDX_TEST_CHECK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t seed;  /* printed with every failure, so that RDX_TEST_SEED replays it */
static int failures;

/* Counts a failure and prints it (the first 30 of them) with the seed. */
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            if (failures < 30) {                                                               \
                printf("FAIL [seed 0x%016" PRIx64 "] %s:%d: ", seed, __FILE__, __LINE__);      \
                printf(__VA_ARGS__);                                                           \
                printf("\n");                                                                  \
            }                                                                                  \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

/* splitmix64: the next random word of the stream *s. */
static inline uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
