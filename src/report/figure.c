/* figure.c -- the data behind each figure (see figure.h).
 *
 * Each figure is a row of FIGURES: its public description (defaults and
 * all) and the function that computes its blocks.  Curves figures share one
 * function, told apart by the row's variant: a wide table, one column per
 * combination of the listed parameters.  Nothing here writes a file or
 * knows how the figures are drawn.
 */
#include "specdec/figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/cost.h"
#include "specdec/counters.h"
#include "specdec/engine.h"
#include "specdec/fit.h"
#include "specdec/ngram.h"
#include "specdec/npy.h"
#include "specdec/sampling.h"
#include "specdec/synth.h"
#include "specdec/table.h"
#include "specdec/theory.h"
#include "specdec/verify.h"

static sd_status no_memory(sd_error *err)
{
    return sd_status_fail(err, SD_ENOMEM, "out of memory");
}

/* The figure needs exactly one value of the list param. */
static sd_status one_value(const sd_list *l, const char *param, const char *name, sd_error *err)
{
    if (l->n != 1)
        return sd_status_fail(err, SD_EINVAL, "%s: give one value for figure %s", param, name);
    return SD_OK;
}

/* ---- curves against gamma: improvement, E(N), FLOP factor ------------------- */

typedef enum { CURVE_IMPROVEMENT, CURVE_TOKENS, CURVE_FLOPS } curve_kind;

/* The curves of a figure: every combination of its alpha, cost and mu lists
 * (a list the kind does not use is the one value 0), alpha slowest. */
typedef struct {
    curve_kind kind;
    const sd_list *alpha, *cost, *mu, *gamma;
    size_t n;
} curve_set;

static void curve_point(const curve_set *cs, size_t s, double x[3])
{
    x[0] = cs->alpha->v[s / (cs->cost->n * cs->mu->n)];
    x[1] = cs->cost->v[(s / cs->mu->n) % cs->cost->n];
    x[2] = cs->mu->v[s % cs->mu->n];
}

static double curve_value(curve_kind k, const double x[3], double gamma)
{
    switch (k) {
    case CURVE_IMPROVEMENT: return sd_theory_improvement(x[0], gamma, x[1]);
    case CURVE_TOKENS: return sd_theory_expected_tokens(x[0], gamma);
    case CURVE_FLOPS: return sd_theory_flop_factor(x[0], gamma, x[2]);
    }
    return NAN;
}

/* "α = 0.8, c = 0.02": the parameters of one curve the kind uses, those
 * whose list has several values (varying = 1) or one value (varying = 0). */
static void describe(const curve_set *cs, const double x[3], int varying, char *buf, size_t size)
{
    static const char *const symbol[3] = { "α", "c", "μ" };
    const sd_list *used[3] = { cs->alpha, cs->kind == CURVE_IMPROVEMENT ? cs->cost : NULL,
                               cs->kind == CURVE_FLOPS ? cs->mu : NULL };
    buf[0] = '\0';
    for (int i = 0; i < 3; i++) {
        if (used[i] == NULL || (used[i]->n > 1) != varying)
            continue;
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s = %g", len ? ", " : "", symbol[i], x[i]);
    }
}

/* Curve s's column name: its varying parameters (else its fixed ones) and,
 * for the improvement, a note when its optimum is unbounded or 0. */
static sd_status curve_label(const curve_set *cs, size_t s, char *buf, size_t size, sd_error *err)
{
    double x[3];
    curve_point(cs, s, x);
    describe(cs, x, 1, buf, size);
    if (buf[0] == '\0')
        describe(cs, x, 0, buf, size);
    if (cs->kind != CURVE_IMPROVEMENT)
        return SD_OK;
    sd_optimum o;
    sd_status st = sd_theory_optimal(x[0], x[1], &o, err);
    size_t len = strlen(buf);
    if (st == SD_OK && isinf(o.gamma_opt))
        snprintf(buf + len, size - len, " (optimum unbounded)");
    else if (st == SD_OK && o.gamma_opt <= 0)
        snprintf(buf + len, size - len, " (do not speculate)");
    return st;
}

/* Block 0: gamma, then one column per curve. */
static sd_status curve_values(const curve_set *cs, const char *const *names, sd_table **out, sd_error *err)
{
    sd_table *t = sd_table_alloc(cs->n + 1, names);
    sd_cell *row = malloc((cs->n + 1) * sizeof *row);
    sd_status st = t && row ? SD_OK : no_memory(err);
    for (size_t g = 0; g < cs->gamma->n && st == SD_OK; g++) {
        row[0] = sd_int((long long)cs->gamma->v[g]);
        for (size_t s = 0; s < cs->n; s++) {
            double x[3];
            curve_point(cs, s, x);
            row[s + 1] = sd_real(curve_value(cs->kind, x, cs->gamma->v[g]));
        }
        st = sd_table_add(t, row, err);
    }
    free(row);
    if (st != SD_OK)
        sd_table_free(t), t = NULL;
    *out = t;
    return st;
}

