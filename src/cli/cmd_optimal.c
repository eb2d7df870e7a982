/* cmd_optimal.c -- `specdec optimal`: the library's sd_cmd_optimal (cmd_optimal.h). */
#include "cli.h"

const cli_command cmd_optimal = {
    .name = "optimal",
    .cmd = &sd_cmd_optimal,
};
