/* Segmented sorts and RDX_NUMPY_ORDER on the CUDA backend, by composition (segmented.h
 * says how): three grid-stride kernels around the stream-ordered whole-array argsort and
 * pairs sort of rdx_cuda.h; the synchronous entry points (host or device arrays and
 * offsets) on top. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_cuda.h"
#include "common.cuh"
#include "device.h"
#include "kernels.h"
#include "segmented.h"
#include "state.h"
#include "seg_core.h"
#include "seg_passes.h"
#include "seg_tile.h"

/* ---- kernels ---- */

static __device__ __forceinline__ uint64_t ld_elem(const void *p, size_t i, unsigned bytes)
{
    switch (bytes) {
    case 1: return ((const uint8_t *)p)[i];
    case 2: return ((const uint16_t *)p)[i];
    case 4: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

static __device__ __forceinline__ void st_elem(void *p, size_t i, unsigned bytes, uint64_t v)
{
    switch (bytes) {
    case 1: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)p)[i] = (uint32_t)v; break;
    default: ((uint64_t *)p)[i] = v; break;
    }
}

#define RDX_GRID_STRIDE(i, n)                                                                  \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                   \
         i += (size_t)gridDim.x * blockDim.x)

/* keys[i] = its canonical pattern, so that the plain sort of the copy orders as NumPy does. */
static __global__ void canon_kernel(void *keys, size_t n, unsigned kb, uint64_t inf)
{
    RDX_GRID_STRIDE(i, n)
    {
        const uint64_t x = ld_elem(keys, i, kb);
        st_elem(keys, i, kb, rdx_numpy_canon_pattern(x, kb, inf));
    }
}

/* *found = 1 when a key is not its canonical pattern (a NaN other than the canonical one,
 * or -0.0): only such keys order differently under RDX_NUMPY_ORDER than under totalOrder.
 * 16-byte loads, 4 in flight a thread (a read at full speed). */
template <typename K>
static __global__ void special_kernel(const K *keys, size_t n, uint64_t inf, unsigned *found)
{
    enum { VEC = 16 / sizeof(K), UNROLL = 4 };
    size_t head = ((16u - ((uintptr_t)keys & 15u)) & 15u) / sizeof(K); /* keys before 16-byte alignment */
    if (head > n)
        head = n;
    const size_t nvec = (n - head) / VEC, stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool any = false;
    const uint4 *vec = (const uint4 *)(keys + head);
    for (size_t base = first; base < nvec; base += stride * UNROLL) {
        union { uint4 raw[UNROLL]; K k[UNROLL * VEC]; } u;
#pragma unroll
        for (int r = 0; r < UNROLL; ++r)
            u.raw[r] = base + r * stride < nvec ? vec[base + r * stride] : make_uint4(0u, 0u, 0u, 0u); /* (+0.0) */
#pragma unroll
        for (int j = 0; j < UNROLL * VEC; ++j)
            any |= rdx_numpy_canon_pattern(u.k[j], sizeof(K), inf) != u.k[j];
    }
    for (size_t i = first; i < head + (n - head - nvec * VEC); i += stride) { /* the head, then the tail */
        const size_t at = i < head ? i : head + nvec * VEC + (i - head);
        any |= rdx_numpy_canon_pattern(keys[at], sizeof(K), inf) != keys[at];
    }
    if (__syncthreads_or(any) && threadIdx.x == 0)
        *found = 1u;
}

/* seg[i] = the segment of the key at position perm[i], plus 1 (0: before the first segment,
 * S + 1: after the last). Offsets that break the rules give wrong segments, never an
 * access outside the arrays. */
static __global__ void segment_kernel(const void *perm, unsigned pb, size_t n, const size_t *off, size_t S,
                                      size_t seg_size, void *seg, unsigned sb)
{
    RDX_GRID_STRIDE(i, n)
    {
        const size_t p = (size_t)ld_elem(perm, i, pb);
        size_t s;
        if (!off) {
            s = p / seg_size + 1;
        } else if (p < off[0]) {
            s = 0;
        } else if (p >= off[S]) {
            s = S + 1;
        } else { /* the last j < S with off[j] <= p */
            size_t lo = 0, hi = S;
            while (hi - lo > 1) {
                const size_t mid = lo + (hi - lo) / 2;
                if (off[mid] <= p)
                    lo = mid;
                else
                    hi = mid;
            }
            s = lo + 1;
        }
        st_elem(seg, i, sb, s);
    }
}

/* dst[i] = src[p], values of vs bytes. */
static __device__ __forceinline__ void copy_value(void *dst, size_t i, const void *src, size_t p, size_t vs)
{
    if (vs == 4 || vs == 8) {
        st_elem(dst, i, (unsigned)vs, ld_elem(src, p, (unsigned)vs));
    } else {
        const unsigned char *from = (const unsigned char *)src + p * vs;
        unsigned char *to = (unsigned char *)dst + i * vs;
        for (size_t b = 0; b < vs; b++)
            to[b] = from[b];
    }
}

