/* cmd_overlap.c -- `specdec overlap`: the library's sd_cmd_overlap (cmd_overlap.h). */
#include "cli.h"

const cli_command cmd_overlap = {
    .name = "overlap",
    .cmd = &sd_cmd_overlap,
    .max_pos = 2,
};
