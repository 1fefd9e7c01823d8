/* Sorts a few float keys with their ids through rdxsort, then prints them in order. */
#include <stdio.h>
#include <rdx.h>

int main(void)
{
    float keys[] = {3.5f, -1.0f, 2.25f, -0.0f, 0.0f, 2.25f};
    unsigned ids[] = {0, 1, 2, 3, 4, 5};
    size_t n = sizeof keys / sizeof keys[0];
    rdx_ctx *ctx;
    if (rdx_ctx_create(&ctx, RDX_BACKEND_AUTO) != RDX_OK)
        return 1;
    if (rdx_sort_pairs(ctx, keys, ids, sizeof ids[0], n, RDX_F32, NULL) != RDX_OK) {
        fprintf(stderr, "rdx_sort_pairs: %s\n", rdx_ctx_error(ctx));
        rdx_ctx_destroy(ctx);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        printf("%g (id %u)\n", keys[i], ids[i]);  /* -1, -0, 0, 2.25 (2), 2.25 (5), 3.5 */
    rdx_ctx_destroy(ctx);
    return 0;
}
