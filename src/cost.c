/* cost.c -- the roofline cost model and its preset loaders (see cost.h). */
#include "cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "theory.h"

sd_cost_params sd_cost_defaults(void)
{
    sd_cost_params p = { 0.5, 0.8, 20e-6, 1.0 };
    return p;
}

double sd_cost_kv_per_token(const sd_model_spec *m)
{
    return 2.0 * m->layers * m->kv_heads * m->head_dim * m->kv_bytes;
}

/* Parameters a pass over `tokens` tokens reads (all of a dense model; for
 * experts the shared part and the expected distinct experts). */
static double params_read(const sd_model_spec *m, double tokens)
{
    if (m->experts <= 1.0)
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

void sd_cost_roofline(const sd_model_spec *target, const sd_model_spec *draft, const sd_hardware *h,
                      const sd_cost_params *cp, double alpha, const double *acc, size_t nacc, const double *gammas,
                      size_t ng, double batch, double context, sd_roofline_point *out)
{
    int cb;
    double t1 = sd_cost_step_time(target, h, cp, batch, 1.0, context, &cb);
    double td = sd_cost_step_time(draft, h, cp, batch, 1.0, context, NULL);
    double gmax = 1.0;
    *out = (sd_roofline_point){ 0.0, 1.0, td / t1, 0.0, batch / t1, batch / t1, cb, 0 };
    for (size_t i = 0; i < ng; i++) {
        double g = gammas[i];
        gmax = fmax(gmax, g);
        double e = acc != NULL ? sd_theory_expected_tokens_vec(acc, g <= (double)nacc ? (size_t)g : nacc)
                               : sd_theory_expected_tokens(alpha, g);
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

static sd_status number(const char *path, const sd_tsv_row *r, const char *col, size_t j, double *out, sd_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%zu: %s", path, r->line, col);
    const sd_domain dom = { where, 1e-300, INFINITY, 0 }; /* figures must be positive */
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
