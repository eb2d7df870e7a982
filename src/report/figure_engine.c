/* figure_engine.c -- the figures of engine runs on synthetic banks
 * (figure_impl.h): the distribution of N, E(N) across alpha under i.i.d.
 * and Markov acceptance, and the draft-length policies side by side. */
#include "figure_impl.h"

#include <math.h>

#include "specdec/engine.h"
#include "specdec/policies.h"
#include "specdec/synth.h"
#include "specdec/table.h"
#include "specdec/theory.h"
#include "specdec/verify.h"

/* The engine's fixed policy with gamma drafts, adjusted rule, on the
 * synthetic defaults' calibrated bank in the given acceptance regime (alpha
 * for the constant one, easy and hard for the Markov one), with in's
 * tokens, seed and threads. */
static sd_status run_model(const sd_figure_input *in, sd_regime regime, double alpha, double easy, double hard,
                           size_t gamma, sd_engine_stats *s, sd_error *err)
{
    sd_synth_config sc = sd_synth_defaults();
    sc.alpha = alpha;
    sc.regime = regime;
    sc.alpha_easy = easy;
    sc.alpha_hard = hard;
    sc.seed = in->seed;
    sc.threads = in->threads;
    sd_model *m;
    sd_status st = sd_synth_model(&sc, &m, err);
    if (st != SD_OK)
        return st;
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m;
    ec.verifier = sd_verify_find("adjusted");
    ec.policy = SD_POLICY_FIXED;
    ec.gamma = gamma;
    ec.tokens = in->tokens;
    ec.seed = in->seed;
    ec.threads = in->threads;
    st = sd_engine_run(&ec, s, err);
    sd_model_free(m);
    return st;
}

sd_status sd_figure_n_distribution(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                   sd_error *err)
{
    (void)variant;
    sd_status st;
    if ((st = sd_figure_one_value(&in->alpha, "alpha", name, err)) != SD_OK ||
        (st = sd_figure_one_value(&in->gamma, "gamma", name, err)) != SD_OK)
        return st;
    size_t g = (size_t)in->gamma.v[0];
    sd_engine_stats s;
    if ((st = run_model(in, SD_REGIME_CONSTANT, in->alpha.v[0], 0, 0, g, &s, err)) != SD_OK)
        return st;
    static const char *const cols[] = { "n", "pmf_theory", "observed", "ci_low", "ci_high" };
    sd_table *t = sd_table_alloc(5, cols);
    if (t == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    out->block[0] = t;
    out->nblocks = 1;
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
 * at Markov acceptance a +- d (the bank's stay), and the Markov closed form. */
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
    const sd_markov mk = { .a_easy = a + d, .a_hard = a - d, .stay = sd_synth_defaults().stay };
    const sd_cell r[] = { sd_real(a),
                          sd_real(si.alpha_hat),
                          sd_real(sd_engine_stats_mean_n(&si)),
                          sd_real(1.96 * sd_engine_stats_mean_n_se(&si)),
                          sd_real(sm.alpha_hat),
                          sd_real(sd_engine_stats_mean_n(&sm)),
                          sd_real(1.96 * sd_engine_stats_mean_n_se(&sm)),
                          sd_real(sd_theory_markov_expected_tokens(&mk, (double)g)) };
    st = sd_table_add(t, r, err);
    sd_engine_stats_free(&si);
    sd_engine_stats_free(&sm);
    return st;
}

sd_status sd_figure_monte_carlo(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                sd_error *err)
{
    (void)variant;
    sd_status st = sd_figure_one_value(&in->gamma, "gamma", name, err);
    if (st != SD_OK)
        return st;
    size_t g = (size_t)in->gamma.v[0];
    static const char *const cols[] = { "alpha", "iid_alpha_hat", "iid_mean", "iid_ci", "markov_alpha_hat",
                                        "markov_mean", "markov_ci", "markov_theory" };
    static const char *const curve_cols[] = { "alpha", "expected_tokens" };
    sd_table *t = sd_table_alloc(8, cols), *curve = sd_table_alloc(2, curve_cols);
    out->block[0] = t;
    out->block[1] = curve;
    out->nblocks = 2;
    if (t == NULL || curve == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < in->alpha.n && st == SD_OK; i++)
        st = monte_carlo_row(in, in->alpha.v[i], g, t, err);
    for (int k = 0; k <= 200 && st == SD_OK; k++) {
        double a = 0.995 * k / 200.0;
        const sd_cell r[] = { sd_real(a), sd_real(sd_theory_expected_tokens(a, (double)g)) };
        st = sd_table_add(curve, r, err);
    }
    return st;
}

/* The policies of sd_policies_run on an i.i.d. and a Markov model: one row per policy. */
sd_status sd_figure_policies(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                             sd_error *err)
{
    (void)variant;
    sd_status st = sd_figure_one_value(&in->cost, "cost", name, err);
    sd_table *res[2] = { NULL, NULL };
    for (int k = 0; k < 2 && st == SD_OK; k++) {
        sd_synth_config sc = sd_synth_defaults();
        sc.regime = k ? SD_REGIME_MARKOV : SD_REGIME_CONSTANT;
        sc.seed = in->seed;
        sc.threads = in->threads;
        sd_model *m;
        if ((st = sd_synth_model(&sc, &m, err)) != SD_OK)
            break;
        sd_engine_config base = sd_engine_defaults();
        base.model = m;
        base.verifier = sd_verify_find("adjusted");
        base.gamma_max = SD_POLICIES_GAMMA_MAX;
        base.tokens = in->tokens;
        base.seed = in->seed;
        base.threads = in->threads;
        st = sd_policies_run(&base, in->cost.v[0], NULL, 0, &res[k], err);
        sd_model_free(m);
    }
    static const char *const cols[] = { "policy", "iid_alpha_0.8", "markov_0.95_0.3" };
    static const char *const labels[] = { "fixed γ* (eq. 10)", "best fixed γ (measured)", "heuristic +2/−1",
                                          "threshold, q1", "threshold, median", "threshold, q3", "oracle",
                                          "ceiling 1/(1 − α)" };
    enum { NLABELS = sizeof labels / sizeof labels[0] };
    sd_table *t = st == SD_OK ? sd_table_alloc(3, cols) : NULL;
    if (st == SD_OK && t == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    out->block[0] = t;
    out->nblocks = 1;
    size_t imp = res[0] ? sd_table_find(res[0], "improvement") : 0;
    for (size_t r = 0; st == SD_OK && r < sd_table_nrows(res[0]) && r < NLABELS; r++) {
        const sd_cell row[] = { sd_text(labels[r]), *sd_table_cell(res[0], r, imp), *sd_table_cell(res[1], r, imp) };
        st = sd_table_add(t, row, err);
    }
    sd_table_free(res[0]);
    sd_table_free(res[1]);
    return st;
}
