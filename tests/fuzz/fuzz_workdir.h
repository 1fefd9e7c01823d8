/* The fuzz targets that touch files work in a fresh directory of their own:
 * $RDX_FUZZ_WORKDIR when set (scripts/fuzz.sh removes it afterwards), else a new one under
 * $TMPDIR or /tmp. Relative file names in the inputs then stay inside it. */
#ifndef RDX_FUZZ_WORKDIR_H
#define RDX_FUZZ_WORKDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void fuzz_enter_workdir(void)
{
    const char *dir = getenv("RDX_FUZZ_WORKDIR");
    char tmpl[4096];
    if (!dir || !dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/rdx-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        dir = mkdtemp(tmpl);
    }
    if (!dir || chdir(dir) != 0) {
        perror("rdx fuzz: work directory");
        abort();
    }
}

#endif
