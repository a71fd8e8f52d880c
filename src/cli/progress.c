/*
 * Progress display and interrupt handling of `replex run`. The display is
 * the library's progress callback (rx_set_progress): thread 0 calls it
 * every `every` iterations (by default paced by time) while the other
 * threads wait, so it only reads the clock and prints when a line is due.
 * The SIGINT/SIGTERM handlers only set a flag; the callback returns
 * RX_EABORTED when it is set, so a run stops between iterations and rx_run
 * returns normally.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "progress.h"

/* The callback's period, unless --progress-every gives one: 0, the
 * library's pacing by time (about every 5 ms of iterations, at most 4096
 * apart, every iteration on a slower target), so interrupts are seen
 * within milliseconds on any target; under the partner design the
 * callback then rides on the full barriers the engine makes anyway (a
 * fixed 64 had added one every 64 iterations). Printing is paced by the
 * clock, not by this. */
#define AUTO_EVERY 0
#define TTY_REDRAW_S 0.2

static volatile sig_atomic_t g_signal;
static struct sigaction g_old_int, g_old_term;
static int g_installed;

static void on_signal(int sig) { g_signal = sig; }

int rx_cli_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* writes and waits after the run go on */
    g_signal = 0;
    if (sigaction(SIGINT, &sa, &g_old_int) != 0)
        return -1;
    if (sigaction(SIGTERM, &sa, &g_old_term) != 0) {
        sigaction(SIGINT, &g_old_int, NULL);
        return -1;
    }
    g_installed = 1;
    return 0;
}

void rx_cli_signals_restore(void)
{
    if (!g_installed)
        return;
    sigaction(SIGINT, &g_old_int, NULL);
    sigaction(SIGTERM, &g_old_term, NULL);
    g_installed = 0;
}

int rx_cli_interrupted(void) { return (int)g_signal; }

volatile sig_atomic_t *rx_cli_signal_flag(void) { return &g_signal; }

void rx_cli_progress_init(rx_cli_progress *pr, int quiet, int64_t every,
                          double interval)
{
    memset(pr, 0, sizeof *pr);
    pr->f = stderr;
    pr->tty = isatty(fileno(stderr));
    pr->quiet = quiet;
    pr->every = every > 0 ? every : AUTO_EVERY;
    pr->interval = interval >= 0 ? interval : 10.0;
    pr->label = "run";
}

/* "312", "31.2k", "5.01M": three significant digits and an SI suffix. */
static void si(char *b, size_t cap, double v)
{
    static const char suf[] = " kMGT";
    int i = 0;
    while (v >= 999.5 && i < 4) {
        v /= 1000.0;
        ++i;
    }
    if (i == 0)
        snprintf(b, cap, "%.0f", v);
    else
        snprintf(b, cap, "%.*f%c", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v,
                 suf[i]);
}

