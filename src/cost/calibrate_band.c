/* calibrate_band.c -- the spread of a prediction under a fit's uncertainty
 * (calibrate.h): the terms drawn from the normal law of their covariance
 * (its Cholesky factor, GSL's multivariate Gaussian), and the quantiles of
 * the roofline over the draws.  O(draws x terms^2) for the draws. */
#include "specdec/calibrate.h"
#include "calibrate_impl.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_vector.h>

static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;

/* The Cholesky factor of c's covariance over its fitted terms into L (p x
 * p, lower), their indices into fi; *p = 0 when nothing was fitted. */
static int factor(const sd_calibration *c, gsl_matrix **L, int *fi, size_t *p)
{
    size_t k = 0;
    for (int i = 0; i < SD_CAL_NTERMS; i++)
        if (c->hold[i] == SD_CAL_FITTED && c->cov[i][i] > 0.0)
            fi[k++] = i;
    *p = k;
    *L = NULL;
    if (k == 0)
        return GSL_SUCCESS;
    if ((*L = gsl_matrix_alloc(k, k)) == NULL)
        return GSL_ENOMEM;
    for (size_t a = 0; a < k; a++)
        for (size_t b = 0; b < k; b++)
            gsl_matrix_set(*L, a, b, c->cov[fi[a]][fi[b]]);
    /* A covariance that is not positive definite makes GSL call its error handler, which aborts by
     * default: off for the call, and the switch and restore under one lock, so that threads running
     * bands at once cannot interleave them and leave the caller's handler changed. */
    pthread_mutex_lock(&handler_lock);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int status = gsl_linalg_cholesky_decomp1(*L);
    gsl_set_error_handler(old);
    pthread_mutex_unlock(&handler_lock);
    return status;
}

/* One draw of c's terms into cp (within their domains; at most 1000 tries). */
static int draw(const sd_calibration *c, const gsl_matrix *L, const int *fi, size_t p, gsl_rng *rng,
                gsl_vector *mu, gsl_vector *x, sd_cost_params *cp)
{
    sd_calibrate_apply(c, cp);
    if (p == 0)
        return 1;
    for (size_t k = 0; k < p; k++)
        gsl_vector_set(mu, k, sd_calibrate_coord(fi[k], c->value[fi[k]]));
    for (int tries = 0; tries < 1000; tries++) {
        gsl_ran_multivariate_gaussian(rng, mu, L, x);
        int ok = 1;
        for (size_t k = 0; k < p && ok; k++) {
            int i = fi[k];
            double v = sd_calibrate_value(i, gsl_vector_get(x, k));
            ok = v >= SD_CALIBRATE_TERMS[i].lo && v <= SD_CALIBRATE_TERMS[i].hi;
            *sd_calibrate_term(cp, i) = v;
        }
        if (ok)
            return 1;
    }
    return 0;
}

