/* The distributed sort with one process per GPU under MPI (run by ctest as
 * `mpiexec -n 2 test_dist_mpi`; skips with 77 when the host has fewer GPUs than ranks):
 * the communicator from rdx_dist_comm_from_mpi (rdx_dist_mpi.h), random shards of other
 * sizes than the parts, rdx_dist_sort_pairs, then rank 0 gathers every input and output and
 * compares with one single-GPU sort of the concatenation (values = global index).
 *
 * Environment: RDX_TEST_SEED replays a run (every rank derives its data from it). */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_dist_mpi.h"
#include "suite.h"
#include "check.h"

static size_t bound(size_t n, int r, int p)
{
    return n / (size_t)p * (size_t)r + n % (size_t)p * (size_t)r / (size_t)p;
}

/* One case: every rank sorts; returns the number of failures (the same on every rank). */
static int one_case(struct ncclComm *comm, rdx_ctx *ctx, cudaStream_t stream, int rank, int size, size_t n_max,
                    rdx_type type, rdx_opts opts)
{
    const size_t kb = rdx_type_size(type);
    uint64_t s = seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(rank + 1)) ^ n_max;
    const size_t n = (size_t)(rnd(&s) % (n_max + 1));
    unsigned long long nn = n, total = 0, before = 0;
    MPI_Allreduce(&nn, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&nn, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        before = 0;
    const size_t N = (size_t)total, cap = bound(N, rank + 1, size) - bound(N, rank, size);
    unsigned char *keys = malloc(n * kb + 1), *out = malloc(cap * kb + 1);
    uint64_t *vals = malloc(n * 8 + 8), *outv = malloc(cap * 8 + 8);
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = rnd(&s) >> (rank % 2 ? 40 : 0); /* skewed on odd ranks */
        memcpy(keys + i * kb, &x, kb);
        vals[i] = before + i;
    }
    void *dk, *dv, *dok, *dov, *dt;
    size_t bytes = 0, n_out = 0;
    rdx_status st = rdx_dist_sort_pairs_temp_size(ctx, size, 8, n, cap, type, &opts, &bytes);
    cudaMalloc(&dk, n * kb + 1);
    cudaMalloc(&dv, n * 8 + 8);
    cudaMalloc(&dok, cap * kb + 1);
    cudaMalloc(&dov, cap * 8 + 8);
    cudaMalloc(&dt, bytes + 1);
    cudaMemcpy(dk, keys, n * kb, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, vals, n * 8, cudaMemcpyHostToDevice);
    if (st == RDX_OK)
        st = rdx_dist_sort_pairs(ctx, comm, dk, dv, 8, n, dok, dov, cap, &n_out, type, &opts, dt, bytes, stream);
    cudaStreamSynchronize(stream);
    cudaMemcpy(out, dok, cap * kb, cudaMemcpyDeviceToHost);
    cudaMemcpy(outv, dov, cap * 8, cudaMemcpyDeviceToHost);
    if (st != RDX_OK || n_out != cap)
        printf("FAIL [seed 0x%016llx] rank %d: status %d, n_out %zu of %zu: %s\n", (unsigned long long)seed, rank,
               (int)st, n_out, cap, rdx_ctx_error(ctx));
    int bad = st != RDX_OK || n_out != cap;

    /* Rank 0 gathers inputs and outputs and checks them. */
    int *cnt_in = malloc(sizeof(int) * size), *cnt_out = malloc(sizeof(int) * size);
    int *disp_in = malloc(sizeof(int) * size), *disp_out = malloc(sizeof(int) * size);
    int my_in = (int)(n * kb), my_out = (int)(cap * kb);
    MPI_Gather(&my_in, 1, MPI_INT, cnt_in, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&my_out, 1, MPI_INT, cnt_out, 1, MPI_INT, 0, MPI_COMM_WORLD);
    unsigned char *all = NULL, *allout = NULL;
    uint64_t *allv = NULL;
    if (rank == 0) {
        int a = 0, b = 0;
        for (int r = 0; r < size; r++) {
            disp_in[r] = a;
            a += cnt_in[r];
            disp_out[r] = b;
            b += cnt_out[r];
        }
        all = malloc(N * kb + 1);
        allout = malloc(N * kb + 1);
        allv = malloc(N * 8 + 8);
    }
    MPI_Gatherv(keys, my_in, MPI_BYTE, all, cnt_in, disp_in, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Gatherv(out, my_out, MPI_BYTE, allout, cnt_out, disp_out, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < size; r++) {
        cnt_out[r] = cnt_out[r] / (int)kb * 8;
        disp_out[r] = disp_out[r] / (int)kb * 8;
    }
    MPI_Gatherv(outv, (int)(cap * 8), MPI_BYTE, allv, cnt_out, disp_out, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t *idx = malloc(N * 8 + 8);
        for (size_t i = 0; i < N; i++)
            idx[i] = i;
        rdx_status rs = rdx_sort_pairs(ctx, all, idx, 8, N, type, &opts); /* host arrays, one GPU */
        size_t at = SIZE_MAX;
        for (size_t i = 0; rs == RDX_OK && i < N && at == SIZE_MAX; i++)
            if (memcmp(all + i * kb, allout + i * kb, kb) != 0 || idx[i] != allv[i])
                at = i;
        if (rs != RDX_OK || at != SIZE_MAX) {
            printf("FAIL [seed 0x%016llx] N = %zu, type %d: differs from the single-GPU sort at %zu (%s)\n",
                   (unsigned long long)seed, N, (int)type, at, rdx_ctx_error(ctx));
            bad = 1;
        }
        free(idx);
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(dok);
    cudaFree(dov);
    cudaFree(dt);
    free(keys);
    free(out);
    free(vals);
    free(outv);
    free(all);
    free(allout);
    free(allv);
    free(cnt_in);
    free(cnt_out);
    free(disp_in);
    free(disp_out);
    return any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, ngpu = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess)
        ngpu = 0;
    int few = ngpu < size || size < 2, any_few = 0;
    MPI_Allreduce(&few, &any_few, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_few) {
        if (rank == 0)
            printf("SKIP: %d ranks need as many GPUs (and at least 2); %d found\n", size, ngpu);
        MPI_Finalize();
        return 77;
    }
    uint64_t sd = rank == 0 ? rdx_test_seed() : 0;
    MPI_Bcast(&sd, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    seed = sd;
    cudaSetDevice(rank);
    struct ncclComm *comm = NULL;
    rdx_ctx *ctx = NULL;
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    if (rdx_dist_comm_from_mpi(MPI_COMM_WORLD, &comm) != RDX_OK || rdx_ctx_create(&ctx, RDX_BACKEND_CUDA) != RDX_OK) {
        printf("FAIL: rank %d could not make its communicator or context\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int fails = 0;
    const rdx_opts asc = {0, 0, 0, 0}, desc = {RDX_DESCENDING, 0, 0, 0}, range = {0, 8, 40, 0};
    fails += one_case(comm, ctx, stream, rank, size, 0, RDX_U32, asc);
    fails += one_case(comm, ctx, stream, rank, size, 1000, RDX_U32, asc);
    fails += one_case(comm, ctx, stream, rank, size, (size_t)1 << 22, RDX_U32, asc);
    fails += one_case(comm, ctx, stream, rank, size, (size_t)1 << 21, RDX_U64, desc);
    fails += one_case(comm, ctx, stream, rank, size, (size_t)1 << 21, RDX_U64, range);
    fails += one_case(comm, ctx, stream, rank, size, (size_t)1 << 20, RDX_F32, asc);
    failures = fails;
    if (rank == 0)
        printf("%s: %d failing case(s), %d ranks, seed 0x%016llx\n", failures ? "FAIL" : "ok", failures, size,
               (unsigned long long)seed);
    rdx_dist_comm_destroy(comm);
    rdx_ctx_destroy(ctx);
    MPI_Finalize();
    return fails ? 1 : 0;
}