/* "0:07", "12:34", "3:25:07"; "?" when unknown. */
static void hms(char *b, size_t cap, double s)
{
    if (!(s >= 0.0) || s > 1e8) {
        snprintf(b, cap, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(b, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(b, cap, "%ld:%02ld", t / 60, t % 60);
}

static int term_cols(FILE *f)
{
    struct winsize ws;
    if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

static void draw_tty(rx_cli_progress *pr, const rx_progress *p, double rate,
                     double eta)
{
    char r[16], cs[16], e[24], txt[200];
    si(r, sizeof r, rate);
    si(cs, sizeof cs, rate * pr->P);
    hms(e, sizeof e, eta);
    double frac = p->iterations > 0
                      ? (double)p->iteration / (double)p->iterations
                      : 1.0;
    char ki[24], kk[24]; /* exact below 100000, "527k/600k" above */
    if (p->iterations >= 100000) {
        si(ki, sizeof ki, (double)p->iteration);
        si(kk, sizeof kk, (double)p->iterations);
    } else {
        snprintf(ki, sizeof ki, "%lld", (long long)p->iteration);
        snprintf(kk, sizeof kk, "%lld", (long long)p->iterations);
    }
    int n = snprintf(txt, sizeof txt,
                     " %5.1f%% %s/%s  %s it/s  %s steps/s  ETA %s  "
                     "trips %lld  acc %.3f",
                     100.0 * frac, ki, kk, r, cs, e, (long long)p->trips_a5,
                     p->mean_accept);
    if (n < 0)
        return;
    int cols = term_cols(pr->f) - 1; /* never wrap: \r must reach column 0 */
    char bar[48] = "";
    int lab = (int)strlen(pr->label) + 1;
    if (lab + n > cols) { /* narrow terminal: single spaces */
        int j = 0;
        for (int i = 0; txt[i]; ++i)
            if (!(txt[i] == ' ' && txt[i + 1] == ' ' && i > 0))
                txt[j++] = txt[i];
        txt[j] = '\0';
        n = j;
    }
    int room = cols - lab - n - 3;
    int bw = room > 30 ? 30 : room;
    if (bw >= 10) {
        int full = (int)(frac * bw + 1e-9);
        bar[0] = ' ';
        bar[1] = '[';
        for (int i = 0; i < bw; ++i)
            bar[2 + i] = i < full ? '#' : '.';
        bar[2 + bw] = ']';
        bar[3 + bw] = '\0';
    }
    char line[300];
    snprintf(line, sizeof line, "%s%s%s", pr->label, bar, txt);
    if ((int)strlen(line) > cols && cols > 0)
        line[cols] = '\0';
    fprintf(pr->f, "\r%s\033[K", line);
    fflush(pr->f);
    pr->line_open = 1;
}

static void plain_line(rx_cli_progress *pr, const rx_progress *p, double rate,
                       double eta)
{
    char r[16], cs[16], e[24];
    si(r, sizeof r, rate);
    si(cs, sizeof cs, rate * pr->P);
    hms(e, sizeof e, eta);
    double frac = p->iterations > 0
                      ? (double)p->iteration / (double)p->iterations
                      : 1.0;
    fprintf(pr->f,
            "replex: %s: %.0f%% (%lld/%lld iterations), %s it/s, %s "
            "chain-steps/s, ETA %s, round trips %lld, mean acceptance "
            "%.3f\n",
            pr->label, 100.0 * frac, (long long)p->iteration,
            (long long)p->iterations, r, cs, e, (long long)p->trips_a5,
            p->mean_accept);
    fflush(pr->f);
    pr->printed++;
}

static const char *const LEVELS[] = {"error", "warning", "info", "debug"};

static void print_note(rx_cli_progress *pr, int level, const char *msg)
{
    rx_cli_progress_break(pr);
    fprintf(pr->f, "replex: %s: %s\n", LEVELS[level & 3], msg);
}

void rx_cli_progress_log(void *user, int level, const char *msg)
{
    rx_cli_progress *pr = user;
    if (level <= RX_LOG_WARN || pr->verbose || pr->long_run) {
        print_note(pr, level, msg);
    } else if (pr->nnotes < RX_CLI_NOTES) {
        /* the level rides in the first byte, the text after it */
        char *n = pr->notes[pr->nnotes++];
        n[0] = (char)('0' + (level & 3));
        snprintf(n + 1, sizeof pr->notes[0] - 1, "%s", msg);
    }
}

void rx_cli_progress_estimate(rx_cli_progress *pr, double t, int64_t k,
                              int64_t K)
{
    if (pr->long_run || k <= 0 || t < 1.0 ||
        t * (double)K / (double)k < RX_CLI_NOTE_S)
        return;
    pr->long_run = 1;
    for (int i = 0; i < pr->nnotes; ++i)
        print_note(pr, pr->notes[i][0] - '0', pr->notes[i] + 1);
    pr->nnotes = 0;
}

static rx_status on_progress(void *user, const rx_progress *p)
{
    rx_cli_progress *pr = user;
    pr->seen_k = p->iteration;
    if (g_signal && !pr->engine_stops)
        return RX_EABORTED;
    double t = p->elapsed_s;
    rx_cli_progress_estimate(pr, t, p->iteration, p->iterations);
    if (pr->quiet)
        return RX_OK;
    int done = p->iteration >= p->iterations;
    double rate = t > 0 ? (double)p->iteration / t : 0.0;
    double eta = rate > 0 ? (double)(p->iterations - p->iteration) / rate
                          : -1.0;
    if (pr->tty) {
        if (done || t - pr->last_t >= TTY_REDRAW_S) {
            draw_tty(pr, p, rate, eta);
            pr->last_t = t;
            if (done)
                rx_cli_progress_break(pr);
        }
        return RX_OK;
    }
    /* plain: every tenth of the run and at least `interval` seconds apart,
     * whichever is rarer; a last line if any was printed */
    int64_t tenth = (p->iterations + 9) / 10;
    if (done ? pr->printed > 0
             : p->iteration - pr->last_k >= tenth &&
                   t - pr->last_t >= pr->interval) {
        plain_line(pr, p, rate, eta);
        pr->last_t = t;
        pr->last_k = p->iteration;
    }
    return RX_OK;
}

rx_status rx_cli_progress_attach(rx_cli_progress *pr, rx_ctx *ctx,
                                 const char *label, int64_t K, int P)
{
    (void)K;
    pr->label = label ? label : "run";
    pr->P = P;
    pr->line_open = 0;
    pr->printed = 0;
    pr->last_t = 0.0;
    pr->last_k = 0;
    pr->seen_k = 0;
    pr->long_run = 0;
    return rx_set_progress(ctx, on_progress, pr, pr->every);
}

void rx_cli_progress_break(rx_cli_progress *pr)
{
    if (pr && pr->line_open) {
        fputc('\n', pr->f);
        fflush(pr->f);
        pr->line_open = 0;
    }
}
