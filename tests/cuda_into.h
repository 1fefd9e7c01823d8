/* The stream-ordered out-of-place entry points of rdx_cuda.h as the GPU tests call them:
 * on one blocking stream with temporary storage kept between calls, waiting for each sort.
 * Include after cuda_check.h. */
#ifndef RDX_TEST_CUDA_INTO_H
#define RDX_TEST_CUDA_INTO_H

/* A blocking stream: ordered after the tests' uploads (cudaMemcpy, cudaMemset on the
 * legacy default stream). */
static cudaStream_t into_stream;
static void *into_temp;
static size_t into_temp_bytes;

/* Temporary storage of at least `bytes`, kept and grown between calls. */
static inline void *temp_for(size_t bytes)
{
    if (bytes > into_temp_bytes || !into_temp) {
        if (into_temp)
            dev_release(into_temp);
        into_temp = dev_alloc(bytes);
        if (!into_temp) {
            printf("FAIL [seed 0x%016" PRIx64 "] cannot allocate %zu bytes of temporary storage\n", seed, bytes);
            exit(1);
        }
        into_temp_bytes = bytes;
    }
    return into_temp;
}

/* Waits for the enqueued sort; a failure inside it ends the run. */
static inline rdx_status finished(rdx_status s)
{
    cuda_or_die(cudaStreamSynchronize(into_stream), "cudaStreamSynchronize after a stream-ordered sort");
    return s;
}

static inline rdx_status into_keys(rdx_ctx *ctx, const void *in, void *out, size_t n, rdx_type type, const rdx_opts *opts)
{
    size_t bytes = 0;
    rdx_status s = rdx_cuda_sort_keys_temp_size(ctx, n, type, opts, &bytes);
    if (s == RDX_OK)
        s = rdx_cuda_sort_keys_into_async(ctx, in, out, n, type, opts, temp_for(bytes), bytes, into_stream);
    return finished(s);
}

static inline rdx_status into_pairs(rdx_ctx *ctx, const void *keys_in, void *keys_out, const void *values_in,
                             void *values_out, size_t value_size, size_t n, rdx_type type, const rdx_opts *opts)
{
    size_t bytes = 0;
    rdx_status s = rdx_cuda_sort_pairs_temp_size(ctx, value_size, n, type, opts, &bytes);
    if (s == RDX_OK)
        s = rdx_cuda_sort_pairs_into_async(ctx, keys_in, keys_out, values_in, values_out, value_size, n, type, opts,
                                           temp_for(bytes), bytes, into_stream);
    return finished(s);
}

static inline rdx_status async_argsort(rdx_ctx *ctx, const void *keys, size_t n, rdx_type type, void *indices,
                                rdx_type index_type, const rdx_opts *opts)
{
    size_t bytes = 0;
    rdx_status s = rdx_cuda_argsort_temp_size(ctx, n, type, index_type, opts, &bytes);
    if (s == RDX_OK)
        s = rdx_cuda_argsort_async(ctx, keys, n, type, indices, index_type, opts, temp_for(bytes), bytes,
                                   into_stream);
    return finished(s);
}

/* Makes the stream (once) and frees the temporary storage at the end. */
static inline void into_begin(void)
{
    if (!into_stream)
        cuda_or_die(cudaStreamCreate(&into_stream), "cudaStreamCreate");
}
static inline void into_end(void)
{
    if (into_temp)
        dev_release(into_temp);
    into_temp = NULL;
    into_temp_bytes = 0;
    if (into_stream)
        cuda_or_die(cudaStreamDestroy(into_stream), "cudaStreamDestroy");
    into_stream = NULL;
}

#endif
