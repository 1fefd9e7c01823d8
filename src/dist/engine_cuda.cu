/* The local work of one rank on a GPU (dist.h's engine): the splitter histograms, the
 * select of a tie's position, and the stable partition by destination as kernels on the
 * caller's stream; the local sort is rdx_cuda.h's stream-ordered sort. CUDA C style:
 * kernels, plain structs, one launch check. */
#include <stdlib.h>
#include <string.h>

#include "cuda/common.cuh"
#include "dist/dist_cuda.h"
#include "dist/keyspec.h"
#include "dist/tuning.h"
#include "rdx_cuda.h"

#define TILE (RDX_DIST_CUDA_THREADS * RDX_DIST_CUDA_ITEMS)
#define WARPS (RDX_DIST_CUDA_THREADS / 32)
/* Shared-memory histogram counters of the histogram kernel (more bins: global atomics). */
#define SMEM_BINS 8192
/* The partition kernel keeps per-warp counters for every destination in shared memory. */
#define MAX_RANKS 256

static size_t align256(size_t x) { return (x + 255) & ~(size_t)255; }

extern "C" void rdx_dist_cuda_layout(int nranks, size_t n_local, size_t key_size, size_t value_size,
                                     size_t sort_bytes, rdx_dist_layout *out)
{
    const size_t P = (size_t)nranks, bins = (size_t)1 << RDX_DIST_DIGIT_BITS;
    memset(out, 0, sizeof *out);
    out->words = P * (1 + bins + 3) + P * P + 4 * P + 8;
    out->ntiles = (n_local + TILE - 1) / TILE;
    size_t off = 0;
    out->words_off = off;
    off = align256(off + out->words * 8);
    out->tiles_off = off;
    off = align256(off + (P * (out->ntiles ? out->ntiles : 1) + P) * 8);
    out->send_keys_off = off;
    off = align256(off + n_local * key_size);
    out->send_values_off = off;
    off = align256(off + n_local * value_size);
    out->view_off = off;
    out->view_cap = n_local / RDX_DIST_COMPACT_DIV;
    off = align256(off + out->view_cap * 16);
    out->sort_off = off;
    out->sort_bytes = sort_bytes;
    out->total = off + sort_bytes;
}

/* The sort-key parameters of a job, for kernels. */
typedef struct dkey {
    int type, ks, cls, desc, numpy, begin, end, w;
} dkey;

static dkey make_dkey(const rdx_dist_job *job)
{
    dkey k = {(int)job->type, (int)job->key_size, job->cls, job->desc, job->numpy,
              job->begin_bit, job->end_bit, job->end_bit - job->begin_bit};
    return k;
}

static __device__ __forceinline__ uint64_t dsort_key(const void *keys, size_t i, const dkey &k)
{
    return rdx_dist_sort_key(rdx_dist_load(keys, i, (unsigned)k.ks), k.type, (unsigned)k.ks, k.cls, k.desc,
                             k.numpy, k.begin, k.end);
}

/* counts[p][d] += keys with prefix prefixes[p] at `depth` and next digit d. */
__global__ void dist_histogram_kernel(const void *keys, const uint64_t *view_sk, size_t n, dkey k, int depth,
                                      int db, const uint64_t *prefixes, int nprefix, unsigned long long *counts)
{
    __shared__ unsigned int hist[SMEM_BINS];
    const size_t bins = (size_t)1 << db, cells = bins * (size_t)nprefix;
    const int in_smem = cells <= SMEM_BINS;
    if (in_smem)
        for (size_t c = threadIdx.x; c < cells; c += blockDim.x)
            hist[c] = 0;
    __syncthreads();
    /* Every lane runs every round (valid or not), so that a warp can add equal cells once:
     * skewed keys (all in one cell) would otherwise serialize on one counter. */
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t b = (size_t)blockIdx.x * blockDim.x; b < n; b += stride) {
        const size_t i = b + threadIdx.x;
        size_t cell = SIZE_MAX;
        if (i < n) {
            const uint64_t sk = view_sk ? view_sk[i] : dsort_key(keys, i, k);
            const uint64_t q = rdx_dist_prefix(sk, k.w, depth);
            int lo = 0, hi = nprefix;
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (prefixes[mid] < q)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < nprefix && prefixes[lo] == q)
                cell = (size_t)lo * bins + ((sk >> (k.w - depth - db)) & (bins - 1));
        }
        const unsigned int peers = __match_any_sync(0xffffffffu, (unsigned long long)cell);
        if (cell != SIZE_MAX && (__ffs(peers) - 1) == (int)(threadIdx.x & 31)) {
            if (in_smem)
                atomicAdd(&hist[cell], (unsigned int)__popc(peers));
            else
                atomicAdd(&counts[cell], (unsigned long long)__popc(peers));
        }
    }
    __syncthreads();
    if (in_smem)
        for (size_t c = threadIdx.x; c < cells; c += blockDim.x)
            if (hist[c])
                atomicAdd(&counts[c], (unsigned long long)hist[c]);
}