/* The tile route's values that do not travel in registers: vals_out[i] = vcopy[perm[i]]
 * over the segments' range [off[0], off[S]) (all of [0, n) for equal rows). A perm entry
 * past n (offsets that break the rules) is skipped. */
static __global__ void tile_values_kernel(const void *perm, unsigned pb, const size_t *off, size_t S, size_t n,
                                          const void *vcopy, void *vals_out, size_t vs)
{
    const size_t lo = off ? (off[0] < n ? off[0] : n) : 0;
    const size_t hi = off ? (off[S] < lo ? lo : off[S] < n ? off[S] : n) : n;
    RDX_GRID_STRIDE(j, hi - lo)
    {
        const size_t i = lo + j, p = (size_t)ld_elem(perm, i, pb);
        if (p < n)
            copy_value(vals_out, i, vcopy, p, vs);
    }
}

typedef struct gather_args {
    size_t n;
    const void *perm;
    unsigned pb;
    const void *seg;      /* NULL: one segment, [0, n) */
    unsigned sb;
    size_t S;
    const size_t *off;    /* NULL: equal segments of seg_size */
    size_t seg_size;
    const void *kcopy;    /* keys to gather from, or NULL (argsort) */
    void *keys_out;
    unsigned kb;
    const void *vcopy;    /* values to gather from, or NULL */
    void *vals_out;
    size_t vs;
    void *idx_out;        /* argsort: positions within the segment, or NULL */
    unsigned ib;
} gather_args;

static __global__ void gather_kernel(gather_args g)
{
    RDX_GRID_STRIDE(i, g.n)
    {
        const size_t s = g.seg ? (size_t)ld_elem(g.seg, i, g.sb) : 1;
        if (s == 0 || s == g.S + 1)
            continue; /* outside every segment: not written */
        const size_t p = (size_t)ld_elem(g.perm, i, g.pb);
        if (g.kcopy)
            st_elem(g.keys_out, i, g.kb, ld_elem(g.kcopy, p, g.kb));
        if (g.vcopy)
            copy_value(g.vals_out, i, g.vcopy, p, g.vs);
        if (g.idx_out) {
            const size_t start = !g.seg ? 0 : g.off ? g.off[s - 1] : (s - 1) * g.seg_size;
            st_elem(g.idx_out, i, g.ib, (uint64_t)(p - start));
        }
    }
}

/* ---- the composition ---- */

static size_t align256(size_t x) { return (x + 255) / 256 * 256; }

/* Options of the segment-id sort: seg values 0..S+1 on the fewest bits. */
static rdx_opts seg_opts(const rdx_seg_run *r)
{
    int bits = 1;
    while (bits < 64 && ((uint64_t)(r->S + 1) >> bits) != 0)
        bits++;
    rdx_opts o = {r->opts.flags & RDX_LOW_MEMORY, 0, bits, 0};
    return o;
}

static int aligned_to(const void *p, size_t a) { return (uintptr_t)p % a == 0; }

/* The bytes of a value the segmented passes move with each key (0: none), or -1 when they
 * cannot take the run: pairs under RDX_NUMPY_ORDER (the original keys would be a third
 * array to move), values of other sizes than 4 and 8 bytes or not aligned to them, keys
 * under RDX_NUMPY_ORDER of 2 bytes (they move their original bits as values). */
static int passes_value_bytes(const rdx_seg_run *r)
{
    switch (r->kind) {
    case RDX_JOB_KEYS: return !r->numpy ? 0 : r->kb == 4 || r->kb == 8 ? (int)r->kb : -1;
    case RDX_JOB_PAIRS:
        return !r->numpy && (r->vs == 4 || r->vs == 8) && aligned_to(r->vals_in, r->vs) &&
                       aligned_to(r->vals_out, r->vs)
                   ? (int)r->vs
                   : -1;
    default: return 4; /* indices within the segment (widened to 8 bytes at the end) */
    }
}

static int radix_bits_of(const rdx_seg_run *r)
{
    return r->opts.radix_bits ? r->opts.radix_bits : RDX_CUDA_DEFAULT_RADIX_BITS;
}

/* The digit passes of the run's bits. */
static int passes_of(const rdx_seg_run *r)
{
    return (r->opts.end_bit - r->opts.begin_bit + radix_bits_of(r) - 1) / radix_bits_of(r);
}

/* The route of a run, chosen here and nowhere else: the on-chip kernels of seg_tile.cu
 * alone when every segment is known to hold at most rdx_seg_tile_max_len keys (equal rows
 * that short, host offsets read by the synchronous calls, or n that small); else those
 * for the short segments and the segmented passes for the long ones, where the passes
 * take the run (n < 2^32, no segment of 2^30 keys or more: a look-back count's bits,
 * the kinds of passes_value_bytes); the composition otherwise. */
