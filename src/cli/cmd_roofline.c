/* cmd_roofline.c -- `specdec roofline`: the library's sd_cmd_roofline (cmd_roofline.h). */
#include "cli.h"

const cli_command cmd_roofline = {
    .name = "roofline",
    .cmd = &sd_cmd_roofline,
};
