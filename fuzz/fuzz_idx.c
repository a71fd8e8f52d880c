/*
 * libFuzzer harness for the IDX loader (src/data/idx.c, through
 * rx__data_load_idx) and, on every set that loads, the transforms.
 *
 * Input: byte 0 flags (bit 0: gzip the image file, bit 1: gzip the label
 * file, bits 2-7: transform parameters), bytes 1-2 the length of the image
 * part (big-endian, clamped to what is left), then the image file's bytes
 * and the label file's bytes (the rest). Gzipping in the harness reaches
 * the loader's zlib path with valid streams; an input part that itself
 * starts with 1f 8b reaches the corrupt-stream errors.
 */
#include "fuzz_data_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    static char pimg[300], plab[300];
    if (!pimg[0]) {
        snprintf(pimg, sizeof pimg, "%s/images.idx", fz_tmpdir());
        snprintf(plab, sizeof plab, "%s/labels.idx", fz_tmpdir());
    }
    size_t rest = size - 3;
    size_t ni = (size_t)data[1] << 8 | data[2];
    if (ni > rest)
        ni = rest;
    fz_write(pimg, data + 3, ni, data[0] & 1);
    fz_write(plab, data + 3 + ni, rest - ni, (data[0] >> 1) & 1);

    rx__dataset d;
    rx_err err = {""};
    rx_status st = rx__data_load_idx(&d, pimg, plab, &err);
    fz_check_status(st, &err, &d, "load_idx");
    if (st == RX_OK) {
        if (d.c != 1 || (int64_t)d.h * d.w != d.nfeat || d.n < 1)
            abort();
        fz_transforms(&d, data[0] >> 2);
    }
    rx__data_free(&d);
    return 0;
}
