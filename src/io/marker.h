/*
 * The file replex writes into every run directory and sweep directory it
 * creates: `--force` (rx_write_rundir with force, the CLI's checks) only
 * ever replaces or writes into a directory that holds it.
 */
#ifndef RX_IO_MARKER_H
#define RX_IO_MARKER_H

#define RX_MARKER_FILE ".replex"
#define RX_MARKER_RUN "replex run directory (--force may replace it)\n"
#define RX_MARKER_SWEEP "replex sweep directory (--force may write into it)\n"
#define RX_MARKER_REPLICATES \
    "replex replicates directory (--force may write into it)\n"
#define RX_MARKER_BENCH "replex bench directory (--force may replace it)\n"

/* Removes the directory tree dir (links not followed, depth first): 0, or
 * -1 with errno set. Used for --force replacement and for dead runs'
 * temporaries (src/io/rundir.c). */
int rx__rm_tree(const char *dir);

#endif