/* Block 1 of the improvement: each curve's optimum that lies within the gamma list. */
static sd_status curve_optima(const curve_set *cs, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "series", "gamma_opt", "improvement_opt", "label" };
    sd_table *t = sd_table_alloc(4, cols);
    sd_status st = t ? SD_OK : no_memory(err);
    double gmax = cs->gamma->v[cs->gamma->n - 1];
    for (size_t s = 0; s < cs->n && st == SD_OK; s++) {
        double x[3];
        sd_optimum o;
        curve_point(cs, s, x);
        if ((st = sd_theory_optimal(x[0], x[1], &o, err)) != SD_OK || !(o.gamma_opt >= 1.0 && o.gamma_opt <= gmax))
            continue;
        char label[48];
        snprintf(label, sizeof label, "γ* = %.0f", o.gamma_opt);
        const sd_cell r[] = { sd_int((long long)s + 1), sd_real(o.gamma_opt), sd_real(o.improvement_opt),
                              sd_text(label) };
        st = sd_table_add(t, r, err);
    }
    if (st != SD_OK)
        sd_table_free(t), t = NULL;
    *out = t;
    return st;
}

static sd_status curves(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out, sd_error *err)
{
    static double zero_value[1] = { 0.0 };
    static const sd_list zero = { zero_value, 1 };
    const curve_kind kind = (curve_kind)variant;
    const curve_set cs = { .kind = kind, .alpha = &in->alpha, .gamma = &in->gamma,
                           .cost = kind == CURVE_IMPROVEMENT ? &in->cost : &zero,
                           .mu = kind == CURVE_FLOPS ? &in->mu : &zero,
                           .n = in->alpha.n * (kind == CURVE_IMPROVEMENT ? in->cost.n : 1) *
                                (kind == CURVE_FLOPS ? in->mu.n : 1) };
    if (cs.n > SD_FIGURE_CURVES_MAX)
        return sd_status_fail(err, SD_EINVAL, "figure %s: %zu curves; at most %d fit in one figure", name, cs.n,
                              SD_FIGURE_CURVES_MAX);
    const char **names = calloc(cs.n + 1, sizeof *names);
    char(*labels)[96] = calloc(cs.n, sizeof *labels);
    sd_status st = names && labels ? SD_OK : no_memory(err);
    for (size_t s = 0; s < cs.n && st == SD_OK; s++) {
        st = curve_label(&cs, s, labels[s], sizeof labels[s], err);
        names[s + 1] = labels[s];
    }
    if (st == SD_OK) {
        names[0] = "gamma";
        st = curve_values(&cs, names, &out->block[0], err);
        out->nblocks = 1;
    }
    if (st == SD_OK && kind == CURVE_IMPROVEMENT) {
        st = curve_optima(&cs, &out->block[1], err);
        out->nblocks = 2;
    }
    free(names);
    free(labels);
    return st;
}

/* ---- heatmaps over (alpha, c) -------------------------------------------------- */

typedef enum { MAP_GAMMA, MAP_IMPROVEMENT } map_kind;

static sd_status map(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out, sd_error *err)
{
    (void)name;
    const map_kind kind = (map_kind)variant;
    static const char *const cols[] = { "alpha", "cost", "value" };
    sd_table *t = sd_table_alloc(3, cols);
    if (t == NULL)
        return no_memory(err);
    out->block[0] = t, out->nblocks = 1;
    sd_status st = SD_OK;
    /* "do not speculate" is value 0 (NaN never reaches a table), which the drawing shows in grey */
    for (size_t j = 0; j < in->cost.n && st == SD_OK; j++)
        for (size_t i = 0; i < in->alpha.n && st == SD_OK; i++) {
            sd_optimum o;
            double a = in->alpha.v[i], c = in->cost.v[j], v;
            if ((st = sd_theory_optimal(a, c, &o, err)) != SD_OK)
                break;
            if (o.gamma_opt <= 0.0)
                v = 0.0;
            else if (kind == MAP_GAMMA)
                v = fmin(o.gamma_opt, SD_FIGURE_GAMMA_CAP);
            else
                v = fmin(o.improvement_opt, SD_FIGURE_IMPROVEMENT_CAP);
            const sd_cell r[] = { sd_real(a), sd_real(c), sd_real(v) };
            st = sd_table_add(t, r, err);
        }
    return st;
}

/* ---- Monte Carlo figures ------------------------------------------------------------- */

/* The engine's fixed policy with gamma drafts on a calibrated zipf model
 * (V = 1000) in the given acceptance regime. */
static sd_status run_model(const sd_figure_input *in, sd_regime regime, double alpha, double easy, double hard,
                           size_t gamma, sd_engine_stats *s, sd_error *err)
{
    const sd_synth_config sc = { .family = SD_FAMILY_ZIPF, .vocab = 1000, .zipf_s = 1.5, .kappa = 0.5,
                                 .temperature = 1.0, .calibrated = 1, .alpha = alpha, .noise = 0.0,
                                 .regime = regime, .concentration = 20.0, .alpha_easy = easy,
                                 .alpha_hard = hard, .stay = 0.9, .contexts = 0, .history = 2,
                                 .seed = in->seed, .threads = in->threads };
    sd_model *m;
    sd_status st = sd_model_synth(&sc, &m, err);
    if (st != SD_OK)
        return st;
    const sd_engine_config ec = { .model = m, .verifier = sd_verify_find("adjusted"), .policy = SD_POLICY_FIXED,
                                  .gamma = gamma, .tokens = in->tokens, .seed = in->seed,
                                  .threads = in->threads, .seq_tokens = 0, .positions = 0, .progress = NULL,
                                  .progress_arg = NULL, .drafts = 1, .threshold = 0.0, .gamma_max = 0 };
    st = sd_engine_run(&ec, s, err);
    sd_model_free(m);
    return st;
}

