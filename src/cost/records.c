/* records.c -- typed records from TSV files (see records.h). */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/dtype.h"
#include "specdec/parse.h"
#include "specdec/tsv.h"

/* One field of row r by column spec c into the record at rec. */
static sd_status read_field(const char *path, const sd_tsv_row *r, const sd_records_col *c, const char *field, char *rec,
                            sd_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%zu: %s", path, r->line, c->col);
    if (c->kind == SD_RECORDS_NAME) {
        if (field[0] == '\0' || strlen(field) >= 64)
            return sd_status_fail(err, SD_EINVAL, "%s: name must have 1 to 63 characters", where);
        strcpy(rec + c->offset, field);
        return SD_OK;
    }
    if (c->kind == SD_RECORDS_DTYPE)
        return sd_dtype_parse(where, field, (sd_dtype *)(void *)(rec + c->offset), err);
    if (c->kind == SD_RECORDS_SWITCH) {
        int on = strcmp(field, "on") == 0;
        if (!on && strcmp(field, "off") != 0)
            return sd_status_fail(err, SD_EINVAL, "%s: '%s' is neither on nor off", where, field);
        memcpy(rec + c->offset, &on, sizeof on);
        return SD_OK;
    }
    double *x = (double *)(void *)(rec + c->offset), v;
    if (c->dash && strcmp(field, "-") == 0) {
        *x = 0.0;
        return SD_OK;
    }
    const sd_domain dom = { where, c->min, c->max, c->whole };
    sd_status st = sd_parse_number(field, &dom, &v, err);
    if (st == SD_OK)
        *x = v * c->scale;
    return st;
}

sd_status sd_records_load(const char *path, const sd_records_layout *layout, void **out, size_t *n, sd_error *err)
{
    sd_tsv t;
    size_t idx[SD_RECORDS_COLUMNS], ncols = layout->ncols, size = layout->size;
    const sd_records_col *cols = layout->cols;
    sd_status st = ncols <= SD_RECORDS_COLUMNS ? sd_tsv_load(path, 1, SD_RECORDS_MAX, &t, err)
                                               : sd_status_fail(err, SD_EINVAL, "too many columns");
    if (st != SD_OK)
        return st;
    for (size_t j = 0; j < ncols && st == SD_OK; j++)
        if ((idx[j] = sd_tsv_column(&t, cols[j].col)) == (size_t)-1 && !cols[j].optional)
            st = sd_status_fail(err, SD_EINVAL, "%s: no '%s' column", path, cols[j].col);
    char *rec = st == SD_OK ? calloc(t.nrows ? t.nrows : 1, size) : NULL;
    if (st == SD_OK && rec == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < t.nrows && st == SD_OK; i++) {
        char *r = rec + i * size;
        if (layout->line_offset != (size_t)-1)
            memcpy(r + layout->line_offset, &t.row[i].line, sizeof t.row[i].line);
        for (size_t j = 0; j < ncols && st == SD_OK; j++)
            if (idx[j] == (size_t)-1 && cols[j].kind == SD_RECORDS_SWITCH) {
                int on = cols[j].dflt > 0.5;
                memcpy(r + cols[j].offset, &on, sizeof on);
            } else if (idx[j] == (size_t)-1 && cols[j].kind == SD_RECORDS_NUMBER)
                memcpy(r + cols[j].offset, &cols[j].dflt, sizeof(double));
            else if (idx[j] == (size_t)-1)
                ; /* a name stays "" (calloc'd) */
            else
                st = read_field(path, &t.row[i], &cols[j], t.row[i].field[idx[j]], r, err);
    }
    size_t rows = t.nrows;
    sd_tsv_free(&t);
    if (st != SD_OK) {
        free(rec);
        return st;
    }
    *out = rec;
    *n = rows;
    return SD_OK;
}
