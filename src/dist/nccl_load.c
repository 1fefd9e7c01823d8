/* Loading NCCL on first use (nccl_load.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "dist/nccl_load.h"

static rdx_nccl_fns fns;
static int loaded;
static char why[320];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The library's soname first (the NCCL already in the process, or the loader's search
 * path), then the one CMake found when librdx was built (RDX_NCCL_PATH). */
static void *open_nccl(void)
{
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
#ifdef RDX_NCCL_PATH
    if (!h)
        h = dlopen(RDX_NCCL_PATH, RTLD_NOW | RTLD_GLOBAL);
#endif
    return h;
}

static void load(void)
{
    void *h = open_nccl();
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "NCCL could not be loaded (%s)", e ? e : "libnccl.so.2 not found");
        return;
    }
    /* Each symbol by name; a missing one leaves NCCL unusable (too old a version). */
#define RDX_NCCL_SYM(field, name)                                                            \
    do {                                                                                     \
        *(void **)&fns.field = dlsym(h, name);                                               \
        if (!fns.field) {                                                                    \
            snprintf(why, sizeof why, "NCCL was loaded but has no %s (too old?)", name);      \
            return;                                                                          \
        }                                                                                    \
    } while (0)
    RDX_NCCL_SYM(GetUniqueId, "ncclGetUniqueId");
    RDX_NCCL_SYM(CommInitRank, "ncclCommInitRank");
    RDX_NCCL_SYM(CommInitAll, "ncclCommInitAll");
    RDX_NCCL_SYM(CommDestroy, "ncclCommDestroy");
    RDX_NCCL_SYM(CommCount, "ncclCommCount");
    RDX_NCCL_SYM(CommUserRank, "ncclCommUserRank");
    RDX_NCCL_SYM(GetErrorString, "ncclGetErrorString");
    RDX_NCCL_SYM(AllReduce, "ncclAllReduce");
    RDX_NCCL_SYM(Send, "ncclSend");
    RDX_NCCL_SYM(Recv, "ncclRecv");
    RDX_NCCL_SYM(GroupStart, "ncclGroupStart");
    RDX_NCCL_SYM(GroupEnd, "ncclGroupEnd");
#undef RDX_NCCL_SYM
    loaded = 1;
}

const rdx_nccl_fns *rdx_nccl(void)
{
    pthread_once(&once, load);
    return loaded ? &fns : NULL;
}

const char *rdx_nccl_why(void)
{
    pthread_once(&once, load);
    return loaded ? "" : why;
}
