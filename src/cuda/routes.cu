/* The route table: the CUDA backend's ways to sort, in the order rdx_cuda_plan_job tries
 * them; the first that accepts a job takes it. docs/cuda-notes.md opens with this list.
 *
 *   small     n <= RDX_SMALL_MAX_N: one block sorts on chip        route_small.cu
 *   count     1- and 2-byte keys alone over all their bits, from
 *             the context's count_min_n (count16_min_n) on: count
 *             each value, write
 *             the runs (no scatter, no key scratch)                 route_count.cu
 *   msd       8- and 4-byte keys (4/8-byte values, indices) from
 *             the context's msd_min_n (msd4_min_n) on (4-byte keys
 *             alone above msd_max_n with level 3's wide or
 *             counts-only shape); the
 *             skew test may send them to the LSD passes             route_msd.cu
 *   cluster   n <= cluster_max_n and the device places the cluster  route_cluster.cu
 *   grid      n <= grid_max_n and the grid is co-resident           route_grid.cu
 *   onesweep  every job: histograms, scan, LSD passes               route_onesweep.cu
 *
 * The MSD route comes before cluster and grid: with the default limits their sizes never
 * meet, and a test that lowers msd_min_n reaches the route at small sizes. */
#include "route.h"

const rdx_cuda_route *const rdx_cuda_routes[RDX_CUDA_ROUTES] = {
    &rdx_route_small, &rdx_route_count, &rdx_route_msd, &rdx_route_cluster, &rdx_route_grid, &rdx_route_onesweep,
};
