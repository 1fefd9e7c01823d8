/* Runs a fuzz target over files without libFuzzer: each argument is an input file or a
 * folder of them (the seed corpus and the regression inputs of tests/fuzz/corpus/). The
 * ordinary builds link every target with this main, so ctest replays the corpus with gcc and
 * under the sanitizer build too; scripts/fuzz.sh links libFuzzer's main instead. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, size = 0;
    uint8_t *data = malloc(cap);
    size_t r;
    while (data && (r = fread(data + size, 1, cap - size, f)) > 0) {
        size += r;
        if (size == cap) {
            uint8_t *more = realloc(data, cap *= 2);
            if (!more) {
                free(data);
                data = NULL;
            }
            data = more;
        }
    }
    fclose(f);
    if (!data) {
        fprintf(stderr, "%s: out of memory\n", path);
        return -1;
    }
    /* a copy of exactly `size` bytes, so that AddressSanitizer sees any read past the end */
    uint8_t *exact = malloc(size ? size : 1);
    memcpy(exact, data, size);
    free(data);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]) != 0;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            bad |= run_file(path) != 0;
            files++;
        }
        if (d)
            closedir(d);
    }
    printf("replayed %d inputs\n", files);
    return bad || files == 0;
}
