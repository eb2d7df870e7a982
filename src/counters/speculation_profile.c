/* speculation_profile.c -- the speculation-profile reader and writer: NVIDIA Model-Optimizer's
 * speculation_profile.json, schema 1.0 (see counters_impl.h and counters.h).
 *
 * Source: NVIDIA/Model-Optimizer examples/specdec_bench/specdec_bench/speculation_profile.py
 * @ 095124e9d582ea52b3aeb636efc281919f3aa4db (build_profile, SCHEMA_VERSION "1.0"; PRs
 * #2247, #2313, #2315, #2316, open as of 2026-09).  The fields read:
 *   schema_version "1.0"; measured (false: stub_profile(), no measurement);
 *   num_speculative_tokens K; verification_method "longest_prefix" or "block" (block
 *   verification has no longest-prefix distribution: refused);
 *   marginal_accept_rates[K]: P(the first i+1 drafts all accepted) (vLLM's synthetic
 *   rates), non-increasing (_monotonicity_check: a rise beyond 1e-9 is a violation);
 *   conditional_accept_rates[K]: P(draft i+1 accepted | the first i were), in [0, 1];
 *   mean_accept_length: the per-step mean tokens emitted (bonus included), the histogram's
 *   mean rounded to 6 digits when there is one; _consistency_check: |1 + sum marginal -
 *   mean| <= 0.02;
 *   acceptance_length_histogram {length: steps}: length = tokens emitted by a step, so
 *   length L accepted L - 1 drafts (keys "1" .. "K+1"); position i <-> length i + 2.
 * Every other field (method, checkpoints, per_category, measurement_conditions, the file's
 * validation block) is optional and not read.  With the histogram the counts are exact:
 * drafts = sum of steps, accepted_at[i] = steps of length >= i + 2; the marginals must
 * agree with them within the schema's tolerance.  Without it the file has rates but no
 * counts: a gauge, mean_accepted = sum marginal.
 *
 * The writer emits the same schema from PREFIX counts with positions (build_profile's keys
 * in its order), the rates rounded to 6 digits as build_profile rounds them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters_impl.h"

/* _consistency_check's default tolerance on |1 + sum marginal - mean_accept_length|. */
#define PROFILE_MEAN_TOL 0.02
/* _monotonicity_check's allowance for a marginal rising by rounding. */
#define PROFILE_MONO_TOL 1e-9
/* mean_accept_length is the histogram's mean rounded to 6 digits: half a unit of the 6th,
 * and a little for the double. */
#define PROFILE_ROUND_TOL (0.5e-6 + 1e-12)

/* A list member key of p of exactly K numbers in [0, 1] into r. */
static sd_status sp_rates(const sd_counters_ctx *cx, const sd_json *p, const char *key, size_t K, double *r)
{
    const sd_json *v = NULL;
    sd_status st = sd_json_get(p, key, &v, cx->err);
    if (st == SD_OK)
        st = sd_json_expect(v, SD_JSON_ARRAY, key, cx->err);
    if (st != SD_OK)
        return st;
    if (v->array.n != K)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s has %zu entries, but num_speculative_tokens is %zu",
                              cx->path, v->line, key, v->array.n, K);
    for (size_t i = 0; i < K; i++) {
        if ((st = sd_json_number(&v->array.item[i], key, &r[i], cx->err)) != SD_OK)
            return st;
        if (!(r[i] >= 0.0 && r[i] <= 1.0))
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s[%zu] = %.17g is outside [0, 1]", cx->path,
                                  v->array.item[i].line, key, i, r[i]);
    }
    return SD_OK;
}

/* What the histogram is held to: the profile's draft length and its rates. */
typedef struct {
    size_t g;        /* num_speculative_tokens */
    double m[MAXG];  /* marginal_accept_rates[0 .. g - 1] */
    double sum;      /* their sum: the mean accepted tokens per step */
    size_t mline;    /* the line of marginal_accept_rates */
    double mean;     /* mean_accept_length, or -1 without one */
} sp_profile;

/* The schema_version, measured and verification_method of profile p, and its
 * num_speculative_tokens into pr->g, held to opt->gamma.  SD_EINVAL for another schema, a
 * stub, another verification, or a draft length outside [1, MAXG] or not the one given. */
