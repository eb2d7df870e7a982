/* calibrate_file.c -- the files of calibrate.h: measured step times, and
 * fits as saved (the columns the saved fits are written and read by). */
#include "specdec/calibrate.h"
#include "calibrate_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        cols[n++] = (sd_records_col){ .col = SD_CALIBRATE_TERMS[i].name, .kind = SD_RECORDS_NUMBER,
                                      .offset = R(value) + (size_t)i * sizeof(double),
                                      .min = i == SD_CAL_HOP_LATENCY ? -1 : SD_CALIBRATE_TERMS[i].lo,
                                      .max = SD_CALIBRATE_TERMS[i].hi,
                                      .scale = 1, .optional = !old, .dflt = i == SD_CAL_HOP_LATENCY ? -1 : 0 };
        snprintf(names[k], 48, "%s_se", SD_CALIBRATE_TERMS[i].name);
        cols[n++] = (sd_records_col){ .col = names[k++], .kind = SD_RECORDS_NUMBER,
                                      .offset = R(se) + (size_t)i * sizeof(double), .min = 0, .max = 1e6, .scale = 1,
                                      .optional = 1 };
        snprintf(names[k], 48, "%s_fit", SD_CALIBRATE_TERMS[i].name);
        cols[n++] = (sd_records_col){ .col = names[k++], .kind = SD_RECORDS_NAME,
                                      .offset = R(fit) + (size_t)i * 64, .optional = 1 };
    }
    size_t c = 0;
    for (int i = 0; i < SD_CAL_NTERMS; i++)
        for (int j = i; j < SD_CAL_NTERMS; j++, c++) {
            snprintf(names[k], 48, "cov_%s_%s", SD_CALIBRATE_TERMS[i].name, SD_CALIBRATE_TERMS[j].name);
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
            for (int j = 0; h < 0 && sd_calibrate_hold_names()[j] != NULL; j++)
                if (strcmp(sd_calibrate_hold_names()[j], r[k].fit[i]) == 0)
                    h = j;
            if (h < 0 && st == SD_OK)
                st = sd_status_fail(err, SD_EINVAL, "%s: row %zu: %s_fit: '%s' is not one of fitted, fixed, unused, "
                                    "bound, weak", path, k + 1, SD_CALIBRATE_TERMS[i].name, r[k].fit[i]);
            f->hold[i] = h;
            for (int j = i; j < SD_CAL_NTERMS; j++, q++)
                f->cov[i][j] = f->cov[j][i] = r[k].cov[q];
            if (!have_cov && h == SD_CAL_FITTED) /* an older save: its standard errors alone */
                f->cov[i][i] = SD_CALIBRATE_TERMS[i].log ? pow(f->se[i] / f->value[i], 2) : f->se[i] * f->se[i];
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

sd_status sd_calibrate_load_defaults(const char *data_dir, sd_calibration **out, size_t *n, sd_error *err)
{
    char path[4096];
    sd_status st = sd_data_find(data_dir, "cost-defaults.tsv", path, sizeof path, err);
    return st != SD_OK ? st : sd_calibrate_load(path, out, n, err);
}
