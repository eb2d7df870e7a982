/* test_calibrate.c -- the cost model fitted to measured step times
 * (calibrate.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

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
    ck_assert_int_eq(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = n, .start = start }, &f, &nf, pred, &err), SD_OK);
    ck_assert_uint_eq(nf, 1);
    ck_assert_uint_eq(f->rows, n);
    ck_assert_int_eq(f->held_flops + f->held_bw, 0);
    ck_assert_msg(fabs(f->eta_flops - 0.62) < 5 * f->se_eta_flops, "eta_F %g +- %g", f->eta_flops, f->se_eta_flops);
    ck_assert_msg(fabs(f->eta_bw - 0.71) < 5 * f->se_eta_bw, "eta_BW %g +- %g", f->eta_bw, f->se_eta_bw);
    ck_assert_msg(fabs(f->overhead - 35e-6) < 5 * f->se_overhead, "t0 %g +- %g", f->overhead, f->se_overhead);
    ck_assert(f->se_eta_flops < 0.05 * 0.62 && f->se_eta_bw < 0.05 * 0.71 && f->se_eta_flops > 0);
    ck_assert(f->rms_rel_residual > 0.01 && f->rms_rel_residual < 0.03); /* the 2% noise */
    for (size_t i = 0; i < n; i++)
        ck_assert_rel(pred[i], rows[i].seconds, 0.12); /* 6 sigma of the noise */
    free(f);
    /* negative control: times no roofline makes */
    n = make_times(rows, 0.62, 0.71, 35e-6, 1, r);
    ck_assert_int_eq(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = n, .start = start }, &f, &nf, pred, &err), SD_OK);
    ck_assert_msg(f->max_rel_residual > 0.3 && f->rms_rel_residual > 0.1, "wrong data fits: rms %g max %g",
                  f->rms_rel_residual, f->max_rel_residual);
    free(f);
    /* too few rows, unknown names */
    ck_assert_int_eq(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = 3, .start = start }, &f, &nf, pred, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "has 3 rows; at least 4 are needed"));
    snprintf(rows[0].model, sizeof rows[0].model, "gpt-9");
    ck_assert_int_eq(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = n, .start = start }, &f, &nf, pred, &err), SD_EINVAL);
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
    ck_assert_msg(sd_calibrate(&(sd_calibrate_request){ .presets = &p, .rows = rows, .nrows = 6, .start = start }, &f, &nf, NULL, &err) == SD_OK, "%s", err.msg);
    ck_assert_int_eq(f->held_flops, 1);
    ck_assert_double_eq(f->eta_flops, 0.5);
    ck_assert_double_eq(f->se_eta_flops, 0);
    ck_assert_int_eq(f->held_bw, 0);
    ck_assert(f->overhead >= 0.0); /* the fit wants t0 < 0 here: held at 0 and flagged */
    ck_assert_int_eq(f->held_overhead, f->overhead == 0.0);
    ck_assert_msg(fabs(f->eta_bw - 0.6) < 5 * f->se_eta_bw && f->se_eta_bw < 0.05, "eta_BW %g +- %g", f->eta_bw,
                  f->se_eta_bw);
    free(f);
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
    const sd_calibration *f = sd_calibrate_find(fits, n, "b", "x");
    ck_assert_ptr_eq(f, &fits[1]);
    ck_assert_str_eq(f->granularity, "pass");
    ck_assert_double_eq(f->eta_bw, 0.8);
    ck_assert_double_eq(sd_calibrate_find(fits, n, "a", "x")->overhead, 3e-5);
    ck_assert_ptr_null(sd_calibrate_find(fits, n, "a", "y"));
    ck_assert_ptr_null(sd_calibrate_find(fits, n, "x", "a"));
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
    suite_add_tcase(s, tc);
    return s;
}
