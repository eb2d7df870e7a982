/* cmd_roofline_calibrate.c -- `specdec roofline --calibrate FILE`: the cost model
 * fitted to measured step times (calibrate.h), each row with its fitted and
 * leave-one-out time, and the fits as --calibration reads them. */
#include "cmd_roofline_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const BY[] = { [SD_CALIBRATE_BY_MODEL_HARDWARE] = "model-hardware",
                                  [SD_CALIBRATE_BY_FAMILY] = "family", NULL };

const char *const *roofline_calibrate_by_names(void) { return BY; }

/* The fits, one row each, in the columns sd_calibrate_load reads. */
static sd_status fits_table(const sd_calibration *f, size_t n, sd_table **out, sd_error *err)
{
    const char *const *tn = sd_calibrate_term_names(), *const *hn = sd_calibrate_hold_names();
    enum { NT = SD_CAL_NTERMS, NCOL = 4 + 3 * NT + NT * (NT + 1) / 2 + 4 };
    char names[NCOL][48];
    const char *cols[NCOL];
    size_t k = 0;
    cols[k++] = "model", cols[k++] = "hardware", cols[k++] = "granularity", cols[k++] = "rows";
    for (int i = 0; i < NT; i++) {
        cols[k++] = tn[i];
        snprintf(names[k], 48, "%s_se", tn[i]), cols[k] = names[k], k++;
        snprintf(names[k], 48, "%s_fit", tn[i]), cols[k] = names[k], k++;
    }
    for (int i = 0; i < NT; i++)
        for (int j = i; j < NT; j++)
            snprintf(names[k], 48, "cov_%s_%s", tn[i], tn[j]), cols[k] = names[k], k++;
    cols[k++] = "rms_rel_residual", cols[k++] = "max_rel_residual", cols[k++] = "loo_median", cols[k++] = "loo_max";
    sd_status st = sd_command_table(NCOL, cols, out, err);
    for (size_t r = 0; r < n && st == SD_OK; r++) {
        sd_cell row[NCOL];
        k = 0;
        row[k++] = sd_text(f[r].model), row[k++] = sd_text(f[r].hardware), row[k++] = sd_text(f[r].granularity);
        row[k++] = sd_int((long long)f[r].rows);
        for (int i = 0; i < NT; i++) {
            row[k++] = sd_real(f[r].value[i]);
            row[k++] = sd_real(f[r].se[i]);
            row[k++] = sd_text(hn[f[r].hold[i]]);
        }
        for (int i = 0; i < NT; i++)
            for (int j = i; j < NT; j++)
                row[k++] = sd_real(f[r].cov[i][j]);
        row[k++] = sd_real(f[r].rms_rel_residual), row[k++] = sd_real(f[r].max_rel_residual);
        row[k++] = sd_real(f[r].loo_median), row[k++] = sd_real(f[r].loo_max);
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

/* One note per fit: its terms (value +- se, or how held) and its errors. */
static sd_status fit_note(const sd_calibration *c, sd_table *t, sd_error *err)
{
    const char *const *tn = sd_calibrate_term_names(), *const *hn = sd_calibrate_hold_names();
    char terms[1024] = "";
    for (int i = 0; i < SD_CAL_NTERMS; i++) {
        size_t l = strlen(terms);
        double v = c->value[i];
        if (c->hold[i] == SD_CAL_FITTED)
            snprintf(terms + l, sizeof terms - l, "%s %.4g +- %.2g, ", tn[i], v, c->se[i]);
        else if (i == SD_CAL_HOP_LATENCY && v < 0.0)
            snprintf(terms + l, sizeof terms - l, "%s the hardware's (%s), ", tn[i], hn[c->hold[i]]);
        else
            snprintf(terms + l, sizeof terms - l, "%s %.4g (%s), ", tn[i], v, hn[c->hold[i]]);
    }
    sd_status st = sd_table_note(t, err, "%s on %s, %zu rows: %srelative residuals rms %.3g, max %.3g; leave-one-out "
                                 "|error| median %.3g, max %.3g.", c->model, c->hardware, c->rows, terms,
                                 c->rms_rel_residual, c->max_rel_residual, c->loo_median, c->loo_max);
    if (st == SD_OK && c->max_rel_residual > 0.1)
        st = sd_table_note(t, err, "%s on %s: a row is off by more than 10%%: the model does not describe these times; "
                           "look at the rows with the largest residuals.", c->model, c->hardware);
    return st;
}

static sd_status rows_table(const sd_step_time *r, size_t n, const double *pred, const double *loo,
                            const sd_calibration *f, size_t nf, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "model", "hardware", "batch", "context", "tokens", "tp", "graphs", "seconds",
                                        "predicted", "rel_residual", "loo_predicted", "loo_rel_error" };
    sd_status st = sd_command_table(12, cols, out, err);
    for (size_t i = 0; i < n && st == SD_OK; i++) {
        const sd_cell row[] = { sd_text(r[i].model), sd_text(r[i].hardware), sd_int((long long)r[i].batch),
                                sd_int((long long)r[i].context), sd_int((long long)r[i].tokens),
                                sd_int((long long)r[i].tp), sd_text(r[i].graphs ? "on" : "off"),
                                sd_real(r[i].seconds), sd_real(pred[i]),
                                sd_real((pred[i] - r[i].seconds) / r[i].seconds), sd_real(loo[i]),
                                sd_real((loo[i] - r[i].seconds) / r[i].seconds) };
        st = sd_table_add(*out, row, err);
    }
    for (size_t i = 0; i < nf && st == SD_OK; i++)
        st = fit_note(&f[i], *out, err);
    return st;
}

sd_status roofline_calibrate(const sd_command_args *a, const sd_presets *p, sd_table **out, sd_error *err)
{
    sd_calibrate_request rq = { .presets = p, .start = sd_cost_defaults() };
    sd_step_time *rows = NULL;
    sd_calibration *fits = NULL;
    double *pred = NULL, *loo = NULL;
    size_t n = 0, nf = 0;
    int by = 0;
    sd_status st;
    if ((st = sd_cmd_cost_params(a, 1, &rq.start, err)) != SD_OK ||
        (st = sd_command_args_choice(a, "--calibrate-by", NULL, &by, err)) != SD_OK ||
        (sd_command_args_given(a, "--launch") && (st = sd_command_args_number(a, &SD_CMD_LAUNCH, &rq.start.launch, err)) != SD_OK) ||
        (st = sd_calibrate_load_times(sd_command_args_value(a, "--calibrate"), &rows, &n, err)) != SD_OK)
        return st;
    rq.by = (sd_calibrate_by)by;
    if (rq.by == SD_CALIBRATE_BY_FAMILY) {
        for (int i = 0; i < SD_CAL_NTERMS; i++)
            rq.fit[i] = 1;
        /* the priors a term the rows cannot identify keeps (doc/roofline.md cites them) */
        if (!sd_command_args_given(a, "--launch"))
            rq.start.launch = 1.2e-6;  /* per kernel in a graph replay */
        rq.start.launch_eager = 5.75e-6; /* per kernel launched from the host */
    }
    rq.rows = rows;
    rq.nrows = n;
    pred = calloc(n ? n : 1, sizeof *pred);
    loo = calloc(n ? n : 1, sizeof *loo);
    if (pred == NULL || loo == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    else if (n == 0)
        st = sd_status_fail(err, SD_EINVAL, "--calibrate: %s holds no measurements", sd_command_args_value(a, "--calibrate"));
    else if ((st = sd_calibrate(&rq, &fits, &nf, pred, loo, err)) != SD_OK) {
        char msg[sizeof err->msg]; /* the library's message, with the file */
        snprintf(msg, sizeof msg, "%s", err->msg);
        sd_status_fail(err, st, "%s:%s%s", sd_command_args_value(a, "--calibrate"), msg[0] >= '0' && msg[0] <= '9' ? "" : " ", msg);
    } else if ((st = rows_table(rows, n, pred, loo, fits, nf, out, err)) == SD_OK && sd_command_args_given(a, "--save-calibration"))
        st = save(sd_command_args_value(a, "--save-calibration"), fits, nf, err);
    if (st != SD_OK) {
        sd_table_free(*out);
        *out = NULL;
    }
    free(rows);
    free(fits);
    free(pred);
    free(loo);
    return st;
}
