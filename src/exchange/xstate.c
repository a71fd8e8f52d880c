/*
 * What the exchange tests and the schedules' pair loops share below both:
 * the fresh energy noise of one comparison (xstate.h). The tests
 * (xtest.h) and the pair loops (exchange.c) call it; neither calls the
 * other.
 */
#include "../core/rng_inline.h"
#include "xstate.h"

void rx__pair_noise(const rx__xconf *xc, int a, int64_t k, double z[2])
{
    rx__stream s;
    rx__stream_init_inl(&s, xc->seed, (uint32_t)a, RX_STREAM_PAIRNOISE,
                        (uint64_t)k);
    s.normal = xc->normal;
    if (s.normal == RX_NORMAL_ZIGGURAT) { /* rx__normal, inlined */
        z[0] = rx__zig_normal_inl(&s);
        z[1] = rx__zig_normal_inl(&s);
    } else {
        z[0] = rx__normal(&s);
        z[1] = rx__normal(&s);
    }
}