static sd_status n_distribution(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                sd_error *err)
{
    (void)variant;
    sd_status st;
    if ((st = one_value(&in->alpha, "alpha", name, err)) != SD_OK ||
        (st = one_value(&in->gamma, "gamma", name, err)) != SD_OK)
        return st;
    size_t g = (size_t)in->gamma.v[0];
    sd_engine_stats s;
    if ((st = run_model(in, SD_REGIME_CONSTANT, in->alpha.v[0], 0, 0, g, &s, err)) != SD_OK)
        return st;
    static const char *const cols[] = { "n", "pmf_theory", "observed", "ci_low", "ci_high" };
    sd_table *t = sd_table_alloc(5, cols);
    if (t == NULL)
        st = no_memory(err);
    out->block[0] = t, out->nblocks = 1;
    double it = (double)s.iterations;
    for (size_t n = 1; st == SD_OK && n <= g + 1; n++) {
        double f = (double)s.n_hist[n] / it, half = 1.96 * sqrt(f * (1 - f) / it);
        const sd_cell r[] = { sd_int((long long)n), sd_real(sd_theory_pmf(s.alpha_hat, (double)g, (double)n)),
                              sd_real(f), sd_real(f - half), sd_real(f + half) };
        st = sd_table_add(t, r, err);
    }
    out->iterations = it;
    out->alpha_hat = s.alpha_hat;
    sd_engine_stats_free(&s);
    return st;
}

/* One row of the monte-carlo figure: the engine at i.i.d. acceptance a and
 * at Markov acceptance a +- d (stay 0.9), and the Markov closed form. */
static sd_status monte_carlo_row(const sd_figure_input *in, double a, size_t g, sd_table *t, sd_error *err)
{
    double d = 0.6 * fmin(a, 1.0 - a);
    sd_engine_stats si, sm;
    sd_status st = run_model(in, SD_REGIME_CONSTANT, a, 0, 0, g, &si, err);
    if (st != SD_OK)
        return st;
    if ((st = run_model(in, SD_REGIME_MARKOV, NAN, a + d, a - d, g, &sm, err)) != SD_OK) {
        sd_engine_stats_free(&si);
        return st;
    }
    const sd_markov mk = { .a_easy = a + d, .a_hard = a - d, .stay = 0.9 };
    const sd_cell r[] = { sd_real(a),
                          sd_real(si.alpha_hat),
                          sd_real(sd_engine_mean_n(&si)),
                          sd_real(1.96 * sd_engine_mean_n_se(&si)),
                          sd_real(sm.alpha_hat),
                          sd_real(sd_engine_mean_n(&sm)),
                          sd_real(1.96 * sd_engine_mean_n_se(&sm)),
                          sd_real(sd_theory_markov_expected_tokens(&mk, (double)g)) };
    st = sd_table_add(t, r, err);
    sd_engine_stats_free(&si);
    sd_engine_stats_free(&sm);
    return st;
}

static sd_status monte_carlo(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                             sd_error *err)
{
    (void)variant;
    sd_status st = one_value(&in->gamma, "gamma", name, err);
    if (st != SD_OK)
        return st;
    size_t g = (size_t)in->gamma.v[0];
    static const char *const cols[] = { "alpha", "iid_alpha_hat", "iid_mean", "iid_ci", "markov_alpha_hat",
                                        "markov_mean", "markov_ci", "markov_theory" };
    static const char *const curve_cols[] = { "alpha", "expected_tokens" };
    sd_table *t = sd_table_alloc(8, cols), *curve = sd_table_alloc(2, curve_cols);
    out->block[0] = t, out->block[1] = curve, out->nblocks = 2;
    if (t == NULL || curve == NULL)
        return no_memory(err);
    for (size_t i = 0; i < in->alpha.n && st == SD_OK; i++)
        st = monte_carlo_row(in, in->alpha.v[i], g, t, err);
    for (int k = 0; k <= 200 && st == SD_OK; k++) {
        double a = 0.995 * k / 200.0;
        const sd_cell r[] = { sd_real(a), sd_real(sd_theory_expected_tokens(a, (double)g)) };
        st = sd_table_add(curve, r, err);
    }
    return st;
}

