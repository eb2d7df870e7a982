/* cmd_speedup.h -- `specdec speedup` as a library call: E(N), the cost
 * factor, the wall-time improvement and the FLOP factor per gamma (eqs. 4,
 * 9, 10, 11), over a grid of lists, the rows of a scenario file, or a
 * per-position acceptance vector.
 */
#ifndef SPECDEC_CMD_SPEEDUP_H
#define SPECDEC_CMD_SPEEDUP_H

#include "specdec/command.h"

/* Fields as command.h reads them; man specdec names each one's domain. */
typedef struct {
    sd_command_list alpha;      /* --alpha LIST, in [0, 1] (eq. 7); or from or acceptance */
    sd_command_list cost;       /* --cost LIST, c in [0, inf) (eq. 8) */
    sd_command_list gamma;      /* --gamma LIST, whole numbers in [1, 1e9]; default 1:25 */
    sd_command_list mu;         /* --mu LIST, the FLOP ratio in [0, inf) (eq. 11); default 0 */
    const char *from;           /* --from FILE: a scenario TSV (name, alpha, cost, gamma [, mu, ...]) */
    sd_command_list acceptance; /* --acceptance A1,...,AG: rows for gamma = 1..G */
} sd_cmd_speedup_request;

/* Nothing given. */
SD_API sd_cmd_speedup_request sd_cmd_speedup_defaults(void);
/* The table: alpha, cost, mu, gamma, expected_tokens, cost_factor,
 * improvement, flop_factor (name first and the scenario's pass-through
 * columns last with from), one row per point; notes on the optimum for
 * grids of at most 8 (alpha, cost) pairs.  SD_EINVAL naming the field,
 * SD_ENOMEM, SD_EFAIL; *out NULL on failure. */
SD_API sd_status sd_cmd_speedup_table(const sd_cmd_speedup_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_speedup;

#endif