static sd_status sp_header(const sd_counters_ctx *cx, const sd_json *p, sp_profile *pr)
{
    const sd_json *v = NULL;
    const char *s = NULL;
    uint64_t K = 0;
    int measured = 0;
    sd_status st = sd_json_expect(p, SD_JSON_OBJECT, "the profile", cx->err);
    if (st == SD_OK && (st = sd_json_get(p, "schema_version", &v, cx->err)) == SD_OK)
        st = sd_json_string(v, "schema_version", &s, cx->err);
    if (st != SD_OK)
        return st;
    if (strcmp(s, "1.0") != 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: schema_version \"%s\": expected \"1.0\"", cx->path, v->line,
                              s);
    if ((st = sd_json_get(p, "measured", &v, cx->err)) != SD_OK ||
        (st = sd_json_bool(v, "measured", &measured, cx->err)) != SD_OK)
        return st;
    if (!measured)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: measured is false: a stub profile holds no measurement",
                              cx->path, v->line);
    if ((v = sd_json_find(p, "verification_method")) != NULL && v->type != SD_JSON_NULL) {
        if ((st = sd_json_string(v, "verification_method", &s, cx->err)) != SD_OK)
            return st;
        if (strcmp(s, "longest_prefix") != 0)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: verification_method \"%s\": only longest_prefix has per-position prefix "
                                  "rates",
                                  cx->path, v->line, s);
    }
    if ((st = sd_json_get(p, "num_speculative_tokens", &v, cx->err)) != SD_OK ||
        (st = sd_json_count(v, "num_speculative_tokens", &K, cx->err)) != SD_OK)
        return st;
    if (K < 1 || K > MAXG)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: num_speculative_tokens %llu is outside [1, %d]", cx->path,
                              v->line, (unsigned long long)K, MAXG);
    pr->g = (size_t)K;
    return sd_counts_gamma_agrees(cx, v->line, pr->g, "num_speculative_tokens is %zu", pr->g);
}

/* The rates of profile p into pr (pr->g set): the marginal rates, non-increasing, and the
 * conditional ones when present, each in [0, 1]; mean_accept_length within the schema's
 * tolerance of 1 + their sum. */
static sd_status sp_marginals(const sd_counters_ctx *cx, const sd_json *p, sp_profile *pr)
{
    double cond[MAXG];
    const sd_json *v;
    sd_status st = sp_rates(cx, p, "marginal_accept_rates", pr->g, pr->m);
    if (st != SD_OK)
        return st;
    if (sd_json_find(p, "conditional_accept_rates") != NULL &&
        (st = sp_rates(cx, p, "conditional_accept_rates", pr->g, cond)) != SD_OK)
        return st;
    pr->mline = sd_json_find(p, "marginal_accept_rates")->line;
    pr->sum = 0.0;
    for (size_t i = 0; i < pr->g; i++) {
        if (i > 0 && pr->m[i] > pr->m[i - 1] + PROFILE_MONO_TOL)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: marginal_accept_rates rises at position %zu: %.17g after %.17g", cx->path,
                                  pr->mline, i, pr->m[i], pr->m[i - 1]);
        pr->sum += pr->m[i];
    }
    pr->mean = -1.0;
    if ((v = sd_json_find(p, "mean_accept_length")) != NULL && v->type != SD_JSON_NULL) {
        if ((st = sd_json_number(v, "mean_accept_length", &pr->mean, cx->err)) != SD_OK)
            return st;
        if (!(fabs(1.0 + pr->sum - pr->mean) <= PROFILE_MEAN_TOL))
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: mean_accept_length %.17g, but 1 + sum(marginal_accept_rates) = %.17g: they "
                                  "differ by more than the schema's tolerance %g",
                                  cx->path, v->line, pr->mean, 1.0 + pr->sum, PROFILE_MEAN_TOL);
    }
    return SD_OK;
}

/* The counts of acceptance_length_histogram hv into c (its gamma set), held to the rates
 * and the mean of pr: exact per-position prefix counts, every step gamma drafts long. */
