/* Key files (see keyfile.h). */
#include "keyfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "text.h"

int tool_load_keys(const char *path, rdx_type t, int text, void **keys, size_t *n)
{
    unsigned char *data;
    size_t size;
    if (tool_read_file(path, &data, &size) != 0)
        return -1;
    if (text) {
        int r = tool_parse_text_keys(path, (const char *)data, size, t, keys, n);
        free(data);
        return r;
    }
    const size_t ksize = rdx_type_size(t);
    if (size % ksize != 0) {
        tool_error("%s: size %zu is not a multiple of the %zu-byte key size", path, size, ksize);
        free(data);
        return -1;
    }
    *keys = data;
    *n = size / ksize;
    return 0;
}

int tool_write_keys(tool_output *o, const void *keys, size_t n, rdx_type t, int text)
{
    if (text) {
        if (tool_write_text_keys(o->f, keys, n, t) != 0) {
            tool_error("%s: %s", o->path, strerror(errno));
            tool_output_abort(o);
            return -1;
        }
    } else if (tool_output_write(o, keys, n * rdx_type_size(t)) != 0) {
        return -1;
    }
    return tool_output_close(o);
}

int tool_save_keys(const char *path, const void *keys, size_t n, rdx_type t, int text)
{
    tool_output o;
    if (tool_output_open(&o, path) != 0)
        return -1;
    if (tool_write_keys(&o, keys, n, t, text) != 0)
        return -1;
    return tool_output_commit(&o);
}
