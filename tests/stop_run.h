/*
 * Test helper: a run that stops after a given iteration (the stop flag
 * raised from the progress callback, so a checkpoint is written there),
 * optionally resumed from a checkpoint; used by the resume tests.
 */
#ifndef RX_TEST_STOP_RUN_H
#define RX_TEST_STOP_RUN_H

#include <signal.h>
#include <stdint.h>

#include "replex/replex.h"
#include "check.h"

typedef struct stopper {
    volatile sig_atomic_t flag;
    int64_t at;
} stopper;

/* Progress callback: raise the stop flag once iteration s->at is done. */
static inline rx_status raise_flag(void *user, const rx_progress *p)
{
    stopper *s = user;
    if (p->iteration >= s->at)
        s->flag = 1;
    return RX_OK;
}

/* A context for `base` on `threads` threads, resumed from `from` (NULL:
 * a fresh run), writing the checkpoint `ck` (NULL: none), stopped after
 * iteration `stop_at` (-1: run to the end; s must outlive the context),
 * and run. *st: the first failing call's status, else rx_run's. Returns
 * the context (the caller reads it and destroys it), NULL if rx_create
 * failed. */
static inline rx_ctx *stop_run(const rx_config *base, int threads,
                               const char *from, int64_t stop_at,
                               const char *ck, stopper *s, rx_status *st)
{
    rx_config cfg;
    rx_config_default(&cfg);
    rx_config_copy(&cfg, base);
    cfg.threads = threads;
    rx_ctx *c = NULL;
    rx_err err = {0};
    *st = rx_create(&c, &cfg, NULL, (rx_logger){0}, &err);
    rx_config_free(&cfg);
    CHECK_MSG(*st == RX_OK, "rx_create: %s", err.msg);
    if (*st != RX_OK)
        return NULL;
    s->flag = 0;
    s->at = stop_at;
    if (from) {
        *st = rx_checkpoint_resume(c, from);
        CHECK_MSG(*st == RX_OK, "resume %s: %s", from, rx_errmsg(c));
    }
    if (*st == RX_OK && ck)
        *st = rx_checkpoint_enable(c, ck, 0);
    if (*st == RX_OK && stop_at >= 0) {
        rx_set_stop_flag(c, &s->flag);
        rx_set_progress(c, raise_flag, s, 1);
    }
    if (*st == RX_OK)
        *st = rx_run(c);
    return c;
}

#endif
