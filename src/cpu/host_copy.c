/* rdx_host_copy (host_copy.h): slices of the copy, one per thread. */
#include <omp.h>
#include <string.h>

#include "host_copy.h"
#include "tuning.h"

void rdx_host_copy(void *dst, const void *src, size_t bytes)
{
    int threads = omp_get_max_threads();
    if (threads > RDX_HOST_COPY_THREADS)
        threads = RDX_HOST_COPY_THREADS;
    if (bytes < RDX_HOST_COPY_MIN_BYTES || threads < 2) {
        memcpy(dst, src, bytes);
        return;
    }
    const size_t slice = (bytes / (size_t)threads + 63) / 64 * 64;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
        const size_t at = (size_t)t * slice;
        if (at < bytes)
            memcpy((unsigned char *)dst + at, (const unsigned char *)src + at, bytes - at < slice ? bytes - at : slice);
    }
}
