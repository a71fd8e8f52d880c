/*
 * The help of `replex` and of its commands (src/cli/help.h): one row per
 * command, the texts every command's help ends with.
 */
#include "help.h"

#include <string.h>

static const rx_cli_cmd_help CMDS[] = {
    {"run", "FILE.yaml [options]",
     "run an experiment (or every run of its sweep:) into a directory",
     "options:\n"
     "  -o, --out DIR          the run directory (default runs/<FILE without\n"
     "                         .yaml>); it must not exist unless --force\n"
     "  --threads N            OpenMP threads, 0 = all CPUs (default: the\n"
     "                         file's `threads`, itself 0); results do not\n"
     "                         depend on it\n"
     "  --set key.path=value   override one key, repeatable (default none);\n"
     "                         `replex keys` lists the keys\n"
     "  --force                replace an existing DIR that replex wrote\n"
     "                         (it holds a .replex file; default off)\n"
     "  --resume DIR           continue the interrupted run of DIR from\n"
     "                         DIR.partial/checkpoint.bin (no FILE.yaml)\n"
     "  -q, --quiet            print nothing but errors: no progress, no\n"
     "                         log, no summary (default off)\n"
     "  -v, --verbose          also print the run's notes (thread\n"
     "                         efficiency, BLAS kernels, the DEO* window;\n"
     "                         default: only when the run is estimated to\n"
     "                         take 10 s or more)\n"
     "  --no-plots             do not draw DIR/plots with gnuplot (default:\n"
     "                         drawn when gnuplot is on PATH)\n"
     "  --progress-every N     check progress and interrupts every N\n"
     "                         iterations (default: about every 5 ms of\n"
     "                         iterations); 0 = no progress display\n"
     "                         (interrupts are still seen)\n"
     "  --progress-interval S  when stderr is not a terminal, progress lines\n"
     "                         come every tenth of the run but at least S\n"
     "                         seconds apart (default 10)\n"
     "  -h, --help             this help\n"
     "\n"
     "Progress goes to stderr: one self-updating line on a terminal\n"
     "(iteration, percent, it/s, chain-steps/s, ETA, round trips, mean swap\n"
     "acceptance), plain lines otherwise. The run directory is written under\n"
     "a temporary name and renamed when complete. Ctrl-C (SIGINT) or SIGTERM\n"
     "stops the run after the current iteration and exits 1; with\n"
     "checkpoint.every > 0 the state is first written to DIR.partial/\n"
     "(also every checkpoint.every iterations), and\n"
     "  replex run --resume DIR [--threads N]\n"
     "continues to the same results as an uninterrupted run.\n"},
    {"validate", "FILE.yaml [options]",
     "check an experiment file and print the resolved configuration",
     "options:\n"
     "  --set key.path=value   override one key, repeatable (default none)\n"
     "  --all                  print every key, also those that do not\n"
     "                         apply to this target and sampler (default:\n"
     "                         only the keys that apply)\n"
     "  -q, --quiet            do not print \"FILE: valid\" (default off)\n"
     "  -h, --help             this help\n"
     "\n"
     "Prints the keys that apply to the file's target, schedule, swap rule,\n"
     "step rule and bias with their values (defaults spelled out) on\n"
     "stdout and \"FILE: valid\" on stderr, or the first error as\n"
     "file:line:col: key.path: problem, exit 2. With --all the output is\n"
     "the run directory's config.yaml.\n"},
    {"summary", "[--json | --csv] DIR",
     "print the per-parameter table of a finished run directory",
     "options:\n"
     "  --json                 the table as one JSON document (the\n"
     "                         summary's \"parameters\" block and the test\n"
     "                         metrics; a sweep's runs with their values)\n"
     "  --csv                  the table as CSV (summary.csv's columns; a\n"
     "                         sweep's rows led by run and its sweep keys)\n"
     "  -h, --help             this help\n"
     "\n"
     "Prints the table `replex run` printed at the end of the run (mean,\n"
     "sd, 5/50/95 % quantiles, MCSE, ESS for the mean, bulk and tail ESS,\n"
     "R-hat, a network's test metrics, the warnings) from DIR/summary.json;\n"
     "nothing is run. DIR is a run directory, a replicates directory (the\n"
     "table over the copies) or a sweep directory (each run's table, headed\n"
     "by its sweep values). Anything else, or a run that did not finish,\n"
     "is refused with exit 2. --json and --csv write all of it or, when a\n"
     "table cannot be read, nothing on stdout.\n"},
    {"keys", "[SECTION...]",
     "list the configuration keys with their type, default and meaning",
     "options:\n"
     "  -h, --help             this help\n"
     "\n"
     "Without SECTION every key; `replex keys ladder step` only the keys\n"
     "of those sections (a section is the part of a key before its first\n"
     "dot; a top-level key such as seed is its own section).\n"},
    {"info", "",
     "print the version, OpenMP threads, BLAS and CPU",
     "options:\n"
     "  -h, --help             this help\n"},
    {"bench", "GRID.yaml [options]",
     "benchmark the engine over a grid of schedules, P, threads, targets",
     "options:\n"
     "  -o, --out DIR          the output directory (default runs/<GRID\n"
     "                         without .yaml>); it must not exist unless\n"
     "                         --force\n"
     "  --reps N               repetitions of every cell (default: the\n"
     "                         grid's `reps`, itself 3)\n"
     "  --iterations N         iterations of every run (default: the grid's\n"
     "                         `iterations`, itself 20000)\n"
     "  --threads LIST         thread counts, e.g. 1,2 or all (default: the\n"
     "                         grid's `threads`, itself 1)\n"
     "  --chains LIST          chain counts P, e.g. 4,16 (default: the\n"
     "                         grid's `chains`, itself 16)\n"
     "  --force                replace an existing DIR that a bench wrote\n"
     "                         (default off)\n"
     "  -q, --quiet            print nothing but errors: no progress lines,\n"
     "                         no table (default off)\n"
     "  --no-plots             do not draw DIR/plots with gnuplot (default:\n"
     "                         drawn when gnuplot is on PATH)\n"
     "  -h, --help             this help\n"
     "\n"
     "Every cell (target x noise x rule x normal x scheme x W x P x\n"
     "threads) runs `reps` times through rx_create / rx_run, each run in its\n"
     "own child process (peak RSS from wait4), in rounds over all cells;\n"
     "then one separate run with record.phase_timing for the phase split.\n"
     "The CPU share other processes (or the host) took during a cell's runs\n"
     "(/proc/stat) is its column foreign_load; above 5 % a warning says its\n"
     "times are suspect.\n"
     "Writes DIR/bench.csv (one row per cell), DIR/bench.md (the table, also\n"
     "printed on stdout) and DIR/plots/ (speed-up against threads, round\n"
     "trips per second against W). The grid keys and the columns:\n"
     "docs/cli.md.\n"},
    {"help", "[COMMAND]", "general help, or the help of one command",
     "`replex help run` is the same as `replex run --help`.\n"},
};
#define NCMDS ((int)(sizeof CMDS / sizeof CMDS[0]))