/* The policies of sd_engine_policies on an i.i.d. and a Markov model: one row per policy. */
static sd_status policies(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                          sd_error *err)
{
    (void)variant;
    sd_status st = one_value(&in->cost, "cost", name, err);
    sd_table *res[2] = { NULL, NULL };
    for (int k = 0; k < 2 && st == SD_OK; k++) {
        sd_synth_config sc = sd_synth_defaults();
        sc.regime = k ? SD_REGIME_MARKOV : SD_REGIME_CONSTANT, sc.seed = in->seed, sc.threads = in->threads;
        sd_model *m;
        if ((st = sd_model_synth(&sc, &m, err)) != SD_OK)
            break;
        sd_engine_config base = sd_engine_defaults();
        base.model = m, base.verifier = sd_verify_find("adjusted"), base.gamma_max = 24, base.tokens = in->tokens;
        base.seed = in->seed, base.threads = in->threads;
        st = sd_engine_policies(&base, in->cost.v[0], NULL, 0, &res[k], err);
        sd_model_free(m);
    }
    static const char *const cols[] = { "policy", "iid_alpha_0.8", "markov_0.95_0.3" };
    static const char *const labels[] = { "fixed γ* (eq. 10)", "best fixed γ (measured)", "heuristic +2/−1",
                                          "threshold, q1", "threshold, median", "threshold, q3", "oracle",
                                          "ceiling 1/(1 − α)" };
    sd_table *t = st == SD_OK ? sd_table_alloc(3, cols) : NULL;
    if (st == SD_OK && t == NULL)
        st = no_memory(err);
    out->block[0] = t, out->nblocks = 1;
    size_t imp = res[0] ? sd_table_find(res[0], "improvement") : 0;
    for (size_t r = 0; st == SD_OK && r < sd_table_nrows(res[0]) && r < 8; r++) {
        const sd_cell row[] = { sd_text(labels[r]), *sd_table_cell(res[0], r, imp), *sd_table_cell(res[1], r, imp) };
        st = sd_table_add(t, row, err);
    }
    sd_table_free(res[0]);
    sd_table_free(res[1]);
    return st;
}

/* ---- the roofline figures ---------------------------------------------------------------- */