/* tile_counts[t] = keys of tile t with this prefix at `depth`. */
__global__ void dist_select_count_kernel(const void *keys, const uint64_t *view_sk, size_t n, dkey k, int depth,
                                         uint64_t prefix, unsigned long long *tile_counts)
{
    const size_t start = (size_t)blockIdx.x * TILE;
    unsigned int count = 0;
    for (int r = 0; r < RDX_DIST_CUDA_ITEMS; r++) {
        const size_t i = start + (size_t)r * RDX_DIST_CUDA_THREADS + threadIdx.x;
        const int hit = i < n && rdx_dist_prefix(view_sk ? view_sk[i] : dsort_key(keys, i, k), k.w, depth) == prefix;
        count += (unsigned int)__syncthreads_count(hit);
    }
    if (threadIdx.x == 0)
        tile_counts[blockIdx.x] = count;
}

/* tiles[d * ntiles + t] = keys of tile t bound for rank d. */
__global__ void dist_partition_count_kernel(const void *keys, size_t n, dkey k, const rdx_dist_split *splits,
                                            int ns, unsigned long long *tiles, size_t ntiles)
{
    __shared__ unsigned int cnt[MAX_RANKS];
    __shared__ rdx_dist_split sp[MAX_RANKS];
    for (int d = threadIdx.x; d <= ns; d += blockDim.x) {
        cnt[d] = 0;
        if (d < ns)
            sp[d] = splits[d];
    }
    __syncthreads();
    const size_t start = (size_t)blockIdx.x * TILE;
    for (int r = 0; r < RDX_DIST_CUDA_ITEMS; r++) {
        const size_t i = start + (size_t)r * RDX_DIST_CUDA_THREADS + threadIdx.x;
        const int d = i < n ? rdx_dist_destination(sp, ns, dsort_key(keys, i, k), i, k.w) : -1;
        const unsigned int peers = __match_any_sync(0xffffffffu, d); /* one add per destination per warp */
        if (d >= 0 && (__ffs(peers) - 1) == (int)(threadIdx.x & 31))
            atomicAdd(&cnt[d], (unsigned int)__popc(peers));
    }
    __syncthreads();
    for (int d = threadIdx.x; d <= ns; d += blockDim.x)
        tiles[(size_t)d * ntiles + blockIdx.x] = cnt[d];
}

/* Row d (one block per destination): the exclusive scan of tiles[d][0..ntiles) in place;
 * totals[d] = the row's sum. */
