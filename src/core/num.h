/*
 * The one way replex prints a double for a reader: the shortest "%.{p}g"
 * (p = 1..17) that reads back to the same double, so 0.003 prints as
 * "0.003", not "0.0030000000000000001", and nothing is lost (the written
 * config reloads to the same bits). Numbers from 1e-4 to below 1e16 come
 * without an exponent (30, not 3e+01: p is raised to the digits of the
 * integer part). Used by the resolved config.yaml,
 * summary.json, validation messages and the CLI.
 */
#ifndef RX_CORE_NUM_H
#define RX_CORE_NUM_H

#include <stddef.h>

/* Enough for any double in "%.17g": sign, 17 digits, point, e-308. */
enum { RX_NUM_CHARS = 32 };

/* v in its shortest exact form into buf (cap >= RX_NUM_CHARS is always
 * enough); "nan", "inf", "-inf" for those. Returns buf. */
char *rx__num(char *buf, size_t cap, double v);

/* rx__num into a temporary buffer that lives to the end of the enclosing
 * full expression's block: printf("%s", RX_NUM(x)). */
#define RX_NUM(v) rx__num((char[RX_NUM_CHARS]){0}, RX_NUM_CHARS, (v))

#endif
