/* cost.c -- the roofline cost model and its preset loaders (see cost.h). */
#include "specdec/cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/data.h"
#include "specdec/parse.h"
#include "specdec/theory.h"

sd_cost_params sd_cost_defaults(void)
{
    return (sd_cost_params){ .eta_flops = 0.5, .eta_bw = 0.8, .overhead = 20e-6, .devices = 1.0 };
}

double sd_cost_kv_per_token(const sd_model_spec *m)
{
    return 2.0 * m->layers * m->kv_heads * m->head_dim * m->kv_bytes;
}

/* Parameters a pass over `tokens` tokens reads (all of a dense model; for
 * experts the shared part and the expected distinct experts). */
static double params_read(const sd_model_spec *m, double tokens)
{
    if (m->experts <= 1.0 || m->experts_active >= m->experts) /* dense, or every expert serves every token */
        return m->params_total;
    double share = m->experts_active / m->experts;
    double shared = (m->params_active - share * m->params_total) / (1.0 - share);
    if (shared < 0.0)
        shared = 0.0;
    double touched = -expm1(tokens * log1p(-share)); /* 1 - (1 - k/E)^tokens */
    return shared + (m->params_total - shared) * touched;
}

double sd_cost_step_time(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp, double batch,
                         double n, double context, int *compute_bound)
{
    double tokens = batch * n;
    double flops = 2.0 * m->params_active * tokens +
                   4.0 * m->layers * m->heads * m->head_dim * tokens * (context + (n + 1.0) / 2.0);
    double bytes = params_read(m, tokens) * m->bytes_per_param + sd_cost_kv_per_token(m) * batch * (context + n);
    double t_compute = flops / (cp->eta_flops * h->flops * cp->devices);
    double t_memory = bytes / (cp->eta_bw * h->bandwidth * cp->devices);
    if (compute_bound != NULL)
        *compute_bound = t_compute > t_memory;
    return fmax(t_compute, t_memory) + cp->overhead;
}

int sd_cost_fits(const sd_model_spec *target, const sd_model_spec *draft, const sd_hardware *h,
                 const sd_cost_params *cp, double batch, double context, double gamma)
{
    double tokens = batch * (context + gamma + 1.0);
    double need = target->params_total * target->bytes_per_param + draft->params_total * draft->bytes_per_param +
                  tokens * (sd_cost_kv_per_token(target) + sd_cost_kv_per_token(draft));
    return need <= h->memory * cp->devices;
}

void sd_cost_roofline(const sd_roofline_request *rq, double batch, double context, sd_roofline_point *out)
{
    const sd_model_spec *target = rq->target, *draft = rq->draft;
    const sd_hardware *h = rq->hardware;
    const sd_cost_params *cp = &rq->params;
    int cb;
    double t1 = sd_cost_step_time(target, h, cp, batch, 1.0, context, &cb);
    double td = sd_cost_step_time(draft, h, cp, batch, 1.0, context, NULL);
    double gmax = 1.0;
    *out = (sd_roofline_point){ .gamma_opt = 0.0, .improvement_opt = 1.0, .c_effective = td / t1,
                                .tokens_per_second = batch / t1, .tokens_per_second_baseline = batch / t1,
                                .compute_bound = cb, .fits = 0 };
    for (size_t i = 0; i < rq->ngammas; i++) {
        double g = rq->gammas[i];
        gmax = fmax(gmax, g);
        double e = rq->acc != NULL ? sd_theory_expected_tokens_vec(rq->acc, g <= (double)rq->nacc ? (size_t)g : rq->nacc)
                                   : sd_theory_expected_tokens(rq->alpha, g);
        double ratio = sd_cost_step_time(target, h, cp, batch, g + 1.0, context, NULL) / t1;
        double f = e / (g * out->c_effective + ratio);
        if (f > out->improvement_opt) {
            out->gamma_opt = g;
            out->improvement_opt = f;
        }
    }
    double g = out->gamma_opt > 0.0 ? out->gamma_opt : 1.0;
    out->verify_cost_ratio = sd_cost_step_time(target, h, cp, batch, g + 1.0, context, &out->compute_bound) / t1;
    if (out->gamma_opt <= 0.0) /* no speculation: the plain pass decides the bound */
        sd_cost_step_time(target, h, cp, batch, 1.0, context, &out->compute_bound);
    out->tokens_per_second = out->tokens_per_second_baseline * out->improvement_opt;
    out->fits = sd_cost_fits(target, draft, h, cp, batch, context, gmax);
}

double sd_cost_breakeven(const sd_roofline_request *rq, const double *batches, size_t nb, double context)
{
    double breakeven = NAN;
    for (size_t i = 0; i < nb; i++) {
        sd_roofline_point r;
        sd_cost_roofline(rq, batches[i], context, &r);
        if (r.gamma_opt > 0.0)
            breakeven = NAN; /* speculation helps again: the switch-off point lies further on */
        else if (isnan(breakeven))
            breakeven = batches[i];
    }
    return breakeven;
}

size_t sd_cost_schedule(const sd_roofline_request *rq, const double *batches, size_t nb, double context,
                        sd_schedule_bucket *out)
{
    size_t k = 0;
    for (size_t i = 0; i < nb; i++) {
        sd_roofline_point r;
        sd_cost_roofline(rq, batches[i], context, &r);
        if (k > 0 && fabs(out[k - 1].gamma - r.gamma_opt) < 0.5) {
            out[k - 1].batch_to = batches[i];
            continue;
        }
        out[k++] = (sd_schedule_bucket){ .batch_from = batches[i], .batch_to = batches[i], .gamma = r.gamma_opt };
    }
    return k;
}

/* ---- presets ------------------------------------------------------------------ */