__global__ void dist_scan_rows_kernel(unsigned long long *tiles, size_t ntiles, unsigned long long *totals)
{
    __shared__ unsigned long long warp_sums[32];
    __shared__ unsigned long long carry;
    unsigned long long *row = tiles + (size_t)blockIdx.x * ntiles;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    if (threadIdx.x == 0)
        carry = 0;
    __syncthreads();
    for (size_t base = 0; base < ntiles; base += blockDim.x) {
        const size_t i = base + threadIdx.x;
        const unsigned long long x = i < ntiles ? row[i] : 0;
        unsigned long long v = x;
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned long long y = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o)
                v += y;
        }
        if (lane == 31)
            warp_sums[warp] = v;
        __syncthreads();
        if (warp == 0) {
            unsigned long long w = lane < nwarps ? warp_sums[lane] : 0;
            for (int o = 1; o < 32; o <<= 1) {
                const unsigned long long y = __shfl_up_sync(0xffffffffu, w, o);
                if (lane >= o)
                    w += y;
            }
            if (lane < nwarps)
                warp_sums[lane] = w; /* inclusive over warps */
        }
        __syncthreads();
        const unsigned long long before = carry + (warp ? warp_sums[warp - 1] : 0) + v - x;
        if (i < ntiles)
            row[i] = before;
        __syncthreads();
        if (threadIdx.x == 0)
            carry += warp_sums[nwarps - 1];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        totals[blockIdx.x] = carry;
}

/* Whether sort key sk has one of the ascending prefixes at `depth`. */
static __device__ __forceinline__ int in_prefixes(uint64_t sk, int w, int depth, const uint64_t *prefixes,
                                                  int nprefix)
{
    const uint64_t q = rdx_dist_prefix(sk, w, depth);
    int lo = 0, hi = nprefix;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (prefixes[mid] < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nprefix && prefixes[lo] == q;
}

/* tile_counts[t] = keys of tile t with one of the prefixes (for compact). */
__global__ void dist_compact_count_kernel(const void *keys, size_t n, dkey k, int depth, const uint64_t *prefixes,
                                          int nprefix, unsigned long long *tile_counts)
{
    const size_t start = (size_t)blockIdx.x * TILE;
    unsigned int count = 0;
    for (int r = 0; r < RDX_DIST_CUDA_ITEMS; r++) {
        const size_t i = start + (size_t)r * RDX_DIST_CUDA_THREADS + threadIdx.x;
        const int hit = i < n && in_prefixes(dsort_key(keys, i, k), k.w, depth, prefixes, nprefix);
        count += (unsigned int)__syncthreads_count(hit);
    }
    if (threadIdx.x == 0)
        tile_counts[blockIdx.x] = count;
}

/* The stable copy of the matching keys' sort keys and positions: after the earlier tiles'
 * (tile_offsets, scanned), in position order inside a tile (ballots per warp, per-warp
 * counts across the block). */
__global__ void dist_compact_scatter_kernel(const void *keys, size_t n, dkey k, int depth, const uint64_t *prefixes,
                                            int nprefix, const unsigned long long *tile_offsets, uint64_t *view_sk,
                                            uint64_t *view_pos)
{
    __shared__ unsigned int wcnt[WARPS];
    __shared__ unsigned long long base;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned int lt = (1u << lane) - 1;
    if (threadIdx.x == 0)
        base = tile_offsets[blockIdx.x];
    const size_t start = (size_t)blockIdx.x * TILE;
    for (int r = 0; r < RDX_DIST_CUDA_ITEMS; r++) {
        const size_t i = start + (size_t)r * RDX_DIST_CUDA_THREADS + threadIdx.x;
        uint64_t sk = 0;
        int hit = 0;
        if (i < n) {
            sk = dsort_key(keys, i, k);
            hit = in_prefixes(sk, k.w, depth, prefixes, nprefix);
        }
        const unsigned int ballot = __ballot_sync(0xffffffffu, hit);
        if (lane == 0)
            wcnt[warp] = __popc(ballot);
        __syncthreads();
        unsigned long long at = base;
        for (int w = 0; w < warp; w++)
            at += wcnt[w];
        if (hit) {
            at += __popc(ballot & lt);
            view_sk[at] = sk;
            view_pos[at] = i;
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int w = 0; w < WARPS; w++)
                base += wcnt[w];
        __syncthreads();
    }
}

static __device__ __forceinline__ void copy_elem(void *dst, const void *src, size_t size)
{
    if (size == 4)
        *(uint32_t *)dst = *(const uint32_t *)src;
    else if (size == 8)
        *(uint64_t *)dst = *(const uint64_t *)src;
    else
        for (size_t b = 0; b < size; b++)
            ((unsigned char *)dst)[b] = ((const unsigned char *)src)[b];
}

/* The stable scatter: each tile's keys in order of position, rank among the keys of the
 * same destination by __match_any_sync inside a warp and by per-warp counters across the
 * block, placed after the earlier tiles' keys of that destination. */
__global__ void dist_partition_scatter_kernel(const void *keys, const void *values, size_t vs, size_t n, dkey k,
                                              const rdx_dist_split *splits, int ns,
                                              const unsigned long long *tiles, size_t ntiles,
                                              const unsigned long long *totals, void *send_keys,
                                              void *send_values)
{
    __shared__ rdx_dist_split sp[MAX_RANKS];
    __shared__ unsigned long long base[MAX_RANKS];
    __shared__ unsigned int wcnt[WARPS][MAX_RANKS];
    __shared__ unsigned long long wstart[WARPS][MAX_RANKS];
    const int P = ns + 1, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = threadIdx.x; d < P; d += blockDim.x) {
        if (d < ns)
            sp[d] = splits[d];
        unsigned long long b = tiles[(size_t)d * ntiles + blockIdx.x];
        for (int e = 0; e < d; e++)
            b += totals[e];
        base[d] = b;
    }
    const unsigned int lt = (1u << lane) - 1;
    const size_t start = (size_t)blockIdx.x * TILE;
    for (int r = 0; r < RDX_DIST_CUDA_ITEMS; r++) {
        for (int c = threadIdx.x; c < WARPS * P; c += blockDim.x)
            wcnt[c / P][c % P] = 0;
        __syncthreads();
        const size_t i = start + (size_t)r * RDX_DIST_CUDA_THREADS + threadIdx.x;
        const int valid = i < n;
        const int d = valid ? rdx_dist_destination(sp, ns, dsort_key(keys, i, k), i, k.w) : P;
        const unsigned int peers = __match_any_sync(0xffffffffu, d);
        const unsigned int rank = __popc(peers & lt);
        if (valid && (__ffs(peers) - 1) == lane)
            wcnt[warp][d] = __popc(peers);
        __syncthreads();
        for (int e = threadIdx.x; e < P; e += blockDim.x) {
            unsigned long long run = base[e];
            for (int w = 0; w < WARPS; w++) {
                wstart[w][e] = run;
                run += wcnt[w][e];
            }
            base[e] = run;
        }
        __syncthreads();
        if (valid) {
            const unsigned long long to = wstart[warp][d] + rank;
            copy_elem((unsigned char *)send_keys + to * k.ks, (const unsigned char *)keys + i * k.ks, (size_t)k.ks);
            if (vs)
                copy_elem((unsigned char *)send_values + to * vs, (const unsigned char *)values + i * vs, vs);
        }
        __syncthreads();
    }
}