static sd_status sp_histogram(const sd_counters_ctx *cx, const sd_json *p, const sd_json *hv, const sp_profile *pr,
                              sd_counts *c)
{
    const size_t g = pr->g;
    double h[MAXG + 2];
    size_t len = 0;
    int dense = 0;
    sd_status st = sd_counters_json_histogram(cx, hv, "acceptance_length_histogram", 1, 1, h, MAXG + 2, &len, &dense);
    if (st != SD_OK)
        return st;
    if (dense)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: acceptance_length_histogram: expected an object {length: steps}, found an array",
                              cx->path, hv->line);
    if (len > g + 1)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: acceptance_length_histogram has length %zu, but num_speculative_tokens %zu allows "
                              "at most %zu",
                              cx->path, hv->line, len, g, g + 1);
    sd_counts_block steps = { 0 };
    for (size_t j = 0; j <= g; j++) /* h[j]: steps that emitted j + 1 tokens, j drafts accepted */
        sd_counts_block_accepting(&steps, j, h[j]);
    sd_counts_add(c, &steps);
    if (!(c->drafts >= 1.0))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: acceptance_length_histogram holds no step", cx->path,
                              hv->line);
    for (size_t i = 0; i < g; i++)
        if (!(fabs(pr->m[i] - c->accepted_at[i] / c->drafts) <= PROFILE_MEAN_TOL))
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: marginal_accept_rates[%zu] = %.17g, but the histogram gives %.0f / %.0f = "
                                  "%.17g",
                                  cx->path, pr->mline, i, pr->m[i], c->accepted_at[i], c->drafts,
                                  c->accepted_at[i] / c->drafts);
    double hmean = 1.0 + c->accepted_tokens / c->drafts;
    if (pr->mean >= 0.0 && !(fabs(pr->mean - hmean) <= PROFILE_ROUND_TOL))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: mean_accept_length %.17g, but the histogram's mean is %.17g", cx->path,
                              sd_json_find(p, "mean_accept_length")->line, pr->mean, hmean);
    c->draft_tokens = c->drafts * (double)g;
    c->has_positions = 1;
    for (size_t i = 0; i < g; i++)
        c->reached[i] = c->drafts;
    sd_counts_note(c, "Read speculation_profile.json's acceptance_length_histogram: %.0f steps of %zu drafts (exact "
                   "per-position prefix counts; every step taken to draft %zu tokens).",
                   c->drafts, g, g);
    return SD_OK;
}

/* Profile p into c: counts from its histogram, else a gauge from its marginal rates. */
static sd_status sp_read(const sd_counters_ctx *cx, const sd_json *p, sd_counts *c)
{
    sp_profile pr;
    sd_status st = sp_header(cx, p, &pr);
    if (st != SD_OK || (st = sp_marginals(cx, p, &pr)) != SD_OK)
        return st;
    c->gamma = pr.g;
    const sd_json *hv = sd_json_find(p, "acceptance_length_histogram");
    if (hv != NULL && hv->type != SD_JSON_NULL)
        return sp_histogram(cx, p, hv, &pr, c);
    c->gauge = 1;
    c->mean_accepted = pr.sum;
    sd_counts_note(c, "speculation_profile.json without acceptance_length_histogram: a mean of %.6g accepted "
                   "tokens per step (the sum of marginal_accept_rates), without counts.", pr.sum);
    return SD_OK;
}

static int speculation_profile_detect(const char *line, int first)
{
    (void)first;
    return sd_counters_json_has_key(line, "marginal_accept_rates");
}

static sd_status speculation_profile_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    (void)t;
    sd_json_docs d;
    sd_status st = sd_counters_json_load(cx, &d);
    if (st != SD_OK)
        return st;
    if (d.n != 1)
        st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: a second document: a profile is one JSON object", cx->path,
                            d.doc[1].line);
    else
        st = sp_read(cx, &d.doc[0], c);
    sd_json_free(&d);
    return st;
}

/* ---- the writer ---------------------------------------------------------------------------- */

/* x rounded to 6 digits after the point as Python's round(x, 6) prints it: no trailing
 * zeros, at least one digit after the point. */
static void sp_put6(FILE *out, double x)
{
    char b[64];
    snprintf(b, sizeof b, "%.6f", x);
    size_t n = strlen(b);
    while (n > 2 && b[n - 1] == '0' && b[n - 2] != '.')
        b[--n] = '\0';
    fputs(b, out);
}

static void sp_list(FILE *out, const char *key, const double *r, size_t g)
{
    fprintf(out, "  \"%s\": [", key);
    for (size_t i = 0; i < g; i++) {
        fputs(i ? ", " : "", out);
        sp_put6(out, r[i]);
    }
    fputs("],\n", out);
}

/* x rounded to 6 digits (as sp_put6 prints it). */
static double sp_round6(double x)
{
    char b[64];
    snprintf(b, sizeof b, "%.6f", x);
    return strtod(b, NULL);
}

