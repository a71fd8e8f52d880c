/*
 * yaml/uci_boston.yaml loaded from the source tree (RX_SRCDIR, else ..)
 * with up to 31 --set overrides, its data path made absolute so that a
 * test runs from any directory. Returns RX_OK or the loader's status.
 */
#ifndef RX_TEST_UCI_BOSTON_H
#define RX_TEST_UCI_BOSTON_H

#include <stdio.h>
#include <stdlib.h>

#include "replex/replex.h"

static rx_status load_boston(const char *const *sets, int n, rx_config *c,
                             rx_err *err)
{
    char path[4096], data[4200];
    const char *all[32];
    const char *src = getenv("RX_SRCDIR");
    if (n > 31)
        return RX_EINVAL;
    snprintf(path, sizeof path, "%s/yaml/uci_boston.yaml", src ? src : "..");
    snprintf(data, sizeof data, "data.path=%s/data/uci/boston_house_prices.csv",
             src ? src : "..");
    for (int i = 0; i < n; ++i)
        all[i] = sets[i];
    all[n] = data;
    return rx_config_load(path, all, n + 1, c, err);
}

#endif
