/* cdf_impl.h -- the private half of cdf: the inline draw the engine uses,
 * and sampling from weights made on the fly. */
#ifndef SPECDEC_CDF_IMPL_H
#define SPECDEC_CDF_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/cdf.h"
#include "rng_impl.h"

/* G, the guide cells of a sampler over n outcomes (cdf.h): the least power
 * of two >= min(n, SD_CDF_GUIDE); its log2 in *bits when bits is not NULL. */
static inline size_t sd_cdf_cells(size_t n, unsigned *bits)
{
    unsigned b = 0;
    while (b < SD_CDF_GUIDE_BITS && ((size_t)1 << b) < n)
        b++;
    if (bits != NULL)
        *bits = b;
    return (size_t)1 << b;
}

/* sd_cdf_sample, its common case inline (the engine draws with it): U's
 * top 32 bits are one draw a, and a pure guide cell (cdf.h) decides the
 * outcome from them alone.  The rest -- a mixed cell, or a = 0 -- is
 * sd_cdf_draw_rest, given the draw a. */
size_t sd_cdf_draw_rest(const sd_cdf *cdf, gsl_rng *r, uint32_t a);
static inline size_t sd_cdf_draw(const sd_cdf *cdf, gsl_rng *r)
{
    uint32_t a = (uint32_t)gsl_rng_get(r);
    uint32_t gj = cdf->guide[(uint64_t)a >> (32 - cdf->bits)];
    return (gj & SD_CDF_PURE) && a != 0 ? gj & ~SD_CDF_PURE : sd_cdf_draw_rest(cdf, r, a);
}

/* An index drawn with probability w[i] / sum(w), building the cumulative
 * sums in cum[0..n] (caller's buffer, n + 1 doubles): for distributions made
 * on the fly (block and multi-draft residuals).  Returns n when the weights
 * sum to 0. */
size_t sd_cdf_sample_weights(const double *w, size_t n, double *cum, gsl_rng *r);

#endif
