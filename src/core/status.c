/*
 * Status text, formatted error messages, the per-context log sink, clock.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include "internal.h"

const char *rx_strerror(rx_status s)
{
    switch (s) {
    case RX_OK: return "success";
    case RX_ENOMEM: return "out of memory";
    case RX_EINVAL: return "invalid argument";
    case RX_ECONFIG: return "invalid configuration";
    case RX_EIO: return "input/output error";
    case RX_ENUMERIC: return "non-finite energy or gradient";
    case RX_EBLAS: return "BLAS failure";
    case RX_ENOTSUP: return "not supported";
    case RX_EABORTED: return "aborted by callback";
    case RX_ECALLBACK: return "user callback failed";
    case RX_EDATA: return "malformed data";
    }
    return "unknown status";
}

void rx__err_vappend(rx_err *err, int w, const char *fmt, va_list ap)
{
    if (w < 0)
        w = 0;
    if ((size_t)w < sizeof err->msg)
        vsnprintf(err->msg + w, sizeof err->msg - (size_t)w, fmt, ap);
}

rx_status rx__fail(rx_err *err, rx_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}

void rx__logf(const rx_logger *lg, int level, const char *fmt, ...)
{
    if (!lg || !lg->fn)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    lg->fn(lg->user, level, buf);
}

double rx__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double rx__thread_cpu(void)
{
#if defined(CLOCK_THREAD_CPUTIME_ID)
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
    return rx__now();
}

const char *rx_version(void) { return RX_VERSION_STRING; }
