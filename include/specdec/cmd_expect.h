/* cmd_expect.h -- `specdec expect` as a library call: the distribution of
 * N, the tokens one iteration emits (eqs. 2, 3, and the survival function
 * behind eq. 4).
 */
#ifndef SPECDEC_CMD_EXPECT_H
#define SPECDEC_CMD_EXPECT_H

#include "specdec/command.h"

typedef struct {
    sd_command_list alpha; /* --alpha LIST, in [0, 1] (required) */
    sd_command_list gamma; /* --gamma LIST, whole numbers in [1, 1e9] (required) */
} sd_cmd_expect_request;

/* Nothing given. */
SD_API sd_cmd_expect_request sd_cmd_expect_defaults(void);
/* The table: alpha, gamma, n, pmf, survival, one row per n = 1..gamma + 1
 * of every (alpha, gamma), at most SD_LIST_MAX rows.  SD_EINVAL naming the
 * field, SD_ENOMEM; *out NULL on failure. */
SD_API sd_status sd_cmd_expect_table(const sd_cmd_expect_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_expect;

#endif
