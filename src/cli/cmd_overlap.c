/* cmd_overlap.c -- `specdec overlap`: the library's sd_cmd_overlap (cmd_overlap.h). */
#include "cli.h"

const cli_command cmd_overlap = {
    .name = "overlap",
    .lib = &sd_cmd_overlap,
    .synopsis = "overlap P_FILE Q_FILE [--drafts K] | overlap --p-npy T.npy --q-npy D.npy --input KIND [sampling] "
                "[--per-row] | ... --ranks K [--children NAME] [--export-acceptance FILE]",
    .max_pos = 2,
};
