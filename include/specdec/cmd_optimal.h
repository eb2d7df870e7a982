/* cmd_optimal.h -- `specdec optimal` as a library call: the draft length
 * that maximises eq. (10), in closed form (Lambert W), or by a scan for a
 * per-position acceptance vector.
 */
#ifndef SPECDEC_CMD_OPTIMAL_H
#define SPECDEC_CMD_OPTIMAL_H

#include "specdec/command.h"

typedef struct {
    sd_command_list alpha;      /* --alpha LIST, in [0, 1]; or from or acceptance */
    sd_command_list cost;       /* --cost LIST, c in [0, inf) */
    const char *from;           /* --from FILE: a scenario TSV (name, alpha, cost [, gamma, mu, ...]) */
    sd_command_list acceptance; /* --acceptance A1,...,AG: the best gamma in 0..G for that vector */
} sd_cmd_optimal_request;

/* Nothing given. */
SD_API sd_cmd_optimal_request sd_cmd_optimal_defaults(void);
/* The table: alpha, cost, gamma_opt, improvement_opt, expected_tokens_opt,
 * gamma_continuous, ceiling, one row per point (name first and the
 * scenario's pass-through columns last with from); a note per point for
 * at most 8 points of a grid.  SD_EINVAL naming the field, SD_ENOMEM,
 * SD_EFAIL; *out NULL on failure. */
SD_API sd_status sd_cmd_optimal_table(const sd_cmd_optimal_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_optimal;

#endif