sd_status sd_calibrate_draws(const sd_roofline_request *rq, const sd_calibration *c, const sd_calibration *cd,
                             size_t ndraws, unsigned long seed, sd_roofline_request *out, sd_error *err)
{
    if (!(ndraws >= 1 && ndraws <= 100000))
        return sd_status_fail(err, SD_EINVAL, "band: %zu draws; give 1..100000", ndraws);
    gsl_matrix *L = NULL, *Ld = NULL;
    int fi[SD_CAL_NTERMS], fid[SD_CAL_NTERMS];
    size_t p = 0, pd = 0;
    int s1 = factor(c, &L, fi, &p), s2 = cd != c ? factor(cd, &Ld, fid, &pd) : GSL_SUCCESS;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_vector *mu = gsl_vector_alloc(SD_CAL_NTERMS), *x = gsl_vector_alloc(SD_CAL_NTERMS);
    sd_status st = SD_OK;
    if (rng == NULL || mu == NULL || x == NULL || s1 == GSL_ENOMEM || s2 == GSL_ENOMEM)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    else if (s1 != GSL_SUCCESS || s2 != GSL_SUCCESS || p + pd == 0)
        st = sd_status_fail(err, SD_EINVAL, "band: the calibration of %s on %s has no covariance of fitted terms",
                            c->model, c->hardware);
    if (st == SD_OK) {
        gsl_rng_set(rng, seed);
        gsl_vector_view m1 = gsl_vector_subvector(mu, 0, p ? p : 1), x1 = gsl_vector_subvector(x, 0, p ? p : 1);
        gsl_vector_view m2 = gsl_vector_subvector(mu, 0, pd ? pd : 1), x2 = gsl_vector_subvector(x, 0, pd ? pd : 1);
        for (size_t k = 0; k < ndraws && st == SD_OK; k++) {
            sd_roofline_request *r = &out[k];
            *r = *rq;
            if (!draw(c, L, fi, p, rng, &m1.vector, &x1.vector, &r->params))
                st = SD_EINVAL;
            if (cd == c) {
                double tp = r->draft_params.tp;
                int graphs = r->draft_params.graphs;
                for (int i = 0; i < SD_CAL_NTERMS; i++)
                    *sd_calibrate_term(&r->draft_params, i) = sd_calibrate_term_of(&r->params, i);
                r->draft_params.tp = tp;
                r->draft_params.graphs = graphs;
            } else if (st == SD_OK && !draw(cd, Ld, fid, pd, rng, &m2.vector, &x2.vector, &r->draft_params))
                st = SD_EINVAL;
            if (st != SD_OK)
                st = sd_status_fail(err, SD_EINVAL, "band: 1000 draws in a row fell outside the terms' domains: the "
                                    "fit of %s on %s is too uncertain for a band", c->model, c->hardware);
        }
    }
    gsl_matrix_free(L), gsl_matrix_free(Ld), gsl_rng_free(rng), gsl_vector_free(mu), gsl_vector_free(x);
    return st;
}

sd_status sd_calibrate_band(const sd_roofline_request *rq, const sd_calibration *c, const sd_calibration *cd,
                            double batch, double context, size_t ndraws, double q, unsigned long seed,
                            sd_calibrate_band_out *out, sd_error *err)
{
    if (!(ndraws >= 10 && ndraws <= 100000) || !(q > 0.0 && q < 0.5))
        return sd_status_fail(err, SD_EINVAL, "band: %zu draws at quantile %g; give 10..100000 draws and q in (0, 0.5)",
                              ndraws, q);
    sd_roofline_request *r = malloc(ndraws * sizeof *r);
    double *v = malloc(3 * ndraws * sizeof *v);
    sd_status st = r == NULL || v == NULL ? sd_status_fail(err, SD_ENOMEM, "out of memory")
                                          : sd_calibrate_draws(rq, c, cd, ndraws, seed, r, err);
    for (size_t k = 0; k < ndraws && st == SD_OK; k++) {
        sd_roofline_point pt;
        sd_cost_roofline(&r[k], batch, context, &pt);
        v[k] = pt.improvement_opt;
        v[ndraws + k] = pt.tokens_per_second;
        v[2 * ndraws + k] = pt.gamma_opt;
    }
    if (st == SD_OK) {
        sd_calibrate_band_quantiles(v, ndraws, q, &out->improvement_lo, &out->improvement_hi);
        sd_calibrate_band_quantiles(v + ndraws, ndraws, q, &out->tokens_per_second_lo, &out->tokens_per_second_hi);
        gsl_sort(v + 2 * ndraws, 1, ndraws);
        out->gamma_lo = v[2 * ndraws];
        out->gamma_hi = v[3 * ndraws - 1];
    }
    free(r);
    free(v);
    return st;
}

void sd_calibrate_band_quantiles(double *v, size_t n, double q, double *lo, double *hi)
{
    gsl_sort(v, 1, n);
    *lo = gsl_stats_quantile_from_sorted_data(v, 1, n, q);
    *hi = gsl_stats_quantile_from_sorted_data(v, 1, n, 1.0 - q);
}
