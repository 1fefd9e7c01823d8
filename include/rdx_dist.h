/* rdxsort across GPUs: a stable sort of keys (or keys and values) spread over the ranks of
 * an NCCL communicator, and contexts that sort one array with several devices.
 *
 * Plain C. This header needs neither nccl.h nor a CUDA header: communicators and streams
 * appear as `struct ncclComm *` and `struct CUstream_st *`, which are exactly NCCL's
 * ncclComm_t and CUDA's cudaStream_t, so a caller passes those unchanged.
 *
 * The distributed sort. Rank r (one process, or one thread, per GPU) holds a shard of
 * n_r keys in device memory. The N = sum n_r keys have one stable global order: key order
 * (rdx.h: the options, RDX_DESCENDING, bit ranges and RDX_NUMPY_ORDER = 2u apply; the
 * flag value 2 is accepted here even where rdx.h does not define it yet), equal keys
 * ordered by rank, then by position in the shard. After the call rank r holds exactly the
 * keys of positions [floor(r N / P), floor((r + 1) N / P)) of that order (P ranks), with
 * their values: every rank gets N / P keys, give or take one. Shards may differ in size;
 * empty shards (n_r = 0, NULL pointers) take part like any other.
 *
 * How: exact splitters by a distributed radix select (all-reduce of the top digit's
 * histogram, then of the next digit's only within the buckets that hold a split point),
 * a stable partition of each shard by destination, one all-to-all exchange (grouped
 * ncclSend/ncclRecv), then the local sort of what arrived (rdx_cuda.h's sort).
 *
 * Every rank calls with the same key type, options and value size (checked: a mismatch
 * fails on every rank). The call is collective: it blocks the host while the splitters
 * are chosen (a few small all-reduces) and returns with the exchange and the local sort
 * enqueued on `stream`; the results are ready when the stream has finished. Argument
 * errors are found before any communication; errors that depend on other ranks (an output
 * capacity too small on some rank, options that differ) are found by the first all-reduce
 * and reported on every rank with the same status and message. A call that fails so
 * changes nothing. RDX_ERR_DEVICE (a CUDA or NCCL failure) can leave the outputs and the
 * communicator unusable, as with any NCCL error.
 *
 * Usage (one process per GPU with MPI; rdx_dist_mpi.h makes the communicator):
 *
 *     rdx_ctx *ctx;  rdx_ctx_create(&ctx, RDX_BACKEND_CUDA);
 *     ncclComm_t comm;  rdx_dist_comm_from_mpi(MPI_COMM_WORLD, &comm);
 *     size_t cap = n_total / nranks + 1, bytes, n_out;
 *     rdx_dist_sort_keys_temp_size(ctx, nranks, n_local, cap, RDX_U32, NULL, &bytes);
 *     cudaMalloc(&d_temp, bytes);  cudaMalloc(&d_out, cap * 4);
 *     rdx_dist_sort_keys(ctx, comm, d_keys, n_local, d_out, cap, &n_out, RDX_U32, NULL,
 *                        d_temp, bytes, stream);
 */
#ifndef RDX_DIST_H
#define RDX_DIST_H

#include <stddef.h>
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ncclComm;     /* ncclComm_t is struct ncclComm * */
struct CUstream_st;  /* cudaStream_t is struct CUstream_st * */

/* ---- Communicators ---- */

/* Bytes of an NCCL unique id (NCCL_UNIQUE_ID_BYTES). */
#define RDX_DIST_UNIQUE_ID_BYTES 128

/* Writes a fresh NCCL unique id (ncclGetUniqueId) to id[0..RDX_DIST_UNIQUE_ID_BYTES).
 * One rank makes it and hands it to every other (MPI_Bcast, torch.distributed, a file).
 * Errors: RDX_ERR_INVALID_ARGUMENT (NULL id, id_bytes below RDX_DIST_UNIQUE_ID_BYTES),
 * RDX_ERR_UNSUPPORTED (a build without NCCL), RDX_ERR_DEVICE (NCCL failed). */
rdx_status rdx_dist_unique_id(void *id, size_t id_bytes);

/* Makes this rank's communicator of nranks ranks from the unique id every rank was given
 * (ncclCommInitRank), on the calling thread's current CUDA device (cudaSetDevice first).
 * Collective: every rank calls it. Errors: as rdx_dist_unique_id, and
 * RDX_ERR_INVALID_ARGUMENT for NULL comm, nranks < 1 or rank outside [0, nranks). */
rdx_status rdx_dist_comm_init_rank(struct ncclComm **comm, int nranks, const void *id,
                                   size_t id_bytes, int rank);

/* Destroys a communicator made by rdx_dist_comm_init_rank (ncclCommDestroy). NULL is
 * allowed. */
rdx_status rdx_dist_comm_destroy(struct ncclComm *comm);

/* ---- The distributed sort (CUDA backend contexts, device memory) ---- */

