/*
 * libFuzzer harness for the `mnist` JSON loader (src/data/mnist_json.c,
 * through rx__data_load_mnist_json) and, on every set that loads, the
 * transforms.
 *
 * Input: byte 0 (bits 0-3 mod 10: which digit file the rest becomes;
 * bit 4: gzip it; bits 5-7: transform parameters), then the file's text.
 * The loader needs all ten files: the other nine are minimal valid ones,
 * {"data": []}, so that the fuzzed file is always parsed whichever digit
 * it is, and a valid one loads.
 */
#include "fuzz_data_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static int ready;
    static char path[10][300];
    if (!ready) {
        for (int i = 0; i < 10; ++i)
            snprintf(path[i], sizeof path[i], "%s/%d.json", fz_tmpdir(), i);
        ready = 1;
    }
    static const char empty[] = "{\"data\": []}\n";
    int digit = (data[0] & 15) % 10;
    for (int i = 0; i < 10; ++i)
        if (i == digit)
            fz_write(path[i], data + 1, size - 1, (data[0] >> 4) & 1);
        else
            fz_write(path[i], empty, sizeof empty - 1, 0);

    rx__dataset d;
    rx_err err = {""};
    rx_status st = rx__data_load_mnist_json(&d, fz_tmpdir(), &err);
    fz_check_status(st, &err, &d, "load_mnist_json");
    if (st == RX_OK) {
        if (d.nfeat != 784 || d.n_classes != 10)
            abort();
        if (d.n > 0)
            fz_transforms(&d, data[0] >> 5 | (unsigned)digit << 3);
    }
    rx__data_free(&d);
    return 0;
}
