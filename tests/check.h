/*
 * Minimal test helpers: CHECK(cond), CHECK_NEAR(a, b, tol) and a summary
 * line "N passed, M failed". A test program returns check_done().
 */
#ifndef RX_TEST_CHECK_H
#define RX_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_pass_, check_fail_;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond) {                                                          \
            check_pass_++;                                                   \
        } else {                                                             \
            check_fail_++;                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

#define CHECK_MSG(cond, ...)                                                 \
    do {                                                                     \
        if (cond) {                                                          \
            check_pass_++;                                                   \
        } else {                                                             \
            check_fail_++;                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, \
                    #cond);                                                  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                \
    do {                                                                     \
        double a_ = (double)(a), b_ = (double)(b);                           \
        if (fabs(a_ - b_) <= (tol)) {                                        \
            check_pass_++;                                                   \
        } else {                                                             \
            check_fail_++;                                                   \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.10g, %s = "    \
                    "%.10g, tol %.3g\n", __FILE__, __LINE__, #a, a_, #b, b_, \
                    (double)(tol));                                          \
        }                                                                    \
    } while (0)

static inline int check_done(void)
{
    printf("%d passed, %d failed\n", check_pass_, check_fail_);
    return check_fail_ ? 1 : 0;
}

#endif