static int seg_route(const rdx_seg_run *r, size_t max_short)
{
    if ((uint64_t)r->S > UINT32_MAX)
        return RDX_SEG_COMPOSE;
    if (r->max_len <= max_short)
        return RDX_SEG_TILE;
    const int passes = passes_of(r);
    if ((uint64_t)r->n < ((uint64_t)1 << 32) && (uint64_t)r->max_len < ((uint64_t)1 << RDX_OS_COUNT_BITS) &&
        passes_value_bytes(r) >= 0 && ((unsigned)passes << radix_bits_of(r)) <= RDX_HIST_MAX_CELLS)
        return RDX_SEG_PASSES;
    return RDX_SEG_COMPOSE;
}

rdx_status rdx_cuda_seg_plan(rdx_ctx *ctx, const rdx_seg_run *r, rdx_seg_layout *L)
{
    memset(L, 0, sizeof *L);
    rdx_cuda_tuning *tuning = NULL;
    rdx_status s = rdx_cuda_tuning_ready(ctx, &tuning);
    if (s != RDX_OK)
        return s;
    L->max_short = rdx_seg_tile_max_len((int)r->kb, tuning->smem_optin);
    const size_t n = r->n;
    L->pb = (uint64_t)n <= (uint64_t)UINT32_MAX + 1 ? 4 : 8;
    L->sb = (uint64_t)r->S + 1 <= (uint64_t)UINT32_MAX ? 4 : 8;
    size_t t_arg = 0, t_seg = 0;
    s = rdx_cuda_argsort_temp_size(ctx, n, r->type, L->pb == 4 ? RDX_U32 : RDX_U64, &r->opts, &t_arg);
    if (s == RDX_OK && !r->whole) {
        const rdx_opts so = seg_opts(r);
        s = rdx_cuda_sort_pairs_temp_size(ctx, L->pb, n, L->sb == 4 ? RDX_U32 : RDX_U64, &so, &t_seg);
    }
    if (s != RDX_OK)
        return s;
    size_t at = 0;
    L->bins = at;
    if (!r->whole)
        at += align256(rdx_seg_tile_scratch_bytes(r->S));
    const size_t after_bins = at;
    /* The composition. */
    L->canon = at;
    at += align256(n * r->kb);
    L->perm = at;
    at += align256(n * L->pb);
    L->seg = at;
    if (!r->whole)
        at += align256(n * L->sb);
    L->vcopy = at;
    if (r->kind == RDX_JOB_PAIRS)
        at += align256(n * r->vs);
    L->sub = at;
    L->sub_bytes = t_arg > t_seg ? t_arg : t_seg;
    const size_t compose_end = at + L->sub_bytes;
    /* The segmented passes: their scratch (for the tile shape with the most tiles: the
     * value bytes the passes move depend on the arrays' alignment, the size may not), a
     * second key buffer, a working copy of the keys where the keys are not the result
     * (argsort; RDX_NUMPY_ORDER, whose results are the original keys, moved as values), a
     * second value buffer (8 bytes per key at most), and an argsort's 4-byte indices
     * before they are widened. */
    at = after_bins;
    L->segp = at;
    const int passes = passes_of(r);
    size_t segp_bytes = 0;
    for (int vb = 0; vb <= 8; vb += 4) {
        const size_t b = rdx_seg_passes_scratch_bytes((int)r->kb, vb, n, r->S, L->max_short, passes);
        segp_bytes = b > segp_bytes ? b : segp_bytes;
    }
    at += align256(segp_bytes);
    L->pkeys_b = at;
    at += align256(n * r->kb);
    L->pkeys_a = at;
    at += align256(n * r->kb);
    L->pvals_b = at;
    at += align256(n * 8);
    L->pvals_a = at;
    if (r->kind == RDX_JOB_ARGSORT)
        at += align256(n * 4);
    L->total = (compose_end > at ? compose_end : at) + 256; /* + 256: the base is aligned up */
    L->route = seg_route(r, L->max_short);
    return RDX_OK;
}

/* An argsort that writes the keys in place under RDX_NUMPY_ORDER: the passes overwrite the
 * input whose zeros and NaNs the fix-up restores, so they read a copy (pkeys_a). */
static int restores_from_copy(const rdx_seg_run *r)
{
    return r->with_keys && r->numpy && r->keys_in == r->keys_out;
}

/* The segmented passes' arguments for the run's long segments (t: the temporary storage,
 * aligned; bins: seg_tile.h's bins, with offsets). */
