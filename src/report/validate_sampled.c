/* validate_sampled.c -- the checks of validate whose rows are statistical
 * (1-15 and 21): the engine's measurements against the closed forms of
 * theory.h, means within 6 standard errors and distributions by
 * chi-square, each with its negative control. */
#include "validate_impl.h"
#include "mc/verify_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "specdec/dist.h"
#include "specdec/gof.h"
#include "specdec/theory.h"
#include "specdec/verify.h"

/* The seed's four-token example ("Why do we sample from the adjusted
 * distribution?"): tokens A-D, beta = 0.55 (also data/four-token-*.txt). */
static const double FOUR_P[] = { 0.50, 0.10, 0.30, 0.10 }, FOUR_Q[] = { 0.20, 0.40, 0.15, 0.25 };
enum { FOUR = sizeof FOUR_P / sizeof FOUR_P[0] };

/* ---- 1, 2, 14: the output distribution, position by position --------------------- */

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
static sd_status output_model(const sd_validate_ctx *v, sd_model **m, double *marg, sd_error *err)
{
    sd_synth_config sc = sd_validate_synth(v, POS_VOCAB, 0.6, SD_REGIME_CONSTANT);
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
static sd_status output_rows(sd_validate_ctx *v, sd_engine_config ec, const char *name, int per_position,
                             sd_validate_kind kind, sd_error *err)
{
    double marg[POS * POS_VOCAB];
    sd_model *m = NULL;
    sd_engine_stats s;
    sd_status st = output_model(v, &m, marg, err);
    if (st != SD_OK)
        return st;
    ec.model = m;
    ec.seq_tokens = POS;
    ec.positions = POS;
    if ((st = sd_engine_run(&ec, &s, err)) != SD_OK) {
        sd_model_free(m);
        return st;
    }
    double total_stat = 0.0, total_dof = 0.0;
    for (size_t j = 0; j < POS && st == SD_OK; j++) {
        double stat = 0.0, dof = 0.0;
        sd_gof_chisq(s.pos_counts + j * POS_VOCAB, marg + j * POS_VOCAB, POS_VOCAB, &stat, &dof);
        total_stat += stat;
        total_dof += dof;
        if (per_position) {
            char row[160];
            snprintf(row, sizeof row, "%s %zu (adjusted, chi-square)", name, j + 1);
            st = sd_validate_chisq_row(v, row, stat, dof, (double)s.sequences, kind, err);
        }
    }
    if (!per_position && st == SD_OK)
        st = sd_validate_chisq_row(v, name, total_stat, total_dof, (double)s.sequences, kind, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

sd_status sd_validate_check_output(sd_validate_ctx *v, sd_error *err)
{
    sd_engine_config ec = sd_validate_engine(v, NULL, "adjusted", 1e6);
    ec.gamma = 3;
    return output_rows(v, ec, "1. output = p at position", 1, SD_VALIDATE_CHECK, err);
}

sd_status sd_validate_check_case1(sd_validate_ctx *v, sd_error *err)
{
    sd_engine_config ec = sd_validate_engine(v, NULL, "target", 1e6);
    ec.gamma = 3;
    return output_rows(v, ec, "2. control: target (Case 1) caught as biased, positions 1-4", 0, SD_VALIDATE_CONTROL,
                       err);
}

sd_status sd_validate_check_adaptive(sd_validate_ctx *v, sd_error *err)
{
    sd_engine_config ec = sd_validate_engine(v, NULL, "adjusted", 1e6);
    ec.policy = SD_POLICY_HEURISTIC;
    ec.gamma = 2;
    ec.gamma_max = 8;
    sd_status st = output_rows(v, ec, "14. heuristic +2/-1 draft length: output = p at positions 1-4 (chi-square)", 0,
                               SD_VALIDATE_CHECK, err);
    ec.policy = SD_POLICY_THRESHOLD;
    ec.gamma = 3;
    ec.threshold = 0.35;
    if (st == SD_OK)
        st = output_rows(v, ec, "14. threshold 0.35 draft length: output = p at positions 1-4 (chi-square)", 0,
                         SD_VALIDATE_CHECK, err);
    return st;
}

/* ---- 3: one-step acceptance = beta (eq. 1) ------------------------------------ */

sd_status sd_validate_check_acceptance(sd_validate_ctx *v, sd_error *err)
{
    /* the four-token example, beta = 0.55 */
    sd_model *m = NULL;
    sd_status st = sd_model_pair(FOUR_P, FOUR_Q, FOUR, &m, err);
    if (st != SD_OK)
        return st;
    double beta = sd_dist_overlap(FOUR_P, FOUR_Q, FOUR);
    sd_engine_stats s;
    if ((st = sd_validate_fixed_run(v, m, "adjusted", 1, 1e6, &s, err)) == SD_OK) {
        double n = (double)s.verified, rate = (double)s.accepted / n, se = sqrt(beta * (1 - beta) / n);
        st = sd_validate_z_row(v, "3. acceptance = beta = sum min(p, q) (eq. 1, four-token example)", beta, rate, se,
                               n, SD_VALIDATE_CHECK, err);
        if (st == SD_OK)
            st = sd_validate_z_row(v, "3. control: acceptance = beta + 0.01", beta + 0.01, rate, se, n,
                                   SD_VALIDATE_CONTROL, err);
        sd_engine_stats_free(&s);
    }
    sd_model_free(m);
    return st;
}

/* ---- 4-7: N, E(N), improvement and FLOPs at alpha = 0.8, gamma = 5 ---------------- */

sd_status sd_validate_check_iteration(sd_validate_ctx *v, sd_error *err)
{
    enum { G = 5 };
    const double cost = 0.02, mu = 0.05;
    sd_synth_config sc = sd_validate_synth(v, SD_VALIDATE_VOCAB, SD_VALIDATE_ALPHA, SD_REGIME_CONSTANT);
    sd_model *m = NULL;
    sd_status st = sd_synth_model(&sc, &m, err);
    if (st != SD_OK)
        return st;
    sd_engine_stats s;
    if ((st = sd_validate_fixed_run(v, m, "adjusted", G, 2e6, &s, err)) != SD_OK) {
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
    st = sd_validate_chisq_row(v, "4. N follows eqs. (2)-(3) at alpha_hat (chi-square)", stat, dof, it,
                               SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_chisq_row(v, "4. control: N against eqs. (2)-(3) at alpha_hat - 0.02", wstat, wdof, it,
                                   SD_VALIDATE_CONTROL, err);

    /* 5: mean tokens per iteration against eq. (4), and against the same sum without the bonus token */
    double mean = sd_engine_stats_mean_n(&s), se = sd_engine_stats_mean_n_se(&s);
    double en = sd_theory_expected_tokens(a, G);
    if (st == SD_OK)
        st = sd_validate_mean_n_row(v, "5. tokens per iteration = E(N), eq. (4) at alpha_hat", en, &s,
                                    SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_mean_n_row(v, "5. control: E(N) without the bonus token", en - pow(a, G), &s,
                                    SD_VALIDATE_CONTROL, err);

    /* 6: measured improvement in cost units against eq. (10) */
    double cf = (double)s.target_calls + cost * (double)s.draft_calls;
    double f_hat = (double)s.tokens / cf, f_se = se * it / cf;
    if (st == SD_OK)
        st = sd_validate_z_row(v, "6. tokens / (target calls + c draft calls) = eq. (10), c = 0.02",
                               sd_theory_improvement(a, G, cost), f_hat, f_se, it, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_z_row(v, "6. control: eq. (10) charging c for the target call too",
                               en / (1 + (G + 1) * cost), f_hat, f_se, it, SD_VALIDATE_CONTROL, err);

    /* 7: measured FLOP factor against eq. (11) */
    double ops = mu * (double)s.draft_calls + (double)s.target_positions;
    double flop = ops / (double)s.tokens, flop_se = flop * se / mean;
    if (st == SD_OK)
        st = sd_validate_z_row(v, "7. (mu draft calls + target positions) / tokens = eq. (11), mu = 0.05",
                               sd_theory_flop_factor(a, G, mu), flop, flop_se, it, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_z_row(v, "7. control: eq. (11) with gamma target positions, not gamma + 1",
                               (G * mu + G) / en, flop, flop_se, it, SD_VALIDATE_CONTROL, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 8: a sweep over gamma finds the closed-form optimum -------------------------- */

sd_status sd_validate_check_sweep(sd_validate_ctx *v, sd_error *err)
{
    const double alpha = SD_VALIDATE_ALPHA, cost = 0.02;
    sd_optimum o;
    sd_status st = sd_theory_optimal(alpha, cost, &o, err);
    if (st != SD_OK)
        return st;
    size_t gmax = (size_t)(2 * o.gamma_opt);
    sd_synth_config sc = sd_validate_synth(v, SD_VALIDATE_VOCAB, alpha, SD_REGIME_CONSTANT);
    sd_model *m = NULL;
    if ((st = sd_synth_model(&sc, &m, err)) != SD_OK)
        return st;
    double *f = calloc(gmax + 1, sizeof *f), *se = calloc(gmax + 1, sizeof *se), samples = 0;
    if (f == NULL || se == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    size_t best = 1;
    for (size_t g = 1; g <= gmax && st == SD_OK; g++) {
        sd_engine_stats s;
        if ((st = sd_validate_fixed_run(v, m, "adjusted", g, 3e5, &s, err)) != SD_OK)
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
        st = sd_validate_add_row(v, "8. sweep gamma = 1..22: gamma_opt = 11 is best within 6 sigma (c = 0.02)",
                                 o.gamma_opt, (double)best, SD_VALIDATE_Z_LIMIT * gse,
                                 2.0 * gsl_cdf_ugaussian_Q(gap / gse), samples, gap <= SD_VALIDATE_Z_LIMIT * gse,
                                 SD_VALIDATE_CHECK, err);
        double bgap = f[best] - f[bad], bse = sqrt(se[best] * se[best] + se[bad] * se[bad]);
        if (st == SD_OK)
            st = sd_validate_add_row(v, "8. control: gamma = gamma_opt / 2 = 5 claimed best", (double)bad,
                                     (double)best, SD_VALIDATE_Z_LIMIT * bse, 2.0 * gsl_cdf_ugaussian_Q(bgap / bse),
                                     samples, bgap <= SD_VALIDATE_Z_LIMIT * bse, SD_VALIDATE_CONTROL, err);
    }
    free(f);
    free(se);
    sd_model_free(m);
    return st;
}

/* ---- 9: drafting until the first rejection reaches the oracle ceiling ------------- */

sd_status sd_validate_check_oracle(sd_validate_ctx *v, sd_error *err)
{
    sd_synth_config sc = sd_validate_synth(v, SD_VALIDATE_VOCAB, SD_VALIDATE_ALPHA, SD_REGIME_CONSTANT);
    sd_model *m;
    sd_engine_stats s;
    sd_engine_config ec = sd_validate_engine(v, NULL, "adjusted", 1e6);
    ec.policy = SD_POLICY_ORACLE;
    sd_status st = sd_validate_model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    st = sd_validate_mean_n_row(v, "9. oracle (draft until rejection) = 1 / (1 - alpha_hat)",
                                sd_theory_ceiling(s.alpha_hat), &s, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_mean_n_row(v, "9. control: oracle = E(N) at the fixed gamma_opt = 11",
                                    sd_theory_expected_tokens(s.alpha_hat, 11), &s, SD_VALIDATE_CONTROL, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 10: alpha_hat over 10K tokens (eq. 7) = the acceptance rate ------------------ */

sd_status sd_validate_check_alpha_hat(sd_validate_ctx *v, sd_error *err)
{
    sd_synth_config sc = sd_validate_synth(v, SD_VALIDATE_VOCAB, SD_VALIDATE_ALPHA, SD_REGIME_BETA);
    sd_model *m = NULL;
    sd_status st = sd_synth_model(&sc, &m, err);
    if (st != SD_OK)
        return st;
    double var_beta = 0.0, mean_beta = sd_verify_mean_acceptance(sd_verify_find("adjusted"), m);
    for (size_t c = 0; c < sd_model_contexts(m); c++)
        var_beta += pow(sd_model_context(m, c)->beta - mean_beta, 2) / (double)sd_model_contexts(m);
    sd_engine_stats s;
    sd_validate_ctx one = *v;
    one.scale = 1.0; /* the paper's procedure: 10K tokens */
    if ((st = sd_validate_fixed_run(&one, m, "adjusted", 5, 1e4, &s, err)) == SD_OK) {
        double n = (double)s.verified, rate = (double)s.accepted / n, a = s.alpha_hat;
        /* Bernoulli noise given the contexts, plus the positions the two averages do not share */
        double se = sqrt(a * (1 - a) / n + var_beta / (double)s.tokens);
        st = sd_validate_z_row(v, "10. acceptance rate = alpha_hat over 10K tokens (eq. 7, Beta-distributed beta)", a,
                               rate, se, n, SD_VALIDATE_CHECK, err);
        double per_drafted = (double)s.accepted / (double)s.draft_calls;
        if (st == SD_OK)
            st = sd_validate_z_row(v, "10. control: accepted / drafted taken for alpha", per_drafted, rate, se, n,
                                   SD_VALIDATE_CONTROL, err);
        sd_engine_stats_free(&s);
    }
    sd_model_free(m);
    return st;
}

/* ---- 11: correlated (Markov) acceptance: the i.i.d. formula's error --------------- */

sd_status sd_validate_check_markov(sd_validate_ctx *v, sd_error *err)
{
    enum { G = 5 };
    sd_synth_config sc = sd_validate_synth(v, SD_VALIDATE_VOCAB, NAN, SD_REGIME_MARKOV);
    sd_model *m;
    sd_engine_stats s;
    sd_engine_config ec = sd_validate_engine(v, NULL, "adjusted", 1e6);
    ec.gamma = G;
    sd_status st = sd_validate_model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    const sd_markov mk = { .a_easy = sc.alpha_easy, .a_hard = sc.alpha_hard, .stay = sc.stay };
    double exact = sd_theory_markov_expected_tokens(&mk, G);
    double iid = sd_theory_expected_tokens(sd_theory_markov_mean_alpha(&mk), G);
    st = sd_validate_mean_n_row(v, "11. markov acceptance (0.95 / 0.3, stay 0.9): transfer-matrix E(N) = measured",
                                exact, &s, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_mean_n_row(v, "11. control: markov E(N) with the i.i.d. eq. (4) at the mean alpha 0.625",
                                    iid, &s, SD_VALIDATE_CONTROL, err);
    if (st == SD_OK) /* the finding: how far the i.i.d. formula is off, relative */
        st = sd_validate_add_row(v, "11. finding: relative error of the i.i.d. eq. (4) at the same mean alpha", 0.0,
                                 iid / exact - 1.0, 0.0, 1.0, (double)s.iterations, 1, SD_VALIDATE_FINDING, err);
    sd_gof g;
    if (st == SD_OK && (st = sd_gof_output(m, sd_verify_find("adjusted"), &s, &g, err)) == SD_OK)
        st = sd_validate_chisq_row(v, "11. markov acceptance: output = p given the context (chi-square)",
                                   g.statistic, g.dof, (double)s.tokens, SD_VALIDATE_CHECK, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 12: block verification emits more, 13: k drafts follow eq. (4) at alpha_k ---- */

sd_status sd_validate_check_block(sd_validate_ctx *v, sd_error *err)
{
    /* the paper's reference pair p = (1/3, 2/3), q = (2/3, 1/3), gamma = 2 */
    const double p[] = { 1.0 / 3, 2.0 / 3 }, q[] = { 2.0 / 3, 1.0 / 3 };
    sd_model *pair = NULL, *zipf = NULL;
    sd_synth_config sc = sd_validate_synth(v, SD_VALIDATE_VOCAB, SD_VALIDATE_ALPHA, SD_REGIME_CONSTANT);
    sd_status st;
    if ((st = sd_model_pair(p, q, 2, &pair, err)) != SD_OK || (st = sd_synth_model(&sc, &zipf, err)) != SD_OK) {
        sd_model_free(pair);
        return st;
    }
    const sd_model *models[] = { pair, zipf };
    static const size_t gammas[] = { 2, 5 };
    for (int i = 0; i < 2 && st == SD_OK; i++) {
        sd_engine_stats tw, bl;
        if ((st = sd_validate_fixed_run(v, models[i], "adjusted", gammas[i], 1e6, &tw, err)) != SD_OK)
            break;
        if ((st = sd_validate_fixed_run(v, models[i], "block", gammas[i], 1e6, &bl, err)) != SD_OK) {
            sd_engine_stats_free(&tw);
            break;
        }
        if (i == 0) {
            st = sd_validate_mean_n_row(v, "12. block, reference pair, gamma 2: tokens per iteration = 1 + 11/9",
                                        1 + 11.0 / 9, &bl, SD_VALIDATE_CHECK, err);
            if (st == SD_OK)
                st = sd_validate_mean_n_row(v, "12. token-wise, reference pair, gamma 2: "
                                               "tokens per iteration = 1 + 10/9",
                                            1 + 10.0 / 9, &tw, SD_VALIDATE_CHECK, err);
            if (st == SD_OK)
                st = sd_validate_mean_n_row(v, "12. control: block at the token-wise 1 + 10/9", 1 + 10.0 / 9, &bl,
                                            SD_VALIDATE_CONTROL, err);
        }
        /* one-sided: block must not fall 6 sigma below token-wise */
        double gap = sd_engine_stats_mean_n(&bl) - sd_engine_stats_mean_n(&tw);
        double se = sqrt(pow(sd_engine_stats_mean_n_se(&bl), 2) + pow(sd_engine_stats_mean_n_se(&tw), 2));
        const char *name = i == 0 ? "12. block >= token-wise tokens per iteration (reference pair)"
                                  : "12. block >= token-wise tokens per iteration (zipf, alpha 0.8, gamma 5)";
        if (st == SD_OK)
            st = sd_validate_add_row(v, name, sd_engine_stats_mean_n(&tw), sd_engine_stats_mean_n(&bl),
                                     -SD_VALIDATE_Z_LIMIT * se, gsl_cdf_ugaussian_P(gap / se), (double)bl.iterations,
                                     gap >= -SD_VALIDATE_Z_LIMIT * se, SD_VALIDATE_CHECK, err);
        if (st == SD_OK && i == 0) /* the same one-sided test the other way round must fail */
            st = sd_validate_add_row(v, "12. control: token-wise >= block tokens per iteration (reference pair)",
                                     sd_engine_stats_mean_n(&bl), sd_engine_stats_mean_n(&tw),
                                     -SD_VALIDATE_Z_LIMIT * se, gsl_cdf_ugaussian_P(-gap / se), (double)tw.iterations,
                                     -gap >= -SD_VALIDATE_Z_LIMIT * se, SD_VALIDATE_CONTROL, err);
        sd_engine_stats_free(&tw);
        sd_engine_stats_free(&bl);
    }
    sd_model_free(pair);
    sd_model_free(zipf);
    sd_engine_config ec = sd_validate_engine(v, NULL, "block", 1e6);
    ec.gamma = 3;
    if (st == SD_OK)
        st = output_rows(v, ec, "12. block verification: output = p at positions 1-4 (chi-square)", 0,
                         SD_VALIDATE_CHECK, err);
    return st;
}

sd_status sd_validate_check_drafts(sd_validate_ctx *v, sd_error *err)
{
    sd_synth_config sc = sd_validate_synth(v, 200, 0.6, SD_REGIME_CONSTANT);
    sd_model *m;
    sd_engine_stats s;
    sd_engine_config ec = sd_validate_engine(v, NULL, "adjusted", 1e6);
    ec.drafts = 3;
    ec.gamma = 4;
    sd_status st = sd_validate_model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    /* alpha_hat here is the mean over visited prefixes of the 3-draft acceptance (dist.h) */
    st = sd_validate_mean_n_row(v, "13. three drafts: tokens per iteration = eq. (4) at the 3-draft acceptance",
                                sd_theory_expected_tokens(s.alpha_hat, 4), &s, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_mean_n_row(v, "13. control: three drafts at the one-draft alpha 0.6",
                                    sd_theory_expected_tokens(0.6, 4), &s, SD_VALIDATE_CONTROL, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    ec.drafts = 3;
    ec.gamma = 3;
    if (st == SD_OK)
        st = output_rows(v, ec, "13. three drafts per position: output = p at positions 1-4 (chi-square)", 0,
                         SD_VALIDATE_CHECK, err);
    return st;
}

/* ---- 15: engine metrics both ways ----------------------------------------------------- */

sd_status sd_validate_check_metrics(sd_validate_ctx *v, sd_error *err)
{
    enum { G = 6 };
    sd_synth_config sc = sd_validate_synth(v, SD_VALIDATE_VOCAB, 0.7, SD_REGIME_CONSTANT);
    sd_model *m;
    sd_engine_stats s;
    sd_engine_config ec = sd_validate_engine(v, NULL, "adjusted", 1e6);
    ec.gamma = G;
    sd_status st = sd_validate_model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    /* accepted / drafted, as serving engines count it, against (E(N) - 1) / gamma at alpha_hat */
    double rate = (double)s.accepted / (double)s.draft_calls, se = sd_engine_stats_mean_n_se(&s) / G;
    st = sd_validate_z_row(v, "15. engine acceptance rate (accepted / drafted) = (E(N) - 1) / gamma",
                           (sd_theory_expected_tokens(s.alpha_hat, G) - 1) / G, rate, se, (double)s.iterations,
                           SD_VALIDATE_CHECK, err);
    /* alpha from the measured mean acceptance length, through the Brent inversion of eq. (4) */
    double a_back;
    if (st == SD_OK && (st = sd_theory_alpha_from_length(sd_engine_stats_mean_n(&s), G, &a_back, err)) == SD_OK) {
        double h = 1e-6, slope = (sd_theory_expected_tokens(s.alpha_hat + h, G) -
                                  sd_theory_expected_tokens(s.alpha_hat - h, G)) / (2 * h);
        double ase = sd_engine_stats_mean_n_se(&s) / slope; /* the delta method */
        st = sd_validate_z_row(v, "15. alpha from the mean acceptance length = alpha_hat", s.alpha_hat, a_back, ase,
                               (double)s.iterations, SD_VALIDATE_CHECK, err);
        if (st == SD_OK)
            st = sd_validate_z_row(v, "15. control: accepted / drafted taken for alpha", rate, a_back, ase,
                                   (double)s.iterations, SD_VALIDATE_CONTROL, err);
    }
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 21, 22: rules whose rejection draws from p with the draft removed ------------------ */

/* The rows numbered num of rule (deterministic-draft, exact-match), which
 * accepts draft x with probability p(x) and otherwise draws from p with x
 * removed: output = p at positions 1-4, with resampling from p itself (x
 * not removed) as the control -- it emits extra mass where the drafts go;
 * then on the four-token example, run at draft length gamma into *s and
 * *m (the caller frees both when SD_OK), the acceptance = the rule's own,
 * named what, with sum min(p, q) = 0.55 (eq. 1) as the control.  Every
 * verified draft is one Bernoulli trial, so the rate's SE is binomial. */
static sd_status x_removed_rows(sd_validate_ctx *v, int num, const char *rule, const char *what, size_t gamma,
                                sd_model **m, sd_engine_stats *s, sd_error *err)
{
    const sd_verifier *vr = sd_verify_find(rule);
    sd_verifier kept = *vr;
    kept.resample = sd_verify_find("target")->resample;
    sd_engine_config ec = sd_validate_engine(v, NULL, rule, 1e6);
    ec.gamma = 3;
    char name[160];
    snprintf(name, sizeof name, "%d. %s: output = p at positions 1-4 (chi-square)", num, rule);
    sd_status st = output_rows(v, ec, name, 0, SD_VALIDATE_CHECK, err);
    ec.verifier = &kept;
    snprintf(name, sizeof name, "%d. control: %s resampling from p with x kept caught as biased", num, rule);
    if (st == SD_OK)
        st = output_rows(v, ec, name, 0, SD_VALIDATE_CONTROL, err);
    *m = NULL;
    if (st != SD_OK || (st = sd_model_pair(FOUR_P, FOUR_Q, FOUR, m, err)) != SD_OK)
        return st;
    double a = sd_verify_acceptance(vr, sd_model_context(*m, 0)), beta = sd_dist_overlap(FOUR_P, FOUR_Q, FOUR);
    if ((st = sd_validate_fixed_run(v, *m, rule, gamma, 1e6, s, err)) == SD_OK) {
        double n = (double)s->verified, rate = (double)s->accepted / n, se = sqrt(a * (1 - a) / n);
        snprintf(name, sizeof name, "%d. %s: acceptance = %s (four-token example)", num, rule, what);
        st = sd_validate_z_row(v, name, a, rate, se, n, SD_VALIDATE_CHECK, err);
        snprintf(name, sizeof name, "%d. control: acceptance = sum min(p, q) (eq. 1)", num);
        if (st == SD_OK)
            st = sd_validate_z_row(v, name, beta, rate, se, n, SD_VALIDATE_CONTROL, err);
        if (st != SD_OK)
            sd_engine_stats_free(s);
    }
    if (st != SD_OK) {
        sd_model_free(*m);
        *m = NULL;
    }
    return st;
}

/* 21: deterministic-draft (vLLM's rule for drafters without probabilities): q's argmax B
 * is accepted with p(B) = 0.1 on the four-token example. */
sd_status sd_validate_check_deterministic_draft(sd_validate_ctx *v, sd_error *err)
{
    sd_model *m;
    sd_engine_stats s;
    sd_status st = x_removed_rows(v, 21, "deterministic-draft", "p(argmax q)", 1, &m, &s, err);
    if (st == SD_OK) {
        sd_engine_stats_free(&s);
        sd_model_free(m);
    }
    return st;
}

/* 22: exact-match (vLLM's strict mode, mlx-lm's default): acceptance sum p q = 0.21 on the
 * four-token example, and at gamma = 4 tokens per iteration = eq. (4) at it (the control:
 * eq. (4) at beta). */
sd_status sd_validate_check_exact_match(sd_validate_ctx *v, sd_error *err)
{
    sd_model *m;
    sd_engine_stats s;
    sd_status st = x_removed_rows(v, 22, "exact-match", "sum p q", 4, &m, &s, err);
    if (st != SD_OK)
        return st;
    double a = sd_verify_acceptance(sd_verify_find("exact-match"), sd_model_context(m, 0));
    double beta = sd_dist_overlap(FOUR_P, FOUR_Q, FOUR);
    st = sd_validate_mean_n_row(v, "22. exact-match: tokens per iteration = eq. (4) at sum p q, gamma = 4",
                                sd_theory_expected_tokens(a, 4), &s, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_mean_n_row(v, "22. control: tokens per iteration = eq. (4) at beta",
                                    sd_theory_expected_tokens(beta, 4), &s, SD_VALIDATE_CONTROL, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 23: token trees ---------------------------------------------------------------------------- */

/* The tree of check 23: depth 4, widths 3, 3, 1, 1 (ranks up to 2 under the root). */
static const char TREE23[] = "[(0,), (1,), (2,), (0, 0), (0, 1), (1, 0), (0, 0, 0), (0, 0, 0, 0)]";

/* 23: the engine drafting a real tree (engine.h), verified from the root down: output = p
 * at positions 1-4 for both kinds of children, with a verifier that forgets to renormalise
 * after a rejected sibling as the control; tokens per target pass = (T1) (tree.h) on the
 * four-token pair, whose one context makes (T1) exact, with the other kind's (T1) as the
 * control. */
sd_status sd_validate_check_tree(sd_validate_ctx *v, sd_error *err)
{
    sd_tree t;
    sd_status st = sd_tree_parse(TREE23, NULL, &t, "validate", err);
    if (st != SD_OK)
        return st;
    sd_engine_config ec = sd_validate_engine(v, NULL, "adjusted", 1e6);
    ec.tree = &t;
    ec.gamma = sd_tree_depth(&t);
    static const struct {
        sd_children kind;
        const char *name;
        sd_validate_kind verdict;
    } OUT[] = {
        { SD_CHILDREN_TOP_K, "23. tree, top-k children: output = p at positions 1-4 (chi-square)", SD_VALIDATE_CHECK },
        { SD_CHILDREN_SAMPLED, "23. tree, sampled children: output = p at positions 1-4 (chi-square)",
          SD_VALIDATE_CHECK },
        { SD_CHILDREN_TOP_K_UNNORMALISED,
          "23. control: top-k accepting with r(x), not renormalised after a rejected sibling, caught as biased",
          SD_VALIDATE_CONTROL },
    };
    for (size_t i = 0; i < sizeof OUT / sizeof *OUT && st == SD_OK; i++) {
        ec.children = OUT[i].kind;
        st = output_rows(v, ec, OUT[i].name, 0, OUT[i].verdict, err);
    }
    sd_model *m = NULL;
    if (st != SD_OK || (st = sd_model_pair(FOUR_P, FOUR_Q, FOUR, &m, err)) != SD_OK)
        return st;
    ec.model = m;
    double theory[2];
    sd_tree_accept acc;
    for (int k = 0; k < 2 && st == SD_OK; k++) {
        ec.children = k ? SD_CHILDREN_SAMPLED : SD_CHILDREN_TOP_K;
        st = sd_engine_tree_theory(&ec, NULL, &acc, &theory[k], err);
    }
    for (int k = 0; k < 2 && st == SD_OK; k++) {
        sd_engine_stats s;
        ec.children = k ? SD_CHILDREN_SAMPLED : SD_CHILDREN_TOP_K;
        if ((st = sd_engine_run(&ec, &s, err)) != SD_OK)
            break;
        st = sd_validate_mean_n_row(v,
                                    k ? "23. sampled children: tokens per target pass = (T1), four-token pair"
                                      : "23. top-k children: tokens per target pass = (T1), four-token pair",
                                    theory[k], &s, SD_VALIDATE_CHECK, err);
        if (st == SD_OK)
            st = sd_validate_mean_n_row(v,
                                        k ? "23. control: the sampled run against top-k's (T1)"
                                          : "23. control: the top-k run against sampled children's (T1)",
                                        theory[1 - k], &s, SD_VALIDATE_CONTROL, err);
        sd_engine_stats_free(&s);
    }
    sd_model_free(m);
    return st;
}
