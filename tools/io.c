/* Whole-file reads and all-or-nothing writes (see io.h). */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progress.h"
#include "report.h"

#define TOOL_IO_CHUNK ((size_t)1 << 24) /* bytes per read/write call, for progress */

int tool_read_file(const char *path, unsigned char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        tool_error("%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        tool_error("%s: %s", path, strerror(errno));
        fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        tool_error("%s: %s", path, S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
        fclose(f);
        return -1;
    }
    size_t want = (size_t)st.st_size;
    unsigned char *buf = malloc(want ? want : 1);
    if (!buf) {
        tool_error("%s: out of memory for %zu bytes", path, want);
        fclose(f);
        return -1;
    }
    size_t got = 0;
    while (got < want) {
        size_t chunk = want - got < TOOL_IO_CHUNK ? want - got : TOOL_IO_CHUNK;
        size_t r = fread(buf + got, 1, chunk, f);
        got += r;
        tool_progress_set((double)got / (double)want);
        if (r < chunk)
            break;
    }
    if (ferror(f) || got != want) {
        tool_error("%s: %s", path, ferror(f) ? strerror(errno) : "changed size while being read");
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    *data = buf;
    *size = want;
    return 0;
}

/* Directory part of path ("." when none), malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

int tool_output_open(tool_output *o, const char *path)
{
    memset(o, 0, sizeof *o);
    /* Write through a symbolic link to its target rather than replacing the link. */
    char *resolved = realpath(path, NULL);
    o->path = resolved ? resolved : strdup(path);
    char *dir = dir_of(o->path);
    const char *base = strrchr(o->path, '/') ? strrchr(o->path, '/') + 1 : o->path;
    size_t len = (dir ? strlen(dir) : 0) + strlen(base) + 32;
    o->tmp_path = malloc(len);
    if (!o->path || !dir || !o->tmp_path) {
        tool_error("%s: out of memory", path);
        free(dir);
        tool_output_abort(o);
        return -1;
    }
    snprintf(o->tmp_path, len, "%s/.%s.rdx-XXXXXX", dir, base);
    free(dir);
    int fd = mkstemp(o->tmp_path);
    if (fd < 0) {
        tool_error("%s: cannot create a file beside it: %s", path, strerror(errno));
        free(o->tmp_path);
        o->tmp_path = NULL;
        tool_output_abort(o);
        return -1;
    }
    /* The new file gets the mode of the one it replaces, or the usual 0666 less umask. */
    struct stat st;
    mode_t mode;
    if (stat(o->path, &st) == 0) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) {
        /* not fatal: the file keeps mkstemp's 0600 */
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        tool_error("%s: %s", path, strerror(errno));
        close(fd);
        tool_output_abort(o);
        return -1;
    }
    setvbuf(o->f, NULL, _IOFBF, (size_t)1 << 20); /* text output writes many short lines */
    return 0;
}

int tool_output_write(tool_output *o, const void *data, size_t size)
{
    const unsigned char *p = data;
    size_t done = 0;
    while (done < size) {
        size_t chunk = size - done < TOOL_IO_CHUNK ? size - done : TOOL_IO_CHUNK;
        if (fwrite(p + done, 1, chunk, o->f) != chunk) {
            tool_error("%s: %s", o->path, strerror(errno));
            tool_output_abort(o);
            return -1;
        }
        done += chunk;
        tool_progress_set((double)done / (double)size);
    }
    return 0;
}

int tool_output_close(tool_output *o)
{
    FILE *f = o->f;
    o->f = NULL;
    int bad = ferror(f);
    int err = bad ? errno : 0;
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        bad = 1;
        err = errno;
    }
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        tool_error("%s: %s", o->path, err ? strerror(err) : "write error");
        tool_output_abort(o);
        return -1;
    }
    return 0;
}

int tool_output_commit(tool_output *o)
{
    if (rename(o->tmp_path, o->path) != 0) {
        tool_error("%s: %s", o->path, strerror(errno));
        tool_output_abort(o);
        return -1;
    }
    free(o->tmp_path);
    o->tmp_path = NULL;
    free(o->path);
    o->path = NULL;
    return 0;
}

void tool_output_abort(tool_output *o)
{
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
    }
    if (o->tmp_path) {
        unlink(o->tmp_path);
        free(o->tmp_path);
        o->tmp_path = NULL;
    }
    free(o->path);
    o->path = NULL;
}
