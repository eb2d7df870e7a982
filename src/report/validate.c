/* validate.c -- the checks of `specdec validate` (see validate.h).
 *
 * Checks are rows of CHECKS: {name, run}.  A run builds its models, drives
 * the engine, and adds rows through the helpers below, which apply the
 * shared rules (6-sigma z tests, chi-square at p < 1e-7) and verdicts.
 */
#include "specdec/validate.h"
#include "mc/verify_impl.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "specdec/dist.h"
#include "specdec/engine.h"
#include "specdec/gof.h"
#include "specdec/rng.h"
#include "specdec/synth.h"
#include "specdec/theory.h"
#include "specdec/verify.h"

static const double Z_LIMIT = 6.0;        /* two-sided p = 2e-9 */
static const double CHISQ_LEVEL = 1e-7;   /* chi-square tail */

typedef struct {
    const sd_validate_config *cfg;
    sd_table *t;
    int passed;
    double scale; /* sample-size multiplier: 1 quick, 10 full */
} run_ctx;

/* ---- rows -------------------------------------------------------------------- */

typedef enum { KIND_CHECK, KIND_CONTROL, KIND_FINDING } row_kind;

static sd_status add_row(run_ctx *v, const char *name, double theory, double measured, double tol,
                         double pvalue, double samples, int within, row_kind kind, sd_error *err)
{
    const char *verdict;
    switch (kind) {
    case KIND_CHECK:
        verdict = within ? "pass" : "FAIL";
        v->passed &= within;
        break;
    case KIND_CONTROL:
        verdict = within ? "MISSED" : "caught";
        v->passed &= !within;
        break;
    default:
        verdict = "finding";
        break;
    }
    const sd_cell row[] = { sd_text(name), sd_real(theory), sd_real(measured), sd_real(tol), sd_real(pvalue),
                            sd_int((long long)samples), sd_text(verdict), sd_int((long long)v->cfg->seed),
                            sd_text(sd_rng_type()->name) };
    return sd_table_add(v->t, row, err);
}

/* measured against theory within 6 standard errors. */
static sd_status z_row(run_ctx *v, const char *name, double theory, double measured, double se, double samples,
                       row_kind kind, sd_error *err)
{
    double z = fabs(measured - theory) / se;
    return add_row(v, name, theory, measured, Z_LIMIT * se, 2.0 * gsl_cdf_ugaussian_Q(z), samples,
                   z <= Z_LIMIT, kind, err);
}

/* Mean tokens per iteration of a run against theory. */
static sd_status mean_n_row(run_ctx *v, const char *name, double theory, const sd_engine_stats *s, row_kind kind,
                            sd_error *err)
{
    return z_row(v, name, theory, sd_engine_stats_mean_n(s), sd_engine_stats_mean_n_se(s), (double)s->iterations, kind, err);
}

/* A chi-square statistic: theory = dof, tolerance = the critical value. */
static sd_status chisq_row(run_ctx *v, const char *name, double stat, double dof, double samples,
                           row_kind kind, sd_error *err)
{
    double p = isinf(stat) ? 0.0 : dof > 0 ? gsl_cdf_chisq_Q(stat, dof) : 1.0;
    double crit = dof > 0 ? gsl_cdf_chisq_Qinv(CHISQ_LEVEL, dof) : 0.0;
    return add_row(v, name, dof, stat, crit, p, samples, p >= CHISQ_LEVEL, kind, err);
}

/* ---- models and runs ------------------------------------------------------ */

static sd_synth_config synth(const run_ctx *v, size_t vocab, double alpha, sd_regime regime)
{
    sd_synth_config c = sd_synth_defaults();
    c.vocab = vocab, c.alpha = alpha, c.regime = regime, c.seed = v->cfg->seed, c.threads = v->cfg->threads;
    return c;
}

/* An engine run of m under rule for about tokens x scale tokens, the run's
 * seed and threads, and otherwise the defaults: callers name what differs. */
static sd_engine_config engine(const run_ctx *v, const sd_model *m, const char *rule, double tokens)
{
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = sd_verify_find(rule), ec.tokens = (uint64_t)(tokens * v->scale);
    ec.seed = v->cfg->seed, ec.threads = v->cfg->threads;
    ec.shard = v->cfg->shard, ec.nshards = v->cfg->nshards, ec.io = v->cfg->io;
    return ec;
}

/* A fixed-gamma run of m under rule. */
static sd_status run_fixed(const run_ctx *v, const sd_model *m, const char *rule, size_t gamma, double tokens,
                           sd_engine_stats *s, sd_error *err)
{
    sd_engine_config ec = engine(v, m, rule, tokens);
    ec.gamma = gamma;
    return sd_engine_run(&ec, s, err);
}

/* Builds the synthetic model sc and runs ec on it; on success the caller
 * frees both the model and the statistics. */
static sd_status model_run(const sd_synth_config *sc, sd_engine_config ec, sd_model **m, sd_engine_stats *s,
                           sd_error *err)
{
    sd_status st = sd_synth_model(sc, m, err);
    if (st != SD_OK)
        return st;
    ec.model = *m;
    if ((st = sd_engine_run(&ec, s, err)) != SD_OK) {
        sd_model_free(*m);
        *m = NULL;
    }
    return st;
}

/* ---- 1, 2: the output distribution, position by position --------------------- */

enum { POS = 4, POS_VOCAB = 8 };

/* Exact marginals of the target's tokens at positions 1..POS, by summing
 * over every prefix (V^(POS-1) of them). */
static void exact_marginals(const sd_model *m, const sd_prefix *s, size_t depth, double weight, double *marg)
{
    const sd_context *c = sd_model_lookup(m, s);
    for (size_t r = 0; r < POS_VOCAB; r++) {
        double w = weight * c->p[r];
        marg[depth * POS_VOCAB + c->token[r]] += w;
        if (depth + 1 < POS && w > 0.0) {
            sd_prefix next = *s;
            sd_model_advance(m, &next, c->token[r]);
            exact_marginals(m, &next, depth + 1, w, marg);
        }
    }
}

/* The small model of the positional checks and its exact marginals. */
static sd_status output_model(const run_ctx *v, sd_model **m, double *marg, sd_error *err)
{
    sd_synth_config sc = synth(v, POS_VOCAB, 0.6, SD_REGIME_CONSTANT);
    sc.contexts = 16;
    sd_status st = sd_synth_model(&sc, m, err);
    if (st != SD_OK)
        return st;
    memset(marg, 0, POS * POS_VOCAB * sizeof *marg);
    sd_prefix start;
    sd_model_start(*m, &start);
    exact_marginals(*m, &start, 0, 1.0, marg);
    return SD_OK;
}

/* Runs ec on the positional model in sequences of POS tokens and holds the
 * tokens at positions 1..POS against the exact marginals: one chi-square
 * row per position when per_position, else one over all four. */
