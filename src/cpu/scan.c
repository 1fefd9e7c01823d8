/* Stage 2, scan: exclusive prefix sums of the digit counts give every thread its first
 * output slot per digit; a pass whose keys all share one digit is dropped here. */
#include "cpu.h"

void rdx_cpu_scan_totals(rdx_cpu_plan *plan, int nthreads)
{
    const size_t cells = (size_t)plan->npasses * (size_t)plan->bins;
    for (size_t c = 0; c < cells; c++) {
        size_t sum = 0;
        for (int t = 0; t < nthreads; t++)
            sum += plan->counts[(size_t)t * plan->counts_stride + c];
        plan->totals[c] = sum;
    }
    plan->nactive = 0;
    for (int p = 0; p < plan->npasses; p++) {
        const size_t *tot = plan->totals + (size_t)p * (size_t)plan->bins;
        int moves = 1;
        for (int b = 0; b < plan->bins; b++)
            if (tot[b] == plan->n)
                moves = 0;
        if (moves)
            plan->active[plan->nactive++] = p;
    }
}

void rdx_cpu_scan_offsets(const rdx_cpu_plan *plan, int pass, const size_t *local, int t,
                          size_t *offsets)
{
    const size_t *tot = plan->totals + (size_t)pass * (size_t)plan->bins;
    size_t base = 0;
    for (int b = 0; b < plan->bins; b++) {
        size_t o = base;
        for (int u = 0; u < t; u++)
            o += local[(size_t)u * plan->bin_stride + (size_t)b];
        offsets[b] = o;
        base += tot[b];
    }
}
