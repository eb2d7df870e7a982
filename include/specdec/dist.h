/* dist.h -- probability vectors over a vocabulary.
 *
 * A distribution file holds one probability per line, or
 * "label<TAB>probability" lines (all lines alike); blank lines and lines
 * starting with # are skipped.  Probabilities must be finite, in [0, 1] and
 * sum to 1 within SD_DIST_SUM_TOL; the loaded vector is divided by its sum.
 */
#ifndef SPECDEC_DIST_H
#define SPECDEC_DIST_H

#include <stddef.h>

#include "specdec/status.h"

#define SD_DIST_SUM_TOL 1e-6
#define SD_VOCAB_MAX 4194304u /* 2^22 tokens */

typedef struct {
    size_t n;      /* vocabulary size, >= 1 */
    double *p;     /* n probabilities summing to 1 */
    char **labels; /* n labels, or NULL when the file had none */
} sd_dist;

/* Loads path into *d (p divided by its sum), which the caller releases
 * with sd_dist_free.  SD_EINVAL names the file (and line) when it cannot be
 * opened or read, is malformed or empty, has more than SD_VOCAB_MAX lines,
 * or fails sd_dist_check; SD_ENOMEM.  On failure *d is untouched and
 * nothing is held. */
SD_API sd_status sd_dist_load(const char *path, sd_dist *d, sd_error *err);

/* Checks that p[0..n-1] is a distribution as above, 1 <= n <= SD_VOCAB_MAX
 * (name is used in messages).  SD_EINVAL, the only failure, says which
 * entry or the sum is wrong.  Writes nothing else. */
SD_API sd_status sd_dist_check(const double *p, size_t n, const char *name, sd_error *err);

/* Frees d's arrays and leaves *d empty. */
SD_API void sd_dist_free(sd_dist *d);

/* Checks that p and q share a vocabulary: the same size and, when both have
 * labels, the same labels in the same order.  SD_EINVAL, the only failure,
 * names the first difference (with p_name and q_name). */
SD_API sd_status sd_dist_compatible(const sd_dist *p, const sd_dist *q, const char *p_name,
                             const char *q_name, sd_error *err);

/* The next two take distributions p, q over n tokens (not checked) and
 * never fail. */

/* beta = sum_x min(p(x), q(x)), eq. (1): the probability that speculative
 * sampling accepts x ~ q.  In [0, 1]; 1 iff p = q, 0 iff disjoint supports. */
SD_API double sd_dist_overlap(const double *p, const double *q, size_t n);

/* D_LK(p, q) = sum_x |p(x) - M(x)| = sum_x |p(x) - q(x)| / 2, eqs. (5)-(6):
 * the total variation distance.  Computed from |p - q| directly, so that
 * D_LK = 1 - beta (eq. 6) is an identity the tests can check. */
SD_API double sd_dist_tv(const double *p, const double *q, size_t n);

/* The deterministic-draft acceptance p(argmax q) of distributions p and q
 * over n tokens (not checked): where q ties for its maximum, the tied token
 * p ranks first (the largest p), as the rule's rank space does (verify.h).
 * In [0, 1]; never fails. */
SD_API double sd_dist_point_acceptance(const double *p, const double *q, size_t n);

/* The exact-match acceptance sum_x p(x) q(x) of distributions p and q over
 * n tokens (not checked): the probability that x ~ q and y ~ p, drawn
 * independently, agree (verify.h, exact-match).  In [0, 1] (clipped: a sum
 * of n roundings may pass 1 when p = q is a point mass); at most
 * min(max p, max q) and, since p q <= min(p, q), at most beta (eq. 1),
 * with equality iff p = q is a point mass or p and q have disjoint
 * supports (both 0).  Never fails. */
SD_API double sd_dist_match_acceptance(const double *p, const double *q, size_t n);

/* A rule's acceptance as a function of the distributions p and q over n
 * tokens: sd_dist_overlap, sd_dist_point_acceptance, sd_dist_match_acceptance
 * (verify.h: sd_verify_dist_acceptance gives each rule's). */
typedef double (*sd_dist_acceptance_fn)(const double *p, const double *q, size_t n);

/* Recursive rejection over k drafts from q (SpecInfer): r_1 = p, draft i is
 * accepted with probability min(1, r_i(x)/q(x)), r_{i+1} = norm(max(r_i - q,
 * 0)).  The probability that one of k drafts is accepted,
 * 1 - prod_{i=1..k} (1 - beta_i), beta_i = sum min(r_i, q); for k = 1 it is
 * beta (eq. 1); 0 for k = 0.  p and q are distributions over n tokens (not
 * checked); work is the caller's scratch of n doubles, overwritten.  Never
 * fails. */
SD_API double sd_dist_multi_acceptance(const double *p, const double *q, size_t n, size_t k, double *work);

/* The per-rank acceptance of a token tree's children (tree.h) below a node whose target
 * and draft distributions are p and q over n tokens: out[k], k = 0 .. ranks - 1, the
 * probability that the child of rank k is the one accepted.
 *   sampled 0, deterministic top-k children (EAGLE): the children are q's ranks most
 *     likely tokens x_0, x_1, ... (ties to the lower index), tried in order, x_k accepted
 *     with the residual's probability r(x_k) / r(all), the residual zeroed at x_k after a
 *     rejection: out[k] = p(x_k), whichever siblings are drafted (0 for k >= n);
 *   sampled 1, children drawn i.i.d. from q (SpecInfer's recursive rejection, as
 *     sd_dist_multi_acceptance): out[k] = beta_k prod_{j<k} (1 - beta_j), beta_j = sum
 *     min(r_j, q), r_0 = p, r_{j+1} = norm(max(r_j - q, 0)).
 * Either way sum_k out[k] <= 1.  p and q are distributions (not checked); work holds n
 * doubles, overwritten.  Never fails. */
SD_API void sd_dist_rank_acceptance(const double *p, const double *q, size_t n, size_t ranks, int sampled,
                                    double *out, double *work);

#endif
