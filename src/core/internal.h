/*
 * Internal core: aligned memory, Philox4x32-10 streams, errors, logging,
 * clock. Depends on nothing else in the library; no threads, no files.
 */
#ifndef RX_CORE_INTERNAL_H
#define RX_CORE_INTERNAL_H

#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "replex/replex.h"

#ifndef RX_CACHELINE
#define RX_CACHELINE 64
#endif

#define RX_UNUSED(x) ((void)(x))

/* ---- memory -------------------------------------------------------------*/
/* size is rounded up to a multiple of align (C11 aligned_alloc rule).
 * Returns NULL on failure or size 0. */
void *rx__alloc_aligned(size_t size, size_t align);
void *rx__calloc_aligned(size_t size, size_t align);
void rx__free_aligned(void *p);
/* The memory this process may use: physical memory, or the address-space
 * limit (ulimit -v) when lower; 0 when unknown. */
double rx__mem_limit_bytes(void);

/* ---- Philox4x32-10 ------------------------------------------------------*/
typedef struct rx__u32x4 {
    uint32_t v[4];
} rx__u32x4;

rx__u32x4 rx__philox4x32_10(rx__u32x4 ctr, uint32_t k0, uint32_t k1);

/* Purposes (stream ids) folded into the counter. */
enum {
    RX_STREAM_INIT = 1,     /* initial particles                      */
    RX_STREAM_STEP = 2,     /* Langevin noise of a step               */
    RX_STREAM_GRADNOISE = 3,/* injected gradient noise                */
    RX_STREAM_ENERGYNOISE = 4, /* injected energy noise               */
    RX_STREAM_SWAP = 5,     /* per-pair uniforms of the swap rule     */
    RX_STREAM_SCHED = 6,    /* schedule coins (SEO, APE pair choice)  */
    RX_STREAM_PAIRNOISE = 7,/* fresh energy noise per comparison      */
    RX_STREAM_VARIANCE = 8, /* repeated energies of a sigma^2 estimate */
    RX_STREAM_DATA = 9,     /* train/test split permutations          */
    RX_STREAM_BATCH = 10,   /* minibatch permutations, per epoch      */
    RX_STREAM_MODELINIT = 11, /* network weight initialisation        */
    RX_STREAM_ESTIMATE = 12,/* control-variate anchor subsamples      */
    RX_STREAM_STATE = 13,   /* a step rule's fresh random state (init,
                               reset on a move), apart from the step
                               stream, whose draws may be drawn ahead */
    RX_STREAM_RESAMPLE = 14,/* resampling of weighted samples         */
    RX_STREAM_REPLICATE = 15,/* the seeds of replicate runs           */
    RX_STREAM_XTEST = 16,   /* an exchange test's own draws for one
                               comparison, beside its uniform (the
                               noise-aware test's top-up noise)       */
    RX_STREAM_LABELS = 17   /* label noise: the rows whose training
                               labels an epoch permutes, and how      */
};

/*
 * A stream is f(seed, entity, purpose, iteration, block): pure, no state
 * but the block counter. Counter words: c0 = block, c1 = k low 32 bits,
 * c2 = (k >> 32) & 0xffffff | purpose << 24, c3 = entity (particle or
 * pair id). Key = 64-bit seed. Output depends on nothing else.
 */
typedef struct rx__stream {
    uint32_t key0, key1;
    uint32_t c1, c2, c3;
    uint32_t block;
    int have_raw;     /* raw[0..1] hold two unused words     */
    int have_spare;   /* spare holds the second Box-Muller normal */
    int normal;       /* RX_NORMAL_BOX_MULLER (0) or RX_NORMAL_ZIGGURAT */
    uint32_t raw[2];
    double spare;
} rx__stream;

void rx__stream_init(rx__stream *s, uint64_t seed, uint32_t entity,
                     uint32_t purpose, uint64_t k);
