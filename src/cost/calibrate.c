/* calibrate.c -- eta_F, eta_BW and t0 fitted to measured step times (see calibrate.h). */
#include "specdec/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "specdec/data.h"
#include "records.h"

#define S(field) offsetof(sd_step_time, field)

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
        { .col = "graphs", .kind = SD_RECORDS_SWITCH, .offset = S(graphs), .optional = 1, .dflt = 1 },
    };
    void *rec;
    const sd_records_layout layout = { cols, sizeof cols / sizeof cols[0], sizeof **out, S(line) };
    sd_status st = sd_records_load(path, &layout, &rec, n, err);
    if (st == SD_OK)
        *out = rec;
    return st;
}

/* ---- the terms ---------------------------------------------------------------------------- */

/* Each term: its field of sd_cost_params, whether it is fitted as a
 * logarithm, the domain of its value, and the order in which too few rows
 * hold it (larger: held first). */
static const struct {
    const char *name;
    size_t offset;
    int log;
    double lo, hi;
    int drop; /* with too few rows the largest goes first */
} TERMS[SD_CAL_NTERMS] = {
    [SD_CAL_ETA_FLOPS] = { .name = "eta_flops", .offset = offsetof(sd_cost_params, eta_flops), .log = 1, .lo = 1e-3,
                           .hi = 1, .drop = 1 },
    [SD_CAL_ETA_BW] = { .name = "eta_bw", .offset = offsetof(sd_cost_params, eta_bw), .log = 1, .lo = 1e-3, .hi = 1,
                        .drop = 0 },
    [SD_CAL_LAUNCH] = { .name = "launch", .offset = offsetof(sd_cost_params, launch), .lo = 0, .hi = 1, .drop = 2 },
    [SD_CAL_LAUNCH_EAGER] = { .name = "launch_eager", .offset = offsetof(sd_cost_params, launch_eager), .lo = 0,
                              .hi = 1, .drop = 4 },
    [SD_CAL_OVERHEAD] = { .name = "overhead", .offset = offsetof(sd_cost_params, overhead), .lo = 0, .hi = 1,
                          .drop = 3 },
    [SD_CAL_HOP_LATENCY] = { .name = "hop_latency", .offset = offsetof(sd_cost_params, hop_latency), .lo = 0,
                             .hi = 1, .drop = 5 },
};

static const char *const TERM_NAMES[] = { "eta_flops", "eta_bw", "launch", "launch_eager", "overhead", "hop_latency",
                                          NULL };
static const char *const HOLD_NAMES[] = { [SD_CAL_FITTED] = "fitted", [SD_CAL_FIXED] = "fixed",
                                          [SD_CAL_UNUSED] = "unused", [SD_CAL_BOUND] = "bound",
                                          [SD_CAL_WEAK] = "weak", NULL };

const char *const *sd_calibrate_term_names(void) { return TERM_NAMES; }
const char *const *sd_calibrate_hold_names(void) { return HOLD_NAMES; }

static double *term(sd_cost_params *cp, int i) { return (double *)(void *)((char *)cp + TERMS[i].offset); }
static double term_of(const sd_cost_params *cp, int i) { return *(const double *)(const void *)((const char *)cp + TERMS[i].offset); }

void sd_calibrate_apply(const sd_calibration *c, sd_cost_params *cp)
{
    for (int i = 0; i < SD_CAL_NTERMS; i++)
        *term(cp, i) = c->value[i];
}

/* ---- the saved fits ------------------------------------------------------------------------ */

/* One saved row as the record loader fills it; then converted. */
typedef struct {
    char model[64], hardware[64], granularity[64];
    double rows, value[SD_CAL_NTERMS], se[SD_CAL_NTERMS];
    char fit[SD_CAL_NTERMS][64];
    double cov[SD_CAL_NTERMS * (SD_CAL_NTERMS + 1) / 2];
    double rms, max, loo_median, loo_max;
} saved_row;

#define R(field) offsetof(saved_row, field)

/* The saved file's columns, in one order for writing and reading; names
 * into names (caller's, SD_RECORDS_COLUMNS x 48). */
