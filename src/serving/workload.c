/* workload.c -- the serving workload's files (serving.h): a trace of
 * arrivals and a histogram of lengths, read strictly. */
#include "specdec/serving.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/parse.h"
#include "specdec/tsv.h"

/* Columns cols[0..n-1] of t into fresh arrays out[k] under their domains (dom[k].name: the column). */
static sd_status read_columns(const char *path, const sd_tsv *t, const char *const *cols, const sd_domain *dom,
                              size_t n, double **out, sd_error *err)
{
    size_t idx[3];
    for (size_t k = 0; k < n; k++)
        if ((idx[k] = sd_tsv_column(t, cols[k])) == (size_t)-1)
            return sd_status_fail(err, SD_EINVAL, "%s: no '%s' column", path, cols[k]);
    if (t->nrows == 0)
        return sd_status_fail(err, SD_EINVAL, "%s: no rows", path);
    for (size_t k = 0; k < n; k++)
        if ((out[k] = malloc(t->nrows * sizeof *out[k])) == NULL)
            return sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < t->nrows; i++)
        for (size_t k = 0; k < n; k++) {
            char where[4200];
            snprintf(where, sizeof where, "%s:%zu: %s", path, t->row[i].line, cols[k]);
            sd_domain d = dom[k];
            d.name = where;
            sd_status st = sd_parse_number(t->row[i].field[idx[k]], &d, &out[k][i], err);
            if (st != SD_OK)
                return st;
        }
    return SD_OK;
}

static void free_all(double **v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        free(v[k]);
        v[k] = NULL;
    }
}

sd_status sd_serving_load_trace(const char *path, double **time, double **prompt, double **output, size_t *n,
                                sd_error *err)
{
    static const char *const cols[3] = { "time", "prompt", "output" };
    static const sd_domain dom[3] = { { "time", 0, 1e12, 0 }, { "prompt", 1, 16777216, 1 }, { "output", 1, 16777216, 1 } };
    sd_tsv t;
    double *v[3] = { NULL, NULL, NULL };
    sd_status st = sd_tsv_load(path, 1, 100000000, &t, err);
    if (st != SD_OK)
        return st;
    st = read_columns(path, &t, cols, dom, 3, v, err);
    for (size_t i = 1; st == SD_OK && i < t.nrows; i++)
        if (v[0][i] < v[0][i - 1])
            st = sd_status_fail(err, SD_EINVAL, "%s:%zu: time: %g is before the previous row's %g: arrival times must "
                                "not go backwards", path, t.row[i].line, v[0][i], v[0][i - 1]);
    if (st == SD_OK) {
        *time = v[0], *prompt = v[1], *output = v[2];
        *n = t.nrows;
    } else
        free_all(v, 3);
    sd_tsv_free(&t);
    return st;
}

sd_status sd_serving_load_lengths(const char *path, double **value, double **weight, size_t *n, sd_error *err)
{
    static const char *const cols[2] = { "length", "weight" };
    static const sd_domain dom[2] = { { "length", 1, 16777216, 1 }, { "weight", 1e-300, 1e300, 0 } };
    sd_tsv t;
    double *v[2] = { NULL, NULL };
    sd_status st = sd_tsv_load(path, 1, 1000000, &t, err);
    if (st != SD_OK)
        return st;
    st = read_columns(path, &t, cols, dom, 2, v, err);
    if (st == SD_OK) {
        *value = v[0], *weight = v[1];
        *n = t.nrows;
    } else
        free_all(v, 2);
    sd_tsv_free(&t);
    return st;
}
