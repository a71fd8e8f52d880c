/*
 * The version macros of replex.h agree with each other, with the project
 * version meson passes in (RX_PROJECT_VERSION) and with rx_version() of
 * the shared library the test links, as an installed program would.
 */
#include <stdio.h>
#include <string.h>

#include "replex/replex.h"

static int failed;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    failed += !ok;
}

int main(void)
{
    char parts[64];
    snprintf(parts, sizeof parts, "%d.%d.%d", RX_VERSION_MAJOR,
             RX_VERSION_MINOR, RX_VERSION_PATCH);
    printf("RX_VERSION_STRING %s, MAJOR.MINOR.PATCH %s, NUMBER %d, "
           "rx_version() %s, project %s\n", RX_VERSION_STRING, parts,
           RX_VERSION_NUMBER, rx_version(), RX_PROJECT_VERSION);
    check(!strcmp(RX_VERSION_STRING, RX_PROJECT_VERSION),
          "RX_VERSION_STRING is the project version");
    check(!strcmp(parts, RX_VERSION_STRING),
          "MAJOR.MINOR.PATCH spell RX_VERSION_STRING");
    check(RX_VERSION_MINOR >= 0 && RX_VERSION_MINOR < 100 &&
              RX_VERSION_PATCH >= 0 && RX_VERSION_PATCH < 100,
          "MINOR and PATCH fit their two digits of RX_VERSION_NUMBER");
    check(RX_VERSION_NUMBER == RX_VERSION_MAJOR * 10000 +
                                   RX_VERSION_MINOR * 100 + RX_VERSION_PATCH,
          "RX_VERSION_NUMBER = MAJOR * 10000 + MINOR * 100 + PATCH");
#if RX_VERSION_NUMBER < 100
    check(0, "RX_VERSION_NUMBER usable in #if (>= 0.1.0)");
#endif
    check(!strcmp(rx_version(), RX_VERSION_STRING),
          "rx_version() of the library is RX_VERSION_STRING");
    printf("%d failed\n", failed);
    return failed ? 1 : 0;
}
