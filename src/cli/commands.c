/* commands.c -- the command table: adding a command is adding a row (and its
 * cmd_NAME.c).  Lookups go through cli_find_command (args.c), over this table
 * or the one a command was handed (merge). */
#include "cli.h"

static const cli_command *const COMMANDS[] = {
    &cmd_speedup, &cmd_optimal, &cmd_expect, &cmd_tree, &cmd_overlap, &cmd_metrics, &cmd_markov, &cmd_fit,
    &cmd_simulate, &cmd_policies, &cmd_sample, &cmd_validate, &cmd_merge, &cmd_roofline, &cmd_serving, &cmd_plot, NULL,
};

const cli_command *const *cli_commands(void) { return COMMANDS; }
