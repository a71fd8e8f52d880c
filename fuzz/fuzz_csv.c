/*
 * libFuzzer harness for the CSV loader (src/data/csv.c, through
 * rx__data_load_csv) and, on every set that loads, the transforms.
 *
 * Input: 4 option bytes, then a target name of (byte 3 & 7) bytes, then the
 * CSV text, written to a file (gzipped when bit 7 of byte 0 is set):
 *   byte 0: bits 0-1 header (0 auto, 1 no, 2 yes, 3 auto); bit 2
 *           classification; bit 3 target by name; bits 4-6 delimiter
 *           (',', auto, ' ', ';', '\t', ',', ',', '|'); bit 7 gzip
 *   byte 1: target index (signed: negative counts from the end)
 *   byte 2: skip_rows (low 2 bits); the rest picks transform parameters
 *   byte 3: length of the target name (low 3 bits)
 * See fuzz_data_common.h for the properties checked.
 */
#include "fuzz_data_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    static char path[300];
    if (!path[0])
        snprintf(path, sizeof path, "%s/in.csv", fz_tmpdir());
    static const char delims[8] = {',', 0, ' ', ';', '\t', ',', ',', '|'};
    rx__csvopts o;
    rx__csvopts_default(&o);
    unsigned h = data[0] & 3;
    o.header = h == 1 ? 0 : h == 2 ? 1 : -1;
    o.classification = (data[0] >> 2) & 1;
    o.delim = delims[(data[0] >> 4) & 7];
    o.target_index = (int8_t)data[1];
    o.skip_rows = data[2] & 3;
    size_t nl = data[3] & 7;
    if (4 + nl > size)
        return 0;
    char name[8];
    memcpy(name, data + 4, nl);
    name[nl] = '\0';
    if ((data[0] >> 3) & 1)
        o.target_name = name;
    fz_write(path, data + 4 + nl, size - 4 - nl, data[0] >> 7);

    rx__dataset d;
    rx_err err = {""};
    rx_status st = rx__data_load_csv(&d, path, &o, &err);
    fz_check_status(st, &err, &d, "load_csv");
    if (st == RX_OK) {
        if (d.feat_names)
            for (int64_t j = 0; j < d.nfeat; ++j)
                if (!d.feat_names[j])
                    abort();
        fz_transforms(&d, data[2] >> 2);
    }
    rx__data_free(&d);
    return 0;
}
