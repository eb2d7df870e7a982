/* cmd_fit.c -- `specdec fit`: the library's sd_cmd_fit (cmd_fit.h). */
#include "cli.h"

const cli_command cmd_fit = {
    .name = "fit",
    .cmd = &sd_cmd_fit,
    .min_pos = 1,
    .max_pos = 1,
};
