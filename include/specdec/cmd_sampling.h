/* cmd_sampling.h -- the sampling settings of a matrix pair (sampling.h), as
 * overlap takes them in its request: lists of the target's temperature,
 * top-k, top-p and min-p and of the draft's (each the target's unless
 * given); every combination is a setting.  simulate takes the same settings
 * in its own fields.  Fields as command.h reads them.
 */
#ifndef SPECDEC_CMD_SAMPLING_H
#define SPECDEC_CMD_SAMPLING_H

#include "specdec/command.h"

typedef struct {
    sd_command_list temperature; /* --temperature LIST, in [0, SD_TEMPERATURE_MAX]; 0 greedy (default 1) */
    sd_command_list top_k;       /* --top-k LIST: keep the tokens at least as likely as the k-th; 0 off (default) */
    sd_command_list top_p;       /* --top-p LIST, in (0, 1]: the smallest top set of mass >= P; 1 off (default) */
    sd_command_list min_p;       /* --min-p LIST, in [0, 1]: the tokens with p >= P max p; 0 off (default) */
    sd_command_list draft_temperature, draft_top_k, draft_top_p, draft_min_p; /* --draft-*: the draft's */
} sd_cmd_sampling_options;

/* Nothing given. */
SD_API sd_cmd_sampling_options sd_cmd_sampling_defaults(void);

#endif
