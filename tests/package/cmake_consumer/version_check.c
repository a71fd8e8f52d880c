/* Built by tests/package/cmake_consumer: replex.h, libreplex.so and the
 * CMake package found by find_package(replex) carry one version. */
#include <stdio.h>
#include <string.h>

#include <replex/replex.h>

int main(void)
{
    printf("package %s, RX_VERSION_STRING %s, rx_version() %s\n",
           PACKAGE_VERSION, RX_VERSION_STRING, rx_version());
    return strcmp(PACKAGE_VERSION, RX_VERSION_STRING) ||
           strcmp(RX_VERSION_STRING, rx_version());
}
