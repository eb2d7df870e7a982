/* cmd_metrics.c -- `specdec metrics`: the library's sd_cmd_metrics (cmd_metrics.h). */
#include "cli.h"

const cli_command cmd_metrics = {
    .name = "metrics",
    .cmd = &sd_cmd_metrics,
};
