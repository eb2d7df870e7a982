/* cdf.c -- inversion of CDF tables behind guide cells (see cdf.h).
 *
 * Building costs O(n) plus one binary search per guide cell; a draw reads
 * one guide entry in a pure cell, else searches between two guide entries
 * (GSL's gsl_interp_bsearch). */
#include "specdec/cdf.h"
#include "cdf_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_interp.h>

/* u c[n], kept below c[n] (rounding can reach it): the point inversion searches for. */
static double cdf_point(const sd_cdf *cdf, double u)
{
    double x = u * cdf->total;
    return x < cdf->total ? x : cdf->below_total;
}

/* The outcome inversion gives u: the i with c[i] <= u c[n] < c[i+1], searched in [lo, hi). */
static size_t cdf_find(const sd_cdf *cdf, double u, size_t lo, size_t hi)
{
    return gsl_interp_bsearch(cdf->c, cdf_point(cdf, u), lo, hi);
}

sd_status sd_cdf_init(sd_cdf *cdf, const double *w, size_t n, sd_error *err)
{
    memset(cdf, 0, sizeof *cdf);
    if (n == 0)
        return sd_status_fail(err, SD_EINVAL, "n: an empty distribution (n = 0)");
    if (n > SD_CDF_MAX)
        return sd_status_fail(err, SD_EINVAL, "n: %zu outcomes; a sampler holds at most %u", n, SD_CDF_MAX);
    double *c = malloc((n + 1) * sizeof *c);
    if (c == NULL)
        return sd_status_fail(err, SD_ENOMEM, "sampler: out of memory for %zu outcomes", n);
    c[0] = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(w[i] >= 0.0 && w[i] < INFINITY)) {
            free(c);
            return sd_status_fail(err, SD_EINVAL, "w: weight %zu is %g; weights must be finite and >= 0", i, w[i]);
        }
        c[i + 1] = c[i] + w[i];
    }
    double total = c[n];
    if (!(total > 0.0 && total < INFINITY)) {
        free(c);
        return sd_status_fail(err, SD_EINVAL, "w: the weights sum to %g; need a finite positive total", total);
    }
    unsigned bits;
    size_t g = sd_cdf_cells(n, &bits);
    uint32_t *guide = malloc((g + 1) * sizeof *guide);
    if (guide == NULL) {
        free(c);
        return sd_status_fail(err, SD_ENOMEM, "sampler: out of memory for %zu outcomes", n);
    }
    cdf->n = n;
    cdf->c = c;
    cdf->total = total;
    cdf->below_total = nextafter(total, 0.0);
    cdf->bits = bits;
    /* Cell j holds U = K / 2^53 for K in [j 2^(53-bits), (j+1) 2^(53-bits) - 1] (K >= 1):
     * guide[j] is the outcome of its least U, flagged pure when its greatest U gives the
     * same outcome (inversion is monotone in U, so then every U of the cell does). */
    for (size_t j = 0; j < g; j++) {
        uint64_t kmin = (uint64_t)j << (53 - bits), kmax = ((uint64_t)(j + 1) << (53 - bits)) - 1;
        size_t lo = cdf_find(cdf, (double)(kmin ? kmin : 1) * 0x1p-53, 0, n);
        size_t hi = cdf_find(cdf, (double)kmax * 0x1p-53, lo, n);
        guide[j] = (uint32_t)lo | (lo == hi ? SD_CDF_PURE : 0u);
    }
    guide[g] = (uint32_t)(n - 1);
    cdf->guide = guide;
    return SD_OK;
}

void sd_cdf_free(sd_cdf *cdf)
{
    free(cdf->c);
    free(cdf->guide);
    memset(cdf, 0, sizeof *cdf);
}

size_t sd_cdf_draw_rest(const sd_cdf *cdf, gsl_rng *r, uint32_t a)
{
    if (a == 0) /* U's interval holds K = 0: draw U whole (probability 2^-32) */
        return cdf_find(cdf, sd_rng_u53_finish(r, a), 0, cdf->n);
    size_t j = (size_t)((uint64_t)a >> (32 - cdf->bits));
    size_t lo = cdf->guide[j] & ~SD_CDF_PURE, hi = (size_t)(cdf->guide[j + 1] & ~SD_CDF_PURE) + 1;
    size_t i = cdf_find(cdf, sd_rng_u53_lo(a), lo, hi);
    if (cdf_point(cdf, sd_rng_u53_hi(a)) < cdf->c[i + 1]) /* every U with these top bits gives i */
        return i;
    return cdf_find(cdf, sd_rng_u53_finish(r, a), i, hi);
}

size_t sd_cdf_sample(const sd_cdf *cdf, gsl_rng *r) { return sd_cdf_draw(cdf, r); }

size_t sd_cdf_sample_weights(const double *w, size_t n, double *cum, gsl_rng *r)
{
    cum[0] = 0.0;
    for (size_t i = 0; i < n; i++)
        cum[i + 1] = cum[i] + w[i];
    if (!(cum[n] > 0.0))
        return n;
    double x = gsl_rng_uniform_pos(r) * cum[n];
    if (!(x < cum[n]))
        x = nextafter(cum[n], 0.0);
    return gsl_interp_bsearch(cum, x, 0, n);
}
