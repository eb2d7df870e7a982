/* cmd_speedup.c -- `specdec speedup`: the library's sd_cmd_speedup (cmd_speedup.h). */
#include "cli.h"

const cli_command cmd_speedup = {
    .name = "speedup",
    .cmd = &sd_cmd_speedup,
};
