/* gof.h -- goodness of fit: Pearson's chi-square of counts against
 * probabilities, and of what an engine run emitted against what a lossless
 * rule must emit.
 */
#ifndef SPECDEC_GOF_H
#define SPECDEC_GOF_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/engine_stats.h"
#include "specdec/model.h"
#include "specdec/status.h"
#include "specdec/verify.h"

/* Cells expecting fewer than this many counts are pooled. */
#define SD_GOF_MIN_EXPECTED 5

/* Pearson's statistic of counts obs[0..n-1] against probabilities
 * prob[0..n-1] times their total, added to *stat, and its degrees of
 * freedom added to *dof.  Cells expecting fewer than SD_GOF_MIN_EXPECTED
 * are pooled into one cell (a pool too thin joins the last big cell); a
 * count in a cell of probability 0 makes *stat infinite.  No counts: adds
 * nothing.  Never fails. */
SD_API void sd_gof_chisq(const uint64_t *obs, const double *prob, size_t n, double *stat, double *dof);

/* Goodness of fit of the emitted tokens to what a lossless rule must emit
 * (verify.h), given the contexts they were emitted at.  Pearson's statistic
 * over (context, rank) cells, cells expecting fewer than 5 pooled per
 * context; under losslessness it is chi-square with dof degrees.  tv is the
 * total variation between the pooled emitted and expected token frequencies.
 * pvalue is 0 for an infinite statistic (a token p forbids was emitted) and
 * 1 when dof = 0. */
typedef struct {
    double statistic, dof, pvalue, tv;
} sd_gof;

/* The fit of s, from sd_engine_run on model m (vocab and contexts must
 * match; not checked), against what rule v must emit, into *out.  tv is NaN
 * when s emitted no tokens.  SD_ENOMEM, the only failure; *out is then
 * untouched. */
SD_API sd_status sd_gof_output(const sd_model *m, const sd_verifier *v, const sd_engine_stats *s, sd_gof *out,
                                sd_error *err);

#endif
