/*
 * inference.nc: finished runs as ArviZ InferenceData, a netCDF-4 file
 * written with libnetcdf (inference.c). Only src/io includes <netcdf.h>.
 */
#ifndef RX_IO_INFERENCE_H
#define RX_IO_INFERENCE_H

#include "../core/internal.h"

/*
 * Writes the InferenceData file of n >= 1 finished runs of one
 * configuration (replicates differing in the seed) to path: run i is
 * chain i of every group. The runs must agree in the dimension, the number
 * of kept draws, the number of chains P and whether they have weights or a
 * test-set prediction; otherwise RX_EINVAL. Written to path.tmp and
 * renamed over path. Every failure (RX_EIO, RX_ENOMEM, RX_EINVAL) leaves a
 * message in err naming the file and the group/variable; nothing exits.
 * The same runs give the same bytes (no created_at attribute).
 */
rx_status rx__write_inference(const rx_ctx *const *runs, int n,
                              const char *path, rx_err *err);

#endif
