/* cmd_markov.h -- `specdec markov` as a library call: E(N) under the
 * two-state Markov acceptance (transfer matrices, theory.h) against the
 * i.i.d. eq. (4) at the chain's mean acceptance.
 */
#ifndef SPECDEC_CMD_MARKOV_H
#define SPECDEC_CMD_MARKOV_H

#include "specdec/command.h"

/* Fields as command.h reads them; man specdec names each one's domain. */
typedef struct {
    double alpha_easy;     /* --alpha-easy A: acceptance in the easy state, in [0, 1] (required) */
    double alpha_hard;     /* --alpha-hard A: acceptance in the hard state, in [0, 1] (required) */
    double stay;           /* --stay P: the chance of keeping the state per token, in [0, 0.999999] (required) */
    sd_command_list gamma; /* --gamma LIST: draft lengths, whole numbers in [1, 1e9]; default 1:10 */
    double cost;           /* --cost C: the draft/target cost ratio of the improvement columns, in [0, inf);
                            * default 0 */
} sd_cmd_markov_request;

/* Nothing given. */
SD_API sd_cmd_markov_request sd_cmd_markov_defaults(void);
/* The table: alpha_easy, alpha_hard, stay, gamma, mean_alpha,
 * expected_tokens, expected_tokens_iid, iid_bias, improvement,
 * improvement_iid, one row per gamma.  SD_EINVAL naming the field,
 * SD_ENOMEM; *out NULL on failure. */
SD_API sd_status sd_cmd_markov_table(const sd_cmd_markov_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_markov;

#endif
