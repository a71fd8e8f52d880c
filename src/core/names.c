/*
 * "Did you mean ...?": the closest of a list of names to a misspelt one,
 * for the config loader's and the CLI's error messages.
 */
#include <string.h>

#include "internal.h"

/* Levenshtein distance; names longer than 63 characters count as far. */
static size_t lev(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t d[64][64];
    for (size_t i = 0; i <= la; ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; ++j)
        d[0][j] = j;
    for (size_t i = 1; i <= la; ++i)
        for (size_t j = 1; j <= lb; ++j) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            size_t x = d[i - 1][j] + 1, y = d[i][j - 1] + 1;
            d[i][j] = c < x ? (c < y ? c : y) : (x < y ? x : y);
        }
    return d[la][lb];
}

const char *rx__closest_name(const char *s, const char *const *names, int n)
{
    const char *best = NULL;
    size_t bd = 99;
    for (int i = 0; i < n; ++i) {
        size_t d = lev(s, names[i]);
        if (d < bd) {
            bd = d;
            best = names[i];
        }
    }
    size_t lim = strlen(s) / 3 + 1;
    if (lim < 2)
        lim = 2;
    return bd <= lim ? best : NULL;
}
