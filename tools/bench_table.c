/* The benchmark table (see bench_table.h). */
#include "bench_table.h"

#include "progress.h"

void bench_format_count(size_t n, char *buf)
{
    if (n && (n & (n - 1)) == 0) {
        int e = 0;
        while (((size_t)1 << e) != n)
            e++;
        snprintf(buf, 24, "2^%d", e);
    } else {
        snprintf(buf, 24, "%zu", n);
    }
}

void bench_table_header(FILE *out, FILE *csv)
{
    fprintf(out, "%-24s %-8s %-10s %5s %4s %-8s %11s %10s %8s %9s\n", "sorter", "type", "dist", "n",
            "thr", "route", "ms", "Mkeys/s", "GB/s", "rdx/this");
    if (csv)
        fprintf(csv, "sorter,type,dist,n,threads,runs,ms,mkeys_per_s,gb_per_s,rdx_ratio,note,route\n");
}

void bench_table_row(FILE *out, FILE *csv, const bench_row *r)
{
    char count[24], threads[16] = "-";
    bench_format_count(r->n, count);
    if (r->threads > 0)
        snprintf(threads, sizeof threads, "%d", r->threads);
    tool_progress_clear();
    /* The route column is narrow: a longer name (the MSD route's outcome) widens its row. */
    fprintf(out, "%-24s %-8s %-10s %5s %4s %-8s ", r->sorter, r->type, r->dist, count, threads,
            r->route && r->route[0] ? r->route : "-");
    double mkeys = 0.0, gbs = 0.0;
    if (r->ms >= 0.0) {
        const double s = r->ms > 0.0 ? r->ms * 1e-3 : 1e-9;
        mkeys = (double)r->n / s * 1e-6;
        gbs = (double)r->n * r->bytes_per_key / s * 1e-9;
        fprintf(out, "%11.3f %10.1f %8.2f", r->ms, mkeys, gbs);
        if (r->rdx_ratio > 0.0)
            fprintf(out, " %8.2fx", r->rdx_ratio);
        if (r->note)
            fprintf(out, "  %s", r->note);
    } else {
        fprintf(out, "%11s  %s", "-", r->note ? r->note : "");
    }
    fputc('\n', out);
    fflush(out);
    if (csv) {
        fprintf(csv, "\"%s\",%s,%s,%zu,%d,%d,", r->sorter, r->type, r->dist, r->n, r->threads, r->runs);
        if (r->ms >= 0.0)
            fprintf(csv, "%.6f,%.3f,%.4f,", r->ms, mkeys, gbs);
        else
            fprintf(csv, ",,,");
        if (r->rdx_ratio > 0.0)
            fprintf(csv, "%.4f", r->rdx_ratio);
        fprintf(csv, ",\"%s\",\"%s\"\n", r->note ? r->note : "", r->route ? r->route : "");
        fflush(csv);
    }
}