/* ---- the engine's functions (host) ---- */

static rdx_dist_cuda_engine_state *state_of(const rdx_dist_engine *e)
{
    return (rdx_dist_cuda_engine_state *)e->impl;
}

static int histogram_blocks(size_t n)
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        sms = 32;
    (void)cudaGetLastError();
    const size_t want = (n + RDX_DIST_CUDA_THREADS - 1) / RDX_DIST_CUDA_THREADS;
    const size_t most = (size_t)sms * 4;
    return (int)(want < most ? (want ? want : 1) : most);
}

static rdx_status cuda_histogram(const rdx_dist_engine *e, const rdx_dist_job *job, int depth, int digit_bits,
                                 const uint64_t *prefixes, int nprefix, uint64_t *counts)
{
    rdx_ctx *ctx = e->ctx;
    rdx_dist_cuda_engine_state *st = state_of(e);
    const size_t cells = (size_t)nprefix << digit_bits;
    uint64_t *d_prefixes = st->d_words, *d_counts = st->d_words + st->nranks;
    RDX_CUDA_TRY(cudaMemcpyAsync(d_prefixes, prefixes, (size_t)nprefix * 8, cudaMemcpyHostToDevice, st->stream));
    RDX_CUDA_TRY(cudaMemsetAsync(d_counts, 0, cells * 8, st->stream));
    const size_t m = st->viewing ? st->view_count : job->n;
    if (m > 0) {
        dist_histogram_kernel<<<histogram_blocks(m), RDX_DIST_CUDA_THREADS, 0, st->stream>>>(
            job->keys, st->viewing ? st->d_view : NULL, m, make_dkey(job), depth, digit_bits, d_prefixes, nprefix,
            (unsigned long long *)d_counts);
        RDX_CUDA_TRY(cudaGetLastError());
    }
    RDX_CUDA_TRY(cudaMemcpyAsync(counts, d_counts, cells * 8, cudaMemcpyDeviceToHost, st->stream));
    RDX_CUDA_TRY(cudaStreamSynchronize(st->stream));
    return RDX_OK;
}

