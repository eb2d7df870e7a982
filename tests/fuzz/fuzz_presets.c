/* fuzz_presets.c -- sd_cost_load_models and sd_cost_load_hardware (cost.h).
 *
 * Input: the whole file, which both loaders read.  Properties:
 *   - each loader agrees with cost.h's rules read by the reference reader
 *     (fuzz_common.h): a header with every required column, every row's
 *     name of 1 to 63 characters, every figure a number >= 1e-300 (parse.h),
 *     params_active <= params_total and experts_active <= experts.  When
 *     they do not hold it fails; when they do it returns one record per row
 *     with those values (hardware scaled to FLOP/s, bytes/s and bytes) --
 *     or fails with a figure "outside" its range: cost.c bounds each column
 *     (column_max, e.g. tflops <= 1e9) so that no product overflows, bounds
 *     cost.h does not state, so the harness accepts any such bound;
 *   - every loaded record: name non-empty and NUL-terminated in its array,
 *     every numeric field positive and finite, experts_active <= experts,
 *     params_active <= params_total;
 *   - on failure *out and *n keep their sentinels;
 *   - sd_presets_model / sd_presets_hardware find every loaded name (its
 *     first record) and reject an unknown one;
 *   - every error message is one non-empty line.
 */
#include <math.h>

#include "fuzz_common.h"

static const char *const MODEL_COLS[11] = { "name",     "params_total", "params_active", "bytes_per_param",
                                            "layers",   "heads",        "kv_heads",      "head_dim",
                                            "kv_bytes", "experts",      "experts_active" };
static const char *const HW_COLS[4] = { "name", "tflops", "bandwidth_tbs", "memory_gb" };

/* The reference: 1 and the figures of every row (ncols - 1 per row), or 0. */
static int ref_presets(const ref_tsv *ref, const char *const *cols, size_t ncols, double **fig)
{
    *fig = NULL;
    if (ref->nrows == 0)
        return 0; /* no header line */
    const ref_row *head = &ref->row[0];
    size_t idx[11];
    for (size_t j = 0; j < ncols; j++)
        if ((idx[j] = ref_column(head, cols[j])) == (size_t)-1)
            return 0;
    size_t rows = ref->nrows - 1, per = ncols - 1;
    if (rows > 100000)
        return 0;
    double *f = calloc(rows * per + 1, sizeof *f);
    if (f == NULL)
        abort();
    for (size_t i = 0; i < rows; i++) {
        const ref_row *r = &ref->row[i + 1];
        const sd_domain dom = { "x", 1e-300, INFINITY, 0 };
        sd_error e;
        if (r->nfields != head->nfields) {
            free(f);
            return 0;
        }
        size_t nl = strlen(r->field[idx[0]]);
        if (nl == 0 || nl >= 64) {
            free(f);
            return 0;
        }
        for (size_t j = 1; j < ncols; j++)
            if (sd_parse_number(r->field[idx[j]], &dom, &f[i * per + j - 1], &e) != SD_OK) {
                free(f);
                return 0;
            }
        /* models: params_active <= params_total, experts_active <= experts */
        if (ncols == 11 && (f[i * per + 1] > f[i * per + 0] || f[i * per + 9] > f[i * per + 8])) {
            free(f);
            return 0;
        }
    }
    *fig = f;
    return 1;
}

static void check_name(const char *name, size_t size, const ref_row *r, size_t col, const char *what)
{
    size_t len = strnlen(name, size);
    CHECK(len < size, "%s: name not NUL-terminated", what);
    CHECK(len > 0, "%s: empty name", what);
    CHECK(strcmp(name, r->field[col]) == 0, "%s: name '%s', not '%s'", what, name, r->field[col]);
}

static void check_figure(double x, double want, const char *what, size_t i, const char *col)
{
    CHECK(x > 0.0 && isfinite(x), "%s %zu: %s = %.17g is not positive and finite", what, i, col, x);
    CHECK(x == want, "%s %zu: %s = %.17g, not %.17g", what, i, col, x, want);
}

