/* cmd_tree.c -- `specdec tree`: the library's sd_cmd_tree (cmd_tree.h). */
#include "cli.h"

const cli_command cmd_tree = {
    .name = "tree",
    .lib = &sd_cmd_tree,
    .synopsis = "tree --tree SPEC | --optimal --budget LIST [--depth LIST] | --sglang-grid  --alpha A | "
                "--acceptance-rank LIST | --acceptance-file FILE  [--cost LIST | --target T --draft D --hardware H "
                "[--batch LIST] [--context S]]",
};
