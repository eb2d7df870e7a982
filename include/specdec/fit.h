/* fit.h -- from the counters engines export to alpha, a test of the i.i.d.
 * assumption, and predictions for other draft lengths.
 *
 * The data (counters.h): D drafts of length up to gamma; A_k drafts whose
 * first k drafted tokens were all accepted (A_0 = D), and R_k drafts that
 * drafted at least k tokens.  Position k is TESTED by the drafts that
 * reached it with positions 1..k-1 accepted:
 *     t_k = A_{k-1} R_k / R_{k-1},
 * which is A_{k-1} when every draft has length gamma; for shorter drafts
 * (llama.cpp) it assumes that where a draft stops does not depend on its
 * acceptance so far -- a draft that stops early is censored, not rejected.
 *
 *   i.i.d. (eq. 4's assumption): every test passes with probability alpha.
 *     Each draft is Bernoulli trials that stop at the first rejection or at
 *     gamma, so the maximum-likelihood estimate is
 *     alpha_hat = sum A_k / sum t_k (k = 1..gamma), with a 95% Wilson score
 *     interval over n = sum t_k trials.
 *   per position: alpha_k = A_k / t_k (the conditional acceptance of
 *     position k given 1..k-1 accepted), each with its Wilson interval.
 *   the likelihood-ratio test of i.i.d. against per-position acceptance:
 *     2 (l_positions - l_iid), chi-square with (positions tested - 1)
 *     degrees of freedom (gsl_cdf_chisq_Q).
 *   two non-i.i.d. models, fitted by maximum likelihood on the same
 *     binomial position likelihood (GSL's Nelder-Mead simplex):
 *       geometric  alpha_k = alpha rho^(k-1)                  (2 parameters)
 *       markov     the engine's two-state chain (theory.h): alpha_k =
 *                  S_k / S_{k-1}, S_k = sd_theory_markov_survival (3)
 *     and the better by AIC (2 parameters - 2 log-likelihood) is the
 *     non-i.i.d. model; it is used for extrapolation when the test rejects
 *     i.i.d. at p < `level`, else the i.i.d. model is.
 *
 * Predictions, gamma' = 1..gamma_max: E(N) for gamma' <= gamma is the
 * measured one, 1 + sum_{k <= gamma'} prod_{j <= k} alpha_j (no model:
 * truncating drafts keeps their first positions; at gamma' = gamma it is
 * the mean acceptance length exactly); beyond gamma the chosen model's,
 * flagged `extrapolated`.  Intervals: a bootstrap over the drafts with
 * GSL's random streams (sequential binomial resampling of the position
 * counts from the measured alpha_k, the chosen model refitted on each
 * replicate), 2.5% and 97.5% quantiles.  With counts that carry no
 * positions (vLLM V0, which counts every position that passed its own test
 * rather than prefixes), only the i.i.d. model is fitted, by
 * accepted / drafted tokens, and every gamma' uses eq. (4).
 */
#ifndef SPECDEC_FIT_H
#define SPECDEC_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/counters.h"
#include "specdec/engine.h"
#include "specdec/status.h"
#include "specdec/table.h"
#include "specdec/theory.h"

typedef enum { SD_FIT_IID, SD_FIT_GEOMETRIC, SD_FIT_MARKOV } sd_fit_model;

/* The model's name: "iid", "geometric", "markov" (static). */
SD_API const char *sd_fit_model_name(sd_fit_model m);

