/*
 * Every public function with NULL in each pointer argument it cannot
 * accept: it returns RX_EINVAL (with a message where the call has an
 * rx_err or a context to hold one) and does not crash. Void functions and
 * those documented NULL-safe must simply return. Each case runs in a
 * child process, so a crash is reported by name and does not hide the
 * cases after it.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replex/replex.h"
#include "check.h"

static char tmpdir[] = "/tmp/rx_api_null_XXXXXX";
static char ypath[256];

/* A small valid context (2-D mixture, 4 chains, 50 iterations). */
static rx_ctx *small_ctx(int run)
{
    rx_config c;
    rx_config_default(&c);
    c.iterations = 50;
    c.tempering.n_chains = 4;
    rx_ctx *x = NULL;
    rx_err e;
    rx_logger lg = {0};
    if (rx_create(&x, &c, NULL, lg, &e) != RX_OK) {
        fprintf(stderr, "small_ctx: %s\n", e.msg);
        exit(3);
    }
    rx_config_free(&c);
    if (run && rx_run(x) != RX_OK) {
        fprintf(stderr, "small_ctx: run: %s\n", rx_errmsg(x));
        exit(3);
    }
    return x;
}

/* Child outcomes: 0 as wanted, 1 a wrong status or no message. */
#define WANT_EINVAL(call, msgexpr)                                           \
    do {                                                                     \
        rx_status s_ = (call);                                               \
        const char *m_ = (msgexpr);                                          \
        if (s_ != RX_EINVAL) {                                               \
            fprintf(stderr, "  status %d, not RX_EINVAL\n", (int)s_);       \
            _exit(1);                                                        \
        }                                                                    \
        if (m_ && !m_[0]) {                                                  \
            fprintf(stderr, "  RX_EINVAL without a message\n");             \
            _exit(1);                                                        \
        }                                                                    \
        _exit(0);                                                            \
    } while (0)

static int ncase;

static void run_case(const char *name, void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fn();
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ncase++;
    if (WIFSIGNALED(st))
        CHECK_MSG(0, "%s: killed by signal %d", name, WTERMSIG(st));
    else
        CHECK_MSG(WEXITSTATUS(st) == 0, "%s: exit %d", name,
                  WEXITSTATUS(st));
}

static rx_err E;

/* ---- configuration ---- */
static void c_default(void) { rx_config_default(NULL); }
static void c_free(void) { rx_config_free(NULL); }
static void c_copy_nn(void) { WANT_EINVAL(rx_config_copy(NULL, NULL), NULL); }
static void c_copy_dst(void)
{
    rx_config c;
    rx_config_default(&c);
    WANT_EINVAL(rx_config_copy(NULL, &c), NULL);
}
static void c_copy_src(void)
{
    rx_config c;
    rx_config_default(&c);
    WANT_EINVAL(rx_config_copy(&c, NULL), NULL);
}
static void c_load_path(void)
{
    rx_config c;
    WANT_EINVAL(rx_config_load(NULL, NULL, 0, &c, &E), E.msg);
}
static void c_load_out(void)
{
    WANT_EINVAL(rx_config_load(ypath, NULL, 0, NULL, &E), E.msg);
}
static void c_load_sets(void)
{
    rx_config c;
    WANT_EINVAL(rx_config_load(ypath, NULL, 1, &c, &E), E.msg);
}
static void c_load_set_elem(void)
{
    rx_config c;
    WANT_EINVAL(rx_config_load(ypath, (const char *[]){NULL}, 1, &c, &E),
                E.msg);
}
static void c_load_err(void)
{
    rx_config c; /* a missing file with err NULL: an error, no crash */
    rx_status s = rx_config_load("/nonexistent/x.yaml", NULL, 0, &c, NULL);
    _exit(s == RX_OK);
}
static void s_load_path(void)
{
    rx_sweep s;
    WANT_EINVAL(rx_sweep_load(NULL, &s, &E), E.msg);
}
static void s_load_out(void) { WANT_EINVAL(rx_sweep_load(ypath, NULL, &E), E.msg); }
static void s_free(void) { rx_sweep_free(NULL); }
static void c_validate(void) { WANT_EINVAL(rx_config_validate(NULL, &E), E.msg); }
static void c_validate_err(void)
{
    rx_config c;
    rx_config_default(&c);
    c.iterations = -5; /* invalid, err NULL */
    _exit(rx_config_validate(&c, NULL) == RX_OK);
}
static void c_write_cfg(void)
{
    char p[300];
    snprintf(p, sizeof p, "%s/w.yaml", tmpdir);
    FILE *f = fopen(p, "w");
    if (f)
        fclose(f);
    WANT_EINVAL(rx_config_write(NULL, p, &E), E.msg);
}
static void c_write_path(void)
{
    rx_config c;
    rx_config_default(&c);
    WANT_EINVAL(rx_config_write(&c, NULL, &E), E.msg);
}
static void c_window(void) { _exit(rx_config_window(NULL) != 0); }

