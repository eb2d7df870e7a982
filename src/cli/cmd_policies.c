/* cmd_policies.c -- `specdec policies`: the library's sd_cmd_policies (cmd_policies.h). */
#include "cli.h"

static void hooks(void *request, const cli_args *a)
{
    sd_cmd_policies_request *rq = request;
    cli_engine_hooks(a, &rq->shard, &rq->nshards, &rq->io);
}

const cli_command cmd_policies = {
    .name = "policies",
    .cmd = &sd_cmd_policies,
    .scales = 1,
    .hooks = hooks,
};
