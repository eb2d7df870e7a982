/* test_calibrate.c -- the cost model fitted to measured step times
 * (calibrate.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "specdec/calibrate.h"
#include "specdec/cost.h"
#include "testutil.h"

/* Step times made from known (eta_F, eta_BW, t0) by the model itself, with
 * 2% multiplicative Gaussian noise (seeded), over batches 1..1024,
 * contexts 512..32768 and 1 or 5 tokens: the fit recovers each parameter
 * within 5 standard errors, the errors are small, the residuals are at the
 * noise level.  The negative control fits times that grow with batch
 * faster than any roofline (t = t_model x (1 + B / 256)): its residuals are
 * large.  5 SE: a false failure has probability 6e-7 per parameter. */
static size_t make_times(sd_step_time *rows, double eta_f, double eta_bw, double t0, int wrong, gsl_rng *r)
{
    sd_cost_params cp = sd_cost_defaults();
    cp.eta_flops = eta_f, cp.eta_bw = eta_bw, cp.overhead = t0;
    size_t n = 0;
    for (double b = 1; b <= 1024; b *= 4)
        for (double s = 512; s <= 32768; s *= 4)
            for (double t = 1; t <= 5; t += 4) {
                sd_step_time *x = &rows[n++];
                *x = (sd_step_time){ .model = "llama-3.1-8b", .hardware = "h100-sxm", .batch = b, .context = s,
                                     .tokens = t, .tp = 1, .line = n };
                const sd_model_spec *m = &L8B;
                x->seconds = sd_cost_step_time(m, &H100, &cp, b, t, s, NULL) * (1 + 0.02 * gsl_ran_gaussian(r, 1.0));
                if (wrong)
                    x->seconds *= 1 + b / 256;
            }
    return n;
}

START_TEST(calibration_recovers)
{
    sd_presets p = { .models = (sd_model_spec[]){ L8B }, .nmodels = 1, .hardware = (sd_hardware[]){ H100 },
                     .nhardware = 1 };
    snprintf(p.models[0].name, sizeof p.models[0].name, "llama-3.1-8b");
    snprintf(p.hardware[0].name, sizeof p.hardware[0].name, "h100-sxm");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261130);
    sd_step_time rows[128];
    double pred[128];
    size_t n = make_times(rows, 0.62, 0.71, 35e-6, 0, r);
    sd_cost_params start = sd_cost_defaults();
    sd_calibration *f;
    size_t nf;
    sd_error err;
    ck_assert_int_eq(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = n, .start = start }, &f, &nf, pred, NULL, &err), SD_OK);
    ck_assert_uint_eq(nf, 1);
    ck_assert_uint_eq(f->rows, n);
    ck_assert_int_eq((f->hold[SD_CAL_ETA_FLOPS] != SD_CAL_FITTED) + (f->hold[SD_CAL_ETA_BW] != SD_CAL_FITTED), 0);
    ck_assert_msg(fabs(f->value[SD_CAL_ETA_FLOPS] - 0.62) < 5 * f->se[SD_CAL_ETA_FLOPS], "eta_F %g +- %g", f->value[SD_CAL_ETA_FLOPS], f->se[SD_CAL_ETA_FLOPS]);
    ck_assert_msg(fabs(f->value[SD_CAL_ETA_BW] - 0.71) < 5 * f->se[SD_CAL_ETA_BW], "eta_BW %g +- %g", f->value[SD_CAL_ETA_BW], f->se[SD_CAL_ETA_BW]);
    /* t0 is fitted only when the rows tell it from zero; held, it keeps the prior */
    ck_assert_msg(f->hold[SD_CAL_OVERHEAD] == SD_CAL_FITTED ? fabs(f->value[SD_CAL_OVERHEAD] - 35e-6) < 5 * f->se[SD_CAL_OVERHEAD]
                                                            : f->hold[SD_CAL_OVERHEAD] == SD_CAL_WEAK,
                  "t0 %g +- %g", f->value[SD_CAL_OVERHEAD], f->se[SD_CAL_OVERHEAD]);
    ck_assert(f->se[SD_CAL_ETA_FLOPS] < 0.05 * 0.62 && f->se[SD_CAL_ETA_BW] < 0.05 * 0.71 && f->se[SD_CAL_ETA_FLOPS] > 0);
    ck_assert(f->rms_rel_residual > 0.01 && f->rms_rel_residual < 0.03); /* the 2% noise */
    for (size_t i = 0; i < n; i++)
        ck_assert_rel(pred[i], rows[i].seconds, 0.12); /* 6 sigma of the noise */
    free(f);
    /* negative control: times no roofline makes */
    n = make_times(rows, 0.62, 0.71, 35e-6, 1, r);
    ck_assert_int_eq(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = n, .start = start }, &f, &nf, pred, NULL, &err), SD_OK);
    ck_assert_msg(f->max_rel_residual > 0.3 && f->rms_rel_residual > 0.1, "wrong data fits: rms %g max %g",
                  f->rms_rel_residual, f->max_rel_residual);
    free(f);
    /* too few rows, unknown names */
    ck_assert_int_eq(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = 3, .start = start }, &f, &nf, pred, NULL, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "has 3 rows; at least 4 are needed"));
    snprintf(rows[0].model, sizeof rows[0].model, "gpt-9");
    ck_assert_int_eq(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = n, .start = start }, &f, &nf, pred, NULL, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "1: model: unknown model 'gpt-9'"));
    gsl_rng_free(r);
}
END_TEST

