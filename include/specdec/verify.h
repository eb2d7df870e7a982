/* verify.h -- verification rules, chosen by name from one table.
 *
 * A rule sees one iteration of the seed's Algorithm 1 after drafting: the
 * contexts at positions 1..gamma+1 (ctx[i] holds p_{i+1} and q_{i+1}) and
 * the drafted ranks x_1..x_gamma (x_i in ctx[i-1]'s rank space).  It
 * returns n, the number of drafts accepted, and the rank of the one token it
 * adds from ctx[n]: the resampled token after the first rejection, or the
 * bonus token when all gamma drafts pass.
 *
 *   adjusted  accept x ~ q with probability min(1, p(x)/q(x)); on rejection
 *             resample from norm(max(0, p - q)).  Lossless: the output
 *             follows p exactly.
 *   target    the seed's Case 1: resample from p instead.  Biased
 *             (P(x) = min(p, q)(x) + (1 - beta) p(x)); it exists to show that.
 *   greedy    temperature 0: drafts are q's argmax, accepted while they
 *             equal p's argmax; the added token is p's argmax.
 *   block     block verification (Sun, Ro, Beirami and Suresh, ICLR 2025,
 *             arXiv 2403.10444): P_0 = 1, P_i = min(1, P_{i-1} p_i(X_i)/q_i(X_i));
 *             h_i = Z_i / (Z_i + 1 - P_i) with Z_i = sum max(P_i p_{i+1} - q_{i+1}, 0)
 *             for i < gamma, h_gamma = P_gamma, h_0 = 1; going down from
 *             i = gamma, stop at the first i with a uniform <= h_i: that is
 *             tau; emit X_1..X_tau and one token from p_{gamma+1} (tau = gamma)
 *             or norm(max(P_tau p_{tau+1} - q_{tau+1}, 0)).  Lossless, and never
 *             fewer tokens per iteration than token-wise verification.  Costs
 *             O(gamma V) per iteration (the Z_i); a single position is
 *             token-wise.
 *   deterministic-draft
 *             vLLM's rule when the drafter gives no probabilities (n-gram
 *             and EAGLE proposers; vLLM docs, "Speculative Decoding",
 *             rejection sampler): the draft is x = argmax q (ties: the
 *             lowest rank, i.e. the token p ranks higher) and q is taken as
 *             the point mass on x.  x is accepted with probability
 *             min(1, p(x)/1) = p(x); on rejection the token comes from
 *             norm(max(0, p - delta_x)) = norm(p with x zeroed).  Lossless:
 *             p(x) delta_x + (1 - p(x)) p(y) 1[y != x] / (1 - p(x)) = p.  Its
 *             acceptance is p(argmax q), not sum min(p, q).
 *   exact-match
 *             vLLM's "strict" mode and mlx-lm's default: the draft x ~ q,
 *             the target's own token y ~ p drawn independently; x is
 *             accepted iff y = x, else y is emitted.  Lossless (the token
 *             emitted is always y).  Its acceptance is sum_x p(x) q(x)
 *             (dist.h, sd_dist_match_acceptance), below beta = sum min(p, q)
 *             (eq. 1: p q <= min(p, q)) except where p = q is a point mass
 *             (both 1) or the supports are disjoint (both 0).  Run in the
 *             equivalent form of deterministic-draft's functions with the
 *             sampled x: accept with probability p(x), else draw from
 *             norm(p with x zeroed).  Why: the table's accept and resample
 *             are two calls and y cannot pass from one to the other, and the
 *             test costs one lazy uniform instead of a draw from p.  Proof:
 *             given x, P(y = x) = p(x) and the law of y given y != x is
 *             norm(p with x zeroed), the two laws the form draws; so
 *             (accepted, emitted) has the literal rule's joint law.
 *
 * Accepting uses a uniform u in (0, 1) and the strict test u q(x) < p(x):
 * a token with p(x) = 0 is never accepted, and one with q(x) = 0 is
 * accepted whenever p(x) > 0.
 */
#ifndef SPECDEC_VERIFY_H
#define SPECDEC_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/dist.h"
#include "specdec/synth.h"

/* A rule: opaque; look it up by name. */
typedef struct sd_verifier sd_verifier;

/* Rules are static: never freed.  None of the functions below fails. */

/* The rule named name (not NULL), or NULL when there is none. */
SD_API const sd_verifier *sd_verify_find(const char *name);
/* The i-th rule of the table, i = 0, 1, ...; NULL past the last. */
SD_API const sd_verifier *sd_verify_at(size_t i);
/* "adjusted, target, greedy, block, deterministic-draft, exact-match": the
 * table's names, for messages and
 * help, in a per-thread buffer that the next call in the same thread
 * overwrites. */
SD_API const char *sd_verify_names(void);
/* The rules' names in the table's order, ending with NULL (static), as a
 * choice's names (sd_verify_find takes each). */
SD_API const char *const *sd_verify_name_list(void);

/* The rule's name and one-line summary (static strings). */
SD_API const char *sd_verify_name(const sd_verifier *v);
SD_API const char *sd_verify_summary(const sd_verifier *v);
/* 1 when drafts are q's argmax (greedy, deterministic-draft), else 0. */
SD_API int sd_verify_is_greedy(const sd_verifier *v);
/* 1 when the rule verifies a whole block at once (block), 0 when it is
 * token-wise and so also serves one position. */
SD_API int sd_verify_is_blockwise(const sd_verifier *v);
/* 1 when the rule's output follows p exactly (adjusted, block,
 * deterministic-draft, exact-match; greedy follows p's argmax), 0 for the
 * biased control (target). */
SD_API int sd_verify_is_lossless(const sd_verifier *v);

/* A drafted rank in c's rank space: a draw from q (one uniform of r), or
 * q's argmax for greedy rules (r unused). */
SD_API uint32_t sd_verify_draft(const sd_verifier *v, const sd_context *c, gsl_rng *r);

/* The probability that v accepts a draft at c: beta (eq. 1); for greedy
 * 1 when q's argmax is p's, else 0; for deterministic-draft p(argmax q);
 * for exact-match sum p q.  In [0, 1]. */
SD_API double sd_verify_acceptance(const sd_verifier *v, const sd_context *c);

/* v's acceptance at one position as a function of the two distributions
 * (dist.h), for pairs that are not a model's contexts: sd_dist_overlap
 * (eq. 1) for adjusted, target and block, sd_dist_point_acceptance for
 * deterministic-draft, sd_dist_match_acceptance for exact-match; NULL for
 * greedy, whose acceptance (do the argmaxes agree) turns on how ties are
 * ranked.  On a context's p and q it equals sd_verify_acceptance. */
SD_API sd_dist_acceptance_fn sd_verify_dist_acceptance(const sd_verifier *v);

/* The distribution of the token v emits at one position c (accept, or
 * resample after a rejection) into the caller's out[0..n-1], n = the
 * model's vocabulary (not checked), in c's rank space.  For a lossless
 * token-wise rule it is p. */
SD_API void sd_verify_output(const sd_verifier *v, const sd_context *c, size_t n, double *out);

/* The mean over m's contexts of v's acceptance at each, in [0, 1] (for
 * markov models the two regimes' halves weigh alike, as their stationary
 * shares do). */
SD_API double sd_verify_mean_acceptance(const sd_verifier *v, const sd_model *m);

#endif