static void passes_args(const rdx_seg_run *r, const rdx_seg_layout *L, unsigned char *t, const void *bins,
                        rdx_seg_passes_args *p)
{
    memset(p, 0, sizeof *p);
    p->kb = (int)r->kb;
    p->vb = passes_value_bytes(r);
    p->keys_src = r->keys_in;
    p->keys_a = r->keys_out;
    p->keys_b = t + L->pkeys_b;
    p->vals_src = r->vals_in;
    p->vals_a = r->vals_out;
    p->vals_b = t + L->pvals_b;
    if (r->kind == RDX_JOB_KEYS && r->numpy) {
        /* Sorted by the canonical code; the original keys move as the values. */
        p->keys_a = t + L->pkeys_a;
        p->vals_src = r->keys_in;
        p->vals_a = r->keys_out;
        p->keys_scratch = 1;
    } else if (r->kind == RDX_JOB_ARGSORT) {
        p->keys_a = t + L->pkeys_a;
        if (r->with_keys) {
            /* The keys to keys_out as well; under RDX_NUMPY_ORDER the fix-up restores the
             * bits of zeros and NaNs from the input, read from a copy when sorted in place
             * (enqueue_tile makes it). */
            p->keys_a = r->keys_out;
            if (restores_from_copy(r))
                p->keys_src = t + L->pkeys_a;
            p->orig_keys = r->numpy ? p->keys_src : NULL;
        }
        p->vals_src = NULL;
        p->vals_a = r->itype == RDX_U32 ? r->idx_out : (void *)(t + L->pvals_a);
        p->wide_out = r->itype == RDX_U32 ? NULL : r->idx_out;
        p->keys_scratch = !r->with_keys;
        p->iota_rel = 1;
    }
    p->numpy = r->numpy;
    p->unordered = rdx_equal_keys_alike(r->kind == RDX_JOB_KEYS, r->numpy, r->opts.begin_bit, r->opts.end_bit,
                                        (int)r->kb);
    p->inf = rdx_float_inf_bits(r->type);
    p->n = r->n;
    p->off = r->whole ? NULL : r->d_off;
    p->S = r->S;
    p->seg_size = r->seg_size;
    p->bins = (const uint32_t *)bins;
    p->max_short = L->max_short;
    p->cls = (int)rdx_type_class(r->type);
    p->desc = (r->opts.flags & RDX_DESCENDING) != 0;
    p->begin_bit = r->opts.begin_bit;
    p->end_bit = r->opts.end_bit;
    p->radix_bits = radix_bits_of(r);
}

/* The tile route, and the passes route (the long segments by the segmented passes, then
 * the short ones on chip). t: the temporary storage, aligned. Values of 4 or 8 bytes move
 * in registers; others (the tile route only) by a permutation in t and a gather from a
 * copy. */
static rdx_status enqueue_tile(rdx_ctx *ctx, const rdx_seg_run *r, const rdx_seg_layout *L, unsigned char *t,
                               int sms, cudaStream_t stream)
{
    const size_t n = r->n;
    const int pairs = r->kind == RDX_JOB_PAIRS;
    const int vals_in_regs = pairs && (r->vs == 4 || r->vs == 8) && aligned_to(r->vals_in, r->vs) &&
                             aligned_to(r->vals_out, r->vs);
    rdx_seg_tile_args a;
    memset(&a, 0, sizeof a);
    a.keys_in = r->keys_in;
    a.keys_out = r->kind == RDX_JOB_ARGSORT && !r->with_keys ? NULL : r->keys_out;
    if (vals_in_regs) {
        a.vals_in = r->vals_in;
        a.vals_out = r->vals_out;
        a.vs = (unsigned)r->vs;
    } else if (pairs) {
        a.idx_out = t + L->perm;
        a.ib = L->pb;
        a.idx_abs = 1;
        RDX_CUDA_TRY(cudaMemcpyAsync(t + L->vcopy, r->vals_in, n * r->vs, cudaMemcpyDefault, stream));
    }
    if (r->kind == RDX_JOB_ARGSORT) {
        a.idx_out = r->idx_out;
        a.ib = r->itype == RDX_U32 ? 4 : 8;
    }
    a.n = n;
    a.off = r->whole ? NULL : r->d_off;
    a.seg_size = r->seg_size;
    a.S = r->S;
    a.max_short = L->max_short;
    a.cls = (int)rdx_type_class(r->type);
    a.desc = (r->opts.flags & RDX_DESCENDING) != 0;
    a.begin_bit = r->opts.begin_bit;
    a.end_bit = r->opts.end_bit;
    a.numpy = r->numpy;
    a.inf = rdx_float_inf_bits(r->type);
    if (a.off)
        RDX_CUDA_TRY(rdx_seg_tile_bin(&a, t + L->bins, sms, stream));
    if (!r->own_outs)
        rdx_inject_first_write(ctx);
    if (L->route == RDX_SEG_PASSES) {
        if (restores_from_copy(r)) /* passes_args reads this copy */
            RDX_CUDA_TRY(cudaMemcpyAsync(t + L->pkeys_a, r->keys_in, n * r->kb, cudaMemcpyDeviceToDevice, stream));
        rdx_seg_passes_args p;
        passes_args(r, L, t, t + L->bins, &p);
        RDX_CUDA_TRY(rdx_seg_passes_enqueue(&p, t + L->segp, sms, stream));
    }
    RDX_CUDA_TRY(rdx_seg_tile_enqueue((int)r->kb, &a, t + L->bins, sms, stream));
    if (pairs && !vals_in_regs) {
        tile_values_kernel<<<rdx_copy_grid(n, sms), RDX_COPY_THREADS, 0, stream>>>(t + L->perm, L->pb, a.off, r->S, n, t + L->vcopy, r->vals_out, r->vs);
        RDX_CUDA_TRY(cudaGetLastError());
    }
    return RDX_OK;
}

