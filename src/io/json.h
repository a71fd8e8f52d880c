/*
 * The JSON writer of every output file (summary.json): strings escaped,
 * numbers finite or null with the reason beside them, so a strict parser
 * reads every file replex writes.
 */
#ifndef RX_IO_JSON_H
#define RX_IO_JSON_H

#include <stdio.h>

/* s as a JSON string: quotes, backslash and control characters escaped,
 * bytes that are not UTF-8 written as U+FFFD. NULL as "". */
void rx__json_str(FILE *f, const char *s);

/* v with printf format fmt (a double conversion; NULL: the shortest exact
 * form, rx__num), or null when it is NaN or infinite. Returns 1 when it
 * wrote null, else 0. */
int rx__json_num(FILE *f, const char *fmt, double v);

/* "key": v in its shortest exact form (rx__num); a non-finite v as
 * "key": null, "key_not_finite": "nan" (or "inf", "-inf"). */
void rx__json_kv(FILE *f, const char *key, double v);

/* "key": [v0, v1, ...] in the shortest exact form; non-finite elements
 * as null and then "key_not_finite": "N of n values are nan or
 * infinite". */
void rx__json_kvec(FILE *f, const char *key, const double *v, int n);

#endif
