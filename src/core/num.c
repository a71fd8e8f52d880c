/*
 * Shortest exact decimal form of a double (src/core/num.h).
 */
#include "num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *rx__num(char *buf, size_t cap, double v)
{
    if (!buf || cap == 0)
        return buf;
    if (isnan(v)) {
        snprintf(buf, cap, "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, cap, v > 0 ? "inf" : "-inf");
        return buf;
    }
    /* 17 significant digits always read back exactly (IEEE binary64);
     * fewer often do: take the first precision p that does */
    int p = 1;
    for (; p < 17; ++p) {
        snprintf(buf, cap, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    /* %g writes 30 with p = 1 as 3e+01: below 1e16 give it the digits of
     * its integer part (e + 1), which %g writes without an exponent */
    char e[RX_NUM_CHARS];
    snprintf(e, sizeof e, "%.*e", p - 1, v);
    const char *x = strchr(e, 'e');
    const int ex = x ? atoi(x + 1) : 0;
    if (ex >= -4 && ex < 16 && ex + 1 > p)
        p = ex + 1;
    snprintf(buf, cap, "%.*g", p, v);
    return buf;
}
