/* cdf.h -- sampling an outcome from weights by inversion of a CDF table.
 *
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
 * head-heavy distribution keeps the guide and the head of c in cache.)
 */
#ifndef SPECDEC_CDF_H
#define SPECDEC_CDF_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/status.h"

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

#endif