/* Reads the named positive columns of every row through parse.h. */
static sd_status read_rows(const char *path, const char *const *cols, size_t ncols, sd_tsv *t, size_t *idx,
                           sd_error *err)
{
    sd_status st = sd_tsv_load(path, 1, 100000, t, err);
    if (st != SD_OK)
        return st;
    for (size_t j = 0; j < ncols; j++)
        if ((idx[j] = sd_tsv_column(t, cols[j])) == (size_t)-1) {
            sd_tsv_free(t);
            return sd_fail(err, SD_EINVAL, "%s: no '%s' column", path, cols[j]);
        }
    return SD_OK;
}

/* The largest value a preset column may hold: generous bounds under which
 * every product the model forms stays finite (1e16 parameters, 1e9 TFLOP/s). */
static double column_max(const char *col)
{
    static const struct {
        const char *col;
        double max;
    } MAX[] = { { "params_total", 1e16 }, { "params_active", 1e16 }, { "bytes_per_param", 64 },
                { "layers", 1e6 },        { "heads", 1e6 },          { "kv_heads", 1e6 },
                { "head_dim", 1e6 },      { "kv_bytes", 64 },        { "experts", 1e6 },
                { "experts_active", 1e6 }, { "tflops", 1e9 },        { "bandwidth_tbs", 1e6 },
                { "memory_gb", 1e9 } };
    for (size_t i = 0; i < sizeof MAX / sizeof MAX[0]; i++)
        if (strcmp(MAX[i].col, col) == 0)
            return MAX[i].max;
    return 1e16;
}

static sd_status number(const char *path, const sd_tsv_row *r, const char *col, size_t j, double *out, sd_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%zu: %s", path, r->line, col);
    const sd_domain dom = { where, 1e-300, column_max(col), 0 }; /* figures must be positive and bounded */
    return sd_parse_number(r->field[j], &dom, out, err);
}

static sd_status name_of(const char *path, const sd_tsv_row *r, size_t j, char *dst, size_t size, sd_error *err)
{
    if (r->field[j][0] == '\0' || strlen(r->field[j]) >= size)
        return sd_fail(err, SD_EINVAL, "%s:%zu: name must have 1 to %zu characters", path, r->line, size - 1);
    strcpy(dst, r->field[j]);
    return SD_OK;
}

sd_status sd_cost_load_models(const char *path, sd_model_spec **out, size_t *n, sd_error *err)
{
    static const char *const cols[] = { "name", "params_total", "params_active", "bytes_per_param", "layers", "heads",
                                        "kv_heads", "head_dim", "kv_bytes", "experts", "experts_active" };
    size_t idx[11];
    sd_tsv t;
    sd_status st = read_rows(path, cols, 11, &t, idx, err);
    if (st != SD_OK)
        return st;
    sd_model_spec *m = calloc(t.nrows ? t.nrows : 1, sizeof *m);
    size_t rows = t.nrows;
    if (m == NULL)
        st = sd_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        const sd_tsv_row *r = &t.row[i];
        double *f[] = { &m[i].params_total, &m[i].params_active, &m[i].bytes_per_param, &m[i].layers, &m[i].heads,
                        &m[i].kv_heads, &m[i].head_dim, &m[i].kv_bytes, &m[i].experts, &m[i].experts_active };
        st = name_of(path, r, idx[0], m[i].name, sizeof m[i].name, err);
        for (int k = 0; k < 10 && st == SD_OK; k++)
            st = number(path, r, cols[k + 1], idx[k + 1], f[k], err);
        if (st == SD_OK && (m[i].params_active > m[i].params_total || m[i].experts_active > m[i].experts))
            st = sd_fail(err, SD_EINVAL, "%s:%zu: active parameters or experts exceed the totals", path, r->line);
    }
    sd_tsv_free(&t);
    if (st != SD_OK) {
        free(m);
        return st;
    }
    *out = m;
    *n = rows;
    return SD_OK;
}

sd_status sd_cost_load_hardware(const char *path, sd_hardware **out, size_t *n, sd_error *err)
{
    static const char *const cols[] = { "name", "tflops", "bandwidth_tbs", "memory_gb" };
    size_t idx[4];
    sd_tsv t;
    sd_status st = read_rows(path, cols, 4, &t, idx, err);
    if (st != SD_OK)
        return st;
    sd_hardware *h = calloc(t.nrows ? t.nrows : 1, sizeof *h);
    if (h == NULL)
        st = sd_fail(err, SD_ENOMEM, "out of memory");
    size_t rows = t.nrows;
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        const sd_tsv_row *r = &t.row[i];
        if ((st = name_of(path, r, idx[0], h[i].name, sizeof h[i].name, err)) != SD_OK ||
            (st = number(path, r, cols[1], idx[1], &h[i].flops, err)) != SD_OK ||
            (st = number(path, r, cols[2], idx[2], &h[i].bandwidth, err)) != SD_OK ||
            (st = number(path, r, cols[3], idx[3], &h[i].memory, err)) != SD_OK)
            break;
        h[i].flops *= 1e12;
        h[i].bandwidth *= 1e12;
        h[i].memory *= 1e9;
    }
    sd_tsv_free(&t);
    if (st != SD_OK) {
        free(h);
        return st;
    }
    *out = h;
    *n = rows;
    return SD_OK;
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
    if ((st = sd_cost_load_models(models_path ? models_path : mp, &p.models, &p.nmodels, err)) != SD_OK)
        return st;
    if ((st = sd_cost_load_hardware(hardware_path ? hardware_path : hp, &p.hardware, &p.nhardware, err)) != SD_OK) {
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
        return sd_fail(err, SD_EINVAL, "%s: a %s name is required; known: %s", param, kind, known);
    return sd_fail(err, SD_EINVAL, "%s: unknown %s '%s'; known: %s", param, kind, name, known);
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
