/* figure_roofline.c -- the figures of the cost model on the shipped
 * presets (figure_impl.h): the best draft length against batch on several
 * accelerators, over batch x context on one, and the cost of verifying
 * gamma + 1 tokens against one decode step. */
#include "figure_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/calibrate.h"
#include "specdec/cost.h"
#include "specdec/presets.h"
#include "specdec/table.h"

/* ---- the roofline figures ---------------------------------------------------------------- */

static const char *const ROOF_TARGET = "llama-3.1-70b-fp8", *const ROOF_DRAFT = "llama-3.2-1b";
static const char *const ROOF_MAP_HARDWARE = "h200";
static const double ROOF_CONTEXT = 1024;
static const double ROOF_GAMMAS[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
enum { NROOF_GAMMAS = sizeof ROOF_GAMMAS / sizeof ROOF_GAMMAS[0] };

/* The presets a roofline figure needs, and its pair in them. */
static sd_status roof_presets(const sd_figure_input *in, const char *name, sd_presets *p, const sd_model_spec **t,
                              const sd_model_spec **d, sd_error *err)
{
    sd_status st = sd_figure_one_value(&in->alpha, "alpha", name, err);
    if (st != SD_OK || (st = sd_presets_load(in->data_dir, NULL, NULL, p, err)) != SD_OK)
        return st;
    *t = NULL;
    *d = NULL;
    for (size_t i = 0; i < p->nmodels; i++) {
        if (strcmp(p->models[i].name, ROOF_TARGET) == 0)
            *t = &p->models[i];
        if (strcmp(p->models[i].name, ROOF_DRAFT) == 0)
            *d = &p->models[i];
    }
    if (*t == NULL || *d == NULL) {
        sd_presets_free(p);
        return sd_status_fail(err, SD_EINVAL, "figure %s: the model presets lack %s or %s", name, ROOF_TARGET,
                              ROOF_DRAFT);
    }
    return SD_OK;
}

/* The request of a roofline figure: the pair t, d at the one alpha of in
 * over ROOF_GAMMAS, no hardware yet (and so no calibration: it is the hardware's). */
static sd_roofline_request roof_request(const sd_figure_input *in, const sd_model_spec *t, const sd_model_spec *d)
{
    sd_roofline_request rq = sd_cost_roofline_defaults();
    rq.target = t;
    rq.draft = d;
    rq.alpha = in->alpha.v[0];
    rq.gammas = ROOF_GAMMAS;
    rq.ngammas = NROOF_GAMMAS;
    return rq;
}

/* The columns of roofline-batch: batch, then NAME and "NAME gamma" per accelerator. */
static sd_table *roofline_batch_table(const sd_hardware *hw, size_t nh)
{
    const char **cols = calloc(2 * nh + 1, sizeof *cols);
    char(*names)[96] = calloc(2 * nh, sizeof *names);
    sd_table *t = NULL;
    if (cols != NULL && names != NULL) {
        cols[0] = "batch";
        for (size_t k = 0; k < nh; k++) {
            snprintf(names[2 * k], sizeof names[0], "%s", hw[k].name);
            snprintf(names[2 * k + 1], sizeof names[0], "%s gamma", hw[k].name);
            cols[1 + 2 * k] = names[2 * k];
            cols[2 + 2 * k] = names[2 * k + 1];
        }
        t = sd_table_alloc(2 * nh + 1, cols);
    }
    free(cols);
    free(names);
    return t;
}

sd_status sd_figure_roofline_batch(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                   sd_error *err)
{
    (void)variant;
    sd_presets p;
    const sd_model_spec *t, *d;
    sd_calibration *fits = NULL;
    size_t nfits = 0;
    const sd_calibration *c, *cd;
    sd_status st = roof_presets(in, name, &p, &t, &d, err);
    if (st != SD_OK)
        return st;
    if ((st = sd_calibrate_load_defaults(in->data_dir, &fits, &nfits, err)) != SD_OK) {
        sd_presets_free(&p);
        return st;
    }
    /* only the accelerators that hold the pair at batch 1 */
    sd_roofline_request rq = roof_request(in, t, d);
    size_t nh = 0;
    for (size_t k = 0; k < p.nhardware; k++) {
        rq.hardware = &p.hardware[k];
        if (sd_presets_check(t, rq.hardware, NULL) == SD_OK && sd_presets_check(d, rq.hardware, NULL) == SD_OK &&
            sd_cost_fits(&rq, 1, ROOF_CONTEXT, ROOF_GAMMAS[NROOF_GAMMAS - 1]))
            p.hardware[nh++] = p.hardware[k];
    }
    sd_table *tab = nh ? roofline_batch_table(p.hardware, nh) : NULL;
    sd_cell *row = calloc(2 * nh + 1, sizeof *row);
    if (nh == 0)
        st = sd_status_fail(err, SD_EINVAL, "figure %s: no accelerator holds %s and %s", name, ROOF_TARGET,
                            ROOF_DRAFT);
    else if (tab == NULL || row == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    out->block[0] = tab;
    out->nblocks = 1;
    for (double b = 1; st == SD_OK && b <= 1024; b *= 2) {
        row[0] = sd_int((long long)b);
        for (size_t k = 0; k < nh; k++) {
            sd_roofline_point r;
            rq.hardware = &p.hardware[k];
            sd_calibrate_apply_request(fits, nfits, &rq, &c, &cd); /* the shipped calibration's terms */
            sd_cost_roofline(&rq, b, ROOF_CONTEXT, &r);
            /* where the weights and KV caches do not fit, gnuplot reads "NaN" as a gap */
            row[1 + 2 * k] = r.fits ? sd_real(r.improvement_opt) : sd_text("NaN");
            row[2 + 2 * k] = r.fits ? sd_real(r.gamma_opt) : sd_text("NaN");
        }
        st = sd_table_add(tab, row, err);
    }
    out->target = ROOF_TARGET;
    out->draft = ROOF_DRAFT;
    out->context = ROOF_CONTEXT;
    free(row);
    free(fits);
    sd_presets_free(&p);
    return st;
}

sd_status sd_figure_roofline_map(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                 sd_error *err)
{
    (void)variant;
    sd_presets p;
    const sd_model_spec *t, *d;
    sd_status st = roof_presets(in, name, &p, &t, &d, err);
    if (st != SD_OK)
        return st;
    const sd_hardware *h = NULL;
    static const char *const cols[] = { "log2_batch", "log2_context", "improvement_opt", "gamma_opt", "fits" };
    sd_table *tab = NULL;
    sd_calibration *fits = NULL;
    size_t nfits = 0;
    const sd_calibration *c, *cd;
    if ((st = sd_presets_hardware(&p, "figure roofline-map", ROOF_MAP_HARDWARE, &h, err)) == SD_OK &&
        (st = sd_calibrate_load_defaults(in->data_dir, &fits, &nfits, err)) == SD_OK &&
        (tab = sd_table_alloc(5, cols)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    out->block[0] = tab;
    out->nblocks = 1;
    sd_roofline_request rq = roof_request(in, t, d);
    rq.hardware = h;
    if (st == SD_OK)
        sd_calibrate_apply_request(fits, nfits, &rq, &c, &cd); /* the shipped calibration's terms */
    for (int lc = 8; st == SD_OK && lc <= 17; lc++)
        for (int lb = 0; st == SD_OK && lb <= 10; lb++) {
            sd_roofline_point r;
            sd_cost_roofline(&rq, ldexp(1, lb), ldexp(1, lc), &r);
            const sd_cell row[] = { sd_int(lb), sd_int(lc), sd_real(r.improvement_opt), sd_real(r.gamma_opt),
                                    sd_int(r.fits) };
            st = sd_table_add(tab, row, err);
        }
    out->target = ROOF_TARGET;
    out->draft = ROOF_DRAFT;
    free(fits);
    sd_presets_free(&p);
    return st;
}

/* ---- verify-cost ------------------------------------------------------------------------- */

/* verify-cost: t(B, gamma + 1, S) / t(B, 1, S) of llama-3.1-8b on one
 * h100-sxm against batch, per context, for both granularities. */
static const char *const VC_TARGET = "llama-3.1-8b", *const VC_HARDWARE = "h100-sxm";
static const double VC_CONTEXTS[] = { 1024, 8192, 32768 };

sd_status sd_figure_verify_cost(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                sd_error *err)
{
    (void)variant;
    sd_presets p;
    const sd_model_spec *t;
    const sd_hardware *h;
    sd_status st = sd_figure_one_value(&in->gamma, "gamma", name, err);
    if (st != SD_OK || (st = sd_presets_load(in->data_dir, NULL, NULL, &p, err)) != SD_OK)
        return st;
    char where[96];
    snprintf(where, sizeof where, "figure %s", name);
    char names[7][64];
    const char *cols[7] = { "batch" };
    for (int k = 0; k < 6; k++) {
        snprintf(names[k], sizeof names[k], "%s, S = %.0fK", k % 2 ? "pass" : "operator", VC_CONTEXTS[k / 2] / 1024);
        cols[k + 1] = names[k];
    }
    sd_table *tab = NULL;
    sd_calibration *fits = NULL;
    size_t nfits = 0;
    const sd_calibration *c = NULL;
    if ((st = sd_presets_model(&p, where, VC_TARGET, &t, err)) == SD_OK &&
        (st = sd_presets_hardware(&p, where, VC_HARDWARE, &h, err)) == SD_OK &&
        (st = sd_presets_check(t, h, err)) == SD_OK &&
        (st = sd_calibrate_load_defaults(in->data_dir, &fits, &nfits, err)) == SD_OK &&
        (tab = sd_table_alloc(7, cols)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st == SD_OK && (c = sd_calibrate_find(fits, nfits, t, h)) == NULL)
        st = sd_status_fail(err, SD_EINVAL, "%s: cost-defaults.tsv holds no fit for %s on %s", where, VC_TARGET,
                            VC_HARDWARE);
    out->block[0] = tab;
    out->nblocks = tab != NULL;
    double n = in->gamma.v[0] + 1.0;
    for (double b = 1; st == SD_OK && b <= 1024; b *= 2) {
        sd_cell row[7] = { sd_int((long long)b) };
        for (int k = 0; k < 6; k++) {
            sd_cost_params cp = sd_cost_defaults(); /* pass: the uncalibrated terms; operator: the shipped fit's */
            cp.granularity = k % 2 ? SD_GRANULARITY_PASS : SD_GRANULARITY_OPERATOR;
            if (cp.granularity == SD_GRANULARITY_OPERATOR)
                sd_calibrate_apply(c, &cp);
            double s = VC_CONTEXTS[k / 2];
            row[k + 1] = sd_real(sd_cost_step_time(t, h, &cp, b, n, s, NULL) /
                                 sd_cost_step_time(t, h, &cp, b, 1, s, NULL));
        }
        st = sd_table_add(tab, row, err);
    }
    out->target = VC_TARGET;
    out->draft = VC_HARDWARE;
    free(fits);
    sd_presets_free(&p);
    return st;
}