typedef struct {
    size_t gamma;                 /* positions measured */
    int has_positions;            /* 0: i.i.d. only (vLLM V0) */
    double trials, accepted;      /* sum t_k, sum A_k */
    double alpha, alpha_lo, alpha_hi;          /* i.i.d. MLE and its 95% Wilson interval */
    double tested[SD_COUNTS_MAX_GAMMA];        /* t_k, k = 1..gamma at [k-1] */
    double passed[SD_COUNTS_MAX_GAMMA];        /* A_k */
    double cond[SD_COUNTS_MAX_GAMMA], cond_lo[SD_COUNTS_MAX_GAMMA], cond_hi[SD_COUNTS_MAX_GAMMA];
    double ll_iid, ll_positions, ll_geometric, ll_markov; /* maximised log-likelihoods */
    double lr_statistic, lr_dof, lr_pvalue;    /* i.i.d. against per position */
    double geo_alpha, geo_rho;                 /* the geometric fit */
    sd_markov markov;                          /* the Markov fit */
    sd_fit_model non_iid;                      /* the better of the two by AIC */
    sd_fit_model chosen;                       /* used beyond the measured gamma */
    double level;                              /* the test's level */
} sd_fit;

/* The counters an engine of vLLM's kind would have exported for the
 * engine run s of fixed draft length gamma (one draft per position,
 * token-wise verification): drafts = iterations, accepted_at[i] = the
 * iterations whose first i + 1 drafts were accepted.  The round trip of
 * `simulate --export-prometheus`.  SD_EINVAL when gamma is outside [1,
 * SD_COUNTS_MAX_GAMMA] or s ran no iteration; *out untouched on failure. */
SD_API sd_status sd_fit_counts_from_engine(const sd_engine_stats *s, size_t gamma, sd_counts *out, sd_error *err);

/* Fits c at significance level `level` in (0, 1) (the i.i.d. model is kept
 * unless the likelihood-ratio test rejects it at p < level).  SD_EINVAL
 * (naming the parameter) for level outside (0, 1) or counts with no
 * trial; SD_EFAIL when a minimiser fails.  Never allocates; *out is
 * untouched on failure. */
SD_API sd_status sd_fit_counts(const sd_counts *c, double level, sd_fit *out, sd_error *err);

/* E(N) at draft length g >= 1 under model m of f (the measured positions
 * for g <= f->gamma when m is the chosen model and positions exist: see
 * above).  NaN for g < 1. */
SD_API double sd_fit_expected_tokens(const sd_fit *f, sd_fit_model m, size_t g);

/* The prediction request: gamma' = 1..gamma_max; the cost of an iteration
 * of gamma' drafts in target steps is cost[gamma' - 1] (1 + gamma' c for
 * eq. 10, gamma' c_eff + verify_cost_ratio under the roofline model);
 * `replicates` bootstrap replicates (0: no intervals) from stream `seed`. */
typedef struct {
    size_t gamma_max;
    const double *cost; /* gamma_max entries > 0 */
    size_t replicates;
    uint64_t seed;
} sd_fit_request;

/* The report tables (columns listed in README's "From your engine's counters"):
 *   predictions  one row per gamma': E(N), its interval, the improvement
 *                E(N) / cost and its interval, extrapolated yes/no, the
 *                model; notes name the recommended gamma' and the range
 *                whose improvement lies within the best's interval
 *   positions    one row per measured position: tested, accepted, alpha_k
 *                and its interval, the i.i.d. alpha, the non-i.i.d. fit's
 *   summary      one row: the data, alpha and its interval, the test, both
 *                fits, the chosen model, the recommendation
 * *out is a new table the caller frees; SD_EINVAL for a request out of its
 * domain (naming the field), SD_ENOMEM, SD_EFAIL; *out untouched on failure. */
typedef enum { SD_FIT_REPORT_PREDICTIONS, SD_FIT_REPORT_POSITIONS, SD_FIT_REPORT_SUMMARY } sd_fit_report;

/* "predictions", "positions", "summary", NULL: the reports' names, indexed
 * by sd_fit_report (static).  Never fails. */
SD_API const char *const *sd_fit_report_names(void);

/* The defaults of a fit where the caller has no reason for others (the
 * program's fit and the fit figure): the i.i.d. test's level, and the
 * bootstrap replicates (the seed is SD_RNG_DEFAULT_SEED, rng.h). */
#define SD_FIT_LEVEL 1e-3
#define SD_FIT_REPLICATES 400

SD_API sd_status sd_fit_table(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, sd_fit_report report,
                              sd_table **out, sd_error *err);

#endif
