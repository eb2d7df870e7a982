/* cmd_policies.c -- `specdec policies`: the library's sd_cmd_policies (cmd_policies.h). */
#include "cli.h"

static void hooks(void *request, const cli_args *a)
{
    sd_cmd_policies_request *rq = request;
    cli_engine_hooks(a, &rq->shard, &rq->nshards, &rq->io);
}

const cli_command cmd_policies = {
    .name = "policies",
    .lib = &sd_cmd_policies,
    .synopsis = "policies --cost C [model options as simulate] [--gamma-max G] [--thresholds LIST]",
    .groups = { CLI_SCALE_OPTIONS },
    .scales = 1,
    .hooks = hooks,
};