/* All rows memory-bound: eta_F is not identified, held and flagged. */
START_TEST(calibration_holds_what_rows_cannot_see)
{
    sd_presets p = { .models = (sd_model_spec[]){ L8B }, .nmodels = 1, .hardware = (sd_hardware[]){ H100 },
                     .nhardware = 1 };
    snprintf(p.models[0].name, sizeof p.models[0].name, "llama-3.1-8b");
    snprintf(p.hardware[0].name, sizeof p.hardware[0].name, "h100-sxm");
    sd_step_time rows[6];
    sd_cost_params cp = sd_cost_defaults();
    cp.eta_bw = 0.6;
    for (int i = 0; i < 6; i++) {
        rows[i] = (sd_step_time){ .model = "llama-3.1-8b", .hardware = "h100-sxm", .batch = 1, .context = 1024 << i,
                                  .tokens = 1, .tp = 1, .line = (size_t)i + 2 };
        rows[i].seconds = sd_cost_step_time(&L8B, &H100, &cp, 1, 1, rows[i].context, NULL) * (i % 2 ? 1.01 : 0.99);
    }
    sd_cost_params start = sd_cost_defaults();
    sd_calibration *f;
    size_t nf;
    sd_error err;
    ck_assert_msg(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = 6, .start = start }, &f, &nf, NULL, NULL, &err) == SD_OK, "%s", err.msg);
    ck_assert_int_eq((f->hold[SD_CAL_ETA_FLOPS] == SD_CAL_UNUSED), 1);
    ck_assert_double_eq(f->value[SD_CAL_ETA_FLOPS], 0.5);
    ck_assert_double_eq(f->se[SD_CAL_ETA_FLOPS], 0);
    ck_assert_int_eq((f->hold[SD_CAL_ETA_BW] != SD_CAL_FITTED), 0);
    ck_assert(f->value[SD_CAL_OVERHEAD] >= 0.0); /* the fit wants t0 < 0 here: held at 0 and flagged */
    ck_assert(f->hold[SD_CAL_OVERHEAD] == SD_CAL_FITTED || f->hold[SD_CAL_OVERHEAD] == SD_CAL_BOUND ||
              f->hold[SD_CAL_OVERHEAD] == SD_CAL_WEAK);
    ck_assert_msg(fabs(f->value[SD_CAL_ETA_BW] - 0.6) < 5 * f->se[SD_CAL_ETA_BW] && f->se[SD_CAL_ETA_BW] < 0.05, "eta_BW %g +- %g", f->value[SD_CAL_ETA_BW],
                  f->se[SD_CAL_ETA_BW]);
    free(f);
}
END_TEST

static const sd_calibration *find_named(const sd_calibration *f, size_t n, const char *model, const char *hw)
{
    sd_model_spec m = { .name = "" };
    sd_hardware h = { .name = "" };
    snprintf(m.name, sizeof m.name, "%s", model);
    snprintf(h.name, sizeof h.name, "%s", hw);
    return sd_calibrate_find(f, n, &m, &h);
}

