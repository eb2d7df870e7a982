/* validate_impl.h -- the private half of validate: the run every check
 * writes into, the rules its rows follow (validate_rows.c), and the checks
 * the table of validate.c runs (validate_sampled.c, validate_exact.c). */
#ifndef SPECDEC_VALIDATE_IMPL_H
#define SPECDEC_VALIDATE_IMPL_H

#include <stddef.h>

#include "specdec/engine.h"
#include "specdec/model.h"
#include "specdec/presets.h"
#include "specdec/status.h"
#include "specdec/synth.h"
#include "specdec/table.h"
#include "specdec/validate.h"

/* The shared rules (validate.h): a mean passes within this many standard
 * errors (two-sided p = 2e-9), a chi-square statistic at a tail p of at
 * least SD_VALIDATE_CHISQ_LEVEL. */
#define SD_VALIDATE_Z_LIMIT 6.0
#define SD_VALIDATE_CHISQ_LEVEL 1e-7

/* The bank of checks 4-10 and 12 (15 takes it at alpha 0.7; 17 builds it
 * again): V = 1000 at alpha 0.8.  The row names state these values, and
 * at c = 0.02 they give the gamma_opt = 11 of checks 8 and 9: they are the
 * checks' own, whatever the synthetic defaults become. */
#define SD_VALIDATE_VOCAB 1000
#define SD_VALIDATE_ALPHA 0.8

/* A run of the selected checks: its configuration, the table the rows go
 * to, whether every row so far passed, and the sample-size multiplier
 * (1 quick, 10 full) every engine run's tokens are scaled by. */
typedef struct {
    const sd_validate_config *cfg;
    sd_table *t;
    int passed;
    double scale;
} sd_validate_ctx;

/* What a row is: a check (pass / FAIL), a negative control (caught /
 * MISSED: it must fail), or a finding (reported, not judged). */
typedef enum { SD_VALIDATE_CHECK, SD_VALIDATE_CONTROL, SD_VALIDATE_FINDING } sd_validate_kind;

/* ---- rows (validate_rows.c) -------------------------------------------------- */

/* Adds the row name, theory, measured, tol, pvalue, samples with the
 * verdict of within for kind, and the run's seed and generator, to v->t;
 * a check that is not within, or a control that is, clears v->passed.
 * SD_ENOMEM from the table. */
sd_status sd_validate_add_row(sd_validate_ctx *v, const char *name, double theory, double measured, double tol,
                              double pvalue, double samples, int within, sd_validate_kind kind, sd_error *err);

/* measured against theory within SD_VALIDATE_Z_LIMIT standard errors se:
 * the tolerance is SD_VALIDATE_Z_LIMIT * se, the p-value two-sided. */
sd_status sd_validate_z_row(sd_validate_ctx *v, const char *name, double theory, double measured, double se,
                            double samples, sd_validate_kind kind, sd_error *err);

/* The mean tokens per iteration of the run s against theory, as a z row
 * over its iterations. */
sd_status sd_validate_mean_n_row(sd_validate_ctx *v, const char *name, double theory, const sd_engine_stats *s,
                                 sd_validate_kind kind, sd_error *err);

/* A chi-square statistic stat on dof degrees of freedom: theory = dof,
 * tolerance = the critical value at SD_VALIDATE_CHISQ_LEVEL; passes when
 * the tail p is at least that level (dof 0: p = 1; stat inf: p = 0). */
sd_status sd_validate_chisq_row(sd_validate_ctx *v, const char *name, double stat, double dof, double samples,
                                sd_validate_kind kind, sd_error *err);

/* measured against theory within an absolute tol, no sampling: p-value 1
 * or 0.  A NaN measurement is shown as +inf (and fails). */
sd_status sd_validate_exact_row(sd_validate_ctx *v, const char *name, double theory, double measured, double tol,
                                double samples, sd_validate_kind kind, sd_error *err);

/* ---- models and runs (validate_rows.c) ---------------------------------------- */

/* The synthetic defaults with vocab tokens, acceptance alpha in regime,
 * and the run's seed and threads.  Never fails. */
sd_synth_config sd_validate_synth(const sd_validate_ctx *v, size_t vocab, double alpha, sd_regime regime);

/* An engine run of m (NULL: set later) under the rule called rule for
 * about tokens x v->scale tokens, with the run's seed, threads, shard and
 * record/replay hooks, and otherwise the engine's defaults: callers set
 * what differs.  Never fails. */
sd_engine_config sd_validate_engine(const sd_validate_ctx *v, const sd_model *m, const char *rule, double tokens);

/* Runs m under rule at the fixed draft length gamma for about tokens x
 * v->scale tokens into *s, which the caller frees on success; what
 * sd_engine_run returns. */
sd_status sd_validate_fixed_run(const sd_validate_ctx *v, const sd_model *m, const char *rule, size_t gamma,
                                double tokens, sd_engine_stats *s, sd_error *err);

/* Builds the synthetic model sc into *m and runs ec on it into *s; on
 * success the caller frees both the model and the statistics, on failure
 * nothing is held (*m NULL after a failed run). */
sd_status sd_validate_model_run(const sd_synth_config *sc, sd_engine_config ec, sd_model **m, sd_engine_stats *s,
                                sd_error *err);

/* The pair checks 24 and 25 cost (validate_serving.c): Llama-3.1-8B with a
 * Llama-3.2-1B draft on one H100 SXM, the shapes of data/models.tsv and
 * data/hardware.tsv compiled in. */
extern const sd_model_spec TARGET_8B, DRAFT_1B;
extern const sd_hardware H100_SXM;

/* ---- the checks ------------------------------------------------------------ */

/* Each adds the rows of its numbers in the table of validate.c to v->t
 * (the comment above each says what it holds against what) and returns
 * SD_OK unless something other than a row failed: SD_ENOMEM, or what the
 * model, the engine or a closed form returns.  Checks 1-15, 21 and 22, whose
 * rows are statistical (validate_sampled.c): */
sd_status sd_validate_check_output(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_case1(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_acceptance(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_iteration(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_sweep(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_oracle(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_alpha_hat(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_markov(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_block(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_drafts(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_adaptive(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_metrics(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_deterministic_draft(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_exact_match(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_tree(sd_validate_ctx *v, sd_error *err);
/* 24 (validate_serving.c): the serving simulation against its twin, Little's law and the lambda -> 0 limit. */
sd_status sd_validate_check_serving(sd_validate_ctx *v, sd_error *err);
/* 25 (validate_loop.c): the roofline with no engine profile (loop.h) is the roofline as it was before profiles. */
sd_status sd_validate_check_loop(sd_validate_ctx *v, sd_error *err);
/* Checks 16-20, built on exact results -- an enumeration, calibrated
 * banks, a brute-force scan, the counts a rule forbids (validate_exact.c): */
sd_status sd_validate_check_block_residual(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_nominal_alpha(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_greedy(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_gamma_star(sd_validate_ctx *v, sd_error *err);
sd_status sd_validate_check_heuristic(sd_validate_ctx *v, sd_error *err);

#endif
