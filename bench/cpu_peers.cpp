// The CPU peer sorts that `rdx bench` measures next to rdxsort (bench/peers.h):
// qsort, std::sort, std::stable_sort, boost::sort::spreadsort (where Boost is found at
// build time: RDX_HAVE_SPREADSORT) and __gnu_parallel::sort (libstdc++'s parallel mode,
// where built with OpenMP). Each sorts n host keys in place, ascending.
//
// Orders: integers by value. f32 and f64 by operator< (as a C++ program would sort them),
// except spreadsort, which sorts floats by their totalOrder bit patterns (the mapping of
// rdx.h, then integer_sort on the unsigned patterns, then the mapping back): that is how
// it sorts floats fastest, and it gives the same order for every non-NaN key up to the
// placement of -0.0 against +0.0. f16 and bf16, which C++ has no operators for, are sorted
// by every peer through those mapped 16-bit patterns. All peers run on one thread except
// __gnu_parallel::sort, which uses all OpenMP threads.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "peers.h"

#ifdef RDX_HAVE_SPREADSORT
#include <boost/sort/spreadsort/spreadsort.hpp>
#endif

#if defined(__GLIBCXX__) && defined(_OPENMP) && __has_include(<parallel/algorithm>)
#include <parallel/algorithm>
#define RDX_HAVE_GNU_PARALLEL 1
#endif

namespace {

// totalOrder patterns of 16-bit floats (f16 and bf16 alike: sign bit at the top).
inline uint16_t order16(uint16_t b) { return (b & 0x8000u) ? uint16_t(~b) : uint16_t(b ^ 0x8000u); }
inline uint16_t unorder16(uint16_t o) { return (o & 0x8000u) ? uint16_t(o ^ 0x8000u) : uint16_t(~o); }
inline uint32_t order32(uint32_t b) { return (b & 0x80000000u) ? ~b : b ^ 0x80000000u; }
inline uint32_t unorder32(uint32_t o) { return (o & 0x80000000u) ? o ^ 0x80000000u : ~o; }
inline uint64_t order64(uint64_t b)
{
    return (b >> 63) ? ~b : b ^ 0x8000000000000000ull;
}
inline uint64_t unorder64(uint64_t o)
{
    return (o >> 63) ? o ^ 0x8000000000000000ull : ~o;
}

// Runs sort(first, last) over the keys seen as T.
template <typename T, typename Sort>
void as(void *keys, size_t n, Sort sort)
{
    T *p = static_cast<T *>(keys);
    sort(p, p + n);
}

// Maps 16-bit float patterns to their order, sorts them as uint16_t, maps back.
template <typename Sort>
void sort_half(void *keys, size_t n, Sort sort)
{
    uint16_t *p = static_cast<uint16_t *>(keys);
    for (size_t i = 0; i < n; i++)
        p[i] = order16(p[i]);
    sort(p, p + n);
    for (size_t i = 0; i < n; i++)
        p[i] = unorder16(p[i]);
}

// Dispatches on the key type; sort is a generic callable taking (T*, T*).
template <typename Sort>
int by_type(void *keys, size_t n, rdx_type type, Sort sort)
{
    switch (type) {
    case RDX_U8: as<uint8_t>(keys, n, sort); return 0;
    case RDX_U16: as<uint16_t>(keys, n, sort); return 0;
    case RDX_U32: as<uint32_t>(keys, n, sort); return 0;
    case RDX_U64: as<uint64_t>(keys, n, sort); return 0;
    case RDX_I8: as<int8_t>(keys, n, sort); return 0;
    case RDX_I16: as<int16_t>(keys, n, sort); return 0;
    case RDX_I32: as<int32_t>(keys, n, sort); return 0;
    case RDX_I64: as<int64_t>(keys, n, sort); return 0;
    case RDX_F16:
    case RDX_BF16: sort_half(keys, n, sort); return 0;
    case RDX_F32: as<float>(keys, n, sort); return 0;
    case RDX_F64: as<double>(keys, n, sort); return 0;
    }
    return -1;
}

// qsort: one comparison function per key type.
template <typename T>
int compare(const void *a, const void *b)
{
    const T x = *static_cast<const T *>(a), y = *static_cast<const T *>(b);
    return (y < x) - (x < y);
}

struct qsort_sort {
    template <typename T>
    void operator()(T *first, T *last) const
    {
        qsort(first, size_t(last - first), sizeof(T), compare<T>);
    }
};

struct std_sort {
    template <typename T>
    void operator()(T *first, T *last) const { std::sort(first, last); }
};

struct std_stable_sort {
    template <typename T>
    void operator()(T *first, T *last) const { std::stable_sort(first, last); }
};

int peer_qsort(void *keys, size_t n, rdx_type type) { return by_type(keys, n, type, qsort_sort()); }
int peer_std_sort(void *keys, size_t n, rdx_type type) { return by_type(keys, n, type, std_sort()); }
int peer_std_stable_sort(void *keys, size_t n, rdx_type type)
{
    return by_type(keys, n, type, std_stable_sort());
}

#ifdef RDX_HAVE_SPREADSORT
struct spread_sort {
    template <typename T>
    void operator()(T *first, T *last) const { boost::sort::spreadsort::spreadsort(first, last); }
};

// Floats through their totalOrder patterns (see the top of this file).
template <typename U, typename F>
void spread_float(void *keys, size_t n, U (*order)(U), U (*unorder)(U))
{
    static_assert(sizeof(U) == sizeof(F), "pattern and float widths differ");
    U *p = static_cast<U *>(keys);
    for (size_t i = 0; i < n; i++)
        p[i] = order(p[i]);
    boost::sort::spreadsort::integer_sort(p, p + n);
    for (size_t i = 0; i < n; i++)
        p[i] = unorder(p[i]);
}

int peer_spreadsort(void *keys, size_t n, rdx_type type)
{
    if (type == RDX_F32) {
        spread_float<uint32_t, float>(keys, n, order32, unorder32);
        return 0;
    }
    if (type == RDX_F64) {
        spread_float<uint64_t, double>(keys, n, order64, unorder64);
        return 0;
    }
    return by_type(keys, n, type, spread_sort());
}
#endif

#ifdef RDX_HAVE_GNU_PARALLEL
struct gnu_parallel_sort {
    template <typename T>
    void operator()(T *first, T *last) const { __gnu_parallel::sort(first, last); }
};

int peer_gnu_parallel(void *keys, size_t n, rdx_type type)
{
    return by_type(keys, n, type, gnu_parallel_sort());
}
#endif

const rdx_cpu_peer peer_list[] = {
    {"qsort", peer_qsort},
    {"std::sort", peer_std_sort},
    {"std::stable_sort", peer_std_stable_sort},
#ifdef RDX_HAVE_SPREADSORT
    {"boost::sort::spreadsort", peer_spreadsort},
#endif
#ifdef RDX_HAVE_GNU_PARALLEL
    {"__gnu_parallel::sort", peer_gnu_parallel},
#endif
};

}  // namespace

extern "C" size_t rdx_cpu_peers(const rdx_cpu_peer **peers)
{
    *peers = peer_list;
    return sizeof peer_list / sizeof peer_list[0];
}
