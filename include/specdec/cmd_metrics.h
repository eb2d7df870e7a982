/* cmd_metrics.h -- `specdec metrics` as a library call: serving-engine
 * metrics (vLLM V1's acceptance rate and mean acceptance length, the system
 * efficiency, the per-position rates) from alpha by eq. (4), or alpha from
 * them (GSL's Brent solver, theory.h); or one acceptance as vLLM's synthetic
 * acceptance config, to benchmark the engine at the acceptance predicted
 * (text).
 */
#ifndef SPECDEC_CMD_METRICS_H
#define SPECDEC_CMD_METRICS_H

#include "specdec/command.h"

/* Fields as command.h reads them; man specdec names each one's domain.  Exactly one of alpha,
 * mean_length and rate is given (or, with export, acceptance instead). */
typedef struct {
    sd_command_list alpha;       /* --alpha LIST: the acceptance rate alpha, in [0, 1] (eq. 7) */
    sd_command_list mean_length; /* --mean-acceptance-length LIST: vLLM V1's E(N), bonus token included, in
                                  * [1, 1e9 + 1]: solve for alpha */
    sd_command_list rate;        /* --acceptance-rate LIST: vLLM V1's accepted / drafted, in [0, 1]: solve for alpha */
    sd_command_list gamma;       /* --gamma LIST: draft lengths, whole numbers in [1, 1e9] (required, but with
                                  * acceptance) */
    int export_engine;           /* --export NAME: 0, vllm-synthetic (the row's names): the result as vLLM's config
                                  * (text) */
    sd_command_list acceptance;  /* --acceptance A1,...,AG: with export, the conditional acceptance per
                                  * position instead (gamma = G, at most 256) */
} sd_cmd_metrics_request;

/* Nothing given. */
SD_API sd_cmd_metrics_request sd_cmd_metrics_defaults(void);
/* The table: alpha, gamma, acceptance_rate, mean_acceptance_length,
 * system_efficiency, position_rates (the unconditional rates alpha^i, i =
 * 1..gamma, at most 64 then "..."), one row per (value, gamma).  SD_EINVAL
 * naming the field (export given: its result is text, from
 * sd_cmd_metrics_text), SD_ENOMEM, SD_EFAIL; *out NULL on failure. */
SD_API sd_status sd_cmd_metrics_table(const sd_cmd_metrics_request *rq, sd_table **out, sd_error *err);
/* With export: one acceptance (alpha, a length or a rate at one gamma, or
 * acceptance) as vLLM's config keys {"rejection_sample_method":
 * "synthetic", "num_speculative_tokens": G, "synthetic_acceptance_rates":
 * [...]} and a newline, into *text (free it with sd_command_free_text).
 * SD_EINVAL naming the field, SD_ENOMEM, SD_EFAIL; *text NULL on failure. */
SD_API sd_status sd_cmd_metrics_text(const sd_cmd_metrics_request *rq, char **text, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_metrics;

#endif
