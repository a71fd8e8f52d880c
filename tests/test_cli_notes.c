/*
 * The notes of `replex run` (src/cli/progress.c): the library's info
 * messages are held in a short run and dropped, printed with -v, printed
 * (the held ones first) once the run is estimated to take RX_CLI_NOTE_S
 * or more; warnings always at once.
 */
#include <stdio.h>
#include <string.h>

#include "../src/cli/progress.h"
#include "check.h"

/* What pr printed so far (its file is rewound and read). */
static const char *printed(rx_cli_progress *pr)
{
    static char buf[4096];
    fflush(pr->f);
    long n = ftell(pr->f);
    rewind(pr->f);
    size_t got = fread(buf, 1, sizeof buf - 1, pr->f);
    buf[got] = '\0';
    fseek(pr->f, n, SEEK_SET);
    return buf;
}

static void fresh(rx_cli_progress *pr, int verbose)
{
    rx_cli_progress_init(pr, 0, 0, 10.0);
    pr->f = tmpfile();
    pr->tty = 0;
    pr->verbose = verbose;
}

int main(void)
{
    rx_cli_progress pr;
    fresh(&pr, 0);
    CHECK(pr.f != NULL);
    rx_cli_progress_log(&pr, RX_LOG_INFO, "threads waited");
    CHECK(printed(&pr)[0] == '\0'); /* held */
    rx_cli_progress_log(&pr, RX_LOG_WARN, "a warning");
    CHECK(!strcmp(printed(&pr), "replex: warning: a warning\n"));
    rx_cli_progress_estimate(&pr, 0.5, 1, 1000000); /* before 1 s */
    rx_cli_progress_estimate(&pr, 5.0, 600, 1000);  /* 8.3 s */
    CHECK(!strcmp(printed(&pr), "replex: warning: a warning\n"));
    rx_cli_progress_estimate(&pr, 1.0, 100, 1000); /* 10 s: long */
    CHECK(!strcmp(printed(&pr), "replex: warning: a warning\n"
                                "replex: info: threads waited\n"));
    rx_cli_progress_log(&pr, RX_LOG_INFO, "run done");
    CHECK(strstr(printed(&pr), "replex: info: run done\n") != NULL);
    fclose(pr.f);

    fresh(&pr, 1); /* -v: at once */
    rx_cli_progress_log(&pr, RX_LOG_INFO, "a note");
    CHECK(!strcmp(printed(&pr), "replex: info: a note\n"));
    fclose(pr.f);

    fresh(&pr, 0); /* more notes than are held: the first ones */
    for (int i = 0; i < RX_CLI_NOTES + 3; ++i) {
        char m[32];
        snprintf(m, sizeof m, "note %d", i);
        rx_cli_progress_log(&pr, RX_LOG_INFO, m);
    }
    rx_cli_progress_estimate(&pr, 20.0, 1, 2);
    const char *p = printed(&pr);
    CHECK(strstr(p, "replex: info: note 0\n") == p);
    CHECK(strstr(p, "note 7\n") != NULL && strstr(p, "note 8\n") == NULL);
    fclose(pr.f);
    return check_done();
}
