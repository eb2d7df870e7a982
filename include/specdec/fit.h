/* fit.h -- from the counters engines export to alpha, a test of the i.i.d.
 * assumption, predictions for other draft lengths, and the draft length
 * they recommend under a cost.
 *
 * The data (counters.h): D drafts of length up to gamma; A_k drafts whose
 * first k drafted tokens were all accepted (A_0 = D), and R_k drafts that
 * drafted at least k tokens.  Position k is TESTED by the drafts that
 * reached it with positions 1..k-1 accepted:
 *     t_k = max(A_k, A_{k-1} R_k / R_{k-1}),
 * which is A_{k-1} when every draft has length gamma; for shorter drafts
 * (llama.cpp) it assumes that where a draft stops does not depend on its
 * acceptance so far -- a draft that stops early is censored, not rejected --
 * and where that ratio falls below the A_k drafts that passed position k
 * (so the assumption fails there), those were tested at least.
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
 * Predictions, gamma' = 1..gamma_max (sd_fit_predict): E(N) for gamma' <=
 * gamma is the measured one, 1 + sum_{k <= gamma'} prod_{j <= k} alpha_j
 * (no model: truncating drafts keeps their first positions; at gamma' =
 * gamma it is the mean acceptance length exactly); beyond gamma the chosen
 * model's, flagged `extrapolated`.  Intervals: a bootstrap over the drafts with
 * GSL's random streams (sequential binomial resampling of the position
 * counts from the measured alpha_k, the chosen model refitted on each
 * replicate), 2.5% and 97.5% quantiles.
 *
 * The estimator follows what the counts count (sd_fit_estimator); only
 * "positions" fits the non-i.i.d. models, the others fit i.i.d. alpha and
 * every gamma' uses eq. (1)'s E(N) = 1 + sum_{i=1..gamma'} alpha^i:
 *   positions    PREFIX counts per position: the MLE above.
 *   prefix-mean  PREFIX counts without positions (an acceptance length, or
 *                accepted tokens and drafts): a draft of length l accepts
 *                X = min(first rejection - 1, l) tokens, P(X >= i) = alpha^i
 *                for i <= l (eq. 1's truncated geometric), so alpha solves
 *                  m(alpha) = sum_{i=1..gamma} R_i alpha^i = accepted tokens,
 *                m increasing from 0 to the drafted tokens (GSL's Brent
 *                solver; the method-of-moments estimate, the MLE when every
 *                draft ends in a rejection or at gamma indistinguishably).  Its
 *                95% interval is the alpha whose m lies within 1.96 standard
 *                deviations of the measured total, the variance summed over
 *                the drafts' lengths l (n_l = R_l - R_{l+1} of them):
 *                  v(alpha) = sum_l n_l (sum_{i<=l} (2i - 1) alpha^i - (sum_{i<=l} alpha^i)^2),
 *                a score interval like Wilson's (it reaches 0 and 1).
 *   gauge        a mean without counts (counters.h's gauge): the same
 *                equation with every draft of length gamma and the mean as
 *                the total of one draft; no interval (the bounds are the
 *                estimate; the report says so), no bootstrap.
 *   any          vLLM V0, which counts every position that passed its own
 *                test: alpha_any = accepted / drafted tokens (unbiased under
 *                i.i.d.), Wilson's interval; it is alpha without emitted
 *                tokens.  With them, alpha is prefix-mean's on the emitted
 *                prefixes (emitted - drafts accepted, every draft gamma long),
 *                so eq. (1) reproduces the measured E(N) = emitted / drafts at
 *                the measured gamma; and the test of i.i.d. (1 degree of
 *                freedom) is a Wald test of d = (emitted / drafts - 1) -
 *                sum_{i<=gamma} alpha_any^i: per draft, prefix L and passes S
 *                under i.i.d. alpha give
 *                  Var(d) D = Var L - 2 m'(alpha) Cov(L, S) / gamma + m'(alpha)^2 Var S / gamma^2
 *                (the delta method for alpha_hat = S / (D gamma)), with Var S =
 *                gamma alpha (1 - alpha) and Cov(L, S) summed exactly over L
 *                = 0..gamma (E[S | L = l] = l + (gamma - l - 1) alpha for l <
 *                gamma); d^2 / Var(d) against chi-square(1).  The Markov fit
 *                needs positions: two totals cannot determine its three
 *                parameters, and the report says so.
 */
