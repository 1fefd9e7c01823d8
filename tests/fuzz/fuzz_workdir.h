/* The fuzz targets that touch files work in a fresh directory of their own:
 * $RDX_FUZZ_WORKDIR when set (scripts/fuzz.sh removes it afterwards), else a new one under
 * $TMPDIR or /tmp, removed with its contents at exit. Relative file names in the inputs
 * then stay inside it. */
#ifndef RDX_FUZZ_WORKDIR_H
#define RDX_FUZZ_WORKDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_own_dir[4096];

static int fuzz_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void fuzz_remove_workdir(void)
{
    if (fuzz_own_dir[0] && chdir("/") == 0)
        nftw(fuzz_own_dir, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void fuzz_enter_workdir(void)
{
    const char *dir = getenv("RDX_FUZZ_WORKDIR");
    if (!dir || !dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_own_dir, sizeof fuzz_own_dir, "%s/rdx-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        dir = mkdtemp(fuzz_own_dir);
        if (dir)
            atexit(fuzz_remove_workdir);
    }
    if (!dir || chdir(dir) != 0) {
        perror("rdx fuzz: work directory");
        abort();
    }
}

#endif
