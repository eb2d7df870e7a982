/* cmd_tree.c -- `specdec tree`: the library's sd_cmd_tree (cmd_tree.h). */
#include "cli.h"

const cli_command cmd_tree = {
    .name = "tree",
    .cmd = &sd_cmd_tree,
};
