/* cmd_serving.c -- `specdec serving`: the library's sd_cmd_serving (cmd_serving.h), its
 * replications sharded and merged by the program (scale.c). */
#include "cli.h"

static sd_status replicas(void *ctx, uint64_t fp, size_t R, size_t nfields, sd_cmd_serving_replica one, void *arg,
                          double *value, sd_error *err)
{
    return cli_replicas(ctx, fp, R, nfields, one, arg, value, err);
}

/* The program's shards and merge run the replications (cli_replicas). */
static void hooks(void *request, const cli_args *a)
{
    sd_cmd_serving_request *rq = request;
    rq->replicas = (sd_cmd_serving_replicas){ .run = replicas, .ctx = (void *)(uintptr_t)a };
}

const cli_command cmd_serving = {
    .name = "serving",
    .cmd = &sd_cmd_serving,
    .scales = 1,
    .hooks = hooks,
};