/* Writes to *temp_bytes the temporary device storage rdx_dist_sort_keys needs on a rank
 * holding n_local keys with room for out_capacity sorted keys, among nranks ranks. It
 * depends on these numbers, the type and the options, never on the data.
 * Errors: RDX_ERR_INVALID_ARGUMENT (no CUDA context, NULL temp_bytes, nranks < 1, a bad
 * type or option), RDX_ERR_UNSUPPORTED (a build without NCCL). */
rdx_status rdx_dist_sort_keys_temp_size(rdx_ctx *ctx, int nranks, size_t n_local,
                                        size_t out_capacity, rdx_type type,
                                        const rdx_opts *opts, size_t *temp_bytes);

/* As rdx_dist_sort_keys_temp_size, for rdx_dist_sort_pairs with values of value_size
 * bytes (also refused: value_size 0). */
rdx_status rdx_dist_sort_pairs_temp_size(rdx_ctx *ctx, int nranks, size_t value_size,
                                         size_t n_local, size_t out_capacity, rdx_type type,
                                         const rdx_opts *opts, size_t *temp_bytes);

/* Sorts the keys of every rank of `comm` as one array (see the top of this file): this
 * rank's shard is d_keys[0..n_local), and its part of the result goes to
 * d_keys_out[0..*n_out), *n_out = floor((r+1) N / P) - floor(r N / P). d_keys is not
 * changed. d_temp holds temp_bytes >= what rdx_dist_sort_keys_temp_size gave.
 * Errors on this rank only: RDX_ERR_INVALID_ARGUMENT (NULL ctx, comm, n_out; no CUDA
 * context; NULL or host arrays with n > 0; overlapping arrays; a bad type or option),
 * RDX_ERR_TEMP_TOO_SMALL. Errors on every rank: RDX_ERR_INVALID_ARGUMENT when some rank's
 * part of the result is larger than its out_capacity (the message names the rank, its
 * part and its capacity) or the ranks disagree on the type or options.
 * RDX_ERR_DEVICE: CUDA or NCCL failed. */
rdx_status rdx_dist_sort_keys(rdx_ctx *ctx, struct ncclComm *comm, const void *d_keys,
                              size_t n_local, void *d_keys_out, size_t out_capacity,
                              size_t *n_out, rdx_type type, const rdx_opts *opts,
                              void *d_temp, size_t temp_bytes, struct CUstream_st *stream);

/* As rdx_dist_sort_keys, and d_values[i] (value_size bytes each) travels with d_keys[i]
 * to d_values_out (room for out_capacity values). */
rdx_status rdx_dist_sort_pairs(rdx_ctx *ctx, struct ncclComm *comm, const void *d_keys,
                               const void *d_values, size_t value_size, size_t n_local,
                               void *d_keys_out, void *d_values_out, size_t out_capacity,
                               size_t *n_out, rdx_type type, const rdx_opts *opts,
                               void *d_temp, size_t temp_bytes, struct CUstream_st *stream);

/* The host time of the phases of the last rdx_dist_sort_* call on ctx, in milliseconds
 * (for benchmarks): ms[0] the splitters (radix select, up to the chosen split points),
 * ms[1] the partition and the exchange, ms[2] the local sort, each up to a stream
 * synchronization that is only made when timing was asked for with
 * rdx_dist_set_timing(ctx, 1) (it costs a little overlap). Zeroes otherwise. */
void rdx_dist_set_timing(rdx_ctx *ctx, int on);
void rdx_dist_phase_times(const rdx_ctx *ctx, double ms[3]);

/* ---- One host, several devices ---- */

/* Creates a context that sorts with `count` devices as ranks of the algorithm above: each
 * rdx_sort_keys / rdx_sort_pairs / rdx_argsort on it cuts the array into count equal
 * shards, sorts them across the devices (a thread per device) and puts the result back
 * where the array is (host memory, or device memory of one of them).
 *   RDX_BACKEND_CUDA: devices lists `count` distinct GPU ordinals (an NCCL communicator
 *     by ncclCommInitAll joins them); devices NULL means GPUs 0 .. count-1.
 *   RDX_BACKEND_CPU: `count` ranks are CPU threads (devices must be NULL); the same
 *     splitters and exchange, on host memory.
 * Errors: RDX_ERR_INVALID_ARGUMENT (NULL out, count < 1, a bad or repeated ordinal, a
 * devices list with the CPU backend, RDX_BACKEND_AUTO), RDX_ERR_NO_DEVICE (an ordinal with
 * no GPU), RDX_ERR_UNSUPPORTED (CUDA without the CUDA backend or NCCL), RDX_ERR_DEVICE,
 * RDX_ERR_OUT_OF_MEMORY. On failure *out is NULL. Destroy with rdx_ctx_destroy. */
rdx_status rdx_ctx_create_devices(rdx_ctx **out, rdx_backend backend, const int *devices,
                                  int count);

/* The number of devices (ranks) a context sorts with: 1 for a context of rdx_ctx_create,
 * 0 for NULL. */
int rdx_ctx_device_count(const rdx_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* RDX_DIST_H */
