/* calibrate.c -- eta_F, eta_BW and t0 fitted to measured step times (see calibrate.h). */
#include "specdec/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "records.h"

#define S(field) offsetof(sd_step_time, field)
#define C(field) offsetof(sd_calibration, field)

sd_status sd_calibrate_load_times(const char *path, sd_step_time **out, size_t *n, sd_error *err)
{
    static const sd_records_col cols[] = {
        { .col = "model", .kind = SD_RECORDS_NAME, .offset = S(model) },
        { .col = "hardware", .kind = SD_RECORDS_NAME, .offset = S(hardware) },
        { .col = "batch", .kind = SD_RECORDS_NUMBER, .offset = S(batch),
          .min = 1, .max = 1048576, .whole = 1, .scale = 1 },
        { .col = "context", .kind = SD_RECORDS_NUMBER, .offset = S(context),
          .min = 0, .max = 16777216, .whole = 1, .scale = 1 },
        { .col = "tokens", .kind = SD_RECORDS_NUMBER, .offset = S(tokens),
          .min = 1, .max = 4096, .whole = 1, .scale = 1 },
        { .col = "seconds", .kind = SD_RECORDS_NUMBER, .offset = S(seconds), .min = 1e-300, .max = 1e6, .scale = 1 },
        { .col = "tp", .kind = SD_RECORDS_NUMBER, .offset = S(tp),
          .min = 1, .max = 1024, .whole = 1, .scale = 1, .optional = 1, .dflt = 1 },
    };
    void *rec;
    const sd_records_layout layout = { cols, sizeof cols / sizeof cols[0], sizeof **out, S(line) };
    sd_status st = sd_records_load(path, &layout, &rec, n, err);
    if (st == SD_OK)
        *out = rec;
    return st;
}

sd_status sd_calibrate_load(const char *path, sd_calibration **out, size_t *n, sd_error *err)
{
    static const sd_records_col cols[] = {
        { .col = "model", .kind = SD_RECORDS_NAME, .offset = C(model) },
        { .col = "hardware", .kind = SD_RECORDS_NAME, .offset = C(hardware) },
        { .col = "granularity", .kind = SD_RECORDS_NAME, .offset = C(granularity) },
        { .col = "eta_flops", .kind = SD_RECORDS_NUMBER, .offset = C(eta_flops), .min = 1e-3, .max = 1, .scale = 1 },
        { .col = "eta_bw", .kind = SD_RECORDS_NUMBER, .offset = C(eta_bw), .min = 1e-3, .max = 1, .scale = 1 },
        { .col = "overhead", .kind = SD_RECORDS_NUMBER, .offset = C(overhead), .min = 0, .max = 1, .scale = 1 },
    };
    void *rec;
    const sd_records_layout layout = { cols, sizeof cols / sizeof cols[0], sizeof **out, (size_t)-1 };
    sd_status st = sd_records_load(path, &layout, &rec, n, err);
    if (st == SD_OK)
        *out = rec;
    return st;
}

const sd_calibration *sd_calibrate_find(const sd_calibration *fits, size_t n, const char *model, const char *hardware)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(fits[i].model, model) == 0 && strcmp(fits[i].hardware, hardware) == 0)
            return &fits[i];
    return NULL;
}

/* ---- the fit ------------------------------------------------------------------------------ */

/* One group: its rows (indices into all), model and hardware, and which
 * parameters are free (x = log eta_F, log eta_BW, t0; held ones at start). */
typedef struct {
    const sd_step_time *all;
    const size_t *idx;
    size_t n;
    const sd_model_spec *m;
    const sd_hardware *h;
    sd_cost_params base;
    int free_[3];
} group;

static sd_cost_params params_of(const group *g, const gsl_vector *x)
{
    sd_cost_params cp = g->base;
    double v[3] = { log(cp.eta_flops), log(cp.eta_bw), cp.overhead };
    for (size_t i = 0, k = 0; i < 3; i++)
        if (g->free_[i])
            v[i] = gsl_vector_get(x, k++);
    cp.eta_flops = exp(v[0]);
    cp.eta_bw = exp(v[1]);
    cp.overhead = v[2];
    return cp;
}