static rdx_status cuda_select(const rdx_dist_engine *e, const rdx_dist_job *job, int depth, uint64_t prefix,
                              uint64_t q, size_t *pos)
{
    rdx_ctx *ctx = e->ctx;
    rdx_dist_cuda_engine_state *st = state_of(e);
    const int viewing = st->viewing;
    const size_t m = viewing ? st->view_count : job->n;
    const size_t ntiles = (m + TILE - 1) / TILE;
    const size_t item = viewing ? 16 : job->key_size; /* host copy per key: (sort key, position) or the key */
    uint64_t *h = (uint64_t *)malloc((ntiles ? ntiles : 1) * 8);
    unsigned char *tile = (unsigned char *)malloc((size_t)TILE * item);
    if (!h || !tile) {
        free(h);
        free(tile);
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "rdx_dist: no host memory for the select");
    }
    rdx_status s = RDX_OK;
    cudaError_t ce = cudaSuccess;
    if (ntiles > 0) {
        dist_select_count_kernel<<<(unsigned)ntiles, RDX_DIST_CUDA_THREADS, 0, st->stream>>>(
            job->keys, viewing ? st->d_view : NULL, m, make_dkey(job), depth, prefix, (unsigned long long *)st->d_tiles);
        ce = cudaGetLastError();
    }
    if (ce == cudaSuccess)
        ce = cudaMemcpyAsync(h, st->d_tiles, ntiles * 8, cudaMemcpyDeviceToHost, st->stream);
    if (ce == cudaSuccess)
        ce = cudaStreamSynchronize(st->stream);
    size_t t = 0;
    uint64_t seen = 0;
    while (ce == cudaSuccess && t < ntiles && seen + h[t] <= q)
        seen += h[t++];
    if (ce == cudaSuccess && t == ntiles)
        s = rdx_fail(ctx, RDX_ERR_INTERNAL, "rdx_dist: select found %llu keys, not %llu",
                     (unsigned long long)seen, (unsigned long long)q + 1);
    if (ce == cudaSuccess && s == RDX_OK) {
        /* The tile that holds it, on the host: at most TILE keys. */
        const size_t lo = t * TILE, cnt = m - lo < TILE ? m - lo : TILE;
        uint64_t *tsk = (uint64_t *)(void *)tile, *tpos = tsk + TILE;
        if (viewing) {
            ce = cudaMemcpy(tsk, st->d_view + lo, cnt * 8, cudaMemcpyDeviceToHost);
            if (ce == cudaSuccess)
                ce = cudaMemcpy(tpos, st->d_view + st->view_cap + lo, cnt * 8, cudaMemcpyDeviceToHost);
        } else {
            ce = cudaMemcpy(tile, (const unsigned char *)job->keys + lo * job->key_size, cnt * job->key_size,
                            cudaMemcpyDeviceToHost);
        }
        const int w = job->end_bit - job->begin_bit;
        s = RDX_ERR_INTERNAL;
        for (size_t i = 0; ce == cudaSuccess && i < cnt; i++) {
            const uint64_t sk = viewing ? tsk[i]
                                        : rdx_dist_sort_key(rdx_dist_load(tile, i, job->key_size), (int)job->type,
                                                            job->key_size, job->cls, job->desc, job->numpy,
                                                            job->begin_bit, job->end_bit);
            if (rdx_dist_prefix(sk, w, depth) == prefix && seen++ == q) {
                *pos = viewing ? (size_t)tpos[i] : lo + i;
                s = RDX_OK;
                break;
            }
        }
        if (ce == cudaSuccess && s != RDX_OK)
            s = rdx_fail(ctx, RDX_ERR_INTERNAL, "rdx_dist: select lost its key in tile %zu", t);
    }
    free(h);
    free(tile);
    if (ce != cudaSuccess)
        return rdx_cuda_fail(ctx, ce, "the select of a tie's position", __FILE__, __LINE__);
    return s;
}

