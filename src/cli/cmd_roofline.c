/* cmd_roofline.c -- `specdec roofline`: the library's sd_cmd_roofline (cmd_roofline.h). */
#include "cli.h"

const cli_command cmd_roofline = {
    .name = "roofline",
    .lib = &sd_cmd_roofline,
    .synopsis = "roofline --target NAME --draft NAME --hardware NAME --alpha A [--batch LIST] [--context LIST] ...",
};
