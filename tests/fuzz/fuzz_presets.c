/* fuzz_presets.c -- every TSV file of records the cost model reads: model and
 * hardware presets (presets.h), measured step times and saved calibrations
 * (calibrate.h), acceptance by context and mean lengths by gamma (cost.h),
 * engine profiles (loop.h).
 *
 * Input: the whole file, which all seven loaders read.  For each, the harness
 * holds the documented columns (the header comments of presets.h,
 * calibrate.h and cost.h, restated in the tables below) and reads the file
 * with the reference reader of fuzz_common.h.  Properties:
 *   - each loader agrees with its documented rules: a header with every
 *     required column, as many fields in every row as in the header, names
 *     of 1 to 63 characters, every figure a number (parse.h) inside its
 *     stated range (whole where stated), "-" only where a peak may be
 *     unpublished (0), a number type one of fp4 fp8 int8 bf16 fp16 fp32,
 *     params_active <= params_total and experts_active <= experts,
 *     contexts strictly increasing and at least 2 rows for the acceptance;
 *     a mean length at most gamma + 1, each gamma once, at least one row;
 *     on or off for a switch, a profile's drafter one of loop.h's kinds and
 *     each (engine, drafter) pair once.
 *     Preset figures are also bounded above so that no product overflows,
 *     bounds the headers do not state: there the harness accepts any
 *     "is outside" refusal;
 *   - every loaded record holds exactly the values read (scaled to SI
 *     units), all finite;
 *   - on failure the outputs keep their sentinels;
 *   - sd_presets_model / sd_presets_hardware find every loaded name and
 *     reject an unknown one; sd_loop_find finds every profile by its
 *     (engine, drafter) pair and rejects an unknown engine;
 *   - every error message is one non-empty line.
 */
#include <math.h>

#include "fuzz_common.h"

typedef enum { K_NAME, K_NUM, K_DASH, K_TYPE, K_SWITCH } kind;

typedef struct {
    const char *col;
    kind k;
    double min, max; /* the documented range; max INFINITY where only a hidden bound applies */
    int whole, optional;
    double scale, dflt;
} col;

#define NAME(c) { c, K_NAME, 0, 0, 0, 0, 0, 0 }
#define POS(c, scale) { c, K_NUM, 1e-300, INFINITY, 0, 0, scale, 0 }
#define DASH(c) { c, K_DASH, 1e-300, INFINITY, 0, 1, 1e12, 0 }
#define TYPE(c) { c, K_TYPE, 0, 0, 0, 0, 0, 0 }

static const col MODELS[] = { NAME("name"),       POS("params_total", 1), POS("params_active", 1), POS("layers", 1),
                              POS("d_model", 1),  POS("heads", 1),        POS("kv_heads", 1),      POS("head_dim", 1),
                              POS("d_ff", 1),     POS("vocab", 1),        POS("experts", 1),       POS("experts_active", 1),
                              TYPE("weight_dtype"), TYPE("kv_dtype"),     TYPE("act_dtype"),       TYPE("compute_dtype"),
                              { "fuse", K_NUM, 0, 64, 1, 1, 1, 0 } };
static const col HARDWARE[] = { NAME("name"),          POS("tflops_bf16", 1e12), DASH("tflops_fp16"),
                                DASH("tflops_fp8"),    DASH("tflops_int8"),      DASH("tflops_fp4"),
                                POS("bandwidth_tbs", 1e12), POS("memory_gb", 1e9), POS("link_gbs", 1e9),
                                POS("link_latency_us", 1e-6) };
static const col TIMES[] = { NAME("model"),
                             NAME("hardware"),
                             { "batch", K_NUM, 1, 1048576, 1, 0, 1, 0 },
                             { "context", K_NUM, 0, 16777216, 1, 0, 1, 0 },
                             { "tokens", K_NUM, 1, 4096, 1, 0, 1, 0 },
                             { "seconds", K_NUM, 1e-300, 1e6, 0, 0, 1, 0 },
                             { "tp", K_NUM, 1, 1024, 1, 1, 1, 1 } };
