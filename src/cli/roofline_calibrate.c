/* roofline_calibrate.c -- `specdec roofline --calibrate FILE`: the cost model
 * fitted to measured step times (calibrate.h). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fits, one row each, as --calibration reads them. */
static sd_status fits_table(const sd_calibration *f, size_t n, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "model", "hardware", "granularity", "rows", "eta_flops", "eta_flops_se",
                                        "eta_bw", "eta_bw_se", "overhead", "overhead_se", "rms_rel_residual",
                                        "max_rel_residual" };
    sd_status st = cli_table(12, cols, out, err);
    for (size_t i = 0; i < n && st == SD_OK; i++) {
        const sd_cell row[] = { sd_text(f[i].model), sd_text(f[i].hardware), sd_text(f[i].granularity),
                                sd_int((long long)f[i].rows),
                                sd_real(f[i].eta_flops), sd_real(f[i].se_eta_flops), sd_real(f[i].eta_bw),
                                sd_real(f[i].se_eta_bw), sd_real(f[i].overhead), sd_real(f[i].se_overhead),
                                sd_real(f[i].rms_rel_residual), sd_real(f[i].max_rel_residual) };
        st = sd_table_add(*out, row, err);
    }
    return st;
}

/* Writes the fits as TSV to path, whole or not at all. */
static sd_status save(const char *path, const sd_calibration *f, size_t n, sd_error *err)
{
    sd_table *t = NULL;
    sd_status st = fits_table(f, n, &t, err);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *fp = st == SD_OK ? fopen(tmp, "w") : NULL;
    if (st == SD_OK && fp == NULL)
        st = sd_status_fail(err, SD_EIO, "--save-calibration: cannot write '%s': %s", path, strerror(errno));
    if (fp != NULL) {
        if ((st = sd_format_write(t, SD_FORMAT_TSV, fp, err)) == SD_OK && fflush(fp) != 0)
            st = sd_status_fail(err, SD_EIO, "--save-calibration: cannot write '%s': %s", path, strerror(errno));
        if (fclose(fp) != 0 && st == SD_OK)
            st = sd_status_fail(err, SD_EIO, "--save-calibration: cannot write '%s': %s", path, strerror(errno));
        if (st == SD_OK && rename(tmp, path) != 0)
            st = sd_status_fail(err, SD_EIO, "--save-calibration: cannot write '%s': %s", path, strerror(errno));
        if (st != SD_OK)
            remove(tmp);
    }
    sd_table_free(t);
    return st;
}

static sd_status rows_table(const sd_step_time *r, size_t n, const double *pred, const sd_calibration *f,
                            size_t nf, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "model", "hardware", "batch", "context", "tokens", "tp", "seconds",
                                        "predicted", "rel_residual", "eta_flops", "eta_flops_se", "eta_bw",
                                        "eta_bw_se", "overhead", "overhead_se" };
    sd_status st = cli_table(15, cols, out, err);
    for (size_t i = 0; i < n && st == SD_OK; i++) {
        const sd_calibration *c = sd_calibrate_find(f, nf, r[i].model, r[i].hardware);
        const sd_cell row[] = { sd_text(r[i].model), sd_text(r[i].hardware), sd_int((long long)r[i].batch),
                                sd_int((long long)r[i].context), sd_int((long long)r[i].tokens),
                                sd_int((long long)r[i].tp), sd_real(r[i].seconds), sd_real(pred[i]),
                                sd_real((pred[i] - r[i].seconds) / r[i].seconds), sd_real(c->eta_flops),
                                sd_real(c->se_eta_flops), sd_real(c->eta_bw), sd_real(c->se_eta_bw),
                                sd_real(c->overhead), sd_real(c->se_overhead) };
        st = sd_table_add(*out, row, err);
    }
    for (size_t i = 0; i < nf && st == SD_OK; i++) {
        const sd_calibration *c = &f[i];
        st = sd_table_note(*out, err,
                           "%s on %s, %zu rows: eta_flops %.4g +- %.2g%s, eta_bw %.4g +- %.2g%s, overhead %.3g +- %.2g s%s; "
                           "relative residuals: rms %.3g, max %.3g.",
                           c->model, c->hardware, c->rows, c->eta_flops, c->se_eta_flops,
                           c->held_flops ? " (held: no row is compute-bound)" : "", c->eta_bw, c->se_eta_bw,
                           c->held_bw ? " (held: no row is memory-bound)" : "", c->overhead, c->se_overhead,
                           c->held_overhead ? " (held: the rows ask for less than 0)" : "", c->rms_rel_residual,
                           c->max_rel_residual);
        if (st == SD_OK && c->max_rel_residual > 0.1)
            st = sd_table_note(*out, err, "%s on %s: a row is off by more than 10%%: the model does not describe "
                               "these times; look at the rows with the largest residuals.", c->model, c->hardware);
    }
    return st;
}

sd_status cli_roofline_calibrate(const cli_args *a, const sd_presets *p, sd_table **out, sd_error *err)
{
    sd_cost_params start = sd_cost_defaults();
    sd_step_time *rows = NULL;
    sd_calibration *fits = NULL;
    double *pred = NULL;
    size_t n = 0, nf = 0;
    sd_status st;
    if ((st = cli_cost_params(a, 1, &start, err)) != SD_OK ||
        (st = sd_calibrate_load_times(cli_value(a, "--calibrate"), &rows, &n, err)) != SD_OK)
        return st;
    if ((pred = calloc(n ? n : 1, sizeof *pred)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    else if (n == 0)
        st = sd_status_fail(err, SD_EINVAL, "--calibrate: %s holds no measurements", cli_value(a, "--calibrate"));
    else if ((st = sd_calibrate(&(sd_calibrate_request){ .presets = p, .rows = rows, .nrows = n, .start = start },
                                 &fits, &nf, pred, err)) != SD_OK) {
        char msg[sizeof err->msg]; /* the library's message, with the file */
        snprintf(msg, sizeof msg, "%s", err->msg);
        sd_status_fail(err, st, "%s:%s%s", cli_value(a, "--calibrate"), msg[0] >= '0' && msg[0] <= '9' ? "" : " ", msg);
    } else if ((st = rows_table(rows, n, pred, fits, nf, out, err)) == SD_OK && cli_given(a, "--save-calibration"))
        st = save(cli_value(a, "--save-calibration"), fits, nf, err);
    if (st != SD_OK) {
        sd_table_free(*out);
        *out = NULL;
    }
    free(rows);
    free(fits);
    free(pred);
    return st;
}