/* By family: step times made by the model with a launch cost per kernel
 * (3 us) and t0 = 0 over two models, batches 1..256 and tp 1 or 2, with 1%
 * noise: the pooled fit recovers the launch cost within 5 standard errors;
 * leave-one-out errors stay near the noise (median < 3%); a fit is found
 * for a hardware through its family; the band holds the central
 * prediction and is narrow.  Negative control: the same times with a
 * fixed 2 ms added that no term but t0 explains, fitted without t0 (held
 * at 0): the leave-one-out median error exceeds 5%. */
START_TEST(family_fit_loo_and_band)
{
    sd_model_spec m2[2] = { L8B, L8B };
    snprintf(m2[0].name, 64, "llama-3.1-8b");
    snprintf(m2[1].name, 64, "half");
    m2[1].layers = 16, m2[1].params_total = m2[1].params_active = 4e9;
    sd_hardware hw = H100;
    snprintf(hw.name, 64, "h100-sxm");
    snprintf(hw.family, 64, "hopper");
    sd_presets p = { .models = m2, .nmodels = 2, .hardware = &hw, .nhardware = 1 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261202);
    for (int wrong = 0; wrong < 2; wrong++) {
        sd_step_time rows[64];
        size_t n = 0;
        sd_cost_params cp = sd_cost_defaults();
        cp.launch = 3e-6, cp.overhead = 0.0, cp.eta_bw = 0.7;
        for (int mi = 0; mi < 2; mi++)
            for (double b = 1; b <= 256; b *= 4)
                for (double tp = 1; tp <= 2; tp++) {
                    sd_step_time *x = &rows[n++];
                    *x = (sd_step_time){ .batch = b, .context = 1024, .tokens = 1, .tp = tp, .graphs = 1, .line = n };
                    memcpy(x->model, m2[mi].name, 64);
                    snprintf(x->hardware, 64, "h100-sxm");
                    cp.tp = tp;
                    x->seconds = sd_cost_step_time(&m2[mi], &hw, &cp, b, 1, 1024, NULL) * (1 + 0.01 * gsl_ran_gaussian(r, 1.0)) +
                                 (wrong ? 2e-3 : 0.0);
                }
        sd_calibrate_request rq = { .presets = &p, .rows = rows, .nrows = n, .start = sd_cost_defaults(),
                                    .by = SD_CALIBRATE_BY_FAMILY,
                                    .fit = { [SD_CAL_ETA_FLOPS] = 1, [SD_CAL_ETA_BW] = 1, [SD_CAL_LAUNCH] = 1 } };
        rq.start.overhead = 0.0;
        sd_calibration *f;
        size_t nf;
        double pred[64], loo[64];
        sd_error err;
        ck_assert_msg(sd_calibrate(&rq, &f, &nf, pred, loo, &err) == SD_OK, "%s", err.msg);
        ck_assert_uint_eq(nf, 2); /* pooled, hopper */
        ck_assert_str_eq(f[0].hardware, "*");
        ck_assert_str_eq(f[1].hardware, "hopper");
        ck_assert_ptr_eq(sd_calibrate_find(f, nf, &m2[0], &hw), &f[1]);
        if (wrong) {
            ck_assert_msg(f[1].loo_median > 0.05, "a fixed 2 ms fitted away: loo median %g", f[1].loo_median);
            free(f);
            break;
        }
        ck_assert_int_eq(f[1].hold[SD_CAL_LAUNCH], SD_CAL_FITTED);
        ck_assert_msg(fabs(f[1].value[SD_CAL_LAUNCH] - 3e-6) < 5 * f[1].se[SD_CAL_LAUNCH], "launch %g +- %g",
                      f[1].value[SD_CAL_LAUNCH], f[1].se[SD_CAL_LAUNCH]);
        ck_assert_msg(f[1].loo_median < 0.03 && f[1].loo_max < 0.08, "loo %g %g", f[1].loo_median, f[1].loo_max);
        for (size_t i = 0; i < n; i++)
            ck_assert(fabs(loo[i] - pred[i]) < 0.05 * pred[i]);
        sd_roofline_request q = sd_cost_roofline_defaults();
        q.target = &m2[0], q.draft = &m2[1], q.hardware = &hw, q.alpha = 0.8;
        q.gammas = (const double[]){ 1, 2, 3, 4, 5, 6 }, q.ngammas = 6;
        sd_calibrate_apply(&f[1], &q.params);
        sd_calibrate_apply(&f[1], &q.draft_params);
        sd_roofline_point pt;
        sd_cost_roofline(&q, 8, 1024, &pt);
        sd_calibrate_band_out b;
        ck_assert_msg(sd_calibrate_band(&q, &f[1], &f[1], 8, 1024, 200, 0.05, 7, &b, &err) == SD_OK, "%s", err.msg);
        ck_assert(b.improvement_lo <= pt.improvement_opt * 1.001 && b.improvement_hi >= pt.improvement_opt * 0.999);
        ck_assert(b.improvement_hi - b.improvement_lo < 0.05 * pt.improvement_opt);
        ck_assert(b.tokens_per_second_lo < b.tokens_per_second_hi);
        ck_assert_int_eq(sd_calibrate_band(&q, &f[1], &f[1], 8, 1024, 5, 0.05, 7, &b, &err), SD_EINVAL);
        /* the draws the band summarises: the same seed gives the band's quantiles exactly; a fitted term
         * scatters with its standard error (200 draws: the SD within 30%, a 6-sigma margin), a fixed one
         * stays; one fit serves both models, each keeping its tp */
        sd_roofline_request dr[200];
        q.draft_params.tp = 2;
        ck_assert_int_eq(sd_calibrate_draws(&q, &f[1], &f[1], 200, 7, dr, &err), SD_OK);
        double imp[200], sum = 0, sum2 = 0;
        for (int k = 0; k < 200; k++) {
            sd_roofline_point x;
            q.draft_params.tp = 1;
            sd_roofline_request one = dr[k];
            one.draft_params.tp = 1;
            sd_cost_roofline(&one, 8, 1024, &x);
            imp[k] = x.improvement_opt;
            double l = dr[k].params.launch;
            sum += l, sum2 += l * l;
            ck_assert_double_eq(dr[k].params.overhead, f[1].value[SD_CAL_OVERHEAD]);
            ck_assert_double_eq(dr[k].draft_params.launch, l);
            ck_assert_double_eq(dr[k].draft_params.tp, 2);
        }
        gsl_sort(imp, 1, 200);
        ck_assert_double_eq(gsl_stats_quantile_from_sorted_data(imp, 1, 200, 0.05), b.improvement_lo);
        double sd = sqrt(sum2 / 200 - (sum / 200) * (sum / 200)), se = f[1].se[SD_CAL_LAUNCH];
        ck_assert_msg(sd > 0.7 * se && sd < 1.3 * se, "launch draws' SD %g, SE %g", sd, se);
        ck_assert_msg(fabs(sum / 200 - f[1].value[SD_CAL_LAUNCH]) < 6 * se / sqrt(200.0), "mean %g", sum / 200);
        /* which fit applies: the family's for both; a model's own row, the draft borrowing it; another
         * granularity's, none */
        const sd_calibration *c, *cd;
        sd_roofline_request a = q;
        ck_assert_int_eq(sd_calibrate_apply_request(f, nf, &a, &c, &cd), 0);
        ck_assert(c == &f[1] && cd == &f[1]);
        sd_calibration own = f[1];
        snprintf(own.model, sizeof own.model, "llama-3.1-8b");
        snprintf(own.hardware, sizeof own.hardware, "h100-sxm");
        a = q;
        a.draft_params.tp = 2;
        ck_assert_int_eq(sd_calibrate_apply_request(&own, 1, &a, &c, &cd), 1);
        ck_assert(c == &own && cd == &own);
        ck_assert_double_eq(a.draft_params.launch, own.value[SD_CAL_LAUNCH]);
        ck_assert_double_eq(a.draft_params.tp, 2);
        snprintf(own.granularity, sizeof own.granularity, "pass");
        a = sd_cost_roofline_defaults();
        a.target = &m2[0], a.draft = &m2[1], a.hardware = &hw;
        ck_assert_int_eq(sd_calibrate_apply_request(&own, 1, &a, &c, &cd), 0);
        ck_assert(c == NULL && cd == NULL);
        ck_assert_double_eq(a.params.launch, sd_cost_defaults().launch); /* untouched */
        free(f);
    }
    gsl_rng_free(r);
}
END_TEST

