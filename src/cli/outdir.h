/*
 * Output directories of the CLI: what --force may replace, the lock of a
 * live run's DIR.partial, and the temporaries a killed run left.
 */
#ifndef RX_CLI_OUTDIR_H
#define RX_CLI_OUTDIR_H

#include <stddef.h>

#include "replex/replex.h"

/* 0 when `--force` may replace out: it does
 * not exist, or it is a directory (not a link) holding replex's marker
 * file and is not /, $HOME, the working directory or one of its parents.
 * Otherwise prints why (naming out) and returns -1: exit 2. */
int rx_cli_force_ok(const char *out);

/* Writes the marker file (content text) into dir; 0 or -1 (errno). */
int rx_cli_write_marker(const char *dir, const char *text);

/* The directory of several runs (a sweep's, the replicates'): refused
 * when it exists without force; with force an existing one (that
 * rx_cli_force_ok accepts) is removed with all it holds; then created
 * (with its parents) holding the marker text, cleared of killed runs'
 * NAME.tmp-PID. 0, or -1 after printing why (exit 2). */
int rx_cli_make_multi_dir(const char *out, int force, const char *marker);

/* Before a long run, make sure its directory can be written: create the
 * parents and a probe directory beside `out` (removed at once). Prints the
 * reason and returns -1 when it cannot. */
int rx_cli_check_writable(const char *out);

/* DIR.partial of a run with checkpoint.every > 0 (removed when the run
 * completes): into dir, ck, cf and src (cap bytes each) the directory,
 * the checkpoint, the resolved config and the source name of out's. */
void rx_cli_partial_paths(const char *out, char *dir, char *ck, char *cf,
                          char *src, size_t cap);
/* Removes out's DIR.partial files (not its lock, which the caller holds;
 * with dir, the lock file and the directory too). */
void rx_cli_partial_remove(const char *out, int dir);
/* Starts out's DIR.partial for a checkpointing run of cfg (source: the
 * experiment file's name) and takes its lock (*lock); 0 or an exit status
 * after printing why. A live owner is named and refused, force or not;
 * an interrupted run's is replaced only with force. */
int rx_cli_partial_start(const char *out, int force, const rx_config *cfg,
                         const char *source, int *lock);

#endif

/* The lock of a live run's DIR.partial: DIR.partial/lock, held with
 * flock while the process owns the directory, with its PID written in.
 * Returns the open descriptor (close-on-exec), or -1 after printing why:
 * another process holds it (its PID named) or it cannot be created. */
int rx_cli_lock_partial(const char *partial);

/* The PID written in partial's lock when another process holds it; 0 when
 * no one does (or there is no lock file); -1 held, PID unknown. */
long rx_cli_lock_holder(const char *partial);

/* Releases the lock fd of partial; with remove, deletes the lock file
 * first (the run is complete and DIR.partial goes). */
void rx_cli_unlock_partial(int fd, const char *partial, int remove);

/* The lock of output directory out for the whole of a run, sweep or
 * replicates that writes it, with or without checkpoints: out.partial
 * (created with its parents) and its lock, so a second replex writing out
 * is refused before it starts. The fd, or -1 after printing why (another
 * process holds it: exit 2). */
int rx_cli_lock_out(const char *out);

/* Releases rx_cli_lock_out's fd: the lock file goes, and out.partial with
 * it unless it holds an interrupted run's checkpoint. */
void rx_cli_unlock_out(int fd, const char *out);

/* Removes the temporaries a killed run left beside out: out.tmp-PID and
 * out.probe-PID (every NAME.tmp-PID / NAME.probe-PID of directory out when
 * any_name) whose PID is not a live process, that are empty or hold
 * replex's marker, while no other process holds out.partial's lock
 * (own_lock: the caller holds it). Returns how many it removed. */
int rx_cli_clean_stale(const char *out, int any_name, int own_lock);