static size_t saved_cols(sd_records_col *cols, char (*names)[48])
{
    size_t n = 0, k = 0;
    cols[n++] = (sd_records_col){ .col = "model", .kind = SD_RECORDS_NAME, .offset = R(model) };
    cols[n++] = (sd_records_col){ .col = "hardware", .kind = SD_RECORDS_NAME, .offset = R(hardware) };
    cols[n++] = (sd_records_col){ .col = "granularity", .kind = SD_RECORDS_NAME, .offset = R(granularity) };
    cols[n++] = (sd_records_col){ .col = "rows", .kind = SD_RECORDS_NUMBER, .offset = R(rows), .min = 0,
                                  .max = 1e9, .whole = 1, .scale = 1, .optional = 1 };
    for (int i = 0; i < SD_CAL_NTERMS; i++) {
        int old = i == SD_CAL_ETA_FLOPS || i == SD_CAL_ETA_BW || i == SD_CAL_OVERHEAD; /* in every save */
        cols[n++] = (sd_records_col){ .col = TERMS[i].name, .kind = SD_RECORDS_NUMBER,
                                      .offset = R(value) + (size_t)i * sizeof(double),
                                      .min = i == SD_CAL_HOP_LATENCY ? -1 : TERMS[i].lo, .max = TERMS[i].hi,
                                      .scale = 1, .optional = !old, .dflt = i == SD_CAL_HOP_LATENCY ? -1 : 0 };
        snprintf(names[k], 48, "%s_se", TERMS[i].name);
        cols[n++] = (sd_records_col){ .col = names[k++], .kind = SD_RECORDS_NUMBER,
                                      .offset = R(se) + (size_t)i * sizeof(double), .min = 0, .max = 1e6, .scale = 1,
                                      .optional = 1 };
        snprintf(names[k], 48, "%s_fit", TERMS[i].name);
        cols[n++] = (sd_records_col){ .col = names[k++], .kind = SD_RECORDS_NAME,
                                      .offset = R(fit) + (size_t)i * 64, .optional = 1 };
    }
    size_t c = 0;
    for (int i = 0; i < SD_CAL_NTERMS; i++)
        for (int j = i; j < SD_CAL_NTERMS; j++, c++) {
            snprintf(names[k], 48, "cov_%s_%s", TERMS[i].name, TERMS[j].name);
            cols[n++] = (sd_records_col){ .col = names[k++], .kind = SD_RECORDS_NUMBER,
                                          .offset = R(cov) + c * sizeof(double), .min = -1e6, .max = 1e6,
                                          .scale = 1, .optional = 1 };
        }
    cols[n++] = (sd_records_col){ .col = "rms_rel_residual", .kind = SD_RECORDS_NUMBER, .offset = R(rms), .min = 0,
                                  .max = 1e6, .scale = 1, .optional = 1 };
    cols[n++] = (sd_records_col){ .col = "max_rel_residual", .kind = SD_RECORDS_NUMBER, .offset = R(max), .min = 0,
                                  .max = 1e6, .scale = 1, .optional = 1 };
    cols[n++] = (sd_records_col){ .col = "loo_median", .kind = SD_RECORDS_NUMBER, .offset = R(loo_median),
                                  .min = 0, .max = 1e6, .scale = 1, .optional = 1 };
    cols[n++] = (sd_records_col){ .col = "loo_max", .kind = SD_RECORDS_NUMBER, .offset = R(loo_max), .min = 0,
                                  .max = 1e6, .scale = 1, .optional = 1 };
    return n;
}