rdx_status rdx_cuda_seg_enqueue(rdx_ctx *ctx, const rdx_seg_run *r, const rdx_seg_layout *L, void *d_temp,
                                cudaStream_t stream)
{
    int sms = 0;
    rdx_status s = rdx_cuda_device_ready(ctx, &sms);
    if (s != RDX_OK)
        return s;
    const size_t n = r->n;
    const unsigned blocks = rdx_copy_grid(n, sms);
    unsigned char *t = (unsigned char *)d_temp;
    t += (256 - (uintptr_t)t % 256) % 256;
    if (L->route != RDX_SEG_COMPOSE)
        return enqueue_tile(ctx, r, L, t, sms, stream);
    void *canon = t + L->canon, *perm = t + L->perm, *seg = t + L->seg, *vcopy = t + L->vcopy, *sub = t + L->sub;
    const rdx_type ptype = L->pb == 4 ? RDX_U32 : RDX_U64;

    /* 1. the (canonical) copy of the keys, argsorted. */
    RDX_CUDA_TRY(cudaMemcpyAsync(canon, r->keys_in, n * r->kb, cudaMemcpyDefault, stream));
    if (r->numpy) {
        canon_kernel<<<blocks, RDX_COPY_THREADS, 0, stream>>>(canon, n, r->kb,
                                                                         rdx_float_inf_bits(r->type));
        RDX_CUDA_TRY(cudaGetLastError());
    }
    /* The sorts below write the composition's own buffers (the injection test's marks of
     * a caller's first write are not theirs). */
    rdx_inject_hold_writes(ctx, 1);
    s = rdx_cuda_argsort_async(ctx, canon, n, r->type, perm, ptype, &r->opts, sub, L->sub_bytes, stream);
    rdx_inject_hold_writes(ctx, 0);
    if (s != RDX_OK)
        return s;

    /* 2. stably by segment. */
    if (!r->whole) {
        segment_kernel<<<blocks, RDX_COPY_THREADS, 0, stream>>>(perm, L->pb, n, r->d_off, r->S,
                                                                           r->seg_size, seg, L->sb);
        RDX_CUDA_TRY(cudaGetLastError());
        const rdx_opts so = seg_opts(r);
        rdx_inject_hold_writes(ctx, 1);
        s = rdx_cuda_sort_pairs_async(ctx, seg, perm, L->pb, n, L->sb == 4 ? RDX_U32 : RDX_U64, &so, sub,
                                      L->sub_bytes, stream);
        rdx_inject_hold_writes(ctx, 0);
        if (s != RDX_OK)
            return s;
    }

    /* 3. gather from copies (the outputs may be the inputs). */
    gather_args g;
    memset(&g, 0, sizeof g);
    g.n = n;
    g.perm = perm;
    g.pb = L->pb;
    g.seg = r->whole ? NULL : seg;
    g.sb = L->sb;
    g.S = r->whole ? 1 : r->S;
    g.off = r->d_off;
    g.seg_size = r->seg_size;
    g.kb = r->kb;
    if (r->kind != RDX_JOB_ARGSORT || r->with_keys) {
        RDX_CUDA_TRY(cudaMemcpyAsync(canon, r->keys_in, n * r->kb, cudaMemcpyDefault, stream));
        g.kcopy = canon;
        g.keys_out = r->keys_out;
    }
    if (r->kind == RDX_JOB_PAIRS) {
        RDX_CUDA_TRY(cudaMemcpyAsync(vcopy, r->vals_in, n * r->vs, cudaMemcpyDefault, stream));
        g.vcopy = vcopy;
        g.vals_out = r->vals_out;
        g.vs = r->vs;
    }
    if (r->kind == RDX_JOB_ARGSORT) {
        g.idx_out = r->idx_out;
        g.ib = r->itype == RDX_U32 ? 4 : 8;
    }
    if (!r->own_outs)
        rdx_inject_first_write(ctx);
    gather_kernel<<<blocks, RDX_COPY_THREADS, 0, stream>>>(g);
    RDX_CUDA_TRY(cudaGetLastError());
    return RDX_OK;
}

/* The options of the composed sorts: the job's, without RDX_NUMPY_ORDER (the copy is
 * canonical already). */
static rdx_opts job_opts(const rdx_job *job)
{
    rdx_opts o;
    o.flags = (job->descending ? RDX_DESCENDING : 0u) | (job->low_memory ? RDX_LOW_MEMORY : 0u);
    o.begin_bit = job->begin_bit;
    o.end_bit = job->end_bit;
    o.radix_bits = job->radix_bits;
    return o;
}