/* Uniform on (0,1), 53-bit resolution, never 0 or 1. */
double rx__uniform(rx__stream *s);
/* Standard normal. s->normal selects the method (rx__stream_init sets
 * Box-Muller; set s->normal after it for the ziggurat):
 *  - RX_NORMAL_BOX_MULLER: Box-Muller on pairs of 32-bit uniforms (one
 *    Philox block gives two pairs, each pair two normals, transformed
 *    lazily);
 *  - RX_NORMAL_ZIGGURAT: a 256-layer ziggurat on 64-bit words (one Philox
 *    block gives two words; about 1.2 % of the draws take more words for
 *    the wedge or the tail). Exact, like Box-Muller; not the same numbers. */
double rx__normal(rx__stream *s);
/* out[0..n-1]: the next n draws of rx__normal(s), bitwise, and the stream
 * left where n calls would leave it. From 8 draws on, the Philox blocks
 * are computed RX__GROUP at a time with AVX-512F or AVX2 where the CPU has
 * them (integer arithmetic: the same words on every CPU). */
void rx__normal_fill(rx__stream *s, double *out, size_t n);
/* Testing: the same with a given block implementation (0 scalar, 1 AVX2,
 * 2 AVX-512F), which must be available. */
#define RX__GROUP 16
/* Below this many draws rx__normal_fill draws one at a time (callers with
 * fewer may as well call rx__normal themselves: no chunk loop, no call). */
#define RX__FILL_MIN 8
void rx__normal_fill_impl(int impl, rx__stream *s, double *out, size_t n);
int rx__blocks_impl_available(int impl);
/* Blocks first .. first+nb-1 (nb <= RX__GROUP) of stream s, word j of
 * block l at w[j][l]. */
void rx__philox_group(int impl, const rx__stream *s, uint32_t first,
                      int nb, uint32_t w[4][RX__GROUP]);
/* Four uniforms on (0,1), 32-bit resolution, from block `block` of the
 * stream (seed, entity, purpose, k): a pure function, no state. */
void rx__uniform4(uint64_t seed, uint32_t entity, uint32_t purpose,
                  uint64_t k, uint32_t block, double out[4]);
/* Integer uniform on [0, n), n >= 1 (rejection-free 64-bit multiply). */
uint64_t rx__uniform_int(rx__stream *s, uint64_t n);

/* ---- names --------------------------------------------------------------*/
/* The closest of `names` to s (edit distance at most max(2, |s|/3 + 1)),
 * or NULL: the "did you mean" of error messages. */
const char *rx__closest_name(const char *s, const char *const *names, int n);

/* ---- errors / logging ---------------------------------------------------*/
/* The message after a located prefix of w bytes already in err->msg (w
 * as snprintf returned it): fmt and ap appended where they fit. */
void rx__err_vappend(rx_err *err, int w, const char *fmt, va_list ap);
/* Formats into err (if not NULL) and returns st. */
rx_status rx__fail(rx_err *err, rx_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void rx__logf(const rx_logger *lg, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- clock ---------------------------------------------------------------*/
double rx__now(void); /* monotonic seconds */
/* CPU seconds of the calling thread (where the system has the clock, else
 * rx__now()): time the thread was descheduled does not count */
double rx__thread_cpu(void);

/* ---- machine load (benchmarks) -----------------------------------------*/
/* A snapshot for measuring the CPU time other processes (or the host, as
 * steal time) take: the machine's busy + steal CPU seconds from Linux's
 * /proc/stat and this process's own user + system seconds; ok = 0 where
 * /proc/stat or getrusage is missing. /proc/stat counts clock ticks
 * (10 ms), so differences mean something over a second or more. */
typedef struct rx__load_snap {
    int ok;
    double t;    /* rx__now() */
    double busy; /* the machine's busy + steal CPU seconds */
    double own;  /* this process's user + system CPU seconds */
    double steal; /* the machine's steal CPU seconds (in busy) */
} rx__load_snap;
rx__load_snap rx__load_now(void);
/* The part of `threads` threads' time that the host gave to other guests
 * between a and b (steal seconds of all CPUs / (wall seconds x threads));
 * -1 when unknown (no /proc/stat, a span of 0). Machine-wide: other
 * processes' stolen time counts too, so it can exceed 1 on a busy
 * machine. Clock ticks of 10 ms: coarse below a second or so. */
double rx__steal_share(const rx__load_snap *a, const rx__load_snap *b,
                       int threads);

#endif
