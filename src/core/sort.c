/*
 * A stable LSD radix sort of records by a leading double (sort.h). The
 * key of x: its bits, sign bit set for x >= 0 and every bit flipped for
 * x < 0, so unsigned order is numeric order; -0 takes +0's key, so the two
 * compare equal and keep their order. One pass counts all eight bytes;
 * a byte that is the same in every key costs no pass.
 */
#include <stdint.h>
#include <string.h>

#include "sort.h"

static uint64_t key_of(const void *rec)
{
    double x;
    memcpy(&x, rec, sizeof x);
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    if (u == UINT64_C(0x8000000000000000))
        u = 0; /* -0 as +0 */
    return u >> 63 ? ~u : u | UINT64_C(0x8000000000000000);
}

void rx__sort_f64(void *rec, size_t n, size_t size, void *tmp)
{
    if (n < 2 || (size != 8 && size != 16))
        return;
    size_t count[8][256];
    memset(count, 0, sizeof count);
    unsigned char *a = rec, *b = tmp;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t k = key_of(a + i * size);
        for (int d = 0; d < 8; ++d)
            ++count[d][(k >> (8 * d)) & 0xff];
    }
    for (int d = 0; d < 8; ++d) {
        size_t *c = count[d];
        int used = 0;
        for (int v = 0; v < 256 && used < 2; ++v)
            used += c[v] != 0;
        if (used < 2)
            continue; /* one value of this byte: the order stands */
        size_t at = 0;
        for (int v = 0; v < 256; ++v) {
            const size_t k = c[v];
            c[v] = at;
            at += k;
        }
        const int sh = 8 * d;
        if (size == 8)
            for (size_t i = 0; i < n; ++i) {
                const unsigned char *r = a + i * 8;
                memcpy(b + c[(key_of(r) >> sh) & 0xff]++ * 8, r, 8);
            }
        else
            for (size_t i = 0; i < n; ++i) {
                const unsigned char *r = a + i * 16;
                memcpy(b + c[(key_of(r) >> sh) & 0xff]++ * 16, r, 16);
            }
        unsigned char *t = a;
        a = b;
        b = t;
    }
    if (a != (unsigned char *)rec)
        memcpy(rec, a, n * size);
}