/* Step times and saved fits from files: tp defaults to 1, rows keep their
 * lines; a bad figure is refused with file, line and column; a saved fit is
 * found by its model and hardware. */
START_TEST(loaders_and_find)
{
    const char *path = write_temp("# measured\nmodel\thardware\tbatch\tcontext\ttokens\tseconds\n"
                                  "llama-3.1-8b\th100-sxm\t8\t1024\t5\t0.0123\n\nm2\th200\t1\t0\t1\t2e-3\n");
    sd_step_time *rows;
    size_t n;
    sd_error err;
    ck_assert_msg(sd_calibrate_load_times(path, &rows, &n, &err) == SD_OK, "%s", err.msg);
    unlink(path);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(rows[0].model, "llama-3.1-8b");
    ck_assert_str_eq(rows[0].hardware, "h100-sxm");
    ck_assert_double_eq(rows[0].batch, 8);
    ck_assert_double_eq(rows[0].context, 1024);
    ck_assert_double_eq(rows[0].tokens, 5);
    ck_assert_double_eq(rows[0].seconds, 0.0123);
    ck_assert_double_eq(rows[0].tp, 1); /* the optional column, missing */
    ck_assert_uint_eq(rows[0].line, 3);
    ck_assert_uint_eq(rows[1].line, 5);
    ck_assert_double_eq(rows[1].context, 0);
    free(rows);
    static const struct { const char *row, *why; } bad[] = {
        { "m\th\t0\t1024\t1\t0.01\t1", ":2: batch: 0 is outside" },
        { "m\th\t1.5\t1024\t1\t0.01\t1", ":2: batch: 1.5 is not a whole number" },
        { "m\th\t1\t-1\t1\t0.01\t1", ":2: context: -1 is outside" },
        { "m\th\t1\t1024\t1\t0\t1", ":2: seconds: 0 is outside" },
        { "m\th\t1\t1024\t1\t0.01\t0", ":2: tp: 0 is outside" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "model\thardware\tbatch\tcontext\ttokens\tseconds\ttp\n%s\n", bad[i].row);
        path = write_temp(text);
        rows = NULL;
        ck_assert_int_eq(sd_calibrate_load_times(path, &rows, &n, &err), SD_EINVAL);
        ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0 && strstr(err.msg, bad[i].why) != NULL,
                      "case %zu: '%s' lacks '%s'", i, err.msg, bad[i].why);
        ck_assert_ptr_null(rows); /* untouched */
        unlink(path);
    }
    path = write_temp("model\thardware\tbatch\tcontext\tseconds\nm\th\t1\t1\t0.1\n");
    ck_assert_int_eq(sd_calibrate_load_times(path, &rows, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "no 'tokens' column"));
    unlink(path);

    path = write_temp("model\thardware\tgranularity\teta_flops\teta_bw\toverhead\trms\n"
                      "a\tx\toperator\t0.6\t0.7\t3e-5\t0.01\nb\tx\tpass\t0.5\t0.8\t0\t0.02\n");
    sd_calibration *fits;
    ck_assert_msg(sd_calibrate_load(path, &fits, &n, &err) == SD_OK, "%s", err.msg);
    unlink(path);
    ck_assert_uint_eq(n, 2);
    const sd_calibration *f = find_named(fits, n, "b", "x");
    ck_assert_ptr_eq(f, &fits[1]);
    ck_assert_str_eq(f->granularity, "pass");
    ck_assert_double_eq(f->value[SD_CAL_ETA_BW], 0.8);
    ck_assert_double_eq(find_named(fits, n, "a", "x")->value[SD_CAL_OVERHEAD], 3e-5);
    ck_assert_ptr_null(find_named(fits, n, "a", "y"));
    ck_assert_ptr_null(find_named(fits, n, "x", "a"));
    free(fits);
    path = write_temp("model\thardware\tgranularity\teta_flops\teta_bw\toverhead\na\tx\toperator\t0.0001\t0.7\t0\n");
    ck_assert_int_eq(sd_calibrate_load(path, &fits, &n, &err), SD_EINVAL); /* eta's in [0.001, 1] */
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: eta_flops: 0.0001 is outside"));
    unlink(path);
}
END_TEST

Suite *calibrate_suite(void)
{
    Suite *s = suite_create("calibrate");
    TCase *tc = tcase_create("calibrate");
    tcase_add_test(tc, calibration_recovers);
    tcase_add_test(tc, calibration_holds_what_rows_cannot_see);
    tcase_add_test(tc, loaders_and_find);
    tcase_add_test(tc, family_fit_loo_and_band);
    suite_add_tcase(s, tc);
    return s;
}
