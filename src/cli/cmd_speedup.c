/* cmd_speedup.c -- `specdec speedup`: the library's sd_cmd_speedup (cmd_speedup.h). */
#include "cli.h"

const cli_command cmd_speedup = {
    .name = "speedup",
    .lib = &sd_cmd_speedup,
    .synopsis = "speedup --alpha LIST --cost LIST [--gamma LIST] [--mu LIST] | --from FILE",
};
