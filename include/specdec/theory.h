/* theory.h -- the closed forms of speculative decoding.
 *
 * Equation numbers are those of shared/seed/speculative-decoding-part1.txt:
 *   alpha  expected acceptance rate, E(beta), eq. (7)          domain [0, 1]
 *   gamma  draft length: drafts per iteration                  domain [0, inf), whole numbers
 *   cost   c = T_Mq / T_Mp, eq. (8)                            domain [0, inf)
 *   mu     F_Mq / F_Mp, the FLOP ratio of eq. (11)             domain [0, inf)
 * N is the number of tokens one iteration emits (accepted drafts plus the
 * resampled or bonus token), so 1 <= N <= gamma + 1.
 *
 * Every quantity is a pure number: c and mu are ratios, E(N) and N count
 * tokens per iteration.  The functions returning a double never fail: they
 * return NaN outside their domain (callers such as the CLI validate
 * first).  gamma is a double so that gamma up to 2^53 is exact; fractional
 * gamma gives the analytic continuation of eq. (4), which the continuous
 * optimum uses.
 */
#ifndef SPECDEC_THEORY_H
#define SPECDEC_THEORY_H

#include <stddef.h>

#include "specdec/status.h"

/* E(N) = (1 - alpha^(gamma+1)) / (1 - alpha) = sum_{j=0..gamma} alpha^j, eq. (4).
 * Limits: alpha = 0 gives 1; alpha = 1 gives gamma + 1 (and alpha -> 1
 * tends to it continuously); gamma -> inf gives 1/(1 - alpha).
 * Computed as the sum of its first min(gamma, 8) + 1 terms by Horner's rule
 * (positive terms) plus, beyond, alpha^9 times the tail's closed form
 * -expm1((gamma - 8) log alpha) / (1 - alpha) (no cancellation): a few ulp of
 * relative error for every alpha in [0, 1] and gamma up to 2^53, at most 2
 * ulp a Horner term; it never decreases in gamma. */
SD_API double sd_theory_expected_tokens(double alpha, double gamma);

/* P(N = n), eqs. (2) and (3): alpha^(n-1) (1 - alpha) for n = 1..gamma and
 * alpha^gamma for n = gamma + 1; 0 for any other finite n, whole or not
 * (NaN for infinite n).  0^0 = 1. */
SD_API double sd_theory_pmf(double alpha, double gamma, double n);

/* P(N >= n) = alpha^(n-1) for n = 1..gamma+1 (the derivation of eq. 4);
 * 1 for n <= 1, 0 for n > gamma + 1, alpha^(ceil(n)-1) between (NaN for
 * infinite n). */
SD_API double sd_theory_survival(double alpha, double gamma, double n);

/* The relative iteration cost 1 + gamma c, eq. (9) divided by T: in units
 * of one target step. */
SD_API double sd_theory_cost_factor(double gamma, double cost);

/* Wall-time improvement f(gamma) = E(N) / (1 + gamma c), eq. (10).
 * At gamma = 1 it is (1 + alpha) / (1 + c). */
SD_API double sd_theory_improvement(double alpha, double gamma, double cost);

/* Eq. (10) at a given E(N) = tokens: tokens / (1 + gamma c), for E(N) from
 * any source (a per-position vector, a Markov model, a measurement).
 * tokens >= 1; NaN outside the domain. */
SD_API double sd_theory_improvement_at(double tokens, double gamma, double cost);

/* Eq. (11) at a given E(N) = tokens: (gamma mu + gamma + 1) / tokens.
 * tokens >= 1; NaN outside the domain. */
SD_API double sd_theory_flop_factor_at(double tokens, double gamma, double mu);

/* FLOP factor (gamma mu + gamma + 1) / E(N), eq. (11): arithmetic per
 * emitted token relative to standard decoding.  At alpha = 1 it is
 * (gamma mu + gamma + 1) / (gamma + 1). */
SD_API double sd_theory_flop_factor(double alpha, double gamma, double mu);

/* The oracle ceiling 1 / (1 - alpha), the limit of eq. (4) as gamma -> inf;
 * +inf at alpha = 1. */
SD_API double sd_theory_ceiling(double alpha);

typedef struct {
    double gamma_opt;           /* whole gamma >= 1 maximising eq. (10); 0 = do not speculate; +inf = unbounded */
    double improvement_opt;     /* f(gamma_opt); 1 when gamma_opt = 0; the supremum when unbounded */
    double expected_tokens_opt; /* E(N) at gamma_opt; 1 when gamma_opt = 0; the limit when unbounded */
    double gamma_continuous;    /* real gamma >= 0 maximising eq. (10) (Lambert W stationary point) */
    double ceiling;             /* 1 / (1 - alpha) */
} sd_optimum;

/* The optimal draft length for eq. (10), in O(1).
 *
 * Do not speculate (gamma_opt = 0) exactly when alpha <= c: f(gamma) > 1
 * iff sum_{j=1..gamma} alpha^j > gamma c; if alpha <= c every term
 * alpha^j <= alpha <= c, so no gamma helps; if alpha > c, gamma = 1 already
 * gives f(1) = (1 + alpha)/(1 + c) > 1.
 * Unbounded: c = 0 with alpha > 0 (f increases to 1/(1 - alpha)) and
 * alpha = 1 with c < 1 (f increases to 1/c); gamma_opt = +inf.
 * Otherwise the stationary point of eq. (10) is
 *     gamma* = ln(v) / (-ln alpha) - 1,   v - ln v = 1 + d,
 *     d = (-ln alpha)(1 - c)/c,           v = -W_{-1}(-e^{-(1+d)}),
 * f is quasi-concave in gamma, so the whole optimum is floor or ceil of
 * gamma*.  SD_EINVAL when alpha or cost is outside its domain (*opt is then
 * untouched); SD_EFAIL when a GSL routine fails and SD_ENOMEM when its
 * solver cannot be allocated (*opt is then unspecified). */