void rdx_cuda_seg_run_from_job(const rdx_job *job, rdx_seg_run *r)
{
    memset(r, 0, sizeof *r);
    r->kind = job->kind;
    r->type = job->type;
    r->kb = (unsigned)job->key_size;
    r->keys_in = job->keys_in ? job->keys_in : job->keys;
    r->keys_out = job->keys;
    r->vals_in = job->values_in ? job->values_in : job->values;
    r->vals_out = job->values;
    r->vs = job->value_size;
    r->idx_out = job->indices;
    r->itype = job->index_type;
    r->n = job->n;
    r->S = job->segmented ? job->num_segments : 1;
    r->seg_size = job->segmented ? job->segment_size : job->n;
    r->whole = !job->segmented;
    r->opts = job_opts(job);
    r->numpy = job->numpy_order;
    /* Offsets are not read here (the stream-ordered calls must not): n bounds them. */
    r->max_len = job->segmented && !job->offsets ? job->segment_size : job->n;
}

/* ---- the synchronous calls: everything in device memory of the call's own, the
 * caller's arrays written only at the end, when everything else has succeeded ---- */

/* The route report (rdx_ctx_route) of a segmented sort laid out as L. */
static void report_route(rdx_ctx *ctx, const rdx_seg_layout *L)
{
    snprintf(ctx->route, sizeof ctx->route, "%s",
             L->route == RDX_SEG_TILE ? "segmented on chip" : "segmented passes and on chip");
}

/* Keys [lo, hi) of the job, with rel_off (S + 1 host offsets relative to lo) or equal rows;
 * max_len: the longest segment, or n when not known. */
static rdx_status run_sync(rdx_ctx *ctx, const rdx_job *job, size_t lo, size_t hi, const size_t *rel_off,
                           size_t max_len)
{
    rdx_seg_run r;
    rdx_cuda_seg_run_from_job(job, &r);
    r.n = hi - lo;
    r.max_len = max_len;
    const size_t n = r.n, kb = r.kb;
    const size_t vs = job->kind == RDX_JOB_PAIRS ? job->value_size : 0;
    const size_t ib = job->kind == RDX_JOB_ARGSORT ? (job->index_type == RDX_U32 ? 4 : 8) : 0;
    rdx_seg_layout L;
    rdx_status s = rdx_cuda_seg_plan(ctx, &r, &L);
    if (s != RDX_OK)
        return s;
    const size_t ob = rel_off ? (r.S + 1) * sizeof(size_t) : 0;
    const size_t kbytes = align256(n * kb), vbytes = align256(n * vs), ibytes = align256(n * ib);
    const size_t total = kbytes + vbytes + ibytes + align256(ob) + L.total;
    rdx_cuda_tuning *tuning = NULL;
    s = rdx_cuda_tuning_ready(ctx, &tuning);
    if (s != RDX_OK)
        return s;
    if (tuning->scratch_cap && total > tuning->scratch_cap) /* a test's cap (tuning_ctx.h) */
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY,
                        "CUDA backend: cannot allocate %zu bytes of device memory for the sort: above the test cap "
                        "of %zu bytes",
                        total, tuning->scratch_cap);
    unsigned char *mem = NULL;
    cudaError_t e = RDX_CUDA_ALLOC(ctx, cudaMalloc((void **)&mem, total));
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return rdx_fail(ctx, e == cudaErrorMemoryAllocation ? RDX_ERR_OUT_OF_MEMORY : RDX_ERR_DEVICE,
                        "CUDA backend: cannot allocate %zu bytes of device memory for the sort: %s", total,
                        cudaGetErrorString(e));
    }
    unsigned char *dk = mem, *dv = dk + kbytes, *di = dv + vbytes, *doff = di + ibytes;
    unsigned char *temp = doff + align256(ob);
    r.keys_in = dk;
    r.keys_out = dk;
    r.vals_in = vs ? dv : NULL;
    r.vals_out = vs ? dv : NULL;
    r.idx_out = ib ? di : NULL;
    r.d_off = rel_off ? (const size_t *)doff : NULL;
    r.own_outs = 1;
    const cudaStream_t stream = 0; /* the legacy default stream: ordered with the copies */
    e = RDX_CUDA_CALL(ctx, cudaMemcpy(dk, (const unsigned char *)job->keys + lo * kb, n * kb, cudaMemcpyDefault));
    if (e == cudaSuccess && vs)
        e = RDX_CUDA_CALL(ctx, cudaMemcpy(dv, (const unsigned char *)job->values + lo * vs, n * vs, cudaMemcpyDefault));
    if (e == cudaSuccess && ob)
        e = RDX_CUDA_CALL(ctx, cudaMemcpy(doff, rel_off, ob, cudaMemcpyHostToDevice));
    if (e == cudaSuccess) {
        s = rdx_cuda_seg_enqueue(ctx, &r, &L, temp, stream);
        e = RDX_CUDA_CALL(ctx, cudaStreamSynchronize(stream));
    }
    /* The results go to the caller's arrays only now. */
    rdx_inject_first_write(ctx);
    if (s == RDX_OK && e == cudaSuccess && job->kind != RDX_JOB_ARGSORT)
        e = RDX_CUDA_CALL(ctx, cudaMemcpy((unsigned char *)job->keys + lo * kb, dk, n * kb, cudaMemcpyDefault));
    if (s == RDX_OK && e == cudaSuccess && vs)
        e = RDX_CUDA_CALL(ctx, cudaMemcpy((unsigned char *)job->values + lo * vs, dv, n * vs, cudaMemcpyDefault));
    if (s == RDX_OK && e == cudaSuccess && ib)
        e = RDX_CUDA_CALL(ctx, cudaMemcpy((unsigned char *)job->indices + lo * ib, di, n * ib, cudaMemcpyDefault));
    if (s == RDX_OK && e != cudaSuccess)
        s = rdx_cuda_fail(ctx, e, "the segmented sort's copies", __FILE__, __LINE__);
    if (s == RDX_OK)
        report_route(ctx, &L);
    (void)cudaFree(mem);
    return s;
}

