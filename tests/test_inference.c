/*
 * rx__write_inference on several runs (src/io/inference.c), read back with
 * libnetcdf:
 *
 *  1. Three runs of yaml/gmm_2d.yaml (shortened) with seeds 1, 2, 3 in one
 *     file: chain = 3 in posterior and sample_stats, theta of chain i
 *     equal to run i's samples bit for bit (float32), lp of chain i equal
 *     to -U of run i's draws (the engine's view), and the three chains
 *     differ.
 *  2. Refusals with a message naming the file: no runs (n = 0), runs of
 *     another dimension (yaml/gmm_1d_two_modes.yaml beside gmm_2d), a
 *     path in a directory that does not exist (RX_EIO, the file and the
 *     netCDF error).
 *  3. A file that cannot be written whole (a 16 KiB file-size limit, as
 *     a full disk): RX_EIO naming the file and the reason ("File too
 *     large"), no temporary left, and the process exits normally (HDF5
 *     once kept such a file open and crashed in its exit handler).
 */
#include <netcdf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/engine/state.h"
#include "../src/io/inference.h"
#include "check.h"
#include "replex/replex.h"

static char src[1024], dir[1100];

static rx_ctx *run(const char *yaml, const char *seed)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/yaml/%s", src, yaml);
    const char *sets[] = {"iterations=1500", seed, "record.burn_in=0",
                          "threads=1"};
    rx_config cfg;
    rx_config_default(&cfg);
    rx_err err = {0};
    rx_ctx *c = NULL;
    rx_status st = rx_config_load(path, sets, 4, &cfg, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st == RX_OK) {
        rx_logger quiet = {0};
        st = rx_create(&c, &cfg, NULL, quiet, &err);
        CHECK_MSG(st == RX_OK, "%s", err.msg);
    }
    if (c && rx_run(c) != RX_OK) {
        fprintf(stderr, "%s\n", rx_errmsg(c));
        CHECK(0);
        rx_destroy(&c);
    }
    rx_config_free(&cfg);
    return c;
}

/* Group g's dimension name's length, or -1. */
static long dimlen(int gid, const char *name)
{
    int d;
    size_t n;
    if (nc_inq_dimid(gid, name, &d) != NC_NOERR ||
        nc_inq_dimlen(gid, d, &n) != NC_NOERR)
        return -1;
    return (long)n;
}

static void three_chains(rx_ctx *const *runs)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/three.nc", dir);
    rx_err err = {0};
    CHECK_MSG(rx__write_inference((const rx_ctx *const *)runs, 3, path,
                                  &err) == RX_OK,
              "%s", err.msg);
    int id, gp, gs, v;
    if (nc_open(path, NC_NOWRITE, &id) != NC_NOERR) {
        CHECK(0);
        return;
    }
    CHECK(nc_inq_grp_ncid(id, "posterior", &gp) == NC_NOERR);
    CHECK(nc_inq_grp_ncid(id, "sample_stats", &gs) == NC_NOERR);
    rx_results r;
    rx_get_results(runs[0], &r);
    const long S = (long)r.n_samples, d = (long)r.dim;
    CHECK(dimlen(gp, "chain") == 3 && dimlen(gs, "chain") == 3);
    CHECK(dimlen(gp, "draw") == S && dimlen(gs, "draw") == S && S == 150);
    CHECK(dimlen(gp, "theta_dim_0") == d && d == 2);
    float *th = malloc(sizeof(float) * 3 * (size_t)(S * d));
    double *lp = malloc(sizeof(double) * 3 * (size_t)S);
    CHECK(nc_inq_varid(gp, "theta", &v) == NC_NOERR &&
          nc_get_var_float(gp, v, th) == NC_NOERR);
    CHECK(nc_inq_varid(gs, "lp", &v) == NC_NOERR &&
          nc_get_var_double(gs, v, lp) == NC_NOERR);
    for (int i = 0; i < 3; ++i) {
        rx__runview rv;
        rx__run_view(runs[i], &rv);
        CHECK(memcmp(th + (size_t)i * (size_t)(S * d), rv.res.samples,
                     sizeof(float) * (size_t)(S * d)) == 0);
        int same_lp = 1;
        for (long s = 0; s < S; ++s)
            same_lp &= lp[(size_t)i * (size_t)S + (size_t)s] ==
                       -rv.energy[s];
        CHECK_MSG(same_lp, "chain %d: lp is not -U of its draws", i);
    }
    CHECK(memcmp(th, th + S * d, sizeof(float) * (size_t)(S * d)) != 0);
    free(th);
    free(lp);
    nc_close(id);
}

static void refusals(rx_ctx *const *runs, rx_ctx *other)
{
    char path[1200];
    rx_err err = {0};
    snprintf(path, sizeof path, "%s/none.nc", dir);
    CHECK(rx__write_inference((const rx_ctx *const *)runs, 0, path, &err) ==
          RX_EINVAL);
    CHECK_MSG(strstr(err.msg, "none.nc: no runs"), "%s", err.msg);
    const rx_ctx *mixed[2] = {runs[0], other};
    snprintf(path, sizeof path, "%s/mixed.nc", dir);
    CHECK(rx__write_inference(mixed, 2, path, &err) == RX_EINVAL);
    CHECK_MSG(strstr(err.msg, "mixed.nc: run 1 does not match run 0") &&
                  strstr(err.msg, "dimension 1 vs 2"),
              "%s", err.msg);
    CHECK(access(path, F_OK) != 0);
    snprintf(path, sizeof path, "%s/no/such/dir/x.nc", dir);
    CHECK(rx__write_inference(mixed, 1, path, &err) == RX_EIO);
    CHECK_MSG(strstr(err.msg, "no/such/dir/x.nc: cannot create: "),
              "%s", err.msg);
}

static void too_large(rx_ctx *const *runs)
{
    char path[1200], tmp[1300];
    rx_err err = {0};
    snprintf(path, sizeof path, "%s/big.nc", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    struct rlimit old, lim;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = 16384;
    signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    rx_status st = rx__write_inference((const rx_ctx *const *)runs, 3, path,
                                       &err);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    CHECK(st == RX_EIO);
    CHECK_MSG(strstr(err.msg, "big.nc: ") &&
                  strstr(err.msg, "File too large"),
              "%s", err.msg);
    CHECK(access(path, F_OK) != 0 && access(tmp, F_OK) != 0);
}

int main(void)
{
    const char *s = getenv("RX_SRCDIR");
    snprintf(src, sizeof src, "%s", s ? s : ".");
    snprintf(dir, sizeof dir, "/tmp/rx_test_inference_%ld", (long)getpid());
    if (mkdir(dir, 0777) != 0)
        return 1;
    rx_ctx *runs[3] = {run("gmm_2d.yaml", "seed=1"),
                       run("gmm_2d.yaml", "seed=2"),
                       run("gmm_2d.yaml", "seed=3")};
    rx_ctx *other = run("gmm_1d_two_modes.yaml", "seed=1");
    if (runs[0] && runs[1] && runs[2] && other) {
        three_chains(runs);
        refusals(runs, other);
        too_large(runs);
    }
    for (int i = 0; i < 3; ++i)
        rx_destroy(&runs[i]);
    rx_destroy(&other);
    char path[1200];
    snprintf(path, sizeof path, "%s/three.nc", dir);
    remove(path);
    rmdir(dir);
    return check_done();
}
