/* calibrate_fit.c -- the least squares of calibrate.h: each group's terms
 * fitted to its rows' relative residuals (GSL multifit_nlinear), the rules
 * that hold a term the rows do not identify, the groups, and leave-one-out.
 * One fit costs O(iterations x rows x terms) step-time evaluations;
 * leave-one-out repeats the whole procedure once a row. */
#include "specdec/calibrate.h"
#include "calibrate_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "specdec/presets.h"

/* One group: its rows (indices into all, with their presets), the priors,
 * and how each term stands (SD_CAL_FITTED: free). */
typedef struct {
    const sd_step_time *all;
    const sd_model_spec *const *m; /* per row of all */
    const sd_hardware *const *h;
    const size_t *idx;
    size_t n;
    sd_cost_params base;
    int hold[SD_CAL_NTERMS];
} group;

static size_t nfree(const group *g)
{
    size_t p = 0;
    for (int i = 0; i < SD_CAL_NTERMS; i++)
        p += g->hold[i] == SD_CAL_FITTED;
    return p;
}

static sd_cost_params params_of(const group *g, const gsl_vector *x)
{
    sd_cost_params cp = g->base;
    for (int i = 0, k = 0; i < SD_CAL_NTERMS; i++)
        if (g->hold[i] == SD_CAL_FITTED) {
            double v = gsl_vector_get(x, (size_t)k++);
            *sd_calibrate_term(&cp, i) = sd_calibrate_value(i, v);
        }
    return cp;
}

static double predict_row(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp,
                          const sd_step_time *r)
{
    sd_cost_params c = *cp;
    c.tp = r->tp;
    c.graphs = r->graphs;
    return sd_cost_step_time(m, h, &c, r->batch, r->tokens, r->context, NULL);
}

static double predict(const group *g, const sd_cost_params *cp, size_t i)
{
    size_t j = g->idx[i];
    return predict_row(g->m[j], g->h[j], cp, &g->all[j]);
}

/* The relative residuals (t_model - t) / t. */
static int residuals(const gsl_vector *x, void *data, gsl_vector *f)
{
    const group *g = data;
    sd_cost_params cp = params_of(g, x);
    for (size_t i = 0; i < g->n; i++) {
        double t = g->all[g->idx[i]].seconds;
        gsl_vector_set(f, i, (predict(g, &cp, i) - t) / t);
    }
    return GSL_SUCCESS;
}

/* Levenberg-Marquardt over the free terms from x; the Jacobian at the
 * solution into J (n x p), the solution into x. */
static int solve(group *g, size_t p, gsl_vector *x, gsl_matrix *J, double *chisq)
{
    gsl_multifit_nlinear_fdf fdf = { .f = residuals, .df = NULL, .fvv = NULL, .n = g->n, .p = p, .params = g };
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, g->n, p);
    if (w == NULL)
        return GSL_ENOMEM;
    int info, status = gsl_multifit_nlinear_init(x, &fdf, w);
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver(500, 1e-10, 1e-10, 1e-12, NULL, NULL, &info, w);
    if (status == GSL_EMAXITER) /* a flat direction (a term the rows barely see): the holding rules decide */
        status = GSL_SUCCESS;
    if (status == GSL_SUCCESS) {
        gsl_vector_memcpy(x, gsl_multifit_nlinear_position(w));
        gsl_matrix_memcpy(J, gsl_multifit_nlinear_jac(w));
        gsl_blas_ddot(gsl_multifit_nlinear_residual(w), gsl_multifit_nlinear_residual(w), chisq);
    }
    gsl_multifit_nlinear_free(w);
    return status;
}

/* The free term that too few rows give up first. */
static int first_to_drop(const group *g)
{
    int best = -1;
    for (int i = 0; i < SD_CAL_NTERMS; i++)
        if (g->hold[i] == SD_CAL_FITTED && (best < 0 || SD_CALIBRATE_TERMS[i].drop > SD_CALIBRATE_TERMS[best].drop))
            best = i;
    return best;
}