sd_status sd_calibrate_load(const char *path, sd_calibration **out, size_t *n, sd_error *err)
{
    sd_records_col cols[SD_RECORDS_COLUMNS];
    char names[SD_RECORDS_COLUMNS][48];
    void *rec;
    size_t rows;
    const sd_records_layout layout = { cols, saved_cols(cols, names), sizeof(saved_row), (size_t)-1 };
    sd_status st = sd_records_load(path, &layout, &rec, &rows, err);
    if (st != SD_OK)
        return st;
    const saved_row *r = rec;
    sd_calibration *c = calloc(rows ? rows : 1, sizeof *c);
    if (c == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t k = 0; k < rows && st == SD_OK; k++) {
        sd_calibration *f = &c[k];
        memcpy(f->model, r[k].model, 64);
        memcpy(f->hardware, r[k].hardware, 64);
        memcpy(f->granularity, r[k].granularity, 64);
        f->rows = (size_t)r[k].rows;
        int have_cov = 0;
        for (size_t i = 0; i < sizeof r[k].cov / sizeof r[k].cov[0]; i++)
            have_cov |= fabs(r[k].cov[i]) > 0.0;
        for (int i = 0, q = 0; i < SD_CAL_NTERMS && st == SD_OK; i++) {
            f->value[i] = r[k].value[i];
            f->se[i] = r[k].se[i];
            int h = r[k].fit[i][0] == '\0' ? (f->se[i] > 0.0 ? SD_CAL_FITTED : SD_CAL_FIXED) : -1;
            for (int j = 0; h < 0 && HOLD_NAMES[j] != NULL; j++)
                if (strcmp(HOLD_NAMES[j], r[k].fit[i]) == 0)
                    h = j;
            if (h < 0 && st == SD_OK)
                st = sd_status_fail(err, SD_EINVAL, "%s: row %zu: %s_fit: '%s' is not one of fitted, fixed, unused, "
                                    "bound, weak", path, k + 1, TERMS[i].name, r[k].fit[i]);
            f->hold[i] = h;
            for (int j = i; j < SD_CAL_NTERMS; j++, q++)
                f->cov[i][j] = f->cov[j][i] = r[k].cov[q];
            if (!have_cov && h == SD_CAL_FITTED) /* an older save: its standard errors alone */
                f->cov[i][i] = TERMS[i].log ? pow(f->se[i] / f->value[i], 2) : f->se[i] * f->se[i];
        }
        f->rms_rel_residual = r[k].rms;
        f->max_rel_residual = r[k].max;
        f->loo_median = r[k].loo_median;
        f->loo_max = r[k].loo_max;
    }
    free(rec);
    if (st != SD_OK) {
        free(c);
        return st;
    }
    *out = c;
    *n = rows;
    return SD_OK;
}

const sd_calibration *sd_calibrate_find(const sd_calibration *fits, size_t n, const sd_model_spec *model,
                                        const sd_hardware *hardware)
{
    const char *family = hardware->family[0] != '\0' ? hardware->family : hardware->name;
    const char *keys[4][2] = { { model->name, hardware->name }, { "*", hardware->name }, { "*", family }, { "*", "*" } };
    for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < n; i++)
            if (strcmp(fits[i].model, keys[k][0]) == 0 && strcmp(fits[i].hardware, keys[k][1]) == 0)
                return &fits[i];
    return NULL;
}

sd_status sd_calibrate_load_defaults(const char *data_dir, sd_calibration **out, size_t *n, sd_error *err)
{
    char path[4096];
    sd_status st = sd_data_find(data_dir, "cost-defaults.tsv", path, sizeof path, err);
    return st != SD_OK ? st : sd_calibrate_load(path, out, n, err);
}

/* The fit for m on rq's hardware when its granularity is rq's, else NULL. */
static const sd_calibration *fit_for(const sd_calibration *fits, size_t n, const sd_model_spec *m,
                                     const sd_roofline_request *rq, sd_granularity g)
{
    const sd_calibration *c = sd_calibrate_find(fits, n, m, rq->hardware);
    return c != NULL && strcmp(c->granularity, sd_cost_granularity_names()[g]) == 0 ? c : NULL;
}

