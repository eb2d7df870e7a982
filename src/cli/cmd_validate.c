/* cmd_validate.c -- `specdec validate`: the library's sd_cmd_validate (cmd_validate.h), a scaling
 * command: its engine runs take the job's shard and hooks (scale.c); SD_ECHECK comes with the table. */
#include "cli.h"

#include <stdio.h>

/* The checks and their numbers, from the library's table. */
static void list_checks(void)
{
    printf("\nchecks (--only takes their numbers):\n");
    const sd_validate_check *c;
    for (size_t i = 0; (c = sd_validate_check_at(i)) != NULL; i++) {
        char num[16];
        if (c->first == c->last)
            snprintf(num, sizeof num, "%u", c->first);
        else
            snprintf(num, sizeof num, "%u-%u", c->first, c->last);
        printf("  %-6s %-11s %s\n", num, c->name, c->summary);
    }
}

/* The job's shard and engine hooks into the request. */
static void validate_hooks(void *request, const cli_args *a)
{
    sd_cmd_validate_request *rq = request;
    rq->shard = a->shard;
    rq->nshards = a->nshards;
    rq->io = a->io;
}

const cli_command cmd_validate = {
    .name = "validate",
    .cmd = &sd_cmd_validate,
    .more_help = list_checks,
    .scales = 1,
    .hooks = validate_hooks,
};