static double predict(const group *g, const sd_cost_params *cp, size_t i)
{
    const sd_step_time *r = &g->all[g->idx[i]];
    sd_cost_params c = *cp;
    c.tp = r->tp;
    return sd_cost_step_time(g->m, g->h, &c, r->batch, r->tokens, r->context, NULL);
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

/* Levenberg-Marquardt over the free parameters from the start; the
 * Jacobian at the solution into J (n x p).  *x_out gets the solution. */
static int solve(group *g, size_t p, gsl_vector *x_out, gsl_matrix *J_out, double *chisq)
{
    gsl_multifit_nlinear_fdf fdf = { .f = residuals, .df = NULL, .fvv = NULL, .n = g->n, .p = p, .params = g };
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, g->n, p);
    if (w == NULL)
        return GSL_ENOMEM;
    int info, status = gsl_multifit_nlinear_init(x_out, &fdf, w);
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver(500, 1e-10, 1e-10, 1e-12, NULL, NULL, &info, w);
    if (status == GSL_SUCCESS) {
        gsl_vector_memcpy(x_out, gsl_multifit_nlinear_position(w));
        gsl_matrix_memcpy(J_out, gsl_multifit_nlinear_jac(w));
        gsl_blas_ddot(gsl_multifit_nlinear_residual(w), gsl_multifit_nlinear_residual(w), chisq);
    }
    gsl_multifit_nlinear_free(w);
    return status;
}

/* Fits one group into *out: a parameter no row depends on is held at its
 * start, a t0 the fit puts below 0 at 0, and the fit redone without it. */
static sd_status fit_group(group *g, sd_calibration *out, double *predicted, sd_error *err)
{
    for (int round = 0; round < 3; round++) {
        size_t p = (size_t)(g->free_[0] + g->free_[1] + g->free_[2]);
        gsl_vector *x = gsl_vector_alloc(p);
        gsl_matrix *J = gsl_matrix_alloc(g->n, p), *cov = gsl_matrix_alloc(p, p);
        if (x == NULL || J == NULL || cov == NULL) {
            gsl_vector_free(x), gsl_matrix_free(J), gsl_matrix_free(cov);
            return sd_status_fail(err, SD_ENOMEM, "out of memory");
        }
        double start[3] = { log(g->base.eta_flops), log(g->base.eta_bw), g->base.overhead }, chisq = 0.0;
        for (size_t i = 0, k = 0; i < 3; i++)
            if (g->free_[i])
                gsl_vector_set(x, k++, start[i]);
        int status = solve(g, p, x, J, &chisq);
        /* a column of zeros: no row depends on that parameter */
        int held = 0;
        for (size_t i = 0, k = 0; i < 3 && status == GSL_SUCCESS; i++)
            if (g->free_[i]) {
                gsl_vector_view col = gsl_matrix_column(J, k++);
                if (gsl_blas_dnrm2(&col.vector) < 1e-9) {
                    g->free_[i] = 0;
                    held = 1;
                }
            }
        if (status == GSL_SUCCESS && !held && g->free_[2] && params_of(g, x).overhead < 0.0) {
            g->free_[2] = 0; /* t0 >= 0: the best fit within it is on the bound; refit there, and say so */
            g->base.overhead = 0.0;
            held = 1;
        }
        if (status == GSL_SUCCESS && !held) {
            gsl_multifit_nlinear_covar(J, 0.0, cov);
            double s2 = chisq / (double)(g->n - p), se[3] = { 0, 0, 0 };
            for (size_t i = 0, k = 0; i < 3; i++)
                if (g->free_[i]) {
                    se[i] = sqrt(gsl_matrix_get(cov, k, k) * s2);
                    k++;
                }
            sd_cost_params cp = params_of(g, x);
            *out = (sd_calibration){ .rows = g->n, .eta_flops = cp.eta_flops, .eta_bw = cp.eta_bw,
                                     .overhead = cp.overhead, .se_eta_flops = cp.eta_flops * se[0],
                                     .se_eta_bw = cp.eta_bw * se[1], .se_overhead = se[2],
                                     .held_flops = !g->free_[0], .held_bw = !g->free_[1],
                                     .held_overhead = !g->free_[2],
                                     .rms_rel_residual = sqrt(chisq / (double)g->n) };
            for (size_t i = 0; i < g->n; i++) {
                double t = predict(g, &cp, i), rel = fabs(t - g->all[g->idx[i]].seconds) / g->all[g->idx[i]].seconds;
                out->max_rel_residual = fmax(out->max_rel_residual, rel);
                if (predicted != NULL)
                    predicted[g->idx[i]] = t;
            }
        }
        gsl_vector_free(x), gsl_matrix_free(J), gsl_matrix_free(cov);
        if (status != GSL_SUCCESS)
            return sd_status_fail(err, SD_EINVAL, "calibrate: %s on %s: the fit did not converge (%s)", g->m->name,
                                  g->h->name, gsl_strerror(status));
        if (!held)
            return SD_OK;
    }
    return sd_status_fail(err, SD_EINVAL, "calibrate: %s on %s: no parameter is identified by the rows", g->m->name,
                          g->h->name);
}

