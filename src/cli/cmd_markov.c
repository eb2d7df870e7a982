/* cmd_markov.c -- `specdec markov`: the library's sd_cmd_markov (cmd_markov.h). */
#include "cli.h"

const cli_command cmd_markov = {
    .name = "markov",
    .cmd = &sd_cmd_markov,
};
