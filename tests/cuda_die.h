/* CUDA_OR_DIE(call): a CUDA call of a GPU test itself failed; the run cannot go on. Prints
 * the call with the seed (check.h, included first) and exits 1. */
#ifndef RDX_TEST_CUDA_DIE_H
#define RDX_TEST_CUDA_DIE_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#define CUDA_OR_DIE(call)                                                                      \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            printf("FAIL [seed 0x%016" PRIx64 "] %s:%d: %s: %s\n", seed, __FILE__, __LINE__, #call, \
                   cudaGetErrorString(e_));                                                    \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#endif
