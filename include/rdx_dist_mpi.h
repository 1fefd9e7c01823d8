/* rdxsort across GPUs with MPI: an NCCL communicator for the ranks of an MPI communicator.
 *
 * Header only (so librdx does not depend on MPI): include it after mpi.h in a program
 * built with MPI, and link librdx as usual. Each process sets its GPU (cudaSetDevice)
 * first; rank 0 of `mpi` makes an NCCL unique id, MPI_Bcast hands it to every rank, and
 * every rank joins with rdx_dist_comm_init_rank. Collective over `mpi`.
 * Errors: RDX_ERR_INVALID_ARGUMENT (NULL out), RDX_ERR_DEVICE (MPI or NCCL failed), and
 * those of rdx_dist_unique_id. Every rank gets the same status when MPI works. */
#ifndef RDX_DIST_MPI_H
#define RDX_DIST_MPI_H

#include <mpi.h>
#include "rdx_dist.h"

static inline rdx_status rdx_dist_comm_from_mpi(MPI_Comm mpi, struct ncclComm **out)
{
    if (!out)
        return RDX_ERR_INVALID_ARGUMENT;
    *out = NULL;
    int rank = 0, size = 0;
    if (MPI_Comm_rank(mpi, &rank) != MPI_SUCCESS || MPI_Comm_size(mpi, &size) != MPI_SUCCESS)
        return RDX_ERR_DEVICE;
    /* The id, and rank 0's status in the last byte, so that every rank returns the same. */
    unsigned char id[RDX_DIST_UNIQUE_ID_BYTES + 1] = {0};
    if (rank == 0)
        id[RDX_DIST_UNIQUE_ID_BYTES] = (unsigned char)rdx_dist_unique_id(id, RDX_DIST_UNIQUE_ID_BYTES);
    if (MPI_Bcast(id, (int)sizeof id, MPI_BYTE, 0, mpi) != MPI_SUCCESS)
        return RDX_ERR_DEVICE;
    if (id[RDX_DIST_UNIQUE_ID_BYTES] != RDX_OK)
        return (rdx_status)id[RDX_DIST_UNIQUE_ID_BYTES];
    return rdx_dist_comm_init_rank(out, size, id, RDX_DIST_UNIQUE_ID_BYTES, rank);
}

#endif /* RDX_DIST_MPI_H */
