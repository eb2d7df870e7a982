/* policies.h -- the draft-length policies side by side, measured by the
 * engine against the closed-form optimum and the oracle ceiling.
 */
#ifndef SPECDEC_POLICIES_H
#define SPECDEC_POLICIES_H

#include <stddef.h>

#include "specdec/engine.h"
#include "specdec/status.h"
#include "specdec/table.h"

/* The policies side by side on base's model and verifier, each run emitting
 * about base->tokens tokens with base's seed and threads, draft lengths up
 * to base->gamma_max:
 * a table with one row per policy -- fixed at the closed-form gamma* (eq.
 * 10 at the model's mean acceptance), the best fixed gamma of a measured
 * sweep 1..gamma_max, the +2/-1 heuristic, the threshold policy at each of
 * thresholds[0..nth-1] (nth = 0: the quartiles of the draft's top
 * probability over the bank), the oracle -- and the theoretical ceiling 1/(1 -
 * alpha).  Columns: policy, parameter, tokens_per_iteration,
 * tokens_per_iteration_se, drafts_per_iteration, improvement (measured:
 * tokens / (target calls + c draft calls)).  Cost: gamma_max + nth + 2
 * engine runs (nth = 3 when 0).  base->model and base->verifier must be set
 * (not checked); cost c = T_Mq / T_Mp in [0, inf); gamma_max in
 * [2, SD_ORACLE_MAX]; thresholds in [0, 1] (NULL allowed when nth = 0).
 * *out is a new table the caller frees with sd_table_free.  SD_EINVAL
 * (cost, or a field the engine rejects), SD_ENOMEM, SD_EFAIL (a GSL
 * routine, an engine thread, or a NaN cell); on failure *out is NULL. */
/* The sweep's cap where the caller has no reason for another (the program's
 * policies and the adaptive-policies figure). */
#define SD_POLICIES_GAMMA_MAX 24

SD_API sd_status sd_policies_run(const sd_engine_config *base, double cost, const double *thresholds, size_t nth,
                                 sd_table **out, sd_error *err);

#endif