static const col CALIBRATIONS[] = { NAME("model"), NAME("hardware"), NAME("granularity"),
                                    { "eta_flops", K_NUM, 1e-3, 1, 0, 0, 1, 0 },
                                    { "eta_bw", K_NUM, 1e-3, 1, 0, 0, 1, 0 },
                                    { "overhead", K_NUM, 0, 1, 0, 0, 1, 0 },
                                    /* optional columns a save holds (calibrate.h) */
                                    { "rows", K_NUM, 0, 1e9, 1, 1, 1, 0 },
                                    { "eta_flops_se", K_NUM, 0, 1e6, 0, 1, 1, 0 },
                                    { "eta_bw_se", K_NUM, 0, 1e6, 0, 1, 1, 0 },
                                    { "overhead_se", K_NUM, 0, 1e6, 0, 1, 1, 0 },
                                    { "launch", K_NUM, 0, 1, 0, 1, 1, 0 },
                                    { "launch_se", K_NUM, 0, 1e6, 0, 1, 1, 0 },
                                    { "launch_eager", K_NUM, 0, 1, 0, 1, 1, 0 },
                                    { "hop_latency", K_NUM, -1, 1, 0, 1, 1, -1 },
                                    { "rms_rel_residual", K_NUM, 0, 1e6, 0, 1, 1, 0 },
                                    { "max_rel_residual", K_NUM, 0, 1e6, 0, 1, 1, 0 },
                                    { "loo_median", K_NUM, 0, 1e6, 0, 1, 1, 0 },
                                    { "loo_max", K_NUM, 0, 1e6, 0, 1, 1, 0 } };
static const col PROFILES[] = { NAME("engine"), NAME("drafter"), NAME("source"),
                                { "draft_step_ms", K_NUM, 0, 1000, 0, 0, 1e-3, 0 },
                                { "draft_step_seq_us", K_NUM, 0, 1e6, 0, 0, 1e-6, 0 },
                                { "iteration_ms", K_NUM, 0, 1000, 0, 0, 1e-3, 0 },
                                { "iteration_token_us", K_NUM, 0, 1e6, 0, 0, 1e-6, 0 },
                                { "host_seq_us", K_NUM, 0, 1e6, 0, 0, 1e-6, 0 },
                                { "verify_premium", K_NUM, 0, 10, 0, 0, 1, 0 },
                                { "catch_up", K_SWITCH, 0, 0, 0, 0, 0, 0 } };
static const col MEANS[] = { { "gamma", K_NUM, 1, 256, 1, 0, 1, 0 }, { "mean_length", K_NUM, 1, 257, 0, 0, 1, 0 } };
static const col ALPHAS[] = { { "context", K_NUM, 0, 16777216, 0, 0, 1, 0 }, { "alpha", K_NUM, 0, 1, 0, 0, 1, 0 } };
#define N(a) (sizeof a / sizeof a[0])

static const char *const TYPES[] = { "fp4", "fp8", "int8", "bf16", "fp16", "fp32" };
static const sd_dtype TYPE_IDS[] = { SD_FP4, SD_FP8, SD_INT8, SD_BF16, SD_FP16, SD_FP32 };

/* The reference reading: 1 and per row per column its value (names: NaN;
 * types: the sd_dtype), or 0 when a documented rule fails; *bound is 1
 * when it failed only on a value above a range with a hidden bound. */