static rdx_status cuda_compact(const rdx_dist_engine *e, const rdx_dist_job *job, int depth,
                               const uint64_t *prefixes, int nprefix, uint64_t count, int *kept)
{
    rdx_ctx *ctx = e->ctx;
    rdx_dist_cuda_engine_state *st = state_of(e);
    *kept = 0;
    if (st->viewing || count > st->view_cap || job->n == 0)
        return RDX_OK;
    const size_t ntiles = (job->n + TILE - 1) / TILE;
    uint64_t *d_prefixes = st->d_words;
    unsigned long long *d_tiles = (unsigned long long *)st->d_tiles;
    unsigned long long *d_total = d_tiles + (size_t)st->nranks * ntiles;
    const dkey k = make_dkey(job);
    RDX_CUDA_TRY(cudaMemcpyAsync(d_prefixes, prefixes, (size_t)nprefix * 8, cudaMemcpyHostToDevice, st->stream));
    dist_compact_count_kernel<<<(unsigned)ntiles, RDX_DIST_CUDA_THREADS, 0, st->stream>>>(
        job->keys, job->n, k, depth, d_prefixes, nprefix, d_tiles);
    RDX_CUDA_TRY(cudaGetLastError());
    dist_scan_rows_kernel<<<1, 1024, 0, st->stream>>>(d_tiles, ntiles, d_total);
    RDX_CUDA_TRY(cudaGetLastError());
    dist_compact_scatter_kernel<<<(unsigned)ntiles, RDX_DIST_CUDA_THREADS, 0, st->stream>>>(
        job->keys, job->n, k, depth, d_prefixes, nprefix, d_tiles, st->d_view, st->d_view + st->view_cap);
    RDX_CUDA_TRY(cudaGetLastError());
    unsigned long long total = 0;
    RDX_CUDA_TRY(cudaMemcpyAsync(&total, d_total, 8, cudaMemcpyDeviceToHost, st->stream));
    RDX_CUDA_TRY(cudaStreamSynchronize(st->stream));
    if (total != count)
        return rdx_fail(ctx, RDX_ERR_INTERNAL, "rdx_dist: compact found %llu keys, not %llu", total,
                        (unsigned long long)count);
    st->viewing = 1;
    st->view_count = (size_t)count;
    *kept = 1;
    return RDX_OK;
}

static void cuda_finish(const rdx_dist_engine *e)
{
    rdx_dist_cuda_engine_state *st = state_of(e);
    st->viewing = 0;
    st->view_count = 0;
}