SD_API sd_status sd_theory_optimal(double alpha, double cost, sd_optimum *opt, sd_error *err);

/* ---- beyond i.i.d. acceptance ------------------------------------------------ */

/* E(N) for any pattern of dependence: 1 + sum_{k=1..gamma} prod_{i<=k} a_i,
 * where a_i = a[i-1] in [0, 1] is the acceptance of draft i given drafts
 * 1..i-1 were accepted (the derivation of eq. 4 without the i.i.d. step).
 * With every a_i = alpha it is eq. (4).  NaN when an a_i is outside
 * [0, 1]. */
SD_API double sd_theory_expected_tokens_vec(const double *a, size_t gamma);

/* The best gamma in 0..n for the vector a[0..n-1] at cost c: the largest
 * E(N)/(1 + gamma c), by a scan (O(n)); 0 when no gamma gives f > 1.
 * gamma_continuous and ceiling are not defined for vectors (NaN).
 * SD_EINVAL when cost is outside [0, inf) (*opt untouched) or an a_i is
 * outside [0, 1] (*opt unspecified: the scan so far). */
SD_API sd_status sd_theory_optimal_vec(const double *a, size_t n, double cost, sd_optimum *opt, sd_error *err);

/* The engine's two-state Markov acceptance (synth.h): each position is
 * easy (acceptance a_easy) or hard (a_hard) and keeps its state into the
 * next position with probability stay, every emitted token being one step.
 * E(N) by transfer matrices: with w_k[r] = P(drafts 1..k accepted, state r
 * at position k+1), w_{k+1} = w_k diag(a) T, P(N > k) = |w_k|; the state at
 * an iteration's start follows the chain Q[r0][.] = P(next start | r0),
 * whose stationary law weighs E(N | r0).  That is the long-run tokens per
 * iteration the engine measures.  Domain: a in [0, 1], stay in [0, 1),
 * gamma whole; NaN outside the domain. */
typedef struct {
    double a_easy, a_hard, stay;
} sd_markov;

SD_API double sd_theory_markov_expected_tokens(const sd_markov *m, double gamma);
/* The stationary mean acceptance per position, (a_easy + a_hard) / 2 (the
 * chain is symmetric).  Never fails; m's domain is not checked. */
SD_API double sd_theory_markov_mean_alpha(const sd_markov *m);
/* P(drafts 1..k all accepted) in an iteration of draft length gamma, the
 * start state following its stationary law as above: the unconditional
 * per-position acceptance engines count (vLLM's accepted_tokens_per_pos).
 * k whole in [0, gamma]: 1 at k = 0; sum over k = 0..gamma is E(N).  NaN
 * outside the domain; never fails otherwise.  O(log gamma). */
SD_API double sd_theory_markov_survival(const sd_markov *m, double gamma, double k);

/* A two-state Markov acceptance (sd_markov above) fitted to a sequence
 * a[0..n-1], n >= 1: the n/2 smallest values (ties broken by GSL's
 * gsl_sort_index, deterministically) are the hard state, the others easy, so the states hold equal shares as
 * the symmetric chain's stationary law does; a_easy and a_hard are the
 * two halves' means, stay the share of neighbours in the same state.  With
 * one state (n = 1), or a stay of 1 (impossible with both states in one
 * sequence), stay is 1/2.  Never fails. */
SD_API sd_markov sd_theory_markov_fit(const double *a, size_t n);


/* ---- engine metrics ----------------------------------------------------------- */

/* What serving engines report for i.i.d. acceptance alpha at draft length
 * gamma >= 1, each from eq. (4):
 *   acceptance_rate         accepted / drafted tokens = (E(N) - 1) / gamma
 *                           (vLLM V1's "draft acceptance rate": accepted
 *                           tokens up to the first rejection, per draft token)
 *   mean_acceptance_length  E(N), the bonus token included (vLLM V1's
 *                           "mean acceptance length")
 *   system_efficiency       E(N) / (gamma + 1) (vLLM V0's "system efficiency")
 * The per-position rate at position i is sd_theory_survival(alpha, gamma, i + 1).
 * Never fails: a field is NaN where eq. (4) is (alpha or gamma outside its
 * domain), and acceptance_rate is NaN at gamma = 0. */
typedef struct {
    double acceptance_rate, mean_acceptance_length, system_efficiency;
} sd_metrics;

SD_API sd_metrics sd_theory_metrics(double alpha, double gamma);

/* The alpha in [0, 1] whose E(N) (eq. 4) at gamma is mean_length, by GSL's
 * Brent solver, into *alpha.  SD_EINVAL when gamma is outside [1, inf) or
 * mean_length outside [1, gamma + 1]; SD_ENOMEM when the solver cannot be
 * allocated (*alpha untouched on both); SD_EFAIL when it does not converge
 * (*alpha then holds its last iterate). */
SD_API sd_status sd_theory_alpha_from_length(double mean_length, double gamma, double *alpha, sd_error *err);
/* The alpha whose acceptance rate (E(N) - 1) / gamma is rate, rate in
 * [0, 1]: sd_theory_alpha_from_length at 1 + rate gamma, with its statuses
 * and outputs. */
SD_API sd_status sd_theory_alpha_from_rate(double rate, double gamma, double *alpha, sd_error *err);

#endif
