/* cmd_sample.c -- `specdec sample`: the library's sd_cmd_sample (cmd_sample.h). */
#include "cli.h"

static void hooks(void *request, const cli_args *a)
{
    sd_cmd_sample_request *rq = request;
    cli_engine_hooks(a, &rq->shard, &rq->nshards, &rq->io);
}

const cli_command cmd_sample = {
    .name = "sample",
    .cmd = &sd_cmd_sample,
    .min_pos = 2,
    .max_pos = 2,
    .scales = 1,
    .hooks = hooks,
};
