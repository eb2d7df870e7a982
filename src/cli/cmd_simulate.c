/* cmd_simulate.c -- `specdec simulate`: the library's sd_cmd_simulate (cmd_simulate.h),
 * with a progress line on a terminal. */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

/* A progress line on stderr for runs longer than a second, cleared once when the run ends (the
 * engine's last poll and the command's end may both report 1.0); *arg: whether a line shows. */
static void progress_line(void *arg, double fraction, double seconds)
{
    int *shown = arg;
    if (seconds > 1.0 && fraction < 1.0) {
        fprintf(stderr, "\rspecdec: simulating... %3.0f%%", 100.0 * fraction);
        *shown = 1;
    } else if (fraction >= 1.0 && *shown) {
        fprintf(stderr, "\r%40s\r", "");
        *shown = 0;
    }
}

static void hooks(void *request, const cli_args *a)
{
    sd_cmd_simulate_request *rq = request;
    cli_engine_hooks(a, &rq->shard, &rq->nshards, &rq->io);
    static int shown;
    if (isatty(STDERR_FILENO)) {
        rq->progress = progress_line;
        rq->progress_arg = &shown;
    }
}

const cli_command cmd_simulate = {
    .name = "simulate",
    .cmd = &sd_cmd_simulate,
    .scales = 1,
    .hooks = hooks,
};