static rdx_status cuda_partition(const rdx_dist_engine *e, const rdx_dist_job *job, const rdx_dist_split *splits,
                                 int nsplits, uint64_t *send_counts)
{
    rdx_ctx *ctx = e->ctx;
    rdx_dist_cuda_engine_state *st = state_of(e);
    const int P = nsplits + 1;
    if (P > MAX_RANKS)
        return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "rdx_dist: %d ranks; the CUDA partition takes at most %d", P,
                        MAX_RANKS);
    const size_t ntiles = (job->n + TILE - 1) / TILE;
    rdx_dist_split *d_splits = (rdx_dist_split *)(st->d_words + st->nranks * (1 + (1 << RDX_DIST_DIGIT_BITS)));
    unsigned long long *d_tiles = (unsigned long long *)st->d_tiles;
    unsigned long long *d_totals = d_tiles + (size_t)P * (ntiles ? ntiles : 1);
    if (nsplits > 0)
        RDX_CUDA_TRY(cudaMemcpyAsync(d_splits, splits, (size_t)nsplits * sizeof *splits, cudaMemcpyHostToDevice,
                                     st->stream));
    if (ntiles == 0) {
        memset(send_counts, 0, (size_t)P * sizeof *send_counts);
        return RDX_OK;
    }
    const dkey k = make_dkey(job);
    dist_partition_count_kernel<<<(unsigned)ntiles, RDX_DIST_CUDA_THREADS, 0, st->stream>>>(
        job->keys, job->n, k, d_splits, nsplits, d_tiles, ntiles);
    RDX_CUDA_TRY(cudaGetLastError());
    dist_scan_rows_kernel<<<(unsigned)P, 1024, 0, st->stream>>>(d_tiles, ntiles, d_totals);
    RDX_CUDA_TRY(cudaGetLastError());
    dist_partition_scatter_kernel<<<(unsigned)ntiles, RDX_DIST_CUDA_THREADS, 0, st->stream>>>(
        job->keys, job->values, job->value_size, job->n, k, d_splits, nsplits, d_tiles, ntiles, d_totals,
        job->send_keys, job->send_values);
    RDX_CUDA_TRY(cudaGetLastError());
    RDX_CUDA_TRY(cudaMemcpyAsync(send_counts, d_totals, (size_t)P * 8, cudaMemcpyDeviceToHost, st->stream));
    RDX_CUDA_TRY(cudaStreamSynchronize(st->stream));
    return RDX_OK;
}

static rdx_status cuda_local_sort(const rdx_dist_engine *e, const rdx_dist_job *job, size_t m)
{
    rdx_dist_cuda_engine_state *st = state_of(e);
    const rdx_opts opts = {job->flags, job->begin_bit, job->end_bit, job->radix_bits};
    size_t need = 0;
    rdx_status s = job->value_size
                       ? rdx_cuda_sort_pairs_temp_size(e->ctx, job->value_size, m, job->type, &opts, &need)
                       : rdx_cuda_sort_keys_temp_size(e->ctx, m, job->type, &opts, &need);
    if (s != RDX_OK)
        return s;
    if (need > st->sort_bytes)
        return rdx_fail(e->ctx, RDX_ERR_INTERNAL, "rdx_dist: the local sort of %zu keys needs %zu bytes of "
                        "temporary storage, the size query planned %zu", m, need, st->sort_bytes);
    return job->value_size
               ? rdx_cuda_sort_pairs_async(e->ctx, job->out_keys, job->out_values, job->value_size, m, job->type,
                                           &opts, st->sort_temp, st->sort_bytes, st->stream)
               : rdx_cuda_sort_keys_async(e->ctx, job->out_keys, m, job->type, &opts, st->sort_temp,
                                          st->sort_bytes, st->stream);
}

static rdx_status cuda_sync(const rdx_dist_engine *e)
{
    rdx_ctx *ctx = e->ctx;
    RDX_CUDA_TRY(cudaStreamSynchronize(state_of(e)->stream));
    return RDX_OK;
}

extern "C" void rdx_dist_cuda_engine(rdx_ctx *ctx, rdx_dist_cuda_engine_state *st, rdx_dist_engine *out)
{
    memset(out, 0, sizeof *out);
    out->impl = st;
    out->ctx = ctx;
    out->histogram = cuda_histogram;
    out->select = cuda_select;
    out->partition = cuda_partition;
    out->local_sort = cuda_local_sort;
    out->sync = cuda_sync;
    out->compact = cuda_compact;
    out->finish = cuda_finish;
}
