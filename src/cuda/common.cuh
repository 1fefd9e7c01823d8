/* Shared by every file of the CUDA backend: the one error-check macro, key-width traits,
 * the key codec for each width, digit extraction, and the look-back status word. */
#ifndef RDX_CUDA_COMMON_CUH
#define RDX_CUDA_COMMON_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "alloc.h"
#include "inject.h"
#include "internal.h"
#include "key_codec.h"
#include "tuning.h"

/* Records a failed CUDA call on ctx and returns its rdx_status: RDX_ERR_OUT_OF_MEMORY for
 * a failed allocation, RDX_ERR_DEVICE otherwise. Clears the (non-sticky) last error. */
rdx_status rdx_cuda_fail(rdx_ctx *ctx, cudaError_t e, const char *what, const char *file, int line);

/* One CUDA runtime call as a cudaError_t, for code that must clean up before it returns:
 * the call, or, when the failure-injection hook (inject.h) picks this one,
 * cudaErrorUnknown without making it. Counts as a CUDA call of ctx. */
#define RDX_CUDA_CALL(ctx, call)                                                           \
    (rdx_inject_hit((ctx), RDX_INJECT_CUDA_CALL) ? cudaErrorUnknown : (call))

/* Checks one CUDA runtime call (or cudaGetLastError() after a launch). On failure it
 * returns from the enclosing function with the status; a variable `ctx` (rdx_ctx *) must
 * be in scope for the message. The failure-injection hook (inject.h) can make any one of
 * these fail (the call is then not made) with cudaErrorUnknown. */
