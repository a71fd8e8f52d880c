/* The public header compiles on its own and as the first include. */
#include "replex/replex.h"

int main(void)
{
    rx_config c;
    rx_config_default(&c);
    int ok = c.tempering.n_chains == 16 && rx_version()[0] != '\0';
    rx_config_free(&c);
    return ok ? 0 : 1;
}