/* The tile and passes routes on device arrays: sorted in the caller's arrays on the
 * context's stream and scratch, with no copies (1 when run, with *status; 0 when the job
 * does not take them).
 * Offsets on the device are the caller's (checked on the host already); host offsets go
 * up to the scratch. Only the launches of seg_passes.cu and seg_tile.cu write the caller's arrays,
 * after everything else has succeeded. */
static int run_direct(rdx_ctx *ctx, const rdx_job *job, size_t max_len, rdx_status *status)
{
    const int pairs = job->kind == RDX_JOB_PAIRS, argsort = job->kind == RDX_JOB_ARGSORT;
    if (!rdx_cuda_is_device_pointer(job->keys) || (pairs && !rdx_cuda_is_device_pointer(job->values)) ||
        (argsort && !rdx_cuda_is_device_pointer(job->indices)))
        return 0;
    rdx_seg_run r;
    rdx_cuda_seg_run_from_job(job, &r);
    r.max_len = max_len;
    rdx_seg_layout L;
    rdx_status s = rdx_cuda_seg_plan(ctx, &r, &L);
    if (s == RDX_OK && L.route == RDX_SEG_COMPOSE)
        return 0;
    const int upload_offsets = job->offsets && !job->offsets_on_device;
    const size_t ob = upload_offsets ? align256((r.S + 1) * sizeof(size_t)) : 0;
    void *scratch = NULL;
    cudaStream_t stream = 0;
    if (s == RDX_OK)
        s = rdx_cuda_context_scratch(ctx, ob + L.total, &scratch, &stream);
    if (s == RDX_OK) {
        unsigned char *t = (unsigned char *)scratch;
        t += (256 - (uintptr_t)t % 256) % 256;
        r.d_off = job->offsets;
        if (upload_offsets) {
            r.d_off = (const size_t *)t;
            const cudaError_t e = RDX_CUDA_CALL(
                ctx, cudaMemcpyAsync(t, job->offsets, (r.S + 1) * sizeof(size_t), cudaMemcpyHostToDevice, stream));
            if (e != cudaSuccess)
                s = rdx_cuda_fail(ctx, e, "copying the offsets", __FILE__, __LINE__);
        }
        if (s == RDX_OK)
            s = rdx_cuda_seg_enqueue(ctx, &r, &L, t + ob, stream);
        const cudaError_t e = RDX_CUDA_CALL(ctx, cudaStreamSynchronize(stream));
        if (s == RDX_OK && e != cudaSuccess)
            s = rdx_cuda_fail(ctx, e, "the segmented sort", __FILE__, __LINE__);
        if (s == RDX_OK)
            report_route(ctx, &L);
    }
    *status = s;
    return 1;
}

