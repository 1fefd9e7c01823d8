/* One segment of a segmented sort, sorted by one thread (row.c). */
#ifndef RDX_CPU_ROW_H
#define RDX_CPU_ROW_H

#include "cpu.h"

/* What every row of one segmented job shares. */
typedef struct rdx_cpu_rowjob {
    rdx_job_kind kind;
    unsigned kb;              /* key bytes */
    int cls, desc, numpy;     /* key_codec.h class, direction, RDX_NUMPY_ORDER (floats) */
    uint64_t inf;             /* the type's +inf pattern, for the NumPy order */
    int begin_bit;            /* a key is ordered by (code >> begin_bit) & range */
    uint64_t range;
    int codes_only;           /* keys alone on their full range: sort the codes themselves */
    size_t value_size;        /* PAIRS */
    unsigned index_bytes;     /* ARGSORT: 4 or 8 */
    int bins, npasses;        /* the LSD digits of the ordered value */
    int shift[RDX_CPU_MAX_PASSES];
    uint64_t mask[RDX_CPU_MAX_PASSES];
} rdx_cpu_rowjob;

/* One thread's buffers for rows of up to max_len keys, carved out of one block. */
typedef struct rdx_cpu_rowbuf {
    uint64_t *sk[2];          /* ordered values (or codes), ping-pong */
    uint64_t *code;           /* the row's codes in input order */
    uint32_t *idx[2];         /* positions in the row, ping-pong */
    size_t *hist;             /* npasses * bins counters */
    unsigned char *vcopy;     /* PAIRS: a copy of the row's values */
} rdx_cpu_rowbuf;

void rdx_cpu_rowjob_init(rdx_cpu_rowjob *rj, const rdx_job *job);
/* Bytes of one thread's block for rows of up to max_len keys. */
size_t rdx_cpu_row_bytes(const rdx_cpu_rowjob *rj, size_t max_len);
/* Lays out b in mem (rdx_cpu_row_bytes(rj, max_len) bytes, 8-byte aligned). */
void rdx_cpu_rowbuf_init(rdx_cpu_rowbuf *b, const rdx_cpu_rowjob *rj, void *mem, size_t max_len);
/* Sorts one row of m (<= max_len) keys in place, with its values, or writes its indices
 * (positions within the row). keys, values and indices point at the row's first element. */
void rdx_cpu_sort_row(const rdx_cpu_rowjob *rj, rdx_cpu_rowbuf *b, unsigned char *keys,
                      unsigned char *values, unsigned char *indices, size_t m);

#endif