/* Residual statistics of g at cp into out; each row's time into predicted. */
static void finish(const group *g, const sd_cost_params *cp, double chisq, sd_calibration *out, double *predicted)
{
    out->rows = g->n;
    out->rms_rel_residual = sqrt(chisq / (double)g->n);
    out->max_rel_residual = 0.0;
    for (int i = 0; i < SD_CAL_NTERMS; i++) {
        out->value[i] = sd_calibrate_term_of(cp, i);
        out->hold[i] = g->hold[i];
    }
    for (size_t i = 0; i < g->n; i++) {
        double t = predict(g, cp, i), rel = fabs(t - g->all[g->idx[i]].seconds) / g->all[g->idx[i]].seconds;
        out->max_rel_residual = fmax(out->max_rel_residual, rel);
        if (predicted != NULL)
            predicted[g->idx[i]] = t;
    }
}

/* A Jacobian column under this norm: no row depends on its term. */
#define ZERO_COLUMN 1e-9
/* A term is identified when its standard error is at most this fraction of its value (an eta:
 * its logarithm's standard error at most this). */
#define IDENTIFIED 0.5

/* The residual statistics of g at its priors, nothing fitted, into *out. */
static void fit_priors(const group *g, sd_calibration *out, double *predicted)
{
    double chisq = 0.0;
    for (size_t i = 0; i < g->n; i++) {
        double t = g->all[g->idx[i]].seconds, r = (predict(g, &g->base, i) - t) / t;
        chisq += r * r;
    }
    finish(g, &g->base, chisq, out, predicted);
}

/* g's free terms into fi[0 .. p - 1] and their starting values (the priors, an eta as its
 * logarithm) into x. */
static void start(const group *g, gsl_vector *x, int *fi)
{
    for (int i = 0, k = 0; i < SD_CAL_NTERMS; i++)
        if (g->hold[i] == SD_CAL_FITTED) {
            fi[k] = i;
            double v = sd_calibrate_term_of(&g->base, i);
            gsl_vector_set(x, (size_t)k++, sd_calibrate_coord(i, v));
        }
}

/* Holds every free term whose column of J is zero (unused); 1 when one was. */
static int hold_unused(group *g, const gsl_matrix *J, const int *fi, size_t p)
{
    int held = 0;
    for (size_t k = 0; k < p; k++) {
        gsl_vector_const_view col = gsl_matrix_const_column(J, k);
        if (gsl_blas_dnrm2(&col.vector) < ZERO_COLUMN) {
            g->hold[fi[k]] = SD_CAL_UNUSED;
            held = 1;
        }
    }
    return held;
}

/* Holds at 0 the first free time whose best fit cp puts below 0 (then the best fit within
 * its domain is on the bound); 1 when one was. */
static int hold_bound(group *g, const sd_cost_params *cp, const int *fi, size_t p)
{
    for (size_t k = 0; k < p; k++)
        if (!SD_CALIBRATE_TERMS[fi[k]].log && sd_calibrate_term_of(cp, fi[k]) < 0.0) {
            g->hold[fi[k]] = SD_CAL_BOUND;
            *sd_calibrate_term(&g->base, fi[k]) = 0.0;
            return 1;
        }
    return 0;
}

/* The standard errors and covariance of the fit cp ((J^T J)^-1 s^2, the delta method for an
 * eta) into *out; the least identified free term (IDENTIFIED), or -1 when all are. */
static int standard_errors(const group *g, const gsl_matrix *J, gsl_matrix *cov, double chisq,
                           const sd_cost_params *cp, const int *fi, size_t p, sd_calibration *out)
{
    gsl_multifit_nlinear_covar(J, 0.0, cov);
    double s2 = chisq / (double)(g->n - p), worst = 1.0;
    int weakest = -1;
    for (size_t k = 0; k < p; k++) {
        int i = fi[k], log_term = SD_CALIBRATE_TERMS[i].log;
        double v = sd_calibrate_term_of(cp, i), se = sqrt(fmax(gsl_matrix_get(cov, k, k), 0.0) * s2);
        double ratio = log_term ? se / IDENTIFIED : se / (IDENTIFIED * fabs(v));
        if (!(ratio <= worst)) {
            worst = ratio;
            weakest = i;
        }
        out->se[i] = log_term ? v * se : se;
        for (size_t l = 0; l < p; l++)
            out->cov[i][fi[l]] = gsl_matrix_get(cov, k, l) * s2;
    }
    return weakest;
}