/* After every command's options (replex CMD --help). */
static const char OPTS_TEXT[] =
    "Options and operands go in any order; --name=value or --name value,\n"
    "-oDIR or -o DIR, short flags bundle (-qv), a long name may be\n"
    "abbreviated while unambiguous; -- ends the options.\n";

static const char EXIT_TEXT[] =
    "exit status: 0 ok; 1 the run failed (error during the run, interrupted,\n"
    "cannot write the outputs, out of memory); 2 bad input (usage, unreadable\n"
    "file, YAML, unknown key, bad value, missing or malformed data file,\n"
    "output directory exists or cannot be created).\n";

const rx_cli_cmd_help *rx_cli_find_cmd(const char *name)
{
    for (int i = 0; i < NCMDS; ++i)
        if (!strcmp(CMDS[i].name, name))
            return &CMDS[i];
    return NULL;
}

void rx_cli_usage(FILE *f)
{
    fputs("usage: replex <command> [options]\n"
          "       replex <command> --help | replex help <command>\n"
          "       replex --version\n"
          "\n"
          "commands:\n",
          f);
    for (int i = 0; i < NCMDS; ++i)
        fprintf(f, "  %-9s %s\n", CMDS[i].name, CMDS[i].summary);
    fputs("\n"
          "examples:\n"
          "  replex run yaml/default.yaml -o runs/default --threads 2\n"
          "  replex run yaml/gmm_1d_two_modes.yaml --set tempering.n_chains=12\n"
          "  replex validate yaml/default.yaml\n"
          "\n",
          f);
    fputs(EXIT_TEXT, f);
}

void rx_cli_cmd_usage(FILE *f, const rx_cli_cmd_help *h)
{
    fprintf(f, "usage: replex %s%s%s\n\n%s.\n\n%s\n%s\n%s", h->name,
            h->synopsis[0] ? " " : "", h->synopsis, h->summary, h->details,
            OPTS_TEXT, EXIT_TEXT);
}
