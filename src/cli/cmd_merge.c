/* cmd_merge.c -- `specdec merge FILE...`: the partial results of a sharded
 * run merged into the table one run prints (the mechanics: scale.c). */
#include "cli.h"

#include <stdio.h>

static void merge_help(void)
{
    printf("\nFILE: the partial results of a sharded simulate, policies, sample, validate or serving job,\n"
           "one or several per file, '-' for standard input.  They must come from one job\n"
           "(the same command, options, seed and data) with every shard 1..N exactly once;\n"
           "merge then prints the table the unsharded run prints, bit for bit.\n");
}

static const cli_option MERGE_OPTIONS[] = {
    { .name = NULL },
};

const cli_command cmd_merge = {
    .name = "merge",
    .synopsis = "merge FILE... ",
    .summary = "merge the partial results of a sharded run into the table one run prints",
    .groups = { MERGE_OPTIONS },
    .min_pos = 1,
    .max_pos = CLI_MAX_POSITIONAL,
    .run = cli_scale_merge,
    .more_help = merge_help,
};