#define RDX_CUDA_TRY(call)                                                                 \
    do {                                                                                   \
        cudaError_t rdx_err_ = RDX_CUDA_CALL(ctx, call);                                   \
        if (rdx_err_ != cudaSuccess)                                                       \
            return rdx_cuda_fail(ctx, rdx_err_, #call, __FILE__, __LINE__);                \
    } while (0)

/* Every device (and pinned host) allocation: the call, or, when the failure-injection hook
 * picks this one, cudaErrorMemoryAllocation without making it. */
#define RDX_CUDA_ALLOC(ctx, call)                                                          \
    (rdx_inject_hit((ctx), RDX_INJECT_DEVICE_ALLOC) ? cudaErrorMemoryAllocation : (call))

/* The unsigned integer of B bytes: rdx_uint<4>::t is uint32_t. */
template <int B> struct rdx_uint;
template <> struct rdx_uint<1> { typedef uint8_t t; };
template <> struct rdx_uint<2> { typedef uint16_t t; };
template <> struct rdx_uint<4> { typedef uint32_t t; };
template <> struct rdx_uint<8> { typedef unsigned long long t; };

/* The key codec of src/key_codec.h, one overload per width. */
static __device__ __forceinline__ uint8_t rdx_enc(uint8_t x, int c, int d) { return rdx_encode_u8(x, c, d); }
static __device__ __forceinline__ uint16_t rdx_enc(uint16_t x, int c, int d) { return rdx_encode_u16(x, c, d); }
static __device__ __forceinline__ uint32_t rdx_enc(uint32_t x, int c, int d) { return rdx_encode_u32(x, c, d); }
static __device__ __forceinline__ unsigned long long rdx_enc(unsigned long long x, int c, int d)
{
    return rdx_encode_u64(x, c, d);
}
static __device__ __forceinline__ uint8_t rdx_dec(uint8_t x, int c, int d) { return rdx_decode_u8(x, c, d); }
static __device__ __forceinline__ uint16_t rdx_dec(uint16_t x, int c, int d) { return rdx_decode_u16(x, c, d); }
static __device__ __forceinline__ uint32_t rdx_dec(uint32_t x, int c, int d) { return rdx_decode_u32(x, c, d); }
static __device__ __forceinline__ unsigned long long rdx_dec(unsigned long long x, int c, int d)
{
    return rdx_decode_u64(x, c, d);
}

/* The digit of a mapped key: bits [shift, shift + bits) as 0 .. 2^bits - 1. */
template <typename K>
static __device__ __forceinline__ uint32_t rdx_digit(K k, int shift, uint32_t mask)
{
    return (uint32_t)(k >> shift) & mask;
}

/* A key of a float sort in NumPy's order (RDX_NUMPY_ORDER; f32 and f64, ascending) on the
 * LSD passes: its mapped bits, moved as they are, with its digits taken from its canonical
 * code (key_codec.h, rdx_numpy_canon_uW: every NaN one code above +inf's, -0.0 as +0.0), so
 * that the passes order by NumPy's order and never alter a key. The pass kernel's key type
 * where rdx_pass_args.numpy (rdx_pass_key). */
template <typename U> struct __align__(sizeof(U)) rdx_np_key {
    U u;
};
static __device__ __forceinline__ uint32_t rdx_digit(rdx_np_key<uint32_t> k, int shift, uint32_t mask)
{
    return rdx_digit(rdx_numpy_canon_u32(k.u, (uint32_t)rdx_float_inf_bits(RDX_F32), 0), shift, mask);
}
static __device__ __forceinline__ uint32_t rdx_digit(rdx_np_key<unsigned long long> k, int shift, uint32_t mask)
{
    return rdx_digit((unsigned long long)rdx_numpy_canon_u64(k.u, rdx_float_inf_bits(RDX_F64), 0), shift, mask);
}
template <typename U> static __device__ __forceinline__ rdx_np_key<U> rdx_enc(rdx_np_key<U> x, int c, int d)
{
    return {rdx_enc(x.u, c, d)};
}
template <typename U> static __device__ __forceinline__ rdx_np_key<U> rdx_dec(rdx_np_key<U> x, int c, int d)
{
    return {rdx_dec(x.u, c, d)};
}

/* The pass kernel's key type for key bytes KB: the unsigned integer, or with NP (NumPy's
 * order, 4- and 8-byte keys) rdx_np_key of it. */
template <int KB, int NP> struct rdx_pass_key { typedef typename rdx_uint<KB>::t t; };
template <> struct rdx_pass_key<4, 1> { typedef rdx_np_key<uint32_t> t; };
template <> struct rdx_pass_key<8, 1> { typedef rdx_np_key<unsigned long long> t; };

/* Bins of all passes together: passes * 2^radix_bits is at most 2048 (8 passes of 256
 * bins for 64-bit keys; narrower digits give fewer bins in all). */
#define RDX_HIST_MAX_CELLS 2048

/* Look-back status word: count in the low RDX_OS_COUNT_BITS bits, flag above. 0 means
 * "not published yet"; a tile first publishes its own count (AGGREGATE), then, once it
 * knows the total of every tile before it, its inclusive prefix (PREFIX). */
#define RDX_STATUS_AGGREGATE (1u << RDX_OS_COUNT_BITS)
#define RDX_STATUS_PREFIX (2u << RDX_OS_COUNT_BITS)
#define RDX_STATUS_COUNT_MASK ((1u << RDX_OS_COUNT_BITS) - 1u)

/* Zeroes `rows` rows of look-back words (RDX_CUDA_MAX_BINS each), rows spread over the
 * grid's blocks, words over a block's THREADS threads. The arguments are references to
 * kernel parameters: taken by value, the pass kernel compiled to other machine code (by
 * reference its cubin is byte-identical to the loop written inline). */
template <int THREADS>
static __device__ __forceinline__ void rdx_clear_status_rows(uint32_t *const &words, const size_t &rows)
{
    for (size_t r = blockIdx.x; r < rows; r += gridDim.x)
        for (uint32_t c = threadIdx.x; c < RDX_CUDA_MAX_BINS; c += THREADS)
            words[r * RDX_CUDA_MAX_BINS + c] = 0u;
}

/* Status words are written and polled by different blocks while they run: the loads and
 * stores must reach L2 (never a stale L1 line), hence relaxed gpu-scope accesses. */
static __device__ __forceinline__ uint32_t rdx_load_status(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void rdx_store_status(uint32_t *p, uint32_t v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Decoupled look-back for this thread's digit: the counts of tiles j, j - 1, ... (rows of
 * `status`, RDX_CUDA_MAX_BINS words each, this thread's word in each) until one that
 * holds its inclusive prefix; their sum. Whole warps poll (a vote decides when all their
 * lanes are done): a warp that reached a barrier with some lanes still spinning was seen
 * to let other threads pass it. done: this lane has nothing to look for. status is a
 * reference to the kernel parameter, as in rdx_clear_status_rows. */
static __device__ __forceinline__ uint32_t rdx_look_back(const uint32_t *const &status, uint32_t j, bool done)
{
    uint32_t excl = 0;
#ifdef RDX_PROBE_SKIP_LOOKBACK /* diagnosis only: wrong results, timing without the wait */
    done = true;
#endif
    while (__any_sync(0xffffffffu, !done)) {
        if (!done) {
            const uint32_t st = rdx_load_status(status + (size_t)j * RDX_CUDA_MAX_BINS + threadIdx.x);
            if (st & ~RDX_STATUS_COUNT_MASK) {
                excl += st & RDX_STATUS_COUNT_MASK;
                if (st & RDX_STATUS_PREFIX)
                    done = true;
                else
                    --j;
            }
#if RDX_LOOKBACK_BACKOFF_NS > 0
            else {
                __nanosleep(RDX_LOOKBACK_BACKOFF_NS);
            }
#endif
        }
    }
    return excl;
}

/* The last j in [lo, hi] with first[j] <= t (first[lo] <= t; first non-decreasing). */
template <typename T>
static __device__ __forceinline__ uint32_t rdx_last_at_most_in(const T *first, uint32_t lo, uint32_t hi, T t)
{
    while (lo < hi) {
        const uint32_t mid = (lo + hi + 1u) >> 1;
        if (first[mid] <= t)
            lo = mid;
        else
            hi = mid - 1u;
    }
    return lo;
}

/* The last j in [0, count) with first[j] <= t (first[0] <= t; first non-decreasing): the
 * bucket or segment of tile t, from the first tile of each. */
static __device__ __forceinline__ uint32_t rdx_last_at_most(const uint32_t *first, uint32_t count, uint32_t t)
{
    return rdx_last_at_most_in(first, 0u, count - 1u, t);
}

/* Segment s of the offsets is [rdx_seg_lo, rdx_seg_hi), clamped to [0, n): offsets that
 * break the rules (only the stream-ordered calls take them unchecked) sort wrong segments,
 * never outside the array. */
static __device__ __forceinline__ size_t rdx_seg_lo(const size_t *off, size_t s, size_t n)
{
    return off[s] < n ? off[s] : n;
}

static __device__ __forceinline__ size_t rdx_seg_hi(const size_t *off, size_t s, size_t n)
{
    const size_t lo = rdx_seg_lo(off, s, n);
    return off[s + 1] < lo ? lo : off[s + 1] < n ? off[s + 1] : n;
}

/* Per-pass word written by the scan kernel, read by the pass kernels (device-side skip
 * and buffer choice, so that the whole sort can be captured in a CUDA graph). */
#define RDX_PASS_ACTIVE 1u  /* the digit differs between keys: the pass runs */
#define RDX_PASS_FROM_B 2u  /* the pass reads buffer B and writes buffer A (else A -> B) */
#define RDX_PASS_FIRST 4u   /* first active pass: reads the sort's source instead of the
                               buffer FROM_B names (the same as A when sorting in place),
                               and encodes keys as they are loaded */
#define RDX_PASS_LAST 8u    /* last active pass: decode keys as they are stored */
#define RDX_PASS_FEW 16u    /* the pass's digit takes at most RDX_RANK_FEW_DIGITS values:
                               the ranking finds equal digits with MATCH.ANY */
#define RDX_PASS_CROWDED 32u /* one value of the pass's digit holds more than
                               2^-RDX_RANK_ANY_CROWD_LOG2 of the keys, where an unordered
                               pass's atomics would queue on its counter (rank.cuh): the LSD
                               passes' scan puts the value in bits RDX_PASS_HOT_SHIFT on; the
                               segmented passes (crowded in some segment, each its own
                               value) name none and rank stably */
#define RDX_PASS_HOT_SHIFT 8
#define RDX_PASS_REVERSE 64u /* the keys are in the reverse of the sort's order (scan.cu): this
                                pass, the only one, reverses them, each run of keys that
                                compare equal kept in its order (onesweep.cu) */
#define RDX_RANK_NO_HOT 0xFFFFFFFFu
#define RDX_PASS_DROP_SHIFT 24 /* bits 24-31: the MSD route's level 1 and its deep level's
                                  pass take their digit this many bits below the pass's
                                  shift (the keys' leading bits that do not vary;
                                  RDX_MSD_DROP) */

/* The crowded digit value of an LSD pass's word, or RDX_RANK_NO_HOT. */
static __device__ __forceinline__ uint32_t rdx_pass_hot(uint32_t info)
{
    return (info & RDX_PASS_CROWDED) ? (info >> RDX_PASS_HOT_SHIFT) & 0xFFu : RDX_RANK_NO_HOT;
}

/* The pass words from which passes are active (is_active[p] != 0), for one thread: the
 * scan kernel's, and the segmented passes'. In place the first active pass reads A and
 * writes B, and after an odd number of active passes the result lies in B (the fix-up
 * copies it back). With a source apart from A, the first active pass reads the source and
 * writes A when the number of active passes is odd, B when it is even: the last one then
 * writes A. *active: the number of active passes. */
static __device__ __forceinline__ void rdx_plan_passes(const uint32_t *is_active, int passes, int apart,
                                                       uint32_t *pass_info, uint32_t *active)
{
    int last = -1;
    uint32_t count = 0;
    for (int p = 0; p < passes; ++p)
        if (is_active[p]) {
            last = p;
            ++count;
        }
    uint32_t from_b = apart ? (count & 1u) : 0u, seen = 0;
    for (int p = 0; p < passes; ++p) {
        uint32_t info = 0;
        if (is_active[p]) {
            info = RDX_PASS_ACTIVE | (from_b ? RDX_PASS_FROM_B : 0u) | (seen ? 0u : RDX_PASS_FIRST) |
                   (p == last ? RDX_PASS_LAST : 0u);
            seen = 1;
            from_b ^= 1u;
        }
        pass_info[p] = info;
    }
    *active = count;
}

static __device__ __forceinline__ uint32_t rdx_lane(void) { return threadIdx.x & 31u; }

#define RDX_FULL_WARP 0xffffffffu /* every lane of a warp, for the *_sync intrinsics */

/* The bits in which keys differ, gathered a key at a time in vary[2]: vary[0] ORs the codes and
 * vary[1] their complements, so vary[0] & vary[1] has a bit set where two keys differ (the
 * MSD route's sample and histogram). */
template <typename K> static __device__ __forceinline__ void rdx_or_vary(K *vary, K code)
{
    vary[0] |= code;
    vary[1] |= (K)~code;
}

/* The 64-bit value of two 32-bit words (low, high). */
static __device__ __forceinline__ unsigned long long rdx_u64_of(const uint32_t *w)
{
    return w[0] | (unsigned long long)w[1] << 32;
}

/* The OR of x over the warp (every lane taking part). */
static __device__ __forceinline__ unsigned long long rdx_warp_or64(unsigned long long x)
{
    return __reduce_or_sync(0xffffffffu, (uint32_t)x) |
           (unsigned long long)__reduce_or_sync(0xffffffffu, (uint32_t)(x >> 32)) << 32;
}

/* The AND of x over the warp (every lane taking part). */
static __device__ __forceinline__ unsigned long long rdx_warp_and64(unsigned long long x)
{
    return __reduce_and_sync(0xffffffffu, (uint32_t)x) |
           (unsigned long long)__reduce_and_sync(0xffffffffu, (uint32_t)(x >> 32)) << 32;
}

/* The least, and the greatest, of x over the warp (every lane taking part): the high words
 * first, then the low words of the lanes that hold the high one (two warp reductions). A
 * 64-bit atomic min or max in shared memory is a compare-and-swap loop (sm_90): take one a
 * warp, not one a thread. */
static __device__ __forceinline__ unsigned long long rdx_warp_min64(unsigned long long x)
{
    const uint32_t high = __reduce_min_sync(0xffffffffu, (uint32_t)(x >> 32));
    const uint32_t low = __reduce_min_sync(0xffffffffu, (uint32_t)(x >> 32) == high ? (uint32_t)x : 0xffffffffu);
    return (unsigned long long)high << 32 | low;
}
static __device__ __forceinline__ unsigned long long rdx_warp_max64(unsigned long long x)
{
    const uint32_t high = __reduce_max_sync(0xffffffffu, (uint32_t)(x >> 32));
    const uint32_t low = __reduce_max_sync(0xffffffffu, (uint32_t)(x >> 32) == high ? (uint32_t)x : 0u);
    return (unsigned long long)high << 32 | low;
}

/* Bin `bin`'s segments in a scratch of segment bins (seg_tile.h: RDX_SEG_BINS counts,
 * RDX_SEG_BINS fill counters, then the segments listed bin after bin): its first entry,
 * and its count in *items. The segmented passes and the MSD route's wider level 3 read the
 * long bin (RDX_SEG_LONG_BIN), the tile kernels the others. */
static __device__ __forceinline__ const uint32_t *rdx_seg_bin_list(const uint32_t *scratch, int bin, uint32_t *items)
{
    uint32_t before = 0;
    for (int b = 0; b < bin; ++b)
        before += scratch[b];
    *items = scratch[bin];
    return scratch + 2 * RDX_SEG_BINS + before;
}

/* dst[i] = src[i] for i in [begin, end), by one block, RDX_BLOCK_COPY_UNROLL loads a thread
 * in flight (each coalesced across the block): a plain loop keeps one, and held one
 * block's copy of a heavy key's millions of keys to a few GB/s (tuning.h). */
template <typename T>
static __device__ __noinline__ void rdx_block_copy(T *__restrict__ dst, const T *__restrict__ src, size_t begin,
                                                   size_t end)
{
    enum { UNROLL = RDX_BLOCK_COPY_UNROLL };
    const size_t step = blockDim.x;
    size_t i = begin + threadIdx.x;
    for (; i + (UNROLL - 1) * step < end; i += UNROLL * step) {
        T x[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            x[u] = src[i + (size_t)u * step];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            dst[i + (size_t)u * step] = x[u];
    }
    for (; i < end; i += step)
        dst[i] = src[i];
}

/* A launch of `blocks` blocks capped at `waves` times per_sm blocks on each of sms
 * multiprocessors (a grid whose blocks loop over the work; per_sm and sms below 1 count
 * as 1; waves 0: no cap). At least one block. */
static inline unsigned rdx_resident_grid(size_t blocks, int sms, int per_sm, int waves)
{
    const size_t cap = (size_t)(sms > 0 ? sms : 1) * (size_t)(per_sm > 0 ? per_sm : 1) * (size_t)waves;
    const size_t grid = waves > 0 && cap < blocks ? cap : blocks;
    return grid < 1 ? 1u : (unsigned)grid;
}

/* ---- Chained launches (programmatic dependent launch, sm_90+) ----
 * A kernel launched through rdx_chain_config may be placed on the multiprocessors while
 * the kernel ahead of it in the stream is still finishing, instead of after it has ended
 * and the launch has gone through the queue (a few us a launch, most of a kernel at small
 * n). Such a kernel calls rdx_chain_enter() first, before any access to global memory: it
 * waits there until the kernel ahead has ended and its writes are visible, then lets the
 * kernel behind it be placed in turn. Every chained kernel waits, so each kernel's writes
 * are visible to all that follow. Devices before sm_90 launch them plainly. */
static __device__ __forceinline__ void rdx_chain_enter(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* A launch configuration and its one attribute (the configuration points at it). */
typedef struct rdx_chain_launch {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
} rdx_chain_launch;

/* 1 when the current device was prepared (rdx_cuda_device_ready) and its kernels can chain. */
int rdx_cuda_chains(void);

/* The configuration for cudaLaunchKernelEx of a chained kernel on stream s. */
static inline const cudaLaunchConfig_t *rdx_chain_config(rdx_chain_launch *l, dim3 grid, dim3 block, size_t smem,
                                                         cudaStream_t s)
{
    l->cfg.gridDim = grid;
    l->cfg.blockDim = block;
    l->cfg.dynamicSmemBytes = smem;
    l->cfg.stream = s;
    l->attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    l->attr.val.programmaticStreamSerializationAllowed = rdx_cuda_chains();
    l->cfg.attrs = &l->attr;
    l->cfg.numAttrs = 1;
    return &l->cfg;
}

#endif /* RDX_CUDA_COMMON_CUH */