static void fuzz_models(const char *path, const ref_tsv *ref)
{
    double *fig;
    int ok = ref_presets(ref, MODEL_COLS, 11, &fig);
    sd_model_spec *m = (sd_model_spec *)(uintptr_t)0x5eed;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_cost_load_models(path, &m, &n, &err);
    CHECK(st != SD_OK || ok, "sd_cost_load_models accepts what the reference rejects%s", "");
    CHECK(st == SD_OK || !ok || strstr(err.msg, " is outside ") != NULL,
          "sd_cost_load_models rejects what the reference accepts, not for a bound: [%s]", err.msg);
    if (st != SD_OK) {
        CHECK(st == SD_EINVAL, "sd_cost_load_models: status %d", (int)st);
        CHECK(m == (sd_model_spec *)(uintptr_t)0x5eed && n == 4242, "sd_cost_load_models failed but wrote");
        check_message(&err, "sd_cost_load_models");
        free(fig);
        return;
    }
    const ref_row *head = &ref->row[0];
    size_t name_col = ref_column(head, "name");
    CHECK(n == ref->nrows - 1, "%zu models; the file has %zu rows", n, ref->nrows - 1);
    CHECK(m != NULL, "no array");
    for (size_t i = 0; i < n; i++) {
        const sd_model_spec *s = &m[i];
        const double *w = &fig[i * 10];
        check_name(s->name, sizeof s->name, &ref->row[i + 1], name_col, "model");
        const double got[10] = { s->params_total, s->params_active, s->bytes_per_param, s->layers, s->heads,
                                 s->kv_heads,     s->head_dim,      s->kv_bytes,        s->experts, s->experts_active };
        for (int k = 0; k < 10; k++)
            check_figure(got[k], w[k], "model", i, MODEL_COLS[k + 1]);
        CHECK(s->experts_active <= s->experts, "model %zu: experts_active %.17g > experts %.17g", i, s->experts_active,
              s->experts);
        CHECK(s->params_active <= s->params_total, "model %zu: params_active %.17g > params_total %.17g", i,
              s->params_active, s->params_total);
    }
    sd_presets p = { m, n, NULL, 0 };
    for (size_t i = 0; i < n; i++) {
        const sd_model_spec *found = NULL;
        CHECK(sd_presets_model(&p, "target", m[i].name, &found, &err) == SD_OK && found != NULL &&
                  strcmp(found->name, m[i].name) == 0 && found <= &m[i],
              "sd_presets_model('%s') does not find it", m[i].name);
    }
    const sd_model_spec *none = (const sd_model_spec *)(uintptr_t)0x5eed;
    clear_error(&err);
    CHECK(sd_presets_model(&p, "target", "no\tsuch model", &none, &err) == SD_EINVAL &&
              none == (const sd_model_spec *)(uintptr_t)0x5eed,
          "sd_presets_model found an unknown name");
    check_message(&err, "sd_presets_model");
    free(m);
    free(fig);
}

static void fuzz_hardware(const char *path, const ref_tsv *ref)
{
    double *fig;
    int ok = ref_presets(ref, HW_COLS, 4, &fig);
    sd_hardware *h = (sd_hardware *)(uintptr_t)0x5eed;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_cost_load_hardware(path, &h, &n, &err);
    CHECK(st != SD_OK || ok, "sd_cost_load_hardware accepts what the reference rejects%s", "");
    CHECK(st == SD_OK || !ok || strstr(err.msg, " is outside ") != NULL,
          "sd_cost_load_hardware rejects what the reference accepts, not for a bound: [%s]", err.msg);
    if (st != SD_OK) {
        CHECK(st == SD_EINVAL, "sd_cost_load_hardware: status %d", (int)st);
        CHECK(h == (sd_hardware *)(uintptr_t)0x5eed && n == 4242, "sd_cost_load_hardware failed but wrote");
        check_message(&err, "sd_cost_load_hardware");
        free(fig);
        return;
    }
    const ref_row *head = &ref->row[0];
    size_t name_col = ref_column(head, "name");
    CHECK(n == ref->nrows - 1, "%zu hardware presets; the file has %zu rows", n, ref->nrows - 1);
    CHECK(h != NULL, "no array");
    for (size_t i = 0; i < n; i++) {
        const double *w = &fig[i * 3];
        check_name(h[i].name, sizeof h[i].name, &ref->row[i + 1], name_col, "hardware");
        check_figure(h[i].flops, w[0] * 1e12, "hardware", i, "flops");
        check_figure(h[i].bandwidth, w[1] * 1e12, "hardware", i, "bandwidth");
        check_figure(h[i].memory, w[2] * 1e9, "hardware", i, "memory");
    }
    sd_presets p = { NULL, 0, h, n };
    for (size_t i = 0; i < n; i++) {
        const sd_hardware *found = NULL;
        CHECK(sd_presets_hardware(&p, "hardware", h[i].name, &found, &err) == SD_OK && found != NULL &&
                  strcmp(found->name, h[i].name) == 0 && found <= &h[i],
              "sd_presets_hardware('%s') does not find it", h[i].name);
    }
    const sd_hardware *none = (const sd_hardware *)(uintptr_t)0x5eed;
    clear_error(&err);
    CHECK(sd_presets_hardware(&p, "hardware", "no\tsuch hardware", &none, &err) == SD_EINVAL &&
              none == (const sd_hardware *)(uintptr_t)0x5eed,
          "sd_presets_hardware found an unknown name");
    check_message(&err, "sd_presets_hardware");
    free(h);
    free(fig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    ref_tsv ref;
    ref_tsv_read(data, size, &ref);
    fuzz_models(path, &ref);
    fuzz_hardware(path, &ref);
    ref_tsv_free(&ref);
    return 0;
}
