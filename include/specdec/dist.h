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
#include <stdint.h>

#include <gsl/gsl_rng.h>

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

/* ---- sampling ----------------------------------------------------------
 * A CDF table over n outcomes: c[0] = 0, c[i+1] = c[i] + w[i].  Sampling is
 * inversion: for a uniform U in (0, 1) with 53 bits (see rng.h), the i with
 * c[i] <= U c[n] < c[i+1] (GSL's binary search, gsl_interp_bsearch), so an
 * outcome of weight 0 is never returned.  A guide table (Chen and Asau
 * 1974) of G = 2^bits cells, G the least power of two >= min(n,
 * SD_CDF_GUIDE), splits U's range: cell j holds the U whose top bits are j,
 * and guide[j] is the outcome of the cell's least U.  A cell whose least
 * and greatest U give one outcome is flagged pure: a draw there is decided
 * by U's top bits alone, with no look at c.  Elsewhere the search runs only
 * between guide[j] and guide[j + 1], one or two outcomes wherever the mass
 * is.  U is drawn lazily (rng.h): its top 32 bits first, its last 21 only
 * when the outcome depends on them.  The outcome is the plain search's for
 * the same U; only how many 32-bit draws a sample uses differs (1, rarely
 * 2).  Cost: O(n) to build; 4 (G + 1) bytes more.  (GSL's alias tables,
 * gsl_ran_discrete, were measured slower here at V >= 32000: their cells
 * are spread evenly over the whole table, a cache miss a draw, where a
 * head-heavy distribution keeps the guide and the head of c in cache.) */
#define SD_CDF_GUIDE_BITS 10u
#define SD_CDF_GUIDE (1u << SD_CDF_GUIDE_BITS)
#define SD_CDF_PURE 0x80000000u    /* guide flag: the cell has one outcome */
#define SD_CDF_MAX 0x7fffffffu     /* the most outcomes a sampler holds */
typedef struct {
    size_t n;
    double *c;          /* n + 1 cumulative weights */
    double total;       /* c[n] */
    double below_total; /* the double below c[n]: U c[n] rounded up to c[n] becomes it */
    uint32_t *guide;    /* G + 1 entries: outcome | SD_CDF_PURE (see above) */
    unsigned bits;      /* G = 2^bits */
} sd_cdf;

/* Builds *cdf from w[0..n-1], n >= 1 finite weights >= 0 with a positive
 * finite total (w is not kept); the caller releases it with sd_cdf_free.
 * SD_EINVAL otherwise, SD_ENOMEM; on failure *cdf is empty (n 0, c NULL). */
SD_API sd_status sd_cdf_init(sd_cdf *cdf, const double *w, size_t n, sd_error *err);
/* Frees cdf->c and leaves *cdf empty. */
SD_API void sd_cdf_free(sd_cdf *cdf);
/* An index in [0, n) drawn with probability w[i] / sum(w) from one uniform
 * of r; cdf must come from a successful sd_cdf_init.  Never fails. */
SD_API size_t sd_cdf_sample(const sd_cdf *cdf, gsl_rng *r);

/* Recursive rejection over k drafts from q (SpecInfer): r_1 = p, draft i is
 * accepted with probability min(1, r_i(x)/q(x)), r_{i+1} = norm(max(r_i - q,
 * 0)).  The probability that one of k drafts is accepted,
 * 1 - prod_{i=1..k} (1 - beta_i), beta_i = sum min(r_i, q); for k = 1 it is
 * beta (eq. 1); 0 for k = 0.  p and q are distributions over n tokens (not
 * checked); work is the caller's scratch of n doubles, overwritten.  Never
 * fails. */
SD_API double sd_dist_multi_acceptance(const double *p, const double *q, size_t n, size_t k, double *work);

#endif