/* ---- contexts ---- */
static void x_create_out(void)
{
    rx_config c;
    rx_config_default(&c);
    rx_logger lg = {0};
    WANT_EINVAL(rx_create(NULL, &c, NULL, lg, &E), E.msg);
}
static void x_create_cfg(void)
{
    rx_ctx *x = (rx_ctx *)&x; /* must be set to NULL on failure */
    rx_logger lg = {0};
    rx_status s = rx_create(&x, NULL, NULL, lg, &E);
    if (x != NULL)
        _exit(1);
    WANT_EINVAL(s, E.msg);
}
static void x_create_cb(void)
{
    rx_config c;
    rx_config_default(&c);
    c.target.kind = RX_TARGET_CALLBACK;
    rx_ctx *x = NULL;
    rx_logger lg = {0};
    WANT_EINVAL(rx_create(&x, &c, NULL, lg, &E), E.msg);
}
static void x_progress(void)
{
    WANT_EINVAL(rx_set_progress(NULL, NULL, NULL, 1), NULL);
}
static void x_ckpt_enable_ctx(void)
{
    WANT_EINVAL(rx_checkpoint_enable(NULL, "/tmp/x", 1), NULL);
}
static void x_ckpt_enable_path(void)
{
    rx_ctx *x = small_ctx(0);
    WANT_EINVAL(rx_checkpoint_enable(x, NULL, 1), rx_errmsg(x));
}
static void x_ckpt_resume_ctx(void)
{
    WANT_EINVAL(rx_checkpoint_resume(NULL, "/tmp/x"), NULL);
}
static void x_ckpt_resume_path(void)
{
    rx_ctx *x = small_ctx(0);
    WANT_EINVAL(rx_checkpoint_resume(x, NULL), rx_errmsg(x));
}
static void x_stop_ctx(void)
{
    static volatile sig_atomic_t flag;
    WANT_EINVAL(rx_set_stop_flag(NULL, &flag), NULL);
}
static void x_run(void) { WANT_EINVAL(rx_run(NULL), NULL); }
static void x_destroy_nn(void) { rx_destroy(NULL); }
static void x_destroy_n(void)
{
    rx_ctx *x = NULL;
    rx_destroy(&x);
}
static void x_errmsg(void) { _exit(rx_errmsg(NULL) == NULL); }
static void x_results_ctx(void)
{
    rx_results r;
    WANT_EINVAL(rx_get_results(NULL, &r), NULL);
}
static void x_results_out(void)
{
    rx_ctx *x = small_ctx(1);
    WANT_EINVAL(rx_get_results(x, NULL), rx_errmsg(x));
}
static void x_rundir_ctx(void)
{
    WANT_EINVAL(rx_write_rundir(NULL, "/tmp/rx_never", 0, NULL), NULL);
}
static void x_rundir_dir(void)
{
    rx_ctx *x = small_ctx(1);
    WANT_EINVAL(rx_write_rundir(x, NULL, 0, NULL), rx_errmsg(x));
}
static void x_tv_ctx(void)
{
    double tv;
    WANT_EINVAL(rx_density_tv(NULL, &tv), NULL);
}
static void x_tv_out(void)
{
    rx_ctx *x = small_ctx(1);
    WANT_EINVAL(rx_density_tv(x, NULL), rx_errmsg(x));
}
static void x_grid_ctx(void)
{
    double a[4], b[4];
    WANT_EINVAL(rx_density_grid(NULL, a, b), NULL);
}
static void x_grid_p(void)
{
    rx_ctx *x = small_ctx(1);
    double b[2500];
    WANT_EINVAL(rx_density_grid(x, NULL, b), rx_errmsg(x));
}
static void x_grid_e(void)
{
    rx_ctx *x = small_ctx(1);
    double a[2500];
    WANT_EINVAL(rx_density_grid(x, a, NULL), rx_errmsg(x));
}
static void x_modes_ctx(void)
{
    double w[3];
    WANT_EINVAL(rx_mode_weights(NULL, w, 3), NULL);
}
static void x_modes_out(void)
{
    rx_ctx *x = small_ctx(1);
    WANT_EINVAL(rx_mode_weights(x, NULL, 25), rx_errmsg(x));
}
static void m_build_info(void) { rx_build_info(NULL, 64); }
static const double draws8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static void d_ess_x(void)
{
    rx_ess_info e;
    rx_err err = {""};
    WANT_EINVAL(rx_ess(NULL, 1, 8, &e, &err), err.msg);
}
static void d_ess_out(void)
{
    rx_err err = {""};
    WANT_EINVAL(rx_ess(draws8, 1, 8, NULL, &err), err.msg);
}
static void d_rhat_x(void)
{
    double r;
    rx_err err = {""};
    WANT_EINVAL(rx_rhat(NULL, 2, 4, &r, &err), err.msg);
}
static void d_rhat_out(void)
{
    rx_err err = {""};
    WANT_EINVAL(rx_rhat(draws8, 2, 4, NULL, &err), err.msg);
}
static void d_ess_err(void) /* err may be NULL */
{
    rx_ess_info e;
    WANT_EINVAL(rx_ess(NULL, 1, 8, &e, NULL), NULL);
}
static void d_barrier_pairs(void)
{
    double l;
    rx_err err = {""};
    WANT_EINVAL(rx_comm_barrier(NULL, 1, &l, NULL, &err), err.msg);
}
static void d_barrier_out(void)
{
    rx_pair_stats p = {0};
    rx_err err = {""};
    WANT_EINVAL(rx_comm_barrier(&p, 1, NULL, NULL, &err), err.msg);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 2;
    snprintf(ypath, sizeof ypath, "%s/e.yaml", tmpdir);
    FILE *f = fopen(ypath, "w");
    if (!f)
        return 2;
    fputs("iterations: 10\n", f);
    fclose(f);

    static const struct {
        const char *name;
        void (*fn)(void);
    } cases[] = {
        {"rx_config_default(NULL)", c_default},
        {"rx_config_free(NULL)", c_free},
        {"rx_config_copy(NULL, NULL)", c_copy_nn},
        {"rx_config_copy(NULL, src)", c_copy_dst},
        {"rx_config_copy(dst, NULL)", c_copy_src},
        {"rx_config_load(NULL path)", c_load_path},
        {"rx_config_load(NULL out)", c_load_out},
        {"rx_config_load(sets NULL, n_sets 1)", c_load_sets},
        {"rx_config_load(sets {NULL}, 1)", c_load_set_elem},
        {"rx_config_load(err NULL, missing file)", c_load_err},
        {"rx_sweep_load(NULL path)", s_load_path},
        {"rx_sweep_load(NULL out)", s_load_out},
        {"rx_sweep_free(NULL)", s_free},
        {"rx_config_validate(NULL)", c_validate},
        {"rx_config_validate(bad, err NULL)", c_validate_err},
        {"rx_config_write(NULL cfg)", c_write_cfg},
        {"rx_config_write(NULL path)", c_write_path},
        {"rx_config_window(NULL)", c_window},
        {"rx_create(NULL out)", x_create_out},
        {"rx_create(NULL cfg)", x_create_cfg},
        {"rx_create(callback target, NULL cb)", x_create_cb},
        {"rx_set_progress(NULL ctx)", x_progress},
        {"rx_checkpoint_enable(NULL ctx)", x_ckpt_enable_ctx},
        {"rx_checkpoint_enable(NULL path)", x_ckpt_enable_path},
        {"rx_checkpoint_resume(NULL ctx)", x_ckpt_resume_ctx},
        {"rx_checkpoint_resume(NULL path)", x_ckpt_resume_path},
        {"rx_set_stop_flag(NULL ctx)", x_stop_ctx},
        {"rx_run(NULL)", x_run},
        {"rx_destroy(NULL)", x_destroy_nn},
        {"rx_destroy(&NULL)", x_destroy_n},
        {"rx_errmsg(NULL)", x_errmsg},
        {"rx_get_results(NULL ctx)", x_results_ctx},
        {"rx_get_results(NULL out)", x_results_out},
        {"rx_write_rundir(NULL ctx)", x_rundir_ctx},
        {"rx_write_rundir(NULL dir)", x_rundir_dir},
        {"rx_density_tv(NULL ctx)", x_tv_ctx},
        {"rx_density_tv(NULL out)", x_tv_out},
        {"rx_density_grid(NULL ctx)", x_grid_ctx},
        {"rx_density_grid(NULL ptrue)", x_grid_p},
        {"rx_density_grid(NULL pemp)", x_grid_e},
        {"rx_mode_weights(NULL ctx)", x_modes_ctx},
        {"rx_mode_weights(NULL est)", x_modes_out},
        {"rx_build_info(NULL, 64)", m_build_info},
        {"rx_ess(NULL x)", d_ess_x},
        {"rx_ess(NULL out)", d_ess_out},
        {"rx_ess(NULL x, err NULL)", d_ess_err},
        {"rx_rhat(NULL x)", d_rhat_x},
        {"rx_rhat(NULL out)", d_rhat_out},
        {"rx_comm_barrier(NULL pairs)", d_barrier_pairs},
        {"rx_comm_barrier(NULL lambda)", d_barrier_out},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        run_case(cases[i].name, cases[i].fn);
    printf("%d cases\n", ncase);
    remove(ypath);
    char p[300];
    snprintf(p, sizeof p, "%s/w.yaml", tmpdir);
    remove(p);
    rmdir(tmpdir);
    return check_done();
}