sd_status sd_calibrate(const sd_calibrate_request *rq, sd_calibration **out, size_t *nout, double *predicted,
                       sd_error *err)
{
    const sd_presets *p = rq->presets;
    const sd_step_time *rows = rq->rows;
    const sd_cost_params *start = &rq->start;
    size_t n = rq->nrows;
    sd_calibration *fits = calloc(n ? n : 1, sizeof *fits);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), nfits = 0;
    char *done = calloc(n ? n : 1, 1);
    sd_status st = fits && idx && done ? SD_OK : sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && st == SD_OK; i++) {
        if (done[i])
            continue;
        group g = { .all = rows, .idx = idx, .n = 0, .base = *start, .free_ = { 1, 1, 1 } };
        char where[96];
        snprintf(where, sizeof where, "%zu: model", rows[i].line);
        if ((st = sd_presets_model(p, where, rows[i].model, &g.m, err)) != SD_OK)
            break;
        snprintf(where, sizeof where, "%zu: hardware", rows[i].line);
        if ((st = sd_presets_hardware(p, where, rows[i].hardware, &g.h, err)) != SD_OK ||
            (st = sd_presets_check(g.m, g.h, err)) != SD_OK)
            break;
        for (size_t j = i; j < n; j++)
            if (!done[j] && strcmp(rows[j].model, rows[i].model) == 0 && strcmp(rows[j].hardware, rows[i].hardware) == 0) {
                done[j] = 1;
                idx[g.n++] = j;
            }
        if (g.n < 4) {
            st = sd_status_fail(err, SD_EINVAL, "calibrate: %s on %s has %zu rows; at least 4 are needed to fit 3 "
                                "parameters with standard errors", rows[i].model, rows[i].hardware, g.n);
            break;
        }
        if ((st = fit_group(&g, &fits[nfits], predicted, err)) == SD_OK) {
            const sd_calibration *c = &fits[nfits];
            const char *what = !(c->eta_flops >= 1e-3 && c->eta_flops <= 1.0)   ? "eta_flops"
                               : !(c->eta_bw >= 1e-3 && c->eta_bw <= 1.0)       ? "eta_bw"
                               : !(c->overhead >= 0.0 && c->overhead <= 1.0)    ? "overhead"
                                                                                : NULL;
            if (what != NULL) {
                double v = what[4] == 'f' ? c->eta_flops : what[4] == 'b' ? c->eta_bw : c->overhead;
                st = sd_status_fail(err, SD_EINVAL, "calibrate: %s on %s: the best fit puts %s at %.4g, outside %s: no "
                                    "efficiency explains these times (check the model, hardware and tp of the rows)",
                                    rows[i].model, rows[i].hardware, what, v, what[0] == 'e' ? "[0.001, 1]" : "[0, 1] s");
                break;
            }
            snprintf(fits[nfits].model, sizeof fits[nfits].model, "%s", rows[i].model);
            snprintf(fits[nfits].hardware, sizeof fits[nfits].hardware, "%s", rows[i].hardware);
            snprintf(fits[nfits].granularity, sizeof fits[nfits].granularity, "%s",
                     sd_cost_granularity_names()[start->granularity]);
            nfits++;
        }
    }
    free(idx);
    free(done);
    if (st != SD_OK) {
        free(fits);
        return st;
    }
    *out = fits;
    *nout = nfits;
    return SD_OK;
}
