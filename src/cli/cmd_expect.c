/* cmd_expect.c -- `specdec expect`: the library's sd_cmd_expect (cmd_expect.h). */
#include "cli.h"

const cli_command cmd_expect = {
    .name = "expect",
    .cmd = &sd_cmd_expect,
};
