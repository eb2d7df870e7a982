/* cmd_merge.c -- `specdec merge FILE...`: the partial results of a sharded
 * run merged into the table one run prints (the mechanics: scale.c).  A
 * command of the program's own: its request is the parsed job. */
#include "cli.h"

#include <stdint.h>
#include <stdio.h>

static void merge_help(void)
{
    printf("\nFILE: the partial results of a sharded simulate, policies, sample, validate or serving job,\n"
           "one or several per file, '-' for standard input.  They must come from one job\n"
           "(the same command, options, seed and data) with every shard 1..N exactly once;\n"
           "merge then prints the table the unsharded run prints, bit for bit.\n");
}

/* The request: the program's parsed arguments (the files, the command table). */
typedef struct {
    const cli_args *args;
} merge_request;

static void merge_defaults(void *r) { *(merge_request *)r = (merge_request){ .args = NULL }; }

static sd_status merge_table(const void *r, sd_table **out, sd_error *err)
{
    return cli_scale_merge(((const merge_request *)r)->args, out, err);
}

static void hooks(void *request, const cli_args *a) { ((merge_request *)request)->args = a; }

static const sd_command_field FIELDS[] = {
    { .name = NULL },
};

static const sd_command MERGE = {
    .name = "merge",
    .summary = "merge the partial results of a sharded run into the table one run prints",
    .usage = "merge FILE... ",
    .size = sizeof(merge_request),
    .groups = { FIELDS },
    .defaults = merge_defaults,
    .table = merge_table,
    .data_dir = SIZE_MAX,
};

const cli_command cmd_merge = {
    .name = "merge",
    .cmd = &MERGE,
    .min_pos = 1,
    .max_pos = CLI_MAX_POSITIONAL,
    .more_help = merge_help,
    .hooks = hooks,
};