static sd_status output_rows(run_ctx *v, sd_engine_config ec, const char *name, int per_position, row_kind kind,
                             sd_error *err)
{
    double marg[POS * POS_VOCAB];
    sd_model *m = NULL;
    sd_engine_stats s;
    sd_status st = output_model(v, &m, marg, err);
    if (st != SD_OK)
        return st;
    ec.model = m, ec.seq_tokens = POS, ec.positions = POS;
    if ((st = sd_engine_run(&ec, &s, err)) != SD_OK) {
        sd_model_free(m);
        return st;
    }
    double total_stat = 0.0, total_dof = 0.0;
    for (size_t j = 0; j < POS && st == SD_OK; j++) {
        double stat = 0.0, dof = 0.0;
        sd_gof_chisq(s.pos_counts + j * POS_VOCAB, marg + j * POS_VOCAB, POS_VOCAB, &stat, &dof);
        total_stat += stat, total_dof += dof;
        if (per_position) {
            char row[160];
            snprintf(row, sizeof row, "%s %zu (adjusted, chi-square)", name, j + 1);
            st = chisq_row(v, row, stat, dof, (double)s.sequences, kind, err);
        }
    }
    if (!per_position && st == SD_OK)
        st = chisq_row(v, name, total_stat, total_dof, (double)s.sequences, kind, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

static sd_status check_output(run_ctx *v, sd_error *err)
{
    sd_engine_config ec = engine(v, NULL, "adjusted", 1e6);
    ec.gamma = 3;
    return output_rows(v, ec, "1. output = p at position", 1, KIND_CHECK, err);
}

static sd_status check_case1(run_ctx *v, sd_error *err)
{
    sd_engine_config ec = engine(v, NULL, "target", 1e6);
    ec.gamma = 3;
    return output_rows(v, ec, "2. control: target (Case 1) caught as biased, positions 1-4", 0, KIND_CONTROL, err);
}

static sd_status check_adaptive(run_ctx *v, sd_error *err)
{
    sd_engine_config ec = engine(v, NULL, "adjusted", 1e6);
    ec.policy = SD_POLICY_HEURISTIC, ec.gamma = 2, ec.gamma_max = 8;
    sd_status st = output_rows(v, ec, "14. heuristic +2/-1 draft length: output = p at positions 1-4 (chi-square)", 0,
                               KIND_CHECK, err);
    ec.policy = SD_POLICY_THRESHOLD, ec.gamma = 3, ec.threshold = 0.35;
    if (st == SD_OK)
        st = output_rows(v, ec, "14. threshold 0.35 draft length: output = p at positions 1-4 (chi-square)", 0,
                         KIND_CHECK, err);
    return st;
}

/* ---- 3: one-step acceptance = beta (eq. 1) ------------------------------------ */

static sd_status check_acceptance(run_ctx *v, sd_error *err)
{
    /* the seed's four-token example ("Why do we sample from the adjusted
     * distribution?"): tokens A-D, beta = 0.55 (also data/four-token-*.txt) */
    static const double p[] = { 0.50, 0.10, 0.30, 0.10 }, q[] = { 0.20, 0.40, 0.15, 0.25 };
    sd_model *m = NULL;
    sd_status st = sd_model_pair(p, q, 4, &m, err);
    if (st != SD_OK)
        return st;
    double beta = sd_dist_overlap(p, q, 4);
    sd_engine_stats s;
    if ((st = run_fixed(v, m, "adjusted", 1, 1e6, &s, err)) == SD_OK) {
        double n = (double)s.verified, rate = (double)s.accepted / n, se = sqrt(beta * (1 - beta) / n);
        st = z_row(v, "3. acceptance = beta = sum min(p, q) (eq. 1, four-token example)", beta, rate, se, n,
                   KIND_CHECK, err);
        if (st == SD_OK)
            st = z_row(v, "3. control: acceptance = beta + 0.01", beta + 0.01, rate, se, n, KIND_CONTROL, err);
        sd_engine_stats_free(&s);
    }
    sd_model_free(m);
    return st;
}

/* ---- 4-7: N, E(N), improvement and FLOPs at alpha = 0.8, gamma = 5 ---------------- */

static sd_status check_iteration(run_ctx *v, sd_error *err)
{
    enum { G = 5 };
    const double cost = 0.02, mu = 0.05;
    sd_synth_config sc = synth(v, 1000, 0.8, SD_REGIME_CONSTANT);
    sd_model *m = NULL;
    sd_status st = sd_synth_model(&sc, &m, err);
    if (st != SD_OK)
        return st;
    sd_engine_stats s;
    if ((st = run_fixed(v, m, "adjusted", G, 2e6, &s, err)) != SD_OK) {
        sd_model_free(m);
        return st;
    }
    double a = s.alpha_hat, it = (double)s.iterations;
    /* 4: the distribution of N against eqs. (2) and (3), and a control at alpha - 0.02 */
    double pmf[G + 2], wrong[G + 2];
    for (int n = 0; n <= G + 1; n++) {
        pmf[n] = sd_theory_pmf(a, G, n);
        wrong[n] = sd_theory_pmf(a - 0.02, G, n);
    }
    double stat = 0, dof = 0, wstat = 0, wdof = 0;
    sd_gof_chisq(s.n_hist, pmf, G + 2, &stat, &dof);
    sd_gof_chisq(s.n_hist, wrong, G + 2, &wstat, &wdof);
    st = chisq_row(v, "4. N follows eqs. (2)-(3) at alpha_hat (chi-square)", stat, dof, it, KIND_CHECK, err);
    if (st == SD_OK)
        st = chisq_row(v, "4. control: N against eqs. (2)-(3) at alpha_hat - 0.02", wstat, wdof, it, KIND_CONTROL, err);

    /* 5: mean tokens per iteration against eq. (4), and against the same sum without the bonus token */
    double mean = sd_engine_stats_mean_n(&s), se = sd_engine_stats_mean_n_se(&s);
    double en = sd_theory_expected_tokens(a, G);
    if (st == SD_OK)
        st = mean_n_row(v, "5. tokens per iteration = E(N), eq. (4) at alpha_hat", en, &s, KIND_CHECK, err);
    if (st == SD_OK)
        st = mean_n_row(v, "5. control: E(N) without the bonus token", en - pow(a, G), &s, KIND_CONTROL, err);

    /* 6: measured improvement in cost units against eq. (10) */
    double cf = (double)s.target_calls + cost * (double)s.draft_calls;
    double f_hat = (double)s.tokens / cf, f_se = se * it / cf;
    if (st == SD_OK)
        st = z_row(v, "6. tokens / (target calls + c draft calls) = eq. (10), c = 0.02",
                   sd_theory_improvement(a, G, cost), f_hat, f_se, it, KIND_CHECK, err);
    if (st == SD_OK)
        st = z_row(v, "6. control: eq. (10) charging c for the target call too", en / (1 + (G + 1) * cost), f_hat,
                   f_se, it, KIND_CONTROL, err);

    /* 7: measured FLOP factor against eq. (11) */
    double ops = mu * (double)s.draft_calls + (double)s.target_positions;
    double flop = ops / (double)s.tokens, flop_se = flop * se / mean;
    if (st == SD_OK)
        st = z_row(v, "7. (mu draft calls + target positions) / tokens = eq. (11), mu = 0.05",
                   sd_theory_flop_factor(a, G, mu), flop, flop_se, it, KIND_CHECK, err);
    if (st == SD_OK)
        st = z_row(v, "7. control: eq. (11) with gamma target positions, not gamma + 1",
                   (G * mu + G) / en, flop, flop_se, it, KIND_CONTROL, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 8: a sweep over gamma finds the closed-form optimum -------------------------- */

static sd_status check_sweep(run_ctx *v, sd_error *err)
{
    const double alpha = 0.8, cost = 0.02;
    sd_optimum o;
    sd_status st = sd_theory_optimal(alpha, cost, &o, err);
    if (st != SD_OK)
        return st;
    size_t gmax = (size_t)(2 * o.gamma_opt);
    sd_synth_config sc = synth(v, 1000, alpha, SD_REGIME_CONSTANT);
    sd_model *m = NULL;
    if ((st = sd_synth_model(&sc, &m, err)) != SD_OK)
        return st;
    double *f = calloc(gmax + 1, sizeof *f), *se = calloc(gmax + 1, sizeof *se), samples = 0;
    if (f == NULL || se == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    size_t best = 1;
    for (size_t g = 1; g <= gmax && st == SD_OK; g++) {
        sd_engine_stats s;
        if ((st = run_fixed(v, m, "adjusted", g, 3e5, &s, err)) != SD_OK)
            break;
        double cf = 1.0 + (double)g * cost; /* per iteration: one target call, g draft calls */
        f[g] = sd_engine_stats_mean_n(&s) / cf;
        se[g] = sd_engine_stats_mean_n_se(&s) / cf;
        samples += (double)s.iterations;
        if (f[g] > f[best])
            best = g;
        sd_engine_stats_free(&s);
    }
    if (st == SD_OK) {
        /* gamma_opt passes when its measured improvement is within 6 sigma of the best measured */
        size_t go = (size_t)o.gamma_opt, bad = go / 2;
        double gap = f[best] - f[go], gse = sqrt(se[best] * se[best] + se[go] * se[go]);
        st = add_row(v, "8. sweep gamma = 1..22: gamma_opt = 11 is best within 6 sigma (c = 0.02)", o.gamma_opt,
                     (double)best, Z_LIMIT * gse, 2.0 * gsl_cdf_ugaussian_Q(gap / gse), samples,
                     gap <= Z_LIMIT * gse, KIND_CHECK, err);
        double bgap = f[best] - f[bad], bse = sqrt(se[best] * se[best] + se[bad] * se[bad]);
        if (st == SD_OK)
            st = add_row(v, "8. control: gamma = gamma_opt / 2 = 5 claimed best", (double)bad, (double)best,
                         Z_LIMIT * bse, 2.0 * gsl_cdf_ugaussian_Q(bgap / bse), samples, bgap <= Z_LIMIT * bse,
                         KIND_CONTROL, err);
    }
    free(f);
    free(se);
    sd_model_free(m);
    return st;
}

/* ---- 9: drafting until the first rejection reaches the oracle ceiling ------------- */

static sd_status check_oracle(run_ctx *v, sd_error *err)
{
    sd_synth_config sc = synth(v, 1000, 0.8, SD_REGIME_CONSTANT);
    sd_model *m;
    sd_engine_stats s;
    sd_engine_config ec = engine(v, NULL, "adjusted", 1e6);
    ec.policy = SD_POLICY_ORACLE;
    sd_status st = model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    st = mean_n_row(v, "9. oracle (draft until rejection) = 1 / (1 - alpha_hat)", sd_theory_ceiling(s.alpha_hat), &s,
                    KIND_CHECK, err);
    if (st == SD_OK)
        st = mean_n_row(v, "9. control: oracle = E(N) at the fixed gamma_opt = 11",
                        sd_theory_expected_tokens(s.alpha_hat, 11), &s, KIND_CONTROL, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 10: alpha_hat over 10K tokens (eq. 7) = the acceptance rate ------------------ */

static sd_status check_alpha_hat(run_ctx *v, sd_error *err)
{
    sd_synth_config sc = synth(v, 1000, 0.8, SD_REGIME_BETA);
    sd_model *m = NULL;
    sd_status st = sd_synth_model(&sc, &m, err);
    if (st != SD_OK)
        return st;
    double var_beta = 0.0, mean_beta = sd_verify_mean_acceptance(sd_verify_find("adjusted"), m);
    for (size_t c = 0; c < sd_model_contexts(m); c++)
        var_beta += pow(sd_model_context(m, c)->beta - mean_beta, 2) / (double)sd_model_contexts(m);
    sd_engine_stats s;
    run_ctx one = *v;
    one.scale = 1.0; /* the paper's procedure: 10K tokens */
    if ((st = run_fixed(&one, m, "adjusted", 5, 1e4, &s, err)) == SD_OK) {
        double n = (double)s.verified, rate = (double)s.accepted / n, a = s.alpha_hat;
        /* Bernoulli noise given the contexts, plus the positions the two averages do not share */
        double se = sqrt(a * (1 - a) / n + var_beta / (double)s.tokens);
        st = z_row(v, "10. acceptance rate = alpha_hat over 10K tokens (eq. 7, Beta-distributed beta)", a, rate, se,
                   n, KIND_CHECK, err);
        double per_drafted = (double)s.accepted / (double)s.draft_calls;
        if (st == SD_OK)
            st = z_row(v, "10. control: accepted / drafted taken for alpha", per_drafted, rate, se, n, KIND_CONTROL,
                       err);
        sd_engine_stats_free(&s);
    }
    sd_model_free(m);
    return st;
}

/* ---- 11: correlated (Markov) acceptance: the i.i.d. formula's error --------------- */

static sd_status check_markov(run_ctx *v, sd_error *err)
{
    sd_synth_config sc = synth(v, 1000, NAN, SD_REGIME_MARKOV);
    sd_model *m;
    sd_engine_stats s;
    sd_engine_config ec = engine(v, NULL, "adjusted", 1e6);
    ec.gamma = 5;
    sd_status st = model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    const sd_markov mk = { sc.alpha_easy, sc.alpha_hard, sc.stay };
    double exact = sd_theory_markov_expected_tokens(&mk, 5);
    double iid = sd_theory_expected_tokens(sd_theory_markov_mean_alpha(&mk), 5);
    st = mean_n_row(v, "11. markov acceptance (0.95 / 0.3, stay 0.9): transfer-matrix E(N) = measured", exact, &s,
                    KIND_CHECK, err);
    if (st == SD_OK)
        st = mean_n_row(v, "11. control: markov E(N) with the i.i.d. eq. (4) at the mean alpha 0.625", iid, &s,
                        KIND_CONTROL, err);
    if (st == SD_OK) /* the finding: how far the i.i.d. formula is off, relative */
        st = add_row(v, "11. finding: relative error of the i.i.d. eq. (4) at the same mean alpha", 0.0,
                     iid / exact - 1.0, 0.0, 1.0, (double)s.iterations, 1, KIND_FINDING, err);
    sd_gof g;
    if (st == SD_OK && (st = sd_gof_output(m, sd_verify_find("adjusted"), &s, &g, err)) == SD_OK)
        st = chisq_row(v, "11. markov acceptance: output = p given the context (chi-square)", g.statistic, g.dof,
                       (double)s.tokens, KIND_CHECK, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 12: block verification emits more, 13: k drafts follow eq. (4) at alpha_k ---- */

static sd_status check_block(run_ctx *v, sd_error *err)
{
    /* the paper's reference pair p = (1/3, 2/3), q = (2/3, 1/3), gamma = 2 */
    const double p[] = { 1.0 / 3, 2.0 / 3 }, q[] = { 2.0 / 3, 1.0 / 3 };
    sd_model *pair = NULL, *zipf = NULL;
    sd_synth_config sc = synth(v, 1000, 0.8, SD_REGIME_CONSTANT);
    sd_status st;
    if ((st = sd_model_pair(p, q, 2, &pair, err)) != SD_OK || (st = sd_synth_model(&sc, &zipf, err)) != SD_OK) {
        sd_model_free(pair);
        return st;
    }
    const sd_model *models[] = { pair, zipf };
    static const size_t gammas[] = { 2, 5 };
    for (int i = 0; i < 2 && st == SD_OK; i++) {
        sd_engine_stats tw, bl;
        if ((st = run_fixed(v, models[i], "adjusted", gammas[i], 1e6, &tw, err)) != SD_OK)
            break;
        if ((st = run_fixed(v, models[i], "block", gammas[i], 1e6, &bl, err)) != SD_OK) {
            sd_engine_stats_free(&tw);
            break;
        }
        if (i == 0) {
            st = mean_n_row(v, "12. block, reference pair, gamma 2: tokens per iteration = 1 + 11/9", 1 + 11.0 / 9, &bl,
                            KIND_CHECK, err);
            if (st == SD_OK)
                st = mean_n_row(v, "12. token-wise, reference pair, gamma 2: tokens per iteration = 1 + 10/9",
                                1 + 10.0 / 9, &tw, KIND_CHECK, err);
            if (st == SD_OK)
                st = mean_n_row(v, "12. control: block at the token-wise 1 + 10/9", 1 + 10.0 / 9, &bl, KIND_CONTROL, err);
        }
        /* one-sided: block must not fall 6 sigma below token-wise */
        double gap = sd_engine_stats_mean_n(&bl) - sd_engine_stats_mean_n(&tw);
        double se = sqrt(pow(sd_engine_stats_mean_n_se(&bl), 2) + pow(sd_engine_stats_mean_n_se(&tw), 2));
        if (st == SD_OK)
            st = add_row(v, i == 0 ? "12. block >= token-wise tokens per iteration (reference pair)"
                                   : "12. block >= token-wise tokens per iteration (zipf, alpha 0.8, gamma 5)",
                         sd_engine_stats_mean_n(&tw), sd_engine_stats_mean_n(&bl), -Z_LIMIT * se, gsl_cdf_ugaussian_P(gap / se),
                         (double)bl.iterations, gap >= -Z_LIMIT * se, KIND_CHECK, err);
        if (st == SD_OK && i == 0) /* the same one-sided test the other way round must fail */
            st = add_row(v, "12. control: token-wise >= block tokens per iteration (reference pair)",
                         sd_engine_stats_mean_n(&bl), sd_engine_stats_mean_n(&tw), -Z_LIMIT * se, gsl_cdf_ugaussian_P(-gap / se),
                         (double)tw.iterations, -gap >= -Z_LIMIT * se, KIND_CONTROL, err);
        sd_engine_stats_free(&tw);
        sd_engine_stats_free(&bl);
    }
    sd_model_free(pair);
    sd_model_free(zipf);
    sd_engine_config ec = engine(v, NULL, "block", 1e6);
    ec.gamma = 3;
    if (st == SD_OK)
        st = output_rows(v, ec, "12. block verification: output = p at positions 1-4 (chi-square)", 0, KIND_CHECK, err);
    return st;
}

static sd_status check_drafts(run_ctx *v, sd_error *err)
{
    sd_synth_config sc = synth(v, 200, 0.6, SD_REGIME_CONSTANT);
    sd_model *m;
    sd_engine_stats s;
    sd_engine_config ec = engine(v, NULL, "adjusted", 1e6);
    ec.drafts = 3, ec.gamma = 4;
    sd_status st = model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    /* alpha_hat here is the mean over visited prefixes of the 3-draft acceptance (dist.h) */
    st = mean_n_row(v, "13. three drafts: tokens per iteration = eq. (4) at the 3-draft acceptance",
                    sd_theory_expected_tokens(s.alpha_hat, 4), &s, KIND_CHECK, err);
    if (st == SD_OK)
        st = mean_n_row(v, "13. control: three drafts at the one-draft alpha 0.6", sd_theory_expected_tokens(0.6, 4), &s,
                        KIND_CONTROL, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    ec.drafts = 3, ec.gamma = 3;
    if (st == SD_OK)
        st = output_rows(v, ec, "13. three drafts per position: output = p at positions 1-4 (chi-square)", 0,
                         KIND_CHECK, err);
    return st;
}

/* ---- 15: engine metrics both ways ----------------------------------------------------- */

static sd_status check_metrics(run_ctx *v, sd_error *err)
{
    enum { G = 6 };
    sd_synth_config sc = synth(v, 1000, 0.7, SD_REGIME_CONSTANT);
    sd_model *m;
    sd_engine_stats s;
    sd_engine_config ec = engine(v, NULL, "adjusted", 1e6);
    ec.gamma = G;
    sd_status st = model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    /* accepted / drafted, as serving engines count it, against (E(N) - 1) / gamma at alpha_hat */
    double rate = (double)s.accepted / (double)s.draft_calls, se = sd_engine_stats_mean_n_se(&s) / G;
    st = z_row(v, "15. engine acceptance rate (accepted / drafted) = (E(N) - 1) / gamma",
               (sd_theory_expected_tokens(s.alpha_hat, G) - 1) / G, rate, se, (double)s.iterations, KIND_CHECK, err);
    /* alpha from the measured mean acceptance length, through the Brent inversion of eq. (4) */
    double a_back;
    if (st == SD_OK && (st = sd_theory_alpha_from_length(sd_engine_stats_mean_n(&s), G, &a_back, err)) == SD_OK) {
        double h = 1e-6, slope = (sd_theory_expected_tokens(s.alpha_hat + h, G) -
                                  sd_theory_expected_tokens(s.alpha_hat - h, G)) / (2 * h);
        double ase = sd_engine_stats_mean_n_se(&s) / slope; /* the delta method */
        st = z_row(v, "15. alpha from the mean acceptance length = alpha_hat", s.alpha_hat, a_back, ase,
                   (double)s.iterations, KIND_CHECK, err);
        if (st == SD_OK)
            st = z_row(v, "15. control: accepted / drafted taken for alpha", rate, a_back, ase, (double)s.iterations,
                       KIND_CONTROL, err);
    }
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- exact rows: deterministic comparisons ------------------------------------------- */

/* The larger of a worst deviation w so far and a new one d; a NaN in either stays. */
static double worse(double w, double d) { return isnan(w) || d <= w ? w : d; }

/* measured against theory within an absolute tol, no sampling: p_value 1 or 0.
 * A NaN measurement is shown as +inf (and fails). */
static sd_status exact_row(run_ctx *v, const char *name, double theory, double measured, double tol, double samples,
                           row_kind kind, sd_error *err)
{
    int within = fabs(measured - theory) <= tol;
    return add_row(v, name, theory, isnan(measured) ? INFINITY : measured, tol, within ? 1.0 : 0.0, samples, within,
                   kind, err);
}

/* ---- 16: block verification's residual weight, on a pair where it matters ----------- */

enum { BV = 3, BG = 3, BL = SD_POSITIONS_MAX }; /* the pair's tokens, gamma, positions counted */

/* Block verification's P_0..P_BG and the law of tau, pt[0..BG], for the drafts
 * x[0..BG-1] of the context-free pair (p, q), as verify.h describes. */
static void block_tau(const double *p, const double *q, const int *x, double *P, double *pt)
{
    double h[BG + 1], rest = 1.0;
    P[0] = 1.0;
    for (int i = 1; i <= BG; i++)
        P[i] = fmin(1.0, P[i - 1] * p[x[i - 1]] / q[x[i - 1]]);
    for (int i = 1; i < BG; i++) {
        double z = 0.0;
        for (int t = 0; t < BV; t++)
            z += fmax(P[i] * p[t] - q[t], 0.0);
        h[i] = z > 0.0 ? z / (z + 1.0 - P[i]) : 0.0;
    }
    h[BG] = P[BG];
    for (int i = BG; i >= 1; i--) /* going down from BG: stop at i with probability h_i */
        pt[i] = rest * h[i], rest *= 1.0 - h[i];
    pt[0] = rest;
}

/* The exact output of one block iteration on the pair, by enumerating the
 * BV^BG drafts: it[(l * (BG + 1) + j) * BV + x] = P(N = l, token j = x).
 * weighted = 0 is the planted bug: the residual max(p - q, 0), without P_tau. */
static void block_iteration(const double *p, const double *q, int weighted, double *it)
{
    int combos = 1;
    for (int i = 0; i < BG; i++)
        combos *= BV;
    memset(it, 0, (BG + 2) * (BG + 1) * BV * sizeof *it);
    for (int code = 0; code < combos; code++) {
        int x[BG];
        double w = 1.0, P[BG + 1], pt[BG + 1];
        for (int i = 0, c = code; i < BG; i++, c /= BV)
            x[i] = c % BV, w *= q[x[i]];
        block_tau(p, q, x, P, pt);
        for (int tau = 0; tau <= BG; tau++) {
            double r[BV], tot = 0.0, wt = w * pt[tau], *row = it + (tau + 1) * (BG + 1) * BV;
            for (int j = 0; j < tau; j++)
                row[j * BV + x[j]] += wt;
            for (int t = 0; t < BV; t++)
                tot += (r[t] = tau == BG ? p[t] : fmax((weighted ? P[tau] : 1.0) * p[t] - q[t], 0.0));
            for (int t = 0; t < BV; t++) /* an empty residual falls back to p, as the rule does */
                row[tau * BV + t] += tot > 0.0 ? wt * r[t] / tot : wt * p[t];
        }
    }
}

/* The exact token law pooled over sequence positions 1..BL into pooled[BV]
 * (iterations on a context-free pair are i.i.d.: a renewal process), and
 * E(N) into *mean_n unless it is NULL. */
static void block_pooled(const double *p, const double *q, int weighted, double *pooled, double *mean_n)
{
    double it[(BG + 2) * (BG + 1) * BV], len[BG + 2] = { 0 }, start[BL] = { 1.0 };
    block_iteration(p, q, weighted, it);
    double en = 0.0;
    for (int l = 1; l <= BG + 1; l++) {
        for (int t = 0; t < BV; t++) /* every iteration has a token 0 */
            len[l] += it[l * (BG + 1) * BV + t];
        en += l * len[l];
    }
    if (mean_n != NULL)
        *mean_n = en;
    for (int s = 1; s < BL; s++) /* P(an iteration starts at position s + 1) */
        for (int l = 1; l <= BG + 1 && l <= s; l++)
            start[s] += start[s - l] * len[l];
    memset(pooled, 0, BV * sizeof *pooled);
    for (int k = 0; k < BL; k++)
        for (int s = 0; s <= k; s++)
            for (int l = k - s + 1; l <= BG + 1; l++)
                for (int t = 0; t < BV; t++)
                    pooled[t] += start[s] * it[(l * (BG + 1) + k - s) * BV + t] / BL;
}

/* The engine's block rule on the pair: pooled output and tokens per iteration. */
static sd_status block_pair_rows(run_ctx *v, const sd_model *m, const double *p, const double *planted,
                                 double mean_n, sd_error *err)
{
    sd_engine_config ec = engine(v, m, "block", 1e6);
    ec.gamma = BG, ec.seq_tokens = BL, ec.positions = BL;
    sd_engine_stats s;
    sd_status st = sd_engine_run(&ec, &s, err);
    if (st != SD_OK)
        return st;
    uint64_t counts[BV] = { 0 }, n = 0;
    for (size_t k = 0; k < BL; k++)
        for (size_t t = 0; t < BV; t++) /* pos_counts are by token id: the pair's order */
            counts[t] += s.pos_counts[k * BV + t], n += s.pos_counts[k * BV + t];
    double stat = 0, dof = 0, wstat = 0, wdof = 0;
    sd_gof_chisq(counts, p, BV, &stat, &dof);
    sd_gof_chisq(counts, planted, BV, &wstat, &wdof);
    st = chisq_row(v, "16. block, same pair, engine: output = p, positions 1-16 pooled (chi-square)", stat, dof,
                   (double)n, KIND_CHECK, err);
    if (st == SD_OK)
        st = chisq_row(v, "16. control: the residual without P_tau (the planted bug), enumerated", wstat, wdof,
                       (double)n, KIND_CONTROL, err);
    if (st == SD_OK)
        st = mean_n_row(v, "16. block, same pair: tokens per iteration = E(N) enumerated", mean_n, &s, KIND_CHECK, err);
    if (st == SD_OK) /* token-wise: beta = 0.5 */
        st = mean_n_row(v, "16. control: block at the token-wise eq. (4), beta = 0.5",
                        sd_theory_expected_tokens(0.5, BG), &s, KIND_CONTROL, err);
    sd_engine_stats_free(&s);
    return st;
}

static sd_status check_block_residual(run_ctx *v, sd_error *err)
{
    /* found by search over pairs of 3-5 tokens and gamma 2-3 (issue 10): the one whose
     * output the residual's weight P_tau moves most (on two tokens it does not matter);
     * without it the pooled law is (.35 .377 .273), 0.0046 of chi-square per token */
    static const double p[BV] = { 0.35, 0.35, 0.30 }, q[BV] = { 0.85, 0.14, 0.01 };
    double exact[BV], planted[BV], mean_n, dev = 0.0;
    block_pooled(p, q, 1, exact, &mean_n);
    block_pooled(p, q, 0, planted, NULL);
    for (int t = 0; t < BV; t++)
        dev = worse(dev, fabs(exact[t] - p[t]));
    sd_status st = exact_row(v, "16. block, p = (.35 .35 .30), q = (.85 .14 .01), gamma 3, enumerated: output = p, "
                             "positions 1-16", 0.0, dev, 1e-12, BL * BV, KIND_CHECK, err);
    sd_model *m = NULL;
    if (st != SD_OK || (st = sd_model_pair(p, q, BV, &m, err)) != SD_OK)
        return st;
    st = block_pair_rows(v, m, p, planted, mean_n, err);
    sd_model_free(m);
    return st;
}

/* ---- 17: every calibrated context's beta is the nominal alpha -------------------------- */

/* The largest |beta - a| over m's contexts, beta both as stored and as
 * sum min(p, q) recomputed here, and |target_alpha - a|; NaN propagates. */
static double worst_beta(const sd_model *m, double a)
{
    double worst = 0.0;
    size_t n = sd_model_vocab(m);
    for (size_t c = 0; c < sd_model_contexts(m); c++) {
        const sd_context *ctx = sd_model_context(m, c);
        double beta = 0.0;
        for (size_t r = 0; r < n; r++)
            beta += ctx->p[r] < ctx->q[r] ? ctx->p[r] : ctx->q[r];
        worst = worse(worse(worse(worst, fabs(beta - a)), fabs(ctx->beta - a)), fabs(ctx->target_alpha - a));
    }
    return worst;
}

static sd_status check_nominal_alpha(run_ctx *v, sd_error *err)
{
    /* the banks of checks 1 and 4-15 and more: each family, alpha 0.1 to 0.8 (logits at 0.3
     * calibrates against the point-mass reference) */
    static const struct {
        sd_family family;
        size_t vocab;
        double alpha;
    } banks[] = {
        { .family = SD_FAMILY_ZIPF, .vocab = 1000, .alpha = 0.8 },
        { .family = SD_FAMILY_ZIPF, .vocab = 8, .alpha = 0.6 },
        { .family = SD_FAMILY_ZIPF, .vocab = 200, .alpha = 0.6 },
        { .family = SD_FAMILY_ZIPF, .vocab = 1000, .alpha = 0.1 },
        { .family = SD_FAMILY_DIRICHLET, .vocab = 100, .alpha = 0.5 },
        { .family = SD_FAMILY_LOGITS, .vocab = 50, .alpha = 0.3 },
    };
    enum { NB = sizeof banks / sizeof banks[0] };
    double worst = 0.0, wrong = 0.0, contexts = 0.0;
    sd_status st = SD_OK;
    for (size_t b = 0; b < NB && st == SD_OK; b++) {
        sd_synth_config sc = synth(v, banks[b].vocab, banks[b].alpha, SD_REGIME_CONSTANT);
        sc.family = banks[b].family;
        sd_model *m = NULL;
        if ((st = sd_synth_model(&sc, &m, err)) != SD_OK)
            break;
        double d = worst_beta(m, banks[b].alpha), dw = worst_beta(m, banks[b].alpha + 0.01);
        worst = worse(worst, d);
        wrong = worse(wrong, dw);
        contexts += (double)sd_model_contexts(m);
        sd_model_free(m);
    }
    if (st == SD_OK)
        st = exact_row(v, "17. every context's beta = sum min(p, q) = the nominal alpha (6 calibrated banks)", 0.0,
                       worst, 1e-12, contexts, KIND_CHECK, err);
    if (st == SD_OK)
        st = exact_row(v, "17. control: the same contexts against alpha + 0.01", 0.0, wrong, 1e-12, contexts,
                       KIND_CONTROL, err);
    return st;
}

/* ---- 18: greedy emits the target's argmax ------------------------------------------------ */

/* Tokens emitted at ranks other than p's argmax and other than q's, and
 * where the greedy rule accepts q's argmax (a whole number), from s on m. */
static void greedy_counts(const sd_model *m, const sd_engine_stats *s, uint64_t *off_p, uint64_t *off_q, double *agree)
{
    const sd_verifier *greedy = sd_verify_find("greedy");
    *off_p = 0, *off_q = 0, *agree = 0.0;
    for (size_t c = 0; c < s->contexts; c++) {
        const sd_context *ctx = sd_model_context(m, c);
        *off_p += s->ctx_tokens[c] - s->out_counts[c * s->vocab];
        *off_q += s->ctx_tokens[c] - s->out_counts[c * s->vocab + ctx->argmax_q];
        *agree += sd_verify_acceptance(greedy, ctx) * (double)s->ctx_tokens[c];
    }
}

static sd_status check_greedy(run_ctx *v, sd_error *err)
{
    enum { G = 3 };
    /* per-context acceptance varies (beta regime), so q's argmax is p's in about half the
     * contexts; a history of 8 tokens makes the (deterministic) greedy path visit the bank
     * like a random draw.  Every chunk replays the same path: run one (2048 iterations). */
    sd_synth_config sc = synth(v, 200, 0.55, SD_REGIME_BETA);
    sc.history = SD_HISTORY_MAX;
    sd_engine_config ec = engine(v, NULL, "greedy", 1);
    ec.gamma = G;
    sd_model *m;
    sd_engine_stats s;
    sd_status st = model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    uint64_t off_p, off_q;
    double agree, it = (double)s.iterations, tokens = (double)s.tokens;
    greedy_counts(m, &s, &off_p, &off_q, &agree);
    st = exact_row(v, "18. greedy: every emitted token is p's argmax (tokens of other ranks)", 0.0, (double)off_p, 0.0,
                   tokens, KIND_CHECK, err);
    if (st == SD_OK)
        st = exact_row(v, "18. control: every emitted token is q's argmax (the draft's argmax kept)", 0.0,
                       (double)off_q, 0.0, tokens, KIND_CONTROL, err);
    /* accepted drafts = tokens emitted where q's argmax is p's, but for the bonus tokens,
     * whose contexts were not verified: tokens per iteration lies in
     * [1 + (agree - bonus) / it, 1 + agree / it] (the row: theory - tolerance to theory) */
    double bonus = (double)s.n_hist[G + 1];
    if (st == SD_OK)
        st = add_row(v, "18. greedy: tokens per iteration = 1 + (tokens where argmaxes agree) / iterations, "
                        "bonus aside", 1.0 + agree / it, tokens / it, bonus / it, 1.0, it,
                     tokens - it <= agree && agree <= tokens - it + bonus, KIND_CHECK, err);
    if (st == SD_OK)
        st = mean_n_row(v, "18. greedy: tokens per iteration = eq. (4) at the share of contexts where argmaxes agree",
                        sd_theory_expected_tokens(sd_verify_mean_acceptance(sd_verify_find("greedy"), m), G), &s,
                        KIND_CHECK, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 19: gamma* against a brute-force scan of eq. (10) ----------------------------------- */

/* The whole gamma in 0..limit maximising eq. (10) by scanning: 0 when no
 * gamma gives f > 1 by more than rounding (4 eps: at alpha = c, where
 * theory.h proves no gain, the computed f(1) may be 1 + eps); where f ties
 * in double precision, the gamma nearest the continuous optimum gs
 * (sd_theory_optimal's rule, theory.c). */
static double scan_optimum(double alpha, double cost, double limit, double gs)
{
    double best = 0.0, best_f = 1.0 + 4.0 * DBL_EPSILON;
    for (double g = 1.0; g <= limit; g++) {
        double f = sd_theory_improvement(alpha, g, cost);
        if (f > best_f || (best > 0.0 && !(f < best_f) && fabs(g - gs) < fabs(best - gs)))
            best = g, best_f = f;
    }
    return best;
}

/* A point of check 19's grid: (alpha, c) and how far the scan goes. */
typedef struct {
    double alpha, cost, limit;
} grid_point;

/* alpha -> 1 (near the Lambert W branch point: gamma* in the thousands), tiny c
 * with small alpha, and tiny c where 1 + gamma c rounds to 1 (f ties in double) */
static const grid_point HARD[] = {
    { .alpha = 0.9999, .cost = 0.3, .limit = 5000 },     { .alpha = 0.9999, .cost = 0.9, .limit = 5000 },
    { .alpha = 0.999999, .cost = 0.5, .limit = 20000 },  { .alpha = 1 - 1e-7, .cost = 0.7, .limit = 10000 },
    { .alpha = 0.999, .cost = 1e-4, .limit = 10000 },    { .alpha = 0.99, .cost = 0.002, .limit = 3000 },
    { .alpha = 1e-5, .cost = 5e-6, .limit = 100 },       { .alpha = 1e-3, .cost = 1e-7, .limit = 100 },
    { .alpha = 1e-9, .cost = 1e-12, .limit = 100 },      { .alpha = 0.01, .cost = 1e-10, .limit = 100 },
    { .alpha = 0.05, .cost = 1e-12, .limit = 100 },      { .alpha = 1e-3, .cost = 1e-300, .limit = 5000 },
    { .alpha = 0.5, .cost = 1e-280, .limit = 5000 },
};
enum {
    NHARD = sizeof HARD / sizeof HARD[0],
    NREG = 25,                        /* a regular NREG x NREG grid */
    NTIE_A = 5, NTIE_G = 8,           /* near-ties: alphas x gammas x 4 distances */
    NTIE = NTIE_A * NTIE_G * 4,
    NNEAR = 6 * 3                     /* alpha at c: 6 costs x 3 distances */
};

static size_t grid_size(void) { return NREG * NREG + NTIE + NNEAR + NHARD; }

/* Grid point i of check 19, i < grid_size(). */
static grid_point grid_at(size_t i)
{
    static const double tie_a[NTIE_A] = { 0.5, 0.8, 0.9, 0.95, 0.99 }, tie_g[NTIE_G] = { 1, 2, 3, 5, 8, 13, 21, 34 };
    static const double eps[4] = { -1e-6, -1e-9, 1e-9, 1e-6 }, near_c[6] = { 1e-6, 1e-3, 0.05, 0.3, 0.7, 0.95 };
    static const double near_r[3] = { 1.0, 1 + 1e-6, 1 + 1e-9 };
    if (i < NREG * NREG) /* a regular grid, both sides of alpha = c */
        return (grid_point){ .alpha = 0.02 + 0.96 * (double)(i / NREG) / (NREG - 1),
                             .cost = pow(10.0, -4.0 + 3.7 * (double)(i % NREG) / (NREG - 1)), .limit = 3000 };
    if ((i -= NREG * NREG) < NTIE) { /* near-ties: c within 1e-6 or 1e-9 of where f(g) = f(g + 1) */
        double a = tie_a[i / (NTIE_G * 4)], g = tie_g[i / 4 % NTIE_G];
        double e = sd_theory_expected_tokens(a, g), e1 = sd_theory_expected_tokens(a, g + 1);
        double tie = pow(a, g + 1) / ((g + 1) * e - g * e1); /* f(g) = f(g + 1) there */
        return (grid_point){ .alpha = a, .cost = tie * (1 + eps[i % 4]), .limit = 3000 };
    }
    if ((i -= NTIE) < NNEAR) /* alpha at c and just above it (1e-9 only where f(1) - 1 resolves) */
        return (grid_point){ .alpha = near_c[i / 3] * (i % 3 == 2 && near_c[i / 3] < 0.05 ? 1 + 1e-6 : near_r[i % 3]),
                             .cost = near_c[i / 3], .limit = 100 };
    return HARD[i - NNEAR];
}

static sd_status check_gamma_star(run_ctx *v, sd_error *err)
{
    size_t n = grid_size();
    double wrong = 0.0, floor_wrong = 0.0;
    for (size_t i = 0; i < n; i++) {
        grid_point pt = grid_at(i);
        sd_optimum o;
        sd_status st = sd_theory_optimal(pt.alpha, pt.cost, &o, err);
        if (st != SD_OK)
            return st;
        double best = scan_optimum(pt.alpha, pt.cost, pt.limit, o.gamma_continuous);
        wrong += !(fabs(o.gamma_opt - best) <= 0.0) || !(best < pt.limit); /* at the limit: the scan is too short */
        floor_wrong += !(fabs(floor(o.gamma_continuous) - best) <= 0.0);
    }
    sd_status st = exact_row(v, "19. gamma_opt = the argmax of eq. (10) by scan (near-ties, alpha ~ c, tiny c, "
                             "alpha -> 1)", 0.0, wrong, 0.0, (double)n, KIND_CHECK, err);
    if (st == SD_OK)
        st = exact_row(v, "19. control: floor(gamma_continuous) claimed optimal", 0.0, floor_wrong, 0.0, (double)n,
                       KIND_CONTROL, err);
    return st;
}

/* ---- 20: the heuristic's draft-length trajectory follows its rule -------------------------- */

/* The moves of s (engine.h: moves) that a rule forbids which allows only
 * g' = min(g + up, gmax) after full acceptance and g' = max(g - 1, 1) otherwise. */
static double forbidden_moves(const sd_engine_stats *s, size_t gmax, size_t up)
{
    double bad = 0.0;
    for (size_t full = 0; full < 2; full++)
        for (size_t g = 0; g <= s->max_gamma; g++) {
            size_t allowed = full ? (g + up < gmax ? g + up : gmax) : (g > 1 ? g - 1 : 1);
            for (size_t b = 0; b < SD_MOVE_BINS; b++) {
                uint64_t count = s->moves[(full * (s->max_gamma + 1) + g) * SD_MOVE_BINS + b];
                int ok = b < SD_MOVE_BINS - 1 && g + b == allowed + SD_MOVE_SPAN;
                bad += ok ? 0.0 : (double)count;
            }
        }
    return bad;
}

/* Pearson's statistic of the fully accepted iterations at each draft length g
 * against a^(g + shift), one degree of freedom per length. */
static void full_acceptance_chisq(const sd_engine_stats *s, double a, double shift, double *stat, double *dof)
{
    for (size_t g = 1; g <= s->max_gamma; g++) {
        uint64_t obs[2] = { 0, 0 }; /* not full, full */
        for (size_t full = 0; full < 2; full++)
            for (size_t b = 0; b < SD_MOVE_BINS; b++)
                obs[full] += s->moves[(full * (s->max_gamma + 1) + g) * SD_MOVE_BINS + b];
        double pf = pow(a, (double)g + shift), prob[2] = { 1.0 - pf, pf };
        sd_gof_chisq(obs, prob, 2, stat, dof);
    }
}

static sd_status check_heuristic(run_ctx *v, sd_error *err)
{
    enum { GMAX = 6 };
    const double alpha = 0.8;
    sd_synth_config sc = synth(v, 100, alpha, SD_REGIME_CONSTANT);
    sd_engine_config ec = engine(v, NULL, "adjusted", 3e5);
    ec.policy = SD_POLICY_HEURISTIC, ec.gamma = 2, ec.gamma_max = GMAX;
    sd_model *m;
    sd_engine_stats s;
    sd_status st = model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    double it = (double)s.iterations, stat = 0, dof = 0, wstat = 0, wdof = 0;
    st = exact_row(v, "20. heuristic +2/-1, gamma 2 to 6: draft-length moves its rule forbids", 0.0,
                   forbidden_moves(&s, GMAX, 2), 0.0, it, KIND_CHECK, err);
    if (st == SD_OK)
        st = exact_row(v, "20. control: the moves a +1/-1 rule forbids", 0.0, forbidden_moves(&s, GMAX, 1), 0.0, it,
                       KIND_CONTROL, err);
    full_acceptance_chisq(&s, alpha, 0.0, &stat, &dof);
    full_acceptance_chisq(&s, alpha, 1.0, &wstat, &wdof);
    if (st == SD_OK)
        st = chisq_row(v, "20. heuristic: P(all g drafts accepted) = alpha^g, g = 1..6, alpha 0.8 (chi-square)", stat,
                       dof, it, KIND_CHECK, err);
    if (st == SD_OK)
        st = chisq_row(v, "20. control: P(all g drafts accepted) = alpha^(g + 1)", wstat, wdof, it, KIND_CONTROL, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 21: deterministic-draft (vLLM's rule for drafters without probabilities) ----------- */

static sd_status check_deterministic_draft(run_ctx *v, sd_error *err)
{
    /* output = p at positions 1-4; the control resamples from p itself after a rejection
     * (x not removed), which emits p(x) delta_x + (1 - p(x)) p: biased towards x */
    const sd_verifier *dd = sd_verify_find("deterministic-draft");
    sd_verifier kept = *dd;
    kept.resample = sd_verify_find("target")->resample;
    sd_engine_config ec = engine(v, NULL, "deterministic-draft", 1e6);
    ec.gamma = 3;
    sd_status st = output_rows(v, ec, "21. deterministic-draft: output = p at positions 1-4 (chi-square)", 0,
                               KIND_CHECK, err);
    ec.verifier = &kept;
    if (st == SD_OK)
        st = output_rows(v, ec, "21. control: deterministic-draft resampling from p with x kept caught as biased", 0,
                         KIND_CONTROL, err);
    /* acceptance = p(argmax q) on the four-token example: q's argmax is B, p(B) = 0.1,
     * while sum min(p, q) = 0.55 (the control) */
    static const double p[] = { 0.50, 0.10, 0.30, 0.10 }, q[] = { 0.20, 0.40, 0.15, 0.25 };
    sd_model *m = NULL;
    sd_engine_stats s;
    if (st != SD_OK || (st = sd_model_pair(p, q, 4, &m, err)) != SD_OK)
        return st;
    double a = sd_verify_acceptance(dd, sd_model_context(m, 0)), beta = sd_dist_overlap(p, q, 4);
    if ((st = run_fixed(v, m, "deterministic-draft", 1, 1e6, &s, err)) == SD_OK) {
        double n = (double)s.verified, rate = (double)s.accepted / n, se = sqrt(a * (1 - a) / n);
        st = z_row(v, "21. deterministic-draft: acceptance = p(argmax q) (four-token example)", a, rate, se, n,
                   KIND_CHECK, err);
        if (st == SD_OK)
            st = z_row(v, "21. control: acceptance = sum min(p, q) (eq. 1)", beta, rate, se, n, KIND_CONTROL, err);
        sd_engine_stats_free(&s);
    }
    sd_model_free(m);
    return st;
}

/* The checks in the order they run; each covers the rows numbered first..last. */
typedef struct {
    sd_validate_check info;
    sd_status (*run)(run_ctx *v, sd_error *err);
} check;

static const check CHECKS[] = {
    { { 1, 1, "output", "output = p at positions 1-4, adjusted rule" }, check_output },
    { { 2, 2, "case-1", "control: resampling from p (the seed's Case 1) is caught" }, check_case1 },
    { { 3, 3, "acceptance", "acceptance = beta (eq. 1) on the four-token example" }, check_acceptance },
    { { 4, 7, "iteration", "N (eqs. 2-3), E(N) (eq. 4), improvement (eq. 10), FLOPs (eq. 11)" }, check_iteration },
    { { 8, 8, "sweep", "a measured sweep over gamma finds the closed-form optimum" }, check_sweep },
    { { 9, 9, "oracle", "drafting until the first rejection reaches 1 / (1 - alpha)" }, check_oracle },
    { { 10, 10, "alpha-hat", "alpha_hat over 10K tokens (eq. 7) = the acceptance rate" }, check_alpha_hat },
    { { 11, 11, "markov", "correlated acceptance: transfer-matrix E(N), i.i.d. error" }, check_markov },
    { { 12, 12, "block", "block verification: tokens per iteration, output = p" }, check_block },
    { { 13, 13, "drafts", "several drafts per position: E(N), output = p" }, check_drafts },
    { { 14, 14, "adaptive", "adaptive draft lengths are lossless" }, check_adaptive },
    { { 15, 15, "metrics", "engine metrics both ways" }, check_metrics },
    { { 16, 16, "residual", "block verification's residual weight: output = p on a 3-token pair" },
      check_block_residual },
    { { 17, 17, "nominal", "every calibrated context's beta = the nominal alpha, exactly" }, check_nominal_alpha },
    { { 18, 18, "greedy", "greedy emits p's argmax; tokens per iteration from its acceptance" }, check_greedy },
    { { 19, 19, "gamma-star", "gamma* = a brute-force argmax of eq. (10) on a grid of hard cases" }, check_gamma_star },
    { { 20, 20, "heuristic", "the +2/-1 heuristic's draft-length moves follow its rule" }, check_heuristic },
    { { 21, 21, "deterministic-draft", "deterministic-draft: output = p, acceptance = p(argmax q)" },
      check_deterministic_draft },
    { { 0, 0, NULL, NULL }, NULL },
};

const sd_validate_check *sd_validate_check_at(size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (CHECKS[k].info.name == NULL)
            return NULL;
    return CHECKS[i].info.name != NULL ? &CHECKS[i].info : NULL;
}

/* 1 when the check covers a number in cfg->only (or no selection was made). */
static int selected(const sd_validate_config *cfg, const sd_validate_check *c)
{
    if (cfg->nonly == 0)
        return 1;
    for (size_t i = 0; i < cfg->nonly; i++)
        if (cfg->only[i] >= c->first && cfg->only[i] <= c->last)
            return 1;
    return 0;
}

sd_validate_config sd_validate_defaults(void)
{
    return (sd_validate_config){ .quick = 0, .seed = 20261129, .threads = 2, .only = NULL, .nonly = 0 };
}

sd_status sd_validate_run(const sd_validate_config *cfg, sd_table **out, int *passed, sd_error *err)
{
    static const char *const cols[] = { "check", "theory", "measured", "tolerance", "p_value", "samples", "verdict",
                                        "seed", "rng" };
    unsigned last = 0;
    for (const check *c = CHECKS; c->run != NULL; c++)
        last = c->info.last;
    for (size_t i = 0; i < cfg->nonly; i++)
        if (cfg->only[i] < 1 || cfg->only[i] > last)
            return sd_status_fail(err, SD_EINVAL, "only: no check numbered %u; the checks are numbered 1 to %u",
                                  cfg->only[i], last);
    run_ctx v = { cfg, sd_table_alloc(9, cols), 1, cfg->quick ? 1.0 : 10.0 };
    if (v.t == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_status st = SD_OK;
    for (const check *c = CHECKS; c->run != NULL && st == SD_OK; c++)
        if (selected(cfg, &c->info))
            st = c->run(&v, err);
    if (st != SD_OK) {
        sd_table_free(v.t);
        return st;
    }
    *out = v.t;
    *passed = v.passed;
    return SD_OK;
}