static const char *const ROOF_TARGET = "llama-3.1-70b-fp8", *const ROOF_DRAFT = "llama-3.2-1b";
static const double ROOF_CONTEXT = 1024;
static const double ROOF_GAMMAS[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* The presets a roofline figure needs, and its pair in them. */
static sd_status roof_presets(const sd_figure_input *in, const char *name, sd_presets *p, const sd_model_spec **t,
                              const sd_model_spec **d, sd_error *err)
{
    sd_status st = one_value(&in->alpha, "alpha", name, err);
    if (st != SD_OK || (st = sd_presets_load(in->data_dir, NULL, NULL, p, err)) != SD_OK)
        return st;
    *t = *d = NULL;
    for (size_t i = 0; i < p->nmodels; i++) {
        if (strcmp(p->models[i].name, ROOF_TARGET) == 0)
            *t = &p->models[i];
        if (strcmp(p->models[i].name, ROOF_DRAFT) == 0)
            *d = &p->models[i];
    }
    if (*t == NULL || *d == NULL) {
        sd_presets_free(p);
        return sd_status_fail(err, SD_EINVAL, "figure %s: the model presets lack %s or %s", name, ROOF_TARGET, ROOF_DRAFT);
    }
    return SD_OK;
}

/* The columns of roofline-batch: batch, then NAME and "NAME gamma" per accelerator. */
static sd_table *roofline_batch_table(const sd_hardware *hw, size_t nh)
{
    const char **cols = calloc(2 * nh + 1, sizeof *cols);
    char(*names)[96] = calloc(2 * nh, sizeof *names);
    sd_table *t = NULL;
    if (cols != NULL && names != NULL) {
        cols[0] = "batch";
        for (size_t k = 0; k < nh; k++) {
            snprintf(names[2 * k], sizeof names[0], "%s", hw[k].name);
            snprintf(names[2 * k + 1], sizeof names[0], "%s gamma", hw[k].name);
            cols[1 + 2 * k] = names[2 * k];
            cols[2 + 2 * k] = names[2 * k + 1];
        }
        t = sd_table_alloc(2 * nh + 1, cols);
    }
    free(cols);
    free(names);
    return t;
}

static sd_status roofline_batch(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                sd_error *err)
{
    (void)variant;
    sd_presets p;
    const sd_model_spec *t, *d;
    sd_status st = roof_presets(in, name, &p, &t, &d, err);
    if (st != SD_OK)
        return st;
    /* only the accelerators that hold the pair at batch 1 */
    sd_roofline_request rq = sd_roofline_defaults();
    rq.target = t, rq.draft = d, rq.alpha = in->alpha.v[0], rq.gammas = ROOF_GAMMAS, rq.ngammas = 16;
    size_t nh = 0;
    for (size_t k = 0; k < p.nhardware; k++) {
        rq.hardware = &p.hardware[k];
        if (sd_presets_check(t, rq.hardware, NULL) == SD_OK && sd_presets_check(d, rq.hardware, NULL) == SD_OK &&
            sd_cost_fits(&rq, 1, ROOF_CONTEXT, 16))
            p.hardware[nh++] = p.hardware[k];
    }
    sd_table *tab = nh ? roofline_batch_table(p.hardware, nh) : NULL;
    sd_cell *row = calloc(2 * nh + 1, sizeof *row);
    if (nh == 0)
        st = sd_status_fail(err, SD_EINVAL, "figure %s: no accelerator holds %s and %s", name, ROOF_TARGET, ROOF_DRAFT);
    else if (tab == NULL || row == NULL)
        st = no_memory(err);
    out->block[0] = tab, out->nblocks = 1;
    for (double b = 1; st == SD_OK && b <= 1024; b *= 2) {
        row[0] = sd_int((long long)b);
        for (size_t k = 0; k < nh; k++) {
            sd_roofline_point r;
            rq.hardware = &p.hardware[k];
            sd_cost_roofline(&rq, b, ROOF_CONTEXT, &r);
            /* where the weights and KV caches do not fit, gnuplot reads "NaN" as a gap */
            row[1 + 2 * k] = r.fits ? sd_real(r.improvement_opt) : sd_text("NaN");
            row[2 + 2 * k] = r.fits ? sd_real(r.gamma_opt) : sd_text("NaN");
        }
        st = sd_table_add(tab, row, err);
    }
    out->target = ROOF_TARGET, out->draft = ROOF_DRAFT, out->context = ROOF_CONTEXT;
    free(row);
    sd_presets_free(&p);
    return st;
}

static sd_status roofline_map(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                              sd_error *err)
{
    (void)variant;
    sd_presets p;
    const sd_model_spec *t, *d;
    sd_status st = roof_presets(in, name, &p, &t, &d, err);
    if (st != SD_OK)
        return st;
    const sd_hardware *h = NULL;
    static const char *const cols[] = { "log2_batch", "log2_context", "improvement_opt", "gamma_opt", "fits" };
    sd_table *tab = NULL;
    if ((st = sd_presets_hardware(&p, "figure roofline-map", "h200", &h, err)) == SD_OK && (tab = sd_table_alloc(5, cols)) == NULL)
        st = no_memory(err);
    out->block[0] = tab, out->nblocks = 1;
    sd_roofline_request rq = sd_roofline_defaults();
    rq.target = t, rq.draft = d, rq.hardware = h, rq.alpha = in->alpha.v[0], rq.gammas = ROOF_GAMMAS, rq.ngammas = 16;
    for (int lc = 8; st == SD_OK && lc <= 17; lc++)
        for (int lb = 0; st == SD_OK && lb <= 10; lb++) {
            sd_roofline_point r;
            sd_cost_roofline(&rq, ldexp(1, lb), ldexp(1, lc), &r);
            const sd_cell row[] = { sd_int(lb), sd_int(lc), sd_real(r.improvement_opt), sd_real(r.gamma_opt),
                                    sd_int(r.fits) };
            st = sd_table_add(tab, row, err);
        }
    out->target = ROOF_TARGET, out->draft = ROOF_DRAFT;
    sd_presets_free(&p);
    return st;
}

/* verify-cost: t(B, gamma + 1, S) / t(B, 1, S) of llama-3.1-8b on one
 * h100-sxm against batch, per context, for both granularities. */
static const char *const VC_TARGET = "llama-3.1-8b", *const VC_HARDWARE = "h100-sxm";
static const double VC_CONTEXTS[] = { 1024, 8192, 32768 };

static sd_status verify_cost(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                             sd_error *err)
{
    (void)variant;
    sd_presets p;
    const sd_model_spec *t;
    const sd_hardware *h;
    sd_status st = one_value(&in->gamma, "gamma", name, err);
    if (st != SD_OK || (st = sd_presets_load(in->data_dir, NULL, NULL, &p, err)) != SD_OK)
        return st;
    char where[96];
    snprintf(where, sizeof where, "figure %s", name);
    char names[7][64];
    const char *cols[7] = { "batch" };
    for (int k = 0; k < 6; k++) {
        snprintf(names[k], sizeof names[k], "%s, S = %.0fK", k % 2 ? "pass" : "operator", VC_CONTEXTS[k / 2] / 1024);
        cols[k + 1] = names[k];
    }
    sd_table *tab = NULL;
    if ((st = sd_presets_model(&p, where, VC_TARGET, &t, err)) == SD_OK &&
        (st = sd_presets_hardware(&p, where, VC_HARDWARE, &h, err)) == SD_OK &&
        (st = sd_presets_check(t, h, err)) == SD_OK && (tab = sd_table_alloc(7, cols)) == NULL)
        st = no_memory(err);
    out->block[0] = tab, out->nblocks = tab != NULL;
    double n = in->gamma.v[0] + 1.0;
    for (double b = 1; st == SD_OK && b <= 1024; b *= 2) {
        sd_cell row[7] = { sd_int((long long)b) };
        for (int k = 0; k < 6; k++) {
            sd_cost_params cp = sd_cost_defaults();
            cp.granularity = k % 2 ? SD_GRANULARITY_PASS : SD_GRANULARITY_OPERATOR;
            double s = VC_CONTEXTS[k / 2];
            row[k + 1] = sd_real(sd_cost_step_time(t, h, &cp, b, n, s, NULL) / sd_cost_step_time(t, h, &cp, b, 1, s, NULL));
        }
        st = sd_table_add(tab, row, err);
    }
    out->target = VC_TARGET, out->draft = VC_HARDWARE;
    sd_presets_free(&p);
    return st;
}

/* ---- the table of figures ------------------------------------------------------------ */

typedef struct {
    sd_figure_kind kind;
    int variant; /* passed to compute: one function computes several figures */
    sd_status (*compute)(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                         sd_error *err);
} figure_row;

/* `specdec fit`'s positions and predictions for the counters file in->input. */
static sd_status fit_figure(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                            sd_error *err)
{
    (void)variant;
    if (in->input == NULL)
        return sd_status_fail(err, SD_EINVAL, "input: the figure %s draws an engine's counters; give the file", name);
    if (in->cost.n != 1)
        return sd_status_fail(err, SD_EINVAL, "cost: give one value for figure %s", name);
    sd_counts c;
    sd_fit f;
    sd_status st;
    if ((st = sd_counters_load(in->input, NULL, &c, err)) != SD_OK || (st = sd_fit_counts(&c, 1e-3, &f, err)) != SD_OK)
        return st;
    size_t n = 2 * c.gamma;
    double cost[2 * SD_COUNTS_MAX_GAMMA];
    for (size_t g = 1; g <= n; g++)
        cost[g - 1] = sd_theory_cost_factor((double)g, in->cost.v[0]);
    const sd_fit_request rq = { .gamma_max = n, .cost = cost, .replicates = 400, .seed = in->seed };
    if ((st = sd_fit_table(&c, &f, &rq, SD_FIT_REPORT_POSITIONS, &out->block[0], err)) != SD_OK)
        return st;
    out->nblocks = 1;
    if ((st = sd_fit_table(&c, &f, &rq, SD_FIT_REPORT_PREDICTIONS, &out->block[1], err)) != SD_OK)
        return st;
    out->nblocks = 2;
    out->fit_gamma = (double)c.gamma, out->fit_pvalue = f.lr_pvalue, out->fit_model = sd_fit_model_name(f.chosen);
    return SD_OK;
}

/* ---- alpha against temperature (issue 13) ------------------------------------------------ */

enum { TEMPERATURE_STEPS = 40, NGRAM_ROWS = 1024 };

/* The figure's matrix pair: the user's files, or the n-gram pair's logits. */
static sd_status alpha_pair(const sd_figure_input *in, sd_npy *p, sd_npy *q, sd_error *err)
{
    sd_status st;
    if (in->p_npy != NULL || in->q_npy != NULL) {
        if (in->p_npy == NULL || in->q_npy == NULL)
            return sd_status_fail(err, SD_EINVAL, "p_npy: the figure needs both p_npy and q_npy, or neither");
        if ((st = sd_npy_load(in->p_npy, p, err)) == SD_OK && (st = sd_npy_load(in->q_npy, q, err)) != SD_OK)
            sd_npy_free(p);
        return st;
    }
    sd_model *m;
    if ((st = sd_model_ngram_load(SD_NGRAM_DEFAULT_CORPUS, 5, 2, NULL, NULL, &m, err)) != SD_OK)
        return st;
    size_t v = sd_model_vocab(m);
    *p = (sd_npy){ NGRAM_ROWS, v, 2, malloc(NGRAM_ROWS * v * sizeof(double)) };
    *q = (sd_npy){ NGRAM_ROWS, v, 2, malloc(NGRAM_ROWS * v * sizeof(double)) };
    if (p->v == NULL || q->v == NULL) {
        sd_npy_free(p), sd_npy_free(q), sd_model_free(m);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for the n-gram matrices");
    }
    sd_ngram_logits(m, NGRAM_ROWS, p->v, q->v);
    sd_model_free(m);
    return SD_OK;
}

static sd_status alpha_temperature(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                   sd_error *err)
{
    (void)name, (void)variant;
    static const char *const cols[] = { "temperature", "adjusted", "adjusted_ci_low", "adjusted_ci_high",
                                        "deterministic_draft", "deterministic_draft_ci_low",
                                        "deterministic_draft_ci_high" };
    sd_npy p = { 0 }, q = { 0 };
    sd_status st = alpha_pair(in, &p, &q, err);
    if (st != SD_OK)
        return st;
    double *beta = malloc(p.rows * sizeof *beta), *dd = malloc(p.rows * sizeof *dd);
    sd_table *t = sd_table_alloc(7, cols);
    if (beta == NULL || dd == NULL || t == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (int i = 0; i <= TEMPERATURE_STEPS && st == SD_OK; i++) {
        sd_sampling s = sd_sampling_defaults();
        s.temperature = 0.05 * i;
        sd_summary a, b;
        if ((st = sd_sampling_rows(&p, &q, in->npy_probs ? SD_INPUT_PROBS : SD_INPUT_LOGITS, &s, &s, beta, dd,
                                   in->p_npy ? in->p_npy : "p", in->q_npy ? in->q_npy : "q", err)) != SD_OK ||
            (st = sd_summarise(beta, p.rows, &a, err)) != SD_OK || (st = sd_summarise(dd, p.rows, &b, err)) != SD_OK)
            break;
        const sd_cell row[] = { sd_real(s.temperature), sd_real(a.mean), sd_real(a.ci_low), sd_real(a.ci_high),
                                sd_real(b.mean), sd_real(b.ci_low), sd_real(b.ci_high) };
        st = sd_table_add(t, row, err);
    }
    free(beta), free(dd);
    sd_npy_free(&p), sd_npy_free(&q);
    if (st != SD_OK) {
        sd_table_free(t);
        return st;
    }
    out->block[0] = t;
    out->nblocks = 1;
    return SD_OK;
}

static const figure_row FIGURES[SD_FIGURE_COUNT] = {
    [SD_FIGURE_IMPROVEMENT_VS_GAMMA] = {
        .kind = { .id = SD_FIGURE_IMPROVEMENT_VS_GAMMA, .name = "improvement-vs-gamma",
                  .summary = "f(γ) against γ for several c at one α, optima marked (the seed's figure)",
                  .alpha = "0.8", .cost = "0,0.01,0.02,0.05,0.1", .gamma = "1:40" },
        .variant = CURVE_IMPROVEMENT, .compute = curves },
    [SD_FIGURE_IMPROVEMENT_VS_GAMMA_ALPHA] = {
        .kind = { .id = SD_FIGURE_IMPROVEMENT_VS_GAMMA_ALPHA, .name = "improvement-vs-gamma-alpha",
                  .summary = "f(γ) against γ for several α at one c, optima marked",
                  .alpha = "0.6,0.7,0.8,0.9", .cost = "0.02", .gamma = "1:40" },
        .variant = CURVE_IMPROVEMENT, .compute = curves },
    [SD_FIGURE_EXPECTED_TOKENS] = {
        .kind = { .id = SD_FIGURE_EXPECTED_TOKENS, .name = "expected-tokens",
                  .summary = "E(N) against γ with the ceilings 1/(1 − α)",
                  .alpha = "0.5,0.6,0.7,0.8,0.9", .gamma = "1:40" },
        .variant = CURVE_TOKENS, .compute = curves },
    [SD_FIGURE_OPTIMAL_GAMMA_MAP] = {
        .kind = { .id = SD_FIGURE_OPTIMAL_GAMMA_MAP, .name = "optimal-gamma-map",
                  .summary = "heatmap of the optimal γ over α and c, the α ≤ c region shown",
                  .alpha = "0.005:0.995:0.005", .cost = "0:0.5:0.0025" },
        .variant = MAP_GAMMA, .compute = map },
    [SD_FIGURE_BEST_IMPROVEMENT_MAP] = {
        .kind = { .id = SD_FIGURE_BEST_IMPROVEMENT_MAP, .name = "best-improvement-map",
                  .summary = "heatmap of the best improvement over α and c",
                  .alpha = "0.005:0.995:0.005", .cost = "0:0.5:0.0025" },
        .variant = MAP_IMPROVEMENT, .compute = map },
    [SD_FIGURE_FLOP_FACTOR] = {
        .kind = { .id = SD_FIGURE_FLOP_FACTOR, .name = "flop-factor",
                  .summary = "the FLOP factor against γ for several α and μ",
                  .alpha = "0.6,0.8,0.9", .gamma = "1:25", .mu = "0,0.05" },
        .variant = CURVE_FLOPS, .compute = curves },
    [SD_FIGURE_N_DISTRIBUTION] = {
        .kind = { .id = SD_FIGURE_N_DISTRIBUTION, .name = "n-distribution",
                  .summary = "the PMF of N: theory as bars, the engine as points with 95% intervals",
                  .alpha = "0.8", .gamma = "5", .monte_carlo = 1 },
        .compute = n_distribution },
    [SD_FIGURE_MONTE_CARLO] = {
        .kind = { .id = SD_FIGURE_MONTE_CARLO, .name = "monte-carlo",
                  .summary = "engine E(N) against eq. (4) across α, i.i.d. and Markov acceptance",
                  .alpha = "0.3:0.95:0.05", .gamma = "5", .monte_carlo = 1 },
        .compute = monte_carlo },
    [SD_FIGURE_ADAPTIVE_POLICIES] = {
        .kind = { .id = SD_FIGURE_ADAPTIVE_POLICIES, .name = "adaptive-policies",
                  .summary = "fixed, heuristic, threshold and oracle draft lengths, measured, i.i.d. and Markov",
                  .cost = "0.02", .monte_carlo = 1 },
        .compute = policies },
    [SD_FIGURE_ROOFLINE_BATCH] = {
        .kind = { .id = SD_FIGURE_ROOFLINE_BATCH, .name = "roofline-batch",
                  .summary = "optimal gamma and best improvement against batch size on several accelerators",
                  .alpha = "0.8" },
        .compute = roofline_batch },
    [SD_FIGURE_ROOFLINE_MAP] = {
        .kind = { .id = SD_FIGURE_ROOFLINE_MAP, .name = "roofline-map",
                  .summary = "best improvement and optimal gamma over batch x context on one H200",
                  .alpha = "0.8" },
        .compute = roofline_map },
    [SD_FIGURE_VERIFY_COST] = {
        .kind = { .id = SD_FIGURE_VERIFY_COST, .name = "verify-cost",
                  .summary = "verification of γ + 1 tokens over one decode step against batch, per context, "
                             "operator and pass granularity (Llama-3.1-8B, one H100)",
                  .gamma = "4" },
        .compute = verify_cost },
    [SD_FIGURE_FIT] = {
        .kind = { .id = SD_FIGURE_FIT, .name = "fit",
                  .summary = "an engine's counters (--input FILE): acceptance per position and the fits, "
                             "improvement against gamma with its 95% band",
                  .cost = "0.02", .needs_input = 1 },
        .compute = fit_figure },
    [SD_FIGURE_ALPHA_TEMPERATURE] = {
        .kind = { .id = SD_FIGURE_ALPHA_TEMPERATURE, .name = "alpha-temperature",
                  .summary = "α against temperature, adjusted and deterministic-draft rules, from a matrix pair "
                             "(default: the GPL-3 n-gram pair's logits)" },
        .compute = alpha_temperature },
};

const sd_figure_kind *sd_figure_at(size_t i)
{
    return i < SD_FIGURE_COUNT ? &FIGURES[i].kind : NULL;
}

const sd_figure_kind *sd_figure_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < SD_FIGURE_COUNT; i++)
        if (strcmp(FIGURES[i].kind.name, name) == 0)
            return &FIGURES[i].kind;
    return NULL;
}