int sd_calibrate_apply_request(const sd_calibration *fits, size_t n, sd_roofline_request *rq,
                               const sd_calibration **c, const sd_calibration **cd)
{
    *c = fit_for(fits, n, rq->target, rq, rq->params.granularity);
    *cd = fit_for(fits, n, rq->draft, rq, rq->draft_params.granularity);
    if (*c != NULL)
        sd_calibrate_apply(*c, &rq->params);
    if (*cd != NULL)
        sd_calibrate_apply(*cd, &rq->draft_params);
    if (*c == NULL || *cd != NULL)
        return 0;
    sd_cost_params keep = rq->draft_params; /* a draft not measured: the target's terms */
    rq->draft_params = rq->params;
    rq->draft_params.tp = keep.tp, rq->draft_params.graphs = keep.graphs;
    rq->draft_params.granularity = keep.granularity;
    *cd = *c;
    return 1;
}

/* ---- the fit ------------------------------------------------------------------------------ */

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
            *term(&cp, i) = TERMS[i].log ? exp(v) : v;
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
        if (g->hold[i] == SD_CAL_FITTED && (best < 0 || TERMS[i].drop > TERMS[best].drop))
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
        out->value[i] = term_of(cp, i);
        out->hold[i] = g->hold[i];
    }
    for (size_t i = 0; i < g->n; i++) {
        double t = predict(g, cp, i), rel = fabs(t - g->all[g->idx[i]].seconds) / g->all[g->idx[i]].seconds;
        out->max_rel_residual = fmax(out->max_rel_residual, rel);
        if (predicted != NULL)
            predicted[g->idx[i]] = t;
    }
}

/* Fits one group into *out (its key fields untouched): terms are held as
 * calibrate.h says, one decision a round, and the fit redone. */
static sd_status fit_group(group *g, sd_calibration *out, double *predicted, sd_error *err)
{
    for (;;) {
        size_t p = nfree(g);
        memset(out->se, 0, sizeof out->se);
        memset(out->cov, 0, sizeof out->cov);
        if (p == 0) { /* nothing left to fit: the priors as they are */
            double chisq = 0.0;
            for (size_t i = 0; i < g->n; i++) {
                double t = g->all[g->idx[i]].seconds, r = (predict(g, &g->base, i) - t) / t;
                chisq += r * r;
            }
            finish(g, &g->base, chisq, out, predicted);
            return SD_OK;
        }
        if (g->n <= p) { /* no residual degree of freedom: too few rows for so many terms */
            g->hold[first_to_drop(g)] = SD_CAL_WEAK;
            continue;
        }
        gsl_vector *x = gsl_vector_alloc(p);
        gsl_matrix *J = gsl_matrix_alloc(g->n, p), *cov = gsl_matrix_alloc(p, p);
        if (x == NULL || J == NULL || cov == NULL) {
            gsl_vector_free(x), gsl_matrix_free(J), gsl_matrix_free(cov);
            return sd_status_fail(err, SD_ENOMEM, "out of memory");
        }
        int fi[SD_CAL_NTERMS];
        for (int i = 0, k = 0; i < SD_CAL_NTERMS; i++)
            if (g->hold[i] == SD_CAL_FITTED) {
                fi[k] = i;
                double v = term_of(&g->base, i);
                gsl_vector_set(x, (size_t)k++, TERMS[i].log ? log(v) : v);
            }
        double chisq = 0.0;
        int status = solve(g, p, x, J, &chisq), decided = 0;
        if (status == GSL_SUCCESS) /* a column of zeros: no row depends on that term */
            for (size_t k = 0; k < p; k++) {
                gsl_vector_view col = gsl_matrix_column(J, k);
                if (gsl_blas_dnrm2(&col.vector) < 1e-9) {
                    g->hold[fi[k]] = SD_CAL_UNUSED;
                    decided = 1;
                }
            }
        sd_cost_params cp = status == GSL_SUCCESS ? params_of(g, x) : g->base;
        for (size_t k = 0; k < p && status == GSL_SUCCESS && !decided; k++)
            if (!TERMS[fi[k]].log && term_of(&cp, fi[k]) < 0.0) { /* >= 0: the best fit within is on the bound */
                g->hold[fi[k]] = SD_CAL_BOUND;
                *term(&g->base, fi[k]) = 0.0;
                decided = 1;
            }
        if (status == GSL_SUCCESS && !decided) {
            gsl_multifit_nlinear_covar(J, 0.0, cov);
            double s2 = chisq / (double)(g->n - p), worst = 1.0;
            int weakest = -1;
            for (size_t k = 0; k < p; k++) {
                int i = fi[k];
                double se = sqrt(fmax(gsl_matrix_get(cov, k, k), 0.0) * s2);
                /* identified: a logarithm within 0.5, a time within half its value */
                double ratio = TERMS[i].log ? se / 0.5 : se / (0.5 * fabs(term_of(&cp, i)));
                if (!(ratio <= worst)) {
                    worst = ratio;
                    weakest = i;
                }
                out->se[i] = TERMS[i].log ? term_of(&cp, i) * se : se;
                for (size_t l = 0; l < p; l++)
                    out->cov[i][fi[l]] = gsl_matrix_get(cov, k, l) * s2;
            }
            if (weakest >= 0) {
                g->hold[weakest] = SD_CAL_WEAK;
                decided = 1;
            } else
                finish(g, &cp, chisq, out, predicted);
        }
        gsl_vector_free(x), gsl_matrix_free(J), gsl_matrix_free(cov);
        if (status != GSL_SUCCESS)
            return sd_status_fail(err, SD_EINVAL, "calibrate: %s on %s: the fit did not converge (%s)", out->model,
                                  out->hardware, gsl_strerror(status));
        if (!decided)
            return SD_OK;
    }
}