#ifndef SPECDEC_FIT_H
#define SPECDEC_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/counters.h"
#include "specdec/engine.h"
#include "specdec/status.h"
#include "specdec/theory.h"

typedef enum { SD_FIT_IID, SD_FIT_GEOMETRIC, SD_FIT_MARKOV } sd_fit_model;

/* The model's name: "iid", "geometric", "markov" (static). */
SD_API const char *sd_fit_model_name(sd_fit_model m);

typedef enum { SD_FIT_EST_POSITIONS, SD_FIT_EST_PREFIX_MEAN, SD_FIT_EST_GAUGE, SD_FIT_EST_ANY } sd_fit_estimator;

/* The estimator's name: "positions", "prefix-mean", "gauge", "any" (static). */
SD_API const char *sd_fit_estimator_name(sd_fit_estimator e);

/* The test of i.i.d. acceptance the data allow: none (one position, a gauge,
 * V0 without emitted tokens), the likelihood ratio against per-position
 * acceptance (positions), or V0's emitted tokens against eq. (1). */
typedef enum { SD_FIT_TEST_NONE, SD_FIT_TEST_LR, SD_FIT_TEST_EMITTED } sd_fit_test;

/* The test's name: "none", "likelihood-ratio", "emitted-tokens" (static). */
SD_API const char *sd_fit_test_name(sd_fit_test t);