/* One least-squares fit of g's p free terms.  *held = 1 when the fit holds a term (unused,
 * bound, or weak: the least identified) and must be redone, else *out is the group's fit. */
static sd_status fit_round(group *g, size_t p, sd_calibration *out, double *predicted, int *held, sd_error *err)
{
    gsl_vector *x = gsl_vector_alloc(p);
    gsl_matrix *J = gsl_matrix_alloc(g->n, p), *cov = gsl_matrix_alloc(p, p);
    if (x == NULL || J == NULL || cov == NULL) {
        gsl_vector_free(x), gsl_matrix_free(J), gsl_matrix_free(cov);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    int fi[SD_CAL_NTERMS];
    start(g, x, fi);
    double chisq = 0.0;
    int status = solve(g, p, x, J, &chisq);
    *held = 0;
    if (status == GSL_SUCCESS && !(*held = hold_unused(g, J, fi, p))) {
        const sd_cost_params cp = params_of(g, x);
        if (!(*held = hold_bound(g, &cp, fi, p))) {
            int weakest = standard_errors(g, J, cov, chisq, &cp, fi, p, out);
            if (weakest >= 0) {
                g->hold[weakest] = SD_CAL_WEAK;
                *held = 1;
            } else
                finish(g, &cp, chisq, out, predicted);
        }
    }
    gsl_vector_free(x), gsl_matrix_free(J), gsl_matrix_free(cov);
    if (status != GSL_SUCCESS)
        return sd_status_fail(err, SD_EINVAL, "calibrate: %s on %s: the fit did not converge (%s)", out->model,
                              out->hardware, gsl_strerror(status));
    return SD_OK;
}

/* Fits one group into *out (its key fields untouched): terms are held as calibrate.h says,
 * one decision a round, and the fit redone. */
static sd_status fit_group(group *g, sd_calibration *out, double *predicted, sd_error *err)
{
    for (;;) {
        size_t p = nfree(g);
        memset(out->se, 0, sizeof out->se);
        memset(out->cov, 0, sizeof out->cov);
        if (p == 0) { /* nothing left to fit: the priors as they are */
            fit_priors(g, out, predicted);
            return SD_OK;
        }
        if (g->n <= p) { /* no residual degree of freedom: too few rows for so many terms */
            g->hold[first_to_drop(g)] = SD_CAL_WEAK;
            continue;
        }
        int held;
        sd_status st = fit_round(g, p, out, predicted, &held, err);
        if (st != SD_OK || !held)
            return st;
    }
}

/* The fit's values within what roofline accepts, else an error naming the term. */
static sd_status check_values(const sd_calibration *c, sd_error *err)
{
    for (int i = 0; i < SD_CAL_NTERMS; i++) {
        const sd_calibrate_term_info *t = &SD_CALIBRATE_TERMS[i];
        double v = c->value[i];
        if (i == SD_CAL_HOP_LATENCY && c->hold[i] != SD_CAL_FITTED)
            continue; /* the hardware's own (-1) or the prior */
        if (!(v >= t->lo && v <= t->hi))
            return sd_status_fail(err, SD_EINVAL, "calibrate: %s on %s: the best fit puts %s at %.4g, outside [%g, %g]%s: "
                                  "no efficiency explains these times (check the model, hardware and tp of the rows)",
                                  c->model, c->hardware, t->name, v, t->lo, t->hi, t->log ? "" : " s");
    }
    return SD_OK;
}

/* ---- the groups ----------------------------------------------------------------------------- */

/* What one run of the whole procedure shares. */
typedef struct {
    const sd_calibrate_request *rq;
    const sd_model_spec **m;
    const sd_hardware **h;
    size_t *idx;  /* scratch: a group's row indices */
    char *done;   /* scratch */
} run;

static const char *family_of(const sd_hardware *h) { return h->family[0] != '\0' ? h->family : h->name; }

/* The group's terms to try and their priors. */
static void group_init(const run *r, group *g, const sd_cost_params *base, const sd_hardware *h)
{
    *g = (group){ .all = r->rq->rows, .m = r->m, .h = r->h, .idx = r->idx, .base = *base };
    int any = 0;
    for (int i = 0; i < SD_CAL_NTERMS; i++)
        any |= r->rq->fit[i];
    for (int i = 0; i < SD_CAL_NTERMS; i++) {
        int want = any ? r->rq->fit[i] : i == SD_CAL_ETA_FLOPS || i == SD_CAL_ETA_BW || i == SD_CAL_OVERHEAD;
        g->hold[i] = want ? SD_CAL_FITTED : SD_CAL_FIXED;
    }
    if (g->hold[SD_CAL_HOP_LATENCY] == SD_CAL_FITTED && g->base.hop_latency < 0.0)
        g->base.hop_latency = h->link_latency; /* a start to fit from */
}

/* After a fit: a hop latency not fitted goes back to the prior (the hardware's when it was). */
static void group_restore(const sd_cost_params *prior, sd_calibration *c)
{
    if (c->hold[SD_CAL_HOP_LATENCY] != SD_CAL_FITTED)
        c->value[SD_CAL_HOP_LATENCY] = prior->hop_latency;
}

/* The whole procedure over rows[] without row skip (SIZE_MAX: none) into
 * fits (the caller's, nrows + 1 long); *nfits, predicted as sd_calibrate. */
static sd_status fit_all(run *r, size_t skip, sd_calibration *fits, size_t *nfits, double *predicted, sd_error *err)
{
    const sd_calibrate_request *rq = r->rq;
    const sd_step_time *rows = rq->rows;
    size_t n = rq->nrows, nf = 0;
    sd_status st = SD_OK;
    sd_cost_params pooled = rq->start;
    memset(r->done, 0, n ? n : 1);
    if (skip < n)
        r->done[skip] = 1;
    if (rq->by == SD_CALIBRATE_BY_FAMILY) {
        group g;
        group_init(r, &g, &rq->start, r->h[skip == 0 && n > 1 ? 1 : 0]);
        for (size_t j = 0; j < n; j++)
            if (j != skip)
                r->idx[g.n++] = j;
        sd_calibration *c = &fits[nf];
        *c = (sd_calibration){ .model = "*", .hardware = "*" };
        if ((st = fit_group(&g, c, predicted, err)) != SD_OK)
            return st;
        group_restore(&rq->start, c);
        if ((st = check_values(c, err)) != SD_OK)
            return st;
        sd_calibrate_apply(c, &pooled);
        nf++;
    }
    for (size_t i = 0; i < n && st == SD_OK; i++) {
        if (r->done[i])
            continue;
        const char *fam = family_of(r->h[i]);
        int by_family = rq->by == SD_CALIBRATE_BY_FAMILY;
        group g;
        group_init(r, &g, &pooled, r->h[i]);
        for (size_t j = i; j < n; j++)
            if (!r->done[j] && (by_family ? strcmp(family_of(r->h[j]), fam) == 0
                                          : r->m[j] == r->m[i] && r->h[j] == r->h[i])) {
                r->done[j] = 1;
                r->idx[g.n++] = j;
            }
        if (!by_family && g.n < 4) {
            if (skip < n) /* a group left one row short: not refitted */
                continue;
            return sd_status_fail(err, SD_EINVAL, "calibrate: %s on %s has %zu rows; at least 4 are needed to fit 3 "
                                  "terms with standard errors", rows[i].model, rows[i].hardware, g.n);
        }
        if (by_family && g.n < 2)
            continue; /* one row: the pooled fit serves it */
        sd_calibration *c = &fits[nf];
        *c = (sd_calibration){ 0 };
        snprintf(c->model, sizeof c->model, "%s", by_family ? "*" : rows[i].model);
        snprintf(c->hardware, sizeof c->hardware, "%s", by_family ? fam : rows[i].hardware);
        if ((st = fit_group(&g, c, predicted, err)) != SD_OK)
            return st;
        group_restore(&pooled, c);
        if ((st = check_values(c, err)) != SD_OK)
            return st;
        nf++;
    }
    for (size_t k = 0; k < nf; k++)
        snprintf(fits[k].granularity, sizeof fits[k].granularity, "%s", sd_cost_granularity_names()[rq->start.granularity]);
    *nfits = nf;
    return SD_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Leave-one-out: each row predicted by the procedure run without it;
 * each fit's median and largest |relative error| over its rows. */
static sd_status leave_one_out(run *r, sd_calibration *fits, size_t nfits, const double *predicted, double *loo,
                               sd_error *err)
{
    const sd_calibrate_request *rq = r->rq;
    size_t n = rq->nrows, nf;
    sd_calibration *scratch = calloc(n + 1, sizeof *scratch);
    double *rel = malloc((n ? n : 1) * sizeof *rel);
    if (scratch == NULL || rel == NULL) {
        free(scratch), free(rel);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        sd_error e2;
        loo[i] = predicted[i];
        if (fit_all(r, i, scratch, &nf, NULL, &e2) != SD_OK)
            continue; /* not refittable without it (see sd_calibrate) */
        const sd_calibration *c = sd_calibrate_find(scratch, nf, r->m[i], r->h[i]);
        if (c == NULL || (rq->by == SD_CALIBRATE_BY_MODEL_HARDWARE && strcmp(c->model, rq->rows[i].model) != 0))
            continue;
        sd_cost_params cp = rq->start;
        sd_calibrate_apply(c, &cp);
        loo[i] = predict_row(r->m[i], r->h[i], &cp, &rq->rows[i]);
    }
    for (size_t k = 0; k < nfits; k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (sd_calibrate_find(fits, nfits, r->m[i], r->h[i]) == &fits[k] || strcmp(fits[k].hardware, "*") == 0)
                rel[m++] = fabs(loo[i] - rq->rows[i].seconds) / rq->rows[i].seconds;
        qsort(rel, m, sizeof *rel, cmp_double);
        fits[k].loo_median = m ? (m % 2 ? rel[m / 2] : 0.5 * (rel[m / 2 - 1] + rel[m / 2])) : 0.0;
        fits[k].loo_max = m ? rel[m - 1] : 0.0;
    }
    free(scratch);
    free(rel);
    return SD_OK;
}

sd_status sd_calibrate(const sd_calibrate_request *rq, sd_calibration **out, size_t *nout, double *predicted,
                       double *loo, sd_error *err)
{
    const sd_presets *p = rq->presets;
    size_t n = rq->nrows, nf = 0;
    run r = { .rq = rq };
    r.m = malloc((n ? n : 1) * sizeof *r.m);
    r.h = malloc((n ? n : 1) * sizeof *r.h);
    r.idx = malloc((n ? n : 1) * sizeof *r.idx);
    r.done = malloc(n ? n : 1);
    sd_calibration *fits = calloc(n + 1, sizeof *fits);
    double *pred = calloc(n ? n : 1, sizeof *pred), *l = calloc(n ? n : 1, sizeof *l);
    sd_status st = r.m && r.h && r.idx && r.done && fits && pred && l ? SD_OK
                                                                     : sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && st == SD_OK; i++) {
        char where[96];
        snprintf(where, sizeof where, "%zu: model", rq->rows[i].line);
        if ((st = sd_presets_model(p, where, rq->rows[i].model, &r.m[i], err)) != SD_OK)
            break;
        snprintf(where, sizeof where, "%zu: hardware", rq->rows[i].line);
        if ((st = sd_presets_hardware(p, where, rq->rows[i].hardware, &r.h[i], err)) != SD_OK)
            break;
        st = sd_presets_check(r.m[i], r.h[i], err);
    }
    if (st == SD_OK && n == 0)
        st = sd_status_fail(err, SD_EINVAL, "calibrate: no rows");
    if (st == SD_OK)
        st = fit_all(&r, (size_t)-1, fits, &nf, pred, err);
    if (st == SD_OK)
        st = leave_one_out(&r, fits, nf, pred, l, err);
    if (st == SD_OK) {
        if (predicted != NULL)
            memcpy(predicted, pred, n * sizeof *pred);
        if (loo != NULL)
            memcpy(loo, l, n * sizeof *l);
        *out = fits;
        *nout = nf;
        fits = NULL;
    }
    free(r.m), free(r.h), free(r.idx), free(r.done), free(fits), free(pred), free(l);
    return st;
}