sd_status sd_counters_write_profile(const sd_counts *c, FILE *out, sd_error *err)
{
    if (c->kind != SD_COUNTS_PREFIX || !c->has_positions || c->gauge)
        return sd_status_fail(err, SD_EINVAL,
                              "speculation profile: the counts have no per-position prefix counts (format %s), so its "
                              "marginal_accept_rates would be a model's, not a measurement",
                              c->format);
    sd_status st = sd_counts_invariants("speculation profile", c, 0, err);
    if (st != SD_OK)
        return st;
    const size_t g = c->gamma;
    const double D = c->drafts;
    double marg[MAXG], cond[MAXG], implied = 1.0;
    for (size_t i = 0; i < g; i++) {
        double prev = i ? c->accepted_at[i - 1] : D;
        marg[i] = sp_round6(c->accepted_at[i] / D);
        cond[i] = prev > 0.0 ? sp_round6(c->accepted_at[i] / prev) : 0.0;
        implied += marg[i];
    }
    double mean = sp_round6(1.0 + c->accepted_tokens / D);
    double delta = sp_round6(fabs(implied - mean));
    int mono = 1;
    for (size_t i = 1; i < g; i++)
        mono &= !(marg[i] > marg[i - 1] + PROFILE_MONO_TOL);
    fputs("{\n  \"schema_version\": \"1.0\",\n  \"measured\": true,\n  \"producer\": \"specdec fit\",\n", out);
    fputs("  \"method\": null,\n  \"draft_checkpoint\": null,\n  \"target_model\": null,\n", out);
    fprintf(out, "  \"num_speculative_tokens\": %zu,\n  \"block_size\": null,\n  \"max_supported_k\": %zu,\n", g, g);
    fputs("  \"verification_method\": \"longest_prefix\",\n", out);
    sp_list(out, "conditional_accept_rates", cond, g);
    sp_list(out, "marginal_accept_rates", marg, g);
    fputs("  \"mean_accept_length\": ", out);
    sp_put6(out, mean);
    fputs(",\n  \"mean_accept_length_per_request\": null,\n  \"accept_length_model\": null,\n", out);
    fprintf(out, "  \"accept_length_by_k\": {\"%zu\": ", g);
    sp_put6(out, mean);
    fputs("},\n  \"acceptance_length_histogram\": {", out);
    int any = 0;
    for (size_t L = 1; L <= g + 1; L++) {
        double n = (L >= 2 ? c->accepted_at[L - 2] : D) - (L - 1 < g ? c->accepted_at[L - 1] : 0.0);
        if (n > 0.0) {
            fprintf(out, "%s\"%zu\": %.0f", any ? ", " : "", L, n);
            any = 1;
        }
    }
    fputs("},\n  \"per_category\": null,\n", out);
    fprintf(out, "  \"measurement_conditions\": {\"source_format\": \"%s\", \"steps\": %.0f, \"draft_tokens\": %.0f},\n",
            c->format, D, c->draft_tokens);
    fputs("  \"validation\": {\n    \"mean_consistency\": {\"implied_mean_accept_length\": ", out);
    sp_put6(out, implied);
    fputs(", \"reported_mean_accept_length\": ", out);
    sp_put6(out, mean);
    fputs(", \"abs_delta\": ", out);
    sp_put6(out, delta);
    fprintf(out, ", \"tolerance\": %g, \"passed\": %s},\n", PROFILE_MEAN_TOL,
            fabs(implied - mean) <= PROFILE_MEAN_TOL ? "true" : "false");
    fprintf(out, "    \"marginal_monotonicity\": {\"passed\": %s, \"violations\": []}\n  }\n}\n",
            mono ? "true" : "false");
    if (ferror(out))
        return sd_status_fail(err, SD_EIO, "speculation profile: write error: %s", strerror(errno));
    return SD_OK;
}

/* The row of speculation-profile: NVIDIA Model-Optimizer's speculation_profile.json.  detect:
 * the member name "marginal_accept_rates".  read: the profile's histogram as counts, else a
 * gauge. */
const sd_counters_reader sd_counters_reader_speculation_profile = {
    .name = "speculation-profile",
    .by = SD_COUNTERS_BY_JSON,
    .detect = speculation_profile_detect,
    .read = speculation_profile_read,
};
