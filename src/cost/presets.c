/* presets.c -- model and accelerator presets from TSV files (see presets.h). */
#include "specdec/presets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/data.h"
#include "records.h"

const sd_model_spec *sd_presets_ngram(void)
{
    static const sd_model_spec NGRAM = { .name = "ngram", .experts = 1, .experts_active = 1, .weight = SD_BF16,
                                         .kv = SD_BF16, .act = SD_BF16, .compute = SD_BF16 };
    return &NGRAM;
}

/* The drafter heads (presets.h): the fc's width in d_model, the LM head's vocabulary (0: the
 * target's), whether the layer keeps the target's experts. */
static const struct {
    const char *name;
    double fuse, vocab;
    int experts;
} DRAFTERS[] = {
    { .name = "eagle", .fuse = 2, .vocab = 0, .experts = 0 },
    { .name = "eagle3", .fuse = 3, .vocab = 32000, .experts = 0 },
    { .name = "mtp", .fuse = 2, .vocab = 0, .experts = 1 },
};
#define NDRAFTERS (sizeof DRAFTERS / sizeof DRAFTERS[0])

const char *const *sd_presets_drafter_names(void)
{
    static const char *names[NDRAFTERS + 1];
    for (size_t i = 0; i < NDRAFTERS; i++)
        names[i] = DRAFTERS[i].name;
    return names;
}

sd_status sd_presets_drafter(const sd_model_spec *target, const char *param, const char *kind, sd_model_spec *out,
                             sd_error *err)
{
    size_t i = 0;
    while (i < NDRAFTERS && (kind == NULL || strcmp(kind, DRAFTERS[i].name) != 0))
        i++;
    if (i == NDRAFTERS)
        return sd_status_fail(err, SD_EINVAL, "%s: unknown drafter head '%s'; known: eagle, eagle3, mtp", param,
                              kind != NULL ? kind : "");
    sd_model_spec m = *target;
    snprintf(m.name, sizeof m.name, "%s", DRAFTERS[i].name);
    m.layers = 1;
    m.fuse = DRAFTERS[i].fuse;
    m.vocab = DRAFTERS[i].vocab > 0 ? DRAFTERS[i].vocab : target->vocab;
    if (!DRAFTERS[i].experts)
        m.experts = m.experts_active = 1;
    /* one layer: attention's projections and the MLP (each expert's, all of them), norms aside */
    double att = m.d_model * (m.heads + 2 * m.kv_heads) * m.head_dim + m.heads * m.head_dim * m.d_model;
    double mlp = 3 * m.d_model * m.d_ff, rest = m.fuse * m.d_model * m.d_model + m.vocab * m.d_model;
    m.params_total = att + mlp * m.experts + rest;
    m.params_active = att + mlp * m.experts_active + rest;
    *out = m;
    return SD_OK;
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
#define POS(name, off, hi, unit) \
    { .col = name, .kind = SD_RECORDS_NUMBER, .offset = off, .min = 1e-300, .max = hi, .scale = unit }
#define DASH(name, off, hi, unit) \
    { .col = name, .kind = SD_RECORDS_NUMBER, .offset = off, .min = 1e-300, .max = hi, .scale = unit, .dash = 1, \
      .optional = 1 }

/* Bounds under which every product the model forms stays finite. */
static const sd_records_col MODEL_COLS[] = {
    { .col = "name", .kind = SD_RECORDS_NAME, .offset = M(name) },
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
    { .col = "weight_dtype", .kind = SD_RECORDS_DTYPE, .offset = M(weight) },
    { .col = "kv_dtype", .kind = SD_RECORDS_DTYPE, .offset = M(kv) },
    { .col = "act_dtype", .kind = SD_RECORDS_DTYPE, .offset = M(act) },
    { .col = "compute_dtype", .kind = SD_RECORDS_DTYPE, .offset = M(compute) },
    { .col = "fuse", .kind = SD_RECORDS_NUMBER, .offset = M(fuse), .min = 0, .max = 64, .whole = 1, .scale = 1,
      .optional = 1 },
};

static const sd_records_col HARDWARE_COLS[] = {
    { .col = "name", .kind = SD_RECORDS_NAME, .offset = H(name) },
    POS("tflops_bf16", H(flops[SD_BF16]), 1e9, 1e12),
    DASH("tflops_fp16", H(flops[SD_FP16]), 1e9, 1e12),
    DASH("tflops_fp8", H(flops[SD_FP8]), 1e9, 1e12),
    DASH("tflops_int8", H(flops[SD_INT8]), 1e9, 1e12),
    DASH("tflops_fp4", H(flops[SD_FP4]), 1e9, 1e12),
    POS("bandwidth_tbs", H(bandwidth), 1e6, 1e12),
    POS("memory_gb", H(memory), 1e9, 1e9),
    POS("link_gbs", H(link_bandwidth), 1e9, 1e9),
    POS("link_latency_us", H(link_latency), 1e6, 1e-6),
    { .col = "family", .kind = SD_RECORDS_NAME, .offset = H(family), .optional = 1 },
};

sd_status sd_presets_load_models(const char *path, sd_model_spec **out, size_t *n, sd_error *err)
{
    void *rec;
    size_t rows;
    const sd_records_layout layout = { MODEL_COLS, sizeof MODEL_COLS / sizeof MODEL_COLS[0], sizeof **out, (size_t)-1 };
    sd_status st = sd_records_load(path, &layout, &rec, &rows, err);
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
    const sd_records_layout layout = { HARDWARE_COLS, sizeof HARDWARE_COLS / sizeof HARDWARE_COLS[0], sizeof **out,
                                       (size_t)-1 };
    sd_status st = sd_records_load(path, &layout, &rec, &rows, err);
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