typedef struct {
    size_t gamma;                 /* positions measured */
    int has_positions;            /* 0: i.i.d. only (the estimators other than positions) */
    sd_fit_estimator estimator;   /* how alpha was estimated */
    int has_interval;             /* 0: alpha_lo = alpha_hi = alpha, no interval (gauge) */
    double trials, accepted;      /* sum t_k, sum A_k (positions); drafted, accepted tokens (others;
                                   * a gauge: gamma and the mean) */
    double alpha, alpha_lo, alpha_hi;          /* alpha and its 95% interval */
    double alpha_any, alpha_any_lo, alpha_any_hi; /* any: accepted / drafted tokens and its Wilson
                                                   * interval (= alpha without emitted tokens); 0
                                                   * for the other estimators */
    double measured_en, measured_en_se;        /* E(N) measured at gamma (1 + accepted / drafts, the
                                                * gauge's 1 + mean, V0's emitted / drafts) and its
                                                * standard error (0 when unknown) */
    double tested[SD_COUNTS_MAX_GAMMA];        /* t_k, k = 1..gamma at [k-1] */
    double passed[SD_COUNTS_MAX_GAMMA];        /* A_k */
    double cond[SD_COUNTS_MAX_GAMMA], cond_lo[SD_COUNTS_MAX_GAMMA], cond_hi[SD_COUNTS_MAX_GAMMA];
    double ll_iid, ll_positions, ll_geometric, ll_markov; /* maximised log-likelihoods */
    sd_fit_test test;                          /* the test of i.i.d. done */
    double test_statistic, test_dof, test_pvalue; /* its statistic (chi-square), degrees of freedom
                                                   * and p-value; 0, 0, 1 for none */
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

/* alpha_k, k = 1..g, of model m as f fitted it, into a[0 .. g-1]: f->alpha
 * at every k for i.i.d. or counts without positions; the geometric's alpha
 * rho^(k-1) (at most 1); the Markov chain's S_k / S_{k-1} with the start
 * law of the measured draft length (k beyond it: k's).  The geometric and
 * Markov fits exist when f->test is SD_FIT_TEST_LR (f->non_iid names the
 * better); else their parameters are 0, and so is every alpha_k of theirs.
 * Never fails. */
SD_API void sd_fit_model_positions(const sd_fit *f, sd_fit_model m, size_t g, double *a);

/* The prediction request: gamma' = 1..gamma_max; the cost of an iteration
 * of gamma' drafts in target steps is cost[gamma' - 1] (1 + gamma' c for
 * eq. 10, gamma' c_eff + verify_cost_ratio under the roofline model), or no
 * cost (NULL: E(N) only, no improvement and no recommendation);
 * `replicates` bootstrap replicates (0: no intervals) from stream `seed`.
 * With cost_draws, the cost's own uncertainty joins the improvement's
 * interval: ncost_draws cost vectors drawn from its law (gamma_max entries
 * each, draw k at cost_draws[k * gamma_max]); replicate b is divided by
 * draw b mod ncost_draws (without replicates, E(N) by each draw). */
typedef struct {
    size_t gamma_max;
    const double *cost; /* gamma_max entries > 0, or NULL */
    size_t replicates;
    uint64_t seed;
    const double *cost_draws; /* ncost_draws x gamma_max entries > 0, or NULL */
    size_t ncost_draws;
} sd_fit_request;

/* The defaults of a fit where the caller has no reason for others (the
 * program's fit and the fit figure): the i.i.d. test's level, and the
 * bootstrap replicates (the seed is SD_RNG_DEFAULT_SEED, rng.h). */
#define SD_FIT_LEVEL 1e-3
#define SD_FIT_REPLICATES 400

/* SD_OK when rq is in its domain: gamma_max in [1, 4096]; with a cost,
 * every cost and every cost draw finite and > 0.  Else SD_EINVAL naming
 * the field (gamma_max, cost, cost_draws) and the entry at fault. */
SD_API sd_status sd_fit_request_check(const sd_fit_request *rq, sd_error *err);

/* The prediction at one draft length gamma' (sd_fit_predict). */
typedef struct {
    double expected_tokens, expected_tokens_lo, expected_tokens_hi; /* E(N) and its 95% bootstrap interval (the
                                                                     * point itself without replicates or counts) */
    double improvement, improvement_lo, improvement_hi; /* E(N) / cost and its 95% interval (with cost draws, theirs
                                                         * too); NaN without a cost */
    int extrapolated;                                   /* 1: gamma' beyond the measured gamma (the chosen model's) */
} sd_fit_prediction;

/* The predictions of c fitted as f (sd_fit_counts) at gamma' = 1..gamma_max,
 * into out[gamma' - 1] (rq->gamma_max entries): E(N) by
 * sd_fit_expected_tokens(f, f->chosen, gamma'), its interval from
 * rq->replicates bootstrap replicates (none for a gauge), and with a cost
 * the improvement.  SD_EINVAL as sd_fit_request_check, SD_ENOMEM, SD_EFAIL
 * (a replicate's fit); out is unspecified on failure. */
SD_API sd_status sd_fit_predict(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, sd_fit_prediction *out,
                                sd_error *err);

/* What a fit recommends (sd_fit_recommend_points). */
typedef struct {
    size_t gamma;        /* the recommended draft length; 0: do not speculate (no gamma' improves) */
    size_t best;         /* the gamma' of the largest improvement, in [1, gamma_max] (gamma when it pays) */
    double improvement, improvement_lo, improvement_hi;         /* best's, with its 95% interval */
    double expected_tokens, expected_tokens_lo, expected_tokens_hi; /* best's E(N), with its 95% interval */
    size_t from, to;     /* the gamma' whose improvement reaches best's lower bound, a range around best
                          * (1-based; 0, 0 when gamma is 0) */
    int at_cap;          /* 1: gamma is gamma_max: a longer draft may be better (raise the cap) */
    int extrapolated;    /* 1: best lies beyond the measured draft length (the chosen model's prediction) */
    size_t gamma_max;    /* the predictions' range, 1..gamma_max */
} sd_fit_recommend;

/* The recommendation of the predictions p[0 .. n-1] (sd_fit_predict with a
 * cost, gamma' = 1..n), the one rule every report and caller uses: best is
 * the first gamma' of the largest improvement (the point estimate, not the
 * bounds); from..to grows from best one gamma' at a time on each side
 * while the improvement there is at least best's lower bound; gamma is best when its
 * improvement exceeds 1 (plain decoding), else 0; at_cap when gamma is n.
 * SD_EINVAL for n = 0 or an improvement that is NaN (predictions without a
 * cost); *out untouched on failure. */
SD_API sd_status sd_fit_recommend_points(const sd_fit_prediction *p, size_t n, sd_fit_recommend *out, sd_error *err);

#endif
