/* cmd_simulate.c -- `specdec simulate`: the library's sd_cmd_simulate (cmd_simulate.h),
 * with a progress line on a terminal. */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

/* A progress line on stderr for runs longer than a second, cleared when the run ends. */
static void progress_line(void *arg, double fraction, double seconds)
{
    (void)arg;
    if (seconds > 1.0 && fraction < 1.0)
        fprintf(stderr, "\rspecdec: simulating... %3.0f%%", 100.0 * fraction);
    else if (seconds > 1.0)
        fprintf(stderr, "\r%40s\r", "");
}

static void hooks(void *request, const cli_args *a)
{
    sd_cmd_simulate_request *rq = request;
    cli_engine_hooks(a, &rq->shard, &rq->nshards, &rq->io);
    if (isatty(STDERR_FILENO))
        rq->progress = progress_line;
}

const cli_command cmd_simulate = {
    .name = "simulate",
    .cmd = &sd_cmd_simulate,
        .scales = 1,
    .hooks = hooks,
};
