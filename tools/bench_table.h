/* The table (and CSV) that `rdx bench` prints, one row per sorter, type and size. */
#ifndef RDX_TOOL_BENCH_TABLE_H
#define RDX_TOOL_BENCH_TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef struct bench_row {
    const char *sorter;   /* "rdx cpu", "std::sort", ... */
    const char *type;     /* "u32", or "u32/u32" for pairs */
    const char *dist;
    size_t n;
    int threads;          /* > 0: threads the sorter ran on; 0: not known/shown */
    int runs;             /* timed runs; the time is their median */
    double ms;            /* < 0: no time (see note) */
    double bytes_per_key; /* of DESIGN.md section 1's model, for the GB/s column */
    double rdx_ratio;     /* > 0: rdx's throughput over this sorter's */
    const char *note;     /* NULL, or why the row has no time / failed */
    const char *route;    /* rdxsort's rows: rdx_ctx_route after the runs; NULL for peers */
} bench_row;

void bench_table_header(FILE *out, FILE *csv);
void bench_table_row(FILE *out, FILE *csv, const bench_row *r);

/* "2^20" for powers of two, else the decimal count, into buf (>= 24 bytes). */
void bench_format_count(size_t n, char *buf);

#endif