const char *sd_figure_names(void)
{
    static _Thread_local char buf[512];
    buf[0] = '\0';
    for (size_t i = 0; i < SD_FIGURE_COUNT; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", FIGURES[i].kind.name);
    return buf;
}

/* ---- inputs ------------------------------------------------------------------------------ */

/* The four lists, in the order of their domains. */
enum { LIST_ALPHA, LIST_COST, LIST_GAMMA, LIST_MU, LISTS };

static const sd_domain LIST_DOMAINS[LISTS] = {
    [LIST_ALPHA] = { .name = "alpha", .min = 0.0, .max = 1.0 },
    [LIST_COST] = { .name = "cost", .min = 0.0, .max = INFINITY },
    [LIST_GAMMA] = { .name = "gamma", .min = 1.0, .max = SD_FIGURE_GAMMA_MAX, .whole = 1 },
    [LIST_MU] = { .name = "mu", .min = 0.0, .max = INFINITY },
};

static sd_status check_value(double x, const sd_domain *dom, sd_error *err)
{
    char range[96];
    if (!(x >= dom->min && x <= dom->max) || !isfinite(x))
        return sd_status_fail(err, SD_EINVAL, "%s: %.10g is outside %s", dom->name, x,
                              sd_parse_domain_describe(dom, range, sizeof range));
    if (dom->whole && floor(x) < x)
        return sd_status_fail(err, SD_EINVAL, "%s: %.10g is not a whole number; expected %s", dom->name, x,
                              sd_parse_domain_describe(dom, range, sizeof range));
    return SD_OK;
}

/* The inputs k computes from, in *use: the lists it uses, each checked or
 * (when empty) its default, parsed into owned[]; the others emptied. */
static sd_status resolve_inputs(const sd_figure_kind *k, const sd_figure_input *in, sd_figure_input *use,
                                sd_list owned[LISTS], sd_error *err)
{
    *use = *in;
    sd_list *lists[LISTS] = { &use->alpha, &use->cost, &use->gamma, &use->mu };
    const char *dflt[LISTS] = { k->alpha, k->cost, k->gamma, k->mu };
    sd_status st = SD_OK;
    for (int i = 0; i < LISTS && st == SD_OK; i++) {
        if (dflt[i] == NULL) {
            *lists[i] = (sd_list){ .v = NULL, .n = 0 };
        } else if (lists[i]->n == 0) {
            st = sd_parse_list(dflt[i], &LIST_DOMAINS[i], &owned[i], err);
            *lists[i] = owned[i];
        } else {
            for (size_t j = 0; j < lists[i]->n && st == SD_OK; j++)
                st = check_value(lists[i]->v[j], &LIST_DOMAINS[i], err);
        }
    }
    if (st == SD_OK && k->monte_carlo && in->tokens < 1)
        st = sd_status_fail(err, SD_EINVAL, "tokens: give at least 1 for figure %s", k->name);
    if (st == SD_OK && k->monte_carlo && in->threads < 1)
        st = sd_status_fail(err, SD_EINVAL, "threads: give at least 1 for figure %s", k->name);
    return st;
}

sd_status sd_figure_compute(const sd_figure_kind *k, const sd_figure_input *in, sd_figure_data *out, sd_error *err)
{
    if (out != NULL)
        *out = (sd_figure_data){ .nblocks = 0 };
    if (k == NULL || (unsigned)k->id >= SD_FIGURE_COUNT || k != &FIGURES[k->id].kind)
        return sd_status_fail(err, SD_EINVAL, "figure: not one of the table; expected one of %s", sd_figure_names());
    if (in == NULL || out == NULL)
        return sd_status_fail(err, SD_EINVAL, "figure %s: no input or no output", k->name);
    sd_figure_input use;
    sd_list owned[LISTS] = { { .v = NULL, .n = 0 } };
    sd_status st = resolve_inputs(k, in, &use, owned, err);
    if (st == SD_OK)
        st = FIGURES[k->id].compute(&use, k->name, FIGURES[k->id].variant, out, err);
    if (st != SD_OK)
        sd_figure_data_free(out);
    for (int i = 0; i < LISTS; i++)
        sd_parse_list_free(&owned[i]);
    return st;
}

void sd_figure_data_free(sd_figure_data *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < SD_FIGURE_BLOCKS_MAX; i++)
        sd_table_free(d->block[i]);
    *d = (sd_figure_data){ .nblocks = 0 };
}
