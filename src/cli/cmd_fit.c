/* cmd_fit.c -- `specdec fit`: the library's sd_cmd_fit (cmd_fit.h). */
#include "cli.h"

const cli_command cmd_fit = {
    .name = "fit",
    .lib = &sd_cmd_fit,
    .synopsis = "fit FILE [--gamma G] [--cost C | --target T --draft D --hardware H] [--report NAME] ...",
    .min_pos = 1,
    .max_pos = 1,
};