cudaError_t rdx_launch_numpy_special(const void *keys, size_t n, unsigned kb, unsigned long long inf, uint32_t *found,
                                     cudaStream_t s)
{
    const size_t per_block = 256u * 4u * (16u / kb); /* a block's keys in one round */
    const size_t blocks = (n + per_block - 1) / per_block < 4096 ? (n + per_block - 1) / per_block : 4096;
    const unsigned grid = (unsigned)(blocks ? blocks : 1);
    switch (kb) {
    case 2: special_kernel<uint16_t><<<grid, 256, 0, s>>>((const uint16_t *)keys, n, inf, found); break;
    case 4: special_kernel<uint32_t><<<grid, 256, 0, s>>>((const uint32_t *)keys, n, inf, found); break;
    case 8: special_kernel<uint64_t><<<grid, 256, 0, s>>>((const uint64_t *)keys, n, inf, found); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

/* (segmented.h) Device keys: special_kernel and one 4-byte read back. */
int rdx_cuda_numpy_special_keys(const rdx_job *job)
{
    const unsigned kb = (unsigned)job->key_size;
    const uint64_t inf = rdx_float_inf_bits(job->type);
    cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, job->keys) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    if (at.type != cudaMemoryTypeDevice && at.type != cudaMemoryTypeManaged) {
        const unsigned char *k = (const unsigned char *)job->keys;
        for (size_t i = 0; i < job->n; i++) {
            uint64_t x = 0;
            memcpy(&x, k + i * kb, kb); /* little-endian: the low kb bytes */
            if (rdx_numpy_canon_pattern(x, kb, inf) != x)
                return 1;
        }
        return 0;
    }
    unsigned *found = NULL, got = 0;
    if (cudaMalloc(&found, sizeof *found) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    int r = -1;
    if (cudaMemset(found, 0, sizeof *found) == cudaSuccess &&
        rdx_launch_numpy_special(job->keys, job->n, kb, inf, found, 0) == cudaSuccess &&
        cudaMemcpy(&got, found, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess)
        r = got != 0;
    (void)cudaFree(found);
    (void)cudaGetLastError();
    return r;
}

rdx_status rdx_cuda_numpy_sort(rdx_ctx *ctx, const rdx_job *job)
{
    return run_sync(ctx, job, 0, job->n, NULL, job->n);
}

rdx_status rdx_cuda_segmented_sort(rdx_ctx *ctx, const rdx_job *job)
{
    const char *fn = job->kind == RDX_JOB_KEYS    ? "rdx_segmented_sort_keys"
                     : job->kind == RDX_JOB_PAIRS ? "rdx_segmented_sort_pairs"
                                                  : "rdx_segmented_argsort";
    const size_t S = job->num_segments;
    rdx_status direct = RDX_OK;
    if (!job->offsets)
        return run_direct(ctx, job, job->segment_size, &direct)
                   ? direct
                   : run_sync(ctx, job, 0, job->n, NULL, job->segment_size);
    /* Offsets on the host: checked by api.c; on the device: read back and checked here. */
    size_t *rel = (size_t *)rdx_host_malloc(ctx, (S + 1) * sizeof *rel);
    if (!rel)
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "CUDA backend: no host memory for %zu offsets", S + 1);
    rdx_status s = RDX_OK;
    if (job->offsets_on_device) {
        const cudaError_t e =
            RDX_CUDA_CALL(ctx, cudaMemcpy(rel, job->offsets, (S + 1) * sizeof *rel, cudaMemcpyDeviceToHost));
        if (e != cudaSuccess)
            s = rdx_cuda_fail(ctx, e, "reading the offsets", __FILE__, __LINE__);
        if (s == RDX_OK)
            s = rdx_check_offsets(ctx, fn, rel, S, job->n,
                                  job->kind == RDX_JOB_ARGSORT && job->index_type == RDX_U32 ? RDX_U32 : 0);
    } else {
        memcpy(rel, job->offsets, (S + 1) * sizeof *rel);
    }
    const size_t lo = s == RDX_OK ? rel[0] : 0, hi = s == RDX_OK ? rel[S] : 0;
    size_t max_len = 0;
    for (size_t i = 0; s == RDX_OK && i < S; i++)
        if (rel[i + 1] - rel[i] > max_len)
            max_len = rel[i + 1] - rel[i];
    if (s == RDX_OK && hi > lo && run_direct(ctx, job, max_len, &direct)) {
        s = direct;
    } else if (s == RDX_OK && hi > lo) {
        for (size_t i = 0; i <= S; i++)
            rel[i] -= lo;
        s = run_sync(ctx, job, lo, hi, rel, max_len);
    }
    rdx_host_free(rel);
    return s;
}

/* ---- the stream-ordered whole-array sorts under RDX_NUMPY_ORDER (async.cu) ---- */

rdx_status rdx_cuda_numpy_temp_size(rdx_ctx *ctx, const rdx_job *job, size_t *temp_bytes)
{
    rdx_seg_run r;
    rdx_cuda_seg_run_from_job(job, &r);
    rdx_seg_layout L;
    const rdx_status s = rdx_cuda_seg_plan(ctx, &r, &L);
    if (s == RDX_OK)
        *temp_bytes = L.total;
    return s;
}

rdx_status rdx_cuda_numpy_enqueue(rdx_ctx *ctx, const char *fn, const rdx_job *job, void *d_temp, size_t temp_bytes,
                                  cudaStream_t stream)
{
    rdx_seg_run r;
    rdx_cuda_seg_run_from_job(job, &r);
    rdx_seg_layout L;
    rdx_status s = rdx_cuda_seg_plan(ctx, &r, &L);
    if (s != RDX_OK)
        return s;
    if (temp_bytes < L.total)
        return rdx_fail(ctx, RDX_ERR_TEMP_TOO_SMALL, "%s: temporary storage of %zu bytes is below the %zu needed",
                        fn, temp_bytes, L.total);
    if (!d_temp)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_temp is NULL", fn);
    return rdx_cuda_seg_enqueue(ctx, &r, &L, d_temp, stream);
}