static int reference(const ref_tsv *ref, const col *cols, size_t ncols, double **val, size_t *nrows)
{
    *val = NULL;
    *nrows = 0;
    if (ref->nrows == 0)
        return 0; /* no header line */
    const ref_row *head = &ref->row[0];
    size_t idx[32];
    for (size_t j = 0; j < ncols; j++)
        if ((idx[j] = ref_column(head, cols[j].col)) == (size_t)-1 && !cols[j].optional)
            return 0;
    size_t rows = ref->nrows - 1;
    if (rows > 100000)
        return 0;
    double *v = calloc(rows * ncols + 1, sizeof *v);
    if (v == NULL)
        abort();
    for (size_t i = 0; i < rows; i++) {
        const ref_row *r = &ref->row[i + 1];
        if (r->nfields != head->nfields)
            goto bad;
        for (size_t j = 0; j < ncols; j++) {
            double *x = &v[i * ncols + j];
            const col *c = &cols[j];
            if (idx[j] == (size_t)-1) {
                *x = c->dflt;
                continue;
            }
            const char *f = r->field[idx[j]];
            if (c->k == K_NAME) {
                if (strlen(f) == 0 || strlen(f) >= 64)
                    goto bad;
                *x = NAN;
            } else if (c->k == K_TYPE) {
                size_t t = 0;
                while (t < N(TYPES) && strcmp(f, TYPES[t]) != 0)
                    t++;
                if (t == N(TYPES))
                    goto bad;
                *x = (double)TYPE_IDS[t];
            } else if (c->k == K_SWITCH) {
                if (strcmp(f, "on") != 0 && strcmp(f, "off") != 0)
                    goto bad;
                *x = strcmp(f, "on") == 0;
            } else if (c->k == K_DASH && strcmp(f, "-") == 0) {
                *x = 0;
            } else {
                const sd_domain dom = { "x", c->min, c->max, c->whole };
                sd_error e;
                if (sd_parse_number(f, &dom, x, &e) != SD_OK)
                    goto bad;
                *x *= c->scale;
            }
        }
    }
    *val = v;
    *nrows = rows;
    return 1;
bad:
    free(v);
    return 0;
}

/* What every loader's failure must look like. */
static void check_failure(sd_status st, const sd_error *err, int ok, int hidden_bound, const char *what)
{
    CHECK(st == SD_EINVAL, "%s: status %d", what, (int)st);
    CHECK(!ok || (hidden_bound && strstr(err->msg, " is outside ") != NULL),
          "%s rejects what the reference accepts, not for a bound: [%s]", what, err->msg);
    check_message(err, what);
}

static void check_value(double got, double want, const char *what, size_t i, const char *c)
{
    CHECK(isfinite(got), "%s %zu: %s = %.17g is not finite", what, i, c, got);
    CHECK(got == want, "%s %zu: %s = %.17g, not %.17g", what, i, c, got, want);
}

