/*
 * IDX loader (MNIST / Fashion-MNIST layout): uint8 images (magic 0x803) and
 * uint8 labels (magic 0x801), big-endian dimensions, plain or gzipped.
 * Checks every size against the header before touching a pixel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/*
 * Validates the header of an IDX file of `ndims` dimensions (3 images,
 * 1 labels): magic, non-zero dimensions, and a size of exactly
 * header + product of dims bytes. dims[] receives the dimensions.
 */
static rx_status check_idx(const char *path, const unsigned char *b,
                           size_t len, int ndims, uint32_t dims[3],
                           rx_err *err)
{
    const char *what = ndims == 3 ? "images" : "labels";
    uint32_t want = 0x800u | (uint32_t)ndims;
    size_t hdr = 4 + 4 * (size_t)ndims;
    if (len < 4)
        return rx__fail(err, RX_EDATA, "%s: %zu bytes: too short for "
                        "an IDX file (expected magic 0x%08x for %s)", path,
                        len, want, what);
    uint32_t magic = be32(b);
    if (magic != want) {
        const char *hint = "";
        if (magic == (0x800u | (uint32_t)(ndims == 3 ? 1 : 3)))
            hint = ndims == 3 ? ": a label file given for images"
                              : ": an image file given for labels";
        else if ((magic >> 16) != 0)
            hint = ": not an IDX file";
        else if ((magic >> 8) != 0x08)
            hint = ": IDX element type is not uint8";
        return rx__fail(err, RX_EDATA, "%s: wrong magic 0x%08x "
                        "(expected 0x%08x for %s)%s", path, magic, want,
                        what, hint);
    }
    if (len < hdr)
        return rx__fail(err, RX_EDATA, "%s: truncated IDX header "
                        "(%zu of %zu bytes)", path, len, hdr);
    uint64_t total = 1;
    for (int i = 0; i < ndims; ++i) {
        dims[i] = be32(b + 4 + 4 * i);
        if (dims[i] == 0)
            return rx__fail(err, RX_EDATA, "%s: dimension %d is 0 "
                            "(byte %d)", path, i, 4 + 4 * i);
        total *= dims[i];
        if (total > ((uint64_t)1 << 40))
            return rx__fail(err, RX_EDATA, "%s: dimensions too large "
                            "(more than 2^40 bytes)", path);
    }
    char shape[64];
    if (ndims == 3)
        snprintf(shape, sizeof shape, "%u x %u x %u", dims[0], dims[1],
                 dims[2]);
    else
        snprintf(shape, sizeof shape, "%u", dims[0]);
    if ((uint64_t)(len - hdr) < total)
        return rx__fail(err, RX_EDATA, "%s: truncated: the header says "
                        "%s %s (%llu data bytes after byte %zu), the file "
                        "has %zu", path, shape, what,
                        (unsigned long long)total, hdr, len - hdr);
    if ((uint64_t)(len - hdr) > total)
        return rx__fail(err, RX_EDATA, "%s: %zu bytes after the %s %s "
                        "the header declares (file %zu bytes, expected "
                        "%llu)", path, (size_t)((uint64_t)(len - hdr) -
                        total), shape, what, len,
                        (unsigned long long)(total + hdr));
    return RX_OK;
}

rx_status rx__data_load_idx(rx__dataset *d, const char *images_path,
                            const char *labels_path, rx_err *err)
{
    if (!d)
        return rx__fail(err, RX_EINVAL, "idx: no output data set");
    memset(d, 0, sizeof *d);
    if (!images_path || !labels_path)
        return rx__fail(err, RX_EINVAL, "idx: images and labels paths are "
                        "both needed");
    char *ib = NULL, *lb = NULL;
    size_t il = 0, ll = 0;
    uint32_t idim[3] = {0, 0, 0}, ldim[3] = {0, 0, 0};
    rx_status st = rx__data_read_file(images_path, &ib, &il, err);
    if (st != RX_OK)
        goto fail;
    st = check_idx(images_path, (const unsigned char *)ib, il, 3, idim, err);
    if (st != RX_OK)
        goto fail;
    st = rx__data_read_file(labels_path, &lb, &ll, err);
    if (st != RX_OK)
        goto fail;
    st = check_idx(labels_path, (const unsigned char *)lb, ll, 1, ldim, err);
    if (st != RX_OK)
        goto fail;
    if (idim[0] != ldim[0]) {
        st = rx__fail(err, RX_EDATA, "%s has %u images but %s has %u "
                      "labels", images_path, idim[0], labels_path, ldim[0]);
        goto fail;
    }
    int64_t n = idim[0];
    size_t nf = (size_t)idim[1] * idim[2];
    d->n = n;
    d->nfeat = (int64_t)nf;
    d->c = 1;
    d->h = (int)idim[1];
    d->w = (int)idim[2];
    d->y_sd = 1.0;
    d->x = rx__alloc_aligned((size_t)n * nf * sizeof(float), 64);
    d->y = rx__alloc_aligned((size_t)n * sizeof(float), 64);
    if (!d->x || !d->y) {
        st = rx__fail(err, RX_ENOMEM, "%s: out of memory for %lld x %zu "
                      "pixels", images_path, (long long)n, nf);
        goto fail;
    }
    const unsigned char *px = (const unsigned char *)ib + 16;
    for (size_t i = 0; i < (size_t)n * nf; ++i)
        d->x[i] = (float)px[i] / 255.0f;
    const unsigned char *lab = (const unsigned char *)lb + 8;
    int maxl = 0;
    for (int64_t i = 0; i < n; ++i) {
        d->y[i] = (float)lab[i];
        if (lab[i] > maxl)
            maxl = lab[i];
    }
    d->n_classes = maxl + 1;
    free(ib);
    free(lb);
    return RX_OK;
fail:
    free(ib);
    free(lb);
    rx__data_free(d);
    return st;
}
