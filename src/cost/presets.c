/* presets.c -- model and accelerator presets from TSV files (see presets.h). */
#include "specdec/presets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/data.h"
#include "specdec/parse.h"
#include "specdec/tsv.h"
#include "internal.h"

static const struct {
    const char *name;
    double bytes;
} DTYPES[SD_NDTYPES] = {
    [SD_FP4] = { "fp4", 0.5 },  [SD_FP8] = { "fp8", 1 },   [SD_INT8] = { "int8", 1 },
    [SD_BF16] = { "bf16", 2 }, [SD_FP16] = { "fp16", 2 }, [SD_FP32] = { "fp32", 4 },
};

const char *sd_dtype_name(sd_dtype t)
{
    return (unsigned)t < SD_NDTYPES ? DTYPES[t].name : NULL;
}

double sd_dtype_bytes(sd_dtype t)
{
    return (unsigned)t < SD_NDTYPES ? DTYPES[t].bytes : 0.0;
}

sd_status sd_dtype_parse(const char *param, const char *name, sd_dtype *out, sd_error *err)
{
    char known[128] = "";
    for (int t = 0; t < SD_NDTYPES; t++) {
        if (name != NULL && strcmp(name, DTYPES[t].name) == 0) {
            *out = (sd_dtype)t;
            return SD_OK;
        }
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", t ? ", " : "", DTYPES[t].name);
    }
    return sd_status_fail(err, SD_EINVAL, "%s: '%s' is not a number type; known: %s", param, name ? name : "", known);
}

sd_status sd_presets_check(const sd_model_spec *m, const sd_hardware *h, sd_error *err)
{
    if (h->flops[m->compute] > 0.0)
        return SD_OK;
    return sd_status_fail(err, SD_EINVAL, "%s computes in %s, for which %s has no published peak", m->name,
                          sd_dtype_name(m->compute), h->name);
}

/* ---- the column tables ----------------------------------------------------------------- */

#define M(field) offsetof(sd_model_spec, field)
#define H(field) offsetof(sd_hardware, field)
/* a positive bounded figure, and one that may be "-" or missing (none published: 0) */
#define POS(col, off, max, scale) { col, SD_COL_NUMBER, off, 1e-300, max, 0, scale, 0, 0, 0 }
#define DASH(col, off, max, scale) { col, SD_COL_NUMBER, off, 1e-300, max, 0, scale, 1, 1, 0 }

/* Bounds under which every product the model forms stays finite. */
static const sd_col_spec MODEL_COLS[] = {
    { "name", SD_COL_NAME, M(name), 0, 0, 0, 0, 0, 0, 0 },
    POS("params_total", M(params_total), 1e16, 1),
    POS("params_active", M(params_active), 1e16, 1),
    POS("layers", M(layers), 1e6, 1),
    POS("d_model", M(d_model), 1e7, 1),
    POS("heads", M(heads), 1e6, 1),
    POS("kv_heads", M(kv_heads), 1e6, 1),
    POS("head_dim", M(head_dim), 1e6, 1),
    POS("d_ff", M(d_ff), 1e8, 1),
    POS("vocab", M(vocab), 1e9, 1),
    POS("experts", M(experts), 1e6, 1),
    POS("experts_active", M(experts_active), 1e6, 1),
    { "weight_dtype", SD_COL_DTYPE, M(weight), 0, 0, 0, 0, 0, 0, 0 },
    { "kv_dtype", SD_COL_DTYPE, M(kv), 0, 0, 0, 0, 0, 0, 0 },
    { "act_dtype", SD_COL_DTYPE, M(act), 0, 0, 0, 0, 0, 0, 0 },
    { "compute_dtype", SD_COL_DTYPE, M(compute), 0, 0, 0, 0, 0, 0, 0 },
};

static const sd_col_spec HARDWARE_COLS[] = {
    { "name", SD_COL_NAME, H(name), 0, 0, 0, 0, 0, 0, 0 },
    POS("tflops_bf16", H(flops[SD_BF16]), 1e9, 1e12),
    DASH("tflops_fp16", H(flops[SD_FP16]), 1e9, 1e12),
    DASH("tflops_fp8", H(flops[SD_FP8]), 1e9, 1e12),
    DASH("tflops_int8", H(flops[SD_INT8]), 1e9, 1e12),
    DASH("tflops_fp4", H(flops[SD_FP4]), 1e9, 1e12),
    POS("bandwidth_tbs", H(bandwidth), 1e6, 1e12),
    POS("memory_gb", H(memory), 1e9, 1e9),
    POS("link_gbs", H(link_bandwidth), 1e9, 1e9),
    POS("link_latency_us", H(link_latency), 1e6, 1e-6),
};

/* ---- one loader for every table of records ------------------------------------------------ */