static void fuzz_models(const char *path, const ref_tsv *ref)
{
    double *v;
    size_t rows;
    int ok = reference(ref, MODELS, N(MODELS), &v, &rows);
    for (size_t i = 0; ok && i < rows; i++)
        ok = v[i * N(MODELS) + 2] <= v[i * N(MODELS) + 1] && v[i * N(MODELS) + 11] <= v[i * N(MODELS) + 10];
    sd_model_spec *m = (sd_model_spec *)(uintptr_t)0x5eed;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_presets_load_models(path, &m, &n, &err);
    CHECK(st != SD_OK || ok, "sd_presets_load_models accepts what the reference rejects%s", "");
    if (st != SD_OK) {
        check_failure(st, &err, ok, 1, "sd_presets_load_models");
        CHECK(m == (sd_model_spec *)(uintptr_t)0x5eed && n == 4242, "sd_presets_load_models failed but wrote");
        free(v);
        return;
    }
    CHECK(n == rows, "%zu models; the file has %zu rows", n, rows);
    size_t name_col = ref_column(&ref->row[0], "name");
    for (size_t i = 0; i < n; i++) {
        const sd_model_spec *s = &m[i];
        const double *w = &v[i * N(MODELS)];
        CHECK(strnlen(s->name, sizeof s->name) < sizeof s->name && strcmp(s->name, ref->row[i + 1].field[name_col]) == 0,
              "model %zu: name '%.64s'", i, s->name);
        const double got[] = { NAN,        s->params_total, s->params_active, s->layers,   s->d_model, s->heads,
                               s->kv_heads, s->head_dim,    s->d_ff,          s->vocab,    s->experts,
                               s->experts_active, (double)s->weight, (double)s->kv, (double)s->act, (double)s->compute,
                               s->fuse };
        for (size_t k = 1; k < N(MODELS); k++)
            check_value(got[k], w[k], "model", i, MODELS[k].col);
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
    free(v);
}

static void fuzz_hardware(const char *path, const ref_tsv *ref)
{
    double *v;
    size_t rows;
    int ok = reference(ref, HARDWARE, N(HARDWARE), &v, &rows);
    sd_hardware *h = (sd_hardware *)(uintptr_t)0x5eed;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_presets_load_hardware(path, &h, &n, &err);
    CHECK(st != SD_OK || ok, "sd_presets_load_hardware accepts what the reference rejects%s", "");
    if (st != SD_OK) {
        check_failure(st, &err, ok, 1, "sd_presets_load_hardware");
        CHECK(h == (sd_hardware *)(uintptr_t)0x5eed && n == 4242, "sd_presets_load_hardware failed but wrote");
        free(v);
        return;
    }
    CHECK(n == rows, "%zu hardware presets; the file has %zu rows", n, rows);
    for (size_t i = 0; i < n; i++) {
        const sd_hardware *s = &h[i];
        const double *w = &v[i * N(HARDWARE)];
        CHECK(strnlen(s->name, sizeof s->name) > 0, "hardware %zu: empty name", i);
        const double got[] = { NAN, s->flops[SD_BF16], s->flops[SD_FP16], s->flops[SD_FP8], s->flops[SD_INT8],
                               s->flops[SD_FP4], s->bandwidth, s->memory, s->link_bandwidth, s->link_latency };
        for (size_t k = 1; k < N(HARDWARE); k++)
            check_value(got[k], w[k], "hardware", i, HARDWARE[k].col);
        CHECK(s->flops[SD_FP32] == 0, "hardware %zu: an fp32 peak nobody gave", i);
    }
    sd_presets p = { NULL, 0, h, n };
    for (size_t i = 0; i < n; i++) {
        const sd_hardware *found = NULL;
        CHECK(sd_presets_hardware(&p, "hardware", h[i].name, &found, &err) == SD_OK && found != NULL &&
                  strcmp(found->name, h[i].name) == 0 && found <= &h[i],
              "sd_presets_hardware('%s') does not find it", h[i].name);
    }
    free(h);
    free(v);
}

static void fuzz_times(const char *path, const ref_tsv *ref)
{
    double *v;
    size_t rows;
    int ok = reference(ref, TIMES, N(TIMES), &v, &rows);
    sd_step_time *t = (sd_step_time *)(uintptr_t)0x5eed;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_calibrate_load_times(path, &t, &n, &err);
    CHECK((st == SD_OK) == ok, "sd_calibrate_load_times says %d, the reference %d [%s]", (int)st, ok, err.msg);
    if (st != SD_OK) {
        check_failure(st, &err, ok, 0, "sd_calibrate_load_times");
        CHECK(t == (sd_step_time *)(uintptr_t)0x5eed && n == 4242, "sd_calibrate_load_times failed but wrote");
        free(v);
        return;
    }
    CHECK(n == rows, "%zu step times; the file has %zu rows", n, rows);
    for (size_t i = 0; i < n; i++) {
        const double *w = &v[i * N(TIMES)];
        const double got[] = { NAN, NAN, t[i].batch, t[i].context, t[i].tokens, t[i].seconds, t[i].tp };
        for (size_t k = 2; k < N(TIMES); k++)
            check_value(got[k], w[k], "step time", i, TIMES[k].col);
        CHECK(t[i].line == ref->row[i + 1].line, "step time %zu: line %zu, not %zu", i, t[i].line, ref->row[i + 1].line);
    }
    free(t);
    free(v);
}

static void fuzz_calibrations(const char *path, const ref_tsv *ref)
{
    double *v;
    size_t rows;
    int ok = reference(ref, CALIBRATIONS, N(CALIBRATIONS), &v, &rows);
    sd_calibration *c = (sd_calibration *)(uintptr_t)0x5eed;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_calibrate_load(path, &c, &n, &err);
    CHECK((st == SD_OK) == ok, "sd_calibrate_load says %d, the reference %d [%s]", (int)st, ok, err.msg);
    if (st != SD_OK) {
        check_failure(st, &err, ok, 0, "sd_calibrate_load");
        CHECK(c == (sd_calibration *)(uintptr_t)0x5eed && n == 4242, "sd_calibrate_load failed but wrote");
        free(v);
        return;
    }
    CHECK(n == rows, "%zu calibrations; the file has %zu rows", n, rows);
    for (size_t i = 0; i < n; i++) {
        const double *w = &v[i * N(CALIBRATIONS)];
        check_value(c[i].value[SD_CAL_ETA_FLOPS], w[3], "calibration", i, "eta_flops");
        check_value(c[i].value[SD_CAL_ETA_BW], w[4], "calibration", i, "eta_bw");
        check_value(c[i].value[SD_CAL_OVERHEAD], w[5], "calibration", i, "overhead");
        sd_model_spec ms = { .name = "" };
        sd_hardware hs = { .name = "" };
        memcpy(ms.name, c[i].model, sizeof ms.name);
        memcpy(hs.name, c[i].hardware, sizeof hs.name);
        CHECK(sd_calibrate_find(c, n, &ms, &hs) <= &c[i], "sd_calibrate_find misses row %zu", i);
    }
    free(c);
    free(v);
}

static void fuzz_alphas(const char *path, const ref_tsv *ref)
{
    double *v;
    size_t rows;
    int ok = reference(ref, ALPHAS, N(ALPHAS), &v, &rows) && rows >= 2;
    for (size_t i = 1; ok && i < rows; i++)
        ok = v[i * 2] > v[(i - 1) * 2];
    double *ctx = (double *)(uintptr_t)0x5eed, *alpha = (double *)(uintptr_t)0x5eed;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_cost_load_alpha_by_context(path, &ctx, &alpha, &n, &err);
    CHECK((st == SD_OK) == ok, "sd_cost_load_alpha_by_context says %d, the reference %d [%s]", (int)st, ok, err.msg);
    if (st != SD_OK) {
        check_failure(st, &err, ok, 0, "sd_cost_load_alpha_by_context");
        CHECK(ctx == (double *)(uintptr_t)0x5eed && alpha == (double *)(uintptr_t)0x5eed && n == 4242,
              "sd_cost_load_alpha_by_context failed but wrote");
        free(v);
        return;
    }
    CHECK(n == rows, "%zu points; the file has %zu rows", n, rows);
    sd_roofline_request rq = sd_cost_roofline_defaults();
    rq.alpha_context = ctx, rq.alpha_value = alpha, rq.nalpha = n;
    for (size_t i = 0; i < n; i++) {
        check_value(ctx[i], v[i * 2], "point", i, "context");
        check_value(alpha[i], v[i * 2 + 1], "point", i, "alpha");
        /* interpolation: exact at the rows, inside [0, 1] between them */
        CHECK(sd_cost_alpha_at(&rq, ctx[i]) == alpha[i], "alpha at context %.17g is %.17g, not %.17g", ctx[i],
              sd_cost_alpha_at(&rq, ctx[i]), alpha[i]);
        if (i > 0) {
            double mid = sd_cost_alpha_at(&rq, ctx[i - 1] + (ctx[i] - ctx[i - 1]) / 2);
            CHECK(mid >= fmin(alpha[i - 1], alpha[i]) && mid <= fmax(alpha[i - 1], alpha[i]),
                  "alpha between two rows %.17g", mid);
        }
    }
    free(ctx);
    free(alpha);
    free(v);
}

/* The reference's profile rules past the columns: a known drafter kind, each pair once. */
static int profiles_ok(const ref_tsv *ref, size_t rows)
{
    static const char *const kinds[] = { "draft-model", "self", "ngram", "*" };
    size_t e = ref_column(&ref->row[0], "engine"), d = ref_column(&ref->row[0], "drafter");
    for (size_t i = 1; i <= rows; i++) {
        size_t k = 0;
        while (k < N(kinds) && strcmp(ref->row[i].field[d], kinds[k]) != 0)
            k++;
        if (k == N(kinds))
            return 0;
        for (size_t j = 1; j < i; j++)
            if (strcmp(ref->row[i].field[e], ref->row[j].field[e]) == 0 &&
                strcmp(ref->row[i].field[d], ref->row[j].field[d]) == 0)
                return 0;
    }
    return 1;
}

static void fuzz_profiles(const char *path, const ref_tsv *ref)
{
    double *v;
    size_t rows;
    int ok = reference(ref, PROFILES, N(PROFILES), &v, &rows) && profiles_ok(ref, rows);
    sd_loop_profile *p = (sd_loop_profile *)(uintptr_t)0x5eed;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_loop_load(path, &p, &n, &err);
    CHECK((st == SD_OK) == ok, "sd_loop_load says %d, the reference %d [%s]", (int)st, ok, err.msg);
    if (st != SD_OK) {
        check_failure(st, &err, ok, 0, "sd_loop_load");
        CHECK(p == (sd_loop_profile *)(uintptr_t)0x5eed && n == 4242, "sd_loop_load failed but wrote");
        free(v);
        return;
    }
    CHECK(n == rows, "%zu profiles; the file has %zu rows", n, rows);
    for (size_t i = 0; i < n; i++) {
        const double *w = &v[i * N(PROFILES)];
        const sd_loop_params *q = &p[i].p;
        const double got[] = { NAN, NAN, NAN, q->draft_step, q->draft_step_seq, q->iteration, q->iteration_token,
                               q->host_seq, q->verify_premium, (double)q->catch_up };
        for (size_t k = 3; k < N(PROFILES); k++)
            check_value(got[k], w[k], "profile", i, PROFILES[k].col);
        const sd_loop_profile *found = NULL;
        CHECK(sd_loop_find(p, n, "--engine", p[i].engine, p[i].drafter, &found, &err) == SD_OK && found == &p[i],
              "sd_loop_find('%s', '%s') does not find row %zu", p[i].engine, p[i].drafter, i);
    }
    const sd_loop_profile *none = (const sd_loop_profile *)(uintptr_t)0x5eed;
    clear_error(&err);
    CHECK(sd_loop_find(p, n, "--engine", "no\tsuch engine", "*", &none, &err) == SD_EINVAL &&
              none == (const sd_loop_profile *)(uintptr_t)0x5eed,
          "sd_loop_find found an unknown engine");
    check_message(&err, "sd_loop_find");
    free(p);
    free(v);
}

static void fuzz_means(const char *path, const ref_tsv *ref)
{
    double *v;
    size_t rows, top = 0;
    int ok = reference(ref, MEANS, N(MEANS), &v, &rows) && rows >= 1;
    for (size_t i = 0; ok && i < rows; i++) {
        ok = v[i * 2 + 1] <= v[i * 2] + 1;
        for (size_t j = 0; ok && j < i; j++)
            ok = v[j * 2] != v[i * 2];
        top = v[i * 2] > (double)top ? (size_t)v[i * 2] : top;
    }
    double *en = (double *)(uintptr_t)0x5eed;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_cost_load_mean_lengths(path, &en, &n, &err);
    CHECK((st == SD_OK) == ok, "sd_cost_load_mean_lengths says %d, the reference %d [%s]", (int)st, ok, err.msg);
    if (st != SD_OK) {
        check_failure(st, &err, ok, 0, "sd_cost_load_mean_lengths");
        CHECK(en == (double *)(uintptr_t)0x5eed && n == 4242, "sd_cost_load_mean_lengths failed but wrote");
        free(v);
        return;
    }
    CHECK(n == top, "%zu gammas; the largest row is %zu", n, top);
    size_t set = 0;
    for (size_t g = 0; g < n; g++)
        set += !isnan(en[g]);
    CHECK(set == rows, "%zu gammas set of %zu rows", set, rows);
    for (size_t i = 0; i < rows; i++)
        check_value(en[(size_t)v[i * 2] - 1], v[i * 2 + 1], "mean length", i, "mean_length");
    free(en);
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    ref_tsv ref;
    ref_tsv_read(data, size, &ref);
    fuzz_models(path, &ref);
    fuzz_hardware(path, &ref);
    fuzz_times(path, &ref);
    fuzz_calibrations(path, &ref);
    fuzz_alphas(path, &ref);
    fuzz_profiles(path, &ref);
    fuzz_means(path, &ref);
    ref_tsv_free(&ref);
    return 0;
}