/* The fit's values within what roofline accepts, else an error naming the term. */
static sd_status check_values(const sd_calibration *c, sd_error *err)
{
    for (int i = 0; i < SD_CAL_NTERMS; i++) {
        double v = c->value[i];
        if (i == SD_CAL_HOP_LATENCY && c->hold[i] != SD_CAL_FITTED)
            continue; /* the hardware's own (-1) or the prior */
        if (!(v >= TERMS[i].lo && v <= TERMS[i].hi))
            return sd_status_fail(err, SD_EINVAL, "calibrate: %s on %s: the best fit puts %s at %.4g, outside [%g, %g]%s: "
                                  "no efficiency explains these times (check the model, hardware and tp of the rows)",
                                  c->model, c->hardware, TERMS[i].name, v, TERMS[i].lo, TERMS[i].hi,
                                  TERMS[i].log ? "" : " s");
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

/* ---- the band --------------------------------------------------------------------------------- */

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
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int status = gsl_linalg_cholesky_decomp1(*L);
    gsl_set_error_handler(old);
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
        gsl_vector_set(mu, k, TERMS[fi[k]].log ? log(c->value[fi[k]]) : c->value[fi[k]]);
    for (int tries = 0; tries < 1000; tries++) {
        gsl_ran_multivariate_gaussian(rng, mu, L, x);
        int ok = 1;
        for (size_t k = 0; k < p && ok; k++) {
            int i = fi[k];
            double v = TERMS[i].log ? exp(gsl_vector_get(x, k)) : gsl_vector_get(x, k);
            ok = v >= TERMS[i].lo && v <= TERMS[i].hi;
            *term(cp, i) = v;
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
                    *term(&r->draft_params, i) = term_of(&r->params, i);
                r->draft_params.tp = tp, r->draft_params.graphs = graphs;
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
        for (int j = 0; j < 3; j++)
            gsl_sort(v + (size_t)j * ndraws, 1, ndraws);
        *out = (sd_calibrate_band_out){
            .improvement_lo = gsl_stats_quantile_from_sorted_data(v, 1, ndraws, q),
            .improvement_hi = gsl_stats_quantile_from_sorted_data(v, 1, ndraws, 1.0 - q),
            .tokens_per_second_lo = gsl_stats_quantile_from_sorted_data(v + ndraws, 1, ndraws, q),
            .tokens_per_second_hi = gsl_stats_quantile_from_sorted_data(v + ndraws, 1, ndraws, 1.0 - q),
            .gamma_lo = v[2 * ndraws], .gamma_hi = v[3 * ndraws - 1] };
    }
    free(r);
    free(v);
    return st;
}