/* One field of row r by column spec c into the record at rec. */
static sd_status read_field(const char *path, const sd_tsv_row *r, const sd_col_spec *c, const char *field, char *rec,
                            sd_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%zu: %s", path, r->line, c->col);
    if (c->kind == SD_COL_NAME) {
        if (field[0] == '\0' || strlen(field) >= 64)
            return sd_status_fail(err, SD_EINVAL, "%s: name must have 1 to 63 characters", where);
        strcpy(rec + c->offset, field);
        return SD_OK;
    }
    if (c->kind == SD_COL_DTYPE)
        return sd_dtype_parse(where, field, (sd_dtype *)(void *)(rec + c->offset), err);
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

sd_status sd_load_records(const char *path, const sd_col_spec *cols, size_t ncols, size_t size, size_t line_offset,
                          void **out, size_t *n, sd_error *err)
{
    sd_tsv t;
    size_t idx[32];
    sd_status st = ncols <= 32 ? sd_tsv_load(path, 1, 100000, &t, err) : sd_status_fail(err, SD_EINVAL, "too many columns");
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
        if (line_offset != (size_t)-1)
            memcpy(r + line_offset, &t.row[i].line, sizeof t.row[i].line);
        for (size_t j = 0; j < ncols && st == SD_OK; j++)
            if (idx[j] == (size_t)-1)
                memcpy(r + cols[j].offset, &cols[j].dflt, sizeof(double));
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

sd_status sd_presets_load_models(const char *path, sd_model_spec **out, size_t *n, sd_error *err)
{
    void *rec;
    size_t rows;
    sd_status st = sd_load_records(path, MODEL_COLS, sizeof MODEL_COLS / sizeof MODEL_COLS[0], sizeof **out, (size_t)-1, &rec,
                                   &rows, err);
    if (st != SD_OK)
        return st;
    sd_model_spec *m = rec;
    for (size_t i = 0; i < rows; i++)
        if (m[i].params_active > m[i].params_total || m[i].experts_active > m[i].experts) {
            sd_status_fail(err, SD_EINVAL, "%s: %s: active parameters or experts exceed the totals", path, m[i].name);
            free(m);
            return SD_EINVAL;
        }
    *out = m;
    *n = rows;
    return SD_OK;
}

sd_status sd_presets_load_hardware(const char *path, sd_hardware **out, size_t *n, sd_error *err)
{
    void *rec;
    size_t rows;
    sd_status st = sd_load_records(path, HARDWARE_COLS, sizeof HARDWARE_COLS / sizeof HARDWARE_COLS[0], sizeof **out,
                                   (size_t)-1, &rec, &rows, err);
    if (st == SD_OK) {
        *out = rec;
        *n = rows;
    }
    return st;
}

/* ---- the preset tables together ---------------------------------------------------- */

sd_status sd_presets_load(const char *data_dir, const char *models_path, const char *hardware_path, sd_presets *out,
                          sd_error *err)
{
    char mp[4096], hp[4096];
    sd_presets p = { 0 };
    sd_status st;
    if ((models_path == NULL && (st = sd_data_find(data_dir, "models.tsv", mp, sizeof mp, err)) != SD_OK) ||
        (hardware_path == NULL && (st = sd_data_find(data_dir, "hardware.tsv", hp, sizeof hp, err)) != SD_OK))
        return st;
    if ((st = sd_presets_load_models(models_path ? models_path : mp, &p.models, &p.nmodels, err)) != SD_OK)
        return st;
    if ((st = sd_presets_load_hardware(hardware_path ? hardware_path : hp, &p.hardware, &p.nhardware, err)) != SD_OK) {
        free(p.models);
        return st;
    }
    *out = p;
    return SD_OK;
}

void sd_presets_free(sd_presets *p)
{
    free(p->models);
    free(p->hardware);
    *p = (sd_presets){ 0 };
}

/* The index of name among n names at stride bytes (each record starts with
 * its name), or an error naming param and listing the known ones. */
static sd_status find_named(const char *param, const char *kind, const char *name, const void *records, size_t n,
                            size_t stride, size_t *index, sd_error *err)
{
    char known[1024] = "";
    for (size_t i = 0; i < n; i++) {
        const char *candidate = (const char *)records + i * stride;
        if (name != NULL && strcmp(candidate, name) == 0) {
            *index = i;
            return SD_OK;
        }
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", candidate);
    }
    if (name == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s: a %s name is required; known: %s", param, kind, known);
    return sd_status_fail(err, SD_EINVAL, "%s: unknown %s '%s'; known: %s", param, kind, name, known);
}

sd_status sd_presets_model(const sd_presets *p, const char *param, const char *name, const sd_model_spec **out,
                           sd_error *err)
{
    size_t i;
    sd_status st = find_named(param, "model", name, p->models, p->nmodels, sizeof *p->models, &i, err);
    if (st == SD_OK)
        *out = &p->models[i];
    return st;
}

sd_status sd_presets_hardware(const sd_presets *p, const char *param, const char *name, const sd_hardware **out,
                              sd_error *err)
{
    size_t i;
    sd_status st = find_named(param, "hardware", name, p->hardware, p->nhardware, sizeof *p->hardware, &i, err);
    if (st == SD_OK)
        *out = &p->hardware[i];
    return st;
}
